//! The WebDriver backend: a page of a WebDriver session (a local driver or a
//! remote end), speaking classic WebDriver, chromedriver's CDP passthrough and
//! WebDriver BiDi per call as before (this is today's code, moved from
//! `page.rs`, `script.rs`, `keyboard.rs`, `cookies.rs`, `storage.rs`,
//! `network.rs`, `dialog.rs`, `download.rs`, `popup.rs`): the [`Engine`] and
//! its BiDi and classic paths stay as they are, until steps 6–7 of
//! `docs/design/backends.md` split this into a BiDi and a classic backend.
//! [`nav`]: navigation, reads, screenshots, the viewport; [`logs`]: console
//! and network; [`script`]: scripts and input; [`state`]: cookies and
//! storage; [`extras`]: routes, dialogs, downloads, popups.

mod downloads;
mod extras;
mod logs;
mod nav;
mod script;
mod state;

pub(crate) use downloads::wait_for_file;
pub(crate) use nav::reset;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use fantoccini::Client;

use crate::browser::bidi::Bidi;
use crate::browser::config::BrowserKind;
use crate::browser::engine::Engine;
use crate::browser::logs::{ConsoleEntry, NetworkEntry, Pending};
use crate::browser::session::Session;

/// A page of a WebDriver session (see the module's doc).
pub(crate) struct WebDriverPage {
    pub(crate) client: Client,
    /// The session, while the page holds it (none: a popup's page, or taken
    /// back by `Browsers::release`).
    pub(crate) session: Mutex<Option<Session>>,
    pending: Mutex<Pending>,
    /// Without BiDi: what the `devtools` log said during the step before its
    /// boundary (read early by a network or console assertion).
    early: Mutex<(Vec<ConsoleEntry>, Vec<NetworkEntry>)>,
    /// The session's BiDi connection, if the remote end offers BiDi.
    pub(crate) bidi: Option<Arc<Bidi>>,
    /// The injected engine's calls over `client`.
    pub(crate) engine: Engine,
    /// Its engine.
    browser: BrowserKind,
    /// Without BiDi on an engine with no log endpoint (WebKit): whether the
    /// note saying so was recorded.
    noted: AtomicBool,
}

impl WebDriverPage {
    /// The page of `session`; on an engine without CDP, its engine is not
    /// registered through CDP (see [`Engine::skip_registration`]).
    pub(crate) fn new(session: Session) -> WebDriverPage {
        let engine = Engine::new(&session);
        if session.browser != BrowserKind::Chromium {
            engine.skip_registration();
        }
        WebDriverPage {
            client: session.client.clone(),
            bidi: session.bidi.clone(),
            browser: session.browser,
            session: Mutex::new(Some(session)),
            pending: Mutex::new(Pending::new()),
            early: Mutex::default(),
            engine,
            noted: AtomicBool::new(false),
        }
    }

    /// The page of a popup window `handle` this page's session opened: the
    /// same session, its calls switched to that window and back.
    pub(crate) fn popup_page(&self, handle: String) -> WebDriverPage {
        WebDriverPage {
            client: self.client.clone(),
            session: Mutex::new(None),
            pending: Mutex::new(Pending::new()),
            early: Mutex::default(),
            bidi: self.bidi.clone(),
            engine: self.engine.for_window(handle),
            browser: self.browser,
            // The popup's session already said what its engine cannot record.
            noted: AtomicBool::new(true),
        }
    }

    /// What a new session needs once (the script timeout, the engine
    /// registered for every document), done when it opens rather than in
    /// its first step.
    pub(crate) async fn prepare_session(
        &self,
        wait: std::time::Duration,
    ) -> Result<(), crate::browser::error::BrowserError> {
        self.engine
            .ensure_script_timeout(wait.as_millis() as u64)
            .await?;
        self.engine.ensure_registered().await;
        Ok(())
    }

    /// The session, taken back (for the pool), with its script timeout.
    pub(crate) fn take_session(&self) -> Option<Session> {
        let mut session = self.session.lock().expect("session lock").take()?;
        session.script_timeout = self.engine.script_timeout();
        Some(session)
    }

    /// The session's BiDi connection, if it has one.
    pub(crate) fn bidi(&self) -> Option<&Arc<Bidi>> {
        self.bidi.as_ref()
    }

    /// The page's engine.
    pub(crate) fn browser(&self) -> BrowserKind {
        self.browser
    }

    /// The BiDi connection and this page's browsing context when its reads
    /// (`url`, `title`, `html`, `evaluate`, `eval`) and screenshots go over
    /// WebDriver BiDi, once a navigation under way has reached its document
    /// ([`Bidi::settle`]): while the page has routes, and always on Firefox
    /// (as its engine calls, [`Engine::bidi_calls`]). chromedriver serves a
    /// classic command sent while a navigation loads only after that load,
    /// and forwards no BiDi command meanwhile, so a read of a document a
    /// route answers (or an `evaluate` whose fetch one answers) would hold
    /// back the very answer it waits for; geckodriver's classic reads could
    /// see the document the navigation was leaving.
    pub(crate) async fn settled(&self) -> Option<(&Arc<Bidi>, String)> {
        let (bidi, context) = self.engine.bidi_calls()?;
        self.engine.catch_up().await;
        bidi.settle(&context).await;
        Some((bidi, context))
    }

    /// The BiDi connection and this page's browsing context when the page has
    /// routes: its navigations then go through BiDi ([`Bidi::navigate`] says
    /// why), and take no switching lock, so a route's handler may call the
    /// page while the navigation waits for it.
    pub(crate) fn routed_context(&self) -> Option<(&Arc<Bidi>, String)> {
        let bidi = self.bidi()?;
        if bidi.routes.is_empty() {
            return None;
        }
        let context = match self.engine.window() {
            Some(w) => w.to_string(),
            None => bidi.context.lock().expect("bidi lock").clone()?,
        };
        Some((bidi, context))
    }
}
