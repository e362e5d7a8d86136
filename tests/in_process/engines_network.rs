//! Issue 23, points 2 and 3 on the other engines: routes and the network and
//! console assertions in real Firefox (geckodriver, WebDriver BiDi) as they
//! run in Chromium (`tests/bidi.rs`); a route on the document request itself
//! (`page.route` on the URL `goto` opens, fulfilled or aborted) on Chromium
//! and Firefox; and on WebKit, which has no BiDi, a route fails with
//! `BrowserError::Unsupported` naming the engine.
//!
//! The scenarios run in-process through the harness with `--browser NAME`
//! (as `cargo test -- --browser firefox` does), one run after the other; the
//! pages come from a small loopback HTTP server of this test, which records
//! every request it is sent.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use harshjudge::browser::BrowserError;
use harshjudge::serde_json::{Value, json};
use harshjudge::{Response, Scenario, expect, scenario, step};

const STUB_DOC: &str = "<!doctype html><title>stubbed</title><p id=\"doc\">stubbed document</p>";

use crate::support::play;
use play::{Seen, serve};

use crate::support;

/// A route on the document `goto` opens: fulfilled, then aborted. Neither may
/// hang the navigation; each is marked in the step's `network.json`.
#[scenario]
async fn document_routes(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("A route fulfills the document goto opens", {
        page.route("**/doc", |route| async move {
            route
                .fulfill(Response::new().content_type("text/html").body(STUB_DOC))
                .await
        })
        .await?;
        let started = Instant::now();
        page.goto("/doc").await?;
        s.attach_text("goto-ms", &started.elapsed().as_millis().to_string())?;
        expect(&page.locator("#doc"))
            .to_have_text("stubbed document")
            .await?;
    });
    step!("A route aborts the document goto opens", {
        page.unroute("**/doc").await?;
        page.route("**/doc", |route| async move { route.abort().await })
            .await?;
        let started = Instant::now();
        let opened = page.goto("/doc").await;
        s.attach_text("goto-ms", &started.elapsed().as_millis().to_string())?;
        let e = opened.expect_err("goto of an aborted document fails");
        s.attach_text("goto-error", &e.to_string())?;
    });
    step!("After unroute the server answers the document", {
        page.unroute("**/doc").await?;
        page.goto("/doc").await?;
        expect(&page.locator("#doc"))
            .to_have_text("real document")
            .await?;
    });
    step!("Back and forward load a routed document again", {
        // Not cached, so going back asks for it again, and the route answers.
        page.route("**/doc", |route| async move {
            let doc = Response::new()
                .content_type("text/html")
                .header("Cache-Control", "no-store")
                .body(STUB_DOC);
            route.fulfill(doc).await
        })
        .await?;
        page.goto("/doc").await?;
        page.goto("/play").await?;
        let started = Instant::now();
        page.go_back().await?;
        expect(&page.locator("#doc"))
            .to_have_text("stubbed document")
            .await?;
        page.go_forward().await?;
        expect(&page.locator("#out")).to_have_text("idle").await?;
        page.go_back().await?;
        expect(&page.locator("#doc"))
            .to_have_text("stubbed document")
            .await?;
        s.attach_text("history-ms", &started.elapsed().as_millis().to_string())?;
    });
    Ok(())
}

/// Routes (fulfil JSON, abort, continue with a header), a request that must
/// not happen, a page that throws and `to_have_no_errors`, on any engine with
/// BiDi.
#[scenario]
async fn routes_and_console(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    let out = page.locator("#out");
    step!("A route fulfills JSON", {
        page.route("**/api/items", |route| async move {
            route
                .fulfill(Response::new().status(200).json(&json!(["stubbed"])))
                .await
        })
        .await?;
        page.goto("/play").await?;
        page.locator("#items").click().await?;
        expect(&out).to_have_text("200 [\"stubbed\"]").await?;
        expect(&s.network())
            .to_have_request("/api/items")
            .status(200)
            .await?;
    });
    step!("A route aborts", {
        page.unroute("**/api/items").await?;
        page.route("**/api/items", |route| async move { route.abort().await })
            .await?;
        page.locator("#items").click().await?;
        expect(&out).to_contain_text("failed:").await?;
    });
    step!("A route continues with a header", {
        page.unroute("**/api/items").await?;
        page.route("**/api/echo", |route| async move {
            route.continue_().header("X-Judge", "yes").await
        })
        .await?;
        page.locator("#echo").click().await?;
        expect(&out).to_contain_text("\"x-judge\",\"yes\"").await?;
        expect(&s.network())
            .not()
            .to_have_request("**/api/secret")
            .await?;
        let made = expect(&s.network())
            .not()
            .to_have_request("**/api/echo")
            .await;
        assert!(
            made.as_ref()
                .is_err_and(|e| e.to_string().contains("/api/echo")),
            "{made:?}"
        );
    });
    step!("A page that throws", {
        page.locator("#log").click().await?;
        page.locator("#throw").dispatch_event("click").await?;
        expect(&s.console()).to_have_message("hello log").await?;
        let errors = expect(&s.console()).to_have_no_errors().await;
        let text = errors.as_ref().map_err(|e| e.to_string()).unwrap_err();
        for want in ["logged error", "boom from click"] {
            assert!(text.contains(want), "{want} in {text}");
        }
        expect(&s.console())
            .allow("logged error")
            .allow("boom from click")
            .to_have_no_errors()
            .await?;
    });
    Ok(())
}

/// WebKit has no BiDi: a route and a request waiter fail at once, naming the
/// engine.
#[scenario]
async fn routes_unsupported(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("A route is unsupported, naming the engine", {
        page.goto("/play").await?;
        let e = page
            .route("**/api/items", |route| async move { route.abort().await })
            .await
            .unwrap_err();
        assert!(matches!(e, BrowserError::Unsupported { .. }), "{e:?}");
        s.attach_text("route-error", &e.to_string())?;
        let waited = Instant::now();
        let e = page.wait_for_request("**/api/items").await.unwrap_err();
        assert!(waited.elapsed() < Duration::from_secs(2), "{e}");
        s.attach_text("wait-error", &e.to_string())?;
    });
    Ok(())
}

struct Outcome {
    runs: support::InProcessRuns,
    seen: Seen,
}

/// The runs, once for every test.
fn outcome() -> &'static Outcome {
    static RUN: OnceLock<Outcome> = OnceLock::new();
    RUN.get_or_init(|| {
        let (base, seen) = serve();
        let runs = support::InProcessRuns::run(
            "engines_network",
            &base,
            &[
                ("chromium", &["document_routes"]),
                ("firefox", &["document_routes", "routes_and_console"]),
                ("webkit", &["routes_unsupported"]),
            ],
        );
        Outcome { runs, seen }
    })
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn json_at(p: &Path) -> Value {
    harshjudge::serde_json::from_str(&read(p)).unwrap()
}

/// The result of `slug`'s run, which must have passed, with its exit code.
fn passed(slug: &str, browser: &str, filter: &str) -> PathBuf {
    outcome().runs.passed(slug, browser, filter)
}

/// A file a step attached (`name` is the attachment's name, `.txt`).
fn attached(run: &Path, step: usize, name: &str) -> String {
    let dir = run.join(format!("step-{step:02}/evidence"));
    let file = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.contains(name) && n.ends_with(".txt"))
        })
        .unwrap_or_else(|| panic!("{name} in {}", dir.display()));
    read(&file)
}

/// The entries of a step's network.json whose URL ends with `path`.
fn requests(run: &Path, step: usize, path: &str) -> Vec<Value> {
    json_at(&run.join(format!("step-{step:02}/evidence/network.json")))
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["url"].as_str().unwrap().ends_with(path))
        .cloned()
        .collect()
}

fn document_routes_on(browser: &str) {
    let run = passed(
        &format!("document-routes-{browser}"),
        browser,
        "document_routes",
    );
    for step in [1, 2] {
        let ms: u64 = attached(&run, step, "goto-ms").trim().parse().unwrap();
        assert!(ms < 10_000, "{browser} step {step}: goto took {ms} ms");
    }
    let r1 = requests(&run, 1, "/doc");
    assert!(
        r1.iter().any(|e| e["intercepted"] == "fulfilled"),
        "{browser}: {r1:?}"
    );
    let r2 = requests(&run, 2, "/doc");
    assert!(
        r2.iter().any(|e| e["intercepted"] == "aborted"),
        "{browser}: {r2:?}"
    );
    let error = attached(&run, 2, "goto-error");
    assert!(error.contains("/doc"), "{browser}: {error}");
    // Back, forward and back again over a routed document, each load waited for.
    let ms: u64 = attached(&run, 4, "history-ms").trim().parse().unwrap();
    assert!(
        ms < 10_000,
        "{browser} step 4: back and forward took {ms} ms"
    );
    let r4 = requests(&run, 4, "/doc");
    let fulfilled = r4
        .iter()
        .filter(|e| e["intercepted"] == "fulfilled")
        .count();
    assert_eq!(fulfilled, 3, "goto, back, back: {browser}: {r4:?}");
}

fn a_route_on_the_document_fulfills_and_aborts_goto_on_chromium() {
    document_routes_on("chromium");
}

fn a_route_on_the_document_fulfills_and_aborts_goto_on_firefox() {
    document_routes_on("firefox");
    // Only step 3's document reached the server, in either browser's run.
    let seen = outcome().seen.lock().unwrap();
    let docs = seen.iter().filter(|(_, p, _)| p == "/doc").count();
    assert_eq!(docs, 2, "{seen:?}");
}

fn routes_and_console_assertions_on_firefox() {
    let run = passed(
        "routes-and-console-firefox",
        "firefox",
        "routes_and_console",
    );
    let r1 = requests(&run, 1, "/api/items");
    assert_eq!(r1.len(), 1, "{r1:?}");
    assert_eq!(
        (r1[0]["status"].as_u64(), r1[0]["intercepted"].as_str()),
        (Some(200), Some("fulfilled")),
        "{r1:?}"
    );
    let r2 = requests(&run, 2, "/api/items");
    assert_eq!(r2[0]["intercepted"], "aborted", "{r2:?}");
    let r3 = requests(&run, 3, "/api/echo");
    assert_eq!(r3[0]["intercepted"], "continued", "{r3:?}");
    let seen = outcome().seen.lock().unwrap();
    assert!(
        !seen.iter().any(|(_, p, _)| p == "/api/items"),
        "the routed requests never reach the server: {seen:?}"
    );
    let echo = seen.iter().find(|(_, p, _)| p == "/api/echo").unwrap();
    assert!(
        echo.2.contains(&("x-judge".to_string(), "yes".to_string())),
        "{:?}",
        echo.2
    );
    drop(seen);
    let console = json_at(&run.join("step-04/evidence/console.json"));
    let entries: Vec<(String, String, String)> = console
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            (s("level"), s("source"), s("text"))
        })
        .collect();
    let has = |level: &str, source: &str, text: &str| {
        entries
            .iter()
            .any(|(l, s, t)| l == level && s == source && t.contains(text))
    };
    assert!(has("error", "console-api", "logged error"), "{entries:?}");
    assert!(has("error", "javascript", "boom from click"), "{entries:?}");
}

fn a_route_on_webkit_is_unsupported_naming_the_engine() {
    let run = passed("routes-unsupported-webkit", "webkit", "routes_unsupported");
    for name in ["route-error", "wait-error"] {
        let e = attached(&run, 1, name);
        assert!(e.contains("webkit") && e.contains("BiDi"), "{name}: {e}");
    }
}

/// Every fact of the runs above, checked in one test: the runs are made once (`support::facts`).
#[test]
fn every_fact_of_the_runs() {
    support::facts(&[
        (
            "a_route_on_the_document_fulfills_and_aborts_goto_on_chromium",
            a_route_on_the_document_fulfills_and_aborts_goto_on_chromium,
        ),
        (
            "a_route_on_the_document_fulfills_and_aborts_goto_on_firefox",
            a_route_on_the_document_fulfills_and_aborts_goto_on_firefox,
        ),
        (
            "routes_and_console_assertions_on_firefox",
            routes_and_console_assertions_on_firefox,
        ),
        (
            "a_route_on_webkit_is_unsupported_naming_the_engine",
            a_route_on_webkit_is_unsupported_naming_the_engine,
        ),
    ]);
}
