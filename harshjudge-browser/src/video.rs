//! A page's frame stream, for the run's video (`HARSHJUDGE_VIDEO`, the
//! runner's `runner/video.rs`): what the page's backend offers
//! ([`PageBackend::screencast`]): Chromium over the DevTools protocol streams
//! its painted frames (`backend/cdp/screencast.rs`); WebDriver (BiDi and
//! classic: Firefox, WebKit, Chromium through chromedriver or a Grid) has
//! no frame stream, so such a page has no video.

use super::backend::PageBackend;
pub use super::backend::cdp::screencast::{Frame as ScreencastFrame, Screencast};
use super::error::BrowserError;
use super::page::Page;

impl Page {
    /// Starts streaming the page's frames, `None` when its protocol cannot
    /// (WebDriver).
    pub async fn screencast(&self) -> Result<Option<Screencast>, BrowserError> {
        self.backend().screencast().await
    }

    /// The page's viewport, if known (the video's size).
    pub fn known_viewport(&self) -> Option<(u32, u32)> {
        self.backend().viewport()
    }

    /// What the page is, for a message: its engine and the protocol it speaks.
    pub fn engine_and_protocol(&self) -> String {
        format!("{} over {}", self.backend().kind(), self.protocol())
    }
}
