//! The one rule that combines a run's execution with its judgment, and the
//! advice a failing verdict gives the user. The store keeps both records
//! (`result.json`, `judge/result.json`); this rule is the judge's.

use crate::store::judge::{RunJudgment, Verdict};
use crate::store::{RunResult, RunStatus, StepStatus, VerdictState};

/// Combines a run's execution with its judgment, in place: the one rule every
/// writer of a run's final status follows (the harness when a run completes or
/// is re-judged, the MCP server's `completeRun` and `recordVerdict`).
///
/// For each step with an expectation or a judgment (whose expectation it then
/// takes: the one its verdict answers): `executedStatus` keeps the code's own
/// outcome (set once, from `status`, the first time the step is combined),
/// `verdict` says where the judgment stands, and `status` becomes the
/// combination: a step fails when its code failed, or its verdict is `fail`, or
/// its verdict is `uncertain` / the judge gave none (`error`) unless
/// `uncertain_passes` (`HARSHJUDGE_UNCERTAIN=pass`). A step still `pending`
/// (no judgment recorded) keeps its code's status. When the verdict fails a
/// step whose code passed, its `error` says so, with the judge's reasoning.
///
/// The run: `executedStatus` is the code-only status, and unless the run is
/// still running or was interrupted, `status`, `failedStep` and `errorMessage`
/// are derived again from the combined steps. Returns whether anything changed.
pub fn combine_verdicts(
    result: &mut RunResult,
    judgment: Option<&RunJudgment>,
    uncertain_passes: bool,
) -> bool {
    let before = result.clone();
    let mut any = false;
    for step in result.steps.iter_mut() {
        let judged = judgment.and_then(|j| j.step(&step.id));
        if step.expectation.is_none() && step.executed_status.is_none() && judged.is_none() {
            continue;
        }
        any = true;
        // The expectation the verdict answers (`--rejudge` judges the code's
        // current one, which may be new or changed since the run).
        if let Some(j) = judged
            && step.expectation.as_deref() != Some(j.expectation.as_str())
        {
            step.expectation = Some(j.expectation.clone());
        }
        let executed = *step.executed_status.get_or_insert(step.status);
        let state = match (executed, judged) {
            (StepStatus::Skipped, _) => VerdictState::Skipped,
            (_, None) => VerdictState::Pending,
            (_, Some(j)) => match j.verdict {
                Some(Verdict::Pass) => VerdictState::Pass,
                Some(Verdict::Fail) => VerdictState::Fail,
                Some(Verdict::Uncertain) => VerdictState::Uncertain,
                None => VerdictState::Error,
            },
        };
        step.verdict = Some(state);
        if executed != StepStatus::Pass {
            step.status = executed;
            continue;
        }
        let passes = match state {
            VerdictState::Pass | VerdictState::Pending | VerdictState::Skipped => true,
            VerdictState::Fail => false,
            VerdictState::Uncertain | VerdictState::Error => uncertain_passes,
        };
        if passes {
            step.status = StepStatus::Pass;
            step.error = None;
        } else {
            step.status = StepStatus::Fail;
            let j = judged.expect("a failing verdict has a judgment");
            step.error = Some(match (&j.verdict, &j.error) {
                (Some(v), _) => {
                    let why = if j.reasoning.is_empty() {
                        "no reasoning given".to_string()
                    } else {
                        j.reasoning.clone()
                    };
                    let hint = if *v == Verdict::Uncertain {
                        " (an uncertain verdict fails the step; HARSHJUDGE_UNCERTAIN=pass counts it as passed)"
                    } else {
                        ""
                    };
                    format!(
                        "the {} judge's verdict is {v}{hint}: {why}\n  expected: {}",
                        j.judge, j.expectation
                    )
                }
                (None, error) => format!(
                    "the {} judge gave no verdict: {} (re-judge with `-- --rejudge`, or set HARSHJUDGE_UNCERTAIN=pass to let such steps pass)\n  expected: {}",
                    j.judge,
                    error.as_deref().unwrap_or("no answer"),
                    j.expectation
                ),
            });
        }
    }
    if any {
        let code_failed = result
            .steps
            .iter()
            .any(|s| s.executed() == StepStatus::Fail);
        if result.status != RunStatus::Running {
            result.executed_status = Some(if code_failed || result.interrupted {
                RunStatus::Fail
            } else {
                RunStatus::Pass
            });
            if !result.interrupted {
                result.derive_outcome();
                result.flaky =
                    result.status == RunStatus::Pass && result.attempt.is_some_and(|a| a > 1);
            }
        }
    }
    *result != before
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::judge::{StepJudgment, judged};
    use crate::store::{RunId, Slug, Store};

    fn final_run(steps: &[(&str, StepStatus, Option<&str>)]) -> RunResult {
        let mut r: RunResult = serde_json::from_value(serde_json::json!({
            "runId": "r1", "scenarioSlug": "checkout", "status": "pass",
            "startedAt": "2026-11-23T00:00:00.000Z", "completedAt": "2026-11-23T00:00:01.000Z",
            "duration": 1000, "steps": [],
        }))
        .unwrap();
        for (id, status, expectation) in steps {
            r.upsert_step(crate::store::StepResult {
                id: id.to_string(),
                status: *status,
                duration: 1,
                error: (*status == StepStatus::Fail).then(|| "code broke".to_string()),
                evidence_files: vec![],
                summary: None,
                title: None,
                error_location: None,
                expectation: expectation.map(str::to_string),
                executed_status: None,
                verdict: None,
            });
        }
        r.derive_outcome();
        r
    }

    fn judgment(verdicts: &[(&str, Option<Verdict>)]) -> RunJudgment {
        RunJudgment {
            run_id: "r1".into(),
            steps: verdicts
                .iter()
                .map(|(id, v)| StepJudgment {
                    verdict: *v,
                    error: v.is_none().then(|| "timed out".to_string()),
                    ..judged(id, Verdict::Pass)
                })
                .collect(),
        }
    }

    #[test]
    fn verdicts_combine_with_the_code_outcome() {
        let exp = Some("a receipt is shown");
        let mut r = final_run(&[
            ("01", StepStatus::Pass, None),
            ("02", StepStatus::Pass, exp),
            ("03", StepStatus::Pass, exp),
        ]);
        // No judgment yet: pending, the code's status stands.
        assert!(combine_verdicts(&mut r, None, false));
        assert_eq!(r.status, RunStatus::Pass);
        assert_eq!(r.executed_status, Some(RunStatus::Pass));
        assert_eq!(r.steps[1].verdict, Some(VerdictState::Pending));
        assert_eq!(
            r.steps[0].verdict, None,
            "a step without expectation has no verdict"
        );
        // A failing verdict fails a step whose code passed, with the reasoning.
        let j = judgment(&[("02", Some(Verdict::Pass)), ("03", Some(Verdict::Fail))]);
        assert!(combine_verdicts(&mut r, Some(&j), false));
        assert_eq!(r.status, RunStatus::Fail);
        assert_eq!(r.executed_status, Some(RunStatus::Pass));
        assert_eq!(r.failed_step.as_deref(), Some("03"));
        let err = r.error_message.clone().unwrap();
        assert!(
            err.contains("verdict is fail")
                && err.contains("seen")
                && err.contains("a receipt is shown"),
            "{err}"
        );
        assert_eq!(r.steps[2].executed_status, Some(StepStatus::Pass));
        // Combining again changes nothing.
        assert!(!combine_verdicts(&mut r, Some(&j), false));
        // Re-judged as passing: the step and the run pass again, the error goes.
        let j = judgment(&[("02", Some(Verdict::Pass)), ("03", Some(Verdict::Pass))]);
        assert!(combine_verdicts(&mut r, Some(&j), false));
        assert_eq!(r.status, RunStatus::Pass);
        assert_eq!(r.steps[2].error, None);
        assert_eq!(r.failed_step, None);
        // Uncertain and no-verdict fail unless uncertain passes.
        let j = judgment(&[("02", Some(Verdict::Uncertain)), ("03", None)]);
        combine_verdicts(&mut r, Some(&j), false);
        assert_eq!(r.status, RunStatus::Fail);
        assert_eq!(r.steps[1].verdict, Some(VerdictState::Uncertain));
        assert_eq!(r.steps[2].verdict, Some(VerdictState::Error));
        assert!(
            r.steps[2]
                .error
                .as_deref()
                .unwrap()
                .contains("gave no verdict: timed out")
        );
        combine_verdicts(&mut r, Some(&j), true);
        assert_eq!(r.status, RunStatus::Pass);
    }

    #[test]
    fn a_judgment_of_a_step_recorded_without_expectation_takes_part() {
        // A run recorded before its step had an expectation, re-judged with the
        // code's current one: the verdict counts, and the expectation it answers
        // is written into result.json.
        let mut r = final_run(&[
            ("01", StepStatus::Pass, None),
            ("02", StepStatus::Pass, None),
        ]);
        let j = judgment(&[("02", Some(Verdict::Fail))]);
        assert!(combine_verdicts(&mut r, Some(&j), false));
        assert_eq!(r.status, RunStatus::Fail);
        assert_eq!(r.steps[1].verdict, Some(VerdictState::Fail));
        assert_eq!(
            r.steps[1].expectation.as_deref(),
            Some("a receipt is shown")
        );
        assert_eq!(r.steps[1].executed_status, Some(StepStatus::Pass));
        assert_eq!(r.steps[0].verdict, None);
        // A changed expectation is replaced by the one judged.
        let mut r = final_run(&[("01", StepStatus::Pass, Some("an old expectation"))]);
        let j = judgment(&[("01", Some(Verdict::Pass))]);
        assert!(combine_verdicts(&mut r, Some(&j), false));
        assert_eq!(
            r.steps[0].expectation.as_deref(),
            Some("a receipt is shown")
        );
    }

    #[test]
    fn a_code_failure_is_never_passed_by_a_verdict() {
        let exp = Some("a receipt is shown");
        let mut r = final_run(&[
            ("01", StepStatus::Fail, exp),
            ("02", StepStatus::Skipped, exp),
        ]);
        let j = judgment(&[("01", Some(Verdict::Pass))]);
        combine_verdicts(&mut r, Some(&j), true);
        assert_eq!(r.status, RunStatus::Fail);
        assert_eq!(r.executed_status, Some(RunStatus::Fail));
        assert_eq!(r.steps[0].status, StepStatus::Fail);
        assert_eq!(r.steps[0].error.as_deref(), Some("code broke"));
        assert_eq!(r.steps[0].verdict, Some(VerdictState::Pass));
        assert_eq!(r.steps[1].verdict, Some(VerdictState::Skipped));
        assert_eq!(r.steps[1].status, StepStatus::Skipped);
    }

    #[test]
    fn applying_a_judgment_rewrites_the_result_and_the_counts() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join(".harshJudge"));
        store.init_project("p", "http://127.0.0.1").unwrap();
        let slug = Slug::new("checkout").unwrap();
        let spec = crate::store::ScenarioSpec {
            title: "Checkout".into(),
            steps: vec!["Pay".into()],
            tags: None,
            starred: None,
            estimated_duration: None,
        };
        store.scenario(&slug).upsert(&spec, &[]).unwrap();
        let run = RunId::new("r1").unwrap();
        store
            .scenario(&slug)
            .run(&run)
            .start("2026-11-23T00:00:00.000Z")
            .unwrap();
        let mut r = final_run(&[("01", StepStatus::Pass, Some("a receipt is shown"))]);
        r.run_id = run.to_string();
        store.scenario(&slug).run(&run).complete(&r).unwrap();
        let meta = store.scenario(&slug).meta().unwrap().unwrap();
        assert_eq!((meta.pass_count, meta.fail_count), (1, 0));
        store
            .scenario(&slug)
            .run(&run)
            .record_judgment(judged("01", Verdict::Fail), None, None)
            .unwrap();
        let written = store
            .scenario(&slug)
            .run(&run)
            .apply_judgment(|r, j| combine_verdicts(r, j, false))
            .unwrap();
        assert_eq!(written.status, RunStatus::Fail);
        assert_eq!(
            store.scenario(&slug).run(&run).result().unwrap().unwrap(),
            written
        );
        let meta = store.scenario(&slug).meta().unwrap().unwrap();
        assert_eq!(
            (meta.total_runs, meta.pass_count, meta.fail_count),
            (1, 0, 1)
        );
        assert_eq!(meta.last_result.as_deref(), Some("fail"));
        // Applying again counts nothing twice.
        store
            .scenario(&slug)
            .run(&run)
            .apply_judgment(|r, j| combine_verdicts(r, j, false))
            .unwrap();
        let meta = store.scenario(&slug).meta().unwrap().unwrap();
        assert_eq!((meta.pass_count, meta.fail_count), (0, 1));
        // The recount agrees with the adjusted counts.
        let stats = store.scenario(&slug).recount_stats().unwrap();
        assert_eq!((stats.pass_count, stats.fail_count), (0, 1));
    }
}
