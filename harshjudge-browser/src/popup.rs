//! Popups: [`Page::wait_for_popup`] runs an action and returns the window it
//! opened (`window.open`, a `target=_blank` link) as a [`Page`]: the backend
//! arms a watch before the action (`PageBackend::watch_popups`: over CDP the
//! popup targets the browser attaches, over WebDriver the session's window
//! handles, whose popup page switches to its window and back). The popup's URL and a screenshot of it, once loaded, are
//! evidence of the step (`popup-N.json`, `popup-N.png`).

use std::future::Future;
use std::panic::Location;
use std::time::{Duration, Instant};

use serde_json::json;

use super::backend::PageBackend;
use super::error::BrowserError;
use super::page::Page;

impl Page {
    /// Runs `action` and returns the popup window it opened (by `window.open`
    /// or a `target=_blank` link), as a page: `let popup =
    /// page.wait_for_popup(async { page.get_by_text("Open").click().await }).await?`.
    /// Waits up to the page's limit for the window to appear; its URL and a
    /// screenshot once loaded become evidence of the step (`popup-N.json`,
    /// `popup-N.png`). An action that opens nothing fails, naming the wait.
    #[track_caller]
    pub fn wait_for_popup<'a, F, T>(
        &'a self,
        action: F,
    ) -> impl Future<Output = Result<Page, BrowserError>> + Send + 'a
    where
        F: Future<Output = Result<T, BrowserError>> + Send + 'a,
        T: Send + 'a,
    {
        let at = Location::caller();
        Box::pin(async move {
            let mut arm = self
                .backend()
                .watch_popups()
                .await
                .map_err(|e| e.located(at))?;
            action.await.map_err(|e| e.located(at))?;
            let start = Instant::now();
            let opened = self
                .backend()
                .next_popup(&mut arm, self.wait())
                .await
                .map_err(|e| e.located(at))?;
            let popup = self.popup_page(opened);
            popup.record_popup(start).await;
            Ok(popup)
        })
    }

    /// Waits (within the page's limit) for the popup to load, then attaches
    /// its URL and a screenshot to the step running.
    async fn record_popup(&self, start: Instant) {
        let left = self.wait().saturating_sub(start.elapsed());
        let _ = tokio::time::timeout(left, async {
            while !matches!(
                self.eval(
                    "return document.readyState === 'complete' && location.href !== 'about:blank'"
                )
                .await,
                Ok(serde_json::Value::Bool(true))
            ) {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await;
        let Some(owner) = self.owner() else { return };
        let n = owner.next_number("popup");
        let url = self.url().await.unwrap_or_default();
        let title = self.title().await.unwrap_or_default();
        if let Ok(bytes) = serde_json::to_vec_pretty(&json!({"url": url, "title": title})) {
            let _ = owner
                .clone()
                .attach(&format!("popup-{n}"), "json", "popup", &bytes);
        }
        if let Ok(png) = self.screenshot().await {
            let _ = owner.attach(&format!("popup-{n}"), "png", "screenshot", &png);
        }
    }

    /// Closes the page's window: a popup's (the session goes on in the main
    /// window). The main page is closed by its scenario's end, not by this: it
    /// is an error naming the popup rule.
    pub async fn close(&self) -> Result<(), BrowserError> {
        self.backend().close().await
    }
}
