//! The device table: common phones, tablets and desktops by name, each its
//! viewport, screen, scale factor, touch and mobile flags and user agent, as
//! Playwright's `devices['iPhone 15']` (names the same where Playwright has
//! the device). `Emulation::device("iPhone 15")` or
//! `#[scenario(device = "iPhone 15")]` applies one; the name is checked at
//! compile time in the attribute ([`known`] is `const`).
//!
//! A device's `default_browser` is the engine it ships with. It is
//! information only: a scenario's engine is still the one `--browser` or
//! `HARSHJUDGE_BROWSER` names, so that a suite's engine never changes by a
//! device's name.

use super::kind::BrowserKind;

/// One device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Device {
    /// Its name in the table (`"iPhone 15"`).
    pub name: &'static str,
    /// The viewport, CSS pixels.
    pub viewport: (u32, u32),
    /// The screen, CSS pixels.
    pub screen: (u32, u32),
    /// Device pixels per CSS pixel.
    pub device_scale_factor: f64,
    /// A mobile browser (meta viewport honoured).
    pub is_mobile: bool,
    /// A touch screen.
    pub has_touch: bool,
    /// Its browser's user agent.
    pub user_agent: &'static str,
    /// The engine it ships with (information only, see the module's text).
    pub default_browser: BrowserKind,
}

const IOS_17: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const IOS_16: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1";
const IOS_15: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 15_8 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6 Mobile/15E148 Safari/604.1";
const IPADOS_17: &str = "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const PIXEL_7: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const PIXEL_5: &str = "Mozilla/5.0 (Linux; Android 13; Pixel 5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const GALAXY_S24: &str = "Mozilla/5.0 (Linux; Android 14; SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const GALAXY_S9: &str = "Mozilla/5.0 (Linux; Android 10; SM-G965U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const GALAXY_TAB_S4: &str = "Mozilla/5.0 (Linux; Android 10; SM-T837A) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const EDGE: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0";
const FIREFOX: &str =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
const SAFARI: &str = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";

const fn mobile(
    name: &'static str,
    viewport: (u32, u32),
    screen: (u32, u32),
    device_scale_factor: f64,
    user_agent: &'static str,
    default_browser: BrowserKind,
) -> Device {
    Device {
        name,
        viewport,
        screen,
        device_scale_factor,
        is_mobile: true,
        has_touch: true,
        user_agent,
        default_browser,
    }
}

const fn desktop(
    name: &'static str,
    device_scale_factor: f64,
    user_agent: &'static str,
    default_browser: BrowserKind,
) -> Device {
    Device {
        name,
        viewport: (1280, 720),
        screen: (1920, 1080),
        device_scale_factor,
        is_mobile: false,
        has_touch: false,
        user_agent,
        default_browser,
    }
}

use BrowserKind::{Chromium, Firefox, Webkit};

/// Every device, phones first, then tablets, then desktops.
pub const DEVICES: &[Device] = &[
    mobile("iPhone SE", (375, 548), (375, 667), 2.0, IOS_16, Webkit),
    mobile("iPhone 12", (390, 664), (390, 844), 3.0, IOS_15, Webkit),
    mobile("iPhone 13", (390, 664), (390, 844), 3.0, IOS_15, Webkit),
    mobile("iPhone 14", (390, 664), (390, 844), 3.0, IOS_16, Webkit),
    mobile(
        "iPhone 14 Pro Max",
        (430, 740),
        (430, 932),
        3.0,
        IOS_16,
        Webkit,
    ),
    mobile("iPhone 15", (393, 659), (393, 852), 3.0, IOS_17, Webkit),
    mobile(
        "iPhone 15 landscape",
        (734, 343),
        (852, 393),
        3.0,
        IOS_17,
        Webkit,
    ),
    mobile("iPhone 15 Pro", (393, 659), (393, 852), 3.0, IOS_17, Webkit),
    mobile(
        "iPhone 15 Pro Max",
        (430, 739),
        (430, 932),
        3.0,
        IOS_17,
        Webkit,
    ),
    mobile("Pixel 5", (393, 727), (393, 851), 2.75, PIXEL_5, Chromium),
    mobile("Pixel 7", (412, 839), (412, 915), 2.625, PIXEL_7, Chromium),
    mobile(
        "Pixel 7 landscape",
        (863, 360),
        (915, 412),
        2.625,
        PIXEL_7,
        Chromium,
    ),
    mobile(
        "Galaxy S9+",
        (320, 658),
        (320, 658),
        4.5,
        GALAXY_S9,
        Chromium,
    ),
    mobile(
        "Galaxy S24",
        (360, 780),
        (360, 780),
        3.0,
        GALAXY_S24,
        Chromium,
    ),
    mobile(
        "iPad Mini",
        (768, 1024),
        (768, 1024),
        2.0,
        IPADOS_17,
        Webkit,
    ),
    mobile(
        "iPad (gen 7)",
        (810, 1080),
        (810, 1080),
        2.0,
        IPADOS_17,
        Webkit,
    ),
    mobile(
        "iPad Pro 11",
        (834, 1194),
        (834, 1194),
        2.0,
        IPADOS_17,
        Webkit,
    ),
    mobile(
        "iPad Pro 11 landscape",
        (1194, 834),
        (1194, 834),
        2.0,
        IPADOS_17,
        Webkit,
    ),
    mobile(
        "Galaxy Tab S4",
        (712, 1138),
        (712, 1138),
        2.25,
        GALAXY_TAB_S4,
        Chromium,
    ),
    desktop("Desktop Chrome", 1.0, CHROME, Chromium),
    desktop("Desktop Chrome HiDPI", 2.0, CHROME, Chromium),
    desktop("Desktop Edge", 1.0, EDGE, Chromium),
    desktop("Desktop Firefox", 1.0, FIREFOX, Firefox),
    desktop("Desktop Safari", 2.0, SAFARI, Webkit),
];

/// The device of that name (exact, as in the table), if any.
pub fn get(name: &str) -> Option<&'static Device> {
    DEVICES.iter().find(|d| d.name == name)
}

/// Whether the table has a device of that name (`const`: `#[scenario(device
/// = …)]` checks its name at compile time).
pub const fn known(name: &str) -> bool {
    let mut i = 0;
    while i < DEVICES.len() {
        if eq(DEVICES[i].name, name) {
            return true;
        }
        i += 1;
    }
    false
}

/// Every device's name, in the table's order.
pub fn names() -> Vec<&'static str> {
    DEVICES.iter().map(|d| d.name).collect()
}

/// Whether two strings are equal (`const`: the attribute's checks and
/// [`known`]; `emulation.rs` uses it too).
pub(crate) const fn eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
