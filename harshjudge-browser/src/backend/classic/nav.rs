//! A classic page's navigation, reads, screenshots and viewport.

use base64::Engine as _;
use fantoccini::Client;
use serde_json::{Value, json};

use super::ClassicPage;
use crate::backend::page_backend::{History, Shot};
use crate::config::BrowserKind;
use crate::engines;
use crate::error::{BrowserError, cmd_err};
use crate::protocol::Clip;
use crate::wire::{self, cdp};

pub(super) async fn get_log(client: &Client, kind: &str) -> Result<Value, BrowserError> {
    wire::post(
        client,
        "se/log",
        json!({"type": kind}),
        &format!("reading the {kind} log"),
    )
    .await
}

/// Clears cookies, cache and storage, closes extra windows, drains the logs and
/// leaves the tab on `about:blank`.
pub(crate) async fn reset(client: &Client) -> Result<(), BrowserError> {
    let windows = client
        .windows()
        .await
        .map_err(|e| cmd_err("listing windows", e))?;
    if windows.len() > 1 {
        let keep = windows[0].clone();
        for w in windows.into_iter().skip(1) {
            client
                .switch_to_window(w)
                .await
                .map_err(|e| cmd_err("switching window", e))?;
            client
                .close_window()
                .await
                .map_err(|e| cmd_err("closing window", e))?;
        }
        client
            .switch_to_window(keep)
            .await
            .map_err(|e| cmd_err("switching window", e))?;
    }
    if let Ok(url) = client.current_url().await
        && url.scheme().starts_with("http")
    {
        let origin = url.origin().ascii_serialization();
        cdp(
            client,
            "Storage.clearDataForOrigin",
            json!({"origin": origin, "storageTypes": "all"}),
        )
        .await?;
    }
    cdp(client, "Network.clearBrowserCookies", json!({})).await?;
    cdp(client, "Network.clearBrowserCache", json!({})).await?;
    // Navigate straight (fantoccini's `goto` reads the URL first: one more command).
    wire::post(
        client,
        "url",
        json!({"url": "about:blank"}),
        "opening about:blank",
    )
    .await?;
    let _ = get_log(client, "devtools").await;
    Ok(())
}

impl ClassicPage {
    /// Opens `url`, until it loaded. Classic Navigate To does not say when
    /// a navigation of the page's own took its place (no interruption error
    /// here: the protocol does not tell it).
    pub(super) async fn goto(&self, url: &str) -> Result<(), BrowserError> {
        let during = format!("opening {url}");
        self.engine
            .in_window(wire::post(
                &self.client,
                "url",
                json!({"url": url}),
                &during,
            ))
            .await
            .map(|_| ())
    }

    /// Reloads the page.
    pub(super) async fn reload(&self) -> Result<(), BrowserError> {
        self.engine
            .in_window(wire::post(
                &self.client,
                "refresh",
                json!({}),
                "reloading the page",
            ))
            .await
            .map(|_| ())
    }

    /// Goes back or forward in history.
    pub(super) async fn go(&self, to: History) -> Result<(), BrowserError> {
        let (path, during) = match to {
            History::Back => ("back", "going back"),
            History::Forward => ("forward", "going forward"),
        };
        self.engine
            .in_window(wire::post(&self.client, path, json!({}), during))
            .await
            .map(|_| ())
    }

    /// A DevTools command through chromedriver.
    pub(super) async fn cdp(&self, command: &str, params: Value) -> Result<Value, BrowserError> {
        if self.browser != BrowserKind::Chromium {
            return Err(engines::no_cdp(self.browser, command));
        }
        cdp(&self.client, command, params).await
    }

    /// Sets the viewport to `width`x`height` CSS pixels.
    pub(super) async fn set_viewport(&self, width: u32, height: u32) -> Result<(), BrowserError> {
        // Chromium: CDP's emulation; elsewhere the window's size.
        let set = match self.browser {
            BrowserKind::Chromium => cdp(
                &self.client,
                "Emulation.setDeviceMetricsOverride",
                json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
            )
            .await
            .map(|_| ()),
            _ => engines::set_window_size(&self.client, (width, height)).await,
        };
        if let Some(s) = self.session.lock().expect("session lock").as_mut() {
            s.viewport = set.is_ok().then_some((width, height));
        }
        set
    }

    /// The viewport the session was last set to.
    pub(super) fn viewport(&self) -> Option<(u32, u32)> {
        self.session
            .lock()
            .expect("session lock")
            .as_ref()
            .and_then(|s| s.viewport)
    }

    /// A PNG of `shot`.
    pub(super) async fn screenshot(&self, shot: Shot<'_>) -> Result<Vec<u8>, BrowserError> {
        match shot {
            Shot::Viewport => self.capture_viewport().await,
            Shot::FullPage => self.capture_full().await,
            Shot::Clip(b) => self.capture_clip(b).await,
        }
    }

    async fn capture_viewport(&self) -> Result<Vec<u8>, BrowserError> {
        self.engine
            .in_window(async {
                self.client
                    .screenshot()
                    .await
                    .map_err(|e| wire::fail("taking a screenshot", e))
            })
            .await
    }

    /// A PNG of a region of the page (document coordinates).
    async fn capture_clip(&self, b: &Clip) -> Result<Vec<u8>, BrowserError> {
        if self.browser != BrowserKind::Chromium {
            return Err(engines::no_clip(self.browser));
        }
        let shot = cdp(
            &self.client,
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true, "clip": {
                "x": b.x, "y": b.y, "width": b.width, "height": b.height, "scale": 1}}),
        )
        .await?;
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap_or_default())
            .map_err(|e| cmd_err("decoding a screenshot", e))
    }

    /// A PNG of the whole page.
    async fn capture_full(&self) -> Result<Vec<u8>, BrowserError> {
        let c = &self.client;
        if self.browser != BrowserKind::Chromium {
            return engines::capture_viewport(c).await;
        }
        let metrics = cdp(c, "Page.getLayoutMetrics", json!({})).await?;
        let size = if metrics["cssContentSize"].is_object() {
            &metrics["cssContentSize"]
        } else {
            &metrics["contentSize"]
        };
        let (w, h) = (
            size["width"].as_f64().unwrap_or(1280.0),
            size["height"].as_f64().unwrap_or(800.0),
        );
        let shot = cdp(
            c,
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true, "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}}),
        )
        .await?;
        let data = shot["data"].as_str().unwrap_or_default();
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| cmd_err("decoding a full-page screenshot", e))
    }

    /// The current URL.
    pub(super) async fn url(&self) -> Result<String, BrowserError> {
        self.engine
            .in_window(async {
                self.client
                    .current_url()
                    .await
                    .map(|u| u.to_string())
                    .map_err(|e| wire::fail("reading the URL", e))
            })
            .await
    }

    /// The document's title.
    pub(super) async fn title(&self) -> Result<String, BrowserError> {
        self.engine
            .in_window(async {
                self.client
                    .title()
                    .await
                    .map_err(|e| wire::fail("reading the title", e))
            })
            .await
    }

    /// The page's HTML as it is now.
    pub(super) async fn html(&self) -> Result<String, BrowserError> {
        self.engine
            .in_window(async {
                self.client
                    .source()
                    .await
                    .map_err(|e| wire::fail("reading the HTML", e))
            })
            .await
    }
}
