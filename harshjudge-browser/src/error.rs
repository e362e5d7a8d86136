//! [`BrowserError`]: what can go wrong with the browser, each message saying
//! what to do next, and the line of the user's call that raised it.

use std::time::Duration;

use crate::settings::SettingError;

/// What can go wrong with the browser. Every message says what to do next.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BrowserError {
    /// No chromedriver.
    #[error(
        "chromedriver not found ({0}): install it, e.g. `apt-get install chromium chromium-driver` on Debian, set HARSHJUDGE_CHROMEDRIVER to its path, or point HARSHJUDGE_WEBDRIVER_URL at a running WebDriver"
    )]
    DriverNotFound(String),
    /// No Chromium.
    #[error(
        "Chromium not found ({0}): install it, e.g. `apt-get install chromium chromium-driver` on Debian, or set HARSHJUDGE_CHROMIUM to its path"
    )]
    BrowserNotFound(String),
    /// chromedriver did not start.
    #[error("chromedriver did not start: {0}")]
    DriverStart(String),
    /// A session could not be created.
    #[error("could not start a browser session at {url}: {message}")]
    Session {
        /// The WebDriver URL.
        url: String,
        /// Why.
        message: String,
    },
    /// An auto-wait ran out.
    #[error("timed out after {secs:.1} s waiting for {locator} to {expected}; found: {found}", secs = .waited.as_secs_f64())]
    Timeout {
        /// The locator.
        locator: String,
        /// What was expected.
        expected: String,
        /// What was found instead (the last problem, then the call log).
        found: String,
        /// How long it waited.
        waited: Duration,
        /// Where the waiting call was made.
        location: Option<&'static std::panic::Location<'static>>,
    },
    /// An action or single-element read on a locator that matches several elements.
    #[error("strict mode violation: {locator} resolved to {count} elements:{}\nnarrow it with .first(), .nth(i), .filter_has_text(…) or a more specific locator", matches.iter().enumerate().map(|(i, m)| format!("\n  {}) {m}", i + 1)).collect::<String>())]
    Strict {
        /// The locator.
        locator: String,
        /// How many elements match.
        count: usize,
        /// The first matches, previewed.
        matches: Vec<String>,
        /// Where the call was made.
        location: Option<&'static std::panic::Location<'static>>,
    },
    /// A web-first assertion did not hold within its time.
    #[error("{message}")]
    Assertion {
        /// Locator, expected, received, time waited and call log.
        message: String,
        /// The line of the `expect(…)` call.
        location: Option<&'static std::panic::Location<'static>>,
    },
    /// A call that cannot work as made (a bad key name, a `<select>` without
    /// that option, a script that threw).
    #[error("{message}")]
    Invalid {
        /// What was wrong and how to fix it.
        message: String,
        /// Where the call was made.
        location: Option<&'static std::panic::Location<'static>>,
    },
    /// The driver, the browser or the page went away: the cause leads.
    #[error("{cause} while {during}: {detail}")]
    Lost {
        /// "chromedriver exited", "the page crashed", "webdriver not reachable", …
        cause: String,
        /// What was being done.
        during: String,
        /// The WebDriver error.
        detail: String,
        /// Where the call was made.
        location: Option<&'static std::panic::Location<'static>>,
    },
    /// A relative URL and no base URL to join it to.
    #[error(
        "cannot open {url:?}: it is a relative URL and no base URL is set; set HARSHJUDGE_BASE_URL, `baseUrl` in .harshJudge/config.yaml or main!(base_url = …), or pass an absolute URL"
    )]
    NoBaseUrl {
        /// The URL given.
        url: String,
    },
    /// A navigation (`goto`) that another navigation of the page took the
    /// place of before its document came: the page's own script, a meta
    /// refresh or a form navigated meanwhile.
    #[error(
        "opening {url}: the navigation was interrupted by another navigation to {by} (the page navigated itself meanwhile); wait until the page has done so (e.g. expect(&page).to_have_url(…)) before opening another"
    )]
    NavigationInterrupted {
        /// The URL asked for.
        url: String,
        /// The URL of the navigation that took its place.
        by: String,
    },
    /// A WebDriver command failed.
    #[error("{action}: {message}")]
    Command {
        /// What was being done.
        action: String,
        /// The WebDriver error.
        message: String,
    },
    /// A headed browser asked for where there is no display.
    #[error(transparent)]
    NoDisplay(#[from] NoDisplay),
    /// A setting has a bad value.
    #[error("setting {name}={value:?} is invalid: {expected}")]
    Setting {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What is expected.
        expected: String,
    },
    /// The driver or browser of an engine other than Chromium is missing.
    #[error("{browser}: {what} not found: install it with {install}")]
    EngineMissing {
        /// The engine.
        browser: super::kind::BrowserKind,
        /// What is missing, and where it was looked for.
        what: String,
        /// How to install it.
        install: &'static str,
    },
    /// A new browser session did not open within `HARSHJUDGE_LAUNCH_TIMEOUT`
    /// (its driver was stopped).
    #[error(
        "{browser}: no browser session opened within {secs:.1} s at {url} ({tries} tr{ies}, a new driver each); the driver said: {said}; raise HARSHJUDGE_LAUNCH_TIMEOUT if the browser is only slow to start",
        secs = .after.as_secs_f64(),
        ies = if *.tries == 1 { "y" } else { "ies" },
        said = if .said.is_empty() { "nothing" } else { .said.as_str() }
    )]
    LaunchTimeout {
        /// The engine.
        browser: super::kind::BrowserKind,
        /// The WebDriver URL of the last try.
        url: String,
        /// The limit each try had.
        after: std::time::Duration,
        /// How many tries.
        tries: u32,
        /// The last lines the driver (and its browser) wrote to stderr.
        said: String,
    },
    /// An emulation option (a scenario's, `Emulation`'s) of the wrong
    /// form: the message names it and the accepted forms.
    #[error("the page's emulation is invalid: {0}")]
    Emulation(#[from] super::emulation::EmulationError),
    /// The engine does not offer something the call needs.
    #[error("{what} is not available on {browser}: {why}")]
    Unsupported {
        /// The engine.
        browser: super::kind::BrowserKind,
        /// What was asked.
        what: String,
        /// Why, and what to do instead.
        why: String,
    },
}

impl BrowserError {
    /// Where the failing call was made in the user's code (actions, reads and
    /// assertions record it at their synchronous entry point).
    pub fn location(&self) -> Option<&'static std::panic::Location<'static>> {
        match self {
            BrowserError::Timeout { location, .. }
            | BrowserError::Strict { location, .. }
            | BrowserError::Assertion { location, .. }
            | BrowserError::Invalid { location, .. }
            | BrowserError::Lost { location, .. } => *location,
            _ => None,
        }
    }

    /// The same error located at `at`.
    pub(crate) fn located(mut self, at: &'static std::panic::Location<'static>) -> Self {
        match &mut self {
            BrowserError::Timeout { location, .. }
            | BrowserError::Strict { location, .. }
            | BrowserError::Assertion { location, .. }
            | BrowserError::Invalid { location, .. }
            | BrowserError::Lost { location, .. } => *location = Some(at),
            BrowserError::Command { .. } => {
                return BrowserError::Invalid {
                    message: self.to_string(),
                    location: Some(at),
                };
            }
            _ => {}
        }
        self
    }
}

impl From<SettingError> for BrowserError {
    fn from(e: SettingError) -> Self {
        BrowserError::Setting {
            name: e.name,
            value: e.value,
            expected: e.expected,
        }
    }
}

pub(crate) fn cmd_err(action: impl Into<String>, e: impl std::fmt::Display) -> BrowserError {
    BrowserError::Command {
        action: action.into(),
        message: e.to_string(),
    }
}

/// A headed browser asked for where there is no display.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{asked_by} asks for browser windows, but there is no display: neither DISPLAY nor WAYLAND_DISPLAY is set. Run in a desktop session, under a virtual display (`xvfb-run -a cargo test --test NAME -- --headed`), or without {asked_by}"
)]
pub struct NoDisplay {
    /// `--headed` or `HARSHJUDGE_HEADED`.
    pub asked_by: &'static str,
}
