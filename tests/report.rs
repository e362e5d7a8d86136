//! The HTML report, opened from disk in real headless Chromium (through our own
//! browser module): runs of the demo suite recorded by `cargo test` (passing
//! and failing) and a run recorded by an agent through the MCP tools.
//! Screenshots of the report are kept in `target/test-output/report/`.

mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use harshjudge::browser::{BrowserConfig, Page, open_page_with, release_page};
use serde_json::{Value, json};
use support::cargo_test;

fn output_dir() -> PathBuf {
    let d = support::workspace().join("target/test-output/report");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Evaluates `js` until it returns `true` (the page renders asynchronously).
async fn until(page: &Page, what: &str, js: &str) {
    let start = Instant::now();
    loop {
        let v = page.eval(js).await.unwrap();
        if v == Value::Bool(true) {
            return;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let body = page
                .eval("return document.body.innerText.slice(0, 2000)")
                .await
                .unwrap();
            panic!("{what}: still {v} after 10 s; page text: {body}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn js(page: &Page, js: &str) -> Value {
    page.eval(js).await.unwrap()
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
    let r = cargo_test("demo", &hj, &["web_"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let r = cargo_test(
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
    let stats = harshjudge::report::html::write(&hj).unwrap();
    assert_eq!(stats.index, index);

    let base = demo_app::start_in_background().unwrap();
    let mut config = BrowserConfig::from_env().expect("browser settings");
    config.webdriver_url = None;
    let page = open_page_with(&config, &base)
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

    release_page(page).await;
    harshjudge::browser::shutdown().await;
}

#[test]
fn the_report_is_self_contained() {
    let page = harshjudge::report::html::index_html();
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_dashboard_shows_a_run_as_its_steps_complete() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let ctx = harshjudge_mcp::Context::new(&root).unwrap();
    let ok = |tool: &str, args: Value| {
        let out = harshjudge_mcp::call(&ctx, tool, Some(args));
        assert!(!out.is_error(), "{tool}: {}", out.value);
        out.value
    };
    ok(
        "initProject",
        json!({"projectName": "Live", "baseUrl": "http://127.0.0.1:9"}),
    );
    ok(
        "createScenario",
        json!({"slug": "checkout", "title": "Checkout", "steps": [
            {"title": "Add to cart", "actions": "add", "expectedOutcome": "cart"},
            {"title": "Pay", "actions": "pay", "expectedOutcome": "receipt"}]}),
    );
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
    let _guard = Dashboard(root.clone());
    let opened: Value = serde_json::from_slice(&out.stdout).unwrap();
    let url = opened["url"].as_str().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{opened}");

    let mut config = BrowserConfig::from_env().expect("browser settings");
    config.webdriver_url = None;
    let page = open_page_with(&config, &url).await.expect("a browser page");
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
    release_page(page).await;
    harshjudge::browser::shutdown().await;
}
