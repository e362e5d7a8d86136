//! Issue 41, points 1 and 2, through real runs of tests/fixtures/watch.rs's
//! binary against the demo app: `--headed` under a virtual display opens
//! real windows on Chromium, Firefox and WebKit (their screen is the
//! display's, not a headless one's nor WebKit's private Xvfb's; Chromium's
//! user agent is no `HeadlessChrome`) and
//! without a display stops naming the variables and the fix; `page.pause()`
//! never waits under CI nor without a terminal, and with standard input read (a pipe,
//! `HARSHJUDGE_PAUSE_INPUT=stdin`) waits for Enter, the step's timer stopped
//! (a pause longer than the step's limit does not fail it);
//! `HARSHJUDGE_PAUSE=on-failure` pauses where a step failed and names a
//! DevTools URL that answers with the page; bad values name the accepted forms.

use std::io::{BufRead, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support;

const SUITE: &str = "watch_suite";

/// The fixture's binary, in the workspace, writing into `hj`, not under
/// nextest, with none of the settings the tests set themselves.
fn suite(hj: &Path) -> Command {
    let mut cmd = Command::new(support::test_binary(SUITE));
    cmd.current_dir(support::workspace())
        .env("HARSHJUDGE_DIR", hj)
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("HARSHJUDGE_STEP_TIMEOUT")
        .env_remove("HARSHJUDGE_TIMEOUT")
        .env_remove("HARSHJUDGE_HEADED")
        .env_remove("HARSHJUDGE_SLOW_MO")
        .env_remove("HARSHJUDGE_PAUSE")
        .env_remove("HARSHJUDGE_PAUSE_INPUT")
        .env_remove("HARSHJUDGE_PAUSE_TIMEOUT")
        .env_remove("HARSHJUDGE_ONLY_CHANGED")
        .env_remove("HARSHJUDGE_BROWSER")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST");
    cmd
}

fn run_suite(mut cmd: Command) -> support::Run {
    support::Run::from(cmd.stdin(Stdio::null()).output().expect("the suite runs"))
}

/// What the `looks_at_itself` run of `slug` wrote of its window.
fn window_of(hj: &Path, slug: &str) -> String {
    let run = support::only_run(hj, slug);
    std::fs::read_to_string(run.join("step-01/evidence/window.txt")).unwrap()
}

#[test]
fn headed_browsers_open_windows_on_the_display() {
    let t = tempfile::tempdir().unwrap();
    let hj = t.path().join("hj");
    let bin = support::test_binary(SUITE);
    // A virtual display of its own size: a headed browser's screen is it.
    let mut cmd = Command::new("xvfb-run");
    cmd.args(["-a", "-s", "-screen 0 1600x1000x24"])
        .arg(&bin)
        .args(["--headed", "--browser", "chromium", "--browser", "firefox"])
        .args(["--browser", "webkit"])
        .args(["--test-threads", "1", "looks_at_itself"]);
    let base = suite(&hj);
    for (k, v) in base.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.current_dir(support::workspace())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
    let r = run_suite(cmd);
    assert_eq!(r.code, 0, "{r:?}");
    let chromium = window_of(&hj, "looks-at-itself-chromium");
    let firefox = window_of(&hj, "looks-at-itself-firefox");
    let webkit = window_of(&hj, "looks-at-itself-webkit");
    assert!(!chromium.contains("HeadlessChrome"), "{chromium}");
    for seen in [&chromium, &firefox, &webkit] {
        assert!(seen.contains("|1600x1000|"), "{seen}");
    }
    // Headless, the same scenario sees no such screen.
    let hj2 = t.path().join("hj2");
    let mut cmd = suite(&hj2);
    cmd.args(["--test-threads", "1", "looks_at_itself"]);
    let r = run_suite(cmd);
    assert_eq!(r.code, 0, "{r:?}");
    let headless = window_of(&hj2, "looks-at-itself");
    assert!(headless.contains("HeadlessChrome"), "{headless}");
    assert!(!headless.contains("|1600x1000|"), "{headless}");
}

#[test]
fn headed_without_a_display_says_what_to_do() {
    let t = tempfile::tempdir().unwrap();
    let mut cmd = suite(&t.path().join("hj"));
    cmd.args(["--headed", "looks_at_itself"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
    let r = run_suite(cmd);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains("--headed (HARSHJUDGE_HEADED) asks for browser windows, but there is no display: neither DISPLAY nor WAYLAND_DISPLAY is set")
            && r.stderr.contains("xvfb-run -a"),
        "{r:?}"
    );
    let mut cmd = suite(&t.path().join("hj"));
    cmd.args(["looks_at_itself"])
        .env("HARSHJUDGE_HEADED", "1")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
    let r = run_suite(cmd);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("no display"), "{r:?}");
}

#[test]
fn bad_watch_values_name_the_accepted_forms() {
    let t = tempfile::tempdir().unwrap();
    let hj = t.path().join("hj");
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 5] = [
        (
            &["--slow-mo", "abc"],
            &[],
            "--slow-mo \"abc\" is invalid: expected a number of milliseconds from 0 to 60000",
        ),
        (
            &[],
            &[("HARSHJUDGE_PAUSE", "sometimes")],
            "HARSHJUDGE_PAUSE=\"sometimes\" is invalid: expected off",
        ),
        (
            &[],
            &[("HARSHJUDGE_PAUSE_INPUT", "keyboard")],
            "HARSHJUDGE_PAUSE_INPUT=\"keyboard\" is invalid: expected terminal",
        ),
        (
            &[],
            &[("HARSHJUDGE_SLOW_MO", "fast")],
            "HARSHJUDGE_SLOW_MO=\"fast\" is invalid",
        ),
        (
            &["--only-changed=no-such-ref-41"],
            &[],
            "--only-changed=no-such-ref-41: git knows no commit by that name",
        ),
    ];
    for (args, envs, said) in cases {
        let mut cmd = suite(&hj);
        cmd.args(args).arg("looks_at_itself");
        cmd.envs(envs.iter().copied());
        let r = run_suite(cmd);
        assert_eq!(r.code, 2, "{args:?} {envs:?}: {r:?}");
        assert!(r.stderr.contains(said), "{args:?} {envs:?}: {said}\n{r:?}");
    }
}

#[test]
fn a_pause_never_waits_under_ci() {
    let t = tempfile::tempdir().unwrap();
    let hj = t.path().join("hj");
    let mut cmd = suite(&hj);
    // Standard input would be read, but CI wins.
    cmd.args(["--test-threads", "1", "paused"])
        .env("CI", "1")
        .env("HARSHJUDGE_PAUSE_INPUT", "stdin");
    let r = run_suite(cmd);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stderr
            .contains("harshjudge: paused: page.pause() at tests/fixtures/watch.rs:")
            && r.stderr.contains("not waiting: CI is set"),
        "{r:?}"
    );
    let run = support::only_run(&hj, "paused");
    assert!(run.join("step-02/evidence/resumed.txt").is_file());
    assert!(r.stderr.contains(&run.display().to_string()), "{r:?}");
    // Nor, without CI, when standard input is no terminal (here: nothing).
    let mut cmd = suite(&t.path().join("hj2"));
    cmd.args(["--test-threads", "1", "paused"]).env_remove("CI");
    let r = run_suite(cmd);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stderr
            .contains("not waiting: standard input is not a terminal (HARSHJUDGE_PAUSE_INPUT=stdin reads it anyway)"),
        "{r:?}"
    );
}

/// The suite running with a pipe as standard input and its stderr's lines
/// coming in as they are written.
struct Live {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
    said: Vec<String>,
}

impl Live {
    fn start(mut cmd: Command) -> Live {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the suite starts");
        let (tx, lines) = mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                let _ = tx.send(line);
            }
        });
        let mut stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = stdout.read_to_end(&mut sink);
        });
        Live {
            child,
            lines,
            said: Vec::new(),
        }
    }

    /// Waits for a line of stderr containing `text` (at most 3 minutes: a
    /// browser starting on a busy machine).
    fn wait_for(&mut self, text: &str) -> String {
        let until = Instant::now() + Duration::from_secs(180);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.said.push(line.clone());
                    if line.contains(text) {
                        return line;
                    }
                }
                Err(_) => panic!("no {text:?} on stderr:\n{}", self.said.join("\n")),
            }
        }
    }

    fn press_enter(&mut self) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn finish(mut self) -> (i32, String) {
        let code = self.child.wait().unwrap().code().unwrap_or(-1);
        self.said.extend(self.lines.iter());
        (code, self.said.join("\n"))
    }
}

#[test]
fn a_pause_waits_for_enter_with_the_steps_timer_stopped() {
    let t = tempfile::tempdir().unwrap();
    let hj = t.path().join("hj");
    let mut cmd = suite(&hj);
    cmd.args(["--test-threads", "1", "paused"])
        .env_remove("CI")
        .env("HARSHJUDGE_PAUSE_INPUT", "stdin")
        .env("HARSHJUDGE_STEP_TIMEOUT", "2s");
    let mut live = Live::start(cmd);
    let folder = live.wait_for("evidence and trace so far: ");
    let line = live.wait_for("press Enter to continue");
    assert!(line.contains("after 30m"), "{line}");
    // The trace it points to is there while it waits: the step's so far,
    // with the action before the pause (written by the store's writer
    // apart: waited for, at most 30 s).
    let folder = folder.split("evidence and trace so far: ").nth(1).unwrap();
    let trace = Path::new(folder.trim()).join("step-02/evidence/trace.json");
    let until = Instant::now() + Duration::from_secs(30);
    let so_far = loop {
        let read = std::fs::read_to_string(&trace).ok();
        if let Some(text) = read.filter(|t| serde_json::from_str::<serde_json::Value>(t).is_ok()) {
            break text;
        }
        assert!(
            Instant::now() < until,
            "no {} during the pause",
            trace.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        so_far.contains("fill"),
        "the fill before the pause: {so_far}"
    );
    assert!(so_far.contains("the step's trace so far"), "{so_far}");
    // Paused longer than the step may last: its timer is stopped.
    let paused = Instant::now();
    std::thread::sleep(Duration::from_secs(3));
    live.press_enter();
    live.wait_for("going on (Enter pressed)");
    let (code, said) = live.finish();
    assert!(paused.elapsed() >= Duration::from_secs(3));
    assert_eq!(code, 0, "{said}");
    let run = support::only_run(&hj, "paused");
    assert!(run.join("step-02/evidence/resumed.txt").is_file(), "{said}");
}

#[test]
fn on_failure_a_pause_names_a_devtools_url_that_answers() {
    let t = tempfile::tempdir().unwrap();
    let hj = t.path().join("hj");
    let mut cmd = suite(&hj);
    cmd.args(["--test-threads", "1", "fails_to_find"])
        .env_remove("CI")
        .env("HARSHJUDGE_PAUSE", "on-failure")
        .env("HARSHJUDGE_PAUSE_INPUT", "stdin")
        .env("HARSHJUDGE_WAIT", "1s");
    let mut live = Live::start(cmd);
    let paused = live.wait_for("harshjudge: paused: step 2");
    assert!(
        paused.contains("\"Find what is not there\" of scenario fails-to-find failed"),
        "{paused}"
    );
    let devtools = live.wait_for("DevTools: http://127.0.0.1:");
    live.wait_for("press Enter to continue");
    // The browser is there, on the failed page.
    let url = devtools
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap();
    let pages = http_get(url);
    assert!(pages.contains("/login"), "{url}: {pages}");
    live.press_enter();
    live.wait_for("going on (Enter pressed)");
    let (code, said) = live.finish();
    assert_eq!(code, 101, "{said}");
}

/// The body of a GET of `url` (`http://127.0.0.1:PORT/path`).
fn http_get(url: &str) -> String {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    let mut s = std::net::TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    // Its headers, then as many bytes as they say (the connection may stay open).
    let mut r = std::io::BufReader::new(s);
    let mut length = 0;
    loop {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        if line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    r.read_exact(&mut body).unwrap();
    String::from_utf8_lossy(&body).into_owned()
}
