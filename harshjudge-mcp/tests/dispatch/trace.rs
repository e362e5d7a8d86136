//! `getStepTrace` (issue 39, stage 8a): a recorded step's `trace.json` as its
//! exact lines, bounded, and every way a step has no trace — a missing run or
//! step, a passed step under retain-on-failure, a skipped one, a trace that
//! could not be written — as `NOT_FOUND` saying why; ids validated, no link
//! followed out of `.harshJudge/`.

use harshjudge_browser::trace::TraceOutcome;
use harshjudge_mcp::{Code, Context, call};
use harshjudge_store::store::{EvidenceName, NewEvidence, RunId, Slug, StepId};
use serde_json::{Value, json};

use crate::trace_fixture::{self as fx, EXPECTED, RUN, SLUG};

struct Project {
    _dir: tempfile::TempDir,
    ctx: Context,
}

impl Project {
    /// A project holding the recorded run.
    fn recorded() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Context::new(dir.path()).unwrap();
        fx::recorded(ctx.store());
        Project { _dir: dir, ctx }
    }
    fn ok(&self, args: Value) -> Value {
        let out = call(&self.ctx, "getStepTrace", Some(args));
        assert!(!out.is_error(), "getStepTrace failed: {}", out.value);
        out.value
    }
    fn err(&self, args: Value) -> (Code, String) {
        let out = call(&self.ctx, "getStepTrace", Some(args.clone()));
        let code = out
            .code
            .unwrap_or_else(|| panic!("{args} should fail, gave {}", out.value));
        (code, out.value["error"].as_str().unwrap().to_string())
    }
    /// The message of a `NOT_FOUND` answer.
    fn not_found(&self, args: Value) -> String {
        let (code, msg) = self.err(args);
        assert_eq!(code, Code::NotFound, "{msg}");
        msg
    }
}

#[test]
fn a_recorded_step_s_trace_is_its_exact_lines() {
    let p = Project::recorded();
    let v = p.ok(json!({"runId": RUN, "step": 2}));
    assert_eq!(v["text"].as_str().unwrap(), EXPECTED);
    // What a model reads of it (the server's lean shape) is the same text.
    let lean = harshjudge_mcp::tools::lean::text(&p.ctx, "getStepTrace", &v).unwrap();
    assert_eq!(lean, EXPECTED);
    assert_eq!(v["step"], "02");
    assert_eq!(v["mode"], "retain-on-failure");
    assert_eq!(v["leftOut"], 0);
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3);
    assert_eq!(
        entries[2]["outcome"]["log"][1],
        "retrying click action, attempt 2"
    );
    // The scenario alone names its newest run; both, that run.
    assert_eq!(p.ok(json!({"scenarioSlug": SLUG, "step": 2})), v);
    assert_eq!(
        p.ok(json!({"scenarioSlug": SLUG, "runId": RUN, "step": 2})),
        v
    );
}

#[test]
fn a_missing_run_or_step_is_not_found_and_bad_ids_are_refused() {
    let p = Project::recorded();
    let msg = p.not_found(json!({"runId": "nope", "step": 1}));
    assert_eq!(
        msg,
        "Run \"nope\" does not exist. List a scenario's runs with getStatus(scenarioSlug)."
    );
    let msg = p.not_found(json!({"runId": RUN, "step": 7}));
    assert_eq!(
        msg,
        "Run \"trace-run\" of scenario \"items\" has no step 07: its steps are 01 to 03."
    );
    let msg = p.not_found(json!({"scenarioSlug": "other", "step": 1}));
    assert!(msg.contains("Scenario \"other\" does not exist"), "{msg}");
    for args in [
        json!({"runId": "../../etc", "step": 1}),
        json!({"scenarioSlug": "../x", "step": 1}),
        json!({"runId": RUN, "step": 0}),
        json!({"runId": RUN, "step": 100}),
        json!({"runId": RUN, "step": "02"}),
        json!({"step": 1}),
        json!({"runId": RUN}),
    ] {
        let (code, msg) = p.err(args.clone());
        assert_eq!(code, Code::InvalidInput, "{args}: {msg}");
    }
}

#[test]
fn a_step_without_a_trace_is_not_found_saying_why() {
    let p = Project::recorded();
    let store = p.ctx.store();
    let why = |run: &str, step: u64| p.not_found(json!({"runId": run, "step": step}));
    assert_eq!(
        why(RUN, 1),
        "step 01 of run trace-run (items) has no trace: it passed under retain-on-failure (only a failed step keeps its trace; HARSHJUDGE_TRACE=on keeps every step's)"
    );
    assert_eq!(
        why(RUN, 3),
        "step 03 of run trace-run (items) has no trace: it was skipped (a skipped step has no trace)"
    );
    // A run with no trace at all: a failed step, a passed one.
    fx::run(store, "untraced", &["pass", "fail", "skipped"], &[]);
    assert_eq!(
        why("untraced", 2),
        "step 02 of run untraced (items) has no trace: no step of this run has a trace: it ran with tracing off (HARSHJUDGE_TRACE=off, or on-first-retry on a first attempt), was recorded through the MCP tools (their runs have no trace yet), or its scenario opened no page"
    );
    assert!(
        why("untraced", 1).ends_with(
            "has no trace: it passed, and no step of this run has a trace: under retain-on-failure (the default) only a failed step keeps its trace; HARSHJUDGE_TRACE=on (or `-- --trace on`, #[scenario(trace = \"on\")]) traces every step"
        ),
        "{}",
        why("untraced", 1)
    );
    // Under `on`, a step before the scenario's first page has none.
    let mut on = fx::failed_step();
    on.mode = "on".into();
    fx::run(store, "paged", &["pass", "fail"], &[("02", &on)]);
    assert!(
        why("paged", 1).ends_with("has no trace: it ended before the scenario opened a page (step 02 has a trace; a step before the first page has none)"),
        "{}",
        why("paged", 1)
    );
    // A run that stopped before step 03.
    fx::run(store, "short", &["pass", "fail"], &[]);
    assert!(
        why("short", 3).ends_with("has no trace: it did not run (the run ended before it)"),
        "{}",
        why("short", 3)
    );
    // A trace the store writer could not write leaves trace-error.txt.
    fx::run(store, "unwritable", &["fail"], &[]);
    let name = EvidenceName::new("trace-error").unwrap();
    let slug = Slug::new(SLUG).unwrap();
    let id = RunId::new("unwritable").unwrap();
    store
        .scenario(&slug)
        .run(&id)
        .write_evidence(
            &StepId::new("01").unwrap(),
            NewEvidence {
                name: &name,
                ext: "txt",
                kind: "custom",
                bytes: b"this step's trace was not written: Permission denied (os error 13); the step's outcome is its own\n",
            },
            Default::default(),
        )
        .unwrap();
    assert_eq!(
        why("unwritable", 1),
        "step 01 of run unwritable (items) has no trace: its trace could not be written (trace-error.txt: this step's trace was not written: Permission denied (os error 13); the step's outcome is its own)"
    );
}

#[test]
fn a_long_trace_keeps_its_first_last_and_failed_entries_and_says_what_was_cut() {
    let p = Project::recorded();
    let long_call = format!("page.get_by_text({:?}).click()", "x".repeat(250));
    let entries = (1..=130u32)
        .map(|n| {
            let start = f64::from(n) * 10.0;
            let call = if n == 2 {
                long_call.clone()
            } else {
                format!("page.get_by_test_id(\"row-{n}\").click()")
            };
            let mut e = fx::entry(
                n,
                "action",
                &call,
                "tests/items.rs:40:9",
                start,
                start + 5.0,
            );
            if n == 30 {
                e.outcome = TraceOutcome {
                    status: "failed".into(),
                    kind: Some("strict".into()),
                    error: Some("strict mode violation: 2 elements".into()),
                    log: vec![],
                };
            }
            e
        })
        .collect();
    let file = fx::trace_of("01", entries, Default::default(), 1400.0);
    fx::run(p.ctx.store(), "long", &["fail"], &[("01", &file)]);
    let v = p.ok(json!({"runId": "long", "step": 1}));
    let text = v["text"].as_str().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Header, #1-#20, a gap, #30, a gap, #51-#130, what was cut, the file.
    assert_eq!(lines.len(), 1 + 20 + 1 + 1 + 1 + 80 + 1 + 1, "{text}");
    assert_eq!(
        lines[0],
        "step 01 of run long (items), attempt 1, trace mode retain-on-failure: 130 entries in 1.400s"
    );
    assert_eq!(
        lines[1],
        "#1 +0.010s 0.005s page.get_by_test_id(\"row-1\").click() · ok · tests/items.rs:40"
    );
    assert_eq!(
        lines[2],
        format!(
            "#2 +0.020s 0.005s {}… · ok · tests/items.rs:40",
            long_call.chars().take(200).collect::<String>()
        )
    );
    assert_eq!(lines[21], "… #21–#29: 9 left out");
    assert_eq!(
        lines[22],
        "#30 +0.300s 0.005s page.get_by_test_id(\"row-30\").click() · FAILED strict: strict mode violation: 2 elements · tests/items.rs:40"
    );
    assert_eq!(lines[23], "… #31–#50: 20 left out");
    assert!(lines[24].starts_with("#51 +0.510s "), "{}", lines[24]);
    assert!(lines[103].starts_with("#130 +1.300s "), "{}", lines[103]);
    assert_eq!(
        lines[104],
        "cut: entries left out: #21–#29, #31–#50 (failed ones are always kept); calls cut to 200 characters: 1; the file has it all"
    );
    assert_eq!(
        lines[105],
        "file: .harshJudge/scenarios/items/runs/long/step-01/evidence/trace.json"
    );
    assert_eq!(v["leftOut"], 29);
    assert_eq!(v["entries"].as_array().unwrap().len(), 101);
    assert!(text.len() < 16 * 1024, "{} bytes", text.len());
}

#[test]
fn a_trace_of_a_newer_harshjudge_or_no_trace_at_all_is_refused_as_corrupt() {
    let p = Project::recorded();
    let path = p
        .ctx
        .root()
        .join(".harshJudge/scenarios/items/runs/trace-run/step-02/evidence/trace.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["version"] = json!(2);
    std::fs::write(&path, v.to_string()).unwrap();
    let (code, msg) = p.err(json!({"runId": RUN, "step": 2}));
    assert_eq!(code, Code::Corrupt, "{msg}");
    assert!(
        msg.ends_with("trace.json: trace.json version 2 is newer than this harshjudge (reads 1)"),
        "{msg}"
    );
    std::fs::write(&path, "[]").unwrap();
    let (code, msg) = p.err(json!({"runId": RUN, "step": 2}));
    assert_eq!(code, Code::Corrupt, "{msg}");
}

#[test]
fn no_link_is_followed_out_of_harshjudge() {
    use std::os::unix::fs::symlink;
    const SECRET: &str = "TOPSECRET-outside-the-project";
    let outside = tempfile::tempdir().unwrap();
    let mut secret = fx::failed_step();
    secret.entries[0].call = SECRET.into();
    let secret_file = outside.path().join("trace.json");
    std::fs::write(&secret_file, serde_json::to_vec(&secret).unwrap()).unwrap();
    std::fs::create_dir_all(outside.path().join("evidence")).unwrap();
    std::fs::copy(&secret_file, outside.path().join("evidence/trace.json")).unwrap();
    // The file a link, then its folder.
    for linked in ["step-02/evidence/trace.json", "step-02/evidence"] {
        let p = Project::recorded();
        let at = p
            .ctx
            .root()
            .join(".harshJudge/scenarios/items/runs/trace-run")
            .join(linked);
        if at.is_dir() {
            std::fs::remove_dir_all(&at).unwrap();
        } else {
            std::fs::remove_file(&at).unwrap();
        }
        let target = outside.path().join(at.file_name().unwrap());
        symlink(&target, &at).unwrap();
        let out = call(
            &p.ctx,
            "getStepTrace",
            Some(json!({"runId": RUN, "step": 2})),
        );
        assert!(out.is_error(), "{linked}: {}", out.value);
        assert_eq!(
            out.code,
            Some(Code::AccessDenied),
            "{linked}: {}",
            out.value
        );
        assert!(!out.value.to_string().contains(SECRET), "{}", out.value);
    }
}

/// A project holding the recorded run with step 02's DOM snapshots.
fn with_dom() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    fx::recorded_with_dom(ctx.store());
    Project { _dir: dir, ctx }
}

/// The line of entry #3 (the failed click) as the trace's lines show it.
const CLICK: &str = r#"#3 +0.365s 5.003s page.get_by_role("button").name("Save").click() · FAILED timeout: timed out after 5.0 s waiting for page.get_by_role("button").name("Save") to be clicked · POST /api/items 500 · console error "Uncaught TypeError: x is undefined" · tests/items.rs:22 · 1 request · 1 console"#;

#[test]
fn an_action_s_page_is_its_aria_snapshot_before_and_after() {
    let p = with_dom();
    let dom = ".harshJudge/scenarios/items/runs/trace-run/step-02/evidence/trace-dom.json";
    // Default: the page after it: the heading, the list and the link the
    // click led to (the renderer's own script restored nothing to run).
    let after = p.ok(json!({"runId": RUN, "step": 2, "action": 3}));
    assert_eq!(
        after["text"].as_str().unwrap(),
        format!(
            "step 02 of run trace-run (items): the page after entry #3 (it has before, after), as an ARIA snapshot\n{CLICK}\nurl: http://127.0.0.1:4321/items\n- heading \"Saved\" [level=1]\n- list:\n  - listitem: milk\n- link \"Back to the list\":\n  - /url: /items\nfile: {dom} (snapshot 4)"
        )
    );
    assert_eq!(after["moment"], "after");
    assert_eq!(after["entries"].as_array().unwrap().len(), 1);
    assert_eq!(after["entries"][0]["n"], 3);
    // What a model reads of it is the same text.
    let lean = harshjudge_mcp::tools::lean::text(&p.ctx, "getStepTrace", &after).unwrap();
    assert_eq!(lean, after["text"].as_str().unwrap());
    // Before it: the form, its field's typed value restored, the Save button;
    // the hidden note (display: none from the page's sheet) and what the
    // page's script would have written are not there.
    let before = p.ok(json!({"runId": RUN, "step": 2, "action": 3, "moment": "before"}));
    let aria = before["aria"].as_str().unwrap();
    assert_eq!(
        aria,
        "- heading \"Items\" [level=1]\n- text: Name\n- textbox \"Name\": milk\n- button \"Save\"\n"
    );
    assert!(before["text"].as_str().unwrap().starts_with(
        "step 02 of run trace-run (items): the page before entry #3 (it has before, after)"
    ));
    // The fill's before: the field still empty.
    let fill = p.ok(json!({"scenarioSlug": SLUG, "step": 2, "action": 2, "moment": "before"}));
    assert!(
        fill["aria"]
            .as_str()
            .unwrap()
            .contains("- textbox \"Name\"\n"),
        "{}",
        fill["aria"]
    );
}

/// A page nested as deep as a snapshot goes (256 elements, each an array
/// and an object in the JSON, past serde_json's 128 levels for a parsed
/// value): its ARIA snapshot, not a corrupt file.
#[test]
fn a_page_nested_256_elements_deep_is_its_aria_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    fx::recorded_with_dom_nested(ctx.store(), 254);
    let p = Project { _dir: dir, ctx };
    let after = p.ok(json!({"runId": RUN, "step": 2, "action": 3}));
    assert_eq!(
        after["aria"],
        "- heading \"Saved\" [level=1]\n- list:\n  - listitem: milk\n- link \"Back to the list\":\n  - /url: /items\n"
    );
}

#[test]
fn a_missing_entry_moment_or_snapshot_is_not_found_naming_what_exists() {
    let p = with_dom();
    assert_eq!(
        p.not_found(json!({"runId": RUN, "step": 2, "action": 9})),
        "step 02 of run trace-run (items) has no entry #9: its entries are #1 to #3"
    );
    assert_eq!(
        p.not_found(json!({"runId": RUN, "step": 2, "action": 3, "moment": "at"})),
        "entry #3 of step 02 of run trace-run (items) has no at snapshot: it has before, after"
    );
    assert_eq!(
        p.not_found(json!({"runId": RUN, "step": 2, "action": 1})),
        "entry #1's after snapshot of step 02 of run trace-run (items) was not kept: 5 MiB, over the 4 MiB limit (it has after)"
    );
    assert_eq!(
        p.not_found(json!({"runId": RUN, "step": 2, "action": 1, "moment": "before"})),
        "entry #1 of step 02 of run trace-run (items) has no before snapshot: it has after"
    );
    // A trace without snapshots (the 8a fixture's): said, before any browser.
    let q = Project::recorded();
    assert!(
        q.not_found(json!({"runId": RUN, "step": 2, "action": 3}))
            .starts_with("entry #3 of step 02 of run trace-run (items) has no DOM snapshot: its trace was written without snapshots")
    );
    // moment alone, or a moment that is none: refused.
    let (code, msg) = p.err(json!({"runId": RUN, "step": 2, "moment": "after"}));
    assert_eq!(code, Code::InvalidInput, "{msg}");
    let (code, msg) = p.err(json!({"runId": RUN, "step": 2, "action": 3, "moment": "during"}));
    assert_eq!(code, Code::InvalidInput, "{msg}");
}
