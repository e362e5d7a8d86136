//! [`Keyboard`] and [`Mouse`]: input through W3C WebDriver actions (one command
//! per gesture), as a user's devices would produce it. Each public call is one
//! `input` entry of the step's trace (`page.keyboard().press("Enter")`); text
//! typed into a password field is written `"••••"` there.

use std::future::Future;
use std::panic::Location;

use serde_json::{Value, json};

use super::backend::PageBackend;
use super::error::BrowserError;
use super::keys;
use super::page::Page;
use super::trace::{self, Kind};

/// The WebDriver key value of a key name (Playwright's names, [`keys::NAMED_KEYS`]), or of one character.
fn key_value(name: &str) -> Option<String> {
    keys::key_value(name).map(String::from)
}

const KEYS: &str = "Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, Insert, F1–F12, Shift, Control, Alt, Meta, ControlOrMeta or one character, joined by + for a chord (\"Control+a\")";

/// A key name that is not one (a bad `press`, `down` or `up` argument).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum KeyError {
    /// `key` is no key name; `chord`: the chord it was part of.
    #[error("unknown key {key:?}{}; use {KEYS}", chord.as_ref().map(|c| format!(" in {c:?}")).unwrap_or_default())]
    Unknown {
        /// The name.
        key: String,
        /// The chord it came in (`"Control+Foo"`), if any.
        chord: Option<String>,
    },
    /// The chord names no key at all.
    #[error("no key in {chord:?}; use {KEYS}")]
    Empty {
        /// The chord.
        chord: String,
    },
}

impl KeyError {
    /// As the error of a call located at `at` (none for the keyboard's own calls).
    pub(crate) fn at(self, at: Option<&'static std::panic::Location<'static>>) -> BrowserError {
        BrowserError::Invalid {
            message: self.to_string(),
            location: at,
        }
    }
}

/// One key's WebDriver value, or the error naming it.
fn key(name: &str) -> Result<String, KeyError> {
    key_value(name).ok_or_else(|| KeyError::Unknown {
        key: name.to_string(),
        chord: None,
    })
}

/// What typing text is called in an error.
pub(crate) const TYPING: &str = "typing text";

/// The key actions that type `text`, one character at a time (a newline is
/// Enter).
pub(crate) fn typed(text: &str) -> Vec<Value> {
    let mut actions = Vec::new();
    for c in text.chars() {
        let v = if c == '\n' {
            "\u{E007}".to_string()
        } else {
            c.to_string()
        };
        actions.push(json!({"type": "keyDown", "value": v}));
        actions.push(json!({"type": "keyUp", "value": v}));
    }
    actions
}

/// The key actions of a key or chord: every key down in order, then up in reverse.
pub(crate) fn chord(keys: &str) -> Result<Vec<Value>, KeyError> {
    let mut names: Vec<&str> = Vec::new();
    let mut rest = keys;
    // "+" itself may be the last key: "Shift++".
    while !rest.is_empty() {
        match rest.find('+') {
            Some(0) => {
                names.push("+");
                rest = rest[1..].strip_prefix('+').unwrap_or(&rest[1..]);
            }
            Some(i) => {
                names.push(&rest[..i]);
                rest = &rest[i + 1..];
            }
            None => {
                names.push(rest);
                rest = "";
            }
        }
    }
    let values = names
        .iter()
        .map(|n| {
            key_value(n).ok_or_else(|| KeyError::Unknown {
                key: n.to_string(),
                chord: Some(keys.to_string()),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if values.is_empty() {
        return Err(KeyError::Empty {
            chord: keys.to_string(),
        });
    }
    let mut actions: Vec<Value> = values
        .iter()
        .map(|v| json!({"type": "keyDown", "value": v}))
        .collect();
    actions.extend(
        values
            .iter()
            .rev()
            .map(|v| json!({"type": "keyUp", "value": v})),
    );
    Ok(actions)
}

/// Performs WebDriver action sequences on the page, through its backend.
async fn perform(page: &Page, actions: Value, during: &str) -> Result<(), BrowserError> {
    page.backend().perform(actions, during).await
}

impl Page {
    /// The page's keyboard (keys go to the focused element).
    pub fn keyboard(&self) -> Keyboard {
        Keyboard::new(self.clone())
    }

    /// The page's mouse.
    pub fn mouse(&self) -> Mouse {
        Mouse::new(self.clone())
    }
}

/// Which way a key goes ([`Keyboard::down`], [`Keyboard::up`]).
#[derive(Clone, Copy)]
enum KeyEvent {
    Down,
    Up,
}

/// The page's keyboard: keys go to the focused element.
#[derive(Clone, Debug)]
pub struct Keyboard {
    page: Page,
}

impl Keyboard {
    pub(crate) fn new(page: Page) -> Self {
        Keyboard { page }
    }

    /// Sends key actions (none: nothing is sent).
    pub(crate) async fn send(&self, actions: Vec<Value>, during: &str) -> Result<(), BrowserError> {
        if actions.is_empty() {
            return Ok(());
        }
        perform(
            &self.page,
            json!([{"type": "key", "id": "keyboard", "actions": actions}]),
            during,
        )
        .await
    }

    fn parse(key: &str) -> Result<Vec<Value>, BrowserError> {
        chord(key).map_err(|e| e.at(None))
    }

    /// Runs `body` as the trace's entry `page.keyboard().{method}({text:?})`;
    /// when `typing` (the keys type text) and the trace records it, the
    /// focused field is asked first whether it is a password's (then the
    /// entry writes `"••••"`).
    async fn traced(
        &self,
        method: &'static str,
        text: &str,
        typing: bool,
        at: &'static Location<'static>,
        body: impl Future<Output = Result<(), BrowserError>>,
    ) -> Result<(), BrowserError> {
        let page = &self.page;
        let args = || trace::arg(text);
        trace::page_span(
            page.tracer(),
            page.slow_mo(),
            Kind::Input,
            method,
            args,
            at,
            async {
                if typing && page.tracer().is_some() && trace::is_open() {
                    conceal_if_password(page).await;
                }
                body.await
            },
        )
        .await
    }

    /// Presses a key or chord: `"Enter"`, `"Control+a"`, `"Shift+Tab"`, `"a"`.
    #[track_caller]
    pub fn press(
        &self,
        key: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let key = key.as_ref().to_string();
        Box::pin(async move {
            let typing = trace::types_text(&key);
            self.traced("keyboard().press", &key, typing, at, async {
                let actions = Self::parse(&key)?;
                self.send(actions, &format!("pressing {key}")).await
            })
            .await
        })
    }

    /// Types `text` one character at a time (key down and up for each).
    #[track_caller]
    pub fn type_text(
        &self,
        text: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let text = text.as_ref().to_string();
        Box::pin(async move {
            let typing = !text.is_empty();
            self.traced(
                "keyboard().type_text",
                &text,
                typing,
                at,
                self.send(typed(&text), TYPING),
            )
            .await
        })
    }

    /// Holds a key down (until [`up`](Keyboard::up)).
    #[track_caller]
    pub fn down(
        &self,
        key: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        self.key_event(KeyEvent::Down, key.as_ref().to_string(), Location::caller())
    }

    /// Releases a key.
    #[track_caller]
    pub fn up(
        &self,
        key: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        self.key_event(KeyEvent::Up, key.as_ref().to_string(), Location::caller())
    }

    /// One key going down or up, a trace entry written as called at `at`.
    fn key_event(
        &self,
        event: KeyEvent,
        key: String,
        at: &'static Location<'static>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        Box::pin(async move {
            let (call, kind, doing) = match event {
                KeyEvent::Down => ("keyboard().down", "keyDown", format!("pressing {key} down")),
                KeyEvent::Up => ("keyboard().up", "keyUp", format!("releasing {key}")),
            };
            let typing = trace::types_text(&key);
            self.traced(call, &key, typing, at, async {
                let v = self::key(&key).map_err(|e| e.at(None))?;
                self.send(vec![json!({"type": kind, "value": v})], &doing)
                    .await
            })
            .await
        })
    }

    /// Inserts text as an input method would (no key events).
    #[track_caller]
    pub fn insert_text(
        &self,
        text: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let text = text.as_ref().to_string();
        Box::pin(async move {
            let typing = !text.is_empty();
            self.traced("keyboard().insert_text", &text, typing, at, async {
                self.page.backend().insert_text(&text).await
            })
            .await
        })
    }
}

/// Whether the focused element is a password field, read through every
/// open shadow root and same-origin frame: `true`, `false`, or `null` when
/// focus is in a frame the page cannot read.
const FOCUS_IS_PASSWORD_JS: &str = "let e = document.activeElement;
for (;;) {
  if (e && e.shadowRoot && e.shadowRoot.activeElement) { e = e.shadowRoot.activeElement; continue; }
  if (e && (e.localName === 'iframe' || e.localName === 'frame')) {
    let d = null;
    try { d = e.contentDocument; } catch (_) {}
    if (!d) return null;
    e = d.activeElement;
    continue;
  }
  break;
}
return !!e && e.localName === 'input' && String(e.getAttribute('type') || '').toLowerCase() === 'password';";

/// Marks the open entry as typing into a password field when the focused
/// element is one, or when that cannot be told: its text never reaches the trace.
async fn conceal_if_password(page: &Page) {
    let plain = matches!(
        page.backend().eval(FOCUS_IS_PASSWORD_JS).await,
        Ok(Value::Bool(false))
    );
    if !plain {
        trace::conceal();
    }
}

/// A mouse button (Playwright's click option `button`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MouseButton {
    /// The main button (the default).
    #[default]
    Left,
    /// The secondary button: opens the context menu (`contextmenu`, then
    /// `auxclick`).
    Right,
    /// The wheel button (`auxclick`).
    Middle,
}

impl MouseButton {
    /// WebDriver's button number.
    fn number(self) -> u8 {
        match self {
            MouseButton::Left => 0,
            MouseButton::Middle => 1,
            MouseButton::Right => 2,
        }
    }
}

/// A modifier key held during a click (Playwright's click option `modifiers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modifier {
    /// Alt (Option on macOS).
    Alt,
    /// Control.
    Control,
    /// Meta (Command on macOS, the Windows key elsewhere).
    Meta,
    /// Shift.
    Shift,
    /// Meta on macOS, Control elsewhere: the key of shortcuts.
    ControlOrMeta,
}

/// A set of modifier keys, in the order they are pressed: Alt, Control,
/// Meta, Shift.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Modifiers(u8);

impl Modifiers {
    const ORDER: [(u8, char); 4] = [
        (1, '\u{E00A}'), // Alt
        (2, '\u{E009}'), // Control
        (4, '\u{E03D}'), // Meta
        (8, '\u{E008}'), // Shift
    ];

    /// With `m` too (`ControlOrMeta` as this platform reads it).
    pub(crate) fn with(self, m: Modifier) -> Modifiers {
        let bit = match m {
            Modifier::Alt => 1,
            Modifier::Control => 2,
            Modifier::Meta => 4,
            Modifier::Shift => 8,
            Modifier::ControlOrMeta if cfg!(target_os = "macos") => 4,
            Modifier::ControlOrMeta => 2,
        };
        Modifiers(self.0 | bit)
    }

    /// The modifiers held, as Rust writes them (`Modifier::Shift`), in order.
    pub(crate) fn names(self) -> Vec<&'static str> {
        [
            (1, "Modifier::Alt"),
            (2, "Modifier::Control"),
            (4, "Modifier::Meta"),
            (8, "Modifier::Shift"),
        ]
        .into_iter()
        .filter(|(bit, _)| self.0 & bit != 0)
        .map(|(_, name)| name)
        .collect()
    }

    /// The WebDriver key values held, in order.
    fn keys(self) -> Vec<String> {
        Self::ORDER
            .iter()
            .filter(|(bit, _)| self.0 & bit != 0)
            .map(|(_, key)| key.to_string())
            .collect()
    }
}

/// How a click is made: which button, how many times, held how long, with
/// which modifier keys down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClickSpec {
    pub(crate) button: MouseButton,
    pub(crate) modifiers: Modifiers,
    pub(crate) count: u32,
    /// Between each press and its release.
    pub(crate) delay: std::time::Duration,
}

impl ClickSpec {
    /// `count` left clicks, nothing held.
    pub(crate) fn clicks(count: u32) -> ClickSpec {
        ClickSpec {
            button: MouseButton::Left,
            modifiers: Modifiers::default(),
            count,
            delay: std::time::Duration::ZERO,
        }
    }

    /// The action sequences of this click at (x, y): a key source holding
    /// the modifiers and a pointer source clicking, tick by tick (a WebDriver
    /// tick takes one action of each source; pauses keep them in step).
    pub(crate) fn actions(&self, x: f64, y: f64) -> Value {
        let keys = self.modifiers.keys();
        let pause = || json!({"type": "pause", "duration": 0});
        let (mut key, mut pointer) = (Vec::new(), Vec::new());
        for k in &keys {
            key.push(json!({"type": "keyDown", "value": k}));
            pointer.push(pause());
        }
        pointer.push(mv(x, y));
        key.push(pause());
        let button = self.button.number();
        for _ in 0..self.count {
            pointer.push(json!({"type": "pointerDown", "button": button}));
            key.push(pause());
            if !self.delay.is_zero() {
                pointer.push(json!({"type": "pause", "duration": self.delay.as_millis() as u64}));
                key.push(pause());
            }
            pointer.push(json!({"type": "pointerUp", "button": button}));
            key.push(pause());
        }
        for k in keys.iter().rev() {
            key.push(json!({"type": "keyUp", "value": k}));
            pointer.push(pause());
        }
        let mut sources = Vec::new();
        if !self.modifiers.keys().is_empty() {
            sources.push(json!({"type": "key", "id": "keyboard", "actions": key}));
        }
        sources.push(json!({"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": pointer}));
        Value::Array(sources)
    }
}

/// The page's mouse, in CSS pixels relative to the viewport.
#[derive(Clone, Debug)]
pub struct Mouse {
    page: Page,
}

fn mv(x: f64, y: f64) -> Value {
    json!({"type": "pointerMove", "duration": 0, "origin": "viewport", "x": x.round() as i64, "y": y.round() as i64})
}
/// Two coordinates as Rust writes them (`10.0, 20.5`).
fn point(x: f64, y: f64) -> String {
    format!("{x:?}, {y:?}")
}
const DOWN: fn() -> Value = || json!({"type": "pointerDown", "button": 0});
const UP: fn() -> Value = || json!({"type": "pointerUp", "button": 0});

impl Mouse {
    pub(crate) fn new(page: Page) -> Self {
        Mouse { page }
    }

    async fn send(&self, actions: Vec<Value>, during: &str) -> Result<(), BrowserError> {
        perform(
            &self.page,
            json!([{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]),
            during,
        )
        .await
    }

    /// Runs `body` as the trace's entry `page.mouse().{method}({args})`.
    async fn traced(
        &self,
        method: &'static str,
        args: impl FnOnce() -> String,
        at: &'static Location<'static>,
        body: impl Future<Output = Result<(), BrowserError>>,
    ) -> Result<(), BrowserError> {
        trace::page_span(
            self.page.tracer(),
            self.page.slow_mo(),
            Kind::Input,
            method,
            args,
            at,
            body,
        )
        .await
    }

    /// Moves the pointer to (x, y).
    #[track_caller]
    pub fn move_to(
        &self,
        x: f64,
        y: f64,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let during = format!("moving the mouse to ({x}, {y})");
            let body = self.send(vec![mv(x, y)], &during);
            self.traced("mouse().move_to", || point(x, y), at, body)
                .await
        })
    }

    /// Presses the left button where the pointer is.
    #[track_caller]
    pub fn down(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let body = self.send(vec![DOWN()], "pressing the mouse button");
            self.traced("mouse().down", String::new, at, body).await
        })
    }

    /// Releases the left button.
    #[track_caller]
    pub fn up(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let body = self.send(vec![UP()], "releasing the mouse button");
            self.traced("mouse().up", String::new, at, body).await
        })
    }

    /// Clicks at (x, y).
    #[track_caller]
    pub fn click(
        &self,
        x: f64,
        y: f64,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let body = self.click_at(x, y, 1);
            self.traced("mouse().click", || point(x, y), at, body).await
        })
    }

    /// Double-clicks at (x, y).
    #[track_caller]
    pub fn dblclick(
        &self,
        x: f64,
        y: f64,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let body = self.click_at(x, y, 2);
            self.traced("mouse().dblclick", || point(x, y), at, body)
                .await
        })
    }

    pub(crate) async fn click_at(&self, x: f64, y: f64, count: u32) -> Result<(), BrowserError> {
        let mut actions = vec![mv(x, y)];
        for _ in 0..count {
            actions.push(DOWN());
            actions.push(UP());
        }
        self.send(actions, &format!("clicking at ({x}, {y})")).await
    }

    /// A click as `spec` makes it, at (x, y).
    pub(crate) async fn click_with(
        &self,
        x: f64,
        y: f64,
        spec: ClickSpec,
    ) -> Result<(), BrowserError> {
        perform(
            &self.page,
            spec.actions(x, y),
            &format!("clicking at ({x}, {y})"),
        )
        .await
    }

    pub(crate) async fn press_at(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.send(
            vec![mv(x, y), DOWN()],
            &format!("pressing the mouse at ({x}, {y})"),
        )
        .await
    }

    /// Moves from (x0, y0) to (x1, y1) in steps, then releases the button.
    pub(crate) async fn release_at(
        &self,
        x0: f64,
        y0: f64,
        x1: f64,
        y1: f64,
    ) -> Result<(), BrowserError> {
        let mut actions = Vec::new();
        for i in 1..=5 {
            let t = f64::from(i) / 5.0;
            actions.push(mv(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t));
        }
        actions.push(UP());
        self.send(actions, &format!("dropping at ({x1}, {y1})"))
            .await
    }

    /// Scrolls by (dx, dy) with the wheel at the pointer's position.
    #[track_caller]
    pub fn wheel(
        &self,
        dx: f64,
        dy: f64,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let body = perform(
                &self.page,
                json!([{"type": "wheel", "id": "wheel", "actions": [{"type": "scroll", "x": 0, "y": 0, "deltaX": dx.round() as i64, "deltaY": dy.round() as i64, "origin": "viewport"}]}]),
                "scrolling with the wheel",
            );
            self.traced("mouse().wheel", || point(dx, dy), at, body)
                .await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{KeyError, chord};

    /// A Shift+right double click with a hold: the key source presses Shift
    /// before the pointer moves and releases it after the last release, and
    /// both sources have as many ticks.
    #[test]
    fn a_click_with_modifiers_keeps_its_sources_in_step() {
        use super::{ClickSpec, Modifier, Modifiers, MouseButton};
        let spec = ClickSpec {
            button: MouseButton::Right,
            modifiers: Modifiers::default()
                .with(Modifier::Shift)
                .with(Modifier::Alt),
            count: 2,
            delay: std::time::Duration::from_millis(30),
        };
        let v = spec.actions(10.4, 20.6);
        let (key, pointer) = (&v[0]["actions"], &v[1]["actions"]);
        let types = |a: &serde_json::Value| {
            a.as_array()
                .unwrap()
                .iter()
                .map(|x| x["type"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            types(key),
            [
                "keyDown", "keyDown", "pause", "pause", "pause", "pause", "pause", "pause",
                "pause", "keyUp", "keyUp"
            ]
        );
        assert_eq!(
            types(pointer),
            [
                "pause",
                "pause",
                "pointerMove",
                "pointerDown",
                "pause",
                "pointerUp",
                "pointerDown",
                "pause",
                "pointerUp",
                "pause",
                "pause"
            ]
        );
        // Alt before Shift, released in reverse; the right button is 2.
        assert_eq!(key[0]["value"], "\u{E00A}");
        assert_eq!(key[10]["value"], "\u{E00A}");
        assert_eq!(pointer[3]["button"], 2);
        assert_eq!(pointer[4]["duration"], 30);
        assert_eq!(
            (pointer[2]["x"].as_i64(), pointer[2]["y"].as_i64()),
            (Some(10), Some(21))
        );
        // Without modifiers: the pointer alone.
        assert_eq!(
            ClickSpec::clicks(1)
                .actions(1.0, 1.0)
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn a_bad_key_is_a_typed_error_naming_it_and_its_chord() {
        let e = chord("Control+Foo").unwrap_err();
        assert_eq!(
            e,
            KeyError::Unknown {
                key: "Foo".into(),
                chord: Some("Control+Foo".into())
            }
        );
        assert!(
            e.to_string()
                .starts_with("unknown key \"Foo\" in \"Control+Foo\"; use Enter, Tab"),
            "{e}"
        );
        assert_eq!(chord("").unwrap_err(), KeyError::Empty { chord: "".into() });
        assert_eq!(chord("Shift++").unwrap().len(), 4);
    }
}
