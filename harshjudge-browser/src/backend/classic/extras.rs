//! A classic page's network control, dialogs and downloads (`Unsupported`
//! or an error naming what to use instead, but Chromium's downloads through
//! its CDP passthrough), popups (window handles), and its [`PageBackend`]
//! implementation, which delegates to the files of this folder.

use std::future::Future;
use std::panic::Location;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fantoccini::Client;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::ClassicPage;
use crate::backend::page_backend::{self, DownloadArm, History, PageBackend, PopupArm, Shot};
use crate::backend::unsupported::{changed, unsupported};
use crate::config::BrowserKind;
use crate::cookies::Cookie;
use crate::dialogs::{Handler, Recorder};
use crate::emulation::Emulation;
use crate::error::BrowserError;
use crate::glob::{Matcher, UrlPattern};
use crate::logs::{ConsoleEntry, NetworkEntry};
use crate::protocol::{Answer, Call, FrameScope};
use crate::routes::Route;
use crate::steplog::Seen;
use crate::wire::{self, cdp};

impl ClassicPage {
    /// Why the page has no network control, dialogs of its handlers: an
    /// engine without BiDi (WebKitGTK) is `Unsupported`, naming the engine; a
    /// remote end that offers none is `Invalid`, saying what to use instead.
    fn no_bidi(&self, what: &str, why: &str, at: &'static Location<'static>) -> BrowserError {
        if self.browser() == BrowserKind::Webkit {
            return BrowserError::Unsupported {
                browser: self.browser(),
                what: what.to_string(),
                why: format!(
                    "{why} needs WebDriver BiDi, and WebKitWebDriver offers none (it refuses webSocketUrl); run this scenario with --browser chromium or --browser firefox"
                ),
            };
        }
        BrowserError::Invalid {
            message: format!(
                "{what} needs WebDriver BiDi, and this WebDriver offers none (its new session returned no webSocketUrl): use a chromedriver of version 115 or later, or a Grid node that passes BiDi through"
            ),
            location: Some(at),
        }
    }

    /// Chromium: the download folder through CDP. The others have no way
    /// (WebKitWebDriver answers a CDP command with a bare 405 that drops the
    /// connection).
    async fn downloads_to(&self, folder: Option<&str>) -> Result<(), BrowserError> {
        if self.browser() != BrowserKind::Chromium {
            return Err(BrowserError::Unsupported {
                browser: self.browser(),
                what: "page.wait_for_download".into(),
                why: "the download folder is set through Chromium's DevTools or WebDriver BiDi, and this session has neither; run this scenario with --browser chromium or --browser firefox".into(),
            });
        }
        match folder {
            Some(dir) => {
                let set = json!({"behavior": "allow", "downloadPath": dir});
                if cdp(&self.client, "Browser.setDownloadBehavior", set.clone())
                    .await
                    .is_err()
                {
                    cdp(&self.client, "Page.setDownloadBehavior", set).await?;
                }
            }
            None => {
                let _ = cdp(
                    &self.client,
                    "Browser.setDownloadBehavior",
                    json!({"behavior": "default"}),
                )
                .await;
            }
        }
        Ok(())
    }

    /// The session's window handles.
    async fn window_handles(&self) -> Result<Vec<String>, BrowserError> {
        let handles = self
            .client
            .windows()
            .await
            .map_err(|e| wire::fail("listing the windows", e))?;
        Ok(handles.into_iter().map(String::from).collect())
    }

    /// Closes the page's window: a popup's (the session goes on in the main
    /// window); the main page's is an error naming the popup rule.
    async fn close_window(&self) -> Result<(), BrowserError> {
        if !self.engine.is_popup() {
            return Err(BrowserError::Invalid {
                message: "page.close() closes a popup's page (from wait_for_popup); the scenario's own page closes when the scenario ends".into(),
                location: None,
            });
        }
        self.engine
            .in_window(async {
                self.client
                    .close_window()
                    .await
                    .map_err(|e| wire::fail("closing the popup's window", e))
            })
            .await
    }
}

type Logs = (Vec<ConsoleEntry>, Vec<NetworkEntry>);

impl PageBackend for ClassicPage {
    fn kind(&self) -> BrowserKind {
        self.browser
    }
    fn init_scripts(&self, what: &str, at: &'static Location<'static>) -> Result<(), BrowserError> {
        Err(self.no_bidi(
            what,
            "a script run in each new document before the document's own scripts (an init script; page.clock()'s fake clock is one)",
            at,
        ))
    }
    async fn add_init_script(
        &self,
        _source: &str,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        self.init_scripts(what, at)
    }
    async fn session_id(&self) -> Option<String> {
        self.client.session_id().await.ok().flatten()
    }
    fn webdriver(&self) -> Option<&Client> {
        Some(&self.client)
    }
    async fn call_engine(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        self.engine.call_in(frame, call, during).await
    }
    async fn set_input_files(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        files: &[String],
        during: &str,
        desc: &str,
    ) -> Result<Answer, BrowserError> {
        ClassicPage::set_input_files(self, frame, call, files, during, desc).await
    }
    async fn goto(&self, url: &str) -> Result<(), BrowserError> {
        ClassicPage::goto(self, url).await
    }
    async fn reload(&self) -> Result<(), BrowserError> {
        ClassicPage::reload(self).await
    }
    async fn go(&self, to: History) -> Result<(), BrowserError> {
        ClassicPage::go(self, to).await
    }
    async fn url(&self) -> Result<String, BrowserError> {
        ClassicPage::url(self).await
    }
    async fn title(&self) -> Result<String, BrowserError> {
        ClassicPage::title(self).await
    }
    async fn html(&self) -> Result<String, BrowserError> {
        ClassicPage::html(self).await
    }
    async fn evaluate(&self, js: &str, arg: Value) -> Result<Value, BrowserError> {
        ClassicPage::evaluate(self, js, arg).await
    }
    async fn eval(&self, js: &str) -> Result<Value, BrowserError> {
        ClassicPage::eval(self, js).await
    }
    async fn wait_for_function(
        &self,
        js: &str,
        args: Value,
        timeout_ms: u64,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        ClassicPage::wait_for_function(self, js, args, timeout_ms, during).await
    }
    async fn perform(&self, actions: Value, during: &str) -> Result<(), BrowserError> {
        ClassicPage::perform(self, actions, during).await
    }
    async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        ClassicPage::insert_text(self, text).await
    }
    async fn screenshot(&self, shot: Shot<'_>) -> Result<Vec<u8>, BrowserError> {
        ClassicPage::screenshot(self, shot).await
    }
    async fn set_viewport(&self, width: u32, height: u32) -> Result<(), BrowserError> {
        ClassicPage::set_viewport(self, width, height).await
    }
    fn viewport(&self) -> Option<(u32, u32)> {
        ClassicPage::viewport(self)
    }
    fn emulation(&self) -> Emulation {
        self.emulation.lock().expect("emulation lock").clone()
    }
    /// The viewport (the window's size); nothing else has a classic
    /// WebDriver command.
    async fn apply_emulation(
        &self,
        wanted: &Emulation,
        _base_url: &str,
    ) -> Result<(), BrowserError> {
        let previous = PageBackend::emulation(self);
        let why = match self.browser {
            BrowserKind::Webkit => {
                "WebKitGTK's WebDriver (classic, no BiDi) has no command for it (its user agent, scripts off and time zone are MiniBrowser's command line and its locale its environment, set when the page opens, not after); run this scenario with --browser chromium or --browser firefox, or leave the option out on webkit"
            }
            _ => {
                "this remote end speaks classic WebDriver only (no webSocketUrl), which has no command for it; use a remote end with WebDriver BiDi or the local Chromium"
            }
        };
        if let Some(option) = changed(&previous, wanted)
            .into_iter()
            .find(|o| *o != "viewport")
        {
            return Err(unsupported(self.browser, option, why));
        }
        if let Some((w, h)) = wanted.viewport {
            ClassicPage::set_viewport(self, w, h).await?;
        }
        *self.emulation.lock().expect("emulation lock") = wanted.clone();
        Ok(())
    }
    async fn take_logs(&self) -> Result<Logs, BrowserError> {
        ClassicPage::take_logs(self).await
    }
    async fn peek_logs(&self, pending: bool) -> Result<Logs, BrowserError> {
        ClassicPage::peek_logs(self, pending).await
    }
    async fn cdp(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        ClassicPage::cdp(self, method, params).await
    }
    async fn cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        ClassicPage::cookies(self).await
    }
    async fn set_cookies(&self, cookies: &[Cookie], base_url: &str) -> Result<(), BrowserError> {
        ClassicPage::set_cookies(self, cookies, base_url).await
    }
    async fn store_cookies(&self, cookies: &[Cookie], base_url: &str) -> Result<(), BrowserError> {
        ClassicPage::store_cookies(self, cookies, base_url).await
    }
    async fn open_url(&self, url: &str, during: &str) -> Result<(), BrowserError> {
        ClassicPage::open_url(self, url, during).await
    }
    async fn evaluate_aside(&self, url: &str, expression: &str) -> Result<String, BrowserError> {
        ClassicPage::evaluate_aside(self, url, expression).await
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
        let _ = (pattern, base_url, handler);
        Err(self.no_bidi("page.route", "network control", at))
    }
    async fn unroute(
        &self,
        pattern: &UrlPattern,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let _ = pattern;
        Err(self.no_bidi("page.unroute", "network control", at))
    }
    fn network_waiter(
        &self,
        matcher: Matcher,
        response: bool,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<oneshot::Receiver<Seen>, BrowserError> {
        let _ = (matcher, response);
        Err(self.no_bidi(what, "network control", at))
    }
    fn set_dialog_handler(
        &self,
        handler: Arc<Handler>,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let _ = handler;
        if self.browser() == BrowserKind::Webkit {
            return Err(BrowserError::Unsupported {
                browser: self.browser(),
                what: "page.on_dialog".into(),
                why: "dialogs reach a handler through WebDriver BiDi, and WebKitWebDriver offers none: they are dismissed (and not recorded); run this scenario with --browser chromium or --browser firefox".into(),
            });
        }
        Err(BrowserError::Invalid {
            message: "page.on_dialog needs WebDriver BiDi, and this WebDriver offers none (its new session returned no webSocketUrl): dialogs are dismissed by the classic default there; use a chromedriver of version 115 or later, or a Grid node that passes BiDi through".into(),
            location: Some(at),
        })
    }
    fn set_dialog_recorder(&self, _recorder: Arc<Recorder>) {
        // No dialog reaches this side: nothing to record.
    }
    async fn watch_downloads(&self, folder: &Path) -> Result<DownloadArm, BrowserError> {
        self.downloads_to(Some(&folder.display().to_string()))
            .await?;
        Ok(DownloadArm::Folder(folder.to_path_buf()))
    }
    async fn end_downloads(&self) {
        let _ = self.downloads_to(None).await;
    }
    async fn watch_popups(&self) -> Result<PopupArm, BrowserError> {
        Ok(PopupArm::Windows(self.window_handles().await?))
    }
    async fn next_popup(
        &self,
        arm: &mut PopupArm,
        wait: Duration,
    ) -> Result<ClassicPage, BrowserError> {
        let PopupArm::Windows(before) = arm else {
            return Err(page_backend::foreign_arm());
        };
        let start = Instant::now();
        loop {
            let now = self.window_handles().await?;
            if let Some(new) = now.into_iter().find(|h| !before.contains(h)) {
                return Ok(self.popup_page(new));
            }
            if start.elapsed() >= wait {
                let found = format!("no new window; the session has {} window(s)", before.len());
                return Err(page_backend::no_popup(found, start.elapsed()));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    async fn close(&self) -> Result<(), BrowserError> {
        self.close_window().await
    }
}
