//! Execution contexts by frame: events of a fake browser, and an iframe of a
//! real Chromium.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::super::protocol::Evaluate;
use super::super::testing::{RealPage, serve};
use super::super::tests::{Fake, session, within};
use super::{Contexts, FrameError, frame_of};

fn created(id: i64, frame: &str, is_default: bool) -> Value {
    json!({ "method": "Runtime.executionContextCreated", "sessionId": "S1", "params": { "context": {
        "id": id, "origin": "http://127.0.0.1:1", "name": "",
        "auxData": { "isDefault": is_default, "type": if is_default { "default" } else { "isolated" }, "frameId": frame } } } })
}

#[tokio::test]
async fn a_frames_default_context_is_followed_and_waited_for() {
    let (connection, mut fake) = Fake::connect("");
    fake.send(json!({ "method": "Target.attachedToTarget", "params": {
        "sessionId": "S1", "targetInfo": { "targetId": "T1", "type": "page" } } }))
        .await;
    let mut events = connection
        .events(Some(&session("S1")))
        .expect("S1's events");
    let contexts = Arc::new(Contexts::default());
    let pump = {
        let contexts = contexts.clone();
        tokio::spawn(async move {
            while let Some(e) = events.recv().await {
                contexts.event(&e);
            }
        })
    };
    let soon = || Instant::now() + Duration::from_secs(5);
    // Asked before it exists: waits for it.
    let waiting = {
        let contexts = contexts.clone();
        tokio::spawn(async move { contexts.wait_default_of("F1", soon()).await })
    };
    tokio::time::sleep(Duration::from_millis(30)).await;
    fake.send(created(7, "F1", false)).await; // an isolated world: not it
    fake.send(created(8, "F1", true)).await;
    let got = within(waiting).await.expect("joined").expect("its context");
    assert_eq!(got.id, 8);
    fake.send(created(9, "F2", true)).await;
    assert_eq!(
        within(contexts.wait_default_of("F2", soon()))
            .await
            .expect("F2")
            .id,
        9
    );

    // Destroyed: gone; a new document's context takes its place.
    fake.send(
        json!({ "method": "Runtime.executionContextDestroyed", "sessionId": "S1",
        "params": { "executionContextId": 8 } }),
    )
    .await;
    fake.send(json!({ "method": "Page.frameNavigated", "sessionId": "S1", "params": {} }))
        .await;
    let short = Instant::now() + Duration::from_millis(300);
    // Once the frameNavigated passed the pump, the destruction did too.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(contexts.default_of("F1"), None);
    match contexts.wait_default_of("F1", short).await {
        Err(FrameError::NoContext { frame, waited }) => {
            assert_eq!(frame, "F1");
            assert!(waited >= Duration::from_millis(200), "{waited:?}");
        }
        other => panic!("expected NoContext, got {other:?}"),
    }
    fake.send(created(10, "F1", true)).await;
    assert_eq!(
        within(contexts.wait_default_of("F1", soon()))
            .await
            .expect("F1")
            .id,
        10
    );

    // Cleared: every frame's context went.
    fake.send(
        json!({ "method": "Runtime.executionContextsCleared", "sessionId": "S1", "params": {} }),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        (contexts.default_of("F1"), contexts.default_of("F2")),
        (None, None)
    );
    let e = crate::error::BrowserError::from(
        contexts
            .wait_default_of("F2", Instant::now())
            .await
            .expect_err("none"),
    );
    assert!(
        e.to_string().contains("frame F2 has no document to run in"),
        "{e}"
    );
    pump.abort();
}

/// An out-of-process iframe's contexts come with its session: the same
/// context id in two sessions is two contexts, and clearing (or detaching)
/// one session's leaves the page's own.
#[test]
fn an_iframes_contexts_are_kept_by_their_session() {
    use super::super::connection::Received;
    use super::Context;
    let event = |v: Value| Received {
        method: v["method"].as_str().unwrap().into(),
        params: serde_json::value::RawValue::from_string(v["params"].to_string()).unwrap(),
    };
    let contexts = Contexts::default();
    let child = session("S2");
    assert!(contexts.event(&event(created(1, "TOP", true))));
    assert!(contexts.event_in(Some(&child), &event(created(1, "OOPIF", true))));
    assert_eq!(
        (contexts.default_of("TOP"), contexts.default_of("OOPIF")),
        (
            Some(Context {
                session: None,
                id: 1
            }),
            Some(Context {
                session: Some(child.clone()),
                id: 1
            })
        )
    );
    // The child's context 1 destroyed: the page's own context 1 stays.
    let destroyed = json!({ "method": "Runtime.executionContextDestroyed",
        "params": { "executionContextId": 1 } });
    assert!(contexts.event_in(Some(&child), &event(destroyed)));
    assert_eq!(contexts.default_of("OOPIF"), None);
    assert!(contexts.default_of("TOP").is_some());
    assert!(contexts.event_in(Some(&child), &event(created(2, "OOPIF", true))));
    let cleared = json!({ "method": "Runtime.executionContextsCleared", "params": {} });
    assert!(contexts.event_in(Some(&child), &event(cleared.clone())));
    assert_eq!(contexts.default_of("OOPIF"), None);
    assert!(contexts.default_of("TOP").is_some());
    assert!(contexts.event_in(Some(&child), &event(created(3, "OOPIF", true))));
    contexts.clear_session(Some(&child));
    assert_eq!(contexts.default_of("OOPIF"), None);
    assert!(contexts.event(&event(cleared)));
    assert_eq!(contexts.default_of("TOP"), None);
}

#[tokio::test]
async fn an_iframe_elements_frame_comes_from_describe_node() {
    let (connection, mut fake) = Fake::connect("");
    let s1 = session("S1");
    let browser = async {
        for node in [
            json!({ "nodeId": 0, "backendNodeId": 5, "nodeType": 1, "nodeName": "IFRAME", "localName": "iframe", "frameId": "F2" }),
            json!({ "nodeId": 0, "backendNodeId": 6, "nodeType": 1, "nodeName": "DIV", "localName": "div" }),
        ] {
            let c = fake.command().await;
            assert_eq!(c["method"], "DOM.describeNode");
            assert_eq!(c["sessionId"], "S1");
            fake.answer(&c["id"], json!({ "node": node })).await;
        }
    };
    let client = async {
        (
            frame_of(&connection, &s1, "obj-1").await,
            frame_of(&connection, &s1, "obj-2").await,
        )
    };
    let (_, (iframe, div)) = within(async { tokio::join!(browser, client) }).await;
    assert_eq!(iframe.expect("a frame"), "F2");
    match div {
        Err(FrameError::NotAFrame { node_name }) => assert_eq!(node_name, "div"),
        other => panic!("expected NotAFrame, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_iframes_default_context_evaluates_in_the_frame() {
    let base = serve(&[
        (
            "/",
            200,
            "<title>top</title><iframe src=\"/frame\"></iframe>",
        ),
        ("/frame", 200, "<title>inner</title><p>in the frame</p>"),
    ])
    .await;
    let mut page = RealPage::open().await;
    let mut events = std::mem::replace(&mut page.events, tokio::sync::mpsc::unbounded_channel().1);
    let contexts = Arc::new(Contexts::default());
    let pump = {
        let contexts = contexts.clone();
        tokio::spawn(async move {
            while let Some(e) = events.recv().await {
                contexts.event(&e);
            }
        })
    };
    page.goto(&format!("{base}/")).await;
    let until = Instant::now() + Duration::from_secs(10);
    while page
        .evaluate("document.readyState", None)
        .await
        .result
        .value
        != Some(json!("complete"))
        || page.evaluate("document.title", None).await.result.value != Some(json!("top"))
    {
        assert!(Instant::now() < until, "the page loads");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let iframe = page
        .connection
        .send(
            Some(&page.session),
            &Evaluate {
                expression: "document.querySelector('iframe')",
                await_promise: false,
                return_by_value: false,
                context_id: None,
            },
        )
        .await
        .expect("a handle");
    let object_id = iframe.result.object_id.expect("an object id");
    let frame = frame_of(&page.connection, &page.session, &object_id)
        .await
        .expect("its frame");
    let context = contexts
        .wait_default_of(&frame, Instant::now() + Duration::from_secs(10))
        .await
        .expect("the frame's context");
    let context = context.id;
    let title = page.evaluate("document.title", Some(context)).await;
    assert_eq!(title.result.value, Some(json!("inner")), "{title:?}");
    let p = page
        .evaluate("document.querySelector('p').textContent", Some(context))
        .await;
    assert_eq!(p.result.value, Some(json!("in the frame")));
    // The top document's own context is another one.
    let body = page
        .connection
        .send(
            Some(&page.session),
            &Evaluate {
                expression: "document.body",
                await_promise: false,
                return_by_value: false,
                context_id: None,
            },
        )
        .await
        .expect("a handle");
    let not_a_frame = frame_of(
        &page.connection,
        &page.session,
        &body.result.object_id.expect("id"),
    )
    .await;
    assert!(
        matches!(not_a_frame, Err(FrameError::NotAFrame { .. })),
        "{not_a_frame:?}"
    );
    pump.abort();
    page.close().await;
}
