//! The screencast against a fake browser: started at the viewport's size,
//! each frame acknowledged and passed on decoded, nothing passed on once stopped.

use std::time::Duration;

use base64::Engine as _;
use serde_json::json;

use super::super::page::CdpPage;
use super::super::testing::fake_page;
use super::Screencast;

/// The screencast of `page` at `viewport`, as the backend starts it.
async fn start(page: &CdpPage, viewport: (u32, u32)) -> Result<Screencast, super::CdpError> {
    let (connection, session) = (&page.connection, &page.session);
    Screencast::start(connection, session, &page.shared.screencast, viewport).await
}

#[tokio::test]
async fn frames_are_acknowledged_passed_on_and_stop_with_the_screencast() {
    let (page, mut fake) = fake_page().await;
    let (cast, ()) = tokio::join!(start(&page, (800, 600)), async {
        let c = fake.expect("Page.startScreencast").await;
        assert_eq!(
            c["params"],
            json!({"format": "jpeg", "quality": 80, "maxWidth": 800, "maxHeight": 600, "everyNthFrame": 1})
        );
        assert_eq!(c["sessionId"], "S1");
        fake.answer(&c["id"], json!({})).await;
    });
    let mut cast = cast.expect("started");
    let frames = cast.take_frames().expect("the frames");
    let jpeg = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    fake.event(
        "Page.screencastFrame",
        json!({"data": jpeg(b"frame one"), "sessionId": 7, "metadata": {"timestamp": 1.0}}),
    )
    .await;
    let ack = fake.expect("Page.screencastFrameAck").await;
    assert_eq!(ack["params"], json!({"sessionId": 7}));
    fake.answer(&ack["id"], json!({})).await;
    let (frame, frames) = tokio::task::spawn_blocking(move || {
        let f = frames.recv_timeout(Duration::from_secs(10));
        (f, frames)
    })
    .await
    .unwrap();
    assert_eq!(frame.expect("a frame").jpeg, b"frame one");

    let (_, ()) = tokio::join!(cast.stop(), async {
        let c = fake.expect("Page.stopScreencast").await;
        fake.answer(&c["id"], json!({})).await;
    });
    // A frame painted before the stop took effect: still acknowledged, not passed on.
    fake.event(
        "Page.screencastFrame",
        json!({"data": jpeg(b"late"), "sessionId": 8, "metadata": {}}),
    )
    .await;
    let ack = fake.expect("Page.screencastFrameAck").await;
    assert_eq!(ack["params"], json!({"sessionId": 8}));
    assert!(frames.try_recv().is_err(), "nothing after the stop");
}
