//! `main!(web_server = …)` and the suite hooks, with real processes: the
//! fixture suite tests/fixtures/server.rs runs `python3 -m http.server {port}`
//! run as `cargo test` runs it and under real `cargo nextest run`, and its test
//! binary is SIGKILLed. Processes are counted by scanning /proc for the ones
//! whose environment holds the test's own `FIXTURE_SERVER_DIR` (the server,
//! its shell, the watchdog: every process started for the test).

use crate::support;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

const SUITE: &str = "server_suite";

/// A test's folder: `srv` (served, with `starts` and `order`) and `hj`.
struct Fixture {
    _tmp: tempfile::TempDir,
    srv: PathBuf,
    hj: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let srv = tmp.path().join("srv");
    std::fs::create_dir_all(&srv).unwrap();
    std::fs::write(srv.join("index.html"), "<h1>served</h1>").unwrap();
    let hj = tmp.path().join("hj");
    Fixture { _tmp: tmp, srv, hj }
}

impl Fixture {
    fn run(&self, args: &[&str], envs: &[(&str, &str)]) -> Run {
        let srv = self.srv.display().to_string();
        let python = python();
        let mut all = vec![("FIXTURE_SERVER_DIR", srv.as_str())];
        all.push(("HARSHJUDGE_TEST_PYTHON", python.as_str()));
        all.extend_from_slice(envs);
        run_suite(SUITE, &self.hj, args, &all)
    }

    fn lines(&self, file: &str) -> Vec<String> {
        std::fs::read_to_string(self.srv.join(file))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Processes started for this test, alive (not zombies).
    fn alive(&self) -> Vec<(u32, String)> {
        let mark = format!("FIXTURE_SERVER_DIR={}\0", self.srv.display());
        let mut out = Vec::new();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            let state = stat.rsplit_once(')').map(|(_, r)| r.trim_start());
            if state.is_some_and(|s| s.starts_with('Z')) {
                continue;
            }
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            if environ.windows(mark.len()).any(|w| w == mark.as_bytes()) {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
                    .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                    .unwrap_or_default();
                out.push((pid, cmdline));
            }
        }
        out
    }

    /// Waits up to 10 s for every process started for this test to end.
    fn left_after(&self) -> Vec<(u32, String)> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = self.alive();
            if left.is_empty() || Instant::now() > deadline {
                return left;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits up to 120 s until `order` holds `line`.
    fn wait_for(&self, line: &str, child: &mut std::process::Child) {
        let deadline = Instant::now() + Duration::from_secs(120);
        while !self.lines("order").iter().any(|l| l == line) {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("the suite ended ({status}) before {line:?}");
            }
            assert!(Instant::now() < deadline, "{line:?} never came");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
fn the_server_is_ready_by_url_and_by_output_line_and_the_hooks_run_around_the_scenarios() {
    let f = fixture();
    let r = f.run(&["--exact", "home::01_fetch_the_home_page"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(f.lines("starts").len(), 1, "started once: {r:?}");
    assert_eq!(f.lines("order"), ["before_all", "home", "after_all"]);
    assert!(f.left_after().is_empty(), "{:?}", f.alive());
    // Ready when a line of its output matches.
    let r = f.run(
        &["--exact", "second::01_fetch_the_home_page"],
        &[("FIXTURE_SERVER_MODE", "output")],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(f.lines("starts").len(), 2, "{r:?}");
    assert!(f.left_after().is_empty(), "{:?}", f.alive());
    // Hooks never become steps.
    assert!(!r.stdout.contains("before_all"), "{r:?}");
}

#[test]
fn a_server_never_ready_names_its_command_the_time_waited_and_its_last_lines() {
    let f = fixture();
    let r = f.run(&["home"], &[("FIXTURE_SERVER_MODE", "never")]);
    assert_eq!(r.code, 2, "{r:?}");
    let err = &r.stderr;
    assert!(
        err.contains(
            "could not start the app under test (main!(web_server = …)): the web server `echo $$"
        ),
        "{r:?}"
    );
    assert!(err.contains("was not ready after 1"), "{r:?}");
    assert!(
        err.contains("got no answer; WebServer::timeout to wait longer"),
        "{r:?}"
    );
    assert!(err.contains("    still starting 3 on "), "{r:?}");
    assert!(f.lines("order").is_empty(), "no hook, no scenario ran");
    assert!(
        f.left_after().is_empty(),
        "its `sleep` is stopped too: {:?}",
        f.alive()
    );
    // Exits before it is ready: its status and last lines.
    let r = f.run(&["home"], &[("FIXTURE_SERVER_MODE", "exits")]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains(
            "exited with exit status: 3 before it was ready; its last output lines:\n    boom on "
        ),
        "{r:?}"
    );
    // A command that does not listen on {port}.
    let r = f.run(&["home"], &[("FIXTURE_SERVER_MODE", "noport")]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains("-m http.server` has no `{port}`"),
        "{r:?}"
    );
}

#[test]
fn a_step_failing_after_the_server_died_says_so_first_with_its_last_lines() {
    let f = fixture();
    let r = f.run(&["server_dies", "--test-threads", "1"], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    let head = "---- server_dies::02_fetch_after_it_died ----\nthe web server `";
    let at = r.stdout.find(head).unwrap_or_else(|| panic!("{r:?}"));
    let failure = &r.stdout[at + head.len()..];
    let first = failure.lines().next().unwrap();
    assert!(first.contains("exited with signal: 9 (SIGKILL)"), "{first}");
    assert!(
        failure
            .lines()
            .nth(1)
            .unwrap()
            .contains("Connection refused"),
        "{failure}"
    );
    let run = &runs(&f.hj, "server-dies")[0];
    let output = std::fs::read_to_string(run.join("step-02/evidence/web-server-output.txt"))
        .unwrap_or_else(|e| panic!("{e}: {:?}", tree(run)));
    assert!(
        output.contains("Serving HTTP on 127.0.0.1 port"),
        "{output}"
    );
    assert!(output.contains("\"GET / HTTP/1.1\" 200"), "{output}");
    assert_eq!(f.lines("order"), ["before_all", "server_dies", "after_all"]);
}

/// Issue 37, point 4: an app under test that does not start, or a
/// `before_all` that fails, leaves a JUnit file and a report that say this
/// invocation failed and why, never the previous invocation's results alone.
#[test]
fn an_app_that_does_not_start_leaves_reports_that_say_so() {
    let f = fixture();
    let junit = f.hj.join("report/junit.xml");
    let index = f.hj.join("report/index.html");
    let r = f.run(&["home"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        std::fs::read_to_string(&junit)
            .unwrap()
            .contains("name=\"home\"")
    );

    let r = f.run(&["home"], &[("FIXTURE_SERVER_MODE", "exits")]);
    assert_eq!(r.code, 2, "{r:?}");
    let cause = "exited with exit status: 3 before it was ready";
    assert!(r.stderr.contains(cause), "{r:?}");
    assert!(
        r.stderr.contains(&format!("junit: {}", junit.display())),
        "{r:?}"
    );
    assert!(
        r.stderr.contains(&format!("report: {}", index.display())),
        "{r:?}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        !xml.contains("name=\"home\""),
        "the previous results are gone: {xml}"
    );
    assert!(xml.contains("<testsuite name=\"server_suite\""), "{xml}");
    assert!(xml.contains("<testcase name=\"invocation start\""), "{xml}");
    assert!(xml.contains("type=\"InvocationFailed\""), "{xml}");
    assert!(
        xml.contains("could not start the app under test") && xml.contains(cause),
        "{xml}"
    );
    let page = std::fs::read_to_string(&index).unwrap();
    assert!(
        page.contains("This invocation of server_suite failed") && page.contains(cause),
        "the report says it"
    );

    // A before_all that fails: no scenario runs, and the reports say why.
    let r = f.run(&["home"], &[("FIXTURE_HOOK_FAIL", "before")]);
    assert_eq!(r.code, 101, "{r:?}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<testcase name=\"invocation before_all\""),
        "{xml}"
    );
    assert!(xml.contains("the seed data could not be loaded"), "{xml}");
    assert!(
        !xml.contains(cause),
        "the earlier invocation's error is gone: {xml}"
    );
    let page = std::fs::read_to_string(&index).unwrap();
    assert!(
        page.contains("failed in its before_all hook"),
        "the report says it"
    );
    assert!(f.left_after().is_empty(), "{:?}", f.alive());
}

#[test]
fn after_all_runs_when_steps_failed_panicked_or_timed_out_and_hook_failures_name_the_hook() {
    let f = fixture();
    let r = f.run(&["panics", "times_out"], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    let order = f.lines("order");
    assert_eq!(
        order.first().map(String::as_str),
        Some("before_all"),
        "{order:?}"
    );
    assert_eq!(
        order.last().map(String::as_str),
        Some("after_all"),
        "{order:?}"
    );
    assert_eq!(order.len(), 4, "{order:?}");
    // A failing after_all fails the invocation, named with its place.
    let r = f.run(
        &["--exact", "home::01_fetch_the_home_page"],
        &[("FIXTURE_HOOK_FAIL", "after")],
    );
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stderr
            .contains("harshjudge: after_all `after` (tests/fixtures/server.rs:"),
        "{r:?}"
    );
    assert!(
        r.stderr
            .contains(") failed: the cleanup failed (at tests/fixtures/server.rs:"),
        "{r:?}"
    );
    // A failing before_all: no scenario runs, the first step fails with its cause.
    let r = f.run(
        &["--exact", "home::01_fetch_the_home_page"],
        &[("FIXTURE_HOOK_FAIL", "before")],
    );
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stdout
            .contains("before_all `before` (tests/fixtures/server.rs:"),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains("failed: the seed data could not be loaded"),
        "{r:?}"
    );
    let order = f.lines("order");
    assert_eq!(
        &order[order.len() - 2..],
        ["before_all", "after_all"],
        "the scenario did not run: {order:?}"
    );
    assert!(f.left_after().is_empty(), "{:?}", f.alive());
}

#[test]
fn listing_and_an_existing_base_url_start_no_server() {
    let f = fixture();
    let r = f.run(&["--list"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains("home::01_fetch_the_home_page: test"),
        "{r:?}"
    );
    assert!(f.lines("starts").is_empty(), "--list started a server");
    // A recorded run to re-judge, then `--rejudge`: nothing runs, no app.
    let r = f.run(
        &["--exact", "home::01_fetch_the_home_page"],
        &[("FIXTURE_SERVER_MODE", "url")],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(f.lines("starts").len(), 1, "{r:?}");
    let r = f.run(
        &["--exact", "home::01_fetch_the_home_page", "--rejudge"],
        &[],
    );
    assert_ne!(r.code, 101, "{r:?}");
    assert_eq!(
        f.lines("starts").len(),
        1,
        "--rejudge started a server: {r:?}"
    );
    std::fs::remove_file(f.srv.join("starts")).unwrap();
    // HARSHJUDGE_BASE_URL: that app is used (here a server of this test).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for mut s in listener.incoming().flatten() {
            // The whole request head, then the answer.
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let _ =
                s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        }
    });
    let r = f.run(
        &["--exact", "home::01_fetch_the_home_page"],
        &[("HARSHJUDGE_BASE_URL", &url)],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        f.lines("starts").is_empty(),
        "HARSHJUDGE_BASE_URL set, yet a server started"
    );
}

/// The fixture's test binary itself, started as cargo test would.
fn suite_binary(f: &Fixture, args: &[&str]) -> Command {
    let mut cmd = Command::new(test_binary(SUITE));
    cmd.current_dir(workspace())
        .args(args)
        .env("FIXTURE_SERVER_DIR", &f.srv)
        .env("HARSHJUDGE_TEST_PYTHON", python())
        .env("HARSHJUDGE_DIR", &f.hj)
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

#[test]
fn sigkill_of_the_test_process_leaves_no_server() {
    for _ in 0..3 {
        let f = fixture();
        let mut child = suite_binary(&f, &["--exact", "waits::01_wait"])
            .spawn()
            .unwrap();
        f.wait_for("waits", &mut child);
        let servers = f.lines("starts");
        assert_eq!(servers.len(), 1);
        assert!(
            f.alive()
                .iter()
                .any(|(pid, _)| pid.to_string() == servers[0]),
            "the server runs: {:?}",
            f.alive()
        );
        child.kill().unwrap();
        child.wait().unwrap();
        let left = f.left_after();
        assert!(left.is_empty(), "left after SIGKILL: {left:?}");
    }
}

/// `cargo nextest run` of the fixture suite.
fn nextest(f: &Fixture, filter: &str, envs: &[(&str, &str)]) -> Command {
    let mut cmd = support::nextest(SUITE, &f.hj);
    cmd.args(["--no-fail-fast", "-E", filter])
        .env("FIXTURE_SERVER_DIR", &f.srv)
        .env("HARSHJUDGE_TEST_PYTHON", python())
        .env_remove("HARSHJUDGE_BASE_URL");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd
}

#[test]
fn under_nextest_the_server_starts_once_per_run_and_none_is_left() {
    let f = fixture();
    let filter = "test(home) | test(second) | test(third)";
    let r = Run::from(nextest(&f, filter, &[]).output().unwrap());
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stderr.contains("3 passed"), "{r:?}");
    assert_eq!(f.lines("starts").len(), 1, "one server for the run: {r:?}");
    for s in ["home", "second", "third"] {
        assert_eq!(runs(&f.hj, s).len(), 1, "{s}: {r:?}");
    }
    let left = f.left_after();
    assert!(left.is_empty(), "left after the nextest run: {left:?}");
    // Before: one server per scenario process (a command of its own in each).
    let r = Run::from(
        nextest(&f, filter, &[("FIXTURE_SERVER_MODE", "per-process")])
            .output()
            .unwrap(),
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(f.lines("starts").len(), 1 + 3, "{r:?}");
    assert!(f.left_after().is_empty(), "{:?}", f.alive());
}

#[test]
fn ctrl_c_of_nextest_leaves_no_server() {
    let f = fixture();
    let mut cmd = nextest(&f, "test(waits) | test(home)", &[]);
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    f.wait_for("waits", &mut child);
    assert_eq!(f.lines("starts").len(), 1);
    let group = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process_group(group, rustix::process::Signal::INT).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "nextest did not stop on SIGINT");
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = f.left_after();
    assert!(left.is_empty(), "left after Ctrl-C: {left:?}");
}
