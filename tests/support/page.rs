//! Reading a page the tests opened (the HTML report, the live dashboard):
//! shared by tests/report.rs and tests/targets.rs (`#[path]`).

use std::time::{Duration, Instant};

use harshjudge::browser::Page;
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
