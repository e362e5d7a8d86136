//! An agent as judge, end to end: runs of `judged_suite` (its test binary as `cargo test` runs it)
//! (real Chromium for `checkout`) leave steps with expectations in words; the
//! Python `mcp` SDK (tests/mcp/judge_flow.py) then drives the real
//! `harshjudge-mcp` binary as the judge: it lists the pending judgments, opens
//! the evidence files, records verdicts, and sees the runs' status change.
//! Then the files on disk are checked here.

use crate::support;

use std::process::Command;

use support::{json, run_suite, runs, workspace, yaml};

#[test]
fn an_agent_judges_real_runs_through_the_python_mcp_client() {
    let project = tempfile::tempdir().unwrap();
    let hj = project.path().join(".harshJudge");
    // Two runs of each scenario: what the pages and notes show matches the
    // expectations, then contradicts them. The code passes both times.
    let good = run_suite("judged_suite", &hj, &[], &[]);
    assert_eq!(good.code, 0, "{good:?}");
    let bad = run_suite(
        "judged_suite",
        &hj,
        &[],
        &[
            ("JUDGED_RECEIPT", "error"),
            ("JUDGED_NOTE", "the disk is full"),
        ],
    );
    assert_eq!(
        bad.code, 0,
        "the code passes; only a judge can fail it: {bad:?}"
    );
    let checkout = runs(&hj, "checkout");
    let notes = runs(&hj, "notes");
    assert_eq!((checkout.len(), notes.len()), (2, 2));
    for run in checkout.iter().chain(&notes) {
        assert_eq!(json(run.join("result.json"))["status"], "pass");
    }

    let out = Command::new(support::python())
        .arg(workspace().join("tests/mcp/judge_flow.py"))
        .arg(support::mcp_binary())
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
    let report: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let verdicts = report["verdicts"].as_array().unwrap();
    let id = |p: &std::path::Path| p.file_name().unwrap().to_string_lossy().into_owned();
    let find = |run: &str, step: &str| {
        verdicts
            .iter()
            .find(|v| v["runId"] == run && v["stepId"] == step)
            .unwrap_or_else(|| panic!("no verdict on {run}/{step}: {report:#}"))
    };
    // Exactly the steps with an expectation were judged: checkout 02, notes 01
    // of each run (result.json's expectation), signup 01 and 02 (step files).
    assert_eq!(verdicts.len(), 6, "{report:#}");
    let signup = report["signupRun"].as_str().unwrap();
    let expected = [
        (id(&checkout[0]), "02", "pass", "code"),
        (id(&checkout[1]), "02", "fail", "code"),
        (id(&notes[0]), "01", "pass", "code"),
        (id(&notes[1]), "01", "fail", "code"),
        (signup.to_string(), "01", "pass", "stepFile"),
        (signup.to_string(), "02", "fail", "stepFile"),
    ];
    for (run, step, verdict, source) in &expected {
        let v = find(run, step);
        assert_eq!(v["verdict"], *verdict, "{v}");
        assert_eq!(v["source"], *source, "{v}");
    }
    // The checkout step's evidence includes real Chromium screenshots, opened.
    let shots = find(&id(&checkout[0]), "02")["images"]
        .as_array()
        .unwrap()
        .clone();
    assert!(!shots.is_empty(), "{report:#}");
    for s in &shots {
        assert!(
            s[1].as_u64().unwrap() >= 100 && s[2].as_u64().unwrap() >= 100,
            "{s}"
        );
    }

    // On disk: the failing verdicts failed the runs whose code passed.
    for (dirs, slug, step) in [(&checkout, "checkout", 1usize), (&notes, "notes", 0)] {
        let ok = json(dirs[0].join("result.json"));
        let ko = json(dirs[1].join("result.json"));
        assert_eq!(ok["status"], "pass", "{ok:#}");
        assert_eq!(ko["status"], "fail", "{ko:#}");
        assert_eq!(ko["executedStatus"], "pass");
        let s = &ko["steps"][step];
        assert_eq!(
            (s["verdict"].as_str(), s["executedStatus"].as_str()),
            (Some("fail"), Some("pass")),
            "{s}"
        );
        let judged = json(dirs[1].join("judge/result.json"));
        let j = judged["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["stepId"] == s["id"])
            .unwrap();
        assert_eq!(
            (j["judge"].as_str(), j["identity"].as_str()),
            (Some("agent"), Some("agent:judge-flow"))
        );
        let meta = yaml(hj.join("scenarios").join(slug).join("meta.yaml"));
        assert_eq!(
            (
                meta["totalRuns"].as_u64(),
                meta["passCount"].as_u64(),
                meta["failCount"].as_u64()
            ),
            (Some(2), Some(1), Some(1)),
            "{slug}: {meta:#}"
        );
        assert_eq!(meta["lastResult"], "fail");
    }
    let signup_result = json(
        hj.join("scenarios/signup/runs")
            .join(signup)
            .join("result.json"),
    );
    assert_eq!(signup_result["status"], "fail");
    assert_eq!(
        signup_result["steps"][1]["expectation"],
        "The dashboard greets Ada by name"
    );
    support::all_files_parse(&hj);
}
