//! Evidence of a page whose document is still arriving: its HTML is read once
//! the document is parsed, not in the moment between the navigation's commit
//! and its first bytes, when the document is empty. Issue 38's soak met that
//! moment under load: a step failing right after a click onto a routed
//! document left an empty `page.html` on Chromium in 3 of 50 runs of
//! `routed_reads`. Here the server holds the body a second: the document
//! commits with the response's headers and stays empty until the body comes.
//! The failure evidence's reads (`PageProbe::on_failure`): `until_parsed`,
//! then the HTML and the ARIA snapshot together.

use crate::support::browsers;
use std::io::{BufReader, Write};
use std::time::Duration;

use harshjudge::browser::{BrowserConfig, BrowserKind, Page};

/// How long `/late` holds its body after its headers.
const HOLD: Duration = Duration::from_millis(1000);

/// `/start` (a page), `/late` (its headers at once, its body after [`HOLD`]).
fn answer(stream: std::net::TcpStream) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let path = crate::support::next_request_path(&mut BufReader::new(stream))?;
    match path.as_deref() {
        Some("/start") => crate::support::respond(
            &mut out,
            "200 OK",
            "text/html",
            "<!doctype html><title>start</title><p>the start page</p>",
        ),
        Some("/late") => {
            let body = "<!doctype html><title>late</title><p id=\"late\">the late body</p>";
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\r\n",
                body.len()
            )?;
            out.flush()?;
            std::thread::sleep(HOLD);
            out.write_all(body.as_bytes())?;
            out.flush()
        }
        _ => crate::support::respond(&mut out, "404 Not Found", "text/plain", ""),
    }
}

/// A page of `browser` whose script has just taken it to `/late`: the URL
/// is `/late`'s (the navigation committed) and its body has not come.
async fn committed_to_late(browser: BrowserKind) -> Page {
    let base = crate::support::serve_with(answer);
    let mut config = BrowserConfig::from_env().expect("browser settings");
    config.webdriver_url = None;
    let page = browsers()
        .open_page_with(&config.for_browser(browser), &base)
        .await
        .unwrap_or_else(|e| panic!("a {browser:?} page: {e}"));
    page.goto("/start").await.unwrap();
    page.eval("setTimeout(() => { location.href = '/late'; }, 0); return 1;")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    while !page.url().await.is_ok_and(|u| u.ends_with("/late")) {
        assert!(
            started.elapsed() < HOLD,
            "{browser:?}: the navigation to /late did not commit within {HOLD:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    page
}

/// What a failed step's evidence reads of a page committed to `/late`: its
/// HTML and its ARIA snapshot, of the late document.
async fn failure_evidence_is_of_the_late_document(browser: BrowserKind) {
    let page = committed_to_late(browser).await;
    page.until_parsed().await;
    let (html, aria) = tokio::join!(page.page_html(), page.aria_snapshot());
    let (html, aria) = (html.unwrap(), aria.unwrap());
    assert!(
        html.contains("the late body"),
        "{browser:?}: page.html of a document whose body was still arriving: {html:?}"
    );
    assert!(
        aria.contains("the late body"),
        "{browser:?}: the ARIA snapshot of a document whose body was still arriving: {aria:?}"
    );
    browsers().release(page).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failure_html_waits_for_a_document_still_arriving_on_chromium() {
    failure_evidence_is_of_the_late_document(BrowserKind::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failure_html_waits_for_a_document_still_arriving_on_firefox() {
    failure_evidence_is_of_the_late_document(BrowserKind::Firefox).await;
}
