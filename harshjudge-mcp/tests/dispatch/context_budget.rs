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
    let mut schemas_start: Vec<&str> = r["schemasStart"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    schemas_start.sort();
    assert_eq!(schemas_start, start, "--output-schemas --tools start");
    // `--tools all` and HARSHJUDGE_MCP_TOOLS=all: a client configured for the
    // original finds the original's tools in its first tools/list.
    for how in ["flag", "env"] {
        let listed: Vec<&str> = r["all"][how]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for original in &ORIGINAL_TOOLS {
            assert!(listed.contains(original), "{how}: {original} in {listed:?}");
        }
        assert_eq!(listed.len(), tool_list().len(), "{how}: every tool");
        let instructions = r["all"][how]["instructions"].as_str().unwrap();
        assert_eq!(
            instructions,
            harshjudge_mcp::skill::texts::INSTRUCTIONS_ALL_TOOLS,
            "{how}"
        );
    }
}

/// The original HarshJudge's twelve MCP tools (reference, section 2.2).
const ORIGINAL_TOOLS: [&str; 12] = [
    "initProject",
    "createScenario",
    "toggleStar",
    "saveScenario",
    "startRun",
    "recordEvidence",
    "completeStep",
    "completeRun",
    "getStatus",
    "openDashboard",
    "closeDashboard",
    "getDashboardStatus",
];

#[test]
fn a_bad_tools_value_names_the_accepted_ones() {
    let dir = tempfile::tempdir().unwrap();
    let serve = |args: &[&str], env: Option<&str>| {
        let mut cmd = Command::new(BIN);
        cmd.arg("--cwd").arg(dir.path()).args(args);
        cmd.env("HARSHJUDGE_LOG", "warn")
            .env_remove("HARSHJUDGE_MCP_TOOLS");
        if let Some(v) = env {
            cmd.env("HARSHJUDGE_MCP_TOOLS", v);
        }
        // stdin closed at once: a server that started ends there.
        let out = cmd.stdin(std::process::Stdio::null()).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, err) = serve(&["--tools", "everything"], None);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("everything") && err.contains("all") && err.contains("start"),
        "{err}"
    );
    let (code, err) = serve(&[], Some("most"));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("HARSHJUDGE_MCP_TOOLS")
            && err.contains("most")
            && err.contains("all (")
            && err.contains("start ("),
        "{err}"
    );
    // A bad variable fails even beside the flag (as every setting does); any
    // case is accepted.
    let (code, err) = serve(&["--tools", "start"], Some("bogus"));
    assert_eq!(code, Some(1), "the variable is still checked: {err}");
    // ALL is taken: the server starts (and ends as stdin closes unanswered).
    let (_, err) = serve(&[], Some("ALL"));
    assert!(
        !err.contains("HARSHJUDGE_MCP_TOOLS") && !err.contains("INVALID_INPUT"),
        "{err}"
    );
}

/// A snapshot's lines, each with its line break.
fn lines(text: &str) -> Vec<String> {
    text.lines().map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_later_snapshot_of_the_same_page_sends_what_changed_in_its_place_in_the_tree() {
    use harshjudge_mcp::tools::browser::snapshot_text;
    let first = lines(
        "- page \"Todos\" [url=http://h/#/]\n\
         - heading \"todos\" [level=1] [ref=e1]\n\
         - textbox \"What needs to be done?\" [ref=e2]\n\
         - list [ref=e3]:\n  \
           - listitem [ref=e4] [testid=todo-item]:\n    \
             - checkbox [ref=e5]\n    \
             - generic [ref=e6] [testid=todo-title]: buy milk\n  \
           - listitem [ref=e7] [testid=todo-item]:\n    \
             - checkbox [ref=e8]\n    \
             - generic [ref=e9] [testid=todo-title]: feed the cat\n\
         - generic [ref=e10] [testid=todo-count]: 2 items left\n",
    );
    assert_eq!(snapshot_text(&first, None), (first.concat(), false));
    // The second todo checked and the counter down: each changed line under
    // the lines of the nodes it is in, nothing else.
    let second: Vec<String> = first
        .iter()
        .map(|l| {
            l.replace("- checkbox [ref=e8]", "- checkbox [checked] [ref=e8]")
                .replace("2 items left", "1 item left")
        })
        .collect();
    let (text, changes_only) = snapshot_text(&second, Some(&first));
    assert!(changes_only);
    assert_eq!(
        text,
        "- page \"Todos\" [url=http://h/#/]\n\
         - note: changes only, each under the nodes it is in (full: true for all)\n\
         - list [ref=e3]:\n  \
           - listitem [ref=e7] [testid=todo-item]:\n    \
             - checkbox [checked] [ref=e8]\n\
         - generic [ref=e10] [testid=todo-count]: 1 item left\n"
    );
    // A text that moved under another node is a change there; a removed
    // node's ref is named gone.
    let mut third: Vec<String> = second
        .iter()
        .filter(|l| !l.contains("e4]") && !l.contains("[ref=e5]") && !l.contains("buy milk"))
        .cloned()
        .collect();
    let counter = third.len() - 1;
    third.splice(
        counter..counter,
        lines("  - listitem [ref=e11]:\n    - text: buy milk\n"),
    );
    let (text, _) = snapshot_text(&third, Some(&second));
    assert!(
        text.ends_with(
            "- list [ref=e3]:\n  - listitem [ref=e11]:\n    - text: buy milk\n- gone: e4, e5, e6\n"
        ),
        "{text}"
    );
    let (text, _) = snapshot_text(&third, Some(&third));
    assert_eq!(
        text,
        "- page \"Todos\" [url=http://h/#/]\n- note: nothing changed (full: true for all)\n"
    );
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
    let text = harshjudge_mcp::tools::lean::text(&ctx, "run_steps", &brief).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "run_steps: 1 ok, 2 failed of 3");
    assert_eq!(lines[1], "1 ok getStatus");
    assert!(
        lines[2].starts_with("2 FAILED nope: UNKNOWN_TOOL: "),
        "{text}"
    );
    assert_eq!(lines.len(), 4, "{text}");
    assert!(harshjudge_mcp::tools::lean::text(&ctx, "run_steps", &detail).is_none());

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
    let text = harshjudge_mcp::tools::lean::text(&ctx, "record_replay", &brief).unwrap();
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
    assert!(harshjudge_mcp::tools::lean::text(&ctx, "record_replay", &detail).is_none());
}
