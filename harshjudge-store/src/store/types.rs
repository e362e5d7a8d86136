//! The serde types of every file under `.harshJudge/`, with the original's field
//! names and key order (new fields only ever come after the original ones).

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

/// `config.yaml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// The project's name.
    #[serde(default)]
    pub project_name: String,
    /// The app's base URL (`''` when unset).
    #[serde(default)]
    pub base_url: String,
    /// Always `'1.0'`.
    #[serde(default = "one_point_o")]
    pub version: String,
    /// When the project was initialised (ISO-8601).
    #[serde(default)]
    pub created_at: String,
}

fn one_point_o() -> String {
    "1.0".into()
}

/// Status of a run in `result.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Every step passed (skipped steps count as passed).
    Pass,
    /// A step failed.
    Fail,
    /// Still in progress.
    Running,
}

impl RunStatus {
    /// `pass`, `fail` or `running`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Pass => "pass",
            RunStatus::Fail => "fail",
            RunStatus::Running => "running",
        }
    }
}

/// Status of one step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    /// The step passed.
    Pass,
    /// The step failed.
    Fail,
    /// The step did not run.
    Skipped,
}

impl StepStatus {
    /// `pass`, `fail` or `skipped`.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Pass => "pass",
            StepStatus::Fail => "fail",
            StepStatus::Skipped => "skipped",
        }
    }
}

/// One entry of `result.json` `steps`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepResult {
    /// `"01"`…
    pub id: String,
    /// pass / fail / skipped.
    pub status: StepStatus,
    /// Milliseconds.
    #[serde(default)]
    pub duration: u64,
    /// The failure message.
    #[serde(default)]
    pub error: Option<String>,
    /// File names in `step-NN/evidence/` (no sidecars), sorted.
    #[serde(default)]
    pub evidence_files: Vec<String>,
    /// A one-line summary of what the step did.
    #[serde(default)]
    pub summary: Option<String>,
    /// The step's title (harshjudge addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Source location of the failure, `file:line:col` (harshjudge addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_location: Option<String>,
    /// What must be seen, in words (`step!(…, expect = "…")`; harshjudge addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expectation: Option<String>,
    /// The code's own outcome, when a verdict takes part in `status` (a step
    /// with an expectation; harshjudge addition). `status` is then the
    /// combination ([`combine_verdicts`](crate::judge::combine_verdicts)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executed_status: Option<StepStatus>,
    /// Where the judgment of a step with an expectation stands (harshjudge
    /// addition); the verdict itself, its reasoning and its inputs are in
    /// `judge/result.json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<VerdictState>,
}

impl StepResult {
    /// The code's own outcome: `executedStatus` once a verdict took part in
    /// `status`, else `status`.
    pub fn executed(&self) -> StepStatus {
        self.executed_status.unwrap_or(self.status)
    }
}

/// Where the judgment of a step with an expectation stands, as `result.json`
/// keeps it (`verdict`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum VerdictState {
    /// The judge saw what the expectation says.
    Pass,
    /// The judge saw the opposite.
    Fail,
    /// The judge could not tell (fails the step unless `HARSHJUDGE_UNCERTAIN=pass`).
    Uncertain,
    /// No judgment yet (no judge configured, or an agent's `recordVerdict` awaited).
    Pending,
    /// The judge was asked and gave no verdict (timeout, crash, malformed
    /// answer); counts like `uncertain`, and is re-made by `--rejudge`.
    Error,
    /// The code skipped the step: nothing to judge.
    Skipped,
}

impl VerdictState {
    /// The state's word, as written in files and replies.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictState::Pass => "pass",
            VerdictState::Fail => "fail",
            VerdictState::Uncertain => "uncertain",
            VerdictState::Pending => "pending",
            VerdictState::Error => "error",
            VerdictState::Skipped => "skipped",
        }
    }
}

/// `runs/{runId}/result.json`.
///
/// While running it is written `{runId, scenarioSlug, status, startedAt, steps}`
/// like the original's in-progress shape; once final it carries every key of the
/// original's final shape, in its order. harshjudge's own keys come last.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// The run's id.
    pub run_id: String,
    /// The scenario's slug.
    #[serde(default)]
    pub scenario_slug: String,
    /// pass / fail / running.
    pub status: RunStatus,
    /// ISO-8601.
    #[serde(default)]
    pub started_at: String,
    /// ISO-8601, once final.
    #[serde(default)]
    pub completed_at: Option<String>,
    /// Milliseconds, once final.
    #[serde(default)]
    pub duration: u64,
    /// Per-step results, sorted by id.
    #[serde(default)]
    pub steps: Vec<StepResult>,
    /// Id of the first failed step.
    #[serde(default)]
    pub failed_step: Option<String>,
    /// Error of the first failed step.
    #[serde(default)]
    pub error_message: Option<String>,
    /// The run's number within its scenario, allocated when it started (harshjudge addition).
    #[serde(default)]
    pub run_number: Option<u64>,
    /// Set when the run was stopped before it ended (Ctrl-C, SIGTERM, or its
    /// process died): `status` is then `fail` and `errorMessage` says why
    /// (harshjudge addition).
    #[serde(default)]
    pub interrupted: bool,
    /// Attempt number when the scenario is retried: 1, 2, … (harshjudge addition).
    #[serde(default)]
    pub attempt: Option<u32>,
    /// The run id of the first attempt, linking the attempts of one retried
    /// scenario (harshjudge addition).
    #[serde(default)]
    pub first_run_id: Option<String>,
    /// Passed after an earlier attempt failed (harshjudge addition).
    #[serde(default)]
    pub flaky: bool,
    /// The status from the code alone, when a step has an expectation: `status`
    /// then also counts the verdicts (harshjudge addition).
    #[serde(default)]
    pub executed_status: Option<RunStatus>,
    /// The fixtures its scenario asked for: set up, torn down, how each went
    /// (harshjudge addition; absent when it asked for none).
    #[serde(default)]
    pub fixtures: Vec<FixtureRun>,
}

/// One fixture of a run, in `result.json`'s `fixtures`, in set-up order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixtureRun {
    /// The fixture function's name.
    pub name: String,
    /// `scenario` or `invocation`.
    pub scope: String,
    /// How long its set-up took (for an invocation fixture set up earlier:
    /// how long this run waited for it); `None` when it never finished.
    pub set_up_ms: Option<u64>,
    /// How long its teardown took; `None` when it was not torn down after
    /// this run (not set up, or an invocation fixture).
    pub torn_down_ms: Option<u64>,
    /// How it went.
    pub outcome: FixtureOutcome,
    /// Why it failed, when it did.
    pub error: Option<String>,
    /// What its set-up printed through `harshjudge::log!` (at most 64 KiB),
    /// when it printed anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_up_output: Option<String>,
    /// What its teardown printed through `harshjudge::log!`, likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teardown_output: Option<String>,
}

/// How a fixture of a run went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FixtureOutcome {
    /// Set up (and torn down, for a scenario fixture).
    Passed,
    /// Its set-up failed (an error or a panic): the scenario's first step
    /// failed for it.
    Failed,
    /// Its set-up was still running when the step's or the scenario's limit ended it.
    TimedOut,
    /// Set up, but its teardown failed or timed out.
    TeardownFailed,
}

impl FixtureOutcome {
    /// `passed`, `failed`, `timedOut`, `teardownFailed`: as `result.json` says it.
    pub fn as_str(self) -> &'static str {
        match self {
            FixtureOutcome::Passed => "passed",
            FixtureOutcome::Failed => "failed",
            FixtureOutcome::TimedOut => "timedOut",
            FixtureOutcome::TeardownFailed => "teardownFailed",
        }
    }
}

impl Serialize for RunResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let running = self.status == RunStatus::Running;
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry("runId", &self.run_id)?;
        m.serialize_entry("scenarioSlug", &self.scenario_slug)?;
        m.serialize_entry("status", &self.status)?;
        m.serialize_entry("startedAt", &self.started_at)?;
        if !running {
            m.serialize_entry("completedAt", &self.completed_at)?;
            m.serialize_entry("duration", &self.duration)?;
        }
        m.serialize_entry("steps", &self.steps)?;
        if !running {
            m.serialize_entry("failedStep", &self.failed_step)?;
            m.serialize_entry("errorMessage", &self.error_message)?;
        }
        if let Some(n) = self.run_number {
            m.serialize_entry("runNumber", &n)?;
        }
        if self.interrupted {
            m.serialize_entry("interrupted", &true)?;
        }
        if let Some(a) = self.attempt {
            m.serialize_entry("attempt", &a)?;
        }
        if let Some(f) = &self.first_run_id {
            m.serialize_entry("firstRunId", f)?;
        }
        if self.flaky {
            m.serialize_entry("flaky", &true)?;
        }
        if let Some(executed) = self.executed_status {
            m.serialize_entry("executedStatus", &executed)?;
        }
        if !self.fixtures.is_empty() {
            m.serialize_entry("fixtures", &self.fixtures)?;
        }
        m.end()
    }
}

impl RunResult {
    /// The run's status from the code alone: `executedStatus` once verdicts
    /// took part in `status`, else `status`.
    pub fn executed(&self) -> RunStatus {
        self.executed_status.unwrap_or(self.status)
    }

    /// Sets `failedStep` and `errorMessage` from the first failed step, and the
    /// status from the steps (any `fail` → fail, else pass) unless still running.
    pub fn derive_outcome(&mut self) {
        let failed = self.steps.iter().find(|s| s.status == StepStatus::Fail);
        self.failed_step = failed.map(|s| s.id.clone());
        self.error_message = failed.and_then(|s| s.error.clone());
        if self.status != RunStatus::Running {
            self.status = if failed.is_some() {
                RunStatus::Fail
            } else {
                RunStatus::Pass
            };
        }
    }

    /// Inserts or replaces a step result, keeping `steps` sorted by id.
    pub fn upsert_step(&mut self, step: StepResult) {
        match self.steps.binary_search_by(|s| s.id.as_str().cmp(&step.id)) {
            Ok(i) => self.steps[i] = step,
            Err(i) => self.steps.insert(i, step),
        }
    }
}

/// `step-NN/evidence/{name}.meta.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvidenceMeta {
    /// The run's id.
    pub run_id: String,
    /// `"01"`…
    pub step_id: String,
    /// screenshot, console_log, custom, …
    #[serde(rename = "type")]
    pub kind: String,
    /// The evidence name (file name without extension).
    pub name: String,
    /// ISO-8601.
    pub captured_at: String,
    /// Bytes written.
    pub file_size: u64,
    /// Free-form metadata.
    #[serde(default)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
}

/// A step as listed in `meta.yaml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct StepRef {
    /// `"01"`…
    pub id: String,
    /// Title, verbatim.
    pub title: String,
    /// `{id}-{slugify(title)}.md`.
    pub file: String,
}

/// `scenarios/{slug}/meta.yaml`, as read (missing keys take their defaults).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ScenarioMeta {
    /// Title.
    pub title: String,
    /// Slug.
    pub slug: String,
    /// Starred by a person.
    pub starred: bool,
    /// Tags.
    pub tags: Vec<String>,
    /// Seconds.
    #[serde(deserialize_with = "de_f64_or_null")]
    pub estimated_duration: f64,
    /// Steps as declared.
    pub steps: Vec<StepRef>,
    /// Completed runs.
    #[serde(deserialize_with = "de_u64_or_null")]
    pub total_runs: u64,
    /// Passed runs.
    #[serde(deserialize_with = "de_u64_or_null")]
    pub pass_count: u64,
    /// Failed runs.
    #[serde(deserialize_with = "de_u64_or_null")]
    pub fail_count: u64,
    /// ISO-8601 of the last completed run.
    pub last_run: Option<String>,
    /// `pass` / `fail` of the last completed run.
    pub last_result: Option<String>,
    /// Mean duration in ms, rounded.
    #[serde(deserialize_with = "de_u64_or_null")]
    pub avg_duration: u64,
    /// The number given to the last started run (harshjudge addition).
    #[serde(deserialize_with = "de_u64_or_null")]
    pub last_run_number: u64,
}

fn de_u64_or_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = Option::<f64>::deserialize(d)?;
    match v {
        None => Ok(0),
        Some(f) if f >= 0.0 && f.is_finite() => Ok(f.round() as u64),
        Some(f) => Err(serde::de::Error::custom(format!(
            "expected a non-negative number, found {f}"
        ))),
    }
}

fn de_f64_or_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(0.0))
}

/// Phase of a run in `skill-state.yaml`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Creating the run.
    Init,
    /// Running steps.
    ExecuteSteps,
    /// Verifying a database (agents).
    DbVerify,
    /// Handling a failure.
    Error,
    /// Every step passed; completing the run.
    Success,
    /// The run is final.
    Completed,
}

/// One entry of `skill-state.yaml` `completedSteps`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompletedStep {
    /// 1-based step number.
    pub step: usize,
    /// pass / fail / skipped.
    pub status: StepStatus,
    /// Whether any evidence file was written for the step.
    pub evidence_captured: bool,
    /// ISO-8601.
    pub timestamp: String,
}

/// `skill-state.yaml` `error`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SkillError {
    /// 1-based step number.
    pub step: usize,
    /// The message.
    pub message: String,
    /// Diagnostics: `screenshot` path, `console` lines, `location`.
    #[serde(default)]
    pub diagnostics: serde_json::Map<String, serde_json::Value>,
}

/// `runs/{runId}/skill-state.yaml`: where a run stands, kept current while it runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillState {
    /// `'1.0'`.
    pub skill_version: String,
    /// ISO-8601.
    pub started_at: String,
    /// Phase.
    pub current_phase: Phase,
    /// 1-based number of the step running (0 before the first).
    pub current_step: usize,
    /// Steps in the scenario.
    pub total_steps: usize,
    /// Steps finished so far.
    pub completed_steps: Vec<CompletedStep>,
    /// `pre-run` and `evidence` checklist states.
    pub checklist_status: std::collections::BTreeMap<String, String>,
    /// What happened last, for a person.
    pub last_action: String,
    /// The failure, if any.
    pub error: Option<SkillError>,
    /// ISO-8601 once final.
    pub completed_at: Option<String>,
    /// The run's id (harshjudge addition).
    #[serde(default)]
    pub run_id: String,
    /// The scenario's slug (harshjudge addition).
    #[serde(default)]
    pub scenario_slug: String,
    /// Id of the process that runs it (harshjudge addition; detects crashed runs).
    #[serde(default)]
    pub pid: u32,
}

/// `checklistStatus` key of `skill-state.yaml` for the evidence phase.
pub const CHECKLIST_EVIDENCE: &str = "evidence";
/// `checklistStatus` key of `skill-state.yaml` for what precedes the run.
pub const CHECKLIST_PRE_RUN: &str = "pre-run";
