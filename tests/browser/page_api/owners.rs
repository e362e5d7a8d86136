//! The browser is a value: each owner (a test, the harness's run, the MCP
//! server's agent) makes its own `Browsers` (its own Chromium, or
//! chromedriver with `HARSHJUDGE_CHROMIUM_PROTOCOL=webdriver`), and one
//! owner's `shutdown` never closes a page another owner has open, in the
//! same process.

use harshjudge::browser::Browsers;

use super::{config, owned_process};

pub(super) fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

pub(super) async fn gone(pid: u32) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while alive(pid) && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    !alive(pid)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_owners_shutdown_leaves_another_owners_page_working() {
    let base = demo_app::start_in_background().expect("demo app");
    let (mine, theirs) = (Browsers::new(), Browsers::new());
    let my_page = mine.open_page_with(&config(), &base).await.expect("a page");
    let their_page = theirs
        .open_page_with(&config(), &base)
        .await
        .expect("another owner's page");
    let my_driver = owned_process(&mine).expect("my browser");
    let their_driver = owned_process(&theirs).expect("their browser");
    assert_ne!(my_driver, their_driver, "each owner has its own driver");
    my_page.goto("/login").await.unwrap();
    // One owner is done: its page goes back, and it shuts its browsers down.
    mine.release(my_page).await;
    mine.shutdown().await;
    assert!(
        gone(my_driver).await,
        "my chromedriver outlived my shutdown"
    );
    assert!(owned_process(&mine).is_none());
    // The other owner's page still works: its driver was not touched.
    assert!(
        alive(their_driver),
        "their chromedriver was stopped by my shutdown"
    );
    their_page
        .goto("/login")
        .await
        .expect("the other owner's page still works");
    assert!(their_page.url().await.unwrap().ends_with("/login"));
    // A shutdown while its own page is open leaves that page working too.
    theirs.shutdown().await;
    assert!(
        alive(their_driver),
        "a shutdown stopped the driver under its own open page"
    );
    their_page
        .goto("/items")
        .await
        .expect("its own page still works");
    theirs.release(their_page).await;
    theirs.shutdown().await;
    assert!(
        gone(their_driver).await,
        "their chromedriver outlived their last shutdown"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_browsers_kills_its_driver_and_no_other() {
    let base = demo_app::start_in_background().expect("demo app");
    let (kept, dropped) = (Browsers::new(), Browsers::new());
    let page = kept.open_page_with(&config(), &base).await.expect("a page");
    let other = dropped
        .open_page_with(&config(), &base)
        .await
        .expect("a page");
    let kept_driver = owned_process(&kept).expect("a browser");
    let dropped_driver = owned_process(&dropped).expect("a browser");
    dropped.release(other).await;
    drop(dropped);
    assert!(
        gone(dropped_driver).await,
        "a dropped Browsers' driver outlived it"
    );
    assert!(alive(kept_driver));
    page.goto("/login")
        .await
        .expect("the kept owner's page still works");
    kept.release(page).await;
    kept.shutdown().await;
}
