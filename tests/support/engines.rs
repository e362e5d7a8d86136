//! What the engine tests share: a local driver's settings for one engine,
//! the demo app's sign-in, and the storage state of an origin left behind.

use harshjudge::browser::{BrowserConfig, BrowserKind, ChromiumProtocol, Page, expect};
use harshjudge::regex::Regex;

/// The settings of this environment for `browser`, on a local driver.
pub fn config(browser: BrowserKind) -> BrowserConfig {
    let mut c = BrowserConfig::from_env().expect("browser settings");
    c.webdriver_url = None;
    c.for_browser(browser)
}

/// This environment's settings for a local Chromium spoken to over the
/// DevTools protocol (no chromedriver), whatever `HARSHJUDGE_CHROMIUM_PROTOCOL` says.
#[allow(dead_code)] // not every engine test runs over CDP
pub fn chromium_cdp() -> BrowserConfig {
    let mut c = config(BrowserKind::Chromium);
    c.chromium_protocol = ChromiumProtocol::Cdp;
    c
}

/// Signs in to the demo app as ada (its HttpOnly `session` cookie), and
/// waits for the account page.
#[allow(dead_code)] // not every engine test signs in
pub async fn sign_in(page: &Page) {
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
        .to_have_url(Regex::new("^[^?]*/account$").unwrap())
        .await
        .unwrap();
}

/// The storage state holds the localStorage of an origin the page visited
/// and then left (read through the browser, not the page): set at
/// `127.0.0.1`, the page now on `localhost`, another origin of the same app.
#[allow(dead_code)] // not every engine test saves a storage state
pub async fn left_origins_storage(page: &Page, base: &str, logs: bool) {
    page.goto("/").await.unwrap();
    page.evaluate::<(), _>("() => localStorage.setItem('left', 'behind')", ())
        .await
        .unwrap();
    let elsewhere = base.replace("127.0.0.1", "localhost");
    assert_ne!(elsewhere, base, "the demo app's base is on 127.0.0.1");
    page.goto(&format!("{elsewhere}/")).await.unwrap();
    let state = page.storage_state().await.unwrap();
    let left = state
        .origins
        .iter()
        .find(|o| o.origin == base.trim_end_matches('/'))
        .unwrap_or_else(|| panic!("no {base} among the origins of {state:?}"));
    let entries: Vec<(&str, &str)> = left
        .local_storage
        .iter()
        .map(|e| (e.name.as_str(), e.value.as_str()))
        .collect();
    assert_eq!(entries, [("left", "behind")], "{state:?}");
    // Read in a page of its own, which is not the scenario's: its request
    // is not in the page's network, nor is anything of it in the console
    // (`logs`: the engine has them, WebKit has none).
    let (console, network) = page.take_logs().await.unwrap();
    let urls: Vec<&str> = network.iter().map(|n| n.url.as_str()).collect();
    assert_eq!(
        urls.iter().any(|u| u.starts_with(&elsewhere)),
        logs,
        "the page's own navigation is in its network: {urls:?}"
    );
    assert!(
        !urls.iter().any(|u| u.contains("/.harshjudge/")),
        "the state page's request is not the page's: {urls:?}"
    );
    assert!(
        !console.iter().any(|c| c.text.contains("/.harshjudge/")),
        "{console:?}"
    );
}
