//! [`Session`]: one WebDriver session with its own profile folder, ended
//! within a limit, its own driver stopped or kept idle.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use fantoccini::Client;

use super::driver::{Driver, DriverWatch};
use crate::backend::live::Live;
use crate::bidi::Bidi;
use crate::config::BrowserKind;

/// A browser session with its own profile folder (removed when it closes).
pub(crate) struct Session {
    pub(crate) client: Client,
    pub(crate) _profile: Option<tempfile::TempDir>,
    pub(crate) remote: String,
    /// The app host the browser resolves besides loopback.
    pub(crate) app_host: Option<String>,
    /// The viewport last set on it (a pooled session keeps it: no command
    /// when the next page wants the same).
    pub(crate) viewport: Option<(u32, u32)>,
    /// Its script timeout as last set (ms), kept across pooled pages.
    pub(crate) script_timeout: u64,
    /// Counts it among its owner's live sessions while it exists.
    pub(crate) _live: Live,
    /// The driver process its commands go to (none: a remote WebDriver), so
    /// that a lost connection can say that driver exited.
    pub(crate) driver: Option<DriverWatch>,
    /// Whether the engine is registered for every new document of the
    /// session (once per session, kept across its pooled pages).
    pub(crate) registered: Arc<AtomicBool>,
    /// Its WebDriver BiDi connection (none when the remote end offers none:
    /// console and network then come from chromedriver's `devtools` log).
    pub(crate) bidi: Option<Arc<Bidi>>,
    /// Its engine.
    pub(crate) browser: BrowserKind,
    /// The driver of its own (geckodriver, WebKitWebDriver serve one session
    /// each): stopped, with its browser, when the session goes.
    pub(crate) own_driver: Option<Driver>,
    /// Firefox: the BiDi user context the current scenario's tab lives in
    /// (none: the browser's default one, a new session's first scenario).
    pub(crate) user_context: Option<String>,
    /// A remote session with BiDi, once pooled: its first tab, kept at
    /// `about:blank` (the window its classic side rests on).
    pub(crate) home: Option<String>,
    /// What of its emulation its browser was launched with (WebKit's
    /// MiniBrowser takes a user agent, scripts off and a time zone on its
    /// command line: `BrowserConfig::launch_emulation`); none for the others.
    pub(crate) launched: crate::emulation::Emulation,
}

/// How long a session's end (WebDriver's Delete Session, which quits its
/// browser) may take: a driver can wait for ever on a browser that hangs.
const SESSION_END: Duration = Duration::from_secs(10);

impl Session {
    /// Ends the session: closes it on its driver (within [`SESSION_END`]),
    /// then stops a driver of its own (its process group, with the browser).
    pub(crate) async fn close(mut self) {
        let _ = tokio::time::timeout(SESSION_END, self.client.clone().close()).await;
        if let Some(d) = self.own_driver.take() {
            let _ = tokio::task::spawn_blocking(move || d.stop(false)).await;
        }
    }

    /// Ends the session but keeps a driver of its own running, idle, for the
    /// next session of its engine (the driver serves one session at a time,
    /// and a session's end quits its browser). Returns that driver, unless
    /// the session did not end cleanly within [`SESSION_END`]: that driver
    /// (and what is left of its browser) is stopped instead.
    pub(crate) async fn end_keeping_driver(mut self) -> Option<Driver> {
        let ended = tokio::time::timeout(SESSION_END, self.client.clone().close()).await;
        let d = self.own_driver.take()?;
        if matches!(ended, Ok(Ok(()))) {
            return Some(d);
        }
        let _ = tokio::task::spawn_blocking(move || d.stop(false)).await;
        None
    }
}
