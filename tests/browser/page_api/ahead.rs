//! Pages opened ahead: told how many pages a run will ask for
//! (`Browsers::warm_up`), a local Chromium over the DevTools protocol opens
//! each next page's browser context while the page before is in use, and
//! no more than were asked for. A page opened ahead is as isolated as any,
//! and neither an unused one nor a dead browser's is a page a scenario gets.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use harshjudge::browser::{Browsers, Page};

use super::{config, owned_process};

/// Milliseconds since the epoch, as `performance.timeOrigin` gives them.
fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs_f64()
        * 1000.0
}

/// When the page's document began: for a page no `goto` has navigated, when
/// the page was opened.
async fn time_origin(page: &Page) -> f64 {
    page.evaluate("performance.timeOrigin", ())
        .await
        .expect("timeOrigin")
}

async fn open(browsers: &Browsers, base: &str) -> Page {
    browsers
        .open_page_with(&config(), base)
        .await
        .expect("a page")
}

/// The demo app, a `Browsers` told that `pages` pages will be asked for,
/// and the first of them.
async fn warmed_up(pages: usize) -> (String, Browsers, Page) {
    let base = demo_app::start_in_background().expect("demo app");
    let browsers = Browsers::new();
    browsers.warm_up(&tokio::runtime::Handle::current(), None, &base, pages);
    let first = open(&browsers, &base).await;
    (base, browsers, first)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_page_opens_the_next_one_while_it_is_used_and_no_more() {
    let (base, browsers, first) = warmed_up(3).await;
    first.goto("/login").await.expect("goto");
    let _: serde_json::Value = first
        .evaluate(
            "document.cookie = 'ahead=1', localStorage.setItem('ahead', '1'), null",
            (),
        )
        .await
        .expect("state set");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let released = now_ms();
    browsers.release(first).await;
    let second = open(&browsers, &base).await;
    let opened = time_origin(&second).await;
    assert!(
        opened < released - 300.0,
        "the second page was opened {} ms after the first was released, not ahead",
        opened - released
    );
    // Opened while the first page had its cookie and storage, it has neither.
    second.goto("/login").await.expect("goto");
    let state: serde_json::Value = second
        .evaluate("[document.cookie, localStorage.getItem('ahead')]", ())
        .await
        .expect("state read");
    assert_eq!(state, serde_json::json!(["", null]), "isolated");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let released = now_ms();
    browsers.release(second).await;
    let third = open(&browsers, &base).await;
    assert!(
        time_origin(&third).await < released - 300.0,
        "the third was opened ahead"
    );
    // Three were asked for: no fourth is opened ahead.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let released = now_ms();
    browsers.release(third).await;
    let fourth = open(&browsers, &base).await;
    let opened = time_origin(&fourth).await;
    assert!(
        opened > released,
        "a fourth page was opened ahead ({} ms before the third was released)",
        released - opened
    );
    fourth.goto("/items").await.expect("the fourth page works");
    browsers.release(fourth).await;
    browsers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_opened_ahead_and_never_asked_for_keeps_no_browser_running() {
    let (_, browsers, page) = warmed_up(5).await;
    let pid = owned_process(&browsers).expect("its Chromium");
    page.goto("/login").await.expect("goto");
    browsers.release(page).await;
    // The next page is open (or opening) ahead, and nobody asks for it.
    browsers.shutdown().await;
    assert!(
        super::owners::gone(pid).await,
        "the browser outlived the shutdown"
    );
    assert!(owned_process(&browsers).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_browsers_page_opened_ahead_is_not_handed_out() {
    let (base, browsers, page) = warmed_up(2).await;
    let pid = owned_process(&browsers).expect("its Chromium");
    tokio::time::sleep(Duration::from_millis(500)).await;
    rustix::process::kill_process_group(
        rustix::process::Pid::from_raw(pid as i32).expect("a pid"),
        rustix::process::Signal::KILL,
    )
    .expect("the browser killed");
    assert!(super::owners::gone(pid).await, "the browser died");
    browsers.discard(page).await;
    let next = open(&browsers, &base).await;
    next.goto("/login")
        .await
        .expect("the next page is of a browser that runs");
    assert_ne!(owned_process(&browsers), Some(pid));
    browsers.release(next).await;
    browsers.shutdown().await;
}
