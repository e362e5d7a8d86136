//! Fixtures in process: fixtures and teardowns registered by hand (no
//! macro), fake scenarios asking for them, the real store writer on a
//! temporary `.harshJudge/`.

use std::sync::Mutex as StdMutex;
use std::time::Duration;

use super::*;
use crate::fixture::{
    Fixture, FixtureDef, FixtureScope, FixtureValue, SetUpFuture, TeardownDef, TeardownFuture,
    keep, take, value,
};
use crate::testing::{fake_scenario, with_step_timeout};
use harshjudge_store::store::{FixtureOutcome, RunResult, RunStatus};

/// What the fixtures and bodies of one test did, in order.
static LOG: StdMutex<Vec<String>> = StdMutex::new(Vec::new());
/// One test at a time: they share [`LOG`].
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Also printed through `log!`, which keeps it with the fixture or the step.
fn log(what: impl Into<String>) {
    let what = what.into();
    crate::log!("{what}");
    LOG.lock().unwrap().push(what);
}

fn take_log() -> Vec<String> {
    std::mem::take(&mut *LOG.lock().unwrap())
}

async fn run(def: &'static ScenarioDef) -> (Vec<StepOutcome>, RunResult) {
    super::hook_tests::run_recorded(def).await
}

// ---- the fixtures -------------------------------------------------------------

/// Declares a fixture type `$ty` named `$name` giving a `String`.
macro_rules! fixture_type {
    ($ty:ident, $name:literal) => {
        enum $ty {}
        impl Fixture for $ty {
            type Value = String;
            const KEY: &'static str = concat!("fixture_tests::", $name);
            const NAME: &'static str = $name;
        }
    };
}

fixture_type!(Db, "db");
fixture_type!(Shop, "shop");
fixture_type!(Broken, "broken");
fixture_type!(Stuck, "stuck");
fixture_type!(Leaky, "leaky");
fixture_type!(Shared1, "shared_once");
fixture_type!(Hanging, "hanging");
fixture_type!(InvBroken, "inv_broken");

const fn def(
    name: &'static str,
    key: &'static str,
    scope: FixtureScope,
    needs: &'static [&'static str],
    set_up: fn(Scenario) -> SetUpFuture,
) -> FixtureDef {
    FixtureDef {
        name,
        key,
        scope,
        needs,
        file: "tests/fixtures.rs",
        line: 12,
        set_up,
        share: None,
    }
}

fn set_up_db(_: Scenario) -> SetUpFuture {
    Box::pin(async {
        log("set up db");
        Ok(keep::<Db>("postgres://db".into()))
    })
}

fn set_up_shop(s: Scenario) -> SetUpFuture {
    Box::pin(async move {
        let db = value::<Db>(&s)?;
        log(format!(
            "set up shop on {db} in step {:?}",
            s.current_step().map(|i| i.to_string())
        ));
        Ok(keep::<Shop>(format!("shop on {db}")))
    })
}

fn set_up_broken(_: Scenario) -> SetUpFuture {
    Box::pin(async {
        log("set up broken");
        Err(Error::msg("the port is taken"))
    })
}

fn set_up_stuck(_: Scenario) -> SetUpFuture {
    Box::pin(async {
        log("set up stuck");
        std::future::pending::<()>().await;
        Ok(keep::<Stuck>(String::new()))
    })
}

fn set_up_leaky(_: Scenario) -> SetUpFuture {
    Box::pin(async { Ok(keep::<Leaky>("leaky".into())) })
}

fn set_up_hanging(_: Scenario) -> SetUpFuture {
    Box::pin(async { Ok(keep::<Hanging>("hanging".into())) })
}

fn set_up_inv_broken(_: Scenario) -> SetUpFuture {
    Box::pin(async {
        log("set up inv_broken");
        Err(Error::msg("no network"))
    })
}

static SET_UP_ONCE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn set_up_shared_once(_: Scenario) -> SetUpFuture {
    Box::pin(async {
        let n = SET_UP_ONCE.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        log(format!("set up shared_once #{n}"));
        Ok(keep::<Shared1>(format!("shared #{n}")))
    })
}

inventory::submit!(def("db", Db::KEY, FixtureScope::Scenario, &[], set_up_db));
inventory::submit!(def(
    "shop",
    Shop::KEY,
    FixtureScope::Scenario,
    &[Db::KEY],
    set_up_shop
));
inventory::submit!(def(
    "broken",
    Broken::KEY,
    FixtureScope::Scenario,
    &[Db::KEY],
    set_up_broken
));
inventory::submit!(def(
    "stuck",
    Stuck::KEY,
    FixtureScope::Scenario,
    &[Db::KEY],
    set_up_stuck
));
inventory::submit!(def(
    "leaky",
    Leaky::KEY,
    FixtureScope::Scenario,
    &[],
    set_up_leaky
));
inventory::submit!(def(
    "hanging",
    Hanging::KEY,
    FixtureScope::Scenario,
    &[],
    set_up_hanging
));
inventory::submit!(def(
    "inv_broken",
    InvBroken::KEY,
    FixtureScope::Invocation,
    &[],
    set_up_inv_broken
));
inventory::submit!(def(
    "shared_once",
    Shared1::KEY,
    FixtureScope::Invocation,
    &[],
    set_up_shared_once
));

const fn teardown(
    fixture: &'static str,
    name: &'static str,
    run: fn(FixtureValue) -> TeardownFuture,
) -> TeardownDef {
    TeardownDef {
        fixture,
        name,
        file: "tests/fixtures.rs",
        line: 30,
        run,
    }
}

fn close_db(v: FixtureValue) -> TeardownFuture {
    Box::pin(async move {
        log(format!("tear down db ({})", take::<Db>(v)?));
        Ok(())
    })
}

fn close_shop(v: FixtureValue) -> TeardownFuture {
    Box::pin(async move {
        log(format!("tear down {}", take::<Shop>(v)?));
        Ok(())
    })
}

fn close_leaky(v: FixtureValue) -> TeardownFuture {
    Box::pin(async move {
        take::<Leaky>(v)?;
        log("tear down leaky");
        Err(Error::msg("the files could not be removed"))
    })
}

fn close_hanging(v: FixtureValue) -> TeardownFuture {
    Box::pin(async move {
        take::<Hanging>(v)?;
        log("tear down hanging");
        std::future::pending::<()>().await;
        Ok(())
    })
}

fn close_shared_once(v: FixtureValue) -> TeardownFuture {
    Box::pin(async move {
        log(format!("tear down {}", take::<Shared1>(v)?));
        Ok(())
    })
}

inventory::submit!(teardown(Db::KEY, "close_db", close_db));
inventory::submit!(teardown(Shop::KEY, "close_shop", close_shop));
inventory::submit!(teardown(Leaky::KEY, "close_leaky", close_leaky));
inventory::submit!(teardown(Hanging::KEY, "close_hanging", close_hanging));
inventory::submit!(teardown(
    Shared1::KEY,
    "close_shared_once",
    close_shared_once
));

// ---- the scenarios ------------------------------------------------------------

fn uses_shop(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let shop = value::<Shop>(&s)?;
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        log(format!("step 1 with {shop}"));
        m.begin(2).await;
        log("step 2");
        Ok(())
    })
}

fn fails_in_step_2(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        m.begin(2).await;
        log("step 2");
        Err(Error::msg("the cart is empty"))
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

fn passes(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        m.begin(2).await;
        log("step 2");
        Ok(())
    })
}

#[tokio::test]
async fn fixtures_are_set_up_in_order_inside_step_1_and_torn_down_in_reverse() {
    let _serial = SERIAL.lock().await;
    take_log();
    let def = fake_scenario("fx-order", &["One", "Two"], uses_shop, |d| {
        d.fixtures = &[Shop::KEY];
    });
    let (outcomes, result) = run(def).await;
    assert_eq!(result.status, RunStatus::Pass, "{outcomes:?}");
    // Fixtures are no steps.
    assert_eq!(outcomes.len(), 2);
    assert_eq!(
        take_log(),
        [
            "set up db",
            "set up shop on postgres://db in step Some(\"01\")",
            "step 1 with shop on postgres://db",
            "step 2",
            "tear down shop on postgres://db",
            "tear down db (postgres://db)",
        ]
    );
    let names: Vec<(&str, &str, FixtureOutcome)> = (result.fixtures.iter())
        .map(|f| (f.name.as_str(), f.scope.as_str(), f.outcome))
        .collect();
    assert_eq!(
        names,
        [
            ("db", "scenario", FixtureOutcome::Passed),
            ("shop", "scenario", FixtureOutcome::Passed)
        ]
    );
    assert!(
        result
            .fixtures
            .iter()
            .all(|f| f.set_up_ms.is_some() && f.torn_down_ms.is_some() && f.error.is_none())
    );
}

#[tokio::test]
async fn what_fixtures_and_steps_print_is_kept_with_them() {
    let _serial = SERIAL.lock().await;
    take_log();
    let def = fake_scenario("fx-printed", &["One", "Two"], uses_shop, |d| {
        d.fixtures = &[Shop::KEY];
    });
    let (outcomes, result, _dir) = super::hook_tests::run_recorded_kept(def).await;
    assert_eq!(result.status, RunStatus::Pass, "{outcomes:?}");
    let printed: Vec<(&str, Option<&str>, Option<&str>)> = (result.fixtures.iter())
        .map(|f| {
            let (up, down) = (f.set_up_output.as_deref(), f.teardown_output.as_deref());
            (f.name.as_str(), up, down)
        })
        .collect();
    assert_eq!(
        printed,
        [
            (
                "db",
                Some("set up db\n"),
                Some("tear down db (postgres://db)\n")
            ),
            (
                "shop",
                Some("set up shop on postgres://db in step Some(\"01\")\n"),
                Some("tear down shop on postgres://db\n")
            ),
        ]
    );
    // A step's lines are its `log.txt`; a fixture's are not a step's.
    let logs: Vec<String> = (outcomes.iter())
        .map(|o| std::fs::read_to_string(o.evidence_dir.join("log.txt")).unwrap_or_default())
        .collect();
    assert_eq!(logs, ["step 1 with shop on postgres://db\n", "step 2\n"]);
}

#[tokio::test]
async fn fixtures_are_torn_down_after_a_failed_a_panicked_and_a_timed_out_step() {
    let _serial = SERIAL.lock().await;
    take_log();
    for (name, body, error) in [
        (
            "fx-fails",
            fails_in_step_2 as fn(Scenario) -> ScenarioFuture,
            "the cart is empty",
        ),
        ("fx-panics", panics_in_step_2, "panicked: boom"),
        ("fx-hangs", hangs_in_step_2, "step timed out after"),
    ] {
        let def = fake_scenario(name, &["One", "Two"], body, |d| {
            d.fixtures = &[Shop::KEY];
            with_step_timeout(d, 2, Duration::from_millis(200));
        });
        let (outcomes, result) = run(def).await;
        assert_eq!(result.status, RunStatus::Fail);
        let got = outcomes[1].error.as_deref().unwrap();
        assert!(got.starts_with(error), "{name}: {got}");
        assert_eq!(
            take_log(),
            [
                "set up db",
                "set up shop on postgres://db in step Some(\"01\")",
                "step 2",
                "tear down shop on postgres://db",
                "tear down db (postgres://db)",
            ],
            "{name}"
        );
        assert!(
            result
                .fixtures
                .iter()
                .all(|f| f.outcome == FixtureOutcome::Passed && f.torn_down_ms.is_some())
        );
    }
}

#[tokio::test]
async fn a_failed_set_up_fails_step_1_naming_the_fixture_and_tears_down_the_others() {
    let _serial = SERIAL.lock().await;
    take_log();
    let def = fake_scenario("fx-broken", &["One", "Two"], passes, |d| {
        d.fixtures = &[Broken::KEY];
    });
    let (outcomes, result) = run(def).await;
    assert_eq!(result.status, RunStatus::Fail);
    assert_eq!(outcomes[0].status, StepStatus::Fail);
    assert_eq!(
        outcomes[0].error.as_deref(),
        Some("fixture `broken` (tests/fixtures.rs:12) failed: the port is taken")
    );
    assert_eq!(outcomes[1].status, StepStatus::Skipped);
    // The body never ran; what was set up was torn down.
    assert_eq!(
        take_log(),
        ["set up db", "set up broken", "tear down db (postgres://db)"]
    );
    let broken = &result.fixtures[1];
    assert_eq!(
        (broken.name.as_str(), broken.outcome),
        ("broken", FixtureOutcome::Failed)
    );
    assert_eq!(broken.torn_down_ms, None);
    assert!(
        broken
            .error
            .as_deref()
            .unwrap()
            .ends_with("the port is taken")
    );
}

#[tokio::test]
async fn a_set_up_that_never_finishes_is_ended_by_the_limit_and_named() {
    let _serial = SERIAL.lock().await;
    take_log();
    let def = fake_scenario("fx-stuck", &["One", "Two"], passes, |d| {
        d.fixtures = &[Stuck::KEY];
        d.timeout = Some(Duration::from_millis(300));
    });
    let (outcomes, result) = run(def).await;
    let error = outcomes[0].error.as_deref().unwrap();
    assert!(
        error.starts_with(
            "fixture `stuck` (tests/fixtures.rs:12) did not finish setting up (it ran "
        ),
        "{error}"
    );
    assert!(error.contains("scenario timed out after 300ms"), "{error}");
    assert_eq!(
        take_log(),
        ["set up db", "set up stuck", "tear down db (postgres://db)"]
    );
    let stuck = &result.fixtures[1];
    assert_eq!(
        (stuck.name.as_str(), stuck.outcome, stuck.set_up_ms),
        ("stuck", FixtureOutcome::TimedOut, None)
    );
    // What it printed before the limit ended it is kept.
    assert_eq!(stuck.set_up_output.as_deref(), Some("set up stuck\n"));
}

#[tokio::test]
async fn a_failed_teardown_is_told_after_the_scenarios_own_result() {
    let _serial = SERIAL.lock().await;
    take_log();
    // The steps failed: their failure first, then the teardown's.
    let def = fake_scenario("fx-leaky-fails", &["One", "Two"], fails_in_step_2, |d| {
        d.fixtures = &[Leaky::KEY];
    });
    let (outcomes, result) = run(def).await;
    let error = outcomes[1].error.as_deref().unwrap();
    assert_eq!(
        error,
        "the cart is empty\nthen fixture `leaky`'s teardown `close_leaky` (tests/fixtures.rs:30) failed: the files could not be removed"
    );
    assert_eq!(result.fixtures[0].outcome, FixtureOutcome::TeardownFailed);
    assert!(
        result.fixtures[0]
            .error
            .as_deref()
            .unwrap()
            .contains("the files could not be removed")
    );
    take_log();
    // The steps passed: the teardown fails the last one, the first keeps its pass.
    let def = fake_scenario("fx-leaky-passes", &["One", "Two"], passes, |d| {
        d.fixtures = &[Leaky::KEY];
    });
    let (outcomes, result) = run(def).await;
    assert_eq!(result.status, RunStatus::Fail);
    assert_eq!(outcomes[0].status, StepStatus::Pass);
    let error = outcomes[1].error.as_deref().unwrap();
    assert!(
        error.starts_with("fixture `leaky`'s teardown `close_leaky`"),
        "{error}"
    );
    // Located where the teardown raised it.
    let at = outcomes[1].location.as_deref().unwrap();
    assert!(
        at.starts_with("harshjudge/src/runner/fixture_tests.rs:"),
        "{at}"
    );
    assert_eq!(take_log(), ["step 2", "tear down leaky"]);
}

#[tokio::test]
async fn a_teardown_that_never_finishes_is_ended_by_the_scenarios_limit_and_named() {
    let _serial = SERIAL.lock().await;
    take_log();
    let def = fake_scenario("fx-hanging", &["One", "Two"], passes, |d| {
        d.fixtures = &[Hanging::KEY];
        d.timeout = Some(Duration::from_millis(300));
    });
    let (outcomes, result) = run(def).await;
    assert_eq!(outcomes[0].status, StepStatus::Pass);
    assert_eq!(
        outcomes[1].error.as_deref(),
        Some(
            "fixture `hanging`'s teardown `close_hanging` (tests/fixtures.rs:30) failed: timed out after 300ms"
        )
    );
    assert_eq!(take_log(), ["step 2", "tear down hanging"]);
    assert_eq!(result.fixtures[0].outcome, FixtureOutcome::TeardownFailed);
}

#[tokio::test]
async fn an_invocation_fixture_is_set_up_once_and_torn_down_at_the_end() {
    let _serial = SERIAL.lock().await;
    take_log();
    for name in ["fx-inv-1", "fx-inv-2"] {
        let def = fake_scenario(name, &["One", "Two"], passes, |d| {
            d.fixtures = &[Shared1::KEY];
        });
        let (_, result) = run(def).await;
        assert_eq!(result.status, RunStatus::Pass);
        let f = &result.fixtures[0];
        assert_eq!(
            (f.name.as_str(), f.scope.as_str(), f.torn_down_ms),
            ("shared_once", "invocation", None)
        );
    }
    assert_eq!(take_log(), ["set up shared_once #1", "step 2", "step 2"]);
    assert!(fixtures::tear_down_invocation().await.is_empty());
    assert_eq!(take_log(), ["tear down shared #1"]);
}

#[tokio::test]
async fn a_failed_invocation_set_up_is_tried_once_and_fails_every_scenario_that_asks() {
    let _serial = SERIAL.lock().await;
    take_log();
    for name in ["fx-inv-broken-1", "fx-inv-broken-2"] {
        let def = fake_scenario(name, &["One", "Two"], passes, |d| {
            d.fixtures = &[InvBroken::KEY];
        });
        let (outcomes, result) = run(def).await;
        assert_eq!(result.status, RunStatus::Fail);
        assert_eq!(
            outcomes[0].error.as_deref(),
            Some(
                "fixture `inv_broken` (tests/fixtures.rs:12) failed: no network (set up once for the invocation, by scenario `fx-inv-broken-1`)"
            ),
            "{name}"
        );
        assert_eq!(result.fixtures[0].outcome, FixtureOutcome::Failed);
    }
    assert_eq!(take_log(), ["set up inv_broken"]);
}

// ---- what the harness refuses before anything runs ---------------------------

fn leaked(d: FixtureDef) -> &'static FixtureDef {
    Box::leak(Box::new(d))
}

#[test]
fn a_circle_an_invocation_fixture_using_a_scenario_one_and_two_teardowns_are_refused() {
    let a = leaked(def(
        "a",
        "m::a",
        FixtureScope::Scenario,
        &["m::b"],
        set_up_db,
    ));
    let b = leaked(def(
        "b",
        "m::b",
        FixtureScope::Scenario,
        &["m::c"],
        set_up_db,
    ));
    let c = leaked(def(
        "c",
        "m::c",
        FixtureScope::Scenario,
        &["m::a"],
        set_up_db,
    ));
    let e = fixtures::validate(&[a, b, c], &[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "fixtures ask for each other in a circle: `a` (tests/fixtures.rs:12) → `b` (tests/fixtures.rs:12) → `c` (tests/fixtures.rs:12) → `a`; a fixture cannot use, directly or through others, a fixture that uses it: remove one of these parameters"
    );
    let c = leaked(def("c", "m::c", FixtureScope::Scenario, &[], set_up_db));
    assert!(fixtures::validate(&[a, b, c], &[]).is_ok());
    let inv = leaked(def(
        "inv",
        "m::inv",
        FixtureScope::Invocation,
        &["m::c"],
        set_up_db,
    ));
    let e = fixtures::validate(&[inv, c], &[]).unwrap_err();
    assert!(
        e.to_string().starts_with(
            "invocation fixture `inv` (tests/fixtures.rs:12) asks for `c`, a scenario fixture"
        ),
        "{e}"
    );
    let one: &'static TeardownDef = Box::leak(Box::new(teardown("m::c", "one", close_db)));
    let two: &'static TeardownDef = Box::leak(Box::new(teardown("m::c", "two", close_db)));
    let e = fixtures::validate(&[c], &[one, two]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("fixture `c` has two teardowns, `one`"),
        "{e}"
    );
    // What this binary registers is sound.
    assert!(fixtures::validate_registered().is_ok());
}
