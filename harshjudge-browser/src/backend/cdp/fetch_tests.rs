//! Routes over `Fetch`, against a fake browser (the commands a route's
//! verdicts become) and a real Chromium (a fetch and a navigation routed).

use std::time::Duration;

use base64::Engine as _;
use serde_json::json;

use super::super::testing::fake_page;
use crate::error::BrowserError;
use crate::glob::UrlPattern;
use crate::routes::Response;

fn paused(id: &str, url: &str) -> serde_json::Value {
    json!({"requestId": id, "networkId": format!("N-{id}"), "frameId": "F1",
        "resourceType": "Fetch",
        "request": {"url": url, "method": "GET", "headers": {"Accept": "*/*"}}})
}

/// `Fetch` pauses every request while a route exists and only the
/// challengeable ones (documents, scripts' requests) after the last; a paused
/// request a route fulfills becomes `Fetch.fulfillRequest` (status, phrase,
/// headers, body in base64); one no route matches continues unchanged; a
/// route that continues with a header sends the request's headers changed.
#[tokio::test]
async fn routes_turn_fetch_on_and_their_verdicts_become_fetch_commands() {
    let (page, mut fake) = fake_page().await;
    let route = page.route(
        UrlPattern::from("**/api/items"),
        "http://a",
        |route| async move {
            route
                .fulfill(Response::new().status(201).json(&["x"]))
                .await
        },
    );
    let browser = async {
        let a = fake.command().await;
        let b = fake.command().await;
        let mut methods = [a["method"].clone(), b["method"].clone()];
        methods.sort_by_key(|m| m.to_string());
        assert_eq!(
            methods,
            [json!("Fetch.enable"), json!("Network.setCacheDisabled")]
        );
        let enable = if a["method"] == "Fetch.enable" {
            &a
        } else {
            &b
        };
        assert_eq!(
            enable["params"]["patterns"],
            json!([{"urlPattern": "*", "requestStage": "Request"}])
        );
        fake.answer(&a["id"], json!({})).await;
        fake.answer(&b["id"], json!({})).await;
    };
    let (routed, ()) = tokio::join!(route, browser);
    routed.expect("routed");

    fake.event("Fetch.requestPaused", paused("I1", "http://a/api/items"))
        .await;
    let c = fake.expect("Fetch.fulfillRequest").await;
    assert_eq!(c["params"]["requestId"], "I1");
    assert_eq!(c["params"]["responseCode"], 201);
    assert_eq!(c["params"]["responsePhrase"], "Created");
    assert_eq!(
        c["params"]["responseHeaders"],
        json!([{"name": "Content-Type", "value": "application/json"},
            {"name": "Content-Length", "value": "5"}])
    );
    let body = base64::engine::general_purpose::STANDARD
        .decode(c["params"]["body"].as_str().expect("a body"))
        .expect("base64");
    assert_eq!(body, b"[\"x\"]");
    fake.answer(&c["id"], json!({})).await;

    fake.event("Fetch.requestPaused", paused("I2", "http://a/other"))
        .await;
    let c = fake.expect("Fetch.continueRequest").await;
    assert_eq!(c["params"], json!({"requestId": "I2"}));
    fake.answer(&c["id"], json!({})).await;

    let pattern = UrlPattern::from("**/api/items");
    let unroute = page.unroute(&pattern);
    let browser = async {
        for _ in 0..2 {
            let c = fake.command().await;
            if c["method"] == "Fetch.enable" {
                let types: Vec<_> = (c["params"]["patterns"].as_array())
                    .expect("patterns")
                    .iter()
                    .map(|p| p["resourceType"].clone())
                    .collect();
                assert_eq!(
                    types,
                    [
                        json!("Document"),
                        json!("XHR"),
                        json!("Fetch"),
                        json!("EventSource")
                    ]
                );
                assert_eq!(c["params"]["handleAuthRequests"], true);
            } else {
                assert_eq!(c["method"], "Network.setCacheDisabled", "{c}");
                assert_eq!(c["params"]["cacheDisabled"], false);
            }
            fake.answer(&c["id"], json!({})).await;
        }
    };
    let (removed, ()) = tokio::join!(unroute, browser);
    assert_eq!(removed.expect("unrouted"), 1);
    assert!(page.routes().is_empty());
}

/// A continue with a header changed; an abort; a verdict that comes after
/// its routes are done (the handler settles it in a task of its own) fails
/// its call at once with an error saying so, and the request continued.
#[tokio::test]
async fn continue_abort_and_a_late_verdict() {
    let (page, mut fake) = fake_page().await;
    let (late_tx, late_rx) = tokio::sync::oneshot::channel::<Result<(), BrowserError>>();
    let late_tx = std::sync::Mutex::new(Some(late_tx));
    page.routes()
        .add("**/late".into(), "http://a", move |route| {
            let tx = late_tx.lock().unwrap().take();
            async move {
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    let r = route.abort().await;
                    if let Some(tx) = tx {
                        let _ = tx.send(r);
                    }
                });
                Ok(())
            }
        });
    page.routes()
        .add("**/gone".into(), "http://a", |route| async move {
            route.abort().await
        });
    page.routes()
        .add("**/changed".into(), "http://a", |route| async move {
            route.continue_().header("accept", "text/plain").await
        });
    fake.event("Fetch.requestPaused", paused("I1", "http://a/changed"))
        .await;
    let c = fake.expect("Fetch.continueRequest").await;
    assert_eq!(
        c["params"]["headers"],
        json!([{"name": "accept", "value": "text/plain"}])
    );
    fake.answer(&c["id"], json!({})).await;
    fake.event("Fetch.requestPaused", paused("I2", "http://a/gone"))
        .await;
    let c = fake.expect("Fetch.failRequest").await;
    assert_eq!(
        c["params"],
        json!({"requestId": "I2", "errorReason": "Failed"})
    );
    fake.answer(&c["id"], json!({})).await;
    fake.event("Fetch.requestPaused", paused("I3", "http://a/late"))
        .await;
    let c = fake.expect("Fetch.continueRequest").await;
    assert_eq!(c["params"]["requestId"], "I3");
    fake.answer(&c["id"], json!({})).await;
    let late = tokio::time::timeout(Duration::from_secs(5), late_rx)
        .await
        .expect("no wait")
        .expect("told");
    let e = late.expect_err("the late verdict fails").to_string();
    assert!(e.contains("no longer answers"), "{e}");
}

/// A real Chromium: a fetch fulfilled by a route (marked in the step log),
/// a navigation fulfilled by one, an aborted fetch, and once unrouted the
/// server answers again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_pages_fetch_and_navigation_are_routed() {
    use super::super::testing::{real_page, serve_pages};
    let base = serve_pages(&[("/", "", "<title>Home</title>")]).await;
    let (browser, _context, page) = real_page().await;
    page.navigate(&format!("{base}/")).await.expect("loaded");
    page.route(
        UrlPattern::from("**/api/items"),
        &base,
        |route| async move { route.fulfill(Response::new().json(&["stubbed"])).await },
    )
    .await
    .expect("routed");
    page.route(UrlPattern::from("**/gone"), &base, |route| async move {
        route.abort().await
    })
    .await
    .expect("routed");
    page.route(UrlPattern::from("**/made-up"), &base, |route| async move {
        route
            .fulfill(
                Response::new()
                    .content_type("text/html")
                    .body("<title>Made up</title><h1>routed</h1>"),
            )
            .await
    })
    .await
    .expect("routed");
    let _ = page.take_console_network().await;
    let fetched = page
        .evaluate("fetch('/api/items').then(r => r.status + ' ' + r.statusText + ' ' + r.headers.get('content-type')).then(async h => h)")
        .await
        .expect("fetched");
    assert_eq!(fetched, json!("200 OK application/json"));
    let body = page
        .evaluate("fetch('/api/items').then(r => r.text())")
        .await
        .expect("fetched");
    assert_eq!(body, json!("[\"stubbed\"]"));
    let aborted = page
        .evaluate("fetch('/gone').then(() => 'answered', e => 'failed: ' + e.name)")
        .await
        .expect("settled");
    assert_eq!(aborted, json!("failed: TypeError"));
    let (_, network) = page.take_console_network().await;
    let marks: Vec<(&str, Option<&str>)> = network
        .iter()
        .map(|n| {
            (
                n.url.rsplit('/').next().unwrap_or(""),
                n.intercepted.as_deref(),
            )
        })
        .collect();
    assert!(marks.contains(&("items", Some("fulfilled"))), "{marks:?}");
    assert!(marks.contains(&("gone", Some("aborted"))), "{marks:?}");

    page.navigate(&format!("{base}/made-up"))
        .await
        .expect("the routed document loads");
    assert_eq!(page.title().await.expect("title"), "Made up");

    for pattern in ["**/api/items", "**/gone", "**/made-up"] {
        page.unroute(&UrlPattern::from(pattern))
            .await
            .expect("unrouted");
    }
    assert!(
        !*page.fetch_on.lock().await,
        "Fetch is off with the last route"
    );
    page.navigate(&format!("{base}/")).await.expect("loaded");
    let status = page
        .evaluate("fetch('/api/items').then(r => r.status)")
        .await
        .expect("fetched");
    assert_eq!(status, json!(404), "the server answers again");
    browser.close().await;
}
