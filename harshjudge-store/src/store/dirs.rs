//! Typed handles on the folders of `.harshJudge/`: `store.scenario(&slug)`
//! is a scenario's folder, `.run(&id)` one of its runs, `.step(&step)` one
//! step of that run. They are cheap borrowed views (two or three references,
//! `Copy`) that build paths from the layout's names ([`names`](super::names))
//! and read through the store's confined I/O; ids are typed, so each was
//! validated before it became part of a path.

use std::path::PathBuf;

use super::judge::{RunJudgment, StepJudgment};
use super::names::{
    EVIDENCE, JUDGE, META, REPLAY, RESULT, RUNS, SCENARIO_MD, SCENARIOS, SIDECAR_SUFFIX,
    SKILL_STATE, STEP_PREFIX, STEPS, TRACE_RESOURCES, VIDEO, VIDEO_CUES,
};
use super::{
    Durability, EvidenceName, MetaDoc, NewEvidence, RunEvidence, RunId, RunLock, RunResult,
    RunStatus, ScenarioMeta, ScenarioSpec, SkillState, Slug, Stats, StepDoc, StepId, Store,
    StoreError, WrittenEvidence,
};
use harshjudge_browser::trace::ContentHash;

/// `scenarios/{slug}/`: one scenario's folder ([`Store::scenario`]).
#[derive(Clone, Copy, Debug)]
pub struct ScenarioDir<'a> {
    store: &'a Store,
    slug: &'a Slug,
}

/// `scenarios/{slug}/runs/{runId}/`: one run's folder ([`ScenarioDir::run`]).
#[derive(Clone, Copy, Debug)]
pub struct RunDir<'a> {
    scenario: ScenarioDir<'a>,
    run: &'a RunId,
}

/// `…/runs/{runId}/step-{NN}/`: one step of a run ([`RunDir::step`]).
#[derive(Clone, Copy, Debug)]
pub struct StepDir<'a> {
    run: RunDir<'a>,
    step: &'a StepId,
}

impl Store {
    /// The folder of scenario `slug` (no I/O).
    pub fn scenario<'a>(&'a self, slug: &'a Slug) -> ScenarioDir<'a> {
        ScenarioDir { store: self, slug }
    }

    /// `scenarios/`, the folder of every scenario.
    pub fn scenarios_dir(&self) -> PathBuf {
        self.dir().join(SCENARIOS)
    }

    /// `scenarios/*/runs/{runId}`: where a run of unknown scenario is looked
    /// for, as a not-found error names it.
    pub fn run_dir_pattern(&self, run: &RunId) -> PathBuf {
        self.scenarios_dir().join("*").join(RUNS).join(run.as_str())
    }
}

impl<'a> ScenarioDir<'a> {
    /// The scenario's slug.
    pub fn slug(&self) -> &'a Slug {
        self.slug
    }

    /// `scenarios/{slug}`.
    pub fn path(&self) -> PathBuf {
        self.path_with(0)
    }

    /// [`path`](Self::path), in one allocation with room for `more` bytes of
    /// parts below it (paths are built at every step).
    fn path_with(&self, more: usize) -> PathBuf {
        let dir = self.store.dir().as_os_str();
        let mut p = PathBuf::with_capacity(
            dir.len() + SCENARIOS.len() + self.slug.as_str().len() + more + 3,
        );
        p.push(dir);
        p.push(SCENARIOS);
        p.push(self.slug.as_str());
        p
    }

    /// `scenarios/{slug}/meta.yaml`.
    pub fn meta_path(&self) -> PathBuf {
        self.path().join(META)
    }

    /// `scenarios/{slug}/steps`, the step files.
    pub fn steps_dir(&self) -> PathBuf {
        self.path().join(STEPS)
    }

    /// `scenarios/{slug}/runs`.
    pub fn runs_dir(&self) -> PathBuf {
        self.path().join(RUNS)
    }

    /// `scenarios/{slug}/scenario.md`: a v1 scenario (the original's first format).
    pub fn v1_scenario_md(&self) -> PathBuf {
        self.path().join(SCENARIO_MD)
    }

    /// The folder of run `run` of this scenario (no I/O).
    pub fn run(&self, run: &'a RunId) -> RunDir<'a> {
        RunDir {
            scenario: *self,
            run,
        }
    }
}

impl<'a> RunDir<'a> {
    /// The scenario's slug.
    pub fn slug(&self) -> &'a Slug {
        self.scenario.slug
    }

    /// The run's id.
    pub fn id(&self) -> &'a RunId {
        self.run
    }

    /// `scenarios/{slug}/runs/{runId}`.
    pub fn path(&self) -> PathBuf {
        self.path_with(0)
    }

    /// [`path`](Self::path), in one allocation with room for `more` bytes below.
    fn path_with(&self, more: usize) -> PathBuf {
        let mut p = self
            .scenario
            .path_with(RUNS.len() + self.run.as_str().len() + more + 2);
        p.push(RUNS);
        p.push(self.run.as_str());
        p
    }

    /// `…/runs/{runId}/{name}`, in one allocation.
    fn file(&self, name: &str) -> PathBuf {
        let mut p = self.path_with(name.len() + 1);
        p.push(name);
        p
    }

    /// `…/runs/{runId}/result.json`.
    pub fn result_path(&self) -> PathBuf {
        self.file(RESULT)
    }

    /// `…/runs/{runId}/skill-state.yaml`.
    pub fn skill_state_path(&self) -> PathBuf {
        self.file(SKILL_STATE)
    }

    /// `…/runs/{runId}/replay.sh` (runs of `cargo test`).
    pub fn replay_script(&self) -> PathBuf {
        self.path().join(REPLAY)
    }

    /// `…/runs/{runId}/evidence`, the run-level (flat, v1) evidence folder
    /// the original's `startRun` reports (evidence itself goes per step).
    pub fn flat_evidence_dir(&self) -> PathBuf {
        self.path().join(EVIDENCE)
    }

    /// `…/runs/{runId}/video.webm`: the run's video (`HARSHJUDGE_VIDEO`), at
    /// the run's root: no step's evidence, so the original's readers never see it.
    pub fn video_path(&self) -> PathBuf {
        self.file(VIDEO)
    }

    /// `…/runs/{runId}/video.vtt`: the video's cues (WebVTT).
    pub fn video_cues_path(&self) -> PathBuf {
        self.file(VIDEO_CUES)
    }

    /// Where the video is written until it is kept: a temporary name of this
    /// process (removed at the next start if the process died first).
    pub fn video_temp_path(&self) -> Result<PathBuf, StoreError> {
        let temp = super::fsio::tmp_path(&self.video_path());
        self.scenario.store.confine(&temp)?;
        Ok(temp)
    }

    /// Keeps the video written at `temp` ([`video_temp_path`](Self::video_temp_path))
    /// as `video.webm`, with its cues as `video.vtt`.
    pub fn keep_video(&self, temp: &std::path::Path, cues: &str) -> Result<(), StoreError> {
        let (store, path) = (self.scenario.store, self.video_path());
        store.write_file(&self.video_cues_path(), cues.as_bytes())?;
        store.confine(&path)?;
        std::fs::rename(temp, &path).map_err(|source| StoreError::Io { path, source })
    }

    /// `…/runs/{runId}/trace-resources/{hash}.{ext}`: a resource of the run's
    /// DOM snapshots (a stylesheet's text), stored once per content
    /// ([`write_trace_resource`](Self::write_trace_resource)).
    pub fn trace_resource(&self, hash: &ContentHash, ext: &str) -> PathBuf {
        let name = format!("{}.{ext}", hash.as_str());
        let mut p = self.path_with(TRACE_RESOURCES.len() + name.len() + 2);
        p.push(TRACE_RESOURCES);
        p.push(name);
        p
    }

    /// [`trace_resource`](Self::trace_resource) of the run whose step has
    /// its evidence in `evidence` (`…/runs/{runId}/step-NN/evidence`).
    pub fn trace_resource_beside(
        evidence: &std::path::Path,
        hash: &ContentHash,
        ext: &str,
    ) -> Option<PathBuf> {
        let run = evidence.parent()?.parent()?;
        Some(
            run.join(TRACE_RESOURCES)
                .join(format!("{}.{ext}", hash.as_str())),
        )
    }

    /// Writes a resource of the run's DOM snapshots as
    /// [`trace_resource`](Self::trace_resource) names it, a hard link to the
    /// blob of its content (`.blobs/`), unless it is there already; its hash.
    pub fn write_trace_resource(&self, ext: &str, bytes: &[u8]) -> Result<ContentHash, StoreError> {
        (self.scenario.store).write_trace_resource(self.scenario.slug, self.run, ext, bytes)
    }

    /// `…/runs/{runId}/judge/`: the run's judgment, kept apart from its execution.
    pub fn judge_dir(&self) -> PathBuf {
        self.path().join(JUDGE)
    }

    /// `judge/result.json`.
    pub(super) fn judgment_path(&self) -> PathBuf {
        self.judge_dir().join(RESULT)
    }

    /// `judge/replay.sh`.
    pub(super) fn judge_replay_path(&self) -> PathBuf {
        self.judge_dir().join(REPLAY)
    }

    /// `judge/step-{NN}.{suffix}` (`prompt.md`, `response.txt`).
    pub(super) fn judge_file(&self, step: &StepId, suffix: &str) -> PathBuf {
        self.judge_dir()
            .join(format!("{STEP_PREFIX}{step}.{suffix}"))
    }

    /// Whether the run has a `result.json` (of any content; a link counts
    /// without being followed).
    pub fn has_result(&self) -> bool {
        std::fs::symlink_metadata(self.result_path()).is_ok()
    }

    /// Reads `result.json`, or `None` when the run has none yet.
    pub fn result(&self) -> Result<Option<RunResult>, StoreError> {
        self.scenario.store.read_result_of(self)
    }

    /// Reads `skill-state.yaml`, or `None`.
    pub fn skill_state(&self) -> Result<Option<SkillState>, StoreError> {
        self.scenario.store.read_skill_state_of(self)
    }

    /// Reads `judge/result.json`; `None` when the run was never judged.
    pub fn judgment(&self) -> Result<Option<RunJudgment>, StoreError> {
        self.scenario.store.read_judgment_of(self)
    }

    /// One step of this run (no I/O).
    pub fn step(&self, step: &'a StepId) -> StepDir<'a> {
        StepDir { run: *self, step }
    }
}

impl StepDir<'_> {
    /// `…/runs/{runId}/step-{NN}`.
    pub fn path(&self) -> PathBuf {
        self.path_with(0)
    }

    /// [`path`](Self::path), in one allocation with room for `more` bytes below.
    fn path_with(&self, more: usize) -> PathBuf {
        let step = self.step.as_str();
        let mut p = self
            .run
            .path_with(STEP_PREFIX.len() + step.len() + more + 1);
        let mut part = String::with_capacity(STEP_PREFIX.len() + step.len());
        part.push_str(STEP_PREFIX);
        part.push_str(step);
        p.push(part);
        p
    }

    /// `…/step-{NN}/evidence`.
    pub fn evidence(&self) -> PathBuf {
        self.evidence_with(0)
    }

    /// [`evidence`](Self::evidence), in one allocation with room for `more`
    /// bytes below (a file's name).
    pub(crate) fn evidence_with(&self, more: usize) -> PathBuf {
        let mut p = self.path_with(EVIDENCE.len() + more + 1);
        p.push(EVIDENCE);
        p
    }

    /// `step-{NN}/evidence`, relative to the run folder (what `skill-state.yaml`
    /// names, so that it stays true when the run folder moves).
    pub fn evidence_in_run(&self) -> String {
        format!("{}/{EVIDENCE}", self.in_run())
    }

    /// `…/step-{NN}/evidence/{name}.meta.json`, an evidence file's sidecar.
    pub fn sidecar(&self, name: &EvidenceName) -> PathBuf {
        self.evidence().join(format!("{name}{SIDECAR_SUFFIX}"))
    }

    /// `step-{NN}`, the step's folder relative to the run folder.
    pub(super) fn in_run(&self) -> String {
        format!("{STEP_PREFIX}{}", self.step)
    }
}

/// What is recorded in a run, through its handle (the store's confined,
/// atomic, locked I/O).
impl<'a> RunDir<'a> {
    /// Folds a final run's judgment into its `result.json` by `combine` (the
    /// judge's rule, `crate::judge::combine_verdicts`: the store only stores)
    /// and, when its status changed, its scenario's
    /// statistics in `meta.yaml` (`passCount`/`failCount`, and `lastResult`
    /// when it is the last run): under the run's lock, then the `meta.yaml`
    /// lock, so it never races a completion or a recount. The caller must not
    /// hold the run's lock. A run still running is left alone (its completion
    /// combines); a run without `result.json` is an error. Returns the result
    /// as written (or as it was, when nothing changed).
    pub fn apply_judgment(
        &self,
        combine: impl FnOnce(&mut RunResult, Option<&RunJudgment>) -> bool,
    ) -> Result<RunResult, StoreError> {
        self.scenario
            .store
            .apply_judgment(self.scenario.slug, self.run, combine)
    }

    /// Records one step's judgment under the run's lock (read, replace the step's
    /// entry, write atomically), with the judge's prompt and answer beside it.
    /// A judgment recorded twice keeps the last.
    pub fn record_judgment(
        &self,
        judgment: StepJudgment,
        prompt: Option<&str>,
        response: Option<&str>,
    ) -> Result<RunJudgment, StoreError> {
        self.scenario.store.record_judgment(
            self.scenario.slug,
            self.run,
            judgment,
            prompt,
            response,
        )
    }

    /// Writes `judge/replay.sh`: the command that re-makes this run's judgment
    /// from its recorded evidence, without re-running it.
    pub fn write_judge_replay(&self, script: &str) -> Result<PathBuf, StoreError> {
        self.scenario
            .store
            .write_judge_replay(self.scenario.slug, self.run, script)
    }

    /// `result.json` of a run as stored (every key, ours and unknown ones),
    /// or `None` when it is missing or not JSON.
    pub fn result_json(&self) -> Option<serde_json::Value> {
        self.scenario
            .store
            .read_result_json(self.scenario.slug, self.run)
    }

    /// Every evidence file of a run: the files of each `step-NN/evidence/`
    /// folder, then those of the flat v1 `evidence/` folder (a file named
    /// `step-NN-{name}` belongs to step `NN`). Read through the store: no link
    /// is followed out of `.harshJudge/`.
    pub fn evidence(&self) -> Result<RunEvidence, StoreError> {
        self.scenario
            .store
            .run_evidence(self.scenario.slug, self.run)
    }

    /// [`evidence`](Self::evidence) and, from the same listing, each step
    /// folder's names as [`list_evidence`](Self::list_evidence) gives them
    /// (a run's completion lists its evidence once for both).
    pub(crate) fn evidence_listing(&self) -> Result<super::paths::EvidenceListing, StoreError> {
        self.scenario
            .store
            .list_run_evidence(self.scenario.slug, self.run, true)
    }

    /// Writes `result.json` (pretty JSON, no trailing newline, like the original).
    pub fn write_result(&self, result: &RunResult) -> Result<(), StoreError> {
        self.scenario
            .store
            .write_result(self.scenario.slug, self.run, result)
    }

    /// Writes `result.json` now, or hands it to the background writer.
    ///
    /// The document is shared with the pending write, not copied: call
    /// [`withdraw_pending_result`](Self::withdraw_pending_result) before changing it again
    /// (`Arc::make_mut` then finds it unshared).
    pub fn put_result(
        &self,
        result: &std::sync::Arc<RunResult>,
        when: Durability,
    ) -> Result<(), StoreError> {
        self.scenario
            .store
            .put_result(self.scenario.slug, self.run, result, when)
    }

    /// Writes `skill-state.yaml` now, or hands it to the background writer.
    /// Shared like [`put_result`](Self::put_result)'s document.
    pub fn put_skill_state(
        &self,
        state: &std::sync::Arc<SkillState>,
        when: Durability,
    ) -> Result<(), StoreError> {
        self.scenario
            .store
            .put_skill_state(self.scenario.slug, self.run, state, when)
    }

    /// Takes back the background write of this run's `result.json` not yet
    /// made (it was due to be replaced anyway).
    pub fn withdraw_pending_result(&self) {
        self.scenario.store.withdraw_pending(&self.result_path());
    }

    /// Takes back the background write of this run's `skill-state.yaml` not
    /// yet made (it was due to be replaced anyway).
    pub fn withdraw_pending_state(&self) {
        self.scenario
            .store
            .withdraw_pending(&self.skill_state_path());
    }

    /// Writes `skill-state.yaml`.
    pub fn write_skill_state(&self, state: &SkillState) -> Result<(), StoreError> {
        self.scenario
            .store
            .write_skill_state(self.scenario.slug, self.run, state)
    }

    /// Writes an evidence file `{name}.{ext}` and its `{name}.meta.json` sidecar
    /// into `step-{NN}/evidence/`. An existing file of that name is replaced.
    /// Screenshots and files of [`BLOB_MIN_SIZE`](super::BLOB_MIN_SIZE)
    /// bytes or more are hard links to the one copy of their content in
    /// `.blobs/` (`Store::write_linked`).
    pub fn write_evidence(
        &self,
        step: &StepId,
        file: NewEvidence<'_>,
        metadata: serde_json::Map<String, serde_json::Value>,
    ) -> Result<WrittenEvidence, StoreError> {
        (self.scenario.store).write_evidence(self.scenario.slug, self.run, step, file, metadata)
    }

    /// Evidence file names of a step (sidecars and hidden files excluded), sorted byte-wise.
    pub fn list_evidence(&self, step: &StepId) -> Result<Vec<String>, StoreError> {
        self.scenario
            .store
            .list_evidence(self.scenario.slug, self.run, step)
    }

    /// Writes a run's final `result.json` and counts it in `meta.yaml` (and
    /// `flakyCount` for a flaky run) under the `meta.yaml` lock, so that a
    /// recount ([`recount_stats`](ScenarioDir::recount_stats)) sees either both or
    /// neither: a completion racing a recount is never lost nor counted twice.
    pub fn complete(&self, result: &RunResult) -> Result<Stats, StoreError> {
        self.scenario
            .store
            .complete_run(self.scenario.slug, self.run, result)
    }

    /// Takes the exclusive lock of one run (`runs/{id}/.run.lock`), held until the
    /// guard drops: front ends that change a run (an MCP call, a CLI command)
    /// take turns, whatever process they run in.
    pub fn lock(&self) -> Result<RunLock, StoreError> {
        self.scenario.store.lock_run(self.scenario.slug, self.run)
    }

    /// The `step-NN` folders of a run, sorted.
    pub fn steps(&self) -> Result<Vec<StepId>, StoreError> {
        self.scenario.store.step_dirs(self.scenario.slug, self.run)
    }

    /// Marks `run` as executed by this process.
    pub fn mark_running(&self) -> Result<(), StoreError> {
        self.scenario
            .store
            .mark_running(self.scenario.slug, self.run)
    }

    /// Removes the marker of a run that ended (or was marked interrupted).
    pub fn clear_running(&self) {
        self.scenario
            .store
            .clear_running(self.scenario.slug, self.run)
    }

    /// Starts a run: allocates its number (stored in `meta.yaml`), creates
    /// `runs/{runId}/evidence/` and writes `result.json` as `running`, all at
    /// once ([`create`](Self::create)).
    pub fn start(&self, started_at: &str) -> Result<RunResult, StoreError> {
        self.scenario
            .store
            .start_run(self.scenario.slug, self.run, started_at)
    }

    /// Creates a run so that it appears whole: the folder is built under a
    /// temporary name carrying this process's id (`runs/.{runId}.{pid}-{n}.tmp`)
    /// with `evidence/`, `result.json` (`running`, with its number) and
    /// `skill-state.yaml` (when given), then renamed to `runs/{runId}`. A
    /// process killed meanwhile leaves only the temporary folder, which
    /// [`clean_temporary_files`](Store::clean_temporary_files) removes at the
    /// next start; nobody ever sees a run without its `result.json`. With
    /// `mark_running` the run is marked as executed by this process
    /// ([`mark_running`](Self::mark_running)) before it appears, so a run of
    /// a process that dies is always found by [`orphaned_runs`](Store::orphaned_runs).
    pub fn create(
        &self,
        started_at: &str,
        state: Option<&SkillState>,
        mark_running: bool,
    ) -> Result<RunResult, StoreError> {
        self.scenario.store.create_run(
            self.scenario.slug,
            self.run,
            started_at,
            state,
            mark_running,
        )
    }
}

/// What a scenario's folder holds, through its handle: `meta.yaml` (read and
/// rewritten under its lock), its step files and the list of its runs.
impl ScenarioDir<'_> {
    /// Reads `meta.yaml`, or `None` when the scenario has none.
    pub fn meta(&self) -> Result<Option<ScenarioMeta>, StoreError> {
        self.store.read_meta(self.slug)
    }

    /// Locked read-modify-write of `meta.yaml`: `f` gets the document as an ordered
    /// map (unknown keys and their order survive) and the typed view of it.
    pub fn update_meta<R>(
        &self,
        f: impl FnOnce(&mut MetaDoc, &ScenarioMeta) -> R,
    ) -> Result<(R, ScenarioMeta), StoreError> {
        self.store.update_meta(self.slug, f)
    }

    /// [`update_meta`](Self::update_meta) whose change may fail: then
    /// `meta.yaml` is left as it was. Whatever `f` does happens under the
    /// lock, so other files it reads or writes change in step with the
    /// statistics (a run's final `result.json` and its count).
    pub fn try_update_meta<R>(
        &self,
        f: impl FnOnce(&mut MetaDoc, &ScenarioMeta) -> Result<R, StoreError>,
    ) -> Result<(R, ScenarioMeta), StoreError> {
        self.store.try_update_meta(self.slug, f)
    }

    /// Creates or updates a scenario: `meta.yaml` (keeping statistics, and
    /// `starred`/`tags` unless given) and one `steps/NN-slug.md` per step; step
    /// files no longer listed are removed. `docs[i]` fills the i-th step file.
    pub fn upsert(
        &self,
        spec: &ScenarioSpec,
        docs: &[StepDoc],
    ) -> Result<ScenarioMeta, StoreError> {
        self.store.upsert_scenario(self.slug, spec, docs)
    }

    /// `meta.yaml` of a scenario as stored, as JSON (every key), or `None`
    /// when it is missing or not a mapping.
    pub fn meta_json(&self) -> Option<serde_json::Value> {
        self.store.read_meta_json(self.slug)
    }

    /// Records a completed run in `meta.yaml`: counts, `lastRun`, `lastResult`,
    /// and the rounded mean duration.
    pub fn record_completion(
        &self,
        status: RunStatus,
        duration_ms: u64,
    ) -> Result<Stats, StoreError> {
        self.store.record_completion(self.slug, status, duration_ms)
    }

    /// Recomputes a scenario's statistics in `meta.yaml` from its runs: every
    /// run with a final `result.json` that was not interrupted counts, plus the
    /// runs pruned earlier (`prunedRuns`). Used after a process died between
    /// writing a run's result and counting it. The runs are read under the
    /// `meta.yaml` lock, which every completion holds while it writes its
    /// result and its count ([`RunDir::complete`](super::RunDir::complete)), so a
    /// recount racing live writers loses none of their runs.
    pub fn recount_stats(&self) -> Result<Stats, StoreError> {
        self.store.recount_stats(self.slug)
    }

    /// Counts a flaky run (passed on a retry) in `meta.yaml` (`flakyCount`, a
    /// harshjudge addition; the original's counts are left as they are).
    pub fn record_flaky(&self) -> Result<(), StoreError> {
        self.store.record_flaky(self.slug)
    }

    /// The runs of a scenario (folder names that are valid run ids), sorted.
    pub fn runs(&self) -> Result<Vec<RunId>, StoreError> {
        self.store.list_runs(self.slug)
    }

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
    /// removed ([`collect_blobs`](Store::collect_blobs)). Returns the runs removed.
    pub fn prune(&self, keep: usize) -> Result<Vec<RunId>, StoreError> {
        self.store.prune_runs(self.slug, keep)
    }
}
