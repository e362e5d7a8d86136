//! An iframe of another site and the input it takes: a page of `127.0.0.1`
//! whose iframe is of `localhost` (another site: out of process on Chromium
//! and Firefox under site isolation), off the page's corner by a margin,
//! border and padding. What every engine's frame input is held to.

use harshjudge::browser::{BrowserError, BrowserKind, Page, expect};
use harshjudge_browser::visual::Image;

/// The page: its iframe's document is the other site's `/inner-input`.
const PAGE: &str = r#"<!doctype html><html><head><title>cross input</title></head><body>
<iframe id="pay" style="margin: 25px 0 0 90px; width: 400px; height: 200px; border: 7px solid #888; padding: 5px"></iframe>
<p id="pressed">not pressed</p>
<div style="height: 2000px"></div>
<script>document.addEventListener('pointerdown', () => { document.getElementById('pressed').textContent = 'pressed'; });</script>
<script>document.getElementById('pay').src = 'http://localhost:' + location.port + '/inner-input';</script>
</body></html>"#;

/// The frame's document: a button counting its clicks, a field whose Enter
/// shows its value.
const INNER: &str = r#"<!doctype html><html><body style="margin: 30px">
<p id="status">unpaid</p>
<button onclick="this.dataset.n = (+this.dataset.n || 0) + 1; document.getElementById('status').textContent = 'paid ' + this.dataset.n">Pay</button>
<input id="name" onkeydown="if (event.key === 'Enter') document.getElementById('status').textContent = 'sent ' + this.value">
<div id="swatch" style="width: 60px; height: 30px; background: rgb(200, 30, 30)"></div>
</body></html>"#;

/// The two documents on a loopback port; its base URL (`127.0.0.1`).
pub fn serve() -> String {
    super::serve_with(|s| {
        super::answer_pages(s, &[("/cross-input", PAGE), ("/inner-input", INNER)])
    })
}

/// The frame takes input as a same-site one on `page`, the page opened
/// from `base` ([`serve`]'s): a locator's click, keys typed into its field,
/// text inserted there and a key pressed there, the mouse at the point its
/// button's bounding box gives (past the frame's margin, border and
/// padding), a screenshot of one of its elements; and once the frame under
/// the pointer is gone, a press where the pointer is goes to the page.
pub async fn takes_clicks_keys_and_the_mouse(page: &Page, base: &str) {
    let browser = page.browser();
    let fails = |e: BrowserError| panic!("{browser}: {e}");
    page.goto(&format!("{base}/cross-input")).await.unwrap();
    let pay = page.frame_locator("#pay");
    let status = pay.locator("#status");
    expect(&status).to_have_text("unpaid").await.unwrap();
    let button = pay.get_by_role("button").name("Pay");
    button.click().await.unwrap_or_else(fails);
    expect(&status)
        .to_have_text("paid 1")
        .await
        .unwrap_or_else(fails);
    let name = pay.locator("#name");
    name.press_sequentially("Grace").await.unwrap_or_else(fails);
    expect(&name)
        .to_have_value("Grace")
        .await
        .unwrap_or_else(fails);
    // Text inserted where the focus is: in the frame's field.
    let keyboard = page.keyboard();
    keyboard.insert_text(" Hopper").await.unwrap_or_else(fails);
    expect(&name)
        .to_have_value("Grace Hopper")
        .await
        .unwrap_or_else(fails);
    name.press("Enter").await.unwrap_or_else(fails);
    expect(&status)
        .to_have_text("sent Grace Hopper")
        .await
        .unwrap_or_else(fails);
    let b = (button.bounding_box().await.unwrap()).expect("the button's box");
    // The iframe's margin (90, 25), border (7) and padding (5), and the
    // frame's body margin (30): the box is the page's, not the frame's.
    assert!(
        b.x >= 90.0 + 12.0 + 30.0 && b.y >= 25.0 + 12.0 + 30.0,
        "{browser}: {b:?} is the button's box in the frame, not in the page"
    );
    (page
        .mouse()
        .click(b.x + b.width / 2.0, b.y + b.height / 2.0))
    .await
    .unwrap_or_else(fails);
    expect(&status)
        .to_have_text("paid 2")
        .await
        .unwrap_or_else(fails);
    // A screenshot of an element of the frame shows that element, the page
    // scrolled (WebKit takes no screenshot of part of the page: its
    // documented gap).
    page.evaluate::<(), _>("() => { window.scrollTo(0, 20); }", ())
        .await
        .unwrap();
    match pay.locator("#swatch").screenshot().await {
        Err(BrowserError::Unsupported {
            browser: BrowserKind::Webkit,
            ..
        }) => {}
        shot => {
            let shot = shot.unwrap_or_else(|e| panic!("{browser}: {e}"));
            let shot = Image::decode_png(&shot).expect("a PNG");
            let pixels = shot.rgba().chunks(4);
            let red = pixels
                .clone()
                .filter(|p| p[0] > 150 && p[1] < 90 && p[2] < 90);
            assert!(
                red.count() * 10 >= pixels.count() * 9,
                "{browser}: the swatch's screenshot ({shot:?}) is not the swatch"
            );
        }
    }
    // The frame under the pointer taken away, a press and a release where
    // the pointer is go to the page.
    button.hover().await.unwrap_or_else(fails);
    page.evaluate::<(), _>("() => { document.getElementById('pay').remove(); }", ())
        .await
        .unwrap();
    let mouse = page.mouse();
    mouse.down().await.unwrap_or_else(fails);
    mouse.up().await.unwrap_or_else(fails);
    expect(&page.locator("#pressed"))
        .to_have_text("pressed")
        .await
        .unwrap_or_else(fails);
}
