//! Fakes for the crate's unit tests: scenarios declared without the macro, and
//! a sink that records every event.

use std::sync::Mutex;
use std::time::Duration;

use crate::registry::ScenarioFuture;
use crate::registry::{ScenarioDef, StepDef};
use crate::scenario::Scenario;
use harshjudge_store::event::{Event, EventSink, StepOutcome};
use harshjudge_store::store::RunStatus;

fn never_run(_: Scenario) -> ScenarioFuture {
    Box::pin(async { unreachable!("a planning test runs nothing") })
}

/// A scenario named `fn_name` (also its slug) with steps titled `steps`,
/// whose body must never run.
pub(crate) fn fake_def(fn_name: &'static str, steps: &[&'static str]) -> &'static ScenarioDef {
    fake_scenario(fn_name, steps, never_run, |_| {})
}

/// A scenario whose body is `run`; `tune` sets its limits.
pub(crate) fn fake_scenario(
    fn_name: &'static str,
    steps: &[&'static str],
    run: fn(Scenario) -> ScenarioFuture,
    tune: impl FnOnce(&mut ScenarioDef),
) -> &'static ScenarioDef {
    let steps: Vec<StepDef> = steps
        .iter()
        .enumerate()
        .map(|(i, title)| StepDef {
            title,
            line: 10 + i as u32,
            source: "{ }",
            timeout: None,
            expect: None,
        })
        .collect();
    let mut def = ScenarioDef {
        fn_name,
        slug: fn_name,
        title: fn_name,
        tags: &[],
        timeout: None,
        step_timeout: None,
        retries: None,
        trace: None,
        file: "tests/fake.rs",
        line: 1,
        module_path: "fake",
        steps: Box::leak(steps.into_boxed_slice()),
        run,
        case: None,
        skip: None,
        storage_state: None,
        setup: false,
        depends_on: &[],
        before: None,
        after: None,
        browser: None,
        opens_page: false,
        emulation: None,
        fixtures: &[],
    };
    tune(&mut def);
    Box::leak(Box::new(def))
}

/// A per-step limit on step `n` (1-based) of a leaked fake scenario.
pub(crate) fn with_step_timeout(def: &mut ScenarioDef, n: usize, limit: Duration) {
    let mut steps: Vec<StepDef> = def
        .steps
        .iter()
        .map(|s| StepDef {
            title: s.title,
            line: s.line,
            source: s.source,
            timeout: s.timeout,
            expect: s.expect,
        })
        .collect();
    steps[n - 1].timeout = Some(limit);
    def.steps = Box::leak(steps.into_boxed_slice());
}

/// An event as a [`RecordingSink`] keeps it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Seen {
    /// `RunStarted` with the run id.
    RunStarted(String),
    /// `StepStarted` with the step id.
    StepStarted(String),
    /// `EvidenceProduced`: step id and file name (only a sink placed before
    /// the store writer hears it).
    Produced(String, String),
    /// `EvidenceCaptured`: step id and file name.
    Evidence(String, String),
    /// `StepFinished`.
    StepFinished(StepOutcome),
    /// `RunFinished`: the final status, the store error.
    RunFinished(Option<RunStatus>, Option<String>),
}

/// Records every event, in order.
#[derive(Default)]
pub(crate) struct RecordingSink {
    /// What was seen so far.
    pub seen: Mutex<Vec<Seen>>,
}

impl RecordingSink {
    /// Everything seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// The step outcomes seen, in order.
    pub fn outcomes(&self) -> Vec<StepOutcome> {
        self.seen()
            .into_iter()
            .filter_map(|s| match s {
                Seen::StepFinished(o) => Some(o),
                _ => None,
            })
            .collect()
    }
}

impl EventSink for RecordingSink {
    fn on_event(&self, event: &Event<'_>) {
        let seen = match event {
            Event::RunStarted { run_id, .. } => Seen::RunStarted(run_id.to_string()),
            Event::StepStarted { id, .. } => Seen::StepStarted(id.to_string()),
            Event::EvidenceProduced { id, file, .. } => {
                Seen::Produced(id.to_string(), format!("{}.{}", file.name, file.ext))
            }
            Event::TraceCaptured { id, .. } => {
                Seen::Produced(id.to_string(), "trace.json".to_string())
            }
            Event::EvidenceCaptured { id, path, .. } => Seen::Evidence(
                id.to_string(),
                path.file_name().unwrap().to_string_lossy().into_owned(),
            ),
            Event::StepFinished { outcome, .. } => Seen::StepFinished((*outcome).clone()),
            Event::RunFinished {
                result,
                store_error,
                ..
            } => Seen::RunFinished(result.map(|r| r.status), store_error.map(str::to_string)),
            other => panic!("an event this sink does not know: {other:?}"),
        };
        self.seen.lock().unwrap().push(seen);
    }
}
