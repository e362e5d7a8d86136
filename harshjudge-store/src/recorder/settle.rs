//! The final state of a run, derived from its steps: what
//! [`RunHandle::complete_with`](super::RunHandle::complete_with) decides
//! before it writes anything. Pure, so every rule is unit-tested here.

use crate::store::{RunResult, RunStatus, StepId, StepResult, StepStatus};

use super::Completion;

/// What [`settle`] decided besides the fields it set.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Settled {
    /// Steps (1-based) recorded as skipped because they were never completed.
    pub skipped: Vec<usize>,
    /// For the caller: a claimed status that contradicted the steps, steps
    /// recorded as skipped.
    pub warnings: Vec<String>,
}

/// Settles `result`'s steps, `status`, `failedStep`, `errorMessage` and
/// `flaky` from what was recorded and what the caller claims.
///
/// The step list is, in order of precedence: `completion.steps`, the steps
/// completed so far, or one step per folder of `step_dirs` (passed, except
/// `completion.failed_step`). With `skip_missing`, every step of `titles` not in
/// the list is added as skipped. With steps, the status is derived from them
/// (any `fail` → fail) and a claim that contradicts it is a warning; without
/// any, the claim (default pass) stands. A passing retry (attempt > 1) is flaky.
pub(crate) fn settle(
    result: &mut RunResult,
    completion: Completion,
    titles: &[String],
    step_dirs: &[StepId],
) -> Settled {
    let title = |id: &StepId| titles.get(id.number().wrapping_sub(1)).cloned();
    if let Some(steps) = completion.steps.filter(|s| !s.is_empty()) {
        result.steps.clear();
        for step in steps {
            result.upsert_step(step);
        }
    }
    if result.steps.is_empty() {
        let failed = completion.failed_step.as_ref().map(|s| s.to_string());
        for id in step_dirs {
            let is_failed = failed.as_deref() == Some(id.as_str());
            result.upsert_step(StepResult {
                id: id.to_string(),
                status: if is_failed {
                    StepStatus::Fail
                } else {
                    StepStatus::Pass
                },
                duration: 0,
                error: if is_failed {
                    completion.error_message.clone()
                } else {
                    None
                },
                evidence_files: vec![],
                summary: None,
                title: title(id),
                error_location: None,
                expectation: None,
                executed_status: None,
                verdict: None,
            });
        }
    }
    let mut settled = Settled::default();
    if completion.skip_missing && !result.steps.is_empty() {
        let mut missing = vec![];
        for n in 1..=titles.len() {
            let Ok(id) = StepId::from_index(n) else {
                continue;
            };
            if !result.steps.iter().any(|s| s.id == id.as_str()) {
                missing.push(id.to_string());
                settled.skipped.push(n);
                result.upsert_step(StepResult {
                    id: id.to_string(),
                    status: StepStatus::Skipped,
                    duration: 0,
                    error: None,
                    evidence_files: vec![],
                    summary: Some(
                        "never completed: recorded as skipped when the run completed".into(),
                    ),
                    title: title(&id),
                    error_location: None,
                    expectation: None,
                    executed_status: None,
                    verdict: None,
                });
            }
        }
        if !missing.is_empty() {
            settled.warnings.push(format!(
                "Steps {} were never completed; recorded as skipped.",
                missing.join(", ")
            ));
        }
    }
    if result.steps.is_empty() {
        result.status = completion.claimed.unwrap_or(RunStatus::Pass);
        result.failed_step = completion.failed_step.map(|s| s.to_string());
        result.error_message = completion.error_message;
    } else {
        result.status = RunStatus::Pass;
        result.derive_outcome();
        if result.status == RunStatus::Fail && result.error_message.is_none() {
            result.error_message = completion.error_message;
        }
        if let Some(claimed) = completion.claimed
            && claimed != result.status
        {
            settled.warnings.insert(0, format!(
                "Status mismatch: status \"{}\" contradicts step results (derived: \"{}\"). Using derived status.",
                claimed.as_str(),
                result.status.as_str()
            ));
        }
    }
    // A retry that passes: an earlier attempt of the same scenario failed.
    result.flaky = result.status == RunStatus::Pass && result.attempt.is_some_and(|a| a > 1);
    settled
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running() -> RunResult {
        serde_json::from_value(serde_json::json!({
            "runId": "20260101T000000000Z-aaaaaa",
            "scenarioSlug": "s",
            "status": "running",
            "startedAt": "2026-01-01T00:00:00.000Z",
            "steps": [],
        }))
        .unwrap()
    }

    fn step(id: &str, status: StepStatus, error: Option<&str>) -> StepResult {
        StepResult {
            id: id.into(),
            status,
            duration: 1,
            error: error.map(Into::into),
            evidence_files: vec![],
            summary: None,
            title: None,
            error_location: None,
            expectation: None,
            executed_status: None,
            verdict: None,
        }
    }

    fn titles(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("Step {i}")).collect()
    }

    fn id(n: usize) -> StepId {
        StepId::from_index(n).unwrap()
    }

    #[test]
    fn the_steps_decide_the_status_and_the_first_failure_is_named() {
        let mut r = running();
        r.upsert_step(step("01", StepStatus::Pass, None));
        r.upsert_step(step("02", StepStatus::Fail, Some("boom")));
        r.upsert_step(step("03", StepStatus::Fail, Some("later")));
        let s = settle(&mut r, Completion::default(), &titles(3), &[]);
        assert_eq!(r.status, RunStatus::Fail);
        assert_eq!(r.failed_step.as_deref(), Some("02"));
        assert_eq!(r.error_message.as_deref(), Some("boom"));
        assert!(!r.flaky);
        assert_eq!(s, Settled::default());

        let mut r = running();
        r.upsert_step(step("01", StepStatus::Pass, None));
        r.upsert_step(step("02", StepStatus::Skipped, None));
        settle(&mut r, Completion::default(), &titles(2), &[]);
        assert_eq!(r.status, RunStatus::Pass);
        assert_eq!((r.failed_step, r.error_message), (None, None));
    }

    #[test]
    fn a_claim_that_contradicts_the_steps_is_a_warning_and_the_steps_win() {
        let mut r = running();
        r.upsert_step(step("01", StepStatus::Fail, None));
        let s = settle(
            &mut r,
            Completion {
                claimed: Some(RunStatus::Pass),
                error_message: Some("the agent's words".into()),
                ..Completion::default()
            },
            &titles(1),
            &[],
        );
        assert_eq!(r.status, RunStatus::Fail);
        assert_eq!(r.error_message.as_deref(), Some("the agent's words"));
        assert_eq!(
            s.warnings,
            [
                "Status mismatch: status \"pass\" contradicts step results (derived: \"fail\"). Using derived status."
            ]
        );
    }

    #[test]
    fn without_steps_the_claim_stands() {
        let mut r = running();
        settle(
            &mut r,
            Completion {
                claimed: Some(RunStatus::Fail),
                failed_step: Some(id(2)),
                error_message: Some("no".into()),
                ..Completion::default()
            },
            &titles(2),
            &[],
        );
        assert_eq!(r.status, RunStatus::Fail);
        assert_eq!(r.failed_step.as_deref(), Some("02"));
        assert_eq!(r.error_message.as_deref(), Some("no"));

        let mut r = running();
        settle(&mut r, Completion::default(), &[], &[]);
        assert_eq!(r.status, RunStatus::Pass);
    }

    #[test]
    fn given_steps_replace_the_recorded_ones() {
        let mut r = running();
        r.upsert_step(step("01", StepStatus::Fail, Some("old")));
        settle(
            &mut r,
            Completion {
                steps: Some(vec![step("01", StepStatus::Pass, None)]),
                ..Completion::default()
            },
            &titles(1),
            &[],
        );
        assert_eq!(r.status, RunStatus::Pass);
        assert_eq!(r.steps, [step("01", StepStatus::Pass, None)]);
    }

    #[test]
    fn step_folders_stand_for_steps_never_completed_one_by_one() {
        let mut r = running();
        settle(
            &mut r,
            Completion {
                failed_step: Some(id(2)),
                error_message: Some("timeout".into()),
                ..Completion::default()
            },
            &titles(3),
            &[id(1), id(2)],
        );
        let got: Vec<(&str, StepStatus, Option<&str>, Option<&str>)> = r
            .steps
            .iter()
            .map(|s| {
                (
                    s.id.as_str(),
                    s.status,
                    s.error.as_deref(),
                    s.title.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("01", StepStatus::Pass, None, Some("Step 1")),
                ("02", StepStatus::Fail, Some("timeout"), Some("Step 2")),
            ]
        );
        assert_eq!(r.status, RunStatus::Fail);
        assert_eq!(r.failed_step.as_deref(), Some("02"));
    }

    #[test]
    fn skip_missing_records_the_steps_never_completed_as_skipped() {
        let mut r = running();
        r.upsert_step(step("02", StepStatus::Pass, None));
        let s = settle(
            &mut r,
            Completion {
                skip_missing: true,
                ..Completion::default()
            },
            &titles(4),
            &[],
        );
        assert_eq!(s.skipped, [1, 3, 4]);
        assert_eq!(
            s.warnings,
            ["Steps 01, 03, 04 were never completed; recorded as skipped."]
        );
        let ids: Vec<(&str, StepStatus)> =
            r.steps.iter().map(|s| (s.id.as_str(), s.status)).collect();
        assert_eq!(
            ids,
            [
                ("01", StepStatus::Skipped),
                ("02", StepStatus::Pass),
                ("03", StepStatus::Skipped),
                ("04", StepStatus::Skipped),
            ]
        );
        assert_eq!(r.status, RunStatus::Pass);
        // Nothing completed at all: nothing to skip against.
        let mut r = running();
        let s = settle(
            &mut r,
            Completion {
                skip_missing: true,
                ..Completion::default()
            },
            &titles(2),
            &[],
        );
        assert_eq!(s, Settled::default());
    }

    #[test]
    fn a_passing_retry_is_flaky_and_a_first_attempt_is_not() {
        for (attempt, status, flaky) in [
            (Some(2), StepStatus::Pass, true),
            (Some(1), StepStatus::Pass, false),
            (None, StepStatus::Pass, false),
            (Some(3), StepStatus::Fail, false),
        ] {
            let mut r = running();
            r.attempt = attempt;
            r.upsert_step(step("01", status, None));
            settle(&mut r, Completion::default(), &titles(1), &[]);
            assert_eq!(r.flaky, flaky, "attempt {attempt:?}, {status:?}");
        }
    }
}
