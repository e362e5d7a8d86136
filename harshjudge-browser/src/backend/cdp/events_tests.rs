//! Console and network events, as a real Chromium sends them, into the
//! step log's entries: recorded (`log_events.jsonl`: what Chromium 156 sent
//! for [`PAGE`], the headers left out), through a fake browser (waiters), and
//! live.

use std::time::{Duration, Instant};

use serde_json::value::RawValue;

use super::super::connection::Received;
use super::super::testing::{RealPage, fake_page, serve};
use super::NetLog;
use crate::glob::UrlPattern;
use crate::logs::{ConsoleEntry, NetworkEntry};
use crate::steplog::{Seen, StepLog};

/// The events of `log_events.jsonl`, as the connection hands them out.
pub(in super::super) fn recorded() -> Vec<Received> {
    include_str!("log_events.jsonl")
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
            Received {
                method: v["method"].as_str().expect("a method").to_string(),
                params: RawValue::from_string(v["params"].to_string()).expect("JSON"),
            }
        })
        .collect()
}

/// Feeds `events` through a [`NetLog`] into `log`; how many were its.
fn feed(net: &mut NetLog, log: &StepLog, events: &[Received]) -> usize {
    events.iter().filter(|e| net.event(e, log)).count()
}

#[tokio::test]
async fn recorded_events_become_the_step_logs_entries() {
    let (mut net, log) = (NetLog::default(), StepLog::default());
    let events = recorded();
    let mine = feed(&mut net, &log, &events);
    // The others (ExtraInfo, dataReceived, contexts) are left to others.
    assert_eq!(mine, 19, "of {}", events.len());
    assert_eq!(net.in_flight(), 0);
    let (peeked, _) = log.peek(true);
    let (console, network) = log.take().await;
    assert_eq!(peeked, console, "peek leaves what take gives");
    let rows: Vec<(&str, &str, &str, Option<u64>)> = console
        .iter()
        .map(|c| (c.level.as_str(), c.source.as_str(), c.text.as_str(), c.line))
        .collect();
    // Chromium's own entries of the failed loads are not repeated: the step
    // log writes them, in the same words, when the load ends.
    assert_eq!(
        rows,
        [
            ("info", "console-api", "hello 2 Object", Some(1)),
            ("warning", "console-api", "careful", Some(2)),
            ("error", "javascript", "Uncaught Error: boom", Some(5)),
            (
                "error",
                "network",
                "Failed to load resource: net::ERR_UNSAFE_PORT",
                None
            ),
            ("info", "console-api", "refused", Some(4)),
            (
                "error",
                "network",
                "Failed to load resource: the server responded with a status of 404 (X)",
                None
            ),
            (
                "error",
                "network",
                "Failed to load resource: the server responded with a status of 404 (X)",
                None
            ),
            ("info", "console-api", "fetched", Some(3)),
        ]
    );
    assert_eq!(console[0].timestamp, 1_795_914_143_701);
    assert_eq!(
        console[3].url.as_deref(),
        Some("http://127.0.0.1:1/refused")
    );
    // The failed load's time is the wall clock too (the events' monotonic
    // clock moved by the request's `wallTime`).
    assert!(
        (1_795_914_143_700..1_795_914_143_800).contains(&console[3].timestamp),
        "{:?}",
        console[3]
    );
    let rows: Vec<(&str, &str, Option<u64>, Option<&str>)> = network
        .iter()
        .map(|n| {
            (
                n.url.as_str(),
                n.kind.as_str(),
                n.status,
                n.failure.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("http://127.0.0.1:46301/", "Document", Some(200), None),
            (
                "http://127.0.0.1:1/refused",
                "Fetch",
                None,
                Some("net::ERR_UNSAFE_PORT")
            ),
            (
                "http://127.0.0.1:46301/favicon.ico",
                "Other",
                Some(404),
                None
            ),
            ("http://127.0.0.1:46301/missing", "Fetch", Some(404), None),
        ]
    );
    // From its requestWillBeSent to its loadingFinished.
    assert_eq!(network[0].timing, Some(170.7));
    assert_eq!(
        network[0].request_id.as_deref(),
        Some("0506DCBE6BCB409D1C70DD7BAE296442")
    );
}

#[tokio::test]
async fn a_request_answered_but_still_loading_is_taken_with_its_step() {
    let (mut net, log) = (NetLog::default(), StepLog::default());
    let events = recorded();
    // Up to the 404 of /missing, before its loadingFinished.
    let cut = events
        .iter()
        .position(|e| e.method == "Network.responseReceived" && e.params.get().contains("/missing"))
        .expect("the 404");
    feed(&mut net, &log, &events[..=cut]);
    assert_eq!(net.in_flight(), 2, "/missing answered, the favicon not yet");
    let (_, unanswered) = log.peek(true);
    let (_, answered) = log.peek(false);
    assert_eq!(unanswered.len(), answered.len() + 1);
    let (_, network) = log.take().await;
    assert!(
        network
            .iter()
            .any(|n| n.url.ends_with("/missing") && n.timing.is_none() && n.status == Some(404))
    );
    feed(&mut net, &log, &events[cut + 1..]);
    let (_, later) = log.take().await;
    let urls: Vec<&str> = later.iter().map(|n| n.url.as_str()).collect();
    assert_eq!(
        urls,
        ["http://127.0.0.1:46301/favicon.ico"],
        "/missing's end ignored"
    );
}

/// A redirect: each hop its entry under the one request id, the first
/// ended by the response that redirected it.
#[tokio::test]
async fn a_redirects_hops_share_the_request_id() {
    let (mut net, log) = (NetLog::default(), StepLog::default());
    let event = |method: &str, params: serde_json::Value| Received {
        method: method.into(),
        params: RawValue::from_string(params.to_string()).expect("JSON"),
    };
    let sent = |url: &str, t: f64, redirected: bool| {
        let mut p = serde_json::json!({"requestId": "9", "loaderId": "L", "timestamp": t,
            "wallTime": 1000.0 + t, "type": "Fetch", "frameId": "F",
            "request": {"url": url, "method": "GET", "headers": {"Accept": "*/*"}}});
        if redirected {
            p["redirectResponse"] =
                serde_json::json!({"status": 302, "statusText": "Found", "headers": {}});
        }
        event("Network.requestWillBeSent", p)
    };
    let events = [
        sent("http://a/old", 1.0, false),
        sent("http://a/new", 1.5, true),
        event(
            "Network.responseReceived",
            serde_json::json!({"requestId": "9", "timestamp": 1.7, "type": "Fetch",
                "response": {"status": 200, "statusText": "OK", "headers": {}}}),
        ),
        event(
            "Network.loadingFinished",
            serde_json::json!({"requestId": "9", "timestamp": 2.0}),
        ),
    ];
    assert_eq!(feed(&mut net, &log, &events), 4);
    let (_, network) = log.take().await;
    let got: Vec<_> = network
        .iter()
        .map(|e| (e.url.as_str(), e.status, e.redirect_count, e.timing))
        .collect();
    assert_eq!(
        got,
        [
            ("http://a/old", Some(302), None, Some(500.0)),
            ("http://a/new", Some(200), Some(1), Some(500.0)),
        ]
    );
}

/// A page's request and response reach the step log's waiters (as
/// `wait_for_request`/`wait_for_response` wait), with the request's
/// headers and the response's status.
#[tokio::test]
async fn a_fake_pages_network_events_reach_the_waiters() {
    let (page, mut fake) = fake_page().await;
    let log = page.step_log().clone();
    let pattern = UrlPattern::from("**/api/*");
    let request = log.waiter(pattern.matcher("http://a"), false);
    let response = log.waiter(pattern.matcher("http://a"), true);
    fake.event(
        "Network.requestWillBeSent",
        serde_json::json!({"requestId": "R1", "loaderId": "L1", "timestamp": 5.0,
            "wallTime": 1_700_000_000.0, "type": "XHR", "frameId": "F1",
            "request": {"url": "http://a/api/items", "method": "POST", "headers": {"X-Token": "t"}}}),
    )
    .await;
    fake.event(
        "Network.responseReceived",
        serde_json::json!({"requestId": "R1", "timestamp": 5.2,
            "response": {"status": 201, "statusText": "Created", "headers": {"Content-Type": "text/plain"}}}),
    )
    .await;
    let wait = Duration::from_secs(5);
    let Ok(Ok(Seen::Request(r))) = tokio::time::timeout(wait, request).await else {
        panic!("the request's waiter was told");
    };
    assert_eq!(
        (r.url(), r.method(), r.header("x-token")),
        ("http://a/api/items", "POST", Some("t"))
    );
    let Ok(Ok(Seen::Response(r))) = tokio::time::timeout(wait, response).await else {
        panic!("the response's waiter was told");
    };
    assert_eq!(
        (r.status(), r.status_text(), r.request().url()),
        (201, "Created", "http://a/api/items")
    );
    let (_, network) = page.step_log().peek(false);
    assert_eq!(network.len(), 1, "answered, still loading: {network:?}");
}

const PAGE: &str = "<title>log</title><script>
console.log('hello', 2, {a: 1});
console.warn('careful');
fetch('/missing').then(r => r.text()).then(() => console.log('fetched'));
fetch('http://127.0.0.1:1/refused').catch(() => console.log('refused'));
setTimeout(() => { throw new Error('boom'); }, 0);
</script>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_pages_console_and_network_become_entries() {
    let base = serve(&[("/", 200, PAGE)]).await;
    let mut page = RealPage::open().await;
    page.goto(&format!("{base}/")).await;
    let (mut net, log) = (NetLog::default(), StepLog::default());
    let (mut console, mut network): (Vec<ConsoleEntry>, Vec<NetworkEntry>) =
        (Vec::new(), Vec::new());
    let until = Instant::now() + Duration::from_secs(10);
    let done = |c: &[ConsoleEntry], n: &[NetworkEntry]| {
        ["fetched", "refused"]
            .iter()
            .all(|t| c.iter().any(|e| e.text == *t))
            && c.iter().any(|e| e.source == "javascript")
            && c.iter()
                .any(|e| e.source == "network" && e.text.contains("404"))
            && n.iter().any(|e| e.failure.is_some())
            && n.iter().filter(|e| e.status.is_some()).count() >= 2
    };
    while !done(&console, &network) && Instant::now() < until {
        let event = page.next_event().await;
        net.event(&event, &log);
        (console, network) = log.peek(false);
    }
    (console, network) = log.take().await;
    page.close().await;
    let texts: Vec<&str> = console.iter().map(|c| c.text.as_str()).collect();
    assert!(texts.contains(&"hello 2 Object"), "{console:#?}");
    let warn = console
        .iter()
        .find(|c| c.text == "careful")
        .expect("the warning");
    assert_eq!(
        (warn.level.as_str(), warn.source.as_str()),
        ("warning", "console-api")
    );
    assert_eq!(warn.url.as_deref(), Some(format!("{base}/").as_str()));
    assert!(warn.timestamp > 1_600_000_000_000, "{warn:?}");
    let thrown = console
        .iter()
        .find(|c| c.source == "javascript")
        .expect("the exception");
    assert_eq!(
        (thrown.level.as_str(), thrown.text.as_str()),
        ("error", "Uncaught Error: boom")
    );
    let failed_load = console
        .iter()
        .find(|c| c.source == "network" && c.text.contains("404"))
        .expect("the 404 in the step log");
    assert_eq!(failed_load.level, "error");
    let doc = network
        .iter()
        .find(|n| n.url == format!("{base}/"))
        .expect("the document");
    assert_eq!(
        (doc.status, doc.kind.as_str(), doc.method.as_str()),
        (Some(200), "Document", "GET")
    );
    let missing = network
        .iter()
        .find(|n| n.url.ends_with("/missing"))
        .expect("the fetch");
    assert_eq!(
        (missing.status, missing.kind.as_str()),
        (Some(404), "Fetch")
    );
    let refused = network
        .iter()
        .find(|n| n.url.ends_with("/refused"))
        .expect("the refused fetch");
    assert_eq!(refused.status, None);
    assert!(
        refused
            .failure
            .as_deref()
            .is_some_and(|f| f.starts_with("net::ERR_")),
        "{refused:?}"
    );
}

/// A request the page gave up (`canceled`: a navigation away from it, as
/// Chromium's own console writes nothing for it) is in the network with its
/// failure and is no console error; one that failed is an error.
#[tokio::test]
async fn a_canceled_request_is_no_console_error() {
    let (mut net, log) = (NetLog::default(), StepLog::default());
    let event = |method: &str, params: serde_json::Value| Received {
        method: method.to_string(),
        params: RawValue::from_string(params.to_string()).expect("JSON"),
    };
    let sent = |id: &str, url: &str| {
        event(
            "Network.requestWillBeSent",
            serde_json::json!({"requestId": id, "loaderId": "L1", "frameId": "F1",
                "type": "Fetch", "timestamp": 1.0, "wallTime": 1000.0,
                "request": {"url": url, "method": "GET", "headers": {}}}),
        )
    };
    let failed = |id: &str, canceled: bool| {
        event(
            "Network.loadingFailed",
            serde_json::json!({"requestId": id, "timestamp": 1.5,
                "errorText": "net::ERR_ABORTED", "canceled": canceled}),
        )
    };
    let events = [
        sent("1", "http://a/gone"),
        failed("1", true),
        sent("2", "http://a/broken"),
        failed("2", false),
    ];
    assert_eq!(feed(&mut net, &log, &events), 4);
    let (console, network) = log.take().await;
    let texts: Vec<(&str, Option<&str>)> = console
        .iter()
        .map(|c| (c.level.as_str(), c.url.as_deref()))
        .collect();
    assert_eq!(texts, [("error", Some("http://a/broken"))], "{console:?}");
    let failures: Vec<(&str, Option<&str>)> = network
        .iter()
        .map(|n| (n.url.as_str(), n.failure.as_deref()))
        .collect();
    assert_eq!(
        failures,
        [
            ("http://a/gone", Some("net::ERR_ABORTED")),
            ("http://a/broken", Some("net::ERR_ABORTED"))
        ]
    );
}
