//! Unit tests of the suite's flags, checkpoint and replay script.

use super::*;

fn split(args: &[&str]) -> Result<(Vec<String>, SuiteFlags), FlagError> {
    SuiteFlags::split(args.iter().map(|s| s.to_string()))
}

#[test]
fn our_flags_are_taken_out_of_libtests() {
    let (rest, f) = split(&["bin", "--retries", "2", "web", "--exact", "--last-failed"]).unwrap();
    assert_eq!(rest, ["bin", "web", "--exact"]);
    assert_eq!(f.retries, Some(2));
    assert!(f.last_failed && !f.resume);
    let (_, f) = split(&["bin", "--retries=1", "--fail-on-flaky"]).unwrap();
    assert_eq!((f.retries, f.fail_on_flaky), (Some(1), true));
    let (rest, f) = split(&["bin", "--shard", "2/3", "web"]).unwrap();
    assert_eq!(rest, ["bin", "web"]);
    assert_eq!(f.shard.map(|s| (s.index, s.count)), Some((2, 3)));
    let (_, f) = split(&["bin", "--shard=3/3"]).unwrap();
    assert_eq!(f.shard.map(|s| s.to_string()), Some("3/3".into()));
}

#[test]
fn bad_flags_say_what_is_expected() {
    let e = split(&["bin", "--retries"]).unwrap_err().to_string();
    assert!(e.contains("--retries needs a number"), "{e}");
    let e = split(&["bin", "--retries", "many"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"many\"") && e.contains("0 to 10"), "{e}");
    let e = split(&["bin", "--resume", "--last-failed"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot be combined"), "{e}");
    let e = split(&["bin", "--shard"]).unwrap_err().to_string();
    assert!(e.contains("--shard needs a value i/n"), "{e}");
    let e = split(&["bin", "--shard", "3/2"]).unwrap_err().to_string();
    assert!(
        e.contains("--shard \"3/2\" is invalid") && e.contains("i/n"),
        "{e}"
    );
}

#[test]
fn rejudge_flags_are_parsed_and_checked() {
    let (rest, f) = split(&["bin", "--rejudge", "notes"]).unwrap();
    assert_eq!(rest, ["bin", "notes"]);
    assert!(f.rejudge && f.rejudging() && f.rejudge_run.is_none());
    let (_, f) = split(&["bin", "--rejudge-run", "20261123T101500123Z-a1b2c3"]).unwrap();
    assert_eq!(f.rejudge_run.as_deref(), Some("20261123T101500123Z-a1b2c3"));
    let (_, f) = split(&["bin", "--rejudge-run=r1"]).unwrap();
    assert!(f.rejudging() && !f.rejudge);
    let e = split(&["bin", "--rejudge-run"]).unwrap_err().to_string();
    assert!(e.contains("--rejudge-run needs a run id"), "{e}");
    let e = split(&["bin", "--rejudge-run", "../etc"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("--rejudge-run \"../etc\" is invalid"), "{e}");
    let e = split(&["bin", "--rejudge", "--resume"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot be combined"), "{e}");
    let e = split(&["bin", "--rejudge", "--rejudge-run", "r1"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot be combined"), "{e}");
}

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
        let log = SuiteLog::begin(&store, "web", suite, None, selected, &BTreeMap::new()).unwrap();
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
    let log = SuiteLog::begin(&store, "web", &["home"], None, &["home"], &BTreeMap::new()).unwrap();
    log.finish(false);
    assert!(removed_scenarios(&store).contains_key("gone"));
}
