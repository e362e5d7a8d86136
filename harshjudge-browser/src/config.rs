//! [`BrowserConfig`]: the browser's settings (`HARSHJUDGE_WEBDRIVER_URL`,
//! `_CHROMEDRIVER`, `_CHROMIUM`, `_WINDOW`, `_VIEWPORT`, `_WAIT`), the binaries
//! they name, and the W3C capabilities of a new session.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::emulation::Emulation;
use super::error::BrowserError;
pub use super::kind::{BrowserKind, UnknownBrowser};
use super::logs;
use crate::settings::{env, env_duration};

/// Browser settings.
#[derive(Clone, Debug, PartialEq)]
pub struct BrowserConfig {
    /// A running W3C WebDriver to use instead of a local chromedriver.
    pub webdriver_url: Option<String>,
    /// The chromedriver binary (when no `webdriver_url`).
    pub chromedriver: Option<PathBuf>,
    /// The Chromium binary.
    pub chromium: Option<PathBuf>,
    /// Window size.
    pub window: (u32, u32),
    /// Viewport size (`HARSHJUDGE_VIEWPORT`, default 1280x720): the page's
    /// visible area, and so the size of screenshots.
    pub viewport: (u32, u32),
    /// Auto-wait limit of actions, and of expectations when
    /// `expect_timeout` is none (`HARSHJUDGE_WAIT`, default 5 s).
    pub wait: Duration,
    /// How long web-first assertions retry when the call sets no timeout
    /// (Playwright's `expect.timeout`): `HARSHJUDGE_EXPECT_TIMEOUT`, else the
    /// suite's `main!(expect_timeout = …)`; none: `wait`.
    pub expect_timeout: Option<Duration>,
    /// How long a new browser session may take to open
    /// (`HARSHJUDGE_LAUNCH_TIMEOUT`, default 60 s): a driver whose browser
    /// does not start (WebKitWebDriver waits for ever for a MiniBrowser that
    /// could not open its display) is stopped then, and the page's opening
    /// fails naming what the driver said.
    pub launch_timeout: Duration,
    /// Which browser (`HARSHJUDGE_BROWSER`, default Chromium).
    pub browser: BrowserKind,
    /// The geckodriver binary (`HARSHJUDGE_GECKODRIVER`; default on PATH).
    pub geckodriver: Option<PathBuf>,
    /// The Firefox binary (`HARSHJUDGE_FIREFOX`; default `firefox-esr` or
    /// `firefox` on PATH).
    pub firefox: Option<PathBuf>,
    /// The WebKitGTK driver (`HARSHJUDGE_WEBKIT_DRIVER`; default
    /// `WebKitWebDriver` on PATH).
    pub webkit_driver: Option<PathBuf>,
    /// WebKitGTK's MiniBrowser (`HARSHJUDGE_MINIBROWSER`; default Debian's
    /// `/usr/lib/<triplet>/webkit2gtk-4.1/MiniBrowser`).
    pub minibrowser: Option<PathBuf>,
    /// How a local Chromium's pages are driven
    /// (`HARSHJUDGE_CHROMIUM_PROTOCOL`, default `cdp`).
    pub chromium_protocol: ChromiumProtocol,
    /// The device, place and time its pages are opened with (none from the
    /// environment: a scenario's `#[scenario(locale = …, device = …)]` or
    /// `Scenario::page_with` sets them).
    pub emulation: Emulation,
    /// Real windows instead of headless browsers (`--headed`,
    /// `HARSHJUDGE_HEADED`): on `DISPLAY`/`WAYLAND_DISPLAY`.
    pub headed: bool,
    /// How long pages wait before each action (`--slow-mo`,
    /// `HARSHJUDGE_SLOW_MO`; zero: none). Playwright's `slowMo`.
    pub slow_mo: Duration,
}

/// The protocol a local Chromium's pages speak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChromiumProtocol {
    /// The DevTools protocol, spoken directly to a Chromium launched here
    /// over a pipe (no chromedriver): the default.
    #[default]
    Cdp,
    /// WebDriver through chromedriver (classic commands and BiDi): to
    /// compare with a remote end's behaviour, or to work around a CDP gap.
    WebDriver,
}

impl ChromiumProtocol {
    /// `HARSHJUDGE_CHROMIUM_PROTOCOL` (`cdp` or `webdriver`), default
    /// `cdp`; another value is an error naming the variable.
    pub fn from_env() -> Result<ChromiumProtocol, BrowserError> {
        match env("HARSHJUDGE_CHROMIUM_PROTOCOL")? {
            None => Ok(ChromiumProtocol::default()),
            Some(v) => ChromiumProtocol::parse(&v).ok_or_else(|| BrowserError::Setting {
                name: "HARSHJUDGE_CHROMIUM_PROTOCOL",
                value: v.clone(),
                expected: "cdp or webdriver".into(),
            }),
        }
    }

    /// `cdp` or `webdriver` (any case, surrounding spaces ignored).
    fn parse(v: &str) -> Option<ChromiumProtocol> {
        match v.trim().to_ascii_lowercase().as_str() {
            "cdp" => Some(ChromiumProtocol::Cdp),
            "webdriver" => Some(ChromiumProtocol::WebDriver),
            _ => None,
        }
    }
}

impl BrowserKind {
    /// `HARSHJUDGE_BROWSER`, default Chromium; a bad value is an error naming it.
    pub fn from_env() -> Result<BrowserKind, BrowserError> {
        match env("HARSHJUDGE_BROWSER")? {
            None => Ok(BrowserKind::Chromium),
            Some(v) => v.parse().map_err(|_| BrowserError::Setting {
                name: "HARSHJUDGE_BROWSER",
                value: v.clone(),
                expected: "chromium, firefox or webkit".into(),
            }),
        }
    }
}

/// Chromium's headless shell: Debian's binary itself (its
/// `/usr/bin/chromium-headless-shell` is a script that runs it without
/// `exec`, so the process started would not be the browser: killing it
/// would leave the browser running and its pipe open), then by the names
/// Debian and Chrome for Testing (`chrome-headless-shell`) give it on PATH.
const HEADLESS_SHELLS: &[&str] = &[
    "/usr/lib/chromium/chromium-headless-shell",
    "chromium-headless-shell",
    "chrome-headless-shell",
];

/// The full Chromium (headed, or when no headless shell is installed).
const CHROMIUMS: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

fn which(names: &[&str]) -> Option<PathBuf> {
    which_on(std::env::var_os("PATH").as_deref(), names)
}

/// The first of `names` in the folders of `path` (a `PATH` value).
fn which_on(path: Option<&std::ffi::OsStr>, names: &[&str]) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// A `WIDTHxHEIGHT` setting (each 100 to 10,000 pixels), or `default`.
fn env_size(name: &'static str, default: (u32, u32)) -> Result<(u32, u32), BrowserError> {
    match env(name)? {
        Some(v) => parse_size(name, v, default),
        None => Ok(default),
    }
}

/// `v`, the value of setting `name`, as `WIDTHxHEIGHT` (each 100 to 10,000
/// pixels); the error names the setting and shows `default`'s form.
fn parse_size(
    name: &'static str,
    v: String,
    default: (u32, u32),
) -> Result<(u32, u32), BrowserError> {
    let parsed = v
        .split_once('x')
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
    match parsed {
        Some((w, h)) if (100..=10_000).contains(&w) && (100..=10_000).contains(&h) => Ok((w, h)),
        _ => Err(BrowserError::Setting {
            name,
            value: v,
            expected: format!(
                "WIDTHxHEIGHT between 100 and 10000, e.g. {}x{}",
                default.0, default.1
            ),
        }),
    }
}

/// Checks the browser's variables (`HARSHJUDGE_WEBDRIVER_URL`, `_CHROMEDRIVER`,
/// `_CHROMIUM`, …) without starting anything: the harness calls it before any
/// run, so that a bad one stops the invocation rather than failing every page.
pub fn check_settings() -> Result<(), crate::settings::SettingError> {
    BrowserConfig::from_env()
        .map(drop)
        .and_then(|()| ConsoleSettings::from_env().map(drop))
        .map_err(|e| match e {
            BrowserError::Setting {
                name,
                value,
                expected,
            } => crate::settings::SettingError {
                name,
                value,
                expected,
            },
            other => crate::settings::SettingError {
                name: "HARSHJUDGE_*",
                value: String::new(),
                expected: other.to_string(),
            },
        })
}

/// The suite's default expect timeout (`main!(expect_timeout = …)`), under
/// `HARSHJUDGE_EXPECT_TIMEOUT`; set by the harness for its invocation.
static SUITE_EXPECT_TIMEOUT: std::sync::Mutex<Option<Duration>> = std::sync::Mutex::new(None);

/// Sets the suite's default expect timeout (`main!(expect_timeout = …)`; none:
/// `HARSHJUDGE_WAIT`'s) for the pages opened from now on.
/// `HARSHJUDGE_EXPECT_TIMEOUT` wins over it. Like a duration setting, it is
/// more than zero and at most 24 h: another value is an error naming it.
#[doc(hidden)]
pub fn set_suite_expect_timeout(
    timeout: Option<Duration>,
) -> Result<(), crate::settings::SettingError> {
    if let Some(d) = timeout
        && (d.is_zero() || d > crate::settings::MAX_DURATION)
    {
        return Err(crate::settings::SettingError {
            name: "main!(expect_timeout)",
            value: format!("{d:?}"),
            expected: "a duration greater than zero and at most 24 h, e.g. Duration::from_secs(30)"
                .into(),
        });
    }
    *SUITE_EXPECT_TIMEOUT.lock().expect("expect timeout lock") = timeout;
    Ok(())
}

/// The expect timeout the settings give: `HARSHJUDGE_EXPECT_TIMEOUT`, else
/// the suite's `main!(expect_timeout = …)`; none: the wait (`wait`) applies.
fn expect_timeout_setting(wait: Duration) -> Result<Option<Duration>, BrowserError> {
    Ok(match env("HARSHJUDGE_EXPECT_TIMEOUT")? {
        Some(_) => Some(env_duration("HARSHJUDGE_EXPECT_TIMEOUT", wait)?),
        None => *SUITE_EXPECT_TIMEOUT.lock().expect("expect timeout lock"),
    })
}

/// How long an assertion retries when the call sets no timeout, as a page's
/// would: the expect timeout the settings give, else `HARSHJUDGE_WAIT` (5 s).
/// For assertions without a page (`expect_poll`, `to_pass`).
pub fn default_expect_timeout() -> Result<Duration, BrowserError> {
    let wait = env_duration("HARSHJUDGE_WAIT", Duration::from_secs(5))?;
    Ok(expect_timeout_setting(wait)?.unwrap_or(wait))
}

impl BrowserConfig {
    /// From `HARSHJUDGE_*` variables.
    pub fn from_env() -> Result<Self, BrowserError> {
        let window = env_size("HARSHJUDGE_WINDOW", (1280, 800))?;
        let viewport = env_size("HARSHJUDGE_VIEWPORT", (1280, 720))?;
        let wait = env_duration("HARSHJUDGE_WAIT", Duration::from_secs(5))?;
        let launch_timeout = env_duration("HARSHJUDGE_LAUNCH_TIMEOUT", Duration::from_secs(60))?;
        let expect_timeout = expect_timeout_setting(wait)?;
        let (headed, slow_mo) = super::watch::watch_settings()?;
        Ok(BrowserConfig {
            webdriver_url: crate::settings::webdriver_url()?,
            chromedriver: env("HARSHJUDGE_CHROMEDRIVER")?.map(PathBuf::from),
            chromium: env("HARSHJUDGE_CHROMIUM")?.map(PathBuf::from),
            window,
            viewport,
            wait,
            expect_timeout,
            launch_timeout,
            browser: BrowserKind::from_env()?,
            geckodriver: env("HARSHJUDGE_GECKODRIVER")?.map(PathBuf::from),
            firefox: env("HARSHJUDGE_FIREFOX")?.map(PathBuf::from),
            webkit_driver: env("HARSHJUDGE_WEBKIT_DRIVER")?.map(PathBuf::from),
            minibrowser: env("HARSHJUDGE_MINIBROWSER")?.map(PathBuf::from),
            chromium_protocol: ChromiumProtocol::from_env()?,
            emulation: Emulation::default(),
            headed,
            slow_mo,
        })
    }

    /// The same settings for another browser.
    pub fn for_browser(&self, browser: BrowserKind) -> BrowserConfig {
        BrowserConfig {
            browser,
            ..self.clone()
        }
    }

    /// A binary: the setting's path when given (it must exist), else the first
    /// of `names` on PATH (or an absolute candidate that exists).
    fn binary(
        setting: &'static str,
        given: &Option<PathBuf>,
        names: &[&str],
        missing: fn(String) -> BrowserError,
    ) -> Result<PathBuf, BrowserError> {
        match given {
            Some(p) if p.is_file() => Ok(p.clone()),
            Some(p) => Err(missing(format!("{setting}={} does not exist", p.display()))),
            None => names
                .iter()
                .map(Path::new)
                .find(|p| p.is_absolute() && p.is_file())
                .map(Path::to_path_buf)
                .or_else(|| which(names))
                .or_else(|| {
                    // `cargo install`'s folder (geckodriver), on PATH or not.
                    let home = std::env::var_os("CARGO_HOME")
                        .map(PathBuf::from)
                        .or_else(|| {
                            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo"))
                        })?;
                    names
                        .iter()
                        .map(|n| home.join("bin").join(n))
                        .find(|p| p.is_file())
                })
                .ok_or_else(|| missing(format!("none of {} found", names.join(", ")))),
        }
    }

    /// The driver binary of the configured browser.
    pub(super) fn driver_binary(&self) -> Result<PathBuf, BrowserError> {
        match self.browser {
            BrowserKind::Chromium => self.chromedriver_binary(),
            BrowserKind::Firefox => Self::binary(
                "HARSHJUDGE_GECKODRIVER",
                &self.geckodriver,
                &["geckodriver"],
                |m| BrowserError::EngineMissing {
                    browser: BrowserKind::Firefox,
                    what: format!("geckodriver ({m})"),
                    install: "`cargo install --locked geckodriver` (or `cargo xtask test`), or set HARSHJUDGE_GECKODRIVER",
                },
            ),
            BrowserKind::Webkit => Self::binary(
                "HARSHJUDGE_WEBKIT_DRIVER",
                &self.webkit_driver,
                &["WebKitWebDriver"],
                |m| BrowserError::EngineMissing {
                    browser: BrowserKind::Webkit,
                    what: format!("WebKitWebDriver ({m})"),
                    install: "`apt-get install webkit2gtk-driver xvfb` on Debian (or `cargo xtask test`), or set HARSHJUDGE_WEBKIT_DRIVER",
                },
            ),
        }
    }

    /// The browser binary of the configured browser.
    pub(super) fn browser_binary(&self) -> Result<PathBuf, BrowserError> {
        match self.browser {
            BrowserKind::Chromium => self.chromium_binary(),
            BrowserKind::Firefox => Self::binary(
                "HARSHJUDGE_FIREFOX",
                &self.firefox,
                &["firefox-esr", "firefox"],
                |m| BrowserError::EngineMissing {
                    browser: BrowserKind::Firefox,
                    what: format!("Firefox ({m})"),
                    install: "`apt-get install firefox-esr` on Debian (or `cargo xtask test`), or set HARSHJUDGE_FIREFOX",
                },
            ),
            BrowserKind::Webkit => Self::binary(
                "HARSHJUDGE_MINIBROWSER",
                &self.minibrowser,
                &[
                    "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
                    "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
                    "/usr/libexec/webkit2gtk-4.1/MiniBrowser",
                    "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.0/MiniBrowser",
                    "MiniBrowser",
                ],
                |m| BrowserError::EngineMissing {
                    browser: BrowserKind::Webkit,
                    what: format!("WebKitGTK's MiniBrowser ({m})"),
                    install: "`apt-get install webkit2gtk-driver` on Debian (it brings libwebkit2gtk-4.1-0 with its MiniBrowser), or set HARSHJUDGE_MINIBROWSER",
                },
            ),
        }
    }

    /// The Chromium to start: `HARSHJUDGE_CHROMIUM`, else, headless over
    /// the DevTools protocol, the headless shell when it is installed (as
    /// Playwright runs headless Chromium: the browser without its desktop
    /// parts, in which a new browser context and page cost a quarter of the
    /// full browser's CPU), else the full browser on PATH. Not through
    /// chromedriver: given a profile folder, chromedriver 156 finds no page
    /// in the shell ("unable to discover open pages").
    pub(super) fn chromium_binary(&self) -> Result<PathBuf, BrowserError> {
        self.chromium_binary_from(std::env::var_os("PATH").as_deref(), HEADLESS_SHELLS)
    }

    /// [`Self::chromium_binary`], looked for in `path` (a `PATH` value), the
    /// headless shell one of `shells`.
    fn chromium_binary_from(
        &self,
        path: Option<&std::ffi::OsStr>,
        shells: &[&str],
    ) -> Result<PathBuf, BrowserError> {
        match &self.chromium {
            Some(p) if p.is_file() => Ok(p.clone()),
            Some(p) => Err(BrowserError::BrowserNotFound(format!(
                "HARSHJUDGE_CHROMIUM={} does not exist",
                p.display()
            ))),
            None => {
                let shell = (!self.headed && self.chromium_protocol == ChromiumProtocol::Cdp)
                    .then(|| which_on(path, shells))
                    .flatten();
                shell.or_else(|| which_on(path, CHROMIUMS)).ok_or_else(|| {
                    BrowserError::BrowserNotFound(
                        "no chromium, chromium-browser or google-chrome on PATH".into(),
                    )
                })
            }
        }
    }

    pub(super) fn chromedriver_binary(&self) -> Result<PathBuf, BrowserError> {
        match &self.chromedriver {
            Some(p) if p.is_file() => Ok(p.clone()),
            Some(p) => Err(BrowserError::DriverNotFound(format!(
                "HARSHJUDGE_CHROMEDRIVER={} does not exist",
                p.display()
            ))),
            None => which(&["chromedriver"])
                .ok_or_else(|| BrowserError::DriverNotFound("not on PATH".into())),
        }
    }

    /// The W3C capabilities of a new session. `profile`: the local session's
    /// profile folder; none for a remote WebDriver, whose chromedriver makes
    /// (and removes) one on its own machine. `app_host`: the host of the base
    /// URL, which the browser resolves besides loopback (a grid's browser
    /// reaches the app under test by a name of its network).
    /// The script timeout (ms) the in-page engine's calls need: the
    /// auto-wait limit and 15 s more, at least a minute (what
    /// `Engine::ensure_script_timeout` sets on a session without it).
    pub(super) fn script_timeout(&self) -> u64 {
        (self.wait.as_millis() as u64 + 15_000).max(60_000)
    }

    pub(super) fn capabilities(
        &self,
        profile: Option<&Path>,
        app_host: Option<&str>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, BrowserError> {
        match self.browser {
            BrowserKind::Chromium => self.chromium_capabilities(profile, app_host),
            BrowserKind::Firefox => self.firefox_capabilities(),
            BrowserKind::Webkit => self.webkit_capabilities(),
        }
    }

    /// Firefox: headless, WebDriver BiDi, a profile geckodriver makes.
    fn firefox_capabilities(
        &self,
    ) -> Result<serde_json::Map<String, serde_json::Value>, BrowserError> {
        let mut args = vec![
            format!("--width={}", self.window.0),
            format!("--height={}", self.window.1),
        ];
        if !self.headed {
            args.insert(0, "-headless".to_string());
        }
        // No `-profile`: geckodriver makes a fresh one in its TMPDIR (the
        // watched folder) and sets its Marionette port there. Given a profile
        // of ours, two Firefoxes starting at once could answer each other's
        // geckodriver ("Failed to decode response from marionette").
        let mut options = serde_json::json!({
            "args": args,
            "prefs": {
                // Nothing but the app: no update, telemetry, safe-browsing or
                // captive-portal traffic.
                "app.update.enabled": false,
                "app.update.auto": false,
                "browser.shell.checkDefaultBrowser": false,
                "browser.safebrowsing.malware.enabled": false,
                "browser.safebrowsing.phishing.enabled": false,
                "browser.safebrowsing.downloads.enabled": false,
                "datareporting.policy.dataSubmissionEnabled": false,
                "toolkit.telemetry.enabled": false,
                "network.captive-portal-service.enabled": false,
                "network.connectivity-service.enabled": false,
                "extensions.update.enabled": false,
                "browser.newtabpage.enabled": false,
                "media.autoplay.default": 0,
            },
        });
        // Media features, which BiDi has no command for (`launch_emulation`).
        let launched = self.launch_emulation();
        if let Some(c) = launched.color_scheme {
            let dark = c == super::emulation::ColorScheme::Dark;
            options["prefs"]["layout.css.prefers-color-scheme.content-override"] =
                (if dark { 0 } else { 1 }).into();
        }
        if let Some(m) = launched.reduced_motion {
            let reduce = m == super::emulation::ReducedMotion::Reduce;
            options["prefs"]["ui.prefersReducedMotion"] = (if reduce { 1 } else { 0 }).into();
        }
        if self.webdriver_url.is_none() {
            options["binary"] = self.browser_binary()?.display().to_string().into();
        }
        let caps = serde_json::json!({
            "browserName": "firefox",
            "moz:firefoxOptions": options,
            // Firefox speaks BiDi: console, network and routes from its events.
            "webSocketUrl": true,
            // Dialogs are answered over BiDi (`browser/dialog.rs`): geckodriver's
            // default dismisses each one before its handler's answer arrives.
            "unhandledPromptBehavior": "ignore",
        });
        Ok(caps.as_object().cloned().expect("an object"))
    }

    /// What of `emulation` a new session's browser is launched with, since
    /// no command sets it afterwards: on WebKit (a session per page), the
    /// user agent, scripts off and the time zone, MiniBrowser's
    /// `--user-agent`, `--enable-javascript` and `--time-zone`, and the
    /// locale, its driver's environment (`LANG`, `driver.rs`). Nothing on
    /// the other engines, whose backends send every option as a command.
    ///
    /// On Firefox, the colour scheme (light or dark: Firefox has no
    /// "no-preference" any more) and reduced motion, as preferences of the
    /// session's browser (BiDi has no command for media features): its
    /// sessions are pooled only for pages that want the same.
    pub(crate) fn launch_emulation(&self) -> Emulation {
        let e = &self.emulation;
        match self.browser {
            BrowserKind::Webkit => Emulation {
                locale: e.locale.clone(),
                user_agent: e.user_agent.clone(),
                javascript_enabled: e.javascript_enabled,
                timezone_id: e.timezone_id.clone(),
                ..Emulation::default()
            },
            BrowserKind::Firefox => Emulation {
                color_scheme: e
                    .color_scheme
                    .filter(|c| *c != super::emulation::ColorScheme::NoPreference),
                reduced_motion: e.reduced_motion,
                ..Emulation::default()
            },
            BrowserKind::Chromium => Emulation::default(),
        }
    }

    /// WebKit: WebKitGTK's MiniBrowser in automation mode (it has no headless
    /// mode, so the driver runs under `xvfb-run`).
    fn webkit_capabilities(
        &self,
    ) -> Result<serde_json::Map<String, serde_json::Value>, BrowserError> {
        // No `browserName` (WebKitWebDriver matches none it was not built
        // for) and no `webSocketUrl` (Debian's WebKitGTK 2.50 refuses it: it
        // has no BiDi).
        let mut args = vec!["--automation".to_string()];
        let launched = self.launch_emulation();
        if let Some(ua) = &launched.user_agent {
            args.push(format!("--user-agent={ua}"));
        }
        if launched.javascript_enabled == Some(false) {
            args.push("--enable-javascript=false".into());
        }
        if let Some(zone) = &launched.timezone_id {
            args.push(format!("--time-zone={zone}"));
        }
        let mut options = serde_json::json!({ "args": args });
        if self.webdriver_url.is_none() {
            options["binary"] = self.browser_binary()?.display().to_string().into();
        }
        let caps = serde_json::json!({
            "webkitgtk:browserOptions": options,
            // No BiDi to hand a dialog to `on_dialog`: dismissed, as the other
            // engines do without a handler, rather than failing the command
            // that meets it ("unexpected alert open").
            "unhandledPromptBehavior": "dismiss",
        });
        Ok(caps.as_object().cloned().expect("an object"))
    }

    /// Chromium's command line (without the binary): headless, its profile
    /// folder, only loopback and the app's host resolving. The same for a
    /// chromedriver session and a Chromium launched here (`backend/cdp/launch.rs`).
    pub(super) fn chromium_args(
        &self,
        profile: Option<&Path>,
        app_host: Option<&str>,
    ) -> Vec<String> {
        let mut resolver = "MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1".to_string();
        if let Some(host) = app_host.filter(|h| !["localhost", "127.0.0.1"].contains(h)) {
            resolver.push_str(&format!(" , EXCLUDE {host}"));
        }
        let mut args = vec![
            "--disable-gpu".to_string(),
            "--disable-dev-shm-usage".into(),
            "--no-first-run".into(),
            "--no-default-browser-check".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--disable-default-apps".into(),
            "--disable-extensions".into(),
            // As Playwright launches Chromium: input is taken before the new
            // document's first commit and no paint is held across a
            // navigation (a click right after `goto` is not dropped), and a
            // page in a window that is not in front (an opener behind its
            // popup, a scenario beside another) keeps its timers and renderer
            // at full speed.
            "--disable-features=Translate,OptimizationHints,MediaRouter,PaintHolding".into(),
            "--allow-pre-commit-input".into(),
            "--disable-renderer-backgrounding".into(),
            "--disable-background-timer-throttling".into(),
            "--disable-backgrounding-occluded-windows".into(),
            "--disable-ipc-flooding-protection".into(),
            "--disable-hang-monitor".into(),
            // Back and forward load their document again, as Playwright's
            // Chromium does: the request is in the step's network evidence
            // and a route answers it (the back-forward cache would restore
            // the page without either).
            "--disable-back-forward-cache".into(),
            // Each site in a process of its own, a cross-site frame too, as
            // in the desktop browser users run (the headless shell would
            // keep such a frame in its parent's process).
            "--site-per-process".into(),
            "--metrics-recording-only".into(),
            "--disable-quic".into(),
            "--mute-audio".into(),
            // Only loopback and the app's host resolve: nothing else is ever reached.
            format!("--host-resolver-rules={resolver}"),
            format!("--window-size={},{}", self.window.0, self.window.1),
        ];
        if !self.headed {
            args.insert(0, "--headless=new".into());
        }
        if let Some(profile) = profile {
            args.push(format!("--user-data-dir={}", profile.display()));
        }
        if rustix::process::geteuid().is_root() {
            args.push("--no-sandbox".into());
        }
        args
    }

    /// Chromium: headless, its profile folder, only loopback and the app's
    /// host resolving, WebDriver BiDi and the `devtools` log as a fallback.
    fn chromium_capabilities(
        &self,
        profile: Option<&Path>,
        app_host: Option<&str>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, BrowserError> {
        let args = self.chromium_args(profile, app_host);
        let mut chrome = serde_json::json!({ "args": args });
        if self.webdriver_url.is_none() {
            chrome["binary"] = self.chromium_binary()?.display().to_string().into();
        }
        let mut caps = serde_json::json!({
            "browserName": "chrome",
            "goog:chromeOptions": chrome,
            // WebDriver BiDi beside the session: console, network and routes
            // from its events (a remote end without it drops it).
            "webSocketUrl": true,
            // Dialogs are answered over BiDi (`browser/dialog.rs`): the classic
            // default would dismiss each one before its event is handled.
            "unhandledPromptBehavior": "ignore",
            // The script timeout the engine's calls need, with the session
            // rather than one more command before its first page.
            "timeouts": { "script": self.script_timeout() },
        });
        // Console and network in one log (`devtools`), one read per step
        // boundary, for a remote end that may lack BiDi. Not for the local
        // chromedriver, which has BiDi: with that log on, chromedriver 156
        // aborts when the session lists or enters a popup's window.
        // The local chromedriver always offers BiDi, so its pages speak BiDi
        // alone (`backend/bidi/`): its own load tracking is of no use to
        // them, and chromedriver reading a document's state after a load
        // could hold a route's answer back. A remote end may lack BiDi (its
        // pages then speak classic WebDriver, which needs the tracking).
        if self.webdriver_url.is_none() {
            caps["pageLoadStrategy"] = "none".into();
        }
        if self.webdriver_url.is_some() {
            caps["goog:chromeOptions"]["devToolsEventsToLog"] =
                serde_json::json!(logs::DEVTOOLS_EVENTS);
            caps["goog:loggingPrefs"] = serde_json::json!({ "devtools": "ALL" });
        }
        Ok(caps.as_object().cloned().expect("an object"))
    }
}

/// `HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS` and `HARSHJUDGE_CONSOLE_ALLOW`.
#[derive(Clone, Debug, Default)]
pub struct ConsoleSettings {
    /// Fail a step whose page logged an error or threw.
    pub fail: bool,
    /// Errors whose text matches this are allowed.
    pub allow: Option<regex::Regex>,
}

impl ConsoleSettings {
    /// From the environment; a bad value is an error naming it.
    pub fn from_env() -> Result<ConsoleSettings, BrowserError> {
        let setting = |e: crate::settings::SettingError| BrowserError::Setting {
            name: e.name,
            value: e.value,
            expected: e.expected,
        };
        let fail = crate::settings::env_bool("HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS", false)
            .map_err(setting)?;
        let allow = match crate::settings::env("HARSHJUDGE_CONSOLE_ALLOW").map_err(setting)? {
            None => None,
            Some(v) if v.is_empty() => None,
            Some(v) => Some(regex::Regex::new(&v).map_err(|e| BrowserError::Setting {
                name: "HARSHJUDGE_CONSOLE_ALLOW",
                value: v.clone(),
                expected: format!(
                    "a regular expression matching the texts of allowed console errors ({e})"
                ),
            })?),
        };
        Ok(ConsoleSettings { fail, allow })
    }

    /// Whether an error with this text is allowed.
    pub(crate) fn allows(&self, text: &str) -> bool {
        self.allow.as_ref().is_some_and(|r| r.is_match(text))
    }
}

/// The host of a base URL (`None` for none or a relative one), the form
/// Chromium's resolver rules name it in (IPv6 without brackets).
pub(super) fn app_host(base_url: &str) -> Option<String> {
    let url = url::Url::parse(base_url).ok()?;
    match url.host()? {
        url::Host::Domain(d) => Some(d.to_string()),
        url::Host::Ipv4(a) => Some(a.to_string()),
        url::Host::Ipv6(a) => Some(a.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(config: &BrowserConfig, profile: Option<&Path>, host: Option<&str>) -> Vec<String> {
        let caps = config.capabilities(profile, host).unwrap();
        caps["goog:chromeOptions"]["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect()
    }

    /// `main!(expect_timeout = …)` becomes the pages' expect timeout
    /// (unless `HARSHJUDGE_EXPECT_TIMEOUT` is set); zero or more than 24 h
    /// is an error naming the option, and leaves the default as it was.
    #[test]
    fn a_size_setting_is_width_x_height_within_bounds() {
        let parse = |v: &str| parse_size("HARSHJUDGE_VIEWPORT", v.into(), (1280, 720));
        assert_eq!(parse("1000x500").unwrap(), (1000, 500));
        assert_eq!(parse(" 1000 x 500 ").unwrap(), (1000, 500));
        for bad in ["big", "1000", "10x10", "1000x0", "1000x10001"] {
            let err = parse(bad).expect_err(bad);
            assert!(
                matches!(
                    err,
                    BrowserError::Setting {
                        name: "HARSHJUDGE_VIEWPORT",
                        ..
                    }
                ),
                "{err}"
            );
            assert!(err.to_string().contains("WIDTHxHEIGHT"), "{err}");
        }
    }

    #[test]
    fn the_suites_expect_timeout_is_checked_and_read() {
        for bad in [Duration::ZERO, Duration::from_secs(25 * 3600)] {
            let e = set_suite_expect_timeout(Some(bad)).unwrap_err().to_string();
            assert!(
                e.contains("main!(expect_timeout)") && e.contains("at most 24 h"),
                "{e}"
            );
        }
        if crate::settings::env("HARSHJUDGE_EXPECT_TIMEOUT")
            .unwrap()
            .is_none()
        {
            set_suite_expect_timeout(Some(Duration::from_secs(7))).unwrap();
            let read = BrowserConfig::from_env().map(|c| c.expect_timeout);
            set_suite_expect_timeout(None).unwrap();
            assert_eq!(read.unwrap(), Some(Duration::from_secs(7)));
            assert_eq!(BrowserConfig::from_env().unwrap().expect_timeout, None);
        }
    }

    /// `HARSHJUDGE_CHROMIUM_PROTOCOL` is `cdp` or `webdriver`; anything else
    /// is refused, naming the values.
    #[test]
    fn the_chromium_protocol_setting_is_cdp_or_webdriver() {
        assert_eq!(ChromiumProtocol::parse("cdp"), Some(ChromiumProtocol::Cdp));
        assert_eq!(
            ChromiumProtocol::parse(" WebDriver "),
            Some(ChromiumProtocol::WebDriver)
        );
        assert_eq!(ChromiumProtocol::parse("bidi"), None);
        assert_eq!(ChromiumProtocol::default(), ChromiumProtocol::Cdp);
    }

    /// Local Chromium over CDP with the defaults, no binary given.
    fn plain() -> BrowserConfig {
        BrowserConfig {
            webdriver_url: None,
            chromedriver: None,
            chromium: None,
            window: (1280, 800),
            viewport: (1280, 720),
            wait: Duration::from_secs(5),
            expect_timeout: None,
            launch_timeout: Duration::from_secs(60),
            browser: BrowserKind::Chromium,
            geckodriver: None,
            firefox: None,
            webkit_driver: None,
            minibrowser: None,
            chromium_protocol: ChromiumProtocol::Cdp,
            emulation: Emulation::default(),
            headed: false,
            slow_mo: Duration::ZERO,
        }
    }

    #[test]
    fn what_no_command_sets_is_on_the_browsers_command_line_or_in_its_prefs() {
        use crate::emulation::{ColorScheme, ReducedMotion};
        let remote = Some("http://127.0.0.1:4444".to_string());
        let emulation = Emulation::new()
            .user_agent("ua/1")
            .timezone_id("Asia/Tokyo")
            .javascript_enabled(false)
            .color_scheme(ColorScheme::Dark)
            .reduced_motion(ReducedMotion::Reduce)
            .locale("de-DE");
        let webkit = BrowserConfig {
            webdriver_url: remote.clone(),
            browser: BrowserKind::Webkit,
            emulation: emulation.clone(),
            ..plain()
        };
        let caps = serde_json::Value::Object(webkit.webkit_capabilities().unwrap());
        assert_eq!(
            caps["webkitgtk:browserOptions"]["args"],
            serde_json::json!([
                "--automation",
                "--user-agent=ua/1",
                "--enable-javascript=false",
                "--time-zone=Asia/Tokyo"
            ])
        );
        let firefox = BrowserConfig {
            webdriver_url: remote,
            browser: BrowserKind::Firefox,
            emulation,
            ..plain()
        };
        let launched = firefox.launch_emulation();
        assert_eq!(
            (
                launched.color_scheme,
                launched.reduced_motion,
                launched.locale
            ),
            (Some(ColorScheme::Dark), Some(ReducedMotion::Reduce), None)
        );
        let caps = serde_json::Value::Object(firefox.firefox_capabilities().unwrap());
        let prefs = &caps["moz:firefoxOptions"]["prefs"];
        assert_eq!(prefs["layout.css.prefers-color-scheme.content-override"], 0);
        assert_eq!(prefs["ui.prefersReducedMotion"], 1);
        // Chromium takes every option as a command.
        assert!(plain().launch_emulation().is_default());
    }

    #[test]
    fn a_remote_browser_gets_no_local_profile_and_resolves_the_apps_host() {
        let remote = BrowserConfig {
            webdriver_url: Some("http://127.0.0.1:4444".into()),
            ..plain()
        };
        // A remote end is driven over WebDriver whatever the local setting.
        assert_eq!(
            crate::backend::pick(&remote),
            crate::backend::Pick::WebDriver
        );
        let local = BrowserConfig {
            webdriver_url: None,
            ..remote.clone()
        };
        assert_eq!(crate::backend::pick(&local), crate::backend::Pick::Cdp);
        assert_eq!(
            crate::backend::pick(&local.for_browser(BrowserKind::Firefox)),
            crate::backend::Pick::WebDriver
        );
        let a = args(&remote, None, Some("app.test"));
        assert!(!a.iter().any(|x| x.starts_with("--user-data-dir")), "{a:?}");
        // Input right after a navigation, and pages behind others, as Playwright.
        for flag in [
            "--allow-pre-commit-input",
            "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows",
            "--disable-back-forward-cache",
        ] {
            assert!(a.contains(&flag.to_string()), "{flag} in {a:?}");
        }
        let features = a.iter().filter(|x| x.starts_with("--disable-features="));
        assert_eq!(features.count(), 1, "one --disable-features: {a:?}");
        assert!(
            a.iter()
                .any(|x| x.starts_with("--disable-features=") && x.contains("PaintHolding"))
        );
        assert!(
            a.contains(
                &"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1 , EXCLUDE app.test"
                    .to_string()
            ),
            "{a:?}"
        );
        let caps = remote.capabilities(None, None).unwrap();
        assert!(caps["goog:chromeOptions"].get("binary").is_none());
        // A remote end may lack BiDi (its pages then speak classic WebDriver,
        // which needs the load tracking); the local chromedriver's pages
        // speak BiDi alone, which needs none of it.
        assert!(caps.get("pageLoadStrategy").is_none(), "{caps:?}");
        assert_eq!(
            caps["goog:loggingPrefs"],
            serde_json::json!({"devtools": "ALL"})
        );
        let any_file = BrowserConfig {
            // Any file will do: the capabilities only name it.
            chromium: Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")),
            ..local.clone()
        };
        let caps = any_file.capabilities(None, None).unwrap();
        assert_eq!(caps["pageLoadStrategy"], "none");
        let a = args(&remote, Some(Path::new("/tmp/p")), Some("127.0.0.1"));
        assert!(a.contains(&"--user-data-dir=/tmp/p".to_string()), "{a:?}");
        assert!(
            a.contains(
                &"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1"
                    .to_string()
            ),
            "{a:?}"
        );
        assert_eq!(app_host("http://[::1]:8080/x").as_deref(), Some("::1"));
        assert_eq!(app_host("http://app:3000").as_deref(), Some("app"));
        assert_eq!(app_host(""), None);
    }

    #[test]
    fn headless_chromium_is_the_headless_shell_when_installed_headed_the_full_browser() {
        let dir = tempfile::tempdir().unwrap();
        let (shells, full) = (dir.path().join("shells"), dir.path().join("full"));
        std::fs::create_dir_all(&shells).unwrap();
        std::fs::create_dir_all(&full).unwrap();
        std::fs::write(full.join("chromium"), "").unwrap();
        let path = std::env::join_paths([&shells, &full]).unwrap();
        let headless = plain();
        let headed = BrowserConfig {
            headed: true,
            ..headless.clone()
        };
        // No shell installed: the full browser.
        // The list's names (its first, Debian's binary by its absolute
        // path, is this machine's).
        let names = &HEADLESS_SHELLS[1..];
        assert_eq!(
            HEADLESS_SHELLS[0],
            "/usr/lib/chromium/chromium-headless-shell"
        );
        let found = |c: &BrowserConfig| c.chromium_binary_from(Some(&path), names).unwrap();
        assert_eq!(found(&headless), full.join("chromium"));
        // Debian's shell, or Chrome for Testing's, before the full browser.
        std::fs::write(shells.join("chrome-headless-shell"), "").unwrap();
        assert_eq!(found(&headless), shells.join("chrome-headless-shell"));
        std::fs::write(full.join("chromium-headless-shell"), "").unwrap();
        assert_eq!(found(&headless), shells.join("chrome-headless-shell"));
        std::fs::remove_file(shells.join("chrome-headless-shell")).unwrap();
        assert_eq!(found(&headless), full.join("chromium-headless-shell"));
        // Headed: never the shell, which has no windows; nor through
        // chromedriver, which finds no page in it given a profile.
        assert_eq!(found(&headed), full.join("chromium"));
        let webdriver = BrowserConfig {
            chromium_protocol: ChromiumProtocol::WebDriver,
            ..headless.clone()
        };
        assert_eq!(found(&webdriver), full.join("chromium"));
        // HARSHJUDGE_CHROMIUM wins, headless too.
        let chosen = BrowserConfig {
            chromium: Some(full.join("chromium")),
            ..headless.clone()
        };
        assert_eq!(found(&chosen), full.join("chromium"));
        // Nothing installed: said.
        let none = std::env::join_paths([&dir.path().join("nothing")]).unwrap();
        let e = headless
            .chromium_binary_from(Some(&none), names)
            .unwrap_err();
        assert!(e.to_string().contains("no chromium"), "{e}");
    }

    #[test]
    fn headed_browsers_are_launched_without_their_headless_switch() {
        let headless = plain();
        let headed = BrowserConfig {
            headed: true,
            ..headless.clone()
        };
        assert!(
            headless
                .chromium_args(None, None)
                .contains(&"--headless=new".into())
        );
        assert!(
            !headed
                .chromium_args(None, None)
                .iter()
                .any(|a| a.contains("headless"))
        );
        // A remote end: the capabilities name no local binary.
        let ff = |c: &BrowserConfig| {
            let c = BrowserConfig {
                webdriver_url: Some("http://127.0.0.1:4444".into()),
                ..c.for_browser(BrowserKind::Firefox)
            };
            c.firefox_capabilities().unwrap()["moz:firefoxOptions"]["args"].clone()
        };
        assert_eq!(ff(&headless)[0], "-headless");
        let w = ff(&headed);
        assert!(!w.to_string().contains("headless"), "{w}");
    }
}
