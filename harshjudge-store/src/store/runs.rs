//! Runs: creation, results, evidence, completion and recounts, listing,
//! the `.running/` marks and retention.

use std::path::PathBuf;
use std::sync::Arc;

use super::fsio::{self, Folder, LockGuard, io_err, write_atomic};
use super::ids::{RunId, Slug, StepId};
use super::io::{process_alive, process_start_time};
use super::meta::{PrunedRuns, count_completion, parse_yaml, result_bytes, to_yaml};
use super::types::{EvidenceMeta, RunResult, RunStatus, SkillState};
use super::yaml::Value;
use super::{
    Durability, NewEvidence, RunDir, RunLock, Stats, Store, StoreError, WrittenEvidence, blobs,
    names, now_iso,
};

impl Store {
    /// Starts a run: allocates its number (stored in `meta.yaml`), creates
    /// `runs/{runId}/evidence/` and writes `result.json` as `running`, all at
    /// once ([`RunDir::create`](super::RunDir::create)).
    pub(super) fn start_run(
        &self,
        slug: &Slug,
        run: &RunId,
        started_at: &str,
    ) -> Result<RunResult, StoreError> {
        self.scenario(slug).run(run).create(started_at, None, false)
    }

    /// Creates a run so that it appears whole: the folder is built under a
    /// temporary name carrying this process's id (`runs/.{runId}.{pid}-{n}.tmp`)
    /// with `evidence/`, `result.json` (`running`, with its number) and
    /// `skill-state.yaml` (when given), then renamed to `runs/{runId}`. A
    /// process killed meanwhile leaves only the temporary folder, which
    /// [`clean_temporary_files`](Self::clean_temporary_files) removes at the
    /// next start; nobody ever sees a run without its `result.json`. With
    /// `mark_running` the run is marked as executed by this process
    /// ([`RunDir::mark_running`](super::RunDir::mark_running)) before it appears, so a run of
    /// a process that dies is always found by [`orphaned_runs`](Self::orphaned_runs).
    pub(super) fn create_run(
        &self,
        slug: &Slug,
        run: &RunId,
        started_at: &str,
        state: Option<&SkillState>,
        mark_running: bool,
    ) -> Result<RunResult, StoreError> {
        let dir = self.scenario(slug).run(run).path();
        self.confine(&dir)?;
        let (number, _) = self.update_meta(slug, |doc, old| {
            let n = old.last_run_number.max(self.count_run_dirs(slug)) + 1;
            doc.set("lastRunNumber", n);
            n
        })?;
        if dir.exists() {
            return Err(StoreError::AlreadyExists {
                what: "run",
                path: dir,
            });
        }
        let result = RunResult {
            run_id: run.to_string(),
            scenario_slug: slug.to_string(),
            status: RunStatus::Running,
            started_at: started_at.into(),
            completed_at: None,
            duration: 0,
            steps: vec![],
            failed_step: None,
            error_message: None,
            run_number: Some(number),
            interrupted: false,
            attempt: None,
            first_run_id: None,
            flaky: false,
            executed_status: None,
            fixtures: Vec::new(),
        };
        if mark_running {
            self.scenario(slug).run(run).mark_running()?;
        }
        let tmp = fsio::tmp_path(&dir);
        let tmp_name = tmp.file_name().and_then(|n| n.to_str());
        let tmp_name = tmp_name.expect("temporary names are UTF-8");
        let build = || -> Result<Folder, StoreError> {
            fsio::create_dir_all(&tmp.join(names::EVIDENCE))?;
            let file = tmp.join(names::RESULT);
            let bytes = result_bytes(&result);
            std::fs::write(&file, harshjudge_browser::secrets::mask_file(&bytes))
                .map_err(|e| io_err(&file, e))?;
            if let Some(state) = state {
                let file = tmp.join(names::SKILL_STATE);
                let text = to_yaml(state);
                std::fs::write(
                    &file,
                    harshjudge_browser::secrets::mask_file(text.as_bytes()),
                )
                .map_err(|e| io_err(&file, e))?;
                PARSED_STATE.remember(&dir.join(names::SKILL_STATE), text, state.clone());
            }
            // The run's folder confined once, now: the folder this call
            // made, opened with no link followed from `.harshJudge/` on, and
            // held open under its final name for the run's evidence.
            let folder = self.open_folder(
                &[names::SCENARIOS, slug.as_str(), names::RUNS, tmp_name],
                &dir,
                false,
            )?;
            std::fs::rename(&tmp, &dir).map_err(|e| io_err(&dir, e))?;
            Ok(folder.moved_to(dir.clone()))
        };
        match build() {
            Ok(folder) => OPEN_RUNS.keep(dir, Arc::new(folder)),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp);
                if mark_running {
                    self.scenario(slug).run(run).clear_running();
                }
                return Err(e);
            }
        }
        Ok(result)
    }

    /// Run folders of a scenario, in progress or not (temporary ones excluded).
    fn count_run_dirs(&self, slug: &Slug) -> u64 {
        let dir = self.scenario(slug).path().join(names::RUNS);
        if self.confine(&dir).is_err() {
            return 0;
        }
        std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .count() as u64
            })
            .unwrap_or(0)
    }

    /// Writes `result.json` (pretty JSON, no trailing newline, like the original).
    pub(super) fn write_result(
        &self,
        slug: &Slug,
        run: &RunId,
        result: &RunResult,
    ) -> Result<(), StoreError> {
        self.scenario(slug)
            .run(run)
            .put_result(&std::sync::Arc::new(result.clone()), Durability::Now)
    }

    /// Writes `result.json` now, or hands it to the background writer.
    pub(super) fn put_result(
        &self,
        slug: &Slug,
        run: &RunId,
        result: &std::sync::Arc<RunResult>,
        when: Durability,
    ) -> Result<(), StoreError> {
        // Shared, not copied: the recorder withdraws a pending render before it
        // changes the document again (`BackgroundWriter::withdraw`).
        let result = std::sync::Arc::clone(result);
        let path = self.scenario(slug).run(run).path().join(names::RESULT);
        let at = path.clone();
        let render = move || {
            let bytes = result_bytes(&result);
            // Written now (a run's final result): the reads that follow in
            // this process (the suite's checkpoint, the reports) find these
            // very bytes and take this result instead of parsing them again.
            // Background renders (every step) are not remembered, nor a
            // running result (it leaves out what its final shape holds, so
            // its parse is not the document in memory).
            if when == Durability::Now
                && result.status != RunStatus::Running
                && let Ok(text) = String::from_utf8(bytes.clone())
            {
                let result = std::sync::Arc::try_unwrap(result).unwrap_or_else(|r| (*r).clone());
                PARSED_RESULT.remember(&at, text, result);
            }
            bytes
        };
        self.put(path, render, when)
    }

    /// Writes `skill-state.yaml` now, or hands it to the background writer.
    pub(super) fn put_skill_state(
        &self,
        slug: &Slug,
        run: &RunId,
        state: &std::sync::Arc<SkillState>,
        when: Durability,
    ) -> Result<(), StoreError> {
        let state = std::sync::Arc::clone(state);
        let path = self.scenario(slug).run(run).path().join(names::SKILL_STATE);
        let at = path.clone();
        let render = move || {
            let text = to_yaml(&*state);
            // The next open of this run (an agent's next call) reads these
            // very bytes: it takes this state instead of parsing them again.
            // A copy: the cache must not share the recorder's live document,
            // or the recorder's next change would copy it on its own thread.
            // Background renders (a harness run, every step: nobody in this
            // process opens the run again) are not remembered; a stale entry
            // is never taken, its text differs.
            if when == Durability::Now {
                let bytes = text.clone().into_bytes();
                PARSED_STATE.remember(&at, text, (*state).clone());
                bytes
            } else {
                text.into_bytes()
            }
        };
        self.put(path, render, when)
    }

    /// Takes back a pending background write of `path` (see
    /// [`BackgroundWriter::withdraw`](fsio::BackgroundWriter::withdraw)).
    pub(super) fn withdraw_pending(&self, path: &std::path::Path) {
        fsio::BackgroundWriter::global().withdraw(path);
    }

    fn put(
        &self,
        path: PathBuf,
        render: impl FnOnce() -> Vec<u8> + Send + 'static,
        when: Durability,
    ) -> Result<(), StoreError> {
        let writer = fsio::BackgroundWriter::global();
        // Now-writes go through the writer too, so that a queued older version
        // can never land after them.
        match when {
            Durability::Background => {
                // Checked when written, on the writer's thread (a path that a
                // newer version replaces before then is never checked): the
                // links it looks for must not be there when the file lands.
                let store = self.clone();
                let at = path.clone();
                writer.submit(
                    path,
                    Box::new(move || {
                        store.confine(&at)?;
                        Ok(render())
                    }),
                );
                Ok(())
            }
            Durability::Now => {
                self.confine(&path)?;
                writer.write_now(path, Box::new(move || Ok(render())))
            }
        }
    }

    /// Reads `result.json`, or `None` when the run has none yet. Bytes this
    /// process wrote last ([`PARSED_RESULT`]) are not parsed again.
    pub(super) fn read_result_of(&self, at: &RunDir) -> Result<Option<RunResult>, StoreError> {
        let path = at.result_path();
        self.confine(&path)?;
        match std::fs::read(&path) {
            Ok(bytes)
                if let Some(known) = std::str::from_utf8(&bytes)
                    .ok()
                    .and_then(|text| PARSED_RESULT.get(&path, text)) =>
            {
                // Debug builds (every test) check that what is taken is
                // what parsing the bytes gives.
                #[cfg(debug_assertions)]
                assert_eq!(
                    serde_json::from_slice::<RunResult>(&bytes).ok().as_ref(),
                    Some(&*known),
                    "{} as remembered is not what its bytes say",
                    path.display()
                );
                Ok(Some((*known).clone()))
            }
            Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => Err(StoreError::Corrupt {
                path,
                problem: "the file is empty (truncated: its process was probably killed while writing it)".into(),
            }),
            Ok(bytes) => {
                serde_json::from_slice(&bytes)
                    .map(Some)
                    .map_err(|e| StoreError::Corrupt {
                        path,
                        problem: format!("not a valid result.json: {e}"),
                    })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    /// Writes `skill-state.yaml`.
    pub(super) fn write_skill_state(
        &self,
        slug: &Slug,
        run: &RunId,
        state: &SkillState,
    ) -> Result<(), StoreError> {
        self.scenario(slug)
            .run(run)
            .put_skill_state(&std::sync::Arc::new(state.clone()), Durability::Now)
    }

    /// Reads `skill-state.yaml`, or `None`.
    pub(super) fn read_skill_state_of(
        &self,
        at: &RunDir,
    ) -> Result<Option<SkillState>, StoreError> {
        let path = at.skill_state_path();
        self.confine(&path)?;
        match std::fs::read_to_string(&path) {
            Ok(text) => match PARSED_STATE.get(&path, &text) {
                Some(state) => Ok(Some((*state).clone())),
                None => {
                    let state: SkillState = parse_yaml(&path, &text)?;
                    Ok(Some((*PARSED_STATE.remember(&path, text, state)).clone()))
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    /// Writes an evidence file `{name}.{ext}` and its `{name}.meta.json` sidecar
    /// into `step-{NN}/evidence/`. An existing file of that name is replaced.
    /// Screenshots and files of [`BLOB_MIN_SIZE`](super::BLOB_MIN_SIZE)
    /// bytes or more are hard links to the one copy of their content in
    /// `.blobs/` ([`write_linked`](Self::write_linked)).
    pub(super) fn write_evidence(
        &self,
        slug: &Slug,
        run: &RunId,
        step: &StepId,
        file: NewEvidence<'_>,
        metadata: serde_json::Map<String, serde_json::Value>,
    ) -> Result<WrittenEvidence, StoreError> {
        let NewEvidence {
            name,
            ext,
            kind,
            bytes,
        } = file;
        // Masked once, before the sidecar takes its size and `.blobs/` its hash.
        let bytes = &harshjudge_browser::secrets::mask_file(bytes)[..];
        let ext_ok =
            !ext.is_empty() && ext.len() <= 10 && ext.bytes().all(|b| b.is_ascii_alphanumeric());
        if !ext_ok {
            return Err(StoreError::InvalidId {
                kind: "file extension",
                value: ext.into(),
                rule: "must be 1 to 10 letters or digits",
            });
        }
        let step_dir = self.scenario(slug).run(run).step(step);
        let file_name = format!("{name}.{ext}");
        let sidecar_name = format!("{name}{}", names::SIDECAR_SUFFIX);
        let path = step_dir.evidence_with(file_name.len() + 1).join(&file_name);
        // The evidence folder below the run's folder, made when missing, no
        // link followed (`Store::evidence_folder`). In a folder this call
        // made nothing is there yet; in one that was there, a link at either
        // name is refused (the rename would replace it, never follow it).
        let (dir, made) = self.evidence_folder(slug, run, &step_dir.in_run(), &path)?;
        if !made {
            dir.refuse_link(&sidecar_name)?;
            dir.refuse_link(&file_name)?;
        }
        let sidecar = EvidenceMeta {
            run_id: run.to_string(),
            step_id: step.to_string(),
            kind: kind.into(),
            name: name.to_string(),
            captured_at: now_iso(),
            file_size: bytes.len() as u64,
            metadata,
        };
        let text = serde_json::to_string_pretty(&sidecar).expect("sidecar serializes");
        // The sidecar lands first and the file last, each atomically: an
        // evidence file is never seen without its sidecar. A process killed
        // between the two leaves a sidecar alone, which no reader lists and
        // the next start removes ([`Store::clean_temporary_files`]).
        dir.write_atomic(&sidecar_name, text.as_bytes())?;
        // Screenshots and larger files are stored once per content
        // (`.blobs/`), the file a hard link to it.
        if blobs::dedupes(ext, bytes.len()) {
            self.write_linked(&dir, &file_name, bytes)?;
        } else {
            dir.write_atomic(&file_name, bytes)?;
        }
        Ok(WrittenEvidence {
            path,
            file_name,
            size: bytes.len() as u64,
        })
    }

    /// Evidence file names of a step (sidecars and hidden files excluded), sorted byte-wise.
    pub(super) fn list_evidence(
        &self,
        slug: &Slug,
        run: &RunId,
        step: &StepId,
    ) -> Result<Vec<String>, StoreError> {
        let dir = self.scenario(slug).run(run).step(step).evidence();
        self.confine(&dir)?;
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(io_err(&dir, e)),
        };
        let mut names: Vec<String> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".meta.json") && !n.starts_with('.'))
            .collect();
        names.sort();
        Ok(names)
    }

    /// Records a completed run in `meta.yaml`: counts, `lastRun`, `lastResult`,
    /// and the rounded mean duration.
    pub(super) fn record_completion(
        &self,
        slug: &Slug,
        status: RunStatus,
        duration_ms: u64,
    ) -> Result<Stats, StoreError> {
        let (stats, _) = self.update_meta(slug, |doc, old| {
            count_completion(doc, old, status, duration_ms)
        })?;
        Ok(stats)
    }

    /// Writes a run's final `result.json` and counts it in `meta.yaml` (and
    /// `flakyCount` for a flaky run) under the `meta.yaml` lock, so that a
    /// recount ([`recount_stats`](Self::recount_stats)) sees either both or
    /// neither: a completion racing a recount is never lost nor counted twice.
    pub(super) fn complete_run(
        &self,
        slug: &Slug,
        run: &RunId,
        result: &RunResult,
    ) -> Result<Stats, StoreError> {
        let (stats, _) = self.try_update_meta(slug, |doc, old| {
            self.scenario(slug).run(run).write_result(result)?;
            let stats = count_completion(doc, old, result.status, result.duration);
            if result.flaky {
                let n = doc.0.get("flakyCount").and_then(Value::as_u64).unwrap_or(0);
                doc.set("flakyCount", n + 1);
            }
            Ok(stats)
        })?;
        // Done: its folder need not stay open (a later write opens it again).
        OPEN_RUNS.forget(&self.scenario(slug).run(run).path());
        Ok(stats)
    }

    /// Recomputes a scenario's statistics in `meta.yaml` from its runs: every
    /// run with a final `result.json` that was not interrupted counts, plus the
    /// runs pruned earlier (`prunedRuns`). Used after a process died between
    /// writing a run's result and counting it. The runs are read under the
    /// `meta.yaml` lock, which every completion holds while it writes its
    /// result and its count ([`RunDir::complete`](super::RunDir::complete)), so a
    /// recount racing live writers loses none of their runs.
    pub(super) fn recount_stats(&self, slug: &Slug) -> Result<Stats, StoreError> {
        let (stats, _) = self.try_update_meta(slug, |doc, _| {
            let mut done: Vec<RunResult> = vec![];
            for run in self.scenario(slug).runs()? {
                if let Ok(Some(r)) = self.scenario(slug).run(&run).result()
                    && r.status != RunStatus::Running
                    && !r.interrupted
                {
                    done.push(r);
                }
            }
            done.sort_by(|a, b| a.completed_at.cmp(&b.completed_at));
            let base = PrunedRuns::read(doc);
            let total = base.total_runs + done.len() as u64;
            let pass = base.pass_count
                + done.iter().filter(|r| r.status == RunStatus::Pass).count() as u64;
            let flaky = base.flaky_count + done.iter().filter(|r| r.flaky).count() as u64;
            let sum: u64 = base.duration_sum + done.iter().map(|r| r.duration).sum::<u64>();
            let avg = if total == 0 {
                0
            } else {
                (sum as f64 / total as f64 + 0.5).floor() as u64
            };
            if let Some(last) = done.last() {
                if let Some(at) = &last.completed_at {
                    doc.set("lastRun", at.clone());
                }
                doc.set("lastResult", last.status.as_str());
            }
            doc.set("totalRuns", total);
            doc.set("passCount", pass);
            doc.set("failCount", total - pass);
            doc.set("avgDuration", avg);
            if flaky > 0 || doc.0.contains_key("flakyCount") {
                doc.set("flakyCount", flaky);
            }
            Ok(Stats {
                total_runs: total,
                pass_count: pass,
                fail_count: total - pass,
                avg_duration: avg,
            })
        })?;
        Ok(stats)
    }

    /// Counts a flaky run (passed on a retry) in `meta.yaml` (`flakyCount`, a
    /// harshjudge addition; the original's counts are left as they are).
    pub(super) fn record_flaky(&self, slug: &Slug) -> Result<(), StoreError> {
        self.update_meta(slug, |doc, _| {
            let n = doc.0.get("flakyCount").and_then(Value::as_u64).unwrap_or(0);
            doc.set("flakyCount", n + 1);
        })?;
        Ok(())
    }

    /// Takes the exclusive lock of one run (`runs/{id}/.run.lock`), held until the
    /// guard drops: front ends that change a run (an MCP call, a CLI command)
    /// take turns, whatever process they run in.
    pub(super) fn lock_run(&self, slug: &Slug, run: &RunId) -> Result<RunLock, StoreError> {
        let path = self.scenario(slug).run(run).path().join(names::RUN_LOCK);
        self.confine(&path)?;
        LockGuard::acquire(&path).map(RunLock)
    }

    /// The `step-NN` folders of a run, sorted.
    pub(super) fn step_dirs(&self, slug: &Slug, run: &RunId) -> Result<Vec<StepId>, StoreError> {
        let dir = self.scenario(slug).run(run).path();
        self.confine(&dir)?;
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(io_err(&dir, e)),
        };
        let mut ids: Vec<StepId> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let id = name.strip_prefix("step-")?;
                (id.len() == 2 && id.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| StepId::new(id).ok())
                    .flatten()
            })
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// The runs of a scenario (folder names that are valid run ids), sorted.
    pub(super) fn list_runs(&self, slug: &Slug) -> Result<Vec<RunId>, StoreError> {
        let dir = self.scenario(slug).path().join(names::RUNS);
        self.confine(&dir)?;
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(io_err(&dir, e)),
        };
        let mut runs: Vec<RunId> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| RunId::new(e.file_name().to_string_lossy().into_owned()).ok())
            .collect();
        runs.sort();
        Ok(runs)
    }

    /// The scenarios of the project (folder names that are valid slugs), sorted byte-wise.
    pub fn list_scenarios(&self) -> Result<Vec<Slug>, StoreError> {
        let dir = self.dir.join(names::SCENARIOS);
        self.confine(&dir)?;
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(io_err(&dir, e)),
        };
        let mut slugs: Vec<Slug> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| Slug::new(e.file_name().to_string_lossy().into_owned()).ok())
            .collect();
        slugs.sort();
        Ok(slugs)
    }

    /// Finds the scenario a run belongs to.
    pub fn find_run(&self, run: &RunId) -> Result<Option<Slug>, StoreError> {
        let scenarios = self.dir.join(names::SCENARIOS);
        self.confine(&scenarios)?;
        let rd = match std::fs::read_dir(&scenarios) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(&scenarios, e)),
        };
        let mut slugs: Vec<String> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        slugs.sort();
        for s in slugs {
            if let Ok(slug) = Slug::new(s)
                && std::fs::symlink_metadata(self.scenario(&slug).run(run).path())
                    .is_ok_and(|m| m.file_type().is_dir())
            {
                return Ok(Some(slug));
            }
        }
        Ok(None)
    }
}

/// A run whose `result.json` is there but empty (its process was killed while
/// writing it): every reader passes it over, so it is named once per
/// invocation ([`Store::empty_results`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmptyResult {
    /// The scenario.
    pub slug: Slug,
    /// The run.
    pub run: RunId,
    /// Its `result.json`.
    pub path: PathBuf,
}

impl std::fmt::Display for EmptyResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is empty (its process was probably killed while writing it): run {} of \"{}\" is passed over, counted in no statistic, shown in no report and never reused by --resume; its folder is kept for you to look at (delete {} to drop the run)",
            self.path.display(),
            self.run,
            self.slug,
            self.path
                .parent()
                .map_or(self.path.as_path(), |d| d)
                .display()
        )
    }
}

impl Store {
    /// The runs of every scenario whose `result.json` exists but is empty or
    /// only blanks (what a process killed mid-write leaves; `result.json` is
    /// written whole by a rename, so a run in progress never shows one).
    /// Only their size is read (and the bytes of a file of at most 64 bytes).
    pub fn empty_results(&self) -> Vec<EmptyResult> {
        let mut out = Vec::new();
        for slug in self.list_scenarios().unwrap_or_default() {
            for run in self.list_runs(&slug).unwrap_or_default() {
                let path = self.scenario(&slug).run(&run).result_path();
                let Ok(meta) = std::fs::symlink_metadata(&path) else {
                    continue;
                };
                let empty = meta.is_file()
                    && (meta.len() == 0
                        || (meta.len() <= 64
                            && std::fs::read(&path)
                                .is_ok_and(|b| b.iter().all(u8::is_ascii_whitespace))));
                if empty {
                    out.push(EmptyResult {
                        slug: slug.clone(),
                        run,
                        path,
                    });
                }
            }
        }
        out
    }
}

/// Runs a `cargo test` process is executing are marked in `.running/` (one small
/// file per run: the process id and its start time), so that a run left
/// `running` by a process that died (kill -9, crash) is found at the next start
/// without reading every `result.json`.
impl Store {
    fn running_marker(&self, slug: &Slug, run: &RunId) -> PathBuf {
        self.dir.join(names::RUNNING).join(format!("{slug}~{run}"))
    }

    /// Marks `run` as executed by this process.
    pub(super) fn mark_running(&self, slug: &Slug, run: &RunId) -> Result<(), StoreError> {
        let me = std::process::id();
        let text = format!("{me} {}\n", process_start_time(me).unwrap_or(0));
        let path = self.running_marker(slug, run);
        self.confine(&path)?;
        write_atomic(&path, text.as_bytes())
    }

    /// Removes the marker of a run that ended (or was marked interrupted).
    pub(super) fn clear_running(&self, slug: &Slug, run: &RunId) {
        let _ = std::fs::remove_file(self.running_marker(slug, run));
    }

    /// Runs marked running whose process is gone: (scenario, run, pid).
    pub fn orphaned_runs(&self) -> Vec<(Slug, RunId, u32)> {
        let dir = self.dir.join(names::RUNNING);
        if self.confine(&dir).is_err() {
            return vec![];
        }
        let Ok(rd) = std::fs::read_dir(dir) else {
            return vec![];
        };
        let mut out = vec![];
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some((slug, run)) = name.split_once('~') else {
                continue;
            };
            let (Ok(slug), Ok(run)) = (Slug::new(slug), RunId::new(run)) else {
                continue;
            };
            if !e.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            let mut parts = text.split_whitespace();
            let pid: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
            let started: u64 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
            if pid == 0 || !process_alive(pid, started) {
                out.push((slug, run, pid));
            }
        }
        out.sort();
        out
    }
}

/// `HARSHJUDGE_KEEP_RUNS`: how many runs of each scenario to keep (the newest;
/// never a running one nor the newest failed one). A number ≥ 1, or `all` to
/// keep every run (`None`); default [`Store::DEFAULT_KEEP_RUNS`].
pub fn keep_runs() -> Result<Option<usize>, harshjudge_browser::settings::SettingError> {
    let Some(value) = harshjudge_browser::settings::env("HARSHJUDGE_KEEP_RUNS")? else {
        return Ok(Some(Store::DEFAULT_KEEP_RUNS));
    };
    let v = value.trim();
    if v.eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    match v.parse::<usize>() {
        Ok(n) if (1..=1_000_000).contains(&n) => Ok(Some(n)),
        _ => Err(harshjudge_browser::settings::SettingError {
            name: "HARSHJUDGE_KEEP_RUNS",
            value,
            expected: "a number of runs per scenario from 1 to 1000000, or all".into(),
        }),
    }
}

/// Retention: how many runs per scenario `.harshJudge/` keeps.
impl Store {
    /// Default of `HARSHJUDGE_KEEP_RUNS`: the newest 20 runs of each scenario.
    /// Everything that shows history shows less (the report's history row 12
    /// runs, `getStatus` 10), so 20 keeps all of it plus room to compare a
    /// regression with the passes before it, while a scenario with browser
    /// evidence stays at a few MB however long the project lives.
    pub const DEFAULT_KEEP_RUNS: usize = 20;

    /// Removes the oldest runs of `slug` beyond the newest `keep` (by run id,
    /// which sorts by start time). Never removed: a run still `running` (or
    /// without a readable `result.json`: it may be in progress, or need a
    /// person to look at it), the newest failed run (not interrupted), and
    /// — since `keep` is at least 1 — the newest run. The statistics in
    /// `meta.yaml` do not change: what each removed run counted is added to
    /// `prunedRuns`, which [`recount_stats`](Self::recount_stats) adds back.
    /// Each run is taken under its lock, then the `meta.yaml` lock, renamed to
    /// a temporary name of this process (removed at the next start if it dies
    /// here) and deleted; then the evidence blobs no run links any more are
    /// removed ([`collect_blobs`](Self::collect_blobs)). Returns the runs removed.
    pub(super) fn prune_runs(&self, slug: &Slug, keep: usize) -> Result<Vec<RunId>, StoreError> {
        let keep = keep.max(1);
        let runs = self.scenario(slug).runs()?;
        if runs.len() <= keep {
            return Ok(vec![]);
        }
        let results: Vec<Option<RunResult>> = runs
            .iter()
            .map(|r| self.scenario(slug).run(r).result().ok().flatten())
            .collect();
        let newest_failed = runs
            .iter()
            .zip(&results)
            .rev()
            .find(|(_, r)| {
                r.as_ref()
                    .is_some_and(|r| r.status == RunStatus::Fail && !r.interrupted)
            })
            .map(|(id, _)| id.clone());
        let mut removed = vec![];
        let candidates = runs.len() - keep;
        for (run, result) in runs.iter().zip(&results).take(candidates) {
            let final_run = result
                .as_ref()
                .is_some_and(|r| r.status != RunStatus::Running);
            if !final_run || newest_failed.as_ref() == Some(run) {
                continue;
            }
            let _run_lock = self.scenario(slug).run(run).lock()?;
            // Read again under the lock: what counts is the state now.
            let Ok(Some(r)) = self.scenario(slug).run(run).result() else {
                continue;
            };
            if r.status == RunStatus::Running {
                continue;
            }
            let dir = self.scenario(slug).run(run).path();
            let trash = fsio::tmp_path(&dir);
            self.try_update_meta(slug, |doc, _| {
                std::fs::rename(&dir, &trash).map_err(|e| io_err(&dir, e))?;
                if !r.interrupted {
                    let mut base = PrunedRuns::read(doc);
                    base.total_runs += 1;
                    base.pass_count += u64::from(r.status == RunStatus::Pass);
                    base.flaky_count += u64::from(r.flaky);
                    base.duration_sum += r.duration;
                    base.write(doc);
                }
                Ok(())
            })?;
            drop(_run_lock);
            std::fs::remove_dir_all(&trash).map_err(|e| io_err(&trash, e))?;
            removed.push(run.clone());
        }
        if !removed.is_empty() {
            // The blobs only those runs used. A failure here costs space, not
            // data: the next retention tries again.
            let _ = self.collect_blobs();
        }
        Ok(removed)
    }
}

/// The last parse of each run's `skill-state.yaml` (every MCP call on a run
/// reopens it). Only runs in progress gain from it, and a process goes
/// through ever new runs (an MCP server, one after another): it keeps at
/// most [`PARSED_STATES`].
pub(super) static PARSED_STATE: fsio::ParseCache<SkillState> = fsio::ParseCache::new(PARSED_STATES);

/// The most runs [`PARSED_STATE`] keeps the parse of (far more than run at
/// once).
pub(super) const PARSED_STATES: usize = 64;

/// The last `result.json` this process wrote now, per run (a run's final
/// result: the suite's checkpoint and the reports read it back at once).
/// Few are kept: a long suite's results are read back soon after each is written.
static PARSED_RESULT: fsio::ParseCache<RunResult> = fsio::ParseCache::new(64);

/// A run's folder held open, and the folders below it.
impl Store {
    /// The folder `parts` below `.harshJudge/` (each one plain name), opened
    /// part by part, each relative to the one before with `O_NOFOLLOW |
    /// O_DIRECTORY`: no link below the store is followed, nothing outside it
    /// is reached. A link is refused as [`StoreError::Link`] naming it, with
    /// `target` (what was to be read or written) as the refused path. With
    /// `make`, missing folders are made (the store's folder too).
    pub(super) fn open_folder(
        &self,
        parts: &[&str],
        target: &std::path::Path,
        make: bool,
    ) -> Result<Folder, StoreError> {
        if make {
            fsio::create_dir_all(self.dir())?;
        }
        let mut folder = Folder::open(self.dir()).map_err(|e| io_err(self.dir(), e))?;
        for part in parts {
            folder = folder.sub(part, make, target)?.0;
        }
        Ok(folder)
    }

    /// The folder of run `run`, held open: opened when this process made the
    /// run ([`create_run`](Self::create_run)), else at its first use here
    /// ([`open_folder`](Self::open_folder), made when missing, as the
    /// former path-by-path writes made it), confined then, once.
    pub(super) fn run_folder(&self, slug: &Slug, run: &RunId) -> Result<Arc<Folder>, StoreError> {
        let path = self.scenario(slug).run(run).path();
        if let Some(folder) = OPEN_RUNS.get(&path) {
            return Ok(folder);
        }
        let parts = [names::SCENARIOS, slug.as_str(), names::RUNS, run.as_str()];
        let folder = Arc::new(self.open_folder(&parts, &path, true)?);
        OPEN_RUNS.keep(path, folder.clone());
        Ok(folder)
    }

    /// `trace-resources/{hash}.{ext}` of run `run`, a hard link to the blob
    /// of `bytes` ([`RunDir::write_trace_resource`]).
    pub(super) fn write_trace_resource(
        &self,
        slug: &Slug,
        run: &RunId,
        ext: &str,
        bytes: &[u8],
    ) -> Result<harshjudge_browser::trace::ContentHash, StoreError> {
        let hash = harshjudge_browser::trace::ContentHash::of(bytes);
        let path = self.scenario(slug).run(run).trace_resource(&hash, ext);
        let name = format!("{}.{ext}", hash.as_str());
        let (folder, _) = self
            .run_folder(slug, run)?
            .sub(names::TRACE_RESOURCES, true, &path)?;
        // Its name is its content: one there already is this one.
        let there = std::fs::symlink_metadata(&path)
            .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64);
        if !there {
            self.write_linked(&folder, &name, bytes)?;
        }
        Ok(hash)
    }

    /// `{step}/evidence/` of run `run`, opened below its folder held open
    /// ([`run_folder`](Self::run_folder)) with no link followed, each part
    /// made when missing ([`Folder::sub`]). Also answers whether this call
    /// made the evidence folder (then nothing is in it yet). A run folder
    /// removed since it was opened is opened (made) again, once.
    fn evidence_folder(
        &self,
        slug: &Slug,
        run: &RunId,
        step: &str,
        target: &std::path::Path,
    ) -> Result<(Folder, bool), StoreError> {
        let folder = self.run_folder(slug, run)?;
        let (step, _) = match folder.sub(step, true, target) {
            Err(StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                OPEN_RUNS.forget(folder.path());
                self.run_folder(slug, run)?.sub(step, true, target)?
            }
            other => other?,
        };
        step.sub(names::EVIDENCE, true, target)
    }
}

/// The folders of the runs this process writes into, each opened once, no
/// link followed ([`Store::open_run_folder`]), and kept while the run goes
/// on: the newest [`OpenRuns::MAX`] (a process that starts run after run,
/// an MCP server, keeps no more descriptors than that), a run's entry
/// dropped when it completes.
pub(super) struct OpenRuns {
    runs: std::sync::Mutex<Vec<(PathBuf, Arc<Folder>)>>,
}

impl OpenRuns {
    const MAX: usize = 64;

    fn get(&self, path: &std::path::Path) -> Option<Arc<Folder>> {
        let runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        runs.iter().find(|(p, _)| p == path).map(|(_, f)| f.clone())
    }

    fn keep(&self, path: PathBuf, folder: Arc<Folder>) {
        let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        runs.retain(|(p, _)| *p != path);
        if runs.len() >= Self::MAX {
            runs.remove(0);
        }
        runs.push((path, folder));
    }

    pub(super) fn forget(&self, path: &std::path::Path) {
        let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        runs.retain(|(p, _)| p != path);
    }
}

pub(super) static OPEN_RUNS: OpenRuns = OpenRuns {
    runs: std::sync::Mutex::new(Vec::new()),
};
