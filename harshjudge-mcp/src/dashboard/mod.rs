//! The live dashboard: the HTML report of one project, served on 127.0.0.1 by
//! a detached process of this same binary (`harshjudge-mcp dashboard serve`),
//! plus the original's JSON API. This module is its lifecycle (open, status,
//! close, the state file); [`server`] is the HTTP server and [`api`] the JSON
//! API's answers.
//!
//! The process is started in its own session with stdin from `/dev/null` and
//! stdout/stderr appended to `.harshJudge/.dashboard.log`, so it never writes
//! on the MCP server's stdout and outlives the command or server that opened
//! it. It is running when its pid is alive **and** `GET /api/health` on its
//! port answers with that pid; a state file that fails either test is stale.
//! `open` reuses a dashboard that serves the same `.harshJudge/` folder on one
//! of the ports it would try (its state file lost) instead of starting a
//! second one, and the process exits by itself once that folder is removed or
//! replaced ([`server::WATCH_EVERY`]): a dashboard never outlives its project.
//! Nothing is written outside `<project>/.harshJudge/`.

pub mod api;
pub mod server;

use std::fs::File;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Code, ToolError};

/// The port tried first when none is given.
pub const DEFAULT_PORT: u16 = 7002;
/// Ports tried: the requested one and the next nine.
pub const PORT_TRIES: u16 = 10;
/// How long `open` waits for the process to answer.
pub const START_TIMEOUT: Duration = Duration::from_secs(8);
/// How long `close` waits after SIGTERM before SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(1);
/// The variable naming the `harshjudge-mcp` binary to start, when this
/// process is not it (a library user, a test).
pub const BINARY_VAR: &str = "HARSHJUDGE_MCP_BIN";

/// `.dashboard-state.json`, with the original's keys in its order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    /// The dashboard process.
    pub pid: u32,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// `http://127.0.0.1:{port}`.
    pub url: String,
    /// When it started (ISO-8601).
    pub started_at: String,
    /// The project root (absolute).
    pub project_path: String,
}

/// Where a project's dashboard stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// No state file.
    NotRunning,
    /// The process lives and answers on its port.
    Running(State),
    /// A state file, but no dashboard behind it.
    Stale {
        /// The state, when the file could be read.
        state: Option<State>,
        /// Why it is stale, for the message.
        reason: String,
    },
}

/// Why the dashboard's program cannot be found, its state file read, or its
/// server started (`dashboard serve`).
#[derive(Debug, thiserror::Error)]
pub enum DashboardError {
    /// A bad `HARSHJUDGE_MCP_BIN` (it names the variable).
    #[error(transparent)]
    Setting(#[from] harshjudge_browser::settings::SettingError),
    /// This process's own program cannot be told.
    #[error("cannot tell which program this is ({source}); set {BINARY_VAR}")]
    CurrentExe {
        /// The cause.
        source: std::io::Error,
    },
    /// No `harshjudge-mcp` next to this program.
    #[error(
        "cannot find the harshjudge-mcp program to run the dashboard ({} is not it); set {BINARY_VAR} to its path",
        exe.display()
    )]
    NoBinary {
        /// This program.
        exe: PathBuf,
    },
    /// `.dashboard-state.json` cannot be read.
    #[error("{} cannot be read: {source}", path.display())]
    StateUnreadable {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `.dashboard-state.json` is not a dashboard's state.
    #[error("{} cannot be read: {source}", path.display())]
    StateCorrupt {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// `dashboard serve` in a project without `.harshJudge/`.
    #[error(
        "error: {} is not a folder: initialize the project first (harshjudge-mcp init <name>)",
        dir.display()
    )]
    NoStore {
        /// The `.harshJudge/` folder looked for.
        dir: PathBuf,
    },
    /// The port cannot be listened on (taken, say).
    #[error("error: cannot listen on 127.0.0.1:{port}: {source}")]
    Listen {
        /// The port.
        port: u16,
        /// The cause.
        source: std::io::Error,
    },
    /// The server's runtime cannot start.
    #[error("error: cannot start the async runtime: {source}")]
    Runtime {
        /// The cause.
        source: std::io::Error,
    },
    /// The HTTP server stopped with an error.
    #[error("error: the dashboard server failed: {source}")]
    Serve {
        /// The cause.
        source: std::io::Error,
    },
}

static BINARY: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Sets the `harshjudge-mcp` binary `open` starts (for a program that uses
/// this crate as a library, or a test); it wins over [`BINARY_VAR`].
pub fn set_binary(path: impl Into<PathBuf>) {
    if let Ok(mut b) = BINARY.lock() {
        *b = Some(path.into());
    }
}

/// The `harshjudge-mcp` binary: [`set_binary`], then `$HARSHJUDGE_MCP_BIN`,
/// then this process if it is `harshjudge-mcp`, then a `harshjudge-mcp` next to
/// it or one folder up (cargo's `target/debug/deps/` → `target/debug/`).
pub fn binary() -> Result<PathBuf, DashboardError> {
    if let Some(p) = BINARY.lock().ok().and_then(|b| b.clone()) {
        return Ok(p);
    }
    if let Some(p) = crate::settings::mcp_bin()? {
        return Ok(p);
    }
    let exe = std::env::current_exe().map_err(|source| DashboardError::CurrentExe { source })?;
    let name = format!("harshjudge-mcp{}", std::env::consts::EXE_SUFFIX);
    if exe.file_name().is_some_and(|n| n == name.as_str()) {
        return Ok(exe);
    }
    let dir = exe.parent();
    for d in [dir, dir.and_then(Path::parent)].into_iter().flatten() {
        let candidate = d.join(&name);
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    Err(DashboardError::NoBinary { exe })
}

/// The dashboard of one project.
#[derive(Clone, Debug)]
pub struct Dashboard {
    root: PathBuf,
    dir: PathBuf,
}

impl Dashboard {
    /// The dashboard of the project at `root` (absolute; its `.harshJudge/` need
    /// not exist).
    pub fn new(root: &Path) -> Self {
        Dashboard {
            root: root.to_path_buf(),
            dir: harshjudge_store::store::Store::for_project(root)
                .dir()
                .to_path_buf(),
        }
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `.harshJudge/.dashboard-state.json`.
    pub fn state_path(&self) -> PathBuf {
        self.store().dashboard_state_path()
    }

    /// `.harshJudge/.dashboard.log`.
    pub fn log_path(&self) -> PathBuf {
        self.store().dashboard_log_path()
    }

    /// The `.harshJudge/` folder as a store: every file of the dashboard is
    /// read and written through it, never following a link out of it.
    fn store(&self) -> harshjudge_store::store::Store {
        harshjudge_store::store::Store::new(&self.dir)
    }

    fn read_state(&self) -> Result<Option<State>, DashboardError> {
        let path = self.state_path();
        match self.store().read_file(&path) {
            Ok(bytes) => match serde_json::from_slice(&bytes) {
                Ok(state) => Ok(Some(state)),
                Err(source) => Err(DashboardError::StateCorrupt { path, source }),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(DashboardError::StateUnreadable { path, source }),
        }
    }

    /// Where the dashboard stands.
    pub fn status(&self) -> Status {
        let state = match self.read_state() {
            Ok(None) => return Status::NotRunning,
            Ok(Some(s)) => s,
            Err(e) => {
                return Status::Stale {
                    state: None,
                    reason: e.to_string(),
                };
            }
        };
        if !alive(state.pid) {
            let reason = format!("process {} is dead", state.pid);
            return Status::Stale {
                state: Some(state),
                reason,
            };
        }
        if health(state.port).is_some_and(|h| h.pid == state.pid) {
            Status::Running(state)
        } else {
            let reason = format!(
                "process {} does not answer as a dashboard on port {}",
                state.pid, state.port
            );
            Status::Stale {
                state: Some(state),
                reason,
            }
        }
    }

    /// `getDashboardStatus`: `{running, pid?, port?, url?, startedAt?, stale?, message}`.
    pub fn status_reply(&self) -> DashboardStatus {
        let none = DashboardStatus {
            running: false,
            pid: None,
            port: None,
            url: None,
            started_at: None,
            stale: None,
            message: String::new(),
        };
        match self.status() {
            Status::NotRunning => DashboardStatus {
                message: "Dashboard is not running. Use openDashboard to start it.".into(),
                ..none
            },
            Status::Running(s) => DashboardStatus {
                running: true,
                pid: Some(s.pid),
                port: Some(s.port),
                message: format!("Dashboard running at {} (PID: {})", s.url, s.pid),
                url: Some(s.url),
                started_at: Some(s.started_at),
                ..none
            },
            Status::Stale { state, reason } => DashboardStatus {
                pid: state.as_ref().map(|s| s.pid),
                port: state.as_ref().map(|s| s.port),
                stale: Some(true),
                message: format!(
                    "Dashboard state is stale ({reason}). Run openDashboard to start a new one."
                ),
                ..none
            },
        }
    }

    /// `openDashboard`: starts the dashboard (or finds it running) on `port`
    /// or the next free one up to 9 higher.
    pub fn open(
        &self,
        port: Option<u16>,
        open_browser: bool,
    ) -> Result<DashboardOpened, ToolError> {
        if !self.store().is_initialized() {
            return Err(ToolError::new(
                Code::NotInitialized,
                format!(
                    "Project not initialized: no .harshJudge/config.yaml in {}. Run initProject first (CLI: harshjudge-mcp init <name>).",
                    self.root.display()
                ),
            ));
        }
        let _lock = DirLock::acquire(&self.dir)?;
        match self.status() {
            Status::Running(s) => return Ok(already_running(s, open_browser)),
            Status::Stale { state, .. } => {
                if let Some(s) = &state
                    && is_dashboard(s.pid, s.port)
                {
                    terminate(s.pid);
                }
                self.remove_state()?;
            }
            Status::NotRunning => {}
        }
        let first = port.unwrap_or(DEFAULT_PORT);
        let last = first.saturating_add(PORT_TRIES - 1);
        // A dashboard of this project whose state file was lost: reuse it
        // rather than start a second one.
        if let Some(s) = self.find_running(first..=last) {
            self.write_state(&s)
                .map_err(|e| failed(Code::Internal, e.to_string()))?;
            return Ok(already_running(s, open_browser));
        }
        let exe = binary().map_err(|e| failed(Code::Internal, e.to_string()))?;
        for p in first..=last {
            if !port_free(p) {
                continue;
            }
            let mut child = self.spawn(&exe, p).map_err(|e| {
                failed(Code::Internal, format!("cannot run {}: {e}", exe.display()))
            })?;
            match wait_ready(&mut child, p) {
                Ready::Yes => {
                    let pid = child.id();
                    reap(child);
                    let state = State {
                        pid,
                        port: p,
                        url: format!("http://127.0.0.1:{p}"),
                        started_at: harshjudge_store::store::now_iso(),
                        project_path: self.root.to_string_lossy().into_owned(),
                    };
                    if let Err(e) = self.write_state(&state) {
                        terminate(pid);
                        return Err(failed(Code::Internal, e.to_string()));
                    }
                    if open_browser {
                        browse(&state.url);
                    }
                    return Ok(DashboardOpened {
                        success: true,
                        message: format!("Dashboard started at {}", state.url),
                        url: state.url,
                        port: p,
                        pid,
                        already_running: false,
                    });
                }
                // Another program took the port between the probe and the bind.
                Ready::Exited(_) if !port_free(p) => continue,
                Ready::Exited(status) => {
                    return Err(failed(
                        Code::Internal,
                        format!(
                            "the dashboard process exited ({status}) before answering on port {p}{}",
                            self.log_excerpt()
                        ),
                    ));
                }
                Ready::Timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(failed(
                        Code::Internal,
                        format!(
                            "Dashboard did not start within timeout on port {p}{}",
                            self.log_excerpt()
                        ),
                    ));
                }
            }
        }
        Err(failed(
            Code::InvalidInput,
            format!(
                "No available port found starting from {first} (ports {first}-{last} on 127.0.0.1 are in use); pass another port"
            ),
        ))
    }

    /// `closeDashboard`: `{success, wasRunning, message}`.
    pub fn close(&self) -> Result<DashboardClosed, ToolError> {
        if !self.dir.is_dir() {
            return Ok(not_running());
        }
        let _lock = DirLock::acquire(&self.dir)?;
        let state = match self.read_state() {
            Ok(None) => return Ok(not_running()),
            Ok(Some(s)) => Some(s),
            Err(_) => None,
        };
        let live = state
            .as_ref()
            .filter(|s| alive(s.pid) && is_dashboard(s.pid, s.port));
        let Some(s) = live else {
            self.remove_state()?;
            let message = match &state {
                Some(s) if alive(s.pid) => format!(
                    "Cleaned up stale dashboard state (process {} is not a dashboard)",
                    s.pid
                ),
                Some(_) => "Cleaned up stale dashboard state (process was already dead)".into(),
                None => {
                    "Cleaned up stale dashboard state (the state file could not be read)".into()
                }
            };
            return Ok(closed(true, true, message));
        };
        if !terminate(s.pid) {
            return Ok(closed(
                false,
                true,
                format!("Failed to kill process {}", s.pid),
            ));
        }
        self.remove_state()?;
        Ok(closed(
            true,
            true,
            format!("Dashboard stopped (was running on port {})", s.port),
        ))
    }

    fn write_state(&self, state: &State) -> Result<(), harshjudge_store::store::StoreError> {
        let mut text = serde_json::to_string_pretty(state).expect("state serializes");
        text.push('\n');
        self.store().write_file(&self.state_path(), text.as_bytes())
    }

    /// A dashboard on one of `ports` that serves this project's very
    /// `.harshJudge/` folder. Only ports something listens on are asked, all
    /// at once (a listener that never answers costs one timeout, not ten).
    fn find_running(&self, ports: std::ops::RangeInclusive<u16>) -> Option<State> {
        let identity = StoreIdentity::of(&self.dir)?.to_string();
        let root = self.root.to_string_lossy();
        let answers: Vec<(u16, Option<Health>)> = std::thread::scope(|scope| {
            let asked: Vec<_> = ports
                .filter(|p| !port_free(*p))
                .map(|p| (p, scope.spawn(move || health(p))))
                .collect();
            asked
                .into_iter()
                .map(|(p, h)| (p, h.join().ok().flatten()))
                .collect()
        });
        answers.into_iter().find_map(|(p, h)| {
            let h = h?;
            (h.project_path == root && h.store == identity && alive(h.pid)).then(|| State {
                pid: h.pid,
                port: p,
                url: format!("http://127.0.0.1:{p}"),
                started_at: h.started_at,
                project_path: h.project_path,
            })
        })
    }

    fn remove_state(&self) -> Result<(), ToolError> {
        match self.store().remove_file(&self.state_path()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(ToolError::new(
                Code::Internal,
                format!("cannot remove {}: {e}", self.state_path().display()),
            )),
        }
    }

    fn spawn(&self, exe: &Path, port: u16) -> std::io::Result<Child> {
        // The log keeps earlier sessions until it reaches 1 MB.
        let store = self.store();
        let big = store
            .metadata(&self.log_path())
            .is_ok_and(|m| m.len() > 1024 * 1024);
        if big {
            store.remove_file(&self.log_path())?;
        }
        let log = store.append_file(&self.log_path())?;
        let mut cmd = Command::new(exe);
        cmd.arg("--cwd")
            .arg(&self.root)
            .args(["dashboard", "serve", "--port", &port.to_string()])
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        // SAFETY: the closure runs in the child between fork and exec, where only
        // async-signal-safe calls are allowed: it makes one setsid system call
        // (rustix, no allocation, no lock) and touches no shared state.
        unsafe {
            cmd.pre_exec(|| {
                rustix::process::setsid()
                    .map(drop)
                    .map_err(std::io::Error::from)
            });
        }
        cmd.spawn()
    }

    /// The log's last lines that mention an error, for a start failure.
    fn log_excerpt(&self) -> String {
        let text = self
            .store()
            .read_to_string(&self.log_path())
            .unwrap_or_default();
        let lines: Vec<&str> = text
            .lines()
            .rev()
            .filter(|l| l.to_ascii_lowercase().contains("error"))
            .take(3)
            .collect();
        if lines.is_empty() {
            format!(" (see {})", self.log_path().display())
        } else {
            let mut lines = lines;
            lines.reverse();
            format!(": {}", lines.join(" | "))
        }
    }
}

/// The answer of `open` when a dashboard of this project already serves it.
fn already_running(s: State, open_browser: bool) -> DashboardOpened {
    if open_browser {
        browse(&s.url);
    }
    DashboardOpened {
        success: true,
        message: format!("Dashboard already running at {}", s.url),
        url: s.url,
        port: s.port,
        pid: s.pid,
        already_running: true,
    }
}

fn not_running() -> DashboardClosed {
    closed(true, false, "Dashboard is not running".into())
}

fn closed(success: bool, was_running: bool, message: String) -> DashboardClosed {
    DashboardClosed {
        success,
        was_running,
        message,
    }
}

/// What `openDashboard` returns.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardOpened {
    /// Always true.
    pub success: bool,
    /// `http://127.0.0.1:{port}`.
    pub url: String,
    /// The port it listens on.
    pub port: u16,
    /// Its process.
    pub pid: u32,
    /// It was running already.
    pub already_running: bool,
    /// What happened, in words.
    pub message: String,
}

/// What `closeDashboard` returns.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardClosed {
    /// False when its process could not be stopped.
    pub success: bool,
    /// A dashboard (or a stale state file) was there.
    pub was_running: bool,
    /// What happened, in words.
    pub message: String,
}

/// What `getDashboardStatus` returns.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardStatus {
    /// Its process lives and answers on its port.
    pub running: bool,
    /// Its process (running, or named by a stale state file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Its port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// Its URL, while running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// When it started, while running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// True when a state file has no dashboard behind it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<bool>,
    /// Where it stands, in words.
    pub message: String,
}

crate::plain_output!(DashboardOpened, DashboardClosed, DashboardStatus);

fn failed(code: Code, reason: impl std::fmt::Display) -> ToolError {
    ToolError::new(code, format!("Failed to start dashboard: {reason}"))
}

enum Ready {
    Yes,
    Exited(ExitStatus),
    Timeout,
}

fn wait_ready(child: &mut Child, port: u16) -> Ready {
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Ready::Exited(status);
        }
        if health(port).is_some_and(|h| h.pid == child.id()) {
            return Ready::Yes;
        }
        if Instant::now() >= deadline {
            return Ready::Timeout;
        }
        std::thread::sleep(Duration::from_millis(40));
    }
}

/// Waits for the child in the background, so that a long-lived parent (the
/// MCP server) leaves no zombie when the dashboard stops.
fn reap(mut child: Child) {
    let _ = std::thread::Builder::new()
        .name("dashboard-reaper".into())
        .spawn(move || {
            let _ = child.wait();
        });
}

/// Whether nothing listens on 127.0.0.1:`port`.
pub fn port_free(port: u16) -> bool {
    TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok()
}

/// Which `.harshJudge/` folder a dashboard serves: its device and inode, so a
/// folder removed and created again (a project thrown away and initialized
/// anew) is another folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreIdentity {
    dev: u64,
    ino: u64,
}

impl StoreIdentity {
    /// The folder at `dir` (following a link), or `None` when there is no folder.
    pub fn of(dir: &Path) -> Option<StoreIdentity> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(dir).ok().filter(|m| m.is_dir())?;
        Some(StoreIdentity {
            dev: m.dev(),
            ino: m.ino(),
        })
    }
}

impl std::fmt::Display for StoreIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.dev, self.ino)
    }
}

/// What `GET /api/health` says.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// The dashboard's process id.
    pub pid: u32,
    /// Its project root.
    #[serde(default)]
    pub project_path: String,
    /// When it started (ISO-8601).
    #[serde(default)]
    pub started_at: String,
    /// The [`StoreIdentity`] of the `.harshJudge/` it serves (`dev:ino`).
    #[serde(default)]
    pub store: String,
}

/// Asks 127.0.0.1:`port` for `/api/health` (a short timeout); `None` when
/// nothing answers as a dashboard.
pub fn health(port: u16) -> Option<Health> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_millis(300)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    s.set_write_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(
        s,
        "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut buf = Vec::new();
    s.take(64 * 1024).read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf);
    let (head, body) = text.split_once("\r\n\r\n")?;
    if !head.starts_with("HTTP/1.1 200") {
        return None;
    }
    let v: Value = serde_json::from_str(body).ok()?;
    if v["service"] != "harshjudge-dashboard" {
        return None;
    }
    serde_json::from_value(v).ok()
}

fn pid_t(pid: u32) -> Option<rustix::process::Pid> {
    // 0 and 1 (our group, init) and negative values (groups, everyone) are never signalled.
    i32::try_from(pid)
        .ok()
        .filter(|p| *p > 1)
        .and_then(rustix::process::Pid::from_raw)
}

/// Whether process `pid` exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    let Some(p) = pid_t(pid) else {
        return false;
    };
    // Signal 0 only checks that the process exists (EPERM: it does, not ours).
    let exists = rustix::process::test_kill_process(p)
        .map_or_else(|e| e == rustix::io::Errno::PERM, |()| true);
    if !exists {
        return false;
    }
    // A process that exited but was not waited for yet still has a pid.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next())
            .is_none_or(|state| state != "Z" && state != "X"),
        Err(_) => true,
    }
}

/// Whether `pid` is a dashboard process (its command line on Linux; elsewhere
/// whether the dashboard on `port` says it is that process). A recycled pid is
/// never signalled.
fn is_dashboard(pid: u32, port: u16) -> bool {
    match std::fs::read(format!("/proc/{pid}/cmdline")) {
        Ok(bytes) => {
            let args: Vec<&[u8]> = bytes.split(|b| *b == 0).collect();
            args.windows(2)
                .any(|w| w[0] == b"dashboard" && w[1] == b"serve")
        }
        Err(_) if Path::new("/proc/self/cmdline").exists() => false,
        Err(_) => health(port).is_some_and(|h| h.pid == pid),
    }
}

/// SIGTERM, up to [`STOP_GRACE`] to exit, then SIGKILL. Whether it is gone.
fn terminate(pid: u32) -> bool {
    let Some(p) = pid_t(pid) else {
        return true;
    };
    let gone_within = |d: Duration| {
        let deadline = Instant::now() + d;
        while Instant::now() < deadline {
            if !alive(pid) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        !alive(pid)
    };
    // Plain signals to a process we checked is a dashboard.
    let _ = rustix::process::kill_process(p, rustix::process::Signal::TERM);
    if gone_within(STOP_GRACE) {
        return true;
    }
    let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
    gone_within(Duration::from_secs(2))
}

/// Opens `url` in the desktop's browser; failures are only logged.
fn browse(url: &str) {
    let program = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    match Command::new(program)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(child) => reap(child),
        Err(e) => tracing::warn!("cannot open a browser with {program}: {e}"),
    }
}

/// An exclusive lock on the `.harshJudge/` folder itself (no extra file):
/// one open or close at a time per project.
struct DirLock(#[allow(dead_code)] File);

impl DirLock {
    fn acquire(dir: &Path) -> Result<DirLock, ToolError> {
        let f = File::open(dir).map_err(|e| {
            ToolError::new(
                Code::Internal,
                format!("cannot open {}: {e}", dir.display()),
            )
        })?;
        if let Err(e) = f.lock() {
            return Err(ToolError::new(
                Code::Internal,
                format!("cannot lock {}: {e}", dir.display()),
            ));
        }
        Ok(DirLock(f))
    }
}
