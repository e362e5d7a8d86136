//! Child processes that must not outlive the tests: chromedriver (and its
//! browsers), a Chromium spoken to directly (`browser/backend/cdp/launch.rs`)
//! and the app under test (`harshjudge::WebServer`).
//!
//! One mechanism for both:
//!
//! - the child runs in a process group of its own ([`own_group`]), and whatever
//!   it starts stays in that group;
//! - it gets `PR_SET_PDEATHSIG` ([`die_with_this_process`]), forked from a
//!   thread that lives as long as the process ([`spawn_from_keeper`]): it dies
//!   with this process, even on SIGKILL, until the watchdog runs;
//! - a watchdog (`/bin/sh`, in a group of its own so that a terminal's Ctrl-C or
//!   a test runner's group kill does not reach it first) waits for the end of
//!   its [`Watch`] and then kills the whole group and removes a folder. The
//!   end is either the end of this process (a pipe whose only writer is this
//!   process closes: normal exit, a signal, SIGKILL) or the end of another
//!   process (cargo-nextest's runner, for a server shared by a whole nextest
//!   run).
//!
//! What leaves the group on its own (Chromium's crash handler starts a session
//! of its own) is found by the environment it inherited: a driver runs with
//! its private folder as `TMPDIR`, and `kill_carrying` (at a driver's stop or
//! kill) and the watchdog's `/proc/*/environ` scan (after a SIGKILL) kill
//! whatever carries it.
//!
//! What the processes of one cargo-nextest run share (the server, the report
//! lines, later the browser) is found through a locked folder named by the
//! run: [`shared`].

pub mod shared;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

/// A shell function for the scripts that outlive a process (a watchdog, the
/// announcer of a nextest run's reports): `until_ended PID START` returns once
/// process PID, started at START (field 22 of `/proc/PID/stat`, so that a
/// reused pid is not mistaken for it), has ended: gone, or exited and not yet
/// reaped (a zombie). It looks every 0.2 s with the shell's builtins and one
/// `sleep`: one fork per look. A look that forked `cut` and `cat` as well
/// cost 13 ms of CPU on a 2-core VM (6.6 ms now), and tens of such loops at
/// once held most of a core through a test run.
pub const UNTIL_ENDED: &str = r#"until_ended() {
  while read -r s 2>/dev/null < "/proc/$1/stat"; do
    r=${s##*) }
    [ "${r%% *}" = Z ] && return
    set -f
    set -- "$1" "$2" $r
    set +f
    [ "${22}" = "$2" ] || return
    sleep 0.2
  done
}"#;

/// What the watchdog runs after [`UNTIL_ENDED`]: `$1` is the process group, `$2` a folder to remove
/// (empty: none), `$3` the pid to outlive (empty: read stdin until end of
/// file) and `$4` that pid's start time (field 22 of `/proc/PID/stat`, so that
/// a reused pid is not mistaken for it). It then kills the group, and removes
/// the folder (again after a moment, in case a dying child still wrote into it).
/// It first waits a moment for the killed group to be gone, unless this process
/// said it is (a line `gone` before its stdin closed: [`Watchdog::let_go_gone`]).
const WATCHDOG: &str = r#"trap '' INT TERM HUP QUIT PIPE
if [ -n "$3" ]; then
  until_ended "$3" "$4"
else
  while read -r line; do [ "$line" = gone ] && gone=1; done
fi
# An X server of the group (WebKit's Xvfb) is ended with TERM first: so it
# removes its lock file and socket in /tmp, which a KILL would leave there.
if [ -z "$gone" ]; then
  for s in /proc/[0-9]*/stat; do
    read -r p c st pp g rest < "$s" 2>/dev/null || continue
    if [ "$c" = "(Xvfb)" ] && [ "$g" = "$1" ]; then kill -s TERM "$p" 2>/dev/null; x="$x $p"; fi
  done
  for p in $x; do
    n=0
    while [ $n -lt 20 ] && read -r q c st rest < "/proc/$p/stat" 2>/dev/null && [ "$st" != Z ]; do
      sleep 0.05; n=$((n+1))
    done
  done
fi
kill -s KILL -- "-$1" 2>/dev/null
[ -n "$2" ] || exit 0
# What left the group but carries the folder as its TMPDIR (a browser's crash
# handler, in a session of its own) goes too. "gone": this process found the
# group empty and killed those itself (one grep per process would cost
# hundreds of milliseconds at each exit).
if [ -z "$gone" ]; then
  for e in /proc/[0-9]*/environ; do
    if grep -qzx -- "TMPDIR=$2" "$e" 2>/dev/null; then p=${e%/environ}; kill -s KILL "${p#/proc/}" 2>/dev/null; fi
  done
  sleep 0.1
fi
rm -rf -- "$2" 2>/dev/null
if [ -e "$2" ]; then sleep 0.5; rm -rf -- "$2"; fi
"#;

/// What a watchdog waits for before it kills its group.
#[derive(Clone, Copy, Debug)]
pub enum Watch {
    /// The end of this process (or an explicit [`Watchdog::release`]).
    ThisProcess,
    /// The end of the process `pid` (e.g. cargo-nextest's runner).
    Process(u32),
}

/// A running watchdog of one process group.
pub struct Watchdog {
    child: Child,
}

/// Where a browser's folder named `name` (or as long) is made (its profile,
/// and the `TMPDIR` it is given): the system's temporary folder, unless the
/// Unix sockets a browser makes under its `TMPDIR` would not fit there, then
/// `/tmp`. Chromium's singleton socket is
/// `<folder>/org.chromium.Chromium.XXXXXX/SingletonSocket` (46 bytes more), and
/// a socket's path is at most 107 bytes: past that Chromium stops at its start
/// ("Socket path too long"), as it did under a TMPDIR such as macOS's
/// `/var/folders/…/T/`.
pub fn browser_temp_dir(name: &str) -> std::path::PathBuf {
    const SOCKET: usize = "/org.chromium.Chromium.XXXXXX/SingletonSocket".len();
    let tmp = std::env::temp_dir();
    if tmp.as_os_str().len() + 1 + name.len() + SOCKET <= 107 {
        tmp
    } else {
        std::path::PathBuf::from("/tmp")
    }
}

/// The start time of process `pid` (field 22 of `/proc/PID/stat`, after the
/// command name, which may hold spaces).
pub fn start_time(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    // Fields after the name start at field 3: field 22 is the 20th of these.
    after.split_whitespace().nth(19).map(str::to_string)
}

impl Watchdog {
    /// Starts the watchdog of process `group`: when `watch` ends, it kills the
    /// group and removes `folder`.
    pub fn spawn(group: u32, folder: Option<&Path>, watch: Watch) -> std::io::Result<Self> {
        use std::os::unix::process::CommandExt;
        let (pid, started) = match watch {
            Watch::ThisProcess => (String::new(), String::new()),
            Watch::Process(pid) => (
                pid.to_string(),
                start_time(pid).ok_or_else(|| {
                    std::io::Error::other(format!("process {pid} is not running"))
                })?,
            ),
        };
        let child = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("{UNTIL_ENDED}\n{WATCHDOG}"))
            .arg("harshjudge-watchdog")
            .arg(group.to_string())
            .arg(folder.map(|f| f.as_os_str()).unwrap_or_default())
            .arg(pid)
            .arg(started)
            .stdin(match watch {
                Watch::ThisProcess => Stdio::piped(),
                Watch::Process(_) => Stdio::null(),
            })
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        Ok(Watchdog { child })
    }

    /// Lets a [`Watch::ThisProcess`] watchdog act now (kill the group, remove
    /// the folder) and waits up to `wait` for it to be done; kills it after
    /// that. Returns whether it finished on its own.
    pub fn release(self, wait: std::time::Duration) -> bool {
        self.let_go().wait(wait)
    }

    /// Lets a [`Watch::ThisProcess`] watchdog act now (kill the group, remove
    /// the folder) without waiting: [`Releasing::wait`] waits for it.
    pub fn let_go(mut self) -> Releasing {
        drop(self.child.stdin.take());
        Releasing { child: self.child }
    }

    /// [`let_go`](Self::let_go) once the group was killed and has no process
    /// left, and what carried the folder as its `TMPDIR` was killed
    /// ([`kill_carrying`]): the watchdog removes the folder at once, without
    /// first giving the group a moment to die or scanning for those.
    pub fn let_go_gone(mut self) -> Releasing {
        if let Some(mut stdin) = self.child.stdin.take() {
            use std::io::Write;
            let _ = stdin.write_all(b"gone\n");
        }
        Releasing { child: self.child }
    }

    /// Leaves the watchdog running on its own (a [`Watch::Process`] one, whose
    /// end does not depend on this process).
    pub fn detach(self) {
        // Dropping a `Child` neither kills nor waits for it.
        drop(self.child);
    }
}

/// A watchdog let go ([`Watchdog::let_go`]): killing its group and removing
/// its folder.
pub struct Releasing {
    child: Child,
}

impl Releasing {
    /// Waits up to `wait` for the watchdog to be done; kills it after that.
    /// Returns whether it finished on its own.
    pub fn wait(mut self, wait: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + wait;
        while std::time::Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        false
    }
}

/// Puts the child of `cmd` in a process group of its own.
pub fn own_group(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
}

/// The child of `cmd` gets SIGKILL when the thread that forked it ends: spawn
/// it with [`spawn_from_keeper`], whose thread lives as long as the process.
pub fn die_with_this_process(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
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
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// Kills process group `group` (SIGKILL); an error when none is left is ignored.
pub fn kill_group(group: u32) {
    if let Some(pid) = rustix::process::Pid::from_raw(group as i32) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Waits up to `within` for process group `group` to have no live process
/// left (after [`kill_group`]); returns whether it has none. Zombies count as
/// gone: they run no more (whoever adopted them may reap them much later).
pub fn group_gone(group: u32, within: std::time::Duration) -> bool {
    let Some(pid) = rustix::process::Pid::from_raw(group as i32) else {
        return true;
    };
    let deadline = std::time::Instant::now() + within;
    loop {
        if rustix::process::test_kill_process_group(pid) == Err(rustix::io::Errno::SRCH)
            || !group_has_live_process(group)
        {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Kills a child started in a process group of its own ([`own_group`]) with
/// everything in its group, and what left the group but carries `folder` as
/// its `TMPDIR` (a browser's crash handler), then lets its watchdog remove
/// `folder`: at once when nothing is left ([`Watchdog::let_go_gone`]).
/// [`Releasing::wait`] waits for that.
pub fn kill_with_watchdog(child: &mut Child, watchdog: Watchdog, folder: &Path) -> Releasing {
    kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
    let entry = format!("TMPDIR={}", folder.display());
    let escaped_gone = kill_carrying(&entry, std::time::Duration::from_millis(500));
    // Once the group is gone (and what escaped it), nothing writes into the
    // folder any more: the watchdog removes it at once.
    if escaped_gone && group_gone(child.id(), std::time::Duration::from_millis(300)) {
        watchdog.let_go_gone()
    } else {
        watchdog.let_go()
    }
}

/// Whether a process of group `group` is alive (not a zombie), from `/proc`
/// (when `/proc` cannot be read, it may be).
fn group_has_live_process(group: u32) -> bool {
    processes_of_group(group).is_none_or(|mut live| live.next().is_some())
}

/// The live processes (not zombies) of process group `group`, from `/proc`;
/// `None` when `/proc` cannot be read.
pub fn processes_of_group(group: u32) -> Option<impl Iterator<Item = u32>> {
    let entries = std::fs::read_dir("/proc").ok()?;
    let mut buf = String::new();
    Some(entries.flatten().filter_map(move |entry| {
        let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
        buf.clear();
        let mut f = std::fs::File::open(format!("/proc/{pid}/stat")).ok()?;
        std::io::Read::read_to_string(&mut f, &mut buf).ok()?;
        // Fields after the name: state, ppid, pgrp.
        let mut rest = buf.rsplit_once(')')?.1.split_whitespace();
        let state = rest.next();
        let pgrp = rest.nth(1).and_then(|g| g.parse::<u32>().ok());
        (pgrp == Some(group) && !matches!(state, Some("Z" | "X"))).then_some(pid)
    }))
}

/// Kills (SIGKILL) every live process whose environment holds `entry`
/// (`NAME=value`, whole) and waits up to `within` for them to be gone;
/// returns whether none is left. For what leaves a process group on its own
/// (a browser's crash handler starts a session of its own) but inherited the
/// environment its driver was given. Not this process.
pub fn kill_carrying(entry: &str, within: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + within;
    loop {
        let found = carrying(entry);
        for pid in &found {
            if let Some(pid) = rustix::process::Pid::from_raw(*pid as i32) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
        if found.is_empty() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// The live processes (not zombies, not this one) whose environment holds `entry`.
fn carrying(entry: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let me = std::process::id();
    let mut out = Vec::new();
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me || !alive(pid) {
            continue;
        }
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        if env.split(|b| *b == 0).any(|v| v == entry.as_bytes()) {
            out.push(pid);
        }
    }
    out
}

/// Whether process `pid` exists (and is not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// Spawns `cmd` from a thread that lives as long as the process. With
/// `PR_SET_PDEATHSIG` the child dies when the thread that forked it ends, so the
/// fork must not happen on a short-lived (e.g. tokio blocking-pool) thread.
pub fn spawn_from_keeper(cmd: Command) -> std::io::Result<Child> {
    type Request = (Command, std::sync::mpsc::Sender<std::io::Result<Child>>);
    static KEEPER: Mutex<Option<std::sync::mpsc::Sender<Request>>> = Mutex::new(None);
    let tx = {
        let mut keeper = KEEPER.lock().unwrap_or_else(|p| p.into_inner());
        match keeper.as_ref() {
            Some(tx) => tx.clone(),
            None => {
                let (tx, rx) = std::sync::mpsc::channel::<Request>();
                std::thread::Builder::new()
                    .name("harshjudge-keeper".into())
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
        .map_err(|_| std::io::Error::other("the keeper thread is gone"))?;
    answer
        .recv()
        .map_err(|_| std::io::Error::other("the keeper thread is gone"))?
}

/// What a [`drain_tail`] kept so far, trimmed.
pub fn tail_text(tail: &Option<std::sync::Arc<Mutex<String>>>) -> String {
    tail.as_ref()
        .map(|t| {
            t.lock()
                .unwrap_or_else(|p| p.into_inner())
                .trim()
                .to_string()
        })
        .unwrap_or_default()
}

/// Reads a child's stderr to its end on a thread, keeping the last 4 KiB
/// (a driver's, a browser's): what it said before it exited.
pub fn drain_tail(stderr: std::process::ChildStderr) -> std::sync::Arc<Mutex<String>> {
    let tail = std::sync::Arc::new(Mutex::new(String::new()));
    let keep = tail.clone();
    let _ = std::thread::Builder::new()
        .name("harshjudge-stderr".into())
        .spawn(move || {
            use std::io::BufRead;
            let mut lines = std::io::BufReader::new(stderr);
            let mut line = String::new();
            while matches!(lines.read_line(&mut line), Ok(n) if n > 0) {
                let mut t = keep.lock().unwrap_or_else(|p| p.into_inner());
                t.push_str(&line);
                if t.len() > 4096 {
                    let cut = t.len() - 4096;
                    let cut = (cut..t.len()).find(|i| t.is_char_boundary(*i)).unwrap_or(0);
                    t.drain(..cut);
                }
                line.clear();
            }
        });
    tail
}

/// The test binary's name without cargo's `-{hash}` suffix.
pub fn binary_name() -> String {
    let exe = std::env::current_exe().ok();
    let stem = exe
        .as_deref()
        .and_then(Path::file_stem)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "suite".into());
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            name.to_string()
        }
        _ => stem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_time_of_this_process_is_read() {
        let me = std::process::id();
        let t = start_time(me).expect("own stat");
        assert!(t.parse::<u64>().is_ok(), "{t}");
        assert!(alive(me));
        assert!(start_time(u32::MAX).is_none());
    }

    /// `until_ended PID START`, started now; it exits when it returns.
    fn until_ended(pid: u32, start: &str) -> Child {
        Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("{UNTIL_ENDED}\nuntil_ended \"$1\" \"$2\""))
            .arg("until-ended")
            .arg(pid.to_string())
            .arg(start)
            .spawn()
            .expect("/bin/sh")
    }

    /// Whether `child` exits within `limit` (killed after it).
    fn ends_within(child: Child, limit: std::time::Duration) -> bool {
        Releasing { child }.wait(limit)
    }

    /// `until_ended` waits while its process runs, and returns once it is a
    /// zombie (exited, not reaped: its parent may be reading its output to
    /// the end), when its pid now names a process started at another time,
    /// and when it is gone.
    #[test]
    fn until_ended_returns_when_the_process_exits_or_its_pid_is_another_s() {
        let second = std::time::Duration::from_secs(1);
        let mut sleeper = Command::new("sleep").arg("30").spawn().expect("sleep");
        let start = start_time(sleeper.id()).expect("its start");
        let waiter = until_ended(sleeper.id(), &start);
        assert!(!ends_within(waiter, second), "returned while it ran");
        let waiter = until_ended(sleeper.id(), &start);
        sleeper.kill().expect("killed");
        // Not reaped yet: a zombie.
        assert!(ends_within(waiter, 5 * second), "waited on a zombie");
        let waiter = until_ended(sleeper.id(), "1");
        assert!(ends_within(waiter, second), "another start time");
        sleeper.wait().expect("reaped");
        let waiter = until_ended(sleeper.id(), &start);
        assert!(ends_within(waiter, second), "a pid that is gone");
    }
}
