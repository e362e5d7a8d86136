#![doc = include_str!("../README.md")]
//!
//! ## What it is made of
//!
//! chromedriver, geckodriver and WebKitWebDriver are started and stopped for
//! you (or a remote W3C WebDriver is used), sessions are reused across pages,
//! all owned by a [`Browsers`] value; the [`Page`] API auto-waits. It writes
//! no evidence (that is harshjudge's runner's and store's job), only the
//! screenshot baselines of `to_have_screenshot`.
//!
//! Settings: `HARSHJUDGE_CHROMEDRIVER` (path; default `chromedriver` on PATH),
//! `HARSHJUDGE_CHROMIUM` (default `chromium`, `chromium-browser`, `google-chrome`
//! on PATH), `HARSHJUDGE_WEBDRIVER_URL` (a running WebDriver; no local
//! driver then), `HARSHJUDGE_WINDOW` (default `1280x800`),
//! `HARSHJUDGE_WAIT` (auto-wait limit, default `5s`), `HARSHJUDGE_EXPECT_TIMEOUT`
//! (web-first assertions' limit, default `HARSHJUDGE_WAIT`'s),
//! `HARSHJUDGE_CHROMIUM_PROTOCOL` (default `cdp`: local Chromium over the
//! DevTools protocol, no chromedriver; `webdriver`: through chromedriver).
//! [`settings::VARIABLES`] lists every variable.

#[doc(hidden)]
pub mod process;
pub mod secrets;
pub mod settings;
#[doc(hidden)]
pub mod soft;
pub mod visual;
pub mod yaml;

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
#[doc(hidden)]
pub mod pause;
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
#[doc(hidden)]
pub use browsers::{Exiting, Killer};
pub use clock::{Clock, ClockTime, ClockTimeError};
#[doc(hidden)]
pub use config::default_expect_timeout;
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
pub use fantoccini;
pub use frame::FrameLocator;
pub use generate::{
    GeneratedLocator, LocatorParseError, LocatorPart, engine_source, generate_locator,
    generate_locator_in,
};
pub use glob::UrlPattern;
pub use keyboard::{Keyboard, Modifier, Mouse, MouseButton};
pub use locator::{BoundingBox, Click, Locator, TextMatch, WaitState};
pub use logs::{ConsoleEntry, NetworkEntry};
#[doc(hidden)]
pub use observe::console_failure;
pub use observe::{ConsoleExpect, ConsoleLog, NetworkExpect, NetworkLog, RequestExpect};
pub use page::{Page, ScenarioEvidence};
pub use page_emulation::EmulateMedia;
pub use regex;
pub use request::{Request, ResponseInfo};
pub use routes::{Continue, Response, Route};
pub use snapshot::{Animations, Caret, ScreenshotAssertion, configure_snapshots};
pub use storage::{NameValue, OriginState, StateName, StorageState};
pub use trace::trace_aria_snapshot;
pub use trace::{StepTrace, Tracer, untraced};
#[doc(hidden)]
pub use trace::{Tracing, now_ms};
#[doc(hidden)]
pub use video::{Screencast, ScreencastFrame};
pub use watch::{NoDisplay, has_display, set_suite_watch};
