//! Backends: the code that speaks one protocol for one kind of browser
//! session (`docs/design/backends.md` §2). A page speaks exactly one, chosen
//! when its session opens ([`pick`] and [`webdriver_page`] are the one place
//! that picks): the DevTools protocol directly to a local Chromium ([`cdp`],
//! when `HARSHJUDGE_CHROMIUM_PROTOCOL=cdp`); WebDriver BiDi alone ([`bidi`]:
//! Firefox, and any WebDriver session whose remote end returned
//! `webSocketUrl`, chromedriver and a Selenium Grid node among them); or
//! classic WebDriver alone ([`classic`]: WebKitGTK, remote ends without
//! BiDi). [`webdriver`] holds what the two WebDriver backends share.
//! [`PageBackend`] (`page_backend.rs`) is what `Page` and its `impl` files need of a
//! protocol; [`AnyPage`] implements it by delegation, so that `Page` never
//! asks which engine, protocol or routes a page has. [`walk`] is the engine
//! call's frame walk and retry after a navigation, written once over a
//! small scope-level trait.

pub(crate) mod bidi;
pub(crate) mod cdp;
pub(crate) mod classic;
pub(crate) mod live;
pub(crate) mod page_backend;
pub(crate) mod unsupported;
pub(crate) mod walk;
pub(crate) mod webdriver;

use std::future::Future;
use std::panic::Location;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use fantoccini::Client;
use serde_json::Value;
use tokio::sync::oneshot;

use self::bidi::BidiPage;
use self::cdp::backend::CdpBackend;
use self::classic::ClassicPage;
pub(crate) use self::live::Live;
pub(crate) use self::page_backend::{
    ActionWatch, DownloadArm, History, LastAnswer, NoBodies, PageBackend, PopupArm, Shot,
};
use self::webdriver::session::Session;
use super::config::{BrowserConfig, BrowserKind, ChromiumProtocol};
use super::cookies::Cookie;
use super::dialogs::{Handler, Recorder};
use super::emulation::Emulation;
use super::error::BrowserError;
use super::glob::{Matcher, UrlPattern};
use super::logs::{ConsoleEntry, NetworkEntry};
use super::protocol::{Answer, Call, FrameScope};
use super::routes::Route;
use super::steplog::Seen;

/// The backend the settings pick for a page: the one place that picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pick {
    /// The DevTools protocol to a Chromium launched here.
    Cdp,
    /// A WebDriver session (a local driver or a remote end).
    WebDriver,
}

/// Which backend a page opened with `config` speaks: local Chromium with
/// `chromium_protocol: Cdp` the DevTools protocol, everything else a
/// WebDriver session, whose page [`webdriver_page`] makes BiDi or classic
/// by what the session offers.
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

/// The page of a WebDriver `session` just opened (or taken from the pool):
/// over BiDi alone when its remote end returned `webSocketUrl` (Firefox,
/// chromedriver, a Grid node that passes BiDi through), else over classic
/// WebDriver alone. Never switched afterwards.
pub(crate) fn webdriver_page(session: Session) -> AnyPage {
    match BidiPage::offered(&session) {
        Some((bidi, context)) => AnyPage::Bidi(BidiPage::new(session, bidi, context)),
        None => AnyPage::Classic(ClassicPage::new(session)),
    }
}

/// Every backend, by delegation. Held once per page behind `Page`'s `Arc`,
/// so its variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum AnyPage {
    Cdp(CdpBackend),
    Bidi(BidiPage),
    Classic(ClassicPage),
}

impl AnyPage {
    /// The protocol the page speaks, picked when its session opened:
    /// `cdp`, `webdriver-bidi` or `webdriver-classic`.
    pub(crate) fn protocol(&self) -> &'static str {
        match self {
            AnyPage::Cdp(_) => "cdp",
            AnyPage::Bidi(_) => "webdriver-bidi",
            AnyPage::Classic(_) => "webdriver-classic",
        }
    }

    /// A WebDriver page's session, taken back (for the pool); none for a
    /// popup's page, a CDP page, or one already taken.
    pub(crate) fn take_session(&self) -> Option<Session> {
        match self {
            AnyPage::Cdp(_) => None,
            AnyPage::Bidi(b) => b.take_session(),
            AnyPage::Classic(c) => c.take_session(),
        }
    }

    /// What a new session needs once, done when it opens rather than in its
    /// first step (classic: the script timeout and the engine registered for
    /// every document; BiDi: the engine a preload script).
    pub(crate) async fn prepare_session(&self, wait: Duration) -> Result<(), BrowserError> {
        match self {
            AnyPage::Cdp(_) => Ok(()),
            AnyPage::Bidi(b) => b.prepare_session().await,
            AnyPage::Classic(c) => c.prepare_session(wait).await,
        }
    }
}

macro_rules! delegate {
    ($self:ident, $b:ident => $e:expr) => {
        match $self {
            AnyPage::Cdp($b) => $e,
            AnyPage::Bidi($b) => $e,
            AnyPage::Classic($b) => $e,
        }
    };
}

impl PageBackend for AnyPage {
    fn kind(&self) -> BrowserKind {
        delegate!(self, b => b.kind())
    }
    fn watch_action(&self) -> ActionWatch {
        delegate!(self, b => b.watch_action())
    }
    async fn after_action(&self, watch: ActionWatch, last: LastAnswer, limit: Duration) {
        // Boxed: an action's future holds it.
        delegate!(self, b => Box::pin(b.after_action(watch, last, limit)).await)
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
    fn emulation(&self) -> Emulation {
        delegate!(self, b => b.emulation())
    }
    async fn apply_emulation(
        &self,
        wanted: &Emulation,
        base_url: &str,
    ) -> Result<(), BrowserError> {
        delegate!(self, b => b.apply_emulation(wanted, base_url).await)
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
    async fn evaluate_aside(&self, url: &str, expression: &str) -> Result<String, BrowserError> {
        delegate!(self, b => b.evaluate_aside(url, expression).await)
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
        match self {
            AnyPage::Cdp(b) => b.next_popup(arm, wait).await.map(AnyPage::Cdp),
            AnyPage::Bidi(b) => b.next_popup(arm, wait).await.map(AnyPage::Bidi),
            AnyPage::Classic(b) => b.next_popup(arm, wait).await.map(AnyPage::Classic),
        }
    }
    async fn close(&self) -> Result<(), BrowserError> {
        delegate!(self, b => b.close().await)
    }
    fn init_scripts(&self, what: &str, at: &'static Location<'static>) -> Result<(), BrowserError> {
        delegate!(self, b => b.init_scripts(what, at))
    }
    async fn add_init_script(
        &self,
        source: &str,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        delegate!(self, b => b.add_init_script(source, what, at).await)
    }
    async fn screencast(&self) -> Result<Option<self::cdp::screencast::Screencast>, BrowserError> {
        delegate!(self, b => b.screencast().await)
    }
    async fn keep_response_bodies(&self) {
        delegate!(self, b => b.keep_response_bodies().await)
    }
    fn bodies(&self) -> Result<(), NoBodies> {
        delegate!(self, b => b.bodies())
    }
    fn resource_request(&self, url: &str) -> Option<crate::steplog::Recorded> {
        delegate!(self, b => b.resource_request(url))
    }
    async fn response_body(&self, request: &str) -> Result<Vec<u8>, BrowserError> {
        delegate!(self, b => b.response_body(request).await)
    }
}
