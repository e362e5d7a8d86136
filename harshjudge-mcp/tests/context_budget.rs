//! The context budget (issue 24.2): by default `tools/list` carries the start
//! set without output schemas and each result is one compact copy;
//! `enable_tools` lists more; `--output-schemas` gives a validating client
//! everything. Through the real Python MCP SDK for the wire, in process for
//! the sets.

use std::path::Path;
use std::process::Command;

use harshjudge_mcp::server::{Server, Shape, TOOL_SETS, to_result_shaped, tool_list};
use harshjudge_mcp::{Context, call};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_harshjudge-mcp");

fn names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

#[test]
fn every_tool_is_in_exactly_one_set_and_the_start_set_is_small() {
    let all = names(&tool_list());
    for n in &all {
        let sets: Vec<&str> = TOOL_SETS
            .iter()
            .filter(|(_, t)| t.contains(&n.as_str()))
            .map(|(s, _)| *s)
            .collect();
        assert_eq!(sets.len(), 1, "{n} is in the sets {sets:?}");
    }
    for (set, tools) in TOOL_SETS {
        for t in *tools {
            assert!(all.iter().any(|n| n == t), "set {set}: {t} is no tool");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let lean = Server::with_shape(Context::new(dir.path()).unwrap(), Shape::Lean);
    let listed = lean.listed();
    let mut listed_names = names(&listed);
    listed_names.sort();
    let mut start: Vec<String> = TOOL_SETS[0].1.iter().map(|s| s.to_string()).collect();
    start.sort();
    assert_eq!(listed_names, start);
    assert!(listed.iter().all(|t| t.output_schema.is_none()));
    // A browser target's properties are described once, in the tool's description.
    let click = listed.iter().find(|t| t.name == "browser_click").unwrap();
    assert!(
        click.input_schema["properties"]["ref"]
            .get("description")
            .is_none()
    );
    assert!(
        click
            .description
            .as_deref()
            .unwrap()
            .contains("ref (from browser_snapshot)")
    );
    let full = Server::with_shape(Context::new(dir.path()).unwrap(), Shape::OutputSchemas);
    let everything = full.listed();
    assert_eq!(everything.len(), all.len());
    assert!(
        everything
            .iter()
            .all(|t| t.output_schema.is_some() || t.name == "enable_tools")
    );
    assert!(everything.iter().any(|t| {
        t.input_schema["properties"]["ref"]
            .get("description")
            .is_some()
    }));
}

#[test]
fn enable_tools_lists_a_set_once_and_names_an_unknown_one() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::with_shape(Context::new(dir.path()).unwrap(), Shape::Lean);
    let out = s.enable(Some(json!({"sets": ["run"]})));
    assert!(!out.is_error(), "{}", out.value);
    assert_eq!(out.value["listed"][0], "startRun");
    assert!(names(&s.listed()).contains(&"completeRun".to_string()));
    let again = s.enable(Some(json!({"sets": ["run"]})));
    assert_eq!(again.value["listed"], json!([]), "nothing new");
    let bad = s.enable(Some(json!({"sets": ["bogus"]})));
    assert!(bad.is_error());
    let msg = bad.value["error"].as_str().unwrap();
    assert!(msg.contains("\"bogus\"") && msg.contains("judge"), "{msg}");
    let bad = s.enable(Some(json!({"set": "run"})));
    assert!(
        bad.value["error"].as_str().unwrap().contains("sets"),
        "{}",
        bad.value
    );
    let all = s.enable(Some(json!({"sets": ["all"]})));
    assert!(!all.is_error());
    assert_eq!(s.listed().len(), tool_list().len());
}

#[test]
fn a_lean_result_is_one_compact_copy() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    let out = call(&ctx, "initProject", Some(json!({"projectName": "P"})));
    let value = out.value.clone();
    let lean = to_result_shaped(out, Shape::Lean);
    assert!(lean.structured_content.is_none());
    let text = serde_json::to_value(&lean).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    assert!(!text.contains('\n'), "compact: {text}");
}

fn python() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("HARSHJUDGE_TEST_PYTHON").filter(|p| !p.is_empty()) {
        return p.into();
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/py-venv/bin/python");
    if venv.exists() {
        return venv;
    }
    "python3".into()
}

#[test]
fn the_python_mcp_client_sees_the_start_set_then_more_after_a_list_changed_notification() {
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agent/sets.py");
    let out = Command::new(python())
        .arg(&script)
        .arg(BIN)
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let mut start: Vec<&str> = TOOL_SETS[0].1.to_vec();
    start.sort();
    let mut lean: Vec<&str> = r["lean"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    lean.sort();
    assert_eq!(lean, start);
    assert_eq!(r["notified"], true, "tools/list_changed reached the client");
    assert!(
        r["after"]
            .as_array()
            .unwrap()
            .contains(&json!("recordVerdict"))
    );
    assert_eq!(r["full"].as_u64().unwrap() as usize, tool_list().len());
}

#[test]
fn a_snapshot_reads_as_aria_snapshot_lines_with_refs() {
    let outline: harshjudge_mcp::tools::browser::PageOutline = serde_json::from_value(json!({
        "elements": [
            {"name": "What needs to be done?", "ref": "e1", "tag": "input", "type": "text"},
            {"checked": true, "name": "on", "ref": "e2", "tag": "input", "type": "checkbox"},
            {"name": "feed the cat", "ref": "e3", "tag": "li", "testId": "todo-item"},
            {"href": "#/active", "name": "Active", "ref": "e4", "tag": "a"},
            {"name": "Save", "ref": "e5", "tag": "div", "role": "button", "disabled": true}
        ],
        "headings": [{"level": 1, "text": "todos"}],
        "interactiveCount": 9, "testIds": ["todo-item"], "text": "todos",
        "title": "Todos", "truncated": true, "url": "http://127.0.0.1:1/#/"
    }))
    .unwrap();
    assert_eq!(
        outline.aria_text(),
        "- page \"Todos\" [url=http://127.0.0.1:1/#/]\n\
         - heading \"todos\" [level=1]\n\
         - textbox \"What needs to be done?\" [ref=e1]\n\
         - checkbox [checked] [ref=e2]\n\
         - listitem \"feed the cat\" [ref=e3] [testid=todo-item]\n\
         - link \"Active\" [ref=e4] [url=#/active]\n\
         - button \"Save\" [disabled] [ref=e5]\n\
         - note: 9 interactive elements, 5 listed (maxElements for more)\n"
    );
}

#[test]
fn a_later_snapshot_of_the_same_page_sends_only_what_changed() {
    use harshjudge_mcp::tools::browser::PageOutline;
    use harshjudge_mcp::tools::lean::snapshot_text;
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    let outline = |elements: Value, url: &str| -> PageOutline {
        serde_json::from_value(json!({
            "elements": elements, "headings": [{"level": 1, "text": "todos"}],
            "interactiveCount": 3, "testIds": [], "text": "", "title": "Todos",
            "truncated": false, "url": url
        }))
        .unwrap()
    };
    let input =
        json!({"name": "What needs to be done?", "ref": "e1", "tag": "input", "type": "text"});
    let first = outline(json!([input.clone()]), "http://h/#/");
    assert_eq!(snapshot_text(&ctx, &first, false), first.aria_text());
    let second = outline(
        json!([input.clone(), {"checked": false, "ref": "e2", "tag": "input", "type": "checkbox"}]),
        "http://h/#/",
    );
    assert_eq!(
        snapshot_text(&ctx, &second, false),
        "- page \"Todos\" [url=http://h/#/]\n\
         - note: changes only (full: true for all)\n\
         - checkbox [ref=e2]\n"
    );
    // A checked box is a changed line; a removed element is named gone.
    let third = outline(
        json!([{"checked": true, "ref": "e2", "tag": "input", "type": "checkbox"}]),
        "http://h/#/",
    );
    assert_eq!(
        snapshot_text(&ctx, &third, false),
        "- page \"Todos\" [url=http://h/#/]\n\
         - note: changes only (full: true for all)\n\
         - checkbox [checked] [ref=e2]\n\
         - gone: e1\n"
    );
    assert_eq!(
        snapshot_text(&ctx, &third, false),
        "- page \"Todos\" [url=http://h/#/]\n- note: nothing changed (full: true for all)\n"
    );
    // full: everything; another page: everything.
    assert_eq!(snapshot_text(&ctx, &third, true), third.aria_text());
    let other = outline(json!([input]), "http://h/other");
    assert_eq!(snapshot_text(&ctx, &other, false), other.aria_text());
}

#[test]
fn run_steps_and_record_replay_answer_in_brief_unless_asked_for_detail() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    assert!(!call(&ctx, "initProject", Some(json!({"projectName": "P"}))).is_error());
    let steps = json!([
        {"tool": "getStatus"},
        {"tool": "nope"},
        {"tool": "browser_click", "args": {"testId": "go"}},
    ]);
    let brief = call(&ctx, "run_steps", Some(json!({"steps": steps}))).value;
    assert_eq!(
        brief["steps"][0],
        json!({"index": 1, "tool": "getStatus", "ok": true})
    );
    let e = brief["steps"][1]["error"].as_str().unwrap();
    assert!(e.starts_with("UNKNOWN_TOOL: ") && !e.contains('\n'), "{e}");
    assert!(
        brief["steps"][2]["error"]
            .as_str()
            .unwrap()
            .starts_with("NO_SESSION: "),
        "{brief}"
    );
    assert_eq!(brief["summary"]["failed"], 2);
    let detail = call(
        &ctx,
        "run_steps",
        Some(json!({"steps": steps, "detail": true})),
    )
    .value;
    assert!(
        detail["steps"][0]["result"]["scenarios"].is_array(),
        "{detail}"
    );
    assert_eq!(detail["steps"][1]["error"]["code"], "UNKNOWN_TOOL");
    assert!(detail["steps"][0]["meta"]["durationMs"].is_number());
    let (b, d) = (brief.to_string().len(), detail.to_string().len());
    assert!(b < d, "brief {b} bytes, detail {d} bytes");
    // The lean shape sends the brief as lines.
    let text = harshjudge_mcp::tools::lean::text(&ctx, "run_steps", None, &brief).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "run_steps: 1 ok, 2 failed of 3");
    assert_eq!(lines[1], "1 ok getStatus");
    assert!(
        lines[2].starts_with("2 FAILED nope: UNKNOWN_TOOL: "),
        "{text}"
    );
    assert_eq!(lines.len(), 4, "{text}");
    assert!(harshjudge_mcp::tools::lean::text(&ctx, "run_steps", None, &detail).is_none());

    // record_replay of a sequence: the same, per call.
    let seq = json!({
        "id": "seq-1", "name": "Status", "createdAt": "2026-11-26T00:00:00.000Z",
        "variables": [],
        "calls": [
            {"tool": "getStatus", "args": {}, "ok": true, "durationMs": 1.0},
            {"tool": "browser_click", "args": {"testId": "go"}, "ok": true, "durationMs": 1.0, "locator": "testid=go"},
        ],
    });
    let seqs = dir.path().join(".harshJudge/sequences");
    std::fs::create_dir_all(&seqs).unwrap();
    std::fs::write(seqs.join("seq-1.json"), seq.to_string()).unwrap();
    let brief = call(&ctx, "record_replay", Some(json!({"sequenceId": "seq-1"}))).value;
    assert_eq!(
        brief["steps"][0],
        json!({"index": 1, "tool": "getStatus", "ok": true})
    );
    assert!(brief["steps"][1].get("result").is_none());
    assert_eq!(brief["summary"]["ran"], 2);
    let text = harshjudge_mcp::tools::lean::text(&ctx, "record_replay", None, &brief).unwrap();
    assert!(
        text.starts_with("record_replay: 1 ok, 1 failed of 2\n1 ok getStatus\n2 FAILED browser_click: NO_SESSION: "),
        "{text}"
    );
    let detail = call(
        &ctx,
        "record_replay",
        Some(json!({"sequenceId": "seq-1", "detail": true})),
    )
    .value;
    assert!(detail["steps"][0]["result"].is_object(), "{detail}");
    assert_eq!(detail["steps"][0]["recordedOk"], true);
    assert!(harshjudge_mcp::tools::lean::text(&ctx, "record_replay", None, &detail).is_none());
}
