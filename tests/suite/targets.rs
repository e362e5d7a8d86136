//! Several suite targets of one package (tests/fixtures/targets_api.rs and
//! targets_web.rs), run by real `cargo test` and `cargo nextest run`:
//!
//! - issue 20.12: the JUnit XML CI reads holds every target's scenarios of one
//!   `cargo test --no-fail-fast` (not only the last binary's), and a run of one
//!   target keeps the other's latest results in the HTML report;
//! - issue 20.6: a scenario deleted from its target's code (the target built
//!   with the feature `fixture-without-legacy`) is shown removed in the report
//!   (real headless Chromium), out of the pass counts, its runs kept; a
//!   filtered run removes nothing.

use crate::support;
use crate::support::browsers;
use crate::support::page;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use harshjudge::browser::BrowserConfig;
use page::{js, until};
use serde_json::Value;
use support::{Run, WORKSPACE, workspace};

/// `cargo {args}` in the workspace, evidence under `hj`.
fn cargo(args: &[&str], hj: &Path) -> Run {
    let out = support::cargo(args)
        .env("HARSHJUDGE_DIR", hj)
        .env_remove("HARSHJUDGE_JUNIT")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("cargo runs");
    Run::from(out)
}

/// The JUnit XML as junitparser reads it.
fn junit(hj: &Path) -> Value {
    let path = hj.join("report/junit.xml");
    let out = Command::new(support::python())
        .arg(workspace().join("tests/junit/check.py"))
        .arg(&path)
        .output()
        .expect("python runs (cargo xtask test sets up target/py-venv)");
    assert!(
        out.status.success(),
        "junitparser could not read {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The suites (scenarios) of the JUnit XML, sorted, and its root's tests and failures.
fn suites(v: &Value) -> (Vec<String>, u64, u64) {
    let mut names: Vec<String> = v["suites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    let n = |k: &str| v[k].as_u64().unwrap();
    (names, n("tests"), n("failures"))
}

/// `report/data/overview.js` as the last process wrote it.
fn overview(hj: &Path) -> Value {
    let js = std::fs::read_to_string(hj.join("report/data/overview.js")).unwrap();
    let json = js
        .trim_end()
        .strip_prefix("window.__hj.overview(")
        .and_then(|s| s.strip_suffix(");"))
        .unwrap_or_else(|| panic!("not an overview script: {js}"));
    serde_json::from_str(json).unwrap()
}

fn row<'a>(o: &'a Value, slug: &str) -> &'a Value {
    o["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["slug"] == slug)
        .unwrap_or_else(|| panic!("{slug} is not in the overview: {o}"))
}

const BOTH: [&str; 4] = ["api-health", "api-orders", "web-home", "web-legacy"];

/// `cargo test --no-fail-fast` of two targets: the api target fails, the web
/// one passes, and the JUnit file holds both (it held the last binary's only).
#[test]
fn one_cargo_test_of_two_targets_writes_one_junit_file_with_both() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join("hj");
    let started = Instant::now();
    let r = cargo(
        &[
            "test",
            "--quiet",
            "--no-fail-fast",
            WORKSPACE,
            "--test",
            "targets_api",
            "--test",
            "targets_web",
        ],
        &hj,
    );
    let elapsed = started.elapsed().as_secs_f64();
    assert_eq!(r.code, 101, "{r:?}");
    let v = junit(&hj);
    // 5 steps: api-health 1, api-orders 2 (one failed), web-home 1, web-legacy 1.
    assert_eq!(suites(&v), (BOTH.map(String::from).to_vec(), 5, 1), "{v}");
    let xml = std::fs::read_to_string(hj.join("report/junit.xml")).unwrap();
    assert!(xml.contains("tests=\"5\" failures=\"1\""), "{xml}");
    // The root's time spans both binaries, within the whole `cargo test`.
    let root = v["time"].as_f64().unwrap();
    assert!(
        root > 0.0 && root <= elapsed,
        "root {root}, cargo took {elapsed} s"
    );
    // One invocation record for both binaries.
    let records: Vec<String> = std::fs::read_dir(hj.join(".suite"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("invocation-cargo-"))
        .collect();
    assert_eq!(records.len(), 1, "{records:?}");

    // A run of the web target alone: its JUnit holds its own scenarios; the
    // HTML report keeps the api target's latest results.
    let r = cargo(
        &["test", "--quiet", WORKSPACE, "--test", "targets_web"],
        &hj,
    );
    assert_eq!(r.code, 0, "{r:?}");
    let (names, tests, failures) = suites(&junit(&hj));
    assert_eq!(
        (names, tests, failures),
        (vec!["web-home".into(), "web-legacy".into()], 2, 0)
    );
    let o = overview(&hj);
    assert_eq!(o["scenarios"].as_array().unwrap().len(), 4, "{o}");
    let orders = row(&o, "api-orders");
    assert_eq!(orders["lastResult"], "fail", "{orders}");
    assert_eq!(orders["removed"], Value::Null, "{orders}");
    assert_eq!(row(&o, "api-health")["lastResult"], "pass");
    assert_eq!(row(&o, "web-home")["totalRuns"], 2);
}

/// The same two targets under cargo-nextest: one JUnit file with both.
#[test]
fn one_nextest_run_of_two_targets_writes_one_junit_file_with_both() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join("hj");
    let r = cargo(
        &[
            "nextest",
            "run",
            WORKSPACE,
            "--test",
            "targets_api",
            "--test",
            "targets_web",
            "--no-fail-fast",
        ],
        &hj,
    );
    assert_eq!(r.code, 100, "nextest exits 100 when a test failed: {r:?}");
    let v = junit(&hj);
    assert_eq!(suites(&v), (BOTH.map(String::from).to_vec(), 5, 1), "{v}");
}

/// `cargo test --workspace --test targets_web`, with the feature
/// that deletes `web_legacy` from its code or not, then harness arguments.
fn web(hj: &Path, without_legacy: bool, args: &[&str]) -> Run {
    let mut a = vec!["test", "--quiet", WORKSPACE];
    if without_legacy {
        a.extend(["--features", "harshjudge-workspace/fixture-without-legacy"]);
    }
    a.extend(["--test", "targets_web", "--"]);
    a.extend(args);
    cargo(&a, hj)
}

/// The checkpoint's `removed` (slug → since) of the web target.
fn removed(hj: &Path) -> Value {
    support::json(hj.join(".suite/targets_web.json"))["removed"].clone()
}

/// A scenario deleted from its target: marked removed in the report model and
/// the page (not green, out of the pass counts), its runs kept, not in JUnit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scenario_deleted_from_its_target_is_shown_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join("hj");
    let r = web(&hj, false, &[]);
    assert_eq!(r.code, 0, "{r:?}");
    // A filtered run still has the whole registry: nothing is removed.
    let r = web(&hj, false, &["web_home"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(removed(&hj), Value::Null, "a filter removes nothing");
    assert_eq!(row(&overview(&hj), "web-legacy")["removed"], Value::Null);

    // The same target without `web_legacy` in its code.
    let r = web(&hj, true, &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let since = removed(&hj)["web-legacy"].as_str().unwrap().to_string();
    let o = overview(&hj);
    let legacy = row(&o, "web-legacy");
    assert_eq!(legacy["removed"]["binary"], "targets_web", "{legacy}");
    assert_eq!(legacy["removed"]["since"], since.as_str());
    assert_eq!(
        legacy["history"].as_array().unwrap().len(),
        1,
        "its run is kept"
    );
    assert_eq!(row(&o, "web-home")["removed"], Value::Null);
    let (names, _, _) = suites(&junit(&hj));
    assert_eq!(
        names,
        ["web-home"],
        "JUnit lists the invocation's scenarios only"
    );
    // A later run keeps when it was first missed.
    let r = web(&hj, true, &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(removed(&hj)["web-legacy"], since.as_str());

    // The page, from disk, in headless Chromium.
    let index = hj.join("report/index.html");
    let mut config = BrowserConfig::from_env().expect("browser settings");
    config.webdriver_url = None;
    let page = browsers()
        .open_page_with(&config, "http://127.0.0.1:9")
        .await
        .expect("a browser page (needs chromium and chromium-driver)");
    page.goto(&format!("file://{}", index.display()))
        .await
        .unwrap();
    until(
        &page,
        "overview rows",
        "return document.querySelectorAll('tr.scenario').length === 2",
    )
    .await;
    assert_eq!(
        js(
            &page,
            "return document.querySelector('tr.scenario[data-slug=web-legacy] .pill').textContent"
        )
        .await,
        "removed"
    );
    let said = js(
        &page,
        "return document.querySelector('tr.scenario[data-slug=web-legacy]').innerText",
    )
    .await;
    assert!(
        said.as_str().unwrap().contains("not in the suite since"),
        "{said}"
    );
    assert_eq!(
        js(&page, "return document.querySelector('tr.scenario[data-slug=web-legacy]').classList.contains('removed')").await,
        true
    );
    // Listed last, counted only as removed: 1 scenario, 1 passing.
    assert_eq!(
        js(
            &page,
            "return document.querySelectorAll('tr.scenario')[1].dataset.slug"
        )
        .await,
        "web-legacy"
    );
    assert_eq!(
        js(&page, "return Array.from(document.querySelectorAll('.totals .card')).map(function (c) { return c.querySelector('.l').textContent + '=' + c.querySelector('.n').textContent; }).slice(0, 3).join(',')").await,
        "scenarios=1,passing=1,failing=0"
    );
    assert_eq!(
        js(
            &page,
            "return document.querySelector('#removed-count .n').textContent"
        )
        .await,
        "1"
    );
    page.click("[data-filter=passed]").await.unwrap();
    until(
        &page,
        "passed filter",
        "var r = document.querySelectorAll('tr.scenario'); return r.length === 1 && r[0].dataset.slug === 'web-home'",
    )
    .await;
    let shot = output_dir().join("removed-scenario.png");
    page.click("[data-filter=all]").await.unwrap();
    std::fs::write(&shot, page.screenshot().await.unwrap()).unwrap();
    println!("report screenshot: {}", shot.display());
    browsers().release(page).await;
    browsers().shutdown().await;

    // Back in the code: no longer removed.
    let r = web(&hj, false, &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(removed(&hj), Value::Null);
    assert_eq!(row(&overview(&hj), "web-legacy")["removed"], Value::Null);
}

fn output_dir() -> PathBuf {
    let d = workspace().join("target/test-output/targets");
    std::fs::create_dir_all(&d).unwrap();
    d
}
