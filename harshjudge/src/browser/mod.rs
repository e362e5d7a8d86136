//! The browser: chromedriver started and stopped for you (or a remote W3C
//! WebDriver), headless Chromium sessions reused across scenarios, and the
//! [`Page`] API with auto-waiting. It never writes files: evidence is the
//! runner's and the store's job.
//!
//! Settings: `HARSHJUDGE_CHROMEDRIVER` (path; default `chromedriver` on PATH),
//! `HARSHJUDGE_CHROMIUM` (default `chromium`, `chromium-browser`, `google-chrome`
//! on PATH), `HARSHJUDGE_WEBDRIVER_URL` (a running WebDriver; no local
//! chromedriver then), `HARSHJUDGE_WINDOW` (default `1280x800`),
//! `HARSHJUDGE_WAIT` (auto-wait limit, default `5s`).

mod aria_template;
mod expect;
mod keyboard;
mod locator;
mod logs;
mod page;
mod session;
mod snapshot;
mod wire;

pub use expect::{Expectable, Expected, LocatorExpect, PageExpect, expect};
pub use keyboard::{Keyboard, Mouse};
pub use locator::{BoundingBox, Locator, TextMatch, WaitState};
pub use logs::{ConsoleEntry, NetworkEntry};
pub use page::Page;
pub(crate) use session::{Session, stop_driver_now};
pub use session::{open_page, open_page_with, release_page, shutdown};
pub use snapshot::{Animations, Caret, ScreenshotAssertion, configure_snapshots};

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::settings::{SettingError, env, env_duration};

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
    /// A WebDriver command failed.
    #[error("{action}: {message}")]
    Command {
        /// What was being done.
        action: String,
        /// The WebDriver error.
        message: String,
    },
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

/// Browser settings.
#[derive(Clone, Debug)]
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
    /// Auto-wait limit of actions and expectations.
    pub wait: Duration,
}

fn which(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// A `WIDTHxHEIGHT` setting (each 100 to 10,000 pixels), or `default`.
fn env_size(name: &'static str, default: (u32, u32)) -> Result<(u32, u32), BrowserError> {
    let Some(v) = env(name)? else {
        return Ok(default);
    };
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
    BrowserConfig::from_env().map(drop).map_err(|e| match e {
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

impl BrowserConfig {
    /// From `HARSHJUDGE_*` variables.
    pub fn from_env() -> Result<Self, BrowserError> {
        let window = env_size("HARSHJUDGE_WINDOW", (1280, 800))?;
        let viewport = env_size("HARSHJUDGE_VIEWPORT", (1280, 720))?;
        let wait = env_duration("HARSHJUDGE_WAIT", Duration::from_secs(5))?;
        Ok(BrowserConfig {
            webdriver_url: env("HARSHJUDGE_WEBDRIVER_URL")?,
            chromedriver: env("HARSHJUDGE_CHROMEDRIVER")?.map(PathBuf::from),
            chromium: env("HARSHJUDGE_CHROMIUM")?.map(PathBuf::from),
            window,
            viewport,
            wait,
        })
    }

    fn chromium_binary(&self) -> Result<PathBuf, BrowserError> {
        match &self.chromium {
            Some(p) if p.is_file() => Ok(p.clone()),
            Some(p) => Err(BrowserError::BrowserNotFound(format!(
                "HARSHJUDGE_CHROMIUM={} does not exist",
                p.display()
            ))),
            None => which(&[
                "chromium",
                "chromium-browser",
                "google-chrome",
                "google-chrome-stable",
            ])
            .ok_or_else(|| {
                BrowserError::BrowserNotFound(
                    "no chromium, chromium-browser or google-chrome on PATH".into(),
                )
            }),
        }
    }

    fn chromedriver_binary(&self) -> Result<PathBuf, BrowserError> {
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
    fn capabilities(
        &self,
        profile: Option<&Path>,
        app_host: Option<&str>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, BrowserError> {
        let mut resolver = "MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1".to_string();
        if let Some(host) = app_host.filter(|h| !["localhost", "127.0.0.1"].contains(h)) {
            resolver.push_str(&format!(" , EXCLUDE {host}"));
        }
        let mut args = vec![
            "--headless=new".to_string(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--no-first-run".into(),
            "--no-default-browser-check".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--disable-default-apps".into(),
            "--disable-extensions".into(),
            "--disable-features=Translate,OptimizationHints,MediaRouter".into(),
            "--metrics-recording-only".into(),
            "--disable-quic".into(),
            "--mute-audio".into(),
            // Only loopback and the app's host resolve: nothing else is ever reached.
            format!("--host-resolver-rules={resolver}"),
            format!("--window-size={},{}", self.window.0, self.window.1),
        ];
        if let Some(profile) = profile {
            args.push(format!("--user-data-dir={}", profile.display()));
        }
        if rustix::process::geteuid().is_root() {
            args.push("--no-sandbox".into());
        }
        // Console and network in one log (`devtools`): one read per step boundary.
        let mut chrome = serde_json::json!({
            "args": args,
            "devToolsEventsToLog": logs::DEVTOOLS_EVENTS,
        });
        if self.webdriver_url.is_none() {
            chrome["binary"] = self.chromium_binary()?.display().to_string().into();
        }
        let caps = serde_json::json!({
            "browserName": "chrome",
            "goog:chromeOptions": chrome,
            "goog:loggingPrefs": { "devtools": "ALL" },
        });
        Ok(caps.as_object().cloned().expect("an object"))
    }
}

// ---- chromedriver ----------------------------------------------------------------
//
// The browser lives exactly as long as the test process, however that ends:
//
// - chromedriver runs in a process group of its own, and every Chromium process
//   it starts stays in that group (Chromium's crashpad handlers leave it but exit
//   with their browser);
// - a watchdog (`/bin/sh`, in a group of its own so that a terminal's Ctrl-C or a
//   test runner's group kill does not reach it first) holds the read end of a
//   pipe whose only writer is this process. When this process exits (normally,
//   by a signal, or SIGKILL) or the driver is stopped, the pipe closes and the
//   watchdog kills the whole group and removes the folder of the sessions'
//   profiles;
// - chromedriver also gets PR_SET_PDEATHSIG, which covers the moment between its
//   start and the watchdog's (no browser runs yet then);
// - a chromedriver found dead is stopped the same way before a new one starts:
//   the browsers it left behind go with it.

struct Driver {
    url: String,
    child: Child,
    /// Kills chromedriver's process group and removes `profiles` when its
    /// stdin closes.
    watchdog: Child,
    /// The folder of the sessions' profiles (`harshjudge-browser-*` in the
    /// temporary folder).
    profiles: PathBuf,
}

static DRIVER: Mutex<Option<Driver>> = Mutex::new(None);

/// What the watchdog runs: `$1` is the process group, `$2` the profiles folder.
/// It reads until end of file (the test process closed the pipe or is gone),
/// kills the group, then removes the folder (again after a moment, in case a
/// dying browser was still writing into it).
const WATCHDOG: &str = r#"trap '' INT TERM HUP QUIT PIPE
while read -r _; do :; done
kill -s KILL -- "-$1" 2>/dev/null
sleep 0.1
rm -rf -- "$2" 2>/dev/null
if [ -e "$2" ]; then sleep 0.5; rm -rf -- "$2"; fi
"#;

impl Driver {
    /// Stops chromedriver and every browser it started, and removes the
    /// profiles. `graceful`: ask chromedriver to quit its browsers first.
    fn stop(mut self, graceful: bool) {
        if graceful {
            self.shutdown_request();
            let deadline = Instant::now() + Duration::from_secs(3);
            while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        // The whole group, not only chromedriver: browsers of a driver that
        // died are orphans in it.
        let _ = rustix::process::kill_process_group(
            rustix::process::Pid::from_child(&self.child),
            rustix::process::Signal::KILL,
        );
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Closing its stdin lets the watchdog do the rest: kill anything left
        // in the group and remove the profiles.
        drop(self.watchdog.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if !matches!(self.watchdog.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.watchdog.kill();
        let _ = self.watchdog.wait();
        let _ = std::fs::remove_dir_all(&self.profiles);
    }

    /// chromedriver's `/shutdown` endpoint, which quits every browser it started.
    fn shutdown_request(&self) {
        let Some(addr) = self.url.strip_prefix("http://") else {
            return;
        };
        let Ok(mut stream) = std::net::TcpStream::connect(addr) else {
            return;
        };
        use std::io::{Read, Write};
        let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
        let request =
            format!("GET /shutdown HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        // Wait for the answer: chromedriver quits its browsers before replying,
        // and may drop the request if the connection closes first.
        if stream.write_all(request.as_bytes()).is_ok() {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = stream.read(&mut [0u8; 256]);
        }
    }
}

/// The port a chromedriver started with `--port=0` announces on its stdout
/// ("ChromeDriver was started successfully on port 41234."), sent once; the
/// thread then drains the pipe until every holder of it (chromedriver and its
/// browsers) has closed it, so that no writer ever blocks on a full pipe.
fn announced_port(stdout: std::process::ChildStdout) -> std::sync::mpsc::Receiver<u16> {
    let (tx, rx) = std::sync::mpsc::channel();
    let _ = std::thread::Builder::new()
        .name("harshjudge-driver-out".into())
        .spawn(move || {
            use std::io::BufRead;
            let mut lines = std::io::BufReader::new(stdout);
            let mut line = String::new();
            let mut sent = false;
            while matches!(lines.read_line(&mut line), Ok(n) if n > 0) {
                if !sent && let Some(port) = port_in_announcement(&line) {
                    let _ = tx.send(port);
                    sent = true;
                }
                line.clear();
            }
        });
    rx
}

/// `Some(41234)` for chromedriver's "… started successfully on port 41234."
fn port_in_announcement(line: &str) -> Option<u16> {
    let rest = line.split("started successfully on port ").nth(1)?;
    rest.trim()
        .trim_end_matches('.')
        .parse()
        .ok()
        .filter(|p| *p != 0)
}

/// Starts the watchdog of chromedriver's process `group`.
fn spawn_watchdog(group: u32, profiles: &Path) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    Command::new("/bin/sh")
        .arg("-c")
        .arg(WATCHDOG)
        .arg("harshjudge-watchdog")
        .arg(group.to_string())
        .arg(profiles)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
}

/// The WebDriver URL and the folder for sessions' profiles (none for a remote
/// WebDriver): the remote one, or a local chromedriver started (once per
/// process, again if it died) on a free loopback port.
fn driver_url(config: &BrowserConfig) -> Result<(String, Option<PathBuf>), BrowserError> {
    if let Some(url) = &config.webdriver_url {
        return Ok((url.clone(), None));
    }
    let mut guard = DRIVER.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(d) = guard.as_mut() {
        // Alive: not exited, and still listening (a process being killed can
        // still be unreaped while its port is already closed).
        let listening = || {
            d.url
                .strip_prefix("http://")
                .and_then(|a| a.parse::<std::net::SocketAddr>().ok())
                .is_some_and(|a| {
                    std::net::TcpStream::connect_timeout(&a, Duration::from_secs(2)).is_ok()
                })
        };
        if matches!(d.child.try_wait(), Ok(None)) && listening() {
            return Ok((d.url.clone(), Some(d.profiles.clone())));
        }
        // chromedriver died (or is dying): its browsers must not outlive it.
        if let Some(dead) = guard.take() {
            dead.stop(false);
        }
    }
    let binary = config.chromedriver_binary()?;
    config.chromium_binary()?;
    let mut last = String::new();
    for _ in 0..3 {
        let profiles = tempfile::Builder::new()
            .prefix("harshjudge-browser-")
            .tempdir()
            .map_err(|e| BrowserError::DriverStart(format!("profiles folder: {e}")))?
            .keep();
        let mut cmd = Command::new(&binary);
        // Port 0: chromedriver binds a free port itself and says which on its
        // stdout. A port picked here and handed over could be taken meanwhile
        // (by another test process's driver), and a connect to it would then
        // reach that other driver.
        cmd.arg("--port=0")
            .arg("--allowed-ips=127.0.0.1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        {
            use std::os::unix::process::CommandExt;
            // A process group of its own: its browsers inherit it, and the
            // watchdog kills it as a whole.
            cmd.process_group(0);
            // chromedriver dies with this process, even on SIGKILL, until the
            // watchdog runs.
            #[cfg(target_os = "linux")]
            // SAFETY: the closure runs in the child between fork and exec, where
            // only async-signal-safe calls are allowed: it makes one prctl system
            // call (rustix, no allocation, no lock) and touches no shared state.
            unsafe {
                cmd.pre_exec(|| {
                    rustix::process::set_parent_process_death_signal(Some(
                        rustix::process::Signal::KILL,
                    ))
                    .map_err(std::io::Error::from)
                });
            }
        }
        let mut child = match spawn_from_keeper(cmd) {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&profiles);
                return Err(BrowserError::DriverStart(format!(
                    "{}: {e}",
                    binary.display()
                )));
            }
        };
        let watchdog = match spawn_watchdog(child.id(), &profiles) {
            Ok(w) => w,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = std::fs::remove_dir_all(&profiles);
                return Err(BrowserError::DriverStart(format!(
                    "the watchdog that stops the browser with this process (/bin/sh) could not start: {e}"
                )));
            }
        };
        let announced = child.stdout.take().map(announced_port);
        let mut port = None;
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut ready = false;
        while Instant::now() < deadline {
            if port.is_none() {
                port = announced.as_ref().and_then(|rx| rx.try_recv().ok());
            }
            if let Ok(Some(status)) = child.try_wait() {
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    use std::io::Read;
                    let _ = e.read_to_string(&mut err);
                }
                last = format!("exited with {status}: {}", err.trim());
                break;
            }
            if let Some(port) = port
                && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
            {
                ready = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let url = format!("http://127.0.0.1:{}", port.unwrap_or(0));
        let driver = Driver {
            url: url.clone(),
            child,
            watchdog,
            profiles: profiles.clone(),
        };
        if ready {
            *guard = Some(driver);
            return Ok((url, Some(profiles)));
        }
        driver.stop(false);
        if last.is_empty() {
            last = match port {
                Some(port) => format!("port {port} did not open within 10 s"),
                None => "it did not say which port it listens on within 10 s".into(),
            };
        }
    }
    Err(BrowserError::DriverStart(last))
}

/// Spawns `cmd` from a thread that lives as long as the process. With
/// `PR_SET_PDEATHSIG` the child dies when the thread that forked it ends, so the
/// fork must not happen on a short-lived (e.g. tokio blocking-pool) thread.
fn spawn_from_keeper(cmd: Command) -> std::io::Result<Child> {
    type Request = (Command, std::sync::mpsc::Sender<std::io::Result<Child>>);
    static KEEPER: Mutex<Option<std::sync::mpsc::Sender<Request>>> = Mutex::new(None);
    let tx = {
        let mut keeper = KEEPER.lock().unwrap_or_else(|p| p.into_inner());
        match keeper.as_ref() {
            Some(tx) => tx.clone(),
            None => {
                let (tx, rx) = std::sync::mpsc::channel::<Request>();
                std::thread::Builder::new()
                    .name("harshjudge-driver".into())
                    .spawn(move || {
                        for (mut cmd, reply) in rx {
                            let _ = reply.send(cmd.spawn());
                        }
                    })?;
                keeper.insert(tx).clone()
            }
        }
    };
    let (reply, answer) = std::sync::mpsc::channel();
    tx.send((cmd, reply))
        .map_err(|_| std::io::Error::other("the driver keeper thread is gone"))?;
    answer
        .recv()
        .map_err(|_| std::io::Error::other("the driver keeper thread is gone"))?
}

/// The pid and URL of the chromedriver this process started, if running.
pub fn local_driver() -> Option<(u32, String)> {
    DRIVER
        .lock()
        .expect("driver lock")
        .as_ref()
        .map(|d| (d.child.id(), d.url.clone()))
}

#[cfg(test)]
mod tests {
    use super::session::app_host;
    use super::*;

    #[test]
    fn the_port_chromedriver_announces_is_read_from_its_line() {
        assert_eq!(
            port_in_announcement("ChromeDriver was started successfully on port 41234.\n"),
            Some(41234)
        );
        assert_eq!(
            port_in_announcement("Starting ChromeDriver 156.0 on port 0\n"),
            None
        );
        assert_eq!(
            port_in_announcement("Only local connections are allowed.\n"),
            None
        );
        assert_eq!(
            port_in_announcement("… started successfully on port 0.\n"),
            None
        );
    }

    fn args(config: &BrowserConfig, profile: Option<&Path>, host: Option<&str>) -> Vec<String> {
        let caps = config.capabilities(profile, host).unwrap();
        caps["goog:chromeOptions"]["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn a_remote_browser_gets_no_local_profile_and_resolves_the_apps_host() {
        let remote = BrowserConfig {
            webdriver_url: Some("http://127.0.0.1:4444".into()),
            chromedriver: None,
            chromium: None,
            window: (1280, 800),
            viewport: (1280, 720),
            wait: Duration::from_secs(5),
        };
        let a = args(&remote, None, Some("app.test"));
        assert!(!a.iter().any(|x| x.starts_with("--user-data-dir")), "{a:?}");
        assert!(
            a.contains(
                &"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1 , EXCLUDE app.test"
                    .to_string()
            ),
            "{a:?}"
        );
        let caps = remote.capabilities(None, None).unwrap();
        assert!(caps["goog:chromeOptions"].get("binary").is_none());
        assert_eq!(
            caps["goog:loggingPrefs"],
            serde_json::json!({"devtools": "ALL"})
        );
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
}
