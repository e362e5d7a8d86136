//! Hostile settings get a clear error naming the setting (or the file), exit
//! code 2, no panic, and no run left `running`. Each case runs the real fixture
//! suite binary (tests/fixtures/resilience.rs) with one bad value.

use crate::support;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{Run, test_binary};

const SUITE: &str = "resilience_suite";

/// One hostile input: the variables to set, a `config.yaml` to write first, the
/// scenarios to select, and what the error must name.
struct Case {
    what: &'static str,
    envs: Vec<(&'static str, &'static OsStr)>,
    config: Option<&'static str>,
    filter: &'static str,
    names: &'static [&'static str],
}

fn os(s: &'static str) -> &'static OsStr {
    OsStr::new(s)
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let durations = ["999999999999999999h", "18446744073709551615s", "25h"];
    for var in [
        "HARSHJUDGE_STEP_TIMEOUT",
        "HARSHJUDGE_TIMEOUT",
        "HARSHJUDGE_WAIT",
    ] {
        for d in durations {
            out.push(Case {
                what: "an overflowing duration",
                envs: vec![(var, os(d))],
                config: None,
                // The browser scenario for the auto-wait limit, a quick one otherwise.
                filter: if var == "HARSHJUDGE_WAIT" {
                    "browser_wait"
                } else {
                    "slow_a"
                },
                names: &["at most 24h"],
            });
        }
    }
    let not_utf8 = OsStr::from_bytes(b"\xff\xfe-not-utf8");
    for var in [
        "HARSHJUDGE_DIR",
        "HARSHJUDGE_BASE_URL",
        "HARSHJUDGE_EVIDENCE",
        "HARSHJUDGE_STEP_TIMEOUT",
        "HARSHJUDGE_WAIT",
        "HARSHJUDGE_RESUME",
        "HARSHJUDGE_RETRIES",
        "HARSHJUDGE_CHROMEDRIVER",
    ] {
        out.push(Case {
            what: "a value that is not UTF-8",
            envs: vec![(var, not_utf8)],
            config: None,
            filter: "slow_a",
            names: &["not UTF-8"],
        });
    }
    out.push(Case {
        what: "an empty config.yaml",
        envs: vec![],
        config: Some(""),
        filter: "slow_a",
        names: &["config.yaml", "the file is empty"],
    });
    out.push(Case {
        what: "an ftp:// baseUrl in config.yaml",
        envs: vec![],
        config: Some("projectName: p\nbaseUrl: ftp://x\nversion: '1.0'\n"),
        filter: "slow_a",
        names: &["config.yaml", "baseUrl \"ftp://x\" is invalid"],
    });
    // Checked up front with the other settings, not at the first browser step.
    out.push(Case {
        what: "a WebDriver URL that is no URL",
        envs: vec![("HARSHJUDGE_WEBDRIVER_URL", os("garbage"))],
        config: None,
        filter: "browser_wait",
        names: &["URL of a running WebDriver"],
    });
    out.push(Case {
        what: "a word outside the boolean vocabulary",
        envs: vec![("HARSHJUDGE_FULL_PAGE", os("maybe"))],
        config: None,
        filter: "slow_a",
        names: &["1, true, on or yes"],
    });
    out
}

/// Every `result.json` under `hj` whose status is `running`.
fn running_runs(hj: &Path) -> Vec<String> {
    if !hj.exists() {
        return Vec::new();
    }
    support::tree(hj)
        .into_iter()
        .filter(|f| f.ends_with("result.json"))
        .filter(|f| {
            std::fs::read_to_string(hj.join(f)).is_ok_and(|t| {
                t.contains("\"status\": \"running\"") || t.contains("\"status\":\"running\"")
            })
        })
        .collect()
}

#[test]
fn hostile_settings_exit_2_naming_the_setting_without_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let mut panics = 0;
    let mut failures = Vec::new();
    let all = cases();
    for (i, case) in all.iter().enumerate() {
        let root = tmp.path().join(format!("c{i:02}"));
        let hj = root.join(".harshJudge");
        if let Some(config) = case.config {
            std::fs::create_dir_all(&hj).unwrap();
            std::fs::write(hj.join("config.yaml"), config).unwrap();
        }
        let mut cmd = Command::new(test_binary(SUITE));
        cmd.current_dir(support::workspace())
            .args([case.filter, "--test-threads", "1"])
            .env("HARSHJUDGE_DIR", &hj)
            .env("FIXTURE_STEP_MS", "10")
            .env_remove("HARSHJUDGE_BASE_URL")
            .env_remove("HARSHJUDGE_STEP_TIMEOUT")
            .env_remove("HARSHJUDGE_TIMEOUT")
            .env_remove("HARSHJUDGE_WAIT")
            .env_remove("NEXTEST_RUN_ID")
            .env_remove("NEXTEST")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &case.envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        // A value taken silently would let the browser scenario wait its 60 s.
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(40) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let setting = case
            .envs
            .first()
            .map(|(k, v)| format!("{k}={v:?}"))
            .unwrap_or_else(|| format!("config.yaml {:?}", case.config.unwrap()));
        let panicked = stderr.contains("panicked") || stdout.contains("panicked");
        panics += usize::from(panicked);
        let mut problems = Vec::new();
        if panicked {
            problems.push("panicked".to_string());
        }
        if out.status.code() != Some(2) {
            problems.push(format!("exit code {:?}, not 2", out.status.code()));
        }
        if let Some((name, _)) = case.envs.first()
            && !stderr.contains(name)
        {
            problems.push(format!("the error does not name {name}"));
        }
        for n in case.names {
            if !stderr.contains(n) {
                problems.push(format!("the error does not say {n:?}"));
            }
        }
        let running = running_runs(&hj);
        if !running.is_empty() {
            problems.push(format!("runs left running: {running:?}"));
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{} ({setting}): {}\n--- stderr:\n{}",
                case.what,
                problems.join("; "),
                stderr.lines().take(12).collect::<Vec<_>>().join("\n")
            ));
        }
    }
    eprintln!(
        "{} bad-input cases: {panics} panics, {} not refused cleanly",
        all.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(panics, 0);
}

/// The fixture suite with `args` and `envs`, evidence in `hj`.
fn suite(hj: &Path, args: &[&str], envs: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(test_binary(SUITE));
    cmd.current_dir(support::workspace())
        .args(args)
        .env("HARSHJUDGE_DIR", hj)
        .env("FIXTURE_STEP_MS", "10")
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    Run::from(cmd.output().unwrap())
}

/// Issue 37, point 16: a typo of a variable is named, with the closest known one.
#[test]
fn an_unknown_harshjudge_variable_is_named_with_the_closest_known_one() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let r = suite(
        &hj,
        &["slow_a"],
        &[
            ("HARSHJUDGE_BASEURL", "http://127.0.0.1:1"),
            ("HARSHJUDGE_TEST_ANYTHING", "1"),
        ],
    );
    assert_eq!(r.code, 0, "a warning, not an error: {r:?}");
    assert!(
        r.stderr.contains(
            "harshjudge: warning: HARSHJUDGE_BASEURL is not a harshjudge setting and is ignored; did you mean HARSHJUDGE_BASE_URL?"
        ),
        "{r:?}"
    );
    assert!(
        !r.stderr.contains("HARSHJUDGE_TEST_ANYTHING"),
        "the tests' own variables are not settings: {r:?}"
    );
}

/// Issue 37, point 16: an earlier run's `result.json` left empty is named,
/// with what is done with it, by a plain run, `--resume`, `--last-failed` and
/// the report.
#[test]
fn an_empty_result_json_is_named_with_what_is_done_with_it() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let r = suite(&hj, &["slow_a"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let run = support::runs(&hj, "slow-a").pop().expect("a run");
    let result = run.join("result.json");
    std::fs::write(&result, "").unwrap();
    let said = format!("harshjudge: {} is empty", result.display());
    for args in [
        &["slow_a"][..],
        &["slow_a", "--resume"],
        &["slow_a", "--last-failed"],
    ] {
        let r = suite(&hj, args, &[]);
        assert_eq!(r.code, 0, "{args:?}: {r:?}");
        assert!(r.stderr.contains(&said), "{args:?}: {said} in {r:?}");
        assert!(
            r.stderr
                .contains("is passed over, counted in no statistic, shown in no report"),
            "{args:?}: {r:?}"
        );
        assert_eq!(
            std::fs::read(&result).unwrap(),
            b"",
            "the file is kept as it was"
        );
    }
    let index = std::fs::read_to_string(hj.join("report/index.html")).unwrap();
    assert!(
        index.contains("empty-result") && index.contains(&format!("{} is empty", result.display())),
        "the report names it"
    );
}

/// Issue 37, point 16: a `HARSHJUDGE_LOG` filter that cannot be read (a bare
/// word that is no level would silence every log line) stops `harshjudge-mcp`
/// with an error naming the filter syntax; a good one is taken.
#[test]
fn an_unreadable_log_filter_is_an_error_naming_the_syntax() {
    let tmp = tempfile::tempdir().unwrap();
    let mcp = |log: &str| {
        Run::from(
            Command::new(support::mcp_binary())
                .args(["--cwd"])
                .arg(tmp.path())
                .arg("report")
                .env("HARSHJUDGE_LOG", log)
                .output()
                .unwrap(),
        )
    };
    let r = mcp("loud");
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("HARSHJUDGE_LOG=\\\"loud\\\" is invalid")
            && r.stderr.contains("TARGET=LEVEL"),
        "{r:?}"
    );
    let r = mcp("info,harshjudge_mcp=debug");
    assert!(!r.stderr.contains("HARSHJUDGE_LOG"), "{r:?}");
}
