//! One Chromium per cargo-nextest run (`HARSHJUDGE_CHROMIUM_PROTOCOL=cdp`),
//! with real processes: the fixture suite tests/fixtures/reuse.rs (a first
//! scenario leaves a cookie and local storage behind, a second must see
//! neither, a third waits in a step) under real `cargo nextest run`, where
//! every scenario is a process of its own. Processes are counted by scanning
//! /proc for the ones marked with the test's folder ([`support::PROCESS_MARK`]
//! in their environment, or its path on their command line: the run's
//! temporary folder, `TMPDIR`, is in it, so each Chromium's profile is too).

use crate::support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::Run;

const SUITE: &str = "reuse_suite";

/// `cargo nextest run` of the suite over the DevTools protocol, `threads`
/// scenarios at a time, its temporary files and processes marked with `root`.
fn nextest(root: &Path, filter: &str, threads: &str) -> Command {
    support::browser_marker(root, "t");
    let mut cmd = support::nextest(SUITE, &root.join(".harshJudge"));
    cmd.args(["--no-fail-fast", "--test-threads", threads, "-E", filter]);
    marked(&mut cmd, root);
    cmd
}

/// The environment of a run of the suite marked with `root`.
fn marked(cmd: &mut Command, root: &Path) {
    cmd.env("TMPDIR", root.join("t"))
        .env(support::PROCESS_MARK, root)
        .env("HARSHJUDGE_BROWSER", "chromium")
        .env("HARSHJUDGE_CHROMIUM_PROTOCOL", "cdp")
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("HARSHJUDGE_WEBDRIVER_URL");
}

/// A browser process's profile (`--user-data-dir`) and process group, with
/// its pid and command line (what a failure names).
fn chromiums(root: &Path) -> Vec<((String, u32), (u32, String))> {
    support::started_for(root)
        .into_iter()
        .filter(|(_, cmdline)| !cmdline.contains("--type="))
        .filter_map(|(pid, cmdline)| {
            let profile = cmdline
                .split(' ')
                .find_map(|a| a.strip_prefix("--user-data-dir="))?
                .to_string();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let rest = &stat[stat.rfind(')')? + 1..];
            let group = rest.split_whitespace().nth(2)?.parse().ok()?;
            Some(((profile, group), (pid, cmdline)))
        })
        .collect()
}

/// (profile, process group) → the first (pid, command line) seen in it.
type Seen = std::collections::BTreeMap<(String, u32), (u32, String)>;

/// Watches the browsers started for `root` until dropped: every profile and
/// process group seen, each with the first process seen in it.
struct Watch {
    seen: Arc<Mutex<Seen>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watch {
    fn start(root: &Path) -> Watch {
        let seen: Arc<Mutex<Seen>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::thread::spawn({
            let (seen, stop, root) = (Arc::clone(&seen), Arc::clone(&stop), root.to_path_buf());
            move || {
                while !stop.load(Ordering::SeqCst) {
                    let now = chromiums(&root);
                    let mut seen = seen.lock().unwrap();
                    for (key, first) in now {
                        seen.entry(key).or_insert(first);
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        });
        Watch {
            seen,
            stop,
            thread: Some(thread),
        }
    }

    /// The profiles and the process groups seen, and what was seen (for a
    /// failure's message).
    fn seen(mut self) -> (BTreeSet<String>, BTreeSet<u32>, String) {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.take().unwrap().join().unwrap();
        let seen = self.seen.lock().unwrap();
        (
            seen.keys().map(|(p, _)| p.clone()).collect(),
            seen.keys().map(|(_, g)| *g).collect(),
            seen.iter()
                .map(|((p, g), (pid, cmd))| format!("group {g}, profile {p}: pid {pid} {cmd}"))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    }
}

/// The files of scenario `slug`'s one run, its run's own folder's name aside.
fn evidence(hj: &Path, slug: &str) -> Vec<String> {
    support::tree(&support::only_run(hj, slug))
}

#[test]
fn one_chromium_serves_the_nextest_run_each_scenario_in_a_context_of_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("n");
    // As under cargo test first: the evidence to match.
    let plain = tmp.path().join("t");
    let plain_tmp = support::browser_marker(&plain, "t");
    let reference = support::run_suite(
        SUITE,
        &plain.join(".harshJudge"),
        &["--test-threads", "1", "--skip", "c_waits"],
        &[
            ("TMPDIR", &plain_tmp.display().to_string()),
            ("HARSHJUDGE_BROWSER", "chromium"),
            ("HARSHJUDGE_CHROMIUM_PROTOCOL", "cdp"),
        ],
    );
    assert_eq!(reference.code, 0, "{reference:?}");

    let watch = Watch::start(&root);
    let r = Run::from(
        nextest(&root, "test(a_leaves_state) | test(b_sees_none)", "3")
            .output()
            .unwrap(),
    );
    let (profiles, groups, seen) = watch.seen();
    // The second scenario saw neither the cookie nor the storage of the first.
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stderr.contains("2 passed"), "{r:?}");
    assert_eq!(profiles.len(), 1, "one browser for the run: {profiles:?}");
    assert_eq!(groups.len(), 1, "one process group for the run:\n{seen}");
    for slug in ["a-leaves-state", "b-sees-none"] {
        assert_eq!(
            evidence(&root.join(".harshJudge"), slug),
            evidence(&plain.join(".harshJudge"), slug),
            "{slug}'s evidence is as under cargo test"
        );
    }
    let (left, folders) = support::left_behind(&root);
    assert!(left.is_empty(), "processes left after the run: {left:#?}");
    assert!(folders.is_empty(), "folders left: {folders:?}");
}

/// `CARGO_TARGET_<host triple>_RUNNER`: the variable naming a target runner.
fn runner_variable() -> String {
    let out = Command::new(support::rlibs::rustc())
        .arg("-vV")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let host = text
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .unwrap_or_else(|| panic!("rustc -vV names its host: {text}"));
    format!(
        "CARGO_TARGET_{}_RUNNER",
        host.to_uppercase().replace(['-', '.'], "_")
    )
}

/// A target runner (as `/usr/bin/time` or valgrind would be) stands between
/// nextest and each scenario's process, and ends with it: the run's Chromium
/// lives as long as nextest's runner, not as the first scenario's wrapper.
/// Taking the process's parent for the runner, the first scenario's end
/// killed the browser under the others (seen in a run of the workspace's
/// tests through `/usr/bin/time`: "the browser exited … Connection reset").
#[test]
fn under_a_target_runner_one_chromium_still_serves_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("w");
    // Built first, so that the run below does not wait for it.
    support::run_suite(SUITE, &tmp.path().join("built"), &["--list"], &[]);
    // Not `exec`: the wrapper stays the scenario's parent until it ends.
    let wrapper = tmp.path().join("wrap.sh");
    std::fs::write(&wrapper, "#!/bin/sh\n\"$@\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let watch = Watch::start(&root);
    // One at a time: the first scenario's wrapper has ended when the second starts.
    let mut cmd = nextest(&root, "test(a_leaves_state) | test(b_sees_none)", "1");
    cmd.env(runner_variable(), &wrapper);
    let r = Run::from(cmd.output().unwrap());
    let (profiles, groups, seen) = watch.seen();
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stderr.contains("2 passed"), "{r:?}");
    assert_eq!(profiles.len(), 1, "one browser for the run:\n{seen}");
    assert_eq!(groups.len(), 1, "one process group for the run:\n{seen}");
    let (left, folders) = support::left_behind(&root);
    assert!(left.is_empty(), "processes left after the run: {left:#?}");
    assert!(folders.is_empty(), "folders left: {folders:?}");
}

#[test]
fn a_sigkilled_scenario_process_leaves_the_others_passing_and_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("k");
    // Built first, so that the run below does not wait for it.
    support::run_suite(SUITE, &tmp.path().join("built"), &["--list"], &[]);
    let watch = Watch::start(&root);
    let mut child = nextest(
        &root,
        "test(a_leaves_state) | test(b_sees_none) | test(c_waits)",
        "3",
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    support::wait_until_at_step(&root, "c-waits", 2, &mut child, Duration::from_secs(300));
    let waiting: Vec<u32> = support::started_for(&root)
        .into_iter()
        .filter(|(_, c)| {
            let binary = c.split(' ').next().unwrap_or_default();
            let name = Path::new(binary).file_name().unwrap_or_default();
            name.to_string_lossy().starts_with(SUITE) && c.contains("c_waits")
        })
        .map(|(pid, _)| pid)
        .collect();
    assert_eq!(waiting.len(), 1, "the waiting scenario's process");
    let status = Command::new("kill")
        .args(["-KILL", &waiting[0].to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let r = Run::from(child.wait_with_output().unwrap());
    let (profiles, _, _) = watch.seen();
    assert!(r.stderr.contains("2 passed"), "{r:?}");
    assert!(r.stderr.contains("1 failed"), "{r:?}");
    assert_eq!(profiles.len(), 1, "one browser for the run: {profiles:?}");
    let (left, folders) = support::left_behind(&root);
    assert!(left.is_empty(), "processes left after the run: {left:#?}");
    assert!(folders.is_empty(), "folders left: {folders:?}");
}
