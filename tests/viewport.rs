//! HARSHJUDGE_VIEWPORT sets the page's viewport, so screenshots have exactly that
//! size (its own test binary: it sets the variable for the whole process).

use harshjudge::browser::{BrowserConfig, BrowserError, open_page_with, release_page};

fn png_size(b: &[u8]) -> (u32, u32) {
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    (
        u32::from_be_bytes(b[16..20].try_into().unwrap()),
        u32::from_be_bytes(b[20..24].try_into().unwrap()),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewport_setting_is_the_screenshot_size() {
    // SAFETY: the only test of this binary; nothing else reads the environment now.
    unsafe { std::env::set_var("HARSHJUDGE_VIEWPORT", "1000x500") };
    let mut config = BrowserConfig::from_env().expect("browser settings");
    config.webdriver_url = None;
    assert_eq!(config.viewport, (1000, 500));
    let base = demo_app::start_in_background().expect("demo app");
    let page = open_page_with(&config, &base).await.expect("a page");
    page.goto("/items").await.unwrap();
    assert_eq!(png_size(&page.screenshot().await.unwrap()), (1000, 500));
    release_page(page).await;

    for bad in ["big", "1000", "10x10", "1000x0"] {
        // SAFETY: as above; the page is released, nothing reads the environment.
        unsafe { std::env::set_var("HARSHJUDGE_VIEWPORT", bad) };
        let err = BrowserConfig::from_env().expect_err(bad);
        assert!(
            matches!(
                err,
                BrowserError::Setting {
                    name: "HARSHJUDGE_VIEWPORT",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("WIDTHxHEIGHT"), "{err}");
    }
    // SAFETY: as above.
    unsafe { std::env::remove_var("HARSHJUDGE_VIEWPORT") };
    let config = BrowserConfig::from_env().unwrap();
    assert_eq!(config.viewport, (1280, 720), "the default");
}
