//! No browser outlives the test process that started it. Real runs of
//! tests/fixtures/resilience.rs with a real Chromium over the DevTools
//! protocol (no chromedriver): the suite SIGKILLed 20 times with a page open,
//! and Chromium killed in the middle of a run. Processes are counted by
//! scanning /proc for the ones started for each run: each run gets a `TMPDIR`
//! of its own (the profile folders, hence every Chromium command line, are
//! under it) and a marker variable that Chromium and the watchdog inherit.
//! Other tests' browsers do not count.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{runs, test_binary};

const SUITE: &str = "resilience_suite";
const MARK: &str = "HARSHJUDGE_TEST_PROCESS_MARK";

/// The suite with `root/.harshJudge`, `TMPDIR=root/t` and the marker `root`.
fn suite(root: &Path, args: &[&str]) -> Command {
    let tmp = support::browser_marker(root, "t");
    let mut cmd = Command::new(test_binary(SUITE));
    cmd.current_dir(support::workspace())
        .args(args)
        .env("HARSHJUDGE_DIR", root.join(".harshJudge"))
        .env("TMPDIR", &tmp)
        .env(MARK, root)
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST")
        .env_remove("HARSHJUDGE_RETRIES");
    cmd
}

/// A live (not zombie) process started for `root`: its command line names
/// `root` (Chromium's `--user-data-dir`, crashpad's database, the watchdog's
/// folder) or its environment holds the marker (chromedriver, every child).
#[derive(Debug)]
struct Found {
    pid: u32,
    cmdline: String,
}

fn started_for(root: &Path) -> Vec<Found> {
    let root_s = root.display().to_string();
    let mark = format!("{MARK}={root_s}\0");
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let state = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next().map(str::to_string));
        if state.as_deref() == Some("Z") {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let marked = environ.windows(mark.len()).any(|w| w == mark.as_bytes());
        if marked || cmdline.contains(&root_s) {
            out.push(Found { pid, cmdline });
        }
    }
    out
}

/// Waits up to 10 s for every process started for `root` to end; returns those left.
fn wait_until_gone(root: &Path) -> Vec<Found> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = started_for(root);
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Browser folders (`support::is_library_folder`) left in `root/t`.
fn folders_left(root: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(root.join("t"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| support::is_library_folder(&n.to_string_lossy()))
        })
        .collect()
}

#[test]
fn twenty_sigkills_with_a_browser_open_leave_no_browser_process() {
    let tmp = tempfile::tempdir().unwrap();
    let mut left_total = 0;
    let mut folders_total = 0;
    let mut seen = Vec::new();
    for i in 0..20 {
        let root = tmp.path().join(format!("k{i:02}"));
        let hj = root.join(".harshJudge");
        let mut child = suite(&root, &["browser_wait"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Until step 02 runs: the page is open.
        let start = Instant::now();
        while !runs(&hj, "browser-wait").first().is_some_and(|r| {
            std::fs::read_to_string(r.join("skill-state.yaml"))
                .is_ok_and(|s| s.contains("currentStep: 2"))
        }) {
            assert!(
                start.elapsed() < Duration::from_secs(90),
                "kill {i}: step 02 never started"
            );
            assert!(
                child.try_wait().unwrap().is_none(),
                "kill {i}: the suite ended early"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let before = started_for(&root);
        assert!(
            before
                .iter()
                .any(|p| p.cmdline.contains("--user-data-dir=")),
            "kill {i}: Chromium is found before the kill: {before:#?}"
        );
        // Local Chromium speaks the DevTools protocol: no chromedriver
        // among the suite's processes, nor among its children.
        let children = support::descendants(child.id());
        assert!(
            !before.iter().any(|p| p.cmdline.contains("chromedriver"))
                && !children.iter().any(|pid| {
                    std::fs::read(format!("/proc/{pid}/cmdline"))
                        .is_ok_and(|c| String::from_utf8_lossy(&c).contains("chromedriver"))
                }),
            "kill {i}: no chromedriver runs for a Chromium scenario: {before:#?}"
        );
        seen.push(before.len());
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let left = wait_until_gone(&root);
        let folders = folders_left(&root);
        if !left.is_empty() || !folders.is_empty() {
            eprintln!("kill {i}: left {left:#?}, folders {folders:?}");
        }
        left_total += left.len();
        folders_total += folders.len();
        // Nothing of this run may linger into the next.
        for p in &left {
            let _ = Command::new("kill")
                .args(["-KILL", &p.pid.to_string()])
                .status();
        }
    }
    eprintln!(
        "20 SIGKILLs with a page open ({}..={} processes each before the kill): {left_total} processes and {folders_total} profile folders left",
        seen.iter().min().unwrap(),
        seen.iter().max().unwrap()
    );
    assert_eq!(left_total, 0, "browser processes left after 20 SIGKILLs");
    assert_eq!(folders_total, 0, "profile folders left after 20 SIGKILLs");
}

#[test]
fn a_chromium_killed_mid_run_leaves_no_browser_process() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("b");
    let out = suite(&root, &["browser_dies", "--test-threads", "1"])
        .env("HARSHJUDGE_EVIDENCE", "off")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("test browser_dies::03_open_a_page_again") && l.ends_with(" ok")),
        "a new Chromium serves the next page: {stdout}\n{stderr}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("test browser_dies::02_chromium_dies") && l.ends_with(" ok")),
        "the dead browser's page said the browser exited: {stdout}\n{stderr}"
    );
    let left = wait_until_gone(&root);
    let folders = folders_left(&root);
    eprintln!(
        "after a Chromium kill: {} processes and {} profile folders left",
        left.len(),
        folders.len()
    );
    for p in &left {
        let _ = Command::new("kill")
            .args(["-KILL", &p.pid.to_string()])
            .status();
    }
    assert!(
        left.is_empty(),
        "processes left after the suite exited: {left:#?}"
    );
    assert!(folders.is_empty(), "profile folders left: {folders:?}");
}

/// A suite that ends on its own (here: a step over its time limit) kills its
/// browser at exit instead of closing it politely (issue 25.2): when the
/// process has exited, nothing it started is running and no profile folder is
/// left, at once, with no waiting.
#[test]
fn a_suite_that_ends_leaves_no_browser_process_nor_profile_when_it_exits() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("e");
    let out = suite(&root, &["browser_wait", "--test-threads", "1"])
        .env("HARSHJUDGE_STEP_TIMEOUT", "4s")
        .output()
        .unwrap();
    // Checked first: the process has exited, so whatever is left now outlived it.
    let left = started_for(&root);
    let folders = folders_left(&root);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for p in &left {
        let _ = Command::new("kill")
            .args(["-KILL", &p.pid.to_string()])
            .status();
    }
    assert!(
        stdout.lines().any(
            |l| l.starts_with("test browser_wait::01_open_the_items_page") && l.ends_with(" ok")
        ),
        "the page was open: {stdout}\n{stderr}"
    );
    assert_eq!(out.status.code(), Some(101), "{stdout}\n{stderr}");
    assert!(
        left.is_empty(),
        "processes running after the suite exited: {left:#?}"
    );
    assert!(folders.is_empty(), "profile folders left: {folders:?}");
}

/// A scenario whose body names `s.page()` makes the harness start the browser
/// as the run starts (issue 25.2); when no page takes that session, it is
/// killed at exit like the others: nothing left running, no profile folder.
/// Twice: the browser up and idle by the end (the scenario waits 3 s, and a
/// Chromium is seen running meanwhile), and still starting (no wait).
#[test]
fn a_browser_started_early_for_a_page_never_opened_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    // Short folder names: the run's TMPDIR is under them (`support::browser_marker`).
    for (name, folder, wait_ms) in [("idle", "i", 3000), ("starting", "s", 0)] {
        let root = tmp.path().join(folder);
        let mut child = suite(&root, &["page_never_opened", "--test-threads", "1"])
            .env("FIXTURE_STEP_MS", wait_ms.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut browser_seen = false;
        while wait_ms > 0 && !browser_seen && matches!(child.try_wait(), Ok(None)) {
            browser_seen = started_for(&root)
                .iter()
                .any(|p| p.cmdline.contains("--user-data-dir="));
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().unwrap();
        let left = started_for(&root);
        let folders = folders_left(&root);
        for p in &left {
            let _ = Command::new("kill")
                .args(["-KILL", &p.pid.to_string()])
                .status();
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {stdout}\n{stderr}");
        if wait_ms > 0 {
            assert!(
                browser_seen,
                "{name}: no browser was started while the scenario ran: {stdout}\n{stderr}"
            );
        }
        assert!(
            left.is_empty(),
            "{name}: processes running after the suite exited: {left:#?}"
        );
        assert!(
            folders.is_empty(),
            "{name}: profile folders left: {folders:?}"
        );
    }
}
