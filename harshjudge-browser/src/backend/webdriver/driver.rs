//! The local drivers' processes and their watchdogs (owned by a
//! [`crate::Browsers`]).
//!
//! The browser lives at most as long as the test process, however that ends,
//! by [`crate::process`]'s mechanism (shared with the app under test):
//!
//! - chromedriver runs in a process group of its own, and every Chromium process
//!   it starts stays in that group (Chromium's crashpad handlers leave it but exit
//!   with their browser);
//! - a [`Watchdog`] of this process kills the whole group and removes the folder
//!   of the sessions' profiles when this process exits (normally, by a signal,
//!   or SIGKILL) or the driver is stopped;
//! - chromedriver also gets PR_SET_PDEATHSIG, which covers the moment between its
//!   start and the watchdog's (no browser runs yet then);
//! - a chromedriver found dead is stopped the same way before a new one starts:
//!   the browsers it left behind go with it.
//!
//! The same holds for every driver this module starts: chromedriver (one per
//! `Browsers`, its sessions pooled), geckodriver and WebKitWebDriver (one per
//! session, since they serve one at a time: the session owns its `Driver`,
//! `Session.own_driver`, and stops it when it closes; an idle one is reused
//! only for the same binary). Each listens on a loopback port it picks
//! itself (`--port=0`): chromedriver announces it on stdout, the others' is
//! read off `/proc` (`listening_port_of_group`). WebKit's MiniBrowser runs
//! on an Xvfb of the driver's group, started with `-noreset` and ended with
//! SIGTERM before the group is killed (`end_x_server`), so that it removes
//! its `/tmp/.X<n>-lock`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::config::{BrowserConfig, BrowserKind};
use crate::error::BrowserError;
use crate::process::{Watch, Watchdog, drain_tail, spawn_from_keeper, tail_text};

pub(crate) struct Driver {
    url: String,
    child: Child,
    /// Kills chromedriver's process group and removes `profiles` when this
    /// process ends or the driver stops.
    watchdog: Watchdog,
    /// The folder of the sessions' profiles (`harshjudge-browser-*` in the
    /// temporary folder).
    profiles: PathBuf,
    /// The driver binary it runs.
    binary: PathBuf,
    /// The locale its browsers run in (WebKit's `LANG`, [`locale_env`]).
    locale: Option<String>,
    /// Its engine (WebKit's runs under an X server of its own).
    browser: BrowserKind,
    /// The last 4 KiB the driver (and the browsers it started) wrote to stderr.
    stderr_tail: Option<std::sync::Arc<Mutex<String>>>,
}

/// The driver processes of one [`crate::Browsers`], shared with the tasks opening
/// its sessions and with its [`Killer`].
pub(crate) struct Drivers {
    /// The local chromedriver (its sessions pooled), once a page needed it.
    pub(crate) local: Mutex<Option<Driver>>,
    /// Drivers of their own whose session ended (WebKit's), kept running
    /// for the next session of their engine.
    idle: Mutex<Vec<(BrowserKind, Driver)>>,
    /// Its sessions alive (being opened, in use or pooled): the local
    /// chromedriver is stopped by [`crate::Browsers::shutdown`] only when none is
    /// left outside the pool, so that it never pulls the driver from under a
    /// page this value handed out.
    pub(crate) live: Arc<AtomicUsize>,
}

impl Drivers {
    /// None started yet.
    pub(crate) fn new() -> Drivers {
        Drivers {
            local: Mutex::new(None),
            idle: Mutex::new(Vec::new()),
            live: Arc::default(),
        }
    }

    /// An idle driver of `browser`'s, running `binary` in `locale` (a page
    /// that wants none never gets a driver started in one), that still
    /// runs, if any (dead ones are stopped: their browsers must not outlive
    /// them).
    pub(crate) fn take_idle(
        &self,
        browser: BrowserKind,
        binary: &Path,
        locale: Option<&str>,
    ) -> Option<Driver> {
        loop {
            let found = {
                let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
                let i = idle.iter().position(|(b, d)| {
                    *b == browser && d.runs(binary) && d.locale.as_deref() == locale
                })?;
                idle.swap_remove(i).1
            };
            let mut d = found;
            if d.is_alive() {
                return Some(d);
            }
            d.stop(false);
        }
    }

    /// Keeps `driver` (its session ended) for the next session of `browser`.
    pub(crate) fn keep_idle(&self, browser: BrowserKind, driver: Driver) {
        self.idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((browser, driver));
    }

    /// Stops every idle driver (their browsers are gone with their sessions).
    pub(crate) fn stop_idle(&self) {
        let idle = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|p| p.into_inner()));
        for (_, d) in idle {
            d.stop(false);
        }
    }

    /// Kills every idle driver's process group at once; their watchdogs
    /// remove their folders.
    pub(crate) fn kill_idle(&self) -> Vec<Killed> {
        let idle = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|p| p.into_inner()));
        idle.into_iter().map(|(_, d)| d.kill()).collect()
    }

    /// Stops the local chromedriver: its `/shutdown` endpoint quits every
    /// browser it started; then its process group is killed and the profiles
    /// removed. Not while another thread holds it (starting it).
    pub(crate) fn stop_local(&self) {
        let driver = match self.local.try_lock() {
            Ok(mut g) => g.take(),
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner().take(),
            Err(std::sync::TryLockError::WouldBlock) => None,
        };
        if let Some(d) = driver {
            d.stop(true);
        }
    }

    /// Kills the local chromedriver's process group at once.
    pub(crate) fn kill_local(&self) -> Option<Killed> {
        let driver = self.local.lock().unwrap_or_else(|p| p.into_inner()).take();
        driver.map(Driver::kill)
    }
}

/// Which driver process a session's commands go to, so that a command that
/// lost its connection can say that this driver exited.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DriverWatch {
    pid: u32,
    browser: BrowserKind,
}

impl DriverWatch {
    /// Whether the driver has exited (a zombie not reaped yet counts).
    pub(crate) fn exited(&self) -> bool {
        match std::fs::read_to_string(format!("/proc/{}/stat", self.pid)) {
            // The state follows the command name in parentheses: Z = exited, not reaped.
            Ok(stat) => stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
            Err(_) => cfg!(target_os = "linux"),
        }
    }

    /// `e` with this driver's exit as its cause, when it lost its connection
    /// ([`BrowserError::Lost`] "webdriver not reachable") and the driver exited:
    /// "chromedriver exited while …".
    pub(crate) fn explain(&self, e: BrowserError) -> BrowserError {
        match e {
            BrowserError::Lost {
                cause,
                during,
                detail,
                location,
            } if cause == crate::wire::UNREACHABLE && self.exited() => BrowserError::Lost {
                cause: format!("{} exited", driver_name(self.browser)),
                during,
                detail,
                location,
            },
            e => e,
        }
    }
}

/// The driver binary's usual name for `browser`.
fn driver_name(browser: BrowserKind) -> &'static str {
    match browser {
        BrowserKind::Chromium => "chromedriver",
        BrowserKind::Firefox => "geckodriver",
        BrowserKind::Webkit => "WebKitWebDriver",
    }
}

impl Driver {
    /// Stops chromedriver and every browser it started, and removes the
    /// profiles. `graceful`: ask chromedriver to quit its browsers first.
    pub(crate) fn stop(mut self, graceful: bool) {
        if graceful {
            self.shutdown_request();
            let deadline = Instant::now() + Duration::from_secs(3);
            while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        if self.browser == BrowserKind::Webkit {
            end_x_server(self.child.id());
        }
        // The whole group, not only chromedriver: browsers of a driver that
        // died are orphans in it.
        let _ = rustix::process::kill_process_group(
            rustix::process::Pid::from_child(&self.child),
            rustix::process::Signal::KILL,
        );
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.kill_escaped();
        // The watchdog does the rest: kill anything left in the group and
        // remove the profiles.
        if !self.watchdog.release(Duration::from_secs(3)) {
            let _ = std::fs::remove_dir_all(&self.profiles);
        }
    }

    /// Kills chromedriver's process group at once (its browsers with it, no
    /// session closed, nothing asked of the driver) and lets the watchdog
    /// remove the profiles: [`Killed::wait`] waits for that.
    pub(crate) fn kill(mut self) -> Killed {
        if self.browser == BrowserKind::Webkit {
            end_x_server(self.child.id());
        }
        let releasing =
            crate::process::kill_with_watchdog(&mut self.child, self.watchdog, &self.profiles);
        Killed {
            releasing,
            profiles: self.profiles,
        }
    }

    /// Kills what its browsers started outside the driver's process group:
    /// Chromium's crash handler runs in a session of its own, and outlived the
    /// group kill. It carries the driver's environment, whose `TMPDIR` is
    /// this driver's own folder (`driver_command`).
    /// Returns whether none is left.
    fn kill_escaped(&self) -> bool {
        let entry = format!("TMPDIR={}", self.profiles.display());
        crate::process::kill_carrying(&entry, Duration::from_millis(500))
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

/// A driver killed by [`Driver::kill`] whose watchdog is removing its profiles.
pub(crate) struct Killed {
    releasing: crate::process::Releasing,
    profiles: PathBuf,
}

impl Killed {
    /// Waits (up to 3 s) for the watchdog to have killed what is left of the
    /// group and removed the profiles; removes them itself if it did not.
    pub(crate) fn wait(self) {
        if !self.releasing.wait(Duration::from_secs(3)) {
            let _ = std::fs::remove_dir_all(&self.profiles);
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

/// The WebDriver URL, the folder for sessions' profiles (none for a remote
/// WebDriver) and the driver to watch: the remote one, or the local
/// chromedriver in `slot` (its owner's), started on a free loopback port when
/// there is none yet or it died.
pub(crate) fn driver_url(
    slot: &Mutex<Option<Driver>>,
    config: &BrowserConfig,
) -> Result<(String, Option<PathBuf>, Option<DriverWatch>), BrowserError> {
    if let Some(url) = &config.webdriver_url {
        return Ok((url.clone(), None, None));
    }
    let mut guard = slot.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(d) = guard.as_mut() {
        if d.is_alive() {
            return Ok((d.url.clone(), Some(d.profiles.clone()), Some(d.watch())));
        }
        // chromedriver died (or is dying): its browsers must not outlive it.
        if let Some(dead) = guard.take() {
            dead.stop(false);
        }
    }
    let driver = start(config)?;
    let (url, profiles, watch) = (driver.url.clone(), driver.profiles.clone(), driver.watch());
    *guard = Some(driver);
    Ok((url, Some(profiles), Some(watch)))
}

/// A driver of its own for one session of an engine whose driver serves one
/// session at a time (geckodriver, WebKitWebDriver): the session stops it when
/// it closes, and its watchdog when this process ends.
pub(crate) fn own_driver(config: &BrowserConfig) -> Result<Driver, BrowserError> {
    start(config)
}

impl Driver {
    /// Whether it runs: not exited, and still listening (a process being
    /// killed can still be unreaped while its port is already closed).
    pub(crate) fn is_alive(&mut self) -> bool {
        let listening = || {
            self.url
                .strip_prefix("http://")
                .and_then(|a| a.parse::<std::net::SocketAddr>().ok())
                .is_some_and(|a| {
                    std::net::TcpStream::connect_timeout(&a, Duration::from_secs(2)).is_ok()
                })
        };
        matches!(self.child.try_wait(), Ok(None)) && listening()
    }

    /// Whether it runs `binary`.
    pub(crate) fn runs(&self, binary: &std::path::Path) -> bool {
        self.binary == binary
    }

    /// The last lines the driver and its browsers wrote to stderr (at most
    /// 4 KiB, trimmed): why a browser did not start.
    pub(crate) fn said(&self) -> String {
        tail_text(&self.stderr_tail)
    }

    /// What a session of it watches to say it exited.
    pub(crate) fn watch(&self) -> DriverWatch {
        DriverWatch {
            pid: self.child.id(),
            browser: self.browser,
        }
    }

    /// Its process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its WebDriver URL.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// The folder of its sessions' profiles.
    pub(crate) fn profiles(&self) -> &std::path::Path {
        &self.profiles
    }
}

/// The environment that puts a GTK program (WebKit's MiniBrowser: its
/// `navigator.language`, `Accept-Language` and `Intl`'s default locale) in
/// the BCP 47 `locale`: `de-DE` is `de_DE.UTF-8` for `LANG` and `LC_ALL`,
/// `de_DE` for `LANGUAGE`.
pub(crate) fn locale_env(locale: &str) -> [(&'static str, String); 3] {
    let mut parts = locale.split('-');
    let language = parts.next().unwrap_or_default().to_ascii_lowercase();
    // The region: two letters or three digits (a script, `Hant`, is left out).
    let region = parts.find(|p| {
        (p.len() == 2 && p.chars().all(|c| c.is_ascii_alphabetic()))
            || (p.len() == 3 && p.chars().all(|c| c.is_ascii_digit()))
    });
    let posix = match region {
        Some(r) => format!("{language}_{}", r.to_ascii_uppercase()),
        None => language,
    };
    [
        ("LANG", format!("{posix}.UTF-8")),
        ("LC_ALL", format!("{posix}.UTF-8")),
        ("LANGUAGE", posix),
    ]
}

/// A folder with glibc's data of `locale` (`de_DE.UTF-8`), for `LOCPATH`:
/// WebKit reads its language from `setlocale`, which falls back to `C`
/// (WebKit's `en-US`) for a locale the system has not generated, and most
/// have none but `C`. Made by `localedef` (Debian's `locales` package has
/// its sources) in `profiles`, the driver's folder.
fn locale_data(
    locale: &str,
    profiles: &std::path::Path,
) -> Result<std::path::PathBuf, BrowserError> {
    let dir = profiles.join("locales");
    let (source, charmap) = locale.split_once('.').unwrap_or((locale, "UTF-8"));
    let missing = |said: String| BrowserError::Unsupported {
        browser: BrowserKind::Webkit,
        what: format!("emulating `locale` as {locale}"),
        why: format!(
            "WebKit takes its locale from the system's, and `localedef -i {source} -f {charmap}` could not make it ({said}); install Debian's `locales` package (or run `locale-gen {locale}`), or leave the option out on webkit"
        ),
    };
    std::fs::create_dir_all(&dir).map_err(|e| missing(e.to_string()))?;
    let made = Command::new("localedef")
        .args(["-i", source, "-f", charmap])
        .arg(dir.join(locale))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| missing(format!("localedef: {e}")))?;
    // `localedef` exits 1 on warnings with the data written.
    if !dir.join(locale).join("LC_CTYPE").exists() {
        let said = String::from_utf8_lossy(&made.stderr);
        return Err(missing(said.trim().chars().take(300).collect()));
    }
    Ok(dir)
}

/// The command that starts the configured engine's driver on a free loopback
/// port, in `profiles` as its temporary folder.
fn driver_command(
    config: &BrowserConfig,
    binary: &std::path::Path,
    profiles: &std::path::Path,
) -> Result<Command, BrowserError> {
    let mut cmd = match config.browser {
        BrowserKind::Chromium => {
            let mut cmd = Command::new(binary);
            // Port 0: chromedriver binds a free port itself and says which on
            // its stdout. A port picked here and handed over could be taken
            // meanwhile (by another test process's driver), and a connect to
            // it would then reach that other driver.
            cmd.arg("--port=0").arg("--allowed-ips=127.0.0.1");
            cmd
        }
        BrowserKind::Firefox => {
            let mut cmd = Command::new(binary);
            // Port 0: the port is read off its listening socket (/proc).
            // Firefox's BiDi socket on a free port too: its default, 9222,
            // is one for all, and a second Firefox's client would reach the
            // first's (404 for its session).
            cmd.args([
                "--port",
                "0",
                "--websocket-port",
                "0",
                "--host",
                "127.0.0.1",
                "--log",
                "error",
            ]);
            cmd
        }
        BrowserKind::Webkit if config.headed => {
            // Headed (`--headed`): MiniBrowser opens its window on the
            // display of the session (`DISPLAY`, checked when the settings
            // were read), not on a private virtual one.
            let mut cmd = Command::new(binary);
            cmd.arg("--port=0");
            cmd
        }
        BrowserKind::Webkit => {
            // MiniBrowser has no headless mode: a virtual X server of its own
            // (xvfb-run -a picks a free display), in the driver's group.
            // `-noreset`: the server would reset as the last client (a
            // scenario's MiniBrowser) leaves, under the next one starting.
            let xvfb_run =
                which_on_path("xvfb-run").ok_or_else(|| BrowserError::EngineMissing {
                    browser: BrowserKind::Webkit,
                    what: "xvfb-run (MiniBrowser has no headless mode)".into(),
                    install: "`apt-get install xvfb` on Debian (or `cargo xtask test`)",
                })?;
            let mut cmd = Command::new(xvfb_run);
            cmd.args(["-a", "-s", "-nolisten tcp -noreset -screen 0 1920x1080x24"])
                .arg(binary)
                .arg("--port=0");
            cmd
        }
    };
    // WebKit's locale: its browsers' environment (no MiniBrowser flag sets
    // it), so a driver of its own per locale (`Drivers::take_idle`).
    if config.browser == BrowserKind::Webkit
        && let Some(locale) = &config.launch_emulation().locale
    {
        let env = locale_env(locale);
        cmd.env("LOCPATH", locale_data(&env[0].1, profiles)?);
        for (name, value) in env {
            cmd.env(name, value);
        }
    }
    // The engines' own temporary files (geckodriver's profiles, WebKit's
    // caches) land in the folder the watchdog removes.
    cmd.env("TMPDIR", profiles)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    Ok(cmd)
}

fn which_on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The loopback port some process of group `group` listens on (read off
/// `/proc`: the group's sockets, matched in `/proc/net/tcp{,6}`), for drivers
/// started on port 0 that do not say which port they got.
fn listening_port_of_group(group: u32) -> Option<u16> {
    let mut inodes = std::collections::HashSet::new();
    for (pid, _) in group_members(group) {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path())
                && let Some(inode) = target
                    .to_str()
                    .and_then(|t| t.strip_prefix("socket:["))
                    .and_then(|t| t.strip_suffix(']'))
            {
                inodes.insert(inode.to_string());
            }
        }
    }
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            // local_address, state 0A (LISTEN), inode.
            if cols.len() > 9 && cols[3] == "0A" && inodes.contains(cols[9]) {
                let port = cols[1].rsplit_once(':')?.1;
                if let Ok(p) = u16::from_str_radix(port, 16)
                    && p != 0
                {
                    return Some(p);
                }
            }
        }
    }
    None
}

/// Ends the X server of process group `group` (WebKit's, started by
/// `xvfb-run`), if it has one, with SIGTERM, and waits up to 1 s for it to
/// go: so ended, it removes its lock file and socket (`/tmp/.X<n>-lock`,
/// `/tmp/.X11-unix/X<n>`), which a SIGKILL with its group would leave behind,
/// one pair per WebKit driver.
fn end_x_server(group: u32) {
    let Some(pid) = x_server_of_group(group) else {
        return;
    };
    let Some(p) = rustix::process::Pid::from_raw(pid as i32) else {
        return;
    };
    let _ = rustix::process::kill_process(p, rustix::process::Signal::TERM);
    let deadline = Instant::now() + Duration::from_secs(1);
    while crate::process::alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The pid of the `Xvfb` in process group `group`, if any.
fn x_server_of_group(group: u32) -> Option<u32> {
    group_members(group)
        .into_iter()
        .find_map(|(pid, name)| (name == "Xvfb").then_some(pid))
}

/// The processes of group `group` (read off `/proc`), with their command names.
fn group_members(group: u32) -> Vec<(u32, String)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (head, rest) = stat.rsplit_once(')')?;
            // Fields after the name: state, ppid, pgrp.
            let pgrp = rest.split_whitespace().nth(2)?.parse::<u32>().ok()?;
            let name = head.split_once('(')?.1;
            (pgrp == group).then(|| (pid, name.to_string()))
        })
        .collect()
}

/// Starts the configured engine's driver (three tries), with its watchdog.
fn start(config: &BrowserConfig) -> Result<Driver, BrowserError> {
    let binary = config.driver_binary()?;
    config.browser_binary()?;
    let mut last = String::new();
    for _ in 0..3 {
        let profiles = tempfile::Builder::new()
            .prefix("harshjudge-browser-")
            .tempdir_in(crate::process::browser_temp_dir(
                "harshjudge-browser-XXXXXX",
            ))
            .map_err(|e| BrowserError::DriverStart(format!("profiles folder: {e}")))?
            .keep();
        let mut cmd = match driver_command(config, &binary, &profiles) {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&profiles);
                return Err(e);
            }
        };
        // A process group of its own: its browsers inherit it, and the
        // watchdog kills it as a whole. The driver dies with this process,
        // even on SIGKILL, until the watchdog runs.
        crate::process::own_group(&mut cmd);
        crate::process::die_with_this_process(&mut cmd);
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
        let watchdog = match Watchdog::spawn(child.id(), Some(&profiles), Watch::ThisProcess) {
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
        // Drained, so that a chatty driver never blocks on a full pipe; the
        // last lines say why it exited.
        let stderr_tail = child.stderr.take().map(drain_tail);
        let mut port = None;
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut ready = false;
        while Instant::now() < deadline {
            if port.is_none() {
                port = match config.browser {
                    BrowserKind::Chromium => announced.as_ref().and_then(|rx| rx.try_recv().ok()),
                    _ => listening_port_of_group(child.id()),
                };
            }
            if let Ok(Some(status)) = child.try_wait() {
                std::thread::sleep(Duration::from_millis(50));
                last = format!("exited with {status}: {}", tail_text(&stderr_tail));
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
            binary: binary.clone(),
            locale: (config.browser == BrowserKind::Webkit)
                .then(|| config.launch_emulation().locale)
                .flatten(),
            browser: config.browser,
            stderr_tail,
        };
        if ready {
            return Ok(driver);
        }
        driver.stop(false);
        if last.is_empty() {
            last = match port {
                Some(port) => format!("port {port} did not open within 10 s"),
                None => "it did not say which port it listens on within 10 s".into(),
            };
        }
    }
    Err(BrowserError::DriverStart(format!(
        "{} ({}): {last}",
        binary.display(),
        config.browser
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A BCP 47 locale as the environment a GTK program reads.
    #[test]
    fn a_locale_becomes_lang_lc_all_and_language() {
        let env = |l| locale_env(l).map(|(_, v)| v);
        assert_eq!(env("de-DE"), ["de_DE.UTF-8", "de_DE.UTF-8", "de_DE"]);
        assert_eq!(env("zh-Hant-TW")[2], "zh_TW");
        assert_eq!(env("es-419")[0], "es_419.UTF-8");
        assert_eq!(env("fr")[0], "fr.UTF-8");
    }

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
}
