//! The MCP browser tools' own trace: while a run is active, what an agent
//! does with them is its current step's trace, as a scenario's step is
//! (`trace.json`, its DOM snapshots), kept as `HARSHJUDGE_TRACE` says
//! (default `retain-on-failure`) and read back by `getStepTrace`; what was
//! done outside the step is not in it.

use harshjudge_mcp::Context;
use serde_json::{Value, json};

use crate::support::mcp_calls;
use mcp_calls::{fails, ok};

/// The calls of a step's trace, as `getStepTrace` lists its entries.
fn calls(trace: &Value) -> Vec<String> {
    trace["entries"]
        .as_array()
        .unwrap_or_else(|| panic!("entries: {trace}"))
        .iter()
        .map(|e| e["call"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_recorded_step_of_browser_tools_is_traced_like_a_scenarios() {
    let base = demo_app::start_in_background().expect("demo app");
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    ok(
        &ctx,
        "initProject",
        json!({"projectName": "Traced", "baseUrl": base}),
    );
    ok(&ctx, "browser_launch", json!({}));
    // Before any run: no step's.
    ok(&ctx, "browser_navigate", json!({"url": "/todos/"}));
    ok(
        &ctx,
        "browser_type",
        json!({"placeholder": "What needs to be done?", "text": "before the run", "submit": true}),
    );
    ok(
        &ctx,
        "createScenario",
        json!({"slug": "todos", "title": "Todos", "steps": [
            {"title": "Add", "actions": "type a todo", "expectedOutcome": "it is listed"},
            {"title": "Complete", "actions": "mark all", "expectedOutcome": "none left"},
        ]}),
    );
    let run = ok(&ctx, "startRun", json!({"scenarioSlug": "todos"}));
    let run_id = run["runId"].as_str().unwrap().to_string();
    let evidence = |step: &str| {
        dir.path()
            .join(".harshJudge/scenarios/todos/runs")
            .join(&run_id)
            .join(format!("step-{step}/evidence"))
    };

    // Step 1 passes: under retain-on-failure its trace is not kept.
    ok(
        &ctx,
        "browser_type",
        json!({"placeholder": "What needs to be done?", "text": "buy milk", "submit": true}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"testId": "todo-title", "assertion": "to_have_count", "expected": 2}),
    );
    ok(
        &ctx,
        "completeStep",
        json!({"runId": run_id, "stepId": "01", "status": "pass", "duration": 10}),
    );
    assert!(evidence("01").is_dir(), "step 1 has its screenshots");
    assert!(
        !evidence("01").join("trace.json").exists(),
        "a passed step keeps no trace under retain-on-failure"
    );

    // Step 2 fails: its trace holds its own calls, the failed one too.
    ok(
        &ctx,
        "browser_click",
        json!({"label": "Mark all as complete"}),
    );
    let (code, _) = fails(
        &ctx,
        "browser_expect",
        json!({"testId": "todo-count", "assertion": "to_have_text", "expected": "5 items left", "timeoutMs": 400}),
    );
    assert_eq!(code, "ASSERTION_FAILED");
    let done = ok(
        &ctx,
        "completeStep",
        json!({"runId": run_id, "stepId": "02", "status": "fail", "duration": 10, "error": "count"}),
    );
    assert!(evidence("02").join("trace.json").is_file(), "{done}");
    assert!(evidence("02").join("trace-dom.json").is_file(), "{done}");

    let trace = ok(&ctx, "getStepTrace", json!({"runId": run_id, "step": 2}));
    let listed = calls(&trace);
    let text = trace["text"].as_str().unwrap();
    assert!(
        listed
            .iter()
            .any(|c| c.contains("Mark all as complete") && c.contains("click")),
        "{text}"
    );
    assert!(
        listed
            .iter()
            .any(|c| c.contains("todo-count") && c.contains("to_have_text")),
        "{text}"
    );
    assert!(
        !listed
            .iter()
            .any(|c| c.contains("buy milk") || c.contains("before the run")),
        "the earlier step's and the run's prelude's calls are not this step's: {text}"
    );
    assert_eq!(
        listed.len(),
        2,
        "the agent's two calls, not the server's own: {text}"
    );
    let outcome = |n: usize| &trace["entries"][n]["outcome"];
    assert_eq!(outcome(0)["status"], "ok", "{text}");
    assert_eq!(outcome(1)["status"], "failed", "{text}");
    assert_eq!(outcome(1)["kind"], "assertion", "{text}");
    assert!(
        outcome(1)["error"]
            .as_str()
            .unwrap()
            .contains("5 items left"),
        "{text}"
    );

    // The page before the click, as an ARIA snapshot: both todos, unchecked.
    let click = listed
        .iter()
        .position(|c| c.contains("Mark all as complete"))
        .unwrap()
        + 1;
    let before = ok(
        &ctx,
        "getStepTrace",
        json!({"runId": run_id, "step": 2, "action": click, "moment": "before"}),
    );
    let aria = before["aria"]
        .as_str()
        .unwrap_or_else(|| panic!("{before}"));
    assert!(aria.contains("buy milk"), "{aria}");
    assert!(aria.contains("before the run"), "{aria}");
    ok(&ctx, "browser_close", json!({}));
}
