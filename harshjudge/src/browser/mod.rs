//! The browser: chromedriver started and stopped for you (or a remote W3C
//! WebDriver), headless Chromium sessions reused across scenarios, all owned
//! by a [`Browsers`] value, and the [`Page`] API with auto-waiting. It never writes files: evidence is the
//! runner's and the store's job.
//!
//! Settings: `HARSHJUDGE_CHROMEDRIVER` (path; default `chromedriver` on PATH),
//! `HARSHJUDGE_CHROMIUM` (default `chromium`, `chromium-browser`, `google-chrome`
//! on PATH), `HARSHJUDGE_WEBDRIVER_URL` (a running WebDriver; no local
//! chromedriver then), `HARSHJUDGE_WINDOW` (default `1280x800`),
//! `HARSHJUDGE_WAIT` (auto-wait limit, default `5s`), `HARSHJUDGE_EXPECT_TIMEOUT`
//! (web-first assertions' limit, default `HARSHJUDGE_WAIT`'s),
//! `HARSHJUDGE_CHROMIUM_PROTOCOL` (`cdp`: local Chromium over the DevTools
//! protocol, no chromedriver; default `webdriver`).

mod aria_template;
mod backend;
mod bidi;
mod browsers;
mod clock;
mod config;
mod cookies;
mod credentials;
pub mod devices;
mod dialog;
mod dialogs;
mod download;
mod emulation;
mod engine;
mod engines;
mod error;
mod expect;
mod frame;
mod generate;
mod glob;
mod inspect;
mod keyboard;
mod keys;
mod kind;
mod lifecycle;
mod locator;
mod logs;
mod network;
mod observe;
mod page;
mod page_emulation;
pub(crate) mod pause;
mod popup;
mod protocol;
mod request;
mod routes;
mod script;
mod shorthands;
mod snapshot;
mod state_name;
mod steplog;
mod storage;
pub mod trace;
mod video;
mod watch;
mod wire;

pub use browsers::Browsers;
pub(crate) use browsers::{Exiting, Killer};
pub use clock::{Clock, ClockTime, ClockTimeError};
pub(crate) use config::default_expect_timeout;
pub use config::{
    BrowserConfig, BrowserKind, ChromiumProtocol, ConsoleSettings, UnknownBrowser, check_settings,
    set_suite_expect_timeout,
};
pub use cookies::Cookie;
pub use dialogs::{Dialog, DialogType};
pub use download::Download;
pub use emulation::{
    ColorScheme, Emulation, EmulationError, Geolocation, HttpCredentials, Permission,
    ReducedMotion, is_locale, is_timezone_id,
};
pub use error::BrowserError;
pub use expect::{Assertion, Expectable, Expected, LocatorExpect, PageExpect, expect};
pub use frame::FrameLocator;
pub use generate::{
    GeneratedLocator, LocatorParseError, LocatorPart, engine_source, generate_locator,
    generate_locator_in,
};
pub use glob::UrlPattern;
pub use keyboard::{Keyboard, Modifier, Mouse, MouseButton};
pub use locator::{BoundingBox, Click, Locator, TextMatch, WaitState};
pub use logs::{ConsoleEntry, NetworkEntry};
pub(crate) use observe::console_failure;
pub use observe::{ConsoleExpect, ConsoleLog, NetworkExpect, NetworkLog, RequestExpect};
pub use page::{Page, ScenarioEvidence};
pub use page_emulation::EmulateMedia;
pub use request::{Request, ResponseInfo};
pub use routes::{Continue, Response, Route};
pub use snapshot::{Animations, Caret, ScreenshotAssertion, configure_snapshots};
pub use storage::{NameValue, OriginState, StateName, StorageState};
pub use trace::trace_aria_snapshot;
pub use trace::{StepTrace, Tracer, untraced};
pub(crate) use trace::{Tracing, now_ms};
pub(crate) use video::{Screencast, ScreencastFrame};
pub use watch::{NoDisplay, has_display, set_suite_watch};
