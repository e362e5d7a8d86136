//! The WebDriver BiDi backend: a page of a WebDriver session whose remote end
//! returned `webSocketUrl` (Firefox; chromedriver; a Selenium Grid node that
//! passes BiDi through). Once the session exists, every command of the page
//! goes over its BiDi connection ([`Bidi`]): navigation
//! (`browsingContext.navigate` with `wait: complete`, `reload`,
//! `traverseHistory`), the engine's calls (`script.callFunction`, the frame
//! walk of `walk.rs` over browsing contexts), input (`input.performActions`),
//! files (`input.setFiles`), screenshots, the viewport, cookies (`storage.*`
//! in the page's user context), routes, dialogs, downloads, popups (new
//! top-level contexts) and `close`. No classic command is sent between two
//! of its commands, so nothing the remote end serves in its classic order
//! (chromedriver's load waits) can hold back a route's answer.
//!
//! [`page`]: the [`PageBackend`](super::PageBackend) implementation; [`state`]:
//! cookies, other origins' storage, downloads, popups, `page.cdp`.

mod emulate;
mod page;
mod state;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use fantoccini::Client;
use serde_json::Value;

use super::walk::{CallFailure, Returned, Scopes};
use crate::backend::webdriver::session::Session;
use crate::bidi::Bidi;
use crate::config::BrowserKind;
use crate::engine::FRAME_OFFSET_JS;
use crate::error::BrowserError;
use crate::protocol::FrameScope;
use crate::wire::{self, BidiReturns};

/// A page of a WebDriver session spoken to over BiDi alone.
pub(crate) struct BidiPage {
    /// The session's classic client: its id, `Page::client()`, and its end.
    client: Client,
    /// The session, while the page holds it (none: a popup's page, or taken
    /// back by `Browsers::release`).
    session: Mutex<Option<Session>>,
    bidi: Arc<Bidi>,
    /// This page's top-level browsing context (a popup's own).
    context: String,
    /// Whether the page is a popup's (only those close).
    popup: bool,
    browser: BrowserKind,
    /// What it emulates (`emulate.rs`), shared with its popups.
    emulation: Arc<Mutex<crate::emulation::Emulation>>,
}

impl BidiPage {
    /// The BiDi connection of `session` and its current top-level context,
    /// when it has both (its page then speaks BiDi).
    pub(crate) fn offered(session: &Session) -> Option<(Arc<Bidi>, String)> {
        let bidi = session.bidi.clone()?;
        let context = bidi.context.lock().expect("bidi lock").clone()?;
        Some((bidi, context))
    }

    /// The page of `session` over `bidi` in `context` ([`BidiPage::offered`]).
    pub(crate) fn new(session: Session, bidi: Arc<Bidi>, context: String) -> BidiPage {
        // What the browser was launched with is the page's from the start.
        let emulation = Arc::new(Mutex::new(session.launched.clone()));
        BidiPage {
            client: session.client.clone(),
            browser: session.browser,
            session: Mutex::new(Some(session)),
            bidi,
            context,
            popup: false,
            emulation,
        }
    }

    /// The page of a popup `context` this page's session opened.
    fn popup_page(&self, context: String) -> BidiPage {
        BidiPage {
            client: self.client.clone(),
            session: Mutex::new(None),
            bidi: self.bidi.clone(),
            context,
            popup: true,
            browser: self.browser,
            emulation: self.emulation.clone(),
        }
    }

    /// The session, taken back (for the pool).
    pub(crate) fn take_session(&self) -> Option<Session> {
        self.session.lock().expect("session lock").take()
    }

    /// What a new session needs once: the engine a preload script of it.
    pub(crate) async fn prepare_session(&self) -> Result<(), BrowserError> {
        self.bidi.ensure_preload(wire::install_source()).await;
        Ok(())
    }

    /// How long a script of `evaluate` or `eval` may run.
    fn script_limit(&self) -> Duration {
        Duration::from_secs(60)
    }

    /// Waits until a navigation under way has its document: a read after
    /// it reads the document the navigation brings ([`Bidi::settle`]).
    async fn settle(&self) {
        self.bidi.settle(&self.context).await;
    }
}

/// The engine's calls over BiDi: a scope is a browsing context (a frame's
/// own), an element a node's shared id with its context.
impl Scopes for BidiPage {
    type Scope = String;
    type Element = (String, String);

    fn top(&self) -> String {
        self.context.clone()
    }

    async fn call_in(
        &self,
        scope: &String,
        request: &str,
        returns: BidiReturns,
        wait: Duration,
    ) -> Result<Returned<(String, String)>, CallFailure> {
        self.bidi.ensure_preload(wire::install_source()).await;
        // The engine answers by its own timeout; the page gets 15 s more.
        let limit = wait + Duration::from_secs(15);
        let during = "calling the page's engine";
        let call = |full| {
            self.bidi.call_function(
                scope,
                wire::bidi_function(full, returns),
                request,
                limit,
                during,
            )
        };
        let mut r = call(false).await;
        if matches!(&r, Ok(v) if v["missing"] == true) {
            r = call(true).await;
        }
        match r {
            Err(e) if wire::is_navigation(&e) => Err(CallFailure::Navigated),
            Err(e) => Err(CallFailure::Failed(e)),
            Ok(v) => match v["node"].as_str() {
                Some(node) => Ok(Returned::Element((scope.clone(), node.to_string()))),
                None => Ok(Returned::Answer(v)),
            },
        }
    }

    async fn frame_scope(
        &self,
        iframe: (String, String),
        frame: &FrameScope,
    ) -> Result<String, CallFailure> {
        let (context, node) = iframe;
        let during = format!("entering the frame {}", frame.desc);
        match self.bidi.content_context(&context, &node, &during).await {
            Ok(Some(inner)) => Ok(inner),
            Ok(None) => Err(CallFailure::Failed(BrowserError::Invalid {
                message: format!(
                    "{} matches an element that is not a frame (an <iframe> or <frame> is needed)",
                    frame.desc
                ),
                location: None,
            })),
            Err(e) if wire::is_navigation(&e) => Err(CallFailure::Navigated),
            Err(e) => Err(CallFailure::Failed(e)),
        }
    }

    async fn frame_offset(&self, scope: &String) -> Result<(f64, f64), BrowserError> {
        let offset: Value = self
            .bidi
            .call_function(
                scope,
                &format!(
                    "function () {{ return JSON.stringify((function () {{ {FRAME_OFFSET_JS} }})()); }}"
                ),
                "",
                Duration::from_secs(30),
                "reading the frame's offset in the page",
            )
            .await?;
        Ok((
            offset[0].as_f64().unwrap_or(0.0),
            offset[1].as_f64().unwrap_or(0.0),
        ))
    }
}
