//! Store tests: golden files for every file kind (times and ids redacted),
//! locking, atomicity, validation, corrupt input.

use super::*;
use std::sync::Arc;

fn store() -> (tempfile::TempDir, Store) {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::new(tmp.path().join(".harshJudge"));
    (tmp, store)
}

fn slug(s: &str) -> Slug {
    Slug::new(s).unwrap()
}

/// Replaces ISO timestamps and generated run ids so golden files are stable.
fn redact(text: &str) -> String {
    let mut out = String::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // 2026-11-22T11:25:48.115Z
        if i + 24 <= bytes.len() && is_iso(&text[i..i + 24]) {
            out.push_str("[time]");
            i += 24;
        } else if i + 26 <= bytes.len() && is_run_id(&text[i..i + 26]) {
            out.push_str("[runId]");
            i += 26;
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn is_iso(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 24
        && b[4] == b'-'
        && b[10] == b'T'
        && b[19] == b'.'
        && b[23] == b'Z'
        && b[0].is_ascii_digit()
}

fn is_run_id(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 26
        && b[8] == b'T'
        && b[18] == b'Z'
        && b[19] == b'-'
        && b[..8].iter().all(u8::is_ascii_digit)
}

fn read(p: impl AsRef<std::path::Path>) -> String {
    let text = redact(&std::fs::read_to_string(p).unwrap());
    text.lines()
        .map(|l| {
            if l.starts_with("pid: ") {
                "pid: [pid]"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn spec(steps: &[&str]) -> ScenarioSpec {
    ScenarioSpec {
        title: "User Login: Flow".into(),
        steps: steps.iter().map(|s| s.to_string()).collect(),
        tags: Some(vec!["auth".into(), "smoke".into()]),
        starred: None,
        estimated_duration: Some(45.0),
    }
}

#[test]
fn init_writes_config_and_gitignore_once() {
    let (_t, store) = store();
    store
        .ensure_initialized("Demo App", "http://localhost:3000")
        .unwrap();
    insta::assert_snapshot!("config_yaml", read(store.config_path()));
    let gitignore = std::fs::read_to_string(store.dir().join(".gitignore")).unwrap();
    // The original's file (206 bytes, ending with its dashboard state), then ours.
    assert!(gitignore[..206].ends_with("# Dashboard state (local only)\n.dashboard-state.json\n"));
    assert_eq!(gitignore, GITIGNORE);
    // A second init keeps the first config.
    store.ensure_initialized("Other", "").unwrap();
    assert_eq!(store.read_config().unwrap().project_name, "Demo App");
    let cfg: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(store.config_path()).unwrap()).unwrap();
    assert_eq!(cfg["version"], serde_json::Value::String("1.0".into()));
}

#[test]
fn meta_and_step_files_golden() {
    let (_t, store) = store();
    let s = slug("login-flow");
    let docs = vec![StepDoc {
        description: "Open it".into(),
        code: Some((
            "rust".into(),
            "{\n    page.goto(\"/login\").await?;\n}".into(),
        )),
        ..Default::default()
    }];
    store
        .scenario(&s)
        .upsert(
            &spec(&[
                "Navigate to login",
                "Enter User's Email & Password!",
                "Submit",
            ]),
            &docs,
        )
        .unwrap();
    insta::assert_snapshot!("meta_yaml_created", read(store.scenario(&s).meta_path()));
    let steps = store.scenario(&s).path().join("steps");
    insta::assert_snapshot!(
        "step_md_with_code",
        read(steps.join("01-navigate-to-login.md"))
    );
    insta::assert_snapshot!(
        "step_md_placeholder",
        read(steps.join("02-enter-users-email-password.md"))
    );
    // YAML 1.1 readers get strings back: ids, not numbers.
    let v: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(store.scenario(&s).meta_path()).unwrap())
            .unwrap();
    assert_eq!(v["steps"][0]["id"], serde_json::Value::String("01".into()));
}

#[test]
fn upsert_keeps_star_stats_and_unknown_keys_and_removes_orphans() {
    let (_t, store) = store();
    let s = slug("flow");
    store
        .scenario(&s)
        .upsert(&spec(&["One", "Two", "Three"]), &[])
        .unwrap();
    store
        .update_meta(&s, |doc, _| {
            doc.set("starred", true);
            doc.set("custom", "kept");
        })
        .unwrap();
    store
        .scenario(&s)
        .record_completion(RunStatus::Pass, 1000)
        .unwrap();
    let mut again = spec(&["One", "Three renamed"]);
    again.tags = None;
    let meta = store.scenario(&s).upsert(&again, &[]).unwrap();
    assert!(meta.starred);
    assert_eq!(meta.tags, vec!["auth", "smoke"]);
    assert_eq!(meta.total_runs, 1);
    assert_eq!(meta.steps.len(), 2);
    let text = std::fs::read_to_string(store.scenario(&s).meta_path()).unwrap();
    assert!(text.contains("custom: kept"), "{text}");
    let mut files: Vec<String> = std::fs::read_dir(store.scenario(&s).path().join("steps"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, vec!["01-one.md", "02-three-renamed.md"]);
}

#[test]
fn run_files_golden() {
    let (_t, store) = store();
    let s = slug("login-flow");
    store.ensure_initialized("Demo", "").unwrap();
    store
        .scenario(&s)
        .upsert(&spec(&["Open", "Pay"]), &[])
        .unwrap();
    let mut run =
        crate::recorder::RunHandle::start(&store, &s, vec!["Open".into(), "Pay".into()]).unwrap();
    let dir = run.dir();
    insta::assert_snapshot!("result_json_started", read(dir.join("result.json")));
    let s1 = StepId::new("01").unwrap();
    run.begin_step(&s1).unwrap();
    insta::assert_snapshot!("skill_state_running", read(dir.join("skill-state.yaml")));
    let name = EvidenceName::new("cart").unwrap();
    let mut md = serde_json::Map::new();
    md.insert("items".into(), 2.into());
    run.record_evidence(
        &s1,
        NewEvidence {
            name: &name,
            ext: "json",
            kind: "custom",
            bytes: b"{\"items\": 2}",
        },
        md,
    )
    .unwrap();
    insta::assert_snapshot!(
        "evidence_sidecar",
        read(dir.join("step-01/evidence/cart.meta.json"))
    );
    run.complete_step(crate::recorder::StepRecord {
        id: s1,
        status: StepStatus::Pass,
        duration_ms: 12,
        error: None,
        location: None,
        summary: None,
    })
    .unwrap();
    insta::assert_snapshot!("result_json_running", read(dir.join("result.json")));
    let s2 = StepId::new("02").unwrap();
    run.begin_step(&s2).unwrap();
    run.complete_step(crate::recorder::StepRecord {
        id: s2,
        status: StepStatus::Fail,
        duration_ms: 30,
        error: Some("payment refused: card expired".into()),
        location: Some("tests/shop.rs:20:9".into()),
        summary: None,
    })
    .unwrap();
    let stats = run.complete(Some(2500)).unwrap();
    assert_eq!(
        stats,
        Stats {
            total_runs: 1,
            pass_count: 0,
            fail_count: 1,
            avg_duration: 2500
        }
    );
    insta::assert_snapshot!("result_json_final", read(dir.join("result.json")));
    insta::assert_snapshot!("skill_state_final", read(dir.join("skill-state.yaml")));
    insta::assert_snapshot!("meta_yaml_after_run", read(store.scenario(&s).meta_path()));
    assert!(
        dir.join("evidence").is_dir(),
        "the original's v1 evidence folder exists"
    );
    // A completed run takes nothing more.
    let err = run.record_evidence(
        &StepId::new("01").unwrap(),
        NewEvidence {
            name: &EvidenceName::new("x").unwrap(),
            ext: "txt",
            kind: "text",
            bytes: b"x",
        },
        Default::default(),
    );
    assert!(matches!(err, Err(StoreError::RunCompleted { .. })));
    // Files parse back.
    let back = store.scenario(&s).run(run.id()).result().unwrap().unwrap();
    assert_eq!(back.failed_step.as_deref(), Some("02"));
    assert_eq!(back.status, RunStatus::Fail);
    assert_eq!(
        store
            .scenario(&s)
            .run(run.id())
            .skill_state()
            .unwrap()
            .unwrap()
            .current_phase,
        Phase::Completed
    );
}

#[test]
fn average_duration_rounds_like_javascript() {
    let (_t, store) = store();
    let s = slug("avg");
    store.scenario(&s).upsert(&spec(&["A"]), &[]).unwrap();
    store
        .scenario(&s)
        .record_completion(RunStatus::Pass, 1000)
        .unwrap();
    store
        .scenario(&s)
        .record_completion(RunStatus::Pass, 1000)
        .unwrap();
    let st = store
        .scenario(&s)
        .record_completion(RunStatus::Fail, 2500)
        .unwrap();
    assert_eq!(
        st,
        Stats {
            total_runs: 3,
            pass_count: 2,
            fail_count: 1,
            avg_duration: 1500
        }
    );
    let st = store
        .scenario(&s)
        .record_completion(RunStatus::Pass, 1)
        .unwrap();
    assert_eq!(st.avg_duration, 1125); // (1500*3+1)/4 = 1125.25
}

#[test]
fn concurrent_completions_lose_no_count() {
    let (_t, store) = store();
    let s = slug("race");
    store.scenario(&s).upsert(&spec(&["A"]), &[]).unwrap();
    let store = Arc::new(store);
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let store = store.clone();
            let s = s.clone();
            std::thread::spawn(move || {
                for _ in 0..25 {
                    let st = if i % 2 == 0 {
                        RunStatus::Pass
                    } else {
                        RunStatus::Fail
                    };
                    store.scenario(&s).record_completion(st, 10).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let meta = store.scenario(&s).meta().unwrap().unwrap();
    assert_eq!(
        (meta.total_runs, meta.pass_count, meta.fail_count),
        (200, 100, 100)
    );
}

#[test]
fn run_numbers_are_allocated_and_stored() {
    let (_t, store) = store();
    let s = slug("numbers");
    store.scenario(&s).upsert(&spec(&["A"]), &[]).unwrap();
    let a = crate::recorder::RunHandle::start(&store, &s, vec!["A".into()]).unwrap();
    let b = crate::recorder::RunHandle::start(&store, &s, vec!["A".into()]).unwrap();
    assert_eq!(a.result().run_number, Some(1));
    assert_eq!(b.result().run_number, Some(2));
    assert_eq!(
        store.scenario(&s).meta().unwrap().unwrap().last_run_number,
        2
    );
    assert_eq!(store.find_run(b.id()).unwrap(), Some(s));
}

#[test]
fn corrupt_meta_is_an_error_naming_the_file() {
    let (_t, store) = store();
    let s = slug("broken");
    std::fs::create_dir_all(store.scenario(&s).path()).unwrap();
    for (content, needle) in [
        ("title: [unclosed\n", "not valid YAML"),
        ("- a\n- b\n", "expected a mapping"),
        ("totalRuns: many\n", "unexpected content"),
        ("", "empty"),
    ] {
        std::fs::write(store.scenario(&s).meta_path(), content).unwrap();
        let err = store.scenario(&s).meta().unwrap_err().to_string();
        assert!(
            err.contains("meta.yaml") && err.contains(needle),
            "{content:?}: {err}"
        );
        let err = store
            .scenario(&s)
            .record_completion(RunStatus::Pass, 1)
            .unwrap_err()
            .to_string();
        assert!(err.contains(needle), "{err}");
        assert_eq!(
            std::fs::read_to_string(store.scenario(&s).meta_path()).unwrap(),
            content,
            "nothing overwritten"
        );
    }
}

#[test]
fn original_files_are_read() {
    let (_t, store) = store();
    let s = slug("login-flow");
    std::fs::create_dir_all(store.scenario(&s).path()).unwrap();
    // As the original writes it (js-yaml), plus a legacy v1 key.
    std::fs::write(
        store.scenario(&s).meta_path(),
        "title: 'User Login: Flow'\nslug: login-flow\nstarred: false\ntags:\n  - auth\nestimatedDuration: 45\nsteps:\n  - id: '01'\n    title: Navigate\n    file: 01-navigate.md\ntotalRuns: 3\npassCount: 2\nfailCount: 1\nlastRun: '2026-11-22T11:25:53.848Z'\nlastResult: fail\navgDuration: 1500.4\nlastStatus: never_run\n",
    )
    .unwrap();
    let m = store.scenario(&s).meta().unwrap().unwrap();
    assert_eq!(
        (m.total_runs, m.avg_duration, m.steps[0].id.as_str()),
        (3, 1500, "01")
    );
    let run = RunId::new("-Qw1r6J3Nc").unwrap();
    std::fs::create_dir_all(store.scenario(&s).run(&run).path()).unwrap();
    std::fs::write(
        store.scenario(&s).run(&run).path().join("result.json"),
        r#"{"runId":"-Qw1r6J3Nc","scenarioSlug":"login-flow","status":"fail","startedAt":"2026-11-22T11:25:52.794Z","completedAt":"2026-11-22T11:25:53.842Z","duration":2500,"steps":[{"id":"01","status":"pass","duration":1200,"error":null,"evidenceFiles":["before.png"],"summary":"ok"}],"failedStep":null,"errorMessage":null}"#,
    )
    .unwrap();
    let r = store.scenario(&s).run(&run).result().unwrap().unwrap();
    assert_eq!(r.steps[0].evidence_files, vec!["before.png"]);
    assert_eq!(r.run_number, None);
}

#[test]
fn atomic_write_leaves_no_temporary_files() {
    let (_t, store) = store();
    let p = store.dir().join("a/b/file.json");
    fsio::write_atomic(&p, b"one").unwrap();
    fsio::write_atomic(&p, b"two").unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"two");
    let names: Vec<_> = std::fs::read_dir(p.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn evidence_rejects_bad_extensions_and_lists_sorted() {
    let (_t, store) = store();
    let (s, r, st) = (
        slug("e"),
        RunId::new("r1").unwrap(),
        StepId::new("03").unwrap(),
    );
    let n = |x: &str| EvidenceName::new(x).unwrap();
    assert!(
        store
            .scenario(&s)
            .run(&r)
            .write_evidence(
                &st,
                NewEvidence {
                    name: &n("a"),
                    ext: "../x",
                    kind: "custom",
                    bytes: b""
                },
                Default::default()
            )
            .is_err()
    );
    store
        .scenario(&s)
        .run(&r)
        .write_evidence(
            &st,
            NewEvidence {
                name: &n("b"),
                ext: "txt",
                kind: "text",
                bytes: b"1",
            },
            Default::default(),
        )
        .unwrap();
    store
        .scenario(&s)
        .run(&r)
        .write_evidence(
            &st,
            NewEvidence {
                name: &n("B"),
                ext: "png",
                kind: "screenshot",
                bytes: b"1",
            },
            Default::default(),
        )
        .unwrap();
    store
        .scenario(&s)
        .run(&r)
        .write_evidence(
            &st,
            NewEvidence {
                name: &n("a"),
                ext: "json",
                kind: "custom",
                bytes: b"{}",
            },
            Default::default(),
        )
        .unwrap();
    assert_eq!(
        store.scenario(&s).run(&r).list_evidence(&st).unwrap(),
        vec!["B.png", "a.json", "b.txt"]
    );
}

/// Completed runs of `s` that the statistics must count: final, not interrupted.
fn completed_runs(store: &Store, s: &Slug) -> u64 {
    store
        .scenario(s)
        .runs()
        .unwrap()
        .iter()
        .filter_map(|r| store.scenario(s).run(r).result().unwrap())
        .filter(|r| r.status != RunStatus::Running && !r.interrupted)
        .count() as u64
}

/// Issue 11 point 7: the recount after a crash (a run whose process died
/// between writing its final result and counting it) races 8 writers that
/// complete runs; no completed run may be lost or counted twice.
#[test]
fn recount_after_a_crash_racing_8_writers_loses_nothing() {
    const ROUNDS: usize = 50;
    const WRITERS: usize = 8;
    const RUNS: usize = 3;
    const HISTORY: usize = 40;
    let mut lost_rounds = 0;
    let (mut lost_runs, mut extra_runs) = (0i64, 0i64);
    for round in 0..ROUNDS {
        let (_t, store) = store();
        let s = slug("race");
        store.scenario(&s).upsert(&spec(&["A"]), &[]).unwrap();
        // A history of completed runs, counted.
        for _ in 0..HISTORY {
            let id = RunId::generate();
            let mut r = store.scenario(&s).run(&id).start(&now_iso()).unwrap();
            r.status = RunStatus::Pass;
            r.completed_at = Some(now_iso());
            store.scenario(&s).run(&id).write_result(&r).unwrap();
        }
        store.scenario(&s).recount_stats().unwrap();
        // The crash: a run's final result is on disk, its count is not.
        let crashed = crate::recorder::RunHandle::start(&store, &s, vec!["A".into()]).unwrap();
        let mut r = crashed.result().clone();
        r.status = RunStatus::Pass;
        r.completed_at = Some(now_iso());
        r.duration = 5;
        store
            .scenario(&s)
            .run(crashed.id())
            .write_result(&r)
            .unwrap();
        let store = Arc::new(store);
        let start = Arc::new(std::sync::Barrier::new(WRITERS + 1));
        let writers: Vec<_> = (0..WRITERS)
            .map(|i| {
                let (store, s, start) = (store.clone(), s.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    for _ in 0..RUNS {
                        let mut run =
                            crate::recorder::RunHandle::start(&store, &s, vec!["A".into()])
                                .unwrap();
                        run.complete_step(crate::recorder::StepRecord {
                            id: StepId::new("01").unwrap(),
                            status: if i % 2 == 0 {
                                StepStatus::Pass
                            } else {
                                StepStatus::Fail
                            },
                            duration_ms: 1,
                            error: None,
                            location: None,
                            summary: None,
                        })
                        .unwrap();
                        run.complete(Some(10)).unwrap();
                    }
                })
            })
            .collect();
        // The next start recounts while the writers run.
        start.wait();
        // (at least once, and never after the writers are done: a recount
        // that follows them would hide what a racing one lost).
        loop {
            store.scenario(&s).recount_stats().unwrap();
            if writers.iter().all(|w| w.is_finished()) {
                break;
            }
        }
        for w in writers {
            w.join().unwrap();
        }
        let meta = store.scenario(&s).meta().unwrap().unwrap();
        let done = completed_runs(&store, &s);
        assert_eq!(done, (HISTORY + 1 + WRITERS * RUNS) as u64, "round {round}");
        let diff = done as i64 - meta.total_runs as i64;
        if diff != 0 {
            lost_rounds += 1;
            if diff > 0 {
                lost_runs += diff;
            } else {
                extra_runs -= diff;
            }
        }
        assert_eq!(
            meta.pass_count + meta.fail_count,
            meta.total_runs,
            "round {round}"
        );
    }
    eprintln!(
        "recount race: {lost_rounds} of {ROUNDS} rounds miscounted ({lost_runs} completed runs lost, {extra_runs} counted twice)"
    );
    assert_eq!(
        (lost_rounds, lost_runs, extra_runs),
        (0, 0, 0),
        "rounds that lost (or double-counted) completed runs"
    );
}

/// Issue 11 point 8: a reader never sees a run folder without its
/// `result.json` and `skill-state.yaml` (it is built under a temporary name
/// and renamed).
#[test]
fn a_run_appears_with_its_files() {
    let (_t, store) = store();
    let s = slug("appear");
    store.scenario(&s).upsert(&spec(&["A"]), &[]).unwrap();
    let runs = store.scenario(&s).path().join("runs");
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let (runs, stop) = (runs.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut partial = std::collections::BTreeSet::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let Ok(rd) = std::fs::read_dir(&runs) else {
                    continue;
                };
                for e in rd.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if name.starts_with('.') {
                        continue;
                    }
                    let p = e.path();
                    if !p.join("result.json").is_file() || !p.join("skill-state.yaml").is_file() {
                        partial.insert(name);
                    }
                }
            }
            partial
        })
    };
    for _ in 0..300 {
        crate::recorder::RunHandle::start(&store, &s, vec!["A".into()]).unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let partial = watcher.join().unwrap();
    assert!(
        partial.is_empty(),
        "{} of 300 run folders were seen without result.json or skill-state.yaml",
        partial.len()
    );
    assert_eq!(store.scenario(&s).runs().unwrap().len(), 300);
    assert_eq!(
        store.scenario(&s).meta().unwrap().unwrap().last_run_number,
        300,
        "temporary folders are not counted as runs"
    );
}

/// Issue 11 point 9: an evidence file is never seen without its sidecar.
#[test]
fn evidence_never_appears_without_its_sidecar() {
    let (_t, store) = store();
    let (s, r, st) = (
        slug("pair"),
        RunId::new("r1").unwrap(),
        StepId::new("01").unwrap(),
    );
    let dir = store.scenario(&s).run(&r).step(&st).evidence();
    std::fs::create_dir_all(&dir).unwrap();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let (dir, stop) = (dir.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut alone = std::collections::BTreeSet::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for e in std::fs::read_dir(&dir).unwrap().flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if name.starts_with('.') || name.ends_with(".meta.json") {
                        continue;
                    }
                    let stem = name.rsplit_once('.').unwrap().0;
                    if !dir.join(format!("{stem}.meta.json")).is_file() {
                        alone.insert(name);
                    }
                }
            }
            alone
        })
    };
    for i in 0..300 {
        let name = EvidenceName::new(format!("e{i}")).unwrap();
        store
            .scenario(&s)
            .run(&r)
            .write_evidence(
                &st,
                NewEvidence {
                    name: &name,
                    ext: "txt",
                    kind: "text",
                    bytes: &[b'x'; 4096],
                },
                Default::default(),
            )
            .unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let alone = watcher.join().unwrap();
    assert!(
        alone.is_empty(),
        "{} of 300 evidence files were seen without their sidecar",
        alone.len()
    );
}

/// A process id that is not running any more.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Issue 11 points 8 and 9: what a killed process left is repaired or
/// removed at the next start; what a live process is writing is left alone.
#[test]
fn leftovers_of_dead_processes_are_repaired_at_the_next_start() {
    let (_t, store) = store();
    let s = slug("left");
    store.scenario(&s).upsert(&spec(&["A", "B"]), &[]).unwrap();
    let dead = dead_pid();
    let me = std::process::id();
    // A finished run, killed between an evidence sidecar and its file.
    let mut done =
        crate::recorder::RunHandle::start(&store, &s, vec!["A".into(), "B".into()]).unwrap();
    let st = StepId::new("01").unwrap();
    done.record_evidence(
        &st,
        NewEvidence {
            name: &EvidenceName::new("kept").unwrap(),
            ext: "txt",
            kind: "text",
            bytes: b"k",
        },
        Default::default(),
    )
    .unwrap();
    done.complete(Some(1)).unwrap();
    let ev = done.evidence_dir(&st);
    std::fs::write(ev.join("lone.meta.json"), "{}").unwrap();
    // Temporary files of the dead process, and one of ours.
    let runs = store.scenario(&s).path().join("runs");
    let tmp_dir = runs.join(format!(".20261122T112548115Z-abcdef.{dead}-3.tmp"));
    std::fs::create_dir_all(tmp_dir.join("evidence")).unwrap();
    let dead_files = [
        ev.join(format!(".shot.png.{dead}-7.tmp")),
        done.dir().join(format!(".result.json.{dead}-0.tmp")),
        store
            .scenario(&s)
            .meta_path()
            .with_file_name(format!(".meta.yaml.{dead}-1.tmp")),
    ];
    for f in &dead_files {
        std::fs::write(f, "half").unwrap();
    }
    let live = ev.join(format!(".other.png.{me}-999.tmp"));
    std::fs::write(&live, "being written").unwrap();
    // A run folder without result.json (killed between mkdir and the first write).
    let bare = RunId::new("20261122T112548115Z-zzzzzz").unwrap();
    std::fs::create_dir_all(store.scenario(&s).run(&bare).path().join("evidence")).unwrap();
    let before = crate::recorder::run_state(&store, &bare).unwrap();
    assert!(before.resumable, "before the repair it looks resumable");

    let notes = crate::recorder::repair_leftovers(&store);

    assert!(!tmp_dir.exists(), "temporary run folder removed");
    for f in &dead_files {
        assert!(!f.exists(), "{} removed", f.display());
    }
    assert!(live.exists(), "a live process's temporary file is kept");
    assert!(!ev.join("lone.meta.json").exists(), "lone sidecar removed");
    assert!(ev.join("kept.meta.json").exists() && ev.join("kept.txt").exists());
    let after = crate::recorder::run_state(&store, &bare).unwrap();
    assert!(
        after.interrupted && !after.resumable && after.status == RunStatus::Fail,
        "{after:?}"
    );
    let r = store.scenario(&s).run(&bare).result().unwrap().unwrap();
    assert!(r.interrupted, "{r:?}");
    assert!(
        notes.iter().any(|n| n.contains("removed 5 temporary")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("had no result.json")),
        "{notes:?}"
    );
    // Nothing left to repair the second time.
    assert!(crate::recorder::repair_leftovers(&store).is_empty());
}

/// Issue 11 point 21: retention keeps the newest runs, a running run and the
/// newest failed one, and leaves the statistics as they were, also through a
/// later recount.
#[test]
fn pruning_keeps_the_newest_running_and_newest_failed_runs_and_the_statistics() {
    use crate::recorder::{RunHandle, StepRecord};
    let (_t, store) = store();
    let s = slug("keep");
    store.scenario(&s).upsert(&spec(&["A"]), &[]).unwrap();
    let step = |status| StepRecord {
        id: StepId::new("01").unwrap(),
        status,
        duration_ms: 1,
        error: None,
        location: None,
        summary: None,
    };
    // 1 fail, 2-5 pass, 6 interrupted, 7 pass, 8 running, 9-10 pass.
    let mut ids = vec![];
    for i in 1..=10 {
        std::thread::sleep(std::time::Duration::from_millis(2));
        let mut run = RunHandle::start(&store, &s, vec!["A".into()]).unwrap();
        ids.push(run.id().clone());
        match i {
            1 => {
                run.complete_step(step(StepStatus::Fail)).unwrap();
                run.complete(Some(100)).unwrap();
            }
            6 => run.interrupt("killed").unwrap(),
            8 => {}
            _ => {
                run.complete_step(step(StepStatus::Pass)).unwrap();
                run.complete(Some(10 * i)).unwrap();
            }
        }
    }
    // (Recounted first: the recount's mean is exact, the running mean rounds at each run.)
    let recounted_before = store.scenario(&s).recount_stats().unwrap();
    let before = store.scenario(&s).meta().unwrap().unwrap();
    assert_eq!((before.total_runs, before.fail_count), (8, 1));
    let removed = store.scenario(&s).prune(3).unwrap();
    let expect: Vec<RunId> = [2, 3, 4, 5, 6, 7]
        .iter()
        .map(|i| ids[i - 1].clone())
        .collect();
    assert_eq!(removed, expect);
    let left = store.scenario(&s).runs().unwrap();
    let keep: Vec<RunId> = [1, 8, 9, 10].iter().map(|i| ids[i - 1].clone()).collect();
    assert_eq!(
        left, keep,
        "newest 3 (one running), and the newest failed run"
    );
    let after = store.scenario(&s).meta().unwrap().unwrap();
    let stats = |m: &ScenarioMeta| {
        (
            m.total_runs,
            m.pass_count,
            m.fail_count,
            m.avg_duration,
            m.last_result.clone(),
        )
    };
    assert_eq!(stats(&after), stats(&before), "statistics unchanged");
    // A recount from the runs left gives the same totals as before pruning.
    assert_eq!(
        store.scenario(&s).recount_stats().unwrap(),
        recounted_before
    );
    // Nothing more to remove; the running run stays even with keep = 1.
    assert!(store.scenario(&s).prune(3).unwrap().is_empty());
    store.scenario(&s).prune(1).unwrap();
    assert_eq!(
        store.scenario(&s).runs().unwrap(),
        vec![ids[0].clone(), ids[7].clone(), ids[9].clone()]
    );
    assert!(
        std::fs::read_dir(store.scenario(&s).path().join("runs"))
            .unwrap()
            .all(|e| !e.unwrap().file_name().to_string_lossy().ends_with(".tmp")),
        "no temporary folder left"
    );
}

/// `confine` answers the same whichever way it looks (the kernel's one walk,
/// or part by part): a link at any depth below `.harshJudge/`, the file itself
/// included, is refused and named; parts not there yet pass; `..` is refused;
/// a store reached through a linked parent folder is fine.
#[test]
#[cfg(unix)]
fn confine_refuses_every_link_below_the_store_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    std::fs::create_dir_all(real.join(".harshJudge/scenarios/s/runs/r/step-01/evidence")).unwrap();
    std::fs::write(
        real.join(".harshJudge/scenarios/s/runs/r/step-01/evidence/a.json"),
        b"{}",
    )
    .unwrap();
    // The project reached through a link: the store itself is below it.
    std::os::unix::fs::symlink(&real, tmp.path().join("via")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    for root in [real.clone(), tmp.path().join("via")] {
        let store = Store::new(root.join(".harshJudge"));
        let ev = store.dir().join("scenarios/s/runs/r/step-01/evidence");
        store.confine(&ev.join("a.json")).unwrap();
        store.confine(&ev.join("missing/deeper/b.json")).unwrap();
        store
            .confine(&store.dir().join("scenarios/new/runs/x"))
            .unwrap();
        store.confine(store.dir()).unwrap();
        assert!(matches!(
            store.confine(&ev.join("../../../../../../..").join("x")),
            Err(StoreError::Link { .. })
        ));
        assert!(store.confine(&outside.path().join("x")).is_err());
    }
    let store = Store::new(real.join(".harshJudge"));
    let ev = store.dir().join("scenarios/s/runs/r/step-01/evidence");
    // A link at each depth, to a folder outside and to nowhere.
    let parts = [
        "scenarios",
        "s",
        "runs",
        "r",
        "step-01",
        "evidence",
        "a.json",
    ];
    for depth in 1..=parts.len() {
        let at: std::path::PathBuf = parts[..depth]
            .iter()
            .fold(store.dir().to_path_buf(), |p, c| p.join(c));
        let aside = at.with_file_name(format!("{}.aside", parts[depth - 1]));
        std::fs::rename(&at, &aside).unwrap();
        for target in [outside.path().to_path_buf(), tmp.path().join("nowhere")] {
            std::os::unix::fs::symlink(&target, &at).unwrap();
            match store.confine(&ev.join("a.json")) {
                Err(StoreError::Link { link, .. }) => assert_eq!(link, at, "depth {depth}"),
                other => panic!(
                    "depth {depth}: a link at {} passed: {other:?}",
                    at.display()
                ),
            }
            std::fs::remove_file(&at).unwrap();
        }
        std::fs::rename(&aside, &at).unwrap();
    }
    store.confine(&ev.join("a.json")).unwrap();
}

/// Issue 25.1: `upsert` lists the steps folder once and writes a missing step
/// file without reading it first. A step file that is the same is left alone
/// (same inode), one that differs is rewritten, a link in place of a step file
/// is refused (and what it points to is neither read nor written), and files
/// no step names are removed.
#[test]
fn upsert_writes_missing_step_files_keeps_equal_ones_and_refuses_links() {
    use std::os::unix::fs::MetadataExt;
    let (tmp, store) = store();
    let s = slug("docs");
    store
        .scenario(&s)
        .upsert(&spec(&["One", "Two", "Three"]), &[])
        .unwrap();
    let steps = store.scenario(&s).path().join("steps");
    let one = steps.join("01-one.md");
    let first = std::fs::read_to_string(&one).unwrap();
    assert!(first.starts_with("# Step 01: One\n"), "{first}");
    let inode = std::fs::metadata(&one).unwrap().ino();
    std::fs::write(steps.join("02-two.md"), "edited by hand").unwrap();
    std::fs::write(steps.join("99-orphan.md"), "old").unwrap();
    std::fs::write(steps.join("notes.txt"), "not a step file").unwrap();
    store
        .scenario(&s)
        .upsert(&spec(&["One", "Two", "Three"]), &[])
        .unwrap();
    assert_eq!(std::fs::metadata(&one).unwrap().ino(), inode, "rewritten");
    let two = std::fs::read_to_string(steps.join("02-two.md")).unwrap();
    assert!(two.starts_with("# Step 02: Two\n"), "{two}");
    assert!(!steps.join("99-orphan.md").exists());
    assert!(steps.join("notes.txt").exists());

    let outside = tmp.path().join("outside.md");
    std::fs::write(&outside, "outside").unwrap();
    std::fs::remove_file(steps.join("03-three.md")).unwrap();
    std::os::unix::fs::symlink(&outside, steps.join("03-three.md")).unwrap();
    let err = store
        .scenario(&s)
        .upsert(&spec(&["One", "Two", "Three"]), &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("03-three.md"), "{err}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside");
}

/// A process that starts run after run (an MCP server) kept the parse and
/// text of every run's `skill-state.yaml` it ever wrote (up to 1024): its
/// heap grew with each run. Now it keeps those of the last few runs, and a
/// run's state still reads back as written.
#[test]
fn skill_state_parses_are_kept_for_a_bounded_number_of_runs() {
    let (_t, store) = store();
    let s = slug("many-runs");
    store.ensure_initialized("Demo", "").unwrap();
    store.scenario(&s).upsert(&spec(&["Open"]), &[]).unwrap();
    for _ in 0..2 * super::runs::PARSED_STATES + 10 {
        let run = crate::recorder::RunHandle::start(&store, &s, vec!["Open".into()]).unwrap();
        let state = store
            .scenario(&s)
            .run(run.id())
            .skill_state()
            .unwrap()
            .unwrap();
        assert_eq!(state.run_id, run.id().as_str());
        assert!(
            super::runs::PARSED_STATE.len() <= super::runs::PARSED_STATES,
            "{} runs' skill states kept",
            super::runs::PARSED_STATE.len()
        );
    }
}

/// Issue 25.1: a run's final `result.json`, read back by the process that
/// wrote it, is taken from memory (the suite's checkpoint and the reports
/// read it at once); changed by another writer, the change is read; broken,
/// the error is reported as before.
#[test]
fn a_final_result_read_back_is_the_one_written_and_a_changed_one_is_read_again() {
    let (_tmp, store) = store();
    let slug = slug("results");
    let mut run = crate::recorder::RunHandle::start(&store, &slug, vec!["One".into()]).unwrap();
    let id = StepId::from_index(1).unwrap();
    run.begin_step(&id).unwrap();
    run.complete_step(crate::recorder::StepRecord {
        id,
        status: StepStatus::Fail,
        duration_ms: 3,
        error: Some("boom \"quoted\"\nnext line".into()),
        location: Some("tests/a.rs:1:2".into()),
        summary: None,
    })
    .unwrap();
    run.complete(None).unwrap();
    let written = run.result().clone();
    let run_id = run.id().clone();
    drop(run);
    let dir = store.scenario(&slug).run(&run_id);
    for _ in 0..2 {
        assert_eq!(dir.result().unwrap().as_ref(), Some(&written));
    }
    let path = dir.result_path();
    let text = std::fs::read_to_string(&path).unwrap();
    let changed = text.replace("\"duration\": 3", "\"duration\": 4");
    assert_ne!(changed, text);
    std::fs::write(&path, &changed).unwrap();
    assert_eq!(dir.result().unwrap().unwrap().steps[0].duration, 4);
    std::fs::write(&path, &text).unwrap();
    assert_eq!(dir.result().unwrap().as_ref(), Some(&written));
    std::fs::write(&path, "  ").unwrap();
    let err = dir.result().unwrap_err().to_string();
    assert!(err.contains("empty"), "{err}");
}

/// Issue 40.7: evidence is written below the run's folder, held open since
/// the run was made (made when missing, no link followed), each file by its
/// name in its folder: the file and its sidecar, no temporary file left, a
/// second file in the same step beside the first. A link on the way (the
/// step folder, the evidence folder, the file or its sidecar), whether there
/// before the first write or swapped in mid-run, is refused and named as
/// `confine` names it, and nothing is written where it points. The run
/// folder swapped for a link mid-run is never followed (its descriptor is
/// the folder); one that is a link when first opened is refused.
#[test]
#[cfg(unix)]
fn evidence_through_its_open_folder_lands_whole_and_refuses_every_link() {
    let (tmp, store) = store();
    let s = slug("evidence");
    let run = RunId::new("20260101T000000000Z-abcdef").unwrap();
    store
        .scenario(&s)
        .run(&run)
        .start("2026-01-01T00:00:00.000Z")
        .unwrap();
    let dir = store.scenario(&s).run(&run);
    let write = |step: usize, name: &str, bytes: &[u8]| {
        let step = StepId::from_index(step).unwrap();
        let name = EvidenceName::new(name).unwrap();
        dir.write_evidence(
            &step,
            NewEvidence {
                name: &name,
                ext: "json",
                kind: "custom",
                bytes,
            },
            serde_json::Map::new(),
        )
    };
    // A new step folder, then a second file in it.
    let first = write(1, "data", b"{\"a\": 1}").unwrap();
    let second = write(1, "more", b"[]").unwrap();
    let ev = dir.path().join("step-01").join("evidence");
    assert_eq!(first.path, ev.join("data.json"));
    assert_eq!(second.path, ev.join("more.json"));
    assert_eq!(std::fs::read(ev.join("data.json")).unwrap(), b"{\"a\": 1}");
    assert_eq!(std::fs::read(ev.join("more.json")).unwrap(), b"[]");
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ev.join("data.meta.json")).unwrap()).unwrap();
    assert_eq!(sidecar["fileSize"], 8);
    assert_eq!(sidecar["stepId"], "01");
    let mut names: Vec<String> = std::fs::read_dir(&ev)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["data.json", "data.meta.json", "more.json", "more.meta.json"]
    );
    // Replaced whole.
    write(1, "data", b"{}").unwrap();
    assert_eq!(std::fs::read(ev.join("data.json")).unwrap(), b"{}");

    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(outside.join("evidence")).unwrap();
    std::fs::write(outside.join("target.json"), b"outside").unwrap();
    let untouched = |what: &str| {
        assert_eq!(
            std::fs::read(outside.join("target.json")).unwrap(),
            b"outside",
            "{what}"
        );
        let mut left: Vec<_> = std::fs::read_dir(outside.join("evidence"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert!(left.is_empty(), "{what}: written outside: {left:?}");
    };
    let refused = |step: usize, at: &std::path::Path, what: &str| match write(step, "data", b"{}") {
        Err(StoreError::Link { link, .. }) => assert_eq!(link, at, "{what}"),
        other => panic!("{what}: a link at {} passed: {other:?}", at.display()),
    };
    // The file, then its sidecar, as links in a folder that is there.
    for file in ["data.json", "data.meta.json"] {
        let at = ev.join(file);
        std::fs::remove_file(&at).unwrap();
        std::os::unix::fs::symlink(outside.join("target.json"), &at).unwrap();
        refused(1, &at, file);
        untouched(file);
        std::fs::remove_file(&at).unwrap();
    }
    // The evidence folder of a step folder that is there.
    std::fs::create_dir_all(dir.path().join("step-02")).unwrap();
    let at = dir.path().join("step-02").join("evidence");
    std::os::unix::fs::symlink(outside.join("evidence"), &at).unwrap();
    refused(2, &at, "the evidence folder");
    untouched("the evidence folder");
    // The step folder itself.
    let at = dir.path().join("step-03");
    std::os::unix::fs::symlink(&outside, &at).unwrap();
    refused(3, &at, "the step folder");
    untouched("the step folder");
    // Mid-run: the step folder of step 1, written into above, then its
    // evidence folder, swapped for links to a folder outside.
    let step1 = dir.path().join("step-01");
    for at in [step1.clone(), step1.join("evidence")] {
        let aside = at.with_extension("aside");
        std::fs::rename(&at, &aside).unwrap();
        std::os::unix::fs::symlink(outside.join("evidence"), &at).unwrap();
        refused(1, &at, "a folder swapped for a link mid-run");
        untouched("a folder swapped for a link mid-run");
        std::fs::remove_file(&at).unwrap();
        std::fs::rename(&aside, &at).unwrap();
    }
    write(1, "data", b"{}").unwrap();
    // The run folder, swapped for a link mid-run: it was confined once, when
    // the run was made, and is held open since, so the link is never
    // followed; the evidence lands in the run's own folder, wherever it is.
    let aside = dir.path().with_extension("aside");
    std::fs::rename(dir.path(), &aside).unwrap();
    std::os::unix::fs::symlink(outside.join("evidence"), dir.path()).unwrap();
    write(4, "data", b"[4]").unwrap();
    untouched("the run folder swapped for a link mid-run");
    assert_eq!(
        std::fs::read(aside.join("step-04/evidence/data.json")).unwrap(),
        b"[4]"
    );
    // A process that did not make the run opens its folder at its first
    // write, part by part with no link followed: the link is refused.
    super::runs::OPEN_RUNS.forget(&dir.path());
    refused(5, &dir.path(), "the run folder");
    untouched("the run folder");
    assert!(
        !aside.join("step-05").exists(),
        "made through the run folder's link"
    );
}
