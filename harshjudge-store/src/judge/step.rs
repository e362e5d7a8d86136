//! Judging one recorded step: gather its evidence, reuse the verdict whose
//! inputs are unchanged, else ask the judge, and record the judgment.

use std::time::Instant;

use super::{CodeOutcome, EvidenceInput, Judge, JudgeInput, inputs_hash};
use crate::store::judge::{AnswerInfo, StepJudgment};
use crate::store::{RunId, Slug, StepId, StepResult, StepStatus, Store, StoreError, now_iso};

/// What [`judge_step`] did.
#[derive(Clone, Debug, PartialEq)]
pub enum Judged {
    /// The recorded judgment's inputs were unchanged: it was kept.
    Reused(StepJudgment),
    /// The judge was asked (it may have given no verdict: see `error`).
    Made(StepJudgment),
}

impl Judged {
    /// The judgment, reused or made.
    pub fn judgment(&self) -> &StepJudgment {
        match self {
            Judged::Reused(j) | Judged::Made(j) => j,
        }
    }
}

/// The document a judge gets for one recorded step: its expectation, the
/// code's outcome and every evidence file (read through the store, confined).
pub fn step_input(
    store: &Store,
    slug: &Slug,
    run: &RunId,
    step: &StepResult,
    title: &str,
    expectation: &str,
) -> Result<JudgeInput, StoreError> {
    let step_id = StepId::new(step.id.clone())?;
    let dir = store.scenario(slug).run(run).step(&step_id).evidence();
    let mut evidence = Vec::new();
    for name in store.scenario(slug).run(run).list_evidence(&step_id)? {
        let path = dir.join(&name);
        let bytes = store.read_file(&path).map_err(|source| StoreError::Io {
            path: path.clone(),
            source,
        })?;
        evidence.push(EvidenceInput::of_bytes(&name, path, &bytes));
    }
    let executed = step.executed();
    Ok(JudgeInput {
        run_id: run.to_string(),
        scenario: slug.to_string(),
        step_id: step.id.clone(),
        title: title.to_string(),
        expectation: expectation.to_string(),
        // The code's own outcome: once verdicts are combined, `status` and
        // `error` may be the verdict's (`executedStatus` keeps the code's).
        code: CodeOutcome {
            status: match executed {
                StepStatus::Pass => "pass",
                StepStatus::Fail => "fail",
                StepStatus::Skipped => "skipped",
            }
            .to_string(),
            error: step.error.clone().filter(|_| executed != StepStatus::Pass),
        },
        evidence,
    })
}

/// Judges one recorded step and records the judgment in `judge/`.
///
/// A recorded verdict is reused when its inputs' hash (evidence contents,
/// expectation, code outcome, judge identity) is unchanged and `force` is
/// false; a judgment without a verdict (the judge failed) is always re-made.
/// The judge's own failure is recorded, not returned: only the store's errors are.
pub async fn judge_step(
    store: &Store,
    slug: &Slug,
    run: &RunId,
    input: &JudgeInput,
    judge: &dyn Judge,
    force: bool,
) -> Result<Judged, StoreError> {
    let identity = judge.identity();
    let hash = inputs_hash(input, &identity);
    if !force
        && let Some(previous) = store.scenario(slug).run(run).judgment()?
        && let Some(step) = previous.step(&input.step_id)
        && step.inputs_hash == hash
        && step.verdict.is_some()
    {
        return Ok(Judged::Reused(step.clone()));
    }
    let started = Instant::now();
    let reply = judge.judge(input).await;
    let mut judgment = StepJudgment {
        step_id: input.step_id.clone(),
        expectation: input.expectation.clone(),
        verdict: None,
        reasoning: String::new(),
        judge: judge.kind().to_string(),
        identity,
        inputs_hash: hash,
        duration_ms: started.elapsed().as_millis() as u64,
        attempts: 0,
        judged_at: now_iso(),
        error: None,
        answer: AnswerInfo::default(),
    };
    let (prompt, response) = match reply {
        Ok(reply) => {
            judgment.answer = reply.info;
            judgment.verdict = Some(reply.verdict);
            judgment.reasoning = reply.reasoning;
            judgment.attempts = reply.attempts;
            (reply.prompt, reply.response)
        }
        Err(e) => {
            judgment.error = Some(e.to_string());
            (None, None)
        }
    };
    store.scenario(slug).run(run).record_judgment(
        judgment.clone(),
        prompt.as_deref(),
        response.as_deref(),
    )?;
    Ok(Judged::Made(judgment))
}
