//! The US key table against `keyboard.rs`'s key names, and the W3C action
//! lists `keyboard.rs` builds planned into DevTools input commands.

use serde_json::{Value, json};

use super::super::protocol::{CdpButton, KeyEventType, MouseEventType};
use super::super::tests::{Fake, session, within};
use super::{InputError, InputState, Step, US_LAYOUT, plan, run, us_key};
use crate::keyboard::{ClickSpec, Modifier, Modifiers, MouseButton, chord};
use crate::keys::NAMED_KEYS;

/// The key events of `actions`, as (type, key, code, key code, text, modifiers).
type KeyRow = (KeyEventType, String, String, u32, Option<String>, u8);

fn key_rows(steps: &[Step]) -> Vec<KeyRow> {
    steps
        .iter()
        .map(|s| match s {
            Step::Key(k) => (
                k.kind,
                k.key.clone(),
                k.code.clone(),
                k.windows_virtual_key_code,
                k.text.clone(),
                k.modifiers,
            ),
            other => panic!("not a key event: {other:?}"),
        })
        .collect()
}

/// The steps of pressing `keys` as `Keyboard::press` sends it.
fn press(keys: &str) -> Vec<Step> {
    let actions = chord(keys).expect("a key");
    let sources = json!([{"type": "key", "id": "keyboard", "actions": actions}]);
    plan(&mut InputState::default(), &sources).expect("planned")
}

fn row(kind: KeyEventType, key: &str, code: &str, kc: u32, text: Option<&str>, m: u8) -> KeyRow {
    (kind, key.into(), code.into(), kc, text.map(String::from), m)
}

#[test]
fn every_key_name_keyboard_accepts_has_its_us_key() {
    // name, key, code, key code, text.
    let expected: [(&str, &str, &str, u32, Option<&str>); 32] = [
        ("Enter", "Enter", "Enter", 13, Some("\r")),
        ("Tab", "Tab", "Tab", 9, None),
        ("Escape", "Escape", "Escape", 27, None),
        ("Backspace", "Backspace", "Backspace", 8, None),
        ("Delete", "Delete", "Delete", 46, None),
        ("Space", " ", "Space", 32, Some(" ")),
        ("ArrowLeft", "ArrowLeft", "ArrowLeft", 37, None),
        ("ArrowUp", "ArrowUp", "ArrowUp", 38, None),
        ("ArrowRight", "ArrowRight", "ArrowRight", 39, None),
        ("ArrowDown", "ArrowDown", "ArrowDown", 40, None),
        ("Home", "Home", "Home", 36, None),
        ("End", "End", "End", 35, None),
        ("PageUp", "PageUp", "PageUp", 33, None),
        ("PageDown", "PageDown", "PageDown", 34, None),
        ("Insert", "Insert", "Insert", 45, None),
        ("Shift", "Shift", "ShiftLeft", 16, None),
        ("Control", "Control", "ControlLeft", 17, None),
        ("ControlOrMeta", "Control", "ControlLeft", 17, None),
        ("Alt", "Alt", "AltLeft", 18, None),
        ("Meta", "Meta", "MetaLeft", 91, None),
        ("F1", "F1", "F1", 112, None),
        ("F2", "F2", "F2", 113, None),
        ("F3", "F3", "F3", 114, None),
        ("F4", "F4", "F4", 115, None),
        ("F5", "F5", "F5", 116, None),
        ("F6", "F6", "F6", 117, None),
        ("F7", "F7", "F7", 118, None),
        ("F8", "F8", "F8", 119, None),
        ("F9", "F9", "F9", 120, None),
        ("F10", "F10", "F10", 121, None),
        ("F11", "F11", "F11", 122, None),
        ("F12", "F12", "F12", 123, None),
    ];
    // The list above is keyboard.rs's, whole and in its order.
    let names: Vec<&str> = NAMED_KEYS.iter().map(|(n, _)| *n).collect();
    let listed: Vec<&str> = expected.iter().map(|e| e.0).collect();
    assert_eq!(names, listed);
    for (name, key, code, kc, text) in expected {
        let rows = key_rows(&press(name));
        let bit = match key {
            "Shift" => 8,
            "Control" => 2,
            "Alt" => 1,
            "Meta" => 4,
            _ => 0,
        };
        let down = if text.is_some() {
            KeyEventType::KeyDown
        } else {
            KeyEventType::RawKeyDown
        };
        assert_eq!(
            rows,
            [
                row(down, key, code, kc, text, bit),
                row(KeyEventType::KeyUp, key, code, kc, None, 0),
            ],
            "{name}"
        );
    }
    // A modifier is the left one (location 1); the others are standard.
    let Step::Key(shift) = &press("Shift")[0] else {
        panic!()
    };
    assert_eq!((shift.location, shift.is_keypad), (1, false));
}

#[test]
fn every_printable_ascii_character_is_a_key_and_the_table_has_no_twins() {
    for c in ' '..='~' {
        let (us, shifted) = us_key(c).unwrap_or_else(|| panic!("{c:?} has no key"));
        let s = c.to_string();
        if shifted {
            assert_eq!(us.shifted, Some(s.as_str()), "{c:?}");
        } else {
            assert_eq!(us.key, s, "{c:?}");
        }
    }
    for (i, a) in US_LAYOUT.iter().enumerate() {
        for b in &US_LAYOUT[i + 1..] {
            assert_ne!(a.code, b.code);
            assert_ne!(a.key, b.key);
        }
    }
    // Enter from the text typed: "\n" (keyboard.rs sends Enter's value) and "\r".
    assert_eq!(us_key('\r').map(|(k, _)| k.code), Some("Enter"));
    assert_eq!(us_key('\t').map(|(k, _)| k.code), Some("Tab"));
}

#[test]
fn a_character_reached_with_shift_is_its_key_with_shift() {
    use KeyEventType::{KeyDown, KeyUp};
    assert_eq!(
        key_rows(&press("A")),
        [
            row(KeyDown, "A", "KeyA", 65, Some("A"), 8),
            row(KeyUp, "A", "KeyA", 65, None, 8),
        ]
    );
    assert_eq!(
        key_rows(&press("!")),
        [
            row(KeyDown, "!", "Digit1", 49, Some("!"), 8),
            row(KeyUp, "!", "Digit1", 49, None, 8),
        ]
    );
    assert_eq!(
        key_rows(&press("a")),
        [
            row(KeyDown, "a", "KeyA", 65, Some("a"), 0),
            row(KeyUp, "a", "KeyA", 65, None, 0),
        ]
    );
    // Shift held: "a" types "A"; "+" is Equal's shifted key.
    let rows = key_rows(&press("Shift+a"));
    assert_eq!(rows[1], row(KeyDown, "A", "KeyA", 65, Some("A"), 8));
    let rows = key_rows(&press("Shift++"));
    assert_eq!(rows[1], row(KeyDown, "+", "Equal", 187, Some("+"), 8));
}

#[test]
fn a_chord_holds_its_modifiers_and_types_no_text_under_control() {
    use KeyEventType::{KeyUp, RawKeyDown};
    assert_eq!(
        key_rows(&press("Control+a")),
        [
            row(RawKeyDown, "Control", "ControlLeft", 17, None, 2),
            row(RawKeyDown, "a", "KeyA", 65, None, 2),
            row(KeyUp, "a", "KeyA", 65, None, 2),
            row(KeyUp, "Control", "ControlLeft", 17, None, 0),
        ]
    );
    let rows = key_rows(&press("Control+Shift+ArrowLeft"));
    assert_eq!(
        rows.iter().map(|r| r.5).collect::<Vec<_>>(),
        [2, 10, 10, 10, 2, 0]
    );
    assert_eq!(rows[2].2, "ArrowLeft");
    // Alt+Enter: no "\r" either.
    assert_eq!(key_rows(&press("Alt+Enter"))[1].4, None);
}

#[test]
fn the_input_state_lasts_across_calls_and_a_second_down_repeats() {
    let mut state = InputState::default();
    let one = |value: &str, kind: &str| json!([{"type": "key", "id": "keyboard", "actions": [{"type": kind, "value": value}]}]);
    plan(&mut state, &one("\u{E008}", "keyDown")).expect("Shift down");
    let a = key_rows(&plan(&mut state, &one("a", "keyDown")).expect("a"));
    assert_eq!(a[0].1, "A", "Shift held from the call before");
    let again = plan(&mut state, &one("a", "keyDown")).expect("a again");
    let Step::Key(again) = &again[0] else {
        panic!()
    };
    assert!(again.auto_repeat);
    plan(&mut state, &one("a", "keyUp")).expect("a up");
    plan(&mut state, &one("\u{E008}", "keyUp")).expect("Shift up");
    assert!(
        plan(&mut state, &one("b", "keyUp"))
            .expect("b up")
            .is_empty(),
        "a key not held: no key up (as WebDriver)"
    );
    let b = key_rows(&plan(&mut state, &one("b", "keyDown")).expect("b"));
    assert_eq!((b[0].1.as_str(), b[0].5), ("b", 0), "Shift released");
}

#[test]
fn text_the_layout_has_not_is_inserted_and_unknown_key_values_are_errors() {
    // As Keyboard::type_text builds it.
    let mut actions = Vec::new();
    for c in ["h", "é", "\u{E007}"] {
        actions.push(json!({"type": "keyDown", "value": c}));
        actions.push(json!({"type": "keyUp", "value": c}));
    }
    let sources = json!([{"type": "key", "id": "keyboard", "actions": actions}]);
    let steps = plan(&mut InputState::default(), &sources).expect("planned");
    assert_eq!(steps.len(), 5, "{steps:?}");
    assert!(
        matches!(&steps[2], Step::Insert(t) if t.text == "é"),
        "{steps:?}"
    );
    assert!(
        matches!(&steps[3], Step::Key(k) if k.code == "Enter" && k.text.as_deref() == Some("\r"))
    );

    let cancel =
        json!([{"type": "key", "id": "k", "actions": [{"type": "keyDown", "value": "\u{E001}"}]}]);
    let e = plan(&mut InputState::default(), &cancel).expect_err("no such key");
    assert!(matches!(&e, InputError::UnknownKey { value } if value == "\u{E001}"));
    let e = crate::error::BrowserError::from(e);
    assert!(e.to_string().contains("no key of the US layout"), "{e}");
    let two = json!([{"type": "key", "id": "k", "actions": [{"type": "keyDown", "value": "ab"}]}]);
    assert!(matches!(
        plan(&mut InputState::default(), &two),
        Err(InputError::UnknownKey { .. })
    ));
}

/// (type, x, y, button, buttons, click count, modifiers) of a mouse step;
/// "pause N" of a pause.
fn mouse_rows(steps: &[Step]) -> Vec<String> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Mouse(m) => Some(format!(
                "{:?} {} {} {:?} {} {} {}",
                m.kind, m.x, m.y, m.button, m.buttons, m.click_count, m.modifiers
            )),
            Step::Pause(d) => Some(format!("pause {}", d.as_millis())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_click_with_modifiers_presses_them_around_the_counted_clicks() {
    let spec = ClickSpec {
        button: MouseButton::Right,
        modifiers: Modifiers::default().with(Modifier::Shift),
        count: 2,
        delay: std::time::Duration::from_millis(30),
    };
    let steps = plan(&mut InputState::default(), &spec.actions(10.4, 20.6)).expect("planned");
    assert!(matches!(&steps[0], Step::Key(k) if k.key == "Shift" && k.modifiers == 8));
    assert!(
        matches!(steps.last(), Some(Step::Key(k)) if k.key == "Shift" && k.kind == KeyEventType::KeyUp)
    );
    assert_eq!(
        mouse_rows(&steps),
        [
            "Moved 10 21 None 0 0 8",
            "Pressed 10 21 Right 2 1 8",
            "pause 30",
            "Released 10 21 Right 0 1 8",
            "Pressed 10 21 Right 2 2 8",
            "pause 30",
            "Released 10 21 Right 0 2 8",
        ]
    );
}

#[test]
fn a_drag_moves_with_its_button_held_and_a_move_ends_the_click_count() {
    let pointer = |actions: Value| json!([{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]);
    let mv = |x: i64, y: i64| json!({"type": "pointerMove", "duration": 0, "origin": "viewport", "x": x, "y": y});
    let mut state = InputState::default();
    let press = pointer(
        json!([mv(5, 5), {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}, {"type": "pointerDown", "button": 0}]),
    );
    let drag = pointer(
        json!([mv(9, 5), {"type": "pointerMove", "origin": "pointer", "x": 1, "y": 2}, {"type": "pointerUp", "button": 0}, {"type": "pointerDown", "button": 0}]),
    );
    assert_eq!(
        mouse_rows(&plan(&mut state, &press).expect("press")),
        [
            "Moved 5 5 None 0 0 0",
            "Pressed 5 5 Left 1 1 0",
            "Released 5 5 Left 0 1 0",
            "Pressed 5 5 Left 1 2 0",
        ]
    );
    assert_eq!(
        mouse_rows(&plan(&mut state, &drag).expect("drag")),
        [
            "Moved 9 5 Left 1 0 0",
            "Moved 10 7 Left 1 0 0",
            "Released 10 7 Left 0 1 0",
            "Pressed 10 7 Left 1 1 0",
        ]
    );
}

/// Each call counts its clicks from 1 (Playwright's `clickCount` per
/// call): a double click after clicks at the same place is 1, 2 (it was
/// 4, 5); a press held across calls is released with its own count.
#[test]
fn each_call_counts_its_clicks_from_one() {
    let spec = ClickSpec {
        button: MouseButton::Left,
        modifiers: Modifiers::default(),
        count: 2,
        delay: std::time::Duration::ZERO,
    };
    let mut state = InputState::default();
    let pressed = |steps: Vec<Step>| -> Vec<u32> {
        steps
            .into_iter()
            .filter_map(|s| match s {
                Step::Mouse(m) if m.kind == MouseEventType::Pressed => Some(m.click_count),
                _ => None,
            })
            .collect()
    };
    for _ in 0..3 {
        let steps = plan(&mut state, &spec.actions(5.0, 5.0)).expect("planned");
        assert_eq!(pressed(steps), [1, 2]);
    }
    let pointer = |actions: Value| json!([{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]);
    let down = pointer(
        json!([{"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}, {"type": "pointerDown", "button": 0}]),
    );
    assert_eq!(pressed(plan(&mut state, &down).expect("down")), [1, 2]);
    let up = plan(
        &mut state,
        &pointer(json!([{"type": "pointerUp", "button": 0}])),
    )
    .expect("up");
    assert_eq!(mouse_rows(&up), ["Released 5 5 Left 0 2 0"]);
}

#[test]
fn the_wheel_scrolls_where_its_action_says() {
    // As Mouse::wheel builds it.
    let wheel = json!([{"type": "wheel", "id": "wheel", "actions": [{"type": "scroll", "x": 0, "y": 0, "deltaX": 0, "deltaY": 300, "origin": "viewport"}]}]);
    let steps = plan(&mut InputState::default(), &wheel).expect("planned");
    let [Step::Mouse(m)] = steps.as_slice() else {
        panic!("{steps:?}")
    };
    assert_eq!(m.kind, MouseEventType::Wheel);
    assert_eq!(
        (m.x, m.y, m.delta_x, m.delta_y),
        (0.0, 0.0, Some(0.0), Some(300.0))
    );
    assert_eq!(m.button, CdpButton::None);
    let json = serde_json::to_value(m).expect("JSON");
    assert_eq!(json["type"], "mouseWheel");
    assert_eq!(json["deltaY"], 300.0);
}

#[test]
fn what_cannot_be_sent_is_a_typed_error() {
    let element = json!([{"type": "pointer", "id": "m", "actions": [{"type": "pointerMove", "x": 0, "y": 0, "origin": {"element-6066-11e4-a52e-4f735466cecf": "x"}}]}]);
    assert!(matches!(
        plan(&mut InputState::default(), &element),
        Err(InputError::Origin { .. })
    ));
    let pen = json!([{"type": "pointer", "id": "p", "parameters": {"pointerType": "pen"}, "actions": []}]);
    assert!(matches!(
        plan(&mut InputState::default(), &pen),
        Err(InputError::PointerType { kind }) if kind == "pen"
    ));
    let odd =
        json!([{"type": "pointer", "id": "m", "actions": [{"type": "pointerDown", "button": 7}]}]);
    assert!(matches!(
        plan(&mut InputState::default(), &odd),
        Err(InputError::Button { button: 7 })
    ));
    let shape = json!([{"type": "gamepad", "actions": []}]);
    let e = plan(&mut InputState::default(), &shape).expect_err("no such source");
    assert!(matches!(e, InputError::Shape { .. }), "{e:?}");
    assert!(e.to_string().contains("gamepad"), "{e}");
}

#[tokio::test]
async fn run_sends_the_steps_in_order_to_the_page() {
    let (connection, mut fake) = Fake::connect("");
    let s1 = session("S1");
    let steps = {
        let mut steps = press("Control+a");
        steps.push(Step::Pause(std::time::Duration::from_millis(5)));
        steps.extend(
            plan(
                &mut InputState::default(),
                &ClickSpec::clicks(1).actions(3.0, 4.0),
            )
            .expect("a click"),
        );
        steps.push(Step::Insert(super::InsertText { text: "日".into() }));
        steps
    };
    let browser = async {
        let mut got = Vec::new();
        for _ in 0..8 {
            let c = fake.command().await;
            assert_eq!(c["sessionId"], "S1", "{c}");
            fake.answer(&c["id"], json!({})).await;
            got.push(c);
        }
        got
    };
    let (got, sent) = within(async { tokio::join!(browser, run(&connection, &s1, &steps)) }).await;
    sent.expect("sent");
    let methods: Vec<&str> = got.iter().map(|c| c["method"].as_str().unwrap()).collect();
    assert_eq!(
        methods,
        [
            "Input.dispatchKeyEvent",
            "Input.dispatchKeyEvent",
            "Input.dispatchKeyEvent",
            "Input.dispatchKeyEvent",
            "Input.dispatchMouseEvent",
            "Input.dispatchMouseEvent",
            "Input.dispatchMouseEvent",
            "Input.insertText",
        ]
    );
    assert_eq!(
        got[1]["params"],
        json!({"type": "rawKeyDown", "modifiers": 2, "key": "a", "code": "KeyA",
               "windowsVirtualKeyCode": 65, "nativeVirtualKeyCode": 65, "location": 0,
               "isKeypad": false, "autoRepeat": false})
    );
    assert_eq!(
        got[5]["params"],
        json!({"type": "mousePressed", "x": 3.0, "y": 4.0, "modifiers": 0, "button": "left",
               "buttons": 1, "clickCount": 1})
    );
    assert_eq!(got[7]["params"], json!({"text": "日"}));
}
