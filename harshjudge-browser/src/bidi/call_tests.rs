//! [`Bidi`]'s calls and reads against fake remote ends: a call whose
//! document went away, and [`Bidi::settle`]'s wait for a navigation under way.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use super::Bidi;

/// What a fake remote end sends for one command, in order.
pub(super) enum Out {
    /// An event message.
    Event(Value),
    /// A wait before what follows.
    Pause(Duration),
    /// The command's success answer with this `result`.
    Answer(Value),
    /// The command's error answer with this message.
    Error(&'static str),
}

/// A fake BiDi remote end on a loopback port: for every command it sends
/// what `answer(method, command)` says (no [`Out::Answer`]: the command is
/// never answered). Returns its WebSocket URL.
pub(super) async fn fake_remote_end(
    mut answer: impl FnMut(&str, &Value) -> Vec<Out> + Send + 'static,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        while let Some(Ok(Message::Text(text))) = ws.next().await {
            let v: Value = serde_json::from_str(text.as_str()).unwrap();
            for out in answer(v["method"].as_str().unwrap(), &v) {
                let message = match out {
                    Out::Pause(d) => {
                        tokio::time::sleep(d).await;
                        continue;
                    }
                    Out::Event(event) => event,
                    Out::Answer(result) => {
                        json!({"type": "success", "id": v["id"], "result": result})
                    }
                    Out::Error(message) => json!({"type": "error", "id": v["id"],
                        "error": "unknown error", "message": message}),
                };
                ws.send(Message::text(message.to_string())).await.unwrap();
            }
        }
    });
    url
}

/// The answer every fake end gives `browsingContext.getTree`.
pub(super) fn top_tree() -> Vec<Out> {
    vec![Out::Answer(json!({"contexts": [{"context": "top"}]}))]
}

/// A remote end that never answers `script.callFunction` (as geckodriver
/// lost a script's callback when its document went away): it announces
/// a navigation of the call's context, then, with `events`, that
/// navigation's new document (DOMContentLoaded), or the context's end.
async fn losing_remote_end(events: &'static [&'static str]) -> String {
    fake_remote_end(move |method, _| match method {
        "browsingContext.getTree" => top_tree(),
        "script.callFunction" => events
            .iter()
            .flat_map(|method| {
                let event = json!({"type": "event", "method": method,
                    "params": {"context": "top", "navigation": "n1",
                        "timestamp": 1, "url": "http://app.test/next"}});
                [Out::Pause(Duration::from_millis(50)), Out::Event(event)]
            })
            .collect(),
        _ => vec![Out::Answer(json!({}))],
    })
    .await
}

/// An engine call whose document is replaced, or whose context closes,
/// ends at once as a navigation (the caller asks again in the new
/// document), not at its limit: a lost answer no longer costs the script
/// timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_document_went_away_ends_at_once_as_a_navigation() {
    for events in [
        &[
            "browsingContext.navigationStarted",
            "browsingContext.domContentLoaded",
        ][..],
        &["browsingContext.contextDestroyed"][..],
    ] {
        let bidi = Bidi::connect(&losing_remote_end(events).await)
            .await
            .unwrap();
        let started = Instant::now();
        let e = bidi
            .call_function(
                "top",
                "async function () {}",
                "",
                Duration::from_secs(20),
                "waiting",
            )
            .await
            .unwrap_err();
        assert!(crate::wire::is_navigation(&e), "{events:?}: {e}");
        assert!(started.elapsed() < Duration::from_secs(5), "{events:?}");
    }
}

/// A remote end whose page starts a navigation (`n1`) just before it
/// answers a script, and `after` later sends `end` (an event of
/// navigation `n1`, or of `other` when given).
async fn navigating_remote_end(
    end: &'static str,
    other: Option<&'static str>,
    after: Duration,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        let (mut tx, mut rx) = ws.split();
        let (out, mut outgoing) = tokio::sync::mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(m) = outgoing.recv().await {
                if tx.send(Message::text(m)).await.is_err() {
                    break;
                }
            }
        });
        let event = |method: &str, navigation: &str| {
            json!({"type": "event", "method": method,
                "params": {"context": "top", "navigation": navigation,
                    "timestamp": 1, "url": "http://app.test/next"}})
            .to_string()
        };
        let mut started = false;
        while let Some(Ok(Message::Text(text))) = rx.next().await {
            let v: Value = serde_json::from_str(text.as_str()).unwrap();
            let result = match v["method"].as_str().unwrap() {
                "browsingContext.getTree" => json!({"contexts": [{"context": "top",
                    "url": "http://app.test/next", "children": null}]}),
                // The URL a read asks for: the document's own, as a page answers.
                "script.evaluate" if v["params"]["expression"] == "document.URL" => {
                    json!({"type": "success", "realm": "r",
                        "result": {"type": "string", "value": "http://app.test/next"}})
                }
                "script.evaluate" => {
                    if !started {
                        started = true;
                        out.send(event("browsingContext.navigationStarted", "n1"))
                            .unwrap();
                        let out = out.clone();
                        let late = event(end, other.unwrap_or("n1"));
                        tokio::spawn(async move {
                            tokio::time::sleep(after).await;
                            let _ = out.send(late);
                        });
                    }
                    json!({"type": "success", "realm": "r",
                        "result": {"type": "number", "value": 0}})
                }
                _ => json!({}),
            };
            let reply = json!({"type": "success", "id": v["id"], "result": result});
            out.send(reply.to_string()).unwrap();
        }
    });
    url
}

/// A read waits for a navigation under way until its document loads, or
/// until an event says none is coming (aborted, failed, a fragment
/// navigation, a download, a fetch error of the document); not longer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settle_waits_for_the_navigation_under_way_and_no_longer() {
    for end in [
        "browsingContext.domContentLoaded",
        "browsingContext.load",
        "browsingContext.navigationAborted",
        "browsingContext.navigationFailed",
        "browsingContext.fragmentNavigated",
        "browsingContext.downloadWillBegin",
        "network.fetchError",
    ] {
        let url = navigating_remote_end(end, None, Duration::from_millis(400)).await;
        let bidi = Bidi::connect(&url).await.unwrap();
        let started = Instant::now();
        bidi.settle("top").await;
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(350), "{end}: {waited:?}");
        assert!(waited < Duration::from_secs(5), "{end}: {waited:?}");
        assert_eq!(bidi.under_way("top"), None, "{end}");
        assert_eq!(
            bidi.url("top", "reading the URL").await.unwrap(),
            "http://app.test/next"
        );
    }
}

/// The end of another navigation does not end the wait; a navigation
/// that never tells its end holds one read up to the limit, and is then
/// forgotten: the next read does not wait for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_navigation_that_never_ends_holds_one_read_up_to_the_limit() {
    let url = navigating_remote_end(
        "browsingContext.load",
        Some("n0"),
        Duration::from_millis(100),
    )
    .await;
    let bidi = Bidi::connect(&url).await.unwrap();
    let started = Instant::now();
    bidi.settle_within("top", Duration::from_millis(700)).await;
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(650), "{waited:?}");
    assert_eq!(bidi.under_way("top"), None);
    let started = Instant::now();
    bidi.settle("top").await;
    assert!(started.elapsed() < Duration::from_secs(2));
}

/// A navigation that starts but brings no new document (a download, a
/// 204) leaves the call alone: it ends by its answer or its limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_navigation_without_a_new_document_leaves_the_call_to_its_limit() {
    let url = losing_remote_end(&["browsingContext.navigationStarted"]).await;
    let bidi = Bidi::connect(&url).await.unwrap();
    let e = bidi
        .call_function(
            "top",
            "async function () {}",
            "",
            Duration::from_millis(600),
            "waiting",
        )
        .await
        .unwrap_err();
    assert!(!crate::wire::is_navigation(&e), "{e}");
    assert!(e.to_string().contains("did not answer"), "{e}");
}

/// A remote end that does not know one of the ends of a navigation refuses
/// the one subscription of every event: the session still opens, with the
/// events it needs, and each end it knows subscribed on its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_end_of_navigation_leaves_the_other_events_subscribed() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel::<(Vec<String>, bool)>();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        while let Some(Ok(Message::Text(text))) = ws.next().await {
            let v: Value = serde_json::from_str(text.as_str()).unwrap();
            let reply = match v["method"].as_str().unwrap() {
                "session.subscribe" => {
                    let events: Vec<String> = v["params"]["events"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|e| e.as_str().unwrap().to_string())
                        .collect();
                    let refused = events.iter().any(|e| e.ends_with("downloadWillBegin"));
                    seen_tx.send((events, refused)).unwrap();
                    if refused {
                        json!({"type": "error", "id": v["id"], "error": "invalid argument",
                            "message": "unknown event"})
                    } else {
                        json!({"type": "success", "id": v["id"], "result": {}})
                    }
                }
                "browsingContext.getTree" => json!({"type": "success", "id": v["id"],
                    "result": {"contexts": [{"context": "top", "url": "about:blank"}]}}),
                _ => json!({"type": "success", "id": v["id"], "result": {}}),
            };
            ws.send(Message::text(reply.to_string())).await.unwrap();
        }
    });
    let bidi = Bidi::connect(&url).await.unwrap();
    assert_eq!(
        bidi.context.lock().unwrap().as_deref(),
        Some("top"),
        "the window's context"
    );
    let mut subscriptions = Vec::new();
    while let Ok((events, refused)) = seen.try_recv() {
        subscriptions.push((events, refused));
    }
    assert_eq!(
        subscriptions.len(),
        2 + super::NAVIGATION_ENDS.len(),
        "{subscriptions:?}"
    );
    assert!(subscriptions[0].1, "all at once, refused");
    assert_eq!(
        subscriptions[0].0.len(),
        super::EVENTS.len() + super::NAVIGATION_ENDS.len()
    );
    assert_eq!(
        subscriptions[1],
        (super::EVENTS.map(String::from).to_vec(), false)
    );
    let singles: Vec<&str> = subscriptions[2..]
        .iter()
        .map(|(e, _)| e[0].as_str())
        .collect();
    assert_eq!(singles, super::NAVIGATION_ENDS.to_vec());
}

/// A remote end that, before it answers `script.evaluate`, sends an event
/// this side does not read (with parameters), twice a `log.entryAdded` whose
/// text is a number, and a well-formed `log.entryAdded`.
async fn odd_events_remote_end() -> String {
    fake_remote_end(|method, _| match method {
        "browsingContext.getTree" => top_tree(),
        "script.evaluate" => vec![
            Out::Event(
                json!({"type": "event", "method": "browsingContext.contextCreated",
                "params": {"context": "f", "url": "about:blank", "children": null}}),
            ),
            Out::Event(json!({"type": "event", "method": "log.entryAdded",
                "params": {"type": "console", "level": "info", "text": 42, "timestamp": 1}})),
            Out::Event(json!({"type": "event", "method": "log.entryAdded",
                "params": {"type": "console", "level": "info", "text": 43, "timestamp": 1}})),
            Out::Event(json!({"type": "event", "method": "log.entryAdded",
                "params": {"type": "console", "level": "info", "text": "hello", "timestamp": 2}})),
            Out::Answer(json!({"type": "success", "realm": "r",
                "result": {"type": "string", "value": "ok"}})),
        ],
        _ => vec![Out::Answer(json!({}))],
    })
    .await
}

/// An event this side does not read and one of another shape leave the
/// reader serving the socket: the answer after them arrives, and only the
/// well-formed console entry is the step's; the malformed method is said
/// once. (The reader used to index the malformed ones into entries with
/// empty text.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_malformed_events_leave_the_reader_serving() {
    let bidi = Bidi::connect(&odd_events_remote_end().await).await.unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(5), bidi.evaluate("top", "x"))
        .await
        .expect("answered")
        .unwrap();
    assert_eq!(answer, "ok");
    assert!(bidi.is_open());
    let (console, _) = bidi.log.peek(true);
    let texts: Vec<&str> = console.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["hello"]);
    let said = bidi.malformed.lock().unwrap().clone();
    assert_eq!(said, ["log.entryAdded".to_string()].into());
}

/// A remote end whose page sits at `/hop?1` when it is sent to `/start`:
/// the navigation starts, its document's fetch fails and the command fails
/// as aborted (Firefox's events, caught in a soak, when the page's own
/// navigation took the place of a `goto`'s). With `lands`, the document of
/// `/start` comes that long after all the same, reported loaded under
/// another navigation's id (a `goto` failed as aborted in a soak although
/// its document came). Every document is complete when asked.
async fn aborted_navigation_remote_end(lands: Option<Duration>) -> String {
    const HOP: &str = "http://app.test/hop?1";
    let mut sent = None;
    fake_remote_end(move |method, v| {
        let landed = sent
            .zip(lands)
            .is_some_and(|(at, after): (Instant, Duration)| at.elapsed() >= after);
        let string = |value: &str| {
            Out::Answer(json!({"type": "success", "realm": "r",
                "result": {"type": "string", "value": value}}))
        };
        let event = |method: &str, navigation: &str, url: &str| {
            Out::Event(json!({"type": "event", "method": method,
                "params": {"context": "top", "navigation": navigation,
                    "timestamp": 1, "url": url}}))
        };
        match method {
            "browsingContext.getTree" => top_tree(),
            "browsingContext.navigate" => {
                sent = Some(Instant::now());
                let url = v["params"]["url"].as_str().unwrap();
                vec![
                    event("browsingContext.navigationStarted", "n2", url),
                    Out::Event(json!({"type": "event", "method": "network.fetchError",
                        "params": {"context": "top", "navigation": "n2", "timestamp": 1,
                            "errorText": "NS_BINDING_ABORTED",
                            "request": {"request": "r2", "url": url}}})),
                    Out::Error("NS_BINDING_ABORTED"),
                ]
            }
            "script.evaluate" if v["params"]["expression"] == "document.URL" => {
                vec![string(if landed { START } else { HOP })]
            }
            "script.evaluate" if landed => vec![
                event("browsingContext.load", "n3", START),
                string("complete"),
            ],
            "script.evaluate" => vec![string("complete")],
            _ => vec![Out::Answer(json!({}))],
        }
    })
    .await
}

const START: &str = "http://app.test/start";

/// A `goto` whose navigation ended without a document as the command failed
/// as aborted is decided by the document the page ends on: still another's
/// (`/hop?1`), it was interrupted by that one, where it used to succeed on
/// it; ours, come later, it succeeded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_goto_is_decided_by_the_document_the_page_ends_on() {
    let bidi = Bidi::connect(&aborted_navigation_remote_end(None).await)
        .await
        .unwrap();
    let started = Instant::now();
    let open = bidi.navigate("top", Some(START), "opening /start");
    let e = bidi.watch_navigation("top", START, open).await.unwrap_err();
    let crate::error::BrowserError::NavigationInterrupted { url, by } = &e else {
        panic!("not interrupted: {e}");
    };
    assert_eq!(
        (url.as_str(), by.as_str()),
        (START, "http://app.test/hop?1")
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    let lands = Some(Duration::from_millis(300));
    let bidi = Bidi::connect(&aborted_navigation_remote_end(lands).await)
        .await
        .unwrap();
    let open = bidi.navigate("top", Some(START), "opening /start");
    bidi.watch_navigation("top", START, open).await.unwrap();
}
