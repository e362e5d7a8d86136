//! The suite checkpoint that makes `--resume` and `--last-failed` possible.
//!
//! The checkpoint is `.harshJudge/.suite/{test binary}.json`, rewritten
//! atomically whenever a scenario starts or ends and once its judgment is
//! known: which scenarios passed, failed, were flaky, or were still pending or
//! running when the process stopped, and for each finished one its execution
//! (`executed`: the code's own outcome) and its judgment (`judged`: the
//! verdicts of its steps with an expectation) apart; and every scenario the
//! binary has (`suite`) and those it no longer has (`removed`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{
    RunId, RunResult, RunStatus, Slug, StepStatus, Store, StoreError, VerdictState, now_iso,
};

/// Where a scenario stands in the checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScenarioState {
    /// Selected, not started yet.
    Pending,
    /// Started, not finished.
    Running,
    /// Passed.
    Pass,
    /// Failed.
    Fail,
    /// Passed after a failed attempt.
    Flaky,
    /// Stopped by Ctrl-C or SIGTERM.
    Interrupted,
}

impl ScenarioState {
    /// Whether the scenario ended with a result (reusable by `--resume`).
    pub fn finished(self) -> bool {
        matches!(self, Self::Pass | Self::Fail | Self::Flaky)
    }
    /// Whether `--last-failed` reruns it.
    pub fn failed(self) -> bool {
        matches!(self, Self::Fail | Self::Interrupted | Self::Running)
    }
}

/// One scenario in the checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioEntry {
    /// Where it stands.
    pub state: ScenarioState,
    /// Its (last attempt's) run.
    #[serde(default)]
    pub run_id: Option<String>,
    /// Attempts made.
    #[serde(default)]
    pub attempts: u32,
    /// Its result was taken over from an earlier invocation (`--resume`).
    #[serde(default)]
    pub reused: bool,
    /// How its run's code ended, verdicts aside (`pass` / `fail`); absent
    /// while it has not ended, after an interruption, and in checkpoints
    /// written before this field existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executed: Option<Executed>,
    /// Where its run's judgment stands (`pass` / `fail` / `pending`); absent
    /// when no executed step has an expectation (nothing to judge), when
    /// `executed` is absent, and in older checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged: Option<Judged>,
}

impl ScenarioEntry {
    /// A new entry (not reused), without execution or judgment yet.
    pub fn new(state: ScenarioState, run_id: Option<String>, attempts: u32) -> ScenarioEntry {
        ScenarioEntry {
            state,
            run_id,
            attempts,
            reused: false,
            executed: None,
            judged: None,
        }
    }

    /// Sets `executed` and `judged` from the run's `result.json` ([`Executed::of`],
    /// [`Judged::of`]), and the combined `state` when the run ended (pass ↔
    /// fail as its `status` now says; a flaky pass stays flaky, and a flaky
    /// pass counted as failed by `--fail-on-flaky` stays failed).
    pub fn note_result(&mut self, result: &RunResult) {
        let pending = self.judged == Some(Judged::Pending);
        self.executed = Executed::of(result);
        // A `pending` noted from the code's expectations stands while
        // `result.json` knows of no verdict.
        self.judged = self
            .executed
            .and_then(|_| Judged::of(result).or(pending.then_some(Judged::Pending)));
        if self.executed.is_none() {
            return;
        }
        self.state = match (result.status, self.state) {
            (RunStatus::Fail, _) => ScenarioState::Fail,
            (RunStatus::Pass, ScenarioState::Flaky) => ScenarioState::Flaky,
            (RunStatus::Pass, ScenarioState::Fail) if result.flaky => ScenarioState::Fail,
            (RunStatus::Pass, _) if result.flaky => ScenarioState::Flaky,
            (RunStatus::Pass, _) => ScenarioState::Pass,
            (RunStatus::Running, state) => state,
        };
    }
}

/// How a run's code ended, verdicts aside (the checkpoint's `executed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Executed {
    /// Every executed step's code passed.
    Pass,
    /// A step's code failed.
    Fail,
}

impl Executed {
    /// The execution of a run that ended (`executedStatus`, else `status`);
    /// `None` while it runs or when it was interrupted (it has no outcome).
    pub fn of(result: &RunResult) -> Option<Executed> {
        if result.interrupted || result.status == RunStatus::Running {
            return None;
        }
        Some(match result.executed() {
            RunStatus::Pass => Executed::Pass,
            _ => Executed::Fail,
        })
    }
}

/// Where a run's judgment stands (the checkpoint's `judged`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Judged {
    /// Every executed step with an expectation has a verdict, none failing.
    Pass,
    /// Every such step has a verdict, and one fails it (`fail`, or
    /// `uncertain` when that does not pass).
    Fail,
    /// A step with an expectation has no verdict yet (`pending`), or its judge
    /// gave none (`error`): `--resume` and `--rejudge` complete it.
    Pending,
}

impl Judged {
    /// The judgment of a run from its steps' `verdict`: pending when one is
    /// pending or an error (or a step with an expectation has no verdict
    /// state), else fail when one is `fail` (or `uncertain` and its step did
    /// not pass), else pass; `None` when no executed step has an expectation.
    pub fn of(result: &RunResult) -> Option<Judged> {
        let mut judged = None;
        for step in &result.steps {
            let Some(state) = step.verdict else {
                if step.expectation.is_some() && step.status != StepStatus::Skipped {
                    return Some(Judged::Pending);
                }
                continue;
            };
            let passed = match state {
                VerdictState::Skipped => continue,
                VerdictState::Pending | VerdictState::Error => return Some(Judged::Pending),
                VerdictState::Pass => true,
                VerdictState::Fail => false,
                // Whether it passes is `HARSHJUDGE_UNCERTAIN`'s: the combined status says.
                VerdictState::Uncertain => step.status == StepStatus::Pass,
            };
            if !passed {
                judged = Some(Judged::Fail);
            } else if judged.is_none() {
                judged = Some(Judged::Pass);
            }
        }
        judged
    }

    /// Whether the judgment is incomplete (`--resume` re-judges it).
    pub fn pending(self) -> bool {
        self == Judged::Pending
    }
}

/// `.harshJudge/.suite/{binary}.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    /// The test binary (without cargo's hash).
    pub binary: String,
    /// The process of the invocation.
    pub pid: u32,
    /// ISO start.
    pub started_at: String,
    /// ISO end; `None` while running or when the process stopped early.
    pub finished_at: Option<String>,
    /// Stopped by Ctrl-C or SIGTERM.
    #[serde(default)]
    pub interrupted: bool,
    /// Every scenario this binary ran, here or in an earlier invocation.
    pub scenarios: BTreeMap<String, ScenarioEntry>,
    /// Every scenario the binary has (its registry, whatever the filter or
    /// shard selected) at this invocation; empty in checkpoints written before
    /// this field existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suite: Vec<String>,
    /// The scenarios this binary had in an earlier invocation and no longer
    /// has (removed from the code), each with when its absence was first seen
    /// (ISO 8601). Their runs stay; the report marks them removed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub removed: BTreeMap<String, String>,
}

/// A scenario that is in no test binary any more ([`removed_scenarios`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removed {
    /// The test binary that had it.
    pub binary: String,
    /// When its binary was first run without it (ISO 8601).
    pub since: String,
}

/// What this binary no longer has: the scenarios of its previous checkpoint
/// (its registry, the scenarios it ran, and those already removed) that are
/// not in `suite`, each with when that was first seen (`now` for a new one).
/// A filtered or sharded invocation still has its whole registry in `suite`,
/// so it removes nothing it did not select.
fn removed_since(
    previous: Option<&Checkpoint>,
    suite: &[&str],
    now: &str,
) -> BTreeMap<String, String> {
    let Some(p) = previous else {
        return BTreeMap::new();
    };
    let known = (p.suite.iter())
        .chain(p.scenarios.keys())
        .chain(p.removed.keys());
    known
        .filter(|slug| !suite.contains(&slug.as_str()))
        .map(|slug| {
            let since = p.removed.get(slug).cloned();
            (slug.clone(), since.unwrap_or_else(|| now.to_string()))
        })
        .collect()
}

/// The scenarios that some test binary's latest invocation no longer has and
/// no binary has now, from every checkpoint in `.suite/` (an unreadable one
/// is left out). A scenario moved to another binary is not removed.
pub fn removed_scenarios(store: &Store) -> BTreeMap<String, Removed> {
    let checkpoints: Vec<Checkpoint> = (store.suite_checkpoints().iter())
        .filter_map(|path| store.read_file(path).ok())
        .filter_map(|bytes| serde_json::from_slice(&bytes).ok())
        .collect();
    let present: BTreeSet<&str> = checkpoints
        .iter()
        .flat_map(|c| c.suite.iter().map(String::as_str))
        .collect();
    let mut out: BTreeMap<String, Removed> = BTreeMap::new();
    for c in &checkpoints {
        for (slug, since) in &c.removed {
            if present.contains(slug.as_str()) {
                continue;
            }
            let newer = out.get(slug).is_none_or(|r| r.since < *since);
            if newer {
                let binary = c.binary.clone();
                let since = since.clone();
                out.insert(slug.clone(), Removed { binary, since });
            }
        }
    }
    out
}

/// The checkpoint of this invocation, written through on every change.
pub struct SuiteLog {
    /// Where the checkpoint is written (never through a link).
    store: Store,
    path: PathBuf,
    state: Mutex<Checkpoint>,
    /// The scenarios whose entry this invocation wrote.
    touched: Mutex<BTreeSet<String>>,
}

/// The `result.json` of `slug`'s run `run`, when both ids are valid and it is readable.
fn read_run(store: &Store, slug: &str, run: &str) -> Option<RunResult> {
    let slug = Slug::new(slug).ok()?;
    let run = RunId::new(run).ok()?;
    store.scenario(&slug).run(&run).result().ok().flatten()
}

impl SuiteLog {
    /// The checkpoint file of `binary` in `store`.
    pub fn path(store: &Store, binary: &str) -> PathBuf {
        store.suite_checkpoint(binary)
    }

    /// The previous invocation's checkpoint, if any (an unreadable one is
    /// reported and treated as absent).
    pub fn previous(store: &Store, binary: &str) -> Result<Option<Checkpoint>, StoreError> {
        let path = Self::path(store, binary);
        store.confine(&path)?;
        match store.read_file(&path) {
            Ok(b) => serde_json::from_slice(&b)
                .map(Some)
                .map_err(|e| StoreError::Corrupt {
                    path,
                    problem: format!("not a valid suite checkpoint: {e}"),
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(StoreError::Io { path, source }),
        }
    }

    /// Updates the entries of the latest checkpoint of `binary` in place (its
    /// start, end and other entries kept): what `--rejudge` changes, the
    /// judgment of runs an earlier invocation executed. No checkpoint, nothing
    /// to update.
    pub fn update_previous(
        store: &Store,
        binary: &str,
        update: impl FnOnce(&mut BTreeMap<String, ScenarioEntry>),
    ) -> Result<(), StoreError> {
        let Some(mut checkpoint) = Self::previous(store, binary)? else {
            return Ok(());
        };
        update(&mut checkpoint.scenarios);
        let text = serde_json::to_string_pretty(&checkpoint).expect("checkpoint serializes");
        store.write_file(&Self::path(store, binary), text.as_bytes())
    }

    /// Starts this invocation's checkpoint: entries of earlier invocations carry
    /// over; `selected` scenarios start `pending`; `suite` is every scenario the
    /// binary has (its registry), and what the previous checkpoint knew of and
    /// `suite` lacks is recorded as removed.
    pub fn begin(
        store: &Store,
        binary: &str,
        suite: &[&str],
        previous: Option<&Checkpoint>,
        selected: &[&str],
        reused: &BTreeMap<String, ScenarioEntry>,
    ) -> Result<SuiteLog, StoreError> {
        let mut scenarios = previous.map(|p| p.scenarios.clone()).unwrap_or_default();
        for slug in selected {
            scenarios.insert(
                slug.to_string(),
                ScenarioEntry::new(ScenarioState::Pending, None, 0),
            );
        }
        for (slug, e) in reused {
            let mut e = e.clone();
            e.reused = true;
            scenarios.insert(slug.clone(), e);
        }
        let started_at = now_iso();
        // What the binary had last time, whether or not its entries carry over
        // (they do for `--resume` and `--last-failed` only).
        let on_disk = match previous {
            Some(_) => None,
            None => Self::previous(store, binary).ok().flatten(),
        };
        let removed = removed_since(previous.or(on_disk.as_ref()), suite, &started_at);
        let log = SuiteLog {
            store: store.clone(),
            path: Self::path(store, binary),
            state: Mutex::new(Checkpoint {
                binary: binary.into(),
                pid: std::process::id(),
                started_at,
                finished_at: None,
                interrupted: false,
                scenarios,
                suite: suite.iter().map(|s| s.to_string()).collect(),
                removed,
            }),
            touched: Mutex::new(BTreeSet::new()),
        };
        log.save()?;
        Ok(log)
    }

    fn save(&self) -> Result<(), StoreError> {
        let text = {
            let state = self.state.lock().expect("checkpoint lock");
            serde_json::to_string_pretty(&*state).expect("checkpoint serializes")
        };
        self.store.write_file(&self.path, text.as_bytes())
    }

    /// Records where `slug` stands now.
    pub fn set(&self, slug: &str, state: ScenarioState, run_id: Option<String>, attempts: u32) {
        self.set_entry(slug, ScenarioEntry::new(state, run_id, attempts));
    }

    /// Records where `slug` stands now, with its execution and judgment when
    /// its run's `result.json` is known ([`ScenarioEntry::note_result`]).
    pub fn set_entry(&self, slug: &str, entry: ScenarioEntry) {
        {
            let mut s = self.state.lock().expect("checkpoint lock");
            s.scenarios.insert(slug.to_string(), entry);
        }
        self.touched
            .lock()
            .expect("touched")
            .insert(slug.to_string());
        if let Err(e) = self.save() {
            eprintln!("harshjudge: the suite checkpoint could not be written: {e}");
        }
    }

    /// Ends the invocation (`interrupted` when a signal stopped it). The
    /// execution and judgment of every scenario this invocation ran are read
    /// again from their runs' `result.json` first: verdicts may have been
    /// recorded after the scenario's entry was last written.
    pub fn finish(&self, interrupted: bool) {
        let touched: Vec<String> = self
            .touched
            .lock()
            .expect("touched")
            .iter()
            .cloned()
            .collect();
        let mut fresh = Vec::new();
        for slug in touched {
            let run = {
                let s = self.state.lock().expect("checkpoint lock");
                s.scenarios.get(&slug).and_then(|e| e.run_id.clone())
            };
            if let Some(result) = run.and_then(|run| read_run(&self.store, &slug, &run)) {
                fresh.push((slug, result));
            }
        }
        {
            let mut s = self.state.lock().expect("checkpoint lock");
            for (slug, result) in &fresh {
                if let Some(e) = s.scenarios.get_mut(slug)
                    && e.state.finished()
                {
                    e.note_result(result);
                }
            }
            s.interrupted = interrupted;
            if interrupted {
                for e in s.scenarios.values_mut() {
                    if matches!(e.state, ScenarioState::Pending | ScenarioState::Running) {
                        e.state = ScenarioState::Interrupted;
                    }
                }
            } else {
                s.finished_at = Some(now_iso());
            }
        }
        if let Err(e) = self.save() {
            eprintln!("harshjudge: the suite checkpoint could not be written: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(steps: serde_json::Value) -> RunResult {
        serde_json::from_value(serde_json::json!({
            "runId": "r1", "scenarioSlug": "s", "status": "pass",
            "startedAt": "2026-11-23T00:00:00.000Z", "completedAt": "2026-11-23T00:00:01.000Z",
            "duration": 1000, "steps": steps,
        }))
        .unwrap()
    }

    #[test]
    fn execution_and_judgment_are_kept_apart() {
        let step = |id: &str, status: &str, extra: serde_json::Value| {
            let mut v = serde_json::json!({"id": id, "status": status, "duration": 1});
            v.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            v
        };
        // Nothing to judge.
        let r = result(serde_json::json!([step(
            "01",
            "pass",
            serde_json::json!({})
        )]));
        assert_eq!(
            (Executed::of(&r), Judged::of(&r)),
            (Some(Executed::Pass), None)
        );
        // An expectation without a verdict state yet, or pending, or an error: pending.
        for extra in [
            serde_json::json!({"expectation": "x"}),
            serde_json::json!({"expectation": "x", "verdict": "pending"}),
            serde_json::json!({"expectation": "x", "verdict": "error", "executedStatus": "pass", "status": "fail"}),
        ] {
            let r = result(serde_json::json!([step("01", "pass", extra)]));
            assert_eq!(Judged::of(&r), Some(Judged::Pending), "{r:?}");
        }
        // A failing verdict: executed pass, judged fail; the run's state fails.
        let mut r = result(serde_json::json!([
            step(
                "01",
                "pass",
                serde_json::json!({"expectation": "x", "verdict": "pass"})
            ),
            step(
                "02",
                "fail",
                serde_json::json!({"expectation": "y", "verdict": "fail", "executedStatus": "pass"})
            ),
        ]));
        r.status = RunStatus::Fail;
        r.executed_status = Some(RunStatus::Pass);
        let mut e = ScenarioEntry::new(ScenarioState::Pass, Some("r1".into()), 1);
        e.note_result(&r);
        assert_eq!(
            (e.state, e.executed, e.judged),
            (
                ScenarioState::Fail,
                Some(Executed::Pass),
                Some(Judged::Fail)
            )
        );
        // Uncertain counts as the combined status says.
        let r = result(serde_json::json!([step(
            "01",
            "pass",
            serde_json::json!({"expectation": "x", "verdict": "uncertain"})
        )]));
        assert_eq!(Judged::of(&r), Some(Judged::Pass));
        // An interrupted run has no execution outcome.
        let mut r = result(serde_json::json!([]));
        r.interrupted = true;
        assert_eq!(Executed::of(&r), None);
        // `pending` noted from the code's expectations stands while result.json
        // knows of no verdict.
        let r = result(serde_json::json!([step(
            "01",
            "pass",
            serde_json::json!({})
        )]));
        let mut e = ScenarioEntry::new(ScenarioState::Pass, Some("r1".into()), 1);
        e.judged = Some(Judged::Pending);
        e.note_result(&r);
        assert_eq!(e.judged, Some(Judged::Pending));
    }

    #[test]
    fn a_checkpoint_written_before_judgments_still_loads() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let path = SuiteLog::path(&store, "demo");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            r#"{"binary":"demo","pid":1,"startedAt":"2026-01-01T00:00:00.000Z","finishedAt":null,
               "scenarios":{"a":{"state":"pass","runId":"r1","attempts":1}}}"#,
        )
        .unwrap();
        let prev = SuiteLog::previous(&store, "demo").unwrap().unwrap();
        let a = &prev.scenarios["a"];
        assert_eq!(
            (a.state, a.executed, a.judged),
            (ScenarioState::Pass, None, None)
        );
        // --rejudge updates an entry in place, keeping the invocation's fields.
        let mut r = result(serde_json::json!([]));
        r.run_id = "r1".into();
        SuiteLog::update_previous(&store, "demo", |e| {
            e.get_mut("a").unwrap().note_result(&r);
        })
        .unwrap();
        let now = SuiteLog::previous(&store, "demo").unwrap().unwrap();
        assert_eq!(now.started_at, prev.started_at);
        assert_eq!(now.scenarios["a"].executed, Some(Executed::Pass));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("\"executed\": \"pass\"") && !text.contains("judged"),
            "{text}"
        );
    }

    #[test]
    fn the_checkpoint_survives_a_round_trip_and_marks_the_unfinished() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let log = SuiteLog::begin(
            &store,
            "demo",
            &["a", "b", "c"],
            None,
            &["a", "b", "c"],
            &BTreeMap::new(),
        )
        .unwrap();
        log.set("a", ScenarioState::Pass, Some("r1".into()), 1);
        log.set("b", ScenarioState::Running, Some("r2".into()), 1);
        log.finish(true);
        let prev = SuiteLog::previous(&store, "demo").unwrap().unwrap();
        assert!(prev.interrupted && prev.finished_at.is_none());
        assert_eq!(prev.scenarios["a"].state, ScenarioState::Pass);
        assert_eq!(prev.scenarios["b"].state, ScenarioState::Interrupted);
        assert_eq!(prev.scenarios["c"].state, ScenarioState::Interrupted);
        assert!(prev.scenarios["b"].state.failed() && prev.scenarios["a"].state.finished());
    }

    /// Issue 20.6: what a binary no longer has is recorded as removed, with when
    /// it was first missed; a filtered invocation (its whole registry in `suite`)
    /// removes nothing; a scenario back in the code is no longer removed.
    #[test]
    fn scenarios_the_binary_no_longer_has_are_recorded_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let begin = |suite: &[&str], selected: &[&str]| {
            let log =
                SuiteLog::begin(&store, "web", suite, None, selected, &BTreeMap::new()).unwrap();
            log.finish(false);
            SuiteLog::previous(&store, "web").unwrap().unwrap()
        };
        let c = begin(&["home", "legacy"], &["home", "legacy"]);
        assert_eq!(c.suite, ["home", "legacy"]);
        assert!(c.removed.is_empty());
        // `cargo test -- home`: only home runs, legacy is still in the binary.
        let c = begin(&["home", "legacy"], &["home"]);
        assert!(c.removed.is_empty(), "{:?}", c.removed);
        // legacy deleted from the code.
        let c = begin(&["home"], &["home"]);
        assert_eq!(c.removed.keys().collect::<Vec<_>>(), ["legacy"]);
        let since = c.removed["legacy"].clone();
        assert_eq!(since, c.started_at);
        std::thread::sleep(std::time::Duration::from_millis(5));
        let c = begin(&["home"], &["home"]);
        assert_eq!(c.removed["legacy"], since, "first missed, not last");
        assert_eq!(
            removed_scenarios(&store),
            BTreeMap::from([(
                "legacy".to_string(),
                Removed {
                    binary: "web".into(),
                    since: since.clone()
                }
            )])
        );
        // Moved to another binary: not removed.
        SuiteLog::begin(
            &store,
            "api",
            &["legacy"],
            None,
            &["legacy"],
            &BTreeMap::new(),
        )
        .unwrap();
        assert!(removed_scenarios(&store).is_empty());
        std::fs::remove_file(store.suite_checkpoint("api")).unwrap();
        // Back in the code.
        let c = begin(&["home", "legacy"], &["home"]);
        assert!(c.removed.is_empty(), "{:?}", c.removed);
        assert!(removed_scenarios(&store).is_empty());
    }

    /// A checkpoint written before `suite` existed still tells what ran: a
    /// scenario it names that the binary lacks now is removed.
    #[test]
    fn an_older_checkpoint_names_what_ran() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let old = r#"{"binary":"web","pid":1,"startedAt":"2026-01-01T00:00:00.000Z","finishedAt":null,
            "scenarios":{"gone":{"state":"pass","runId":null,"attempts":1}}}"#;
        store
            .write_file(&store.suite_checkpoint("web"), old.as_bytes())
            .unwrap();
        let log =
            SuiteLog::begin(&store, "web", &["home"], None, &["home"], &BTreeMap::new()).unwrap();
        log.finish(false);
        assert!(removed_scenarios(&store).contains_key("gone"));
    }
}
