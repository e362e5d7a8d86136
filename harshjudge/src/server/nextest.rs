//! One server per cargo-nextest run.
//!
//! nextest runs every scenario in its own process, so the first of them to
//! need the server starts it, detached, and the others reuse it:
//!
//! - the run's folder `harshjudge-server-{NEXTEST_RUN_ID}-{key}` in the
//!   temporary folder (`key`: the test binary, the package and the command)
//!   holds a lock file, the server's state (`server.json`: its port and
//!   process group, or why it could not start) and its output (`output.log`);
//! - a process takes the lock (`flock`), and either reads the state or, when
//!   there is none, starts the server and writes it. A server that did not
//!   become ready is not retried by every process: they all report its error;
//! - the server runs in a process group of its own, with stdin closed and its
//!   output in the log file (nothing holds nextest's pipes), and a watchdog
//!   ([`crate::process::Watch::Process`]) waits for the end of nextest's runner
//!   (the scenario processes' parent, or a target runner's that runs them:
//!   [`crate::process::shared::nextest_runner`]), then kills the group and removes
//!   the folder: after the run, and after Ctrl-C (the watchdog and the server
//!   are out of the terminal's process group, and outlive the runner by at
//!   most 0.2 s), nothing is left.
//!
//! The reports of a nextest run are named once, after nextest's own summary
//! ([`announce_reports`]): nextest captures the output of every test process
//! and shows none of a passing one, so the `junit: …` and `report: …` lines a
//! process prints are never seen. The first process of the run to publish
//! reports starts a detached `/bin/sh` that holds nextest's own standard error
//! (the runner's fd 2: the terminal, or the CI log; never `/dev/tty`), waits
//! for the runner to end, then prints the lines the last process to publish
//! left in the run's folder `harshjudge-reports-{NEXTEST_RUN_ID}-{key}`
//! (`key`: the `.harshJudge` folder), and removes that folder.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::output::Output;
use super::{Running, ServerError, WebServer, free_port, wait_ready};
use crate::process::shared::{RunFolder, RunFolderError};
use crate::process::{Watch, Watchdog};

/// `NEXTEST_RUN_ID` when it is a valid id (it becomes part of a path).
pub(super) use crate::process::shared::run_id;

/// What `server.json` holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct State {
    command: String,
    port: u16,
    group: u32,
    /// Why it could not start (then no server runs).
    error: Option<String>,
}

/// The server of nextest run `run`: started here if no process of the run did
/// yet, else the one already started.
pub(super) fn shared(
    server: &WebServer,
    root: &Path,
    binary: &str,
    run: &str,
) -> Result<Running, ServerError> {
    let folder = RunFolder::lock(
        "server",
        run,
        &[
            binary.as_bytes(),
            root.as_os_str().as_encoded_bytes(),
            server.command.as_bytes(),
        ],
    )
    .map_err(|e| ServerError::Io {
        command: server.command.clone(),
        what: e.what(),
        source: e.into_io(),
    })?;
    let dir = folder.path();
    let log = dir.join("output.log");
    if let Some(text) = folder.read("server.json")
        && let Ok(state) = serde_json::from_slice::<State>(&text)
    {
        return match state.error {
            Some(message) => Err(ServerError::SharedFailed { message }),
            None => Ok(Running {
                command: state.command,
                port: state.port,
                group: state.group,
                child: None,
                output: Output::File(log),
                watchdog: None,
            }),
        };
    }
    let result = start_detached(server, root, dir, &log);
    let state = match &result {
        Ok(r) => State {
            command: r.command.clone(),
            port: r.port,
            group: r.group,
            error: None,
        },
        Err(e) => State {
            command: server.command.clone(),
            port: 0,
            group: 0,
            error: Some(crate::secrets::mask(&e.to_string()).into_owned()),
        },
    };
    folder
        .publish(
            "server.json",
            &serde_json::to_vec(&state).unwrap_or_default(),
        )
        .map_err(|e| ServerError::Io {
            command: server.command.clone(),
            what: e.what(),
            source: e.into_io(),
        })?;
    drop(folder);
    result
}

/// Starts the server detached, with a watchdog of nextest's runner.
fn start_detached(
    server: &WebServer,
    root: &Path,
    dir: &Path,
    log: &PathBuf,
) -> Result<Running, ServerError> {
    let port = free_port(&server.command)?;
    let (mut cmd, line) = server.spawnable(port, root)?;
    let io = |what, source| ServerError::Io {
        command: line.clone(),
        what,
        source,
    };
    let out = std::fs::File::create(log).map_err(|e| io("its output.log", e))?;
    let err = out.try_clone().map_err(|e| io("its output.log", e))?;
    cmd.stdout(Stdio::from(out)).stderr(Stdio::from(err));
    let runner = crate::process::shared::nextest_runner().ok_or_else(|| {
        io(
            "nextest's runner",
            std::io::Error::other("no parent process"),
        )
    })?;
    let mut child = cmd.spawn().map_err(|e| io("/bin/sh", e))?;
    let group = child.id();
    match Watchdog::spawn(group, Some(dir), Watch::Process(runner)) {
        Ok(w) => w.detach(),
        Err(e) => {
            crate::process::kill_group(group);
            let _ = child.wait();
            return Err(io("its watchdog (/bin/sh)", e));
        }
    }
    let mut running = Running {
        command: line,
        port,
        group,
        child: Some(child),
        output: Output::File(log.clone()),
        watchdog: None,
    };
    if let Err(e) = wait_ready(server, &mut running) {
        running.stop();
        return Err(e);
    }
    Ok(running)
}

/// What the announcer runs: `$1` the folder holding `lines`, `$2` the
/// runner's pid, `$3` its start time. Its stderr is the runner's. A runner
/// that exited but is not reaped yet (a zombie: its parent may be reading its
/// output to the end before it waits) has ended: waiting for it to vanish
/// would hold that output open for ever.
const ANNOUNCER: &str = r#"trap '' INT TERM HUP QUIT PIPE
while s=$(cat "/proc/$2/stat" 2>/dev/null); do
  r=${s##*) }
  [ "${r%% *}" = Z ] && break
  [ "$(printf '%s' "$r" | cut -d' ' -f20)" = "$3" ] || break
  sleep 0.2
done
[ -s "$1/lines" ] && cat "$1/lines" >&2
rm -rf -- "$1"
"#;

/// Under cargo-nextest, arranges for `lines` (this process's `junit: …`,
/// `report: …`, as `cargo test` prints them) to be printed once, on nextest's
/// standard error after its summary: the latest lines of the run's processes
/// that publish into `store_dir`. Returns why it could not (a note to print).
/// Why the report lines could not be arranged for after nextest's summary
/// ([`announce_reports`]); printed as a note, never fatal.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AnnounceError {
    /// `NEXTEST_RUN_ID` is missing or not a run id.
    #[error("NEXTEST_RUN_ID is not a nextest run id")]
    NotNextest,
    /// A file or process of the announcement could not be made.
    #[error("{what}: {source}")]
    Io {
        /// What was being made or opened.
        what: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// The run's folder could not be used.
    #[error(transparent)]
    Folder(#[from] RunFolderError),
    /// nextest's runner ([`crate::process::shared::nextest_runner`]) is gone.
    #[error("nextest's runner (pid {pid}) is not running")]
    NoRunner {
        /// The parent's pid (0: none).
        pid: u32,
    },
}

pub(crate) fn announce_reports(store_dir: &Path, lines: &[String]) -> Result<(), AnnounceError> {
    let Some(run) = run_id() else {
        return Err(AnnounceError::NotNextest);
    };
    let fail = |what: &'static str, source: std::io::Error| AnnounceError::Io { what, source };
    let folder = RunFolder::lock("reports", &run, &[store_dir.as_os_str().as_encoded_bytes()])?;
    let dir = folder.path();
    let mut text = lines.join("\n");
    text.push('\n');
    folder.publish("lines", text.as_bytes())?;
    let started = dir.join("announcer");
    if started.exists() {
        return Ok(());
    }
    let runner =
        crate::process::shared::nextest_runner().ok_or(AnnounceError::NoRunner { pid: 0 })?;
    let since =
        crate::process::start_time(runner).ok_or(AnnounceError::NoRunner { pid: runner })?;
    // nextest's own standard error, appended to (a file is not overwritten).
    let stderr = std::fs::OpenOptions::new()
        .append(true)
        .open(format!("/proc/{runner}/fd/2"))
        .map_err(|e| fail("nextest's standard error", e))?;
    use std::os::unix::process::CommandExt;
    std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(ANNOUNCER)
        .arg("harshjudge-reports")
        .arg(dir)
        .arg(runner.to_string())
        .arg(since)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(stderr))
        .process_group(0)
        .spawn()
        .map_err(|e| fail("/bin/sh", e))?;
    std::fs::write(&started, b"").map_err(|e| fail("the run's folder", e))?;
    Ok(())
}
