//! Atomic writes and file locks.
//!
//! Every file of `.harshJudge/` is written one way ([`Folder::write`]): a
//! temporary file made new in the file's own folder, held open as a
//! descriptor, then given its name by a rename (or a hard link for a file
//! written only if new), both relative to that descriptor (`openat`,
//! `renameat`, `linkat`: POSIX, the same on every Unix). How the folder is
//! reached is the caller's: a run's folder is opened once, no link followed,
//! when the run is made ([`Store::run_folder`](super::Store::run_folder)),
//! and its step and evidence folders below it with `O_NOFOLLOW`; other files
//! open their folder by path after [`Store::confine`](super::Store::confine)
//! checked it.

use super::StoreError;
use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;
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
/// rename, so readers see the old content or the new one, never a part; the
/// folder is made when missing. Whether a link is on the way to `path` is the
/// caller's check ([`Store::confine`](super::Store::confine)); the rename
/// replaces a link at the name itself, never writes where it points.
///
/// Every file written here (and by [`write_new`], [`Folder::write_atomic`],
/// [`Folder::write_new`]) has the suite's declared secrets masked
/// ([`harshjudge_browser::secrets::mask_file`]): the one place text reaches
/// `.harshJudge/`. Only [`write_private`] writes as given.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let bytes = &harshjudge_browser::secrets::mask_file(bytes)[..];
    write_in_parent(path, bytes, Finish::Replace, PLAIN).map(|_| ())
}

/// [`write_atomic`] for a secret: the temporary file is created with mode
/// 0600 before anything is written to it, so the file is never readable by
/// others, not even for a moment. Written as given, declared secrets too: a
/// saved login (`storage_state`) must sign in again.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_in_parent(path, bytes, Finish::Replace, PRIVATE).map(|_| ())
}

/// Writes `bytes` only if `path` does not exist yet (atomic create).
/// Returns whether it wrote.
pub(crate) fn write_new(path: &Path, bytes: &[u8]) -> Result<bool, StoreError> {
    let bytes = &harshjudge_browser::secrets::mask_file(bytes)[..];
    write_in_parent(path, bytes, Finish::IfNew, PLAIN)
}

/// [`Folder::write`] into `path`'s folder, opened by its path (made first
/// when missing).
pub(crate) fn write_in_parent(
    path: &Path,
    bytes: &[u8],
    finish: Finish,
    file: NewFile,
) -> Result<bool, StoreError> {
    let parent = path.parent().expect("store paths have a parent");
    let name = path.file_name().expect("store paths name a file");
    let folder = match Folder::open(parent) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            create_dir_all(parent)?;
            Folder::open(parent).map_err(|e| io_err(parent, e))?
        }
        Err(e) => return Err(io_err(parent, e)),
    };
    folder
        .write(name, bytes, finish, file)
        .map_err(|e| io_err(path, e))
}

/// How a temporary file takes its name.
#[derive(Clone, Copy)]
pub(crate) enum Finish {
    /// A rename: it replaces what has that name (a link there included,
    /// never followed).
    Replace,
    /// A hard link, which fails if the name is taken: the first writer
    /// wins, nobody sees a partial file.
    IfNew,
}

/// The temporary file's mode and whether its bytes are synced to the disk
/// before it is named.
#[derive(Clone, Copy)]
pub(crate) struct NewFile {
    /// The mode it is created with (the umask applies).
    pub(crate) mode: Mode,
    /// `fsync` before it is named (a blob: every later run links to it).
    pub(crate) sync: bool,
}

/// What `File::create` makes.
pub(crate) const PLAIN: NewFile = NewFile {
    mode: Mode::from_bits_retain(0o666),
    sync: false,
};

/// Readable by its owner only, from its first byte.
const PRIVATE: NewFile = NewFile {
    mode: Mode::from_bits_retain(0o600),
    sync: false,
};

/// A folder of `.harshJudge/` held open: files are made, named and looked up
/// relative to its descriptor, so the path to it is walked once, when it is
/// opened, not at every write.
#[derive(Debug)]
pub(crate) struct Folder {
    fd: OwnedFd,
    path: PathBuf,
}

impl Folder {
    /// Opens the folder at `path` as it is (a link on the way is followed:
    /// the caller confined `path` first, or it lies outside the store).
    pub(crate) fn open(path: &Path) -> std::io::Result<Folder> {
        let fd = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Folder {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// The folder's path (for messages).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The folder `name` in this one, opened without following a link
    /// (`O_NOFOLLOW | O_DIRECTORY`), made first when `make` and missing.
    /// Also answers whether this call made it (then nothing is in it yet).
    /// A link there is refused as [`StoreError::Link`], naming it, with
    /// `target` (the path being read or written) as the refused path.
    pub(crate) fn sub(
        &self,
        name: &str,
        make: bool,
        target: &Path,
    ) -> Result<(Folder, bool), StoreError> {
        let path = self.path.join(name);
        let made = make
            && match rustix::fs::mkdirat(&self.fd, name, Mode::from_bits_retain(0o777)) {
                Ok(()) => true,
                Err(Errno::EXIST) => false,
                Err(e) => return Err(io_err(&path, e.into())),
            };
        match rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => Ok((Folder { fd, path }, made)),
            Err(e) => Err(self.refusal(name, e, path, target)),
        }
    }

    /// The error for `name` that could not be opened: a link there (told
    /// apart without following it: systems answer `O_NOFOLLOW` on a link
    /// with `ELOOP`, `EMLINK` or `ENOTDIR`), or the system's answer.
    fn refusal(&self, name: &str, e: Errno, at: PathBuf, target: &Path) -> StoreError {
        if e != Errno::NOENT && self.is_link(name) {
            StoreError::Link {
                path: target.to_path_buf(),
                link: at,
            }
        } else {
            io_err(&at, e.into())
        }
    }

    /// Whether `name` in this folder is a symbolic link (not followed).
    pub(crate) fn is_link(&self, name: &str) -> bool {
        rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|st| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink
        })
    }

    /// Refuses `name` when it is a link ([`StoreError::Link`], named by its
    /// path in this folder).
    pub(crate) fn refuse_link(&self, name: &str) -> Result<(), StoreError> {
        if self.is_link(name) {
            let at = self.path.join(name);
            return Err(StoreError::Link {
                path: at.clone(),
                link: at,
            });
        }
        Ok(())
    }

    /// [`write_atomic`] of `name` in this folder.
    pub(crate) fn write_atomic(&self, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let bytes = &harshjudge_browser::secrets::mask_file(bytes)[..];
        self.write(name, bytes, Finish::Replace, PLAIN)
            .map(|_| ())
            .map_err(|e| io_err(&self.path.join(name), e))
    }

    /// The one write of the store: `bytes` into a temporary file made new
    /// in this folder ([`tmp_name`]; `O_EXCL | O_NOFOLLOW`, so nothing
    /// there is followed or reused), then given `name` ([`Finish`]).
    /// Answers whether `name` was written (`false`: [`Finish::IfNew`] found
    /// it taken). Nothing is left behind but the file itself.
    pub(crate) fn write(
        &self,
        name: impl AsRef<std::ffi::OsStr>,
        bytes: &[u8],
        finish: Finish,
        file: NewFile,
    ) -> std::io::Result<bool> {
        let name = name.as_ref();
        let tmp = tmp_name(name);
        let fd = rustix::fs::openat(
            &self.fd,
            tmp.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            file.mode,
        )?;
        let mut f = File::from(fd);
        let written = f
            .write_all(bytes)
            .and_then(|()| if file.sync { f.sync_all() } else { Ok(()) });
        drop(f);
        let named = written.and_then(|()| match finish {
            Finish::Replace => rustix::fs::renameat(&self.fd, tmp.as_str(), &self.fd, name)
                .map(|()| true)
                .map_err(Into::into),
            Finish::IfNew => {
                match rustix::fs::linkat(&self.fd, tmp.as_str(), &self.fd, name, AtFlags::empty()) {
                    Ok(()) => Ok(true),
                    Err(Errno::EXIST) => Ok(false),
                    Err(e) => Err(e.into()),
                }
            }
        });
        // Left behind unless renamed: a failure, or the link's source.
        if !matches!((&named, finish), (Ok(true), Finish::Replace)) {
            let _ = rustix::fs::unlinkat(&self.fd, tmp.as_str(), AtFlags::empty());
        }
        named
    }

    /// Links the file at `source` (a path) into this folder as `name`,
    /// through a temporary name and a rename, as [`Folder::write`] names a
    /// file. `whole` looks at the linked file (not following a link) before
    /// it is named: `false` removes it and answers `Ok(false)`.
    pub(crate) fn link_from(
        &self,
        source: &Path,
        name: &str,
        whole: impl FnOnce(&rustix::fs::Stat) -> bool,
    ) -> Result<bool, LinkFailed> {
        let tmp = tmp_name(name.as_ref());
        rustix::fs::linkat(
            rustix::fs::CWD,
            source,
            &self.fd,
            tmp.as_str(),
            AtFlags::empty(),
        )
        .map_err(|e| LinkFailed::Link(e.into()))?;
        let keep = rustix::fs::statat(&self.fd, tmp.as_str(), AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|st| whole(&st));
        let named = if keep {
            rustix::fs::renameat(&self.fd, tmp.as_str(), &self.fd, name)
                .map(|()| true)
                .map_err(|e| LinkFailed::Name(e.into()))
        } else {
            Ok(false)
        };
        if !matches!(named, Ok(true)) {
            let _ = rustix::fs::unlinkat(&self.fd, tmp.as_str(), AtFlags::empty());
        }
        named
    }

    /// Whether this folder was removed while held open (no name links to
    /// it any more).
    pub(crate) fn is_removed(&self) -> bool {
        rustix::fs::fstat(&self.fd).is_ok_and(|st| st.st_nlink == 0)
    }

    /// This folder, now at `path` (renamed there while held open).
    pub(crate) fn moved_to(self, path: PathBuf) -> Folder {
        Folder { fd: self.fd, path }
    }
}

/// Why [`Folder::link_from`] failed.
pub(crate) enum LinkFailed {
    /// The hard link could not be made (no source, too many links, no
    /// links on this file system).
    Link(std::io::Error),
    /// It was made, but not renamed to its name.
    Name(std::io::Error),
}

/// A temporary name next to `path` that carries this process's id:
/// `.{name}.{pid}-{n}.tmp` (files and folders alike), so that what a dead
/// process left behind can be told from what a live one is writing.
pub(crate) fn tmp_path(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or(std::ffi::OsStr::new("file"));
    path.with_file_name(tmp_name(name))
}

/// The temporary name of [`tmp_path`] for a file named `name`.
fn tmp_name(name: &std::ffi::OsStr) -> String {
    let name = name.to_str().unwrap_or("file");
    let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(".{name}.{}-{n}.tmp", pid())
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

    /// A folder held open knows when it was removed, not when it was only
    /// renamed: a failed link into it says which of its causes it was.
    #[test]
    fn a_held_folder_knows_it_was_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("held");
        std::fs::create_dir(&dir).unwrap();
        let folder = Folder::open(&dir).unwrap();
        assert!(!folder.is_removed());
        std::fs::rename(&dir, tmp.path().join("moved")).unwrap();
        assert!(!folder.is_removed());
        std::fs::remove_dir(tmp.path().join("moved")).unwrap();
        assert!(folder.is_removed());
    }

    /// A file written lands whole under its name, whether the name is new
    /// or taken (replaced), with the mode `File::create` gives (a secret's:
    /// 0600), in a folder made when missing; `write_new` leaves a taken name
    /// alone; nothing else is left in the folder.
    #[test]
    fn a_file_written_lands_whole_and_alone() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("made");
        let mode = |name: &str| {
            std::fs::metadata(dir.join(name))
                .unwrap()
                .permissions()
                .mode()
        };
        write_atomic(&dir.join("new.json"), b"{\"a\": 1}").unwrap();
        assert_eq!(std::fs::read(dir.join("new.json")).unwrap(), b"{\"a\": 1}");
        std::fs::write(dir.join("created.txt"), b"x").unwrap();
        assert_eq!(mode("new.json"), mode("created.txt"));
        let folder = Folder::open(&dir).unwrap();
        folder.write_atomic("new.json", b"[]").unwrap();
        assert_eq!(std::fs::read(dir.join("new.json")).unwrap(), b"[]");
        assert_eq!(mode("new.json"), mode("created.txt"));
        assert!(write_new(&dir.join("once.txt"), b"1").unwrap());
        assert!(!write_new(&dir.join("once.txt"), b"2").unwrap());
        assert_eq!(std::fs::read(dir.join("once.txt")).unwrap(), b"1");
        write_private(&dir.join("secret.json"), b"s").unwrap();
        assert_eq!(mode("secret.json") & 0o777, 0o600);
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["created.txt", "new.json", "once.txt", "secret.json"]
        );
    }

    /// A link at the name is replaced by the rename (or left alone by
    /// `write_new`), never written through; a link in place of a folder
    /// is refused by `Folder::sub`, naming it, and nothing is made where it
    /// points.
    #[test]
    fn a_link_is_never_written_through() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("target.txt");
        std::fs::write(&target, b"outside").unwrap();
        let link = tmp.path().join("link.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(!write_new(&link, b"new").unwrap());
        write_atomic(&link, b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"outside");
        assert!(!std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read(&link).unwrap(), b"new");
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, tmp.path().join("sub")).unwrap();
        let folder = Folder::open(tmp.path()).unwrap();
        let at = tmp.path().join("sub");
        for make in [false, true] {
            match folder.sub("sub", make, &at.join("x")) {
                Err(StoreError::Link { link, .. }) => assert_eq!(link, at),
                other => panic!("a link to a folder was opened: {other:?}"),
            }
        }
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
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
