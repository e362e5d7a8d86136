//! The classic WebDriver backend: a page of a WebDriver session whose remote
//! end offers no BiDi (WebKitGTK's WebKitWebDriver; a remote end that
//! returned no `webSocketUrl`). Every command is a classic one; the
//! window/frame switching of popups and frames, and its lock, live only here
//! ([`engine`]). On Chromium (a remote chromedriver without BiDi) the console
//! and network come from chromedriver's `devtools` log ([`logs`]) and the
//! Chromium-only commands go through its CDP passthrough; elsewhere a gap is
//! recorded or `Unsupported` (routes, dialogs, downloads).
//! [`nav`]: navigation, reads, screenshots, the viewport; [`script`]:
//! scripts and input; [`state`]: cookies and storage; [`extras`]: routes,
//! dialogs, downloads, popups, and the [`PageBackend`](super::PageBackend)
//! implementation.

mod engine;
mod extras;
mod logs;
mod nav;
mod script;
mod state;

pub(crate) use nav::reset;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use fantoccini::Client;

use self::engine::Engine;
use crate::backend::webdriver::session::Session;
use crate::config::BrowserKind;
use crate::logs::{ConsoleEntry, NetworkEntry, Pending};

/// A page of a classic WebDriver session (see the module's doc).
pub(crate) struct ClassicPage {
    pub(crate) client: Client,
    /// The session, while the page holds it (none: a popup's page, or taken
    /// back by `Browsers::release`).
    pub(crate) session: Mutex<Option<Session>>,
    pending: Mutex<Pending>,
    /// What the `devtools` log said during the step before its boundary
    /// (read early by a network or console assertion).
    early: Mutex<(Vec<ConsoleEntry>, Vec<NetworkEntry>)>,
    /// The injected engine's calls over `client`.
    engine: Engine,
    /// Its engine.
    browser: BrowserKind,
    /// On an engine with no log endpoint (WebKit): whether the note saying
    /// so was recorded.
    noted: AtomicBool,
    /// What it emulates (`extras.rs`: the viewport only), shared with its
    /// popups.
    pub(crate) emulation: Arc<Mutex<crate::emulation::Emulation>>,
}

impl ClassicPage {
    /// The page of `session`; on an engine without CDP, its engine is not
    /// registered through CDP (see [`Engine::skip_registration`]).
    pub(crate) fn new(session: Session) -> ClassicPage {
        let engine = Engine::new(&session);
        if session.browser != BrowserKind::Chromium {
            engine.skip_registration();
        }
        // What the browser was launched with is the page's from the start.
        let emulation = Arc::new(Mutex::new(session.launched.clone()));
        ClassicPage {
            client: session.client.clone(),
            browser: session.browser,
            session: Mutex::new(Some(session)),
            pending: Mutex::new(Pending::new()),
            early: Mutex::default(),
            engine,
            noted: AtomicBool::new(false),
            emulation,
        }
    }

    /// The page of a popup window `handle` this page's session opened: the
    /// same session, its calls switched to that window and back.
    pub(crate) fn popup_page(&self, handle: String) -> ClassicPage {
        ClassicPage {
            client: self.client.clone(),
            session: Mutex::new(None),
            pending: Mutex::new(Pending::new()),
            early: Mutex::default(),
            engine: self.engine.for_window(handle),
            browser: self.browser,
            // The popup's session already said what its engine cannot record.
            noted: AtomicBool::new(true),
            emulation: self.emulation.clone(),
        }
    }

    /// What a new session needs once (the script timeout, the engine
    /// registered for every document), done when it opens rather than in
    /// its first step.
    pub(crate) async fn prepare_session(
        &self,
        wait: std::time::Duration,
    ) -> Result<(), crate::error::BrowserError> {
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

    /// The page's engine.
    pub(crate) fn browser(&self) -> BrowserKind {
        self.browser
    }
}
