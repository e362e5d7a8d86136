//! Dialogs against a fake browser: the answer a dialog gets, and its record.

use std::sync::{Arc, Mutex};

use serde_json::json;

use super::super::testing::fake_page;
use crate::browser::dialogs::Dialog;

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
