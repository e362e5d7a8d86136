//! Dialogs against a fake browser: the answer a dialog gets, and its record.

use std::sync::{Arc, Mutex};

use serde_json::json;

use super::super::testing::fake_page;
use crate::dialogs::Dialog;

/// Without a handler a dialog is dismissed; a prompt accepted without a
/// text answers its default value, with one that text; each is recorded.
#[tokio::test]
async fn a_dialog_is_decided_answered_and_recorded() {
    let (page, mut fake) = fake_page().await;
    let records = Arc::new(Mutex::new(Vec::new()));
    let seen = records.clone();
    page.dialogs()
        .set_recorder(Arc::new(move |name: &str, bytes: &[u8]| {
            let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            seen.lock().unwrap().push((name.to_string(), v));
        }));
    fake.event(
        "Page.javascriptDialogOpening",
        json!({"url": "http://a/", "message": "Leave?", "type": "beforeunload", "hasBrowserHandler": true}),
    )
    .await;
    let c = fake.expect("Page.handleJavaScriptDialog").await;
    assert_eq!(c["params"], json!({"accept": false}));
    assert_eq!(c["sessionId"], "S1");
    fake.answer(&c["id"], json!({})).await;

    page.dialogs().set_handler(Arc::new(|d: &Dialog| {
        if d.message() == "Name?" {
            d.accept(None)
        } else {
            d.accept(Some("Bo"))
        }
    }));
    let prompt = |message: &str| {
        json!({"url": "http://a/", "message": message, "type": "prompt",
            "hasBrowserHandler": true, "defaultPrompt": "Ann"})
    };
    fake.event("Page.javascriptDialogOpening", prompt("Name?"))
        .await;
    let c = fake.expect("Page.handleJavaScriptDialog").await;
    assert_eq!(c["params"], json!({"accept": true, "promptText": "Ann"}));
    fake.answer(&c["id"], json!({})).await;
    fake.event("Page.javascriptDialogOpening", prompt("Who?"))
        .await;
    let c = fake.expect("Page.handleJavaScriptDialog").await;
    assert_eq!(c["params"], json!({"accept": true, "promptText": "Bo"}));
    fake.answer(&c["id"], json!({})).await;

    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let records = records.lock().unwrap();
    let names: Vec<&str> = records.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["dialog-1", "dialog-2", "dialog-3"]);
    assert_eq!(
        records[0].1,
        json!({"type": "beforeunload", "message": "Leave?", "answer": "dismissed", "handled": false})
    );
    assert_eq!(records[2].1["promptText"], "Bo");
}

/// A real Chromium: a prompt answered by the handler, a confirm dismissed
/// without one, and a `beforeunload` dismissed does not hang the
/// navigation that asked (it ends; the page stays), accepted lets it go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_pages_dialogs_are_answered_and_beforeunload_does_not_hang() {
    use super::super::testing::{click_at, real_page, serve_pages};
    let base = serve_pages(&[
        (
            "/",
            "",
            "<title>Stay</title><div style='position:absolute;left:0;top:0;width:100px;height:40px'>x</div>\
             <script>onbeforeunload = e => { e.preventDefault(); e.returnValue = 'sure?'; }</script>",
        ),
        ("/next", "", "<title>Next</title>"),
    ])
    .await;
    let (browser, _context, page) = real_page().await;
    page.navigate(&format!("{base}/")).await.expect("loaded");
    let confirmed = page.evaluate("confirm('Sure?')").await.expect("answered");
    assert_eq!(confirmed, json!(false), "dismissed without a handler");
    page.dialogs()
        .set_handler(Arc::new(|d: &Dialog| d.accept(Some("Bo"))));
    let name = page
        .evaluate("prompt('Name?', 'Ann')")
        .await
        .expect("answered");
    assert_eq!(name, json!("Bo"));

    // A user gesture, so that the page may ask before it unloads.
    page.perform(&click_at(10, 10)).await.expect("clicked");
    page.dialogs().clear();
    let next = format!("{base}/next");
    let left = tokio::time::timeout(std::time::Duration::from_secs(10), page.navigate(&next))
        .await
        .expect("the navigation ends, no hang");
    assert!(left.is_err(), "dismissed: the page stays ({left:?})");
    assert_eq!(page.title().await.expect("title"), "Stay");
    page.dialogs()
        .set_handler(Arc::new(|d: &Dialog| d.accept(None)));
    tokio::time::timeout(std::time::Duration::from_secs(10), page.navigate(&next))
        .await
        .expect("no hang")
        .expect("accepted: the page goes");
    assert_eq!(page.title().await.expect("title"), "Next");
    browser.close().await;
}
