//! A WebDriver page's network control, dialogs, downloads and popups (moved
//! from `network.rs`, `dialog.rs`, `download.rs`, `popup.rs`), and its
//! [`PageBackend`] implementation, which delegates to the files of this
//! folder.

use std::future::Future;
use std::panic::Location;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fantoccini::Client;
use serde::de::IgnoredAny;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::WebDriverPage;
use crate::browser::backend::page_backend::{
    self, DownloadArm, History, PageBackend, PopupArm, Shot,
};
use crate::browser::bidi::Bidi;
use crate::browser::bidi::protocol::{DownloadBehavior, SetDownloadBehavior};
use crate::browser::config::BrowserKind;
use crate::browser::cookies::Cookie;
use crate::browser::dialogs::{Handler, Recorder};
use crate::browser::error::BrowserError;
use crate::browser::glob::{Matcher, UrlPattern};
use crate::browser::logs::{ConsoleEntry, NetworkEntry};
use crate::browser::protocol::{Answer, Call, FrameScope};
use crate::browser::routes::Route;
use crate::browser::steplog::Seen;
use crate::browser::wire::{self, cdp};

impl WebDriverPage {
    /// The page's BiDi connection, or the error saying why there is none: an
    /// engine without BiDi (WebKitGTK) is `Unsupported`, naming the engine; a
    /// remote end that offers none is `Invalid`, saying what to use instead.
    fn need_bidi(&self, what: &str, at: &'static Location<'static>) -> Result<&Bidi, BrowserError> {
        if let Some(b) = self.bidi() {
            return Ok(b);
        }
        if self.browser() == BrowserKind::Webkit {
            return Err(BrowserError::Unsupported {
                browser: self.browser(),
                what: what.to_string(),
                why: "network control needs WebDriver BiDi, and WebKitWebDriver offers none (it refuses webSocketUrl); run this scenario with --browser chromium or --browser firefox".into(),
            });
        }
        Err(BrowserError::Invalid {
            message: format!(
                "{what} needs WebDriver BiDi, and this WebDriver offers none (its new session returned no webSocketUrl): use a chromedriver of version 115 or later, or a Grid node that passes BiDi through"
            ),
            location: Some(at),
        })
    }

    fn dialog_handler(
        &self,
        handler: Arc<Handler>,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        if self.bidi().is_none() && self.browser() == BrowserKind::Webkit {
            return Err(BrowserError::Unsupported {
                browser: self.browser(),
                what: "page.on_dialog".into(),
                why: "dialogs reach a handler through WebDriver BiDi, and WebKitWebDriver offers none: they are dismissed (and not recorded); run this scenario with --browser chromium or --browser firefox".into(),
            });
        }
        let bidi = self.bidi().ok_or_else(|| BrowserError::Invalid {
            message: "page.on_dialog needs WebDriver BiDi, and this WebDriver offers none (its new session returned no webSocketUrl): dialogs are dismissed by the classic default there; use a chromedriver of version 115 or later, or a Grid node that passes BiDi through".into(),
            location: Some(at),
        })?;
        bidi.dialogs.set_handler(handler);
        Ok(())
    }

    /// Chromium: the download folder through CDP. Firefox: through BiDi's
    /// `browser.setDownloadBehavior`. WebKitWebDriver has neither (and
    /// answers a CDP command with a bare 405 that drops the connection).
    async fn downloads_to(&self, folder: Option<&str>) -> Result<(), BrowserError> {
        let bidi = match (self.browser(), self.bidi()) {
            (BrowserKind::Chromium, _) => None,
            (BrowserKind::Firefox, Some(b)) => Some(b.clone()),
            (browser, _) => {
                return Err(BrowserError::Unsupported {
                    browser,
                    what: "page.wait_for_download".into(),
                    why: "the download folder is set through Chromium's DevTools or WebDriver BiDi, and this session has neither; run this scenario with --browser chromium or --browser firefox".into(),
                });
            }
        };
        match (&bidi, folder) {
            (Some(b), folder) => {
                let set = SetDownloadBehavior {
                    download_behavior: folder.map(|dir| DownloadBehavior::Allowed {
                        destination_folder: dir.to_string(),
                    }),
                };
                let sent = b
                    .command::<_, IgnoredAny>("browser.setDownloadBehavior", &set)
                    .await;
                if folder.is_some() {
                    sent?;
                }
            }
            (None, Some(dir)) => {
                let set = json!({"behavior": "allow", "downloadPath": dir});
                if cdp(&self.client, "Browser.setDownloadBehavior", set.clone())
                    .await
                    .is_err()
                {
                    cdp(&self.client, "Page.setDownloadBehavior", set).await?;
                }
            }
            (None, None) => {
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
        if self.engine.window().is_none() {
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

impl PageBackend for WebDriverPage {
    fn kind(&self) -> BrowserKind {
        self.browser
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
        WebDriverPage::set_input_files(self, frame, call, files, during, desc).await
    }
    async fn goto(&self, url: &str) -> Result<(), BrowserError> {
        WebDriverPage::goto(self, url).await
    }
    async fn reload(&self) -> Result<(), BrowserError> {
        WebDriverPage::reload(self).await
    }
    async fn go(&self, to: History) -> Result<(), BrowserError> {
        WebDriverPage::go(self, to).await
    }
    async fn url(&self) -> Result<String, BrowserError> {
        WebDriverPage::url(self).await
    }
    async fn title(&self) -> Result<String, BrowserError> {
        WebDriverPage::title(self).await
    }
    async fn html(&self) -> Result<String, BrowserError> {
        WebDriverPage::html(self).await
    }
    async fn evaluate(&self, js: &str, arg: Value) -> Result<Value, BrowserError> {
        WebDriverPage::evaluate(self, js, arg).await
    }
    async fn eval(&self, js: &str) -> Result<Value, BrowserError> {
        WebDriverPage::eval(self, js).await
    }
    async fn wait_for_function(
        &self,
        js: &str,
        args: Value,
        timeout_ms: u64,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        WebDriverPage::wait_for_function(self, js, args, timeout_ms, during).await
    }
    async fn perform(&self, actions: Value, during: &str) -> Result<(), BrowserError> {
        WebDriverPage::perform(self, actions, during).await
    }
    async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        WebDriverPage::insert_text(self, text).await
    }
    async fn screenshot(&self, shot: Shot<'_>) -> Result<Vec<u8>, BrowserError> {
        WebDriverPage::screenshot(self, shot).await
    }
    async fn set_viewport(&self, width: u32, height: u32) -> Result<(), BrowserError> {
        WebDriverPage::set_viewport(self, width, height).await
    }
    fn viewport(&self) -> Option<(u32, u32)> {
        WebDriverPage::viewport(self)
    }
    async fn take_logs(&self) -> Result<Logs, BrowserError> {
        WebDriverPage::take_logs(self).await
    }
    async fn peek_logs(&self, pending: bool) -> Result<Logs, BrowserError> {
        WebDriverPage::peek_logs(self, pending).await
    }
    async fn cdp(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        WebDriverPage::cdp(self, method, params).await
    }
    async fn cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        WebDriverPage::cookies(self).await
    }
    async fn set_cookies(&self, cookies: &[Cookie], base_url: &str) -> Result<(), BrowserError> {
        WebDriverPage::set_cookies(self, cookies, base_url).await
    }
    async fn store_cookies(&self, cookies: &[Cookie], base_url: &str) -> Result<(), BrowserError> {
        WebDriverPage::store_cookies(self, cookies, base_url).await
    }
    async fn open_url(&self, url: &str, during: &str) -> Result<(), BrowserError> {
        WebDriverPage::open_url(self, url, during).await
    }
    async fn other_origin_storage(&self, origin: &str) -> Vec<(String, String)> {
        WebDriverPage::other_origin_storage(self, origin).await
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
        let bidi = self.need_bidi("page.route", at)?;
        bidi.route(pattern, base_url, handler).await
    }
    async fn unroute(
        &self,
        pattern: &UrlPattern,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let bidi = self.need_bidi("page.unroute", at)?;
        bidi.unroute(pattern).await.map(|_| ())
    }
    fn network_waiter(
        &self,
        matcher: Matcher,
        response: bool,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<oneshot::Receiver<Seen>, BrowserError> {
        let bidi = self.need_bidi(what, at)?;
        Ok(bidi.log.waiter(matcher, response))
    }
    fn set_dialog_handler(
        &self,
        handler: Arc<Handler>,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        self.dialog_handler(handler, at)
    }
    fn set_dialog_recorder(&self, recorder: Arc<Recorder>) {
        if let Some(bidi) = &self.bidi {
            bidi.dialogs.set_recorder(recorder);
        }
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
    ) -> Result<WebDriverPage, BrowserError> {
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
