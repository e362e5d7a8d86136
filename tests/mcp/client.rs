//! End to end with a third-party MCP client: the Python `mcp` SDK drives the
//! real `harshjudge-mcp` binary over stdio through the whole agent workflow
//! (tests/mcp/agent_workflow.py); then the files on disk are checked here.

use crate::support;

use std::process::Command;

use support::{json, workspace, yaml};

use support::mcp_binary as server_binary;

#[test]
fn the_python_mcp_client_runs_the_whole_agent_workflow() {
    let bin = server_binary();
    let project = tempfile::tempdir().unwrap();
    let out = Command::new(support::python())
        .arg(workspace().join("tests/mcp/agent_workflow.py"))
        .arg(&bin)
        .arg(project.path())
        .output()
        .expect("python3 with the MCP SDK: `cargo xtask test` sets up target/py-venv");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python MCP client failed (exit {:?}):\n{stdout}\n{stderr}",
        out.status.code()
    );
    let ids: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let run_id = ids["runId"].as_str().unwrap();

    let hj = project.path().join(".harshJudge");
    assert_eq!(yaml(hj.join("config.yaml"))["projectName"], "E2E");
    assert!(hj.join("prd.md").is_file());
    let meta = yaml(hj.join("scenarios/login/meta.yaml"));
    assert_eq!(meta["starred"].as_bool(), Some(true));
    assert_eq!(meta["totalRuns"].as_u64(), Some(1));
    assert_eq!(meta["passCount"].as_u64(), Some(1));
    assert_eq!(meta["avgDuration"].as_u64(), Some(450));
    assert_eq!(meta["lastResult"].as_str(), Some("pass"));
    assert_eq!(
        meta["lastRunNumber"].as_u64(),
        Some(2),
        "the second run is numbered too"
    );

    let run = hj.join("scenarios/login/runs").join(run_id);
    let result = json(run.join("result.json"));
    assert_eq!(result["status"], "pass");
    assert_eq!(result["duration"], 450);
    assert_eq!(result["runNumber"], 1);
    let steps = result["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    for (i, s) in steps.iter().enumerate() {
        assert_eq!(s["id"], format!("{:02}", i + 1));
        assert_eq!(s["duration"], 101 + i as u64);
        assert_eq!(
            s["evidenceFiles"],
            serde_json::json!(["after.png", "console.txt"])
        );
        let ev = run.join(format!("step-{:02}/evidence", i + 1));
        let png = std::fs::read(ev.join("after.png")).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "a real PNG was copied");
        assert_eq!(
            std::fs::read_to_string(ev.join("console.txt")).unwrap(),
            format!("step {:02}: no errors", i + 1)
        );
        let side = json(ev.join("after.meta.json"));
        assert_eq!(side["type"], "screenshot");
        assert_eq!(side["runId"], run_id);
        assert_eq!(side["fileSize"], png.len() as u64);
    }
    let state = yaml(run.join("skill-state.yaml"));
    assert_eq!(state["currentPhase"].as_str(), Some("completed"));
    assert_eq!(state["completedSteps"].as_array().unwrap().len(), 3);
    // Nothing escaped: the project holds only .harshJudge/ and the client's PNG.
    let mut top: Vec<String> = std::fs::read_dir(project.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert_eq!(top, [".harshJudge", "shot.png"]);
    assert!(!hj.join("escape.json").exists() && !hj.join("scenarios/escape.json").exists());
}

/// The exported scenario kept in the repository (compiled and run against the
/// demo app by `cargo test --test exported`): the exporter must still write it.
const GOLDEN_EXPORT: &str = "examples/exported/sign_in_as_ada.rs";

#[test]
fn the_python_mcp_client_drives_the_agent_toolkit() {
    let bin = server_binary();
    let base = demo_app::start_in_background().unwrap();
    let project = tempfile::tempdir().unwrap();
    let out = Command::new(support::python())
        .arg(workspace().join("tests/mcp/agent_browser.py"))
        .arg(&bin)
        .arg(project.path())
        .arg(&base)
        .output()
        .expect("python3 with the MCP SDK: `cargo xtask test` sets up target/py-venv");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python MCP client failed (exit {:?}):\n{stdout}\n{stderr}",
        out.status.code()
    );
    let ids: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    println!(
        "run_steps of 5 actions: {} ms in one call, {} ms in five",
        ids["batchMs"], ids["singleCallsMs"]
    );
    let hj = project.path().join(".harshJudge");

    // Evidence the browser actions recorded by themselves, per step.
    let run = hj
        .join("scenarios/login/runs")
        .join(ids["runId"].as_str().unwrap());
    let files = |step: &str| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(run.join(step).join("evidence"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|f| !f.ends_with(".meta.json"))
            .collect();
        v.sort();
        v
    };
    let step1 = files("step-01");
    assert!(
        step1.contains(&"act01-navigate-before.png".to_string())
            && step1.contains(&"act01-navigate-after.png".to_string()),
        "{step1:?}"
    );
    let step2 = files("step-02");
    for verb in ["type", "click"] {
        assert!(
            step2
                .iter()
                .any(|f| f.contains(&format!("-{verb}-before.png")))
                && step2
                    .iter()
                    .any(|f| f.contains(&format!("-{verb}-after.png"))),
            "{verb} in {step2:?}"
        );
    }
    assert!(files("step-03").contains(&"dashboard.png".to_string()));
    let png = std::fs::read(run.join("step-01/evidence/act01-navigate-after.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let result = json(run.join("result.json"));
    assert_eq!(result["status"], "pass");
    assert!(
        result["steps"][1]["evidenceFiles"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f.as_str().unwrap().ends_with("-click-after.png")),
        "result.json lists the evidence: {result}"
    );

    // The replay recorded as a run, with evidence per call.
    let replay = hj
        .join("scenarios/replayed-sign-in/runs")
        .join(ids["replayRunId"].as_str().unwrap());
    let replayed = json(replay.join("result.json"));
    assert_eq!(replayed["status"], "pass");
    assert_eq!(replayed["steps"].as_array().unwrap().len(), 5);
    assert!(replay.join("step-04/evidence").read_dir().unwrap().count() >= 2);

    // Sequences on disk: the broken one was deleted.
    let seqs: Vec<_> = std::fs::read_dir(hj.join("sequences")).unwrap().collect();
    assert_eq!(seqs.len(), 1);

    // The export: the same as the one kept in the repository (which CI compiles
    // and runs), apart from the sequence id in its first line.
    let exported =
        std::fs::read_to_string(project.path().join(ids["export"].as_str().unwrap())).unwrap();
    let golden_path = workspace().join(GOLDEN_EXPORT);
    let body = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden_path, &exported).unwrap();
    }
    let golden = std::fs::read_to_string(&golden_path).unwrap();
    assert_eq!(
        body(&exported),
        body(&golden),
        "the export changed: rerun with UPDATE_GOLDEN=1 to update {GOLDEN_EXPORT} if that is intended"
    );
}

/// An agent written for the original, unchanged (tests/mcp/compat.py): the
/// dashboard initProject starts, saveScenario, unknown keys, text evidence.
#[test]
fn an_agent_written_for_the_original_works_unchanged() {
    let bin = server_binary();
    let project = tempfile::tempdir().unwrap();
    let out = Command::new("python3")
        .arg(workspace().join("tests/mcp/compat.py"))
        .arg(&bin)
        .arg(project.path())
        .output()
        .expect("python3 with `python3 -m pip install mcp==2.3.0`");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python MCP client failed (exit {:?}):\n{stdout}\n{stderr}",
        out.status.code()
    );
    let found: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let hj = project.path().join(".harshJudge");
    // The dashboard was closed again: no state file, nothing answering.
    assert!(!hj.join(".dashboard-state.json").exists());
    let port: u16 = found["dashboardUrl"]
        .as_str()
        .unwrap()
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
    // No dashboard process of the project is left (a leak, like a browser's).
    assert_eq!(
        support::dashboards_left(project.path(), 5),
        Vec::<u32>::new()
    );

    // saveScenario: scenario.md with its front matter, a meta.yaml without steps.
    let md = std::fs::read_to_string(hj.join("scenarios/checkout/scenario.md")).unwrap();
    assert!(
        md.starts_with("---\nid: checkout\ntitle: Checkout\ntags: [shop]\nestimatedDuration: 60\n---\n\n# Checkout"),
        "{md}"
    );
    let meta = yaml(hj.join("scenarios/checkout/meta.yaml"));
    assert_eq!(meta["title"].as_str(), Some("Checkout"));
    assert_eq!(meta["totalRuns"].as_u64(), Some(0));
    assert!(hj.join("scenarios/checkout-2/scenario.md").is_file());

    // Text evidence holds the text given, never a file's content.
    let ev = hj
        .join("scenarios/login/runs")
        .join(found["runId"].as_str().unwrap())
        .join("step-01/evidence");
    let read = |f: &str| std::fs::read_to_string(ev.join(f)).unwrap();
    assert_eq!(read("console.txt"), "/static/app.js");
    assert_eq!(
        read("network.json"),
        project.path().join("secret.txt").to_str().unwrap()
    );
    assert_eq!(read("db.json"), "/var/lib/db.json");
    // The step files of createScenario carry no trace of the unknown keys.
    let meta = yaml(hj.join("scenarios/login/meta.yaml"));
    assert!(meta.get("priority").is_none());
}
