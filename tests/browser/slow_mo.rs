//! `--slow-mo` (`BrowserConfig::slow_mo`, issue 41 point 1): a page waits
//! that long before each action, navigation and keyboard input, on every
//! engine. Measured as a lower bound only (a loaded machine is only slower).

use crate::support::browsers;
use std::time::{Duration, Instant};

use harshjudge::browser::{BrowserConfig, BrowserKind, Page};

const SLOW_MO: Duration = Duration::from_millis(200);

/// Five actions: a navigation, a fill, a click, a key press, a click; what
/// they did is checked, and how long they took returned.
async fn five_actions(page: &Page) -> Duration {
    let started = Instant::now();
    page.goto("/play").await.unwrap();
    page.eval(
        "document.body.innerHTML = '<input id=q><button id=b onclick=\"window.n=(window.n||0)+1\">Go</button>'; return 1;",
    )
    .await
    .unwrap();
    page.locator("#q").fill("shoes").await.unwrap();
    page.locator("#b").click().await.unwrap();
    page.keyboard().press("End").await.unwrap();
    page.locator("#b").click().await.unwrap();
    let took = started.elapsed();
    let n: u32 = page.evaluate("window.n", ()).await.unwrap();
    assert_eq!(n, 2);
    let value: String = page
        .evaluate("document.querySelector('#q').value", ())
        .await
        .unwrap();
    assert_eq!(value, "shoes");
    took
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_motion_waits_before_each_action_on_every_engine() {
    let base = demo_app::start_in_background().expect("demo app");
    let mut failed = Vec::new();
    for browser in [
        BrowserKind::Chromium,
        BrowserKind::Firefox,
        BrowserKind::Webkit,
    ] {
        let config = BrowserConfig {
            webdriver_url: None,
            slow_mo: SLOW_MO,
            ..BrowserConfig::from_env().expect("browser settings")
        }
        .for_browser(browser);
        let page = browsers()
            .open_page_with(&config, &base)
            .await
            .unwrap_or_else(|e| panic!("a {browser:?} page: {e}"));
        let took = five_actions(&page).await;
        if took < 5 * SLOW_MO {
            failed.push(format!("{browser:?}: five actions took {took:?}"));
        }
        browsers().release(page).await;
    }
    assert!(failed.is_empty(), "{failed:?}");
}
