//! One lifecycle, two front ends: a run recorded by `cargo test` and a run of
//! the same scenario recorded through the MCP tools produce files of the same
//! shape (same files, same keys in the same order, same statuses).

use crate::support;

use serde_json::{Value, json};
use support::{json as read_json, run_suite, runs, yaml};

const SUITE: &str = "fixture_suite";

fn keys(v: &Value) -> Vec<String> {
    v.as_object().expect("an object").keys().cloned().collect()
}

fn yaml_keys(v: &serde_json::Value) -> Vec<String> {
    v.as_object().expect("a mapping").keys().cloned().collect()
}

/// Files of a run folder, relative, without harshjudge's internal lock file
/// and the harness's `replay.sh` (a `cargo test` run can be replayed by its test
/// binary; an agent's run has none).
fn files(run: &std::path::Path) -> Vec<String> {
    support::tree(run)
        .into_iter()
        .filter(|f| !f.ends_with(".run.lock") && f != "replay.sh")
        .collect()
}

#[test]
fn a_run_through_mcp_has_the_shape_of_a_run_through_cargo_test() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    // 1. cargo test: "Log in" passes (attaches session.txt), "Refuse the payment"
    //    fails, "See the receipt" is skipped.
    let r = run_suite(SUITE, &hj, &["fails_in_middle::"], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    let by_harness = runs(&hj, "refused-payment");
    assert_eq!(by_harness.len(), 1, "{r:?}");
    let by_harness = by_harness[0].clone();

    // 2. The same scenario through the MCP tools, as an agent would record it.
    let ctx = harshjudge_mcp::Context::new(tmp.path()).unwrap();
    let ok = |tool: &str, args: Value| {
        let out = harshjudge_mcp::call(&ctx, tool, Some(args));
        assert!(!out.is_error(), "{tool}: {}", out.value);
        out.value
    };
    let run = ok("startRun", json!({"scenarioSlug": "refused-payment"}));
    let id = run["runId"].as_str().unwrap();
    assert_eq!(run["steps"].as_array().unwrap().len(), 3);
    ok(
        "recordEvidence",
        json!({"runId": id, "stepId": "01", "type": "console_log", "name": "session", "data": "ada"}),
    );
    ok(
        "completeStep",
        json!({"runId": id, "stepId": "01", "status": "pass", "duration": 3}),
    );
    ok(
        "completeStep",
        json!({"runId": id, "stepId": "02", "status": "fail", "duration": 2, "error": "payment refused: card expired"}),
    );
    let done = ok(
        "completeRun",
        json!({"runId": id, "status": "fail", "duration": 9}),
    );
    assert_eq!(done["status"], "fail");
    let all = runs(&hj, "refused-payment");
    assert_eq!(all.len(), 2);
    let by_mcp = all.into_iter().find(|p| p.ends_with(id)).unwrap();

    // Same files.
    assert_eq!(files(&by_harness), files(&by_mcp));
    assert_eq!(
        files(&by_mcp),
        [
            "evidence",
            "result.json",
            "skill-state.yaml",
            "step-01/evidence/session.meta.json",
            "step-01/evidence/session.txt",
        ]
        .iter()
        .filter(|f| **f != "evidence")
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
    );
    assert!(by_harness.join("evidence").is_dir() && by_mcp.join("evidence").is_dir());

    // result.json: same keys in the same order, same outcome.
    let (a, b) = (
        read_json(by_harness.join("result.json")),
        read_json(by_mcp.join("result.json")),
    );
    assert_eq!(keys(&a), keys(&b));
    for k in ["scenarioSlug", "status", "failedStep", "errorMessage"] {
        assert_eq!(a[k], b[k], "{k}");
    }
    let (sa, sb) = (
        a["steps"].as_array().unwrap(),
        b["steps"].as_array().unwrap(),
    );
    assert_eq!(sa.len(), sb.len());
    for (x, y) in sa.iter().zip(sb) {
        // The harness also knows where in the source a step failed.
        let kx: Vec<String> = keys(x)
            .into_iter()
            .filter(|k| k != "errorLocation")
            .collect();
        assert_eq!(kx, keys(y), "step keys");
        for k in ["id", "status", "error", "evidenceFiles", "title"] {
            assert_eq!(x[k], y[k], "step {} {k}", x["id"]);
        }
    }
    assert_eq!(b["runNumber"], a["runNumber"].as_u64().unwrap() + 1);

    // Evidence sidecars: same keys.
    let side = "step-01/evidence/session.meta.json";
    assert_eq!(
        keys(&read_json(by_harness.join(side))),
        keys(&read_json(by_mcp.join(side)))
    );
    assert_eq!(
        std::fs::read(by_harness.join("step-01/evidence/session.txt")).unwrap(),
        b"ada"
    );
    assert_eq!(
        std::fs::read(by_mcp.join("step-01/evidence/session.txt")).unwrap(),
        b"ada"
    );

    // skill-state.yaml: same keys, same final phase, same failed step.
    let (ka, kb) = (
        yaml(by_harness.join("skill-state.yaml")),
        yaml(by_mcp.join("skill-state.yaml")),
    );
    assert_eq!(yaml_keys(&ka), yaml_keys(&kb));
    assert_eq!(ka["currentPhase"], kb["currentPhase"]);
    assert_eq!(ka["error"]["step"], kb["error"]["step"]);
    assert_eq!(
        ka["completedSteps"].as_array().unwrap().len(),
        kb["completedSteps"].as_array().unwrap().len()
    );

    // Both counted in meta.yaml.
    let meta = yaml(hj.join("scenarios/refused-payment/meta.yaml"));
    assert_eq!(meta["totalRuns"].as_u64(), Some(2));
    assert_eq!(meta["failCount"].as_u64(), Some(2));
}
