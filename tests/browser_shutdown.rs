//! `browser::shutdown` is called by every user of the process's chromedriver
//! when it is done (a test, the harness, `browser_close`): it must never stop
//! the driver under a page another user still has open, and must stop it once
//! none is left. Its own test binary: it watches this process's chromedriver.

use harshjudge::browser::{BrowserConfig, local_driver, open_page_with, release_page, shutdown};

fn config() -> BrowserConfig {
    let mut c = BrowserConfig::from_env().expect("browser settings");
    c.webdriver_url = None;
    c
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_users_shutdown_leaves_another_users_page_working() {
    let base = demo_app::start_in_background().expect("demo app");
    let mine = open_page_with(&config(), &base).await.expect("a page");
    let theirs = open_page_with(&config(), &base)
        .await
        .expect("a second page");
    let (pid, _) = local_driver().expect("a local chromedriver");
    mine.goto("/login").await.unwrap();
    // One user is done: its page goes back, and it shuts the browser down.
    release_page(mine).await;
    shutdown().await;
    // The other user's page still works: the driver was left running.
    assert!(alive(pid), "chromedriver was stopped under an open page");
    theirs
        .goto("/login")
        .await
        .expect("the other page still works");
    assert!(theirs.url().await.unwrap().ends_with("/login"));
    // The last user's shutdown stops it.
    release_page(theirs).await;
    shutdown().await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while alive(pid) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!alive(pid), "chromedriver outlived the last shutdown");
    assert!(local_driver().is_none());
}
