//! The run lifecycle — start a run, record evidence, complete steps, complete
//! the run, update statistics — as one implementation shared by the harness and
//! the MCP server. It never prints.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::store::{
    CompletedStep, Durability, EvidenceName, Phase, RunId, RunResult, RunStatus, SkillError,
    SkillState, Slug, Stats, StepId, StepResult, StepStatus, Store, StoreError, WrittenEvidence,
    now_iso,
};

/// An open run: `result.json` and `skill-state.yaml` kept in memory and written
/// through on every change.
#[derive(Debug)]
pub struct RunHandle {
    store: Store,
    slug: Slug,
    id: RunId,
    result: RunResult,
    state: SkillState,
    titles: Vec<String>,
    clock: Instant,
    durability: Durability,
    /// Evidence files written through this handle, per step number.
    evidence: BTreeMap<usize, std::collections::BTreeSet<String>>,
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
    /// Starts a new run of `slug`, whose steps are `titles` (in order): writes
    /// `result.json` (running, with `startedAt`) and `skill-state.yaml`.
    pub fn start(store: &Store, slug: &Slug, titles: Vec<String>) -> Result<Self, StoreError> {
        let id = RunId::generate();
        let started_at = now_iso();
        let result = store.start_run(slug, &id, &started_at)?;
        let mut checklist = BTreeMap::new();
        checklist.insert("evidence".to_string(), "pending".to_string());
        checklist.insert("pre-run".to_string(), "completed".to_string());
        let state = SkillState {
            skill_version: "1.0".into(),
            started_at,
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
        let handle = RunHandle {
            store: store.clone(),
            slug: slug.clone(),
            id,
            result,
            state,
            titles,
            clock: Instant::now(),
            durability: Durability::Now,
            evidence: BTreeMap::new(),
        };
        handle.write_state()?;
        Ok(handle)
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
        self.store.run_dir(&self.slug, &self.id)
    }

    /// `step-NN/evidence`.
    pub fn evidence_dir(&self, step: &StepId) -> std::path::PathBuf {
        self.store.evidence_dir(&self.slug, &self.id, step)
    }

    fn title(&self, step: &StepId) -> Option<&str> {
        self.titles
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

    fn write_state(&self) -> Result<(), StoreError> {
        self.store
            .put_skill_state(&self.slug, &self.id, &self.state, self.durability)
    }

    /// Marks `step` as the one running (in `skill-state.yaml`).
    pub fn begin_step(&mut self, step: &StepId) -> Result<(), StoreError> {
        self.ensure_open()?;
        self.state.current_phase = Phase::ExecuteSteps;
        self.state.current_step = step.number();
        self.state
            .checklist_status
            .insert("evidence".into(), "in_progress".into());
        self.state.last_action = match self.title(step) {
            Some(t) => format!("Running step {step}: {t}"),
            None => format!("Running step {step}"),
        };
        self.write_state()
    }

    /// Writes an evidence file (and its sidecar) into `step-NN/evidence/`.
    #[allow(clippy::too_many_arguments)]
    pub fn record_evidence(
        &mut self,
        step: &StepId,
        name: &EvidenceName,
        ext: &str,
        kind: &str,
        bytes: &[u8],
        metadata: serde_json::Map<String, serde_json::Value>,
    ) -> Result<WrittenEvidence, StoreError> {
        self.ensure_open()?;
        let written = self
            .store
            .write_evidence(&self.slug, &self.id, step, name, ext, kind, bytes, metadata)?;
        self.evidence
            .entry(step.number())
            .or_default()
            .insert(written.file_name.clone());
        Ok(written)
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
            Durability::Now => self.store.list_evidence(&self.slug, &self.id, &rec.id)?,
        };
        let now = now_iso();
        self.state
            .completed_steps
            .retain(|c| c.step != rec.id.number());
        self.state.completed_steps.push(CompletedStep {
            step: rec.id.number(),
            status: rec.status,
            evidence_captured: !evidence_files.is_empty(),
            timestamp: now,
        });
        self.state.completed_steps.sort_by_key(|c| c.step);
        self.state.last_action = format!("Step {} {}", rec.id, rec.status.as_str());
        if rec.status == StepStatus::Fail && self.state.error.is_none() {
            self.state.current_phase = Phase::Error;
            let mut diagnostics = serde_json::Map::new();
            if let Some(loc) = &rec.location {
                diagnostics.insert("location".into(), loc.clone().into());
            }
            // Relative to the run folder, so the file stays true when the folder moves.
            diagnostics.insert(
                "evidence".into(),
                format!("step-{}/evidence", rec.id).into(),
            );
            self.state.error = Some(SkillError {
                step: rec.id.number(),
                message: rec.error.clone().unwrap_or_default(),
                diagnostics,
            });
        }
        let title = self.title(&rec.id).map(str::to_string);
        self.result.upsert_step(StepResult {
            id: rec.id.to_string(),
            status: rec.status,
            duration: rec.duration_ms,
            error: rec.error,
            evidence_files,
            summary: rec.summary,
            title,
            error_location: rec.location,
        });
        self.result.derive_outcome();
        self.store
            .put_result(&self.slug, &self.id, &self.result, self.durability)?;
        self.write_state()
    }

    /// Finalises the run: status, `failedStep` and `errorMessage` derived from the
    /// steps, `completedAt`, the duration (measured since start unless given), and
    /// the scenario's statistics in `meta.yaml`.
    pub fn complete(&mut self, duration_ms: Option<u64>) -> Result<Stats, StoreError> {
        self.ensure_open()?;
        let duration = duration_ms.unwrap_or_else(|| self.clock.elapsed().as_millis() as u64);
        // Evidence recorded after a step completed still belongs to it.
        for step in &mut self.result.steps {
            if let Ok(id) = StepId::new(step.id.clone()) {
                step.evidence_files = self.store.list_evidence(&self.slug, &self.id, &id)?;
            }
        }
        self.result.status = RunStatus::Pass;
        self.result.derive_outcome();
        let now = now_iso();
        self.result.completed_at = Some(now.clone());
        self.result.duration = duration;
        self.store
            .write_result(&self.slug, &self.id, &self.result)?;
        let stats = self
            .store
            .record_completion(&self.slug, self.result.status, duration)?;
        self.state.current_phase = Phase::Completed;
        self.state
            .checklist_status
            .insert("evidence".into(), "completed".into());
        self.state.completed_at = Some(now);
        self.state.last_action = match self.result.status {
            RunStatus::Pass => "Run completed successfully".into(),
            _ => format!(
                "Run completed: step {} failed",
                self.result.failed_step.as_deref().unwrap_or("?")
            ),
        };
        self.store
            .put_skill_state(&self.slug, &self.id, &self.state, Durability::Now)?;
        Ok(stats)
    }
}
