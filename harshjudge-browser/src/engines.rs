//! Helpers the backends share where engines differ: the note a page without
//! BiDi records (WebKitGTK), BiDi's screenshot clip box, `INSERT_TEXT` (text
//! inserted without CDP), the classic window size as the viewport, and the
//! error of `Page::cdp` on another engine. Which protocol a page speaks is
//! its backend's, picked once when its session opens (`backend/mod.rs`):
//!
//! | | CDP (local Chromium) | BiDi (Firefox, chromedriver, Grid nodes with BiDi) | classic (WebKitGTK, remote ends without BiDi) |
//! |---|---|---|---|
//! | console, network, routes | live | live | chromedriver's `devtools` log, else a note; routes unsupported |
//! | viewport | CDP emulation | BiDi `setViewport` | CDP emulation (Chromium) or window size |
//! | full-page and clip screenshots | CDP | BiDi (`origin: document`) | CDP (Chromium); else viewport only, clips unsupported |
//! | reads (`url`, `title`, `html`, scripts) | CDP | BiDi | classic |

use serde_json::json;

use super::bidi::protocol::{BoxClip, BoxKind};
use super::config::BrowserKind;
use super::error::BrowserError;
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

/// Sets the window's size (WebKitGTK's MiniBrowser draws no toolbar in
/// automation, so it is the viewport's): the classic backend's way where
/// there is no CDP emulation.
pub(super) async fn set_window_size(
    client: &fantoccini::Client,
    (width, height): (u32, u32),
) -> Result<(), BrowserError> {
    wire::post(
        client,
        "window/rect",
        json!({"width": width, "height": height}),
        "setting the window size",
    )
    .await
    .map(drop)
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

/// A "full-page" PNG of a classic session without CDP: the viewport, the
/// one screenshot its driver takes.
pub(super) async fn capture_viewport(client: &fantoccini::Client) -> Result<Vec<u8>, BrowserError> {
    client
        .screenshot()
        .await
        .map_err(|e| wire::fail("taking a screenshot", e))
}

/// A region of the page of a classic session without CDP: unsupported.
pub(super) fn no_clip(browser: BrowserKind) -> BrowserError {
    BrowserError::Unsupported {
        browser,
        what: "a screenshot of part of the page".into(),
        why: "its driver offers no WebDriver BiDi and no CDP, only viewport and element screenshots: compare the whole page instead".into(),
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
    // Into the frame of another origin holding the focus, if one does (the
    // page's script cannot reach into its document), then back to the top
    // whatever happened.
    let mut entered = false;
    let inserted = async {
        for _ in 0..MAX_FRAME_DEPTH {
            let frame = client
                .execute(&format!("return ({FOCUSED_FRAME_JS})();"), vec![])
                .await
                .map_err(|e| wire::fail("finding the focused frame", e))?;
            if frame.is_null() {
                break;
            }
            entered = true;
            let entering = "entering the focused frame";
            wire::post(client, "frame", json!({"id": frame}), entering).await?;
        }
        client
            .execute(
                &format!("return ({INSERT_TEXT})(arguments[0]);"),
                vec![json!(text)],
            )
            .await
            .map(drop)
            .map_err(|e| wire::fail("inserting text", e))
    }
    .await;
    if entered {
        let _ = wire::post(client, "frame", json!({"id": null}), "leaving the frame").await;
    }
    inserted
}

/// How deep frames holding the focus are entered.
pub(crate) const MAX_FRAME_DEPTH: usize = 8;

/// The frame element of another origin holding the focus, through the
/// frames of this document's origin; null when none does. Its document is
/// where keys and inserted text go, and the page's script cannot reach it.
pub(crate) const FOCUSED_FRAME_JS: &str = "function () {
  let d = document;
  for (;;) {
    const el = d.activeElement;
    if (!el || (el.localName !== 'iframe' && el.localName !== 'frame')) return null;
    let inner = null;
    try { inner = el.contentDocument; } catch (e) {}
    if (!inner) return el;
    d = inner;
  }
}";

/// The error of `Page::cdp` on another engine.
pub(super) fn no_cdp(browser: BrowserKind, command: &str) -> BrowserError {
    BrowserError::Unsupported {
        browser,
        what: format!("the Chrome DevTools command {command}"),
        why: "CDP is Chromium's; run this scenario with HARSHJUDGE_BROWSER=chromium (or --browser chromium)".into(),
    }
}
