//! `getPendingJudgments` and `recordVerdict`: an agent as the judge, through
//! MCP. The agent lists the steps that wait for a verdict (an expectation in
//! words and no verdict yet), reads their evidence files, and records a verdict
//! with its reasoning; the run's status and its scenario's statistics then
//! follow the one rule of `harshjudge_store::judge::combine_verdicts`.
//!
//! Where a step's expectation comes from: `result.json`'s step `expectation`
//! (`step!(…, expect = "…")` in `cargo test` runs); for a run recorded through
//! MCP (`startRun` … `completeRun`), the scenario's step file's
//! `## Expected Outcome`, which `createScenario` requires of every step — the
//! text the original HarshJudge's agent judges a step against. A step file
//! written by the `cargo test` harness (it carries the step's Rust code) holds
//! no expectation of the author's, and is never used.

use std::collections::HashMap;

use harshjudge_store::judge::{self, EvidenceInput, JudgeInput, MAX_REASONING, Verdict};
use harshjudge_store::store::judge::StepJudgment;
use harshjudge_store::store::{
    RunId, RunResult, RunStatus, Slug, StepId, StepResult, StepStatus, Store, StoreError,
    VerdictState, now_iso,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::scenario::existing;
use crate::context::Context;
use crate::dispatch::ToolOutput;
use crate::error::{Code, ToolError};

/// How many pending steps `getPendingJudgments` lists without `limit`.
pub const DEFAULT_PENDING_LIMIT: usize = 20;
/// The most pending steps one `getPendingJudgments` call lists.
pub const MAX_PENDING_LIMIT: usize = 100;
/// The longest judge name `recordVerdict` accepts, in characters.
pub const MAX_JUDGE_NAME: usize = 100;

/// Arguments of `getPendingJudgments`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetPendingJudgments {
    /// Only this scenario's runs.
    #[serde(default)]
    pub scenario_slug: Option<Slug>,
    /// Only this run.
    #[serde(default)]
    pub run_id: Option<RunId>,
    /// Most steps to list (default 20, at most 100); the rest are counted in `leftOut`.
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u64>,
}

/// One evidence file of a step, as read (through the store: a link is never followed).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingEvidence {
    /// The file name (`after.png`, `note.txt`, …).
    pub name: String,
    /// Its absolute path: open it to judge.
    pub path: String,
    /// `image`, `json` or `text`.
    pub kind: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// SHA-256 of its content, hex.
    pub sha256: String,
}

impl From<EvidenceInput> for PendingEvidence {
    fn from(e: EvidenceInput) -> Self {
        PendingEvidence {
            name: e.name,
            path: e.path.display().to_string(),
            kind: e.kind,
            bytes: e.bytes,
            sha256: e.sha256,
        }
    }
}

/// How the step's own code ended.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CodeOutcome {
    /// `pass` or `fail` (the code's outcome, before any verdict).
    pub status: String,
    /// The code's error, when it failed.
    pub error: Option<String>,
}

/// A step waiting for a verdict.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingStep {
    /// The run.
    pub run_id: String,
    /// Its scenario.
    pub scenario_slug: String,
    /// The step, `"01"`…
    pub step_id: String,
    /// The step's title.
    pub title: String,
    /// What must be seen, in words: judge the evidence against exactly this.
    pub expectation: String,
    /// `code` (the step's own `step!(…, expect = "…")`, recorded in the run) or `stepFile` (the
    /// scenario's step file, `## Expected Outcome`, for runs recorded through MCP).
    pub expectation_source: String,
    /// `pending` (never judged) or `error` (a judge was asked and gave no verdict).
    pub verdict: String,
    /// Why the last judge gave no verdict, for `error`.
    pub judge_error: Option<String>,
    /// The code's own outcome.
    pub code: CodeOutcome,
    /// The step's evidence files.
    pub evidence: Vec<PendingEvidence>,
    /// The hash of the inputs (evidence, expectation, code outcome, judge
    /// identity `judgeIdentity`) the verdict will be recorded against.
    pub inputs_hash: String,
    /// The run's status now (`pass` or `fail`).
    pub run_status: String,
    /// When the run completed (ISO 8601).
    pub completed_at: Option<String>,
}

/// A pending step whose evidence could not be read (a link inside `.harshJudge/`, an I/O error).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnreadableStep {
    /// The run.
    pub run_id: String,
    /// Its scenario.
    pub scenario_slug: String,
    /// The step.
    pub step_id: String,
    /// What went wrong, and what to do.
    pub error: String,
}

/// What `getPendingJudgments` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingJudgments {
    /// Always true.
    pub success: bool,
    /// The steps waiting for a verdict, newest run first (at most `limit`).
    pub pending: Vec<PendingStep>,
    /// Pending steps whose evidence could not be read (they count towards `limit`).
    pub unreadable: Vec<UnreadableStep>,
    /// Every pending step found (listed or not).
    pub total: usize,
    /// Pending steps not listed because of `limit`.
    pub left_out: usize,
    /// The limit applied.
    pub limit: usize,
    /// The judge identity `inputsHash` was computed for (`agent:<name>`; the
    /// default judge name of `recordVerdict`).
    pub judge_identity: String,
    /// How to see the rest, when some were left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ToolOutput for PendingJudgments {}

/// A step that waits for a verdict, before its evidence is read.
struct Candidate {
    slug: Slug,
    run: RunId,
    result_status: RunStatus,
    completed_at: Option<String>,
    step: StepResult,
    title: String,
    expectation: String,
    source: &'static str,
    judge_error: Option<String>,
    /// Why the step cannot be judged now (its run's judgment record is unreadable).
    problem: Option<String>,
}

/// The judge name used when `recordVerdict` gets none: the MCP client's name
/// (from its `initialize`), else `agent`.
fn default_judge_name(ctx: &Context) -> String {
    ctx.client_name()
        .filter(|n| valid_judge_name(n).is_ok())
        .unwrap_or_else(|| "agent".into())
}

fn valid_judge_name(name: &str) -> Result<(), ToolError> {
    let n = name.chars().count();
    if n == 0 || name.trim().is_empty() {
        return Err(ToolError::invalid(
            "judge must not be empty: give the agent's name (e.g. \"claude\"), or leave it out",
        ));
    }
    if n > MAX_JUDGE_NAME {
        return Err(ToolError::invalid(format!(
            "judge must be at most {MAX_JUDGE_NAME} characters (got {n}): give the agent's short name"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(ToolError::invalid(
            "judge must be one line without control characters: give the agent's name",
        ));
    }
    Ok(())
}

/// The expectations a scenario's step files give its steps, by step id: the
/// `## Expected Outcome` of step files written by an agent (`createScenario`),
/// with the step's title. Step files of the `cargo test` harness (they carry
/// the step's Rust code) give none.
fn step_file_expectations(store: &Store, slug: &Slug) -> HashMap<String, (String, String)> {
    let Ok(Some(meta)) = store.scenario(slug).meta() else {
        return HashMap::new();
    };
    let dir = store.scenario(slug).steps_dir();
    meta.steps
        .into_iter()
        .filter_map(|s| {
            let text = store.read_to_string(&dir.join(&s.file)).ok()?;
            let expected = agent_expected_outcome(&text)?;
            Some((s.id, (s.title, expected)))
        })
        .collect()
}

/// The `## Expected Outcome` section of a step file written by an agent, when
/// not empty; `None` for a step file of the `cargo test` harness.
fn agent_expected_outcome(text: &str) -> Option<String> {
    if text.lines().any(|l| l.starts_with("**Code (")) {
        return None;
    }
    let at = text.find("\n## Expected Outcome\n")?;
    let rest = &text[at + "\n## Expected Outcome\n".len()..];
    let section = match rest.find("\n## ") {
        Some(end) => &rest[..end],
        None => rest,
    };
    let section = section.trim();
    (!section.is_empty()).then(|| section.to_string())
}

/// The expectation of a step of a run: its own in `result.json`, else the
/// scenario's step file's (titles must agree: the scenario may have changed).
fn expectation_of(
    step: &StepResult,
    files: &HashMap<String, (String, String)>,
) -> Option<(String, &'static str)> {
    if let Some(e) = step.expectation.as_deref().filter(|e| !e.trim().is_empty()) {
        return Some((e.to_string(), "code"));
    }
    let (title, expected) = files.get(&step.id)?;
    if step.title.as_deref().is_some_and(|t| t != title) {
        return None;
    }
    Some((expected.clone(), "stepFile"))
}

fn not_found_run(id: &RunId) -> ToolError {
    ToolError::not_found(format!(
        "Run \"{id}\" does not exist. List the steps that wait for a verdict with getPendingJudgments, and use the runId it gives."
    ))
}

/// The scenario of a run, or `NOT_FOUND`.
fn slug_of(ctx: &Context, store: &Store, id: &RunId) -> Result<Slug, ToolError> {
    if let Some(slug) = ctx.known_slug(id)
        && store.scenario(&slug).run(id).path().is_dir()
    {
        return Ok(slug);
    }
    let slug = store.find_run(id)?.ok_or_else(|| not_found_run(id))?;
    ctx.remember_slug(id, Some(&slug));
    Ok(slug)
}

fn read_result(store: &Store, slug: &Slug, id: &RunId) -> Result<RunResult, ToolError> {
    store.scenario(slug).run(id).result()?.ok_or_else(|| {
        ToolError::not_found(format!(
            "Run \"{id}\" has no result.json yet: nothing of it can be judged."
        ))
    })
}

/// The judge's input for a step, its evidence read through the store; a link
/// or another read failure is an error saying so.
fn input_of(
    store: &Store,
    slug: &Slug,
    run: &RunId,
    step: &StepResult,
    title: &str,
    expectation: &str,
) -> Result<JudgeInput, ToolError> {
    // `step_input` takes the code's own outcome (`executedStatus`), not a verdict's.
    judge::step_input(store, slug, run, step, title, expectation).map_err(|e| {
        let denied =
            matches!(e, StoreError::Link { .. }) || e.to_string().contains("symbolic link");
        ToolError::new(
            if denied {
                Code::AccessDenied
            } else {
                Code::Internal
            },
            format!(
                "the evidence of step {} of run \"{run}\" cannot be read: {e}",
                step.id
            ),
        )
    })
}

/// The runs `getPendingJudgments` looks through: one run, one scenario's, or all.
fn runs_to_scan(
    ctx: &Context,
    store: &Store,
    run_id: Option<RunId>,
    scenario_slug: Option<Slug>,
) -> Result<Vec<(Slug, RunId)>, ToolError> {
    Ok(match (run_id, scenario_slug) {
        (Some(run), slug) => {
            let found = slug_of(ctx, store, &run)?;
            if let Some(s) = slug
                && s != found
            {
                return Err(ToolError::invalid(format!(
                    "runId \"{run}\" is a run of scenario \"{found}\", not of scenarioSlug \"{s}\": give one of the two, or matching ones"
                )));
            }
            vec![(found, run)]
        }
        (None, Some(slug)) => {
            existing(store, &slug)?;
            store
                .scenario(&slug)
                .runs()?
                .into_iter()
                .map(|r| (slug.clone(), r))
                .collect()
        }
        (None, None) => {
            let mut all = Vec::new();
            for slug in store.list_scenarios()? {
                for r in store.scenario(&slug).runs()? {
                    all.push((slug.clone(), r));
                }
            }
            all
        }
    })
}

/// The steps of the final runs among `runs` that wait for a verdict.
fn candidates_in(store: &Store, runs: Vec<(Slug, RunId)>) -> Vec<Candidate> {
    let mut files: HashMap<Slug, HashMap<String, (String, String)>> = HashMap::new();
    let mut candidates = Vec::new();
    for (slug, run) in runs {
        // A run being written or unreadable has nothing final to judge.
        let Ok(Some(result)) = store.scenario(&slug).run(&run).result() else {
            continue;
        };
        if result.status == RunStatus::Running {
            continue;
        }
        // A judgment record that cannot be read is said, never overwritten.
        let (judgment, problem) = match store.scenario(&slug).run(&run).judgment() {
            Ok(j) => (j, None),
            Err(e) => (
                None,
                Some(format!(
                    "{e}; fix or remove the file, then judge the step again"
                )),
            ),
        };
        let from_files = files
            .entry(slug.clone())
            .or_insert_with(|| step_file_expectations(store, &slug));
        for step in &result.steps {
            if step.executed() == StepStatus::Skipped || step.verdict == Some(VerdictState::Skipped)
            {
                continue;
            }
            let Some((expectation, source)) = expectation_of(step, from_files) else {
                continue;
            };
            let judged = judgment.as_ref().and_then(|j| j.step(&step.id));
            if judged.is_some_and(|j| j.verdict.is_some()) {
                continue;
            }
            let title = step
                .title
                .clone()
                .or_else(|| from_files.get(&step.id).map(|(t, _)| t.clone()))
                .unwrap_or_default();
            candidates.push(Candidate {
                slug: slug.clone(),
                run: run.clone(),
                result_status: result.status,
                completed_at: result.completed_at.clone(),
                step: step.clone(),
                title,
                expectation,
                source,
                judge_error: judged.map(|j| j.error.clone().unwrap_or_else(|| "no verdict".into())),
                problem: problem.clone(),
            });
        }
    }
    candidates
}

/// Lists the steps that wait for a verdict.
pub fn get_pending_judgments(
    ctx: &Context,
    a: GetPendingJudgments,
) -> Result<PendingJudgments, ToolError> {
    let store = ctx.require_init()?;
    let limit = match a.limit {
        None => DEFAULT_PENDING_LIMIT,
        Some(n) if (1..=MAX_PENDING_LIMIT as u64).contains(&n) => n as usize,
        Some(n) => {
            return Err(ToolError::invalid(format!(
                "limit must be 1 to {MAX_PENDING_LIMIT} (got {n}); narrow the list with scenarioSlug or runId"
            )));
        }
    };
    let runs = runs_to_scan(ctx, store, a.run_id, a.scenario_slug)?;
    let mut candidates = candidates_in(store, runs);
    // Newest run first; a run's steps in order.
    candidates.sort_by(|x, y| {
        y.completed_at
            .cmp(&x.completed_at)
            .then_with(|| y.run.as_str().cmp(x.run.as_str()))
            .then_with(|| x.step.id.cmp(&y.step.id))
    });
    let total = candidates.len();
    let identity = format!("agent:{}", default_judge_name(ctx));
    let mut pending = Vec::new();
    let mut unreadable = Vec::new();
    for c in candidates.into_iter().take(limit) {
        let input = match &c.problem {
            Some(p) => Err(ToolError::new(Code::Corrupt, p.clone())),
            None => input_of(store, &c.slug, &c.run, &c.step, &c.title, &c.expectation),
        };
        match input {
            Ok(input) => {
                let hash = judge::inputs_hash(&input, &identity);
                pending.push(PendingStep {
                    run_id: c.run.to_string(),
                    scenario_slug: c.slug.to_string(),
                    step_id: c.step.id.clone(),
                    title: c.title,
                    expectation: c.expectation,
                    expectation_source: c.source.to_string(),
                    verdict: if c.judge_error.is_some() {
                        "error"
                    } else {
                        "pending"
                    }
                    .into(),
                    judge_error: c.judge_error,
                    code: CodeOutcome {
                        status: input.code.status.clone(),
                        error: input.code.error.clone(),
                    },
                    evidence: input.evidence.into_iter().map(Into::into).collect(),
                    inputs_hash: hash,
                    run_status: c.result_status.as_str().into(),
                    completed_at: c.completed_at,
                });
            }
            Err(e) => unreadable.push(UnreadableStep {
                run_id: c.run.to_string(),
                scenario_slug: c.slug.to_string(),
                step_id: c.step.id.clone(),
                error: e.message,
            }),
        }
    }
    let left_out = total - pending.len() - unreadable.len();
    Ok(PendingJudgments {
        success: true,
        pending,
        unreadable,
        total,
        left_out,
        limit,
        judge_identity: identity,
        note: (left_out > 0).then(|| {
            format!(
                "{left_out} more steps wait for a verdict: record verdicts for these and call again, raise limit (at most {MAX_PENDING_LIMIT}), or narrow with scenarioSlug / runId"
            )
        }),
    })
}

/// A verdict an agent gives.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum VerdictArg {
    /// The evidence shows what the expectation says.
    Pass,
    /// The evidence contradicts it.
    Fail,
    /// The evidence does not tell (fails the step unless HARSHJUDGE_UNCERTAIN=pass).
    Uncertain,
}

impl From<VerdictArg> for Verdict {
    fn from(v: VerdictArg) -> Self {
        match v {
            VerdictArg::Pass => Verdict::Pass,
            VerdictArg::Fail => Verdict::Fail,
            VerdictArg::Uncertain => Verdict::Uncertain,
        }
    }
}

/// Arguments of `recordVerdict`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordVerdict {
    /// The run (from getPendingJudgments).
    pub run_id: RunId,
    /// The step, two digits: "01".
    pub step_id: StepId,
    /// pass, fail or uncertain.
    pub verdict: VerdictArg,
    /// Why: what in the evidence shows or contradicts the expectation (1 to 8192 bytes).
    pub reasoning: String,
    /// The judging agent's name (default: the MCP client's name, else "agent");
    /// recorded as the judge identity `agent:<name>`.
    #[serde(default)]
    pub judge: Option<String>,
}

/// What `recordVerdict` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerdictRecorded {
    /// Always true.
    pub success: bool,
    /// The run.
    pub run_id: String,
    /// Its scenario.
    pub scenario_slug: String,
    /// The step.
    pub step_id: String,
    /// The verdict recorded.
    pub verdict: String,
    /// The judge identity recorded (`agent:<name>`).
    pub judge_identity: String,
    /// The hash of the inputs the verdict was recorded against.
    pub inputs_hash: String,
    /// The expectation the verdict answers.
    pub expectation: String,
    /// The code's own outcome of the step.
    pub executed_status: String,
    /// The step's status now, the code's outcome and the verdict combined
    /// (`pass` / `fail`); for a running run, its code's status until completeRun.
    pub step_status: String,
    /// The run's status before the verdict.
    pub run_status_before: String,
    /// The run's status after it.
    pub run_status_after: String,
    /// Whether the verdict is already part of the run's status (false while
    /// the run is running: completeRun folds it in).
    pub applied: bool,
    /// The scenario's pass and fail counts after the verdict.
    pub pass_count: u64,
    /// See `passCount`.
    pub fail_count: u64,
    /// What happens next, for a running run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ToolOutput for VerdictRecorded {}

/// Records an agent's verdict on one step and folds it into the run's status.
pub fn record_verdict(ctx: &Context, a: RecordVerdict) -> Result<VerdictRecorded, ToolError> {
    let reasoning = a.reasoning.trim().to_string();
    if reasoning.is_empty() {
        return Err(ToolError::invalid(
            "reasoning must not be empty: say what in the evidence shows or contradicts the expectation",
        ));
    }
    if reasoning.len() > MAX_REASONING {
        return Err(ToolError::invalid(format!(
            "reasoning is {} bytes, over the {MAX_REASONING} allowed: keep to what in the evidence decides the verdict",
            reasoning.len()
        )));
    }
    let name = match &a.judge {
        Some(n) => {
            valid_judge_name(n)?;
            n.trim().to_string()
        }
        None => default_judge_name(ctx),
    };
    let uncertain_passes = harshjudge_store::judge::JudgeSettings::uncertain_passes_from_env()
        .map_err(|e| ToolError::invalid(e.to_string()))?;
    let store = ctx.require_init()?;
    let id = a.run_id;
    let slug = slug_of(ctx, store, &id)?;
    let before = read_result(store, &slug, &id)?;
    let step_id = a.step_id;
    let Some(step) = before.steps.iter().find(|s| s.id == step_id.as_str()) else {
        let ids: Vec<&str> = before.steps.iter().map(|s| s.id.as_str()).collect();
        return Err(ToolError::invalid(format!(
            "stepId \"{step_id}\" is not a step of run \"{id}\" ({}): judge a step getPendingJudgments lists{}",
            if ids.is_empty() {
                "it has no completed steps yet".to_string()
            } else {
                format!("its steps are {}", ids.join(", "))
            },
            if before.status == RunStatus::Running {
                ", or complete the step first with completeStep"
            } else {
                ""
            }
        )));
    };
    if step.executed() == StepStatus::Skipped {
        return Err(ToolError::invalid(format!(
            "step {step_id} of run \"{id}\" was skipped: it ran no code and left no evidence, so there is nothing to judge"
        )));
    }
    let files = if step.expectation.is_some() {
        HashMap::new()
    } else {
        step_file_expectations(store, &slug)
    };
    let Some((expectation, _)) = expectation_of(step, &files) else {
        return Err(ToolError::invalid(format!(
            "step {step_id} of run \"{id}\" has no expectation to judge against: give it one (step!(…, expect = \"…\") in Rust, expectedOutcome in createScenario), then run it again"
        )));
    };
    let title = step
        .title
        .clone()
        .or_else(|| files.get(step.id.as_str()).map(|(t, _)| t.clone()))
        .unwrap_or_default();
    let input = input_of(store, &slug, &id, step, &title, &expectation)?;
    let identity = format!("agent:{name}");
    let hash = judge::inputs_hash(&input, &identity);
    let verdict: Verdict = a.verdict.into();
    store.scenario(&slug).run(&id).record_judgment(
        StepJudgment {
            step_id: step_id.to_string(),
            expectation: expectation.clone(),
            verdict: Some(verdict),
            reasoning,
            judge: "agent".into(),
            identity: identity.clone(),
            inputs_hash: hash.clone(),
            duration_ms: 0,
            attempts: 1,
            judged_at: now_iso(),
            error: None,
            answer: harshjudge_store::store::judge::AnswerInfo::default(),
        },
        None,
        None,
    )?;
    let after = store
        .scenario(&slug)
        .run(&id)
        .apply_judgment(|r, j| judge::combine_verdicts(r, j, uncertain_passes))?;
    // As it is now: the run may have completed since it was read.
    let running = after.status == RunStatus::Running;
    let now = after
        .steps
        .iter()
        .find(|s| s.id == step_id.as_str())
        .unwrap_or(step);
    let meta = store.scenario(&slug).meta()?.unwrap_or_default();
    Ok(VerdictRecorded {
        success: true,
        run_id: id.to_string(),
        scenario_slug: slug.to_string(),
        step_id: step_id.to_string(),
        verdict: verdict.as_str().into(),
        judge_identity: identity,
        inputs_hash: hash,
        expectation,
        executed_status: input.code.status,
        step_status: now.status.as_str().into(),
        run_status_before: before.status.as_str().into(),
        run_status_after: after.status.as_str().into(),
        applied: !running,
        pass_count: meta.pass_count,
        fail_count: meta.fail_count,
        note: running.then(|| {
            "the run is still running: the verdict is recorded in judge/result.json and completeRun folds it into the run's status".to_string()
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::agent_expected_outcome;

    #[test]
    fn the_expected_outcome_of_agent_step_files_only() {
        let agent = "# Step 01: Pay\n\n## Description\n\n\n## Preconditions\n\n\n## Actions\nclick pay\n\n**Playwright:**\n```javascript\n// Add Playwright code here\n```\n\n## Expected Outcome\nA receipt is shown.\n";
        assert_eq!(
            agent_expected_outcome(agent).as_deref(),
            Some("A receipt is shown.")
        );
        let harness = "# Step 01: Pay\n\n## Actions\nRuns the step's code:\n\n**Code (rust):**\n```rust\npay()\n```\n\n## Expected Outcome\nThe step's code completes without an error or a panic.\n";
        assert_eq!(agent_expected_outcome(harness), None);
        let empty = "# Step 01: Pay\n\n## Expected Outcome\n\n";
        assert_eq!(agent_expected_outcome(empty), None);
    }
}

/// Arguments of `heal`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HealArgs {
    /// The scenario whose latest failed run is healed.
    pub scenario_slug: String,
    /// Heal from this run instead (it must have failed).
    #[serde(default)]
    pub run_id: Option<String>,
    /// The folder the failure's source locations are relative to (default: the project folder).
    #[serde(default)]
    pub source_root: Option<String>,
    /// Write the change to the source and record it in the run's folder (default false: only propose).
    #[serde(default)]
    pub apply: bool,
    /// The app's URL: the replacement is also checked on the live page
    /// (exactly one element), in a page of the server's own browsers.
    #[serde(default)]
    pub base_url: Option<String>,
}

impl ToolOutput for crate::heal::Heal {}

/// `heal`: [`crate::heal::heal`] on the project's store.
pub fn heal(ctx: &Context, a: HealArgs) -> Result<crate::heal::Heal, ToolError> {
    let root = match a.source_root.as_deref().map(std::path::Path::new) {
        Some(r) if r.is_absolute() => r.to_path_buf(),
        Some(r) => ctx.root().join(r),
        None => ctx.root().to_path_buf(),
    };
    if let Some(url) = a.base_url.as_deref() {
        return heal_live(ctx, &a, &root, url);
    }
    let req = crate::heal::HealRequest {
        scenario: a.scenario_slug,
        run: a.run_id,
        source_root: root,
        apply: a.apply,
        live: None,
    };
    crate::heal::heal(ctx.store(), &req).map_err(|e| match e {
        crate::heal::HealError::UnknownScenario { .. } => ToolError::not_found(e.to_string()),
        e => ToolError::invalid(e.to_string()),
    })
}

/// `heal` with its live check, in this process: a page of the agent's own
/// browsers (its open page, if any, stays open), within the launch limit.
fn heal_live(
    ctx: &Context,
    a: &HealArgs,
    root: &std::path::Path,
    url: &str,
) -> Result<crate::heal::Heal, ToolError> {
    let req = crate::heal::HealRequest {
        scenario: a.scenario_slug.clone(),
        run: a.run_id.clone(),
        source_root: root.to_path_buf(),
        apply: a.apply,
        live: Some(url.to_string()),
    };
    let agent = ctx.agent();
    let launch = harshjudge_browser::BrowserConfig::from_env()
        .map(|c| c.launch_timeout)
        .map_err(|e| ToolError::invalid(e.to_string()))?;
    let limit = crate::agent::tool_timeout()?.max(launch * 2 + std::time::Duration::from_secs(30));
    let mut check = |url: &str, locator: &str| {
        let (page, locator, mine) = (url.to_string(), locator.to_string(), agent.clone());
        let checked = agent.block_within(limit, "HARSHJUDGE_LAUNCH_TIMEOUT", async move {
            crate::heal::live::check(&mine.browsers, &page, &locator).await
        });
        checked.unwrap_or_else(|e| {
            Err(crate::heal::live::LiveError::Unanswered {
                url: url.to_string(),
                message: e.to_string(),
            })
        })
    };
    crate::heal::heal_with(ctx.store(), &req, &mut check).map_err(|e| match e {
        crate::heal::HealError::UnknownScenario { .. } => ToolError::not_found(e.to_string()),
        e => ToolError::invalid(e.to_string()),
    })
}
