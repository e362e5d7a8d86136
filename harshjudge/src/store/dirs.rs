//! Typed handles on the folders of `.harshJudge/`: `store.scenario(&slug)`
//! is a scenario's folder, `.run(&id)` one of its runs, `.step(&step)` one
//! step of that run. They are cheap borrowed views (two or three references,
//! `Copy`) that build paths from the layout's names ([`names`](super::names))
//! and read through the store's confined I/O; ids are typed, so each was
//! validated before it became part of a path.

use std::path::PathBuf;

use super::judge::RunJudgment;
use super::names::{
    EVIDENCE, JUDGE, META, REPLAY, RESULT, RUNS, SCENARIO_MD, SCENARIOS, SIDECAR_SUFFIX,
    SKILL_STATE, STEP_PREFIX, STEPS,
};
use super::{EvidenceName, RunId, RunResult, SkillState, Slug, StepId, Store, StoreError};

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
        self.store.scenarios_dir().join(self.slug.as_str())
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
        self.scenario.runs_dir().join(self.run.as_str())
    }

    /// `…/runs/{runId}/result.json`.
    pub fn result_path(&self) -> PathBuf {
        self.path().join(RESULT)
    }

    /// `…/runs/{runId}/skill-state.yaml`.
    pub fn skill_state_path(&self) -> PathBuf {
        self.path().join(SKILL_STATE)
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
        self.run.path().join(self.in_run())
    }

    /// `…/step-{NN}/evidence`.
    pub fn evidence(&self) -> PathBuf {
        self.path().join(EVIDENCE)
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

    fn in_run(&self) -> String {
        format!("{STEP_PREFIX}{}", self.step)
    }
}
