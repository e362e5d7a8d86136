//! A browser that does not start: WebKitWebDriver waits for ever for a
//! MiniBrowser that could not open its display (the CI run of stop 31 hung
//! 90 minutes in `engines_reuse`). Opening a page is bounded by
//! `HARSHJUDGE_LAUNCH_TIMEOUT`: the driver is stopped, the opening is tried
//! once more with a new driver of its own, and it then fails naming what the
//! driver said, leaving no process behind. A driver that fails once and then
//! starts gives a page.
//!
//! The driver is a wrapper around the real `WebKitWebDriver` that points its
//! MiniBrowser at a display no X server serves (always, or only the first
//! time).

use crate::support::browsers;
use crate::support::engines as engine_support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use harshjudge::browser::{BrowserError, BrowserKind};

fn real_driver() -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("WebKitWebDriver"))
        .find(|p| p.is_file())
        .expect("WebKitWebDriver on PATH (`cargo xtask test` installs webkit2gtk-driver)")
}

/// A driver wrapper in `dir` whose browsers cannot open their display: every
/// time, or (`once`) only the first time. Its processes carry `HJ_LAUNCH_MARK=dir`.
fn broken_driver(dir: &Path, once: bool) -> PathBuf {
    let wrapper = dir.join("webkit-driver");
    let mark = dir.join("started-once");
    let breaks = if once {
        format!(
            "if [ ! -e '{m}' ]; then : > '{m}'; export DISPLAY=:31999; fi",
            m = mark.display()
        )
    } else {
        "export DISPLAY=:31999".to_string()
    };
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexport HJ_LAUNCH_MARK='{}'\n{breaks}\nexec '{}' \"$@\"\n",
            dir.display(),
            real_driver().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    wrapper
}

/// Live processes started through the wrapper in `dir` (its command line or
/// its mark).
fn started_through(dir: &Path) -> Vec<(u32, String)> {
    let wrapper = dir.join("webkit-driver").display().to_string();
    let mark = format!("HJ_LAUNCH_MARK={}", dir.display());
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        {
            continue;
        }
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        if cmd.contains(&wrapper) || env.split(|b| *b == 0).any(|v| v == mark.as_bytes()) {
            out.push((pid, cmd));
        }
    }
    out
}

/// Waits up to 10 s for every process started through the wrapper in `dir`
/// to be gone, and fails naming those left.
async fn nothing_left(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut left = started_through(dir);
    while !left.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = started_through(dir);
    }
    assert!(left.is_empty(), "processes left: {left:#?}");
}

/// The `Xvfb` that `xvfb-run` started for the wrapper in `dir`: its pid and
/// display number.
fn x_server_under(dir: &Path) -> Option<(u32, u32)> {
    let wrapper = dir.join("webkit-driver").display().to_string();
    let parents: Vec<u32> = started_through(dir)
        .into_iter()
        .filter(|(_, c)| c.contains("xvfb-run"))
        .map(|(p, _)| p)
        .collect();
    assert!(!parents.is_empty(), "xvfb-run running {wrapper}");
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid = e.file_name().to_str()?.parse::<u32>().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (head, rest) = stat.rsplit_once(')')?;
        let ppid = rest.split_whitespace().nth(1)?.parse::<u32>().ok()?;
        if !head.ends_with("(Xvfb") || !parents.contains(&ppid) {
            return None;
        }
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let display = cmd
            .split(|b| *b == 0)
            .find_map(|a| std::str::from_utf8(a).ok()?.strip_prefix(':')?.parse().ok())?;
        Some((pid, display))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_never_starts_fails_in_time_naming_what_the_driver_said() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = engine_support::config(BrowserKind::Webkit);
    c.webkit_driver = Some(broken_driver(dir.path(), false));
    c.launch_timeout = Duration::from_secs(4);
    let t = Instant::now();
    let opened = tokio::time::timeout(
        Duration::from_secs(60),
        browsers().open_page_with(&c, "http://127.0.0.1:9/"),
    )
    .await
    .expect("opening a page whose browser never starts did not end within 60 s");
    let took = t.elapsed();
    let Err(e) = opened else {
        panic!("a page opened on a browser that cannot open its display")
    };
    let message = e.to_string();
    eprintln!("after {took:?}: {message}");
    match &e {
        BrowserError::LaunchTimeout {
            browser,
            tries,
            after,
            said,
            ..
        } => {
            assert_eq!(*browser, BrowserKind::Webkit);
            assert_eq!(*tries, 2, "once more with a new driver: {message}");
            assert_eq!(*after, Duration::from_secs(4));
            assert!(
                said.contains("cannot open display"),
                "the driver's words are in the error: {message}"
            );
        }
        other => panic!("not a launch timeout: {other:?}"),
    }
    assert!(
        message.contains("HARSHJUDGE_LAUNCH_TIMEOUT") && message.contains("webkit"),
        "{message}"
    );
    assert!(
        took < Duration::from_secs(30),
        "two tries of 4 s each took {took:?}"
    );
    // Each driver was stopped, its X server and browser with it.
    nothing_left(dir.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_did_not_start_once_opens_with_a_new_driver() {
    let base = demo_app::start_in_background().expect("demo app");
    let dir = tempfile::tempdir().unwrap();
    let mut c = engine_support::config(BrowserKind::Webkit);
    c.webkit_driver = Some(broken_driver(dir.path(), true));
    c.launch_timeout = Duration::from_secs(4);
    let t = Instant::now();
    let page = tokio::time::timeout(
        Duration::from_secs(60),
        browsers().open_page_with(&c, &base),
    )
    .await
    .expect("opening the page did not end within 60 s")
    .unwrap_or_else(|e| panic!("the second driver's page: {e}"));
    let took = t.elapsed();
    assert!(
        dir.path().join("started-once").exists(),
        "the first driver was the broken one"
    );
    assert!(
        took >= Duration::from_secs(4),
        "the first try waited its limit: {took:?}"
    );
    page.goto("/").await.unwrap();
    let title = page.title().await.unwrap();
    assert!(!title.is_empty(), "the page works: {title:?}");
    let (x_pid, display) = x_server_under(dir.path()).expect("the driver's Xvfb");
    let lock = PathBuf::from(format!("/tmp/.X{display}-lock"));
    assert!(lock.exists(), "{} while its server runs", lock.display());
    browsers().release(page).await;
    browsers().shutdown().await;
    // Ended, not killed: the X server removed its lock file and socket.
    let lock_pid = std::fs::read_to_string(&lock).ok();
    assert!(
        lock_pid.is_none_or(|p| p.trim() != x_pid.to_string()),
        "{} left behind by the driver's X server ({x_pid})",
        lock.display()
    );
    nothing_left(dir.path()).await;
}
