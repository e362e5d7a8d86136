//! Hostile settings get a clear error naming the setting (or the file), exit
//! code 2, no panic, and no run left `running`. Each case runs the real fixture
//! suite binary (tests/fixtures/resilience.rs) with one bad value.

mod support;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::test_binary;

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
