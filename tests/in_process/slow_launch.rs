//! A browser slow to start does not spend the step's limit: opening a page
//! (launching its browser) is bounded by `HARSHJUDGE_LAUNCH_TIMEOUT`, as
//! Playwright's browser is a worker fixture outside a test's timeout. On a
//! busy 2-core machine Firefox took 20 s to start, inside a step whose
//! limit was 30 s; the step then timed out after 10 s of its own work.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use harshjudge::{Scenario, expect, scenario, step};

use crate::support;

/// How long the wrapped Chromium waits before it starts.
const SLOW_START: Duration = Duration::from_secs(4);

#[scenario(step_timeout = "3s")]
async fn slow_to_start(s: Scenario) -> harshjudge::Result {
    step!("Open a page of a browser slow to start", {
        let page = s.page().await?;
        page.goto("data:text/html,<p id=ok>started</p>").await?;
        expect(&page.locator("#ok")).to_have_text("started").await?;
    });
    step!("A step that outlives its limit still fails", {
        tokio::time::sleep(Duration::from_secs(5)).await;
    });
    Ok(())
}

/// The Chromium on `PATH`, behind a script that waits [`SLOW_START`] first.
fn slow_chromium(dir: &std::path::Path) -> std::path::PathBuf {
    let real = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|p| p.join(name))
                    .find(|p| p.is_file())
            })
        })
        .expect("a Chromium on PATH (cargo xtask test installs it)");
    let script = dir.join("slow-chromium");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nsleep {}\nexec '{}' \"$@\"\n",
            SLOW_START.as_secs(),
            real.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

#[test]
fn a_browser_slow_to_start_does_not_spend_the_step_limit() {
    let _alone = support::in_process();
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join("hj");
    // SAFETY: under `in_process`: no other test of the binary reads the
    // environment meanwhile (its guard puts the variables back).
    unsafe {
        std::env::set_var("HARSHJUDGE_DIR", &hj);
        std::env::set_var("HARSHJUDGE_CHROMIUM", slow_chromium(tmp.path()));
        std::env::set_var("HARSHJUDGE_BASE_URL", "http://127.0.0.1:9");
        std::env::remove_var("HARSHJUDGE_WEBDRIVER_URL");
        std::env::remove_var("HARSHJUDGE_BROWSER");
        std::env::remove_var("HARSHJUDGE_STEP_TIMEOUT");
    }
    let line = ["--quiet", "--test-threads", "1", "slow_to_start"];
    let code = support::run_line("slow_launch", &line);
    assert_ne!(code, 0, "the second step outlives its limit");
    let run = support::only_run(&hj, "slow-to-start");
    let result = support::json(run.join("result.json"));
    let steps = &result["steps"];
    assert_eq!(steps[0]["status"], "pass", "{result}");
    assert!(
        steps[0]["duration"].as_u64().unwrap() >= SLOW_START.as_millis() as u64,
        "the step waited for its browser: {result}"
    );
    assert_eq!(steps[1]["status"], "fail", "{result}");
    assert_eq!(
        steps[1]["error"],
        "step timed out after 3s (the step's limit, set by #[scenario(step_timeout = …)])",
        "{result}"
    );
}
