//! Chromium launched by this process and spoken to directly (no
//! chromedriver), as Playwright's `chromium.ts` launches it: the Chromium
//! args of a chromedriver session (`BrowserConfig::chromium_args`: headless,
//! `--host-resolver-rules`, …), a profile in a folder of its own,
//! `--no-startup-window` (no first tab: every page is a target created in a
//! browser context), and the DevTools protocol over
//!
//! - [`Endpoint::Pipe`]: `--remote-debugging-pipe`, two pipes on the child's
//!   fds 3 (what it reads) and 4 (what it writes); for a browser of this
//!   process's own;
//! - [`Endpoint::Port`]: `--remote-debugging-port=0`, Chromium picks a free
//!   port and writes it (and the browser's WebSocket path) to
//!   `DevToolsActivePort` in its profile; for a browser others connect to.
//!
//! The process is handled as the drivers are (`browser/driver.rs`, by
//! [`crate::process`]'s mechanism): a process group of its own, the parent-death
//! signal, spawned from the keeper thread, a watchdog that kills the group
//! and removes the folder when this process ends however it ends, the folder
//! as `TMPDIR` so that what leaves the group (crashpad) is found.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::unix::pipe;

use super::connection::Connection;
use super::protocol::{GetVersion, Version};
use super::transport::{self, Incoming, Outgoing};
use crate::config::BrowserConfig;
use crate::error::BrowserError;
use crate::kind::BrowserKind;
use crate::process::{Watch, Watchdog};

/// How the DevTools protocol reaches the browser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// `--remote-debugging-pipe` (fds 3 and 4).
    Pipe,
    /// `--remote-debugging-port=0` (a WebSocket on a free loopback port).
    Port,
}

/// A Chromium process started here: killed with its group (and its folder
/// removed) by [`Chromium::kill`], when dropped, or by its watchdog when
/// this process ends.
pub(crate) struct Chromium {
    child: Child,
    /// `None` once killed.
    watchdog: Option<Watchdog>,
    /// Its `TMPDIR`, holding its profile; removed with it.
    folder: PathBuf,
    profile: PathBuf,
    /// The last 4 KiB it wrote to stderr.
    said: Arc<Mutex<String>>,
    /// Its browser WebSocket, for [`Endpoint::Port`].
    ws_url: Option<String>,
    /// The binary it runs.
    binary: PathBuf,
}

impl std::fmt::Debug for Chromium {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chromium")
            .field("pid", &self.child.id())
            .field("profile", &self.profile)
            .field("ws_url", &self.ws_url)
            .finish_non_exhaustive()
    }
}

/// A browser started and connected to.
#[derive(Debug)]
pub(crate) struct Launched {
    pub(crate) chromium: Chromium,
    pub(crate) connection: Connection,
    /// Its answer to `Browser.getVersion`, the first command.
    pub(crate) version: Version,
}

impl Chromium {
    /// Its process id (and process group).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its `--user-data-dir`.
    pub(crate) fn profile(&self) -> &Path {
        &self.profile
    }

    /// The `ws://127.0.0.1:PORT/devtools/browser/…` others connect to
    /// ([`Endpoint::Port`] only).
    pub(crate) fn ws_url(&self) -> Option<&str> {
        self.ws_url.as_deref()
    }

    /// What it last wrote to stderr (at most 4 KiB, trimmed).
    pub(crate) fn said(&self) -> String {
        crate::process::tail_text(&Some(self.said.clone()))
    }

    /// Kills it with its whole group (renderers, GPU and network
    /// processes) and what escaped the group, and waits (up to 3 s) for its
    /// watchdog to remove its folder.
    pub(crate) fn kill(mut self) {
        self.kill_now();
    }

    fn kill_now(&mut self) {
        let Some(watchdog) = self.watchdog.take() else {
            return;
        };
        let releasing = crate::process::kill_with_watchdog(&mut self.child, watchdog, &self.folder);
        if !releasing.wait(Duration::from_secs(3)) {
            let _ = std::fs::remove_dir_all(&self.folder);
        }
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        self.kill_now();
    }
}

/// The child's ends of the two pipes of `--remote-debugging-pipe`, at fd
/// numbers of 10 or more (so that moving them onto 3 and 4 cannot overwrite
/// one with the other), and this side's ends.
struct Pipes {
    child_reads: OwnedFd,
    child_writes: OwnedFd,
    to_browser: OwnedFd,
    from_browser: OwnedFd,
}

impl Pipes {
    fn new() -> std::io::Result<Pipes> {
        use rustix::pipe::{PipeFlags, pipe_with};
        let (child_reads, to_browser) = pipe_with(PipeFlags::CLOEXEC)?;
        let (from_browser, child_writes) = pipe_with(PipeFlags::CLOEXEC)?;
        Ok(Pipes {
            child_reads: rustix::io::fcntl_dupfd_cloexec(&child_reads, 10)?,
            child_writes: rustix::io::fcntl_dupfd_cloexec(&child_writes, 10)?,
            to_browser,
            from_browser,
        })
    }

    /// The child gets its ends as fds 3 and 4 (without close-on-exec).
    fn hand_to(&self, cmd: &mut Command) {
        use std::os::unix::process::CommandExt;
        let (reads, writes) = (self.child_reads.as_raw_fd(), self.child_writes.as_raw_fd());
        // SAFETY: the closure runs in the child between fork and exec, where
        // only async-signal-safe calls are allowed: it makes two dup2 system
        // calls (rustix, no allocation, no lock) on fds the parent keeps open
        // until the child is spawned (`reads` and `writes`, both ≥ 10, so
        // neither is 3 or 4), and touches no shared state. The `OwnedFd`s of
        // 3 and 4 are never dropped (`ManuallyDrop`): they only name the
        // target numbers, which exec hands to Chromium.
        unsafe {
            cmd.pre_exec(move || {
                use std::mem::ManuallyDrop;
                use std::os::fd::{BorrowedFd, FromRawFd};
                let mut three = ManuallyDrop::new(OwnedFd::from_raw_fd(3));
                rustix::io::dup2(BorrowedFd::borrow_raw(reads), &mut three)?;
                let mut four = ManuallyDrop::new(OwnedFd::from_raw_fd(4));
                rustix::io::dup2(BorrowedFd::borrow_raw(writes), &mut four)?;
                Ok(())
            });
        }
    }
}

/// Starts Chromium (`app_host`: the host of the app under test, which it
/// resolves besides loopback), connects to it over `endpoint` and asks
/// `Browser.getVersion`, all within `config.launch_timeout`.
pub(crate) async fn launch(
    config: &BrowserConfig,
    endpoint: Endpoint,
    app_host: Option<&str>,
) -> Result<Launched, BrowserError> {
    let binary = config.chromium_binary()?;
    let folder = tempfile::Builder::new()
        .prefix("harshjudge-chromium-")
        .tempdir_in(crate::process::browser_temp_dir(
            "harshjudge-chromium-XXXXXX",
        ))
        .map_err(|e| start_error(&binary, format!("its folder: {e}")))?
        .keep();
    let profile = folder.join("profile");
    let mut args = config.chromium_args(Some(&profile), app_host);
    args.push("--no-startup-window".into());
    // Where a pause can wait (a terminal, not CI: `browser/pause.rs`), a
    // browser of this process's own listens on a DevTools port too, which
    // the pause names (a person opens DevTools there).
    if endpoint == Endpoint::Pipe && crate::inspect::may_wait() {
        args.push("--remote-debugging-port=0".into());
        crate::inspect::register_devtools(crate::inspect::DevTools::Profile(profile.clone()));
    }
    args.push(match endpoint {
        Endpoint::Pipe => "--remote-debugging-pipe".into(),
        Endpoint::Port => "--remote-debugging-port=0".into(),
    });
    let pipes = match endpoint {
        Endpoint::Pipe => {
            Some(Pipes::new().map_err(|e| start_error(&binary, format!("pipes: {e}")))?)
        }
        Endpoint::Port => None,
    };
    let mut cmd = Command::new(&binary);
    cmd.args(&args)
        .env("TMPDIR", &folder)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    crate::process::own_group(&mut cmd);
    crate::process::die_with_this_process(&mut cmd);
    if let Some(p) = &pipes {
        p.hand_to(&mut cmd);
    }
    let mut child = match crate::process::spawn_from_keeper(cmd) {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&folder);
            return Err(start_error(&binary, e.to_string()));
        }
    };
    let watchdog = match Watchdog::spawn(child.id(), Some(&folder), Watch::ThisProcess) {
        Ok(w) => w,
        Err(e) => {
            crate::process::kill_group(child.id());
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_dir_all(&folder);
            return Err(start_error(
                &binary,
                format!(
                    "the watchdog that stops the browser with this process (/bin/sh) could not start: {e}"
                ),
            ));
        }
    };
    let said = crate::process::drain_tail(child.stderr.take().expect("stderr is piped"));
    let mut chromium = Chromium {
        child,
        watchdog: Some(watchdog),
        folder,
        profile,
        said,
        ws_url: None,
        binary: binary.clone(),
    };
    let connecting = connect(&mut chromium, pipes);
    match tokio::time::timeout(config.launch_timeout, connecting).await {
        Ok(Ok((connection, version))) => Ok(Launched {
            chromium,
            connection,
            version,
        }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(BrowserError::LaunchTimeout {
            browser: BrowserKind::Chromium,
            url: format!(
                "{} {}",
                binary.display(),
                args.last().expect("the endpoint arg")
            ),
            after: config.launch_timeout,
            tries: 1,
            said: chromium.said(),
        }),
    }
}

/// Connects to a started Chromium and asks its version.
async fn connect(
    chromium: &mut Chromium,
    pipes: Option<Pipes>,
) -> Result<(Connection, Version), BrowserError> {
    let (out, incoming): (Outgoing, Incoming) = match pipes {
        Some(p) => {
            // The child has its copies: this side's must go, so that a
            // browser that exits closes the pipe for good.
            drop((p.child_reads, p.child_writes));
            let failed = |e: std::io::Error| start_error(&chromium.binary, format!("pipes: {e}"));
            transport::pipe_pair(
                pipe::Sender::from_owned_fd(p.to_browser).map_err(failed)?,
                pipe::Receiver::from_owned_fd(p.from_browser).map_err(failed)?,
            )
        }
        None => {
            let url = active_port_url(chromium).await?;
            chromium.ws_url = Some(url.clone());
            transport::connect_socket(&url)
                .await
                .map_err(|e| start_error(&chromium.binary, format!("connecting to {url}: {e}")))?
        }
    };
    let connection = Connection::open(out, incoming, Some(chromium.said.clone()));
    let version = connection.send(None, &GetVersion {}).await?;
    Ok((connection, version))
}

/// The browser WebSocket a Chromium started with `--remote-debugging-port=0`
/// writes to `DevToolsActivePort` in its profile (the port, then the path),
/// polled until it is there or the browser exited.
async fn active_port_url(chromium: &mut Chromium) -> Result<String, BrowserError> {
    let file = chromium.profile.join("DevToolsActivePort");
    loop {
        if let Ok(text) = std::fs::read_to_string(&file)
            && let Some(url) = ws_url_of_active_port(&text)
        {
            return Ok(url);
        }
        if let Ok(Some(status)) = chromium.child.try_wait() {
            tokio::time::sleep(Duration::from_millis(50)).await;
            return Err(start_error(
                &chromium.binary,
                format!(
                    "exited with {status} before it listened: {}",
                    chromium.said()
                ),
            ));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// `ws://127.0.0.1:PORT/devtools/browser/UUID` from `DevToolsActivePort`'s
/// two lines (`PORT`, `/devtools/browser/UUID`); none while it is incomplete
/// (the file is read while Chromium may still be writing it: the UUID must
/// be whole).
pub(crate) fn ws_url_of_active_port(text: &str) -> Option<String> {
    let mut lines = text.lines();
    let port: u16 = lines.next()?.trim().parse().ok().filter(|p| *p != 0)?;
    let path = lines.next()?.trim();
    let uuid = path.strip_prefix("/devtools/browser/")?;
    let whole = uuid.len() == 36 && uuid.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
    whole.then(|| format!("ws://127.0.0.1:{port}{path}"))
}

/// A browser that did not start.
fn start_error(binary: &Path, message: String) -> BrowserError {
    BrowserError::Session {
        url: binary.display().to_string(),
        message,
    }
}

/// A Chromium started for a whole nextest run ([`launch_detached`]): it
/// outlives the process that started it.
#[derive(Debug)]
pub(crate) struct Detached {
    /// Its browser WebSocket.
    pub(crate) ws_url: String,
    /// Its pid, which is its process group.
    pub(crate) pid: u32,
}

/// Starts Chromium for the processes of a nextest run (`shared.rs`):
/// `--remote-debugging-port=0`, its profile `profile` and `TMPDIR` `folder`
/// (the run's folder), its output appended to `log`, a process group of its
/// own and no parent-death signal (it must outlive this process), and a
/// watchdog that kills the group and removes `folder` when process `runner`
/// (nextest's runner) ends. Returns once its WebSocket is known, within
/// `config.launch_timeout`; a browser that did not get there is killed.
pub(crate) async fn launch_detached(
    config: &BrowserConfig,
    app_host: Option<&str>,
    folder: &Path,
    profile: &Path,
    log: &Path,
    runner: u32,
) -> Result<Detached, BrowserError> {
    let binary = config.chromium_binary()?;
    let mut args = config.chromium_args(Some(profile), app_host);
    args.push("--no-startup-window".into());
    args.push("--remote-debugging-port=0".into());
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| start_error(&binary, format!("its log {}: {e}", log.display())))?;
    let err = out
        .try_clone()
        .map_err(|e| start_error(&binary, format!("its log {}: {e}", log.display())))?;
    let mut cmd = Command::new(&binary);
    cmd.args(&args)
        .env("TMPDIR", folder)
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err));
    crate::process::own_group(&mut cmd);
    let mut child = cmd
        .spawn()
        .map_err(|e| start_error(&binary, e.to_string()))?;
    let pid = child.id();
    match Watchdog::spawn(pid, Some(folder), Watch::Process(runner)) {
        Ok(w) => w.detach(),
        Err(e) => {
            crate::process::kill_group(pid);
            let _ = child.wait();
            return Err(start_error(
                &binary,
                format!(
                    "the watchdog that stops the browser with nextest's runner (/bin/sh) could not start: {e}"
                ),
            ));
        }
    }
    let said = || log_tail(log);
    let file = profile.join("DevToolsActivePort");
    let deadline = tokio::time::Instant::now() + config.launch_timeout;
    loop {
        if let Ok(text) = std::fs::read_to_string(&file)
            && let Some(ws_url) = ws_url_of_active_port(&text)
        {
            // Not waited for: an exit of it is seen by who connects, and its
            // zombie goes with this process.
            drop(child);
            return Ok(Detached { ws_url, pid });
        }
        if let Ok(Some(status)) = child.try_wait() {
            crate::process::kill_group(pid);
            return Err(start_error(
                &binary,
                format!("exited with {status} before it listened: {}", said()),
            ));
        }
        if tokio::time::Instant::now() >= deadline {
            crate::process::kill_group(pid);
            let _ = child.wait();
            return Err(BrowserError::LaunchTimeout {
                browser: BrowserKind::Chromium,
                url: format!("{} --remote-debugging-port=0", binary.display()),
                after: config.launch_timeout,
                tries: 1,
                said: said(),
            });
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The last 4 KiB of a log file, trimmed.
pub(crate) fn log_tail(log: &Path) -> String {
    let text = std::fs::read(log).unwrap_or_default();
    let from = text.len().saturating_sub(4096);
    String::from_utf8_lossy(&text[from..]).trim().to_string()
}
