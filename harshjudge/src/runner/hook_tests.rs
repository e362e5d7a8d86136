//! `#[scenario(before = h, after = k)]` in process: fake scenarios and hooks
//! (no macro), the real store writer on a temporary `.harshJudge/`.

use std::sync::Mutex as StdMutex;
use std::time::Duration;

use super::*;
use crate::registry::{Hook, HookFuture};
use crate::testing::{RecordingSink, fake_scenario, with_step_timeout};
use harshjudge_store::store::{RunResult, RunStatus, Store};

/// What the hooks and bodies of one test did, in order.
static LOG: StdMutex<Vec<String>> = StdMutex::new(Vec::new());
/// One test at a time: they share [`LOG`].
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn log(what: impl Into<String>) {
    LOG.lock().unwrap().push(what.into());
}

fn take_log() -> Vec<String> {
    std::mem::take(&mut *LOG.lock().unwrap())
}

/// Runs `def` through the runner with the real store writer on a temporary
/// `.harshJudge/`, evidence off: each step's outcome and the run's result
/// (also the fixtures' tests').
pub(super) async fn run_recorded(def: &'static ScenarioDef) -> (Vec<StepOutcome>, RunResult) {
    let (outcomes, result, _dir) = run_recorded_kept(def).await;
    (outcomes, result)
}

/// [`run_recorded`], with the temporary folder the run's store is in (its
/// evidence is there until it is dropped).
pub(super) async fn run_recorded_kept(
    def: &'static ScenarioDef,
) -> (Vec<StepOutcome>, RunResult, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join(".harshJudge"));
    store.ensure_initialized("unit", "").unwrap();
    let handle = crate::harness::exec::prepare(&store, def).unwrap();
    let (slug, id) = (handle.slug().clone(), handle.id().clone());
    let sink = Arc::new(RecordingSink::default());
    let limits = Limits {
        step_default: None,
        scenario_default: None,
        evidence: EvidenceMode::Off,
        full_page: false,
        trace_screenshots: false,
        console: Default::default(),
        tracing: Default::default(),
        trace_mode: Default::default(),
        attempt: 1,
    };
    let shared = Shared::new(
        def,
        handle,
        String::new(),
        Arc::default(),
        sink.clone(),
        def.steps.len(),
        limits,
        None,
    );
    execute(shared).await;
    let result = store.scenario(&slug).run(&id).result().unwrap().unwrap();
    (sink.outcomes(), result, dir)
}

async fn run(def: &'static ScenarioDef) -> (Vec<StepOutcome>, RunStatus) {
    let (outcomes, result) = run_recorded(def).await;
    (outcomes, result.status)
}

fn hook(name: &'static str, run: for<'a> fn(&'a Scenario) -> HookFuture<'a>) -> Option<Hook> {
    Some(Hook {
        name,
        file: "tests/hooks.rs",
        line: 7,
        run,
    })
}

fn before_ok(s: &Scenario) -> HookFuture<'_> {
    Box::pin(async move {
        log(format!(
            "before in step {:?}",
            s.current_step().map(|i| i.to_string())
        ));
        Ok(())
    })
}

fn before_fails(_: &Scenario) -> HookFuture<'_> {
    Box::pin(async move {
        log("before");
        Err(Error::msg("the database is not seeded"))
    })
}

fn after_ok(s: &Scenario) -> HookFuture<'_> {
    Box::pin(async move {
        log(format!(
            "after in step {:?}",
            s.current_step().map(|i| i.to_string())
        ));
        Ok(())
    })
}

fn after_fails(_: &Scenario) -> HookFuture<'_> {
    Box::pin(async move {
        log("after");
        Err(Error::msg("cleanup failed"))
    })
}

fn two_steps(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        log("step 1");
        m.begin(2).await;
        log("step 2");
        Ok(())
    })
}

fn panics_in_step_2(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        m.begin(2).await;
        log("step 2");
        panic!("boom");
    })
}

fn hangs_in_step_2(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        m.begin(2).await;
        log("step 2");
        std::future::pending::<()>().await;
        Ok(())
    })
}

#[tokio::test]
async fn hooks_run_around_the_steps_inside_the_first_and_last_step() {
    let _serial = SERIAL.lock().await;
    let def = fake_scenario("hooked", &["One", "Two"], two_steps, |d| {
        d.before = hook("before_ok", before_ok);
        d.after = hook("after_ok", after_ok);
    });
    let (outcomes, status) = run(def).await;
    assert_eq!(status, RunStatus::Pass);
    // Hooks are no steps: the scenario has its two.
    assert_eq!(outcomes.len(), 2);
    assert_eq!(
        take_log(),
        [
            "before in step Some(\"01\")",
            "step 1",
            "step 2",
            "after in step Some(\"02\")"
        ]
    );
}

#[tokio::test]
async fn a_failed_before_hook_fails_the_first_step_naming_the_hook() {
    let _serial = SERIAL.lock().await;
    let def = fake_scenario("before-fails", &["One", "Two"], two_steps, |d| {
        d.before = hook("seed::before_fails", before_fails);
        d.after = hook("after_ok", after_ok);
    });
    let (outcomes, status) = run(def).await;
    assert_eq!(status, RunStatus::Fail);
    assert_eq!(outcomes[0].status, StepStatus::Fail);
    let error = outcomes[0].error.as_deref().unwrap();
    assert!(
        error.starts_with("before hook `seed::before_fails` (named at tests/hooks.rs:7; its evidence is in this step's) failed: the database is not seeded"),
        "{error}"
    );
    // Located where the hook raised it.
    assert!(
        outcomes[0]
            .location
            .as_deref()
            .unwrap()
            .contains("hook_tests.rs")
    );
    assert_eq!(outcomes[1].status, StepStatus::Skipped);
    // The body never ran; `after` still did.
    assert_eq!(take_log(), ["before", "after in step Some(\"01\")"]);
}

#[tokio::test]
async fn after_runs_when_a_step_panicked_or_timed_out() {
    let _serial = SERIAL.lock().await;
    let def = fake_scenario("panics", &["One", "Two"], panics_in_step_2, |d| {
        d.after = hook("after_ok", after_ok);
    });
    let (outcomes, _) = run(def).await;
    assert!(
        outcomes[1]
            .error
            .as_deref()
            .unwrap()
            .contains("panicked: boom")
    );
    assert_eq!(take_log(), ["step 2", "after in step Some(\"02\")"]);

    let def = fake_scenario("hangs", &["One", "Two"], hangs_in_step_2, |d| {
        d.after = hook("after_ok", after_ok);
        with_step_timeout(d, 2, Duration::from_millis(100));
    });
    let (outcomes, _) = run(def).await;
    assert!(
        outcomes[1]
            .error
            .as_deref()
            .unwrap()
            .contains("step timed out")
    );
    assert_eq!(take_log(), ["step 2", "after in step Some(\"02\")"]);
}

#[tokio::test]
async fn a_failed_after_hook_fails_the_last_step_or_adds_to_the_failure() {
    let _serial = SERIAL.lock().await;
    let def = fake_scenario("after-fails", &["One", "Two"], two_steps, |d| {
        d.after = hook("after_fails", after_fails);
    });
    let (outcomes, status) = run(def).await;
    assert_eq!(status, RunStatus::Fail);
    assert_eq!(outcomes[0].status, StepStatus::Pass);
    let error = outcomes[1].error.as_deref().unwrap();
    assert!(
        error.starts_with("after hook `after_fails` (named at tests/hooks.rs:7"),
        "{error}"
    );
    assert!(error.ends_with("failed: cleanup failed"), "{error}");
    take_log();

    let def = fake_scenario("both-fail", &["One", "Two"], panics_in_step_2, |d| {
        d.after = hook("after_fails", after_fails);
    });
    let (outcomes, _) = run(def).await;
    let error = outcomes[1].error.as_deref().unwrap();
    assert!(
        error.starts_with("panicked: boom\nthen after hook `after_fails`"),
        "{error}"
    );
    take_log();
}
