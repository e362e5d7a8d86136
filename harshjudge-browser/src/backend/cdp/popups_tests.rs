//! Popups: through a fake browser's root (a popup of the page to its
//! watch, initialised) and a real Chromium (a `target=_blank` link).

use std::time::Duration;

use serde_json::json;

use super::super::context::CdpBrowser;
use super::super::page::PageOptions;
use super::super::tests::Fake;

fn attached(session: &str, target: &str, opener: Option<&str>) -> serde_json::Value {
    let mut info = json!({"targetId": target, "type": "page", "url": "about:blank",
        "browserContextId": "C1"});
    if let Some(o) = opener {
        info["openerId"] = json!(o);
    }
    json!({"method": "Target.attachedToTarget", "params": {"sessionId": session,
        "waitingForDebugger": true, "targetInfo": info}})
}

/// A page's popup goes, initialised, to the watch armed before; a popup
/// nobody watches is initialised all the same (it runs).
#[tokio::test]
async fn a_popup_of_the_page_reaches_its_watch_initialised() {
    let (connection, mut fake) = Fake::connect("");
    let browser = CdpBrowser::over(None, connection, PageOptions::default());
    let answer = async {
        let c = fake.expect("Target.setAutoAttach").await;
        fake.answer(&c["id"], json!({})).await;
    };
    let (browser, ()) = tokio::join!(browser, answer);
    let browser = browser.expect("a browser");
    let context = browser.new_context();
    let answer = async {
        let c = fake.expect("Target.createBrowserContext").await;
        fake.answer(&c["id"], json!({"browserContextId": "C1"}))
            .await;
    };
    let (context, ()) = tokio::join!(context, answer);
    let context = context.expect("a context");
    let page = context.new_page();
    let answer = async {
        let c = fake.expect("Target.createTarget").await;
        fake.answer(&c["id"], json!({"targetId": "T1"})).await;
        fake.send(attached("S1", "T1", None)).await;
        fake.answer_init().await;
    };
    let (page, ()) = tokio::join!(page, answer);
    let page = page.expect("a page");

    let mut watch = page.watch_popups();
    fake.send(attached("S2", "T2", Some("T1"))).await;
    let answer = async {
        let first = fake.command().await;
        assert_eq!(first["sessionId"], "S2", "the popup's init: {first}");
        fake.answer(&first["id"], json!({})).await;
        for _ in 0..11 {
            let c = fake.command().await;
            let result = match c["method"].as_str() {
                Some("Page.getFrameTree") => {
                    json!({"frameTree": {"frame": {"id": "T2", "loaderId": "L", "url": "about:blank"}}})
                }
                Some("Page.addScriptToEvaluateOnNewDocument") => json!({"identifier": "1"}),
                _ => json!({}),
            };
            fake.answer(&c["id"], result).await;
        }
    };
    let (popup, ()) = tokio::join!(watch.next(Duration::from_secs(5)), answer);
    let popup = popup.expect("the popup");
    assert_eq!(popup.target().0, "T2");
    assert_eq!(popup.id(), "S2");

    drop(watch);
    fake.send(attached("S3", "T3", Some("T1"))).await;
    // Initialised though nobody watches: its init comes.
    let c = fake.command().await;
    assert_eq!(c["sessionId"], "S3");
    let none = page.watch_popups().next(Duration::from_millis(100)).await;
    assert!(none.is_err(), "{none:?}");
}

/// A real Chromium: a `target=_blank` link clicked opens a popup, which
/// loads its page and closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_link_opens_a_popup_that_closes() {
    use super::super::connection::{CdpError, Gone};
    use super::super::page::PageError;
    use super::super::testing::{click_at, real_page, serve_pages};
    let base = serve_pages(&[
        (
            "/",
            "",
            "<a href='/popped' target='_blank' style='position:absolute;left:0;top:0;width:100px;height:40px;display:block'>open</a>",
        ),
        ("/popped", "", "<title>Popped</title><h1>popup</h1>"),
    ])
    .await;
    let (browser, _context, page) = real_page().await;
    page.navigate(&format!("{base}/")).await.expect("loaded");
    let mut watch = page.watch_popups();
    page.perform(&click_at(20, 20)).await.expect("clicked");
    let popup = watch.next(Duration::from_secs(10)).await.expect("a popup");
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while popup.title().await.ok().as_deref() != Some("Popped") && std::time::Instant::now() < until
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(popup.url().await.expect("url"), format!("{base}/popped"));
    assert_eq!(popup.title().await.expect("title"), "Popped");
    popup.close().await.expect("closed");
    tokio::time::sleep(Duration::from_millis(200)).await;
    match popup.evaluate("1").await {
        Err(PageError::Cdp(CdpError::Lost {
            gone: Gone::PageClosed,
            ..
        })) => {}
        other => panic!("expected the popup closed, got {other:?}"),
    }
    assert_eq!(page.evaluate("1 + 1").await.expect("alive"), json!(2));
    browser.close().await;
}
