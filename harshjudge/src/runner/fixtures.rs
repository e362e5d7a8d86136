//! A scenario's fixtures (`#[fixture]`, `fixture.rs`): set up in dependency
//! order inside step 1 (its clock, before the `before` hook), torn down in
//! reverse order in `finalize` (after the `after` hook) however the steps
//! ended; recorded in `result.json`'s `fixtures`. Invocation fixtures are set
//! up once per process by the first scenario that asks, and torn down by
//! [`tear_down_invocation`] when every scenario ended. [`validate`] refuses
//! a circle, an invocation fixture that uses a scenario one, and a fixture
//! with two teardowns before anything runs.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::Shared;
use super::fixture_calls::{TEARDOWN_LIMIT, at, run_set_up, run_teardown};
use crate::error::Error;
use crate::fixture::{FixtureDef, FixtureScope, FixtureValue, TeardownDef};
use crate::output::{self, Captured};
use crate::registry::ScenarioDef;
use crate::scenario::Scenario;
use harshjudge_browser::settings::format_duration;
use harshjudge_store::store::{FixtureOutcome, FixtureRun};

/// What is wrong with the suite's fixtures, found before anything runs.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// Fixtures that ask for each other around a circle.
    #[error(
        "fixtures ask for each other in a circle: {}; a fixture cannot use, directly or through others, a fixture that uses it: remove one of these parameters",
        cycle.join(" → ")
    )]
    Cycle {
        /// The fixtures around the circle (`name (file:line)`), the first again at the end.
        cycle: Vec<String>,
    },
    /// An invocation fixture that asks for a scenario fixture.
    #[error(
        "invocation fixture `{fixture}` ({at}) asks for `{needs}`, a scenario fixture: it lives once per invocation, so what it uses must too; mark `{needs}` `#[fixture(scope = \"invocation\")]` or drop the parameter"
    )]
    Scope {
        /// The invocation fixture.
        fixture: &'static str,
        /// Where it is.
        at: String,
        /// The scenario fixture it asks for.
        needs: &'static str,
    },
    /// A fixture with two `#[teardown]`s.
    #[error(
        "fixture `{fixture}` has two teardowns, `{first}` ({first_at}) and `{second}` ({second_at}): keep one"
    )]
    TwoTeardowns {
        /// The fixture.
        fixture: &'static str,
        /// The first teardown's name.
        first: &'static str,
        /// Where it is.
        first_at: String,
        /// The second teardown's name.
        second: &'static str,
        /// Where it is.
        second_at: String,
    },
    /// A fixture asks for one that is not registered (the macros make it a
    /// compile error; a hand-written registration may not).
    #[error("fixture `{fixture}` asks for `{needs}`, which is no fixture of this test binary")]
    Unknown {
        /// The fixture (or scenario) that asks.
        fixture: &'static str,
        /// The key it asks for.
        needs: &'static str,
    },
}

/// Checks every fixture of the binary: what they ask for exists, no circle,
/// invocation fixtures use invocation fixtures only, one teardown each.
pub(crate) fn validate(
    fixtures: &[&'static FixtureDef],
    teardowns: &[&'static TeardownDef],
) -> Result<(), FixtureError> {
    let by_key: HashMap<&str, &'static FixtureDef> = fixtures.iter().map(|d| (d.key, *d)).collect();
    for def in fixtures {
        for need in def.needs {
            let Some(dep) = by_key.get(need) else {
                return Err(FixtureError::Unknown {
                    fixture: def.name,
                    needs: need,
                });
            };
            if def.scope == FixtureScope::Invocation && dep.scope == FixtureScope::Scenario {
                return Err(FixtureError::Scope {
                    fixture: def.name,
                    at: at(def),
                    needs: dep.name,
                });
            }
        }
    }
    let mut done = HashSet::new();
    for def in fixtures {
        order(def, &by_key, &mut Vec::new(), &mut done, &mut Vec::new())?;
    }
    let mut seen: HashMap<&str, &TeardownDef> = HashMap::new();
    for t in teardowns {
        if let Some(first) = seen.insert(t.fixture, t) {
            return Err(FixtureError::TwoTeardowns {
                fixture: by_key.get(t.fixture).map_or(t.fixture, |d| d.name),
                first: first.name,
                first_at: format!("{}:{}", first.file, first.line),
                second: t.name,
                second_at: format!("{}:{}", t.file, t.line),
            });
        }
    }
    Ok(())
}

/// Depth first: `def`'s dependencies, then `def`, appended to `out` once each.
fn order(
    def: &'static FixtureDef,
    by_key: &HashMap<&str, &'static FixtureDef>,
    path: &mut Vec<&'static FixtureDef>,
    done: &mut HashSet<&'static str>,
    out: &mut Vec<&'static FixtureDef>,
) -> Result<(), FixtureError> {
    if let Some(i) = path.iter().position(|d| d.key == def.key) {
        let mut cycle: Vec<String> = path[i..]
            .iter()
            .map(|d| format!("`{}` ({})", d.name, at(d)))
            .collect();
        cycle.push(format!("`{}`", def.name));
        return Err(FixtureError::Cycle { cycle });
    }
    if done.contains(def.key) {
        return Ok(());
    }
    path.push(def);
    for need in def.needs {
        let dep = by_key.get(need).ok_or(FixtureError::Unknown {
            fixture: def.name,
            needs: need,
        })?;
        order(dep, by_key, path, done, out)?;
    }
    path.pop();
    done.insert(def.key);
    out.push(def);
    Ok(())
}

/// The fixtures `scenario` asks for and what they use, in set-up order.
fn plan(scenario: &ScenarioDef) -> Result<Vec<&'static FixtureDef>, FixtureError> {
    let all = crate::fixture::all();
    let by_key: HashMap<&str, &'static FixtureDef> = all.iter().map(|d| (d.key, *d)).collect();
    let (mut done, mut out) = (HashSet::new(), Vec::new());
    for key in scenario.fixtures {
        let def = by_key.get(key).ok_or(FixtureError::Unknown {
            fixture: scenario.fn_name,
            needs: key,
        })?;
        order(def, &by_key, &mut Vec::new(), &mut done, &mut out)?;
    }
    Ok(out)
}

/// A scenario's fixtures while it runs.
#[derive(Default)]
pub(super) struct Fixtures {
    /// Scenario fixtures set up, in order, with their values and their records' index.
    values: Mutex<Vec<(&'static FixtureDef, FixtureValue, usize)>>,
    /// The fixture being set up now, since when, and what it printed so far.
    setting_up: Mutex<Option<(&'static FixtureDef, Instant, Arc<Captured>)>>,
    /// What `result.json` says of each, in set-up order.
    records: Mutex<Vec<FixtureRun>>,
}

impl Fixtures {
    /// The value of `key`: the scenario's, else the invocation's.
    pub(super) fn get(&self, key: &str) -> Option<FixtureValue> {
        let values = self.values.lock().expect("fixtures lock");
        if let Some((_, v, _)) = values.iter().find(|(d, ..)| d.key == key) {
            return Some(v.clone());
        }
        drop(values);
        invocation().get(key)
    }

    fn record(
        &self,
        def: &FixtureDef,
        set_up: Option<Duration>,
        outcome: FixtureOutcome,
        error: Option<String>,
        printed: Option<String>,
    ) -> usize {
        let mut records = self.records.lock().expect("records lock");
        records.push(FixtureRun {
            name: def.name.to_string(),
            scope: def.scope.as_str().to_string(),
            set_up_ms: set_up.map(|d| d.as_millis() as u64),
            torn_down_ms: None,
            outcome,
            error,
            set_up_output: printed,
            teardown_output: None,
        });
        records.len() - 1
    }

    /// The fixture whose set-up a step's or the scenario's limit stopped:
    /// recorded as timed out; what the failure says first.
    pub(super) fn stopped_setting_up(&self) -> Option<String> {
        let (def, since, printed) = self.setting_up.lock().expect("fixtures lock").take()?;
        let why = format!(
            "fixture `{}` ({}) did not finish setting up (it ran {})",
            def.name,
            at(def),
            format_duration(since.elapsed())
        );
        self.record(
            def,
            None,
            FixtureOutcome::TimedOut,
            Some(why.clone()),
            printed.take(),
        );
        Some(why)
    }

    /// The records, for `result.json`.
    pub(super) fn take_records(&self) -> Vec<FixtureRun> {
        std::mem::take(&mut *self.records.lock().expect("records lock"))
    }
}

/// Sets up the scenario's fixtures in dependency order (the runner began
/// step 1 for it): the first failure stops it, naming the fixture.
pub(super) async fn set_up(shared: &Arc<Shared>, s: &Scenario) -> Result<(), Error> {
    let plan = plan(shared.def).map_err(|e| Error::msg(e.to_string()))?;
    let fixtures = &shared.fixtures;
    for def in plan {
        let started = Instant::now();
        let printed = Arc::new(Captured::default());
        *fixtures.setting_up.lock().expect("fixtures lock") = Some((def, started, printed.clone()));
        let value = output::scope(printed.clone(), async {
            match def.scope {
                FixtureScope::Scenario => run_set_up(def, s.clone()).await,
                FixtureScope::Invocation => invocation().set_up(def, s.clone()).await,
            }
        })
        .await;
        *fixtures.setting_up.lock().expect("fixtures lock") = None;
        match value {
            Ok(value) => {
                let record = fixtures.record(
                    def,
                    Some(started.elapsed()),
                    FixtureOutcome::Passed,
                    None,
                    printed.take(),
                );
                if def.scope == FixtureScope::Scenario {
                    let mut values = fixtures.values.lock().expect("fixtures lock");
                    values.push((def, value, record));
                }
            }
            Err(e) => {
                fixtures.record(
                    def,
                    Some(started.elapsed()),
                    FixtureOutcome::Failed,
                    Some(e.message()),
                    printed.take(),
                );
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Tears the scenario's fixtures down in reverse order of set-up, each
/// within the scenario's limit (or 60 s); every failure, in that order.
pub(super) async fn tear_down(shared: &Arc<Shared>) -> Vec<Error> {
    let values = std::mem::take(&mut *shared.fixtures.values.lock().expect("fixtures lock"));
    let limit = shared.scenario_limit().map_or(TEARDOWN_LIMIT, |(d, _)| d);
    let mut failures = Vec::new();
    for (def, value, record) in values.into_iter().rev() {
        let started = Instant::now();
        let printed = Arc::new(Captured::default());
        let failure = output::scope(printed.clone(), run_teardown(def, value, limit)).await;
        let mut records = shared.fixtures.records.lock().expect("records lock");
        if let Some(r) = records.get_mut(record) {
            r.torn_down_ms = Some(started.elapsed().as_millis() as u64);
            r.teardown_output = printed.take();
            if let Some(f) = &failure {
                r.outcome = FixtureOutcome::TeardownFailed;
                r.error = Some(f.message());
            }
        }
        failures.extend(failure);
    }
    failures
}

/// An invocation fixture whose set-up failed: every scenario that asks for
/// it fails with this.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}{}", by.as_ref().map(|by| format!(" (set up once for the invocation, by scenario `{by}`)")).unwrap_or_default())]
struct SetUpFailed {
    /// The failure, naming the fixture.
    message: String,
    /// The slug of the scenario it was set up for (none: by another process
    /// of the nextest run, which the message says).
    by: Option<String>,
}

/// An invocation fixture's value once set up, or its failure.
type Cell = tokio::sync::OnceCell<Result<FixtureValue, SetUpFailed>>;

/// The process's invocation fixtures.
#[derive(Default)]
struct Invocation {
    /// Each one's value once set up (or why its set-up failed: every
    /// scenario that asks for it fails with that).
    cells: Mutex<HashMap<&'static str, Arc<Cell>>>,
    /// Set up, in order.
    order: Mutex<Vec<&'static FixtureDef>>,
}

fn invocation() -> &'static Invocation {
    static INVOCATION: OnceLock<Invocation> = OnceLock::new();
    INVOCATION.get_or_init(Invocation::default)
}

impl Invocation {
    fn get(&self, key: &str) -> Option<FixtureValue> {
        let cell = self
            .cells
            .lock()
            .expect("invocation lock")
            .get(key)
            .cloned()?;
        cell.get().and_then(|r| r.as_ref().ok()).cloned()
    }

    /// The value of `def`, set up now by this scenario when no scenario of
    /// the process did before (the others wait for it).
    async fn set_up(&self, def: &'static FixtureDef, s: Scenario) -> Result<FixtureValue, Error> {
        let cell = self
            .cells
            .lock()
            .expect("invocation lock")
            .entry(def.key)
            .or_default()
            .clone();
        let result = cell
            .get_or_init(|| async {
                let by = s.slug().to_string();
                // Under cargo-nextest, once per run (`fixtures_shared.rs`):
                // torn down when the run ends, not with this process.
                if let (Some(share), Some(run)) =
                    (def.share, harshjudge_browser::process::shared::run_id())
                {
                    return super::fixtures_shared::value(def, s, share, &run)
                        .await
                        .map_err(|e| SetUpFailed {
                            message: e.message(),
                            by: None,
                        });
                }
                let value = run_set_up(def, s).await.map_err(|e| SetUpFailed {
                    message: e.message(),
                    by: Some(by),
                });
                if value.is_ok() {
                    self.order.lock().expect("invocation lock").push(def);
                }
                value
            })
            .await;
        result.clone().map_err(|e| Error::msg(e.to_string()))
    }
}

/// Tears the process's invocation fixtures down, in reverse order of set-up:
/// every failure, said as `fixture `db`'s teardown … failed: …`.
pub(crate) async fn tear_down_invocation() -> Vec<String> {
    let inv = invocation();
    let order = std::mem::take(&mut *inv.order.lock().expect("invocation lock"));
    let mut failures = Vec::new();
    for def in order.into_iter().rev() {
        let cell = inv.cells.lock().expect("invocation lock").remove(def.key);
        let Some(Ok(value)) = cell
            .and_then(|c| Arc::try_unwrap(c).ok())
            .and_then(|c| c.into_inner())
        else {
            failures.push(format!("fixture `{}` ({}): its value is still in use after every scenario ended; not torn down", def.name, at(def)));
            continue;
        };
        let failure = run_teardown(def, value, TEARDOWN_LIMIT).await;
        failures.extend(failure.map(|e| format!("{} (at {})", e.message(), e.location())));
    }
    failures
}

/// The harness's check before anything runs, over the binary's registrations.
pub(crate) fn validate_registered() -> Result<(), FixtureError> {
    validate(&crate::fixture::all(), &crate::fixture::teardowns())
}
