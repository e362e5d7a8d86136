//! The run lifecycle — start a run, record evidence, complete steps, complete
//! the run, update statistics — as one implementation shared by the harness and
//! the MCP server. It never prints.
//!
//! `settle.rs` derives a run's final state from its steps (pure),
//! `writer.rs` is the consumer of the runner's events that records them
//! through a [`RunHandle`], `state.rs` tells where a run stands
//! ([`run_state`]), `repair.rs` repairs what dead processes left and applies
//! retention ([`repair_leftovers`], [`prune`]).

use std::collections::BTreeMap;
use std::time::Instant;

use crate::store::{CHECKLIST_EVIDENCE, CHECKLIST_PRE_RUN};
use crate::store::{
    CompletedStep, Durability, NewEvidence, Phase, RunDir, RunId, RunLock, RunResult, RunStatus,
    SkillError, SkillState, Slug, Stats, StepId, StepResult, StepStatus, Store, StoreError,
    WrittenEvidence, now_iso,
};

pub mod judging;
mod repair;
pub mod replay;
mod settle;
mod state;
mod trace_files;
pub mod writer;

pub use repair::{Pruned, prune, repair_leftovers};
pub use state::{NextStep, RunState, StepState, run_state};

/// An open run: `result.json` and `skill-state.yaml` kept in memory and written
/// through on every change.
#[derive(Debug)]
pub struct RunHandle {
    store: Store,
    slug: Slug,
    id: RunId,
    /// Shared with the background writer's pending render of `result.json`
    /// (changed through [`result_mut`](Self::result_mut)).
    result: std::sync::Arc<RunResult>,
    /// Shared like `result`, for `skill-state.yaml` ([`state_mut`](Self::state_mut)).
    state: std::sync::Arc<SkillState>,
    /// Step titles: given at start, or read from `meta.yaml` when first needed.
    titles: std::cell::OnceCell<Vec<String>>,
    clock: Instant,
    /// Milliseconds the run had lasted when this handle took it over.
    elapsed_before: u64,
    durability: Durability,
    /// Held by handles that reopened a run ([`RunHandle::open`]).
    _lock: Option<RunLock>,
    /// Evidence files written through this handle, per step number.
    evidence: BTreeMap<usize, std::collections::BTreeSet<String>>,
    /// Expectations in words of the steps (`step!(…, expect = "…")`), per step number.
    expectations: BTreeMap<usize, String>,
    /// The run's evidence as its completion listed it
    /// ([`take_listed_evidence`](Self::take_listed_evidence)).
    listed_evidence: Option<crate::store::RunEvidence>,
}

/// What [`RunHandle::complete_step`] records.
#[derive(Clone, Debug)]
pub struct StepRecord {
    /// The step.
    pub id: StepId,
    /// pass / fail / skipped.
    pub status: StepStatus,
    /// Milliseconds.
    pub duration_ms: u64,
    /// The failure message.
    pub error: Option<String>,
    /// `file:line:col` of the failure.
    pub location: Option<String>,
    /// One-line summary.
    pub summary: Option<String>,
}

impl RunHandle {
    /// Starts a new run of `slug`, whose steps are `titles` (in order): the
    /// run folder appears at once with `result.json` (running, with
    /// `startedAt`) and `skill-state.yaml` ([`RunDir::create`](crate::store::RunDir::create)).
    pub fn start(store: &Store, slug: &Slug, titles: Vec<String>) -> Result<Self, StoreError> {
        Self::start_with(store, slug, titles, false)
    }

    /// [`start`](Self::start) for a run this process executes to its end (the
    /// harness): it is marked running by this process ([`RunDir::mark_running`](crate::store::RunDir::mark_running))
    /// before it appears, so if the process dies at any point the next start
    /// finds the run and marks it interrupted.
    pub fn start_marked(
        store: &Store,
        slug: &Slug,
        titles: Vec<String>,
    ) -> Result<Self, StoreError> {
        Self::start_with(store, slug, titles, true)
    }

    fn start_with(
        store: &Store,
        slug: &Slug,
        titles: Vec<String>,
        mark_running: bool,
    ) -> Result<Self, StoreError> {
        let id = RunId::generate();
        let started_at = now_iso();
        let mut checklist = BTreeMap::new();
        checklist.insert(CHECKLIST_EVIDENCE.to_string(), "pending".to_string());
        checklist.insert(CHECKLIST_PRE_RUN.to_string(), "completed".to_string());
        let state = SkillState {
            skill_version: "1.0".into(),
            started_at: started_at.clone(),
            current_phase: Phase::Init,
            current_step: 0,
            total_steps: titles.len(),
            completed_steps: vec![],
            checklist_status: checklist,
            last_action: "Run started".into(),
            error: None,
            completed_at: None,
            run_id: id.to_string(),
            scenario_slug: slug.to_string(),
            pid: std::process::id(),
        };
        let result =
            store
                .scenario(slug)
                .run(&id)
                .create(&started_at, Some(&state), mark_running)?;
        Ok(RunHandle {
            store: store.clone(),
            slug: slug.clone(),
            id,
            result: std::sync::Arc::new(result),
            state: std::sync::Arc::new(state),
            titles: std::cell::OnceCell::from(titles),
            clock: Instant::now(),
            elapsed_before: 0,
            durability: Durability::Now,
            _lock: None,
            evidence: BTreeMap::new(),
            expectations: BTreeMap::new(),
            listed_evidence: None,
        })
    }

    /// Reopens a run started earlier, by this process or another (an agent's
    /// MCP calls, a CLI command), to record more in it. The handle holds the
    /// run's lock until it drops, so concurrent changes to one run take turns
    /// and each sees the previous one's files. A run the original HarshJudge
    /// started (no `result.json` or `skill-state.yaml` yet) is picked up too.
    pub fn open(store: &Store, run: &RunId) -> Result<Self, StoreError> {
        let slug = store.find_run(run)?.ok_or_else(|| not_found(store, run))?;
        Self::open_in(store, &slug, run)
    }

    /// [`open`](Self::open) for a run whose scenario is known (it is checked).
    pub fn open_in(store: &Store, slug: &Slug, run: &RunId) -> Result<Self, StoreError> {
        if !store.scenario(slug).run(run).path().is_dir() {
            return Err(not_found(store, run));
        }
        let slug = slug.clone();
        let lock = store.scenario(&slug).run(run).lock()?;
        let saved_state = store.scenario(&slug).run(run).skill_state()?;
        let result = match store.scenario(&slug).run(run).result()? {
            Some(r) => r,
            None => RunResult {
                run_id: run.to_string(),
                scenario_slug: slug.to_string(),
                status: RunStatus::Running,
                started_at: saved_state
                    .as_ref()
                    .map(|s| s.started_at.clone())
                    .unwrap_or_else(now_iso),
                completed_at: None,
                duration: 0,
                steps: vec![],
                failed_step: None,
                error_message: None,
                run_number: None,
                interrupted: false,
                attempt: None,
                first_run_id: None,
                flaky: false,
                executed_status: None,
                fixtures: Vec::new(),
            },
        };
        let state = saved_state.unwrap_or_else(|| SkillState {
            skill_version: "1.0".into(),
            started_at: result.started_at.clone(),
            current_phase: Phase::ExecuteSteps,
            current_step: 0,
            total_steps: store
                .scenario(&slug)
                .meta()
                .ok()
                .flatten()
                .map_or(0, |m| m.steps.len()),
            completed_steps: result
                .steps
                .iter()
                .map(|s| CompletedStep {
                    step: s.id.parse().unwrap_or(0),
                    status: s.status,
                    evidence_captured: !s.evidence_files.is_empty(),
                    timestamp: now_iso(),
                })
                .collect(),
            checklist_status: BTreeMap::from([
                (CHECKLIST_EVIDENCE.to_string(), "in_progress".to_string()),
                (CHECKLIST_PRE_RUN.to_string(), "completed".to_string()),
            ]),
            last_action: "Run reopened".into(),
            error: None,
            completed_at: None,
            run_id: run.to_string(),
            scenario_slug: slug.to_string(),
            pid: std::process::id(),
        });
        let elapsed_before = chrono::DateTime::parse_from_rfc3339(&result.started_at)
            .map(|t| (chrono::Utc::now() - t.with_timezone(&chrono::Utc)).num_milliseconds())
            .unwrap_or(0)
            .max(0) as u64;
        Ok(RunHandle {
            store: store.clone(),
            slug,
            id: run.clone(),
            result: std::sync::Arc::new(result),
            state: std::sync::Arc::new(state),
            titles: std::cell::OnceCell::new(),
            clock: Instant::now(),
            elapsed_before,
            durability: Durability::Now,
            _lock: Some(lock),
            evidence: BTreeMap::new(),
            expectations: BTreeMap::new(),
            listed_evidence: None,
        })
    }

    /// The step titles of the scenario, in order (from `meta.yaml` for a
    /// reopened run; empty when it lists none or cannot be read).
    pub fn titles(&self) -> &[String] {
        self.titles.get_or_init(|| {
            self.store
                .scenario(&self.slug)
                .meta()
                .ok()
                .flatten()
                .map(|m| m.steps.into_iter().map(|s| s.title).collect())
                .unwrap_or_default()
        })
    }

    /// The current `skill-state.yaml` content.
    pub fn state(&self) -> &SkillState {
        &self.state
    }

    /// Fails with [`StoreError::RunCompleted`] when the run is final.
    pub fn ensure_running(&self) -> Result<(), StoreError> {
        self.ensure_open()
    }

    /// Lets the background writer persist `result.json` and `skill-state.yaml`
    /// between steps (the harness); the final state is always written before
    /// [`complete`](Self::complete) returns.
    pub fn with_background_writes(mut self) -> Self {
        self.durability = Durability::Background;
        self
    }

    /// The run's id.
    pub fn id(&self) -> &RunId {
        &self.id
    }

    /// The scenario's slug.
    pub fn slug(&self) -> &Slug {
        &self.slug
    }

    /// The current `result.json` content.
    pub fn result(&self) -> &RunResult {
        &self.result
    }

    /// The store the run is written to.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// `runs/{runId}`.
    pub fn dir(&self) -> std::path::PathBuf {
        self.run_dir().path()
    }

    /// The store's handle on this run's folder.
    fn run_dir(&self) -> RunDir<'_> {
        self.store.scenario(&self.slug).run(&self.id)
    }

    /// `step-NN/evidence`.
    pub fn evidence_dir(&self, step: &StepId) -> std::path::PathBuf {
        self.run_dir().step(step).evidence()
    }

    /// Creates `step-NN/evidence` through the store (never through a link
    /// that leaves `.harshJudge/`).
    pub fn create_evidence_dir(&self, step: &StepId) -> std::io::Result<()> {
        self.store.create_dir_all(&self.evidence_dir(step))
    }

    fn title(&self, step: &StepId) -> Option<&str> {
        self.titles()
            .get(step.number().wrapping_sub(1))
            .map(String::as_str)
    }

    fn ensure_open(&self) -> Result<(), StoreError> {
        if self.result.status != RunStatus::Running {
            return Err(StoreError::RunCompleted {
                run: self.id.to_string(),
            });
        }
        Ok(())
    }

    /// The run's result, to change: a pending background write that shares
    /// it is taken back first, so that the change copies nothing (the next
    /// `put_result` hands the writer the new version).
    fn result_mut(&mut self) -> &mut RunResult {
        self.run_dir().withdraw_pending_result();
        std::sync::Arc::make_mut(&mut self.result)
    }

    /// The run's `skill-state.yaml` document, to change (as [`result_mut`](Self::result_mut)).
    fn state_mut(&mut self) -> &mut SkillState {
        self.run_dir().withdraw_pending_state();
        std::sync::Arc::make_mut(&mut self.state)
    }

    fn write_state(&self) -> Result<(), StoreError> {
        self.run_dir().put_skill_state(&self.state, self.durability)
    }

    /// Records that this run is attempt `attempt` of a retried scenario whose
    /// first attempt is `first_run_id` (this run itself for attempt 1).
    pub fn set_attempt(
        &mut self,
        attempt: u32,
        first_run_id: Option<String>,
    ) -> Result<(), StoreError> {
        self.ensure_open()?;
        self.result_mut().attempt = Some(attempt);
        self.result_mut().first_run_id = Some(first_run_id.unwrap_or_else(|| self.id.to_string()));
        self.run_dir().put_result(&self.result, Durability::Now)
    }

    /// The fixtures of the run (`result.json`'s `fixtures`), written with
    /// the run's completion.
    pub fn set_fixtures(&mut self, fixtures: Vec<crate::store::FixtureRun>) {
        self.result_mut().fixtures = fixtures;
    }

    /// Marks `step` as the one running (in `skill-state.yaml`).
    pub fn begin_step(&mut self, step: &StepId) -> Result<(), StoreError> {
        self.ensure_open()?;
        let last_action = match self.title(step) {
            Some(t) => format!("Running step {step}: {t}"),
            None => format!("Running step {step}"),
        };
        let state = self.state_mut();
        state.current_phase = Phase::ExecuteSteps;
        state.current_step = step.number();
        state
            .checklist_status
            .insert(CHECKLIST_EVIDENCE.into(), "in_progress".into());
        state.last_action = last_action;
        self.write_state()
    }

    /// Writes an evidence file (and its sidecar) into `step-NN/evidence/`.
    pub fn record_evidence(
        &mut self,
        step: &StepId,
        file: NewEvidence<'_>,
        metadata: serde_json::Map<String, serde_json::Value>,
    ) -> Result<WrittenEvidence, StoreError> {
        self.ensure_open()?;
        let written = self.run_dir().write_evidence(step, file, metadata)?;
        self.evidence
            .entry(step.number())
            .or_default()
            .insert(written.file_name.clone());
        Ok(written)
    }

    /// Writes step `step`'s trace into its evidence (`trace.json`, its DOM
    /// snapshots, screenshots and resources) and lists its files: what
    /// [`Tracer::end_step`](harshjudge_browser::Tracer::end_step) gave. A failure
    /// costs the trace only (`trace-error.txt` says why). The paths written.
    pub fn record_trace(
        &mut self,
        step: &StepId,
        trace: &harshjudge_browser::StepTrace,
    ) -> Result<Vec<std::path::PathBuf>, StoreError> {
        self.ensure_open()?;
        let bytes = serde_json::to_vec_pretty(&trace.file).expect("a trace serializes");
        let files = trace_files::TraceFiles {
            bytes: &bytes,
            dom: trace.dom.as_deref(),
            shots: &trace.shots,
            resources: &trace.resources,
        };
        let written = files.write(&self.run_dir(), &self.slug, step);
        self.list_written(step, &written);
        Ok(written)
    }

    /// Says in step `step`'s evidence (`trace-error.txt`) that its trace was
    /// lost, and `why`: what the caller writes instead of
    /// [`record_trace`](Self::record_trace) when it could not end the trace.
    pub fn record_trace_lost(
        &mut self,
        step: &StepId,
        why: &dyn std::fmt::Display,
    ) -> Result<Vec<std::path::PathBuf>, StoreError> {
        self.ensure_open()?;
        let written: Vec<_> = trace_files::lost(&self.run_dir(), &self.slug, step, why)
            .into_iter()
            .collect();
        self.list_written(step, &written);
        Ok(written)
    }

    /// Lists `written` among step `step`'s evidence.
    fn list_written(&mut self, step: &StepId, written: &[std::path::PathBuf]) {
        let listed = self.evidence.entry(step.number()).or_default();
        for path in written {
            if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
                listed.insert(name.to_string());
            }
        }
    }

    /// Notes an evidence file of `step` that is being written elsewhere (off
    /// the step's critical path) so the step lists it; the writer must finish
    /// before the run is completed.
    pub fn note_evidence(&mut self, step: &StepId, file_name: String) -> Result<(), StoreError> {
        self.ensure_open()?;
        self.evidence
            .entry(step.number())
            .or_default()
            .insert(file_name);
        Ok(())
    }

    /// Notes what a judge must see in `step`'s evidence: recorded as the
    /// step's `expectation` in `result.json` when it completes.
    pub fn expect(&mut self, step: &StepId, expectation: String) {
        self.expectations.insert(step.number(), expectation);
    }

    /// Records a step's result: `result.json` (still running) and `skill-state.yaml`.
    pub fn complete_step(&mut self, rec: StepRecord) -> Result<(), StoreError> {
        self.ensure_open()?;
        // Files written through this handle; `complete` re-lists the folders to
        // catch anything written there directly.
        let evidence_files = match self.durability {
            Durability::Background => self
                .evidence
                .get(&rec.id.number())
                .map(|s| s.iter().cloned().collect())
                .unwrap_or_default(),
            Durability::Now => self.run_dir().list_evidence(&rec.id)?,
        };
        let now = now_iso();
        // The first failure is the run's error; its evidence folder is relative
        // to the run folder, so the file stays true when the folder moves.
        let first_failure = (rec.status == StepStatus::Fail && self.state.error.is_none())
            .then(|| self.run_dir().step(&rec.id).evidence_in_run());
        let state = self.state_mut();
        state.completed_steps.retain(|c| c.step != rec.id.number());
        state.completed_steps.push(CompletedStep {
            step: rec.id.number(),
            status: rec.status,
            evidence_captured: !evidence_files.is_empty(),
            timestamp: now,
        });
        state.completed_steps.sort_by_key(|c| c.step);
        state.last_action = format!("Step {} {}", rec.id, rec.status.as_str());
        if let Some(evidence_in_run) = first_failure {
            state.current_phase = Phase::Error;
            let mut diagnostics = serde_json::Map::new();
            if let Some(loc) = &rec.location {
                diagnostics.insert("location".into(), loc.clone().into());
            }
            diagnostics.insert(CHECKLIST_EVIDENCE.into(), evidence_in_run.into());
            state.error = Some(SkillError {
                step: rec.id.number(),
                message: rec.error.clone().unwrap_or_default(),
                diagnostics,
            });
        }
        let title = self.title(&rec.id).map(str::to_string);
        let expectation = self.expectations.get(&rec.id.number()).cloned();
        let result = self.result_mut();
        result.upsert_step(StepResult {
            id: rec.id.to_string(),
            status: rec.status,
            duration: rec.duration_ms,
            error: rec.error,
            evidence_files,
            summary: rec.summary,
            title,
            error_location: rec.location,
            expectation,
            executed_status: None,
            verdict: None,
        });
        result.derive_outcome();
        self.run_dir().put_result(&self.result, self.durability)?;
        self.write_state()
    }

    /// Finalises the run: status, `failedStep` and `errorMessage` derived from the
    /// steps, `completedAt`, the duration (measured since start unless given), and
    /// the scenario's statistics in `meta.yaml`.
    pub fn complete(&mut self, duration_ms: Option<u64>) -> Result<Stats, StoreError> {
        self.complete_with(Completion {
            duration_ms,
            ..Completion::default()
        })
        .map(|c| c.stats)
    }

    /// Finalises the run with what a caller (an agent) claims about it. The
    /// step list is, in order of precedence: `completion.steps`, the steps
    /// completed so far, or one step per `step-NN` folder (passed, except
    /// `completion.failed_step`). With steps, the status is derived from them
    /// (any `fail` → fail) and a claim that contradicts it is reported in
    /// [`Completed::warning`]; without any, the claim (default pass) stands.
    pub fn complete_with(&mut self, completion: Completion) -> Result<Completed, StoreError> {
        self.ensure_open()?;
        let duration = completion
            .duration_ms
            .unwrap_or_else(|| self.elapsed_before + self.clock.elapsed().as_millis() as u64);
        let no_steps = completion.steps.as_ref().is_none_or(Vec::is_empty);
        let step_dirs = if no_steps && self.result.steps.is_empty() {
            self.run_dir().steps()?
        } else {
            vec![]
        };
        let titles = self.titles().to_vec();
        let mut result = (*self.result).clone();
        let uncertain_passes = completion.uncertain_passes;
        let settled = settle::settle(&mut result, completion, &titles, &step_dirs);
        // Evidence recorded after a step completed still belongs to it. The
        // run's evidence is listed once, for the steps' `evidenceFiles` and
        // for whoever reports the run next ([`take_listed_evidence`]); a step
        // folder that listing could not read is listed on its own, which
        // names what is wrong with it.
        let listing = self.run_dir().evidence_listing().ok();
        for step in &mut result.steps {
            if let Ok(id) = StepId::new(step.id.clone()) {
                step.evidence_files = match listing.as_ref().and_then(|l| l.names_of(id.as_str())) {
                    Some(names) => names.to_vec(),
                    None => self.run_dir().list_evidence(&id)?,
                };
            }
        }
        // A judgment already recorded (a judge that finished early, an agent's
        // `recordVerdict`) is folded in by the one rule.
        // A judgment recorded before completion (an agent's `recordVerdict` on a
        // running run) counts even when no step carried an expectation yet.
        let judgment = self.run_dir().judgment().ok().flatten();
        if judgment.is_some() || result.steps.iter().any(|s| s.expectation.is_some()) {
            crate::judge::combine_verdicts(&mut result, judgment.as_ref(), uncertain_passes);
        }
        self.run_dir().withdraw_pending_result();
        self.result = std::sync::Arc::new(result);
        for n in settled.skipped {
            self.state_mut().completed_steps.push(CompletedStep {
                step: n,
                status: StepStatus::Skipped,
                evidence_captured: false,
                timestamp: now_iso(),
            });
        }
        self.state_mut().completed_steps.sort_by_key(|c| c.step);
        let warnings = settled.warnings;
        let now = now_iso();
        self.result_mut().completed_at = Some(now.clone());
        self.result_mut().duration = duration;
        let stats = self.run_dir().complete(&self.result)?;
        self.state_mut().current_phase = Phase::Completed;
        self.state_mut()
            .checklist_status
            .insert(CHECKLIST_EVIDENCE.into(), "completed".into());
        self.state_mut().completed_at = Some(now);
        self.state_mut().last_action = match self.result.status {
            RunStatus::Pass => "Run completed successfully".into(),
            _ => format!(
                "Run completed: step {} failed",
                self.result.failed_step.as_deref().unwrap_or("?")
            ),
        };
        self.run_dir()
            .put_skill_state(&self.state, Durability::Now)?;
        self.run_dir().clear_running();
        self.listed_evidence = listing.map(|l| l.evidence);
        Ok(Completed {
            stats,
            status: self.result.status,
            warning: (!warnings.is_empty()).then(|| warnings.join(" ")),
        })
    }
}

impl RunHandle {
    /// The run's evidence as its completion ([`complete_with`](Self::complete_with))
    /// listed it, once: what [`RunDir::evidence`](crate::store::RunDir::evidence)
    /// gives until anyone adds to the run. `None` before completion, after
    /// an interruption, or when that listing failed.
    pub(crate) fn take_listed_evidence(&mut self) -> Option<crate::store::RunEvidence> {
        self.listed_evidence.take()
    }

    /// Marks the run interrupted (Ctrl-C, SIGTERM, or its process died): the
    /// step that was running fails with `reason` unless it already has an
    /// outcome; `status` becomes `fail` (what the original tools understand),
    /// `errorMessage` is `reason` and `interrupted` is set. The scenario's
    /// statistics are left alone: an interrupted run says nothing about the app.
    /// `skill-state.yaml` keeps where the run stopped.
    pub fn interrupt(&mut self, reason: &str) -> Result<(), StoreError> {
        self.ensure_open()?;
        let current = self.state.current_step;
        if current > 0 {
            let id = StepId::from_index(current)?;
            if !self.result.steps.iter().any(|s| s.id == id.as_str()) {
                let title = self.title(&id).map(str::to_string);
                let expectation = self.expectations.get(&id.number()).cloned();
                self.result_mut().upsert_step(StepResult {
                    id: id.to_string(),
                    status: StepStatus::Fail,
                    duration: 0,
                    error: Some(reason.to_string()),
                    evidence_files: vec![],
                    summary: None,
                    title,
                    error_location: None,
                    expectation,
                    executed_status: None,
                    verdict: None,
                });
            }
        }
        let store = self.store.clone();
        let (slug, run) = (self.slug.clone(), self.id.clone());
        let dir = store.scenario(&slug).run(&run);
        for step in &mut self.result_mut().steps {
            if let Ok(id) = StepId::new(step.id.clone()) {
                step.evidence_files = dir.list_evidence(&id)?;
            }
        }
        self.result_mut().status = RunStatus::Pass;
        self.result_mut().derive_outcome();
        self.result_mut().status = RunStatus::Fail;
        self.result_mut().error_message = Some(reason.to_string());
        self.result_mut().interrupted = true;
        let now = now_iso();
        let measured = self.elapsed_before + self.clock.elapsed().as_millis() as u64;
        let since_start = chrono::DateTime::parse_from_rfc3339(&self.result.started_at)
            .ok()
            .and_then(|t| {
                (chrono::Utc::now() - t.with_timezone(&chrono::Utc))
                    .to_std()
                    .ok()
            })
            .map(|d| d.as_millis() as u64);
        self.result_mut().duration = if self.elapsed_before == 0 && self._lock.is_some() {
            // Reopened by another process: the clock here says nothing.
            since_start.unwrap_or(measured)
        } else {
            measured
        };
        self.result_mut().completed_at = Some(now);
        self.run_dir().put_result(&self.result, Durability::Now)?;
        self.state_mut().last_action = format!("Interrupted: {reason}");
        self.state_mut().error = Some(SkillError {
            step: current,
            message: reason.to_string(),
            diagnostics: Default::default(),
        });
        self.run_dir()
            .put_skill_state(&self.state, Durability::Now)?;
        self.run_dir().clear_running();
        Ok(())
    }
}

fn not_found(store: &Store, run: &RunId) -> StoreError {
    StoreError::NotFound {
        what: format!("run \"{run}\""),
        path: store.run_dir_pattern(run),
    }
}

/// What a caller claims when it completes a run ([`RunHandle::complete_with`]).
#[derive(Clone, Debug, Default)]
pub struct Completion {
    /// The run's duration in ms; measured since its start when `None`.
    pub duration_ms: Option<u64>,
    /// The status the caller believes; the steps decide when there are any.
    pub claimed: Option<RunStatus>,
    /// The full step list, replacing the steps completed so far.
    pub steps: Option<Vec<StepResult>>,
    /// The failed step, for a run whose steps were never completed one by one.
    pub failed_step: Option<StepId>,
    /// The failure message, when no failed step carries one.
    pub error_message: Option<String>,
    /// Record the scenario's steps that were never completed as `skipped`
    /// (an agent stopped early), and say so in [`Completed::warning`].
    pub skip_missing: bool,
    /// `HARSHJUDGE_UNCERTAIN=pass`: an `uncertain` verdict (or none) already
    /// recorded counts as passed when the judgment is folded in.
    pub uncertain_passes: bool,
}

/// A completed run.
#[derive(Clone, Debug)]
pub struct Completed {
    /// The scenario's statistics after this run.
    pub stats: Stats,
    /// The run's final status.
    pub status: RunStatus,
    /// Set when the claimed status contradicted the steps.
    pub warning: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Slug, StepStatus, Store};

    fn record(n: usize) -> StepRecord {
        StepRecord {
            id: StepId::from_index(n).unwrap(),
            status: StepStatus::Pass,
            duration_ms: 1,
            error: None,
            summary: None,
            location: None,
        }
    }

    /// Recording a step under background writes changes the run's documents
    /// in place: the pending render that shares them is taken back first, so
    /// a step copies the whole run (which grew with every step: 150k
    /// instructions a step at 99 steps before, as much as the rest of a
    /// step's bookkeeping) only when the writer thread is writing that very
    /// document at that moment. The writer starts a document's write at most
    /// once per `REWRITE_INTERVAL`, so the copies are bounded by the time the
    /// steps took, however loaded the machine (a test asserting no copy at all
    /// failed on the loaded CI machine when the writer was mid-write).
    #[test]
    fn a_step_under_background_writes_copies_no_document() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join(".harshJudge"));
        let slug = Slug::new("s").unwrap();
        let steps = 40;
        let titles = (1..=steps).map(|i| format!("Step {i}")).collect();
        let mut run = RunHandle::start(&store, &slug, titles)
            .unwrap()
            .with_background_writes();
        let (mut result, mut state) = (
            std::sync::Arc::as_ptr(&run.result),
            std::sync::Arc::as_ptr(&run.state),
        );
        let (mut result_copies, mut state_copies) = (0u128, 0u128);
        let started = std::time::Instant::now();
        for n in 1..=steps {
            run.begin_step(&StepId::from_index(n).unwrap()).unwrap();
            run.complete_step(record(n)).unwrap();
            if std::sync::Arc::as_ptr(&run.result) != result {
                result_copies += 1;
                result = std::sync::Arc::as_ptr(&run.result);
            }
            if std::sync::Arc::as_ptr(&run.state) != state {
                state_copies += 1;
                state = std::sync::Arc::as_ptr(&run.state);
            }
        }
        // One write may be under way at the start, and one more each interval.
        let writes = started.elapsed().as_millis() / crate::store::REWRITE_INTERVAL.as_millis() + 2;
        assert!(
            result_copies <= writes,
            "{result_copies} of {steps} steps copied result.json's document; at most {writes} writes began"
        );
        assert!(
            state_copies <= writes,
            "{state_copies} of {steps} steps copied skill-state's document; at most {writes} writes began"
        );
        run.complete(None).unwrap();
        let written = run.run_dir().result().unwrap().unwrap();
        assert_eq!(written.steps.len(), steps);
        assert_eq!(written.status, crate::store::RunStatus::Pass);
    }

    /// Issue 25.1: a run's completion lists its evidence once, for each
    /// step's `evidenceFiles` and for the reports at exit. What it gives must
    /// be what the listings it replaces gave: each step folder as
    /// `list_evidence` lists it (links and folders by name, no sidecar, no
    /// hidden file), and the run as `RunDir::evidence` lists it (plain files
    /// only, with sizes, then the flat v1 folder).
    #[test]
    fn the_completions_one_listing_is_what_each_listing_gave() {
        use crate::store::{EvidenceName, NewEvidence};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join(".harshJudge"));
        let slug = Slug::new("listed").unwrap();
        let titles = (1..=4).map(|i| format!("Step {i}")).collect();
        let mut run = RunHandle::start(&store, &slug, titles).unwrap();
        for n in 1..=3 {
            let id = StepId::from_index(n).unwrap();
            run.begin_step(&id).unwrap();
            for name in ["b-data", "a-page"] {
                let name = EvidenceName::new(name).unwrap();
                let file = NewEvidence {
                    name: &name,
                    ext: "json",
                    kind: "custom",
                    bytes: b"{}",
                };
                run.record_evidence(&id, file, serde_json::Map::new())
                    .unwrap();
            }
            run.complete_step(record(n)).unwrap();
        }
        // Step 4 ran and wrote nothing: no folder at all.
        run.begin_step(&StepId::from_index(4).unwrap()).unwrap();
        run.complete_step(record(4)).unwrap();
        let run_dir = run.dir();
        let step1 = run_dir.join("step-01").join("evidence");
        // What a person or a tool may leave in an evidence folder.
        std::fs::create_dir(step1.join("a-folder")).unwrap();
        std::fs::write(step1.join(".hidden"), b"x").unwrap();
        std::fs::write(step1.join("by-hand.meta.json"), b"{}").unwrap();
        std::fs::write(dir.path().join("outside.txt"), b"secret").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.txt"), step1.join("link.txt")).unwrap();
        // A flat v1 file and a step folder that is a link.
        std::fs::write(run_dir.join("evidence").join("step-02-old.log"), b"v1").unwrap();
        std::fs::create_dir_all(dir.path().join("elsewhere").join("evidence")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), run_dir.join("step-09")).unwrap();
        run.complete(None).unwrap();
        let listed = run.take_listed_evidence().expect("listed at completion");
        assert!(run.take_listed_evidence().is_none(), "handed out once");
        let result = run.run_dir().result().unwrap().unwrap();
        assert_eq!(result.steps.len(), 4);
        for step in &result.steps {
            let id = StepId::new(step.id.clone()).unwrap();
            assert_eq!(
                step.evidence_files,
                run.run_dir().list_evidence(&id).unwrap(),
                "step {}",
                step.id
            );
        }
        assert_eq!(
            result.steps[0].evidence_files,
            ["a-folder", "a-page.json", "b-data.json", "link.txt"]
        );
        assert!(result.steps[3].evidence_files.is_empty());
        assert_eq!(
            format!("{listed:?}"),
            format!("{:?}", run.run_dir().evidence().unwrap())
        );
        let names: Vec<_> = listed.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "a-page.json",
                "b-data.json",
                "a-page.json",
                "b-data.json",
                "a-page.json",
                "b-data.json",
                "old.log"
            ]
        );
    }

    /// A step's evidence folder that is a link out of the store: the
    /// completion fails naming it, as it did when each step was listed on its own.
    #[test]
    fn a_linked_evidence_folder_still_fails_the_completion() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join(".harshJudge"));
        let slug = Slug::new("linked").unwrap();
        let mut run = RunHandle::start(&store, &slug, vec!["One".into()]).unwrap();
        let id = StepId::from_index(1).unwrap();
        run.begin_step(&id).unwrap();
        run.complete_step(record(1)).unwrap();
        let step = run.dir().join("step-01");
        std::fs::create_dir_all(&step).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), step.join("evidence")).unwrap();
        let err = run.complete(None).unwrap_err().to_string();
        let alone = run.run_dir().list_evidence(&id).unwrap_err().to_string();
        assert_eq!(err, alone);
        assert!(err.contains("evidence"), "{err}");
        assert!(run.take_listed_evidence().is_none());
    }
}
