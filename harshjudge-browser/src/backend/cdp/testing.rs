//! For the tests of the page pieces against a real Chromium: a page in a
//! browser context of its own, and a tiny HTTP server on 127.0.0.1.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc::UnboundedReceiver;

use super::connection::{Connection, Received};
use super::launch::{Chromium, Endpoint, launch};
use super::protocol::{
    AttachToTarget, CreateBrowserContext, CreateTarget, Evaluate, Evaluated, LogEnable, Navigate,
    NetworkEnable, PageEnable, RuntimeEnable, SessionId,
};
use crate::config::BrowserConfig;

/// A page of a Chromium launched over the pipe, its session's page,
/// runtime, log and network events enabled.
pub(super) struct RealPage {
    chromium: Option<Chromium>,
    pub(super) connection: Connection,
    pub(super) session: SessionId,
    pub(super) events: UnboundedReceiver<Received>,
}

impl RealPage {
    pub(super) async fn open() -> RealPage {
        let config = BrowserConfig::from_env().expect("config");
        let launched = launch(&config, Endpoint::Pipe, None)
            .await
            .expect("Chromium starts");
        let connection = launched.connection;
        let context = connection
            .send(None, &CreateBrowserContext::default())
            .await
            .expect("a context")
            .browser_context_id;
        let target = connection
            .send(
                None,
                &CreateTarget {
                    url: "about:blank",
                    browser_context_id: Some(&context),
                },
            )
            .await
            .expect("a target")
            .target_id;
        let session = connection
            .send(
                None,
                &AttachToTarget {
                    target_id: &target,
                    flatten: true,
                },
            )
            .await
            .expect("attached")
            .session_id;
        let events = connection.events(Some(&session)).expect("its events");
        let s = Some(&session);
        let (a, b, c, d) = tokio::join!(
            connection.send(s, &PageEnable {}),
            connection.send(s, &RuntimeEnable {}),
            connection.send(s, &LogEnable {}),
            connection.send(s, &NetworkEnable::default()),
        );
        a.and(b).and(c).and(d).expect("enabled");
        RealPage {
            chromium: Some(launched.chromium),
            connection,
            session,
            events,
        }
    }

    /// Navigates to `url`.
    pub(super) async fn goto(&self, url: &str) {
        let navigated = self
            .connection
            .send(Some(&self.session), &Navigate { url })
            .await
            .expect("navigated");
        assert!(navigated.error_text.is_none(), "{navigated:?}");
    }

    /// Evaluates `expression` (by value) in the top document, or in `context`.
    pub(super) async fn evaluate(&self, expression: &str, context: Option<i64>) -> Evaluated {
        self.connection
            .send(
                Some(&self.session),
                &Evaluate {
                    expression,
                    await_promise: true,
                    return_by_value: true,
                    context_id: context,
                },
            )
            .await
            .expect("evaluated")
    }

    /// The next event of the session, within 10 s.
    pub(super) async fn next_event(&mut self) -> Received {
        tokio::time::timeout(Duration::from_secs(10), self.events.recv())
            .await
            .expect("an event within 10 s")
            .expect("the session's events go on")
    }

    /// Kills the browser.
    pub(super) async fn close(mut self) {
        if let Some(chromium) = self.chromium.take() {
            tokio::task::spawn_blocking(move || chromium.kill())
                .await
                .expect("killed");
        }
    }
}

/// Serves `pages` (path, status, HTML) on 127.0.0.1 until the runtime ends;
/// any other path is a 404. Returns `http://127.0.0.1:PORT`.
pub(super) async fn serve(pages: &'static [(&'static str, u16, &'static str)]) -> String {
    serve_with(move |path| {
        pages
            .iter()
            .find(|(p, _, _)| *p == path)
            .map(|(_, status, body)| Served {
                status: *status,
                headers: "",
                body,
                delay: Duration::ZERO,
            })
    })
    .await
}

/// One answer of [`serve_with`]'s server.
pub(super) struct Served {
    pub(super) status: u16,
    /// Extra header lines, each ending in `\r\n`.
    pub(super) headers: &'static str,
    /// HTML.
    pub(super) body: &'static str,
    /// How long the answer waits.
    pub(super) delay: Duration,
}

/// Serves what `answer` gives for a path (none: a 404) on 127.0.0.1 until
/// the runtime ends. Returns `http://127.0.0.1:PORT`.
pub(super) async fn serve_with(
    answer: impl Fn(&str) -> Option<Served> + Send + Sync + 'static,
) -> String {
    let answer = std::sync::Arc::new(answer);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let base = format!("http://{}", listener.local_addr().expect("its address"));
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&request);
                let path = text.split_whitespace().nth(1).unwrap_or("/").to_string();
                let served = answer(&path).unwrap_or(Served {
                    status: 404,
                    headers: "",
                    body: "not found",
                    delay: Duration::ZERO,
                });
                tokio::time::sleep(served.delay).await;
                let response = format!(
                    "HTTP/1.1 {} X\r\ncontent-type: text/html\r\n{}content-length: {}\r\nconnection: close\r\n\r\n{}",
                    served.status,
                    served.headers,
                    served.body.len(),
                    served.body
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    base
}

/// A [`CdpPage`](super::page::CdpPage) of session `S1` (target `T1`, main
/// frame `F1`) over a fake browser ([`super::tests::Fake`]), its init
/// answered; the fake then sees only what the test does.
pub(super) async fn fake_page() -> (super::page::CdpPage, super::tests::Fake) {
    use serde_json::json;
    let (connection, mut fake) = super::tests::Fake::connect("");
    let attached: super::protocol::AttachedToTarget = serde_json::from_value(json!({
        "sessionId": "S1", "waitingForDebugger": true,
        "targetInfo": {"targetId": "T1", "type": "page", "url": "about:blank",
            "browserContextId": "C1"}
    }))
    .expect("an attachment");
    let connection = std::sync::Arc::new(connection);
    let page = super::page::CdpPage::attach(connection, attached, Default::default());
    let browser = fake.answer_init();
    let (page, ()) = tokio::time::timeout(Duration::from_secs(10), async {
        tokio::join!(page, browser)
    })
    .await
    .expect("the init within 10 s");
    let page = page.expect("the page");
    (page.rooted(Default::default(), Default::default()), fake)
}

impl super::tests::Fake {
    /// Answers the 12 commands of a page's init (`CdpPage::attach`), its
    /// main frame `F1`.
    pub(super) async fn answer_init(&mut self) {
        use serde_json::json;
        for _ in 0..12 {
            let c = self.command().await;
            let result = match c["method"].as_str() {
                Some("Page.getFrameTree") => {
                    json!({"frameTree": {"frame": {"id": "F1", "loaderId": "L1", "url": "about:blank"}}})
                }
                Some("Page.addScriptToEvaluateOnNewDocument") => json!({"identifier": "1"}),
                _ => json!({}),
            };
            self.answer(&c["id"], result).await;
        }
    }

    /// Sends the event `method` with `params` on session `S1`.
    pub(super) async fn event(&mut self, method: &str, params: serde_json::Value) {
        self.send(serde_json::json!({"method": method, "sessionId": "S1", "params": params}))
            .await;
    }

    /// The next command, within 10 s, which must be `method`.
    pub(super) async fn expect(&mut self, method: &str) -> serde_json::Value {
        let c = tokio::time::timeout(Duration::from_secs(10), self.command())
            .await
            .unwrap_or_else(|_| panic!("{method} within 10 s"));
        assert_eq!(c["method"], method, "{c}");
        c
    }
}

/// A Chromium launched over the pipe as the backend launches it, and a page
/// in a context of its own.
pub(super) async fn real_page() -> (
    super::context::CdpBrowser,
    super::context::CdpContext,
    super::page::CdpPage,
) {
    let config = BrowserConfig::from_env().expect("config");
    let browser = super::context::CdpBrowser::launch(&config, None)
        .await
        .expect("Chromium starts");
    let context = browser.new_context().await.expect("a context");
    let page = context.new_page().await.expect("a page");
    (browser, context, page)
}

/// Serves `pages` (path, extra header lines, HTML) with status 200.
pub(super) async fn serve_pages(
    pages: &'static [(&'static str, &'static str, &'static str)],
) -> String {
    serve_with(move |path| {
        pages
            .iter()
            .find(|(p, _, _)| *p == path)
            .map(|(_, headers, body)| Served {
                status: 200,
                headers,
                body,
                delay: Duration::ZERO,
            })
    })
    .await
}

/// A mouse click at (`x`, `y`) as W3C actions (a user gesture for the page).
pub(super) fn click_at(x: u32, y: u32) -> serde_json::Value {
    serde_json::json!([{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
        "actions": [{"type": "pointerMove", "x": x, "y": y},
                    {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}])
}
