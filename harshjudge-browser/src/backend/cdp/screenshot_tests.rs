//! Screenshot commands, and PNGs of the expected sizes from a real Chromium.

use serde_json::json;

use base64::Engine as _;

use super::super::protocol::{CaptureScreenshot, GetLayoutMetrics};
use super::super::testing::RealPage;
use super::{Area, ScreenshotError, capture, screenshot, set_viewport};
use crate::protocol::Clip;

/// The pixels of a PNG.
fn pixels_of(png: &[u8]) -> Vec<u8> {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    reader.next_frame(&mut pixels).expect("its pixels");
    pixels
}

/// The width and height of a PNG.
fn size_of(png: &[u8]) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let reader = decoder.read_info().expect("a PNG");
    let info = reader.info();
    (info.width, info.height)
}

#[test]
fn each_area_is_its_capture_command() {
    let as_json = |a, d| serde_json::to_value(capture(a, d)).expect("JSON");
    assert_eq!(
        as_json(Area::Viewport, None),
        json!({"format": "png", "captureBeyondViewport": false, "fromSurface": true,
               "optimizeForSpeed": true})
    );
    assert_eq!(
        as_json(Area::Document, Some((800.0, 1500.4))),
        json!({"format": "png", "captureBeyondViewport": true, "fromSurface": true,
               "optimizeForSpeed": true, "clip": {"x": 0.0, "y": 0.0, "width": 800.0, "height": 1501.0, "scale": 1.0}})
    );
    let clip = Clip {
        x: 10.0,
        y: 900.0,
        width: 50.0,
        height: 40.0,
    };
    assert_eq!(
        as_json(Area::Clip(clip), None)["clip"],
        json!({"x": 10.0, "y": 900.0, "width": 50.0, "height": 40.0, "scale": 1.0})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_page_is_captured_at_the_viewports_size_whole_or_clipped() {
    let page = RealPage::open().await;
    let (c, s) = (&page.connection, &page.session);
    set_viewport(c, s, 400, 300).await.expect("the viewport");
    page.goto("data:text/html,<body style='margin:0'><div style='height:1200px;width:100px;background:red'></div>")
        .await;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while page
        .evaluate("document.body && document.body.scrollHeight", None)
        .await
        .result
        .value
        != Some(json!(1200))
    {
        assert!(std::time::Instant::now() < until, "the page loads");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let inner = page.evaluate("[innerWidth, innerHeight]", None).await;
    assert_eq!(inner.result.value, Some(json!([400, 300])));
    let viewport = screenshot(c, s, Area::Viewport)
        .await
        .expect("the viewport");
    assert_eq!(size_of(&viewport), (400, 300));
    // Compressed quickly, as every capture is: the pixels of the default
    // compression, in a larger file.
    let default = c
        .send(
            Some(s),
            &CaptureScreenshot {
                optimize_for_speed: false,
                ..capture(Area::Viewport, None)
            },
        )
        .await
        .expect("the viewport, compressed as by default");
    let default = base64::engine::general_purpose::STANDARD
        .decode(default.data)
        .expect("base64");
    assert!(
        viewport.len() > default.len(),
        "{} bytes quick, {} by default",
        viewport.len(),
        default.len()
    );
    assert!(
        pixels_of(&viewport) == pixels_of(&default),
        "the same pixels"
    );
    let document = screenshot(c, s, Area::Document)
        .await
        .expect("the document");
    // The whole height; the width of the viewport, less the vertical
    // scrollbar a document taller than the viewport gets (Chromium 156 draws
    // 15 px of it, and leaves it out of the capture).
    let metrics = c
        .send(Some(s), &GetLayoutMetrics {})
        .await
        .expect("metrics");
    assert_eq!(metrics.css_content_size.height, 1200.0);
    let (width, height) = size_of(&document);
    assert_eq!(height, 1200);
    assert!((380..=400).contains(&width), "{width}");
    let clip = Clip {
        x: 10.0,
        y: 900.0,
        width: 50.0,
        height: 40.0,
    };
    let part = screenshot(c, s, Area::Clip(clip)).await.expect("a part");
    assert_eq!(size_of(&part), (50, 40));
    // Below the viewport, inside the red block: red.
    let mut reader = png::Decoder::new(std::io::Cursor::new(&part[..]))
        .read_info()
        .expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let frame = reader.next_frame(&mut pixels).expect("its pixels");
    let channels = frame.color_type.samples();
    assert_eq!(&pixels[..3], [255, 0, 0], "{channels} channels");
    let empty = Clip { width: 0.0, ..clip };
    let e = screenshot(c, s, Area::Clip(empty))
        .await
        .expect_err("no pixel");
    assert!(matches!(e, ScreenshotError::Empty { .. }), "{e:?}");
    page.close().await;
}
