//! What the engine tests share: a local driver's settings for one engine, and
//! the demo app's sign-in.

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
