//! Issue 42, points 4 and 5: fixtures (`#[fixture]`, `#[teardown]`) of
//! tests/fixtures/setups.rs (`fixture_checkout`, `fixture_refund`: an
//! invocation `ledger`, a scenario `account` with a teardown, a `cart` using
//! it), through runs of the suite as `cargo test` runs it: the order of set-up and
//! teardown, teardown after a failed and a panicked step, a set-up failure
//! naming the fixture, a teardown failure told after the scenario's own,
//! `result.json`'s `fixtures`, JUnit's `system-err`, and the HTML report in
//! real headless Chromium; under `cargo nextest run`, the invocation fixture
//! set up once for the run and torn down after it.

use crate::support;

use std::path::PathBuf;

use support::page::{js, until};
use support::{Run, json, run_suite, runs};

const SUITE: &str = "setups_suite";

struct Dirs {
    _tmp: tempfile::TempDir,
    hj: PathBuf,
    log: PathBuf,
}

/// Runs the fixture scenarios matching `filter`, one at a time, with
/// `SETUPS_FIXTURE=wrong`; what they logged.
fn run(filter: &str, wrong: &str) -> (Dirs, Run, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let d = Dirs {
        hj: tmp.path().join(".harshJudge"),
        log: tmp.path().join("log.txt"),
        _tmp: tmp,
    };
    let log = d.log.to_str().unwrap().to_string();
    let r = run_suite(
        SUITE,
        &d.hj,
        &[filter, "--test-threads=1"],
        &[("SETUPS_LOG", &log), ("SETUPS_FIXTURE", wrong)],
    );
    let lines = (std::fs::read_to_string(&d.log).unwrap_or_default())
        .lines()
        .map(str::to_string)
        .collect();
    (d, r, lines)
}

fn result_of(d: &Dirs, slug: &str) -> serde_json::Value {
    result_in(&d.hj, slug)
}

fn result_in(hj: &std::path::Path, slug: &str) -> serde_json::Value {
    json(runs(hj, slug)[0].join("result.json"))
}

/// `(name, scope, outcome)` of each fixture of `result.json`, in order.
fn fixtures(result: &serde_json::Value) -> Vec<(String, String, String)> {
    let field = |f: &serde_json::Value, k: &str| f[k].as_str().unwrap_or_default().to_string();
    (result["fixtures"].as_array().expect("fixtures").iter())
        .map(|f| (field(f, "name"), field(f, "scope"), field(f, "outcome")))
        .collect()
}

fn triple(name: &str, scope: &str, outcome: &str) -> (String, String, String) {
    (name.into(), scope.into(), outcome.into())
}

#[test]
fn fixtures_are_set_up_in_order_torn_down_in_reverse_and_recorded() {
    let (d, r, lines) = run("fixture_", "");
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        lines,
        [
            // Inside step 01, before its code; the invocation's ledger once.
            "set up ledger",
            "set up account in ledger-1 in step 01",
            "set up cart of fixture-checkout",
            "step 1: 2 items for fixture-checkout",
            "step 2",
            // The cart has no teardown (dropped); the account's runs after it.
            "tear down account of fixture-checkout",
            "set up account in ledger-1 in step 01",
            "refund",
            "tear down account of fixture-refund",
            // Once every scenario ended.
            "tear down ledger-1",
        ],
        "{r:?}"
    );
    let checkout = result_of(&d, "fixture-checkout");
    assert_eq!(
        fixtures(&checkout),
        [
            triple("ledger", "invocation", "passed"),
            triple("account", "scenario", "passed"),
            triple("cart", "scenario", "passed"),
        ]
    );
    // Fixtures are no steps; the record comes after the original's keys.
    assert_eq!(checkout["steps"].as_array().unwrap().len(), 2);
    let account = &checkout["fixtures"][1];
    assert!(
        account["setUpMs"].is_u64() && account["tornDownMs"].is_u64(),
        "{account}"
    );
    assert!(
        checkout["fixtures"][0]["tornDownMs"].is_null(),
        "an invocation fixture outlives the run"
    );
    let keys: Vec<&String> = checkout.as_object().unwrap().keys().collect();
    assert_eq!(
        keys.last().map(|k| k.as_str()),
        Some("fixtures"),
        "{keys:?}"
    );
    // What each printed through `harshjudge::log!`: a fixture's with the
    // fixture (the invocation's ledger with the scenario that set it up), a
    // step's in its `log.txt`.
    let printed = |f: &serde_json::Value| {
        let text = |k: &str| f[k].as_str().map(str::to_string);
        (text("setUpOutput"), text("teardownOutput"))
    };
    let some = |s: &str| Some(format!("{s}\n"));
    assert_eq!(
        checkout["fixtures"]
            .as_array()
            .unwrap()
            .iter()
            .map(printed)
            .collect::<Vec<_>>(),
        [
            (some("set up ledger"), None),
            (
                some("set up account in ledger-1 in step 01"),
                some("tear down account of fixture-checkout")
            ),
            (some("set up cart of fixture-checkout"), None),
        ]
    );
    let run_dir = &runs(&d.hj, "fixture-checkout")[0];
    let step_log =
        |n: &str| std::fs::read_to_string(run_dir.join(format!("step-{n}/evidence/log.txt")));
    assert_eq!(
        step_log("01").unwrap(),
        "step 1: 2 items for fixture-checkout\n"
    );
    assert_eq!(step_log("02").unwrap(), "step 2\n");
    let refund = result_of(&d, "fixture-refund");
    assert_eq!(
        printed(&refund["fixtures"][0]),
        (None, None),
        "set up by the checkout: {refund}"
    );
}

#[test]
fn fixtures_are_torn_down_after_a_failed_and_a_panicked_step() {
    for (wrong, said) in [
        ("step-fails", "the payment was refused"),
        ("step-panics", "panicked: the payment panicked"),
    ] {
        let (d, r, lines) = run("fixture_checkout", wrong);
        assert_eq!(r.code, 101, "{wrong}: {r:?}");
        assert!(r.stdout.contains(said), "{wrong}: {r:?}");
        assert_eq!(
            &lines[lines.len() - 3..],
            [
                "step 2",
                "tear down account of fixture-checkout",
                "tear down ledger-1"
            ],
            "{wrong}: {r:?}"
        );
        let result = result_of(&d, "fixture-checkout");
        assert_eq!(result["steps"][1]["status"], "fail");
        assert!(
            fixtures(&result).iter().all(|(_, _, o)| o == "passed"),
            "{result}"
        );
    }
}

#[test]
fn a_set_up_failure_fails_step_1_naming_the_fixture_before_its_code() {
    let (d, r, lines) = run("fixture_checkout", "set-up-fails");
    assert_eq!(r.code, 101, "{r:?}");
    // No step code ran; the ledger set up before it is still torn down.
    assert_eq!(
        lines,
        [
            "set up ledger",
            "set up account in ledger-1 in step 01",
            "tear down ledger-1"
        ],
        "{r:?}"
    );
    let result = result_of(&d, "fixture-checkout");
    let error = result["steps"][0]["error"].as_str().unwrap();
    assert!(
        error.starts_with("fixture `account` (tests/fixtures/setups.rs:")
            && error.ends_with(") failed: the account could not be opened"),
        "{error}"
    );
    assert_eq!(result["steps"][1]["status"], "skipped");
    assert_eq!(
        fixtures(&result),
        [
            triple("ledger", "invocation", "passed"),
            triple("account", "scenario", "failed"),
        ]
    );
    let junit = std::fs::read_to_string(d.hj.join("report/junit.xml")).unwrap();
    assert!(
        junit.contains("<system-err>fixture account (scenario, failed): fixture `account`"),
        "{junit}"
    );
}

#[test]
fn a_teardown_failure_is_told_after_the_scenarios_own_result() {
    // The step failed: its failure first, then the teardown's.
    let (d, r, _) = run("fixture_checkout", "step-fails,teardown-fails");
    assert_eq!(r.code, 101, "{r:?}");
    let result = result_of(&d, "fixture-checkout");
    let error = result["steps"][1]["error"].as_str().unwrap();
    assert!(
        error.starts_with("the payment was refused\nthen fixture `account`'s teardown `close_account` (tests/fixtures/setups.rs:"),
        "{error}"
    );
    assert!(
        error.contains("failed: the account could not be closed"),
        "{error}"
    );
    assert_eq!(result["errorMessage"].as_str(), Some(error));
    assert_eq!(
        fixtures(&result)[1],
        triple("account", "scenario", "teardownFailed")
    );
    let junit = std::fs::read_to_string(d.hj.join("report/junit.xml")).unwrap();
    assert!(
        junit.contains("<system-err>fixture account (scenario, teardownFailed): fixture `account`&apos;s teardown `close_account`")
            || junit.contains("<system-err>fixture account (scenario, teardownFailed): fixture `account`'s teardown `close_account`"),
        "{junit}"
    );
    // What the fixtures printed is the suite's `system-out`, before that.
    let out = junit.find("<system-out>fixture ledger set-up printed:\nset up ledger\nfixture account set-up printed:\nset up account in ledger-1 in step 01\nfixture account teardown printed:\ntear down account of fixture-checkout\nfixture cart set-up printed:\nset up cart of fixture-checkout</system-out>");
    assert!(
        out.is_some_and(|at| junit[at..].contains("<system-err>fixture account")),
        "{junit}"
    );

    // The steps passed: the teardown fails the last one, the first keeps its pass.
    let (d, r, _) = run("fixture_checkout", "teardown-fails");
    assert_eq!(r.code, 101, "{r:?}");
    let result = result_of(&d, "fixture-checkout");
    assert_eq!(result["steps"][0]["status"], "pass");
    let error = result["steps"][1]["error"].as_str().unwrap();
    assert!(
        error.starts_with("fixture `account`'s teardown `close_account`"),
        "{error}"
    );
}

#[test]
fn under_nextest_an_invocation_fixture_is_set_up_once_and_torn_down_after_the_run() {
    // Its teardown, after nextest's runner ended, is recorded in the run that
    // set it up: passed, or failed without touching the scenarios' results.
    for wrong in ["", "ledger-teardown-fails"] {
        let tmp = tempfile::tempdir().unwrap();
        let (hj, log) = (tmp.path().join(".harshJudge"), tmp.path().join("log.txt"));
        let out = support::nextest(SUITE, &hj)
            .args(["-E", "test(/^fixture_/)"])
            .env("SETUPS_LOG", &log)
            .env("SETUPS_FIXTURE", wrong)
            .output()
            .expect("cargo nextest runs");
        let r = Run::from(out);
        assert_eq!(r.code, 0, "{wrong}: {r:?}");
        let lines = || -> Vec<String> {
            (std::fs::read_to_string(&log).unwrap_or_default().lines())
                .map(str::to_string)
                .collect()
        };
        // Two processes, one ledger: the second read what the first wrote.
        let set_up = lines().iter().filter(|l| *l == "set up ledger").count();
        assert_eq!(set_up, 1, "{:?} {r:?}", lines());
        // Its teardown runs once nextest's runner ended: wait until the run
        // that set it up records it.
        let ledger = |slug: &str| result_in(&hj, slug)["fixtures"][0].clone();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let (setter, recorded) = loop {
            let found = ["fixture-checkout", "fixture-refund"]
                .into_iter()
                .map(|slug| (slug, ledger(slug)))
                .find(|(_, f)| f["tornDownMs"].is_u64());
            if let Some(found) = found {
                break found;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{wrong}: never recorded as torn down: {:?}",
                lines()
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let all = lines();
        assert_eq!(
            all.iter().filter(|l| *l == "tear down ledger-1").count(),
            1,
            "{all:?}"
        );
        assert_eq!(
            all.last().map(String::as_str),
            Some("tear down ledger-1"),
            "{all:?}"
        );
        assert_eq!(
            recorded["teardownOutput"], "tear down ledger-1\n",
            "{recorded}"
        );
        let error = recorded["error"].as_str().unwrap_or_default();
        match wrong {
            "" => assert_eq!((recorded["outcome"].as_str(), error), (Some("passed"), "")),
            _ => {
                assert_eq!(recorded["outcome"], "teardownFailed", "{recorded}");
                assert!(
                    error.starts_with(
                        "fixture `ledger`'s teardown `close_ledger` (tests/fixtures/setups.rs:"
                    ) && error.ends_with(") failed: the ledger could not be closed"),
                    "{error}"
                );
            }
        }
        for slug in ["fixture-checkout", "fixture-refund"] {
            let result = result_in(&hj, slug);
            assert_eq!(result["status"], "pass", "{slug}");
            if slug != setter {
                assert_eq!(
                    fixtures(&result)[0],
                    triple("ledger", "invocation", "passed")
                );
                assert!(result["fixtures"][0]["tornDownMs"].is_null(), "{result}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_lists_the_fixtures_above_the_steps() {
    let (d, r, _) = run("fixture_checkout", "teardown-fails");
    assert_eq!(r.code, 101, "{r:?}");
    let run_id = runs(&d.hj, "fixture-checkout")[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let fragment = format!("#/run/fixture-checkout/{run_id}");
    let (browsers, page) = crate::support::page::open_report(&d.hj, &fragment).await;
    until(
        &page,
        "the fixtures",
        "return document.querySelectorAll('#fixtures tr[data-fixture]').length === 3",
    )
    .await;
    let rows = js(
        &page,
        "return Array.from(document.querySelectorAll('#fixtures tr[data-fixture]')).map(function (r) { return r.dataset.fixture + ' ' + r.querySelector('.pill').textContent; })",
    )
    .await;
    assert_eq!(
        rows,
        serde_json::json!(["ledger passed", "account teardownFailed", "cart passed"])
    );
    let error = js(
        &page,
        "return document.querySelector('#fixtures tr.fail pre.err').textContent",
    )
    .await;
    assert!(
        error
            .as_str()
            .unwrap()
            .contains("the account could not be closed"),
        "{error}"
    );
    // Above the steps, and no step of its own.
    let above = js(
        &page,
        "return !!(document.querySelector('#fixtures').compareDocumentPosition(document.querySelector('#steps')) & Node.DOCUMENT_POSITION_FOLLOWING)",
    )
    .await;
    assert_eq!(above, true);
    // What the account's set-up and teardown printed, under its row.
    let printed = js(
        &page,
        "return Array.from(document.querySelectorAll('#fixtures tr[data-fixture=account] details.printed')).map(function (d) { return d.dataset.when + ': ' + d.querySelector('pre').textContent; })",
    )
    .await;
    assert_eq!(
        printed,
        serde_json::json!([
            "set-up: set up account in ledger-1 in step 01\n",
            "teardown: tear down account of fixture-checkout\n"
        ])
    );
    assert_eq!(
        js(
            &page,
            "return document.querySelectorAll('#steps li').length"
        )
        .await,
        2
    );
    browsers.shutdown().await;
}
