//! A folder shared by the processes of one cargo-nextest run.
//!
//! nextest runs every scenario in a process of its own; what the run shares
//! (the `WebServer`, the report lines printed after nextest's summary, and
//! later the browser) is found through a folder named by the run's id:
//! `harshjudge-{what}-{NEXTEST_RUN_ID}-{key}` in the temporary folder, where
//! `key` hashes what must be equal for two processes to share (the test
//! binary, the command, the `.harshJudge` folder …).
//!
//! [`RunFolder::lock`] creates the folder (mode 0700, never through a link
//! planted in the temporary folder) and holds its `lock` file (`flock`) until
//! the value is dropped, so the first process decides and the others read
//! what it published ([`RunFolder::publish`]: written whole or not at all).

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::Digest;

/// `NEXTEST_RUN_ID` when it is a valid id (it becomes part of a path).
pub fn run_id() -> Option<String> {
    valid_run_id(&std::env::var("NEXTEST_RUN_ID").ok()?)
}

/// The pid of cargo-nextest's runner for this process: what the run shares
/// (its server, its Chromium, its reports' lines, a fixture's teardown)
/// lives as long as that process. A test process is the runner's child,
/// unless a target runner runs it (`CARGO_TARGET_<TRIPLE>_RUNNER`, a
/// `[scripts.wrapper]`, `/usr/bin/time` …): then its parent is that wrapper,
/// which ends with the test, and taking it for the runner stopped the run's
/// Chromium under every other scenario. nextest puts `NEXTEST_RUN_ID` in
/// what it starts, not in its own environment: the runner is the nearest
/// ancestor without this run's id (or whose environment cannot be read).
/// `None`: this process has no parent.
pub fn nextest_runner() -> Option<u32> {
    let parent = rustix::process::getppid()?.as_raw_nonzero().get() as u32;
    let Some(run) = std::env::var_os("NEXTEST_RUN_ID") else {
        return Some(parent);
    };
    Some(runner_above(parent, run.as_encoded_bytes(), &|pid| {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        Some((environ, stat))
    }))
}

/// At most this many wrappers between nextest's runner and a test.
const WRAPPERS: usize = 16;

/// The first of `pid` and its ancestors whose environment does not hold
/// `NEXTEST_RUN_ID=run` (`read`: a process's `/proc` environ and stat).
fn runner_above(mut pid: u32, run: &[u8], read: &dyn Fn(u32) -> Option<(Vec<u8>, String)>) -> u32 {
    let wanted = [b"NEXTEST_RUN_ID=".as_slice(), run].concat();
    for _ in 0..WRAPPERS {
        let Some((environ, stat)) = read(pid) else {
            return pid;
        };
        if !environ.split(|b| *b == 0).any(|v| v == wanted.as_slice()) {
            return pid;
        }
        // `pid (comm) state ppid …`: comm may hold spaces and parentheses.
        let ppid = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        match ppid {
            Some(p) if p > 1 => pid = p,
            _ => return pid,
        }
    }
    pid
}

fn valid_run_id(id: &str) -> Option<String> {
    let valid = !id.is_empty()
        && id.len() <= 64
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    valid.then(|| id.to_string())
}

/// Why the run's shared folder could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RunFolderError {
    /// Creating, locking, reading or writing in it failed.
    #[error("{what} ({}): {source}", path.display())]
    Io {
        /// What was being done ("the run's folder", "the run's lock", …).
        what: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Its name is taken by a file or a link (never followed).
    #[error(
        "{} is not a folder (a file or a link has its name): remove it and run again",
        path.display()
    )]
    NotAFolder {
        /// The folder's path.
        path: PathBuf,
    },
}

impl RunFolderError {
    /// What was being done, for an error that has its own words for it.
    pub fn what(&self) -> &'static str {
        match self {
            RunFolderError::Io { what, .. } => what,
            RunFolderError::NotAFolder { .. } => "the run's folder",
        }
    }

    /// As an I/O error that still says which file and why.
    pub fn into_io(self) -> std::io::Error {
        match self {
            RunFolderError::Io { path, source, .. } => {
                std::io::Error::new(source.kind(), format!("{}: {source}", path.display()))
            }
            not_a_folder => std::io::Error::other(not_a_folder.to_string()),
        }
    }
}

/// The locked folder of one thing a nextest run shares.
#[derive(Debug)]
pub struct RunFolder {
    dir: PathBuf,
    /// Held for as long as the value lives: the other processes of the run
    /// wait in [`RunFolder::lock`] meanwhile.
    _lock: std::fs::File,
}

impl RunFolder {
    /// Opens (creating it) and locks the folder of `what` for run `run`;
    /// `key_parts` are what the processes sharing it have in common.
    pub fn lock(what: &str, run: &str, key_parts: &[&[u8]]) -> Result<RunFolder, RunFolderError> {
        Self::lock_in(&std::env::temp_dir(), what, run, key_parts)
    }

    /// [`RunFolder::lock`] under a short name, `hj-{what}-{key}`, the run
    /// being one of the key's parts: for a folder that holds Unix sockets,
    /// whose paths may not exceed 107 bytes (a browser's `SingletonSocket` in
    /// its `TMPDIR`, 46 bytes below it; a nextest run id alone is 36), in the
    /// temporary folder or, when that is too long for them, in `/tmp`
    /// ([`super::browser_temp_dir`]).
    pub fn lock_short(
        what: &str,
        run: &str,
        key_parts: &[&[u8]],
    ) -> Result<RunFolder, RunFolderError> {
        Self::lock_path(Self::short_path(what, run, key_parts))
    }

    /// The folder [`RunFolder::lock_short`] locks.
    pub fn short_path(what: &str, run: &str, key_parts: &[&[u8]]) -> PathBuf {
        let mut parts = vec![run.as_bytes()];
        parts.extend_from_slice(key_parts);
        let name = format!("hj-{what}-{}", key(&parts));
        super::browser_temp_dir(&name).join(name)
    }

    fn lock_in(
        parent: &Path,
        what: &str,
        run: &str,
        key_parts: &[&[u8]],
    ) -> Result<RunFolder, RunFolderError> {
        Self::lock_path(parent.join(format!("harshjudge-{what}-{run}-{}", key(key_parts))))
    }

    pub fn lock_path(dir: PathBuf) -> Result<RunFolder, RunFolderError> {
        let io = |what, path: &Path, source| RunFolderError::Io {
            what,
            path: path.to_path_buf(),
            source,
        };
        {
            use std::os::unix::fs::DirBuilderExt;
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io("the run's folder", &dir, e)),
            }
        }
        let meta = std::fs::symlink_metadata(&dir).map_err(|e| io("the run's folder", &dir, e))?;
        if !meta.is_dir() {
            return Err(RunFolderError::NotAFolder { path: dir });
        }
        let lock_path = dir.join("lock");
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| io("the run's lock", &lock_path, e))?;
        rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| io("the run's lock", &lock_path, e.into()))?;
        Ok(RunFolder { dir, _lock: lock })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// What was published as `name`, if anything was.
    pub fn read(&self, name: &str) -> Option<Vec<u8>> {
        std::fs::read(self.dir.join(name)).ok()
    }

    /// Publishes `bytes` as `name`: a reader sees the whole of it or the
    /// previous content, never a part.
    pub fn publish(&self, name: &str, bytes: &[u8]) -> Result<(), RunFolderError> {
        let path = self.dir.join(name);
        let tmp = self.dir.join(format!("{name}.tmp"));
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        };
        write().map_err(|source| RunFolderError::Io {
            what: "the run's shared state",
            path,
            source,
        })
    }
}

/// The first 8 bytes of the SHA-256 of the parts (each ended by a NUL), in hex.
pub fn key(parts: &[&[u8]]) -> String {
    let mut hash = sha2::Sha256::new();
    for part in parts {
        hash.update(part);
        hash.update([0]);
    }
    hash.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_that_are_not_path_safe_are_refused() {
        assert_eq!(valid_run_id("0b1c-22ff").as_deref(), Some("0b1c-22ff"));
        for bad in ["", "../x", "a/b", "a b", &"x".repeat(65)] {
            assert_eq!(valid_run_id(bad), None, "{bad:?}");
        }
    }

    /// A fake /proc: pid → (environment, stat line).
    fn procs(list: &[(u32, &str, u32)]) -> impl Fn(u32) -> Option<(Vec<u8>, String)> {
        let list: Vec<(u32, Vec<u8>, String)> = list
            .iter()
            .map(|(pid, env, ppid)| {
                let env = env.replace(' ', "\0").into_bytes();
                (
                    *pid,
                    env,
                    format!("{pid} (sh (x) y) S {ppid} {pid} {pid} 0"),
                )
            })
            .collect();
        move |pid| {
            list.iter()
                .find(|(p, ..)| *p == pid)
                .map(|(_, e, s)| (e.clone(), s.clone()))
        }
    }

    #[test]
    fn nextests_runner_is_the_first_ancestor_without_the_runs_id() {
        // nextest (10) → a target runner (20) → a shell it started (30) → the test.
        let read = procs(&[
            (10, "HOME=/root NEXTEST_RUN_ID=other", 5),
            (20, "NEXTEST_RUN_ID=r1 HOME=/root", 10),
            (30, "A=1 NEXTEST_RUN_ID=r1", 20),
        ]);
        assert_eq!(runner_above(30, b"r1", &read), 10);
        // No wrapper: the parent is the runner.
        assert_eq!(runner_above(10, b"r1", &read), 10);
        // A prefix of the id is not the id.
        assert_eq!(runner_above(20, b"r", &read), 20);
        // An ancestor that cannot be read (gone, another user's) ends the walk.
        assert_eq!(runner_above(40, b"r1", &read), 40);
        // So does init, and a loop of wrappers is bounded.
        let looped = procs(&[(7, "NEXTEST_RUN_ID=r1", 8), (8, "NEXTEST_RUN_ID=r1", 7)]);
        assert!([7, 8].contains(&runner_above(7, b"r1", &looped)));
        let to_init = procs(&[(9, "NEXTEST_RUN_ID=r1", 1)]);
        assert_eq!(runner_above(9, b"r1", &to_init), 9);
    }

    #[test]
    fn the_key_separates_its_parts() {
        assert_ne!(key(&[b"ab", b"c"]), key(&[b"a", b"bc"]));
        assert_eq!(key(&[b"ab", b"c"]), key(&[b"ab", b"c"]));
        assert_eq!(key(&[b"x"]).len(), 16);
    }

    #[test]
    fn a_short_folder_is_named_by_a_key_of_the_run_and_the_parts() {
        let uuid = "0b1c22ff-0b1c-22ff-0b1c-22ff0b1c22ff";
        let a = RunFolder::lock_short("thing", uuid, &[b"k"]).unwrap();
        let name = a.path().file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name, format!("hj-thing-{}", key(&[uuid.as_bytes(), b"k"])));
        let other_run = RunFolder::lock_short("thing", "run2", &[b"k"]).unwrap();
        assert_ne!(a.path(), other_run.path());
        for f in [a.path().to_path_buf(), other_run.path().to_path_buf()] {
            std::fs::remove_dir_all(f).unwrap();
        }
    }

    #[test]
    fn a_planted_link_is_refused_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let name = format!("harshjudge-thing-run1-{}", key(&[b"k"]));
        std::os::unix::fs::symlink(elsewhere.path(), tmp.path().join(&name)).unwrap();
        let err = RunFolder::lock_in(tmp.path(), "thing", "run1", &[b"k"]).unwrap_err();
        assert!(matches!(err, RunFolderError::NotAFolder { .. }), "{err}");
        assert!(err.to_string().contains("remove it"), "{err}");
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }

    #[test]
    fn the_second_holder_waits_and_reads_what_the_first_published() {
        let tmp = tempfile::tempdir().unwrap();
        let first = RunFolder::lock_in(tmp.path(), "thing", "run1", &[b"k"]).unwrap();
        assert_eq!(first.read("state.json"), None);
        let parent = tmp.path().to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        let second = std::thread::spawn(move || {
            let folder = RunFolder::lock_in(&parent, "thing", "run1", &[b"k"]).unwrap();
            tx.send(()).unwrap();
            folder.read("state.json")
        });
        // The second is held by the lock while the first decides.
        assert!(
            rx.recv_timeout(std::time::Duration::from_millis(300))
                .is_err()
        );
        first.publish("state.json", b"{\"port\":1}").unwrap();
        drop(first);
        assert_eq!(
            second.join().unwrap().as_deref(),
            Some(&b"{\"port\":1}"[..])
        );
        let mode = std::fs::metadata(
            tmp.path()
                .join(format!("harshjudge-thing-run1-{}", key(&[b"k"]))),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(mode.permissions().mode() & 0o777, 0o700);
    }
}
