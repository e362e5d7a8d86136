//! [`CommandBuilder`]: a command run from a scenario, recorded as the original
//! HarshJudge's `stdout`, `stderr` and `exit_code` evidence.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::mask::{MASK, Secrets, secret_name};
use super::{ApiError, Host};

/// The default time a command may take.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How an output is matched by [`to_have_stdout`](super::OutputExpect::to_have_stdout)
/// and [`to_have_stderr`](super::OutputExpect::to_have_stderr): a string
/// matches the whole output (its trailing line breaks ignored), a
/// [`regex::Regex`] any part of it, [`contains`] a substring.
#[derive(Clone, Debug)]
pub enum OutputMatch {
    /// The whole output, trailing line breaks ignored.
    Exact(String),
    /// A part of the output.
    Contains(String),
    /// A regular expression found anywhere in the output.
    Regex(regex::Regex),
}

/// A matcher of part of a text: `expect(&out).to_have_stdout(contains("ok"))`.
pub fn contains(s: impl Into<String>) -> OutputMatch {
    OutputMatch::Contains(s.into())
}

impl OutputMatch {
    /// Whether `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        match self {
            OutputMatch::Exact(s) => {
                text.trim_end_matches(['\n', '\r']) == s.trim_end_matches(['\n', '\r'])
            }
            OutputMatch::Contains(s) => text.contains(s.as_str()),
            OutputMatch::Regex(r) => r.is_match(text),
        }
    }

    /// As failures name it: `"ok"`, `contains("ok")`, `/^ok$/`.
    pub fn describe(&self) -> String {
        match self {
            OutputMatch::Exact(s) => format!("{s:?}"),
            OutputMatch::Contains(s) => format!("contains({s:?})"),
            OutputMatch::Regex(r) => format!("/{}/", r.as_str()),
        }
    }
}

impl From<&str> for OutputMatch {
    fn from(s: &str) -> Self {
        OutputMatch::Exact(s.to_string())
    }
}
impl From<String> for OutputMatch {
    fn from(s: String) -> Self {
        OutputMatch::Exact(s)
    }
}
impl From<&String> for OutputMatch {
    fn from(s: &String) -> Self {
        OutputMatch::Exact(s.clone())
    }
}
impl From<regex::Regex> for OutputMatch {
    fn from(r: regex::Regex) -> Self {
        OutputMatch::Regex(r)
    }
}
impl From<&regex::Regex> for OutputMatch {
    fn from(r: &regex::Regex) -> Self {
        OutputMatch::Regex(r.clone())
    }
}

/// A command to run: arguments, working directory, environment, input, time
/// limit; then [`run`](CommandBuilder::run).
#[must_use = "a command does nothing until it is run: `.run().await?`"]
pub struct CommandBuilder {
    host: Arc<dyn Host>,
    program: OsString,
    args: Vec<OsString>,
    cwd: Option<PathBuf>,
    env: Vec<(OsString, OsString)>,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
}

impl std::fmt::Debug for CommandBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandBuilder")
            .field("command", &self.line())
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}

/// What a finished command left: its exit status and its output.
#[derive(Clone, Debug)]
pub struct CommandOutput {
    /// The exit status.
    pub status: std::process::ExitStatus,
    /// What it wrote on stdout.
    pub stdout: String,
    /// What it wrote on stderr.
    pub stderr: String,
    pub(crate) command: String,
    pub(crate) elapsed: Duration,
}

impl CommandOutput {
    /// The exit code (`None` when a signal ended it).
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }
    /// Whether it exited with code 0.
    pub fn success(&self) -> bool {
        self.status.success()
    }
    /// How long it ran.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }
    /// The command line, as failures name it.
    pub fn command(&self) -> &str {
        &self.command
    }
    /// Its stdout parsed as JSON into `T` (as a response's
    /// [`json`](super::ApiResponse::json)): `let v: Value = out.json()?`.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, ApiError> {
        super::json::read(self.stdout.as_bytes(), |source, stdout| {
            ApiError::JsonOutput {
                command: self.command.clone(),
                stdout,
                source,
            }
        })
    }
}

impl CommandBuilder {
    pub(crate) fn new(host: Arc<dyn Host>, program: impl Into<OsString>) -> CommandBuilder {
        CommandBuilder {
            host,
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            stdin: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Adds one argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// The working directory (relative to the test process's: the package root
    /// under `cargo test`).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets an environment variable (the rest is inherited). Values of
    /// secret-looking names (`…TOKEN`, `…PASSWORD`, `…SECRET`, …) are masked
    /// in the evidence, and in the output recorded.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Bytes (or text) written to its stdin (then closed; without this,
    /// stdin is empty).
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Self {
        self.stdin = Some(bytes.as_ref().to_vec());
        self
    }

    /// How long it may run (60 s by default); past it, it and its process
    /// group are killed and [`run`](CommandBuilder::run) fails.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
        self
    }

    /// The values of its secret-looking variables.
    fn env_secrets(&self) -> Secrets {
        let mut secrets = Secrets::default();
        for (k, v) in &self.env {
            if secret_name(&k.to_string_lossy()) {
                secrets.add(&v.to_string_lossy());
            }
        }
        secrets
    }

    fn line(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| {
                let s = a.to_string_lossy();
                if s.is_empty() || s.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'')
                {
                    format!("{s:?}")
                } else {
                    s.into_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Runs the command to its end and records `command-NN.json` (type
    /// `exit_code`), `command-NN-stdout.txt` and `command-NN-stderr.txt` in the
    /// step's evidence. A non-zero exit is an output like any other: assert on
    /// it with [`expect`](crate::expect).
    pub async fn run(self) -> Result<CommandOutput, ApiError> {
        let command = self.line();
        let mut cmd = tokio::process::Command::new(&self.program);
        cmd.args(&self.args)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let started_at = chrono::Utc::now();
        let clock = Instant::now();
        let mut child = match cmd.spawn() {
            Ok(child) => child,
            Err(source) => {
                // Recorded too: the step's evidence says what was tried.
                let mut value = json!({
                    "command": command,
                    "program": self.program.to_string_lossy(),
                    "args": self.args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>(),
                    "cwd": self.cwd.as_ref().map(|c| c.display().to_string()),
                    "exitCode": null,
                    "startedAt": started_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                    "error": format!("cannot start it: {source}"),
                });
                self.env_secrets().scrub(&mut value);
                let bytes = serde_json::to_vec_pretty(&value).expect("JSON serializes");
                super::record(&self.host, "command", &[("", "json", "exit_code", &bytes)])?;
                return Err(ApiError::Spawn {
                    command,
                    cwd: self.cwd.clone(),
                    source,
                });
            }
        };
        let pid = child.id();
        let io = |source| ApiError::CommandIo {
            command: command.clone(),
            source,
        };
        let mut stdout = child.stdout.take().expect("stdout piped");
        let mut stderr = child.stderr.take().expect("stderr piped");
        let input = self.stdin.clone();
        let mut stdin = child.stdin.take();
        let feed = async move {
            if let (Some(mut pipe), Some(bytes)) = (stdin.take(), input) {
                // A command that exits without reading its input is not an error.
                let _ = pipe.write_all(&bytes).await;
                let _ = pipe.shutdown().await;
            }
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let work = async {
            let (_, o, e, status) = tokio::join!(
                feed,
                stdout.read_to_end(&mut out),
                stderr.read_to_end(&mut err),
                child.wait()
            );
            o?;
            e?;
            status
        };
        let finished = tokio::time::timeout(self.timeout, work).await;
        let status = match finished {
            Ok(status) => Some(status.map_err(io)?),
            Err(_) => {
                kill_group(pid);
                let _ = child.kill().await;
                None
            }
        };
        let elapsed = clock.elapsed();
        let record = Record {
            cmd: &self,
            command: &command,
            started_at,
            elapsed,
            status,
            out: &out,
            err: &err,
        };
        record.write()?;
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out).into_owned(),
            String::from_utf8_lossy(&err).into_owned(),
        );
        match status {
            Some(status) => Ok(CommandOutput {
                status,
                stdout,
                stderr,
                command,
                elapsed,
            }),
            None => Err(ApiError::CommandTimeout {
                command,
                after: self.timeout,
                stdout: tail(&stdout),
                stderr: tail(&stderr),
            }),
        }
    }
}

/// The last 500 characters of `s`.
fn tail(s: &str) -> String {
    let n = s.chars().count();
    s.chars().skip(n.saturating_sub(500)).collect()
}

/// Kills the process group led by `pid` (the command was started as its
/// leader), so that what it started dies with it.
fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// What is recorded of one command.
struct Record<'a> {
    cmd: &'a CommandBuilder,
    command: &'a str,
    started_at: chrono::DateTime<chrono::Utc>,
    elapsed: Duration,
    status: Option<std::process::ExitStatus>,
    out: &'a [u8],
    err: &'a [u8],
}

impl Record<'_> {
    fn write(&self) -> Result<(), ApiError> {
        let mut secrets = Secrets::default();
        let env: serde_json::Map<String, serde_json::Value> = self
            .cmd
            .env
            .iter()
            .map(|(k, v)| {
                let (k, v) = (k.to_string_lossy(), v.to_string_lossy());
                let shown = if secret_name(&k) {
                    secrets.add(&v);
                    MASK.to_string()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), shown.into())
            })
            .collect();
        let (out, out_cut) = super::bounded_text(self.out);
        let (err, err_cut) = super::bounded_text(self.err);
        #[cfg(unix)]
        let signal = self
            .status
            .and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s));
        #[cfg(not(unix))]
        let signal: Option<i32> = None;
        let mut value = json!({
            "command": self.command,
            "program": self.cmd.program.to_string_lossy(),
            "args": self.cmd.args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>(),
            "cwd": self.cmd.cwd.as_ref().map(|c| c.display().to_string()),
            "env": env,
            "stdinBytes": self.cmd.stdin.as_ref().map(Vec::len),
            "exitCode": self.status.and_then(|s| s.code()),
            "signal": signal,
            "timedOut": self.status.is_none(),
            "timeoutMs": self.cmd.timeout.as_millis() as u64,
            "startedAt": self.started_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "durationMs": self.elapsed.as_millis() as u64,
            "stdout": { "size": self.out.len(), "truncated": out_cut },
            "stderr": { "size": self.err.len(), "truncated": err_cut },
        });
        secrets.scrub(&mut value);
        let json = serde_json::to_vec_pretty(&value).expect("JSON serializes");
        let out = secrets.scrub_str(&out);
        let err = secrets.scrub_str(&err);
        super::record(
            &self.cmd.host,
            "command",
            &[
                ("", "json", "exit_code", &json),
                ("-stdout", "txt", "stdout", out.as_bytes()),
                ("-stderr", "txt", "stderr", err.as_bytes()),
            ],
        )
    }
}
