//! A document answered 401 with a `WWW-Authenticate` challenge that nobody
//! answers (no `http_credentials`, or credentials for another origin; with
//! and without a route) shows the server's 401 page, as a browser does
//! after its login prompt is dismissed and as Playwright does: `goto`
//! returns, the response seen is the 401, and the page shows its body.
//! On Chromium over the DevTools protocol and over chromedriver's BiDi, and
//! on Firefox. Not on WebKit: MiniBrowser opens its login dialog, which
//! classic WebDriver (WebKitWebDriver has no BiDi) has no command to
//! answer or cancel, so its `goto` waits until its limit (the guide's
//! capability table says so: docs/src/browsers.md).

use crate::support::browsers;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use harshjudge::browser::{BrowserConfig, BrowserKind, ChromiumProtocol, Emulation};
use serde_json::Value;

use crate::support;
use crate::support::engines::{chromium_cdp, config};

/// `/` a plain page, `/secret` always 401 with a Basic challenge and a body.
fn answer(stream: TcpStream) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut r = BufReader::new(stream);
    let mut line = String::new();
    r.read_line(&mut line)?;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 || h.trim_end().is_empty() {
            break;
        }
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/");
    let (status, extra, body) = match path {
        "/secret" => (
            "401 Unauthorized",
            "WWW-Authenticate: Basic realm=\"hj\"\r\n",
            "<p id=s>denied by the server</p>",
        ),
        "/favicon.ico" => ("404 Not Found", "", ""),
        _ => ("200 OK", "", "<p id=s>home</p>"),
    };
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n{extra}Content-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

/// The engines that can, each as its settings and a name for the messages.
fn engines() -> Vec<(&'static str, BrowserConfig)> {
    let mut bidi = config(BrowserKind::Chromium);
    bidi.chromium_protocol = ChromiumProtocol::WebDriver;
    vec![
        ("chromium over CDP", chromium_cdp()),
        ("chromium over BiDi", bidi),
        ("firefox", config(BrowserKind::Firefox)),
    ]
}

/// How a page is set up before `goto("/secret")`.
#[derive(Clone, Copy, Debug)]
enum Setup {
    Plain,
    OtherOriginsCredentials,
    Routed,
}

/// On a page set up as `setup`: a `fetch` of `/secret` answers 401, and
/// `goto("/secret")` returns, the response seen was the 401 and the page
/// shows the server's 401 body. A failure names what went wrong.
async fn shows_the_401(name: &str, settings: &BrowserConfig, base: &str, setup: Setup) {
    let mut settings = settings.clone();
    if let Setup::OtherOriginsCredentials = setup {
        let mut e = Emulation::new().http_credentials("user", "pass");
        if let Some(c) = e.http_credentials.as_mut() {
            c.origin = Some("http://127.0.0.1:1".into());
        }
        settings.emulation = e;
    }
    let page = browsers()
        .open_page_with(&settings, base)
        .await
        .unwrap_or_else(|e| panic!("{name}: opening: {e}"));
    if let Setup::Routed = setup {
        page.route(
            "**/elsewhere",
            |route| async move { route.continue_().await },
        )
        .await
        .unwrap_or_else(|e| panic!("{name}: route: {e}"));
    }
    page.goto("/")
        .await
        .unwrap_or_else(|e| panic!("{name} ({setup:?}): goto(/): {e}"));
    // A script's request (from the plain page): the 401.
    let status = tokio::time::timeout(
        Duration::from_secs(20),
        page.evaluate::<Value, _>("async () => (await fetch('/secret')).status", ()),
    )
    .await;
    let Ok(status) = status else {
        browsers().release(page).await;
        panic!("{name} ({setup:?}): fetch of a 401 hung");
    };
    let status = status.unwrap_or_else(|e| panic!("{name} ({setup:?}): fetch: {e}"));
    assert_eq!(status, 401, "{name} ({setup:?}): fetch's status");
    let response = page.wait_for_response("**/secret");
    let went = tokio::time::timeout(Duration::from_secs(20), async {
        tokio::join!(response, page.goto("/secret"))
    })
    .await;
    let Ok((response, went)) = went else {
        browsers().release(page).await;
        panic!("{name} ({setup:?}): goto to a 401 hung");
    };
    went.unwrap_or_else(|e| panic!("{name} ({setup:?}): goto: {e}"));
    let r = response.unwrap_or_else(|e| panic!("{name} ({setup:?}): the response: {e}"));
    assert_eq!(r.status(), 401, "{name} ({setup:?}): the response's status");
    let shown: Value = page
        .eval("return document.getElementById('s')?.textContent ?? document.documentElement?.outerHTML ?? 'no document'")
        .await
        .unwrap_or_else(|e| panic!("{name} ({setup:?}): reading the page: {e}"));
    assert_eq!(
        shown, "denied by the server",
        "{name} ({setup:?}): the server's 401 body is shown"
    );
    browsers().release(page).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_401_shows_the_servers_page_on_every_engine() {
    let base = support::serve_with(answer);
    let mut failed = Vec::new();
    for (name, settings) in engines() {
        for setup in [Setup::Plain, Setup::OtherOriginsCredentials, Setup::Routed] {
            let run = shows_the_401(name, &settings, &base, setup);
            let run = futures_util::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(run));
            if let Err(e) = run.await {
                failed.push(format!("- {}", support::panic_text(&*e)));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
