//! The in-memory inverted index over the session files, kept up to date
//! incrementally, and the scratch space a query scores in.

use super::records::{Observation, StepRecord};
use super::scoring::{F_TITLE, page_tokens, step_tokens};
use super::tokenizer::{page_path, ts_key};
use super::{MAX_CANDIDATES, MAX_INDEX_BYTES, MAX_LINE_BYTES, MAX_TEST_IDS, MAX_TOKENS_PER_STEP};
use harshjudge_store::store::Store;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use std::{fs, io};

/// FxHash: fast hashing of short strings and small integers.
#[derive(Default, Clone, Copy)]
pub(super) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    pub(super) fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub(super) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

pub(super) const NONE: u32 = u32::MAX;

#[derive(Default)]
pub(super) struct Interner {
    pub(super) ids: FxMap<Box<str>, u32>,
    pub(super) names: Vec<Box<str>>,
}

impl Interner {
    pub(super) fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s.into());
        self.ids.insert(s.into(), i);
        i
    }
    pub(super) fn get(&self, s: &str) -> Option<u32> {
        self.ids.get(s).copied()
    }
}

/// Where a token occurs: in steps' own fields, and in pages (every step on
/// the page has it), each with the fields it is in. Ascending ids.
#[derive(Default)]
pub(super) struct Postings {
    pub(super) steps: Vec<u32>,
    pub(super) step_fields: Vec<u8>,
    pub(super) pages: Vec<u32>,
    pub(super) page_fields: Vec<u8>,
}

/// A distinct page state (url, title, test ids), shared by the steps that
/// saw it: indexed once however often an agent comes back to it.
pub(super) struct PageEntry {
    /// Interned lowercase URL, for the url filter.
    pub(super) url: u32,
    pub(super) n_test_ids: u8,
    pub(super) n_title: u8,
    /// The steps on this page, ascending.
    pub(super) steps: Vec<u32>,
}

/// What the index keeps of a step (its full record stays in its file).
pub(super) struct StepMeta {
    pub(super) file: u32,
    pub(super) offset: u64,
    pub(super) len: u32,
    pub(super) session: u32,
    pub(super) tool: u32,
    pub(super) page: u32,
    pub(super) ts: u64,
    pub(super) ok: bool,
}

/// An indexed file and how much of it is indexed.
pub(super) struct FileState {
    pub(super) path: PathBuf,
    pub(super) session: u32,
    /// Bytes indexed: up to and including the last newline seen.
    pub(super) indexed: u64,
    /// Size and mtime when last read (skip re-reading an unchanged torn tail).
    pub(super) seen_len: u64,
    pub(super) seen_mtime: Option<SystemTime>,
    /// Device and inode (0 off Unix): another means the file was replaced.
    pub(super) id: (u64, u64),
}

#[derive(Default)]
pub(super) struct Index {
    pub(super) files: Vec<FileState>,
    pub(super) by_path: FxMap<PathBuf, usize>,
    /// Older files left out by [`MAX_INDEX_BYTES`].
    pub(super) left_out: HashSet<PathBuf>,
    pub(super) steps: Vec<StepMeta>,
    pub(super) tokens: Interner,
    pub(super) postings: Vec<Postings>,
    pub(super) pages: Vec<PageEntry>,
    /// Page states by a 128-bit hash of their url, title and test ids.
    pub(super) page_ids: FxMap<u128, u32>,
    pub(super) test_ids: Interner,
    pub(super) test_id_pages: Vec<Vec<u32>>,
    pub(super) paths: Interner,
    pub(super) path_pages: Vec<Vec<u32>>,
    pub(super) tools: Interner,
    pub(super) tool_steps: Vec<Vec<u32>>,
    pub(super) urls: Interner,
    pub(super) sessions: Interner,
    pub(super) session_counts: Vec<usize>,
}

/// Reused buffers of indexing.
#[derive(Default)]
pub(super) struct BuildScratch {
    /// Token id → fields, for one step or page.
    pub(super) marks: FxMap<u32, u8>,
}

/// A page state's identity: SipHash and FxHash of its url, title and test
/// ids side by side (128 bits; a collision would need both to collide).
pub(super) fn page_key(o: &Observation) -> u128 {
    use std::hash::Hash;
    let mut sip = std::hash::DefaultHasher::new();
    let mut fx = FxHasher::default();
    let parts = [o.url.as_deref(), o.title.as_deref()];
    let ids = o
        .test_ids
        .iter()
        .take(MAX_TEST_IDS)
        .map(|s| Some(s.as_str()));
    for part in parts.into_iter().chain(ids) {
        part.hash(&mut sip);
        part.hash(&mut fx);
    }
    (u128::from(sip.finish()) << 64) | u128::from(fx.finish())
}

pub(super) fn file_id(m: &fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        (0, 0)
    }
}

/// A file's session: its name without `.jsonl`.
pub(super) fn session_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let s = name.strip_suffix(".jsonl")?;
    (!s.is_empty()).then(|| s.to_string())
}

/// The `.jsonl` files in `steps`, with their metadata (none if it is missing).
pub(super) fn list_files(root: &Store, steps: &Path) -> io::Result<Vec<(PathBuf, fs::Metadata)>> {
    let rd = match root.read_dir(steps) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry?;
        let path = entry.path();
        if session_of(&path).is_none() {
            continue;
        }
        // Removed between the listing and now: not there.
        let Ok(meta) = root.metadata(&path) else {
            continue;
        };
        if meta.is_file() {
            out.push((path, meta));
        }
    }
    Ok(out)
}

/// What a file change means for the index.
pub(super) enum Change {
    Fine,
    Rebuild,
}

impl Index {
    /// Reads the files of `steps` into a new index.
    pub(super) fn build(
        root: &Store,
        steps: &Path,
        scratch: &mut BuildScratch,
    ) -> io::Result<Index> {
        let mut files = list_files(root, steps)?;
        // Newest first to choose what fits; then indexed oldest first, so
        // step numbers grow with time (appends come last, as the newest).
        files.sort_by(|a, b| {
            let (ma, mb) = (a.1.modified().ok(), b.1.modified().ok());
            mb.cmp(&ma).then_with(|| b.0.cmp(&a.0))
        });
        let mut idx = Index::default();
        let mut bytes = 0u64;
        let mut keep = Vec::new();
        for (i, (path, meta)) in files.into_iter().enumerate() {
            bytes = bytes.saturating_add(meta.len());
            if i > 0 && bytes > MAX_INDEX_BYTES {
                idx.left_out.insert(path);
            } else {
                keep.push((path, meta));
            }
        }
        for (path, meta) in keep.into_iter().rev() {
            let fi = idx.add_file(path, &meta);
            // A file replaced while we read it: what is indexed is consistent
            // up to `indexed`, and the next call's sync sees the change.
            let _ = idx.catch_up(root, fi, &meta, scratch)?;
        }
        Ok(idx)
    }

    pub(super) fn add_file(&mut self, path: PathBuf, meta: &fs::Metadata) -> usize {
        let session = session_of(&path).unwrap_or_default();
        let session = self.session_id(&session);
        let fi = self.files.len();
        self.by_path.insert(path.clone(), fi);
        self.files.push(FileState {
            path,
            session,
            indexed: 0,
            seen_len: 0,
            seen_mtime: None,
            id: file_id(meta),
        });
        fi
    }

    pub(super) fn session_id(&mut self, s: &str) -> u32 {
        let id = self.sessions.intern(s);
        if self.session_counts.len() <= id as usize {
            self.session_counts.resize(id as usize + 1, 0);
        }
        id
    }

    /// Brings the index up to date with the files on disk.
    pub(super) fn sync(
        &mut self,
        root: &Store,
        steps: &Path,
        scratch: &mut BuildScratch,
    ) -> io::Result<Change> {
        let listed = list_files(root, steps)?;
        if listed.len() < self.files.len() {
            return Ok(Change::Rebuild); // a file went away
        }
        let mut present = 0;
        for (path, meta) in listed {
            match self.by_path.get(&path) {
                Some(&fi) => {
                    present += 1;
                    if let Change::Rebuild = self.catch_up(root, fi, &meta, scratch)? {
                        return Ok(Change::Rebuild);
                    }
                }
                None if self.left_out.contains(&path) => {}
                None => {
                    let fi = self.add_file(path, &meta);
                    present += 1;
                    if let Change::Rebuild = self.catch_up(root, fi, &meta, scratch)? {
                        return Ok(Change::Rebuild);
                    }
                }
            }
        }
        if present < self.files.len() {
            return Ok(Change::Rebuild);
        }
        Ok(Change::Fine)
    }

    /// Indexes what was appended to file `fi` since it was last read.
    pub(super) fn catch_up(
        &mut self,
        root: &Store,
        fi: usize,
        meta: &fs::Metadata,
        scratch: &mut BuildScratch,
    ) -> io::Result<Change> {
        let f = &self.files[fi];
        let (len, mtime) = (meta.len(), meta.modified().ok());
        if file_id(meta) != f.id || len < f.indexed {
            return Ok(Change::Rebuild);
        }
        if len == f.seen_len && mtime == f.seen_mtime {
            return Ok(Change::Fine);
        }
        let from = f.indexed;
        // Read from one byte before `from`: it must still be the newline we
        // stopped after, or the file was rewritten.
        let start = from.saturating_sub(1);
        let mut buf = Vec::with_capacity((len - start) as usize + 1);
        let read = root.open_file(&f.path).and_then(|mut file| {
            file.seek(SeekFrom::Start(start))?;
            file.read_to_end(&mut buf)
        });
        match read {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Change::Rebuild),
            Err(e) => {
                // One unreadable file must not take the others down: skipped
                // for now, tried again by the next call.
                tracing::warn!(file = %f.path.display(), "knowledge store: cannot read: {e}");
                return Ok(Change::Fine);
            }
        }
        let mut at = 0;
        if from > 0 {
            if buf.first() != Some(&b'\n') {
                return Ok(Change::Rebuild);
            }
            at = 1;
        }
        let session = f.session;
        let mut consumed = from;
        while let Some(nl) = buf[at..].iter().position(|&b| b == b'\n') {
            let line = &buf[at..at + nl];
            let offset = consumed;
            consumed += nl as u64 + 1;
            at += nl + 1;
            if line.len() > MAX_LINE_BYTES || line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let Ok(step) = serde_json::from_slice::<StepRecord>(line) else {
                continue; // not a record: skipped
            };
            self.add_step(
                &step,
                fi as u32,
                offset,
                line.len() as u32,
                session,
                scratch,
            );
        }
        let f = &mut self.files[fi];
        f.indexed = consumed;
        f.seen_len = start + buf.len() as u64;
        f.seen_mtime = mtime;
        Ok(Change::Fine)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn add_step(
        &mut self,
        step: &StepRecord,
        file: u32,
        offset: u64,
        len: u32,
        session: u32,
        scratch: &mut BuildScratch,
    ) {
        let n = self.steps.len() as u32;
        let page = self.page_of(&step.observation, scratch);
        self.pages[page as usize].steps.push(n);
        let BuildScratch { marks, .. } = scratch;
        marks.clear();
        let tokens = &mut self.tokens;
        step_tokens(step, &mut |bit, t| {
            let id = tokens.intern(t);
            if let Some(m) = marks.get_mut(&id) {
                *m |= bit;
            } else if marks.len() < MAX_TOKENS_PER_STEP {
                marks.insert(id, bit);
            }
        });
        for (id, mask) in marks.drain() {
            let p = self.postings_mut(id);
            p.steps.push(n);
            p.step_fields.push(mask);
        }
        let tool = if step.tool.is_empty() {
            NONE
        } else {
            let t = self.tools.intern(&step.tool.to_lowercase());
            push_to(&mut self.tool_steps, t, n);
            t
        };
        self.session_counts[session as usize] += 1;
        self.steps.push(StepMeta {
            file,
            offset,
            len,
            session,
            tool,
            page,
            ts: ts_key(&step.timestamp),
            ok: step.ok,
        });
    }

    pub(super) fn postings_mut(&mut self, token: u32) -> &mut Postings {
        if self.postings.len() <= token as usize {
            self.postings
                .resize_with(token as usize + 1, Postings::default);
        }
        &mut self.postings[token as usize]
    }

    /// The page entry of an observation, made on first sight.
    pub(super) fn page_of(&mut self, o: &Observation, scratch: &mut BuildScratch) -> u32 {
        let key = page_key(o);
        if let Some(&p) = self.page_ids.get(&key) {
            return p;
        }
        let p = self.pages.len() as u32;
        self.page_ids.insert(key, p);
        let marks = &mut scratch.marks;
        marks.clear();
        let tokens = &mut self.tokens;
        page_tokens(o, &mut |bit, t| {
            let id = tokens.intern(t);
            if let Some(m) = marks.get_mut(&id) {
                *m |= bit;
            } else if marks.len() < MAX_TOKENS_PER_STEP {
                marks.insert(id, bit);
            }
        });
        let mut n_title = 0usize;
        for (id, mask) in marks.drain() {
            n_title += usize::from(mask & F_TITLE != 0);
            let post = self.postings_mut(id);
            post.pages.push(p);
            post.page_fields.push(mask);
        }
        let mut ids: Vec<u32> = o
            .test_ids
            .iter()
            .take(MAX_TEST_IDS)
            .filter(|t| !t.is_empty())
            .map(|t| self.test_ids.intern(t))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        for &id in &ids {
            push_to(&mut self.test_id_pages, id, p);
        }
        let url = match &o.url {
            Some(u) if !u.trim().is_empty() => {
                let path = self.paths.intern(&page_path(u));
                push_to(&mut self.path_pages, path, p);
                self.urls.intern(&u.to_lowercase())
            }
            _ => NONE,
        };
        self.pages.push(PageEntry {
            url,
            n_test_ids: ids.len().min(255) as u8,
            n_title: n_title.min(255) as u8,
            steps: Vec::new(),
        });
        p
    }

    pub(super) fn total(&self, session: Option<u32>) -> usize {
        match session {
            None => self.steps.len(),
            Some(s) => self.session_counts.get(s as usize).copied().unwrap_or(0),
        }
    }
}

pub(super) fn push_to(lists: &mut Vec<Vec<u32>>, id: u32, step: u32) {
    if lists.len() <= id as usize {
        lists.resize_with(id as usize + 1, Vec::new);
    }
    lists[id as usize].push(step);
}

/// Which steps a call may look at.
pub(super) struct Filter {
    pub(super) session: Option<u32>,
    pub(super) tool: Option<u32>,
    pub(super) ok: Option<bool>,
    /// Per interned URL: whether it contains the filter.
    pub(super) urls: Option<Vec<bool>>,
}

impl Filter {
    pub(super) fn pass(&self, idx: &Index, s: &StepMeta) -> bool {
        self.session.is_none_or(|x| s.session == x)
            && self.tool.is_none_or(|x| s.tool == x)
            && self.ok.is_none_or(|x| s.ok == x)
            && self.urls.as_ref().is_none_or(|u| {
                let url = idx.pages[s.page as usize].url;
                url != NONE && u[url as usize]
            })
    }
}

/// Per-step and per-page state of one call, reused across calls.
#[derive(Default)]
pub(super) struct Scratch {
    /// Per step: what its own fields add to its page's score (tenths).
    pub(super) step_extra: Vec<u32>,
    pub(super) steps_touched: Vec<u32>,
    /// Per page: its score (tenths, for a search).
    pub(super) page_points: Vec<u32>,
    /// Per page: the current query token's weight on it.
    pub(super) page_token: Vec<u8>,
    /// Per page, for `similar`: shared test ids, shared title tokens, same path.
    pub(super) page_sim: Vec<[u8; 3]>,
    /// Per page, for `similar`: its score.
    pub(super) page_score: Vec<f64>,
    pub(super) pages_touched: Vec<u32>,
    pub(super) build: BuildScratch,
}

impl Scratch {
    /// Clears what the last call left and sizes the arrays for the index.
    pub(super) fn reset(&mut self, steps: usize, pages: usize) {
        for &s in &self.steps_touched {
            self.step_extra[s as usize] = 0;
        }
        self.steps_touched.clear();
        for &p in &self.pages_touched {
            self.page_points[p as usize] = 0;
            self.page_token[p as usize] = 0;
            self.page_sim[p as usize] = [0; 3];
            self.page_score[p as usize] = 0.0;
        }
        self.pages_touched.clear();
        if self.step_extra.len() < steps {
            self.step_extra.resize(steps, 0);
        }
        if self.page_points.len() < pages {
            self.page_points.resize(pages, 0);
            self.page_token.resize(pages, 0);
            self.page_sim.resize(pages, [0; 3]);
            self.page_score.resize(pages, 0.0);
        }
    }

    /// Marks page `p` as used by this call (once).
    pub(super) fn touch_page(&mut self, p: u32, fresh: bool) {
        if fresh {
            self.pages_touched.push(p);
        }
    }
}

/// The best `k` steps seen so far: a min-heap on `(score, timestamp, step)`,
/// so the newer step wins a tie.
pub(super) struct TopK {
    pub(super) k: usize,
    pub(super) heap: BinaryHeap<Reverse<(u32, u64, u32)>>,
    /// Steps scored.
    pub(super) scored: usize,
    /// Steps looked at (scored or filtered out), against [`MAX_CANDIDATES`].
    pub(super) looked: usize,
}

impl TopK {
    pub(super) fn new(k: usize) -> TopK {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k + 1),
            scored: 0,
            looked: 0,
        }
    }

    /// Whether the scan limit is reached.
    pub(super) fn full_scan(&self) -> bool {
        self.looked >= MAX_CANDIDATES
    }

    /// Whether nothing scoring `score` can get in any more.
    pub(super) fn closed_below(&self, score: u32) -> bool {
        self.heap.len() >= self.k && self.heap.peek().is_some_and(|m| score < m.0.0)
    }

    pub(super) fn push(&mut self, idx: &Index, s: u32, score: u32) {
        self.scored += 1;
        let key = (score, idx.steps[s as usize].ts, s);
        if self.heap.len() < self.k {
            self.heap.push(Reverse(key));
        } else if self.heap.peek().is_some_and(|m| key > m.0) {
            self.heap.pop();
            self.heap.push(Reverse(key));
        }
    }

    /// `(step, score)`, best first.
    pub(super) fn into_sorted(self) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u64, u32)> = self.heap.into_iter().map(|r| r.0).collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v.into_iter().map(|(score, _, s)| (s, score)).collect()
    }
}
