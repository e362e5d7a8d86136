//! Issue 42 point 1: `expect(&x).soft()` on a locator, a page, an API
//! response and a step's console, in real Chromium against the demo app. Each
//! failure is recorded with the evidence a failure takes, the step goes on,
//! and at its end it fails listing every one in order; the JUnit report
//! carries each. Beside them, `expect_poll` and `to_pass` (points 2 and 3).

use std::sync::OnceLock;
use std::time::Duration;

use harshjudge::{Scenario, expect, expect_poll, scenario, step, to_pass};

use crate::support;

#[scenario]
async fn soft_checks(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Check the playground softly", {
        page.goto("/play").await?;
        let short = Duration::from_millis(300);
        expect(&page.get_by_role("heading").first())
            .soft()
            .to_have_text("Sandbox")
            .timeout(short)
            .await?;
        expect(&page)
            .soft()
            .to_have_title("Nope")
            .timeout(short)
            .await?;
        // A soft one that holds records nothing.
        expect(&page.get_by_role("heading").first())
            .soft()
            .to_have_text("Playground")
            .await?;
        let res = s.request().get("/api/health").send().await?;
        expect(&res).soft().to_have_status(503).await?;
        expect(&s.console())
            .soft()
            .timeout(short)
            .to_have_message("never logged")
            .await?;
        s.attach_text("went-on", "after four soft failures")?;
    });
    step!("Is never reached", {});
    Ok(())
}

/// Issue 42 points 2 and 3: a value polled from the API, a block retried
/// until the slow page is done (a soft assertion inside it fails only its
/// try: the step passes).
#[scenario]
async fn polled_and_retried(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Poll the API and retry a block until the page is done", {
        expect_poll(|| async { Ok(s.request().get("/api/health").send().await?.status()) })
            .to_equal(200)
            .await?;
        page.goto("/slow?ms=700").await?;
        let tries = std::sync::atomic::AtomicUsize::new(0);
        to_pass(|| async {
            tries.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            expect(&page.get_by_test_id("slow-status"))
                .soft()
                .to_have_text("Done")
                .timeout(Duration::from_millis(50))
                .await?;
            Ok(())
        })
        .timeout(Duration::from_secs(20))
        .await?;
        let n = tries.load(std::sync::atomic::Ordering::SeqCst);
        harshjudge::ensure!(
            n > 1,
            "the block passed on its first try ({n}): the page was not slow"
        );
        s.attach_text("tries", &n.to_string())?;
    });
    Ok(())
}

fn runs() -> &'static support::InProcessRuns {
    static RUNS: OnceLock<support::InProcessRuns> = OnceLock::new();
    RUNS.get_or_init(|| {
        let base = demo_app::start_in_background().expect("demo app");
        support::InProcessRuns::run(
            "soft",
            &base,
            &[
                // It fails on purpose: a run of its own.
                ("chromium", &["soft_checks"]),
                ("chromium", &["polled_and_retried"]),
            ],
        )
    })
}

/// Every fact of the runs above, checked in one test: the runs are made once
/// (`support::facts`).
#[test]
fn soft_polled_and_retried_assertions_in_a_real_page() {
    support::facts(&[
        (
            "soft assertions go on and fail the step listing each",
            soft_facts,
        ),
        ("a polled value and a retried block pass", polled_facts),
    ]);
}

fn soft_facts() {
    let runs = runs();
    assert_ne!(
        runs.code("chromium", "soft_checks"),
        0,
        "the scenario fails"
    );
    let run = support::only_run(&runs.hj, "soft-checks-chromium");
    let result = support::json(run.join("result.json"));
    let step = &result["steps"][0];
    assert_eq!(step["status"], "fail", "{result}");
    let error = step["error"].as_str().unwrap();
    assert!(
        error.starts_with("4 soft assertions failed:\n  1. at "),
        "{error}"
    );
    let at = |n: usize| error.find(&format!("\n  {n}. at ")).unwrap_or(usize::MAX);
    assert!(at(1) < at(2) && at(2) < at(3) && at(3) < at(4), "{error}");
    for part in [
        "to_have_text(\"Sandbox\")",
        "received: \"Playground\"",
        "to_have_title",
        "to_have_status(503)",
        "never logged",
        "tests/in_process/soft.rs:",
    ] {
        assert!(error.contains(part), "{part} in {error}");
    }
    assert_eq!(result["steps"][1]["status"], "skipped", "{result}");
    let evidence = support::tree(&run.join("step-01/evidence"));
    for f in [
        "went-on.txt",
        "soft-1-error.png",
        "soft-1-page.html",
        "soft-1-aria.yml",
        "soft-4-error.png",
    ] {
        assert!(
            evidence.iter().any(|e| e.ends_with(f)),
            "{f} in {evidence:?}"
        );
    }
    assert!(
        !evidence.iter().any(|e| e.contains("soft-5")),
        "{evidence:?}"
    );
    // JUnit: the step's failure carries every one.
    let xml = harshjudge_store::report::junit::render(
        &harshjudge_store::store::Store::new(&runs.hj),
        &[harshjudge_store::report::junit::RunRef {
            dir: run.clone(),
            earlier: vec![],
        }],
        0,
    )
    .unwrap();
    assert!(
        xml.contains("4 soft assertions failed") && xml.contains("to_have_status(503)"),
        "{xml}"
    );
}

fn polled_facts() {
    let run = runs().passed(
        "polled-and-retried-chromium",
        "chromium",
        "polled_and_retried",
    );
    let result = support::json(run.join("result.json"));
    assert_eq!(result["steps"][0]["status"], "pass", "{result}");
}
