//! Hostile input to the agent toolkit: recordings whose names, descriptions
//! and arguments try to escape the Rust that `record_export` generates, and
//! oversized arguments that must not blow up the recording or the replies.

use std::path::{Path, PathBuf};
use std::process::Command;

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
        call("browser_wait_for", json!({"text": hostile("wait-only-text")})),
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

    // Compile it as a user would: a crate of its own depending on harshjudge.
    let krate = tempfile::tempdir().unwrap();
    std::fs::create_dir(krate.path().join("src")).unwrap();
    std::fs::write(
        krate.path().join("Cargo.toml"),
        format!(
            "[package]\nname = \"hostile-export\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nharshjudge = {{ path = {:?} }}\n\n[workspace]\n",
            workspace().join("harshjudge")
        ),
    )
    .unwrap();
    // The workspace's lock file: the same dependency versions, built offline.
    std::fs::copy(
        workspace().join("Cargo.lock"),
        krate.path().join("Cargo.lock"),
    )
    .unwrap();
    std::fs::write(krate.path().join("src/hostile.rs"), &source).unwrap();
    std::fs::write(
        krate.path().join("src/main.rs"),
        "mod hostile;\n\nharshjudge::main!();\n",
    )
    .unwrap();
    let check = Command::new(env!("CARGO"))
        .current_dir(krate.path())
        .args(["check", "--offline", "--quiet", "--message-format", "short"])
        .env("CARGO_TARGET_DIR", workspace().join("target/nested-export"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(
        check.status.success(),
        "the hostile export does not compile:\n{stderr}\n--- the export:\n{source}"
    );
    assert!(!stderr.contains("INJECTED"), "{stderr}");
    // Each hostile value survives as data: its escaped form is in the file.
    for tag in ["url", "text", "testid", "locator", "key", "wait-text"] {
        assert!(
            source.contains(&harshjudge_mcp::tools::record::escape_rust(&hostile(tag))),
            "{tag} is kept verbatim (escaped):\n{source}"
        );
    }
}
