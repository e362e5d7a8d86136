//! Keyboard and mouse over the DevTools protocol. [`plan`] turns the W3C
//! action sequences `keyboard.rs` builds (the JSON WebDriver is sent today:
//! key, pointer, wheel and pause sources) into `Input.dispatchKeyEvent`,
//! `Input.dispatchMouseEvent` and `Input.insertText` commands and pauses,
//! tick by tick as a WebDriver remote end runs them; [`run`] sends them.
//!
//! Each key gets what a US keyboard gives it (`key`, `code`, key code, text,
//! location), from [`US_LAYOUT`], the layout Playwright's
//! `usKeyboardLayout.ts` describes. As in Playwright: a key types its text
//! only while no Control, Alt or Meta is held ("Control+a" selects, it does
//! not type "a"); with Shift held a key types its shifted character. A
//! character only reached with Shift ("A", "!") is its key (`KeyA`,
//! `Digit1`) with the Shift bit in `modifiers`, as if Shift were held for it.
//! A character the layout has not (non-ASCII: "é", "日") is inserted as an
//! input method would (`Input.insertText`), with no key events.

use std::collections::HashMap;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::connection::{CdpError, Connection};
use super::protocol::{
    CdpButton, DispatchKeyEvent, DispatchMouseEvent, InsertText, KeyEventType, MouseEventType,
    SessionId,
};
use crate::error::BrowserError;
use crate::keys;

/// One key of the US layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UsKey {
    /// `KeyboardEvent.code`: the key's place ("KeyA", "ShiftLeft").
    pub(crate) code: &'static str,
    /// `KeyboardEvent.key` without Shift ("a", "Shift", "Enter").
    pub(crate) key: &'static str,
    /// `KeyboardEvent.key` with Shift held, for a key that has one ("A").
    pub(crate) shifted: Option<&'static str>,
    /// The Windows virtual key code (without the left/right distinction).
    pub(crate) key_code: u32,
    /// 0 standard, 1 left (the modifiers here are the left ones).
    pub(crate) location: u8,
}

const fn key(code: &'static str, key: &'static str, key_code: u32) -> UsKey {
    UsKey {
        code,
        key,
        shifted: None,
        key_code,
        location: 0,
    }
}

const fn pair(
    code: &'static str,
    key: &'static str,
    shifted: &'static str,
    key_code: u32,
) -> UsKey {
    UsKey {
        code,
        key,
        shifted: Some(shifted),
        key_code,
        location: 0,
    }
}

const fn left(code: &'static str, key: &'static str, key_code: u32) -> UsKey {
    UsKey {
        code,
        key,
        shifted: None,
        key_code,
        location: 1,
    }
}

/// The US layout: every printable ASCII character and every key name of
/// [`keys::NAMED_KEYS`] (`tests` checks both).
pub(crate) const US_LAYOUT: [UsKey; 78] = [
    key("Escape", "Escape", 27),
    key("F1", "F1", 112),
    key("F2", "F2", 113),
    key("F3", "F3", 114),
    key("F4", "F4", 115),
    key("F5", "F5", 116),
    key("F6", "F6", 117),
    key("F7", "F7", 118),
    key("F8", "F8", 119),
    key("F9", "F9", 120),
    key("F10", "F10", 121),
    key("F11", "F11", 122),
    key("F12", "F12", 123),
    pair("Backquote", "`", "~", 192),
    pair("Digit1", "1", "!", 49),
    pair("Digit2", "2", "@", 50),
    pair("Digit3", "3", "#", 51),
    pair("Digit4", "4", "$", 52),
    pair("Digit5", "5", "%", 53),
    pair("Digit6", "6", "^", 54),
    pair("Digit7", "7", "&", 55),
    pair("Digit8", "8", "*", 56),
    pair("Digit9", "9", "(", 57),
    pair("Digit0", "0", ")", 48),
    pair("Minus", "-", "_", 189),
    pair("Equal", "=", "+", 187),
    pair("Backslash", "\\", "|", 220),
    key("Backspace", "Backspace", 8),
    key("Tab", "Tab", 9),
    pair("KeyQ", "q", "Q", 81),
    pair("KeyW", "w", "W", 87),
    pair("KeyE", "e", "E", 69),
    pair("KeyR", "r", "R", 82),
    pair("KeyT", "t", "T", 84),
    pair("KeyY", "y", "Y", 89),
    pair("KeyU", "u", "U", 85),
    pair("KeyI", "i", "I", 73),
    pair("KeyO", "o", "O", 79),
    pair("KeyP", "p", "P", 80),
    pair("BracketLeft", "[", "{", 219),
    pair("BracketRight", "]", "}", 221),
    pair("KeyA", "a", "A", 65),
    pair("KeyS", "s", "S", 83),
    pair("KeyD", "d", "D", 68),
    pair("KeyF", "f", "F", 70),
    pair("KeyG", "g", "G", 71),
    pair("KeyH", "h", "H", 72),
    pair("KeyJ", "j", "J", 74),
    pair("KeyK", "k", "K", 75),
    pair("KeyL", "l", "L", 76),
    pair("Semicolon", ";", ":", 186),
    pair("Quote", "'", "\"", 222),
    key("Enter", "Enter", 13),
    left("ShiftLeft", "Shift", 16),
    pair("KeyZ", "z", "Z", 90),
    pair("KeyX", "x", "X", 88),
    pair("KeyC", "c", "C", 67),
    pair("KeyV", "v", "V", 86),
    pair("KeyB", "b", "B", 66),
    pair("KeyN", "n", "N", 78),
    pair("KeyM", "m", "M", 77),
    pair("Comma", ",", "<", 188),
    pair("Period", ".", ">", 190),
    pair("Slash", "/", "?", 191),
    left("ControlLeft", "Control", 17),
    left("MetaLeft", "Meta", 91),
    left("AltLeft", "Alt", 18),
    key("Space", " ", 32),
    key("PageUp", "PageUp", 33),
    key("PageDown", "PageDown", 34),
    key("Insert", "Insert", 45),
    key("Delete", "Delete", 46),
    key("Home", "Home", 36),
    key("End", "End", 35),
    key("ArrowLeft", "ArrowLeft", 37),
    key("ArrowUp", "ArrowUp", 38),
    key("ArrowRight", "ArrowRight", 39),
    key("ArrowDown", "ArrowDown", 40),
];

/// The modifier bit of a key (`KeyboardEvent.key`), 0 for other keys.
fn modifier_bit(key: &str) -> u8 {
    match key {
        "Alt" => ALT,
        "Control" => CONTROL,
        "Meta" => META,
        "Shift" => SHIFT,
        _ => 0,
    }
}

const ALT: u8 = 1;
const CONTROL: u8 = 2;
const META: u8 = 4;
const SHIFT: u8 = 8;

/// The key a WebDriver key value stands for, and whether its character is
/// the key's shifted one ("A" on `KeyA`).
pub(crate) fn us_key(value: char) -> Option<(&'static UsKey, bool)> {
    let name = match value {
        '\n' | '\r' => Some("Enter"),
        '\t' => Some("Tab"),
        v => keys::name_of(v),
    };
    if let Some(name) = name {
        return US_LAYOUT.iter().find(|k| k.key == name).map(|k| (k, false));
    }
    let mut buf = [0u8; 4];
    let c: &str = value.encode_utf8(&mut buf);
    US_LAYOUT.iter().find_map(|k| {
        if k.key == c {
            Some((k, false))
        } else if k.shifted == Some(c) {
            Some((k, true))
        } else {
            None
        }
    })
}

/// Why an action list cannot be sent as input over the DevTools protocol.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum InputError {
    /// Not W3C action sequences of the kinds this side speaks.
    #[error(
        "the input actions are not understood: {error}; expected W3C action sequences of type key, pointer, wheel or none"
    )]
    Shape {
        #[source]
        error: serde_json::Error,
    },
    /// A WebDriver key value of no key this side knows.
    #[error(
        "key value {value:?} is no key of the US layout; use one of the key names of Keyboard::press"
    )]
    UnknownKey { value: String },
    /// An origin other than the viewport or the pointer (an element's).
    #[error(
        "a pointer origin of {origin} cannot be sent over the DevTools protocol; use \"viewport\" or \"pointer\""
    )]
    Origin { origin: String },
    /// A pen or a touch.
    #[error("pointer type {kind:?} cannot be sent as a mouse; use \"mouse\"")]
    PointerType { kind: String },
    /// A button number past the five of a mouse.
    #[error("mouse button {button} does not exist; use 0 (left) to 4 (forward)")]
    Button { button: u64 },
}

impl From<InputError> for BrowserError {
    fn from(e: InputError) -> Self {
        BrowserError::Invalid {
            message: e.to_string(),
            location: None,
        }
    }
}

/// One source of a W3C action list.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Source {
    Key {
        #[serde(default)]
        actions: Vec<Action>,
    },
    Pointer {
        #[serde(default)]
        parameters: Option<PointerParameters>,
        #[serde(default)]
        actions: Vec<Action>,
    },
    Wheel {
        #[serde(default)]
        actions: Vec<Action>,
    },
    None {
        #[serde(default)]
        actions: Vec<Action>,
    },
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PointerParameters {
    #[serde(default)]
    pointer_type: Option<String>,
}

/// One action of a source (one tick of it).
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum Action {
    Pause {
        #[serde(default)]
        duration: Option<u64>,
    },
    KeyDown {
        value: String,
    },
    KeyUp {
        value: String,
    },
    PointerMove {
        x: f64,
        y: f64,
        #[serde(default)]
        origin: Option<Value>,
        #[serde(default)]
        duration: Option<u64>,
    },
    PointerDown {
        button: u64,
    },
    PointerUp {
        button: u64,
    },
    #[serde(rename_all = "camelCase")]
    Scroll {
        x: f64,
        y: f64,
        delta_x: f64,
        delta_y: f64,
        #[serde(default)]
        origin: Option<Value>,
        #[serde(default)]
        duration: Option<u64>,
    },
}

impl Action {
    /// How long its tick lasts at least.
    fn duration(&self) -> u64 {
        match self {
            Action::Pause { duration }
            | Action::PointerMove { duration, .. }
            | Action::Scroll { duration, .. } => duration.unwrap_or(0),
            _ => 0,
        }
    }
}

/// A key held down: what its key up says.
#[derive(Clone, Debug)]
struct Held {
    key: String,
    code: &'static str,
    key_code: u32,
    location: u8,
}

/// The input state of a page that lasts across calls (as a WebDriver
/// session's does): the keys held, the modifiers they make, the mouse's
/// place and buttons, the click being counted (within one call, or until
/// its button held across calls is released).
#[derive(Clone, Debug, Default)]
pub(crate) struct InputState {
    /// Alt 1, Control 2, Meta 4, Shift 8.
    modifiers: u8,
    held: HashMap<char, Held>,
    x: f64,
    y: f64,
    /// Mouse buttons held (the DevTools bitmask).
    buttons: u8,
    /// The last press: where, which button, its click count.
    last_press: Option<(f64, f64, CdpButton, u32)>,
}

/// What one input call sends, in order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Step {
    Key(DispatchKeyEvent),
    Insert(InsertText),
    Mouse(DispatchMouseEvent),
    /// A tick that lasts (a pause, a held button).
    Pause(Duration),
}

/// The commands that perform `actions` (W3C action sequences, as
/// `keyboard.rs` builds them), from `state` on, which they advance: tick by
/// tick, each source's action of the tick in the order of the sources, then
/// the tick's longest duration as a pause.
pub(crate) fn plan(state: &mut InputState, actions: &Value) -> Result<Vec<Step>, InputError> {
    let sources: Vec<Source> =
        serde_json::from_value(actions.clone()).map_err(|error| InputError::Shape { error })?;
    let mut lists = Vec::with_capacity(sources.len());
    for source in sources {
        match source {
            Source::Pointer {
                parameters,
                actions,
            } => {
                let kind = parameters.and_then(|p| p.pointer_type);
                if let Some(kind) = kind.filter(|k| k != "mouse") {
                    return Err(InputError::PointerType { kind });
                }
                lists.push(actions);
            }
            Source::Key { actions } | Source::Wheel { actions } | Source::None { actions } => {
                lists.push(actions)
            }
        }
    }
    // Each call is a click sequence of its own, as Playwright's `click`
    // counts `clickCount` from 1 per call: a press of an earlier call (no
    // button held any more) counts for nothing here.
    if state.buttons == 0 {
        state.last_press = None;
    }
    let ticks = lists.iter().map(Vec::len).max().unwrap_or(0);
    let mut steps = Vec::new();
    for tick in 0..ticks {
        let mut longest = 0;
        for action in lists.iter().filter_map(|l| l.get(tick)) {
            longest = longest.max(action.duration());
            state.act(action, &mut steps)?;
        }
        if longest > 0 {
            steps.push(Step::Pause(Duration::from_millis(longest)));
        }
    }
    Ok(steps)
}

/// Sends `steps` to the page of `session`, one after the other.
pub(crate) async fn run(
    connection: &Connection,
    session: &SessionId,
    steps: &[Step],
) -> Result<(), CdpError> {
    let s = Some(session);
    for step in steps {
        match step {
            Step::Key(k) => connection.send(s, k).await.map(drop)?,
            Step::Insert(t) => connection.send(s, t).await.map(drop)?,
            Step::Mouse(m) => connection.send(s, m).await.map(drop)?,
            Step::Pause(d) => tokio::time::sleep(*d).await,
        }
    }
    Ok(())
}

/// The DevTools name of W3C button `n`, and its bit among the buttons held.
fn button(n: u64) -> Result<(CdpButton, u8), InputError> {
    Ok(match n {
        0 => (CdpButton::Left, 1),
        1 => (CdpButton::Middle, 4),
        2 => (CdpButton::Right, 2),
        3 => (CdpButton::Back, 8),
        4 => (CdpButton::Forward, 16),
        button => return Err(InputError::Button { button }),
    })
}

/// Whether `origin` is relative to the pointer (else to the viewport).
fn relative(origin: Option<&Value>) -> Result<bool, InputError> {
    match origin.map(|o| (o.as_str(), o)) {
        None | Some((Some("viewport"), _)) => Ok(false),
        Some((Some("pointer"), _)) => Ok(true),
        Some((_, o)) => Err(InputError::Origin {
            origin: o.to_string(),
        }),
    }
}

impl InputState {
    /// Plans one action.
    fn act(&mut self, action: &Action, steps: &mut Vec<Step>) -> Result<(), InputError> {
        match action {
            Action::Pause { .. } => {}
            Action::KeyDown { value } => self.key_down(value, steps)?,
            Action::KeyUp { value } => self.key_up(value, steps)?,
            Action::PointerMove { x, y, origin, .. } => {
                let (x, y) = self.at(*x, *y, origin.as_ref())?;
                if (x, y) != (self.x, self.y) {
                    self.last_press = None;
                }
                (self.x, self.y) = (x, y);
                let held = [0, 2, 1, 3, 4]
                    .into_iter()
                    .filter_map(|n| button(n).ok())
                    .find(|(_, bit)| self.buttons & bit != 0);
                let button = held.map_or(CdpButton::None, |(b, _)| b);
                steps.push(Step::Mouse(self.mouse(MouseEventType::Moved, button, 0)));
            }
            Action::PointerDown { button: n } => {
                let (button, bit) = button(*n)?;
                if self.buttons & bit != 0 {
                    return Ok(());
                }
                let count = match self.last_press {
                    Some((x, y, b, count)) if (x, y, b) == (self.x, self.y, button) => count + 1,
                    _ => 1,
                };
                self.last_press = Some((self.x, self.y, button, count));
                self.buttons |= bit;
                steps.push(Step::Mouse(self.mouse(
                    MouseEventType::Pressed,
                    button,
                    count,
                )));
            }
            Action::PointerUp { button: n } => {
                let (button, bit) = button(*n)?;
                if self.buttons & bit == 0 {
                    return Ok(());
                }
                self.buttons &= !bit;
                let count = self.last_press.map_or(1, |(_, _, _, c)| c);
                steps.push(Step::Mouse(self.mouse(
                    MouseEventType::Released,
                    button,
                    count,
                )));
            }
            Action::Scroll {
                x,
                y,
                delta_x,
                delta_y,
                origin,
                ..
            } => {
                let (x, y) = self.at(*x, *y, origin.as_ref())?;
                let mut wheel = self.mouse(MouseEventType::Wheel, CdpButton::None, 0);
                (wheel.x, wheel.y) = (x, y);
                (wheel.delta_x, wheel.delta_y) = (Some(*delta_x), Some(*delta_y));
                steps.push(Step::Mouse(wheel));
            }
        }
        Ok(())
    }

    /// Where (x, y) of `origin` is in the viewport.
    fn at(&self, x: f64, y: f64, origin: Option<&Value>) -> Result<(f64, f64), InputError> {
        Ok(if relative(origin)? {
            (self.x + x, self.y + y)
        } else {
            (x, y)
        })
    }

    /// A mouse event where the mouse is, with the modifiers held.
    fn mouse(
        &self,
        kind: MouseEventType,
        button: CdpButton,
        click_count: u32,
    ) -> DispatchMouseEvent {
        DispatchMouseEvent {
            kind,
            x: self.x,
            y: self.y,
            modifiers: self.modifiers,
            button,
            buttons: self.buttons,
            click_count,
            delta_x: None,
            delta_y: None,
        }
    }

    /// The single character of a WebDriver key value.
    fn char_of(value: &str) -> Result<char, InputError> {
        let mut chars = value.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => Err(InputError::UnknownKey {
                value: value.to_string(),
            }),
        }
    }

    fn key_down(&mut self, value: &str, steps: &mut Vec<Step>) -> Result<(), InputError> {
        let c = Self::char_of(value)?;
        let Some((us, shifted)) = us_key(c) else {
            // WebDriver's private-use key values this side does not know.
            if ('\u{E000}'..='\u{F8FF}').contains(&c) {
                return Err(InputError::UnknownKey {
                    value: value.to_string(),
                });
            }
            steps.push(Step::Insert(InsertText {
                text: value.to_string(),
            }));
            return Ok(());
        };
        self.modifiers |= modifier_bit(us.key);
        let shift = shifted || self.modifiers & SHIFT != 0;
        let key = match us.shifted {
            Some(s) if shift => s,
            _ => us.key,
        };
        let text = match us.code {
            "Enter" => Some("\r"),
            _ if key.chars().count() == 1 => Some(key),
            _ => None,
        }
        .filter(|_| self.modifiers & (ALT | CONTROL | META) == 0)
        .map(String::from);
        let auto_repeat = self.held.contains_key(&c);
        self.held.insert(
            c,
            Held {
                key: key.to_string(),
                code: us.code,
                key_code: us.key_code,
                location: us.location,
            },
        );
        steps.push(Step::Key(DispatchKeyEvent {
            kind: if text.is_some() {
                KeyEventType::KeyDown
            } else {
                KeyEventType::RawKeyDown
            },
            modifiers: self.modifiers | if shifted { SHIFT } else { 0 },
            key: key.to_string(),
            code: us.code.to_string(),
            windows_virtual_key_code: us.key_code,
            native_virtual_key_code: us.key_code,
            unmodified_text: text.clone(),
            text,
            location: us.location,
            is_keypad: us.location == 3,
            auto_repeat,
        }));
        Ok(())
    }

    /// A key up: none for a key not held (as WebDriver), nor for a
    /// character that was inserted.
    fn key_up(&mut self, value: &str, steps: &mut Vec<Step>) -> Result<(), InputError> {
        let c = Self::char_of(value)?;
        let Some(held) = self.held.remove(&c) else {
            return Ok(());
        };
        self.modifiers &= !modifier_bit(&held.key);
        let shifted = us_key(c).is_some_and(|(_, s)| s);
        steps.push(Step::Key(DispatchKeyEvent {
            kind: KeyEventType::KeyUp,
            modifiers: self.modifiers | if shifted { SHIFT } else { 0 },
            key: held.key,
            code: held.code.to_string(),
            windows_virtual_key_code: held.key_code,
            native_virtual_key_code: held.key_code,
            text: None,
            unmodified_text: None,
            location: held.location,
            is_keypad: held.location == 3,
            auto_repeat: false,
        }));
        Ok(())
    }
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
