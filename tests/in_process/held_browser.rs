//! Issue 23: a step whose browser is held ends at its step limit, and so does
//! the run. The step opens a document whose route never answers: `goto`
//! (over WebDriver BiDi, as on every page with routes) waits for it, and
//! every classic command of the session (a failure's screenshot, HTML, ARIA
//! tree) waits in chromedriver behind that navigation, up to its page-load
//! limit of 300 s. The failure's evidence is bounded (the page's
//! `probe-error.txt` says it had no answer), the held session is not pooled,
//! and the next scenario of the same process gets a browser that works.
//! (Until input went over BiDi on routed pages, a link clicked onto a routed
//! document held the browser this way; `tests/routed_input.rs` shows it no
//! longer does.)

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use harshjudge::{Scenario, expect, scenario, step};

use crate::support;

#[scenario(step_timeout = "6s")]
async fn held_navigation(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open a document whose route never answers", {
        page.goto("/ok").await?;
        page.route("**/next", |route| async move {
            // Never answered while the run lasts: the document stays loading.
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
            route.abort().await
        })
        .await?;
        page.goto("/next").await?;
        expect(&page.locator("#next")).to_have_text("next").await?;
    });
    Ok(())
}

#[scenario]
async fn then_a_page_that_answers(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open a page that answers", {
        page.goto("/ok").await?;
        expect(&page.locator("#ok")).to_have_text("fine").await?;
    });
    Ok(())
}

/// A loopback server: a small page with a link to `/next` (which only the
/// route answers).
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream));
        }
    });
    url
}

fn answer(mut stream: TcpStream) {
    let _ = stream.read(&mut [0u8; 4096]);
    let body = "<!doctype html><title>ok</title><p id=\"ok\">fine</p><a id=\"link\" href=\"/next\">next</a>";
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn run_dir(hj: &Path, slug: &str) -> PathBuf {
    support::only_run(hj, slug)
}

fn result(hj: &Path, slug: &str) -> harshjudge::serde_json::Value {
    let path = run_dir(hj, slug).join("result.json");
    harshjudge::serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn a_held_browser_fails_its_step_in_time_and_is_not_reused() {
    let _alone = support::in_process();
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join("hj");
    // SAFETY: under `in_process`: no other test of the binary reads the
    // environment meanwhile.
    unsafe {
        std::env::set_var("HARSHJUDGE_DIR", &hj);
        std::env::set_var("HARSHJUDGE_BASE_URL", serve());
        std::env::remove_var("HARSHJUDGE_WEBDRIVER_URL");
    }
    // This module's scenarios only: the binary holds those of the others.
    let line = [
        "--quiet",
        "--test-threads",
        "1",
        "held_navigation",
        "then_a_page_that_answers",
    ];
    let started = Instant::now();
    let code = support::run_line("held_browser", &line);
    let took = started.elapsed();
    assert_ne!(code, 0, "the held step fails");
    // The step's 6 s, at most 10 s of failure evidence, two sessions.
    assert!(took < Duration::from_secs(60), "the run took {took:?}");

    let held = result(&hj, "held-navigation");
    let error = held["steps"][0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("step timed out after 6s"), "{held}");
    let evidence = run_dir(&hj, "held-navigation").join("step-01/evidence");
    let notes: Vec<String> = std::fs::read_dir(&evidence)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with("probe-error.txt"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(
        notes.iter().any(|n| n.contains("no answer within 10 s")),
        "{notes:?} in {}: {held}",
        evidence.display()
    );

    let next = result(&hj, "then-a-page-that-answers");
    assert_eq!(next["status"], "pass", "{next}");
}
