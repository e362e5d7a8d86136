//! A page's viewport is its settings' (`HARSHJUDGE_VIEWPORT`, whose parsing
//! `config.rs` tests), so screenshots have exactly that size. The settings are
//! passed, not set in the environment: the other tests of this binary run
//! meanwhile.

use harshjudge::browser::{BrowserConfig, Browsers};

use super::config;

fn png_size(b: &[u8]) -> (u32, u32) {
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    (
        u32::from_be_bytes(b[16..20].try_into().unwrap()),
        u32::from_be_bytes(b[20..24].try_into().unwrap()),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewport_setting_is_the_screenshot_size() {
    let browsers = Browsers::new();
    let config = BrowserConfig {
        viewport: (1000, 500),
        ..config()
    };
    let base = demo_app::start_in_background().expect("demo app");
    let page = browsers
        .open_page_with(&config, &base)
        .await
        .expect("a page");
    page.goto("/items").await.unwrap();
    assert_eq!(png_size(&page.screenshot().await.unwrap()), (1000, 500));
    browsers.release(page).await;
    // The same session, pooled, with another viewport for its next page.
    let config = BrowserConfig {
        viewport: (800, 600),
        ..config
    };
    let page = browsers
        .open_page_with(&config, &base)
        .await
        .expect("a page");
    page.goto("/items").await.unwrap();
    assert_eq!(png_size(&page.screenshot().await.unwrap()), (800, 600));
    browsers.release(page).await;
    browsers.shutdown().await;
}
