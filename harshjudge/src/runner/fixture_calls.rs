//! Calling a fixture's set-up and its teardown, panics caught and named
//! (for `fixtures.rs`, in process, and `fixtures_shared.rs`, across
//! cargo-nextest's processes).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::CatchPanic;
use crate::error::Error;
use crate::fixture::{FixtureDef, FixtureValue, TeardownDef};
use crate::registry::ScenarioFuture;
use crate::scenario::Scenario;

/// How long a teardown may take when the scenario has no limit of its own.
pub(super) const TEARDOWN_LIMIT: Duration = Duration::from_secs(60);

/// `file:line` of a fixture.
pub(super) fn at(def: &FixtureDef) -> String {
    format!("{}:{}", def.file, def.line)
}

/// How a fixture's failure begins.
fn failed(def: &FixtureDef) -> String {
    format!("fixture `{}` ({}) failed", def.name, at(def))
}

/// Runs a fixture's set-up with its panics caught: its value, or its failure
/// led by the fixture's name and place.
pub(super) async fn run_set_up(
    def: &'static FixtureDef,
    s: Scenario,
) -> Result<FixtureValue, Error> {
    let slot: Arc<Mutex<Option<FixtureValue>>> = Arc::default();
    let kept = slot.clone();
    let fut: ScenarioFuture = Box::pin(async move {
        let value = (def.set_up)(s).await?;
        *kept.lock().expect("slot lock") = Some(value);
        Ok(())
    });
    match CatchPanic(fut).await {
        Ok(Ok(())) => Ok(slot.lock().expect("slot lock").take().expect("set")),
        Ok(Err(e)) => Err(e.with_context(failed(def))),
        Err(p) => Err(Error::msg(format!(
            "{}: panicked: {}{}",
            failed(def),
            p.message,
            p.location.map(|l| format!(" at {l}")).unwrap_or_default()
        ))),
    }
}

/// The teardown registered for `key`, if any.
fn teardown_of(key: &str) -> Option<&'static TeardownDef> {
    crate::fixture::teardowns()
        .into_iter()
        .find(|t| t.fixture == key)
}

/// Runs `def`'s teardown (if it has one) with its value, panics caught,
/// within `limit`; a fixture without one is dropped. Its failure, if any.
pub(super) async fn run_teardown(
    def: &'static FixtureDef,
    value: FixtureValue,
    limit: Duration,
) -> Option<Error> {
    let Some(teardown) = teardown_of(def.key) else {
        drop(value);
        return None;
    };
    let context = format!(
        "fixture `{}`'s teardown `{}` ({}:{}) failed",
        def.name, teardown.name, teardown.file, teardown.line
    );
    let fut: ScenarioFuture = (teardown.run)(value);
    super::run_cleanup(fut, limit, context).await
}
