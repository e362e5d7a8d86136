//! [`KnowledgeStore`]: appending records and keeping the index fresh.

use super::index::{Change, Index, Scratch};
use super::records::{StepRecord, normalize};
use harshjudge_store::store::Store;
use std::io;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

pub(super) struct Inner {
    pub(super) index: Option<Index>,
    pub(super) scratch: Scratch,
    /// Next sequence number of this session's step ids (0: not read yet).
    pub(super) seq: u64,
}

/// The knowledge store of one project, for one session. `Send + Sync`; calls
/// are serialised by an internal lock.
pub struct KnowledgeStore {
    pub(super) dir: PathBuf,
    /// `.harshJudge/`, the folder no read or write may leave.
    pub(super) root: Store,
    pub(super) session: String,
    pub(super) inner: Mutex<Inner>,
}

impl std::fmt::Debug for KnowledgeStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KnowledgeStore")
            .field("dir", &self.dir)
            .field("session", &self.session)
            .finish()
    }
}

/// A session id usable as a file name: characters other than letters,
/// digits, `.`, `_`, `-` become `_`; no leading `.`; at most 100 characters.
pub(super) fn safe_session(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        out.push_str("session");
    }
    if out.starts_with('.') {
        out.replace_range(..1, "_");
    }
    out
}

impl KnowledgeStore {
    /// A store over `dir` (`<project>/.harshJudge/knowledge`, created on the
    /// first [`record`](Self::record)) for session `session` (made safe as a
    /// file name, see [`session`](Self::session)). Reads nothing yet.
    pub fn open(dir: PathBuf, session: String) -> KnowledgeStore {
        KnowledgeStore {
            root: Store::new(dir.parent().unwrap_or(&dir)),
            dir,
            session: safe_session(&session),
            inner: Mutex::new(Inner {
                index: None,
                scratch: Scratch::default(),
                seq: 0,
            }),
        }
    }

    /// The current session's id (as given to `open`, with characters that
    /// cannot be in a file name replaced by `_`).
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The store's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub(super) fn steps_dir(&self) -> PathBuf {
        harshjudge_store::store::Store::knowledge_steps_dir(&self.dir)
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| {
            // A panic mid-update may have left the index half-changed.
            let mut g = poisoned.into_inner();
            g.index = None;
            g.scratch = Scratch::default();
            g
        })
    }

    /// Appends `step` to `steps/{session}.jsonl` as one line, in one write, in
    /// append mode. Before writing: `session` is set to this store's; an empty
    /// `id` becomes `{session}-{seq}`, an empty `timestamp` now; `args` go
    /// through [`compact_args`](super::compact_args); `error`, observation text, title and URL
    /// are cut, test ids deduplicated and capped (see the `MAX_*` constants).
    /// If the index is built, the new line (and anything another process
    /// appended) is indexed at once.
    pub fn record(&self, mut step: StepRecord) -> io::Result<()> {
        let mut g = self.lock();
        let steps = self.steps_dir();
        let path = steps.join(format!("{}.jsonl", self.session));
        if g.seq == 0 {
            g.seq = match self.root.read_file(&path) {
                Ok(bytes) => bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1,
                Err(_) => 1,
            };
        }
        normalize(&mut step, &self.session, g.seq);
        // Declared secrets are masked here as in every file harshjudge writes.
        let json = serde_json::to_string(&step).map_err(io::Error::other)?;
        let mut line = harshjudge_browser::secrets::mask(&json).into_owned();
        line.push('\n');
        let mut file = self.root.append_file(&path)?;
        let len = file.metadata()?.len();
        if len > 0 {
            // A torn last line (a crash mid-write): start on a line of our own.
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1))?;
            file.read_exact(&mut last)?;
            if last[0] != b'\n' {
                line.insert(0, '\n');
            }
        }
        file.write_all(line.as_bytes())?;
        drop(file);
        g.seq += 1;
        // The line is written: from here on a problem only costs the index,
        // which the next call rebuilds.
        let Inner { index, scratch, .. } = &mut *g;
        if let Some(idx) = index {
            let fresh = self.root.metadata(&path).and_then(|meta| {
                let fi = match idx.by_path.get(&path) {
                    Some(&fi) => fi,
                    None => idx.add_file(path, &meta),
                };
                idx.catch_up(&self.root, fi, &meta, &mut scratch.build)
            });
            if !matches!(fresh, Ok(Change::Fine)) {
                *index = None;
            }
        }
        Ok(())
    }

    /// Builds the index if there is none, or brings it up to date; returns
    /// the build time when it built.
    pub(super) fn fresh<'a>(
        &self,
        g: &'a mut Inner,
    ) -> io::Result<(&'a Index, &'a mut Scratch, Option<f64>)> {
        let steps = self.steps_dir();
        let mut built = None;
        if let Some(idx) = &mut g.index
            && let Change::Rebuild = idx.sync(&self.root, &steps, &mut g.scratch.build)?
        {
            g.index = None;
        }
        if g.index.is_none() {
            let t = Instant::now();
            g.scratch = Scratch::default();
            g.index = Some(Index::build(&self.root, &steps, &mut g.scratch.build)?);
            built = Some(t.elapsed().as_secs_f64() * 1000.0);
        }
        let Inner { index, scratch, .. } = g;
        let idx = index.as_ref().expect("index built above");
        Ok((idx, scratch, built))
    }
}
