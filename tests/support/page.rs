//! Reading a page the tests opened (the HTML report, the live dashboard):
//! shared by tests/report.rs and tests/targets.rs (`#[path]`).

use std::path::Path;
use std::time::{Duration, Instant};

use harshjudge::browser::{BrowserConfig, Browsers, Page};
use serde_json::Value;

/// Evaluates `js` until it returns `true` (the page renders asynchronously);
/// panics after 10 s with what it still returned and the page's text.
pub async fn until(page: &Page, what: &str, js: &str) {
    let start = Instant::now();
    loop {
        let v = page.eval(js).await.unwrap();
        if v == Value::Bool(true) {
            return;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let body = page
                .eval("return document.body.innerText.slice(0, 2000)")
                .await
                .unwrap();
            panic!("{what}: still {v} after 10 s; page text: {body}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The value of `js` (a function body) in the page.
pub async fn js(page: &Page, js: &str) -> Value {
    page.eval(js).await.unwrap()
}

/// The HTML report of the store `hj` (`report/index.html`) from `file://` in
/// this machine's Chromium, at `fragment` (`#/run/…`; empty: the overview):
/// the page, and the browsers that own it (keep them while it is used).
pub async fn open_report(hj: &Path, fragment: &str) -> (Browsers, Page) {
    let mut config = BrowserConfig::from_env().expect("browser settings");
    config.webdriver_url = None;
    let url = format!(
        "file://{}{fragment}",
        hj.join("report/index.html").display()
    );
    let browsers = Browsers::new();
    let page = browsers
        .open_page_with(&config, &url)
        .await
        .expect("a browser page (needs chromium and chromium-driver)");
    page.goto(&url).await.unwrap();
    (browsers, page)
}
