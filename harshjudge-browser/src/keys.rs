//! The key names a [`Keyboard`](super::keyboard::Keyboard) accepts
//! (Playwright's), each with the WebDriver key value it stands for: one list
//! that `keyboard.rs` builds its W3C actions from and that the DevTools
//! backend's US key table (`backend/cdp/input.rs`) is checked against.

/// Every key name besides one character, with its WebDriver key value
/// (`"Space"` is the space character; `ControlOrMeta` is Control here, as
/// off macOS).
pub(crate) const NAMED_KEYS: [(&str, char); 32] = [
    ("Enter", '\u{E007}'),
    ("Tab", '\u{E004}'),
    ("Escape", '\u{E00C}'),
    ("Backspace", '\u{E003}'),
    ("Delete", '\u{E017}'),
    ("Space", ' '),
    ("ArrowLeft", '\u{E012}'),
    ("ArrowUp", '\u{E013}'),
    ("ArrowRight", '\u{E014}'),
    ("ArrowDown", '\u{E015}'),
    ("Home", '\u{E011}'),
    ("End", '\u{E010}'),
    ("PageUp", '\u{E00E}'),
    ("PageDown", '\u{E00F}'),
    ("Insert", '\u{E016}'),
    ("Shift", '\u{E008}'),
    ("Control", '\u{E009}'),
    ("ControlOrMeta", '\u{E009}'),
    ("Alt", '\u{E00A}'),
    ("Meta", '\u{E03D}'),
    ("F1", '\u{E031}'),
    ("F2", '\u{E032}'),
    ("F3", '\u{E033}'),
    ("F4", '\u{E034}'),
    ("F5", '\u{E035}'),
    ("F6", '\u{E036}'),
    ("F7", '\u{E037}'),
    ("F8", '\u{E038}'),
    ("F9", '\u{E039}'),
    ("F10", '\u{E03A}'),
    ("F11", '\u{E03B}'),
    ("F12", '\u{E03C}'),
];

/// The WebDriver key value of a key name, or of one character.
pub(crate) fn key_value(name: &str) -> Option<char> {
    if let Some((_, value)) = NAMED_KEYS.iter().find(|(n, _)| *n == name) {
        return Some(*value);
    }
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

/// The key name of a WebDriver key value that stands for a named key (the
/// first name, `Control` rather than `ControlOrMeta`); `None` for a plain
/// character (the space included: it is its own key).
pub(crate) fn name_of(value: char) -> Option<&'static str> {
    NAMED_KEYS
        .iter()
        .find(|(n, v)| *v == value && *n != "Space")
        .map(|(n, _)| *n)
}
