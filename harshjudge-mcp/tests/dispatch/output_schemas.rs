//! Every tool's result is typed, its `outputSchema` derived from the type: a
//! real call of each of the 44 tools (in process, through the dispatcher the
//! server uses; the browser tools in real headless Chromium against a page of
//! this test's own 127.0.0.1 server), its `structuredContent` validated
//! against the tool's `outputSchema` by the `jsonschema` crate, and every key
//! it holds declared by that schema.

use std::collections::BTreeSet;
use std::io::{Read, Write};

use harshjudge_mcp::{Context, call};
use serde_json::{Map, Value, json};

const PAGE: &str = r#"<!doctype html><html><head><title>Shapes</title></head><body>
<h1>Welcome</h1><label for="q">Query</label><input id="q" data-testid="query" placeholder="Search">
<button data-testid="go" onclick="document.getElementById('out').textContent='Clicked!'">Go</button>
<a href="/other">Other</a><input type="checkbox" id="c"><p id="out"></p>
<script>console.log('loaded'); console.error('oops'); fetch('/missing').catch(()=>{});</script>
</body></html>"#;

/// Serves `PAGE` at `/` and `/other` (anything else: 404) on 127.0.0.1.
fn serve() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).to_string();
            let (status, body) = if req.starts_with("GET / ") || req.starts_with("GET /other ") {
                ("200 OK", PAGE)
            } else {
                ("404 Not Found", "no")
            };
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}")
}

/// The output schema `tools/list` gives for `tool`.
fn output_schema(tool: &str) -> Map<String, Value> {
    let d = harshjudge_mcp::dispatcher();
    let def = d.find(tool).unwrap_or_else(|| panic!("no tool {tool}"));
    (*harshjudge_mcp::tools::output::output_schema(def)).clone()
}

/// The keys a schema declares at its root: its own properties and those of
/// each `anyOf` branch (a union of result shapes, like `getStatus`).
fn declared(schema: &Map<String, Value>) -> BTreeSet<String> {
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    let resolve = |s: &Value| -> Value {
        match s["$ref"].as_str().and_then(|r| r.strip_prefix("#/$defs/")) {
            Some(name) => defs[name].clone(),
            None => s.clone(),
        }
    };
    let mut keys = BTreeSet::new();
    let root = Value::Object(schema.clone());
    let branches = root["anyOf"].as_array().cloned().unwrap_or_default();
    for s in std::iter::once(root.clone()).chain(branches) {
        if let Some(p) = resolve(&s)["properties"].as_object() {
            keys.extend(p.keys().cloned());
        }
    }
    keys
}

/// What is wrong with `value` as a result of `tool`: not valid against its
/// output schema, or keys the schema does not declare.
fn conforms(tool: &str, args: &Value, value: &Value) -> Vec<String> {
    let schema = Value::Object(output_schema(tool));
    let validator = jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("{tool}: its outputSchema is no valid JSON Schema: {e}"));
    let problems: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    let mut found = vec![];
    if !problems.is_empty() {
        found.push(format!(
            "{tool} {args}: structuredContent does not match its outputSchema: {problems:#?}\n{value:#}"
        ));
    }
    let keys = declared(schema.as_object().unwrap());
    let undeclared: Vec<&String> = value
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| !keys.contains(*k))
        .collect();
    if !undeclared.is_empty() {
        found.push(format!(
            "{tool} {args}: keys {undeclared:?} are not declared by its outputSchema ({keys:?})"
        ));
    }
    found
}

#[test]
fn every_tool_s_output_schema_is_derived_from_its_typed_result() {
    let mut open = vec![];
    for t in harshjudge_mcp::dispatcher().tools() {
        let schema = output_schema(t.name);
        assert_eq!(schema["type"], "object", "{}", t.name);
        if !declared(&schema).iter().any(|k| k != "warnings") {
            open.push(t.name);
        }
    }
    assert!(
        open.is_empty(),
        "these tools' outputSchemas declare no key of their results (an untyped result): {open:?}"
    );
}

/// One test: the browser tools share the process's chromedriver, which
/// `browser_close` stops.
#[test]
fn every_tool_s_structured_content_matches_its_output_schema() {
    let base = serve();
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = Context::new(dir.path()).unwrap();
    ctx.allowed_roots = vec![ctx.root().to_path_buf()];
    // Whatever happens, the dashboard this test starts is stopped.
    struct StopDashboard(std::path::PathBuf);
    impl Drop for StopDashboard {
        fn drop(&mut self) {
            let _ = harshjudge_mcp::dashboard::Dashboard::new(&self.0).close();
        }
    }
    let _stop = StopDashboard(ctx.root().to_path_buf());
    let mut checked = BTreeSet::new();
    let mut problems = vec![];
    let mut c = |tool: &str, args: Value| -> Value {
        let out = call(&ctx, tool, Some(args.clone()));
        assert!(!out.is_error(), "{tool} {args} failed: {}", out.value);
        let value = out.value.clone();
        let structured = harshjudge_mcp::server::to_result(out)
            .structured_content
            .expect("structured content");
        problems.extend(conforms(tool, &args, &structured));
        checked.insert(tool.to_string());
        value
    };
    c("initProject", json!({"projectName": "P", "baseUrl": base}));
    c(
        "createScenario",
        json!({"slug": "login", "title": "Login", "steps": [
        {"title": "Open", "actions": "go", "expectedOutcome": "a form"},
        {"title": "Sign in", "actions": "submit", "expectedOutcome": "welcome"}]}),
    );
    c(
        "saveScenario",
        json!({"slug": "legacy", "title": "Legacy", "content": "# L", "zzz": 1}),
    );
    c("toggleStar", json!({"scenarioSlug": "login"}));
    let run = c("startRun", json!({"scenarioSlug": "login"}))["runId"]
        .as_str()
        .unwrap()
        .to_string();
    let f = dir.path().join("shot.png");
    std::fs::write(&f, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01").unwrap();
    c(
        "recordEvidence",
        json!({"runId": run, "step": 1, "type": "screenshot", "name": "s", "data": f.display().to_string()}),
    );
    c(
        "recordEvidence",
        json!({"runId": run, "stepId": "01", "type": "console_log", "name": "c", "data": "x"}),
    );
    c(
        "completeStep",
        json!({"runId": run, "stepId": "01", "status": "pass", "duration": 3}),
    );
    c("getRunState", json!({"runId": run}));
    c(
        "completeStep",
        json!({"runId": run, "stepId": "02", "status": "fail", "duration": 3, "error": "boom"}),
    );
    c("completeRun", json!({"runId": run, "status": "pass"}));
    c("getPendingJudgments", json!({"limit": 5}));
    c(
        "recordVerdict",
        json!({"runId": run, "stepId": "01", "verdict": "fail", "reasoning": "no form"}),
    );
    c("getRunState", json!({"scenarioSlug": "login"}));
    let run2 = c("startRun", json!({"scenarioSlug": "login"}))["runId"]
        .as_str()
        .unwrap()
        .to_string();
    c(
        "completeRun",
        json!({"runId": run2, "steps": [{"id": "01", "status": "pass"}, {"id": "02", "status": "pass"}]}),
    );
    c("getStatus", json!({}));
    c("getStatus", json!({"scenarioSlug": "login"}));
    c("getStatus", json!({"scenarioSlug": "legacy"}));
    c("pruneRuns", json!({"keep": 1}));
    c("pruneRuns", json!({}));
    c("discoverTree", json!({}));
    c("discoverSearch", json!({"pattern": "login"}));
    c("getDashboardStatus", json!({}));
    c("closeDashboard", json!({}));
    // browser
    c("browser_launch", json!({}));
    c("browser_launch", json!({}));
    c("browser_navigate", json!({"url": "/"}));
    c("browser_click", json!({"testId": "go"}));
    c("browser_type", json!({"label": "Query", "text": "hello"}));
    c("browser_press", json!({"key": "Tab"}));
    c("browser_press", json!({"key": "a", "testId": "query"}));
    c("browser_wait_for", json!({"text": "Clicked!"}));
    c("browser_wait_for", json!({"testId": "go"}));
    c(
        "browser_wait_for",
        json!({"selector": "#out", "text": "Clicked"}),
    );
    c(
        "browser_expect",
        json!({"assertion": "to_have_title", "expected": "Shapes"}),
    );
    c(
        "browser_expect",
        json!({"assertion": "to_be_visible", "testId": "go"}),
    );
    c("browser_screenshot", json!({}));
    c("browser_screenshot", json!({"inline": true}));
    c("browser_snapshot", json!({}));
    c("browser_console", json!({"peek": true}));
    c("browser_console", json!({}));
    c(
        "browser_route",
        json!({"pattern": "**/never-requested", "action": "abort"}),
    );
    c(
        "browser_route",
        json!({"pattern": "**/never-requested", "action": "remove"}),
    );
    c("browser_network", json!({"peek": true}));
    c("browser_network", json!({}));
    c(
        "browser_handle_dialog",
        json!({"accept": true, "promptText": "Ada"}),
    );
    c("browser_handle_dialog", json!({"accept": false}));
    // with an active run: evidence on actions
    let run3 = c("startRun", json!({"scenarioSlug": "login"}))["runId"]
        .as_str()
        .unwrap()
        .to_string();
    c("browser_click", json!({"testId": "go"}));
    c("browser_screenshot", json!({"name": "inrun"}));
    c("completeRun", json!({"runId": run3, "status": "fail"}));
    c(
        "run_steps",
        json!({"steps": [{"tool": "browser_navigate", "args": {"url": "/"}}, {"tool": "nope"}, {"tool": "getStatus"}]}),
    );
    c(
        "run_steps",
        json!({"steps": [{"tool": "getStatus"}, {"tool": "run_steps", "args": {}}, {"tool": "getStatus"}], "includeObservations": "failures", "stopOnError": true}),
    );
    c(
        "run_steps",
        json!({"steps": [{"tool": "browser_navigate", "args": {"url": "/"}}, {"tool": "nope"}], "detail": true}),
    );
    c("knowledge_search", json!({"query": "browser_click go"}));
    c("knowledge_similar", json!({}));
    c(
        "knowledge_similar",
        json!({"url": "/x", "tool": "browser_click"}),
    );
    c("record_start", json!({"name": "flow"}));
    c("browser_navigate", json!({"url": "/"}));
    c(
        "browser_type",
        json!({"testId": "query", "text": "ada@example.com"}),
    );
    c("browser_click", json!({"testId": "go"}));
    let seq = c(
        "record_stop",
        json!({"variables": {"email": "ada@example.com"}}),
    )["sequenceId"]
        .as_str()
        .unwrap()
        .to_string();
    c("record_start", json!({"name": "tmp"}));
    c("record_stop", json!({"save": false}));
    c("record_list", json!({}));
    c("record_get", json!({"sequenceId": seq}));
    c(
        "record_replay",
        json!({"sequenceId": seq, "variables": {"email": "x@y.z"}}),
    );
    c(
        "record_replay",
        json!({"sequenceId": seq, "variables": {"email": "x@y.z"}, "scenarioSlug": "replayed"}),
    );
    c(
        "record_replay",
        json!({"sequenceId": seq, "variables": {"email": "x@y.z"}, "detail": true}),
    );
    c("record_export", json!({"sequenceId": seq}));
    c("record_delete", json!({"sequenceId": seq}));
    c("browser_close", json!({}));
    c("browser_close", json!({}));
    c("openDashboard", json!({"openBrowser": false}));
    c("openDashboard", json!({"openBrowser": false}));
    c("getDashboardStatus", json!({}));
    c("closeDashboard", json!({}));
    // heal: a run whose step failed on a locator, as the runner records one.
    {
        use harshjudge_store::store::{RunId, RunResult, ScenarioSpec, Slug, StepId};
        let store = ctx.store();
        let slug = Slug::new("healme").unwrap();
        let spec = ScenarioSpec {
            title: "Heal me".into(),
            steps: vec!["Submit".into()],
            tags: None,
            starred: None,
            estimated_duration: None,
        };
        store.scenario(&slug).upsert(&spec, &[]).unwrap();
        let run = RunId::new("heal-run").unwrap();
        let at = store.scenario(&slug).run(&run);
        at.start("2026-11-26T00:00:00.000Z").unwrap();
        let evidence = at.step(&StepId::new("01").unwrap()).evidence();
        std::fs::create_dir_all(&evidence).unwrap();
        std::fs::write(evidence.join("aria.yml"), "- button \"Place order\"\n").unwrap();
        std::fs::write(
            ctx.root().join("order.rs"),
            "step!(\"Submit\", {\n    page.get_by_role(\"button\").name(\"Submit order\").click().await?;\n});\n",
        )
        .unwrap();
        let result: RunResult = serde_json::from_value(json!({
            "runId": "heal-run", "scenarioSlug": "healme", "status": "fail",
            "startedAt": "2026-11-26T00:00:00.000Z", "completedAt": "2026-11-26T00:00:01.000Z",
            "duration": 1000, "failedStep": "01",
            "steps": [{"id": "01", "status": "fail", "duration": 1000, "evidenceFiles": ["aria.yml"],
                "error": "timed out after 1.0 s waiting for page.get_by_role(\"button\").name(\"Submit order\") to be clicked; found: no element matches",
                "errorLocation": "order.rs:2:58"}],
        }))
        .unwrap();
        at.complete(&result).unwrap();
    }
    let healed = c("heal", json!({"scenarioSlug": "healme"}));
    assert_eq!(healed["after"], ".name(\"Place order\")", "{healed}");
    // getStepTrace: a step's trace as the store writer leaves it.
    crate::trace_fixture::recorded(ctx.store());
    let traced = c("getStepTrace", json!({"scenarioSlug": "items", "step": 2}));
    assert_eq!(traced["text"], crate::trace_fixture::EXPECTED);
    let all: BTreeSet<String> = harshjudge_mcp::dispatcher()
        .tools()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(
        problems.is_empty(),
        "{} results do not match their tools' outputSchemas:\n{}",
        problems.len(),
        problems.join("\n")
    );
    let missed: Vec<&String> = all.difference(&checked).collect();
    assert!(missed.is_empty(), "tools not called: {missed:?}");
    println!(
        "{} tools: every structuredContent matches its outputSchema",
        all.len()
    );
}
