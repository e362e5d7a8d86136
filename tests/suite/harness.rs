//! Runs of tests/fixtures/suite.rs (its test binary as `cargo test` runs it,
//! `support::run_suite`): the listing, the exit code,
//! the console output and every file written.

use crate::support;

use std::path::Path;
use support::*;

const SUITE: &str = "fixture_suite";

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn list_names_every_step_without_running_anything() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite(SUITE, &hj, &["--list"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    for line in [
        "checkout::01_add_two_items_to_the_cart: test",
        "checkout::02_pay_with_the_saved_card: test",
        "fails_in_middle::01_log_in: test",
        "fails_in_middle::02_refuse_the_payment: test",
        "fails_in_middle::03_see_the_receipt: test",
        "panics::02_index_out_of_range: test",
    ] {
        assert!(
            r.stdout.lines().any(|l| l == line),
            "missing {line:?}\n{r:?}"
        );
    }
    assert!(!hj.exists(), "--list must not write anything");
}

#[test]
fn passing_scenario_writes_the_standard_layout() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite(SUITE, &hj, &["checkout::"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout
            .contains("test checkout::01_add_two_items_to_the_cart ... ok"),
        "{r:?}"
    );
    assert!(r.stdout.contains("test result: ok. 2 passed"), "{r:?}");
    assert!(r.stdout.contains("harshjudge: 1 run(s) recorded"), "{r:?}");

    let config = yaml(hj.join("config.yaml"));
    assert_eq!(config["projectName"], "harshjudge-workspace");
    assert_eq!(config["version"], "1.0");
    // The original's 206 bytes, then our local-only files.
    let gitignore = std::fs::read_to_string(hj.join(".gitignore")).unwrap();
    assert_eq!(
        &gitignore[..206],
        &harshjudge_store::store::GITIGNORE[..206]
    );
    assert!(
        gitignore.ends_with(".dashboard.log\n.running/\n.suite/\n# harshjudge: saved logins (page.save_storage_state)\n.auth/\n"),
        "{gitignore}"
    );

    let scen = hj.join("scenarios/checkout");
    let meta = yaml(scen.join("meta.yaml"));
    assert_eq!(meta["title"], "Checkout with a saved card.");
    assert_eq!(meta["slug"], "checkout");
    assert_eq!(
        meta["tags"],
        serde_saphyr::from_str::<serde_json::Value>("[smoke, checkout]").unwrap()
    );
    assert_eq!(meta["steps"][1]["id"], "02");
    assert_eq!(meta["steps"][1]["file"], "02-pay-with-the-saved-card.md");
    assert_eq!(
        (
            meta["totalRuns"].as_u64(),
            meta["passCount"].as_u64(),
            meta["failCount"].as_u64()
        ),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(meta["lastResult"], "pass");
    let step_md =
        std::fs::read_to_string(scen.join("steps/01-add-two-items-to-the-cart.md")).unwrap();
    assert!(
        step_md.starts_with("# Step 01: Add two items to the cart\n"),
        "{step_md}"
    );
    assert!(
        step_md.contains("tests/fixtures/suite.rs:"),
        "source location: {step_md}"
    );
    assert!(
        step_md.contains("s.attach_json(\"cart\", &cart)?;"),
        "source text: {step_md}"
    );

    let runs = runs(&hj, "checkout");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let run_id = run.file_name().unwrap().to_str().unwrap();
    assert!(
        run_id.as_bytes()[0].is_ascii_digit(),
        "run ids never start with '-': {run_id}"
    );
    let files = tree(run);
    let replay = std::fs::metadata(run.join("replay.sh")).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            replay.permissions().mode() & 0o111,
            0o111,
            "replay.sh is executable"
        );
    }
    assert_eq!(
        files,
        vec![
            "replay.sh",
            "result.json",
            "skill-state.yaml",
            "step-01/evidence/cart.json",
            "step-01/evidence/cart.meta.json",
            "step-02/evidence/receipt.meta.json",
            "step-02/evidence/receipt.txt",
        ]
    );
    assert!(run.join("evidence").is_dir());
    let result = json(run.join("result.json"));
    let keys: Vec<&str> = result
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "runId",
            "scenarioSlug",
            "status",
            "startedAt",
            "completedAt",
            "duration",
            "steps",
            "failedStep",
            "errorMessage",
            "runNumber"
        ]
    );
    assert_eq!(result["runId"], run_id);
    assert_eq!(result["status"], "pass");
    assert_eq!(result["failedStep"], serde_json::Value::Null);
    assert_eq!(
        result["steps"][0]["evidenceFiles"],
        serde_json::json!(["cart.json"])
    );
    assert_eq!(
        result["steps"][1]["evidenceFiles"],
        serde_json::json!(["receipt.txt"])
    );
    assert_eq!(
        std::fs::read_to_string(run.join("step-02/evidence/receipt.txt")).unwrap(),
        "paid 6"
    );
    let cart: Vec<String> =
        serde_json::from_value(json(run.join("step-01/evidence/cart.json"))).unwrap();
    assert_eq!(cart, ["apple", "pear"]);
    let sidecar = json(run.join("step-01/evidence/cart.meta.json"));
    assert_eq!(
        (
            sidecar["stepId"].as_str(),
            sidecar["type"].as_str(),
            sidecar["name"].as_str()
        ),
        (Some("01"), Some("custom"), Some("cart"))
    );
    let state = yaml(run.join("skill-state.yaml"));
    assert_eq!(state["currentPhase"], "completed");
    assert_eq!(state["completedSteps"].as_array().unwrap().len(), 2);
    assert_eq!(state["skillVersion"], "1.0");
}

fn outcome_line<'a>(out: &'a str, test: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(&format!("test {test} ")) && l.contains(" ... "))
        .unwrap_or_else(|| panic!("no line for {test} in\n{out}"))
}

#[test]
fn a_failing_step_fails_and_the_rest_are_ignored_with_the_reason() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite(
        SUITE,
        &hj,
        &["fails_in_middle::", "--test-threads", "1"],
        &[],
    );
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        outcome_line(&r.stdout, "fails_in_middle::01_log_in").ends_with("ok"),
        "{r:?}"
    );
    assert!(
        outcome_line(&r.stdout, "fails_in_middle::02_refuse_the_payment").ends_with("FAILED"),
        "{r:?}"
    );
    let ignored = outcome_line(&r.stdout, "fails_in_middle::03_see_the_receipt");
    assert!(
        ignored.contains("ignored") && ignored.contains("step 02 failed"),
        "{ignored}"
    );
    // libtest's failure section and our final lines: error, location, evidence folder.
    assert!(r.stdout.contains("payment refused: card expired"), "{r:?}");
    let tail = r
        .stdout
        .split("failed steps (1):")
        .nth(1)
        .expect("final lines");
    assert!(
        tail.contains("fails_in_middle::02_refuse_the_payment  (step 02 \"Refuse the payment\")"),
        "{tail}"
    );
    assert!(
        tail.contains("error: payment refused: card expired"),
        "{tail}"
    );
    assert!(tail.contains("at: tests/fixtures/suite.rs:"), "{tail}");
    let run = &runs(&hj, "refused-payment")[0];
    assert!(
        tail.contains(&run.join("step-02/evidence").display().to_string()),
        "{tail}"
    );
    assert!(run.join("step-02/evidence").is_dir());

    let result = json(run.join("result.json"));
    assert_eq!(result["status"], "fail");
    assert_eq!(result["failedStep"], "02");
    assert_eq!(result["errorMessage"], "payment refused: card expired");
    let statuses: Vec<&str> = result["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["pass", "fail", "skipped"]);
    assert!(
        result["steps"][1]["errorLocation"]
            .as_str()
            .unwrap()
            .starts_with("tests/fixtures/suite.rs:")
    );
    assert_eq!(result["steps"][2]["summary"], "Skipped: step 02 failed");
    let meta = yaml(hj.join("scenarios/refused-payment/meta.yaml"));
    assert_eq!(
        (meta["failCount"].as_u64(), meta["lastResult"].as_str()),
        (Some(1), Some("fail"))
    );
    let state = yaml(run.join("skill-state.yaml"));
    assert_eq!(state["error"]["step"].as_u64(), Some(2));
    assert_eq!(state["error"]["message"], "payment refused: card expired");
}

#[test]
fn a_panic_fails_the_step_with_its_message_and_location() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite(SUITE, &hj, &["panics::"], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stdout
            .contains("panicked: index out of bounds: the len is 0 but the index is 3"),
        "{r:?}"
    );
    let result = json(runs(&hj, "panics")[0].join("result.json"));
    assert_eq!(result["failedStep"], "02");
    assert!(
        result["steps"][1]["errorLocation"]
            .as_str()
            .unwrap()
            .starts_with("tests/fixtures/suite.rs:"),
        "{result}"
    );
    assert_eq!(result["steps"][2]["status"], "skipped");
}

#[test]
fn an_error_from_question_mark_records_where_it_came_from() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite(SUITE, &hj, &["io_error::"], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    let result = json(runs(&hj, "io-error")[0].join("result.json"));
    assert!(
        result["errorMessage"]
            .as_str()
            .unwrap()
            .contains("No such file"),
        "{result}"
    );
    assert!(
        result["steps"][0]["errorLocation"]
            .as_str()
            .unwrap()
            .starts_with("tests/fixtures/suite.rs:"),
        "{result}"
    );
}

#[test]
fn timeouts_say_which_limit_was_hit() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite(SUITE, &hj, &["timeout::"], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    let step = json(runs(&hj, "step-timeout")[0].join("result.json"));
    assert_eq!(step["failedStep"], "02");
    assert_eq!(
        step["errorMessage"],
        "step timed out after 300ms (the step's limit, set by #[scenario(step_timeout = …)])"
    );
    assert!(
        step["steps"][1]["errorLocation"]
            .as_str()
            .unwrap()
            .starts_with("tests/fixtures/suite.rs:"),
        "{step}"
    );
    assert!(
        step["steps"][1]["duration"].as_u64().unwrap() < 5000,
        "the step was stopped at its limit"
    );
    let scen = json(runs(&hj, "scenario-timeout")[0].join("result.json"));
    assert_eq!(scen["failedStep"], "03");
    assert_eq!(
        scen["errorMessage"],
        "scenario timed out after 4s (the whole scenario's limit, set by #[scenario(timeout = …)])"
    );
    // The global default applies where the code sets none, and names its variable.
    let t2 = tmp();
    let hj2 = t2.path().join("hj");
    let r = run_suite(
        SUITE,
        &hj2,
        &["step_timeout::"],
        &[("HARSHJUDGE_TIMEOUT", "100ms")],
    );
    assert_eq!(r.code, 101, "{r:?}");
    let res = json(runs(&hj2, "step-timeout")[0].join("result.json"));
    assert!(
        res["errorMessage"]
            .as_str()
            .unwrap()
            .contains("HARSHJUDGE_TIMEOUT"),
        "{res}"
    );
}

#[test]
fn selecting_one_step_runs_the_steps_before_it_and_not_after() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite(
        SUITE,
        &hj,
        &["--exact", "checkout::02_pay_with_the_saved_card"],
        &[],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains("1 passed"),
        "only the selected step is a test: {r:?}"
    );
    let result = json(runs(&hj, "checkout")[0].join("result.json"));
    assert_eq!(result["steps"][0]["status"], "pass", "step 01 ran first");
    assert_eq!(result["steps"][1]["status"], "pass");

    let r = run_suite(
        SUITE,
        &hj,
        &["--exact", "checkout::01_add_two_items_to_the_cart"],
        &[],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let result = json(runs(&hj, "checkout")[1].join("result.json"));
    assert_eq!(result["status"], "pass");
    assert_eq!(result["steps"][1]["status"], "skipped");
    assert_eq!(
        result["steps"][1]["summary"],
        "Skipped: not selected by the test filter"
    );
    assert_eq!(result["runNumber"], 2);

    // --skip drops a scenario entirely; --ignored selects none of ours.
    let t2 = tmp();
    let hj2 = t2.path().join("hj");
    let r = run_suite(SUITE, &hj2, &["checkout::", "--skip", "checkout::"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(runs(&hj2, "checkout").is_empty());
    let r = run_suite(SUITE, &hj2, &["--ignored"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!hj2.join("scenarios").exists());
}

/// The names `--list` printed.
fn listed(out: &str) -> Vec<&str> {
    out.lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .collect()
}

#[test]
fn several_filters_select_what_any_of_them_matches_as_libtest_does() {
    let t = tmp();
    let hj = t.path().join("hj");
    // `--list` lists the union, less what a `--skip` matches.
    let r = run_suite(
        SUITE,
        &hj,
        &["--list", "checkout::", "panics::0", "--skip", "panics::03"],
        &[],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        listed(&r.stdout),
        [
            "checkout::01_add_two_items_to_the_cart",
            "checkout::02_pay_with_the_saved_card",
            "panics::01_start",
            "panics::02_index_out_of_range",
        ],
        "{r:?}"
    );
    let all = listed(&run_suite(SUITE, &hj, &["--list"], &[]).stdout).len();

    // Two filters around an option's value (not a filter), and a --skip: the
    // selected steps run (each scenario up to its last selected one), the
    // rest is filtered out.
    let r = run_suite(
        SUITE,
        &hj,
        &[
            "checkout::02",
            "--test-threads",
            "2",
            "parallel_",
            "--skip",
            "parallel_b",
        ],
        &[],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains(&format!(
            "2 passed; 0 failed; 0 ignored; 0 measured; {} filtered out",
            all - 2
        )),
        "{r:?}"
    );
    let mut ran: Vec<String> = std::fs::read_dir(hj.join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    ran.sort();
    assert_eq!(ran, ["checkout", "parallel-a"], "{r:?}");
    let result = json(runs(&hj, "checkout")[0].join("result.json"));
    assert_eq!(result["steps"][0]["status"], "pass", "step 01 ran first");
    assert_eq!(result["steps"][1]["status"], "pass");

    // --exact: whole names, any of them.
    let r = run_suite(
        SUITE,
        &hj,
        &[
            "--exact",
            "checkout::01_add_two_items_to_the_cart",
            "parallel_b::01_sleep",
            "parallel_",
        ],
        &[],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("2 passed;"), "{r:?}");
    assert_eq!(runs(&hj, "checkout").len(), 2);
    assert_eq!(runs(&hj, "parallel-b").len(), 1);
    assert_eq!(
        runs(&hj, "parallel-a").len(),
        1,
        "\"parallel_\" is no whole name"
    );
}

#[test]
fn a_target_without_harness_false_fails_saying_what_to_add() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite("fixture_libtest_harness", &hj, &[], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stdout.contains("this test target uses libtest's harness: add `harness = false` to its `[[test]]` entry in Cargo.toml"),
        "{r:?}"
    );
    // Its one test failed, and said so.
    assert!(
        r.stdout
            .contains("---- harshjudge_needs_harness_false stdout ----"),
        "{r:?}"
    );
    assert!(!r.stdout.contains("test result: ok"), "{r:?}");
    assert!(!hj.exists(), "nothing ran: {r:?}");
}

#[test]
fn terse_and_json_formats_work() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite(SUITE, &hj, &["checkout::", "--format", "terse"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.lines().any(|l| l.trim() == ".."), "{r:?}");
    let r = run_suite(
        SUITE,
        &hj,
        &[
            "fails_in_middle::",
            "--format",
            "json",
            "-Z",
            "unstable-options",
        ],
        &[],
    );
    assert_eq!(r.code, 101, "{r:?}");
    let events: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    let ignored = events
        .iter()
        .find(|e| e["name"] == "fails_in_middle::03_see_the_receipt" && e["event"] == "ignored");
    assert!(ignored.is_some(), "{r:?}");
    assert!(
        r.stderr.contains("failed steps (1):"),
        "the summary goes to stderr with --format json: {r:?}"
    );
}

#[test]
fn two_concurrent_runs_lose_no_count() {
    let t = tmp();
    let hj = t.path().join("hj");
    run_suite(SUITE, &hj, &["--list"], &[]); // build first
    let spawn = || {
        let hj = hj.clone();
        std::thread::spawn(move || run_suite(SUITE, &hj, &["checkout::"], &[]))
    };
    let handles: Vec<_> = (0..4).map(|_| spawn()).collect();
    for h in handles {
        let r = h.join().unwrap();
        assert_eq!(r.code, 0, "{r:?}");
    }
    let meta = yaml(hj.join("scenarios/checkout/meta.yaml"));
    assert_eq!(meta["totalRuns"].as_u64(), Some(4), "{meta:?}");
    assert_eq!(meta["passCount"].as_u64(), Some(4));
    assert_eq!(meta["lastRunNumber"].as_u64(), Some(4));
    let mut numbers: Vec<u64> = runs(&hj, "checkout")
        .iter()
        .map(|r| json(r.join("result.json"))["runNumber"].as_u64().unwrap())
        .collect();
    numbers.sort();
    assert_eq!(numbers, [1, 2, 3, 4]);
}

#[test]
fn a_corrupt_meta_yaml_fails_with_the_file_named_and_is_left_alone() {
    let t = tmp();
    let hj = t.path().join("hj");
    let meta = hj.join("scenarios/checkout/meta.yaml");
    std::fs::create_dir_all(meta.parent().unwrap()).unwrap();
    std::fs::write(&meta, "title: [unclosed\n").unwrap();
    let r = run_suite(SUITE, &hj, &["checkout::"], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stdout.contains(&meta.display().to_string()) && r.stdout.contains("not valid YAML"),
        "{r:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&meta).unwrap(),
        "title: [unclosed\n"
    );
}

#[test]
fn a_bad_setting_is_named() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite(
        SUITE,
        &hj,
        &["checkout::"],
        &[("HARSHJUDGE_STEP_TIMEOUT", "soon")],
    );
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr
            .contains("HARSHJUDGE_STEP_TIMEOUT=\"soon\" is invalid"),
        "{r:?}"
    );
}

#[test]
fn under_nextest_each_scenario_is_one_test() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite(
        SUITE,
        &hj,
        &["--list"],
        &[("NEXTEST_RUN_ID", "0c7a1c1e-0000-0000-0000-000000000000")],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.lines().any(|l| l == "checkout: test"), "{r:?}");
    assert!(!r.stdout.contains("checkout::01"), "{r:?}");
    let mut suite = suite_command(SUITE);
    suite
        .args(["--exact", "fails_in_middle"])
        .env("HARSHJUDGE_DIR", &hj);
    let r = Run::from(under_runner(&suite, "x").output().expect("the suite runs"));
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stdout
            .contains("step 02 \"Refuse the payment\" failed: payment refused"),
        "{r:?}"
    );
    assert_eq!(runs(&hj, "refused-payment").len(), 1);
    // The reports are announced on the runner's standard error once it has
    // ended (nextest shows nothing a passing test prints): here the
    // stand-in's, which this test reads to its end. Run with the id in this
    // test's own environment, the announcer took this test process for the
    // runner and printed into its output after it ended (nextest: "leaky").
    let report = hj.join("report/index.html");
    assert!(
        r.stderr.contains(&format!("report: {}", report.display())),
        "{r:?}"
    );
}

/// `suite` as cargo-nextest starts a test: a child of the runner, here a
/// shell standing in for it, with the run's id `run` in the suite's
/// environment and not in the runner's. What the run leaves to the runner's
/// end (the report announcer, on the runner's standard error) is the
/// stand-in's, whose output the caller reads to its end.
fn under_runner(suite: &std::process::Command, run: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(r#"NEXTEST_RUN_ID="$HJ_TEST_RUN" "$0" "$@""#)
        .arg(suite.get_program())
        .args(suite.get_args())
        .env("HJ_TEST_RUN", run)
        .env_remove("NEXTEST_RUN_ID");
    if let Some(dir) = suite.get_current_dir() {
        cmd.current_dir(dir);
    }
    for (k, v) in suite.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd
}

#[test]
fn real_nextest_runs_each_scenario_once() {
    let t = tmp();
    let hj = t.path().join("hj");
    let out = support::nextest(SUITE, &hj)
        .args([
            "--no-fail-fast",
            "-E",
            "test(checkout) | test(fails_in_middle)",
        ])
        .output()
        .expect("cargo nextest runs");
    let r = Run::from(out);
    assert_eq!(r.code, 100, "nextest exits 100 when a test failed: {r:?}");
    assert_eq!(runs(&hj, "checkout").len(), 1, "{r:?}");
    assert_eq!(runs(&hj, "refused-payment").len(), 1, "{r:?}");
    let meta = yaml(hj.join("scenarios/checkout/meta.yaml"));
    assert_eq!(meta["passCount"].as_u64(), Some(1));
    let _ = Path::new("");
}

#[test]
fn the_base_url_comes_from_the_variable_else_config_yaml() {
    let t = tmp();
    let hj = t.path().join("hj");
    std::fs::create_dir_all(&hj).unwrap();
    std::fs::write(
        hj.join("config.yaml"),
        "projectName: Shop\nbaseUrl: http://127.0.0.1:3000/\nversion: '1.0'\ncreatedAt: '2026-11-22T11:15:38.954Z'\n",
    )
    .unwrap();
    let r = run_suite(SUITE, &hj, &["base_url::"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let ev = runs(&hj, "base-url")[0].join("step-01/evidence");
    assert_eq!(
        std::fs::read_to_string(ev.join("base-url.txt")).unwrap(),
        "http://127.0.0.1:3000/"
    );
    assert_eq!(
        std::fs::read_to_string(ev.join("login-url.txt")).unwrap(),
        "http://127.0.0.1:3000/login"
    );

    let r = run_suite(
        SUITE,
        &hj,
        &["base_url::"],
        &[("HARSHJUDGE_BASE_URL", "http://127.0.0.1:4000")],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let ev = runs(&hj, "base-url")[1].join("step-01/evidence");
    assert_eq!(
        std::fs::read_to_string(ev.join("base-url.txt")).unwrap(),
        "http://127.0.0.1:4000"
    );

    let r = run_suite(
        SUITE,
        &hj,
        &["base_url::"],
        &[("HARSHJUDGE_BASE_URL", "localhost:4000")],
    );
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains("HARSHJUDGE_BASE_URL") && r.stderr.contains("http://"),
        "{r:?}"
    );
}

#[test]
fn the_demo_suite_runs_against_its_own_app() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite("demo", &hj, &[], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let config = yaml(hj.join("config.yaml"));
    assert_eq!(
        config["baseUrl"], "",
        "a started app's port is not written into config.yaml"
    );
    let run = &runs(&hj, "api-items")[0];
    let created = json(run.join("step-02/evidence/created.json"));
    assert_eq!(created["status"], 201);
    assert_eq!(created["body"]["text"], "hammer");
    let cli = &runs(&hj, "cli-greet")[0];
    assert_eq!(
        std::fs::read_to_string(cli.join("step-01/evidence/greet-stdout.txt")).unwrap(),
        "Hello, Ada!\n"
    );

    let r = run_suite(
        "demo",
        &hj,
        &["api_expected_failure::"],
        &[("HARSHJUDGE_DEMO_FAIL", "1")],
    );
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stdout
            .contains("expected status \"degraded\", got \"ok\""),
        "{r:?}"
    );
    browser_evidence(&hj, t.path());
}

/// The demo's browser scenarios: before/after screenshots, console and network
/// per step; a failing step's error.png and page.html; no process left behind.
fn browser_evidence(hj: &Path, tmp: &Path) {
    let png = |p: &Path| {
        let b = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{} is a PNG", p.display());
        let w = u32::from_be_bytes(b[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(b[20..24].try_into().unwrap());
        assert!(w >= 800 && h >= 400, "{}: {w}x{h}", p.display());
        b
    };
    let login = &runs(hj, "web-login")[0];
    for step in ["step-01", "step-02", "step-03"] {
        assert_eq!(
            evidence(login, step),
            ["after.png", "before.png", "console.json", "network.json"],
            "{step}"
        );
    }
    // One screenshot at each boundary: after of 01 is before of 02.
    assert_eq!(
        png(&login.join("step-01/evidence/after.png")),
        png(&login.join("step-02/evidence/before.png"))
    );
    let network = json(login.join("step-02/evidence/network.json"));
    let post = network
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["url"].as_str().unwrap().ends_with("/api/login"))
        .expect("the login request");
    assert_eq!(
        (post["method"].as_str(), post["status"].as_u64()),
        (Some("POST"), Some(200))
    );
    assert!(post["timing"].as_f64().is_some(), "{post}");
    let result = json(login.join("result.json"));
    assert_eq!(
        result["steps"][1]["evidenceFiles"],
        serde_json::json!(["after.png", "before.png", "console.json", "network.json"])
    );
    let console = json(runs(hj, "web-console")[0].join("step-01/evidence/console.json"));
    let texts: Vec<(&str, &str)> = console
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["level"].as_str().unwrap(), e["text"].as_str().unwrap()))
        .collect();
    for want in [
        ("info", "demo: page loaded"),
        ("warning", "demo: low stock"),
        ("error", "demo: something failed"),
    ] {
        assert!(texts.contains(&want), "{want:?} in {texts:?}");
    }
    let network = json(runs(hj, "web-console")[0].join("step-02/evidence/network.json"));
    assert!(
        network.as_array().unwrap().iter().any(|e| e["url"]
            .as_str()
            .unwrap()
            .ends_with("/api/missing")
            && e["status"] == 404),
        "only step 02's requests, with the 404: {network}"
    );

    // A failing browser step: error.png and page.html. Its own TMPDIR marks the
    // Chromium profiles it starts, to check that none outlives it.
    let marker = support::browser_marker(tmp, "b");
    let r = run_suite(
        "demo",
        hj,
        &["web_expected_failure::"],
        &[
            ("HARSHJUDGE_DEMO_FAIL", "1"),
            ("HARSHJUDGE_WAIT", "1s"),
            ("TMPDIR", marker.to_str().unwrap()),
        ],
    );
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stdout
            .contains("expect(page).to_have_url(Regex::new(\"/dashboard\")) failed after"),
        "{r:?}"
    );
    let profiles = std::fs::read_dir(&marker).unwrap().count();
    assert_eq!(
        profiles, 0,
        "browser profiles are removed with their sessions"
    );
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(marker.to_str().unwrap()))
        .collect();
    assert!(
        left.is_empty(),
        "processes left running after the suite exited: {left:?}"
    );
    let failed = runs(hj, "web-expected-failure")
        .pop()
        .expect("the failing run");
    let failed = &failed;
    assert_eq!(
        evidence(failed, "step-02"),
        [
            "after.png",
            "aria.yml",
            "before.png",
            "console.json",
            "error.png",
            "network.json",
            "page.html",
            // The failed step's trace (`retain-on-failure`, the default),
            // with its DOM snapshots.
            "trace-dom.json",
            "trace.json"
        ]
    );
    let aria = std::fs::read_to_string(failed.join("step-02/evidence/aria.yml")).unwrap();
    assert!(
        aria.contains("- button \"Sign in\""),
        "the page's ARIA snapshot at the failure: {aria}"
    );
    let html = std::fs::read_to_string(failed.join("step-02/evidence/page.html")).unwrap();
    assert!(
        html.contains("Invalid email or password"),
        "the page as it was: {html}"
    );
    png(&failed.join("step-02/evidence/error.png"));
}

/// (startedAt, completedAt) of the only run of `slug`.
fn interval(hj: &Path, slug: &str) -> (String, String) {
    let r = json(runs(hj, slug)[0].join("result.json"));
    (
        r["startedAt"].as_str().unwrap().to_string(),
        r["completedAt"].as_str().unwrap().to_string(),
    )
}

#[test]
fn scenarios_run_in_parallel_up_to_test_threads() {
    for (threads, overlap) in [("2", true), ("1", false)] {
        let t = tmp();
        let hj = t.path().join("hj");
        let r = run_suite(SUITE, &hj, &["parallel_", "--test-threads", threads], &[]);
        assert_eq!(r.code, 0, "{r:?}");
        let (a, b) = (interval(&hj, "parallel-a"), interval(&hj, "parallel-b"));
        // ISO timestamps of one format compare as text.
        let overlapping = a.0 < b.1 && b.0 < a.1;
        assert_eq!(
            overlapping, overlap,
            "--test-threads {threads}: a={a:?} b={b:?}"
        );
    }
}

fn evidence(run: &Path, step: &str) -> Vec<String> {
    let dir = run.join(step).join("evidence");
    let mut v: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".meta.json"))
            .collect(),
        Err(_) => vec![],
    };
    v.sort();
    v
}

#[test]
fn probes_capture_before_after_and_failure_evidence() {
    let t = tmp();
    let hj = t.path().join("hj");
    let r = run_suite(SUITE, &hj, &["probed::"], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    let run = &runs(&hj, "probed")[0];
    assert_eq!(
        evidence(run, "step-01"),
        [
            "counter-after.json",
            "counter-before.json",
            "counter-ticks.txt"
        ]
    );
    assert_eq!(
        evidence(run, "step-02"),
        [
            "counter-after.json",
            "counter-before.json",
            "counter-dump.txt",
            "counter-error.json",
            "counter-ticks.txt"
        ]
    );
    // One capture at the boundary serves as after of 01 and before of 02.
    let read = |p: &str| std::fs::read_to_string(run.join(p)).unwrap();
    assert_eq!(read("step-01/evidence/counter-before.json"), "{\"n\": 0}");
    assert_eq!(read("step-01/evidence/counter-after.json"), "{\"n\": 1}");
    assert_eq!(read("step-02/evidence/counter-before.json"), "{\"n\": 1}");
    assert_eq!(read("step-02/evidence/counter-error.json"), "{\"n\": 2}");
    let result = json(run.join("result.json"));
    assert_eq!(
        result["steps"][1]["evidenceFiles"]
            .as_array()
            .unwrap()
            .len(),
        5,
        "{result}"
    );

    for (mode, step1, step2) in [
        ("off", vec![], vec![]),
        (
            "on-failure",
            vec![],
            vec![
                "counter-after.json",
                "counter-dump.txt",
                "counter-error.json",
                "counter-ticks.txt",
            ],
        ),
    ] {
        let t = tmp();
        let hj = t.path().join("hj");
        let r = run_suite(SUITE, &hj, &["probed::"], &[("HARSHJUDGE_EVIDENCE", mode)]);
        assert_eq!(r.code, 101, "{r:?}");
        let run = &runs(&hj, "probed")[0];
        assert_eq!(evidence(run, "step-01"), step1 as Vec<&str>, "{mode}");
        assert_eq!(evidence(run, "step-02"), step2, "{mode}");
    }
    let r = run_suite(
        SUITE,
        &hj,
        &["probed::"],
        &[("HARSHJUDGE_EVIDENCE", "sometimes")],
    );
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains("HARSHJUDGE_EVIDENCE") && r.stderr.contains("all, on-failure, off"),
        "{r:?}"
    );
}

/// Issue 11, point 1: a step that runs only because a later step was selected
/// still fails the invocation when it fails (`--exact`, a prefix, `--skip`).
#[test]
fn a_failing_unselected_earlier_step_fails_the_invocation() {
    for args in [
        &["--exact", "fails_in_middle::03_see_the_receipt"][..],
        &["fails_in_middle::03"][..],
        &["fails_in_middle::", "--skip", "fails_in_middle::02"][..],
    ] {
        let t = tmp();
        let hj = t.path().join("hj");
        let r = run_suite(SUITE, &hj, args, &[]);
        assert_eq!(r.code, 101, "{args:?}: {r:?}");
        let line = outcome_line(&r.stdout, "fails_in_middle::03_see_the_receipt");
        assert!(line.ends_with("FAILED"), "{args:?}: {line}\n{r:?}");
        assert!(!r.stdout.contains("test result: ok"), "{args:?}: {r:?}");
        assert!(r.stdout.contains("test result: FAILED"), "{args:?}: {r:?}");
        // The trial says which step failed and why, with its evidence folder.
        assert!(
            r.stdout.contains("step 02 \"Refuse the payment\" failed before this step could run: payment refused: card expired"),
            "{args:?}: {r:?}"
        );
        let run = &runs(&hj, "refused-payment")[0];
        assert!(
            r.stdout
                .contains(&run.join("step-02/evidence").display().to_string()),
            "{args:?}: {r:?}"
        );
        let result = json(run.join("result.json"));
        assert_eq!(result["status"], "fail", "{args:?}");
        assert_eq!(result["failedStep"], "02", "{args:?}");
    }
}

/// Issue 11, point 22: the end-of-run summary lists the failures and a count;
/// passing runs and their folders only with HARSHJUDGE_VERBOSE=1.
#[test]
fn the_summary_lists_failures_and_passing_runs_only_when_verbose() {
    let t = tmp();
    let hj = t.path().join("hj");
    // The whole fixture suite: 4 scenarios pass, 6 fail.
    let args: [&str; 0] = [];
    let r = run_suite(SUITE, &hj, &args, &[]);
    assert_eq!(r.code, 101, "{r:?}");
    let tail = r.stdout.split("harshjudge: ").nth(1).expect("summary");
    assert!(
        tail.starts_with(&format!(
            "10 run(s) recorded in {}: 4 passed, 6 failed, 0 flaky\n",
            hj.display()
        )),
        "{tail}"
    );
    let checkout = runs(&hj, "checkout")[0].display().to_string();
    let refused = runs(&hj, "refused-payment")[0].display().to_string();
    assert!(
        !tail.contains(&checkout),
        "no passing run by default: {tail}"
    );
    assert!(
        tail.contains(&format!("  fail  refused-payment  {refused}\n")),
        "{tail}"
    );
    assert!(
        tail.contains("(4 passing run(s) not listed; HARSHJUDGE_VERBOSE=1"),
        "{tail}"
    );
    assert!(tail.contains("failed steps (6):"), "{tail}");
    // The count, one line per failed run, the note on passing runs, a blank line.
    let before_failures = tail.split("failed steps").next().unwrap();
    assert_eq!(before_failures.lines().count(), 1 + 6 + 1 + 1, "{tail}");

    let r = run_suite(SUITE, &hj, &args, &[("HARSHJUDGE_VERBOSE", "1")]);
    assert_eq!(r.code, 101, "{r:?}");
    let checkout = runs(&hj, "checkout")[1].display().to_string();
    assert!(
        r.stdout
            .contains(&format!("  pass  checkout  {checkout}\n")),
        "{r:?}"
    );
    assert!(!r.stdout.contains("not listed"), "{r:?}");

    let r = run_suite(SUITE, &hj, &args, &[("HARSHJUDGE_VERBOSE", "loud")]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains("HARSHJUDGE_VERBOSE=\"loud\" is invalid"),
        "{r:?}"
    );
}

/// Issue 11, point 6: a test binary resolves its package root when it runs,
/// not where it was compiled: a binary run from another checkout (another
/// CARGO_MANIFEST_DIR, or started by hand inside a copied package) writes there,
/// and never into the folder it was built in.
#[test]
fn the_package_root_is_resolved_at_run_time() {
    let bin = test_binary(SUITE);
    let t = tmp();
    let built_in = workspace().join(".harshJudge/scenarios/checkout/runs");
    let count = |d: &Path| std::fs::read_dir(d).map(|r| r.count()).unwrap_or(0);
    let before = count(&built_in);
    let run = |cwd: &Path, manifest: Option<&Path>, envs: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new(&bin);
        cmd.current_dir(cwd)
            .args(["checkout::"])
            .env_remove("HARSHJUDGE_DIR")
            .env_remove("CARGO_MANIFEST_DIR")
            .env_remove("NEXTEST_RUN_ID")
            .env_remove("NEXTEST")
            .env_remove("HARSHJUDGE_BASE_URL");
        if let Some(m) = manifest {
            cmd.env("CARGO_MANIFEST_DIR", m);
        }
        for (k, v) in envs {
            cmd.env(k, v);
        }
        Run::from(cmd.output().expect("the test binary runs"))
    };

    // cargo gives the test process CARGO_MANIFEST_DIR: that folder wins.
    let moved = t.path().join("moved-checkout");
    std::fs::create_dir_all(&moved).unwrap();
    let r = run(&workspace(), Some(&moved), &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let moved_runs = runs(&moved.join(".harshJudge"), "checkout");
    assert_eq!(moved_runs.len(), 1, "{r:?}");
    // replay.sh reruns it in that package too, whatever the caller's environment.
    let replay = std::fs::read_to_string(moved_runs[0].join("replay.sh")).unwrap();
    let moved_abs = std::path::absolute(&moved).unwrap();
    assert!(
        replay.contains(&format!("cd '{}'\n", moved_abs.display()))
            && replay.contains(&format!(
                "export CARGO_MANIFEST_DIR='{}'\n",
                moved_abs.display()
            )),
        "{replay}"
    );

    // Started by hand inside a copied package: the nearest Cargo.toml of the package.
    let copy = t.path().join("copy");
    std::fs::create_dir_all(copy.join("tests/fixtures")).unwrap();
    std::fs::write(
        copy.join("Cargo.toml"),
        "[workspace]\nmembers = []\n\n[package]\nname = \"harshjudge-workspace\"\nversion = \"0.0.0\"\n",
    )
    .unwrap();
    let r = run(&copy.join("tests/fixtures"), None, &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        runs(&copy.join(".harshJudge"), "checkout").len(),
        1,
        "{r:?}"
    );

    // Nowhere to tell: a clear error, nothing written.
    let elsewhere = t.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let r = run(&elsewhere, None, &[]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr
            .contains("cannot tell where package `harshjudge-workspace` is")
            && r.stderr.contains("HARSHJUDGE_DIR"),
        "{r:?}"
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    // ...unless HARSHJUDGE_DIR says where (relative to the current folder then).
    let r = run(&elsewhere, None, &[("HARSHJUDGE_DIR", "out")]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(runs(&elsewhere.join("out"), "checkout").len(), 1, "{r:?}");

    assert_eq!(
        count(&built_in),
        before,
        "nothing was written into the folder the binary was built in"
    );
}

/// Scenario slug -> number of runs recorded under `hj`.
fn runs_per_scenario(hj: &Path) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    if let Ok(rd) = std::fs::read_dir(hj.join("scenarios")) {
        for e in rd {
            let slug = e.unwrap().file_name().to_string_lossy().into_owned();
            let n = runs(hj, &slug).len();
            out.insert(slug, n);
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for f in tree(from) {
        let dest = to.join(&f);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(from.join(&f), dest).unwrap();
    }
}

#[test]
fn three_shards_run_every_scenario_exactly_once() {
    let t = tmp();
    // The scenarios of the suite: one test per scenario in nextest's listing.
    let r = run_suite(
        SUITE,
        &t.path().join("unused"),
        &["--list"],
        &[("NEXTEST_RUN_ID", "list")],
    );
    let scenario_count = r.stdout.lines().filter(|l| l.ends_with(": test")).count();
    assert!(scenario_count >= 9, "{r:?}");

    // No durations recorded yet: split by count, one .harshJudge/ per shard.
    let mut seen = std::collections::BTreeMap::new();
    let mut listed = vec![];
    for i in 1..=3 {
        let hj = t.path().join(format!("shard-{i}"));
        let shard = format!("{i}/3");
        let l = run_suite(SUITE, &hj, &["--list", "--shard", &shard], &[]);
        assert_eq!(l.code, 0, "{l:?}");
        let prefixes: std::collections::BTreeSet<String> = l
            .stdout
            .lines()
            .filter_map(|x| {
                x.strip_suffix(": test")?
                    .split_once("::")
                    .map(|p| p.0.to_string())
            })
            .collect();
        listed.extend(prefixes.iter().cloned());

        let r = run_suite(SUITE, &hj, &["--shard", &shard], &[]);
        assert!(r.code == 0 || r.code == 101, "{r:?}");
        assert!(
            r.stderr.contains(&format!("--shard {shard}: running "))
                && r.stderr.contains("balanced by count"),
            "{r:?}"
        );
        let here = runs_per_scenario(&hj);
        assert_eq!(
            here.len(),
            prefixes.len(),
            "shard {shard} ran what it listed: {here:?} vs {prefixes:?}"
        );
        assert!(
            (3..=4).contains(&here.len()),
            "{scenario_count} scenarios in 3 shards: {here:?}"
        );
        for (slug, n) in here {
            assert_eq!(n, 1, "{slug} ran {n} times in shard {shard}");
            assert!(
                seen.insert(slug.clone(), shard.clone()).is_none(),
                "{slug} ran in two shards"
            );
        }
        assert!(hj.join("report/junit.xml").is_file(), "{r:?}");
    }
    assert_eq!(seen.len(), scenario_count, "{seen:?}");
    listed.sort();
    listed.dedup();
    assert_eq!(listed.len(), scenario_count, "{listed:?}");

    // With durations recorded (one whole run), every shard copies the same
    // .harshJudge/ and splits by them: again each scenario runs exactly once.
    let all = t.path().join("all");
    let r = run_suite(SUITE, &all, &[], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    let mut ran_in = std::collections::BTreeMap::new();
    for i in 1..=3 {
        let hj = t.path().join(format!("timed-{i}"));
        copy_tree(&all, &hj);
        let shard = format!("{i}/3");
        let r = run_suite(SUITE, &hj, &["--shard", &shard], &[]);
        assert!(r.code == 0 || r.code == 101, "{r:?}");
        assert!(
            r.stderr
                .contains("balanced by the durations recorded in meta.yaml"),
            "{r:?}"
        );
        for (slug, n) in runs_per_scenario(&hj) {
            assert!(n == 1 || n == 2, "{slug}: {n} runs");
            if n == 2 {
                assert!(ran_in.insert(slug.clone(), i).is_none(), "{slug} ran twice");
            }
        }
    }
    assert_eq!(ran_in.len(), scenario_count, "{ran_in:?}");
}

#[test]
fn a_bad_shard_is_a_usage_error_naming_the_flag() {
    let t = tmp();
    let hj = t.path().join("hj");
    for bad in ["4/3", "two", "0/2"] {
        let r = run_suite(SUITE, &hj, &["--shard", bad], &[]);
        assert_eq!(r.code, 2, "{r:?}");
        assert!(
            r.stderr.contains(&format!("--shard \"{bad}\" is invalid"))
                && r.stderr.contains("expected i/n"),
            "{r:?}"
        );
    }
    // Nothing runs; the reports say that the invocation failed and why
    // (issue 37.4).
    assert!(!hj.join("scenarios").exists(), "nothing runs");
    let junit = std::fs::read_to_string(hj.join("report/junit.xml")).unwrap();
    assert!(
        junit.contains("InvocationFailed") && junit.contains("--shard"),
        "{junit}"
    );
}

#[test]
fn nextest_partitions_run_every_scenario_exactly_once() {
    let t = tmp();
    let mut seen = std::collections::BTreeMap::new();
    for i in 1..=2 {
        let hj = t.path().join(format!("partition-{i}"));
        let out = support::nextest(SUITE, &hj)
            .args([
                "--no-fail-fast",
                "--partition",
                &format!("slice:{i}/2"),
                "-E",
                "test(checkout) | test(fails_in_middle) | test(parallel_a) | test(parallel_b)",
            ])
            .output()
            .expect("cargo nextest runs");
        let r = Run::from(out);
        assert!(r.code == 0 || r.code == 100, "{r:?}");
        let here = runs_per_scenario(&hj);
        assert!(!here.is_empty(), "partition {i} ran nothing: {r:?}");
        for (slug, n) in here {
            assert_eq!(n, 1, "{slug} ran {n} times: {r:?}");
            assert!(
                seen.insert(slug.clone(), i).is_none(),
                "{slug} in two partitions"
            );
        }
        assert!(hj.join("report/junit.xml").is_file(), "{r:?}");
    }
    let slugs: Vec<&str> = seen.keys().map(String::as_str).collect();
    assert_eq!(
        slugs,
        ["checkout", "parallel-a", "parallel-b", "refused-payment"]
    );
}
