//! Emulation (issue 41, points 4 and 6): a page opened with
//! `BrowserConfig.emulation` on each engine, against a local server whose
//! page shows what the browser sees (`navigator.language`, `Intl`'s time
//! zone and number format, `Date`'s offset, `matchMedia`, geolocation,
//! `navigator.onLine`, the user agent and the headers the server received,
//! Basic authentication, scripts off, a device's viewport, scale and touch).
//! Each engine: the options it can, asserted; those it cannot, the
//! `Unsupported` error's words. And the page's changes after opening
//! (`set_offline`, `emulate_media`, `set_extra_http_headers`), bad input, and
//! a popup that has its opener's emulation.

use crate::support::browsers;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;

use harshjudge::browser::{
    BrowserConfig, BrowserError, BrowserKind, ChromiumProtocol, ColorScheme, EmulateMedia,
    Emulation, Geolocation, Page, Permission, ReducedMotion,
};
use serde_json::{Value, json};

use crate::support;
use crate::support::engines::{chromium_cdp, config};

/// `user:pass`, as Basic authentication sends it.
const BASIC_USER_PASS: &str = "Basic dXNlcjpwYXNz";

/// One request: its path and headers (names lower-cased).
fn read_request(r: &mut impl BufRead) -> std::io::Result<(String, Vec<(String, String)>)> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 || h.trim_end().is_empty() {
            break;
        }
        if let Some((n, v)) = h.trim_end().split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    Ok((path, headers))
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;")
}

/// The page that shows what it sees, `/echo` (the headers received, as
/// JSON) and `/secret` (Basic authentication, `user:pass`).
fn answer(stream: TcpStream) -> std::io::Result<()> {
    let mut r = BufReader::new(stream.try_clone()?);
    let (path, headers) = read_request(&mut r)?;
    let header = |n: &str| {
        headers
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let (status, kind, extra, body) = match path.as_str() {
        "/echo" => {
            let json = serde_json::json!({
                "ua": header("user-agent"),
                "extra": header("x-extra"),
                "lang": header("accept-language"),
            });
            ("200 OK", "application/json", "", json.to_string())
        }
        "/secret" if header("authorization") == BASIC_USER_PASS => {
            ("200 OK", "text/html", "", "<p id=s>welcome</p>".into())
        }
        "/secret" => (
            "401 Unauthorized",
            "text/html",
            "WWW-Authenticate: Basic realm=\"hj\"\r\n",
            "<p id=s>denied</p>".into(),
        ),
        "/favicon.ico" => ("404 Not Found", "text/plain", "", String::new()),
        _ => {
            let html = format!(
                "<!doctype html><html><head><meta name=viewport content=\"width=device-width, initial-scale=1\"></head><body>\
                 <noscript><p id=nojs>scripts are off</p></noscript>\
                 <a id=pop href=\"/?popup\" target=_blank>open</a><p id=ua style=\"overflow-wrap: anywhere\">{}</p><p id=extra>{}</p>\
                 <script>document.body.dataset.ran = 'yes';</script></body></html>",
                escape(&header("user-agent")),
                escape(&header("x-extra")),
            );
            ("200 OK", "text/html", "", html)
        }
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}; charset=utf-8\r\n{extra}Content-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

fn settings(browser: BrowserKind, emulation: Emulation) -> BrowserConfig {
    let mut c = match browser {
        BrowserKind::Chromium => chromium_cdp(),
        b => config(b),
    };
    c.emulation = emulation;
    c
}

async fn open(base: &str, browser: BrowserKind, e: Emulation) -> Result<Page, BrowserError> {
    browsers().open_page_with(&settings(browser, e), base).await
}

/// `js` (a function body) in the page.
async fn js(page: &Page, js: &str) -> Value {
    page.eval(js).await.unwrap_or_else(|e| panic!("{js}: {e}"))
}

/// Opening a page with `e` fails `Unsupported`, naming `option` and the engine.
async fn refused(base: &str, browser: BrowserKind, option: &str, e: Emulation) {
    match open(base, browser, e).await {
        Ok(page) => {
            browsers().release(page).await;
            panic!("{browser}: `{option}` was not refused");
        }
        Err(e @ BrowserError::Unsupported { .. }) => {
            let text = e.to_string();
            assert!(
                text.contains(&format!(
                    "emulating `{option}` is not available on {browser}"
                )),
                "{text}"
            );
        }
        Err(e) => panic!("{browser}: `{option}`: not Unsupported but {e}"),
    }
}

/// Where `navigator.geolocation` says the device is.
const WHERE: &str = "() => new Promise((ok, no) => navigator.geolocation.getCurrentPosition(\
    p => ok([p.coords.latitude, p.coords.longitude]), e => no(new Error(e.message))))";

/// Place and time: locale, time zone, geolocation with its permission, the
/// user agent and an extra header.
fn place_and_time() -> Emulation {
    Emulation::new()
        .locale("de-DE")
        .timezone_id("Asia/Tokyo")
        .geolocation(52.52, 13.405)
        .grant_permissions([Permission::Geolocation])
        .user_agent("harshjudge-emulated/1.0")
        .extra_http_header("X-Extra", "hello")
}

async fn sees_place_and_time(base: &str, browser: BrowserKind) {
    sees_place_and_time_with(base, settings(browser, place_and_time())).await;
}

/// [`sees_place_and_time`] with these settings (their emulation replaced).
async fn sees_place_and_time_with(base: &str, mut settings: BrowserConfig) {
    settings.emulation = place_and_time();
    let page = browsers().open_page_with(&settings, base).await.unwrap();
    page.goto("/").await.unwrap();
    assert_eq!(js(&page, "return navigator.language").await, "de-DE");
    assert_eq!(
        js(
            &page,
            "return Intl.DateTimeFormat().resolvedOptions().timeZone"
        )
        .await,
        "Asia/Tokyo"
    );
    assert_eq!(
        js(&page, "return new Intl.NumberFormat().format(1234.5)").await,
        "1.234,5"
    );
    assert_eq!(
        js(&page, "return new Date(0).getTimezoneOffset()").await,
        -540
    );
    assert_eq!(
        js(&page, "return navigator.userAgent").await,
        "harshjudge-emulated/1.0"
    );
    // The document's request carried them.
    assert_eq!(
        js(&page, "return document.getElementById('ua').textContent").await,
        "harshjudge-emulated/1.0"
    );
    assert_eq!(
        js(&page, "return document.getElementById('extra').textContent").await,
        "hello"
    );
    let echo: Value = page
        .evaluate("async () => (await fetch('/echo')).json()", ())
        .await
        .unwrap();
    assert_eq!(echo["extra"], "hello", "{echo}");
    assert_eq!(echo["ua"], "harshjudge-emulated/1.0", "{echo}");
    assert!(
        echo["lang"].as_str().unwrap_or("").starts_with("de-DE"),
        "{echo}"
    );
    let at: Value = page.evaluate(WHERE, ()).await.unwrap();
    assert_eq!(at, serde_json::json!([52.52, 13.405]));
    // Moved after opening; the permission taken back.
    let paris = Geolocation {
        latitude: 48.85,
        longitude: 2.35,
        accuracy: 10.0,
    };
    page.set_geolocation(Some(paris)).await.unwrap();
    let at: Value = page.evaluate(WHERE, ()).await.unwrap();
    assert_eq!(at, serde_json::json!([48.85, 2.35]));
    let state = "async () => (await navigator.permissions.query({name: 'geolocation'})).state";
    assert_eq!(
        page.evaluate::<String, _>(state, ()).await.unwrap(),
        "granted"
    );
    page.clear_permissions().await.unwrap();
    assert_eq!(
        page.evaluate::<String, _>(state, ()).await.unwrap(),
        "prompt"
    );
    // Changed after opening: the headers from now on.
    page.set_extra_http_headers([("X-Extra", "again")])
        .await
        .unwrap();
    let echo: Value = page
        .evaluate("async () => (await fetch('/echo')).json()", ())
        .await
        .unwrap();
    assert_eq!(echo["extra"], "again", "{echo}");
    browsers().release(page).await;
}

/// Offline from opening, then back online (`page.set_offline`).
async fn goes_offline(base: &str, browser: BrowserKind) {
    let page = open(base, browser, Emulation::new()).await.unwrap();
    page.goto("/").await.unwrap();
    assert_eq!(js(&page, "return navigator.onLine").await, true);
    page.set_offline(true).await.unwrap();
    assert_eq!(js(&page, "return navigator.onLine").await, false);
    let failed: Value = page
        .evaluate(
            "async () => { try { await fetch('/echo'); return 'fetched'; } catch (e) { return 'failed'; } }",
            (),
        )
        .await
        .unwrap();
    assert_eq!(failed, "failed");
    page.set_offline(false).await.unwrap();
    assert_eq!(js(&page, "return navigator.onLine").await, true);
    browsers().release(page).await;
}

/// Scripts off: the `<noscript>` shown, the inline script not run, while
/// harshjudge's own calls still read the page.
async fn scripts_off(base: &str, browser: BrowserKind) {
    let e = Emulation::new().javascript_enabled(false);
    let page = open(base, browser, e).await.unwrap();
    page.goto("/").await.unwrap();
    harshjudge::browser::expect(&page.locator("#nojs"))
        .to_be_visible()
        .await
        .unwrap();
    assert_eq!(
        js(&page, "return document.body.dataset.ran ?? 'no'").await,
        "no"
    );
    browsers().release(page).await;
}

/// Basic authentication: answered with the credentials; with wrong ones
/// (or another origin's), the server's 401.
async fn answers_basic_auth(base: &str, browser: BrowserKind) {
    let e = Emulation::new().http_credentials("user", "pass");
    let page = open(base, browser, e).await.unwrap();
    page.goto("/secret").await.unwrap();
    assert_eq!(
        js(&page, "return document.getElementById('s').textContent").await,
        "welcome"
    );
    browsers().release(page).await;
    let e = Emulation::new().http_credentials("user", "wrong");
    let page = open(base, browser, e).await.unwrap();
    page.goto("/").await.unwrap();
    let status: Value = page
        .evaluate("async () => (await fetch('/secret')).status", ())
        .await
        .unwrap();
    assert_eq!(status, 401, "wrong credentials end in the server's 401");
    browsers().release(page).await;
    let mut e = Emulation::new().http_credentials("user", "pass");
    if let Some(c) = e.http_credentials.as_mut() {
        c.origin = Some("http://127.0.0.1:1".into());
    }
    let page = open(base, browser, e).await.unwrap();
    page.goto("/").await.unwrap();
    let status: Value = page
        .evaluate("async () => (await fetch('/secret')).status", ())
        .await
        .unwrap();
    assert_eq!(status, 401, "another origin's credentials are not given");
    browsers().release(page).await;
}

async fn sees_media(page: &Page) -> (Value, Value) {
    (
        js(
            page,
            "return matchMedia('(prefers-color-scheme: dark)').matches",
        )
        .await,
        js(
            page,
            "return matchMedia('(prefers-reduced-motion: reduce)').matches",
        )
        .await,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_emulates_every_option() {
    let base = support::serve_with(answer);
    let chromium = BrowserKind::Chromium;
    sees_place_and_time(&base, chromium).await;
    goes_offline(&base, chromium).await;
    scripts_off(&base, chromium).await;

    // Media features, at opening and changed after.
    let e = Emulation::new()
        .color_scheme(ColorScheme::Dark)
        .reduced_motion(ReducedMotion::Reduce);
    let page = open(&base, chromium, e).await.unwrap();
    page.goto("/").await.unwrap();
    assert_eq!(sees_media(&page).await, (true.into(), true.into()));
    let light = EmulateMedia {
        color_scheme: Some(ColorScheme::Light),
        reduced_motion: Some(ReducedMotion::NoPreference),
    };
    page.emulate_media(light).await.unwrap();
    assert_eq!(sees_media(&page).await, (false.into(), false.into()));
    browsers().release(page).await;

    // A phone: its viewport, scale, touch and user agent.
    let page = open(&base, chromium, Emulation::device("Pixel 7").unwrap())
        .await
        .unwrap();
    page.goto("/").await.unwrap();
    assert_eq!(js(&page, "return innerWidth").await, 412);
    assert_eq!(js(&page, "return devicePixelRatio").await, 2.625);
    assert_eq!(js(&page, "return 'ontouchstart' in window").await, true);
    let ua = js(&page, "return navigator.userAgent").await;
    assert!(ua.as_str().unwrap().contains("Pixel 7"), "{ua}");
    browsers().release(page).await;

    answers_basic_auth(&base, chromium).await;
}

/// Chromium through chromedriver's WebDriver BiDi
/// (`HARSHJUDGE_CHROMIUM_PROTOCOL=webdriver`): the BiDi backend's commands.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_over_webdriver_bidi_emulates_place_and_time() {
    let base = support::serve_with(answer);
    let mut over_bidi = config(BrowserKind::Chromium);
    over_bidi.chromium_protocol = ChromiumProtocol::WebDriver;
    sees_place_and_time_with(&base, over_bidi.clone()).await;
    over_bidi.emulation = Emulation::new();
    let page = browsers().open_page_with(&over_bidi, &base).await.unwrap();
    assert_eq!(page.protocol(), "webdriver-bidi");
    browsers().release(page).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_popup_has_its_openers_emulation_on_chromium() {
    let base = support::serve_with(answer);
    let e = Emulation::new()
        .locale("de-DE")
        .timezone_id("America/New_York")
        .color_scheme(ColorScheme::Dark);
    let page = open(&base, BrowserKind::Chromium, e).await.unwrap();
    page.goto("/").await.unwrap();
    let popup = page
        .wait_for_popup(async { page.locator("#pop").click().await })
        .await
        .unwrap();
    // Its first document already had it.
    assert_eq!(js(&popup, "return navigator.language").await, "de-DE");
    assert_eq!(
        js(
            &popup,
            "return Intl.DateTimeFormat().resolvedOptions().timeZone"
        )
        .await,
        "America/New_York"
    );
    assert_eq!(sees_media(&popup).await.0, true);
    browsers().release(page).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_emulates_what_bidi_offers_and_refuses_the_rest() {
    let base = support::serve_with(answer);
    let firefox = BrowserKind::Firefox;
    sees_place_and_time(&base, firefox).await;
    goes_offline(&base, firefox).await;
    // Firefox 153 ESR answers "unknown command" to emulation.setScriptingEnabled.
    let no_js = Emulation::new().javascript_enabled(false);
    refused(&base, firefox, "javascript_enabled", no_js).await;

    // A desktop device: viewport and scale.
    let e = Emulation::device("Desktop Chrome HiDPI").unwrap();
    let page = open(&base, firefox, e).await.unwrap();
    page.goto("/").await.unwrap();
    assert_eq!(js(&page, "return innerWidth").await, 1280);
    assert_eq!(js(&page, "return devicePixelRatio").await, 2);
    browsers().release(page).await;

    // Dark and reduced motion: preferences of the session's Firefox, set
    // as it starts; a page that wants neither gets another session.
    let media = Emulation::new()
        .color_scheme(ColorScheme::Dark)
        .reduced_motion(ReducedMotion::Reduce);
    let page = open(&base, firefox, media).await.unwrap();
    page.goto("/").await.unwrap();
    assert_eq!(sees_media(&page).await, (json!(true), json!(true)));
    // Changed after opening: no command for it.
    let light = EmulateMedia {
        color_scheme: Some(ColorScheme::Light),
        ..EmulateMedia::default()
    };
    let e = page.emulate_media(light).await.unwrap_err();
    assert!(e.to_string().contains("emulating `color_scheme`"), "{e}");
    browsers().release(page).await;
    let page = open(&base, firefox, Emulation::new()).await.unwrap();
    page.goto("/").await.unwrap();
    assert_eq!(sees_media(&page).await, (json!(false), json!(false)));
    browsers().release(page).await;
    let none = Emulation::new().color_scheme(ColorScheme::NoPreference);
    refused(&base, firefox, "color_scheme", none).await;
    let phone = Emulation::device("Pixel 7").unwrap();
    refused(&base, firefox, "is_mobile", phone).await;
    answers_basic_auth(&base, firefox).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webkit_sets_the_viewport_user_agent_time_zone_and_scripts_and_refuses_the_rest() {
    let base = support::serve_with(answer);
    let webkit = BrowserKind::Webkit;
    let page = open(&base, webkit, Emulation::new().viewport(800, 600))
        .await
        .unwrap();
    page.goto("/").await.unwrap();
    assert_eq!(js(&page, "return innerWidth").await, 800);
    browsers().release(page).await;
    // What MiniBrowser takes on its command line: a user agent, the time
    // zone; and in its environment: the locale.
    let e = Emulation::new()
        .user_agent("harshjudge-webkit/1.0")
        .timezone_id("Asia/Tokyo")
        .locale("de-DE");
    let page = open(&base, webkit, e).await.unwrap();
    page.goto("/").await.unwrap();
    assert_eq!(js(&page, "return navigator.language").await, "de-DE");
    assert_eq!(
        js(&page, "return new Intl.NumberFormat().format(1234.5)").await,
        "1.234,5"
    );
    assert_eq!(
        js(&page, "return new Date(0).toLocaleDateString()").await,
        "1.1.1970"
    );
    let echo: Value = page
        .evaluate("async () => (await fetch('/echo')).json()", ())
        .await
        .unwrap();
    assert!(
        echo["lang"].as_str().unwrap_or_default().starts_with("de"),
        "the Accept-Language the server got: {echo}"
    );
    assert_eq!(
        js(&page, "return navigator.userAgent").await,
        "harshjudge-webkit/1.0"
    );
    assert_eq!(
        js(&page, "return document.getElementById('ua').textContent").await,
        "harshjudge-webkit/1.0",
        "the UA the server received"
    );
    assert_eq!(
        js(
            &page,
            "return Intl.DateTimeFormat().resolvedOptions().timeZone"
        )
        .await,
        "Asia/Tokyo"
    );
    assert_eq!(
        js(&page, "return new Date(0).getTimezoneOffset()").await,
        -540
    );
    browsers().release(page).await;
    // The next page wants no locale: not the de-DE browser's (nor its driver's).
    let page = open(&base, webkit, Emulation::new()).await.unwrap();
    page.goto("/").await.unwrap();
    assert_ne!(js(&page, "return navigator.language").await, "de-DE");
    assert_ne!(
        js(&page, "return new Intl.NumberFormat().format(1234.5)").await,
        "1.234,5"
    );
    browsers().release(page).await;
    scripts_off(&base, webkit).await;
    for (option, e) in [
        ("offline", Emulation::new().offline(true)),
        (
            "color_scheme",
            Emulation::new().color_scheme(ColorScheme::Dark),
        ),
    ] {
        refused(&base, webkit, option, e).await;
    }
}

/// Why a page did not open (it must not have).
fn not_opened(opened: Result<Page, BrowserError>) -> BrowserError {
    match opened {
        Ok(_) => panic!("the page opened"),
        Err(e) => e,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_time_zone_fails_the_opening_naming_the_forms_or_the_engines_words() {
    let base = support::serve_with(answer);
    for browser in [BrowserKind::Chromium, BrowserKind::Firefox] {
        let malformed = Emulation::new().timezone_id("Berlin");
        let e = not_opened(open(&base, browser, malformed).await);
        let text = e.to_string();
        assert!(matches!(e, BrowserError::Emulation(_)), "{text}");
        assert!(text.contains("IANA time zone id"), "{text}");
        assert!(text.contains("Europe/Berlin"), "{text}");

        let unknown = Emulation::new().timezone_id("Europe/Atlantis");
        let e = not_opened(open(&base, browser, unknown).await);
        let text = e.to_string();
        assert!(
            text.contains("emulating timezone_id") && text.contains("Europe/Atlantis"),
            "{browser}: {text}"
        );
    }
    let e = Emulation::device("iphone 15").expect_err("unknown device");
    assert!(e.to_string().contains("did you mean \"iPhone 15\""), "{e}");
}
