//! [`Emulation`]: the user's device, place and time a page is opened with
//! (Playwright's browser-context options, in snake_case): `locale`,
//! `timezone_id`, `geolocation` with `grant_permissions`, `color_scheme`,
//! `reduced_motion`, `offline`, `user_agent`, `extra_http_headers`,
//! `http_credentials`, `javascript_enabled`, and a device's viewport, scale,
//! touch and mobile flags ([`super::devices`]). Each backend applies them
//! when its page opens; what an engine cannot do is
//! [`super::BrowserError::Unsupported`], never a silent no-op.
//!
//! The forms are checked here, once: at compile time for a scenario's
//! attribute (the `const fn` checks below, which `#[scenario]` evaluates in a
//! `const`), at run time by [`Emulation::validate`] for values built in code.

use std::fmt;

use super::devices::{self, Device, eq};

/// The device, place and time a page is opened with. `Default`: none of
/// them (the engine's own), JavaScript on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Emulation {
    /// `navigator.language`, `Intl`'s default and `Accept-Language`: a BCP 47
    /// tag (`de-DE`).
    pub locale: Option<String>,
    /// The time zone `Date` and `Intl` use: an IANA id (`Europe/Berlin`, `UTC`).
    pub timezone_id: Option<String>,
    /// Where `navigator.geolocation` says the device is (it needs the
    /// `geolocation` permission: [`Emulation::grant_permissions`]).
    pub geolocation: Option<Geolocation>,
    /// Permissions granted to the page's origins (`grant_permissions`).
    pub permissions: Vec<Permission>,
    /// `prefers-color-scheme`.
    pub color_scheme: Option<ColorScheme>,
    /// `prefers-reduced-motion`.
    pub reduced_motion: Option<ReducedMotion>,
    /// The network is down: requests fail, `navigator.onLine` is false.
    pub offline: bool,
    /// `navigator.userAgent` and the `User-Agent` header.
    pub user_agent: Option<String>,
    /// Headers every request of the page carries, in order.
    pub extra_http_headers: Vec<(String, String)>,
    /// The answer to an HTTP authentication challenge.
    pub http_credentials: Option<HttpCredentials>,
    /// `false`: the page's scripts do not run (harshjudge's own still do).
    /// `None`: on.
    pub javascript_enabled: Option<bool>,
    /// The viewport (CSS pixels), over `HARSHJUDGE_VIEWPORT`.
    pub viewport: Option<(u32, u32)>,
    /// Device pixels per CSS pixel (`window.devicePixelRatio`).
    pub device_scale_factor: Option<f64>,
    /// A mobile device: the meta viewport is honoured, `(pointer: coarse)`.
    pub is_mobile: bool,
    /// Touch events are supported (`'ontouchstart' in window`).
    pub has_touch: bool,
}

/// A position on Earth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geolocation {
    /// −90 to 90.
    pub latitude: f64,
    /// −180 to 180.
    pub longitude: f64,
    /// Metres, 0 or more (Playwright's default: 0).
    pub accuracy: f64,
}

/// `prefers-color-scheme`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorScheme {
    /// `light`.
    Light,
    /// `dark`.
    Dark,
    /// `no-preference`.
    NoPreference,
}

/// `prefers-reduced-motion`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReducedMotion {
    /// `reduce`.
    Reduce,
    /// `no-preference`.
    NoPreference,
}

/// The credentials of HTTP authentication (Basic or Digest). Its `Debug`
/// and everything harshjudge records never show the password.
#[derive(Clone, PartialEq)]
pub struct HttpCredentials {
    /// The user name.
    pub username: String,
    /// The password.
    pub password: String,
    /// Only challenges of this origin (`https://example.com:8443`) are
    /// answered; none: every origin's.
    pub origin: Option<String>,
}

impl fmt::Debug for HttpCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpCredentials")
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .field("origin", &self.origin)
            .finish()
    }
}

/// A permission [`Emulation::grant_permissions`] grants, by the name of the
/// Permissions API (`geolocation`, `notifications`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Permission {
    /// `geolocation`.
    Geolocation,
    /// `notifications`.
    Notifications,
    /// `camera`.
    Camera,
    /// `microphone`.
    Microphone,
    /// `clipboard-read`.
    ClipboardRead,
    /// `clipboard-write`.
    ClipboardWrite,
    /// `midi`.
    Midi,
    /// `midi-sysex`.
    MidiSysex,
    /// `background-sync`.
    BackgroundSync,
    /// `accelerometer`.
    Accelerometer,
    /// `gyroscope`.
    Gyroscope,
    /// `magnetometer`.
    Magnetometer,
    /// `ambient-light-sensor`.
    AmbientLightSensor,
    /// `payment-handler`.
    PaymentHandler,
    /// `storage-access`.
    StorageAccess,
    /// `local-fonts`.
    LocalFonts,
}

impl Permission {
    /// Every permission, in the order errors list them.
    pub const ALL: [Permission; 16] = [
        Permission::Geolocation,
        Permission::Notifications,
        Permission::Camera,
        Permission::Microphone,
        Permission::ClipboardRead,
        Permission::ClipboardWrite,
        Permission::Midi,
        Permission::MidiSysex,
        Permission::BackgroundSync,
        Permission::Accelerometer,
        Permission::Gyroscope,
        Permission::Magnetometer,
        Permission::AmbientLightSensor,
        Permission::PaymentHandler,
        Permission::StorageAccess,
        Permission::LocalFonts,
    ];

    /// The Permissions API's name (`clipboard-read`).
    pub const fn name(self) -> &'static str {
        match self {
            Permission::Geolocation => "geolocation",
            Permission::Notifications => "notifications",
            Permission::Camera => "camera",
            Permission::Microphone => "microphone",
            Permission::ClipboardRead => "clipboard-read",
            Permission::ClipboardWrite => "clipboard-write",
            Permission::Midi => "midi",
            Permission::MidiSysex => "midi-sysex",
            Permission::BackgroundSync => "background-sync",
            Permission::Accelerometer => "accelerometer",
            Permission::Gyroscope => "gyroscope",
            Permission::Magnetometer => "magnetometer",
            Permission::AmbientLightSensor => "ambient-light-sensor",
            Permission::PaymentHandler => "payment-handler",
            Permission::StorageAccess => "storage-access",
            Permission::LocalFonts => "local-fonts",
        }
    }

    /// The permission of that name, if any (`const`: a scenario's attribute
    /// is checked at compile time).
    pub const fn from_name(name: &str) -> Option<Permission> {
        let mut i = 0;
        while i < Permission::ALL.len() {
            if eq(Permission::ALL[i].name(), name) {
                return Some(Permission::ALL[i]);
            }
            i += 1;
        }
        None
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Permission {
    type Err = EmulationError;
    fn from_str(s: &str) -> Result<Permission, EmulationError> {
        Permission::from_name(s).ok_or_else(|| EmulationError::Permission(s.to_string()))
    }
}

impl std::str::FromStr for ColorScheme {
    type Err = EmulationError;
    fn from_str(s: &str) -> Result<ColorScheme, EmulationError> {
        match s {
            "light" => Ok(ColorScheme::Light),
            "dark" => Ok(ColorScheme::Dark),
            "no-preference" => Ok(ColorScheme::NoPreference),
            _ => Err(EmulationError::ColorScheme(s.to_string())),
        }
    }
}

impl ColorScheme {
    /// The media feature's value: `light`, `dark` or `no-preference`.
    pub fn name(self) -> &'static str {
        match self {
            ColorScheme::Light => "light",
            ColorScheme::Dark => "dark",
            ColorScheme::NoPreference => "no-preference",
        }
    }
}

impl std::str::FromStr for ReducedMotion {
    type Err = EmulationError;
    fn from_str(s: &str) -> Result<ReducedMotion, EmulationError> {
        match s {
            "reduce" => Ok(ReducedMotion::Reduce),
            "no-preference" => Ok(ReducedMotion::NoPreference),
            _ => Err(EmulationError::ReducedMotion(s.to_string())),
        }
    }
}

impl ReducedMotion {
    /// The media feature's value: `reduce` or `no-preference`.
    pub fn name(self) -> &'static str {
        match self {
            ReducedMotion::Reduce => "reduce",
            ReducedMotion::NoPreference => "no-preference",
        }
    }
}

/// An emulation option with a value of the wrong form: the message names the
/// option, the value and the accepted forms.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EmulationError {
    /// A locale not of the BCP 47 form.
    #[error(
        "locale {0:?} is not a BCP 47 language tag: use a language (2–3 letters), then optionally a script and a region, separated by `-`, e.g. \"en-US\", \"de-DE\", \"fr\", \"zh-Hans-CN\""
    )]
    Locale(String),
    /// A time zone id not of the IANA form.
    #[error(
        "timezone_id {0:?} is not an IANA time zone id: use \"UTC\" or Area/Location, e.g. \"Europe/Berlin\", \"America/New_York\", \"Asia/Kolkata\", \"Etc/GMT+5\""
    )]
    TimezoneId(String),
    /// A position out of range.
    #[error(
        "geolocation ({latitude}, {longitude}, accuracy {accuracy}) is out of range: latitude is −90 to 90, longitude −180 to 180, accuracy 0 or more (metres)"
    )]
    Geolocation {
        /// The latitude given.
        latitude: f64,
        /// The longitude given.
        longitude: f64,
        /// The accuracy given.
        accuracy: f64,
    },
    /// A permission name the Permissions API does not have.
    #[error("unknown permission {0:?}: use one of {list}", list = permission_names())]
    Permission(String),
    /// A colour scheme other than the three.
    #[error("color_scheme {0:?} is not one of \"light\", \"dark\", \"no-preference\"")]
    ColorScheme(String),
    /// A reduced-motion value other than the two.
    #[error("reduced_motion {0:?} is not one of \"reduce\", \"no-preference\"")]
    ReducedMotion(String),
    /// A device the table does not have.
    #[error("unknown device {name:?}{hint}: the devices are {list}", hint = device_hint(name), list = devices::names().join(", "))]
    Device {
        /// The name given.
        name: String,
    },
    /// A header name or value that is not one token or one line.
    #[error(
        "{what} {value:?} has a line break or a control character: a header's name is a token (letters, digits, `-`), its value one line"
    )]
    Header {
        /// Which: a name or a value.
        what: &'static str,
        /// What was given.
        value: String,
    },
    /// A user agent of more than one line.
    #[error(
        "user_agent {0:?} has a line break or a control character: a user agent is one line of printable text"
    )]
    UserAgent(String),
    /// A viewport side out of range.
    #[error(
        "viewport {0}x{1} is out of range: each side is 100 to 10000 CSS pixels, e.g. (390, 844)"
    )]
    Viewport(u32, u32),
    /// A scale factor out of range.
    #[error("device_scale_factor {0} is out of range: use more than 0 and at most 10, e.g. 2.0")]
    DeviceScaleFactor(f64),
    /// An origin not of the `scheme://host[:port]` form.
    #[error(
        "http_credentials' origin {0:?} is not an origin: use scheme://host[:port], e.g. \"http://127.0.0.1:8001\""
    )]
    Origin(String),
}

fn permission_names() -> String {
    Permission::ALL
        .iter()
        .map(|p| p.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn device_hint(name: &str) -> String {
    match devices::names()
        .into_iter()
        .find(|n| n.eq_ignore_ascii_case(name.trim()))
    {
        Some(n) => format!(" (did you mean {n:?}? names are matched exactly)"),
        None => String::new(),
    }
}

impl Emulation {
    /// None of the options.
    pub fn new() -> Emulation {
        Emulation::default()
    }

    /// A device's viewport, scale factor, touch, mobile flag and user agent
    /// ([`super::devices`]: `"iPhone 15"`, `"Pixel 7"`, `"Desktop Firefox"`, …).
    pub fn device(name: &str) -> Result<Emulation, EmulationError> {
        let device = devices::get(name).ok_or_else(|| EmulationError::Device {
            name: name.to_string(),
        })?;
        Ok(Emulation::new().with_device(device))
    }

    /// `self` with `device`'s viewport, scale factor, touch, mobile flag and
    /// user agent (over what `self` had of them).
    pub fn with_device(mut self, device: &Device) -> Emulation {
        self.viewport = Some(device.viewport);
        self.device_scale_factor = Some(device.device_scale_factor);
        self.is_mobile = device.is_mobile;
        self.has_touch = device.has_touch;
        self.user_agent = Some(device.user_agent.to_string());
        self
    }

    /// `navigator.language`, `Intl` and `Accept-Language` (`"de-DE"`).
    pub fn locale(mut self, locale: impl Into<String>) -> Emulation {
        self.locale = Some(locale.into());
        self
    }

    /// The time zone (`"Europe/Berlin"`).
    pub fn timezone_id(mut self, id: impl Into<String>) -> Emulation {
        self.timezone_id = Some(id.into());
        self
    }

    /// Where the device is, accuracy 0 m (grant [`Permission::Geolocation`]
    /// too for the page to read it).
    pub fn geolocation(mut self, latitude: f64, longitude: f64) -> Emulation {
        self.geolocation = Some(Geolocation {
            latitude,
            longitude,
            accuracy: 0.0,
        });
        self
    }

    /// Grants `permissions` to the page's origins (added to those granted).
    pub fn grant_permissions(
        mut self,
        permissions: impl IntoIterator<Item = Permission>,
    ) -> Emulation {
        for p in permissions {
            if !self.permissions.contains(&p) {
                self.permissions.push(p);
            }
        }
        self
    }

    /// `prefers-color-scheme`.
    pub fn color_scheme(mut self, scheme: ColorScheme) -> Emulation {
        self.color_scheme = Some(scheme);
        self
    }

    /// `prefers-reduced-motion`.
    pub fn reduced_motion(mut self, motion: ReducedMotion) -> Emulation {
        self.reduced_motion = Some(motion);
        self
    }

    /// The network is down (`true`) or up.
    pub fn offline(mut self, offline: bool) -> Emulation {
        self.offline = offline;
        self
    }

    /// `navigator.userAgent` and the `User-Agent` header.
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Emulation {
        self.user_agent = Some(user_agent.into());
        self
    }

    /// Adds a header every request of the page carries.
    pub fn extra_http_header(
        mut self,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Emulation {
        self.extra_http_headers.push((name.into(), value.into()));
        self
    }

    /// Answers HTTP authentication challenges with these credentials.
    pub fn http_credentials(
        mut self,
        username: impl Into<String>,
        password: impl Into<String>,
    ) -> Emulation {
        self.http_credentials = Some(HttpCredentials {
            username: username.into(),
            password: password.into(),
            origin: None,
        });
        self
    }

    /// `false`: the page's own scripts do not run.
    pub fn javascript_enabled(mut self, enabled: bool) -> Emulation {
        self.javascript_enabled = Some(enabled);
        self
    }

    /// The viewport in CSS pixels (over `HARSHJUDGE_VIEWPORT`).
    pub fn viewport(mut self, width: u32, height: u32) -> Emulation {
        self.viewport = Some((width, height));
        self
    }

    /// `window.devicePixelRatio`.
    pub fn device_scale_factor(mut self, factor: f64) -> Emulation {
        self.device_scale_factor = Some(factor);
        self
    }

    /// Whether none of the options is set (the engine's own device).
    pub fn is_default(&self) -> bool {
        *self == Emulation::default()
    }

    /// Checks every option's form; the error names the first wrong one and
    /// the accepted forms. A page's opening calls it.
    pub fn validate(&self) -> Result<(), EmulationError> {
        if let Some(l) = &self.locale
            && !is_locale(l)
        {
            return Err(EmulationError::Locale(l.clone()));
        }
        if let Some(t) = &self.timezone_id
            && !is_timezone_id(t)
        {
            return Err(EmulationError::TimezoneId(t.clone()));
        }
        if let Some(g) = self.geolocation
            && !((-90.0..=90.0).contains(&g.latitude)
                && (-180.0..=180.0).contains(&g.longitude)
                && g.accuracy >= 0.0
                && g.accuracy.is_finite())
        {
            return Err(EmulationError::Geolocation {
                latitude: g.latitude,
                longitude: g.longitude,
                accuracy: g.accuracy,
            });
        }
        for (name, value) in &self.extra_http_headers {
            if name.is_empty() || !name.bytes().all(is_token_byte) {
                return Err(EmulationError::Header {
                    what: "extra_http_headers' name",
                    value: name.clone(),
                });
            }
            if value.chars().any(char::is_control) {
                return Err(EmulationError::Header {
                    what: "extra_http_headers' value",
                    value: value.clone(),
                });
            }
        }
        if let Some(ua) = &self.user_agent
            && ua.chars().any(char::is_control)
        {
            return Err(EmulationError::UserAgent(ua.clone()));
        }
        if let Some((w, h)) = self.viewport
            && !((100..=10_000).contains(&w) && (100..=10_000).contains(&h))
        {
            return Err(EmulationError::Viewport(w, h));
        }
        if let Some(f) = self.device_scale_factor
            && !(f > 0.0 && f <= 10.0)
        {
            return Err(EmulationError::DeviceScaleFactor(f));
        }
        if let Some(origin) = self
            .http_credentials
            .as_ref()
            .and_then(|c| c.origin.as_ref())
            && !is_origin(origin)
        {
            return Err(EmulationError::Origin(origin.clone()));
        }
        Ok(())
    }
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_origin(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once("://") else {
        return false;
    };
    matches!(scheme, "http" | "https")
        && !rest.is_empty()
        && !rest.contains(['/', '?', '#', '@', ' '])
}

// ---- forms, checked in `const` too ----------------------------------------

/// Whether `s` has the form of a BCP 47 language tag as browsers take it:
/// a language of 2–3 letters (or 4–8), then subtags of 1–8 letters or
/// digits, separated by `-` (`en`, `de-DE`, `zh-Hans-CN`, `es-419`).
pub const fn is_locale(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() {
        return false;
    }
    let mut i = 0;
    let mut first = true;
    while i <= b.len() {
        // One subtag: from i to the next '-' or the end.
        let start = i;
        while i < b.len() && b[i] != b'-' {
            if !b[i].is_ascii_alphanumeric() || (first && !b[i].is_ascii_alphabetic()) {
                return false;
            }
            i += 1;
        }
        let len = i - start;
        if (first && !(len >= 2 && len <= 8 && len != 4)) || len == 0 || len > 8 {
            return false;
        }
        first = false;
        i += 1;
    }
    true
}

/// Whether `s` has the form of an IANA time zone id: `UTC`, `GMT`, or
/// `Area/Location[/Sub]` whose parts start with a letter and hold letters,
/// digits, `_`, `-` and `+` (`Europe/Berlin`, `America/Argentina/Buenos_Aires`,
/// `Etc/GMT+5`). Whether the engine knows it is the engine's answer.
pub const fn is_timezone_id(s: &str) -> bool {
    let b = s.as_bytes();
    if eq(s, "UTC") || eq(s, "GMT") {
        return true;
    }
    if b.is_empty() || b.len() > 64 {
        return false;
    }
    let mut parts = 0;
    let mut i = 0;
    while i <= b.len() {
        let start = i;
        while i < b.len() && b[i] != b'/' {
            let c = b[i];
            if !(c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'+') {
                return false;
            }
            i += 1;
        }
        if i == start || !b[start].is_ascii_alphabetic() {
            return false;
        }
        parts += 1;
        i += 1;
    }
    parts >= 2 && parts <= 3
}

#[cfg(test)]
#[path = "emulation_tests.rs"]
mod tests;
