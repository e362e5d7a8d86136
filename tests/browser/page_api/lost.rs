//! A failed browser step names its cause first (issue 11, points 5 and 12), in
//! real Chromium. It kills the Chromium (or, over WebDriver, the
//! chromedriver) of a `Browsers` of its own: the other tests' browsers are
//! not touched.

use std::time::{Duration, Instant};

use harshjudge::browser::Browsers;

use super::config;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lost_driver_and_relative_url_errors_lead_with_the_cause() {
    let browsers = Browsers::new();
    // Point 5: a relative URL without a base URL fails in the step that opens it.
    let page = browsers
        .open_page_with(&config(), "")
        .await
        .expect("a browser page");
    let err = page.goto("/").await.expect_err("no base URL").to_string();
    assert!(
        err.contains("HARSHJUDGE_BASE_URL") && err.contains("main!(base_url"),
        "{err}"
    );
    // An absolute URL still opens without a base URL.
    let base = demo_app::start_in_background().expect("demo app");
    page.goto(&format!("{base}/login")).await.unwrap();

    // Point 12: the page crashes; the next wait says so first.
    let crashed = browsers
        .open_page_with(&config(), &base)
        .await
        .expect("a second page");
    crashed.goto("/login").await.unwrap();
    let _ = crashed.cdp("Page.crash", serde_json::json!({})).await;
    let err = crashed
        .with_timeout(Duration::from_secs(2))
        .locator("#email")
        .fill("x")
        .await
        .expect_err("the page is gone")
        .to_string();
    assert!(
        err.starts_with("the page crashed"),
        "the cause leads the message: {err}"
    );

    // Point 12: chromedriver killed while a step waits. The wait is long
    // and the error is wanted within half of it, from the process's exit:
    // an error at the wait's end cannot pass, nor can a busy machine's
    // pause (seconds, CI) between the signal, the exit and the answer fail it.
    let waiting = page.with_timeout(Duration::from_secs(20));
    let wait = tokio::spawn(async move {
        let result = waiting.wait_for("#never-there").await;
        (result, Instant::now())
    });
    tokio::time::sleep(Duration::from_millis(600)).await;
    // Its Chromium (the DevTools protocol), else its chromedriver.
    let (pid, cause) = match browsers.local_browser() {
        Some(pid) => (pid, "the browser exited"),
        None => {
            let (pid, _) = browsers.local_driver().expect("a local chromedriver");
            (pid, "chromedriver exited")
        }
    };
    // Our own child.
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid as i32).expect("a pid"),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    // Timed from its exit, not from the signal: a process killed while
    // the machine is busy may take seconds to end (its threads finishing
    // what the kernel does for them), and until then nothing is lost.
    assert!(
        super::owners::gone(pid).await,
        "the killed process {pid} ended"
    );
    let exited = Instant::now();
    let (result, answered) = wait.await.unwrap();
    let err = result.expect_err("the browser is gone").to_string();
    assert!(err.starts_with(cause), "the cause leads the message: {err}");
    assert!(
        err.contains("#never-there"),
        "and says what was waited for: {err}"
    );
    let after = answered.saturating_duration_since(exited);
    assert!(
        after < Duration::from_secs(10),
        "it fails when the process exits, not at the end of the 20 s wait ({after:?} after)"
    );
}
