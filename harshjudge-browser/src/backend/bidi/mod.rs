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
mod input;
mod page;
mod state;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use fantoccini::Client;

use super::walk::{CallFailure, Returned, Scopes};
use crate::backend::webdriver::session::Session;
use crate::bidi::Bidi;
use crate::bidi::protocol::{Argument, SharedReference};
use crate::config::BrowserKind;
use crate::engine::CONTENT_BOX_JS;
use crate::error::BrowserError;
use crate::protocol::FrameScope;
use crate::wire::{self, BidiReturns};
use input::{FrameInput, InputTarget};

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
    /// How the remote end reads an input action's context (`input.rs`).
    frame_input: FrameInput,
    /// Where the pointer was last moved: the context a press or release
    /// without a move goes to (`input.rs`).
    pointer: Mutex<Option<InputTarget>>,
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
            frame_input: FrameInput::of(session.browser),
            pointer: Mutex::new(None),
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
            frame_input: self.frame_input,
            pointer: Mutex::new(None),
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

/// Where an engine call runs over BiDi: a browsing context, and the frame
/// element that holds it in its parent's document (none: the page's
/// top-level context).
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    context: String,
    holder: Option<Arc<(Scope, String)>>,
}

impl Scope {
    /// The browsing context calls of this scope run in.
    pub(crate) fn context(&self) -> &str {
        &self.context
    }
}

/// The frame element `el`'s window and its content box's offset
/// ([`CONTENT_BOX_JS`]): `[window, x, y]`.
fn holder_box_js() -> &'static str {
    static JS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    JS.get_or_init(|| {
        format!("function (el) {{ return [el.contentWindow].concat(({CONTENT_BOX_JS})(el)); }}")
    })
}

/// The engine's calls over BiDi: a scope is a browsing context (a frame's
/// own), an element a node's shared id with its scope.
impl Scopes for BidiPage {
    type Scope = Scope;
    type Element = (Scope, String);

    fn top(&self) -> Scope {
        Scope {
            context: self.context.clone(),
            holder: None,
        }
    }

    async fn call_in(
        &self,
        scope: &Scope,
        request: &str,
        returns: BidiReturns,
        wait: Duration,
    ) -> Result<Returned<(Scope, String)>, CallFailure> {
        self.bidi.ensure_preload(wire::install_source()).await;
        // The engine answers by its own timeout; the page gets 15 s more.
        let limit = wait + Duration::from_secs(15);
        let during = "calling the page's engine";
        let call = |full| {
            self.bidi.call_function(
                &scope.context,
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
        iframe: (Scope, String),
        frame: &FrameScope,
    ) -> Result<Scope, CallFailure> {
        let (parent, node) = iframe;
        let during = format!("entering the frame {}", frame.desc);
        match self
            .bidi
            .content_context(&parent.context, &node, &during)
            .await
        {
            Ok(Some(context)) => Ok(Scope {
                context,
                holder: Some(Arc::new((parent, node))),
            }),
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

    async fn frame_offset(&self, scope: &Scope) -> Result<(f64, f64), BrowserError> {
        let (mut x, mut y) = (0.0, 0.0);
        let mut at = scope.holder.clone();
        while let Some(holder) = at {
            let (parent, node) = &*holder;
            let box_of = vec![Argument::Node(SharedReference { shared_id: node })];
            let during = "reading the frame's offset in the page";
            let found = self
                .bidi
                .frame_at(&parent.context, holder_box_js(), box_of, during)
                .await?;
            let (_, dx, dy) = found.ok_or_else(|| BrowserError::Command {
                action: during.to_string(),
                message: "the frame's element holds no document any more".to_string(),
            })?;
            (x, y) = (x + dx, y + dy);
            at = parent.holder.clone();
        }
        Ok((x, y))
    }
}
