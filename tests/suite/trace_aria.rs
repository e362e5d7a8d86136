//! `getStepTrace` with `action` over a trace a real run wrote (issue 39,
//! stage 8b): tests/fixtures/trace.rs's `failing` under `HARSHJUDGE_TRACE=on`
//! in Chromium, then each moment of its step 2 read back as an ARIA
//! snapshot, rebuilt from `trace-dom.json` in a browser of the tool's own:
//! the field empty before the fill and holding "milk" after it, the
//! disabled Save button the click waited for, as the step's live `aria.yml`.

use crate::support;

use std::process::Command;

use serde_json::{Value, json};
use support::{Run, test_binary};

#[test]
fn a_real_run_s_snapshots_read_back_as_aria_snapshots() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(test_binary("trace_suite"));
    cmd.current_dir(support::workspace())
        .arg("failing")
        .env("HARSHJUDGE_DIR", tmp.path().join(".harshJudge"))
        .env("HARSHJUDGE_WAIT", "1s")
        .env("HARSHJUDGE_TRACE", "on")
        .env_remove("HARSHJUDGE_EVIDENCE")
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("HARSHJUDGE_RETRIES")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST");
    let r = Run::from(cmd.output().expect("the suite runs"));
    assert_eq!(r.code, 101, "failing fails: {r:?}");
    let ctx = harshjudge_mcp::Context::new(tmp.path()).unwrap();
    let get = |args: Value| {
        let out = harshjudge_mcp::call(&ctx, "getStepTrace", Some(args.clone()));
        assert!(!out.is_error(), "{args}: {}", out.value);
        out.value
    };
    let lines = get(json!({"scenarioSlug": "failing", "step": 2}));
    let calls: Vec<&str> = lines["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["call"].as_str().unwrap())
        .collect();
    assert_eq!(
        calls,
        [
            "page.goto(\"/items\")",
            "page.get_by_label(\"Name\").fill(\"milk\")",
            "page.get_by_role(\"button\").name(\"Save\").click()"
        ]
    );
    let aria = |action: u32, moment: &str| {
        let v =
            get(json!({"scenarioSlug": "failing", "step": 2, "action": action, "moment": moment}));
        assert_eq!(v["moment"], moment);
        v["aria"].as_str().unwrap().to_string()
    };
    let before = aria(2, "before");
    let after = aria(2, "after");
    let page = |field: &str| {
        format!(
            "- heading \"Items\" [level=1]\n- text: Name\n- textbox \"Name\"{field}\n- button \"Save\" [disabled]\n"
        )
    };
    assert_eq!(before, page(""));
    assert_eq!(after, page(": milk"));
    let click = aria(3, "before");
    assert!(click.contains("- button \"Save\" [disabled]"), "{click}");
    // The click timed out: its before is the page at its last check, which
    // is the page the step's own `aria.yml` (read live at the failure) shows.
    let run = support::runs(&tmp.path().join(".harshJudge"), "failing")
        .pop()
        .unwrap();
    let live = std::fs::read_to_string(run.join("step-02/evidence/aria.yml")).unwrap();
    assert_eq!(click.trim_end(), live.trim_end());
    // The goto has no before (a navigation's moment is its after).
    let out = harshjudge_mcp::call(
        &ctx,
        "getStepTrace",
        Some(json!({"scenarioSlug": "failing", "step": 2, "action": 1, "moment": "before"})),
    );
    assert_eq!(
        out.code,
        Some(harshjudge_mcp::Code::NotFound),
        "{}",
        out.value
    );
    let msg = out.value["error"].as_str().unwrap();
    assert!(
        msg.ends_with("has no before snapshot: it has after"),
        "{msg}"
    );
}
