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

use std::time::Instant;

use harshjudge::browser::{BrowserConfig, BrowserKind, Page, expect, open_page_with, release_page};
use harshjudge::regex::Regex;
use serde_json::Value;

fn config(browser: BrowserKind) -> BrowserConfig {
    let mut c = BrowserConfig::from_env().expect("browser settings");
    c.webdriver_url = None;
    c.for_browser(browser)
}

/// Signs in (the app's HttpOnly `session` cookie), sets a script cookie,
/// local and session storage and an IndexedDB database.
async fn leave_state(page: &Page, browser: BrowserKind) {
    page.goto("/login?next=/account").await.unwrap();
    page.get_by_label("Email")
        .fill("ada@example.com")
        .await
        .unwrap();
    page.get_by_label("Password").fill("secret").await.unwrap();
    page.get_by_role("button")
        .name("Sign in")
        .click()
        .await
        .unwrap();
    expect(page)
        .to_have_url(Regex::new("/account$").unwrap())
        .await
        .unwrap();
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
    let first = open_page_with(&c, &base)
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
        let windows = first.client().windows().await.unwrap();
        assert_eq!(windows.len(), 2, "{browser}: the popup opened");
    }
    release_page(first).await;

    let t1 = Instant::now();
    let second = open_page_with(&c, &base).await.unwrap();
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
        second.client().windows().await.unwrap().len(),
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
    release_page(second).await;

    // A third: the second's context goes too, and the session is still one.
    let third = open_page_with(&c, &base).await.unwrap();
    if bidi {
        assert_eq!(third.session_id().await, id, "{browser}: reused again");
    }
    third.goto("/items").await.unwrap();
    assert_eq!(
        origin_state(&third).await["cookie"],
        "",
        "{browser}: the third sees nothing of the second"
    );
    release_page(third).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reused_firefox_session_isolates_the_next_scenario() {
    the_next_scenario_sees_nothing_of_the_last(BrowserKind::Firefox).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_webkit_scenario_sees_nothing_of_the_last() {
    the_next_scenario_sees_nothing_of_the_last(BrowserKind::Webkit).await;
}
