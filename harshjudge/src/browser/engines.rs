//! What differs between the three engines once a session is open: each
//! Chromium-only command (a CDP one) has its Firefox path (WebDriver BiDi) and
//! its WebKit path (classic WebDriver, or a recorded gap). The page calls these
//! instead of CDP when its session is not Chromium's.
//!
//! | | Chromium | Firefox | WebKit (WebKitGTK) |
//! |---|---|---|---|
//! | console, network, routes | BiDi | BiDi | none (no BiDi): a note in the step's console |
//! | viewport | CDP emulation (BiDi `setViewport` while the page has routes) | BiDi `setViewport` | window size |
//! | full-page and clip screenshots | CDP (BiDi while the page has routes) | BiDi (`origin: document`) | viewport only; clips unsupported |
//! | reads (`url`, `title`, `html`, scripts) | classic (BiDi while the page has routes) | BiDi | classic |
//! | engine registered per document | CDP | every call checks | every call checks |

use serde_json::json;

use super::bidi::Bidi;
use super::bidi::protocol::{BoxClip, BoxKind, Empty, Origin, SetViewport, Viewport};
use super::config::BrowserKind;
use super::error::{BrowserError, cmd_err};
use super::logs::ConsoleEntry;
use super::protocol::Clip;
use super::wire;

/// Says once per process that `browser`'s sessions offer no WebDriver BiDi.
pub(super) fn announce_no_bidi(browser: BrowserKind) {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| eprintln!("harshjudge: {}", no_bidi_note(browser)));
}

/// The note a step's console records when the engine cannot see the page's
/// console and network.
pub(super) fn no_bidi_note(browser: BrowserKind) -> String {
    format!(
        "{browser} offers no WebDriver BiDi (its driver returned no webSocketUrl) and no log endpoint: this page's console and network are not recorded, and routes and wait_for_request/wait_for_response are unavailable"
    )
}

/// That note as a console entry (level `info`, source `harshjudge`).
pub(super) fn no_bidi_entry(browser: BrowserKind) -> ConsoleEntry {
    ConsoleEntry {
        level: "info".into(),
        text: no_bidi_note(browser),
        source: "harshjudge".into(),
        url: None,
        line: None,
        timestamp: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or_default(),
    }
}

/// The BiDi context of the session's window.
fn context(bidi: &Bidi) -> Result<String, BrowserError> {
    bidi.context
        .lock()
        .expect("bidi lock")
        .clone()
        .ok_or_else(|| cmd_err("finding the window's browsing context", "none known"))
}

/// Sets the viewport: BiDi's `setViewport` on `bidi`'s context (Firefox's
/// page, and a Chromium page with routes), else the window's size (WebKitGTK's
/// MiniBrowser draws no toolbar in automation). Chromium's page without
/// routes uses CDP's emulation instead (`Page::set_viewport_size`).
pub(super) async fn set_viewport(
    client: &fantoccini::Client,
    bidi: Option<(&Bidi, &str)>,
    (width, height): (u32, u32),
) -> Result<(), BrowserError> {
    if let Some((bidi, context)) = bidi {
        let params = SetViewport {
            context,
            viewport: Viewport { width, height },
        };
        bidi.command::<_, Empty>("browsingContext.setViewport", &params)
            .await?;
        return Ok(());
    }
    wire::post(
        client,
        "window/rect",
        json!({"width": width, "height": height}),
        "setting the window size",
    )
    .await
    .map(drop)
}

/// A PNG through BiDi's `captureScreenshot` (`origin: document`), of `clip`
/// (document coordinates) or of the whole document.
async fn bidi_capture(bidi: &Bidi, clip: Option<&Clip>) -> Result<Vec<u8>, BrowserError> {
    bidi.capture(
        &context(bidi)?,
        Origin::Document,
        clip.map(box_clip),
        "taking a screenshot",
    )
    .await
}

/// A clip as BiDi's box.
pub(super) fn box_clip(b: &Clip) -> BoxClip {
    BoxClip {
        kind: BoxKind::Box,
        x: b.x,
        y: b.y,
        width: b.width,
        height: b.height,
    }
}

/// A full-page PNG of a non-Chromium session: BiDi, else (WebKit) the
/// viewport, the one screenshot its driver takes.
pub(super) async fn capture_full(
    client: &fantoccini::Client,
    bidi: Option<&Bidi>,
) -> Result<Vec<u8>, BrowserError> {
    match bidi {
        Some(bidi) => bidi_capture(bidi, None).await,
        None => client
            .screenshot()
            .await
            .map_err(|e| wire::fail("taking a screenshot", e)),
    }
}

/// A PNG of a region of the page of a non-Chromium session (BiDi only).
pub(super) async fn capture_clip(
    browser: BrowserKind,
    bidi: Option<&Bidi>,
    clip: &Clip,
) -> Result<Vec<u8>, BrowserError> {
    match bidi {
        Some(bidi) => bidi_capture(bidi, Some(clip)).await,
        None => Err(BrowserError::Unsupported {
            browser,
            what: "a screenshot of part of the page".into(),
            why: "its driver offers no WebDriver BiDi and no CDP, only viewport and element screenshots: compare the whole page instead".into(),
        }),
    }
}

/// Inserts its argument as an input method would, without CDP's
/// `Input.insertText`: the editing command of the document of the focused
/// element (down through focused same-origin frames). An `input` event of
/// inputType `insertText`, no key events; returns null.
pub(super) const INSERT_TEXT: &str = "function (text) {
  var d = document;
  while (d.activeElement && d.activeElement.contentDocument) { d = d.activeElement.contentDocument; }
  d.execCommand('insertText', false, text);
  return null;
}";

/// [`INSERT_TEXT`] over classic WebDriver (WebKit, and Firefox without BiDi).
pub(super) async fn insert_text(
    client: &fantoccini::Client,
    text: &str,
) -> Result<(), BrowserError> {
    client
        .execute(
            &format!("return ({INSERT_TEXT})(arguments[0]);"),
            vec![json!(text)],
        )
        .await
        .map(drop)
        .map_err(|e| wire::fail("inserting text", e))
}

/// The error of `Page::cdp` on another engine.
pub(super) fn no_cdp(browser: BrowserKind, command: &str) -> BrowserError {
    BrowserError::Unsupported {
        browser,
        what: format!("the Chrome DevTools command {command}"),
        why: "CDP is Chromium's; run this scenario with HARSHJUDGE_BROWSER=chromium (or --browser chromium)".into(),
    }
}
