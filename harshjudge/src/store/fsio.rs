//! Atomic writes and file locks.

use super::StoreError;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

pub(crate) fn io_err(path: &Path, source: std::io::Error) -> StoreError {
    StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Creates `dir` and its parents.
pub(crate) fn create_dir_all(dir: &Path) -> Result<(), StoreError> {
    fs::create_dir_all(dir).map_err(|e| io_err(dir, e))
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a
/// rename, so readers see the old content or the new one, never a part.
///
/// Every file written here (and by [`write_atomic_at`], [`write_new`]) has the
/// suite's declared secrets masked ([`crate::secrets::mask_file`]): the one
/// place text reaches `.harshJudge/`. Only [`write_private`] writes as given.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_atomic_as_is(path, &crate::secrets::mask_file(bytes))
}

/// [`write_atomic`] of bytes already masked.
fn write_atomic_as_is(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let parent = path.parent().expect("store paths have a parent");
    let tmp = tmp_path(path);
    let attempt = |tmp: &Path| -> std::io::Result<()> {
        let mut f = File::create(tmp)?;
        f.write_all(bytes)?;
        fs::rename(tmp, path)
    };
    match attempt(&tmp) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            create_dir_all(parent)?;
            attempt(&tmp).map_err(|e| {
                let _ = fs::remove_file(&tmp);
                io_err(path, e)
            })
        }
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(io_err(path, e))
        }
    }
}

/// [`write_atomic`] for a secret: the temporary file is created with mode
/// 0600 (on Unix) before anything is written to it, so the file is never
/// readable by others, not even for a moment. Written as given, declared
/// secrets too: a saved login (`storage_state`) must sign in again.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let tmp = tmp_path(path);
    let attempt = || -> std::io::Result<()> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut f = options.open(&tmp)?;
        f.write_all(bytes)?;
        drop(f);
        fs::rename(&tmp, path)
    };
    attempt().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_err(path, e)
    })
}

/// Writes `bytes` only if `path` does not exist yet (atomic create).
/// Returns whether it wrote.
pub(crate) fn write_new(path: &Path, bytes: &[u8]) -> Result<bool, StoreError> {
    let bytes = &crate::secrets::mask_file(bytes)[..];
    let tmp = tmp_path(path);
    let mut f = File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
    f.write_all(bytes).map_err(|e| io_err(&tmp, e))?;
    drop(f);
    // hard_link fails if the target exists: first writer wins, nobody sees a partial file.
    let res = fs::hard_link(&tmp, path);
    let _ = fs::remove_file(&tmp);
    match res {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(io_err(path, e)),
    }
}

/// [`write_atomic`] of `dir/name` into a folder already open (`dir_fd`, the
/// folder at `dir`): the temporary file and the rename name only `name`'s
/// folder by its descriptor, so the kernel does not walk the whole path
/// three times. Same temporary name, same rename, same guarantee: readers
/// see the old content or the new one. On any failure the file is written
/// by [`write_atomic`] (which makes a missing folder again and names the
/// path in its error).
#[cfg(target_os = "linux")]
pub(crate) fn write_atomic_at(
    dir_fd: &rustix::fd::OwnedFd,
    dir: &Path,
    name: &str,
    bytes: &[u8],
) -> Result<(), StoreError> {
    use rustix::fs::{AtFlags, Mode, OFlags, openat, renameat, unlinkat};
    let bytes = &crate::secrets::mask_file(bytes)[..];
    if let Ok(true) = write_unnamed(dir_fd, name, bytes) {
        return Ok(());
    }
    let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = format!(".{name}.{}-{n}.tmp", pid());
    let attempt = || -> std::io::Result<()> {
        let fd = openat(
            dir_fd,
            tmp.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )?;
        let mut f = File::from(fd);
        f.write_all(bytes)?;
        drop(f);
        renameat(dir_fd, tmp.as_str(), dir_fd, name)?;
        Ok(())
    };
    match attempt() {
        Ok(()) => Ok(()),
        Err(_) => {
            let _ = unlinkat(dir_fd, tmp.as_str(), AtFlags::empty());
            write_atomic_as_is(&dir.join(name), bytes)
        }
    }
}

/// Writes `bytes` into an unnamed file of the folder (`O_TMPFILE`), then
/// gives it `name` (`linkat`): like a temporary file and a rename, readers
/// see no file or the whole one, and a process killed meanwhile leaves
/// nothing behind; the kernel does less (no temporary name to make, look up
/// and move). Only for a name not taken: `Ok(false)` when `name` exists or
/// the system cannot (no `O_TMPFILE` on that file system, no way to link the
/// file), and the caller writes the usual way.
#[cfg(target_os = "linux")]
fn write_unnamed(dir_fd: &rustix::fd::OwnedFd, name: &str, bytes: &[u8]) -> std::io::Result<bool> {
    use rustix::fs::{AtFlags, Mode, OFlags, linkat, openat};
    use rustix::io::Errno;
    use std::os::fd::AsRawFd;
    static UNSUPPORTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if UNSUPPORTED.load(Ordering::Relaxed) {
        return Ok(false);
    }
    let fd = match openat(
        dir_fd,
        ".",
        OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    ) {
        Ok(fd) => fd,
        Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL) => {
            UNSUPPORTED.store(true, Ordering::Relaxed);
            return Ok(false);
        }
        Err(e) => return Err(e.into()),
    };
    let mut f = File::from(fd);
    f.write_all(bytes)?;
    match linkat(&f, "", dir_fd, name, AtFlags::EMPTY_PATH) {
        Ok(()) => Ok(true),
        Err(Errno::EXIST) => Ok(false),
        // Linking a descriptor needs a capability most users lack: the same
        // file through `/proc`.
        Err(Errno::NOENT | Errno::PERM | Errno::ACCESS) => {
            let proc = format!("/proc/self/fd/{}", f.as_raw_fd());
            match linkat(
                rustix::fs::CWD,
                proc.as_str(),
                dir_fd,
                name,
                AtFlags::SYMLINK_FOLLOW,
            ) {
                Ok(()) => Ok(true),
                Err(Errno::EXIST) => Ok(false),
                Err(_) => {
                    UNSUPPORTED.store(true, Ordering::Relaxed);
                    Ok(false)
                }
            }
        }
        Err(_) => Ok(false),
    }
}

/// Opens the folder `{run_dir}/{step}/{evidence}` to write into (`O_PATH`),
/// making it (and `{step}`) when missing, with no link followed anywhere on
/// the way (`openat2` with `RESOLVE_NO_SYMLINKS`, from the root for the run
/// folder, then below it): the check [`Store::confine`](super::Store::confine)
/// makes, and the folders `create_dir_all` makes, in one long walk and a few
/// short ones. Also answers whether this call made the evidence folder (then
/// nothing is in it yet). `None` for anything unusual (a link, no `openat2`,
/// an error): the caller takes the usual way, which names what it found.
#[cfg(target_os = "linux")]
pub(crate) fn open_evidence_dir(
    run_dir: &Path,
    step: &str,
    evidence: &str,
) -> Option<(rustix::fd::OwnedFd, bool)> {
    use rustix::fs::{Mode, OFlags, ResolveFlags, mkdirat, openat2};
    use rustix::io::Errno;
    let open = |at: &rustix::fd::OwnedFd, rel: &str| {
        openat2(
            at,
            rel,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::NO_SYMLINKS,
        )
    };
    // The run folder, confined: one walk, with the check `Store::confine` makes.
    let run = super::Store::open_dir_confined(run_dir)?;
    let rel = format!("{step}/{evidence}");
    let mode = Mode::from_raw_mode(0o777);
    let fresh = match mkdirat(&run, step, mode) {
        // A folder this call made: no link can be in it (the run folder was
        // walked without one).
        Ok(()) => {
            mkdirat(&run, rel.as_str(), mode).ok()?;
            true
        }
        // There already: walked without following a link before anything
        // is made in it.
        Err(Errno::EXIST) => match open(&run, &rel) {
            Ok(fd) => return Some((fd, false)),
            Err(Errno::NOENT) => {
                mkdirat(&run, rel.as_str(), mode).ok()?;
                true
            }
            Err(_) => return None,
        },
        Err(_) => return None,
    };
    // Opened again without following a link, as `Store::create_dir_all`
    // checks again after making the folders: a link put in the way meanwhile.
    open(&run, &rel).ok().map(|fd| (fd, fresh))
}

/// Whether `name` in the open folder `dir_fd` is a symbolic link (`false`
/// when there is nothing of that name); `None` when that cannot be told.
#[cfg(target_os = "linux")]
pub(crate) fn is_link_at(dir_fd: &rustix::fd::OwnedFd, name: &str) -> Option<bool> {
    use rustix::fs::{AtFlags, FileType, statat};
    match statat(dir_fd, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Some(FileType::from_raw_mode(st.st_mode) == FileType::Symlink),
        Err(rustix::io::Errno::NOENT) => Some(false),
        Err(_) => None,
    }
}

/// A temporary name next to `path` that carries this process's id:
/// `.{name}.{pid}-{n}.tmp` (files and folders alike), so that what a dead
/// process left behind can be told from what a live one is writing.
pub(crate) fn tmp_path(path: &Path) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}-{n}.tmp", pid()))
}

/// This process's id, asked of the system once (a temporary name is made
/// for every file written).
fn pid() -> u32 {
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *PID.get_or_init(std::process::id)
}

/// The process id in a temporary name made by [`tmp_path`], or `None` when
/// `name` is not one.
pub(crate) fn tmp_owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, tail) = rest.rsplit_once('.')?;
    let (pid, n) = tail.split_once('-')?;
    if pid.is_empty() || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// An exclusive advisory lock on a lock file, released on drop.
pub(crate) struct LockGuard {
    file: File,
}

impl LockGuard {
    pub(crate) fn acquire(path: &Path) -> Result<Self, StoreError> {
        let open = || {
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(path)
        };
        let file = match open() {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                create_dir_all(path.parent().expect("lock paths have a parent"))?;
                open().map_err(|e| io_err(path, e))?
            }
            Err(e) => return Err(io_err(path, e)),
        };
        file.lock().map_err(|e| io_err(path, e))?;
        Ok(LockGuard { file })
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// How often the background writer rewrites one file at most.
pub(crate) const REWRITE_INTERVAL: std::time::Duration = std::time::Duration::from_millis(50);

/// A background writer for files that are rewritten often (`result.json`,
/// `skill-state.yaml` after every step). The newest content of a path replaces
/// any pending older one, and one path is rewritten at most every
/// [`REWRITE_INTERVAL`], so a burst of updates costs one file write, off the
/// caller's path; watchers still see progress within that interval. Each write
/// is atomic; [`BackgroundWriter::flush`] writes everything pending at once and
/// reports any failure.
///
/// A render may fail (the store checks, when the file is written, that no
/// link leads out of `.harshJudge/`): its error is reported like a failed write.
pub(crate) type Render = Box<dyn FnOnce() -> Result<Vec<u8>, StoreError> + Send>;

/// FNV-1a, the hasher of the writer's maps. Their keys are the store's own
/// paths, never chosen by someone who could aim at collisions, so SipHash's
/// protection buys nothing there; it cost about 6 % of a harness run, hashed
/// three times per step. Paths hash as [`Path`] does (by component), so a
/// path spelled two ways is still one key.
#[derive(Clone, Copy)]
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A map keyed by path, hashed by [`Fnv`].
type PathMap<V> = std::collections::HashMap<PathBuf, V, std::hash::BuildHasherDefault<Fnv>>;

pub(crate) struct BackgroundWriter {
    state: std::sync::Mutex<WriterState>,
    changed: std::sync::Condvar,
}

#[derive(Default)]
struct WriterState {
    /// Content waiting to be written (rendered only when written), with the
    /// earliest time it may be.
    pending: PathMap<(Render, std::time::Instant)>,
    /// When each path was last written. Only the last [`REWRITE_INTERVAL`]
    /// matters: older entries are dropped when it passes `prune_at` entries
    /// (see [`WriterState::wrote`]).
    written: PathMap<std::time::Instant>,
    /// The size of `written` that makes the next write drop its stale
    /// entries (0: [`WriterState::MIN_PRUNE_AT`]).
    prune_at: usize,
    /// Writes to do now, whatever their due time (a flush is waiting).
    urgent: bool,
    busy: bool,
    errors: Vec<StoreError>,
    /// How the writer's thread waits, so that [`BackgroundWriter::submit`]
    /// wakes it only when it must (a wake-up is a system call and a switch of
    /// threads at every step otherwise).
    sleep: Sleep,
}

impl WriterState {
    /// The smallest `prune_at`.
    const MIN_PRUNE_AT: usize = 256;

    /// Notes that `path` was just written. An entry older than
    /// [`REWRITE_INTERVAL`] gives the same due time as none, so those are
    /// dropped once `written` has grown past `prune_at` (then set to twice
    /// what is left): a process that writes ever new paths (an MCP server's
    /// runs, one after another) keeps only the recent ones, at a cost
    /// amortised over the writes.
    fn wrote(&mut self, path: PathBuf) {
        let now = std::time::Instant::now();
        if self.written.len() >= self.prune_at.max(Self::MIN_PRUNE_AT) {
            self.written
                .retain(|_, at| now.duration_since(*at) < REWRITE_INTERVAL);
            self.prune_at = (2 * self.written.len()).max(Self::MIN_PRUNE_AT);
        }
        self.written.insert(path, now);
    }
}

/// How the writer's thread waits for [`WriterState::pending`] work.
#[derive(Clone, Copy, Default)]
enum Sleep {
    /// Not waiting: it looks at what is pending before it waits again.
    #[default]
    Awake,
    /// Until this time (the earliest due write).
    Until(std::time::Instant),
    /// Until something is submitted (nothing is pending).
    Idle,
}

impl BackgroundWriter {
    /// The process-wide writer (its thread starts on first use).
    pub(crate) fn global() -> &'static BackgroundWriter {
        static WRITER: std::sync::OnceLock<&'static BackgroundWriter> = std::sync::OnceLock::new();
        WRITER.get_or_init(|| {
            let w: &'static BackgroundWriter = Box::leak(Box::new(BackgroundWriter {
                state: Default::default(),
                changed: std::sync::Condvar::new(),
            }));
            std::thread::Builder::new()
                .name("harshjudge-writer".into())
                .spawn(move || w.work())
                .expect("spawn the writer thread");
            w
        })
    }

    /// Queues `render()` to be written to `path`, replacing any pending content.
    /// Rendering (serialisation) happens on the writer's thread, only for the
    /// versions that are actually written.
    pub(crate) fn submit(&self, path: PathBuf, render: Render) {
        let mut s = self.state.lock().expect("writer lock");
        let now = std::time::Instant::now();
        let due = match s.written.get(&path) {
            Some(at) => (*at + REWRITE_INTERVAL).max(now),
            None => now,
        };
        let sleep = s.sleep;
        match s.pending.entry(path) {
            // Same due time: the writer needs no wake-up.
            std::collections::hash_map::Entry::Occupied(mut entry) => entry.get_mut().0 = render,
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert((render, due));
                // A writer that will look anyway before `due` is left alone.
                let wake = match sleep {
                    Sleep::Awake => false,
                    Sleep::Until(at) => due < at,
                    Sleep::Idle => true,
                };
                if wake {
                    self.changed.notify_all();
                }
            }
        }
    }

    /// Takes back the content still waiting to be written to `path`, unwritten
    /// (its next [`submit`](Self::submit) keeps the due time). A recorder calls
    /// it before changing a document it shares with its pending render, so
    /// that the change needs no copy of the document.
    pub(crate) fn withdraw(&self, path: &Path) {
        let taken = {
            let mut s = self.state.lock().expect("writer lock");
            s.pending.remove(path)
        };
        // Dropped outside the lock: it may free a large document.
        drop(taken);
    }

    /// Writes `render()` to `path` now, on the caller's thread, replacing any
    /// pending older content of that path (which is dropped, never written
    /// after this). Cheaper than [`submit`](Self::submit) + [`flush`](Self::flush)
    /// for one file: no hand-off to the writer thread.
    pub(crate) fn write_now(&self, path: PathBuf, render: Render) -> Result<(), StoreError> {
        let mut s = self.state.lock().expect("writer lock");
        // The writer may be writing an older version of this very path.
        while s.busy {
            s = self.changed.wait(s).expect("writer lock");
        }
        s.pending.remove(&path);
        // Holding the lock keeps the writer from starting on this path meanwhile.
        let result = render().and_then(|bytes| write_atomic(&path, &bytes));
        s.wrote(path);
        result
    }

    /// Writes everything pending now and waits for it; returns the first
    /// failure since the last flush.
    pub(crate) fn flush(&self) -> Result<(), StoreError> {
        let mut s = self.state.lock().expect("writer lock");
        while !s.pending.is_empty() || s.busy {
            s.urgent = true;
            self.changed.notify_all();
            s = self.changed.wait(s).expect("writer lock");
        }
        match s.errors.drain(..).next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn work(&self) {
        let mut s = self.state.lock().expect("writer lock");
        loop {
            let now = std::time::Instant::now();
            let next = s
                .pending
                .iter()
                .min_by_key(|(_, (_, due))| *due)
                .map(|(p, (_, due))| (p.clone(), *due));
            let Some((path, due)) = next else {
                s.urgent = false;
                s.sleep = Sleep::Idle;
                s = self.changed.wait(s).expect("writer lock");
                s.sleep = Sleep::Awake;
                continue;
            };
            if due > now && !s.urgent {
                s.sleep = Sleep::Until(due);
                s = self
                    .changed
                    .wait_timeout(s, due - now)
                    .expect("writer lock")
                    .0;
                s.sleep = Sleep::Awake;
                continue;
            }
            let (render, _) = s.pending.remove(&path).expect("pending content");
            s.busy = true;
            drop(s);
            let result = render().and_then(|bytes| write_atomic(&path, &bytes));
            s = self.state.lock().expect("writer lock");
            s.busy = false;
            s.wrote(path);
            if let Err(e) = result {
                s.errors.push(e);
            }
            if s.pending.is_empty() {
                s.urgent = false;
            }
            self.changed.notify_all();
        }
    }
}

/// The last parse of each file this process read or wrote, kept with the text
/// it came from: served only for a file whose whole text is still the same
/// (compared byte for byte on every read), so another process's change is
/// always seen. It saves parsing the same YAML again (`meta.yaml`,
/// `skill-state.yaml`), which an unoptimised build pays dearly for.
pub(crate) struct ParseCache<T> {
    /// Entries kept at most (one per file); beyond, the cache restarts empty.
    max: usize,
    parses: std::sync::Mutex<Option<Parses<T>>>,
}

/// Each file's text and its parse.
type Parses<T> = std::collections::HashMap<PathBuf, (String, std::sync::Arc<T>)>;

impl<T> ParseCache<T> {
    /// An empty cache that keeps at most `max` files' parses (beyond, it
    /// restarts empty): a process that goes through ever new files (an MCP
    /// server's runs, one after another) must not keep them all.
    pub(crate) const fn new(max: usize) -> Self {
        ParseCache {
            max,
            parses: std::sync::Mutex::new(None),
        }
    }

    /// How many files' parses are kept now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        let guard = self.parses.lock().unwrap_or_else(|e| e.into_inner());
        guard.as_ref().map_or(0, |c| c.len())
    }

    /// Remembers `value` as the parse of `text`, the content of `path`.
    pub(crate) fn remember(&self, path: &Path, text: String, value: T) -> std::sync::Arc<T> {
        let value = std::sync::Arc::new(value);
        let mut guard = self.parses.lock().unwrap_or_else(|e| e.into_inner());
        let cache = guard.get_or_insert_with(Default::default);
        if cache.len() >= self.max && !cache.contains_key(path) {
            cache.clear();
        }
        cache.insert(path.to_path_buf(), (text, value.clone()));
        value
    }

    /// The parse of `path` when its content is still exactly `text`.
    pub(crate) fn get(&self, path: &Path, text: &str) -> Option<std::sync::Arc<T>> {
        let guard = self.parses.lock().unwrap_or_else(|e| e.into_inner());
        guard
            .as_ref()?
            .get(path)
            .filter(|(t, _)| t == text)
            .map(|(_, v)| v.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 25.1: a file written into an open folder lands whole under its
    /// name, whether the name is new (an unnamed file given its name) or
    /// taken (replaced through a temporary file and a rename), with the mode
    /// `File::create` gives, and nothing else is left in the folder.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_file_written_into_an_open_folder_lands_whole_and_alone() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let fd = rustix::fs::open(
            tmp.path(),
            rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY,
            rustix::fs::Mode::empty(),
        )
        .unwrap();
        std::fs::write(tmp.path().join("created.txt"), b"x").unwrap();
        let mode = |name: &str| {
            std::fs::metadata(tmp.path().join(name))
                .unwrap()
                .permissions()
                .mode()
        };
        write_atomic_at(&fd, tmp.path(), "new.json", b"{\"a\": 1}").unwrap();
        assert_eq!(
            std::fs::read(tmp.path().join("new.json")).unwrap(),
            b"{\"a\": 1}"
        );
        assert_eq!(mode("new.json"), mode("created.txt"));
        write_atomic_at(&fd, tmp.path(), "new.json", b"[]").unwrap();
        assert_eq!(std::fs::read(tmp.path().join("new.json")).unwrap(), b"[]");
        assert_eq!(mode("new.json"), mode("created.txt"));
        let mut names: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["created.txt", "new.json"]);
    }

    /// A process that writes ever new paths now (an MCP server, run after
    /// run) kept every path it ever wrote in `written`: it grew without end.
    #[test]
    fn the_writer_forgets_paths_written_longer_ago_than_the_rewrite_interval() {
        let tmp = tempfile::tempdir().unwrap();
        let writer = BackgroundWriter {
            state: Default::default(),
            changed: std::sync::Condvar::new(),
        };
        for batch in 0..5 {
            for i in 0..200 {
                let path = tmp.path().join(format!("{batch}-{i}.json"));
                writer
                    .write_now(path.clone(), Box::new(|| Ok(b"{}".to_vec())))
                    .unwrap();
                assert_eq!(std::fs::read(&path).unwrap(), b"{}");
            }
            std::thread::sleep(REWRITE_INTERVAL + std::time::Duration::from_millis(10));
        }
        let s = writer.state.lock().unwrap();
        assert!(
            s.written.len() <= 2 * WriterState::MIN_PRUNE_AT,
            "{} paths remembered after 1000 writes",
            s.written.len()
        );
        // A path written within the interval is still remembered, so its next
        // background write still waits for its due time.
        assert!(s.written.contains_key(&tmp.path().join("4-199.json")));
    }
}
