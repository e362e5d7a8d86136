//! Element returns, frame scopes and other origins' storage against a fake
//! browser.

use std::time::Duration;

use serde_json::json;

use super::super::testing::fake_page;
use super::Called;

const WAIT: Duration = Duration::from_secs(5);

/// A call asking for the element answers its object id; one that found none
/// answers the engine's JSON; a document without the engine gets it first;
/// the top scope is the main frame's default context.
#[tokio::test]
async fn an_engine_call_answers_an_element_by_its_object_id() {
    let (page, mut fake) = fake_page().await;
    fake.event(
        "Runtime.executionContextCreated",
        json!({"context": {"id": 7, "origin": "http://a", "name": "",
            "auxData": {"frameId": "F1", "isDefault": true}}}),
    )
    .await;
    let call = page.call_in(None, "{}", true, WAIT);
    let browser = async {
        let c = fake.expect("Runtime.callFunctionOn").await;
        assert_eq!(c["params"]["executionContextId"], 7);
        assert_eq!(c["params"]["returnByValue"], false);
        fake.answer(
            &c["id"],
            json!({"result": {"type": "object", "subtype": "node", "objectId": "E1"}}),
        )
        .await;
    };
    let (called, ()) = tokio::join!(call, browser);
    assert_eq!(called.expect("called"), Called::Element("E1".into()));

    let call = page.call_in(Some(9), "{}", false, WAIT);
    let browser = async {
        let c = fake.expect("Runtime.callFunctionOn").await;
        assert_eq!(c["params"]["executionContextId"], 9);
        assert_eq!(c["params"]["returnByValue"], true);
        let short = c["params"]["functionDeclaration"].as_str().unwrap().len();
        fake.answer(
            &c["id"],
            json!({"result": {"type": "string", "value": "{\"missing\": true}"}}),
        )
        .await;
        let c = fake.expect("Runtime.callFunctionOn").await;
        let full = c["params"]["functionDeclaration"].as_str().unwrap().len();
        assert!(full > short, "the engine installed first");
        fake.answer(
            &c["id"],
            json!({"result": {"type": "string", "value": "{\"ok\": true, \"value\": 3}"}}),
        )
        .await;
    };
    let (called, ()) = tokio::join!(call, browser);
    assert_eq!(
        called.expect("called"),
        Called::Answer(json!({"ok": true, "value": 3}))
    );
}

/// An iframe element's scope is its frame's default context, waited for;
/// an element that is no frame is an error naming it.
#[tokio::test]
async fn a_frames_scope_comes_from_its_iframe_element() {
    let (page, mut fake) = fake_page().await;
    let scope = page.frame_scope("E2", WAIT);
    let browser = async {
        let c = fake.expect("DOM.describeNode").await;
        assert_eq!(c["params"], json!({"objectId": "E2"}));
        fake.answer(
            &c["id"],
            json!({"node": {"nodeName": "IFRAME", "frameId": "F2"}}),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        fake.event(
            "Runtime.executionContextCreated",
            json!({"context": {"id": 12, "auxData": {"frameId": "F2", "isDefault": true}}}),
        )
        .await;
    };
    let (scope, ()) = tokio::join!(scope, browser);
    assert_eq!(scope.expect("a scope"), 12);

    let scope = page.frame_scope("E3", WAIT);
    let browser = async {
        let c = fake.expect("DOM.describeNode").await;
        fake.answer(&c["id"], json!({"node": {"nodeName": "DIV"}}))
            .await;
    };
    let (scope, ()) = tokio::join!(scope, browser);
    let e = scope.expect_err("no frame").to_string();
    assert!(e.contains("<div>, not an iframe"), "{e}");
}

/// Another origin's localStorage, as `DOMStorage` answers it.
#[tokio::test]
async fn another_origins_local_storage() {
    let (page, mut fake) = fake_page().await;
    let read = page.local_storage("http://b.test");
    let browser = async {
        for _ in 0..2 {
            let c = fake.command().await;
            let result = if c["method"] == "DOMStorage.getDOMStorageItems" {
                assert_eq!(
                    c["params"],
                    json!({"storageId": {"securityOrigin": "http://b.test", "isLocalStorage": true}})
                );
                json!({"entries": [["token", "t1"], ["theme", "dark"]]})
            } else {
                assert_eq!(c["method"], "DOMStorage.enable");
                json!({})
            };
            fake.answer(&c["id"], result).await;
        }
    };
    let (read, ()) = tokio::join!(read, browser);
    assert_eq!(
        read.expect("read"),
        [
            ("token".to_string(), "t1".to_string()),
            ("theme".to_string(), "dark".to_string())
        ]
    );
}
