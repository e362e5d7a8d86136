//! What every backend's engine call shares: the page's answer turned into a
//! value or a located [`BrowserError`] (the one place an [`EngineError`]
//! becomes one), the frame lookup of the frame walk, and the coordinates
//! a frame's answer holds, moved into the page's viewport by the frame
//! elements' content boxes. The calls themselves are the backends' (`backend/walk.rs` for
//! CDP and BiDi, `backend/classic/engine.rs` for classic WebDriver).

use std::panic::Location;
use std::time::Duration;

use serde_json::Value;

use super::error::BrowserError;
use super::protocol::{Action, Answer, Call, EngineError, FrameScope, Request, Target};

/// The offset of the frame element `el`'s content box (its document's
/// viewport) in the viewport of the document it is in, `[x, y]`, read from
/// that document (a frame of another origin cannot read its own): each
/// backend's frame offset is the sum of its frames' ([`FrameCoordinates`]).
/// A function of `el`, or of `this` when called on the element.
pub(crate) const CONTENT_BOX_JS: &str = "function (el) { el = el || this; const r = el.getBoundingClientRect(), s = el.ownerDocument.defaultView.getComputedStyle(el);
return [r.left + el.clientLeft + parseFloat(s.paddingLeft || '0'), r.top + el.clientTop + parseFloat(s.paddingTop || '0')]; }";

/// The coordinates an answer to `request` holds in the viewport of the
/// frame it was computed in, which a frame's call moves into the page's
/// by the frame's offset: an action's point, a bounding box read, an
/// element screenshot's clip, the box of the element a traced call names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrameCoordinates {
    /// The answer's value is a box (or null): a bounding box read, an
    /// element screenshot's clip.
    box_read: bool,
    /// The answer may hold some: an action, a box read, a traced call.
    possible: bool,
}

impl FrameCoordinates {
    /// Those of an answer to `request`.
    pub(crate) fn of(request: &Request) -> FrameCoordinates {
        let box_read = matches!(
            request,
            Request::Query {
                read: super::protocol::Read::BoundingBox,
                all: false,
                ..
            } | Request::Act {
                action: Action::Screenshot,
                ..
            }
        );
        let traced = match request {
            Request::Act { target, .. }
            | Request::Checked { target }
            | Request::Query { target, .. }
            | Request::WaitFor { target, .. }
            | Request::Expect { target, .. } => target.trace,
            _ => false,
        };
        FrameCoordinates {
            box_read,
            possible: box_read || traced || matches!(request, Request::Act { .. }),
        }
    }

    /// Whether an answer to the request may hold some (before it came:
    /// whether the frames' offsets are needed).
    pub(crate) fn possible(self) -> bool {
        self.possible
    }

    /// Whether `answer` holds any.
    pub(crate) fn any(self, answer: &Answer) -> bool {
        answer.traced.is_some()
            || matches!(&answer.result, Ok(v) if v["point"].is_object() || (self.box_read && v.is_object()))
    }

    /// `answer`'s coordinates moved by `(x, y)`, the frame's offset in the
    /// page's viewport.
    pub(crate) fn move_by(self, answer: &mut Answer, (x, y): (f64, f64)) {
        let shift = |v: &mut Value| {
            for (k, by) in [("x", x), ("y", y)] {
                if let Some(c) = v[k].as_f64() {
                    v[k] = (c + by).into();
                }
            }
        };
        if let Ok(v) = &mut answer.result {
            if v["point"].is_object() {
                shift(&mut v["point"]);
            } else if self.box_read && v.is_object() {
                shift(v);
            }
        }
        if let Some(t) = &mut answer.traced {
            t.bbox.x += x;
            t.bbox.y += y;
        }
    }
}

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
