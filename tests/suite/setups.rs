//! Issue 22, points 4 and 5: saved logins, setup scenarios and hooks, in real
//! Chromium against tests/fixtures/setups.rs's own app (a form POST sets an
//! HttpOnly cookie; a page script reads localStorage), through real
//! `cargo test` and `cargo nextest run` of the suite.

use crate::support;

#[path = "../fixtures/support/setups_app.rs"]
mod setups_app;

use std::path::{Path, PathBuf};

use support::{Run, json, run_suite, runs};

const SUITE: &str = "setups_suite";

struct Dirs {
    _tmp: tempfile::TempDir,
    hj: PathBuf,
    log: PathBuf,
}

fn dirs() -> Dirs {
    let tmp = tempfile::tempdir().unwrap();
    Dirs {
        hj: tmp.path().join(".harshJudge"),
        log: tmp.path().join("log.txt"),
        _tmp: tmp,
    }
}

fn run(d: &Dirs, args: &[&str], envs: &[(&str, &str)]) -> Run {
    let log = d.log.to_str().unwrap().to_string();
    let mut all: Vec<(&str, &str)> = vec![("SETUPS_LOG", &log)];
    all.extend_from_slice(envs);
    run_suite(SUITE, &d.hj, args, &all)
}

fn log_lines(d: &Dirs) -> Vec<String> {
    std::fs::read_to_string(&d.log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Every file under `dir` whose content contains `needle`.
fn files_containing(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for rel in support::tree(dir) {
        let path = dir.join(&rel);
        if std::fs::read(&path)
            .is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
        {
            found.push(path);
        }
    }
    found
}

#[test]
fn a_setup_saves_the_login_once_and_its_dependents_start_signed_in() {
    let d = dirs();
    // Filters that name only dependents (and a scenario without a login):
    // the setup comes along, runs once, before them.
    let r = run(
        &d,
        &["with_state_", "anonymous_dashboard", "--test-threads=3"],
        &[],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(log_lines(&d), ["setup"], "{r:?}");
    for name in [
        "signed_in_as_admin::01_sign_in_through_the_form ... ok",
        "signed_in_as_admin::02_save_the_login ... ok",
        "with_state_dashboard::01_open_the_dashboard_signed_in ... ok",
        "with_state_profile::01_open_the_profile_signed_in ... ok",
        "with_state_api::01_request_the_orders_signed_in ... ok",
        "anonymous_dashboard::01_open_the_dashboard_without_a_login ... ok",
    ] {
        let (test, outcome) = name.split_once(" ... ").unwrap();
        assert!(
            r.stdout
                .lines()
                .any(|l| l.starts_with(&format!("test {test} ")) && l.ends_with(outcome)),
            "{name}: {r:?}"
        );
    }
    assert!(
        r.stderr
            .contains("harshjudge: signed_in_as_admin: brought along as a setup of with_state_api, with_state_dashboard, with_state_orders, with_state_profile, with_state_settings\n"),
        "{r:?}"
    );
    // Each dependent opened its page straight on the app, signed in, with the
    // localStorage there before the page's script read it (the fixture's
    // assertions); the setup ran before every one of them.
    let setup_end = json(runs(&d.hj, "signed-in-as-admin")[0].join("result.json"))["completedAt"]
        .as_str()
        .unwrap()
        .to_string();
    for slug in [
        "with-state-dashboard",
        "with-state-settings",
        "with-state-orders",
        "with-state-profile",
    ] {
        let run = &runs(&d.hj, slug)[0];
        let result = json(run.join("result.json"));
        assert_eq!(result["status"], "pass", "{slug}");
        // The state was restored before the step, and not through the
        // scenario's page: nothing of it (its state page) in the evidence.
        let network = std::fs::read_to_string(run.join("step-01/evidence/network.json"))
            .unwrap_or_else(|e| panic!("{slug}'s network: {e}"));
        assert!(network.contains("http://127.0.0.1:"), "{slug}: {network}");
        assert!(!network.contains("/.harshjudge/"), "{slug}: {network}");
        assert!(
            result["startedAt"].as_str().unwrap() >= setup_end.as_str(),
            "{slug} started before its setup ended"
        );
    }
    // Playwright's format, readable by its owner only, ignored by git.
    let state = d.hj.join(".auth/admin.json");
    let saved = json(&state);
    assert_eq!(saved["cookies"][0]["name"], "sid");
    assert_eq!(saved["cookies"][0]["httpOnly"], true);
    assert_eq!(
        saved["origins"][0]["localStorage"][0],
        serde_json::json!({"name": "theme", "value": "dark"})
    );
    assert!(
        saved["origins"][0]["origin"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:")
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&state).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(
        std::fs::read_to_string(d.hj.join(".gitignore"))
            .unwrap()
            .lines()
            .any(|l| l == ".auth/")
    );
    // The cookie's value is in the state file only: never in evidence.
    let leaks: Vec<PathBuf> = files_containing(&d.hj, "admin-7f3c")
        .into_iter()
        .filter(|p| p != &state)
        .collect();
    assert!(leaks.is_empty(), "{leaks:?}");
}

#[test]
fn a_failed_setup_skips_its_dependents_with_its_error() {
    let d = dirs();
    let r = run(
        &d,
        &["with_state_dashboard", "with_state_orders"],
        &[("SETUPS_PASSWORD", "wrong")],
    );
    assert_eq!(r.code, 101, "{r:?}");
    assert_eq!(log_lines(&d), ["setup"], "{r:?}");
    assert!(
        r.stdout.lines().any(|l| l
            .starts_with("test signed_in_as_admin::01_sign_in_through_the_form ")
            && l.ends_with("... FAILED")),
        "{r:?}"
    );
    for test in [
        "with_state_dashboard::01_open_the_dashboard_signed_in",
        "with_state_orders::01_open_the_orders_signed_in",
    ] {
        let line = (r.stdout.lines())
            .find(|l| l.starts_with(&format!("test {test} ")))
            .unwrap_or_else(|| panic!("{test}: {r:?}"));
        assert!(
            line.contains("ignored (setup signed_in_as_admin failed: expect(page.get_by_role(\"heading\")).to_have_text(\"Signed in as admin\") failed after "),
            "{line}"
        );
    }
    // The setup's own error, under each dependent and under the setup's failure.
    let told = r.stdout.matches("received: \"Wrong user or password\"");
    assert!(told.count() >= 3, "{r:?}");
    // Never started: no run of theirs, no state saved.
    assert!(runs(&d.hj, "with-state-dashboard").is_empty());
    assert!(!d.hj.join(".auth/admin.json").exists());
}

#[test]
fn a_state_never_saved_names_the_setups_that_could_save_it() {
    let d = dirs();
    let r = run(&d, &["ghost_state"], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    // The page, and a request of a scenario without a page, fail alike.
    for scenario in ["ghost_state", "ghost_state_api"] {
        let message = format!(
            "storage state \"ghost\" was never saved (`#[scenario(storage_state = \"ghost\")]` of `{scenario}`): a setup scenario saves it with `page.save_storage_state(\"ghost\")`; the setup scenarios of this suite: signed_in_as_admin"
        );
        assert!(r.stdout.contains(&message), "{scenario}: {r:?}");
    }
}

#[test]
fn hooks_run_around_the_steps_and_after_a_failure_and_are_no_steps() {
    let d = dirs();
    let r = run(&d, &["hooked"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        log_lines(&d),
        ["setup", "before 01", "step 1", "step 2", "after 02"],
        "{r:?}"
    );
    let result = json(runs(&d.hj, "hooked")[0].join("result.json"));
    assert_eq!(
        result["steps"].as_array().unwrap().len(),
        2,
        "hooks are no steps"
    );
    // What each printed through `harshjudge::log!` is the `log.txt` of the
    // step it ran in: the `before` hook's step 01's, the `after` hook's the
    // last step's.
    let run_dir = &runs(&d.hj, "hooked")[0];
    let step_log =
        |n: &str| std::fs::read_to_string(run_dir.join(format!("step-{n}/evidence/log.txt")));
    assert_eq!(step_log("01").unwrap(), "before 01\nstep 1\n");
    assert_eq!(step_log("02").unwrap(), "step 2\nafter 02\n");
    let listed = result["steps"][0]["evidenceFiles"].to_string();
    assert!(listed.contains("log.txt"), "{listed}");

    let d = dirs();
    let r = run(&d, &["hooked"], &[("SETUPS_HOOKED_FAIL", "1")]);
    assert_eq!(r.code, 101, "{r:?}");
    assert_eq!(
        log_lines(&d),
        ["setup", "before 01", "step 1", "step 2", "after 02"],
        "{r:?}"
    );
    assert!(r.stdout.contains("step 2 failed on purpose"), "{r:?}");
}

#[test]
fn under_nextest_the_setup_runs_once_for_the_whole_run() {
    let d = dirs();
    // One app for the whole nextest run (what `WebServer` gives a suite): the
    // saved localStorage belongs to its origin, which every process shares.
    let app = setups_app::start().unwrap();
    let out = support::nextest(SUITE, &d.hj)
        .args([
            "--test-threads=4",
            "-E",
            "test(/^with_state_/) | test(=signed_in_as_admin) | test(=hooked)",
        ])
        .env("SETUPS_LOG", &d.log)
        .env("HARSHJUDGE_BASE_URL", &app)
        .output()
        .expect("cargo nextest runs");
    let r = Run::from(out);
    assert_eq!(r.code, 0, "{r:?}");
    // Six processes (the setup's own, five dependents): one setup run.
    let lines = log_lines(&d);
    assert_eq!(
        lines.iter().filter(|l| *l == "setup").count(),
        1,
        "{lines:?} {r:?}"
    );
    assert_eq!(runs(&d.hj, "signed-in-as-admin").len(), 1, "{r:?}");
    for slug in [
        "with-state-dashboard",
        "with-state-settings",
        "with-state-orders",
        "with-state-profile",
        "hooked",
    ] {
        let result = json(runs(&d.hj, slug)[0].join("result.json"));
        assert_eq!(result["status"], "pass", "{slug}: {r:?}");
    }
}

// Issue 37, point 8: `main!(setup = [fixture_database])`, a setup for the
// whole suite (tests/fixtures/suite_setup.rs). No browser.

const SUITE_SETUP: &str = "suite_setup_suite";

/// A run of the suite-setup fixture in a fresh folder: what it ran, in order.
struct SuiteRun {
    _tmp: tempfile::TempDir,
    hj: PathBuf,
    dir: PathBuf,
    r: Run,
}

impl SuiteRun {
    fn new(args: &[&str]) -> SuiteRun {
        let tmp = tempfile::tempdir().unwrap();
        let (hj, dir) = (tmp.path().join(".harshJudge"), tmp.path().join("data"));
        std::fs::create_dir(&dir).unwrap();
        let r = run_suite(
            SUITE_SETUP,
            &hj,
            args,
            &[("SUITE_SETUP_DIR", dir.to_str().unwrap())],
        );
        SuiteRun {
            _tmp: tmp,
            hj,
            dir,
            r,
        }
    }

    /// `log.txt`: each setup run and each scenario that saw the data, in order.
    fn log(&self) -> Vec<String> {
        suite_log(&self.dir)
    }
}

fn suite_log(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("log.txt"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The setups ran once each, first, and then exactly the scenarios `saw`
/// (each as often as it appears), each having seen the data loaded.
fn ran_once_then(log: &[String], saw: &[&str]) {
    assert_eq!(
        log[..2.min(log.len())],
        ["setup clean_slate", "setup fixture_database"],
        "{log:?}"
    );
    let mut rest: Vec<&str> = log[2..].iter().map(String::as_str).collect();
    rest.sort();
    let mut expected: Vec<String> = saw.iter().map(|s| format!("saw {s}")).collect();
    expected.sort();
    assert_eq!(rest, expected, "{log:?}");
}

#[test]
fn a_setup_for_the_whole_suite_runs_once_before_every_scenario() {
    // Everything: every scenario (the other setup too) saw the data; the
    // suite's setup and the setup it depends on ran once, first.
    let s = SuiteRun::new(&[]);
    assert_eq!(s.r.code, 0, "{:?}", s.r);
    ran_once_then(
        &s.log(),
        &[
            "signed_in",
            "smoke_login",
            "smoke_search",
            "reports",
            "account",
        ],
    );
    assert!(
        s.r.stdout.contains("test result: ok. 8 passed"),
        "{:?}",
        s.r
    );
    // A name filter that selects one scenario brings the setups along.
    let s = SuiteRun::new(&["reports"]);
    assert_eq!(s.r.code, 0, "{:?}", s.r);
    ran_once_then(&s.log(), &["reports"]);
    assert!(
        s.r.stderr
            .contains("fixture_database: brought along as a setup of reports"),
        "{:?}",
        s.r
    );
    // And one that needs another setup, which needs the suite's.
    let s = SuiteRun::new(&["account"]);
    assert_eq!(s.r.code, 0, "{:?}", s.r);
    ran_once_then(&s.log(), &["signed_in", "account"]);
}

#[test]
fn a_setup_for_the_whole_suite_comes_along_with_tags_and_repeat_each_once() {
    // A tag selection.
    let s = SuiteRun::new(&["--tag", "smoke"]);
    assert_eq!(s.r.code, 0, "{:?}", s.r);
    ran_once_then(&s.log(), &["smoke_login", "smoke_search"]);
    assert_eq!(runs(&s.hj, "fixture-database").len(), 1, "{:?}", s.r);
    // --repeat-each 3: each scenario three times, the setups once, first.
    let s = SuiteRun::new(&["--repeat-each", "3", "smoke_"]);
    assert_eq!(s.r.code, 0, "{:?}", s.r);
    ran_once_then(
        &s.log(),
        &[
            "smoke_login",
            "smoke_login",
            "smoke_login",
            "smoke_search",
            "smoke_search",
            "smoke_search",
        ],
    );
    for (slug, n) in [
        ("clean-slate", 1),
        ("fixture-database", 1),
        ("smoke-login", 3),
        ("smoke-search", 3),
    ] {
        assert_eq!(runs(&s.hj, slug).len(), n, "{slug}: {:?}", s.r);
    }
    assert!(
        s.r.stdout.contains("harshjudge: 8 run(s) recorded"),
        "{:?}",
        s.r
    );
}

#[test]
fn under_nextest_a_setup_for_the_whole_suite_runs_once_for_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (hj, dir) = (tmp.path().join(".harshJudge"), tmp.path().join("data"));
    std::fs::create_dir(&dir).unwrap();
    let out = support::nextest(SUITE_SETUP, &hj)
        .args(["--test-threads=4", "--no-fail-fast"])
        .env("SUITE_SETUP_DIR", &dir)
        .env("HARSHJUDGE_REPEAT_EACH", "2")
        .env_remove("HARSHJUDGE_TAGS")
        .output()
        .expect("cargo nextest runs");
    let r = Run::from(out);
    assert_eq!(r.code, 0, "{r:?}");
    // Seven processes, the setups run once for the whole nextest run, first;
    // each other scenario twice (--repeat-each 2), each time seeing the data.
    ran_once_then(
        &suite_log(&dir),
        &[
            "signed_in",
            "smoke_login",
            "smoke_login",
            "smoke_search",
            "smoke_search",
            "reports",
            "reports",
            "account",
            "account",
        ],
    );
    assert!(r.stderr.contains("7 tests run: 7 passed"), "{r:?}");
}
