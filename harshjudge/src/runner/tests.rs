//! The runner and the run lifecycle in process: a fake scenario (no macro),
//! the real store writer on a temporary `.harshJudge/`, and a recording sink.

use std::time::Duration;

use super::*;
use crate::error::Error;
use crate::evidence::BoxFuture;
use crate::testing::{RecordingSink, Seen, fake_scenario, with_step_timeout};
use harshjudge_store::store::{RunResult, RunStatus, Slug, Store};

struct Ran {
    _dir: tempfile::TempDir,
    store: Store,
    sink: Arc<RecordingSink>,
    slug: Slug,
    run: harshjudge_store::store::RunId,
}

impl Ran {
    fn result(&self) -> RunResult {
        self.store
            .scenario(&self.slug)
            .run(&self.run)
            .result()
            .unwrap()
            .expect("result.json")
    }

    /// Files of a step's evidence folder (no sidecars), sorted.
    fn files(&self, step: usize) -> Vec<String> {
        let id = StepId::from_index(step).unwrap();
        self.store
            .scenario(&self.slug)
            .run(&self.run)
            .list_evidence(&id)
            .unwrap()
    }
}

/// Runs `def` up to step `stop_after` as the harness does: the run prepared
/// in a fresh store, then [`execute`].
async fn run(def: &'static ScenarioDef, stop_after: usize, evidence: EvidenceMode) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join(".harshJudge"));
    store.ensure_initialized("unit", "").unwrap();
    let handle = crate::harness::exec::prepare(&store, def).unwrap();
    let (slug, run) = (handle.slug().clone(), handle.id().clone());
    let sink = Arc::new(RecordingSink::default());
    let limits = Limits {
        step_default: None,
        scenario_default: None,
        evidence,
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
        stop_after,
        limits,
        None,
    );
    execute(shared).await;
    Ran {
        _dir: dir,
        store,
        sink,
        slug,
        run,
    }
}

fn statuses(r: &Ran) -> Vec<(String, StepStatus, Option<String>)> {
    r.sink
        .outcomes()
        .into_iter()
        .map(|o| (o.id.to_string(), o.status, o.reason))
        .collect()
}

fn three_steps(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        m.begin(2).await;
        m.begin(3).await;
        Ok(())
    })
}

#[tokio::test]
async fn steps_run_in_order_and_every_event_reaches_the_consumers() {
    let def = fake_scenario("ordered", &["One", "Two", "Three"], three_steps, |_| {});
    let r = run(def, 3, EvidenceMode::Off).await;
    let seen = r.sink.seen();
    let kinds: Vec<String> = seen
        .iter()
        .map(|s| match s {
            Seen::RunStarted(id) => {
                assert_eq!(id, r.run.as_str());
                "run started".into()
            }
            Seen::StepStarted(id) => format!("start {id}"),
            Seen::StepFinished(o) => format!("end {} {}", o.id, o.status.as_str()),
            Seen::Evidence(id, f) => format!("evidence {id} {f}"),
            Seen::Produced(id, f) => format!("produced {id} {f}"),
            Seen::RunFinished(status, err) => format!("run {status:?} {err:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "run started",
            "start 01",
            "end 01 pass",
            "start 02",
            "end 02 pass",
            "start 03",
            "end 03 pass",
            "run Some(Pass) None",
        ]
    );
    // The store writer recorded the same stream.
    let result = r.result();
    assert_eq!(result.status, RunStatus::Pass);
    let ids: Vec<(&str, StepStatus, Option<&str>)> = result
        .steps
        .iter()
        .map(|s| (s.id.as_str(), s.status, s.title.as_deref()))
        .collect();
    assert_eq!(
        ids,
        [
            ("01", StepStatus::Pass, Some("One")),
            ("02", StepStatus::Pass, Some("Two")),
            ("03", StepStatus::Pass, Some("Three")),
        ]
    );
    let outcome = &r.sink.outcomes()[1];
    assert_eq!(outcome.title, "Two");
    assert_eq!(outcome.index, 2);
    assert_eq!(
        outcome.evidence_dir,
        r.store
            .scenario(&r.slug)
            .run(&r.run)
            .step(&StepId::from_index(2).unwrap())
            .evidence()
    );
}

fn fails_in_step_two(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        m.begin(2).await;
        Err(Error::msg("card declined"))?;
        m.begin(3).await;
        Ok(())
    })
}

#[tokio::test]
async fn a_failure_fails_its_step_and_skips_the_rest_with_the_reason() {
    let def = fake_scenario(
        "declined",
        &["Add", "Pay", "Receipt"],
        fails_in_step_two,
        |_| {},
    );
    let r = run(def, 3, EvidenceMode::Off).await;
    assert_eq!(
        statuses(&r),
        [
            ("01".into(), StepStatus::Pass, None),
            ("02".into(), StepStatus::Fail, None),
            (
                "03".into(),
                StepStatus::Skipped,
                Some("step 02 failed".into())
            ),
        ]
    );
    let failed = &r.sink.outcomes()[1];
    assert_eq!(failed.error.as_deref(), Some("card declined"));
    let loc = failed.location.as_deref().unwrap();
    assert!(loc.contains("runner/tests.rs:"), "{loc}");
    let result = r.result();
    assert_eq!(result.status, RunStatus::Fail);
    assert_eq!(result.failed_step.as_deref(), Some("02"));
    assert_eq!(result.error_message.as_deref(), Some("card declined"));
    assert_eq!(
        result.steps[2].summary.as_deref(),
        Some("Skipped: step 02 failed")
    );
    assert!(matches!(
        r.sink.seen().last(),
        Some(Seen::RunFinished(Some(RunStatus::Fail), None))
    ));
}

fn panics_in_step_one(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        let v: Vec<u8> = Vec::new();
        if v.is_empty() {
            panic!("the cart is empty");
        }
        m.begin(2).await;
        Ok(())
    })
}

#[tokio::test]
async fn a_panic_fails_the_step_with_its_message_and_location() {
    let def = fake_scenario("panics", &["Open", "Pay"], panics_in_step_one, |_| {});
    let r = run(def, 2, EvidenceMode::Off).await;
    let o = r.sink.outcomes();
    assert_eq!(o[0].status, StepStatus::Fail);
    assert_eq!(o[0].error.as_deref(), Some("panicked: the cart is empty"));
    assert!(
        o[0].location
            .as_deref()
            .is_some_and(|l| l.contains("runner/tests.rs:")),
        "{:?}",
        o[0].location
    );
    assert_eq!(o[1].reason.as_deref(), Some("step 01 failed"));
}

fn hangs_in_step_two(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        m.begin(2).await;
        tokio::time::sleep(Duration::from_secs(60)).await;
        m.begin(3).await;
        Ok(())
    })
}

#[tokio::test]
async fn a_step_limit_fails_the_step_and_names_where_it_was_set() {
    let def = fake_scenario(
        "slowstep",
        &["Open", "Wait", "Close"],
        hangs_in_step_two,
        |d| {
            with_step_timeout(d, 2, Duration::from_millis(50));
            d.step_timeout = Some(Duration::from_secs(30));
        },
    );
    let started = Instant::now();
    let r = run(def, 3, EvidenceMode::Off).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    let o = r.sink.outcomes();
    assert_eq!(o[1].status, StepStatus::Fail);
    assert_eq!(
        o[1].error.as_deref(),
        Some("step timed out after 50ms (the step's limit, set by step!(…, timeout = …))")
    );
    assert_eq!(o[1].location.as_deref(), Some("tests/fake.rs:11"));
    assert_eq!(o[2].reason.as_deref(), Some("step 02 failed"));
}

#[tokio::test]
async fn a_scenario_limit_fails_the_running_step_and_says_it_was_the_whole_scenario() {
    let def = fake_scenario(
        "slowall",
        &["Open", "Wait", "Close"],
        hangs_in_step_two,
        |d| {
            d.timeout = Some(Duration::from_millis(80));
        },
    );
    let r = run(def, 3, EvidenceMode::Off).await;
    let o = r.sink.outcomes();
    assert_eq!(o[0].status, StepStatus::Pass);
    assert_eq!(
        o[1].error.as_deref(),
        Some(
            "scenario timed out after 80ms (the whole scenario's limit, set by #[scenario(timeout = …)])"
        )
    );
    assert_eq!(r.result().failed_step.as_deref(), Some("02"));
}

#[tokio::test]
async fn steps_after_the_last_selected_one_are_skipped_as_not_selected() {
    let def = fake_scenario("partial", &["One", "Two", "Three"], three_steps, |_| {});
    let r = run(def, 1, EvidenceMode::Off).await;
    let not_selected = Some("not selected by the test filter".to_string());
    assert_eq!(
        statuses(&r),
        [
            ("01".into(), StepStatus::Pass, None),
            ("02".into(), StepStatus::Skipped, not_selected.clone()),
            ("03".into(), StepStatus::Skipped, not_selected),
        ]
    );
    assert_eq!(r.result().status, RunStatus::Pass);
}

fn returns_after_step_one(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        crate::__private::steps(&s).begin(1).await;
        Ok(())
    })
}

fn fails_before_any_step(_: Scenario) -> ScenarioFuture {
    Box::pin(async move { Err(Error::msg("no app")) })
}

#[tokio::test]
async fn an_early_return_and_a_failure_before_the_first_step_are_told_apart() {
    let def = fake_scenario("early", &["One", "Two"], returns_after_step_one, |_| {});
    let r = run(def, 2, EvidenceMode::Off).await;
    assert_eq!(
        statuses(&r)[1],
        (
            "02".into(),
            StepStatus::Skipped,
            Some("the scenario returned before this step".into())
        )
    );
    assert_eq!(r.result().status, RunStatus::Pass);

    let def = fake_scenario("nostart", &["One", "Two"], fails_before_any_step, |_| {});
    let r = run(def, 2, EvidenceMode::Off).await;
    let o = r.sink.outcomes();
    assert_eq!(
        (o[0].status, o[0].error.as_deref()),
        (StepStatus::Fail, Some("no app"))
    );
    assert_eq!(o[1].reason.as_deref(), Some("step 01 failed"));
    assert_eq!(r.result().failed_step.as_deref(), Some("01"));
}

/// A probe whose state is a counter, with a log of what happened during each
/// step and a failure extra.
struct CountingProbe(std::sync::atomic::AtomicUsize);

impl Probe for CountingProbe {
    fn prefix(&self) -> &str {
        "fake"
    }
    fn snapshot(&self) -> BoxFuture<'_, Result<Snapshot, Error>> {
        let n = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async move {
            Ok(Snapshot {
                state: Some(Item::new("state", "json", "custom", format!("{n}").into())),
                during: vec![Item::new("log", "txt", "console_log", b"line".to_vec())],
            })
        })
    }
    fn on_failure(&self) -> BoxFuture<'_, Result<Vec<Item>, Error>> {
        Box::pin(async { Ok(vec![Item::new("extra", "txt", "text", b"why".to_vec())]) })
    }
}

fn probed_fails_in_step_two(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        s.probe(CountingProbe(Default::default())).await;
        s.attach_text("note", "hello")?;
        m.begin(2).await;
        Err(Error::msg("broken"))?;
        Ok(())
    })
}

#[tokio::test]
async fn probes_capture_at_boundaries_and_a_failure_leaves_its_evidence() {
    let def = fake_scenario(
        "probed",
        &["Open", "Break"],
        probed_fails_in_step_two,
        |_| {},
    );
    let r = run(def, 2, EvidenceMode::All).await;
    assert_eq!(
        r.files(1),
        [
            "fake-after.json",
            "fake-before.json",
            "fake-log.txt",
            "note.txt"
        ]
    );
    assert_eq!(
        r.files(2),
        [
            "fake-after.json",
            "fake-before.json",
            "fake-error.json",
            "fake-extra.txt",
            "fake-log.txt"
        ]
    );
    // The run lists what is on disk, and every file reached the consumers.
    let result = r.result();
    assert_eq!(result.steps[1].evidence_files, r.files(2));
    let mut told: Vec<(String, String)> = r
        .sink
        .seen()
        .into_iter()
        .filter_map(|s| match s {
            Seen::Evidence(id, f) => Some((id, f)),
            _ => None,
        })
        .collect();
    told.sort();
    told.dedup();
    let mut on_disk: Vec<(String, String)> = (1..=2)
        .flat_map(|n| r.files(n).into_iter().map(move |f| (format!("{n:02}"), f)))
        .collect();
    on_disk.sort();
    assert_eq!(told, on_disk);
    // The failure's state is the latest capture (before = 1, error = 2).
    let read = |f: &str| {
        let dir = r
            .store
            .scenario(&r.slug)
            .run(&r.run)
            .step(&StepId::from_index(2).unwrap())
            .evidence();
        std::fs::read_to_string(dir.join(f)).unwrap()
    };
    assert_eq!(
        (read("fake-before.json"), read("fake-error.json")),
        ("1".into(), "2".into())
    );
}

#[tokio::test]
async fn on_failure_mode_captures_only_the_failure() {
    let def = fake_scenario(
        "onfail",
        &["Open", "Break"],
        probed_fails_in_step_two,
        |_| {},
    );
    let r = run(def, 2, EvidenceMode::OnFailure).await;
    assert_eq!(r.files(1), ["note.txt"]);
    assert_eq!(
        r.files(2),
        [
            "fake-after.json",
            "fake-error.json",
            "fake-extra.txt",
            "fake-log.txt"
        ]
    );
}

/// A probe whose state is large (4 MiB), so that writing it takes a while.
struct BigProbe;

const BIG: usize = 4 << 20;

impl Probe for BigProbe {
    fn prefix(&self) -> &str {
        "big"
    }
    fn snapshot(&self) -> BoxFuture<'_, Result<Snapshot, Error>> {
        Box::pin(async move {
            Ok(Snapshot {
                state: Some(Item::new("state", "bin", "custom", vec![7u8; BIG])),
                during: vec![],
            })
        })
    }
}

/// On every `EvidenceCaptured`, what the announced file holds on disk then:
/// its size and whether its sidecar is there.
#[derive(Default)]
struct DiskCheckingSink {
    found: Mutex<Vec<(String, Option<u64>, bool)>>,
}

impl EventSink for DiskCheckingSink {
    fn on_event(&self, event: &Event<'_>) {
        if let Event::EvidenceCaptured { path, .. } = event {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let size = std::fs::metadata(path).ok().map(|m| m.len());
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let sidecar = path.with_file_name(format!("{stem}.meta.json")).is_file();
            self.found.lock().unwrap().push((name, size, sidecar));
        }
    }
}

fn probed_big(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        s.probe(BigProbe).await;
        m.begin(2).await;
        s.attach_bytes("note", "bin", &vec![1u8; BIG])?;
        Ok(())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consumer_told_of_evidence_finds_the_file_whole_on_disk() {
    let def = fake_scenario("whole", &["Open", "Look"], probed_big, |_| {});
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join(".harshJudge"));
    store.ensure_initialized("unit", "").unwrap();
    let handle = crate::harness::exec::prepare(&store, def).unwrap();
    let sink = Arc::new(DiskCheckingSink::default());
    let limits = Limits {
        step_default: None,
        scenario_default: None,
        evidence: EvidenceMode::All,
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
        2,
        limits,
        None,
    );
    execute(shared).await;
    let found = sink.found.lock().unwrap().clone();
    // Step 1: big-before, big-after; step 2: big-before, note, big-after.
    assert_eq!(found.len(), 5, "{found:?}");
    for (name, size, sidecar) in &found {
        assert_eq!(
            (*size, *sidecar),
            (Some(BIG as u64), true),
            "{name} was announced before it was whole on disk"
        );
    }
}

/// A store writer on a fresh run of a two-step scenario, passing events on to
/// a recording sink.
fn writer() -> (tempfile::TempDir, StoreWriter, Arc<RecordingSink>) {
    let def = fake_scenario("written", &["One", "Two"], three_steps, |_| {});
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join(".harshJudge"));
    store.ensure_initialized("unit", "").unwrap();
    let handle = crate::harness::exec::prepare(&store, def).unwrap();
    let sink = Arc::new(RecordingSink::default());
    let writer = StoreWriter::new(handle, None, sink.clone());
    (dir, writer, sink)
}

#[tokio::test]
async fn attachments_and_probe_evidence_reach_the_store_only_through_the_event_stream() {
    let (_dir, writer, sink) = writer();
    let (slug, step) = (writer.slug().clone(), StepId::from_index(1).unwrap());
    let started = Event::StepStarted {
        slug: &slug,
        id: &step,
        title: "One",
    };
    writer.emit(&started).unwrap();
    let produced = |name: &str, urgency| {
        let file_name = EvidenceName::new(name).unwrap();
        writer.emit(&Event::EvidenceProduced {
            slug: &slug,
            id: &step,
            file: NewEvidence {
                name: &file_name,
                ext: "txt",
                kind: "text",
                bytes: name.as_bytes(),
            },
            urgency,
        })
    };
    // An attachment is on disk, and announced, when `emit` returns.
    let Ok(Recorded::Written(path)) = produced("note", Urgency::Now) else {
        panic!("an attachment is written at once");
    };
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "note");
    assert_eq!(
        sink.seen().last(),
        Some(&Seen::Evidence("01".into(), "note.txt".into()))
    );
    // A probe's capture is announced once it landed, before the run finished.
    assert_eq!(
        produced("probe", Urgency::Background).unwrap(),
        Recorded::Passed
    );
    writer.finish(Ending::Completed).await;
    let seen = sink.seen();
    let announced = seen
        .iter()
        .position(|s| *s == Seen::Evidence("01".into(), "probe.txt".into()))
        .expect("the probe's file is announced");
    assert!(
        matches!(seen.last(), Some(Seen::RunFinished(Some(_), None))),
        "{seen:?}"
    );
    assert!(announced < seen.len() - 1);
    // The consumers after the writer never hear evidence that is not on disk.
    assert!(!seen.iter().any(|s| matches!(s, Seen::Produced(..))));
    // A final run takes no more evidence, and nobody is told of any.
    let refused = produced("late", Urgency::Now);
    assert!(
        matches!(refused, Err(StoreError::RunCompleted { .. })),
        "{refused:?}"
    );
    assert_eq!(sink.seen().len(), seen.len());
}

/// Evidence numbers (`popup-N`, `download-N`) are the scenario's, not the
/// process's: each scenario counts from 1, per kind, whoever else records
/// in the same process at the same time.
#[test]
fn evidence_numbers_are_per_scenario_and_kind() {
    use harshjudge_browser::ScenarioEvidence;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join(".harshJudge"));
    store.ensure_initialized("unit", "").unwrap();
    let def = fake_scenario("numbered", &["one"], |_| Box::pin(async { Ok(()) }), |_| {});
    let shared = |store: &Store| {
        let limits = Limits {
            step_default: None,
            scenario_default: None,
            evidence: EvidenceMode::All,
            full_page: false,
            trace_screenshots: false,
            console: Default::default(),
            tracing: Default::default(),
            trace_mode: Default::default(),
            attempt: 1,
        };
        Shared::new(
            def,
            crate::harness::exec::prepare(store, def).unwrap(),
            String::new(),
            Arc::default(),
            Arc::new(RecordingSink::default()),
            1,
            limits,
            None,
        )
    };
    let (one, two) = (shared(&store), shared(&store));
    assert_eq!(one.next_number("popup"), 1);
    assert_eq!(one.next_number("popup"), 2);
    assert_eq!(two.next_number("popup"), 1, "another scenario counts anew");
    assert_eq!(one.next_number("download"), 1, "each kind counts anew");
    assert_eq!(one.next_number("popup"), 3);
}

/// Step 1: two soft failures, then the step's code goes on (its note is
/// attached after them); step 2 would pass.
fn two_soft_failures_in_step_one(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        s.probe(CountingProbe(Default::default())).await;
        let at = std::panic::Location::caller();
        harshjudge_browser::soft::settle(
            true,
            at,
            Err::<(), _>(Error::msg("expected 3 items\n  received: 2")),
        )
        .await?;
        harshjudge_browser::soft::settle(
            true,
            at,
            Err::<(), _>(Error::msg("expected the total 42")),
        )
        .await?;
        s.attach_text("after-the-soft-ones", "still running")?;
        m.begin(2).await;
        Ok(())
    })
}

#[tokio::test]
async fn soft_failures_let_the_step_go_on_then_fail_it_listing_each_with_evidence() {
    let def = fake_scenario(
        "soft",
        &["Check the cart", "Pay"],
        two_soft_failures_in_step_one,
        |_| {},
    );
    let r = run(def, 2, EvidenceMode::All).await;
    let o = r.sink.outcomes();
    assert_eq!(o[0].status, StepStatus::Fail);
    let error = o[0].error.clone().unwrap();
    assert!(
        error.starts_with("2 soft assertions failed:\n  1. at "),
        "{error}"
    );
    assert!(
        error.contains(": expected 3 items\n       received: 2\n  2. at "),
        "{error}"
    );
    assert!(error.ends_with(": expected the total 42"), "{error}");
    // Located at the first soft failure, not at the step.
    assert!(
        o[0].location
            .as_deref()
            .unwrap()
            .contains("runner/tests.rs"),
        "{:?}",
        o[0].location
    );
    assert_eq!(o[1].reason.as_deref(), Some("step 01 failed"));
    // The step went on after them, and each left the failure's evidence.
    let files = r.files(1);
    for f in [
        "after-the-soft-ones.txt",
        "soft-1-fake-extra.txt",
        "soft-2-fake-extra.txt",
    ] {
        assert!(files.iter().any(|x| x == f), "{f} in {files:?}");
    }
    assert_eq!(r.result().failed_step.as_deref(), Some("01"));
}

/// A soft failure, then a hard one in the same step.
fn soft_then_hard(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        let at = std::panic::Location::caller();
        harshjudge_browser::soft::settle(
            true,
            at,
            Err::<(), _>(Error::msg("the banner is missing")),
        )
        .await?;
        Err(Error::msg("the page is gone"))?;
        Ok(())
    })
}

#[tokio::test]
async fn a_hard_failure_after_soft_ones_tells_them_first() {
    let def = fake_scenario("softhard", &["Check"], soft_then_hard, |_| {});
    let r = run(def, 1, EvidenceMode::Off).await;
    let o = r.sink.outcomes();
    let error = o[0].error.clone().unwrap();
    assert!(
        error.starts_with("1 soft assertion failed:\n  1. at ")
            && error.contains("the banner is missing\nthen the page is gone"),
        "{error}"
    );
}

/// Soft failures in the last step fail it when the scenario returns.
fn soft_in_the_last_step(s: Scenario) -> ScenarioFuture {
    Box::pin(async move {
        let m = crate::__private::steps(&s);
        m.begin(1).await;
        m.begin(2).await;
        let at = std::panic::Location::caller();
        harshjudge_browser::soft::settle(true, at, Err::<(), _>(Error::msg("late"))).await?;
        Ok(())
    })
}

#[tokio::test]
async fn soft_failures_of_the_last_step_fail_it_at_the_scenarios_end() {
    let def = fake_scenario("softlast", &["One", "Two"], soft_in_the_last_step, |_| {});
    let r = run(def, 2, EvidenceMode::Off).await;
    let o = r.sink.outcomes();
    assert_eq!(o[0].status, StepStatus::Pass);
    assert_eq!(o[1].status, StepStatus::Fail);
    assert!(o[1].error.as_deref().unwrap().contains("late"), "{o:?}");
}
