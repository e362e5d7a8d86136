//! What `Page` and its `impl` files need of a protocol ([`PageBackend`]),
//! and the words the trait speaks in: what a screenshot shows, where
//! history goes, the download and popup watches armed before an action.
//! Apart from `mod.rs` (which picks a backend and delegates to it), so that
//! a backend implements the trait without importing the place that picks.

use std::future::Future;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fantoccini::Client;
use serde_json::Value;
use tokio::sync::oneshot;

use super::cdp::action_wait::ActionWatch as CdpActionWatch;
use super::cdp::downloads::{DownloadError, DownloadState, DownloadWatch};
use super::cdp::page::CdpPage;
use super::cdp::popups::PopupWatch;
use super::cdp::screencast::Screencast;
use super::webdriver::wait_for_file;
use crate::config::BrowserKind;
use crate::cookies::Cookie;
use crate::dialogs::{Handler, Recorder};
use crate::emulation::Emulation;
use crate::error::BrowserError;
use crate::glob::{Matcher, UrlPattern};
use crate::logs::{ConsoleEntry, NetworkEntry};
use crate::protocol::{Answer, Call, Clip, FrameScope};
use crate::routes::Route;
use crate::steplog::Seen;

/// What a screenshot shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Shot<'a> {
    /// The viewport.
    Viewport,
    /// The whole document.
    FullPage,
    /// A region of the document (CSS pixels).
    Clip(&'a Clip),
}

/// Why a page cannot read back its responses' bodies (a trace's images,
/// D10 of docs/design/trace.md).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NoBodies {
    /// WebDriver classic has no network record.
    #[error("WebDriver classic keeps no network record to read response bodies from")]
    Classic,
    /// The BiDi remote end did not add a data collector.
    #[error(
        "the WebDriver BiDi remote end keeps no response bodies (network.addDataCollector: {0})"
    )]
    Refused(String),
    /// No collector was asked for (the page was not traced when it opened).
    #[error("the page's response bodies were not collected (it was not traced when it opened)")]
    NotAsked,
}

/// Where history goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum History {
    Back,
    Forward,
}

/// What `Page` needs of the protocol its session speaks. Native `async fn`
/// in a trait (`+ Send`), no boxed futures.
pub(crate) trait PageBackend: Send + Sync {
    /// The page's engine.
    fn kind(&self) -> BrowserKind;

    /// The page's id: the WebDriver session id, or the CDP session.
    fn session_id(&self) -> impl Future<Output = Option<String>> + Send;

    /// The fantoccini client of a WebDriver session (none on CDP).
    fn webdriver(&self) -> Option<&Client>;

    // ---- the injected engine ----

    /// One call of the injected engine in `frame` (none: the top document),
    /// repeated in the new document when a navigation ends it; a point it
    /// answers in a frame is moved into the page's viewport.
    fn call_engine(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        during: &str,
    ) -> impl Future<Output = Result<Answer, BrowserError>> + Send;

    /// Finds the element `call` targets (an `Act` of `SetInputFiles`) and
    /// sets the files of that `<input type=file>`; the engine's answer
    /// (its value is of no use; its error says why nothing was set).
    fn set_input_files(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        files: &[String],
        during: &str,
        desc: &str,
    ) -> impl Future<Output = Result<Answer, BrowserError>> + Send;

    /// Starts watching for the navigations an action about to be performed
    /// asks for ([`PageBackend::after_action`]); before its first command.
    fn watch_action(&self) -> ActionWatch {
        ActionWatch::Unwatched
    }

    /// After an action's last command (answered by `last`): waits, at most
    /// `limit`, until each navigation it asked for has committed or ended
    /// (as Playwright's did until `noWaitAfter` was deprecated). A backend that cannot tell
    /// (`ActionWatch::Unwatched`) returns at once; its reads wait for a
    /// navigation under way instead.
    fn after_action(
        &self,
        watch: ActionWatch,
        last: LastAnswer,
        limit: Duration,
    ) -> impl Future<Output = ()> + Send {
        let _ = (watch, last, limit);
        async {}
    }

    // ---- navigation ----

    /// Opens `url`, until it loaded; a navigation of the page's own that
    /// takes its place first is [`BrowserError::NavigationInterrupted`]
    /// (where the protocol tells it).
    fn goto(&self, url: &str) -> impl Future<Output = Result<(), BrowserError>> + Send;
    fn reload(&self) -> impl Future<Output = Result<(), BrowserError>> + Send;
    fn go(&self, to: History) -> impl Future<Output = Result<(), BrowserError>> + Send;

    // ---- reads and scripts ----

    fn url(&self) -> impl Future<Output = Result<String, BrowserError>> + Send;
    fn title(&self) -> impl Future<Output = Result<String, BrowserError>> + Send;
    /// The document element's markup (no doctype).
    fn html(&self) -> impl Future<Output = Result<String, BrowserError>> + Send;
    /// `js` (an expression or a function called with `arg`) run in the top
    /// document: `{"ok": true, "v": value}` or `{"ok": false, "e": text}`.
    fn evaluate(
        &self,
        js: &str,
        arg: Value,
    ) -> impl Future<Output = Result<Value, BrowserError>> + Send;
    /// `js` as a function body (`return …`), its value.
    fn eval(&self, js: &str) -> impl Future<Output = Result<Value, BrowserError>> + Send;
    /// The engine's `waitForFunction` of `js` with `args`
    /// (`{"timeout", "arg"}`), polled in the page.
    fn wait_for_function(
        &self,
        js: &str,
        args: Value,
        timeout_ms: u64,
        during: &str,
    ) -> impl Future<Output = Result<Answer, BrowserError>> + Send;

    // ---- input ----

    /// W3C action sequences (`keyboard.rs` builds them).
    fn perform(
        &self,
        actions: Value,
        during: &str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send;
    /// Text as an input method commits it (no key events).
    fn insert_text(&self, text: &str) -> impl Future<Output = Result<(), BrowserError>> + Send;

    // ---- screenshots, viewport ----

    fn screenshot(
        &self,
        shot: Shot<'_>,
    ) -> impl Future<Output = Result<Vec<u8>, BrowserError>> + Send;
    fn set_viewport(
        &self,
        width: u32,
        height: u32,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send;
    /// The viewport last set, if known (a pooled session keeps its own).
    fn viewport(&self) -> Option<(u32, u32)>;

    // ---- emulation ----

    /// What the page emulates now (its context's: a popup has its
    /// opener's); `Emulation::default()`: nothing.
    fn emulation(&self) -> Emulation;
    /// Makes `wanted` (validated) what the page emulates, sending what
    /// differs from [`PageBackend::emulation`]; popups opened from now on
    /// have it too. An option the engine cannot emulate is
    /// [`BrowserError::Unsupported`] naming it; one it refuses (a time zone
    /// it does not know), the engine's words. `base_url`: the origin
    /// permissions are granted to where the protocol takes one (BiDi's
    /// `permissions.setPermission`; DevTools grants them to every origin).
    fn apply_emulation(
        &self,
        wanted: &Emulation,
        base_url: &str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send;

    // ---- console, network ----

    /// Console and network since the last take.
    fn take_logs(
        &self,
    ) -> impl Future<Output = Result<(Vec<ConsoleEntry>, Vec<NetworkEntry>), BrowserError>> + Send;
    /// The step's console and network so far, left for the take.
    fn peek_logs(
        &self,
        pending: bool,
    ) -> impl Future<Output = Result<(Vec<ConsoleEntry>, Vec<NetworkEntry>), BrowserError>> + Send;

    /// A DevTools command, for what the page API lacks.
    fn cdp(
        &self,
        method: &str,
        params: Value,
    ) -> impl Future<Output = Result<Value, BrowserError>> + Send;

    // ---- cookies, storage ----

    /// Every cookie of the page's browser (context).
    fn cookies(&self) -> impl Future<Output = Result<Vec<Cookie>, BrowserError>> + Send;
    fn set_cookies(
        &self,
        cookies: &[Cookie],
        base_url: &str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send;
    /// Gives the browser cookies a response's `Set-Cookie` headers carried:
    /// each set, or, expired, deleted (`storage.rs`'s `store_cookies`).
    fn store_cookies(
        &self,
        cookies: &[Cookie],
        base_url: &str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send;
    /// Opens `url` as it is, no judgement of its load (the storage state's
    /// pages, which the app answers 404 to).
    fn open_url(
        &self,
        url: &str,
        during: &str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send;
    /// `expression`'s value (a string) on the document of `url`, in a page
    /// of the page's context of its own, closed after: what the page's
    /// context holds for another origin (a storage state's localStorage),
    /// with the page itself left where it is and its evidence untouched.
    fn evaluate_aside(
        &self,
        url: &str,
        expression: &str,
    ) -> impl Future<Output = Result<String, BrowserError>> + Send;

    // ---- network control, dialogs, downloads, popups ----

    fn route<F, Fut>(
        &self,
        pattern: UrlPattern,
        base_url: &str,
        handler: F,
        at: &'static Location<'static>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send
    where
        F: Fn(Route) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), BrowserError>> + Send + 'static;
    fn unroute(
        &self,
        pattern: &UrlPattern,
        at: &'static Location<'static>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send;
    /// A wait for the next request (or response) `matcher` matches,
    /// registered now.
    fn network_waiter(
        &self,
        matcher: Matcher,
        response: bool,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<oneshot::Receiver<Seen>, BrowserError>;
    fn set_dialog_handler(
        &self,
        handler: Arc<Handler>,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError>;
    fn set_dialog_recorder(&self, recorder: Arc<Recorder>);
    /// Saves the page's downloads into `folder` and watches them from now
    /// on (armed before the action that downloads).
    fn watch_downloads(
        &self,
        folder: &Path,
    ) -> impl Future<Output = Result<DownloadArm, BrowserError>> + Send;
    /// The browser's default download behaviour again.
    fn end_downloads(&self) -> impl Future<Output = ()> + Send;
    /// A watch of the popups the page opens, armed before the action that
    /// opens one.
    fn watch_popups(&self) -> impl Future<Output = Result<PopupArm, BrowserError>> + Send;
    /// The page of the next popup `arm` sees, within `wait`: a page of
    /// the same backend as its opener.
    fn next_popup(
        &self,
        arm: &mut PopupArm,
        wait: Duration,
    ) -> impl Future<Output = Result<Self, BrowserError>> + Send
    where
        Self: Sized;
    /// Closes a popup's page.
    fn close(&self) -> impl Future<Output = Result<(), BrowserError>> + Send;

    /// Whether the page can run a script in each new document before the
    /// document's own (`add_init_script`, the clock): `Ok`, or why not, for
    /// the call `what` made at `at` (classic WebDriver: no way; this default:
    /// yes).
    fn init_scripts(&self, what: &str, at: &'static Location<'static>) -> Result<(), BrowserError> {
        let _ = (what, at);
        Ok(())
    }
    /// Runs `source` (a script) in every new document of the page, its
    /// frames' included, before the document's own scripts (Playwright's
    /// `addInitScript`); not in the documents there now.
    fn add_init_script(
        &self,
        source: &str,
        what: &str,
        at: &'static Location<'static>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send;

    /// Has the browser keep the page's response bodies from now on, so a
    /// trace can read an image back ([`response_body`](Self::response_body)):
    /// BiDi's data collector, added once per session (a refusal is kept
    /// and said by [`bodies`](Self::bodies)); CDP keeps them already
    /// (`Network.enable`'s buffers); classic: nothing (this default).
    fn keep_response_bodies(&self) -> impl Future<Output = ()> + Send {
        async {}
    }

    /// Whether the page's response bodies can be read back (classic: no).
    fn bodies(&self) -> Result<(), NoBodies> {
        Err(NoBodies::Classic)
    }

    /// The latest request of the image, font or stylesheet at `url` the
    /// page's network record kept (none on classic: this default).
    fn resource_request(&self, url: &str) -> Option<crate::steplog::Recorded> {
        let _ = url;
        None
    }

    /// The body of the response to request `request` (an id of
    /// [`resource_request`](Self::resource_request)), as the browser kept it.
    fn response_body(
        &self,
        request: &str,
    ) -> impl Future<Output = Result<Vec<u8>, BrowserError>> + Send {
        let _ = request;
        let browser = self.kind();
        async move {
            Err(BrowserError::Unsupported {
                browser,
                what: "reading a response's body".into(),
                why: NoBodies::Classic.to_string(),
            })
        }
    }

    /// Starts streaming the page's painted frames (the run's video): CDP's
    /// screencast; `None` where the protocol has no frame stream (WebDriver,
    /// BiDi and classic: this default).
    fn screencast(&self) -> impl Future<Output = Result<Option<Screencast>, BrowserError>> + Send {
        async { Ok(None) }
    }
}

/// A watch of a page's downloads (`PageBackend::watch_downloads`).
#[derive(Debug)]
pub(crate) enum DownloadArm {
    /// WebDriver: the folder, polled until one complete file is in it.
    Folder(PathBuf),
    /// CDP: the context's downloads as the browser tells them.
    Cdp(DownloadWatch),
}

impl DownloadArm {
    /// The next download, complete, within `wait`: the name the browser
    /// gave it and where it is.
    pub(crate) async fn next(&mut self, wait: Duration) -> Result<(String, PathBuf), BrowserError> {
        match self {
            DownloadArm::Folder(folder) => wait_for_file(folder, wait).await,
            DownloadArm::Cdp(watch) => {
                let d = watch.next(wait).await.map_err(|e| match e {
                    DownloadError::Timeout { waited } => BrowserError::Timeout {
                        locator: "page.wait_for_download(…)".into(),
                        expected: "download a file".into(),
                        found: "no download ended".into(),
                        waited,
                        location: None,
                    },
                    e => e.into(),
                })?;
                match d.state {
                    DownloadState::Completed => Ok((d.suggested_filename, d.path)),
                    DownloadState::Canceled => Err(BrowserError::Command {
                        action: "waiting for a download".into(),
                        message: format!(
                            "the download of {} ({:?}) was canceled",
                            d.url, d.suggested_filename
                        ),
                    }),
                }
            }
        }
    }
}

/// A watch of a page's popups (`PageBackend::watch_popups`).
#[derive(Debug)]
pub(crate) enum PopupArm {
    /// WebDriver: the session's windows before the action.
    Windows(Vec<String>),
    /// CDP: the popups the browser attaches, opened by the page.
    Cdp(PopupWatch<CdpPage>),
}

/// No popup within the wait: `found` says what there was.
pub(crate) fn no_popup(found: String, waited: Duration) -> BrowserError {
    BrowserError::Timeout {
        locator: "page.wait_for_popup(…)".into(),
        expected: "open a popup window (window.open, a target=_blank link)".into(),
        found,
        waited,
        location: None,
    }
}

/// A popup arm of another backend (a bug).
pub(crate) fn foreign_arm() -> BrowserError {
    BrowserError::Command {
        action: "waiting for a popup".into(),
        message: "the popup watch was armed by another kind of page".into(),
    }
}

/// Who answered an action's last command: the page's renderer (a call of
/// the injected engine: the page's events sent before it have arrived), or
/// the browser's input handling (they may still be on their way: one round
/// trip through the renderer brings them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LastAnswer {
    Renderer,
    Input,
}

/// What a backend watches of an action's navigations, from before its first
/// command to [`PageBackend::after_action`].
#[derive(Debug)]
pub(crate) enum ActionWatch {
    /// The page's DevTools events (`cdp/action_wait.rs`).
    Cdp(CdpActionWatch),
    /// The navigation each browsing context had under way before the
    /// action (`bidi/action_wait.rs`).
    Bidi(std::collections::HashMap<String, String>),
    /// Nothing: the backend does not wait after actions.
    Unwatched,
}
