//! Backends: the code that speaks one protocol for one kind of browser
//! session (`docs/design/backends.md` §2). A page speaks exactly one, chosen
//! when it opens ([`open_page`] is the one place that picks): the DevTools
//! protocol directly to a local Chromium ([`cdp`], when
//! `HARSHJUDGE_CHROMIUM_PROTOCOL=cdp`), or WebDriver ([`webdriver`]: classic
//! commands, chromedriver's CDP passthrough and WebDriver BiDi, mixed per
//! call as before, until steps 6–7 split it into a BiDi and a classic
//! backend). [`PageBackend`] is what `Page` and its `impl` files need of a
//! protocol; [`AnyPage`] implements it by delegation, so that `Page` never
//! asks which engine, protocol or routes a page has. [`walk`] is the engine
//! call's frame walk and retry after a navigation, written once over a
//! small scope-level trait.

pub(crate) mod cdp;
pub(crate) mod walk;
pub(crate) mod webdriver;

use std::future::Future;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fantoccini::Client;
use serde_json::Value;
use tokio::sync::oneshot;

use self::cdp::backend::CdpBackend;
use self::cdp::downloads::{DownloadError, DownloadState, DownloadWatch};
use self::cdp::page::CdpPage;
use self::cdp::popups::PopupWatch;
use self::webdriver::WebDriverPage;
use super::config::{BrowserConfig, BrowserKind, ChromiumProtocol};
use super::cookies::Cookie;
use super::dialogs::{Handler, Recorder};
use super::error::BrowserError;
use super::glob::{Matcher, UrlPattern};
use super::logs::{ConsoleEntry, NetworkEntry};
use super::protocol::{Answer, Call, Clip, FrameScope};
use super::routes::Route;
use super::steplog::Seen;

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

/// Where history goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum History {
    Back,
    Forward,
}

/// The backend the settings pick for a page: the one place that picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pick {
    /// The DevTools protocol to a Chromium launched here.
    Cdp,
    /// A WebDriver session (a local driver or a remote end).
    WebDriver,
}

/// Which backend a page opened with `config` speaks: local Chromium with
/// `chromium_protocol: Cdp` the DevTools protocol, everything else WebDriver.
pub(crate) fn pick(config: &BrowserConfig) -> Pick {
    if config.browser == BrowserKind::Chromium
        && config.webdriver_url.is_none()
        && config.chromium_protocol == ChromiumProtocol::Cdp
    {
        Pick::Cdp
    } else {
        Pick::WebDriver
    }
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
    /// The localStorage of an origin the page is not on (empty: unknown).
    fn other_origin_storage(
        &self,
        origin: &str,
    ) -> impl Future<Output = Vec<(String, String)>> + Send;

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
    /// The page of the next popup `arm` sees, within `wait`.
    fn next_popup(
        &self,
        arm: &mut PopupArm,
        wait: Duration,
    ) -> impl Future<Output = Result<AnyPage, BrowserError>> + Send;
    /// Closes a popup's page.
    fn close(&self) -> impl Future<Output = Result<(), BrowserError>> + Send;
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
            DownloadArm::Folder(folder) => webdriver::wait_for_file(folder, wait).await,
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

/// Every backend, by delegation. Held once per page behind `Page`'s `Arc`,
/// so its variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum AnyPage {
    Cdp(CdpBackend),
    WebDriver(WebDriverPage),
}

macro_rules! delegate {
    ($self:ident, $b:ident => $e:expr) => {
        match $self {
            AnyPage::Cdp($b) => $e,
            AnyPage::WebDriver($b) => $e,
        }
    };
}

impl PageBackend for AnyPage {
    fn kind(&self) -> BrowserKind {
        delegate!(self, b => b.kind())
    }
    async fn session_id(&self) -> Option<String> {
        delegate!(self, b => b.session_id().await)
    }
    fn webdriver(&self) -> Option<&Client> {
        delegate!(self, b => b.webdriver())
    }
    async fn call_engine(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        delegate!(self, b => b.call_engine(frame, call, during).await)
    }
    async fn set_input_files(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        files: &[String],
        during: &str,
        desc: &str,
    ) -> Result<Answer, BrowserError> {
        delegate!(self, b => b.set_input_files(frame, call, files, during, desc).await)
    }
    async fn goto(&self, url: &str) -> Result<(), BrowserError> {
        delegate!(self, b => b.goto(url).await)
    }
    async fn reload(&self) -> Result<(), BrowserError> {
        delegate!(self, b => b.reload().await)
    }
    async fn go(&self, to: History) -> Result<(), BrowserError> {
        delegate!(self, b => b.go(to).await)
    }
    async fn url(&self) -> Result<String, BrowserError> {
        delegate!(self, b => b.url().await)
    }
    async fn title(&self) -> Result<String, BrowserError> {
        delegate!(self, b => b.title().await)
    }
    async fn html(&self) -> Result<String, BrowserError> {
        delegate!(self, b => b.html().await)
    }
    async fn evaluate(&self, js: &str, arg: Value) -> Result<Value, BrowserError> {
        delegate!(self, b => b.evaluate(js, arg).await)
    }
    async fn eval(&self, js: &str) -> Result<Value, BrowserError> {
        delegate!(self, b => b.eval(js).await)
    }
    async fn wait_for_function(
        &self,
        js: &str,
        args: Value,
        timeout_ms: u64,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        delegate!(self, b => b.wait_for_function(js, args, timeout_ms, during).await)
    }
    async fn perform(&self, actions: Value, during: &str) -> Result<(), BrowserError> {
        delegate!(self, b => b.perform(actions, during).await)
    }
    async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        delegate!(self, b => b.insert_text(text).await)
    }
    async fn screenshot(&self, shot: Shot<'_>) -> Result<Vec<u8>, BrowserError> {
        delegate!(self, b => b.screenshot(shot).await)
    }
    async fn set_viewport(&self, width: u32, height: u32) -> Result<(), BrowserError> {
        delegate!(self, b => b.set_viewport(width, height).await)
    }
    fn viewport(&self) -> Option<(u32, u32)> {
        delegate!(self, b => b.viewport())
    }
    async fn take_logs(&self) -> Result<(Vec<ConsoleEntry>, Vec<NetworkEntry>), BrowserError> {
        delegate!(self, b => b.take_logs().await)
    }
    async fn peek_logs(
        &self,
        pending: bool,
    ) -> Result<(Vec<ConsoleEntry>, Vec<NetworkEntry>), BrowserError> {
        delegate!(self, b => b.peek_logs(pending).await)
    }
    async fn cdp(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        delegate!(self, b => b.cdp(method, params).await)
    }
    async fn cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        delegate!(self, b => b.cookies().await)
    }
    async fn set_cookies(&self, cookies: &[Cookie], base_url: &str) -> Result<(), BrowserError> {
        delegate!(self, b => b.set_cookies(cookies, base_url).await)
    }
    async fn store_cookies(&self, cookies: &[Cookie], base_url: &str) -> Result<(), BrowserError> {
        delegate!(self, b => b.store_cookies(cookies, base_url).await)
    }
    async fn open_url(&self, url: &str, during: &str) -> Result<(), BrowserError> {
        delegate!(self, b => b.open_url(url, during).await)
    }
    async fn other_origin_storage(&self, origin: &str) -> Vec<(String, String)> {
        delegate!(self, b => b.other_origin_storage(origin).await)
    }
    async fn route<F, Fut>(
        &self,
        pattern: UrlPattern,
        base_url: &str,
        handler: F,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError>
    where
        F: Fn(Route) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), BrowserError>> + Send + 'static,
    {
        delegate!(self, b => b.route(pattern, base_url, handler, at).await)
    }
    async fn unroute(
        &self,
        pattern: &UrlPattern,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        delegate!(self, b => b.unroute(pattern, at).await)
    }
    fn network_waiter(
        &self,
        matcher: Matcher,
        response: bool,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<oneshot::Receiver<Seen>, BrowserError> {
        delegate!(self, b => b.network_waiter(matcher, response, what, at))
    }
    fn set_dialog_handler(
        &self,
        handler: Arc<Handler>,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        delegate!(self, b => b.set_dialog_handler(handler, at))
    }
    fn set_dialog_recorder(&self, recorder: Arc<Recorder>) {
        delegate!(self, b => b.set_dialog_recorder(recorder))
    }
    async fn watch_downloads(&self, folder: &Path) -> Result<DownloadArm, BrowserError> {
        delegate!(self, b => b.watch_downloads(folder).await)
    }
    async fn end_downloads(&self) {
        delegate!(self, b => b.end_downloads().await)
    }
    async fn watch_popups(&self) -> Result<PopupArm, BrowserError> {
        delegate!(self, b => b.watch_popups().await)
    }
    async fn next_popup(
        &self,
        arm: &mut PopupArm,
        wait: Duration,
    ) -> Result<AnyPage, BrowserError> {
        delegate!(self, b => b.next_popup(arm, wait).await)
    }
    async fn close(&self) -> Result<(), BrowserError> {
        delegate!(self, b => b.close().await)
    }
}
