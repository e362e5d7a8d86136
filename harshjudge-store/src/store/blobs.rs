//! Evidence stored once per distinct content (issue 20, point 7).
//!
//! A step's `after.png` is the next step's `before.png`, `error.png` repeats
//! `after.png`, and an unchanged screen repeats run after run. Evidence worth
//! it ([`dedupes`]) is written as a content-addressed blob
//! `.blobs/{first 2 hex}/{sha256 hex}` and the layout path is a hard link to
//! it, so every path of the layout stays a plain file (the original's tools,
//! `git`, the report read it as before) and a content is stored once.
//!
//! The rules that keep this safe:
//! - a blob appears whole: written under a temporary name, synced, then linked
//!   to its name only if that name is free (the first of several writers of the
//!   same content wins, in one process or several);
//! - a blob is never modified: a layout path is always replaced by a rename
//!   (which unlinks the old file), never rewritten in place;
//! - a layout path appears atomically: the blob is linked to a temporary name
//!   next to it, which is renamed over it;
//! - a blob whose link count is 1 (no layout path uses it) is removed by
//!   [`Store::collect_blobs`] (after retention), without losing a link made
//!   meanwhile: see there;
//! - where hard links fail (another file system, one without links, a blob
//!   with too many links), the evidence is written as a plain copy, as before,
//!   and the process says so once on stderr.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::fsio::{self, Finish, Folder, LinkFailed, NewFile, io_err};
use super::{Store, StoreError};
use harshjudge_browser::trace::ContentHash;

/// Evidence files of at least this size go through the blob store (and images
/// whatever their size); smaller ones are written as they are.
pub const BLOB_MIN_SIZE: usize = 1024;

/// Whether evidence `{name}.{ext}` of `len` bytes is stored as a blob.
pub fn dedupes(ext: &str, len: usize) -> bool {
    len >= BLOB_MIN_SIZE
        || ["png", "jpg", "jpeg", "webp", "gif"]
            .iter()
            .any(|i| ext.eq_ignore_ascii_case(i))
}

/// How many times a write starts over when its blob vanished under it (a
/// collection between making the blob and linking it), before it copies.
const ATTEMPTS: usize = 4;

/// Set once this process has said that hard links fail.
static SAID_COPY: AtomicBool = AtomicBool::new(false);

/// Says once per process that evidence is copied, not linked, and why.
fn say_copying(path: &Path, why: &dyn std::fmt::Display) {
    if !SAID_COPY.swap(true, Ordering::Relaxed) {
        eprintln!(
            "harshjudge: evidence is stored as plain copies, not hard links to one copy per \
             content ({}: {why}); .harshJudge/ will hold repeated screenshots in full",
            path.display()
        );
    }
}

/// Why a linked write did not link.
enum NoLink {
    /// Hard links do not work here: copy.
    Unsupported(std::io::Error),
    /// Any other failure, reported.
    Failed(StoreError),
}

impl Store {
    /// Writes `bytes` as `name` in `folder` (under `.harshJudge/`, already
    /// confined) atomically as a hard link to the blob of that content,
    /// making the blob if needed; falls back to a plain atomic write where
    /// hard links fail. Whatever was at `name` is replaced by a rename (never
    /// written into), so a blob another path shares is never changed.
    pub(crate) fn write_linked(
        &self,
        folder: &Folder,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), StoreError> {
        let hash = ContentHash::of(bytes);
        match self.link_blob(&hash, folder, name, bytes) {
            Ok(()) => Ok(()),
            Err(NoLink::Unsupported(e)) => {
                say_copying(&folder.path().join(name), &e);
                folder.write_atomic(name, bytes)
            }
            Err(NoLink::Failed(e)) => Err(e),
        }
    }

    /// Links the blob `hash` (of `bytes`) to `name` in `folder` through a
    /// temporary name.
    fn link_blob(
        &self,
        hash: &ContentHash,
        folder: &Folder,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), NoLink> {
        let blob = self.blob_path(hash);
        if let Err(e) = self.confine(&blob) {
            // `.blobs` is a link: never followed; copy instead.
            return Err(NoLink::Unsupported(std::io::Error::other(e)));
        }
        // A blob of another size (cut short by a crash before this version
        // synced, or changed by hand) is replaced, never used.
        let whole = |st: &rustix::fs::Stat| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile
                && st.st_size as u64 == bytes.len() as u64
        };
        for _ in 0..ATTEMPTS {
            match folder.link_from(&blob, name, whole) {
                Ok(true) => return Ok(()),
                Ok(false) => replace_blob(&blob, bytes)?,
                Err(LinkFailed::Link(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                    // The folder is gone, or the blob was (collected, and
                    // maybe made again or put back since: whether it is
                    // there now says nothing of the failed link).
                    if folder.is_removed() {
                        return Err(NoLink::Failed(io_err(&folder.path().join(name), e)));
                    }
                    put_blob(&blob, bytes)?;
                }
                Err(LinkFailed::Link(e))
                    if e.raw_os_error() == Some(rustix::io::Errno::MLINK.raw_os_error()) =>
                {
                    // As many links as the file system allows: a new blob
                    // takes the next ones (the linked files keep the old one).
                    replace_blob(&blob, bytes)?;
                }
                Err(LinkFailed::Link(e)) => return Err(NoLink::Unsupported(e)),
                Err(LinkFailed::Name(e)) => {
                    return Err(NoLink::Failed(io_err(&folder.path().join(name), e)));
                }
            }
        }
        Err(NoLink::Unsupported(std::io::Error::other(
            "its blob kept vanishing while it was being linked",
        )))
    }

    /// Removes every blob that no layout path uses any more (link count 1),
    /// and returns their paths. Run after retention removed runs
    /// ([`ScenarioDir::prune`](super::ScenarioDir::prune)); safe while other processes write:
    /// a blob is first renamed to a temporary name of this process, then its
    /// link count is read again; a writer that linked it in between (the
    /// count is above 1 now) keeps its file, and the blob is put back under
    /// its name. A writer that comes after the rename finds no blob and makes
    /// it again. Temporary files are left to
    /// [`clean_temporary_files`](Self::clean_temporary_files).
    pub fn collect_blobs(&self) -> Result<Vec<PathBuf>, StoreError> {
        let root = self.blobs_dir();
        self.confine(&root)?;
        let mut removed = vec![];
        let shards = match fs::read_dir(&root) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(removed),
            Err(e) => return Err(io_err(&root, e)),
        };
        for shard in shards.flatten() {
            if !shard.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let Ok(blobs) = fs::read_dir(shard.path()) else {
                continue;
            };
            for e in blobs.flatten() {
                let name = e.file_name();
                if name.to_string_lossy().starts_with('.') {
                    continue;
                }
                let path = e.path();
                if links(&path) == Some(1) && collect_one(&path) {
                    removed.push(path);
                }
            }
        }
        removed.sort();
        Ok(removed)
    }
}

/// The link count of a regular file (not following links), `None` for
/// anything else.
fn links(path: &Path) -> Option<u64> {
    let m = fs::symlink_metadata(path).ok()?;
    if !m.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(m.nlink())
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Removes the blob at `path` if nobody links it, even while writers link
/// it: returns whether it was removed.
fn collect_one(path: &Path) -> bool {
    let trash = fsio::tmp_path(path);
    if fs::rename(path, &trash).is_err() {
        return false;
    }
    let unused = links(&trash) == Some(1);
    if !unused {
        // Linked between the count and the rename: put it back, unless a
        // writer already made the blob again (then both hold the same bytes).
        let _ = fs::hard_link(&trash, path);
    }
    let _ = fs::remove_file(&trash);
    unused
}

/// Makes the blob `blob` with `bytes` if it does not exist: a temporary file,
/// synced (a blob is never seen empty after a crash: every later run with
/// that content would link to it), linked to the blob's name only if that is
/// free (a writer of the same content may have been first). Its folder is
/// made when missing. A failure means the blob store cannot be written (a
/// read-only or full disk fails the plain copy too, which then reports it).
fn put_blob(blob: &Path, bytes: &[u8]) -> Result<(), NoLink> {
    fsio::write_in_parent(blob, bytes, Finish::IfNew, SYNCED)
        .map(|_| ())
        .map_err(|e| NoLink::Unsupported(std::io::Error::other(e)))
}

/// Replaces a blob that is not whole by a new file of `bytes` (a rename: the
/// files linked to the bad one keep it), synced as [`put_blob`]'s.
fn replace_blob(blob: &Path, bytes: &[u8]) -> Result<(), NoLink> {
    fsio::write_in_parent(blob, bytes, Finish::Replace, SYNCED)
        .map(|_| ())
        .map_err(NoLink::Failed)
}

/// A blob's temporary file: synced before it is named.
const SYNCED: NewFile = NewFile {
    sync: true,
    ..fsio::PLAIN
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::{RunHandle, StepRecord};
    use crate::store::{EvidenceName, NewEvidence, RunId, ScenarioSpec, Slug, StepId, StepStatus};
    use std::os::unix::fs::MetadataExt;

    fn store() -> (tempfile::TempDir, Store) {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().join(".harshJudge"));
        (tmp, store)
    }

    fn ino(p: &Path) -> u64 {
        fs::symlink_metadata(p).unwrap().ino()
    }

    fn nlink(p: &Path) -> u64 {
        fs::symlink_metadata(p).unwrap().nlink()
    }

    /// A screenshot-like content of `n` bytes, different per `seed`.
    fn png(seed: u8, n: usize) -> Vec<u8> {
        (0..n).map(|i| (i as u8).wrapping_mul(7) ^ seed).collect()
    }

    fn put(store: &Store, run: &str, step: &str, name: &str, ext: &str, bytes: &[u8]) -> PathBuf {
        store
            .scenario(&Slug::new("s").unwrap())
            .run(&RunId::new(run).unwrap())
            .write_evidence(
                &StepId::new(step).unwrap(),
                NewEvidence {
                    name: &EvidenceName::new(name).unwrap(),
                    ext,
                    kind: "screenshot",
                    bytes,
                },
                Default::default(),
            )
            .unwrap()
            .path
    }

    /// Every blob file under `.blobs/` (temporary files excluded).
    fn blobs(store: &Store) -> Vec<PathBuf> {
        let mut out = vec![];
        for shard in fs::read_dir(store.blobs_dir())
            .into_iter()
            .flatten()
            .flatten()
        {
            for e in fs::read_dir(shard.path()).unwrap().flatten() {
                if !e.file_name().to_string_lossy().starts_with('.') {
                    out.push(e.path());
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn two_writes_of_the_same_content_share_one_inode() {
        let (_t, store) = store();
        let shot = png(1, 5000);
        let after = put(&store, "r1", "01", "after", "png", &shot);
        let before = put(&store, "r1", "02", "before", "png", &shot);
        let again = put(&store, "r2", "01", "after", "png", &shot);
        let blob = store.blob_path(&ContentHash::of(&shot));
        assert_eq!(ino(&after), ino(&before));
        assert_eq!(ino(&after), ino(&again));
        assert_eq!(ino(&after), ino(&blob));
        assert_eq!(nlink(&blob), 4, "three layout paths and the blob");
        assert_eq!(fs::read(&before).unwrap(), shot);
        assert_eq!(blobs(&store), [blob]);
        // A small text file is written as it is.
        let small = put(&store, "r1", "01", "log", "txt", b"tiny");
        assert_eq!(nlink(&small), 1);
        // A larger one of any kind is shared too.
        let big = vec![b'x'; BLOB_MIN_SIZE];
        let a = put(&store, "r1", "01", "big", "json", &big);
        let b = put(&store, "r2", "01", "big", "json", &big);
        assert_eq!(ino(&a), ino(&b));
        // No temporary file is left next to the evidence or in `.blobs/`.
        for dir in [after.parent().unwrap(), &store.blobs_dir()] {
            let mut stack = vec![dir.to_path_buf()];
            while let Some(d) = stack.pop() {
                for e in fs::read_dir(&d).unwrap().flatten() {
                    assert!(fsio::tmp_owner(&e.file_name().to_string_lossy()).is_none());
                    if e.file_type().unwrap().is_dir() {
                        stack.push(e.path());
                    }
                }
            }
        }
    }

    #[test]
    fn rewriting_an_evidence_path_unlinks_it_and_never_changes_the_blob() {
        let (_t, store) = store();
        let (one, two) = (png(1, 3000), png(2, 3000));
        let first = put(&store, "r1", "01", "after", "png", &one);
        let other = put(&store, "r2", "01", "after", "png", &one);
        let again = put(&store, "r1", "01", "after", "png", &two);
        assert_eq!(first, again);
        assert_eq!(fs::read(&again).unwrap(), two);
        assert_eq!(
            fs::read(&other).unwrap(),
            one,
            "the other run keeps its file"
        );
        let blob = store.blob_path(&ContentHash::of(&one));
        assert_eq!(fs::read(&blob).unwrap(), one);
        assert_eq!(nlink(&blob), 2);
    }

    #[test]
    fn a_blob_of_the_wrong_size_is_replaced_not_linked() {
        let (_t, store) = store();
        let shot = png(3, 4000);
        let blob = store.blob_path(&ContentHash::of(&shot));
        fs::create_dir_all(blob.parent().unwrap()).unwrap();
        // What a crash before the data reached the disk could leave.
        fs::write(&blob, b"").unwrap();
        let path = put(&store, "r1", "01", "after", "png", &shot);
        assert_eq!(fs::read(&path).unwrap(), shot);
        assert_eq!(fs::read(&blob).unwrap(), shot);
        assert_eq!(ino(&path), ino(&blob));
    }

    #[test]
    fn without_a_usable_blob_folder_evidence_is_copied() {
        let (t, store) = store();
        fs::create_dir_all(&store.dir).unwrap();
        // `.blobs` is a file: no blob can be made.
        fs::write(store.blobs_dir(), b"in the way").unwrap();
        let shot = png(4, 2000);
        let path = put(&store, "r1", "01", "after", "png", &shot);
        assert_eq!(fs::read(&path).unwrap(), shot);
        assert_eq!(nlink(&path), 1);
        // `.blobs` a link out of the store: never followed, copied too.
        fs::remove_file(store.blobs_dir()).unwrap();
        let outside = t.path().join("outside");
        fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, store.blobs_dir()).unwrap();
        let path = put(&store, "r1", "02", "after", "png", &shot);
        assert_eq!(fs::read(&path).unwrap(), shot);
        assert_eq!(
            fs::read_dir(&outside).unwrap().count(),
            0,
            "nothing written through the link"
        );
        assert!(store.collect_blobs().is_err(), "a link is refused");
    }

    fn scenario(store: &Store, s: &Slug) {
        store.ensure_initialized("p", "http://127.0.0.1:1").unwrap();
        let spec = ScenarioSpec {
            title: "S".into(),
            steps: vec!["A".into()],
            tags: None,
            starred: None,
            estimated_duration: None,
        };
        store.scenario(s).upsert(&spec, &[]).unwrap();
    }

    /// A finished run of `s` with one evidence file per content.
    fn run_with(store: &Store, s: &Slug, contents: &[&[u8]]) -> RunId {
        std::thread::sleep(std::time::Duration::from_millis(2));
        let mut run = RunHandle::start(store, s, vec!["A".into()]).unwrap();
        let step = StepId::new("01").unwrap();
        for (i, bytes) in contents.iter().enumerate() {
            let name = EvidenceName::new(format!("shot-{i}")).unwrap();
            run.record_evidence(
                &step,
                NewEvidence {
                    name: &name,
                    ext: "png",
                    kind: "screenshot",
                    bytes,
                },
                Default::default(),
            )
            .unwrap();
        }
        run.complete_step(StepRecord {
            id: step,
            status: StepStatus::Pass,
            duration_ms: 1,
            error: None,
            location: None,
            summary: None,
        })
        .unwrap();
        run.complete(Some(10)).unwrap();
        run.id().clone()
    }

    #[test]
    fn retention_removes_the_blobs_no_run_uses_and_keeps_shared_ones() {
        let (_t, store) = store();
        let s = Slug::new("s").unwrap();
        scenario(&store, &s);
        let (shared, gone, kept) = (png(5, 3000), png(6, 3000), png(7, 3000));
        let old = run_with(&store, &s, &[&shared, &gone]);
        let new = run_with(&store, &s, &[&shared, &kept]);
        let blob = |b: &[u8]| store.blob_path(&ContentHash::of(b));
        assert_eq!(blobs(&store).len(), 3);
        assert_eq!(store.scenario(&s).prune(1).unwrap(), [old]);
        assert!(!blob(&gone).exists(), "only the pruned run used it");
        assert_eq!(nlink(&blob(&shared)), 2, "the kept run still links it");
        assert_eq!(nlink(&blob(&kept)), 2);
        assert_eq!(blobs(&store).len(), 2);
        let ev = store.scenario(&s).run(&new).evidence().unwrap();
        let read: Vec<Vec<u8>> = ev
            .files
            .iter()
            .map(|f| fs::read(&f.path).unwrap())
            .collect();
        assert_eq!(read, [shared.clone(), kept.clone()]);
        // A blob nobody links (a writer killed between the blob and the link)
        // goes with the next collection; a linked one stays.
        let orphan = png(8, 3000);
        put_blob(&blob(&orphan), &orphan).ok().unwrap();
        assert_eq!(store.collect_blobs().unwrap(), [blob(&orphan)]);
        assert!(store.collect_blobs().unwrap().is_empty());
        assert!(blob(&shared).exists());
    }

    #[test]
    fn merged_trees_store_each_content_once() {
        let t = tempfile::tempdir().unwrap();
        let s = Slug::new("s").unwrap();
        let shot = png(9, 6000);
        let trees: Vec<Store> = ["a", "b"]
            .iter()
            .map(|n| {
                let store = Store::new(t.path().join(n));
                scenario(&store, &s);
                run_with(&store, &s, &[&shot, &shot]);
                store
            })
            .collect();
        let into = Store::new(t.path().join("merged"));
        scenario(&into, &s);
        run_with(&into, &s, &[&shot]);
        let out = into.merge_from(&trees).unwrap();
        assert_eq!(out.copied.len(), 2, "{out:?}");
        let blob = into.blob_path(&ContentHash::of(&shot));
        let mut files = 0;
        for run in into.scenario(&s).runs().unwrap() {
            for f in into.scenario(&s).run(&run).evidence().unwrap().files {
                assert_eq!(ino(&f.path), ino(&blob), "{}", f.path.display());
                files += 1;
            }
        }
        assert_eq!(files, 5);
        assert_eq!(nlink(&blob), 6);
        assert_eq!(blobs(&into), [blob]);
    }

    /// A run's DOM-snapshot resources (`trace-resources/{sha256}.css`) are
    /// one inode per content: written twice (two runs), merged from two trees
    /// into a third, and freed by `collect_blobs` once their runs are gone. A
    /// sheet smaller than `BLOB_MIN_SIZE` too: every resource is a link.
    #[test]
    fn trace_resources_are_one_inode_per_content_and_merged_so() {
        let t = tempfile::tempdir().unwrap();
        let s = Slug::new("s").unwrap();
        let css = b"button { color: rgb(1, 2, 3); }".as_slice();
        let big: Vec<u8> = (0..5000).map(|i| b"abcdefgh{}:;"[i % 12]).collect();
        let trees: Vec<Store> = ["a", "b"]
            .iter()
            .map(|n| {
                let store = Store::new(t.path().join(n));
                scenario(&store, &s);
                for _ in 0..2 {
                    let id = run_with(&store, &s, &[]);
                    let run = store.scenario(&s).run(&id);
                    for bytes in [css, &big[..]] {
                        let hash = run.write_trace_resource("css", bytes).unwrap();
                        assert_eq!(hash, ContentHash::of(bytes));
                        let path = run.trace_resource(&hash, "css");
                        assert_eq!(fs::read(&path).unwrap(), bytes);
                        assert_eq!(ino(&path), ino(&store.blob_path(&hash)));
                    }
                }
                assert_eq!(nlink(&store.blob_path(&ContentHash::of(css))), 3);
                store
            })
            .collect();
        let into = Store::new(t.path().join("merged"));
        scenario(&into, &s);
        let out = into.merge_from(&trees).unwrap();
        assert_eq!(out.copied.len(), 4, "{out:?}");
        for bytes in [css, &big[..]] {
            let hash = ContentHash::of(bytes);
            let blob = into.blob_path(&hash);
            let mut files = 0;
            for run in into.scenario(&s).runs().unwrap() {
                let path = into.scenario(&s).run(&run).trace_resource(&hash, "css");
                assert_eq!(ino(&path), ino(&blob), "{}", path.display());
                files += 1;
            }
            assert_eq!((files, nlink(&blob)), (4, 5));
        }
        assert_eq!(blobs(&into).len(), 2);
        let runs = into.scenario(&s).runs().unwrap();
        for run in &runs {
            fs::remove_dir_all(into.scenario(&s).run(run).path()).unwrap();
        }
        assert_eq!(into.collect_blobs().unwrap().len(), 2);
        assert!(blobs(&into).is_empty());
    }

    /// Writers of the same contents race with collections (in threads here;
    /// every step is a file-system call, so processes race the same way): a
    /// blob is collected between its making and its linking, or between two
    /// writers' links, yet no written file loses or changes its content, no
    /// temporary file is left, and a later write of each content links its blob.
    #[test]
    fn blob_writes_racing_with_collection_lose_nothing() {
        let (_t, store) = store();
        let contents: Vec<Vec<u8>> = (0..120).map(|i| png(i as u8, 4000 + i)).collect();
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let collector = scope.spawn(|| {
                let mut removed = 0;
                while !done.load(Ordering::Relaxed) {
                    removed += store.collect_blobs().unwrap().len();
                    // A pass after another, not back to back: collecting
                    // in a tight loop held the store's lock so often that
                    // on a loaded 2-core machine the writers waited minutes
                    // for it (a fresh-clone run's test ran past 4 min).
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                removed
            });
            let writers: Vec<_> = (0..3)
                .map(|w| {
                    let (store, contents) = (&store, &contents);
                    scope.spawn(move || {
                        let mut mine = vec![];
                        for (i, c) in contents.iter().enumerate() {
                            let path = put(store, &format!("w{w}-{i}"), "01", "after", "png", c);
                            // Writer 0's files go at once: their blob may
                            // drop to one link before the others link it.
                            if w == 0 {
                                fs::remove_file(&path).unwrap();
                            } else {
                                mine.push((path, i));
                            }
                        }
                        mine
                    })
                })
                .collect();
            // The collector stops before a writer's failure is raised: the
            // scope waits for every thread (a writer's panic, raised first,
            // left the collector looping and the test hung).
            let joined: Vec<_> = writers.into_iter().map(|w| w.join()).collect();
            done.store(true, Ordering::Relaxed);
            let removed = collector.join().unwrap();
            let kept: Vec<(PathBuf, usize)> = joined
                .into_iter()
                .flat_map(|w| w.expect("a writer failed (its message is above)"))
                .collect();
            eprintln!("collections removed {removed} blobs while writers linked them");
            assert_eq!(kept.len(), 2 * contents.len());
            for (p, i) in &kept {
                assert_eq!(fs::read(p).unwrap(), contents[*i], "{}", p.display());
            }
        });
        for (i, c) in contents.iter().enumerate() {
            let path = put(&store, &format!("late-{i}"), "01", "after", "png", c);
            let blob = store.blob_path(&ContentHash::of(c));
            assert_eq!(ino(&path), ino(&blob));
            assert_eq!(fs::read(&blob).unwrap(), *c);
        }
        assert!(
            store.collect_blobs().unwrap().is_empty(),
            "every blob is linked"
        );
        let left: Vec<PathBuf> = fs::read_dir(store.blobs_dir())
            .unwrap()
            .flatten()
            .flat_map(|s| fs::read_dir(s.path()).unwrap().flatten().map(|e| e.path()))
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with('.'))
            .collect();
        assert!(left.is_empty(), "temporary files left: {left:?}");
    }
}
