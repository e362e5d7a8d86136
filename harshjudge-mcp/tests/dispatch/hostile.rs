//! Hostile input to the agent toolkit: recordings whose names, descriptions
//! and arguments try to escape the Rust that `record_export` generates, and
//! oversized arguments that must not blow up the recording or the replies.

use std::path::{Path, PathBuf};

#[path = "../../../tests/support/rlibs.rs"]
mod rlibs;

use harshjudge_mcp::{Context, call};
use serde_json::{Value, json};

fn project() -> (tempfile::TempDir, Context) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    let out = call(
        &ctx,
        "initProject",
        Some(json!({"projectName": "Hostile", "baseUrl": "http://127.0.0.1:9"})),
    );
    assert!(!out.is_error(), "{}", out.value);
    (dir, ctx)
}

fn ok(ctx: &Context, tool: &str, args: Value) -> Value {
    let out = call(ctx, tool, Some(args));
    assert!(!out.is_error(), "{tool} failed: {}", out.value);
    out.value
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Each string breaks out of a `"…"` literal, a `//` or `///` comment, a
/// block comment or a raw string, and puts a `compile_error!` where it would
/// then be live code; plus characters rustc refuses in comments (bidi
/// controls, a bare CR) and ordinary non-ASCII text.
fn hostile(tag: &str) -> String {
    format!(
        "{tag}\"); compile_error!(\"INJECTED {tag} 1\"); (\"\n\
         compile_error!(\"INJECTED {tag} 2\");\n\
         */ compile_error!(\"INJECTED {tag} 3\"); /* \"# \"## r#\" #\" \\ \\\" \
         \u{202e}evil\u{2066} \u{2028} caf\u{e9} \u{1f389} \r bare-cr \t tab \0 nul"
    )
}

#[test]
fn record_export_escapes_every_string_it_writes_and_the_export_compiles() {
    let (_dir, ctx) = project();
    let id = ok(
        &ctx,
        "record_start",
        json!({"name": hostile("name"), "description": hostile("description")}),
    )["sequenceId"]
        .as_str()
        .unwrap()
        .to_string();
    ok(&ctx, "record_stop", json!({}));
    // The recorded calls, as a sequence file shared through git could hold them.
    let path = ctx
        .root()
        .join(".harshJudge/sequences")
        .join(format!("{id}.json"));
    let mut seq: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let call = |tool: &str, args: Value| json!({"tool": tool, "args": args, "ok": true, "durationMs": 1.0});
    let mut locator = call("browser_click", json!({"ref": "e1"}));
    locator["locator"] = hostile("locator").into();
    seq["calls"] = Value::Array(vec![
        call("browser_navigate", json!({"url": hostile("url")})),
        call(
            "browser_type",
            json!({"selector": hostile("selector"), "text": hostile("text"), "submit": true}),
        ),
        call("browser_click", json!({"testId": hostile("testid")})),
        locator,
        call("browser_press", json!({"key": hostile("key")})),
        call(
            "browser_wait_for",
            json!({"selector": hostile("wait"), "text": hostile("wait-text")}),
        ),
        call(
            "browser_wait_for",
            json!({"text": hostile("wait-only-text")}),
        ),
        call(
            "browser_click",
            json!({"role": hostile("role"), "name": hostile("name-arg"), "exact": true, "nth": 1}),
        ),
        call(
            "browser_type",
            json!({"label": hostile("label"), "text": "x"}),
        ),
        call(
            "browser_click",
            json!({"placeholder": hostile("placeholder")}),
        ),
        call("browser_click", json!({"altText": hostile("alt")})),
        call(
            "browser_press",
            json!({"title": hostile("title"), "key": "Enter"}),
        ),
        call("browser_click", json!({"text": hostile("text-target")})),
        call(
            "browser_expect",
            json!({"testId": "t", "assertion": "to_have_text", "expected": [hostile("list"), {"regex": hostile("regex")}]}),
        ),
        call(
            "browser_expect",
            json!({"testId": "t", "assertion": "to_have_attribute", "attribute": hostile("attribute"), "expected": hostile("value"), "not": true}),
        ),
        call(
            "browser_expect",
            json!({"assertion": "to_have_url", "expected": {"regex": hostile("url-regex")}}),
        ),
        call(&hostile("tool"), json!({})),
    ]);
    std::fs::write(&path, serde_json::to_vec(&seq).unwrap()).unwrap();

    let out = ok(
        &ctx,
        "record_export",
        json!({"sequenceId": id, "functionName": "hostile"}),
    );
    let source = std::fs::read_to_string(ctx.root().join(out["path"].as_str().unwrap())).unwrap();
    assert!(
        source.is_ascii() && !source.contains('\r') && !source.contains('\0'),
        "every hostile character is escaped:\n{source}"
    );

    // Compile it as a user's crate depending on harshjudge would be: rustc
    // against the harshjudge this test's own build made (no second build).
    let krate = tempfile::tempdir().unwrap();
    std::fs::write(krate.path().join("hostile.rs"), &source).unwrap();
    let main_rs = krate.path().join("main.rs");
    std::fs::write(&main_rs, "mod hostile;\n\nharshjudge::main!();\n").unwrap();
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    let externs = rlibs::rlibs(&workspace(), target_dir, "dispatch", &["harshjudge"]);
    let check = rlibs::check_bin(&main_rs, &externs);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(
        check.status.success(),
        "the hostile export does not compile:\n{stderr}\n--- the export:\n{source}"
    );
    assert!(!stderr.contains("INJECTED"), "{stderr}");
    // Each hostile value survives as data: its escaped form is in the file.
    for tag in [
        "url",
        "text",
        "testid",
        "locator",
        "key",
        "wait-text",
        "role",
        "name-arg",
        "label",
        "placeholder",
        "alt",
        "title",
        "text-target",
        "list",
        "regex",
        "attribute",
        "value",
        "url-regex",
    ] {
        assert!(
            source.contains(&harshjudge_mcp::tools::export::escape_rust(&hostile(tag))),
            "{tag} is kept verbatim (escaped):\n{source}"
        );
    }
}

/// The bytes an MCP client receives for one call (the `tools/call` result).
fn wire_size(out: harshjudge_mcp::Outcome) -> usize {
    serde_json::to_string(&harshjudge_mcp::server::to_result(out))
        .unwrap()
        .len()
}

#[test]
fn errors_echo_at_most_a_few_hundred_characters_of_a_bad_value() {
    let (_dir, ctx) = project();
    let big = "x".repeat(1 << 20);
    let cases = [
        // A handler's own message quoting the value.
        (
            "createScenario",
            json!({"slug": big, "title": "t", "steps": []}),
        ),
        // serde: invalid type (a string where a number goes).
        (
            "recordEvidence",
            json!({"runId": "r", "step": big, "type": "custom", "name": "n", "data": "d"}),
        ),
        // serde: unknown variant, quoted in backticks.
        (
            "recordEvidence",
            json!({"runId": "r", "step": 1, "type": big, "name": "n", "data": "d"}),
        ),
        // A value full of characters that escaping makes longer.
        (
            "startRun",
            json!({"scenarioSlug": "\"\\\n".repeat(1 << 18)}),
        ),
    ];
    for (tool, args) in cases {
        let out = call(&ctx, tool, Some(args));
        assert!(out.is_error(), "{tool}: {}", out.value);
        let message = out.value["error"].as_str().unwrap().to_string();
        let size = wire_size(out);
        println!(
            "{tool} with a 1 MB argument: error message {} characters, reply {size} bytes",
            message.chars().count()
        );
        assert!(
            size < 8 * 1024,
            "{tool}: a 1 MB argument gives a {size}-byte reply: {}",
            &message[..message.len().min(500)]
        );
        assert!(message.contains("characters in all"), "{message}");
    }
}

#[test]
fn a_recording_keeps_large_values_as_their_size_and_caps_its_length() {
    let (_dir, ctx) = project();
    ok(
        &ctx,
        "createScenario",
        json!({"slug": "big", "title": "Big", "steps": [{"title": "s", "actions": "a", "expectedOutcome": "e"}]}),
    );
    let run = ok(&ctx, "startRun", json!({"scenarioSlug": "big"}))["runId"]
        .as_str()
        .unwrap()
        .to_string();
    ok(&ctx, "record_start", json!({"name": "big values"}));
    let big = "y".repeat(1 << 20);
    for i in 0..5 {
        ok(
            &ctx,
            "recordEvidence",
            json!({"runId": run, "step": 1, "type": "custom", "name": format!("big{i}"), "data": big}),
        );
    }
    // A failing call with a huge value is recorded bounded too.
    let _ = call(&ctx, "startRun", Some(json!({"scenarioSlug": big})));
    let stop = ok(&ctx, "record_stop", json!({}));
    assert!(stop.get("warning").is_none(), "{stop}");
    let path = ctx.root().join(stop["path"].as_str().unwrap());
    let recorded = std::fs::metadata(&path).unwrap().len();
    println!("6 calls with a 1 MB argument each: sequence file {recorded} bytes");
    assert!(recorded < 16 * 1024, "{recorded} bytes recorded");
    let seq: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(seq["calls"].as_array().unwrap().len(), 6);
    assert_eq!(
        seq["calls"][0]["args"]["data"],
        json!({"$omitted": {"bytes": 1 << 20}})
    );
    assert_eq!(seq["calls"][0]["args"]["name"], "big0", "small values stay");

    // Replay says why it cannot send such a call again.
    let replay = ok(
        &ctx,
        "record_replay",
        json!({"sequenceId": stop["sequenceId"]}),
    );
    let err = replay["steps"][0]["error"].as_str().unwrap();
    assert!(
        err.contains("recorded without a value over 4096 bytes"),
        "{err}"
    );

    // The number of calls is capped, with a warning.
    ok(&ctx, "record_start", json!({"name": "long"}));
    let limit = harshjudge_mcp::agent::MAX_RECORDED_CALLS;
    for _ in 0..limit + 5 {
        let _ = call(&ctx, "toggleStar", Some(json!({"scenarioSlug": "big"})));
    }
    let stop = ok(&ctx, "record_stop", json!({}));
    assert_eq!(stop["calls"], limit);
    let w = stop["warning"].as_str().unwrap();
    assert!(w.contains("the last 5 calls were not recorded"), "{w}");
}
