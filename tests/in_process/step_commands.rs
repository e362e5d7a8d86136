//! The step boundary's cost in WebDriver commands, and that the evidence is
//! still whole: a small suite (2 scenarios x 3 steps, each step an action and
//! an assertion) runs in real Chromium through a chromedriver of our own that
//! logs every command it receives.
//!
//! The page speaks WebDriver BiDi alone (chromedriver logs each command as
//! `ForwardBidiCommand`; `wdcount` names it by its method). A step's boundary
//! costs at most 2 commands: one round trip through the renderer (a
//! `script.evaluate`, so that a navigation the step started is seen) and its
//! screenshot; the console and network come from BiDi events (issue 23.1),
//! no command reads them. With its calls (a click is 3: the in-page wait, the
//! pointer action, the check of what it hit) the median step costs 4.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use harshjudge::regex::Regex;
use harshjudge::{Scenario, expect, scenario, step};

use crate::support;

use crate::support::wdcount;

const STEPS: usize = 3;

#[scenario]
async fn console_page(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the console page", {
        page.goto("/console").await?;
        expect(&page.get_by_test_id("data-message"))
            .to_contain_text("Hello from the API")
            .await?;
    });
    step!("Load a missing resource", {
        page.get_by_test_id("load-missing").click().await?;
        expect(&page.get_by_test_id("missing-status"))
            .to_have_text("not found")
            .await?;
    });
    step!("Throw in the page", {
        page.get_by_test_id("throw").dispatch_event("click").await?;
        expect(&page).to_have_url(Regex::new("/console$")?).await?;
    });
    Ok(())
}

#[scenario]
async fn sign_in(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the login page", {
        page.goto("/login").await?;
        expect(&page.get_by_role("heading").name("Sign in"))
            .to_be_visible()
            .await?;
    });
    step!("Fill the form", {
        page.get_by_label("Email").fill("ada@example.com").await?;
        page.get_by_label("Password").fill("secret").await?;
    });
    step!("Sign in", {
        page.get_by_role("button").name("Sign in").click().await?;
        expect(&page.get_by_role("heading").level(1))
            .to_have_text("Welcome, Ada")
            .await?;
    });
    Ok(())
}

struct Outcome {
    hj: PathBuf,
    commands: Vec<(String, String)>,
}

/// The suite, run once for both tests.
fn outcome() -> &'static Outcome {
    static RUN: OnceLock<Outcome> = OnceLock::new();
    RUN.get_or_init(|| {
        let _alone = support::in_process();
        let base = demo_app::start_in_background().unwrap();
        let tmp = support::shared_tempdir();
        let hj = tmp.join("hj");
        let driver = wdcount::CountingDriver::start(&tmp.join("driver"));
        // SAFETY: set before the harness starts its threads, under
        // `in_process`: no other test of the binary reads the environment.
        unsafe {
            std::env::set_var("HARSHJUDGE_DIR", &hj);
            std::env::set_var("HARSHJUDGE_BASE_URL", &base);
            std::env::set_var("HARSHJUDGE_EVIDENCE", "all");
            std::env::set_var("HARSHJUDGE_WEBDRIVER_URL", &driver.url);
        }
        // This module's scenarios only: the binary holds those of the others.
        let line = ["--quiet", "--test-threads", "1", "console_page", "sign_in"];
        assert_eq!(
            support::run_line("step_commands", &line),
            0,
            "the suite passes"
        );
        let commands = driver.commands();
        Outcome { hj, commands }
    })
}

fn run_dir(hj: &Path, slug: &str) -> PathBuf {
    support::only_run(hj, slug)
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(
        &std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
    )
    .unwrap()
}

/// A PNG of the viewport (1280x720): its bytes.
fn png(p: &Path) -> Vec<u8> {
    let b = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{} is a PNG", p.display());
    let w = u32::from_be_bytes(b[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(b[20..24].try_into().unwrap());
    assert_eq!((w, h), (1280, 720), "{}", p.display());
    b
}

fn every_step_keeps_its_screenshots_console_and_network() {
    let o = outcome();
    for slug in ["console-page", "sign-in"] {
        let run = run_dir(&o.hj, slug);
        let result = json(&run.join("result.json"));
        assert_eq!(result["status"], "pass", "{result}");
        for n in 1..=STEPS {
            let step = run.join(format!("step-{n:02}/evidence"));
            let mut files: Vec<String> = std::fs::read_dir(&step)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|f| !f.ends_with(".meta.json"))
                .collect();
            files.sort();
            assert_eq!(
                files,
                ["after.png", "before.png", "console.json", "network.json"],
                "{slug} step {n}"
            );
            png(&step.join("before.png"));
            let after = png(&step.join("after.png"));
            if n < STEPS {
                let next = run.join(format!("step-{:02}/evidence/before.png", n + 1));
                assert_eq!(after, png(&next), "one screenshot per boundary");
            }
        }
    }
    let ev = |slug: &str, n: usize, f: &str| {
        json(&run_dir(&o.hj, slug).join(format!("step-{n:02}/evidence/{f}")))
    };
    let console = |slug: &str, n: usize| -> Vec<(String, String, String)> {
        ev(slug, n, "console.json")
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
                (s("level"), s("source"), s("text"))
            })
            .collect()
    };
    let requests = |slug: &str, n: usize| -> Vec<(String, String, Option<u64>)> {
        ev(slug, n, "network.json")
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let url = e["url"].as_str().unwrap();
                let path = url.split_once("://").unwrap().1;
                let path = &path[path.find('/').unwrap()..];
                (
                    e["method"].as_str().unwrap().to_string(),
                    path.to_string(),
                    e["status"].as_u64(),
                )
            })
            .collect()
    };
    let has = |v: &[(String, String, String)], level: &str, source: &str, text: &str| {
        v.iter()
            .any(|(l, s, t)| l == level && s == source && t.starts_with(text))
    };
    // Step 1: the page's console calls and its requests.
    let c1 = console("console-page", 1);
    for (level, text) in [
        ("info", "demo: page loaded"),
        ("warning", "demo: low stock"),
        ("error", "demo: something failed"),
    ] {
        assert!(has(&c1, level, "console-api", text), "{text} in {c1:?}");
    }
    let n1 = requests("console-page", 1);
    for want in [
        ("GET", "/console", Some(200)),
        ("GET", "/api/data", Some(200)),
    ] {
        assert!(
            n1.contains(&(want.0.into(), want.1.into(), want.2)),
            "{want:?} in {n1:?}"
        );
    }
    // Step 2: only its own requests, the 404 and the browser's error for it.
    let n2 = requests("console-page", 2);
    assert!(
        n2.contains(&("GET".into(), "/api/missing".into(), Some(404))),
        "{n2:?}"
    );
    assert!(!n2.iter().any(|r| r.1 == "/api/data"), "{n2:?}");
    let c2 = console("console-page", 2);
    assert!(
        has(&c2, "error", "network", "Failed to load resource"),
        "{c2:?}"
    );
    // Step 3: the uncaught exception.
    let c3 = console("console-page", 3);
    assert!(
        has(&c3, "error", "javascript", "Uncaught Error: demo: boom"),
        "{c3:?}"
    );
    // The sign-in: the POST, then the dashboard's document.
    let n3 = requests("sign-in", 3);
    assert!(
        n3.contains(&("POST".into(), "/api/login".into(), Some(200))),
        "{n3:?}"
    );
    assert!(
        n3.iter()
            .any(|r| r.1.starts_with("/dashboard") && r.2 == Some(200)),
        "{n3:?}"
    );
}

fn a_step_costs_at_most_five_webdriver_commands() {
    let o = outcome();
    let intervals = wdcount::intervals(&o.commands);
    assert_eq!(
        intervals.len(),
        2 * (STEPS + 1),
        "{intervals:?} of {:?}",
        wdcount::by_name(&o.commands)
    );
    let (_, per_step) = wdcount::steps_of(&intervals, STEPS);
    let steps: Vec<&Vec<String>> = intervals
        .iter()
        .enumerate()
        .filter(|(i, _)| i % (STEPS + 1) != 0)
        .map(|(_, iv)| iv)
        .collect();
    assert!(
        wdcount::median(&per_step) <= 4,
        "commands per step {per_step:?}, median over 4: {steps:#?}"
    );
    let mean = per_step.iter().sum::<usize>() as f64 / per_step.len() as f64;
    assert!(
        mean <= 5.0,
        "commands per step {per_step:?}, mean {mean} over 5: {steps:#?}"
    );
    // Each boundary: at most one round trip through the renderer, then one
    // screenshot; nothing reads the console or the network, and nothing
    // classic is sent once the session exists.
    for (i, iv) in steps.iter().enumerate() {
        let reads = iv.iter().filter(|n| *n == "GetLog").count();
        let shots = iv.iter().filter(|n| wdcount::is_screenshot(n)).count();
        assert_eq!((reads, shots), (0, 1), "step {i}: {iv:?}");
        let classic: Vec<&String> = iv.iter().filter(|n| !n.contains('.')).collect();
        assert!(
            classic.is_empty(),
            "step {i}: classic commands {classic:?} in {iv:?}"
        );
        let before_shot = &iv[..iv.len() - 1];
        let flushes = before_shot
            .iter()
            .rev()
            .take_while(|n| *n == "script.evaluate")
            .count();
        assert!(flushes <= 1, "step {i}: {iv:?}");
    }
}

/// Every fact of the runs above, checked in one test: the runs are made once (`support::facts`).
#[test]
fn every_fact_of_the_runs() {
    support::facts(&[
        (
            "every_step_keeps_its_screenshots_console_and_network",
            every_step_keeps_its_screenshots_console_and_network,
        ),
        (
            "a_step_costs_at_most_five_webdriver_commands",
            a_step_costs_at_most_five_webdriver_commands,
        ),
    ]);
}
