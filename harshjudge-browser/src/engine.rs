//! What every backend's engine call shares: the page's answer turned into a
//! value or a located [`BrowserError`] (the one place an [`EngineError`]
//! becomes one), the frame lookup of the frame walk, the frame offset
//! script. The calls themselves are the backends' (`backend/walk.rs` for
//! CDP and BiDi, `backend/classic/engine.rs` for classic WebDriver).

use std::panic::Location;
use std::time::Duration;

use serde_json::Value;

use super::error::BrowserError;
use super::protocol::{Action, Answer, Call, EngineError, FrameScope, Request, Target};

/// The offset of the current frame's viewport in the top document's (CSS
/// pixels): each frame element's box, border and padding, up to the top.
/// Also the injected engine's `hjeFrameOffset` (`wire::install_source`).
pub(crate) const FRAME_OFFSET_JS: &str = "let x = 0, y = 0, w = window;
while (w.frameElement) {
  const f = w.frameElement, r = f.getBoundingClientRect(), s = w.parent.getComputedStyle(f);
  x += r.left + f.clientLeft + parseFloat(s.paddingLeft || '0');
  y += r.top + f.clientTop + parseFloat(s.paddingTop || '0');
  w = w.parent;
}
return [x, y];";

/// Whether a command failed because a dialog is open (`unexpected alert open`).
pub(crate) fn prompt_open(e: &BrowserError) -> bool {
    matches!(e, BrowserError::Command { message, .. } if message.contains("unexpected alert open"))
}

/// The page's answer, or a typed error naming what this side does not know.
pub(crate) fn decode(v: Value, during: &str) -> Result<Answer, BrowserError> {
    Answer::decode(v).map_err(|e| BrowserError::Command {
        action: format!("reading the page engine's answer ({during})"),
        message: format!("{e}: the injected engine and this library disagree"),
    })
}

impl Answer {
    /// The value, or a located error naming `locator`, what was expected of it
    /// and the call log.
    pub(crate) fn into_value(
        self,
        locator: &str,
        what: &str,
        waited: Duration,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        let error = match self.result {
            Ok(v) => return Ok(v),
            Err(e) => e,
        };
        Err(match error {
            EngineError::Strict { count, matches } => BrowserError::Strict {
                locator: locator.to_string(),
                count,
                matches,
                location: Some(at),
            },
            EngineError::Timeout { problem } => BrowserError::Timeout {
                locator: locator.to_string(),
                expected: what.to_string(),
                found: format!(
                    "{}{}",
                    if problem.is_empty() {
                        "nothing"
                    } else {
                        &problem
                    },
                    call_log(&self.log)
                ),
                waited,
                location: Some(at),
            },
            EngineError::Usage { message } | EngineError::Js { message } => BrowserError::Invalid {
                message: format!("{locator}: {message}"),
                location: Some(at),
            },
        })
    }
}

/// The engine's call log as the indented list a failure shows.
pub(crate) fn call_log(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut s = String::from("\nCall log:");
    for l in lines {
        s.push_str("\n  - ");
        s.push_str(l);
    }
    s
}

/// The engine call that finds `frame`'s iframe element (waiting up to
/// `wait`), what it expects of it, and what it is doing, for both the
/// classic and the BiDi way into a frame.
pub(crate) fn frame_lookup(frame: &FrameScope, wait: Duration) -> (Call, &'static str, String) {
    let call = Call {
        request: Request::Act {
            target: Target {
                chain: frame.chain.clone(),
                describe: frame.desc.clone(),
                frame: None,
                trace: false,
            },
            action: Action::SetInputFiles,
            verify: None,
        },
        timeout: wait.as_millis() as u64,
    };
    (
        call,
        "be attached (the <iframe> of a frame locator)",
        format!("waiting for the frame {}", frame.desc),
    )
}
