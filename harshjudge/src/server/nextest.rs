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
//!   ([`harshjudge_browser::process::Watch::Process`]) waits for the end of nextest's runner
//!   (the scenario processes' parent, or a target runner's that runs them:
//!   [`harshjudge_browser::process::shared::nextest_runner`]), then kills the group and removes
//!   the folder: after the run, and after Ctrl-C (the watchdog and the server
//!   are out of the terminal's process group, and outlive the runner by at
//!   most 0.2 s), nothing is left.
//!
//! The reports of a nextest run are named once, after nextest's own summary
//! ([`announce_reports`]): nextest captures the output of every test process
//! and shows none of a passing one, so the `junit: …` and `report: …` lines a
//! process prints are never seen. The run's folder `harshjudge-reports-{NEXTEST_RUN_ID}-{key}`
//! holds, for each `.harshJudge` folder its processes published into, the
//! lines the last of them left (`{n}-{key}.lines`, `n` counting the folders
//! in the order they first published). The first process of the run to
//! publish starts the run's one announcer, a detached `/bin/sh` that holds
//! nextest's own standard error (the runner's fd 2: the terminal, or the CI
//! log; never `/dev/tty`), waits for the runner to end
//! ([`harshjudge_browser::process::UNTIL_ENDED`]), then prints every folder's lines in
//! that order and removes the run's folder.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::output::Output;
use super::{Running, ServerError, WebServer, free_port, wait_ready};
use harshjudge_browser::process::shared::{RunFolder, RunFolderError};
use harshjudge_browser::process::{Watch, Watchdog};

/// `NEXTEST_RUN_ID` when it is a valid id (it becomes part of a path).
pub(super) use harshjudge_browser::process::shared::run_id;

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
            error: Some(harshjudge_browser::secrets::mask(&e.to_string()).into_owned()),
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
    let runner = harshjudge_browser::process::shared::nextest_runner().ok_or_else(|| {
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
            harshjudge_browser::process::kill_group(group);
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

/// What the announcer runs after [`harshjudge_browser::process::UNTIL_ENDED`]: `$1` the
/// run's folder, `$2` the runner's pid, `$3` its start time. Its stderr is
/// the runner's. A runner that exited but is not reaped yet (a zombie: its
/// parent may be reading its output to the end before it waits) has ended:
/// waiting for it to vanish would hold that output open for ever.
const ANNOUNCER: &str = r#"trap '' INT TERM HUP QUIT PIPE
until_ended "$2" "$3"
for f in "$1"/*.lines; do
  [ -s "$f" ] && cat "$f" >&2
done
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
    /// nextest's runner ([`harshjudge_browser::process::shared::nextest_runner`]) is gone.
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
    // One folder, and one announcer, for the whole run: a process per
    // `.harshJudge` folder, each polling nextest's runner, once cost a run of
    // this workspace's tests (89 folders) most of a core.
    let folder = RunFolder::lock("reports", &run, &[])?;
    let dir = folder.path();
    let mut text = lines.join("\n");
    text.push('\n');
    folder.publish(&lines_name(dir, store_dir), text.as_bytes())?;
    let started = dir.join("announcer");
    if started.exists() {
        return Ok(());
    }
    let runner = harshjudge_browser::process::shared::nextest_runner()
        .ok_or(AnnounceError::NoRunner { pid: 0 })?;
    let since = harshjudge_browser::process::start_time(runner)
        .ok_or(AnnounceError::NoRunner { pid: runner })?;
    // nextest's own standard error, appended to (a file is not overwritten).
    let stderr = std::fs::OpenOptions::new()
        .append(true)
        .open(format!("/proc/{runner}/fd/2"))
        .map_err(|e| fail("nextest's standard error", e))?;
    use std::os::unix::process::CommandExt;
    std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!(
            "{}\n{ANNOUNCER}",
            harshjudge_browser::process::UNTIL_ENDED
        ))
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

/// The name of `store_dir`'s lines in the run's folder `dir`: the one it has,
/// or `{n}-{key}.lines` with `n` one more than the folders already there (so
/// the announcer prints them in the order they first published).
fn lines_name(dir: &Path, store_dir: &Path) -> String {
    let key = harshjudge_browser::process::shared::key(&[store_dir.as_os_str().as_encoded_bytes()]);
    let suffix = format!("-{key}.lines");
    let names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".lines"))
        .collect();
    match names.iter().find(|n| n.ends_with(&suffix)) {
        Some(name) => name.clone(),
        None => format!("{:04}{suffix}", names.len() + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The announcers of run `run`: the processes whose command line is an
    /// announcer's of that run, less those forked by one. The shell forks
    /// before each `sleep` it runs; until the child execs, it has its
    /// parent's command line (seen under load: two "announcers", the second
    /// the first's child).
    fn announcers(run: &str) -> Vec<u32> {
        let parent = |pid: u32| -> Option<u32> {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            stat.rsplit_once(") ")?.1.split(' ').nth(1)?.parse().ok()
        };
        let matching = with_announcers_line(run);
        matching
            .iter()
            .copied()
            .filter(|pid| parent(*pid).is_none_or(|p| !matching.contains(&p)))
            .collect()
    }

    /// The processes whose command line is an announcer's of run `run`.
    fn with_announcers_line(run: &str) -> Vec<u32> {
        std::fs::read_dir("/proc")
            .expect("/proc")
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                    let c = String::from_utf8_lossy(&c);
                    c.contains("harshjudge-reports") && c.contains(run)
                })
            })
            .collect()
    }

    /// A shell with an announcer's command line that has forked a subshell
    /// (which keeps that command line, as the child of a fork does until it
    /// execs) is one announcer, not two.
    #[test]
    fn a_forked_child_of_an_announcer_is_not_a_second_one() {
        let run = format!("forked-{}", std::process::id());
        let mut shell = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg("(while :; do sleep 1; done) & echo forked; read -r line; kill $!")
            .arg("harshjudge-reports")
            .arg(&run)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // Not the test's: the subshell's last `sleep` outlives it a moment.
            .stderr(Stdio::null())
            .spawn()
            .expect("a shell");
        let mut said = String::new();
        use std::io::BufRead;
        std::io::BufReader::new(shell.stdout.take().expect("its stdout"))
            .read_line(&mut said)
            .expect("read");
        assert_eq!(said, "forked\n");
        let matching = with_announcers_line(&run).len();
        let found = announcers(&run);
        drop(shell.stdin.take());
        let _ = shell.wait();
        // The shell and its subshell, and the subshell's fork before its
        // next `sleep` when this looks at that moment.
        assert!(
            matching >= 2,
            "the shell and its forked subshell: {matching}"
        );
        assert_eq!(found, vec![shell.id()], "one announcer");
    }

    /// Under a `/bin/sh` standing for nextest's runner (the run's id is in
    /// its child's environment only, as nextest does), a process of the run
    /// publishes the lines of three `.harshJudge` folders, the first twice:
    /// one announcer runs for the whole run (there was one per folder, each
    /// polling the runner), and once the runner ends it prints each folder's
    /// latest lines on the runner's standard error, in the order the folders
    /// first published, and removes the run's folder.
    #[test]
    fn one_announcer_per_run_prints_every_folders_latest_lines_in_order() {
        // Set in the process of the run that publishes: the `.harshJudge`
        // folders, one per line.
        if let Some(stores) = std::env::var_os("HJ_ANNOUNCE_TEST_STORES") {
            let stores = stores.to_string_lossy();
            let stores: Vec<&str> = stores.lines().collect();
            for (i, store) in stores.iter().enumerate() {
                announce_reports(Path::new(store), &[format!("junit: {i} first")])
                    .expect("announced");
            }
            announce_reports(Path::new(stores[0]), &["junit: 0 latest".to_string()])
                .expect("announced");
            return;
        }
        let tmp = tempfile::tempdir().expect("a folder");
        let stores: Vec<String> = ["a", "b", "c"]
            .iter()
            .map(|n| tmp.path().join(n).display().to_string())
            .collect();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .subsec_nanos();
        let run = format!("announce-{}-{nanos}", std::process::id());
        let exe = std::env::current_exe().expect("this test binary");
        let name = "server::nextest::tests::one_announcer_per_run_prints_every_folders_latest_lines_in_order";
        let mut runner = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(r#"NEXTEST_RUN_ID="$HJ_TEST_RUN" "$0" "$@" >/dev/null; echo published; read -r line"#)
            .arg(&exe)
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env("HJ_ANNOUNCE_TEST_STORES", stores.join("\n"))
            .env("HJ_TEST_RUN", &run)
            .env_remove("NEXTEST_RUN_ID")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the runner");
        // The runner says when its child, the publisher, has ended.
        let mut said = String::new();
        use std::io::BufRead;
        std::io::BufReader::new(runner.stdout.take().expect("its stdout"))
            .read_line(&mut said)
            .expect("read");
        assert_eq!(said, "published\n");
        // The run's one folder.
        let folder = RunFolder::lock("reports", &run, &[]).expect("the run's folder");
        let dir = folder.path().to_path_buf();
        drop(folder);
        let published = std::fs::read_dir(&dir)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.file_name().to_string_lossy().ends_with(".lines"))
                    .count()
            })
            .unwrap_or(0);
        assert_eq!(published, 3, "every folder's lines in {}", dir.display());
        let found = announcers(&run);
        assert_eq!(found.len(), 1, "one announcer: {found:?}");
        drop(runner.stdin.take());
        let mut said = String::new();
        use std::io::Read;
        runner
            .stderr
            .take()
            .expect("its stderr")
            .read_to_string(&mut said)
            .expect("read");
        let _ = runner.wait();
        let lines: Vec<&str> = said.lines().filter(|l| l.starts_with("junit: ")).collect();
        assert_eq!(
            lines,
            ["junit: 0 latest", "junit: 1 first", "junit: 2 first"],
            "{said}"
        );
        assert!(!dir.exists(), "{} is left", dir.display());
    }
}
