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

/// The `trace.json` format version this harshjudge writes and reads. New
/// optional keys do not change it; a reader refuses a higher one.
pub const TRACE_VERSION: u32 = 1;

/// `step-NN/evidence/trace.json`: what happened inside one step, one entry
/// per action, read, assertion and navigation, in the order they began.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceFile {
    /// [`TRACE_VERSION`].
    pub version: u32,
    /// The step, `01`…
    pub step: String,
    /// The attempt of the scenario (1, then 2… for retries).
    pub attempt: u32,
    /// The trace mode it was recorded under (`on`, `retain-on-failure`, …).
    pub mode: String,
    /// When the step began, ms since the Unix epoch.
    pub started_at: f64,
    /// When its trace was taken (its end), ms since the Unix epoch.
    pub ended_at: f64,
    /// The scenario's pages that entries name (`p1`, `p2`, …).
    pub pages: Vec<TracePage>,
    /// The entries, in the order they began.
    pub entries: Vec<TraceEntry>,
    /// The console lines and requests of the step that began inside no entry.
    pub between: TraceLogs,
    /// What was left out and why (none so far).
    #[serde(default)]
    pub limits: Vec<String>,
    /// What could not be recorded (a page that did not hand its logs).
    #[serde(default)]
    pub errors: Vec<String>,
}

/// Why a `trace.json` cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceReadError {
    /// Written by a newer harshjudge.
    #[error("trace.json version {found} is newer than this harshjudge (reads {TRACE_VERSION})")]
    Newer {
        /// The file's version.
        found: u32,
    },
    /// Not a trace file.
    #[error("trace.json is not a trace: {0}")]
    Json(#[from] serde_json::Error),
}

impl TraceFile {
    /// Reads a `trace.json`, refusing one of a newer version by its number.
    pub fn read(text: &str) -> Result<TraceFile, TraceReadError> {
        #[derive(Deserialize)]
        struct Version {
            version: u32,
        }
        let Version { version } = serde_json::from_str(text)?;
        if version > TRACE_VERSION {
            return Err(TraceReadError::Newer { found: version });
        }
        Ok(serde_json::from_str(text)?)
    }
}

/// A page of a trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TracePage {
    /// `p1`, `p2`, … in the order the scenario opened them.
    pub id: String,
    /// `chromium`, `firefox`, `webkit`.
    pub browser: String,
    /// `cdp`, `webdriver-bidi`, `webdriver-classic`.
    pub protocol: String,
    /// Width and height in CSS pixels, when known.
    pub viewport: Option<[u32; 2]>,
}

/// One action, read, assertion or navigation of a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceEntry {
    /// 1-based, in the order entries began.
    pub n: u32,
    /// `action`, `assertion`, `read`, `navigation`, `input` or `script`.
    pub kind: String,
    /// The page's id (`p1`).
    pub page: String,
    /// The frame locator chain as written, or none for the page's own document.
    pub frame: Option<String>,
    /// The call as written: `page.get_by_role("button").name("Save").click()`.
    pub call: String,
    /// Where it was called, `file:line:column`.
    pub at: String,
    /// When it began, ms since the Unix epoch.
    pub start: f64,
    /// When it ended, ms since the Unix epoch.
    pub end: f64,
    /// How it ended, with its call log.
    pub outcome: TraceOutcome,
    /// Console lines logged while it ran.
    pub console: Vec<TraceConsole>,
    /// Requests that began while it ran (wherever they ended).
    pub network: Vec<TraceRequest>,
    /// The element an action acted on (or last waited for, when it failed);
    /// none for other entries and in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<TraceTarget>,
    /// Where its DOM snapshots are in the step's `trace-dom.json` (the top
    /// document's of each moment); none without snapshots and in files
    /// written before they were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshots: Option<TraceSnapshots>,
    /// Its screenshot after it, a file of the step's evidence
    /// (`trace-03.png`), under `HARSHJUDGE_TRACE_SCREENSHOTS=on`; none
    /// otherwise and in files written before screenshots were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
}

/// The indexes of an entry's snapshots in `trace-dom.json`'s `snapshots`:
/// an action's page before and after it, an assertion's at its last check,
/// a navigation's or an input's after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceSnapshots {
    /// Before it acted (its element resolved and found actionable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<u32>,
    /// After it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u32>,
    /// At an assertion's last check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<u32>,
}

/// The element of an action: where it was, and how to find it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceTarget {
    /// Its box when the action met it, in the top page's CSS pixels (as
    /// `Locator::bounding_box` gives it; inside a frame, offset by the
    /// frame's position).
    #[serde(rename = "box")]
    pub bbox: TraceBox,
    /// Its locator as `generate_locator` writes it, taken when the step's
    /// trace was written (relative to its frame's document); none when it
    /// was `detached` then, or could not be asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locator: Option<String>,
    /// The element was gone from its document when the trace was written.
    #[serde(default)]
    pub detached: bool,
    /// What of its computed style tells whether it could be acted on, read
    /// when the action met it (why was it not clickable?).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<TraceStyle>,
}

/// A trace target's computed style, the properties that decide whether it
/// can be seen and acted on (`getComputedStyle`'s values as written).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceStyle {
    /// `display` (`none`: not rendered).
    pub display: String,
    /// `visibility` (`hidden`: not seen, not hit).
    pub visibility: String,
    /// `opacity` (`0`: invisible, still hit).
    pub opacity: String,
    /// `pointer-events` (`none`: clicks go through it).
    pub pointer_events: String,
    /// `position`.
    pub position: String,
    /// `z-index` (`auto` or a number): what may cover it.
    pub z_index: String,
}

/// A box in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TraceBox {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// How an entry ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceOutcome {
    /// `ok`, `failed`, or `unfinished` (the step ended it: its time limit, the scenario's).
    pub status: String,
    /// A failure's kind: `timeout`, `strict`, `assertion`, `invalid`, `lost`,
    /// `navigation-interrupted`, `command`, `unsupported`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The failure as the step's error says it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The call log: what the page waited for, retries.
    pub log: Vec<String>,
}

/// Console lines and requests outside every entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TraceLogs {
    /// Console lines.
    pub console: Vec<TraceConsole>,
    /// Requests.
    pub network: Vec<TraceRequest>,
}

/// A console line of a trace (as in `console.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceConsole {
    /// `info`, `warning`, `error`, `debug`.
    pub level: String,
    /// The message.
    pub text: String,
    /// `console-api`, `javascript`, `network`, …
    pub source: String,
    /// The script or resource URL, when known.
    pub url: Option<String>,
    /// Ms since the Unix epoch.
    pub timestamp: u64,
}

/// A request of a trace (as in `network.json`, with its start).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceRequest {
    /// GET, POST, …
    pub method: String,
    /// The URL.
    pub url: String,
    /// The HTTP status (none when it failed or is pending).
    pub status: Option<u64>,
    /// Document, Fetch, XHR, …
    #[serde(rename = "type")]
    pub kind: String,
    /// Ms from request to its end.
    pub timing: Option<f64>,
    /// Why it failed, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// When it was sent, ms since the Unix epoch (none over classic WebDriver).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<f64>,
}
