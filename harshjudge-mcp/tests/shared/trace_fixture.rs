//! A recorded trace for `getStepTrace`'s tests (in process and through the
//! CLI): run `trace-run` of scenario `items`, as `cargo test` leaves one under
//! `retain-on-failure` — step 01 passed (no trace), step 02 failed at its third
//! entry (its `trace.json` typed as `store::TraceFile` and written through the
//! store as the store writer does), step 03 skipped.

#![allow(dead_code)]

use std::path::PathBuf;

use harshjudge_browser::trace::{
    TRACE_VERSION, TraceConsole, TraceEntry, TraceFile, TraceLogs, TraceOutcome, TracePage,
    TraceRequest,
};
use harshjudge_store::store::{
    EvidenceName, NewEvidence, RunId, RunResult, ScenarioSpec, Slug, StepId, Store,
};
use serde_json::{Value, json};

/// The scenario.
pub const SLUG: &str = "items";
/// The run.
pub const RUN: &str = "trace-run";
/// When step 02 began, ms since the Unix epoch.
pub const T0: f64 = 1_764_410_000_000.0;

/// What `getStepTrace` answers for step 2 of the run, exactly.
pub const EXPECTED: &str = r#"step 02 of run trace-run (items), attempt 1, trace mode retain-on-failure: 3 entries in 5.412s
#1 +0.004s 0.310s page.goto("/items") · ok · tests/items.rs:20 · 2 requests
#2 +0.320s 0.041s page.get_by_label("Name").fill("milk") · ok · tests/items.rs:21 · 1 console
#3 +0.365s 5.003s page.get_by_role("button").name("Save").click() · FAILED timeout: timed out after 5.0 s waiting for page.get_by_role("button").name("Save") to be clicked · POST /api/items 500 · console error "Uncaught TypeError: x is undefined" · tests/items.rs:22 · 1 request · 1 console
between entries: 1 console
cut: failure texts cut to their first line (at most 300 characters): 1; the file has it all
file: .harshJudge/scenarios/items/runs/trace-run/step-02/evidence/trace.json"#;

/// A console line at `at` ms after [`T0`].
pub fn console(level: &str, text: &str, at: f64) -> TraceConsole {
    TraceConsole {
        level: level.into(),
        text: text.into(),
        source: "console-api".into(),
        url: Some("http://127.0.0.1:4321/app.js".into()),
        timestamp: (T0 + at) as u64,
    }
}

/// A request sent at `at` ms after [`T0`].
pub fn request(method: &str, url: &str, status: Option<u64>, at: f64) -> TraceRequest {
    TraceRequest {
        method: method.into(),
        url: url.into(),
        status,
        kind: "Fetch".into(),
        timing: Some(12.5),
        failure: None,
        started_at: Some(T0 + at),
    }
}

/// An entry that began `start` ms after [`T0`] and ended at `end`.
pub fn entry(n: u32, kind: &str, call: &str, at: &str, start: f64, end: f64) -> TraceEntry {
    TraceEntry {
        n,
        kind: kind.into(),
        page: "p1".into(),
        frame: None,
        call: call.into(),
        at: at.into(),
        start: T0 + start,
        end: T0 + end,
        outcome: TraceOutcome {
            status: "ok".into(),
            kind: None,
            error: None,
            log: vec![],
        },
        console: vec![],
        network: vec![],
        target: None,
        snapshots: None,
        screenshot: None,
    }
}

/// A step's trace of `entries`, as the tracer makes one.
pub fn trace_of(step: &str, entries: Vec<TraceEntry>, between: TraceLogs, end: f64) -> TraceFile {
    TraceFile {
        version: TRACE_VERSION,
        step: step.into(),
        attempt: 1,
        mode: "retain-on-failure".into(),
        started_at: T0,
        ended_at: T0 + end,
        pages: vec![TracePage {
            id: "p1".into(),
            browser: "chromium".into(),
            protocol: "cdp".into(),
            viewport: Some([1280, 720]),
        }],
        entries,
        between,
        limits: vec![],
        errors: vec![],
    }
}

/// Step 02's trace: `goto`, `fill`, then a `click` that timed out while the
/// page's POST failed and it logged an error.
pub fn failed_step() -> TraceFile {
    let mut goto = entry(
        1,
        "navigation",
        "page.goto(\"/items\")",
        "tests/items.rs:20:14",
        4.4,
        314.4,
    );
    goto.network = vec![
        request("GET", "http://127.0.0.1:4321/items", Some(200), 10.0),
        request("GET", "http://127.0.0.1:4321/app.css", Some(200), 60.0),
    ];
    let mut fill = entry(
        2,
        "action",
        "page.get_by_label(\"Name\").fill(\"milk\")",
        "tests/items.rs:21:37",
        320.0,
        361.0,
    );
    fill.console = vec![console("info", "typing", 330.0)];
    let mut click = entry(
        3,
        "action",
        "page.get_by_role(\"button\").name(\"Save\").click()",
        "tests/items.rs:22:51",
        365.0,
        5368.0,
    );
    click.outcome = TraceOutcome {
        status: "failed".into(),
        kind: Some("timeout".into()),
        error: Some(
            "timed out after 5.0 s waiting for page.get_by_role(\"button\").name(\"Save\") to be clicked\n  - <div class=\"overlay\"> intercepts pointer events".into(),
        ),
        log: vec![
            "waiting for get_by_role(\"button\").name(\"Save\")".into(),
            "retrying click action, attempt 2".into(),
        ],
    };
    click.network = vec![request(
        "POST",
        "http://127.0.0.1:4321/api/items",
        Some(500),
        400.0,
    )];
    click.console = vec![console(
        "error",
        "Uncaught TypeError: x is undefined",
        410.0,
    )];
    let between = TraceLogs {
        console: vec![console("warning", "slow frame", 362.0)],
        network: vec![],
    };
    trace_of("02", vec![goto, fill, click], between, 5412.0)
}

/// Writes `file` as step `step`'s `trace.json` of run `run`, as the store
/// writer does (`recorder/writer.rs::write_trace`).
pub fn write_trace(store: &Store, slug: &str, run: &str, step: &str, file: &TraceFile) -> PathBuf {
    let (slug, run, step) = (
        Slug::new(slug).unwrap(),
        RunId::new(run).unwrap(),
        StepId::new(step).unwrap(),
    );
    let bytes = serde_json::to_vec_pretty(file).expect("a trace serializes");
    let name = EvidenceName::new("trace").unwrap();
    let at = store.scenario(&slug).run(&run);
    at.write_evidence(
        &step,
        NewEvidence {
            name: &name,
            ext: "json",
            kind: "custom",
            bytes: &bytes,
        },
        Default::default(),
    )
    .unwrap()
    .path
}

/// The scenario `items` (3 steps) in an initialized `store`.
pub fn scenario(store: &Store) {
    if !store.is_initialized() {
        store.init_project("Demo", "http://127.0.0.1:4321").unwrap();
    }
    let spec = ScenarioSpec {
        title: "Items".into(),
        steps: vec!["Open the list".into(), "Add milk".into(), "See it".into()],
        tags: None,
        starred: None,
        estimated_duration: None,
    };
    store
        .scenario(&Slug::new(SLUG).unwrap())
        .upsert(&spec, &[])
        .unwrap();
}

/// A completed run `run` of `items` whose steps ended as `statuses`
/// (`pass`, `fail`, `skipped`), with the `traces` of its steps.
pub fn run(store: &Store, run: &str, statuses: &[&str], traces: &[(&str, &TraceFile)]) {
    let slug = Slug::new(SLUG).unwrap();
    let id = RunId::new(run).unwrap();
    let at = store.scenario(&slug).run(&id);
    at.start("2026-11-29T10:00:00.000Z").unwrap();
    for (step, file) in traces {
        write_trace(store, SLUG, run, step, file);
    }
    let steps: Vec<_> = statuses
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"id": format!("{:02}", i + 1), "status": s, "duration": 10}))
        .collect();
    let failed = statuses.iter().position(|s| *s == "fail");
    let result: RunResult = serde_json::from_value(json!({
        "runId": run, "scenarioSlug": SLUG,
        "status": if failed.is_some() { "fail" } else { "pass" },
        "startedAt": "2026-11-29T10:00:00.000Z", "completedAt": "2026-11-29T10:00:06.000Z",
        "duration": 6000, "failedStep": failed.map(|i| format!("{:02}", i + 1)),
        "steps": steps,
    }))
    .unwrap();
    at.complete(&result).unwrap();
}

/// [`scenario`], and run [`RUN`]: step 01 passed, 02 failed (its trace
/// [`failed_step`]), 03 skipped.
pub fn recorded(store: &Store) {
    scenario(store);
    run(
        store,
        RUN,
        &["pass", "fail", "skipped"],
        &[("02", &failed_step())],
    );
}

/// A snapshot of `trace-dom.json` (D8's node form) of entry `entry`'s
/// `moment`, its body `body`.
fn dom_snapshot(entry: u32, moment: &str, body: serde_json::Value) -> serde_json::Value {
    json!({
        "entry": entry, "moment": moment, "page": "p1", "frame": 0, "parentFrame": null,
        "time": T0 + f64::from(entry) * 100.0, "url": "http://127.0.0.1:4321/items",
        "viewport": {"width": 1280, "height": 720}, "scroll": [0, 0], "doctype": "html",
        "html": ["HTML", {"lang": "en"},
            ["HEAD", {}, ["TITLE", {}, "Items"], ["STYLE", {}, ".gone { display: none }"]],
            body],
    })
}

/// [`recorded`], with DOM snapshots for step 02 (`trace-dom.json`, written as
/// the store writer does, and the entries' indexes in it): #1 the goto's
/// after, too large (`omitted`); #2 the fill's before (an empty field) and
/// after (typed "milk"); #3 the click's before (the form, a script and a
/// hidden note the page must not show) and after (a "Saved" heading and a
/// list of one item; no more Save button).
pub fn recorded_with_dom(store: &Store) {
    recorded_with_dom_nested(store, 0);
}

/// [`recorded_with_dom`], the click's after page inside `depth` nested
/// `DIV`s (a page as deep as the snapshot's 256 elements).
pub fn recorded_with_dom_nested(store: &Store, depth: usize) {
    use harshjudge_browser::trace::TraceSnapshots;
    recorded(store);
    let form = |value: &str| {
        json!(["BODY", {},
            ["H1", {}, "Items"],
            ["LABEL", {"for": "name"}, "Name"],
            ["INPUT", {"id": "name", "__hj_value": value}],
            ["BUTTON", {"__hj_target": ""}, "Save"],
            ["P", {"class": "gone"}, "Hidden note"],
            ["SCRIPT", {}, "document.body.innerHTML = '<button>Injected</button>'"]])
    };
    let mut saved = json!(["BODY", {},
        ["H1", {}, "Saved"],
        ["UL", {}, ["LI", {}, "milk"]],
        ["A", {"href": "/items"}, "Back to the list"]]);
    for _ in 0..depth {
        // BODY's children moved into a DIV of their own.
        let children: Vec<Value> = saved.as_array_mut().unwrap().drain(2..).collect();
        let mut div = vec![json!("DIV"), json!({"class": "wrap"})];
        div.extend(children);
        saved.as_array_mut().unwrap().push(Value::Array(div));
    }
    let snapshots = vec![
        json!({"entry": 1, "moment": "after", "page": "p1", "frame": 0, "parentFrame": null,
               "time": T0 + 300.0, "omitted": "5 MiB, over the 4 MiB limit"}),
        dom_snapshot(2, "before", form("")),
        dom_snapshot(2, "after", form("milk")),
        dom_snapshot(3, "before", form("milk")),
        dom_snapshot(3, "after", saved),
    ];
    let mut file = failed_step();
    let at = |before, after| {
        Some(TraceSnapshots {
            before,
            after,
            at: None,
        })
    };
    file.entries[0].snapshots = at(None, Some(0));
    file.entries[1].snapshots = at(Some(1), Some(2));
    file.entries[2].snapshots = at(Some(3), Some(4));
    write_trace(store, SLUG, RUN, "02", &file);
    let bytes = serde_json::to_vec(&json!({"version": 1, "snapshots": snapshots})).unwrap();
    let name = EvidenceName::new("trace-dom").unwrap();
    store
        .scenario(&Slug::new(SLUG).unwrap())
        .run(&RunId::new(RUN).unwrap())
        .write_evidence(
            &StepId::new("02").unwrap(),
            NewEvidence {
                name: &name,
                ext: "json",
                kind: "custom",
                bytes: &bytes,
            },
            Default::default(),
        )
        .unwrap();
}
