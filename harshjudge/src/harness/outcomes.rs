//! A recorded run's steps as outcomes: what a trial reports when it shows a
//! run instead of running it (`--resume`, `--rejudge`, a setup another
//! nextest process ran). Read by the plan, the re-judging and the setups'
//! gate alike.

use std::time::Duration;

use crate::registry::ScenarioDef;
use harshjudge_store::event::StepOutcome;
use harshjudge_store::store::{RunId, RunResult, Slug, StepId, StepStatus, Store};

/// Each step's outcome as `result.json` records it (after its verdicts are
/// combined), for trials that report a recorded run instead of running it
/// (`--resume`, `--rejudge`); `how` says which in the messages. A step the run
/// never reached is skipped, saying so.
pub(crate) fn recorded_outcomes(
    store: &Store,
    def: &ScenarioDef,
    run: &RunId,
    result: &RunResult,
    how: &str,
) -> Option<Vec<StepOutcome>> {
    let slug = Slug::new(def.slug).ok()?;
    let mut out = Vec::new();
    for (i, step) in def.steps.iter().enumerate() {
        let id = StepId::from_index(i + 1).ok()?;
        let done = result.steps.iter().find(|s| s.id == id.as_str());
        let status = done.map_or(StepStatus::Skipped, |s| s.status);
        out.push(StepOutcome {
            index: i + 1,
            title: step.title.to_string(),
            status,
            duration: Duration::from_millis(done.map_or(0, |s| s.duration)),
            error: done
                .and_then(|s| s.error.clone())
                .filter(|_| status == StepStatus::Fail)
                .map(|e| format!("{e}\n  ({how} from run {run})")),
            location: done.and_then(|s| s.error_location.clone()),
            reason: (status == StepStatus::Skipped).then(|| match done {
                Some(_) => format!("{how} from run {run}, where it was skipped"),
                None => format!("{how} from run {run}, which never reached it"),
            }),
            evidence_dir: store.scenario(&slug).run(run).step(&id).evidence(),
            id,
            expectation: None,
        });
    }
    Some(out)
}
