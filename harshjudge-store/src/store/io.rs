//! Confined I/O under `.harshJudge/`, the cleaning of what dead processes
//! left, and process liveness.

use std::path::{Path, PathBuf};

use super::fsio::{self, write_atomic};
use super::ids::{RunId, Slug};
use super::types::RunStatus;
use super::{Store, StoreError};

/// Leftovers of processes that died while writing (kill -9, a crash), removed
/// at the next start.
impl Store {
    /// Removes what processes that are gone left half-written under
    /// `.harshJudge/`: temporary files and folders (`.{name}.{pid}-{n}.tmp`,
    /// made by atomic writes and run creation) whose process no longer runs,
    /// and evidence sidecars without their file in runs that are final (a
    /// kill between the sidecar and the file). Links are never followed.
    /// Returns the paths removed.
    pub fn clean_temporary_files(&self) -> Vec<PathBuf> {
        let mut removed = vec![];
        let me = std::process::id();
        let mut stack = vec![(self.dir.clone(), 0usize)];
        while let Some((dir, depth)) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in rd.flatten() {
                let Ok(kind) = e.file_type() else { continue };
                let name = e.file_name();
                let name = name.to_string_lossy();
                if let Some(pid) = fsio::tmp_owner(&name) {
                    if pid != me && !process_alive(pid, 0) {
                        let path = e.path();
                        let gone = if kind.is_dir() {
                            std::fs::remove_dir_all(&path)
                        } else {
                            std::fs::remove_file(&path)
                        };
                        if gone.is_ok() {
                            removed.push(path);
                        }
                    }
                } else if kind.is_dir() && depth < 8 {
                    stack.push((e.path(), depth + 1));
                }
            }
        }
        for slug in self.list_scenarios().unwrap_or_default() {
            for run in self.scenario(&slug).runs().unwrap_or_default() {
                removed.extend(self.remove_lone_sidecars(&slug, &run));
            }
        }
        removed.sort();
        removed
    }

    /// Sidecars without their evidence file, in a run that is final.
    fn remove_lone_sidecars(&self, slug: &Slug, run: &RunId) -> Vec<PathBuf> {
        let mut lone = vec![];
        for step in self.scenario(slug).run(run).steps().unwrap_or_default() {
            let dir = self.scenario(slug).run(run).step(&step).evidence();
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            let names: Vec<String> = rd
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            for n in &names {
                if let Some(stem) = n.strip_suffix(".meta.json")
                    && !names.iter().any(|f| {
                        !f.ends_with(".meta.json")
                            && f.strip_prefix(stem)
                                .is_some_and(|ext| ext.starts_with('.') && !ext[1..].contains('.'))
                    })
                {
                    lone.push(dir.join(n));
                }
            }
        }
        if lone.is_empty() {
            return lone;
        }
        // Only in a final run: in a running one the file may be on its way.
        match self.scenario(slug).run(run).result() {
            Ok(Some(r)) if r.status != RunStatus::Running => {}
            _ => return vec![],
        }
        lone.retain(|p| std::fs::remove_file(p).is_ok());
        lone
    }
}

/// Whether process `pid` runs and is the one that started at `started` (clock
/// ticks since boot, from /proc; 0 when unknown): a recycled pid is not alive.
pub fn process_alive(pid: u32, started: u64) -> bool {
    let Some(p) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    // Signal 0 only checks that the process exists (EPERM: it does, not ours).
    let exists = rustix::process::test_kill_process(p)
        .map_or_else(|e| e == rustix::io::Errno::PERM, |()| true);
    if !exists {
        return false;
    }
    match (started, process_start_time(pid)) {
        (0, _) | (_, None) => true,
        (a, Some(b)) => a == b,
    }
}

/// Start time of a process in clock ticks since boot (Linux `/proc/{pid}/stat`,
/// field 22); `None` elsewhere.
pub fn process_start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: skip past its end.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Writes a file atomically (temporary file + rename), creating its folder.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_atomic(path, bytes)
}

impl Store {
    /// Writes a file under `.harshJudge/` atomically, creating its folder,
    /// after checking that no symbolic link below `.harshJudge/` is on the
    /// way ([`confine`](Self::confine)). For writers outside the store
    /// (reports, checkpoints, agent files).
    pub fn write_file(&self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        self.confine(path)?;
        write_atomic(path, bytes)
    }

    /// [`confine`](Self::confine) as an `io::Error` (kind `Other`, the
    /// message names the path and the link), for the I/O primitives below.
    fn confine_io(&self, path: &Path) -> std::io::Result<()> {
        self.confine(path).map_err(std::io::Error::other)
    }

    /// Opens a file under `.harshJudge/` for reading, refusing a path that
    /// leaves the folder or passes a symbolic link ([`confine`](Self::confine)).
    pub fn open_file(&self, path: &Path) -> std::io::Result<std::fs::File> {
        self.confine_io(path)?;
        no_follow(std::fs::OpenOptions::new().read(true)).open(path)
    }

    /// Reads a whole file under `.harshJudge/` (confined, see [`open_file`](Self::open_file)).
    /// Read in chunks into the buffer's spare room, without asking the
    /// file's size first: most files read here are small, and the size costs
    /// two more calls (`statx`, `lseek`).
    pub fn read_file(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        let file = self.open_file(path)?;
        let mut bytes: Vec<u8> = Vec::with_capacity(8 * 1024);
        loop {
            if bytes.len() == bytes.capacity() {
                bytes.reserve(bytes.capacity());
            }
            match rustix::io::read(&file, rustix::buffer::spare_capacity(&mut bytes)) {
                Ok(0) => return Ok(bytes),
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Reads a UTF-8 file under `.harshJudge/` (confined).
    pub fn read_to_string(&self, path: &Path) -> std::io::Result<String> {
        String::from_utf8(self.read_file(path)?).map_err(std::io::Error::other)
    }

    /// Opens (creating it and its folder, confined) a file under
    /// `.harshJudge/` to read and append.
    pub fn append_file(&self, path: &Path) -> std::io::Result<std::fs::File> {
        if let Some(parent) = path.parent() {
            self.create_dir_all(parent)?;
        }
        self.confine_io(path)?;
        no_follow(
            std::fs::OpenOptions::new()
                .read(true)
                .append(true)
                .create(true),
        )
        .open(path)
    }

    /// Lists a folder under `.harshJudge/` (confined). The entries are not
    /// checked: read them through the store, which refuses links.
    pub fn read_dir(&self, path: &Path) -> std::io::Result<std::fs::ReadDir> {
        self.confine_io(path)?;
        std::fs::read_dir(path)
    }

    /// The metadata of a file or folder under `.harshJudge/` (confined; a
    /// link is refused, never followed).
    pub fn metadata(&self, path: &Path) -> std::io::Result<std::fs::Metadata> {
        self.confine_io(path)?;
        std::fs::symlink_metadata(path)
    }

    /// Creates a folder under `.harshJudge/` and its parents (confined).
    pub fn create_dir_all(&self, path: &Path) -> std::io::Result<()> {
        self.confine_io(path)?;
        std::fs::create_dir_all(path)?;
        // A link put in the way while the folders were made.
        self.confine_io(path)
    }

    /// Removes a file under `.harshJudge/` (confined; a link found on the
    /// way is refused, a link that is the file itself is refused too).
    pub fn remove_file(&self, path: &Path) -> std::io::Result<()> {
        self.confine_io(path)?;
        std::fs::remove_file(path)
    }
}

/// Adds `O_NOFOLLOW` on Unix: the last part of the path must not be a link
/// even if one appeared after [`Store::confine`] looked.
fn no_follow(o: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    o
}

/// Writes every file still queued in the background writer and reports the
/// first failure since the last call.
pub fn flush_writes() -> Result<(), StoreError> {
    fsio::BackgroundWriter::global().flush()
}
