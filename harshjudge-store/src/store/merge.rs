//! Merging `.harshJudge/` trees (the shards of one suite, or machines that ran
//! the same suite at different times) into one: [`Store::merge_from`].
//!
//! Planning reads every source and the target and decides everything first
//! (which runs are new, which are already present, which numbers clash);
//! nothing is written when a source conflicts with the target. Execution then
//! copies each new run the way [`RunDir::create`](crate::store::RunDir::create) makes one (built under a
//! temporary name, renamed whole; its evidence through the target's blob
//! store, so the merged tree keeps each content once), takes the scenario files of the newest
//! tree, and recounts the statistics from the runs under the `meta.yaml` lock.

use super::names;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::yaml::{Mapping, Value};

use super::checkpoint::{Checkpoint, ScenarioEntry};
use super::fsio::{self, io_err, write_atomic};
use super::{
    MetaDoc, PrunedRuns, RunId, RunResult, RunStatus, Slug, Store, StoreError, read_meta_doc,
    result_bytes,
};

/// The `meta.yaml` keys that are statistics (recounted, never copied).
const STAT_KEYS: &[&str] = &[
    "totalRuns",
    "passCount",
    "failCount",
    "lastRun",
    "lastResult",
    "avgDuration",
    "flakyCount",
    "prunedRuns",
    "lastRunNumber",
];

/// What [`Store::merge_from`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeOutcome {
    /// Runs copied: (scenario, run id).
    pub copied: Vec<(String, String)>,
    /// Runs already present with the same content, skipped.
    pub already_present: usize,
    /// Copied runs whose `runNumber` clashed and was changed: (scenario, run id, old, new).
    pub renumbered: Vec<(String, String, Option<u64>, u64)>,
    /// Runs left out because they are still `running` (or have no readable
    /// `result.json`): their source path.
    pub unfinished: Vec<PathBuf>,
    /// Symbolic links found in the sources, never followed nor copied.
    pub skipped_links: Vec<PathBuf>,
    /// Scenarios of the merged tree touched by the merge.
    pub scenarios: Vec<String>,
    /// Suite checkpoints (`.suite/{binary}.json`) written.
    pub checkpoints: Vec<PathBuf>,
    /// Whether anything in the target changed.
    pub changed: bool,
}

/// One run of a source.
struct SourceRun {
    dir: PathBuf,
    result: RunResult,
    /// Files relative to the run folder, with their bytes.
    files: Vec<(PathBuf, Vec<u8>)>,
}

/// A scenario's content in one tree.
struct SourceScenario {
    meta: Option<Mapping>,
    /// The newest run start (for "which tree is newest").
    newest: String,
    runs: Vec<SourceRun>,
    /// Scenario files other than `meta.yaml` and runs (`scenario.md`, `steps/*.md`).
    files: Vec<(PathBuf, Vec<u8>)>,
}

/// Reads every regular file under `dir` (relative paths, sorted), skipping
/// dot-files (locks, temporary files) and recording links instead of following them.
fn read_files(
    dir: &Path,
    skip_top: &[&str],
    links: &mut Vec<PathBuf>,
) -> Result<Vec<(PathBuf, Vec<u8>)>, StoreError> {
    let mut out = vec![];
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let here = dir.join(&rel);
        let rd = std::fs::read_dir(&here).map_err(|e| io_err(&here, e))?;
        for e in rd {
            let e = e.map_err(|e| io_err(&here, e))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || (rel.as_os_str().is_empty() && skip_top.contains(&&*name)) {
                continue;
            }
            let t = e.file_type().map_err(|err| io_err(&e.path(), err))?;
            if t.is_symlink() {
                links.push(e.path());
            } else if t.is_dir() {
                stack.push(rel.join(&name));
            } else if t.is_file() {
                let bytes = std::fs::read(e.path()).map_err(|err| io_err(&e.path(), err))?;
                out.push((rel.join(&name), bytes));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Whether `rel` (relative to a run folder) is a file the store keeps as a
/// link to its blob: an evidence file (`step-NN/evidence/{name}` or the v1
/// `evidence/{name}`, not a sidecar) of a kind and size that
/// [`dedupes`](super::blobs::dedupes), or any resource of the run's DOM
/// snapshots (`trace-resources/{sha256}.{ext}`, written linked whatever its size).
fn is_blob_backed(rel: &Path, len: usize) -> bool {
    let folder = rel.parent().and_then(Path::file_name);
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or(".");
    if name.starts_with('.') || name.ends_with(".meta.json") {
        return false;
    }
    match folder {
        Some(d) if d == names::TRACE_RESOURCES => true,
        Some(d) if d == names::EVIDENCE => super::blobs::dedupes(ext_of(rel), len),
        _ => false,
    }
}

/// The extension of a file name (`""` when it has none).
fn ext_of(rel: &Path) -> &str {
    rel.extension().and_then(|e| e.to_str()).unwrap_or("")
}

/// Entries of a folder that are real folders; links are recorded.
fn sub_dirs(dir: &Path, links: &mut Vec<PathBuf>) -> Result<Vec<String>, StoreError> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(io_err(dir, e)),
    };
    let mut out = vec![];
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        match e.file_type() {
            Ok(t) if t.is_symlink() => links.push(e.path()),
            Ok(t) if t.is_dir() => out.push(name),
            _ => {}
        }
    }
    out.sort();
    Ok(out)
}

/// `result.json` without `runNumber`: what must agree for two copies of a run
/// to be the same run (a merge may have renumbered one of them).
fn comparable(result: &RunResult) -> Vec<u8> {
    let mut r = result.clone();
    r.run_number = None;
    result_bytes(&r)
}

impl SourceRun {
    fn same_as(&self, other: &SourceRun) -> bool {
        comparable(&self.result) == comparable(&other.result)
            && self
                .files
                .iter()
                .filter(|(p, _)| p != Path::new(names::RESULT))
                .eq(other
                    .files
                    .iter()
                    .filter(|(p, _)| p != Path::new(names::RESULT)))
    }
}

/// One tree's scenarios by slug ([`Store::read_tree`]).
type Tree = BTreeMap<String, SourceScenario>;

/// What [`Store::merge_from`] does to one scenario, decided before any write.
struct Plan<'a> {
    /// The tree whose scenario files and `meta.yaml` are taken (`None`: the target's own).
    newest: Option<&'a SourceScenario>,
    /// Runs to copy, with their new `runNumber` when it changes.
    copy: Vec<(&'a SourceRun, Option<u64>)>,
    pruned: PrunedRuns,
    last_number: u64,
}

/// `lastRunNumber` of a `meta.yaml` (0 when absent).
fn last_run_number(m: &Option<Mapping>) -> u64 {
    m.as_ref()
        .and_then(|m| m.get("lastRunNumber"))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// Plans one scenario: which runs are new, which are already present (a
/// conflicting run id is an error naming both folders), which tree is newest,
/// and the run numbers of the copies.
fn plan_scenario<'a>(
    slug: &str,
    target: &'a Tree,
    trees: &'a [Tree],
    out: &mut MergeOutcome,
) -> Result<Plan<'a>, StoreError> {
    let mine = target.get(slug);
    let mut present: BTreeMap<&str, &SourceRun> = BTreeMap::new();
    let mut taken: BTreeSet<u64> = BTreeSet::new();
    let mut last = 0u64;
    let mut newest: Option<&SourceScenario> = None;
    if let Some(m) = mine {
        for r in &m.runs {
            present.insert(&r.result.run_id, r);
            taken.extend(r.result.run_number);
        }
        last = last_run_number(&m.meta);
    }
    let mut pruned = mine
        .and_then(|m| m.meta.clone())
        .map(|m| PrunedRuns::read(&MetaDoc(m)))
        .unwrap_or_default();
    let mut new_runs: Vec<&SourceRun> = vec![];
    for t in trees {
        let Some(sc) = t.get(slug) else { continue };
        last = last.max(last_run_number(&sc.meta));
        if newest.is_none_or(|n| sc.newest > n.newest) {
            newest = Some(sc);
        }
        let mut brought = false;
        for r in &sc.runs {
            match present.get(r.result.run_id.as_str()) {
                Some(old) if old.same_as(r) => out.already_present += 1,
                Some(old) => {
                    return Err(StoreError::Conflict {
                        run: r.result.run_id.clone(),
                        path: r.dir.clone(),
                        other: old.dir.clone(),
                    });
                }
                None => {
                    present.insert(&r.result.run_id, r);
                    new_runs.push(r);
                    brought = true;
                }
            }
        }
        if brought && let Some(m) = &sc.meta {
            let p = PrunedRuns::read(&MetaDoc(m.clone()));
            pruned.total_runs += p.total_runs;
            pruned.pass_count += p.pass_count;
            pruned.flaky_count += p.flaky_count;
            pruned.duration_sum += p.duration_sum;
        }
    }
    if mine.is_some_and(|m| newest.is_none_or(|n| m.newest >= n.newest)) {
        newest = None; // the target's own files are the newest: keep them
    }
    let (copy, last) = number_copies(new_runs, taken, last);
    Ok(Plan {
        newest,
        copy,
        pruned,
        last_number: last,
    })
}

/// Numbers: keep a copied run's number unless taken; clashes get the next
/// free number, in start order. Returns the copies and the last number.
fn number_copies(
    mut new_runs: Vec<&SourceRun>,
    mut taken: BTreeSet<u64>,
    mut last: u64,
) -> (Vec<(&SourceRun, Option<u64>)>, u64) {
    new_runs.sort_by(|a, b| {
        (&a.result.started_at, &a.result.run_id).cmp(&(&b.result.started_at, &b.result.run_id))
    });
    // The first run (in start order) holding a free number keeps it.
    let free: Vec<Option<u64>> = new_runs
        .iter()
        .map(|r| r.result.run_number.filter(|n| taken.insert(*n)))
        .collect();
    let mut next = last.max(taken.iter().max().copied().unwrap_or(0));
    let mut copy = vec![];
    for (r, keep) in new_runs.into_iter().zip(free) {
        let n = keep.unwrap_or_else(|| {
            next += 1;
            next
        });
        // A number used twice within one source is fixed too.
        let renumber = (Some(n) != r.result.run_number).then_some(n);
        copy.push((r, renumber));
        last = last.max(n);
    }
    (copy, last)
}

impl Store {
    /// Reads one tree's scenarios (the target's too): links are recorded, never followed.
    fn read_tree(&self, out: &mut MergeOutcome) -> Result<Tree, StoreError> {
        let root = self.dir.join(names::SCENARIOS);
        self.confine(&root)?;
        let mut scenarios = BTreeMap::new();
        for name in sub_dirs(&root, &mut out.skipped_links)? {
            let Ok(slug) = Slug::new(name.clone()) else {
                continue;
            };
            let dir = self.scenario(&slug).path();
            let meta_path = self.scenario(&slug).meta_path();
            let meta = match std::fs::symlink_metadata(&meta_path) {
                Ok(m) if m.file_type().is_symlink() => {
                    out.skipped_links.push(meta_path);
                    None
                }
                _ => read_meta_doc(&meta_path)?,
            };
            let files = read_files(&dir, &[names::META, names::RUNS], &mut out.skipped_links)?;
            let mut runs = vec![];
            for id in sub_dirs(&dir.join(names::RUNS), &mut out.skipped_links)? {
                let Ok(run) = RunId::new(id) else { continue };
                let run_dir = self.scenario(&slug).run(&run).path();
                let files = read_files(&run_dir, &[], &mut out.skipped_links)?;
                let result = files
                    .iter()
                    .find(|(p, _)| p == Path::new(names::RESULT))
                    .and_then(|(_, b)| serde_json::from_slice::<RunResult>(b).ok());
                match result {
                    Some(result) if result.status != RunStatus::Running => runs.push(SourceRun {
                        dir: run_dir,
                        result,
                        files,
                    }),
                    _ => out.unfinished.push(run_dir),
                }
            }
            let newest = runs
                .iter()
                .map(|r| r.result.started_at.clone())
                .max()
                .unwrap_or_default();
            scenarios.insert(
                name,
                SourceScenario {
                    meta,
                    newest,
                    runs,
                    files,
                },
            );
        }
        Ok(scenarios)
    }

    /// Merges the `.harshJudge/` trees `sources` into this one (created from the
    /// first source's `config.yaml` when it does not exist yet):
    ///
    /// - every finished run is copied with its evidence under its own id (run
    ///   ids are unique: time + random); a run already present with the same
    ///   content is skipped (a merge may be repeated); the same id with other
    ///   content is an error naming both folders, and nothing is written;
    /// - run numbers stay unique per scenario: a copied run whose `runNumber`
    ///   is taken gets the next free one (in start order), and `lastRunNumber`
    ///   covers every number of every tree;
    /// - `meta.yaml` fields other than statistics, and the scenario's other
    ///   files (`steps/*.md`, …), come from the tree with the newest run; the
    ///   statistics are recounted from the runs ([`recount_stats`](super::ScenarioDir::recount_stats)),
    ///   plus the `prunedRuns` of each source that brought new runs;
    /// - suite checkpoints (`.suite/{binary}.json`) are merged scenario by
    ///   scenario, the entry with the newest run winning.
    ///
    /// Links in the sources are never followed: they are skipped and listed.
    pub fn merge_from(&self, sources: &[Store]) -> Result<MergeOutcome, StoreError> {
        let mut out = MergeOutcome::default();
        for s in sources {
            if !s.is_initialized() {
                return Err(StoreError::NotInitialized {
                    path: s.dir.clone(),
                });
            }
            s.confine(&s.config_path())?;
        }
        // Plan: read everything, decide, check conflicts.
        let target = self.read_tree(&mut out)?;
        let mut trees = vec![];
        for s in sources {
            trees.push(s.read_tree(&mut out)?);
        }
        let mut plans: BTreeMap<&str, Plan> = BTreeMap::new();
        let mut slugs: BTreeSet<&str> = target.keys().map(String::as_str).collect();
        for t in &trees {
            slugs.extend(t.keys().map(String::as_str));
        }
        for slug in slugs {
            plans.insert(slug, plan_scenario(slug, &target, &trees, &mut out)?);
        }

        // Execute.
        if !self.is_initialized() {
            self.init_from_first(sources)?;
            out.changed = true;
        }
        for (slug, plan) in plans {
            self.apply_plan(slug, plan, &target, &mut out)?;
        }
        out.checkpoints = self.merge_checkpoints(sources, &mut out.skipped_links)?;
        out.changed |= !out.checkpoints.is_empty();
        Ok(out)
    }

    /// Creates this tree from the first source's `config.yaml` (and its
    /// `prd.md`, when it has one).
    fn init_from_first(&self, sources: &[Store]) -> Result<(), StoreError> {
        let first = &sources.first().ok_or_else(|| StoreError::NotFound {
            what: "a tree to merge".into(),
            path: self.dir.clone(),
        })?;
        let cfg =
            std::fs::read(first.config_path()).map_err(|e| io_err(&first.config_path(), e))?;
        self.confine(&self.config_path())?;
        fsio::create_dir_all(&self.dir.join(names::SCENARIOS))?;
        fsio::write_new(&self.dir.join(".gitignore"), super::GITIGNORE.as_bytes())?;
        fsio::write_new(&self.config_path(), &cfg)?;
        // The agents' prd.md, when the first tree has one.
        let prd = first.dir.join(names::PRD);
        if std::fs::symlink_metadata(&prd).is_ok_and(|m| m.is_file())
            && let Ok(bytes) = std::fs::read(&prd)
        {
            self.confine(&self.dir.join(names::PRD))?;
            fsio::write_new(&self.dir.join(names::PRD), &bytes)?;
        }
        Ok(())
    }

    /// Executes the plan of one scenario: its files, its `meta.yaml`, the
    /// copied runs (under the `meta.yaml` lock), then the recount.
    fn apply_plan(
        &self,
        slug: &str,
        plan: Plan<'_>,
        target: &Tree,
        out: &mut MergeOutcome,
    ) -> Result<(), StoreError> {
        let slug_id = Slug::new(slug)?;
        let dir = self.scenario(&slug_id).path();
        let mut changed = false;
        if let Some(src) = plan.newest {
            changed |= self.take_scenario_files(&dir, src, target.get(slug))?;
        }
        let source_meta = plan.newest.and_then(|s| s.meta.clone());
        let copies = &plan.copy;
        let old_doc = target.get(slug).and_then(|m| m.meta.clone());
        self.try_update_meta(&slug_id, |doc, _| {
            if let Some(src) = &source_meta {
                let mut next = MetaDoc(Mapping::new());
                for (k, v) in src {
                    let stat = STAT_KEYS.contains(&k.as_str());
                    let value = if stat { doc.0.get(k).unwrap_or(v) } else { v };
                    next.0.insert(k.clone(), value.clone());
                }
                for (k, v) in &doc.0 {
                    if STAT_KEYS.contains(&k.as_str()) {
                        next.set_default(k, v.clone());
                    }
                }
                *doc = next;
            }
            if plan.last_number > 0 {
                doc.set("lastRunNumber", plan.last_number);
            }
            if plan.pruned != PrunedRuns::default() {
                plan.pruned.write(doc);
            }
            for (run, renumber) in copies {
                self.copy_run(&slug_id, run, *renumber)?;
            }
            Ok(())
        })?;
        self.scenario(&slug_id).recount_stats()?;
        for (run, renumber) in copies {
            out.copied
                .push((slug.to_string(), run.result.run_id.clone()));
            if let Some(n) = renumber {
                out.renumbered.push((
                    slug.to_string(),
                    run.result.run_id.clone(),
                    run.result.run_number,
                    *n,
                ));
            }
        }
        let new_doc = read_meta_doc(&self.scenario(&slug_id).meta_path())?;
        changed |= !copies.is_empty() || new_doc != old_doc;
        if changed {
            out.scenarios.push(slug.to_string());
            out.changed = true;
        }
        Ok(())
    }

    /// Writes the scenario files of the newest tree `src` into `dir`, and
    /// removes step files the target has and `src` does not. Returns whether
    /// anything changed.
    fn take_scenario_files(
        &self,
        dir: &Path,
        src: &SourceScenario,
        mine: Option<&SourceScenario>,
    ) -> Result<bool, StoreError> {
        let mut changed = false;
        for (rel, bytes) in &src.files {
            let path = dir.join(rel);
            let same = mine.is_some_and(|m| m.files.iter().any(|(p, b)| p == rel && b == bytes));
            if !same {
                self.confine(&path)?;
                write_atomic(&path, bytes)?;
                changed = true;
            }
        }
        if let Some(m) = mine {
            for (rel, _) in &m.files {
                if rel.starts_with(names::STEPS) && !src.files.iter().any(|(p, _)| p == rel) {
                    let path = dir.join(rel);
                    self.confine(&path)?;
                    std::fs::remove_file(&path).map_err(|e| io_err(&path, e))?;
                    changed = true;
                }
            }
        }
        Ok(changed)
    }

    /// Copies one run the way [`RunDir::create`](crate::store::RunDir::create) makes one: built under a
    /// temporary name, renamed whole; `renumber` rewrites its `runNumber`.
    fn copy_run(
        &self,
        slug: &Slug,
        run: &SourceRun,
        renumber: Option<u64>,
    ) -> Result<(), StoreError> {
        let id = RunId::new(run.result.run_id.clone())?;
        let to = self.scenario(slug).run(&id).path();
        self.confine(&to)?;
        let tmp = fsio::tmp_path(&to);
        let build = || -> Result<(), StoreError> {
            fsio::create_dir_all(&tmp)?;
            for (rel, bytes) in &run.files {
                let file = tmp.join(rel);
                if let Some(p) = file.parent() {
                    fsio::create_dir_all(p)?;
                }
                let renumbered;
                let bytes: &[u8] = match (rel == Path::new(names::RESULT), renumber) {
                    (true, Some(n)) => {
                        let mut r = run.result.clone();
                        r.run_number = Some(n);
                        renumbered = result_bytes(&r);
                        &renumbered
                    }
                    _ => bytes,
                };
                if is_blob_backed(rel, bytes.len()) {
                    // Through the blob store, like a run's own evidence: the
                    // merged tree stores each content once. The blob's mode
                    // is the store's, shared, never changed here.
                    let parent = file.parent().expect("a run's files have a folder");
                    let folder = fsio::Folder::open(parent).map_err(|e| io_err(parent, e))?;
                    let name = file.file_name().and_then(|n| n.to_str());
                    self.write_linked(
                        &folder,
                        name.expect("is_blob_backed took a UTF-8 name"),
                        bytes,
                    )?;
                    continue;
                }
                std::fs::write(&file, bytes).map_err(|e| io_err(&file, e))?;
                // Keep the mode (replay.sh is executable).
                if let Ok(m) = std::fs::symlink_metadata(run.dir.join(rel)) {
                    std::fs::set_permissions(&file, m.permissions())
                        .map_err(|e| io_err(&file, e))?;
                }
            }
            std::fs::rename(&tmp, &to).map_err(|e| io_err(&to, e))
        };
        if let Err(e) = build() {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        Ok(())
    }

    /// Merges the suite checkpoints of `sources` into this tree's: per binary,
    /// per scenario the entry of the newest run (run ids sort by time). Returns
    /// the checkpoints written (those that changed).
    fn merge_checkpoints(
        &self,
        sources: &[Store],
        links: &mut Vec<PathBuf>,
    ) -> Result<Vec<PathBuf>, StoreError> {
        let read = |path: &Path| -> Result<Option<Checkpoint>, StoreError> {
            match std::fs::read(path) {
                Ok(b) => serde_json::from_slice(&b)
                    .map(Some)
                    .map_err(|e| StoreError::Corrupt {
                        path: path.to_path_buf(),
                        problem: format!("not a valid suite checkpoint: {e}"),
                    }),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(io_err(path, e)),
            }
        };
        let mut merged: BTreeMap<String, Checkpoint> = BTreeMap::new();
        for s in sources {
            let dir = s.dir.join(names::SUITE);
            s.confine(&dir)?;
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut names: Vec<(String, bool)> = rd
                .flatten()
                .map(|e| {
                    let link = e.file_type().is_ok_and(|t| t.is_symlink());
                    (e.file_name().to_string_lossy().into_owned(), link)
                })
                .collect();
            names.sort();
            for (name, link) in names {
                // Invocation records (invocation-*.json) belong to one invocation's processes.
                if !name.ends_with(".json")
                    || name.starts_with('.')
                    || name.starts_with("invocation-")
                {
                    continue;
                }
                if link {
                    links.push(dir.join(&name));
                    continue;
                }
                let Some(cp) = read(&dir.join(&name))? else {
                    continue;
                };
                match merged.get_mut(&name) {
                    None => {
                        merged.insert(name, cp);
                    }
                    Some(m) => merge_checkpoint(m, cp),
                }
            }
        }
        let mut written = vec![];
        for (name, cp) in merged {
            let path = self.dir.join(names::SUITE).join(&name);
            self.confine(&path)?;
            let old = read(&path)?;
            let mut next = old.clone().unwrap_or_else(|| cp.clone());
            if old.is_some() {
                merge_checkpoint(&mut next, cp);
            }
            if old.as_ref() != Some(&next) {
                let bytes = serde_json::to_vec_pretty(&next).expect("checkpoint serializes");
                write_atomic(&path, &bytes)?;
                written.push(path);
            }
        }
        Ok(written)
    }
}

/// Folds `other` into `into`: the earliest start, the latest end, and per
/// scenario the entry with the newest run.
fn merge_checkpoint(into: &mut Checkpoint, other: Checkpoint) {
    let newer = other.started_at > into.started_at;
    if other.started_at < into.started_at {
        into.started_at = other.started_at.clone();
    }
    into.finished_at = match (into.finished_at.take(), other.finished_at) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    into.interrupted |= other.interrupted;
    if newer {
        into.pid = other.pid;
    }
    for (slug, e) in other.scenarios {
        let keep_old = into
            .scenarios
            .get(&slug)
            .is_some_and(|old: &ScenarioEntry| old.run_id >= e.run_id);
        if !keep_old {
            into.scenarios.insert(slug, e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::{RunHandle, StepRecord};
    use crate::store::{ScenarioSpec, StepId, StepStatus};

    fn tree(root: &Path, name: &str, steps: &[&str], runs: u64, keep: usize) -> Store {
        let store = Store::new(root.join(name));
        store.ensure_initialized("p", "http://127.0.0.1:1").unwrap();
        let s = Slug::new("login").unwrap();
        let spec = ScenarioSpec {
            title: format!("Login ({name})"),
            steps: steps.iter().map(|s| s.to_string()).collect(),
            tags: None,
            starred: None,
            estimated_duration: None,
        };
        store.scenario(&s).upsert(&spec, &[]).unwrap();
        for i in 0..runs {
            std::thread::sleep(std::time::Duration::from_millis(2));
            let mut run = RunHandle::start(&store, &s, vec![steps[0].into()]).unwrap();
            run.complete_step(StepRecord {
                id: StepId::new("01").unwrap(),
                status: if i + 1 == runs {
                    StepStatus::Fail
                } else {
                    StepStatus::Pass
                },
                duration_ms: 1,
                error: None,
                location: None,
                summary: None,
            })
            .unwrap();
            run.complete(Some(10)).unwrap();
        }
        store.scenario(&s).prune(keep).unwrap();
        store
    }

    #[test]
    fn pruned_counts_are_summed_step_files_come_from_the_newest_tree_and_links_are_skipped() {
        let t = tempfile::tempdir().unwrap();
        // a: 4 runs, 2 pruned; b (newer, other steps): 3 runs, 1 pruned.
        let a = tree(t.path(), "a", &["Open", "Old step"], 4, 2);
        let b = tree(t.path(), "b", &["Open", "New step"], 3, 2);
        let s = Slug::new("login").unwrap();
        let link_run = b.scenario(&s).runs().unwrap().pop().unwrap();
        std::os::unix::fs::symlink(
            "/etc/passwd",
            b.scenario(&s).run(&link_run).path().join("stolen.txt"),
        )
        .unwrap();
        let into = Store::new(t.path().join("merged"));
        let out = into.merge_from(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(out.copied.len(), 4, "{out:?}");
        assert_eq!(out.skipped_links.len(), 1, "{out:?}");
        assert!(
            !into
                .scenario(&s)
                .run(&link_run)
                .path()
                .join("stolen.txt")
                .exists()
        );
        let meta = into.scenario(&s).meta().unwrap().unwrap();
        // Every run of both trees counts: 4 + 3, of which 2 failed (each tree's last).
        assert_eq!((meta.total_runs, meta.fail_count), (7, 2), "{meta:?}");
        assert_eq!(meta.title, "Login (b)");
        let steps = std::fs::read_dir(into.scenario(&s).path().join("steps"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect::<BTreeSet<_>>();
        assert_eq!(
            steps,
            BTreeSet::from(["01-open.md".into(), "02-new-step.md".into()])
        );
        // Numbers: both trees used 1..; the copies are unique, and lastRunNumber covers them.
        let numbers: BTreeSet<u64> = into
            .scenario(&s)
            .runs()
            .unwrap()
            .iter()
            .map(|r| {
                into.scenario(&s)
                    .run(r)
                    .result()
                    .unwrap()
                    .unwrap()
                    .run_number
                    .unwrap()
            })
            .collect();
        assert_eq!(numbers.len(), 4);
        assert_eq!(meta.last_run_number, *numbers.iter().max().unwrap());
        // Again: nothing changes, the pruned counts are not added twice.
        let again = into.merge_from(&[a, b]).unwrap();
        assert!(!again.changed, "{again:?}");
        assert_eq!(into.scenario(&s).meta().unwrap().unwrap().total_runs, 7);
    }
}
