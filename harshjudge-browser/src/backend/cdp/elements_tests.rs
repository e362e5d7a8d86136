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

/// A real Chromium: the engine's element is the input `DOM.setFileInputFiles`
/// sets; an iframe's scope runs the engine in its frame.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_pages_element_and_frame_scope() {
    use super::super::protocol::Evaluate;
    use super::super::testing::{real_page, serve_pages};
    use crate::protocol::{Action, Answer, Call, Read, Request, Step, Target};
    let base = serve_pages(&[(
        "/",
        "",
        "<input type=file><iframe srcdoc='<h1>Inner</h1>'></iframe>",
    )])
    .await;
    let (browser, _context, page) = real_page().await;
    page.navigate(&format!("{base}/")).await.expect("loaded");
    let target = |sel: &str| Target {
        chain: vec![Step::Css { sel: sel.into() }],
        describe: format!("page.locator({sel:?})"),
        frame: None,
        trace: false,
    };
    let set_files = Call {
        request: Request::Act {
            target: target("input"),
            action: Action::SetInputFiles,
            verify: None,
        },
        timeout: 2000,
    };
    let request = serde_json::to_string(&set_files).expect("JSON");
    let Called::Element(input) = page
        .call_in(None, &request, true, WAIT)
        .await
        .expect("called")
    else {
        panic!("the input's element");
    };
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "hello").expect("written");
    page.set_files(None, &input, &[file.display().to_string()])
        .await
        .expect("set");
    let name = page
        .evaluate("document.querySelector('input').files[0].name")
        .await
        .expect("read");
    assert_eq!(name, json!("notes.txt"));

    let iframe = Evaluate {
        expression: "document.querySelector('iframe')",
        await_promise: false,
        return_by_value: false,
        context_id: None,
    };
    let element = page
        .connection
        .send(Some(&page.session), &iframe)
        .await
        .expect("the iframe");
    let object = element.result.object_id.expect("an object");
    let scope = page.frame_scope(&object, WAIT).await.expect("its scope");
    let text = Call {
        request: Request::Query {
            target: target("h1"),
            read: Read::TextContent,
            all: false,
            name: None,
        },
        timeout: 2000,
    };
    let request = serde_json::to_string(&text).expect("JSON");
    let Called::Answer(answer) = page
        .call_in(Some(scope), &request, false, WAIT)
        .await
        .expect("called")
    else {
        panic!("an answer");
    };
    assert_eq!(
        Answer::decode(answer).expect("decoded").result,
        Ok(json!("Inner"))
    );

    browser.close().await;
}
