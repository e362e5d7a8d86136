//! `startRun`, `recordEvidence`, `completeStep`, `completeRun`, `getRunState`:
//! thin layers over `harshjudge_store::recorder`, the lifecycle `cargo test` uses too.

use std::path::{Path, PathBuf};

use base64::Engine;
use harshjudge_store::recorder::{Completion, RunHandle, StepRecord};
use harshjudge_store::store::{
    EvidenceName, NewEvidence, RunId, RunStatus, Slug, StepId, StepResult, StepStatus, StoreError,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::scenario::existing;
use crate::context::Context;
use crate::dispatch::{Effect, ToolOutput};
use crate::error::{Code, ToolError};

mod prune;
pub use prune::{PruneRuns, RunsPruned, prune_runs};

/// Reopens a run, mapping "not found" and "completed" to the original's words.
fn open(ctx: &Context, id: &RunId, completed: &str) -> Result<RunHandle, ToolError> {
    let store = ctx.require_init()?;
    let cached = ctx
        .known_slug(id)
        .and_then(|slug| RunHandle::open_in(store, &slug, id).ok());
    let handle = match cached {
        Some(h) => Ok(h),
        None => RunHandle::open(store, id),
    };
    let handle = handle.map_err(|e| match e {
        StoreError::NotFound { .. } => ToolError::not_found(format!(
            "Run \"{id}\" does not exist. Start one with startRun and use the runId it returns."
        )),
        other => other.into(),
    })?;
    handle.ensure_running().map_err(|_| {
        ToolError::new(
            Code::RunCompleted,
            format!("Run \"{id}\" is already completed. {completed}"),
        )
    })?;
    Ok(handle)
}

/// Arguments of `startRun`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartRun {
    /// The scenario's slug.
    pub scenario_slug: Slug,
}

/// What `startRun` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunStarted {
    /// Always true.
    pub success: bool,
    /// The new run's id.
    pub run_id: String,
    /// Its number among the scenario's runs.
    pub run_number: Option<u64>,
    /// Its folder, relative to the project.
    pub run_path: String,
    /// The original's run-level evidence path (evidence goes per step).
    pub evidence_path: String,
    /// When it started, ISO 8601.
    pub started_at: String,
    /// The scenario.
    pub scenario_slug: String,
    /// The scenario's title, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario_title: Option<String>,
    /// The steps to execute, in order.
    #[schemars(with = "Vec<serde_json::Map<String, Value>>")]
    pub steps: Vec<harshjudge_store::store::StepRef>,
    #[serde(skip)]
    run: (RunId, Slug),
}

impl ToolOutput for RunStarted {
    fn effects(&self) -> Vec<Effect> {
        vec![Effect::RunStarted {
            run: self.run.0.clone(),
            slug: self.run.1.clone(),
        }]
    }
}

/// Starts a run.
pub fn start_run(ctx: &Context, a: StartRun) -> Result<RunStarted, ToolError> {
    let slug = a.scenario_slug;
    let store = ctx.require_init()?;
    let meta = existing(store, &slug)?;
    let titles = meta.steps.iter().map(|s| s.title.clone()).collect();
    let run = RunHandle::start(store, &slug, titles)?;
    ctx.remember_slug(run.id(), Some(&slug));
    Ok(RunStarted {
        success: true,
        run_id: run.id().to_string(),
        run_number: run.result().run_number,
        run_path: ctx.rel(&run.dir()),
        evidence_path: ctx.rel(&store.scenario(&slug).run(run.id()).flat_evidence_dir()),
        started_at: run.result().started_at.clone(),
        scenario_slug: slug.to_string(),
        scenario_title: (!meta.title.is_empty()).then(|| meta.title.clone()),
        steps: meta.steps,
        run: (run.id().clone(), slug),
    })
}

/// Kinds of evidence and the file extension each is stored with.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceType {
    /// An image: absolute path to a PNG or JPEG file, or base64 PNG.
    Screenshot,
    /// Database rows (JSON).
    DbSnapshot,
    /// Console output (text).
    ConsoleLog,
    /// Network requests (JSON).
    NetworkLog,
    /// A page's HTML.
    HtmlSnapshot,
    /// Anything else (JSON).
    Custom,
    /// An API response body (JSON).
    ApiResponse,
    /// API response headers (JSON).
    ApiHeaders,
    /// A command's standard output.
    Stdout,
    /// A command's standard error.
    Stderr,
    /// A command's exit code.
    ExitCode,
}

impl EvidenceType {
    fn as_str(self) -> &'static str {
        match self {
            EvidenceType::Screenshot => "screenshot",
            EvidenceType::DbSnapshot => "db_snapshot",
            EvidenceType::ConsoleLog => "console_log",
            EvidenceType::NetworkLog => "network_log",
            EvidenceType::HtmlSnapshot => "html_snapshot",
            EvidenceType::Custom => "custom",
            EvidenceType::ApiResponse => "api_response",
            EvidenceType::ApiHeaders => "api_headers",
            EvidenceType::Stdout => "stdout",
            EvidenceType::Stderr => "stderr",
            EvidenceType::ExitCode => "exit_code",
        }
    }
    fn ext(self) -> &'static str {
        match self {
            EvidenceType::Screenshot => "png",
            EvidenceType::ConsoleLog
            | EvidenceType::Stdout
            | EvidenceType::Stderr
            | EvidenceType::ExitCode => "txt",
            EvidenceType::HtmlSnapshot => "html",
            _ => "json",
        }
    }
}

/// How `data` is read.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// For a screenshot, an absolute path is copied and anything else is
    /// base64; every other type is content, even when it looks like a path
    /// (`"/static/app.js"` in a console log), as in the original.
    #[default]
    Auto,
    /// `data` is an absolute path to a file, copied.
    File,
    /// `data` is the content, stored as given (base64 for screenshots).
    Content,
}

/// Arguments of `recordEvidence`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordEvidence {
    /// The run.
    pub run_id: RunId,
    /// The step as two digits, e.g. "01" (preferred).
    #[serde(default)]
    pub step_id: Option<StepId>,
    /// The step as a number, 1-based (the original's parameter).
    #[serde(default)]
    #[schemars(range(min = 1, max = 99))]
    pub step: Option<u64>,
    /// What kind of evidence.
    #[serde(rename = "type")]
    pub kind: EvidenceType,
    /// File name without extension: letters, digits, '.', '_' and '-', 1 to 100 characters.
    #[schemars(regex(pattern = crate::tools::EVIDENCE_NAME_PATTERN))]
    pub name: String,
    /// The content itself; for a screenshot, an absolute path to a PNG or JPEG
    /// file (copied) or base64. With `source: "file"`, an absolute path to copy.
    pub data: String,
    /// Free-form metadata kept in the sidecar.
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
    /// How to read `data` (default auto).
    #[serde(default)]
    pub source: Source,
}

/// A string that can only have been meant as a file path: one line, absolute,
/// no whitespace, and naming an existing file or ending in a file extension.
fn looks_like_path(s: &str) -> bool {
    let abs = s.starts_with('/')
        || (s.len() > 2 && s.as_bytes()[1] == b':' && matches!(s.as_bytes()[2], b'\\' | b'/'));
    let ext = Path::new(s)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| {
            (1..=8).contains(&e.len()) && e.bytes().all(|b| b.is_ascii_alphanumeric())
        });
    abs && s.len() < 4096 && !s.chars().any(char::is_whitespace) && (ext || Path::new(s).exists())
}

fn too_large(ctx: &Context, what: &str, size: u64) -> ToolError {
    ToolError::new(
        Code::TooLarge,
        format!(
            "{what} is {size} bytes, over the evidence limit of {} bytes; record a smaller excerpt, or raise the limit with --max-evidence-bytes / HARSHJUDGE_MAX_EVIDENCE_BYTES",
            ctx.max_evidence_bytes
        ),
    )
}

/// Reads a file the agent named, if it lies under an allowed root and within the size limit.
fn read_allowed(ctx: &Context, given: &str) -> Result<(Vec<u8>, PathBuf), ToolError> {
    let path = Path::new(given);
    if !path.is_absolute() {
        return Err(ToolError::invalid(format!(
            "data {given:?} must be an absolute file path when source is \"file\""
        )));
    }
    let real = std::fs::canonicalize(path)
        .map_err(|e| ToolError::not_found(format!("Cannot read evidence file {given}: {e}")))?;
    if !ctx.allowed_roots.iter().any(|r| real.starts_with(r)) {
        let roots: Vec<String> = ctx
            .allowed_roots
            .iter()
            .map(|r| r.display().to_string())
            .collect();
        return Err(ToolError::new(
            Code::AccessDenied,
            format!(
                "Evidence file {given} is outside the allowed folders ({}); save it under one of them, or allow its folder with --allow-root / HARSHJUDGE_ALLOWED_ROOTS",
                roots.join(", ")
            ),
        ));
    }
    let md = std::fs::metadata(&real)
        .map_err(|e| ToolError::not_found(format!("Cannot read evidence file {given}: {e}")))?;
    if !md.is_file() {
        return Err(ToolError::invalid(format!(
            "Evidence file {given} is not a regular file"
        )));
    }
    if md.len() > ctx.max_evidence_bytes {
        return Err(too_large(ctx, &format!("Evidence file {given}"), md.len()));
    }
    let bytes = std::fs::read(&real)
        .map_err(|e| ToolError::not_found(format!("Cannot read evidence file {given}: {e}")))?;
    Ok((bytes, real))
}

fn image_ext(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("jpg")
    } else {
        None
    }
}

/// What `recordEvidence` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvidenceRecorded {
    /// Always true.
    pub success: bool,
    /// The evidence file, relative to the project.
    pub file_path: String,
    /// Its metadata sidecar.
    pub meta_path: String,
    /// The step's folder.
    pub step_path: String,
    /// Bytes written.
    pub file_size: u64,
    /// The step, two digits.
    pub step_id: String,
    /// The file copied, when `data` named one.
    pub copied_from: Option<String>,
}

/// What `completeStep` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepCompleted {
    /// Always true.
    pub success: bool,
    /// The run.
    pub run_id: String,
    /// The step.
    pub step_id: String,
    /// pass, fail or skipped.
    pub status: StepStatus,
    /// The step to run next: none after a failure or the last step.
    pub next_step_id: Option<String>,
}

/// What `getRunState` returns: where the run stands, with the judgment of
/// its steps when it has one.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunStateReply {
    /// The state.
    #[serde(flatten)]
    pub state: harshjudge_store::recorder::RunState,
    /// Always true.
    pub success: bool,
}

crate::plain_output!(EvidenceRecorded, StepCompleted, RunStateReply);

/// Records one evidence file.
pub fn record_evidence(ctx: &Context, a: RecordEvidence) -> Result<EvidenceRecorded, ToolError> {
    let id = a.run_id;
    let step = match (a.step_id, a.step) {
        (Some(s), None) => s,
        (None, Some(n)) => {
            if !(1..=99).contains(&n) {
                return Err(ToolError::invalid(format!(
                    "step must be a number from 1 to 99 (got {n})"
                )));
            }
            StepId::from_index(n as usize)?
        }
        (Some(sid), Some(n)) => {
            let s = sid.as_str();
            if sid.number() as u64 != n {
                return Err(ToolError::invalid(format!(
                    "stepId {s:?} and step {n} name different steps; give one of them"
                )));
            }
            sid
        }
        (None, None) => {
            return Err(ToolError::invalid(
                "missing the step: give stepId (\"01\") or step (1)",
            ));
        }
    };
    let name = EvidenceName::new(a.name.as_str()).map_err(|e| match e {
        StoreError::InvalidId { rule, .. } => ToolError::invalid(format!(
            "name {:?} {rule}; it becomes the file name, e.g. \"login-page\"",
            a.name
        )),
        other => other.into(),
    })?;
    let use_file = match a.source {
        Source::File => true,
        Source::Content => false,
        Source::Auto => a.kind == EvidenceType::Screenshot && looks_like_path(&a.data),
    };
    let (bytes, from) = if use_file {
        let (b, p) = read_allowed(ctx, &a.data)?;
        (b, Some(p))
    } else if a.kind == EvidenceType::Screenshot {
        let b64 = a
            .data
            .strip_prefix("data:image/png;base64,")
            .or_else(|| a.data.strip_prefix("data:image/jpeg;base64,"))
            .unwrap_or(&a.data);
        if (b64.len() as u64) / 4 * 3 > ctx.max_evidence_bytes {
            return Err(too_large(ctx, "The screenshot", b64.len() as u64 / 4 * 3));
        }
        let clean: String = b64.chars().filter(|c| !c.is_whitespace()).collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(clean.as_bytes())
            .map_err(|_| {
                let shown: String = a.data.chars().take(50).collect();
                ToolError::invalid(format!(
                    "For type=\"screenshot\", data must be an absolute path to a PNG or JPEG file, or base64-encoded PNG. Got: \"{shown}{}\"",
                    if a.data.chars().count() > 50 { "[...]" } else { "" }
                ))
            })?;
        (bytes, None)
    } else {
        (a.data.into_bytes(), None)
    };
    if bytes.len() as u64 > ctx.max_evidence_bytes {
        return Err(too_large(ctx, "The evidence", bytes.len() as u64));
    }
    let ext = if a.kind == EvidenceType::Screenshot {
        image_ext(&bytes).ok_or_else(|| {
            ToolError::invalid(match &from {
                Some(p) => format!("For type=\"screenshot\", {} is not a PNG or JPEG image", p.display()),
                None => "For type=\"screenshot\", the base64 data does not decode to a PNG or JPEG image".to_string(),
            })
        })?
    } else {
        a.kind.ext()
    };
    let mut run = open(
        ctx,
        &id,
        "Cannot add evidence; start a new run with startRun.",
    )?;
    if run.state().current_step != step.number() {
        run.begin_step(&step)?;
    }
    let mut metadata = a.metadata.unwrap_or_default();
    if let Some(p) = &from {
        metadata
            .entry("sourcePath")
            .or_insert_with(|| p.display().to_string().into());
    }
    let written = run.record_evidence(
        &step,
        NewEvidence {
            name: &name,
            ext,
            kind: a.kind.as_str(),
            bytes: &bytes,
        },
        metadata,
    )?;
    let store = ctx.store();
    Ok(EvidenceRecorded {
        success: true,
        file_path: ctx.rel(&written.path),
        meta_path: ctx.rel(
            &store
                .scenario(run.slug())
                .run(&id)
                .step(&step)
                .sidecar(&name),
        ),
        step_path: ctx.rel(&store.scenario(run.slug()).run(&id).step(&step).path()),
        file_size: written.size,
        step_id: step.to_string(),
        copied_from: from.map(|p| p.display().to_string()),
    })
}

/// A step's status as a caller gives it.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum StepOutcome {
    /// Passed.
    Pass,
    /// Failed.
    Fail,
    /// Not run.
    Skipped,
}

impl From<StepOutcome> for StepStatus {
    fn from(s: StepOutcome) -> Self {
        match s {
            StepOutcome::Pass => StepStatus::Pass,
            StepOutcome::Fail => StepStatus::Fail,
            StepOutcome::Skipped => StepStatus::Skipped,
        }
    }
}

/// Arguments of `completeStep`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompleteStep {
    /// The run.
    pub run_id: RunId,
    /// The step, two digits: "01".
    pub step_id: StepId,
    /// pass, fail or skipped.
    pub status: StepOutcome,
    /// Milliseconds the step took.
    pub duration: f64,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<String>,
    /// One line on what happened.
    #[serde(default)]
    pub summary: Option<String>,
}

fn duration_ms(field: &str, d: f64) -> Result<u64, ToolError> {
    if !d.is_finite() || d < 0.0 {
        return Err(ToolError::invalid(format!(
            "{field} must be a number of milliseconds, 0 or more (got {d})"
        )));
    }
    Ok(d.round() as u64)
}

/// Records a step's result.
pub fn complete_step(ctx: &Context, a: CompleteStep) -> Result<StepCompleted, ToolError> {
    let id = a.run_id;
    let step = a.step_id;
    let duration = duration_ms("duration", a.duration)?;
    let mut run = open(
        ctx,
        &id,
        "Cannot add step results; start a new run with startRun.",
    )?;
    let listed: Vec<String> = run
        .titles()
        .iter()
        .enumerate()
        .map(|(i, _)| format!("{:02}", i + 1))
        .collect();
    if !listed.is_empty() && !listed.contains(&step.to_string()) {
        return Err(ToolError::invalid(format!(
            "stepId \"{step}\" is not a step of scenario \"{}\": its steps are \"01\" to \"{}\"",
            run.slug(),
            listed.last().expect("not empty")
        )));
    }
    if run.state().current_step != step.number() {
        run.begin_step(&step)?;
    }
    // The step's trace, when the browser tools recorded one: a trace that
    // cannot be ended (the browser gave no answer) costs the step its trace,
    // never its result.
    let failed = a.status == StepOutcome::Fail;
    match crate::tools::browser::end_step_trace(ctx, &id, &step, failed) {
        Ok(Some(trace)) => drop(run.record_trace(&step, &trace)?),
        Ok(None) => {}
        Err(e) => drop(run.record_trace_lost(&step, &e.message)?),
    }
    run.complete_step(StepRecord {
        id: step.clone(),
        status: a.status.into(),
        duration_ms: duration,
        error: a.error,
        location: None,
        summary: a.summary,
    })?;
    let status = StepStatus::from(a.status);
    let next = if status == StepStatus::Fail {
        None
    } else {
        listed
            .iter()
            .position(|s| s == step.as_str())
            .and_then(|i| listed.get(i + 1).cloned())
    };
    Ok(StepCompleted {
        success: true,
        run_id: id.to_string(),
        step_id: step.to_string(),
        status,
        next_step_id: next,
    })
}

/// A step of `completeRun`'s `steps`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunStepInput {
    /// "01"…
    pub id: StepId,
    /// pass, fail or skipped.
    pub status: StepOutcome,
    /// Milliseconds.
    #[serde(default)]
    pub duration: f64,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<String>,
    /// Ignored: the files are listed from disk.
    #[serde(default)]
    pub evidence_files: Option<Vec<String>>,
    /// One line on what happened.
    #[serde(default)]
    pub summary: Option<String>,
}

/// Final status a caller may claim.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FinalStatus {
    /// Passed.
    Pass,
    /// Failed.
    Fail,
}

/// Arguments of `completeRun`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompleteRun {
    /// The run.
    pub run_id: RunId,
    /// pass or fail; the steps decide when there are any.
    #[serde(default)]
    pub status: Option<FinalStatus>,
    /// Milliseconds the run took; measured from its start when omitted.
    #[serde(default)]
    pub duration: Option<f64>,
    /// The failed step ("01"…), for runs whose steps were not completed one by one.
    #[serde(default)]
    pub failed_step: Option<StepId>,
    /// The failure message.
    #[serde(default)]
    pub error_message: Option<String>,
    /// The full step list, replacing the steps completed so far.
    #[serde(default)]
    pub steps: Option<Vec<RunStepInput>>,
    /// Ignored (accepted for compatibility).
    #[serde(default)]
    pub summary: Option<String>,
}

/// What `completeRun` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunCompleted {
    /// Always true.
    pub success: bool,
    /// The run's result.json, relative to the project.
    pub result_path: String,
    /// pass or fail, derived from the steps.
    pub status: String,
    /// The first failed step.
    pub failed_step: Option<String>,
    /// Its error.
    pub error_message: Option<String>,
    /// The scenario's statistics after the run.
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub updated_meta: harshjudge_store::store::Stats,
    /// Set when a claimed status contradicts the steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    #[serde(skip)]
    run: Option<RunId>,
}

impl ToolOutput for RunCompleted {
    fn effects(&self) -> Vec<Effect> {
        self.run
            .iter()
            .map(|run| Effect::RunCompleted { run: run.clone() })
            .collect()
    }
}

/// Finishes a run.
pub fn complete_run(ctx: &Context, a: CompleteRun) -> Result<RunCompleted, ToolError> {
    let id = a.run_id;
    let failed_step = a.failed_step;
    let duration = a.duration.map(|d| duration_ms("duration", d)).transpose()?;
    let steps = match a.steps {
        None => None,
        Some(list) => {
            let mut out = Vec::with_capacity(list.len());
            for (i, s) in list.into_iter().enumerate() {
                out.push(StepResult {
                    id: s.id.to_string(),
                    status: s.status.into(),
                    duration: duration_ms(&format!("steps[{i}].duration"), s.duration)?,
                    error: s.error,
                    evidence_files: vec![],
                    summary: s.summary,
                    title: None,
                    error_location: None,
                    expectation: None,
                    executed_status: None,
                    verdict: None,
                });
            }
            Some(out)
        }
    };
    let mut run = open(
        ctx,
        &id,
        "A run is completed once; start a new run with startRun.",
    )?;
    // The trace of a step the browser tools recorded into and no
    // completeStep ended: it ends with the run, failed when the run names
    // it failed.
    let ended = {
        let (failed_step, steps) = (failed_step.clone(), steps.clone());
        move |step: &StepId| {
            let listed = steps.iter().flatten().find(|s| s.id == step.as_str());
            Some(
                failed_step.as_ref() == Some(step)
                    || listed.is_some_and(|s| s.status == StepStatus::Fail),
            )
        }
    };
    match crate::tools::browser::end_trace_in(ctx, &id, ended) {
        Ok(Some((step, trace))) => drop(run.record_trace(&step, &trace)?),
        Ok(None) => {}
        // The browser gave no answer: its step's trace is lost, the run
        // completes.
        Err(e) => tracing::warn!("the trace of run {id}'s open step was not written: {e}"),
    }
    let done = run.complete_with(Completion {
        duration_ms: duration,
        claimed: a.status.map(|s| match s {
            FinalStatus::Pass => RunStatus::Pass,
            FinalStatus::Fail => RunStatus::Fail,
        }),
        steps,
        failed_step,
        error_message: a.error_message,
        skip_missing: true,
        // An agent's verdicts already recorded are folded in (HARSHJUDGE_UNCERTAIN=pass
        // lets `uncertain` pass; a bad value counts it as failed, the default).
        uncertain_passes: harshjudge_store::judge::JudgeSettings::from_env()
            .is_ok_and(|s| s.uncertain_passes),
    })?;
    Ok(RunCompleted {
        success: true,
        result_path: ctx.rel(&ctx.store().scenario(run.slug()).run(&id).result_path()),
        status: done.status.as_str().to_string(),
        failed_step: run.result().failed_step.clone(),
        error_message: run.result().error_message.clone(),
        updated_meta: done.stats,
        warning: done.warning,
        run: Some(id),
    })
}

/// Arguments of `getRunState`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetRunState {
    /// The run; omitted: the newest run of scenarioSlug.
    #[serde(default)]
    pub run_id: Option<RunId>,
    /// With no runId: the scenario whose newest run to describe.
    #[serde(default)]
    pub scenario_slug: Option<Slug>,
}

/// Where a run stands.
pub fn get_run_state(ctx: &Context, a: GetRunState) -> Result<RunStateReply, ToolError> {
    let store = ctx.require_init()?;
    let id = match (a.run_id, a.scenario_slug) {
        (Some(r), _) => r,
        (None, Some(slug)) => {
            existing(store, &slug)?;
            store.scenario(&slug).runs()?.pop().ok_or_else(|| {
                ToolError::not_found(format!(
                    "Scenario \"{slug}\" has no runs yet; start one with startRun."
                ))
            })?
        }
        (None, None) => {
            return Err(ToolError::invalid(
                "give runId, or scenarioSlug for its newest run",
            ));
        }
    };
    let state = harshjudge_store::recorder::run_state(store, &id).map_err(|e| match e {
        StoreError::NotFound { .. } => ToolError::not_found(format!(
            "Run \"{id}\" does not exist. Start one with startRun and use the runId it returns."
        )),
        other => other.into(),
    })?;
    Ok(RunStateReply {
        state,
        success: true,
    })
}
