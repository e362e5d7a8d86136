//! The HTML report, opened from disk in real headless Chromium (through our own
//! browser module): runs of the demo suite recorded by `cargo test` (passing
//! and failing) and a run recorded by an agent through the MCP tools.
//! Screenshots of the report are kept in `target/test-output/report/`.

use crate::support;
use crate::support::browsers;
use crate::support::page;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use harshjudge::browser::{BrowserConfig, Page};
use harshjudge_store::judge::Verdict;
use harshjudge_store::store::judge::StepJudgment;
use harshjudge_store::store::{RunId, Slug, Store};
use page::{js, until};
use serde_json::{Value, json};
use support::run_suite;

fn output_dir() -> PathBuf {
    let d = support::workspace().join("target/test-output/report");
    std::fs::create_dir_all(&d).unwrap();
    d
}

async fn save(page: &Page, name: &str) {
    let png = page.screenshot().await.unwrap();
    let path = output_dir().join(name);
    std::fs::write(&path, png).unwrap();
    println!("report screenshot: {}", path.display());
}

/// Every image in `selector` has loaded with a real size.
async fn images_load(page: &Page, selector: &str, at_least: u64) {
    let check = format!(
        "var imgs = Array.from(document.querySelectorAll({sel:?})); \
         return imgs.length >= {at_least} && imgs.every(function (i) {{ return i.complete && i.naturalWidth > 0; }})",
        sel = selector
    );
    until(page, &format!("images {selector} load"), &check).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_shows_passing_and_failing_runs_from_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    // Passing web scenarios, then the demo's failing one.
    let r = run_suite("demo", &hj, &["web_"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let r = run_suite(
        "demo",
        &hj,
        &["web_expected_failure::"],
        &[("HARSHJUDGE_DEMO_FAIL", "1")],
    );
    assert_eq!(r.code, 101, "{r:?}");
    let index = hj.join("report/index.html");
    assert!(
        r.stdout.contains(&format!("report: {}", index.display())),
        "the harness prints the report's path: {r:?}"
    );

    // An agent's run of another scenario, through the MCP tools, then the report
    // regenerated on demand.
    let ctx = harshjudge_mcp::Context::new(tmp.path()).unwrap();
    let ok = |tool: &str, args: Value| {
        let out = harshjudge_mcp::call(&ctx, tool, Some(args));
        assert!(!out.is_error(), "{tool}: {}", out.value);
        out.value
    };
    ok(
        "createScenario",
        json!({"slug": "agent-checkout", "title": "Agent checks out", "tags": ["agent"],
               "steps": [
                   {"title": "Open the shop", "actions": "open /", "expectedOutcome": "the shop shows"},
                   {"title": "Pay", "actions": "pay", "expectedOutcome": "a receipt"}]}),
    );
    let run = ok("startRun", json!({"scenarioSlug": "agent-checkout"}));
    let id = run["runId"].as_str().unwrap().to_string();
    ok(
        "recordEvidence",
        json!({"runId": id, "stepId": "01", "type": "api_response", "name": "cart", "data": "{\"items\": [1, 2]}"}),
    );
    ok(
        "completeStep",
        json!({"runId": id, "stepId": "01", "status": "pass", "duration": 12}),
    );
    ok(
        "completeStep",
        json!({"runId": id, "stepId": "02", "status": "pass", "duration": 30}),
    );
    ok("completeRun", json!({"runId": id, "duration": 50}));
    let stats = harshjudge_store::report::html::write(&hj).unwrap();
    assert_eq!(stats.index, index);

    let base = demo_app::start_in_background().unwrap();
    let mut config = BrowserConfig::from_env().expect("browser settings");
    config.webdriver_url = None;
    let page = browsers()
        .open_page_with(&config, &base)
        .await
        .expect("a browser page (needs chromium and chromium-driver)");
    let url = format!("file://{}", index.display());
    page.goto(&url).await.unwrap();

    // Overview: every scenario, failing first.
    until(
        &page,
        "overview rows",
        "return document.querySelectorAll('tr.scenario').length === 6",
    )
    .await;
    assert_eq!(
        js(
            &page,
            "return document.querySelector('tr.scenario').dataset.slug"
        )
        .await,
        "web-expected-failure"
    );
    assert_eq!(
        js(
            &page,
            "return document.querySelector('tr.scenario .pill').textContent"
        )
        .await,
        "fail"
    );
    // It passed, then failed in a later invocation: a regression shown as a
    // mixed history, never as flaky (issue 11, point 4).
    assert_eq!(
        js(
            &page,
            "return Array.from(document.querySelectorAll('tr.scenario')[0].querySelectorAll('.pill')).map(function (p) { return p.textContent; }).join(',')"
        )
        .await,
        "fail,mixed history"
    );
    assert_eq!(
        js(
            &page,
            "return document.querySelector('[data-filter=flaky] .c').textContent"
        )
        .await,
        "0"
    );
    assert!(
        js(
            &page,
            "return document.querySelector('[data-slug=agent-checkout]').innerText"
        )
        .await
        .as_str()
        .unwrap()
        .contains("Agent checks out"),
        "the agent's run is listed"
    );
    save(&page, "overview.png").await;

    // Filters: failed only, a tag, text search.
    page.click("[data-filter=failed]").await.unwrap();
    until(
        &page,
        "failed filter",
        "var r = document.querySelectorAll('tr.scenario'); return r.length === 1 && r[0].dataset.slug === 'web-expected-failure'",
    )
    .await;
    page.click("[data-filter=all]").await.unwrap();
    page.select("#tag", "agent").await.unwrap();
    until(
        &page,
        "tag filter",
        "var r = document.querySelectorAll('tr.scenario'); return r.length === 1 && r[0].dataset.slug === 'agent-checkout'",
    )
    .await;
    page.select("#tag", "All tags").await.unwrap();
    page.fill("#q", "console").await.unwrap();
    until(
        &page,
        "search",
        "var r = document.querySelectorAll('tr.scenario'); return r.length === 1 && r[0].dataset.slug === 'web-console'",
    )
    .await;
    page.fill("#q", "").await.unwrap();
    until(
        &page,
        "search cleared",
        "return document.querySelectorAll('tr.scenario').length === 6",
    )
    .await;

    // The failing run: the failed step up front with its error and screenshot.
    page.click("tr.scenario[data-slug=web-expected-failure]")
        .await
        .unwrap();
    until(
        &page,
        "failure panel",
        "var f = document.getElementById('failure'); return !!f && f.innerText.indexOf('Step 02 failed') >= 0",
    )
    .await;
    let failure = js(
        &page,
        "return document.querySelector('#failure pre').innerText",
    )
    .await;
    assert!(
        failure.as_str().unwrap().contains("/dashboard"),
        "the error of expect_url: {failure}"
    );
    assert!(
        js(
            &page,
            "return document.querySelector('#failure .loc').innerText"
        )
        .await
        .as_str()
        .unwrap()
        .contains("web.rs"),
        "the error's source location"
    );
    assert_eq!(
        js(
            &page,
            "return document.querySelector('#steps li.sel').dataset.id"
        )
        .await,
        "02",
        "the failed step is selected first"
    );
    images_load(&page, "#failure-shot", 1).await;
    images_load(
        &page,
        "#step .pair img.shot-before, #step .pair img.shot-after",
        2,
    )
    .await;
    assert_eq!(
        js(
            &page,
            "var a = document.querySelector('#step img.shot-before').getBoundingClientRect(), \
             b = document.querySelector('#step img.shot-after').getBoundingClientRect(); \
             return Math.abs(a.top - b.top) < 2 && b.left > a.right"
        )
        .await,
        true,
        "before and after side by side"
    );
    assert!(
        js(
            &page,
            "return document.querySelectorAll('#step table.network tr').length"
        )
        .await
        .as_u64()
        .unwrap()
            >= 1
            || js(
                &page,
                "return document.querySelectorAll('#step table.console tr').length"
            )
            .await
            .as_u64()
            .unwrap()
                >= 1,
        "the step's logs are shown"
    );
    save(&page, "failed-run.png").await;

    // Zoom and compare.
    page.click("#step img.shot-after").await.unwrap();
    until(
        &page,
        "zoom opens",
        "return document.getElementById('zoom').classList.contains('open')",
    )
    .await;
    page.press("body", "Escape").await.unwrap();
    until(
        &page,
        "zoom closes",
        "return !document.getElementById('zoom').classList.contains('open')",
    )
    .await;
    page.click("#step button.compare").await.unwrap();
    images_load(&page, "#step .swipe img", 2).await;

    // Keyboard between steps.
    page.press("body", "ArrowUp").await.unwrap();
    until(
        &page,
        "ArrowUp selects step 01",
        "return document.querySelector('#steps li.sel').dataset.id === '01'",
    )
    .await;
    images_load(&page, "#step .pair img", 2).await;
    page.press("body", "j").await.unwrap();
    until(
        &page,
        "j selects step 02",
        "return document.querySelector('#steps li.sel').dataset.id === '02'",
    )
    .await;

    // Back to the overview, then a passing run.
    page.press("body", "Escape").await.unwrap();
    until(
        &page,
        "Esc goes back",
        "return document.querySelectorAll('tr.scenario').length === 6",
    )
    .await;
    page.click("tr.scenario[data-slug=web-login]")
        .await
        .unwrap();
    until(
        &page,
        "passing run",
        "return document.querySelectorAll('#steps li.pass').length === 3 && !document.getElementById('failure')",
    )
    .await;
    images_load(&page, "#step .pair img", 2).await;
    save(&page, "passing-run.png").await;

    // The agent's run: its attachment pretty-printed.
    page.goto(&format!("{url}#/run/agent-checkout/{id}"))
        .await
        .unwrap();
    until(
        &page,
        "agent run attachment",
        "var p = document.querySelector('#step .files pre'); return !!p && p.innerText.indexOf('\"items\": [') >= 0",
    )
    .await;

    browsers().release(page).await;
    browsers().shutdown().await;
}

/// Sets the expectations of a run's steps in its `result.json` (what
/// `step!(…, expect = "…")` records), so that the test stands on the store's API alone.
fn with_expectations(store: &Store, slug: &Slug, run: &RunId, expectations: &[(&str, &str)]) {
    let mut result = store.scenario(slug).run(run).result().unwrap().unwrap();
    for (id, text) in expectations {
        let step = result.steps.iter_mut().find(|s| s.id == *id).unwrap();
        step.expectation = Some(text.to_string());
    }
    store.scenario(slug).run(run).write_result(&result).unwrap();
}

/// The newest run of `slug`.
fn newest(hj: &Path, slug: &str) -> RunId {
    let dir = support::runs(hj, slug).pop().expect("a run");
    RunId::new(dir.file_name().unwrap().to_str().unwrap()).unwrap()
}

/// Issue 15, point 4: the report shows each judged step's expectation, verdict,
/// judge, reasoning and duration next to its evidence, the run's executed and
/// judged status when they differ, counts the scenarios failed by a verdict,
/// and shows a failed `to_have_screenshot` (expected / actual / diff with the
/// swipe compare) as the step's visual judgment. Real runs in real Chromium;
/// the verdicts recorded through the store (`record_judgment` + `apply_judgment`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_shows_verdicts_and_visual_judgments_next_to_the_evidence() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let store = Store::new(&hj);
    // checkout: the page shows an error where the receipt should be; the code passes.
    let r = run_suite(
        "judged_suite",
        &hj,
        &["checkout::"],
        &[("JUDGED_RECEIPT", "error")],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let checkout = Slug::new("checkout").unwrap();
    let run = newest(&hj, "checkout");
    let expect = "a receipt with the total is shown and no error is visible";
    with_expectations(&store, &checkout, &run, &[("02", expect)]);
    let why = "The page shows \"The card was declined.\" in a red alert; no receipt and no total are visible.";
    store
        .scenario(&checkout)
        .run(&run)
        .record_judgment(
            StepJudgment {
                step_id: "02".into(),
                expectation: expect.into(),
                verdict: Some(Verdict::Fail),
                reasoning: why.into(),
                judge: "command".into(),
                identity: "command:./judge.sh".into(),
                inputs_hash: "sha256:00".into(),
                duration_ms: 1234,
                attempts: 1,
                judged_at: "2026-11-23T00:00:00.000Z".into(),
                error: None,
                answer: harshjudge_store::store::judge::AnswerInfo::default(),
            },
            Some("prompt"),
            Some("{\"verdict\":\"fail\"}"),
        )
        .unwrap();
    store
        .scenario(&checkout)
        .run(&run)
        .apply_judgment(|r, j| harshjudge_store::judge::combine_verdicts(r, j, false))
        .unwrap();
    // notes: an expectation with no judge yet (pending).
    let r = run_suite("judged_suite", &hj, &["notes::"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let notes = Slug::new("notes").unwrap();
    let notes_run = newest(&hj, "notes");
    with_expectations(
        &store,
        &notes,
        &notes_run,
        &[("01", "the note says all is good")],
    );
    store
        .scenario(&notes)
        .run(&notes_run)
        .apply_judgment(|r, j| harshjudge_store::judge::combine_verdicts(r, j, false))
        .unwrap();
    // plain-page: a baseline, then another colour: to_have_screenshot fails with a diff.
    let snaps = tmp.path().join("snaps");
    let visual = |envs: &[(&str, &str)], args: &[&str]| {
        let mut cmd = std::process::Command::new(support::test_binary("visual_suite"));
        cmd.current_dir(support::workspace())
            .arg("plain_page::")
            .args(args)
            .env("HARSHJUDGE_DIR", &hj)
            .env("HARSHJUDGE_SNAPSHOT_DIR", &snaps)
            .env_remove("HARSHJUDGE_UPDATE_SNAPSHOTS")
            .env_remove("HARSHJUDGE_BASE_URL")
            .env_remove("NEXTEST_RUN_ID")
            .env_remove("NEXTEST");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        cmd.output().unwrap().status.code()
    };
    assert_eq!(visual(&[], &["--update-snapshots"]), Some(0));
    assert_eq!(visual(&[("VISUAL_VARIANT", "b")], &[]), Some(101));
    harshjudge_store::report::html::write(&hj).unwrap();

    let mut config = BrowserConfig::from_env().expect("browser settings");
    config.webdriver_url = None;
    let url = format!("file://{}", hj.join("report/index.html").display());
    let page = browsers()
        .open_page_with(&config, &url)
        .await
        .expect("a browser page (needs chromium and chromium-driver)");
    page.goto(&url).await.unwrap();
    until(
        &page,
        "overview rows",
        "return document.querySelectorAll('tr.scenario').length === 3",
    )
    .await;
    assert_eq!(
        js(
            &page,
            "return document.querySelector('#judged-failures .n').textContent"
        )
        .await,
        "1",
        "one scenario failed by a verdict (plain-page failed in its code)"
    );
    assert_eq!(
        js(&page, "return Array.from(document.querySelectorAll('tr.scenario[data-slug=checkout] .pill')).map(function (p) { return p.textContent; }).join(',')").await,
        "fail,by verdict"
    );
    save(&page, "judged-overview.png").await;

    // The judged run: executed pass, judged fail; the verdict up front and beside the step's screenshots.
    page.click("tr.scenario[data-slug=checkout]").await.unwrap();
    until(
        &page,
        "the judged run",
        "var f = document.getElementById('failure'); return !!f && f.innerText.indexOf('failed by its verdict') >= 0",
    )
    .await;
    assert_eq!(
        js(
            &page,
            "return document.getElementById('judged-status').innerText"
        )
        .await,
        "executed: pass, judged: fail"
    );
    let panel = js(
        &page,
        "return document.querySelector('#failure .judgment').innerText",
    )
    .await;
    let panel = panel.as_str().unwrap();
    assert!(panel.contains(why) && panel.contains(expect), "{panel}");
    assert_eq!(
        js(
            &page,
            "return document.querySelector('#steps li.sel').dataset.id"
        )
        .await,
        "02"
    );
    let step = js(
        &page,
        "return document.querySelector('#step .judgment[data-verdict=fail]').textContent",
    )
    .await;
    let step = step.as_str().unwrap();
    for shown in [
        "Verdict",
        "fail",
        "by the command judge",
        "command:./judge.sh",
        "took 1.23 s",
        "executed: pass, judged: fail",
        "Expected",
        expect,
        "Reasoning",
        why,
    ] {
        assert!(step.contains(shown), "{shown:?} in {step}");
    }
    assert_eq!(
        js(
            &page,
            "return document.querySelector('#steps li.sel .vmark').textContent"
        )
        .await,
        "⚖ fail"
    );
    images_load(
        &page,
        "#step .pair img.shot-before, #step .pair img.shot-after",
        2,
    )
    .await;
    assert_eq!(
        js(
            &page,
            "var j = document.querySelector('#step .judgment').getBoundingClientRect(), \
             s = document.querySelector('#step img.shot-after').getBoundingClientRect(); \
             return j.bottom <= s.top"
        )
        .await,
        true,
        "the judgment sits right above the step's screenshots"
    );
    save(&page, "judged-run.png").await;

    // A pending verdict.
    page.goto(&format!("{url}#/run/notes/{notes_run}/01"))
        .await
        .unwrap();
    until(
        &page,
        "a pending verdict",
        "var j = document.querySelector('#step .judgment[data-verdict=pending]'); return !!j && j.innerText.indexOf('not judged yet') >= 0 && j.innerText.indexOf('the note says all is good') >= 0",
    )
    .await;
    assert_eq!(
        js(
            &page,
            "return document.querySelector('.runhead .pill').textContent"
        )
        .await,
        "pass",
        "a pending verdict fails nothing"
    );

    // The visual judgment: expected / actual / diff, and the swipe compare.
    let plain = newest(&hj, "plain-page");
    page.goto(&format!("{url}#/run/plain-page/{plain}"))
        .await
        .unwrap();
    until(
        &page,
        "the visual judgment",
        "var v = document.querySelector('#step .visual-judgment'); return !!v && v.innerText.indexOf('Visual judgment · home') >= 0",
    )
    .await;
    let v = js(
        &page,
        "return document.querySelector('#step .visual-judgment').textContent",
    )
    .await;
    let v = v.as_str().unwrap();
    for shown in [
        "fail",
        "to_have_screenshot(\"home\")",
        "Expected",
        "Actual",
        "Diff",
    ] {
        assert!(v.contains(shown), "{shown:?} in {v}");
    }
    images_load(&page, "#step .visual-judgment .pair img", 3).await;
    page.click("#step .visual-judgment button.compare")
        .await
        .unwrap();
    images_load(&page, "#step .visual-judgment .swipe img", 2).await;
    save(&page, "visual-judgment.png").await;

    browsers().release(page).await;
    browsers().shutdown().await;
}

/// The page's script parses (node): a syntax error once left the report blank.
#[test]
fn the_report_page_script_parses() {
    let page = harshjudge_store::report::html::index_html();
    let start = page.find("<script>").unwrap() + "<script>".len();
    let end = page.rfind("</script>").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("page.js");
    std::fs::write(&script, &page[start..end]).unwrap();
    let out = std::process::Command::new("node")
        .arg("-e")
        .arg("new Function(require('fs').readFileSync(process.argv[1], 'utf8'))")
        .arg(&script)
        .output()
        .expect("node must be installed to run this test (Debian: nodejs)");
    assert!(
        out.status.success(),
        "the page's script does not parse: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_report_is_self_contained() {
    // The snapshot renderer (inlined) writes `<link>` into the documents it
    // rebuilds, never into the page.
    let page = harshjudge_store::report::html::index_html().replacen(
        harshjudge_store::report::html::SNAPSHOT_RENDERER,
        "",
        1,
    );
    for banned in ["http://", "https://", "//cdn", "<link "] {
        assert!(!page.contains(banned), "the page references {banned}");
    }
    // Only two scripts it loads, both relative: the data.
    assert!(page.contains("data/overview.js") && page.contains("data/runs/"));
}

/// A port with the nine after it free (the dashboard may move up).
fn free_port_block() -> u16 {
    loop {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let p = l.local_addr().unwrap().port();
        drop(l);
        if p < 60000 && (p..p + 10).all(harshjudge_mcp::dashboard::port_free) {
            return p;
        }
    }
}

/// Stops the dashboard even if the test fails.
struct Dashboard(std::path::PathBuf);

impl Drop for Dashboard {
    fn drop(&mut self) {
        let _ = std::process::Command::new(support::mcp_binary())
            .args(["--cwd", self.0.to_str().unwrap(), "dashboard", "close"])
            .output();
    }
}

/// A project with scenario `checkout` (2 steps) and its dashboard, opened
/// with the real binary: (folder, context, dashboard url, guard).
fn live_project() -> (
    tempfile::TempDir,
    harshjudge_mcp::Context,
    String,
    Dashboard,
) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let ctx = harshjudge_mcp::Context::new(&root).unwrap();
    for (tool, args) in [
        (
            "initProject",
            json!({"projectName": "Live", "baseUrl": "http://127.0.0.1:9"}),
        ),
        (
            "createScenario",
            json!({"slug": "checkout", "title": "Checkout", "steps": [
                {"title": "Add to cart", "actions": "add", "expectedOutcome": "cart"},
                {"title": "Pay", "actions": "pay", "expectedOutcome": "receipt"}]}),
        ),
    ] {
        let out = harshjudge_mcp::call(&ctx, tool, Some(args));
        assert!(!out.is_error(), "{tool}: {}", out.value);
    }
    let out = std::process::Command::new(support::mcp_binary())
        .args([
            "--cwd",
            root.to_str().unwrap(),
            "dashboard",
            "open",
            "--no-browser",
            "--port",
        ])
        .arg(free_port_block().to_string())
        .env("HARSHJUDGE_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let guard = Dashboard(root.clone());
    let opened: Value = serde_json::from_slice(&out.stdout).unwrap();
    let url = opened["url"].as_str().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{opened}");
    (tmp, ctx, url, guard)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_dashboard_shows_a_run_as_its_steps_complete() {
    let (tmp, ctx, url, guard) = live_project();
    let ok = |tool: &str, args: Value| {
        let out = harshjudge_mcp::call(&ctx, tool, Some(args));
        assert!(!out.is_error(), "{tool}: {}", out.value);
        out.value
    };

    let mut config = BrowserConfig::from_env().expect("browser settings");
    config.webdriver_url = None;
    let page = browsers()
        .open_page_with(&config, &url)
        .await
        .expect("a browser page");
    page.goto("/").await.unwrap();
    until(&page, "the live page", "return document.body.classList.contains('is-live') && document.querySelectorAll('tr.scenario').length === 1").await;
    assert_eq!(
        js(
            &page,
            "return document.querySelector('tr.scenario .pill').textContent"
        )
        .await,
        "no runs"
    );

    // A run starts: the overview shows it running within 2 s.
    let run = ok("startRun", json!({"scenarioSlug": "checkout"}));
    let id = run["runId"].as_str().unwrap().to_string();
    let t = Instant::now();
    until(
        &page,
        "the running run appears",
        "return document.querySelector('tr.scenario .pill').textContent === 'running'",
    )
    .await;
    let appeared = t.elapsed();

    // Open it; its steps appear as they complete.
    page.goto(&format!("{url}/report/#/run/checkout/{id}"))
        .await
        .unwrap();
    until(
        &page,
        "the run page",
        "return document.querySelectorAll('#steps li.pending').length === 2",
    )
    .await;
    ok(
        "completeStep",
        json!({"runId": id, "stepId": "01", "status": "pass", "duration": 5}),
    );
    let t = Instant::now();
    until(&page, "step 01 passes live", "return document.querySelectorAll('#steps li.pass').length === 1 && document.querySelectorAll('#steps li.pending').length === 1").await;
    let step_shown = t.elapsed();
    ok(
        "completeStep",
        json!({"runId": id, "stepId": "02", "status": "fail", "duration": 7, "error": "card declined"}),
    );
    ok("completeRun", json!({"runId": id}));
    let t = Instant::now();
    until(&page, "the failure appears live", "var f = document.getElementById('failure'); return !!f && f.innerText.indexOf('card declined') >= 0").await;
    let failure_shown = t.elapsed();
    save(&page, "live-dashboard.png").await;
    println!(
        "live dashboard: run shown after {appeared:?}, step after {step_shown:?}, failure after {failure_shown:?}"
    );
    for (what, d) in [
        ("run", appeared),
        ("step", step_shown),
        ("failure", failure_shown),
    ] {
        assert!(
            d < Duration::from_millis(2000),
            "the {what} appeared after {d:?} (limit 2 s)"
        );
    }
    browsers().release(page).await;
    browsers().shutdown().await;
    // Closed with the test: no dashboard process is left (a leak, like a browser's).
    drop(guard);
    assert_eq!(support::dashboards_left(tmp.path(), 5), Vec::<u32>::new());
}

/// A loopback proxy to 127.0.0.1:`upstream` that holds the first
/// `GET /api/stamp` until [`HoldFirstStamp::release`]: the window between the
/// page's first data load and its first poll, as long as the test wants it.
/// Each request gets its own upstream connection (`Connection: close`).
struct HoldFirstStamp {
    port: u16,
    arrived: Arc<AtomicBool>,
    gate: Arc<(Mutex<bool>, Condvar)>,
}

impl HoldFirstStamp {
    fn start(upstream: u16) -> HoldFirstStamp {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let arrived = Arc::new(AtomicBool::new(false));
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let (a, g) = (arrived.clone(), gate.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let (a, g) = (a.clone(), g.clone());
                std::thread::spawn(move || Self::forward(client, upstream, &a, &g));
            }
        });
        HoldFirstStamp {
            port,
            arrived,
            gate,
        }
    }

    fn forward(
        client: TcpStream,
        upstream: u16,
        arrived: &AtomicBool,
        gate: &(Mutex<bool>, Condvar),
    ) {
        let mut reader = BufReader::new(client.try_clone().unwrap());
        let mut head = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if !line.to_ascii_lowercase().starts_with("connection:") {
                head.push_str(&line);
            }
        }
        let path = head.split_whitespace().nth(1).unwrap_or("");
        if path.starts_with("/api/stamp") && !arrived.swap(true, Ordering::SeqCst) {
            let (open, cv) = gate;
            let mut open = open.lock().unwrap();
            while !*open {
                open = cv.wait(open).unwrap();
            }
        }
        head.push_str("Connection: close\r\n\r\n");
        let Ok(mut up) = TcpStream::connect(("127.0.0.1", upstream)) else {
            return;
        };
        up.write_all(head.as_bytes()).unwrap();
        let mut client = client;
        let _ = std::io::copy(&mut up, &mut client);
    }

    /// Whether the page asked for its first stamp (held).
    fn arrived(&self) -> bool {
        self.arrived.load(Ordering::SeqCst)
    }

    fn release(&self) {
        let (open, cv) = &*self.gate;
        *open.lock().unwrap() = true;
        cv.notify_all();
    }
}

/// Issue 20.2: a change that lands after the page's first data load but
/// before its first `/api/stamp` is shown: the data carries the stamp it was
/// read at, and the first poll compares against that (the page once took its
/// first stamp as the baseline, and never showed such a change).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_dashboard_sees_a_change_made_before_its_first_poll() {
    let (_tmp, ctx, url, _guard) = live_project();
    let upstream: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    let proxy = HoldFirstStamp::start(upstream);
    let proxied = format!("http://127.0.0.1:{}", proxy.port);
    let mut config = BrowserConfig::from_env().expect("browser settings");
    config.webdriver_url = None;
    let page = browsers()
        .open_page_with(&config, &proxied)
        .await
        .expect("a browser page");
    page.goto("/").await.unwrap();
    until(&page, "the live page", "return document.body.classList.contains('is-live') && document.querySelectorAll('tr.scenario').length === 1").await;
    let start = Instant::now();
    while !proxy.arrived() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the page never asked for /api/stamp"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        js(
            &page,
            "return document.querySelector('tr.scenario .pill').textContent"
        )
        .await,
        "no runs"
    );
    // The run starts while the first poll is held; then the poll goes on.
    let out = harshjudge_mcp::call(&ctx, "startRun", Some(json!({"scenarioSlug": "checkout"})));
    assert!(!out.is_error(), "startRun: {}", out.value);
    proxy.release();
    let t = Instant::now();
    until(
        &page,
        "the run started before the first poll appears",
        "return document.querySelector('tr.scenario .pill').textContent === 'running'",
    )
    .await;
    println!(
        "a change before the first poll shown {:?} after the poll",
        t.elapsed()
    );
    browsers().release(page).await;
    browsers().shutdown().await;
}
