//! The page API against the demo app in real headless Chromium (through a
//! chromedriver that the library starts), plus the remote-WebDriver mode.

use crate::support::browsers;
use std::time::{Duration, Instant};

use crate::support::chromedriver;
mod ahead;
mod lost;
mod owners;
mod sizes;
mod viewport;

use harshjudge::browser::{BrowserConfig, BrowserError, Page, expect};
use harshjudge::regex::Regex;

/// The process a `Browsers` owns for its local Chromium pages: its
/// Chromium over the DevTools protocol, else its chromedriver
/// (`HARSHJUDGE_CHROMIUM_PROTOCOL=webdriver`).
fn owned_process(b: &harshjudge::browser::Browsers) -> Option<u32> {
    b.local_browser()
        .or_else(|| b.local_driver().map(|(pid, _)| pid))
}

fn config() -> BrowserConfig {
    let mut c = BrowserConfig::from_env().expect("browser settings");
    c.webdriver_url = None;
    c
}

async fn page() -> (Page, String) {
    let base = demo_app::start_in_background().expect("demo app");
    let page = browsers()
        .open_page_with(&config(), &base)
        .await
        .expect("a browser page (needs chromium and chromium-driver)");
    (page, base)
}

fn png_size(b: &[u8]) -> (u32, u32) {
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    (
        u32::from_be_bytes(b[16..20].try_into().unwrap()),
        u32::from_be_bytes(b[20..24].try_into().unwrap()),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_call_and_locator() {
    let (page, base) = page().await;
    page.goto("/login").await.unwrap();
    assert_eq!(page.url().await.unwrap(), format!("{base}/login"));
    assert!(!page.title().await.unwrap().is_empty());
    assert!(
        page.html()
            .await
            .unwrap()
            .contains("data-testid=\"sign-in\"")
    );
    // Locators: CSS, testid=, text=, XPath.
    assert!(page.is_visible("#email").await.unwrap());
    assert!(page.is_visible("testid=sign-in").await.unwrap());
    assert!(page.is_visible("text=Sign in").await.unwrap());
    assert!(
        page.is_visible("//button[@data-testid='sign-in']")
            .await
            .unwrap()
    );
    assert!(
        page.is_visible("xpath=//input[@id='password']")
            .await
            .unwrap()
    );
    assert!(!page.is_visible("testid=nope").await.unwrap());
    assert_eq!(
        page.attribute("#email", "type").await.unwrap().as_deref(),
        Some("email")
    );
    // Two elements read "Sign in" (the heading and the button): strict, it says so.
    let err = page.text("text=Sign in").await.unwrap_err().to_string();
    assert!(err.contains("resolved to 2 elements"), "{err}");
    assert_eq!(page.text("//button[.='Sign in']").await.unwrap(), "Sign in");
    page.fill("#email", "ada@example.com").await.unwrap();
    page.fill("#password", "secret").await.unwrap();
    page.press("#password", "Enter").await.unwrap();
    expect(&page)
        .to_have_url(Regex::new("/dashboard").unwrap())
        .await
        .unwrap();
    expect(&page.locator("h1"))
        .to_have_text("Welcome, Ada")
        .await
        .unwrap();

    page.goto("/items").await.unwrap();
    page.wait_for("testid=item-list").await.unwrap();
    page.fill("testid=new-item", "saw").await.unwrap();
    page.select("testid=category", "tools").await.unwrap();
    page.check("testid=urgent", true).await.unwrap();
    assert_eq!(
        page.eval("return document.querySelector('[data-testid=urgent]').checked")
            .await
            .unwrap(),
        true
    );
    page.check("testid=urgent", false).await.unwrap();
    page.check("testid=urgent", true).await.unwrap();
    page.click("testid=add-item").await.unwrap();
    expect(&page.locator("testid=item-count"))
        .to_have_text("3 items")
        .await
        .unwrap();
    assert_eq!(page.eval("return 6 * 7").await.unwrap(), 42);

    let shot = page.screenshot().await.unwrap();
    let (w, h) = png_size(&shot);
    assert!(w >= 800 && h >= 400, "{w}x{h}");
    // A full-page capture covers what is below the fold.
    page.eval("document.body.style.height = '3000px'; return 1")
        .await
        .unwrap();
    let full = page.capture(true).await.unwrap();
    assert!(
        png_size(&full).1 >= 3000,
        "full page {:?} vs viewport {h}",
        png_size(&full)
    );
    browsers().release(page).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_wait_for_slow_elements_and_timeouts_say_what_was_found() {
    let (page, _) = page().await;
    page.goto("/slow?ms=1200").await.unwrap();
    let start = Instant::now();
    page.expect_visible("testid=slow-result").await.unwrap();
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_millis(900),
        "it waited for the element: {waited:?}"
    );
    expect(&page.locator("testid=slow-status"))
        .to_contain_text("Done")
        .await
        .unwrap();

    let quick = page.with_timeout(Duration::from_millis(300));
    let err = quick.click("testid=nope").await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, BrowserError::Timeout { .. }), "{msg}");
    assert!(
        msg.contains("\"testid=nope\"")
            && msg.contains("no element matches")
            && msg.contains("visible, enabled"),
        "{msg}"
    );
    let err = expect(&quick.locator("testid=slow-status"))
        .to_contain_text("Never")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("received: \"Done\"") && err.contains("to_contain_text(\"Never\")"),
        "{err}"
    );
    browsers().release(page).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn console_and_network_are_read_per_call() {
    let (page, _) = page().await;
    page.goto("/console").await.unwrap();
    expect(&page.locator("testid=data-message"))
        .to_contain_text("Hello from the API")
        .await
        .unwrap();
    let (console, network) = page.take_logs().await.unwrap();
    let texts: Vec<&str> = console.iter().map(|c| c.text.as_str()).collect();
    assert!(
        texts.contains(&"demo: page loaded") && texts.contains(&"demo: something failed"),
        "{texts:?}"
    );
    assert!(
        network
            .iter()
            .any(|n| n.url.ends_with("/api/data") && n.status == Some(200) && n.method == "GET"),
        "{network:?}"
    );
    page.click("testid=load-missing").await.unwrap();
    expect(&page.locator("testid=missing-status"))
        .to_contain_text("not found")
        .await
        .unwrap();
    let (_, network) = page.take_logs().await.unwrap();
    assert!(
        network.iter().all(|n| !n.url.ends_with("/api/data")),
        "only what happened since: {network:?}"
    );
    assert!(
        network
            .iter()
            .any(|n| n.url.ends_with("/api/missing") && n.status == Some(404)),
        "{network:?}"
    );
    browsers().release(page).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_reused_with_their_state_reset() {
    let base = demo_app::start_in_background().unwrap();
    let c = config();
    let t0 = Instant::now();
    let first = browsers().open_page_with(&c, &base).await.unwrap();
    let cold = t0.elapsed();
    // Over CDP the browser is reused, each page a new context of it; over
    // WebDriver the pooled session is.
    let cdp = c.chromium_protocol == harshjudge::browser::ChromiumProtocol::Cdp;
    let reused = |page_session: Option<String>| {
        if cdp {
            browsers().local_browser().map(|pid| pid.to_string())
        } else {
            page_session
        }
    };
    let id = reused(first.session_id().await);
    assert!(id.is_some(), "a browser or session to reuse");
    first.goto("/items").await.unwrap();
    first
        .eval("document.cookie = 'seen=1'; localStorage.setItem('k', 'v'); return 1")
        .await
        .unwrap();
    browsers().release(first).await;
    let t1 = Instant::now();
    let second = browsers().open_page_with(&c, &base).await.unwrap();
    let warm = t1.elapsed();
    assert_eq!(
        reused(second.session_id().await),
        id,
        "the browser (CDP) or the pooled session (WebDriver) is reused"
    );
    second.goto("/items").await.unwrap();
    assert_eq!(second.eval("return document.cookie").await.unwrap(), "");
    assert_eq!(
        second
            .eval("return localStorage.getItem('k')")
            .await
            .unwrap(),
        serde_json::Value::Null
    );
    // Printed, not asserted: which open is faster depends on what else the
    // machine does (a whole run's load once made the reused one 2.0 s and
    // the first 1.8 s); reuse itself is asserted above.
    eprintln!("session open: first {cold:?}, reused {warm:?}");
    browsers().release(second).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_webdriver_is_used_instead_of_a_local_chromedriver() {
    // A chromedriver started separately, as a Selenium Grid or remote host would be.
    let tmp = tempfile::tempdir().unwrap();
    let (driver, port) = chromedriver::spawn(std::path::Path::new("chromedriver"), &[], tmp.path());
    // Stopped however the test ends: a failed assertion left it running
    // (five chromedrivers of this session's failing runs were still up).
    let _driver = crate::support::KillOnDrop(driver);
    let mut c = config();
    c.webdriver_url = Some(format!("http://127.0.0.1:{port}"));
    let base = demo_app::start_in_background().unwrap();
    let page = browsers()
        .open_page_with(&c, &base)
        .await
        .expect("a page through the remote WebDriver");
    page.goto("/").await.unwrap();
    expect(&page.locator("h1"))
        .to_have_text("Demo App")
        .await
        .unwrap();
    assert_eq!(page.protocol(), "webdriver-bidi", "a remote end with BiDi");
    // Chromium's DevTools through chromedriver's `goog:cdp` over BiDi: the
    // escape hatch, and the storage of an origin the page has left.
    let three = page
        .cdp(
            "Runtime.evaluate",
            serde_json::json!({"expression": "1 + 2", "returnByValue": true}),
        )
        .await
        .expect("page.cdp through goog:cdp");
    assert_eq!(three["result"]["value"], 3, "{three}");
    crate::support::engines::left_origins_storage(&page, &base, true).await;
    // An iframe of another site takes input through the BiDi backend too
    // (chromium-bidi routes top-level input into it; its offset is read
    // from the page).
    let cross = crate::support::cross_site::serve();
    crate::support::cross_site::takes_clicks_keys_and_the_mouse(&page, &cross).await;
    page.client()
        .expect("a WebDriver session")
        .clone()
        .close()
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_storage_state_keeps_an_origin_the_page_left() {
    let (page, base) = page().await;
    crate::support::engines::left_origins_storage(&page, &base, true).await;
    browsers().release(page).await;
}

/// An origin the page left whose server is gone since has no localStorage to
/// read: the storage state leaves it out and keeps the rest (as the restore
/// skips an origin that answers no more), rather than failing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_origin_gone_since_is_left_out_of_the_storage_state() {
    use std::io::{Read, Write};
    let (page, base) = page().await;
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let gone = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = stop.clone();
    let server = std::thread::spawn(move || {
        while !stopped.load(std::sync::atomic::Ordering::SeqCst) {
            let Ok((mut c, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            c.set_nonblocking(false).unwrap();
            let mut buf = [0u8; 2048];
            let _ = c.read(&mut buf);
            let body = "<!doctype html><title>soon gone</title>";
            let _ = write!(
                c,
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    page.goto(&format!("{gone}/")).await.unwrap();
    page.evaluate::<(), _>("() => localStorage.setItem('lost', 'yes')", ())
        .await
        .unwrap();
    page.goto("/").await.unwrap();
    page.evaluate::<(), _>("() => localStorage.setItem('kept', 'yes')", ())
        .await
        .unwrap();
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    server.join().unwrap();
    let state = page.storage_state().await.expect("the state without it");
    let origins: Vec<&str> = state.origins.iter().map(|o| o.origin.as_str()).collect();
    assert_eq!(origins, [base.trim_end_matches('/')], "{state:?}");
    browsers().release(page).await;
}
