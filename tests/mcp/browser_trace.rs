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
    mcp_calls::launched_project(&ctx, &base, "Traced");
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

/// A page with an image, and the image.
fn app(stream: std::net::TcpStream) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = stream.try_clone()?;
    let mut r = std::io::BufReader::new(stream);
    while let Some(path) = crate::support::next_request_path(&mut r)? {
        let (kind, body): (&str, Vec<u8>) = match path.as_str() {
            "/logo.png" => ("image/png", crate::support::png(6, 4)),
            _ => (
                "text/html",
                b"<!doctype html><title>Logo</title><img src=\"/logo.png\" alt=\"Logo\">".to_vec(),
            ),
        };
        write!(
            out,
            "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\r\n",
            body.len()
        )?;
        out.write_all(&body)?;
    }
    Ok(())
}

/// The browser session outlives runs: each run's failed step draws the
/// image its snapshots name from that run's own `trace-resources/`, the
/// second as much as the first (the image was stored by the first run).
#[test]
fn each_recorded_run_keeps_the_images_its_trace_draws() {
    let base = crate::support::serve_with(app);
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    mcp_calls::launched_project(&ctx, &base, "Logos");
    ok(
        &ctx,
        "createScenario",
        json!({"slug": "logo", "title": "Logo", "steps": [
            {"title": "Open", "actions": "open the page", "expectedOutcome": "a logo"},
        ]}),
    );
    let logo = format!("{base}/logo.png");
    let sha = harshjudge::browser::trace::ContentHash::of(&crate::support::png(6, 4)).to_string();
    for round in 1..=2 {
        let run = ok(&ctx, "startRun", json!({"scenarioSlug": "logo"}));
        let run_id = run["runId"].as_str().unwrap();
        ok(&ctx, "browser_navigate", json!({"url": "/"}));
        fails(
            &ctx,
            "browser_expect",
            json!({"role": "img", "name": "Logo", "assertion": "to_be_hidden", "timeoutMs": 300}),
        );
        ok(
            &ctx,
            "completeStep",
            json!({"runId": run_id, "stepId": "01", "status": "fail", "duration": 10}),
        );
        ok(&ctx, "completeRun", json!({"runId": run_id}));
        let evidence = dir
            .path()
            .join(".harshJudge/scenarios/logo/runs")
            .join(run_id)
            .join("step-01/evidence");
        let dom = crate::support::json(evidence.join("trace-dom.json"));
        assert_eq!(dom["images"][&logo], sha.as_str(), "run {round}: {dom}");
        let file = dom["resources"][&sha]["file"].as_str().unwrap();
        assert_eq!(
            std::fs::read(evidence.join(file)).ok(),
            Some(crate::support::png(6, 4)),
            "run {round}: the image its snapshot names is in its own folder: {file}"
        );
    }
    ok(&ctx, "browser_close", json!({}));
}
