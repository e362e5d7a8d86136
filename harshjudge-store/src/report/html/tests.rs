use std::path::Path;

use super::*;

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project as the original HarshJudge writes it: nanoid run ids, a v1 flat
/// evidence folder in one run, step folders in the other.
fn original_project(dir: &Path) {
    put(
        &dir.join("config.yaml"),
        "projectName: shop\nbaseUrl: http://localhost:3000\nversion: '1.0'\ncreatedAt: '2024-01-10T00:00:00.000Z'\n",
    );
    let sc = dir.join("scenarios/login");
    put(
        &sc.join("meta.yaml"),
        "title: Login works\nslug: login\nstarred: true\ntags:\n  - auth\nestimatedDuration: 30\nsteps:\n  - id: '01'\n    title: Open\n    file: 01-open.md\n  - id: '02'\n    title: Sign in\n    file: 02-sign-in.md\ntotalRuns: 2\npassCount: 1\nfailCount: 1\nlastRun: '2024-01-11T00:00:00.000Z'\nlastResult: fail\navgDuration: 1500\n",
    );
    put(
        &sc.join("runs/Xy-old/result.json"),
        r#"{"runId":"Xy-old","scenarioSlug":"login","status":"pass","startedAt":"2024-01-10T00:00:00.000Z","completedAt":"2024-01-10T00:00:01.000Z","duration":1000,"steps":[{"id":"01","status":"pass","duration":400,"error":null,"evidenceFiles":["login.png"]}],"failedStep":null,"errorMessage":null}"#,
    );
    put(&sc.join("runs/Xy-old/evidence/step-01-login.png"), "PNG");
    put(
        &sc.join("runs/Xy-old/evidence/step-01-login.png.meta.json"),
        "{}",
    );
    put(
        &sc.join("runs/ab_new/result.json"),
        r#"{"runId":"ab_new","scenarioSlug":"login","status":"fail","startedAt":"2024-01-11T00:00:00.000Z","completedAt":"2024-01-11T00:00:02.000Z","duration":2000,"steps":[{"id":"01","status":"pass","duration":500,"error":null,"evidenceFiles":[]},{"id":"02","status":"fail","duration":1500,"error":"button missing","evidenceFiles":[]}],"failedStep":"02","errorMessage":"button missing"}"#,
    );
    let ev = sc.join("runs/ab_new/step-02/evidence");
    put(&ev.join("before.png"), "PNG");
    put(&ev.join("error.png"), "PNG");
    put(&ev.join("after.png"), "PNG");
    put(
        &ev.join("console.json"),
        r#"[{"level":"error","text":"boom","source":"javascript","url":null,"line":null,"timestamp":1}]"#,
    );
    put(
        &ev.join("network.json"),
        r#"[{"method":"GET","url":"http://127.0.0.1/api/x","status":500,"type":"Fetch","timing":3.5,"failure":null}]"#,
    );
    put(&ev.join("cart.json"), r#"{"items":[1,2]}"#);
    put(&ev.join("cart.meta.json"), r#"{"type":"custom"}"#);
    put(&ev.join("page.html"), "<html></html>");
    put(&ev.join("api-before.json"), r#"{"status":200}"#);
}

#[test]
fn original_runs_are_read_newest_first_with_their_evidence() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    original_project(dir);
    let store = Store::new(dir);
    let o = model::overview(&Reads::new(&store), &[]).unwrap();
    assert_eq!(o.project, "shop");
    let s = &o.scenarios[0];
    // A pass then a fail is a mixed history (here a regression), not flaky.
    assert_eq!(
        (s.title.as_str(), s.starred, s.flaky, s.mixed),
        ("Login works", true, false, true)
    );
    let ids: Vec<&str> = s.history.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(
        ids,
        ["ab_new", "Xy-old"],
        "sorted by startedAt, newest first"
    );
    assert_eq!(s.last_result.as_deref(), Some("fail"));
    assert_eq!(s.pass_rate, Some(50.0));

    let slug = Slug::new("login").unwrap();
    let v = model::run_view(&Reads::new(&store), &slug, &RunId::new("ab_new").unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(v.steps.len(), 2);
    let step = &v.steps[1];
    assert_eq!(
        (step.title.as_str(), step.status.as_str()),
        ("Sign in", "fail")
    );
    assert_eq!(step.error.as_deref(), Some("button missing"));
    let page = step.shots.iter().find(|g| g.probe.is_empty()).unwrap();
    assert_eq!(
        page.before.as_deref(),
        Some("../scenarios/login/runs/ab_new/step-02/evidence/before.png")
    );
    assert!(page.after.is_some() && page.failure.is_some());
    assert_eq!(step.console[0]["text"], "boom");
    assert_eq!(step.network[0]["status"], 500);
    let cart = step.files.iter().find(|f| f.name == "cart.json").unwrap();
    assert_eq!(
        cart.content.as_deref(),
        Some("{\n  \"items\": [\n    1,\n    2\n  ]\n}")
    );
    assert!(
        step.files.iter().all(|f| !f.name.ends_with(".meta.json")),
        "sidecars are not evidence"
    );
    let api = step
        .files
        .iter()
        .find(|f| f.name == "api-before.json")
        .unwrap();
    assert_eq!(api.kind, "json");
    assert!(
        step.files
            .iter()
            .any(|f| f.name == "page.html" && f.kind == "html")
    );

    assert!(v.video.is_none(), "no video: none shown");

    let old = model::run_view(&Reads::new(&store), &slug, &RunId::new("Xy-old").unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(old.steps[0].files[0].name, "login.png");
    assert_eq!(
        old.steps[0].files[0].path,
        "../scenarios/login/runs/Xy-old/evidence/step-01-login.png"
    );
}

/// The original project in `dir`, its run `login/ab_new` with a video.
fn filmed_run(dir: &Path) -> (Store, Slug, RunId) {
    original_project(dir);
    let store = Store::new(dir);
    let (slug, run) = (Slug::new("login").unwrap(), RunId::new("ab_new").unwrap());
    put(&store.scenario(&slug).run(&run).video_path(), "WEBM");
    (store, slug, run)
}

/// A run's video (`HARSHJUDGE_VIDEO`) at its root: the run view links it
/// and carries its cues, which the page plays as the video's track.
#[test]
fn a_run_with_a_video_shows_it_with_its_cues() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, slug, run) = filmed_run(tmp.path());
    let run_dir = store.scenario(&slug).run(&run);
    let view = |store: &Store| {
        model::run_view(&Reads::new(store), &slug, &run)
            .unwrap()
            .unwrap()
    };
    let video = view(&store).video.expect("the video");
    assert_eq!(video.src, "../scenarios/login/runs/ab_new/video.webm");
    assert_eq!(video.cues, None);
    put(
        &run_dir.video_cues_path(),
        "WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.000\n01 Open\n",
    );
    let video = view(&store).video.expect("the video");
    assert_eq!(
        video.cues.as_deref(),
        Some("WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.000\n01 Open\n")
    );
    // The page plays `d.video` with its track (checked in Chromium by tests/suite/video.rs).
    let page = include_str!("page.html");
    assert!(page.contains("if (d.video)") && page.contains("<track default kind=\"captions\""));
}

/// The video's time 0 on the trace's clock (`video.vtt`'s `NOTE
/// startedAt=…`, written by the runner) is carried as the run's
/// `video.startedAt`, by which the timeline seeks the video to a row and
/// follows its time; cues without it (a video made before) or with a value
/// that is no time carry none, and the video still plays.
#[test]
fn a_video_carries_its_start_on_the_traces_clock() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, slug, run) = filmed_run(tmp.path());
    let run_dir = store.scenario(&slug).run(&run);
    let video = |cues: &str| {
        put(&run_dir.video_cues_path(), cues);
        model::run_view(&Reads::new(&store), &slug, &run)
            .unwrap()
            .unwrap()
            .video
            .expect("the video")
    };
    let v = video(
        "WEBVTT\n\nNOTE startedAt=1764500000123.5\n\n1\n00:00:00.000 --> 00:00:01.000\n01 Open\n",
    );
    assert_eq!(v.started_at, Some(1_764_500_000_123.5));
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["startedAt"], 1_764_500_000_123.5, "{json}");
    assert_eq!(
        json["cues"].as_str().map(|c| c.contains("01 Open")),
        Some(true)
    );
    // An older run's cues: no start, no seeking; the video is still shown.
    let v = video("WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.000\n01 Open\n");
    assert_eq!(v.started_at, None);
    assert!(serde_json::to_value(&v).unwrap()["startedAt"].is_null());
    for bad in ["NaN", "inf", "-5", "0", "soon", ""] {
        let v = video(&format!("WEBVTT\n\nNOTE startedAt={bad}\n"));
        assert_eq!(v.started_at, None, "{bad}");
    }
    // The page reads it (the seeking and following: tests/suite/trace_report.rs).
    assert!(include_str!("timeline.js").contains("video.startedAt"));
}

/// Issue 20.6: a scenario its test binary no longer has is marked removed
/// in the overview (with the binary and since when), its runs kept; one
/// another binary has now is not.
#[test]
fn a_scenario_no_binary_has_is_marked_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    original_project(dir);
    let store = Store::new(dir);
    let checkpoint = |binary: &str, suite: &str, removed: &str| {
        let text = format!(
            r#"{{"binary":"{binary}","pid":1,"startedAt":"2026-11-20T10:00:00.000Z","finishedAt":null,"scenarios":{{}},"suite":{suite},"removed":{removed}}}"#
        );
        put(&dir.join(format!(".suite/{binary}.json")), &text);
    };
    checkpoint(
        "web",
        "[\"home\"]",
        r#"{"login":"2026-11-20T10:00:00.000Z"}"#,
    );
    let o = model::overview(&Reads::new(&store), &[]).unwrap();
    let s = &o.scenarios[0];
    let r = s.removed.as_ref().expect("login is removed");
    assert_eq!(
        (r.binary.as_str(), r.since.as_str()),
        ("web", "2026-11-20T10:00:00.000Z")
    );
    assert_eq!(s.history.len(), 2, "its runs are kept");
    // An unreadable checkpoint is left out; one that has login now wins.
    put(&dir.join(".suite/broken.json"), "{");
    checkpoint("api", "[\"login\"]", "{}");
    let o = model::overview(&Reads::new(&store), &[]).unwrap();
    assert!(o.scenarios[0].removed.is_none());
}

#[test]
fn write_is_incremental_and_prunes_runs_out_of_the_history() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    original_project(dir);
    let first = write(dir).unwrap();
    assert_eq!(
        (first.scenarios, first.runs, first.run_pages_written),
        (1, 2, 2)
    );
    let index = std::fs::read_to_string(&first.index).unwrap();
    assert!(
        index.contains("window.__hj") && !index.contains("http://") && !index.contains("https://")
    );
    let run_js = dir.join("report/data/runs/login/ab_new.js");
    assert!(
        std::fs::read_to_string(&run_js)
            .unwrap()
            .starts_with("window.__hj.run({")
    );

    let again = write(dir).unwrap();
    assert_eq!(again.run_pages_written, 0, "nothing changed");

    std::fs::remove_dir_all(dir.join("scenarios/login/runs/Xy-old")).unwrap();
    let after = write(dir).unwrap();
    assert_eq!(after.runs, 1);
    assert!(!dir.join("report/data/runs/login/Xy-old.js").exists());
}

#[test]
fn the_stamp_changes_when_a_run_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    original_project(dir);
    let a = stamp(dir).unwrap();
    assert_eq!(a, stamp(dir).unwrap());
    std::thread::sleep(std::time::Duration::from_millis(20));
    put(
        &dir.join("scenarios/login/runs/zz_added/result.json"),
        r#"{"runId":"zz_added","scenarioSlug":"login","status":"running","startedAt":"2024-01-12T00:00:00.000Z","steps":[]}"#,
    );
    let b = stamp(dir).unwrap();
    assert_ne!(a, b);
}

#[test]
fn run_js_validates_ids_before_they_become_paths() {
    let tmp = tempfile::tempdir().unwrap();
    original_project(tmp.path());
    assert!(run_js(tmp.path(), "../etc", "x").is_err());
    assert!(run_js(tmp.path(), "login", "../../x").is_err());
    assert!(run_js(tmp.path(), "login", "nope").unwrap().is_none());
    let js = run_js(tmp.path(), "login", "ab_new").unwrap().unwrap();
    assert!(js.contains("\"failedStep\":\"02\""));
}

#[test]
fn data_cannot_close_a_script_tag() {
    let js = call(
        "run",
        &serde_json::json!({"t": "</script><script>alert(1)"}),
    );
    assert!(!js.contains("</script>"));
}

#[test]
fn a_running_run_lists_pending_steps() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    original_project(dir);
    put(
        &dir.join("scenarios/login/runs/zz_live/result.json"),
        r#"{"runId":"zz_live","scenarioSlug":"login","status":"running","startedAt":"2024-01-12T00:00:00.000Z","steps":[{"id":"01","status":"pass","duration":5,"error":null,"evidenceFiles":[]}]}"#,
    );
    let v = model::run_view(
        &Reads::new(&Store::new(dir)),
        &Slug::new("login").unwrap(),
        &RunId::new("zz_live").unwrap(),
    )
    .unwrap()
    .unwrap();
    let st: Vec<&str> = v.steps.iter().map(|s| s.status.as_str()).collect();
    assert_eq!(st, ["pass", "pending"]);
}

/// Issue 11, point 4: flaky means passed after a failed attempt of the same
/// invocation (`result.json` `flaky`), nothing else; separate passing and
/// failing runs are a "mixed history".
#[test]
fn flaky_means_a_pass_on_a_retry_and_mixed_history_is_separate() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    put(
        &dir.join("config.yaml"),
        "projectName: shop\nbaseUrl: ''\nversion: '1.0'\ncreatedAt: '2026-01-10T00:00:00.000Z'\n",
    );
    let run = |slug: &str, id: &str, day: u32, status: &str, flaky: bool| {
        put(
            &dir.join(format!("scenarios/{slug}/meta.yaml")),
            &format!("title: {slug}\nslug: {slug}\nsteps: []\n"),
        );
        put(
            &dir.join(format!("scenarios/{slug}/runs/{id}/result.json")),
            &format!(
                r#"{{"runId":"{id}","scenarioSlug":"{slug}","status":"{status}","startedAt":"2026-01-{day:02}T00:00:00.000Z","completedAt":"2026-01-{day:02}T00:00:01.000Z","duration":1000,"steps":[],"failedStep":null,"errorMessage":null{}}}"#,
                if flaky {
                    r#","attempt":2,"flaky":true"#
                } else {
                    ""
                }
            ),
        );
    };
    // A fix-and-rerun session: fail, fail, pass. Mixed, not flaky.
    run("fixed", "f1", 1, "fail", false);
    run("fixed", "f2", 2, "fail", false);
    run("fixed", "f3", 3, "pass", false);
    // A plain regression: pass, then fail. Failing and mixed, not flaky.
    run("regressed", "r1", 1, "pass", false);
    run("regressed", "r2", 2, "fail", false);
    // Passed on a retry in its latest run: flaky.
    run("retried", "t1", 1, "fail", false);
    run("retried", "t2", 2, "pass", true);
    // Always passed: neither.
    run("steady", "s1", 1, "pass", false);
    run("steady", "s2", 2, "pass", false);
    let o = model::overview(&Reads::new(&Store::new(dir)), &[]).unwrap();
    let got: Vec<(&str, Option<&str>, bool, bool)> = o
        .scenarios
        .iter()
        .map(|s| (s.slug.as_str(), s.last_result.as_deref(), s.flaky, s.mixed))
        .collect();
    assert_eq!(
        got,
        [
            ("fixed", Some("pass"), false, true),
            ("regressed", Some("fail"), false, true),
            ("retried", Some("pass"), true, true),
            ("steady", Some("pass"), false, false),
        ]
    );
    let retried = o.scenarios.iter().find(|s| s.slug == "retried").unwrap();
    assert!(retried.history[0].flaky && !retried.history[1].flaky);
}

/// Issue 11 point 16: the reports (`report/`, `report/data/`, JUnit inside
/// `.harshJudge/`), the invocation record and the suite checkpoint
/// (`.suite/`) never follow a link out of `.harshJudge/`: each linked folder
/// is refused with its path, and nothing is written or read outside.
#[test]
fn reports_and_checkpoints_never_follow_links_out_of_harshjudge() {
    use crate::report::invocation::{Publish, publish};
    use crate::report::junit::RunRef;
    use crate::store::checkpoint::SuiteLog;
    use std::os::unix::fs::symlink;
    const SECRET: &str = "TOPSECRET-outside-the-project";
    fn files(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut out = vec![];
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                out.extend(files(&e.path()));
            } else {
                out.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
        out.sort();
        out
    }
    let (mut writes_outside, mut reads_outside, mut refused) = (0, 0, 0);
    for linked in ["report", "report/data", ".suite"] {
        let tmp = tempfile::tempdir().unwrap();
        let hj = tmp.path().join(".harshJudge");
        original_project(&hj);
        let outside = tempfile::tempdir().unwrap();
        let o = outside.path().join("target");
        // What the link leads to: a checkpoint and a record of its own.
        put(
            &o.join("bin.json"),
            &format!(r#"{{"binary":"{SECRET}","pid":1,"startedAt":"x","scenarios":{{}}}}"#),
        );
        put(
            &o.join("invocation-inv1.json"),
            &format!(r#"{{"startedMs":0,"runs":[{{"dir":"/{SECRET}","earlier":[]}}]}}"#),
        );
        std::fs::create_dir_all(hj.join(linked).parent().unwrap()).unwrap();
        symlink(&o, hj.join(linked)).unwrap();
        let before = files(outside.path());

        let store = Store::new(&hj);
        let lines = publish(
            &store,
            &Publish {
                runs: vec![RunRef {
                    dir: hj.join("scenarios/login/runs/ab_new"),
                    earlier: vec![],
                }],
                started: std::time::SystemTime::now(),
                junit: Some(hj.join("report/junit.xml")),
                html: true,
                step_summary: None,
                invocation: Some("inv1".into()),
                not_run: vec![],
                errors: vec![],
            },
        );
        let said = lines.join("\n");
        assert!(said.contains("symbolic link"), "{linked}: {said}");
        refused += said.matches("symbolic link").count();
        let previous = SuiteLog::previous(&store, "bin");
        let begun = SuiteLog::begin(
            &store,
            "bin",
            &["login"],
            None,
            &["login"],
            &Default::default(),
        );
        let answers = format!(
            "{said}\n{previous:?}\n{}",
            begun
                .as_ref()
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        );
        if linked == ".suite" {
            assert!(previous.is_err() && begun.is_err(), "{answers}");
            refused += 2;
        }
        reads_outside += usize::from(answers.contains(SECRET));
        let after = files(outside.path());
        writes_outside += after.iter().filter(|a| !before.contains(a)).count();
    }
    eprintln!(
        "report symlink probes: {refused} refused, {writes_outside} writes and {reads_outside} reads outside .harshJudge/"
    );
    assert_eq!((writes_outside, reads_outside), (0, 0));
}

/// Issue 20.2: the live overview carries the stamp it was read at, so the
/// page's first poll compares against the data's own stamp.
#[test]
fn the_live_overview_carries_its_stamp() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    original_project(dir);
    let js = overview_js(dir).unwrap();
    let stamp = stamp(dir).unwrap();
    assert!(
        js.starts_with("window.__hj.overview({")
            && js.ends_with(&format!(", {{\"stamp\":\"{stamp}\"}});\n")),
        "{js}"
    );
}
