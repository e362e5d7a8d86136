//! Which browsing context the BiDi page's input goes to.
//!
//! Remote ends read the context of `input.performActions` in two ways
//! (w3c/webdriver#1840), and which one is the remote end's is known when the
//! session opens ([`FrameInput::of`]):
//!
//! - chromium-bidi dispatches every action from the top-level target, with
//!   the top-level viewport's coordinates; Chromium routes the events into
//!   frames, out-of-process ones included. The page's input stays on its
//!   top-level context.
//! - Firefox synthesizes an action's events in the process of the context it
//!   is given, with that context's viewport's coordinates. Dispatched on the
//!   top-level context, a click over a frame of another site (out of process
//!   under site isolation) reaches the `<iframe>` element in the page and
//!   never the frame's document, and keys typed while such a frame has the
//!   focus go nowhere. So on Firefox input is performed in the context of
//!   the out-of-process frame under the pointer (the frame holding the focus,
//!   for keys alone), its coordinates moved into that frame's viewport.
//!
//! Frames of the page's own process get top-level input on both (their
//! events are dispatched from the page's document), so only a frame the
//! page cannot reach into (`contentDocument` null) is entered.

use std::time::Duration;

use serde_json::Value;

use super::BidiPage;
use crate::bidi::protocol::{Argument, LocalValue};
use crate::config::BrowserKind;
use crate::engine::CONTENT_BOX_JS;
use crate::engines::{FOCUSED_FRAME_JS, MAX_FRAME_DEPTH};
use crate::error::BrowserError;

/// How a remote end reads the context of an input action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameInput {
    /// From the top-level context, whatever context it is given (Chromium).
    Top,
    /// In the given context's own document (Firefox).
    InFrame,
}

impl FrameInput {
    /// The way of `browser`'s remote end.
    pub(crate) fn of(browser: BrowserKind) -> FrameInput {
        match browser {
            BrowserKind::Firefox => FrameInput::InFrame,
            _ => FrameInput::Top,
        }
    }
}

/// Where input goes: a browsing context, and the offset of its viewport in
/// the page's.
#[derive(Clone, Debug)]
pub(crate) struct InputTarget {
    pub(crate) context: String,
    pub(crate) x: f64,
    pub(crate) y: f64,
}

/// The out-of-process frame under (x, y) of this document's viewport, through
/// the frames of its own process: `[its window, the offset of its viewport]`,
/// or null when the point is over none.
fn at_point_js() -> &'static str {
    static JS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    JS.get_or_init(|| {
        format!(
            "function (x, y) {{
  const contentBox = ({CONTENT_BOX_JS});
  let d = document, ox = 0, oy = 0;
  for (;;) {{
    const el = d.elementFromPoint(x - ox, y - oy);
    if (!el || (el.localName !== 'iframe' && el.localName !== 'frame')) return null;
    const [bx, by] = contentBox(el);
    ox += bx;
    oy += by;
    let inner = null;
    try {{ inner = el.contentDocument; }} catch (e) {{}}
    if (!inner) return el.contentWindow ? [el.contentWindow, ox, oy] : null;
    d = inner;
  }}
}}"
        )
    })
}

/// The out-of-process frame that holds the focus
/// ([`FOCUSED_FRAME_JS`]): `[its window, 0, 0]`, or null.
fn focused_js() -> &'static str {
    static JS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    JS.get_or_init(|| {
        format!(
            "function () {{ const el = ({FOCUSED_FRAME_JS})(); return el && el.contentWindow ? [el.contentWindow, 0, 0] : null; }}"
        )
    })
}

/// How long finding the frame may take: past it (a document busy, a
/// navigation), the input goes where the search got to.
const SEARCH_LIMIT: Duration = Duration::from_secs(2);

impl BidiPage {
    /// The page's own context, where input goes unless a frame takes it.
    fn top_target(&self) -> InputTarget {
        InputTarget {
            context: self.context.clone(),
            x: 0.0,
            y: 0.0,
        }
    }

    /// The context `actions` go to.
    async fn input_target(&self, actions: &Value) -> InputTarget {
        let top = self.top_target();
        if self.frame_input == FrameInput::Top {
            return top;
        }
        let pointer = has_pointer(actions);
        match first_point(actions) {
            Some(point) => {
                let target = self.descend(top, Some(point)).await;
                if pointer {
                    *self.pointer.lock().expect("pointer lock") = Some(target.clone());
                }
                target
            }
            // A press or release where the pointer is: the context it was
            // last moved into.
            None if pointer => (self.pointer.lock().expect("pointer lock"))
                .clone()
                .unwrap_or(top),
            None => self.descend(top, None).await,
        }
    }

    /// The context of the frame holding the focus, through the frames of
    /// other sites (the page's own when none of them has it): where a script
    /// acting on the focused element runs, on every remote end.
    pub(super) async fn focused_context(&self) -> String {
        self.descend(self.top_target(), None).await.context
    }

    /// From `at` into the out-of-process frames under `point` (`None`: the
    /// ones holding the focus), as deep as they go.
    async fn descend(&self, mut at: InputTarget, point: Option<(f64, f64)>) -> InputTarget {
        for _ in 0..MAX_FRAME_DEPTH {
            let (function, arguments) = match point {
                Some((x, y)) => (
                    at_point_js(),
                    vec![
                        Argument::Value(LocalValue::Number { value: x - at.x }),
                        Argument::Value(LocalValue::Number { value: y - at.y }),
                    ],
                ),
                None => (focused_js(), Vec::new()),
            };
            let during = "finding the frame input goes to";
            let found = self.bidi.frame_at(&at.context, function, arguments, during);
            match tokio::time::timeout(SEARCH_LIMIT, found).await {
                Ok(Ok(Some((context, dx, dy)))) => {
                    at = InputTarget {
                        context,
                        x: at.x + dx,
                        y: at.y + dy,
                    };
                }
                _ => break,
            }
        }
        at
    }

    /// Performs `actions` where they go ([`BidiPage::input_target`]), in
    /// that context's viewport's coordinates. A frame gone since the pointer
    /// entered it gives the page its input again.
    pub(super) async fn perform_input(
        &self,
        actions: Value,
        during: &str,
    ) -> Result<(), BrowserError> {
        let target = self.input_target(&actions).await;
        if target.context == self.context {
            return self
                .bidi
                .perform_actions(&self.context, actions, during)
                .await;
        }
        let moved = shifted(actions.clone(), target.x, target.y);
        let done = self
            .bidi
            .perform_actions(&target.context, moved, during)
            .await;
        match done {
            Err(BrowserError::Command { message, .. }) if message.contains("no such frame") => {
                *self.pointer.lock().expect("pointer lock") = None;
                self.bidi
                    .perform_actions(&self.context, actions, during)
                    .await
            }
            done => done,
        }
    }
}

/// The sources of `kinds` among the actions.
fn sources<'a>(actions: &'a Value, kinds: &'a [&str]) -> impl Iterator<Item = &'a Value> {
    let kind = |s: &&Value| s["type"].as_str().is_some_and(|t| kinds.contains(&t));
    actions.as_array().into_iter().flatten().filter(kind)
}

/// The actions of every pointer and wheel source.
fn pointer_actions(actions: &Value) -> impl Iterator<Item = &Value> {
    sources(actions, &["pointer", "wheel"])
        .flat_map(|s| s["actions"].as_array().into_iter().flatten())
}

/// Whether an action has coordinates in the viewport (a pointer's move or a
/// wheel's scroll whose origin is the viewport, as it is by default).
fn at_viewport_point(a: &Value) -> bool {
    matches!(a["type"].as_str(), Some("pointerMove" | "scroll"))
        && (matches!(a.get("origin"), None | Some(Value::Null)) || a["origin"] == "viewport")
}

/// The first point of the viewport the actions move to.
fn first_point(actions: &Value) -> Option<(f64, f64)> {
    pointer_actions(actions)
        .find(|a| at_viewport_point(a))
        .and_then(|a| Some((a["x"].as_f64()?, a["y"].as_f64()?)))
}

/// Whether a pointer source is among the actions (a wheel has no position
/// of its own to keep).
fn has_pointer(actions: &Value) -> bool {
    sources(actions, &["pointer"]).next().is_some()
}

/// The actions with each viewport point moved by (-x, -y).
fn shifted(mut actions: Value, x: f64, y: f64) -> Value {
    if x == 0.0 && y == 0.0 {
        return actions;
    }
    for source in actions.as_array_mut().into_iter().flatten() {
        if !matches!(source["type"].as_str(), Some("pointer" | "wheel")) {
            continue;
        }
        for a in source["actions"].as_array_mut().into_iter().flatten() {
            if !at_viewport_point(a) {
                continue;
            }
            for (k, by) in [("x", x), ("y", y)] {
                if let Some(v) = a[k].as_f64() {
                    a[k] = ((v - by).round() as i64).into();
                }
            }
        }
    }
    actions
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{first_point, has_pointer, shifted};

    fn click(x: i64, y: i64) -> serde_json::Value {
        json!([
            {"type": "key", "id": "keyboard", "actions": [{"type": "keyDown", "value": "\u{E008}"}, {"type": "pause"}, {"type": "keyUp", "value": "\u{E008}"}]},
            {"type": "pointer", "id": "mouse", "actions": [
                {"type": "pause", "duration": 0},
                {"type": "pointerMove", "duration": 0, "origin": "viewport", "x": x, "y": y},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerUp", "button": 0},
            ]},
        ])
    }

    /// A click's point is its first move's; into a frame at (110.5, 40) it
    /// moves by that offset, and nothing but the viewport points changes.
    #[test]
    fn a_click_is_moved_into_the_frame_under_it() {
        let actions = click(200, 90);
        assert_eq!(first_point(&actions), Some((200.0, 90.0)));
        let moved = shifted(actions.clone(), 110.5, 40.0);
        assert_eq!(moved[1]["actions"][1]["x"], 90);
        assert_eq!(moved[1]["actions"][1]["y"], 50);
        let (mut a, mut b) = (actions, moved);
        for v in [&mut a, &mut b] {
            v[1]["actions"][1]["x"] = json!(0);
            v[1]["actions"][1]["y"] = json!(0);
        }
        assert_eq!(a, b);
    }

    /// Keys alone have no point and move no pointer (they go by the focus);
    /// a release alone moves no pointer but is a pointer's (it goes where
    /// the pointer is); a move from an element is not the viewport's.
    #[test]
    fn keys_a_release_and_an_element_origin_have_no_viewport_point() {
        let keys = json!([{"type": "key", "id": "keyboard", "actions": [{"type": "keyDown", "value": "a"}]}]);
        assert_eq!(first_point(&keys), None);
        assert!(!has_pointer(&keys));
        let up = json!([{"type": "pointer", "id": "mouse", "actions": [{"type": "pointerUp", "button": 0}]}]);
        assert_eq!(first_point(&up), None);
        assert!(has_pointer(&up));
        let from_element = json!([{"type": "pointer", "id": "mouse", "actions": [
            {"type": "pointerMove", "origin": {"type": "element", "element": {"sharedId": "n1"}}, "x": 1, "y": 2}
        ]}]);
        assert_eq!(first_point(&from_element), None);
        assert_eq!(shifted(from_element.clone(), 5.0, 5.0), from_element);
    }

    /// A wheel's scroll is at a viewport point too.
    #[test]
    fn a_wheel_scroll_is_moved_with_its_point() {
        let wheel = json!([{"type": "wheel", "id": "wheel", "actions": [
            {"type": "scroll", "x": 30, "y": 40, "deltaX": 0, "deltaY": 100, "origin": "viewport"}
        ]}]);
        assert_eq!(first_point(&wheel), Some((30.0, 40.0)));
        assert!(
            !has_pointer(&wheel),
            "a wheel leaves the pointer where it is"
        );
        let moved = shifted(wheel, 10.0, 10.0);
        assert_eq!(
            (
                moved[0]["actions"][0]["x"].clone(),
                moved[0]["actions"][0]["y"].clone()
            ),
            (json!(20), json!(30))
        );
        assert_eq!(moved[0]["actions"][0]["deltaY"], 100);
    }
}
