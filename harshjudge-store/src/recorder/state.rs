//! Where a run stands, for a caller that wants to resume it ([`run_state`]).

use crate::store::{
    Phase, RunId, RunStatus, SkillError, StepResult, StepStatus, Store, StoreError, VerdictState,
};

/// Where a run stands, for a caller that wants to resume it.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RunState {
    /// The run's id.
    pub run_id: String,
    /// The scenario's slug.
    pub scenario_slug: String,
    /// running / pass / fail.
    pub status: RunStatus,
    /// The status from the code alone, when a step has an expectation
    /// (`status` then also counts the verdicts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executed_status: Option<RunStatus>,
    /// Phase from `skill-state.yaml`.
    pub phase: Phase,
    /// ISO-8601.
    pub started_at: String,
    /// ISO-8601 once final.
    pub completed_at: Option<String>,
    /// Steps of the scenario.
    pub total_steps: usize,
    /// Steps completed so far, in order.
    pub completed_steps: Vec<StepState>,
    /// The first step of the scenario not completed yet (none once the run is
    /// final, or after a failed step).
    pub next_step: Option<NextStep>,
    /// The step running when the state was last written (0 before the first).
    pub current_step: usize,
    /// What happened last.
    pub last_action: String,
    /// The failure, if any.
    pub error: Option<SkillError>,
    /// Whether more can be recorded in the run (it is not final).
    pub resumable: bool,
    /// The run was stopped before it ended (Ctrl-C, SIGTERM, its process
    /// died), or it is still marked running by a `cargo test` process that is gone.
    pub interrupted: bool,
    /// For an interrupted run: the step to pick up from in a new run (the first
    /// step that did not pass).
    pub resume_from: Option<NextStep>,
    /// What to do next, in a sentence, when the run cannot simply go on.
    pub hint: Option<String>,
}

/// One completed step in a [`RunState`].
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StepState {
    /// `"01"`…
    pub id: String,
    /// Title from `meta.yaml`, when listed there.
    pub title: Option<String>,
    /// pass / fail / skipped.
    pub status: StepStatus,
    /// Evidence files of the step.
    pub evidence_files: Vec<String>,
    /// The step's error.
    pub error: Option<String>,
    /// What must be seen, in words, for a step with an expectation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expectation: Option<String>,
    /// Where the step's judgment stands (a step with an expectation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<VerdictState>,
    /// The code's own outcome, when a verdict takes part in `status`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executed_status: Option<StepStatus>,
    /// Why the judge decided as it did, from `judge/result.json`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The judge that decided (`command`, `http` or `agent`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<String>,
}

/// The step to run next in a [`RunState`].
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct NextStep {
    /// `"01"`…
    pub id: String,
    /// Title.
    pub title: String,
    /// Step file name in `steps/`.
    pub file: String,
}

/// Where `run` stands: steps done with their status, the next step, the last
/// action and the error. Reads only; takes no lock.
pub fn run_state(store: &Store, run: &RunId) -> Result<RunState, StoreError> {
    let slug = store
        .find_run(run)?
        .ok_or_else(|| super::not_found(store, run))?;
    let meta = store.scenario(&slug).meta()?.unwrap_or_default();
    let result = store.scenario(&slug).run(run).result()?;
    let state = store.scenario(&slug).run(run).skill_state()?;
    let judgment = store.scenario(&slug).run(run).judgment()?;
    let status = result.as_ref().map_or(RunStatus::Running, |r| r.status);
    let steps: Vec<StepResult> = result.as_ref().map(|r| r.steps.clone()).unwrap_or_default();
    let completed_steps: Vec<StepState> = steps
        .iter()
        .map(|s| (s, judgment.as_ref().and_then(|j| j.step(&s.id))))
        .map(|(s, judged)| StepState {
            id: s.id.clone(),
            title: meta
                .steps
                .iter()
                .find(|m| m.id == s.id)
                .map(|m| m.title.clone())
                .or_else(|| s.title.clone()),
            status: s.status,
            evidence_files: s.evidence_files.clone(),
            error: s.error.clone(),
            expectation: s.expectation.clone(),
            verdict: s.verdict,
            executed_status: s.executed_status,
            reasoning: judged.map(|j| j.reasoning.clone()),
            judge: judged.map(|j| j.judge.clone()),
        })
        .collect();
    let failed = steps.iter().any(|s| s.status == StepStatus::Fail);
    let next_step = if status != RunStatus::Running || failed {
        None
    } else {
        meta.steps
            .iter()
            .find(|m| !steps.iter().any(|s| s.id == m.id))
            .map(|m| NextStep {
                id: m.id.clone(),
                title: m.title.clone(),
                file: m.file.clone(),
            })
    };
    let orphaned = if status == RunStatus::Running {
        store
            .orphaned_runs()
            .into_iter()
            .find(|(sl, r, _)| sl == &slug && r == run)
    } else {
        None
    };
    let interrupted = result.as_ref().is_some_and(|r| r.interrupted) || orphaned.is_some();
    let resume_from = interrupted
        .then(|| {
            meta.steps
                .iter()
                .find(|m| {
                    !steps
                        .iter()
                        .any(|s| s.id == m.id && s.status == StepStatus::Pass)
                })
                .map(|m| NextStep {
                    id: m.id.clone(),
                    title: m.title.clone(),
                    file: m.file.clone(),
                })
        })
        .flatten();
    let hint = if interrupted {
        let passed: Vec<&str> = steps
            .iter()
            .filter(|s| s.status == StepStatus::Pass)
            .map(|s| s.id.as_str())
            .collect();
        let why = match &orphaned {
            Some((_, _, pid)) => {
                format!("is still marked running, but the process that ran it (pid {pid}) is gone")
            }
            None => "was interrupted".to_string(),
        };
        Some(match &resume_from {
            Some(step) => format!(
                "This run {why}. Start a new run (startRun) and pick up at step {} \"{}\"{}.",
                step.id,
                step.title,
                if passed.is_empty() {
                    String::new()
                } else {
                    format!("; steps {} passed here", passed.join(", "))
                }
            ),
            None => format!(
                "This run {why}; every step had passed. Start a new run to record it again."
            ),
        })
    } else {
        None
    };
    let started_at = result
        .as_ref()
        .map(|r| r.started_at.clone())
        .filter(|s| !s.is_empty())
        .or_else(|| state.as_ref().map(|s| s.started_at.clone()))
        .unwrap_or_default();
    Ok(RunState {
        run_id: run.to_string(),
        scenario_slug: slug.to_string(),
        status,
        executed_status: result.as_ref().and_then(|r| r.executed_status),
        phase: state.as_ref().map_or(
            if status == RunStatus::Running {
                Phase::Init
            } else {
                Phase::Completed
            },
            |s| s.current_phase,
        ),
        started_at,
        completed_at: result.as_ref().and_then(|r| r.completed_at.clone()),
        total_steps: meta.steps.len(),
        completed_steps,
        next_step,
        current_step: state.as_ref().map_or(0, |s| s.current_step),
        last_action: state
            .as_ref()
            .map(|s| s.last_action.clone())
            .unwrap_or_else(|| "Run started".into()),
        error: state.as_ref().and_then(|s| s.error.clone()),
        resumable: status == RunStatus::Running && orphaned.is_none(),
        interrupted,
        resume_from,
        hint,
    })
}
