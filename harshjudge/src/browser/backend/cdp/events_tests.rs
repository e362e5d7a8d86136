//! Console and network events, as a real Chromium sends them, into entries:
//! recorded (`log_events.jsonl`: what Chromium 156 sent for [`PAGE`], the
//! headers left out) and live.

use std::time::{Duration, Instant};

use serde_json::value::RawValue;

use super::super::connection::Received;
use super::super::testing::{RealPage, serve};
use super::PageLog;

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

#[test]
fn recorded_events_become_the_entries_of_the_devtools_log() {
    let mut log = PageLog::default();
    let events = recorded();
    let mine = events.iter().filter(|e| log.event(e)).count();
    // The others (ExtraInfo, dataReceived, contexts) are left to others.
    assert_eq!(mine, 19, "of {}", events.len());
    assert_eq!(log.in_flight(), 0);
    let (peeked, _) = log.peek(true);
    let (console, network) = log.take();
    assert_eq!(peeked, console, "peek leaves what take gives");
    let rows: Vec<(&str, &str, &str, Option<u64>)> = console
        .iter()
        .map(|c| (c.level.as_str(), c.source.as_str(), c.text.as_str(), c.line))
        .collect();
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
    assert_eq!(console[0].url.as_deref(), Some("http://127.0.0.1:46301/"));
    assert_eq!(
        console[3].url.as_deref(),
        Some("http://127.0.0.1:1/refused")
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

#[test]
fn a_request_answered_but_still_loading_is_taken_with_its_step() {
    let mut log = PageLog::default();
    let events = recorded();
    // Up to the 404 of /missing, before its loadingFinished.
    let cut = events
        .iter()
        .position(|e| e.method == "Network.responseReceived" && e.params.get().contains("/missing"))
        .expect("the 404");
    for e in &events[..=cut] {
        log.event(e);
    }
    assert_eq!(log.in_flight(), 2, "/missing answered, the favicon not yet");
    let (_, unanswered) = log.peek(true);
    let (_, answered) = log.peek(false);
    assert_eq!(unanswered.len(), answered.len() + 1);
    let (_, network) = log.take();
    assert!(
        network
            .iter()
            .any(|n| n.url.ends_with("/missing") && n.timing.is_none())
    );
    assert_eq!(log.in_flight(), 1, "the favicon stays for the next take");
    for e in &events[cut + 1..] {
        log.event(e);
    }
    let (_, later) = log.take();
    let urls: Vec<&str> = later.iter().map(|n| n.url.as_str()).collect();
    assert_eq!(
        urls,
        ["http://127.0.0.1:46301/favicon.ico"],
        "/missing's end ignored"
    );
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
    let mut log = PageLog::default();
    let (mut console, mut network) = (Vec::new(), Vec::new());
    let until = Instant::now() + Duration::from_secs(10);
    let done = |c: &[crate::browser::logs::ConsoleEntry],
                n: &[crate::browser::logs::NetworkEntry]| {
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
        log.event(&event);
        let (c, n) = log.take();
        console.extend(c);
        network.extend(n);
    }
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
        .expect("the 404 in the browser log");
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
