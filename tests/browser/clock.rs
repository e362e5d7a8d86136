//! `page.clock()` and `page.add_init_script` (issue 41, points 5 and 6) in
//! real browsers: Chromium through chromedriver (WebDriver BiDi) and over the
//! DevTools protocol, Firefox (BiDi), WebKitGTK (classic WebDriver: every
//! method `Unsupported`, naming the engine). A local page shows what it
//! sees: `Date` at its load, a 30-minute session expiry
//! (`setTimeout(…, 30 * 60 * 1000)`), a one-minute `setInterval` counted, a
//! same-origin iframe with its own `Date` and a cross-site one showing what it
//! saw at its load; a popup.

use crate::support::browsers;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use harshjudge::browser::{BrowserConfig, BrowserError, BrowserKind, ClockTime, Page, expect};

use crate::support;
use crate::support::engines::{chromium_cdp, config};

const PAGE: &str = r#"<!doctype html><html><head><title>clock</title>
<script>
window.loadedAt = Date.now();
window.sawSeed = window.__seeded;
window.minutes = 0;
</script></head><body>
<p id="loaded"></p>
<p id="session">active</p>
<p id="minutes">0</p>
<a id="open" href="/" target="_blank">open</a>
<iframe id="frame" src="/inner"></iframe>
<script>
// A cross-site iframe (another host, the same server): out of process on Chromium.
var far = document.createElement('iframe');
far.id = 'far';
far.src = 'http://localhost:' + location.port + '/inner';
document.body.appendChild(far);
</script>
<script>
document.getElementById('loaded').textContent = new Date(window.loadedAt).toISOString();
setTimeout(function () { document.getElementById('session').textContent = 'session expired'; }, 30 * 60 * 1000);
setInterval(function () { window.minutes++; document.getElementById('minutes').textContent = String(window.minutes); }, 60 * 1000);
</script></body></html>"#;

const INNER: &str = r#"<!doctype html><html><head><title>inner</title>
<script>window.loadedAt = Date.now(); window.sawSeed = window.__seeded;</script>
</head><body><p id="seen"></p>
<script>document.getElementById('seen').textContent = String(window.sawSeed) + ' ' + new Date(window.loadedAt).toISOString();</script>
</body></html>"#;

fn app(stream: TcpStream) -> std::io::Result<()> {
    support::answer_pages(stream, &[("/", PAGE), ("/inner", INNER)])
}

async fn open(config: &BrowserConfig) -> Page {
    let base = support::serve_with(app);
    browsers()
        .open_page_with(config, &base)
        .await
        .unwrap_or_else(|e| panic!("a {} page: {e}", config.browser))
}

fn ms(text: &str) -> f64 {
    text.parse::<ClockTime>().unwrap().millis() as f64
}

async fn num(page: &Page, js: &str) -> f64 {
    page.evaluate::<f64, _>(js, ())
        .await
        .unwrap_or_else(|e| panic!("{js}: {e}"))
}

/// The frame's window, from the top document.
const FRAME: &str = "document.getElementById('frame').contentWindow";

async fn clock_on(config: BrowserConfig) {
    let page = open(&config).await;
    let name = format!("{} ({})", config.browser, page.protocol());

    // Before install: a clear error, not a silent no-op.
    let e = page
        .clock()
        .run_for(Duration::from_secs(1))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("page.clock().run_for") && e.contains("page.clock().install()"),
        "{name}: {e}"
    );

    // Installed before goto: the new document's inline script reads the
    // fake Date at its load; the init script added first ran before it, in
    // the iframe too.
    page.add_init_script("window.__seeded = 'seeded:' + document.readyState;")
        .await
        .unwrap();
    let start = ms("2024-02-02T08:00:00Z");
    page.clock()
        .install_at("2024-02-02T08:00:00Z".parse::<ClockTime>().unwrap())
        .await
        .unwrap();
    page.goto("/").await.unwrap();
    let loaded = num(&page, "window.loadedAt").await;
    assert!(
        (start..start + 60_000.0).contains(&loaded),
        "{name}: loaded at {loaded}, installed at {start}"
    );
    let frame_loaded = num(&page, &format!("{FRAME}.loadedAt")).await;
    assert!(
        (start..start + 60_000.0).contains(&frame_loaded),
        "{name}: the frame loaded at {frame_loaded}"
    );
    let seen: String = page.evaluate("window.sawSeed", ()).await.unwrap();
    assert_eq!(seen, "seeded:loading", "{name}");
    // The frame's document had it before its scripts too (Firefox runs it in
    // the frame's initial about:blank, whose window the same-origin document
    // that replaces it keeps: `complete` there).
    let seen: String = page
        .evaluate(&format!("{FRAME}.sawSeed"), ())
        .await
        .unwrap();
    assert!(
        seen.starts_with("seeded:"),
        "{name}: the frame saw {seen:?}"
    );
    // The cross-site iframe too (Chromium: a target of its own).
    expect(&page.frame_locator("#far").locator("#seen"))
        .to_contain_text("seeded:loading 2024-02-02T08:0")
        .await
        .unwrap();
    let e = page.clock().install().await.unwrap_err().to_string();
    assert!(e.contains("installed already"), "{name}: {e}");

    // The session expires after 30 minutes of the page's time, in well under
    // a second of real time; the one-minute interval fired 30 times.
    let real = Instant::now();
    page.clock()
        .run_for(Duration::from_secs(30 * 60))
        .await
        .unwrap();
    let took = real.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "{name}: run_for took {took:?}"
    );
    expect(&page.locator("#session"))
        .to_have_text("session expired")
        .await
        .unwrap();
    expect(&page.locator("#minutes"))
        .to_have_text("30")
        .await
        .unwrap();
    let now = num(&page, "Date.now()").await;
    assert!(
        (start + 1_800_000.0..start + 1_860_000.0).contains(&now),
        "{name}: {now}"
    );

    // pause_at: Date jumps there and stops, in the page and its frame; the
    // interval due in the jump fired once.
    let ten = ms("2024-02-02T10:00:00Z");
    page.clock()
        .pause_at("2024-02-02T10:00:00Z".parse::<ClockTime>().unwrap())
        .await
        .unwrap();
    assert_eq!(num(&page, "Date.now()").await, ten, "{name}");
    expect(&page.locator("#minutes"))
        .to_have_text("31")
        .await
        .unwrap();
    assert_eq!(num(&page, "new Date().getTime()").await, ten, "{name}");
    assert_eq!(
        num(&page, &format!("{FRAME}.Date.now()")).await,
        ten,
        "{name}: the frame"
    );
    // The auto-wait keeps real time while the page's clock stands still: a
    // change that comes later (a fetch's answer) is waited for and seen.
    page.evaluate::<(), _>(
        "() => { fetch('/inner').then(() => { document.getElementById('session').textContent = 'fetched'; }); }",
        (),
    )
    .await
    .unwrap();
    expect(&page.locator("#session"))
        .to_have_text("fetched")
        .await
        .unwrap();
    let e = page
        .clock()
        .pause_at("2024-02-02T09:00:00Z".parse::<ClockTime>().unwrap())
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("before the clock's"), "{name}: {e}");
    page.clock()
        .run_for(Duration::from_millis(1500))
        .await
        .unwrap();
    assert_eq!(num(&page, "Date.now()").await, ten + 1500.0, "{name}");

    // fast_forward jumps: each timer due fires at most once.
    page.evaluate::<(), _>(
        "() => { window.fired = []; setTimeout(() => fired.push('t5'), 5000); \
         window.every = setInterval(() => fired.push('i1'), 1000); }",
        (),
    )
    .await
    .unwrap();
    page.clock()
        .fast_forward(Duration::from_secs(10))
        .await
        .unwrap();
    let fired: Vec<String> = page.evaluate("fired.slice().sort()", ()).await.unwrap();
    assert_eq!(fired, ["i1", "t5"], "{name}");
    assert_eq!(num(&page, "Date.now()").await, ten + 11_500.0, "{name}");
    // run_for, by contrast, fires the interval each second of the span.
    page.clock().run_for(Duration::from_secs(3)).await.unwrap();
    let fired: Vec<String> = page.evaluate("fired", ()).await.unwrap();
    assert_eq!(fired.len(), 5, "{name}: {fired:?}");
    page.evaluate::<(), _>("clearInterval(every)", ())
        .await
        .unwrap();

    // set_fixed_time: Date fixed, the timers run on.
    let fixed = ms("2030-01-01T00:00:00Z");
    page.clock()
        .set_fixed_time("2030-01-01T00:00:00Z".parse::<ClockTime>().unwrap())
        .await
        .unwrap();
    page.clock().run_for(Duration::from_secs(60)).await.unwrap();
    assert_eq!(num(&page, "Date.now()").await, fixed, "{name}");
    assert_eq!(num(&page, "new Date().getUTCFullYear()").await, 2030.0);
    let year: String = page
        .evaluate(
            "new Intl.DateTimeFormat('en-US', {timeZone: 'UTC', year: 'numeric'}).format()",
            (),
        )
        .await
        .unwrap();
    assert_eq!(year, "2030", "{name}");
    let parts: String = page
        .evaluate(
            "new Intl.DateTimeFormat('en-US', {timeZone: 'UTC', year: 'numeric'}).formatToParts()[0].value",
            (),
        )
        .await
        .unwrap();
    assert_eq!(parts, "2030", "{name}");
    expect(&page.locator("#minutes"))
        .to_have_text("32")
        .await
        .unwrap();

    // set_system_time: Date there, no timer fired by the change.
    page.evaluate::<(), _>(
        "() => { window.shifted = 0; setTimeout(() => shifted++, 1000); }",
        (),
    )
    .await
    .unwrap();
    let shift = ms("2035-06-01T00:00:00Z");
    page.clock()
        .set_system_time(std::time::UNIX_EPOCH + Duration::from_millis(shift as u64))
        .await
        .unwrap();
    assert_eq!(num(&page, "Date.now()").await, shift, "{name}");
    assert_eq!(num(&page, "shifted").await, 0.0, "{name}");

    // resume: time flows again (waited for, in real time).
    page.clock().resume().await.unwrap();
    page.wait_for_function("() => window.shifted === 1", ())
        .await
        .unwrap();
    assert!(num(&page, "Date.now()").await >= shift + 1000.0, "{name}");

    // A new document replays the clock: Date flows on from 2035 at its load.
    page.reload().await.unwrap();
    let loaded = num(&page, "window.loadedAt").await;
    assert!(
        (shift..shift + 60_000.0).contains(&loaded),
        "{name}: reloaded at {loaded}, the clock at {shift}"
    );
    expect(&page.locator("#session"))
        .to_have_text("active")
        .await
        .unwrap();

    // A timer that keeps rescheduling itself does not hold the page: run_for
    // stops after 100,000 firings and says why.
    page.evaluate::<(), _>("() => { window.spin = setInterval(() => {}, 1); }", ())
        .await
        .unwrap();
    let e = page
        .clock()
        .run_for(Duration::from_secs(3600))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("stopped after firing 100000 timers"),
        "{name}: {e}"
    );
    page.evaluate::<(), _>("clearInterval(spin)", ())
        .await
        .unwrap();

    // A popup the page opens starts with the page's init scripts (the seed
    // and the clock, before its own scripts): over CDP its opener's, sent
    // before it runs; over BiDi the preload scripts of the page's user
    // context, which the popup is in.
    let popup = page
        .wait_for_popup(page.locator("#open").click())
        .await
        .unwrap();
    expect(&popup.locator("#session"))
        .to_have_text("active")
        .await
        .unwrap();
    let loaded = num(&popup, "window.loadedAt").await;
    let seen: Option<String> = popup.evaluate("window.sawSeed", ()).await.unwrap();
    assert!(
        (shift..shift + 60_000.0).contains(&loaded),
        "{name}: the popup loaded at {loaded}"
    );
    assert_eq!(seen.as_deref(), Some("seeded:loading"), "{name}");
    popup.close().await.unwrap();

    // Paused, then moved on: a new document, its frames (same-origin, whose
    // first about:blank window the document may keep, and cross-site) read
    // exactly that time, each operation replayed once.
    let later = shift + 3_600_000.0;
    page.clock()
        .pause_at(ClockTime::from_millis(later as i64))
        .await
        .unwrap();
    page.clock().run_for(Duration::from_secs(5)).await.unwrap();
    page.reload().await.unwrap();
    assert_eq!(
        num(&page, "window.loadedAt").await,
        later + 5000.0,
        "{name}"
    );
    assert_eq!(
        num(&page, &format!("{FRAME}.loadedAt")).await,
        later + 5000.0,
        "{name}: the frame"
    );
    expect(&page.frame_locator("#far").locator("#seen"))
        .to_contain_text(" 2035-06-01T01:00:05.000Z")
        .await
        .unwrap();
    browsers().release(page).await;
}

/// WebKitGTK: no way to run a script before a document's own; every method
/// says so, naming the engine, and the page keeps the real clock.
async fn unsupported_on_webkit() {
    let page = open(&config(BrowserKind::Webkit)).await;
    let check = |e: BrowserError, what: &str| {
        let text = e.to_string();
        assert!(
            matches!(
                e,
                BrowserError::Unsupported {
                    browser: BrowserKind::Webkit,
                    ..
                }
            ),
            "{what}: {text}"
        );
        assert!(text.contains(what), "{what}: {text}");
        assert!(text.contains("webkit") || text.contains("WebKit"), "{text}");
        assert!(text.contains("before the document's own scripts"), "{text}");
    };
    check(
        page.add_init_script("window.x = 1").await.unwrap_err(),
        "page.add_init_script",
    );
    check(
        page.clock().install().await.unwrap_err(),
        "page.clock().install",
    );
    check(
        page.clock().install_at(0_i64).await.unwrap_err(),
        "page.clock().install_at",
    );
    check(
        page.clock()
            .run_for(Duration::from_secs(1))
            .await
            .unwrap_err(),
        "page.clock().run_for",
    );
    check(
        page.clock().set_fixed_time(0_i64).await.unwrap_err(),
        "page.clock().set_fixed_time",
    );
    page.goto("/").await.unwrap();
    let loaded = num(&page, "window.loadedAt").await;
    assert!(
        loaded > ms("2025-01-01T00:00:00Z"),
        "the real clock: {loaded}"
    );
    browsers().release(page).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_on_chromium() {
    clock_on(config(BrowserKind::Chromium)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_on_chromium_over_cdp() {
    clock_on(chromium_cdp()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_on_firefox() {
    clock_on(config(BrowserKind::Firefox)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_unsupported_on_webkit() {
    unsupported_on_webkit().await;
}
