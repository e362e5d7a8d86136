//! `harshjudge-mcp merge DIR... --into DIR` on real `.harshJudge/` trees: the
//! fixture suite run as 3 shards and merged equals the same suite run in one
//! process (statistics, runs, JUnit read by junitparser); merging again changes
//! nothing; run-number clashes are renumbered; a conflicting run is refused.

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use support::*;

const SUITE: &str = "fixture_suite";

fn merge(dirs: &[&Path], into: &Path) -> (bool, serde_json::Value, String) {
    let out = Command::new(mcp_binary())
        .arg("merge")
        .args(dirs)
        .arg("--into")
        .arg(into)
        .env("HARSHJUDGE_DASHBOARD", "off")
        .output()
        .expect("harshjudge-mcp runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let v = serde_json::from_str(if out.status.success() {
        &stdout
    } else {
        stderr.lines().last().unwrap_or("null")
    })
    .unwrap_or(serde_json::Value::Null);
    (out.status.success(), v, format!("{stdout}\n{stderr}"))
}

/// Scenario -> the statistics that do not depend on timing.
fn stats(hj: &Path) -> BTreeMap<String, (u64, u64, u64, String)> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(hj.join("scenarios")).unwrap() {
        let slug = e.unwrap().file_name().to_string_lossy().into_owned();
        let m = yaml(hj.join("scenarios").join(&slug).join("meta.yaml"));
        let n = |k: &str| m[k].as_u64().unwrap_or(0);
        out.insert(
            slug,
            (
                n("totalRuns"),
                n("passCount"),
                n("failCount"),
                m["lastResult"].as_str().unwrap_or("").to_string(),
            ),
        );
    }
    out
}

/// The (scenario, status) of every run.
fn run_set(hj: &Path) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for slug in stats(hj).keys() {
        for r in runs(hj, slug) {
            let v = json(r.join("result.json"));
            out.insert((slug.clone(), v["status"].as_str().unwrap().to_string()));
        }
    }
    out
}

/// JUnit through junitparser: per suite, per case, the result kinds; and the totals.
fn junit(path: &Path) -> (BTreeMap<String, Vec<String>>, u64, u64) {
    let out = Command::new(python())
        .arg(workspace().join("tests/junit/check.py"))
        .arg(path)
        .output()
        .expect(
            "python3 must be installed to run this test: `cargo xtask test` sets up target/py-venv",
        );
    assert!(
        out.status.success(),
        "junitparser could not read {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut cases = BTreeMap::new();
    for s in v["suites"].as_array().unwrap() {
        for c in s["cases"].as_array().unwrap() {
            let kinds: Vec<String> = c["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["kind"].as_str().unwrap().to_string())
                .collect();
            cases.insert(
                format!(
                    "{} / {}",
                    s["name"].as_str().unwrap(),
                    c["name"].as_str().unwrap()
                ),
                kinds,
            );
        }
    }
    (
        cases,
        v["tests"].as_u64().unwrap(),
        v["failures"].as_u64().unwrap(),
    )
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    tree(dir)
        .into_iter()
        .map(|f| {
            let b = std::fs::read(dir.join(&f)).unwrap();
            (f, b)
        })
        .collect()
}

#[test]
fn three_shards_merged_equal_one_run_and_merging_again_changes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let whole = t.path().join("whole");
    let r = run_suite(SUITE, &whole, &[], &[]);
    assert_eq!(r.code, 101, "{r:?}");

    let mut shards = vec![];
    for i in 1..=3 {
        let hj = t.path().join(format!("shard-{i}"));
        let r = run_suite(SUITE, &hj, &["--shard", &format!("{i}/3")], &[]);
        assert!(r.code == 0 || r.code == 101, "{r:?}");
        shards.push(hj);
    }
    let into = t.path().join("merged");
    let dirs: Vec<&Path> = shards.iter().map(|p| p.as_path()).collect();
    let (ok, v, out) = merge(&dirs, &into);
    assert!(ok, "{out}");
    assert!(v["renumbered"].as_array().unwrap().is_empty(), "{v}");
    assert_eq!(v["alreadyPresent"], 0, "{v}");

    // Statistics, runs, JUnit: the same as one process.
    assert_eq!(stats(&into), stats(&whole));
    assert_eq!(run_set(&into), run_set(&whole));
    assert_eq!(
        v["copiedRuns"].as_u64().unwrap() as usize,
        run_set(&whole).len()
    );
    let (merged_cases, merged_tests, merged_failures) = junit(&into.join("report/junit.xml"));
    let (whole_cases, whole_tests, whole_failures) = junit(&whole.join("report/junit.xml"));
    assert_eq!(merged_cases, whole_cases);
    assert_eq!(
        (merged_tests, merged_failures),
        (whole_tests, whole_failures)
    );
    assert!(whole_failures >= 4, "{whole_cases:?}");
    assert!(into.join("report/index.html").is_file());
    assert!(into.join("config.yaml").is_file() && into.join(".gitignore").is_file());
    // The checkpoint of the fixture binary holds every scenario.
    let cp = json(into.join(".suite/fixture_suite.json"));
    assert_eq!(
        cp["scenarios"].as_object().unwrap().len(),
        stats(&whole).len(),
        "{cp}"
    );
    all_files_parse(&into);

    // Idempotent: merging the same trees again leaves every byte as it was.
    let before = snapshot(&into);
    let (ok, v, out) = merge(&dirs, &into);
    assert!(ok, "{out}");
    assert_eq!(v["copiedRuns"], 0, "{v}");
    assert_eq!(v["changed"], false, "{v}");
    assert_eq!(snapshot(&into), before);

    // Another machine ran the whole suite: its runs are added, numbers that
    // clash (each scenario's run #1) are renumbered after the merged ones.
    let (ok, v, out) = merge(&[whole.as_path()], &into);
    assert!(ok, "{out}");
    let renumbered = v["renumbered"].as_array().unwrap();
    assert_eq!(renumbered.len(), stats(&whole).len(), "{v}");
    for (slug, (total, ..)) in stats(&into) {
        assert_eq!(total, 2, "{slug}");
        let numbers: BTreeSet<u64> = runs(&into, &slug)
            .iter()
            .map(|r| json(r.join("result.json"))["runNumber"].as_u64().unwrap())
            .collect();
        assert_eq!(numbers, BTreeSet::from([1, 2]), "{slug}");
        let meta = yaml(into.join("scenarios").join(&slug).join("meta.yaml"));
        assert_eq!(meta["lastRunNumber"].as_u64(), Some(2), "{slug}");
    }
    // Again: nothing changes (the renumbered copies are recognised).
    let before = snapshot(&into);
    let (ok, v, out) = merge(&[whole.as_path(), shards[0].as_path()], &into);
    assert!(ok, "{out}");
    assert_eq!(v["changed"], false, "{v}");
    assert_eq!(snapshot(&into), before);
}

#[test]
fn a_run_with_the_same_id_and_other_content_is_refused_naming_both_folders() {
    let t = tempfile::tempdir().unwrap();
    let a = t.path().join("a");
    let r = run_suite(SUITE, &a, &["checkout"], &[]);
    assert!(r.code == 0 || r.code == 101, "{r:?}");
    let into = t.path().join("merged");
    let (ok, _, out) = merge(&[a.as_path()], &into);
    assert!(ok, "{out}");

    // The same run id, other evidence.
    let b = t.path().join("b");
    for f in tree(&a) {
        let dest = b.join(&f);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(a.join(&f), dest).unwrap();
    }
    let run = runs(&b, "checkout").pop().unwrap();
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::write(run.join("tampered.txt"), "other").unwrap();
    // A link in a source is skipped, never followed.
    std::os::unix::fs::symlink("/etc", b.join("scenarios/etc-link")).unwrap();

    let before = snapshot(&into);
    let (ok, v, out) = merge(&[b.as_path()], &into);
    assert!(!ok, "{out}");
    let msg = v["error"].as_str().unwrap_or_default();
    assert!(
        msg.contains(&id)
            && msg.contains(&run.display().to_string())
            && msg.contains(
                &into
                    .join("scenarios/checkout/runs")
                    .join(&id)
                    .display()
                    .to_string()
            )
            && msg.contains("different content"),
        "{out}"
    );
    assert_eq!(snapshot(&into), before, "nothing written");

    std::fs::remove_file(run.join("tampered.txt")).unwrap();
    let (ok, v, out) = merge(&[b.as_path()], &into);
    assert!(ok, "{out}");
    assert_eq!(v["changed"], false, "{v}");
    let links = v["skippedLinks"].as_array().unwrap();
    assert!(
        links
            .iter()
            .any(|l| l.as_str().unwrap().ends_with("etc-link")),
        "{v}"
    );
    assert!(!into.join("scenarios/etc-link").exists());
}
