//! The app under test, started by the suite: [`WebServer`], given by
//! `harshjudge::main!(web_server = app)` (Playwright's `webServer`).
//!
//! The harness starts it once, when a selected scenario is about to run (never
//! for `--list` or `--rejudge`, never when `HARSHJUDGE_BASE_URL` is set), on a
//! free loopback port (`{port}`), waits until it is ready, and points the
//! scenarios at `http://127.0.0.1:{port}`. It is stopped with its whole process
//! group when the test process ends, however it ends (by the watchdog that stops chromedriver too).
//! Under cargo-nextest, where every scenario runs in its own process, it is
//! started once per nextest run and shared (`server/nextest.rs`).
//!
//! Its output is kept (the last lines); a step that fails while the server is
//! down says so first, and gets those lines as evidence.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use harshjudge_browser::process::{Watch, Watchdog};

mod nextest;
pub(crate) use nextest::announce_reports;
mod output;

pub use output::KEPT_LINES;
use output::{Output, Ring, block};

/// How many output lines an error message shows.
const SHOWN_LINES: usize = 20;

/// The app under test, started by the suite: a shell command that listens on
/// `{port}` (a free loopback port), ready when a URL answers or when its
/// output says so.
///
/// ```no_run
/// use std::time::Duration;
/// use harshjudge::WebServer;
///
/// fn app() -> WebServer {
///     WebServer::command("python3 -m http.server {port} --bind 127.0.0.1")
///         .cwd("site")
///         .env("APP_MODE", "test")
///         .ready("/")
///         .timeout(Duration::from_secs(60))
/// }
///
/// harshjudge::main!(web_server = app);
/// ```
#[derive(Clone, Debug)]
pub struct WebServer {
    command: String,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    ready_path: Option<String>,
    ready_output: Option<regex::Regex>,
    timeout: Duration,
}

/// The placeholder of the port in a command, an environment value or a ready path.
pub const PORT: &str = "{port}";

impl WebServer {
    /// The command, run by `/bin/sh -c` in a process group of its own. `{port}`
    /// stands for the free loopback port the server must listen on (in the
    /// command or in an [`env`](Self::env) value).
    pub fn command(command: impl Into<String>) -> Self {
        WebServer {
            command: command.into(),
            cwd: None,
            env: Vec::new(),
            ready_path: None,
            ready_output: None,
            timeout: Duration::from_secs(60),
        }
    }

    /// The folder the command runs in; a relative one is relative to the
    /// package's root (where its `Cargo.toml` is).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// An environment variable of the command (`{port}` in the value is the port).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Ready when `GET http://127.0.0.1:{port}{path}` answers 2xx, 3xx or
    /// 400–403 (Playwright's rule). Without `ready` or
    /// [`ready_output`](Self::ready_output), ready when the port accepts a
    /// connection.
    pub fn ready(mut self, path: impl Into<String>) -> Self {
        self.ready_path = Some(path.into());
        self
    }

    /// Ready when a line of the server's output (stdout or stderr) matches
    /// `pattern` (and, with [`ready`](Self::ready) too, the URL answers).
    pub fn ready_output(mut self, pattern: regex::Regex) -> Self {
        self.ready_output = Some(pattern);
        self
    }

    /// How long the server may take to be ready (60 s by default).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The command as written.
    pub fn command_text(&self) -> &str {
        &self.command
    }

    fn check(&self) -> Result<(), ServerError> {
        let in_env = self.env.iter().any(|(_, v)| v.contains(PORT));
        if !self.command.contains(PORT) && !in_env {
            return Err(ServerError::NoPort {
                command: self.command.clone(),
            });
        }
        if let Some(path) = &self.ready_path
            && !path.starts_with('/')
        {
            return Err(ServerError::ReadyPath { path: path.clone() });
        }
        Ok(())
    }

    /// The command to spawn for `port`, in `root` (the package's root).
    fn spawnable(&self, port: u16, root: &Path) -> Result<(Command, String), ServerError> {
        let line = self.command.replace(PORT, &port.to_string());
        let dir = match &self.cwd {
            Some(d) => root.join(d),
            None => root.to_path_buf(),
        };
        if !dir.is_dir() {
            return Err(ServerError::Cwd {
                command: self.command.clone(),
                dir,
            });
        }
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c").arg(&line).current_dir(&dir);
        for (k, v) in &self.env {
            cmd.env(k, v.replace(PORT, &port.to_string()));
        }
        cmd.stdin(Stdio::null());
        harshjudge_browser::process::own_group(&mut cmd);
        Ok((cmd, line))
    }
}

/// Why the app under test could not be started or used.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The command never says where to listen.
    #[error(
        "the web server's command `{command}` has no `{{port}}`: the server must listen on the free loopback port the suite picks, e.g. WebServer::command(\"python3 -m http.server {{port}} --bind 127.0.0.1\") (or .env(\"PORT\", \"{{port}}\"))"
    )]
    NoPort {
        /// The command as written.
        command: String,
    },
    /// `ready(path)` is not a path.
    #[error(
        "WebServer::ready({path:?}): give the path of the URL to poll, starting with `/` (e.g. \"/health\"); the host is http://127.0.0.1:{{port}}"
    )]
    ReadyPath {
        /// The value given.
        path: String,
    },
    /// The folder of `cwd` is not one.
    #[error("the web server `{command}`: its folder {} is not a folder (WebServer::cwd, relative to the package root)", dir.display())]
    Cwd {
        /// The command.
        command: String,
        /// The folder.
        dir: PathBuf,
    },
    /// No free port, no shell, no watchdog, no shared state.
    #[error("the web server `{command}` could not be started: {what}: {source}")]
    Io {
        /// The command.
        command: String,
        /// What failed.
        what: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// It exited before it was ready.
    #[error(
        "the web server `{command}` exited with {status} before it was ready; its last output lines:\n{}",
        block(lines)
    )]
    Exited {
        /// The command run (with its port).
        command: String,
        /// How it ended.
        status: String,
        /// Its last output lines.
        lines: Vec<String>,
    },
    /// It did not become ready in time.
    #[error(
        "the web server `{command}` was not ready after {} ({waiting}; WebServer::timeout to wait longer); its last output lines:\n{}",
        harshjudge_browser::settings::format_duration(*waited),
        block(lines)
    )]
    NotReady {
        /// The command run (with its port).
        command: String,
        /// How long it was waited for.
        waited: Duration,
        /// What was waited for.
        waiting: String,
        /// Its last output lines.
        lines: Vec<String>,
    },
    /// Under cargo-nextest: the process that started the shared server failed.
    #[error("{message} (reported by the scenario process that started it for this nextest run)")]
    SharedFailed {
        /// Its error.
        message: String,
    },
}

/// The server this process started or shares.
struct Running {
    /// The command run, with its port.
    command: String,
    port: u16,
    /// Its process group (the pid of its shell).
    group: u32,
    /// Started by this process (none: shared, started by another).
    child: Option<Child>,
    output: Output,
    /// Stops it when this process ends (none when it is shared by a nextest run).
    watchdog: Option<Watchdog>,
}

static SERVER: Mutex<Option<Running>> = Mutex::new(None);

/// Starts `server` (or, under cargo-nextest, the run's shared one) and returns
/// its base URL once it is ready. `root`: the package's root.
pub fn start(server: &WebServer, root: &Path, binary: &str) -> Result<String, ServerError> {
    server.check()?;
    let running = match nextest::run_id() {
        Some(run) => nextest::shared(server, root, binary, &run)?,
        None => start_here(server, root)?,
    };
    let url = format!("http://127.0.0.1:{}", running.port);
    *SERVER.lock().unwrap_or_else(|p| p.into_inner()) = Some(running);
    Ok(url)
}

/// A free loopback port (the kernel's pick; it is free again once closed).
fn free_port(command: &str) -> Result<u16, ServerError> {
    let io = |source| ServerError::Io {
        command: command.to_string(),
        what: "no free loopback port",
        source,
    };
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(io)?;
    Ok(listener.local_addr().map_err(io)?.port())
}

/// Starts the server as a child of this process (reading its output into a
/// ring), stopped with this process.
fn start_here(server: &WebServer, root: &Path) -> Result<Running, ServerError> {
    let port = free_port(&server.command)?;
    let (mut cmd, line) = server.spawnable(port, root)?;
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    harshjudge_browser::process::die_with_this_process(&mut cmd);
    let io = |what, source| ServerError::Io {
        command: line.clone(),
        what,
        source,
    };
    let mut child =
        harshjudge_browser::process::spawn_from_keeper(cmd).map_err(|e| io("/bin/sh", e))?;
    let group = child.id();
    let watchdog = match Watchdog::spawn(group, None, Watch::ThisProcess) {
        Ok(w) => w,
        Err(e) => {
            harshjudge_browser::process::kill_group(group);
            let _ = child.wait();
            return Err(io("its watchdog (/bin/sh)", e));
        }
    };
    let ring = Arc::new(Ring::default());
    if let Some(out) = child.stdout.take() {
        ring.drain(out, server.ready_output.clone());
    }
    if let Some(err) = child.stderr.take() {
        ring.drain(err, server.ready_output.clone());
    }
    let mut running = Running {
        command: line,
        port,
        group,
        child: Some(child),
        output: Output::Ring(ring),
        watchdog: Some(watchdog),
    };
    if let Err(e) = wait_ready(server, &mut running) {
        running.stop();
        return Err(e);
    }
    Ok(running)
}

/// Waits until `running` is ready as `server` says, or exited, or the timeout.
fn wait_ready(server: &WebServer, running: &mut Running) -> Result<(), ServerError> {
    let started = Instant::now();
    let port = running.port;
    let ready_url = server
        .ready_path
        .as_ref()
        .map(|p| p.replace(PORT, &port.to_string()));
    let mut last_status = None;
    loop {
        if let Some(status) = running.exited() {
            // Let the reader threads take its last words.
            std::thread::sleep(Duration::from_millis(50));
            return Err(ServerError::Exited {
                command: running.command.clone(),
                status,
                lines: running.output.last_lines(SHOWN_LINES),
            });
        }
        let output_ok = server
            .ready_output
            .as_ref()
            .is_none_or(|r| running.output.matched(r));
        let url_ok = match &ready_url {
            Some(path) => {
                last_status = http_status(port, path);
                last_status.is_some_and(|s| (200..=403).contains(&s))
            }
            None if server.ready_output.is_none() => listening(port),
            None => true,
        };
        if output_ok && url_ok {
            return Ok(());
        }
        if started.elapsed() >= server.timeout {
            let mut waiting = Vec::new();
            if let Some(path) = &ready_url {
                waiting.push(match last_status {
                    Some(s) => format!("GET http://127.0.0.1:{port}{path} answered {s}"),
                    None => format!("GET http://127.0.0.1:{port}{path} got no answer"),
                });
            }
            if let Some(r) = &server.ready_output
                && !output_ok
            {
                waiting.push(format!("no output line matched /{r}/"));
            }
            if waiting.is_empty() {
                waiting.push(format!("nothing listened on 127.0.0.1:{port}"));
            }
            return Err(ServerError::NotReady {
                command: running.command.clone(),
                waited: started.elapsed(),
                waiting: waiting.join("; "),
                lines: running.output.last_lines(SHOWN_LINES),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether something accepts connections on 127.0.0.1:`port`.
fn listening(port: u16) -> bool {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_ok()
}

/// The status of `GET http://127.0.0.1:{port}{path}`, if it answers.
fn http_status(port: u16, path: &str) -> Option<u16> {
    use std::io::{Read, Write};
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(1)).ok()?;
    let _ = s.set_write_timeout(Some(Duration::from_secs(2)));
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    s.write_all(request.as_bytes()).ok()?;
    let mut head = Vec::new();
    let mut buf = [0u8; 256];
    while !head.windows(2).any(|w| w == b"\r\n") && head.len() < 4096 {
        let n = s.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let line = String::from_utf8_lossy(&head);
    let mut parts = line.split_whitespace();
    parts.next().filter(|v| v.starts_with("HTTP/"))?;
    parts.next()?.parse().ok()
}

impl Running {
    /// How it ended, if it did.
    fn exited(&mut self) -> Option<String> {
        match &mut self.child {
            Some(child) => match child.try_wait() {
                Ok(Some(status)) => Some(status.to_string()),
                _ => None,
            },
            None => (!harshjudge_browser::process::alive(self.group))
                .then(|| "an unknown status".into()),
        }
    }

    /// Stops it: SIGTERM to its group, then SIGKILL after a moment.
    fn stop(mut self) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.group as i32) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::TERM);
        }
        if let Some(child) = &mut self.child {
            let deadline = Instant::now() + Duration::from_secs(2);
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
            harshjudge_browser::process::kill_group(self.group);
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(w) = self.watchdog.take() {
            w.release(Duration::from_secs(3));
        }
    }
}

/// Why a step failed, when the server is down: what happened to it (to say
/// first) and its last output lines (for the step's evidence).
pub struct Down {
    /// "the web server `…` exited with … (before this step failed)".
    pub message: String,
    /// Its last output lines.
    pub lines: Vec<String>,
}

/// The server's state, when this process started or shares one and it is
/// down (exited, or no longer accepting connections).
pub fn down() -> Option<Down> {
    let mut guard = SERVER.lock().unwrap_or_else(|p| p.into_inner());
    let running = guard.as_mut()?;
    let what = match running.exited() {
        Some(status) => format!("exited with {status}"),
        None if !listening(running.port) => {
            // Dying: give it a moment to be reaped, for its status.
            std::thread::sleep(Duration::from_millis(100));
            match running.exited() {
                Some(status) => format!("exited with {status}"),
                None => format!(
                    "no longer accepts connections on 127.0.0.1:{}",
                    running.port
                ),
            }
        }
        None => return None,
    };
    Some(Down {
        message: format!(
            "the web server `{}` {what} (its last output lines are in this step's evidence, web-server-output.txt)",
            running.command
        ),
        lines: running.output.last_lines(KEPT_LINES),
    })
}

/// Stops the server this process started (not one shared by a nextest run:
/// that one ends with the run).
pub fn stop() {
    let taken = SERVER.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some(running) = taken
        && running.watchdog.is_some()
    {
        running.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_without_its_port_is_refused_by_name() {
        let e = WebServer::command("python3 manage.py runserver")
            .check()
            .unwrap_err();
        assert!(matches!(e, ServerError::NoPort { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.contains("`python3 manage.py runserver` has no `{port}`"),
            "{msg}"
        );
        assert!(
            WebServer::command("python3 manage.py runserver")
                .env("PORT", "{port}")
                .check()
                .is_ok()
        );
        let e = WebServer::command("serve {port}")
            .ready("health")
            .check()
            .unwrap_err();
        assert!(
            e.to_string().contains("WebServer::ready(\"health\")"),
            "{e}"
        );
    }
}
