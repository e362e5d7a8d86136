//! Issue 23 (reads and captures): the page's reads and screenshots on a page
//! with routes, during and right after a navigation.
//!
//! On Chromium, a classic command sent while a navigation loads waits in
//! chromedriver for that load, and chromedriver forwards no BiDi command
//! meanwhile: a `page.url()` right after a click onto a document a route
//! answers, or an `evaluate` whose `fetch` a route answers, held back the
//! route's answer and hung until the step's limit. On Firefox, geckodriver's
//! classic reads could see the document the navigation was leaving. With
//! routes (and always on Firefox) `url`, `title`, `html`, `evaluate`, `eval`,
//! screenshots and the step's evidence go over WebDriver BiDi, once the
//! navigation under way has reached its document.
//!
//! The scenarios run in-process through the harness with `--browser NAME`,
//! one run after the other, against a loopback server of this test that does
//! not know the routed paths (it answers them 404).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use harshjudge::browser::BrowserError;
use harshjudge::regex::Regex;
use harshjudge::serde_json::{Value, json};
use harshjudge::{Response, Scenario, expect, scenario, step};

use crate::support;

const START: &str = r#"<!doctype html><title>start</title>
<p id="start">start</p>
<a id="link" href="/next">next</a>
<form action="/found" method="get"><input id="q" name="q"></form>"#;

/// The routed document, answered after a while: a read sent meanwhile must
/// wait for it without holding the answer back.
async fn late_document(
    route: harshjudge::Route,
    title: &'static str,
    text: &'static str,
) -> Result<(), BrowserError> {
    tokio::time::sleep(Duration::from_millis(400)).await;
    let doc = Response::new().content_type("text/html").body(format!(
        "<!doctype html><title>{title}</title><p id=\"next\">{text}</p>"
    ));
    route.fulfill(doc).await
}

/// Every read of the page, as text: `url`, `title`, `evaluate`, `eval`,
/// whether `html` has `text`, and the screenshot's PNG signature.
async fn reads(page: &harshjudge::Page, text: &str) -> Result<Value, harshjudge::Error> {
    let url = page.url().await?;
    let title = page.title().await?;
    let evaluated: String = page.evaluate("document.title", ()).await?;
    let eval = page.eval("return document.body.textContent").await?;
    let html = page.html().await?;
    let png = page.screenshot().await?;
    Ok(json!({
        "url": url,
        "title": title,
        "evaluate": evaluated,
        "eval": eval,
        "html_has_text": html.contains(text),
        "png": png.starts_with(b"\x89PNG"),
    }))
}

/// An evaluate whose fetch a route answers.
#[scenario]
async fn routed_fetch(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("An evaluate whose fetch a route answers", {
        page.route("**/api/data", |route| async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            route.fulfill(Response::new().json(&json!({"n": 42}))).await
        })
        .await?;
        page.goto("/start").await?;
        let started = Instant::now();
        let v: Value = page
            .evaluate("async (path) => (await fetch(path)).json()", "/api/data")
            .await?;
        s.attach_text("ms", &started.elapsed().as_millis().to_string())?;
        s.attach_json("value", &v)?;
    });
    Ok(())
}

/// A wait_for_function whose condition a route's answer makes true.
#[scenario]
async fn routed_wait(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("A wait_for_function that a route's answer ends", {
        page.route("**/api/data", |route| async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            route.fulfill(Response::new().json(&json!({"n": 42}))).await
        })
        .await?;
        page.goto("/start").await?;
        page.evaluate::<Value, _>(
            "() => { fetch('/api/data').then((r) => r.json()).then((v) => { window.__late = v.n; }); }",
            (),
        )
        .await?;
        let v = page.wait_for_function("() => window.__late", ()).await?;
        s.attach_json("value", &v)?;
    });
    Ok(())
}

/// Every read after a click and after an Enter onto routed documents, once
/// the URL is the new one.
#[scenario]
async fn routed_reads(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Every read right after a click onto a routed document", {
        page.route("**/next", |route| {
            late_document(route, "next", "routed next")
        })
        .await?;
        page.goto("/start").await?;
        let started = Instant::now();
        page.locator("#link").click().await?;
        // An action does not wait for the navigation it starts (as
        // Playwright's): a web-first expectation does, over BiDi on a routed
        // page, and every read after it is of the new document.
        expect(&page)
            .to_have_url(Regex::new("/next$").unwrap())
            .await?;
        let read = reads(&page, "routed next").await?;
        s.attach_text("ms", &started.elapsed().as_millis().to_string())?;
        s.attach_json("reads", &read)?;
    });
    step!("Every read right after an Enter onto a routed document", {
        page.route("**/found?*", |route| {
            late_document(route, "found", "routed found")
        })
        .await?;
        page.goto("/start").await?;
        page.locator("#q").fill("rust").await?;
        let started = Instant::now();
        page.locator("#q").press("Enter").await?;
        expect(&page)
            .to_have_url(Regex::new("/found\\?q=rust$").unwrap())
            .await?;
        let read = reads(&page, "routed found").await?;
        s.attach_text("ms", &started.elapsed().as_millis().to_string())?;
        s.attach_json("reads", &read)?;
    });
    Ok(())
}

/// A step that fails right after a click onto a routed document: its
/// failure evidence (`page.html`, the screenshot) is of that document.
#[scenario]
async fn routed_failure(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Fail on a routed document", {
        page.route("**/next", |route| {
            late_document(route, "next", "routed next")
        })
        .await?;
        page.goto("/start").await?;
        page.locator("#link").click().await?;
        let on_purpose = true;
        assert!(!on_purpose, "failing on purpose on the routed document");
    });
    Ok(())
}

/// A plain click onto a served document (no route): Firefox's reads go over
/// BiDi anyway and see the new document.
#[scenario]
async fn plain_reads(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Every read right after a click onto a served document", {
        page.goto("/plain").await?;
        page.locator("#link").click().await?;
        let read = reads(&page, "served next").await?;
        s.attach_json("reads", &read)?;
        expect(&page.locator("#next"))
            .to_have_text("served next")
            .await?;
    });
    Ok(())
}

/// The test's server: `/start`, `/plain` (a link to `/served`), `/served`
/// (after 300 ms); anything else, the routed paths included, is a 404.
fn serve() -> String {
    support::serve_with(answer)
}

fn answer(stream: TcpStream) -> std::io::Result<()> {
    let mut r = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    r.read_line(&mut line)?;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let (status, body) = match path.as_str() {
        "/start" => ("200 OK", START.to_string()),
        "/plain" => (
            "200 OK",
            "<!doctype html><title>plain</title><a id=\"link\" href=\"/served\">served</a>"
                .to_string(),
        ),
        "/served" => {
            std::thread::sleep(Duration::from_millis(300));
            (
                "200 OK",
                "<!doctype html><title>served</title><p id=\"next\">served next</p>".to_string(),
            )
        }
        _ => (
            "404 Not Found",
            "not here: only a route answers this".to_string(),
        ),
    };
    let mut w = stream;
    write!(
        w,
        "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nCache-Control: no-store\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The runs, once for every test: the passing scenarios in one run per
/// browser.
fn outcome() -> &'static support::InProcessRuns {
    static RUN: OnceLock<support::InProcessRuns> = OnceLock::new();
    RUN.get_or_init(|| {
        support::InProcessRuns::run(
            "routed_reads",
            &serve(),
            &[
                ("chromium", &["routed_fetch", "routed_wait", "routed_reads"]),
                (
                    "firefox",
                    &["routed_fetch", "routed_wait", "routed_reads", "plain_reads"],
                ),
                // It fails on purpose: a run of its own on each browser.
                ("chromium", &["routed_failure"]),
                ("firefox", &["routed_failure"]),
            ],
        )
    })
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The run of `slug` and its result.json.
fn run_of(slug: &str) -> (PathBuf, Value) {
    let run = support::only_run(&outcome().hj, slug);
    let result: Value = harshjudge::serde_json::from_str(&read(&run.join("result.json"))).unwrap();
    (run, result)
}

/// The run of `slug`, which must have passed.
fn passed(slug: &str, browser: &str, filter: &str) -> PathBuf {
    outcome().passed(slug, browser, filter)
}

/// The file a step attached whose name contains `name` and ends with `ext`.
fn attached(run: &Path, step: usize, name: &str, ext: &str) -> String {
    let dir = run.join(format!("step-{step:02}/evidence"));
    let file = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.contains(name) && n.ends_with(ext) && !n.ends_with(".meta.json"))
        })
        .unwrap_or_else(|| panic!("{name}*{ext} in {}", dir.display()));
    read(&file)
}

fn evaluate_fetch_on(browser: &str) {
    let run = passed(&format!("routed-fetch-{browser}"), browser, "routed_fetch");
    let ms: u64 = attached(&run, 1, "ms", ".txt").trim().parse().unwrap();
    assert!(ms < 10_000, "{browser}: the evaluate took {ms} ms");
    let v: Value = harshjudge::serde_json::from_str(&attached(&run, 1, "value", ".json")).unwrap();
    assert_eq!(v, json!({"n": 42}), "{browser}");
    assert!(support::fulfilled(&run, 1, "/api/data"), "{browser}");
}

fn wait_on(browser: &str) {
    let run = passed(&format!("routed-wait-{browser}"), browser, "routed_wait");
    let v: Value = harshjudge::serde_json::from_str(&attached(&run, 1, "value", ".json")).unwrap();
    assert_eq!(v, json!(42), "{browser}: wait_for_function");
    assert!(support::fulfilled(&run, 1, "/api/data"), "{browser}");
}

fn reads_after_input_on(browser: &str) {
    let run = passed(&format!("routed-reads-{browser}"), browser, "routed_reads");
    for (step, path, title, text) in [
        (1, "/next", "next", "routed next"),
        (2, "/found?q=rust", "found", "routed found"),
    ] {
        let ms: u64 = attached(&run, step, "ms", ".txt").trim().parse().unwrap();
        assert!(ms < 10_000, "{browser} step {step}: took {ms} ms");
        let reads: Value =
            harshjudge::serde_json::from_str(&attached(&run, step, "reads", ".json")).unwrap();
        assert!(
            reads["url"].as_str().unwrap_or_default().ends_with(path),
            "{browser} step {step}: {reads}"
        );
        assert_eq!(reads["title"], title, "{browser} step {step}: {reads}");
        assert_eq!(reads["evaluate"], title, "{browser} step {step}: {reads}");
        assert_eq!(reads["eval"], text, "{browser} step {step}: {reads}");
        assert_eq!(
            reads["html_has_text"], true,
            "{browser} step {step}: {reads}"
        );
        assert_eq!(reads["png"], true, "{browser} step {step}: {reads}");
        assert!(
            support::fulfilled(&run, step, path),
            "{browser} step {step}: {path}"
        );
    }
}

fn failure_evidence_on(browser: &str) {
    let (run, result) = run_of(&format!("routed-failure-{browser}"));
    assert_eq!(result["status"], "fail", "{browser}: {result}");
    let step = &result["steps"][0];
    assert!(
        step["error"]
            .as_str()
            .is_some_and(|e| e.contains("failing on purpose")),
        "{browser}: the step failed for another reason: {step}"
    );
    let evidence = run.join("step-01/evidence");
    assert!(
        !evidence.join("probe-error.txt").exists(),
        "{browser}: {}",
        std::fs::read_to_string(evidence.join("probe-error.txt")).unwrap_or_default()
    );
    let html = read(&evidence.join("page.html"));
    assert!(
        html.contains("routed next"),
        "{browser}: page.html is {html}"
    );
    assert!(support::fulfilled(&run, 1, "/next"), "{browser}");
}

fn an_evaluate_whose_fetch_a_route_answers_ends_in_time_on_chromium() {
    evaluate_fetch_on("chromium");
}

fn an_evaluate_whose_fetch_a_route_answers_ends_in_time_on_firefox() {
    evaluate_fetch_on("firefox");
}

fn a_wait_for_function_that_a_route_ends_passes_on_chromium() {
    wait_on("chromium");
}

fn a_wait_for_function_that_a_route_ends_passes_on_firefox() {
    wait_on("firefox");
}

fn reads_after_a_click_and_an_enter_see_the_routed_document_on_chromium() {
    reads_after_input_on("chromium");
}

fn reads_after_a_click_and_an_enter_see_the_routed_document_on_firefox() {
    reads_after_input_on("firefox");
}

fn a_failure_on_a_routed_document_records_it_on_chromium() {
    failure_evidence_on("chromium");
}

fn a_failure_on_a_routed_document_records_it_on_firefox() {
    failure_evidence_on("firefox");
}

fn firefox_reads_after_a_plain_click_see_the_new_document() {
    let run = passed("plain-reads-firefox", "firefox", "plain_reads");
    let reads: Value =
        harshjudge::serde_json::from_str(&attached(&run, 1, "reads", ".json")).unwrap();
    assert!(
        reads["url"]
            .as_str()
            .unwrap_or_default()
            .ends_with("/served"),
        "{reads}"
    );
    assert_eq!(reads["title"], "served", "{reads}");
    assert_eq!(reads["evaluate"], "served", "{reads}");
    assert_eq!(reads["html_has_text"], true, "{reads}");
}

/// Every fact of the runs above, checked in one test: the runs are made once (`support::facts`).
#[test]
fn every_fact_of_the_runs() {
    support::facts(&[
        (
            "an_evaluate_whose_fetch_a_route_answers_ends_in_time_on_chromium",
            an_evaluate_whose_fetch_a_route_answers_ends_in_time_on_chromium,
        ),
        (
            "an_evaluate_whose_fetch_a_route_answers_ends_in_time_on_firefox",
            an_evaluate_whose_fetch_a_route_answers_ends_in_time_on_firefox,
        ),
        (
            "a_wait_for_function_that_a_route_ends_passes_on_chromium",
            a_wait_for_function_that_a_route_ends_passes_on_chromium,
        ),
        (
            "a_wait_for_function_that_a_route_ends_passes_on_firefox",
            a_wait_for_function_that_a_route_ends_passes_on_firefox,
        ),
        (
            "reads_after_a_click_and_an_enter_see_the_routed_document_on_chromium",
            reads_after_a_click_and_an_enter_see_the_routed_document_on_chromium,
        ),
        (
            "reads_after_a_click_and_an_enter_see_the_routed_document_on_firefox",
            reads_after_a_click_and_an_enter_see_the_routed_document_on_firefox,
        ),
        (
            "a_failure_on_a_routed_document_records_it_on_chromium",
            a_failure_on_a_routed_document_records_it_on_chromium,
        ),
        (
            "a_failure_on_a_routed_document_records_it_on_firefox",
            a_failure_on_a_routed_document_records_it_on_firefox,
        ),
        (
            "firefox_reads_after_a_plain_click_see_the_new_document",
            firefox_reads_after_a_plain_click_see_the_new_document,
        ),
    ]);
}
