//! Setup scenarios (`#[scenario(setup)]`) and the scenarios that depend on
//! them (`#[scenario(depends_on = [f])]`): checked before anything runs
//! ([`validate`]: every name a setup of the binary, no circle), brought along
//! by any selection (`plan::include_setups`), started first ([`order`]), and run once per
//! invocation while their dependents wait ([`Gate`]); a failed setup skips its
//! dependents with `setup {f} failed: {error}`. Under cargo-nextest, where each
//! scenario is a process of its own, a setup runs once for the whole nextest
//! run: the first process that needs it runs it under a file lock
//! (`.suite/.setup-{f}.lock`) and records its outcome for that run
//! (`NEXTEST_RUN_ID`); the others wait for the lock and read it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tokio::sync::watch;

use super::consumers::{HarnessSink, NotRun, not_run};
use super::error::{HarnessError, Location, Site};
use crate::registry::ScenarioDef;
use harshjudge_store::event::{Event, EventSink};
use harshjudge_store::store::Store;
use harshjudge_store::store::auth::{SetupLock, SetupRecord};
use harshjudge_store::store::{RunId, Slug};

/// Checks every `depends_on`: it names a setup scenario of the binary, and
/// no setup depends on itself, directly or around a circle.
pub(crate) fn validate(scenarios: &[&'static ScenarioDef]) -> Result<(), HarnessError> {
    let by_name: HashMap<&str, &ScenarioDef> = scenarios.iter().map(|d| (d.fn_name, *d)).collect();
    let setups: Vec<&'static str> = scenarios
        .iter()
        .filter(|d| d.setup)
        .map(|d| d.fn_name)
        .collect();
    for def in scenarios {
        for name in def.depends_on {
            if !by_name.get(name).is_some_and(|d| d.setup) {
                return Err(HarnessError::UnknownSetup {
                    scenario: Site {
                        fn_name: def.fn_name,
                        at: Location {
                            file: def.file,
                            line: def.line,
                        },
                    },
                    name,
                    setups,
                });
            }
        }
    }
    // Depth-first search for a circle, in name order (deterministic messages).
    fn visit(
        name: &'static str,
        by_name: &HashMap<&str, &'static ScenarioDef>,
        path: &mut Vec<&'static str>,
        done: &mut HashSet<&'static str>,
    ) -> Result<(), HarnessError> {
        if let Some(at) = path.iter().position(|n| *n == name) {
            let mut cycle = path[at..].to_vec();
            cycle.push(name);
            return Err(HarnessError::SetupCycle { cycle });
        }
        if !done.insert(name) {
            return Ok(());
        }
        path.push(name);
        for dep in by_name[name].depends_on {
            visit(dep, by_name, path, done)?;
        }
        path.pop();
        Ok(())
    }
    let by_name: HashMap<&str, &'static ScenarioDef> =
        scenarios.iter().map(|d| (d.fn_name, *d)).collect();
    let mut done = HashSet::new();
    for def in scenarios {
        let mut path = Vec::new();
        // `done` marks nodes whose subtree is clean only once fully visited.
        let mut seen = done.clone();
        visit(def.fn_name, &by_name, &mut path, &mut seen)?;
        done = seen;
    }
    Ok(())
}

/// `main!(setup = [f, …])`: every scenario depends on the setups `suite`
/// names (before its own `depends_on`), except those setups and the setups
/// they depend on, directly or not (which would make a circle). Each scenario
/// that gains a dependency is a copy with the longer `depends_on`; from here
/// on nothing tells them apart from written ones. A name that is no setup
/// scenario of the binary is an error naming it (`main!` makes it a compile
/// error first).
pub(crate) fn for_the_suite(
    scenarios: Vec<&'static ScenarioDef>,
    suite: &'static [&'static str],
) -> Result<Vec<&'static ScenarioDef>, HarnessError> {
    if suite.is_empty() {
        return Ok(scenarios);
    }
    let by_name: HashMap<&str, &'static ScenarioDef> =
        scenarios.iter().map(|d| (d.fn_name, *d)).collect();
    for name in suite {
        if !by_name.get(name).is_some_and(|d| d.setup) {
            return Err(HarnessError::UnknownSuiteSetup {
                name,
                setups: (scenarios.iter())
                    .filter(|d| d.setup)
                    .map(|d| d.fn_name)
                    .collect(),
            });
        }
    }
    // The suite's setups and everything they depend on.
    let mut exempt: HashSet<&str> = HashSet::new();
    let mut todo: Vec<&str> = suite.to_vec();
    while let Some(name) = todo.pop() {
        if exempt.insert(name)
            && let Some(def) = by_name.get(name)
        {
            todo.extend(def.depends_on.iter().copied());
        }
    }
    Ok(scenarios
        .into_iter()
        .map(|def| {
            if exempt.contains(def.fn_name) {
                return def;
            }
            let mut depends_on: Vec<&'static str> = (suite.iter())
                .filter(|s| !def.depends_on.contains(s))
                .copied()
                .collect();
            if depends_on.is_empty() {
                return def;
            }
            depends_on.extend(def.depends_on.iter().copied());
            let mut copy = def.clone();
            copy.depends_on = Box::leak(depends_on.into_boxed_slice());
            &*Box::leak(Box::new(copy))
        })
        .collect())
}

/// The setups `def` needs, each before those that need it, itself excluded.
pub(crate) fn needs(
    def: &'static ScenarioDef,
    by_name: &HashMap<&str, &'static ScenarioDef>,
) -> Vec<&'static ScenarioDef> {
    let mut out: Vec<&'static ScenarioDef> = Vec::new();
    fn walk(
        def: &'static ScenarioDef,
        by_name: &HashMap<&str, &'static ScenarioDef>,
        out: &mut Vec<&'static ScenarioDef>,
    ) {
        for name in def.depends_on {
            if let Some(dep) = by_name.get(name)
                && !out.iter().any(|d| d.fn_name == dep.fn_name)
            {
                walk(dep, by_name, out);
                out.push(dep);
            }
        }
    }
    walk(def, by_name, &mut out);
    out
}

/// `fixture_database: brought along as a setup of smoke_login, smoke_search`
/// (the first 10 dependents, then how many more).
pub(crate) fn brought_along(setup: &str, of: &[&str]) -> String {
    const SHOWN: usize = 10;
    let mut names = of
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if of.len() > SHOWN {
        names.push_str(&format!(" and {} more", of.len() - SHOWN));
    }
    format!("{setup}: brought along as a setup of {names}")
}

/// How many times `def` runs under `--repeat-each N` (`asked`): a setup
/// once, before the first repetition of what depends on it (its dependents'
/// repetitions all start from what it made); any other scenario N times.
pub(crate) fn repetitions(def: &ScenarioDef, asked: Option<u32>) -> u32 {
    if def.setup {
        1
    } else {
        asked.unwrap_or(1).max(1)
    }
}

/// The work in the order it starts: setups first, each after the setups it
/// depends on (so a dependent waiting for its setup never holds the place
/// the setup needs), then the others in their order.
pub(crate) fn order(
    work: Vec<(&'static ScenarioDef, usize)>,
) -> Vec<(&'static ScenarioDef, usize)> {
    let by_name: HashMap<&str, &'static ScenarioDef> =
        work.iter().map(|(d, _)| (d.fn_name, *d)).collect();
    let mut out: Vec<(&'static ScenarioDef, usize)> = Vec::new();
    let mut placed: HashSet<&str> = HashSet::new();
    for (def, last) in work.iter().filter(|(d, _)| d.setup) {
        for dep in needs(def, &by_name) {
            if placed.insert(dep.fn_name)
                && let Some(w) = work.iter().find(|(d, _)| d.fn_name == dep.fn_name)
            {
                out.push(*w);
            }
        }
        if placed.insert(def.fn_name) {
            out.push((*def, *last));
        }
    }
    out.extend(work.iter().filter(|(d, _)| !d.setup).copied());
    out
}

/// How a job's last attempt ended.
pub(crate) struct Ended {
    /// Whether its steps passed.
    pub passed: bool,
    /// Its `errorMessage`, or why it did not run.
    pub error: Option<String>,
    /// Its run, when one was recorded.
    pub run_id: Option<String>,
}

impl Ended {
    /// A job that failed before or outside its run.
    pub(crate) fn failed(error: String, run_id: Option<String>) -> Ended {
        Ended {
            passed: false,
            error: Some(error),
            run_id,
        }
    }

    fn outcome(&self) -> Outcome {
        if self.passed {
            Outcome::Passed
        } else {
            Outcome::Failed(
                self.error
                    .clone()
                    .unwrap_or_else(|| "it failed".to_string()),
            )
        }
    }
}

/// Runs one job (`attempts`) of the scenario `def` once the setups it depends
/// on passed; when one failed, every step is skipped with
/// `setup {f} failed: {error}`. A setup's end is told to its dependents; under
/// nextest a setup another process already ran is not run again: its trial
/// reports that run.
pub(crate) async fn run_job<F, Fut>(
    gate: &Gate,
    def: &'static ScenarioDef,
    sink: &Arc<HarnessSink>,
    store: &Store,
    attempts: F,
) where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Ended>,
{
    if let Some(reason) = gate.wait(def).await {
        not_run(&**sink, store, def, NotRun::Skipped(&reason));
        if def.setup {
            gate.ended(def, Outcome::Failed(reason), None, None);
        }
        return;
    }
    if !def.setup {
        attempts().await;
        return;
    }
    match gate.claim(def).await {
        Claim::Run(lock) => {
            let ended = attempts().await;
            gate.ended(def, ended.outcome(), ended.run_id, lock);
        }
        Claim::Recorded(record) => {
            deliver(&**sink, store, def, &record);
            let outcome = match (record.passed, &record.error) {
                (true, _) => Outcome::Passed,
                (false, e) => Outcome::Failed(e.clone().unwrap_or_else(|| "it failed".into())),
            };
            gate.ended(def, outcome, record.run_id, None);
        }
    }
}

/// The trials of a setup another process of the nextest run ran: its
/// recorded steps.
fn deliver(sink: &dyn EventSink, store: &Store, def: &'static ScenarioDef, record: &SetupRecord) {
    let how = "run once for this nextest run, by another process";
    let recorded = (|| {
        let slug = Slug::new(def.slug).ok()?;
        let run = RunId::new(record.run_id.as_deref()?).ok()?;
        let result = store.scenario(&slug).run(&run).result().ok()??;
        let outcomes = super::outcomes::recorded_outcomes(store, def, &run, &result, how)?;
        Some((slug, outcomes))
    })();
    match recorded {
        Some((slug, outcomes)) => {
            for outcome in &outcomes {
                sink.on_event(&Event::StepFinished {
                    slug: &slug,
                    outcome,
                });
            }
        }
        None => {
            let reason = match &record.error {
                Some(e) => format!("{how}, which failed: {e}"),
                None => how.to_string(),
            };
            not_run(sink, store, def, NotRun::Skipped(&reason));
        }
    }
}

/// How a setup ended in this invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Its steps passed.
    Passed,
    /// It failed (or did not run), with its error.
    Failed(String),
}

/// What a setup job does under nextest.
pub(crate) enum Claim {
    /// Run it: this process holds its lock (none outside nextest).
    Run(Option<SetupLock>),
    /// It already ran in this nextest run: its record.
    Recorded(SetupRecord),
}

/// The setups of one invocation: each one's outcome, awaited by its dependents.
pub(crate) struct Gate {
    outcomes: HashMap<&'static str, watch::Sender<Option<Outcome>>>,
    store: Store,
    /// `NEXTEST_RUN_ID` under nextest.
    nextest_run: Option<String>,
}

impl Gate {
    /// A gate for the setups in `work`.
    pub(crate) fn new(
        work: &[(&'static ScenarioDef, usize)],
        store: &Store,
        nextest: bool,
    ) -> Arc<Gate> {
        Arc::new(Gate {
            outcomes: (work.iter())
                .filter(|(d, _)| d.setup)
                .map(|(d, _)| (d.fn_name, watch::channel(None).0))
                .collect(),
            store: store.clone(),
            nextest_run: nextest
                .then(|| harshjudge_store::report::invocation::invocation_id(true))
                .flatten(),
        })
    }

    /// Waits until every setup `def` depends on has ended: why `def` must be
    /// skipped, `setup {f} failed: {error}`, for the first one that failed. A
    /// setup that does not run in this invocation (reused by `--resume`) is
    /// not waited for.
    pub(crate) async fn wait(&self, def: &ScenarioDef) -> Option<String> {
        for name in def.depends_on {
            let Some(sender) = self.outcomes.get(name) else {
                continue;
            };
            let mut rx = sender.subscribe();
            let outcome = match rx.wait_for(Option::is_some).await {
                Ok(v) => v.clone(),
                Err(_) => Some(Outcome::Failed("it did not end".into())),
            };
            if let Some(Outcome::Failed(e)) = outcome {
                return Some(format!("setup {name} failed: {e}"));
            }
        }
        None
    }

    /// Under nextest, whether this process runs the setup `def` (then it
    /// holds its lock until [`Gate::ended`]) or another did in this nextest
    /// run. Outside nextest, always run.
    pub(crate) async fn claim(&self, def: &'static ScenarioDef) -> Claim {
        let Some(run) = self.nextest_run.clone() else {
            return Claim::Run(None);
        };
        let store = self.store.clone();
        let lock = tokio::task::spawn_blocking(move || {
            let lock = store.lock_setup(def.fn_name);
            let record = store.setup_record(def.fn_name, &run);
            (lock, record)
        })
        .await;
        match lock {
            Ok((_, Some(record))) => Claim::Recorded(record),
            Ok((Ok(lock), None)) => Claim::Run(Some(lock)),
            // No lock to be had: run it here rather than not at all.
            Ok((Err(e), None)) => {
                eprintln!(
                    "harshjudge: setup {}: its lock could not be taken ({e}): running it in this process",
                    def.fn_name
                );
                Claim::Run(None)
            }
            Err(_) => Claim::Run(None),
        }
    }

    /// Tells the dependents how the setup `def` ended; under nextest records it
    /// for the other processes of the run, then releases its lock.
    pub(crate) fn ended(
        &self,
        def: &ScenarioDef,
        outcome: Outcome,
        run_id: Option<String>,
        lock: Option<SetupLock>,
    ) {
        if let (Some(run), Some(_)) = (&self.nextest_run, &lock) {
            let record = SetupRecord {
                run_id,
                passed: outcome == Outcome::Passed,
                error: match &outcome {
                    Outcome::Failed(e) => Some(e.clone()),
                    Outcome::Passed => None,
                },
            };
            if let Err(e) = self.store.put_setup_record(def.fn_name, run, &record) {
                eprintln!(
                    "harshjudge: setup {}: its outcome could not be recorded for the other processes ({e}): they will run it again",
                    def.fn_name
                );
            }
        }
        drop(lock);
        if let Some(sender) = self.outcomes.get(def.fn_name) {
            sender.send_replace(Some(outcome));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fake_scenario;

    fn never(_: crate::scenario::Scenario) -> crate::registry::ScenarioFuture {
        Box::pin(async { Ok(()) })
    }

    fn def(name: &'static str, setup: bool, deps: &'static [&'static str]) -> &'static ScenarioDef {
        fake_scenario(name, &["One", "Two"], never, |d| {
            d.setup = setup;
            d.depends_on = deps;
        })
    }

    #[test]
    fn unknown_setups_and_circles_are_named() {
        let login = def("login", true, &[]);
        let page = def("page", false, &["login"]);
        assert!(validate(&[login, page]).is_ok());
        let e = validate(&[page]).unwrap_err();
        assert!(e.to_string().contains("depends on `login`, which is not a setup scenario of this test binary (it has none)"), "{e}");
        let plain = def("plain", false, &[]);
        let e = validate(&[plain, def("x", false, &["plain"]), login]).unwrap_err();
        assert!(e.to_string().contains("its setups: login"), "{e}");
        let me = def("me", true, &["me"]);
        let e = validate(&[me]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "setup scenarios depend on each other in a circle: me → me; remove one of these `depends_on`"
        );
        let (a, b) = (def("a", true, &["b"]), def("b", true, &["a"]));
        let e = validate(&[a, b]).unwrap_err();
        assert!(e.to_string().contains("a → b → a"), "{e}");
    }

    #[test]
    fn setups_start_first_after_their_own_setups() {
        let (base, admin) = (def("base", true, &[]), def("admin", true, &["base"]));
        let (x, y) = (def("x", false, &["admin"]), def("y", false, &[]));
        let work = vec![(admin, 2), (base, 2), (x, 1), (y, 2)];
        let names: Vec<&str> = order(work).iter().map(|(d, _)| d.fn_name).collect();
        assert_eq!(names, ["base", "admin", "x", "y"]);
    }

    /// Issue 37.8: `main!(setup = [db])`.
    #[test]
    fn a_setup_of_the_suite_is_a_dependency_of_all_but_itself_and_its_own_setups() {
        let (base, db, login) = (
            def("base", true, &[]),
            def("db", true, &["base"]),
            def("login", true, &[]),
        );
        let (a, b, c) = (
            def("a", false, &[]),
            def("b", false, &["login"]),
            def("c", false, &["db"]),
        );
        let out = for_the_suite(vec![a, b, base, c, db, login], &["db"]).unwrap();
        let deps: Vec<(&str, Vec<&str>)> = (out.iter())
            .map(|d| (d.fn_name, d.depends_on.to_vec()))
            .collect();
        assert_eq!(
            deps,
            [
                ("a", vec!["db"]),
                ("b", vec!["db", "login"]),
                ("base", vec![]),
                ("c", vec!["db"]),
                ("db", vec!["base"]),
                ("login", vec!["db"]),
            ]
        );
        // No circle; the suite's setup (after its own) starts first.
        validate(&out).unwrap();
        let work: Vec<(&'static ScenarioDef, usize)> = out.iter().map(|d| (*d, 2)).collect();
        let names: Vec<&str> = order(work).iter().map(|(d, _)| d.fn_name).collect();
        assert_eq!(names, ["base", "db", "login", "a", "b", "c"]);
        // Nothing to add: as registered.
        let same = for_the_suite(vec![a, c], &[]).unwrap();
        assert!(std::ptr::eq(same[0], a) && same[0].depends_on.is_empty());
        // A name that is no setup scenario of the binary is named.
        let e = for_the_suite(vec![a, login], &["nope"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "main!(setup = [nope]) names `nope`, which is not a setup scenario of this test binary (its setups: login): mark it `#[scenario(setup)]` or remove it from `main!(setup = …)`"
        );
        let e = for_the_suite(vec![a], &["a"]).unwrap_err();
        assert!(e.to_string().contains("(it has none)"), "{e}");
    }

    /// Issue 37.8: `--repeat-each` repeats the scenarios, not their setups.
    #[test]
    fn under_repeat_each_a_setup_runs_once() {
        let (setup, page) = (def("login", true, &[]), def("page", false, &["login"]));
        assert_eq!(repetitions(setup, Some(5)), 1);
        assert_eq!(repetitions(page, Some(5)), 5);
        assert_eq!(repetitions(page, None), 1);
    }

    #[tokio::test]
    async fn a_failed_setup_skips_its_dependents_with_its_error() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let login = def("login", true, &[]);
        let page = def("page", false, &["login"]);
        let gate = Gate::new(&[(login, 2), (page, 2)], &store, false);
        let waiting = {
            let gate = gate.clone();
            tokio::spawn(async move { gate.wait(page).await })
        };
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        gate.ended(
            login,
            Outcome::Failed("step 01 failed: no form".into()),
            None,
            None,
        );
        assert_eq!(
            waiting.await.unwrap().as_deref(),
            Some("setup login failed: step 01 failed: no form")
        );
    }
}
