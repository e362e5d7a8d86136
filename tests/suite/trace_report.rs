//! The report's trace timeline (issue 39, stage 7) in real Chromium: runs of
//! tests/fixtures/trace.rs under `HARSHJUDGE_TRACE=on`, then
//! `report/index.html` opened from `file://` through harshjudge's own `Page`.
//! The failing step opens to its timeline: its calls in order, the failed
//! one selected, its snapshot rebuilt with the target outlined (before) and
//! after it (`b`/`a`); `j` moves to the fill, whose requests and console
//! lines are the page's; a click inside a frame shows the frame's document;
//! a step without a trace shows no timeline. `failing` is also filmed
//! (`HARSHJUDGE_VIDEO=on`): its video sits above the traced step's rows,
//! choosing a row pauses it at the call's start, and its time chooses the
//! row of the call on screen; a step without a trace has it at the top.

use crate::support;
use crate::support::page::{js, until};

use std::path::{Path, PathBuf};
use std::process::Command;

use harshjudge::browser::{Page, expect};
use serde_json::Value;
use support::{Run, runs, test_binary};

/// Runs the trace fixture's `scenarios` into `hj` with `envs`.
fn run(hj: &Path, scenarios: &[&str], envs: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(test_binary("trace_suite"));
    cmd.current_dir(support::workspace())
        .args(scenarios)
        .env("HARSHJUDGE_DIR", hj)
        .env("HARSHJUDGE_WAIT", "1s")
        .env_remove("HARSHJUDGE_TRACE")
        .env_remove("HARSHJUDGE_EVIDENCE")
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("HARSHJUDGE_RETRIES")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    Run::from(cmd.output().expect("the suite runs"))
}

fn only_run(hj: &Path, slug: &str) -> PathBuf {
    let mut all = runs(hj, slug);
    assert_eq!(all.len(), 1, "{slug}: {all:?}");
    all.pop().unwrap()
}

fn id_of(run: &Path) -> String {
    run.file_name().unwrap().to_string_lossy().into_owned()
}

/// Shows the report's route `hash` (the page is the report already).
async fn open(page: &Page, hash: &str) {
    page.eval(&format!("location.hash = {hash:?}; return true"))
        .await
        .unwrap();
}

/// The calls of the timeline's entry rows, in order.
async fn calls(page: &Page) -> Value {
    js(
        page,
        "return Array.from(document.querySelectorAll('#timeline .tl-row:not(.between) .tl-call')).map(function (c) { return c.textContent; })",
    )
    .await
}

/// The selected row's call.
async fn selected(page: &Page) -> Value {
    js(
        page,
        "var r = document.querySelector('#timeline .tl-row.sel'); return r ? r.querySelector('.tl-call').textContent : null",
    )
    .await
}

/// Waits until the snapshot frame shows moment `m`.
async fn shows(page: &Page, m: &str) {
    until(
        page,
        &format!("the {m} snapshot"),
        &format!(
            "var f = document.querySelector('#timeline iframe.snapshot'); return !!f && f.getAttribute('data-moment') === '{m}' && f.getAttribute('sandbox') === 'allow-scripts'"
        ),
    )
    .await;
}

/// The text of the selected row's requests and console tables.
async fn logs(page: &Page) -> String {
    js(
        page,
        "var d = document.querySelector('#timeline .tl-detail'); return Array.from(d.querySelectorAll('.tl-requests, .tl-console')).map(function (t) { return t.innerText; }).join('\\n')",
    )
    .await
    .as_str()
    .unwrap()
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_traced_step_opens_to_its_timeline_in_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let both = [("HARSHJUDGE_TRACE", "on"), ("HARSHJUDGE_VIDEO", "on")];
    let r = run(&hj, &["failing"], &both);
    assert_eq!(r.code, 101, "failing fails: {r:?}");
    let r = run(&hj, &["framed"], &[("HARSHJUDGE_TRACE", "on")]);
    assert_eq!(r.code, 0, "{r:?}");
    // `passing` under the default: it passes, so no step keeps a trace.
    let r = run(&hj, &["passing"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    // The harness wrote the report at each run's end; written again, nothing
    // changed, nothing is rewritten.
    let stats = harshjudge_store::report::html::write(&hj).unwrap();
    assert_eq!(stats.trace_scripts_written, 0, "{stats:?}");
    let failing = id_of(&only_run(&hj, "failing"));
    let framed = id_of(&only_run(&hj, "framed"));
    let passing = id_of(&only_run(&hj, "passing"));

    // One script per traced step; none for a run without traces, and the run's
    // own script does not carry them.
    let traces = hj.join("report/data/traces");
    for step in ["01", "02"] {
        let script = traces.join(format!("failing/{failing}/{step}.js"));
        let text = std::fs::read_to_string(&script).unwrap();
        assert!(
            text.starts_with("window.__hj.trace(") && text.contains("\"dom\":{"),
            "{}: {}",
            script.display(),
            &text[..text.len().min(300)]
        );
    }
    assert!(!traces.join("failing").join(&failing).join("03.js").exists());
    assert!(traces.join(format!("framed/{framed}/01.js")).is_file());
    assert!(!traces.join("passing").exists());
    let run_js =
        std::fs::read_to_string(hj.join(format!("report/data/runs/failing/{failing}.js"))).unwrap();
    assert!(
        !run_js.contains("Card ending") && !run_js.contains("\"snapshots\":["),
        "the run's script holds no trace"
    );

    // Merged into another tree, the traces come along byte for byte, and
    // the merged tree's report has the traced steps' scripts.
    let into = tmp.path().join("merged");
    let out = Command::new(support::mcp_binary())
        .arg("merge")
        .arg(&hj)
        .arg("--into")
        .arg(&into)
        .env("HARSHJUDGE_DASHBOARD", "off")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut traced = 0;
    for file in support::tree(&hj.join("scenarios")) {
        let name = file.rsplit('/').next().unwrap_or_default();
        if name.starts_with("trace") || file.contains("/trace-resources/") {
            traced += 1;
            let at = |root: &Path| std::fs::read(root.join("scenarios").join(&file)).ok();
            assert_eq!(at(&into), at(&hj), "{file} merged as it was");
        }
    }
    assert!(
        traced >= 4,
        "both failing steps' and the framed step's traces: {traced}"
    );
    assert!(
        into.join(format!("report/data/traces/failing/{failing}/02.js"))
            .is_file()
    );

    let (browsers, page) = crate::support::page::open_report(&hj, "").await;

    // The failing step: its calls in order, the failed click selected.
    open(&page, &format!("#/run/failing/{failing}/02")).await;
    until(
        &page,
        "the timeline's rows",
        "return document.querySelectorAll('#timeline .tl-row:not(.between)').length === 3",
    )
    .await;
    assert_eq!(
        calls(&page).await,
        serde_json::json!([
            "page.goto(\"/items\")",
            "page.get_by_label(\"Name\").fill(\"milk\")",
            "page.get_by_role(\"button\").name(\"Save\").click()",
        ])
    );
    assert_eq!(
        selected(&page).await,
        "page.get_by_role(\"button\").name(\"Save\").click()"
    );
    assert_eq!(
        js(
            &page,
            "return document.querySelector('#timeline .tl-row.sel').classList.contains('failed')"
        )
        .await,
        true
    );
    assert_eq!(
        js(
            &page,
            "return document.querySelectorAll('#timeline .tl-row.failed').length"
        )
        .await,
        1
    );
    // Each call's row ends with its duration as trace.json has it; the
    // failed one with how it failed.
    let trace = support::json(only_run(&hj, "failing").join("step-02/evidence/trace.json"));
    let ms = |n: usize| {
        let e = &trace["entries"][n];
        (e["end"].as_f64().unwrap() - e["start"].as_f64().unwrap()).round()
    };
    // The report's `dur` (page.html), in whole numbers: ties round up, as
    // `toFixed` does.
    let dur = |ms: f64| {
        let ms = ms as u64;
        match ms {
            0..1000 => format!("{ms} ms"),
            1000..10_000 => format!("{}.{:02} s", (ms + 5) / 1000, (ms + 5) / 10 % 100),
            10_000..60_000 => format!("{}.{} s", (ms + 50) / 1000, (ms + 50) / 100 % 10),
            _ => format!(
                "{}m {}s",
                ms / 60_000,
                ((ms % 60_000) as f64 / 1000.0).round()
            ),
        }
    };
    assert_eq!(
        js(
            &page,
            "return Array.from(document.querySelectorAll('#timeline .tl-row:not(.between) .tl-out')).map(o => o.textContent)"
        )
        .await,
        serde_json::json!([dur(ms(0)), dur(ms(1)), "failed: timeout"])
    );
    // The film strip: the step's screenshots (no per-call ones were asked
    // for), each drawn, with its caption.
    until(
        &page,
        "the film strip's images drawn",
        "var i = document.querySelectorAll('#timeline .filmstrip img'); return i.length > 0 && Array.from(i).every(x => x.complete && x.naturalWidth > 0)",
    )
    .await;
    let film = js(
        &page,
        "return Array.from(document.querySelectorAll('#timeline .filmstrip figcaption')).map(c => c.textContent)",
    )
    .await;
    assert_eq!(
        film,
        serde_json::json!(["before the step", "after the step", "at the failure"])
    );
    let detail = js(
        &page,
        "return document.querySelector('#timeline .tl-detail').innerText",
    )
    .await
    .as_str()
    .unwrap()
    .to_string();
    assert!(
        detail.contains("timed out after") && detail.contains("tests/fixtures/trace.rs:"),
        "the error and the source line: {detail}"
    );

    // Before: the page rebuilt, the Save button outlined as the target.
    shows(&page, "before").await;
    let snapshot = page.frame_locator("#timeline iframe.snapshot");
    expect(&snapshot.get_by_role("button").name("Save"))
        .to_have_css("outline-style", "solid")
        .await
        .unwrap();
    expect(&snapshot.get_by_label("Name"))
        .to_have_value("milk")
        .await
        .unwrap();
    // `a`: after the click; `b`: before it again.
    page.keyboard().press("a").await.unwrap();
    shows(&page, "after").await;
    expect(&snapshot.get_by_role("heading"))
        .to_have_text("Items")
        .await
        .unwrap();
    page.keyboard().press("b").await.unwrap();
    shows(&page, "before").await;
    expect(&snapshot.get_by_role("button").name("Save"))
        .to_have_css("outline-style", "solid")
        .await
        .unwrap();

    // `j` from the goto: the fill, its request and console line.
    page.click("#timeline .tl-row[data-n=\"1\"]").await.unwrap();
    until(
        &page,
        "the goto selected",
        "var r = document.querySelector('#timeline .tl-row.sel'); return !!r && r.getAttribute('data-n') === '1'",
    )
    .await;
    page.keyboard().press("j").await.unwrap();
    until(
        &page,
        "the fill selected",
        "var r = document.querySelector('#timeline .tl-row.sel:not(.between)'); return !!r && r.getAttribute('data-n') === '2'",
    )
    .await;
    let said = logs(&page).await;
    assert!(
        said.contains("/api/typed?v=milk") && said.contains("typed milk"),
        "the fill's request and console line: {said}"
    );
    video_follows_the_timeline(&page, &only_run(&hj, "failing")).await;

    // Its title closes the timeline (Esc is the run view's: back).
    page.click("#timeline h3").await.unwrap();
    until(
        &page,
        "the timeline closed",
        "return document.getElementById('timeline').classList.contains('closed')",
    )
    .await;

    // A click in a frame: its snapshot holds the frame's document.
    open(&page, &format!("#/run/framed/{framed}/01")).await;
    until(
        &page,
        "the framed step's rows",
        "return document.querySelectorAll('#timeline .tl-row:not(.between)').length === 2",
    )
    .await;
    // Traced, not filmed: no video beside the timeline.
    assert_eq!(
        js(&page, "return document.querySelector('#video') === null").await,
        true
    );
    page.click("#timeline .tl-row[data-n=\"2\"]").await.unwrap();
    shows(&page, "before").await;
    let frame = page
        .frame_locator("#timeline iframe.snapshot")
        .frame_locator("iframe");
    expect(&frame.get_by_text("Card ending 4242"))
        .to_be_visible()
        .await
        .unwrap();
    expect(&frame.get_by_role("button").name("Pay"))
        .to_have_css("outline-style", "solid")
        .await
        .unwrap();

    // A filmed run's step without a trace (never reached): the video at the top.
    open(&page, &format!("#/run/failing/{failing}/03")).await;
    until(
        &page,
        "the video back at the top",
        "return !!document.querySelector('#video-home #video video') && !document.getElementById('timeline')",
    )
    .await;

    // A run without traces: no timeline.
    open(&page, &format!("#/run/passing/{passing}/02")).await;
    until(
        &page,
        "the passing step",
        "var h = document.querySelector('#step h2'); return !!h && h.textContent.indexOf('Type a name') >= 0",
    )
    .await;
    assert_eq!(
        js(&page, "return document.getElementById('timeline') === null").await,
        true
    );

    browsers.release(page).await;
    browsers.shutdown().await;
}

/// The video's time 0 on the trace's clock, from `video.vtt`'s
/// `NOTE startedAt=…` (ms since the Unix epoch).
fn video_started_at(run_dir: &Path) -> f64 {
    let vtt = std::fs::read_to_string(run_dir.join("video.vtt")).unwrap();
    vtt.lines()
        .find_map(|l| l.strip_prefix("NOTE startedAt="))
        .unwrap_or_else(|| panic!("no start in {vtt}"))
        .parse()
        .unwrap()
}

/// The video's `[currentTime, paused]` in the page.
async fn video_state(page: &Page) -> (f64, bool) {
    let v = js(
        page,
        "var v = document.querySelector('#timeline .tl-video video'); return [v.currentTime, v.paused]",
    )
    .await;
    (v[0].as_f64().unwrap(), v[1].as_bool().unwrap())
}

/// The row the timeline chooses once the video's time is `at` s (set, and
/// its `timeupdate` sent, as playing would).
async fn row_at(page: &Page, at: f64) -> serde_json::Value {
    js(
        page,
        &format!(
            "var v = document.querySelector('#timeline .tl-video video'); v.currentTime = {at}; v.dispatchEvent(new Event('timeupdate')); \
             return document.querySelector('#timeline .tl-row.sel').getAttribute('data-n')"
        ),
    )
    .await
}

/// The failing run's step 2 (open, its timeline shown, filmed): the video
/// sits above the rows; choosing the 2nd and the 3rd call pauses the
/// playing video at each call's start (trace.json's `start` less the
/// video's start); the video's time inside the 3rd call chooses its row
/// (the video left there); in step 1's timeline that time leaves the row.
async fn video_follows_the_timeline(page: &Page, run_dir: &Path) {
    let started_at = video_started_at(run_dir);
    let trace = support::json(run_dir.join("step-02/evidence/trace.json"));
    let entries = trace["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3, "{trace}");
    let start = |i: usize| entries[i]["start"].as_f64().unwrap();
    let end = |i: usize| entries[i]["end"].as_f64().unwrap();
    let step_1 = support::json(run_dir.join("step-01/evidence/trace.json"));
    assert!(
        started_at <= step_1["entries"][0]["start"].as_f64().unwrap()
            && started_at > step_1["startedAt"].as_f64().unwrap() - 60_000.0,
        "the video starts as the page opens, in step 1: {started_at}, {step_1}"
    );
    // The video above the rows, its metadata read.
    until(
        page,
        "the video above the timeline",
        "var v = document.querySelector('#timeline .tl-video #video video'); return !!v && v.readyState >= 1 && v.duration > 0 && document.getElementById('video-home').children.length === 0",
    )
    .await;
    // Playing (muted: no user gesture needed).
    js(
        page,
        "var v = document.querySelector('#timeline .tl-video video'); v.muted = true; v.play(); return true",
    )
    .await;
    until(
        page,
        "the video playing",
        "return !document.querySelector('#timeline .tl-video video').paused",
    )
    .await;
    for (i, n) in [(1, "2"), (2, "3")] {
        page.click(&format!("#timeline .tl-row[data-n=\"{n}\"]"))
            .await
            .unwrap();
        until(
            page,
            &format!("call {n} selected"),
            &format!(
                "var r = document.querySelector('#timeline .tl-row.sel'); return !!r && r.getAttribute('data-n') === '{n}'"
            ),
        )
        .await;
        let (at, paused) = video_state(page).await;
        let want = (start(i) - started_at) / 1000.0;
        assert!(
            (at - want).abs() <= 0.05,
            "call {n}: the video at {at} s, its start {want} s"
        );
        assert!(paused, "call {n}: the video paused at its start");
    }
    // Back to the 2nd call, then the video's time inside the 3rd: its row.
    page.click("#timeline .tl-row[data-n=\"2\"]").await.unwrap();
    let inside = ((start(2) + end(2)) / 2.0 - started_at) / 1000.0;
    let chosen = row_at(page, inside).await;
    assert_eq!(chosen, "3", "the video at {inside} s is in the 3rd call");
    let (at, _) = video_state(page).await;
    assert!(
        (at - inside).abs() <= 0.05,
        "the row chosen by the video leaves it at {inside} s: {at} s"
    );
    // Step 1's timeline (its goto and its assertion), the same video above
    // it: its goto chosen, a time in step 2 leaves it chosen (not the last
    // call begun by then: step 1's range does not hold that time).
    page.click("#steps li[data-id=\"01\"]").await.unwrap();
    until(
        page,
        "step 1's timeline with the video",
        "return document.querySelectorAll('#timeline .tl-row:not(.between)').length === 2 && !!document.querySelector('#timeline .tl-video #video video')",
    )
    .await;
    page.click("#timeline .tl-row[data-n=\"1\"]").await.unwrap();
    let chosen = row_at(page, inside).await;
    assert_eq!(chosen, "1", "the video at {inside} s, in step 2");
    page.click("#steps li[data-id=\"02\"]").await.unwrap();
    until(
        page,
        "step 2's timeline again",
        "return document.querySelectorAll('#timeline .tl-row:not(.between)').length === 3",
    )
    .await;
}
