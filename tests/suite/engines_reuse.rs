//! Session reuse on Firefox and WebKit (issue 23), in real browsers against the
//! demo app: a page released and the next one opened in the same process is
//! what the runner does between two scenarios.
//!
//! - Firefox: the session (geckodriver and its Firefox) is reused, and the next
//!   scenario gets a BiDi user context of its own: it sees no cookie (HttpOnly
//!   or not), no local/session storage or IndexedDB of the previous one, one
//!   tab at `about:blank` (the previous popup gone), no route, no dialog
//!   handler, nothing of the previous one in its network log, and its own
//!   cookies are what `cookies_for` reads.
//! - WebKit: no classic command clears every origin's storage or the cache, so
//!   its sessions are not reused (its driver is): the next scenario is a new
//!   MiniBrowser and sees nothing of the previous one either.
//! - The same through the harness (`tests/fixtures/reuse.rs`): a scenario that
//!   sets a cookie and local storage, then one in the same process that must
//!   see neither; nothing is left after the run, nor after a SIGKILL while a
//!   reused Firefox session is open.

use crate::support;
use crate::support::browsers;
use crate::support::engines as engine_support;
use engine_support::config;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use harshjudge::browser::{BrowserKind, Page, expect};
use harshjudge::regex::Regex;
use serde_json::Value;

/// Signs in (the app's HttpOnly `session` cookie), sets a script cookie,
/// local and session storage and an IndexedDB database.
async fn leave_state(page: &Page, browser: BrowserKind) {
    engine_support::sign_in(page).await;
    let set: bool = page
        .evaluate(
            "async () => {
  document.cookie = 'seen=1; path=/';
  localStorage.setItem('k', 'v');
  sessionStorage.setItem('s', 'v');
  await new Promise((ok, ko) => {
    const r = indexedDB.open('hj-db', 1);
    r.onupgradeneeded = () => r.result.createObjectStore('x');
    r.onsuccess = () => { r.result.close(); ok(); };
    r.onerror = () => ko(r.error);
  });
  return document.cookie.includes('seen=1') && localStorage.length === 1;
}",
            (),
        )
        .await
        .unwrap();
    assert!(set, "{browser}: the first scenario's state is set");
}

/// What the page's origin holds, as the page sees it.
async fn origin_state(page: &Page) -> Value {
    page.evaluate(
        "async () => ({
  cookie: document.cookie,
  local: localStorage.length,
  session: sessionStorage.length,
  databases: (await indexedDB.databases()).map(d => d.name),
})",
        (),
    )
    .await
    .unwrap()
}

async fn the_next_scenario_sees_nothing_of_the_last(browser: BrowserKind) {
    let base = demo_app::start_in_background().expect("demo app");
    let c = config(browser);
    let t0 = Instant::now();
    let first = browsers()
        .open_page_with(&c, &base)
        .await
        .unwrap_or_else(|e| panic!("a {browser} page: {e}"));
    let cold = t0.elapsed();
    let id = first.session_id().await;
    leave_state(&first, browser).await;
    let bidi = browser == BrowserKind::Firefox;
    if bidi {
        first
            .route("**/api/data", |route| async move { route.abort().await })
            .await
            .unwrap();
        first.on_dialog(|d| d.accept(None)).unwrap();
        first
            .eval("window.open('/items', '_blank'); return 1")
            .await
            .unwrap();
        let windows = first
            .client()
            .expect("a WebDriver session")
            .windows()
            .await
            .unwrap();
        assert_eq!(windows.len(), 2, "{browser}: the popup opened");
    }
    browsers().release(first).await;

    let t1 = Instant::now();
    let second = browsers().open_page_with(&c, &base).await.unwrap();
    let warm = t1.elapsed();
    eprintln!("{browser}: page open: first {cold:?}, next {warm:?}");
    if bidi {
        assert_eq!(
            second.session_id().await,
            id,
            "{browser}: the session is reused"
        );
    } else {
        assert_ne!(
            second.session_id().await,
            id,
            "{browser}: a new session (its driver reused)"
        );
    }
    assert_eq!(second.url().await.unwrap(), "about:blank", "{browser}");
    assert_eq!(
        second
            .client()
            .expect("a WebDriver session")
            .windows()
            .await
            .unwrap()
            .len(),
        1,
        "{browser}: one top-level page, the popup gone"
    );
    if bidi {
        let (console, network) = second.take_logs().await.unwrap();
        assert!(
            console.is_empty() && network.is_empty(),
            "{browser}: nothing of the last scenario's logs: {console:?} {network:?}"
        );
        let width: u64 = second.evaluate("window.innerWidth", ()).await.unwrap();
        assert_eq!(width, u64::from(c.viewport.0), "{browser}: the viewport");
    }
    second.goto("/account").await.unwrap();
    expect(&second)
        .to_have_url(Regex::new("/login").unwrap())
        .await
        .unwrap();
    let state = origin_state(&second).await;
    assert_eq!(
        state,
        serde_json::json!({"cookie": "", "local": 0, "session": 0, "databases": []}),
        "{browser}: the origin holds nothing of the last scenario"
    );
    let me = url::Url::parse(&format!("{base}/api/me")).unwrap();
    let jar = second.cookies_for(&me).await.unwrap();
    assert!(jar.is_empty(), "{browser}: no cookie in the jar: {jar:?}");
    if bidi {
        let status: u64 = second
            .evaluate("async () => (await fetch('/api/data')).status", ())
            .await
            .unwrap();
        assert_eq!(status, 200, "{browser}: the last scenario's route is gone");
        second
            .eval("setTimeout(() => { window.hjConfirmed = confirm('again?'); }, 0); return 1")
            .await
            .unwrap();
        // Read from here (a script waiting in the page would be cut short
        // by the dialog).
        let asked = Instant::now();
        let confirmed = loop {
            let v: Result<Value, _> = second.evaluate("window.hjConfirmed", ()).await;
            if let Ok(Value::Bool(b)) = v {
                break b;
            }
            assert!(
                asked.elapsed().as_secs() < 10,
                "{browser}: the dialog was never answered: {v:?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        };
        assert!(
            !confirmed,
            "{browser}: the last scenario's dialog handler is gone (dismissed)"
        );
    }
    second
        .eval("document.cookie = 'mine=2; path=/'; return 1")
        .await
        .unwrap();
    let jar = second.cookies_for(&me).await.unwrap();
    let names: Vec<&str> = jar.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["mine"], "{browser}: the scenario's own jar");
    browsers().release(second).await;

    // A third: the second's context goes too, and the session is still one.
    let third = browsers().open_page_with(&c, &base).await.unwrap();
    if bidi {
        assert_eq!(third.session_id().await, id, "{browser}: reused again");
    }
    third.goto("/items").await.unwrap();
    assert_eq!(
        origin_state(&third).await["cookie"],
        "",
        "{browser}: the third sees nothing of the second"
    );
    browsers().release(third).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reused_firefox_session_isolates_the_next_scenario() {
    the_next_scenario_sees_nothing_of_the_last(BrowserKind::Firefox).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_webkit_scenario_sees_nothing_of_the_last() {
    the_next_scenario_sees_nothing_of_the_last(BrowserKind::Webkit).await;
}

/// `reuse_suite` in `browser`, one scenario at a time, its temporary files
/// and processes marked with `root`.
fn suite(root: &Path, browser: BrowserKind, args: &[&str]) -> Command {
    let marked_tmp = support::browser_marker(root, "t");
    let mut cmd = Command::new(support::test_binary("reuse_suite"));
    cmd.current_dir(support::workspace())
        .args(["--test-threads", "1"])
        .args(args)
        .env("HARSHJUDGE_DIR", root.join(".harshJudge"))
        .env("TMPDIR", &marked_tmp)
        .env(support::PROCESS_MARK, root)
        .env("HARSHJUDGE_BROWSER", browser.name())
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("HARSHJUDGE_WEBDRIVER_URL")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST");
    cmd
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The session id scenario `slug` wrote as evidence, once it has.
fn session_of(root: &Path, slug: &str) -> Option<String> {
    let run = support::runs(&root.join(".harshJudge"), slug)
        .into_iter()
        .next()?;
    walk(&run)
        .into_iter()
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("session"))
        })
        .and_then(|p| std::fs::read_to_string(p).ok())
        .filter(|s| !s.trim().is_empty())
}

/// Two scenarios through the harness: the second sees neither the cookie nor
/// the local storage of the first; on Firefox in the same session, on WebKit
/// in a new one. Nothing is left after the run.
fn the_suite_s_next_scenario_starts_clean(browser: BrowserKind) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    let out = suite(&root, browser, &["--skip", "c_waits"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{browser}: {stdout}\n{stderr}");
    for name in ["a_leaves_state::01_", "b_sees_none::01_"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(&format!("test {name}")) && l.ends_with("... ok")),
            "{browser}: {name}: {stdout}"
        );
    }
    let a = session_of(&root, "a-leaves-state").expect("the first session id");
    let b = session_of(&root, "b-sees-none").expect("the second session id");
    if browser == BrowserKind::Firefox {
        assert_eq!(a, b, "{browser}: one session for both scenarios");
    } else {
        assert_ne!(a, b, "{browser}: a session each");
    }
    let (left, folders) = support::left_behind(&root);
    assert!(left.is_empty(), "{browser}: processes left: {left:#?}");
    assert!(folders.is_empty(), "{browser}: folders left: {folders:?}");
}

#[test]
fn one_firefox_session_serves_the_suite_and_each_scenario_starts_clean() {
    the_suite_s_next_scenario_starts_clean(BrowserKind::Firefox);
}

#[test]
fn each_webkit_scenario_of_the_suite_starts_clean() {
    the_suite_s_next_scenario_starts_clean(BrowserKind::Webkit);
}

/// The suite SIGKILLed while its third scenario runs in the Firefox session
/// the first two used: geckodriver, Firefox and their folders go with it.
#[test]
fn a_sigkilled_suite_with_a_reused_firefox_session_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("k");
    let mut child = suite(&root, BrowserKind::Firefox, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    support::wait_until_at_step(&root, "c-waits", 2, &mut child, Duration::from_secs(120));
    assert_eq!(
        session_of(&root, "c-waits"),
        session_of(&root, "a-leaves-state"),
        "the third scenario runs in the first one's session"
    );
    let before = support::started_for(&root);
    assert!(
        before.iter().any(|(_, c)| c.contains("geckodriver"))
            && before.iter().any(|(_, c)| c.contains("firefox")),
        "geckodriver and firefox run before the kill: {before:#?}"
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let (left, folders) = support::left_behind(&root);
    eprintln!(
        "{} processes before the SIGKILL, {} left, {} folders left",
        before.len(),
        left.len(),
        folders.len()
    );
    assert!(left.is_empty(), "processes left after SIGKILL: {left:#?}");
    assert!(folders.is_empty(), "folders left: {folders:?}");
}
