//! Issue 42 point 1: `expect(&x).soft()` on a locator, a page, an API
//! response and a step's console, in real Chromium against the demo app. Each
//! failure is recorded with the evidence a failure takes, the step goes on,
//! and at its end it fails listing every one in order; the JUnit report
//! carries each.

use std::sync::OnceLock;
use std::time::Duration;

use harshjudge::{Scenario, expect, scenario, step};

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

fn runs() -> &'static support::InProcessRuns {
    static RUNS: OnceLock<support::InProcessRuns> = OnceLock::new();
    RUNS.get_or_init(|| {
        let base = demo_app::start_in_background().expect("demo app");
        support::InProcessRuns::run("soft", &base, &[("chromium", "soft_checks")])
    })
}

#[test]
fn soft_assertions_let_the_step_go_on_and_fail_it_listing_each() {
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
    let xml = harshjudge::report::junit::render(
        &harshjudge::store::Store::new(&runs.hj),
        &[harshjudge::report::junit::RunRef {
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
