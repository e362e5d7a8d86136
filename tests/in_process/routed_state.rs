//! Issue 23 (the page's state): `set_viewport_size`, `keyboard().insert_text`,
//! `set_input_files` and the cookies (`cookies_for`, `restore_storage_state`,
//! `storage_state`, `s.request()`) while a navigation is under way onto a
//! document a route holds (or whose script a route holds).
//!
//! On Chromium these were classic (CDP through chromedriver's
//! `goog/cdp/execute`, or Element Send Keys for the files): chromedriver
//! serves such a command sent while a
//! navigation loads only after that load, and forwards no BiDi command
//! meanwhile, so the route's answer never came and the step hung until its
//! limit. With routes (and always on Firefox) they go over WebDriver BiDi:
//! each returns while the route still holds its answer, with the same effect
//! as on a page without routes (the `plain_state` scenario, CDP's).
//!
//! The scenarios run in-process through the harness with `--browser NAME`,
//! one run after the other, against a loopback server of this test that does
//! not know the routed paths (it answers them 404).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use harshjudge::browser::{BrowserError, BrowserKind, Cookie, StorageState};
use harshjudge::regex::Regex;
use harshjudge::serde_json::{Value, json};
use harshjudge::{Response, Scenario, expect, scenario, step};

use crate::support;

/// How long a route holds its answer at most, when the test does not let it
/// go first: a call that waited for the held document returns only then.
const HOLD_LIMIT: Duration = Duration::from_secs(10);

/// How long Chromium's viewport step holds the document: Chromium's BiDi
/// answers `setViewport` once the navigation has its document.
const HOLD: Duration = Duration::from_millis(1500);

const START: &str = r#"<!doctype html><title>start</title>
<p id="start">start</p>
<a id="link" href="/next">next</a>
<a id="typing" href="/typing">typing</a>
<a id="files" href="/files">files</a>"#;

/// A file input that records its `input` and `change` events (with the
/// files' names and sizes), and the script a route may hold.
const FILES: &str = r#"<!doctype html><title>files</title>
<input id="f" type="file" multiple>
<script>
  window.__events = [];
  const f = document.getElementById('f');
  for (const k of ['input', 'change']) {
    f.addEventListener(k, () => window.__events.push(
      k + ':' + Array.from(f.files).map((x) => x.name + '/' + x.size).join(',')));
  }
</script>
<script async src="/held.js"></script>"#;

/// A focused input that records its events, and a script (async: the
/// document's load waits for it, its DOMContentLoaded does not) that a route
/// may hold.
const TYPING: &str = r#"<!doctype html><title>typing</title>
<input id="t" autofocus>
<script>
  window.__events = [];
  const t = document.getElementById('t');
  for (const k of ['keydown', 'keypress', 'keyup', 'beforeinput', 'input', 'compositionstart', 'compositionend']) {
    t.addEventListener(k, (e) => window.__events.push(e.type + ':' + (e.inputType || '') + ':' + (e.data || '')));
  }
  t.focus();
</script>
<script async src="/held.js"></script>"#;

/// A route's hold on its answer. It begins when the request reaches the
/// route (`holding`) and ends when the test lets it go (`let_go`), or after
/// `HOLD_LIMIT`. A call is shown not to wait for the held document when it
/// returns before the test lets it go, however slow the machine: no timer
/// decides it.
#[derive(Default)]
struct Hold {
    began: tokio::sync::Notify,
    go: tokio::sync::Notify,
    released: AtomicBool,
}

impl Hold {
    /// Once the route holds its request (at once if it already does).
    async fn holding(&self) -> Result<(), harshjudge::Error> {
        tokio::time::timeout(HOLD_LIMIT, self.began.notified())
            .await
            .map_err(|_| {
                harshjudge::Error::msg(format!(
                    "no request reached the held route in {HOLD_LIMIT:?}"
                ))
            })
    }

    /// Whether the route still holds its answer.
    fn held(&self) -> bool {
        !self.released.load(Ordering::SeqCst)
    }

    /// Lets the route answer.
    fn let_go(&self) {
        self.go.notify_one();
    }
}

/// A route's handler that holds the answer until `hold` is let go (or
/// `HOLD_LIMIT` passes), then says it let it go and answers `body` as
/// `content_type`.
fn hold(
    hold: Arc<Hold>,
    content_type: &'static str,
    body: &'static str,
) -> impl Fn(
    harshjudge::Route,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), BrowserError>> + Send>>
+ Send
+ Sync
+ 'static {
    move |route| {
        let hold = hold.clone();
        Box::pin(async move {
            hold.began.notify_one();
            let _ = tokio::time::timeout(HOLD_LIMIT, hold.go.notified()).await;
            hold.released.store(true, Ordering::SeqCst);
            route
                .fulfill(Response::new().content_type(content_type).body(body))
                .await
        })
    }
}

/// Routes `/held.js` to be held, opens `/start` and clicks `link` there onto
/// a document with that script, and returns once the route holds it.
async fn onto_held_script(
    page: &harshjudge::Page,
    link: &str,
) -> Result<Arc<Hold>, harshjudge::Error> {
    let held = Arc::new(Hold::default());
    page.route(
        "**/held.js",
        hold(held.clone(), "text/javascript", "window.__held = true;"),
    )
    .await?;
    page.goto("/start").await?;
    page.locator(link).click().await?;
    held.holding().await?;
    Ok(held)
}

/// The typed text, its events and the value it left.
async fn typed(page: &harshjudge::Page) -> Result<Value, harshjudge::Error> {
    Ok(page
        .evaluate(
            "() => ({value: document.getElementById('t').value, events: window.__events})",
            (),
        )
        .await?)
}

/// Two files to choose, in a folder of their own.
fn two_files() -> std::io::Result<(tempfile::TempDir, Vec<PathBuf>)> {
    let dir = tempfile::tempdir()?;
    let a = dir.path().join("notes.txt");
    let b = dir.path().join("photo.bin");
    std::fs::write(&a, "hello")?;
    std::fs::write(&b, [0u8, 1, 2])?;
    Ok((dir, vec![a, b]))
}

/// The file input's events and its files' contents, as the page reads them.
async fn chosen(page: &harshjudge::Page) -> Result<Value, harshjudge::Error> {
    Ok(page
        .evaluate(
            "async () => ({events: window.__events, text: await document.getElementById('f').files[0].text()})",
            (),
        )
        .await?)
}

/// Files set on a page without routes (classic Element Send Keys on
/// Chromium): the events the routed page's must equal.
#[scenario]
async fn plain_files(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Choose files on a page without routes", {
        page.goto("/files").await?;
        let (_dir, files) = two_files()?;
        page.locator("#f").set_input_files(&files).await?;
        s.attach_json("chosen", &chosen(&page).await?)?;
    });
    Ok(())
}

/// Files set on an input inside a same-origin iframe (over BiDi on
/// Firefox: the element is found in the frame's browsing context).
#[scenario]
async fn framed_files(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Choose files in a frame", {
        page.goto("/framed").await?;
        let input = page.frame_locator("iframe#pay").locator("#f");
        let (_dir, files) = two_files()?;
        input.set_input_files(&files).await?;
        let chosen: Value = page
            .evaluate(
                "async () => { const w = document.querySelector('iframe#pay').contentWindow; \
                 return {events: w.__events, text: await w.document.getElementById('f').files[0].text()}; }",
                (),
            )
            .await?;
        s.attach_json("chosen", &chosen)?;
    });
    Ok(())
}

/// Files set while a route holds a script of the document of a navigation
/// under way (started by a click).
#[scenario]
async fn held_files(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Choose files while a script of the document is held", {
        let hold = onto_held_script(&page, "#files").await?;
        expect(&page.locator("#f")).to_be_attached().await?;
        let (_dir, files) = two_files()?;
        let started = Instant::now();
        page.locator("#f").set_input_files(&files).await?;
        let ms = started.elapsed().as_millis() as u64;
        let held = hold.held();
        hold.let_go();
        let chosen = chosen(&page).await?;
        page.wait_for_function("() => window.__held === true", ())
            .await?;
        s.attach_json("chosen", &json!({"ms": ms, "held": held, "chosen": chosen}))?;
    });
    Ok(())
}

/// The page's own cookies: `a` for the session, `c` for an hour.
const SET_COOKIES: &str =
    "() => { document.cookie = 'a=1; path=/'; document.cookie = 'c=3; path=/; max-age=3600'; }";

/// The test's cookie, set by `restore_storage_state`.
fn cookie_b(base: &str) -> Cookie {
    let host = url::Url::parse(base)
        .unwrap()
        .host_str()
        .unwrap()
        .to_string();
    Cookie {
        name: "b".into(),
        value: "2".into(),
        domain: host,
        path: "/".into(),
        expires: -1.0,
        http_only: false,
        secure: false,
        same_site: "Lax".into(),
    }
}

/// The cookies `a`, `c` (set by the page's script) and `b` as read back, sorted.
fn named(cookies: &[Cookie]) -> Vec<Cookie> {
    let mut v: Vec<Cookie> = cookies
        .iter()
        .filter(|c| ["a", "b", "c"].contains(&c.name.as_str()))
        .cloned()
        .collect();
    v.sort_by(|x, y| x.name.cmp(&y.name));
    v
}

/// Text inserted on a page without routes: CDP's effect on Chromium, which
/// the routed page's must equal.
#[scenario]
async fn plain_state(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Insert text on a page without routes", {
        page.goto("/typing").await?;
        expect(&page.locator("#t")).to_be_focused().await?;
        page.keyboard().insert_text("héllo wörld").await?;
        s.attach_json("typed", &typed(&page).await?)?;
    });
    Ok(())
}

/// The viewport set while a route holds the document of a navigation under
/// way (a `goto` in a joined future).
#[scenario]
async fn held_viewport(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Set the viewport while a routed document is held", {
        let hold_next = Arc::new(Hold::default());
        page.route(
            "**/next",
            hold(
                hold_next.clone(),
                "text/html",
                "<!doctype html><title>next</title><p id=\"next\">routed next</p>",
            ),
        )
        .await?;
        page.goto("/start").await?;
        let during = async {
            hold_next.holding().await?;
            let started = Instant::now();
            if page.browser() == BrowserKind::Chromium {
                // It answers once the navigation has its document: the
                // route lets it go after `HOLD`.
                let go = async {
                    tokio::time::sleep(HOLD).await;
                    hold_next.let_go();
                };
                tokio::join!(page.set_viewport_size(600, 500), go).0?;
            } else {
                page.set_viewport_size(600, 500).await?;
            }
            let ms = started.elapsed().as_millis() as u64;
            let held = hold_next.held();
            hold_next.let_go();
            Ok::<_, harshjudge::Error>((ms, held))
        };
        let (gone, during) = tokio::join!(page.goto("/next"), during);
        gone?;
        let (ms, held) = during?;
        expect(&page).to_have_url(Regex::new("/next$")?).await?;
        let routed: (u32, u32) = page.evaluate("[innerWidth, innerHeight]", ()).await?;
        let png = page.screenshot().await?;
        // Without routes the viewport is set the page's other way again
        // (CDP on Chromium): the last size set is the one the page has.
        page.unroute("**/next").await?;
        page.set_viewport_size(700, 450).await?;
        let unrouted: (u32, u32) = page.evaluate("[innerWidth, innerHeight]", ()).await?;
        s.attach_json(
            "viewport",
            &json!({"ms": ms, "held": held, "routed": routed, "png": png_size(&png),
                "unrouted": unrouted}),
        )?;
    });
    Ok(())
}

/// Text inserted while a route holds a script of the document of a
/// navigation under way (started by a click).
#[scenario]
async fn held_typing(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Insert text while a script of the document is held", {
        let hold = onto_held_script(&page, "#typing").await?;
        expect(&page.locator("#t")).to_be_focused().await?;
        let started = Instant::now();
        page.keyboard().insert_text("héllo wörld").await?;
        let ms = started.elapsed().as_millis() as u64;
        let held = hold.held();
        hold.let_go();
        let typed = typed(&page).await?;
        page.wait_for_function("() => window.__held === true", ())
            .await?;
        s.attach_json("typed", &json!({"ms": ms, "held": held, "typed": typed}))?;
    });
    Ok(())
}

/// The cookies read and set while a route holds the document of a
/// navigation under way (a `goto` in a joined future).
#[scenario]
async fn held_cookies(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!(
        "Cookies while a routed document is held (goto in a joined future)",
        {
            let hold_later = Arc::new(Hold::default());
            page.route(
                "**/later",
                hold(
                    hold_later.clone(),
                    "text/html",
                    "<!doctype html><title>later</title><p id=\"later\">routed later</p>",
                ),
            )
            .await?;
            page.goto("/start").await?;
            page.evaluate::<Value, _>(SET_COOKIES, ()).await?;
            let base = s.base_url().to_string();
            let url = url::Url::parse(&base)?;
            let during = async {
                hold_later.holding().await?;
                let started = Instant::now();
                page.restore_storage_state(&StorageState {
                    cookies: vec![cookie_b(&base)],
                    origins: vec![],
                })
                .await?;
                let read = page.cookies_for(&url).await?;
                let echoed = s.request().get("/echo").send().await?.text();
                let ms = started.elapsed().as_millis() as u64;
                let held = hold_later.held();
                hold_later.let_go();
                Ok::<_, harshjudge::Error>(json!({"ms": ms, "held": held, "read": named(&read),
                "echoed": echoed}))
            };
            let (gone, during) = tokio::join!(page.goto("/later"), during);
            gone?;
            let during = during?;
            expect(&page.locator("#later"))
                .to_have_text("routed later")
                .await?;
            let state = page.storage_state().await?;
            let document: String = page.evaluate("document.cookie", ()).await?;
            // The same cookies read without routes (CDP's on Chromium).
            page.unroute("**/later").await?;
            let unrouted = page.storage_state().await?;
            s.attach_json(
                "cookies",
                &json!({"during": during, "state": named(&state.cookies), "document": document,
                "unrouted": named(&unrouted.cookies)}),
            )?;
        }
    );
    Ok(())
}

fn png_size(b: &[u8]) -> (u32, u32) {
    if b.len() < 24 {
        return (0, 0);
    }
    (
        u32::from_be_bytes(b[16..20].try_into().unwrap()),
        u32::from_be_bytes(b[20..24].try_into().unwrap()),
    )
}

/// The test's server: `/start`, `/typing`, `/files`, `/framed`, `/echo` (the request's Cookie
/// header); anything else, the routed paths included, is a 404.
fn serve() -> String {
    support::serve_with(answer)
}

fn answer(stream: TcpStream) -> std::io::Result<()> {
    let mut r = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let mut cookie = String::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':')
            && name.eq_ignore_ascii_case("cookie")
        {
            cookie = value.trim().to_string();
        }
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let (status, kind, body) = match path.as_str() {
        "/start" => ("200 OK", "text/html", START.to_string()),
        "/typing" => ("200 OK", "text/html", TYPING.to_string()),
        "/files" => ("200 OK", "text/html", FILES.to_string()),
        "/framed" => (
            "200 OK",
            "text/html",
            "<!doctype html><title>framed</title><iframe id=\"pay\" src=\"/files\"></iframe>"
                .to_string(),
        ),
        "/echo" => ("200 OK", "text/plain", cookie),
        _ => (
            "404 Not Found",
            "text/plain",
            "not here: only a route answers this".to_string(),
        ),
    };
    let mut w = stream;
    write!(
        w,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nCache-Control: no-store\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

struct Outcome {
    runs: support::InProcessRuns,
    base: String,
}

/// The scenarios of each browser's run.
const SCENARIOS: &[&str] = &[
    "plain_state",
    "held_viewport",
    "held_typing",
    "held_cookies",
    "plain_files",
    "held_files",
    "framed_files",
];

/// The runs, once for every test: one per browser.
fn outcome() -> &'static Outcome {
    static RUN: OnceLock<Outcome> = OnceLock::new();
    RUN.get_or_init(|| {
        let base = serve();
        let runs = support::InProcessRuns::run(
            "routed_state",
            &base,
            &[("chromium", SCENARIOS), ("firefox", SCENARIOS)],
        );
        Outcome { runs, base }
    })
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The run of `filter` on `browser`, which must have passed.
fn passed(browser: &str, filter: &str) -> PathBuf {
    let slug = format!("{}-{browser}", filter.replace('_', "-"));
    outcome().runs.passed(&slug, browser, filter)
}

/// The JSON a step attached under a name containing `name`.
fn attached(run: &Path, step: usize, name: &str) -> Value {
    let dir = run.join(format!("step-{step:02}/evidence"));
    let file = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.contains(name) && n.ends_with(".json") && !n.ends_with(".meta.json")
            })
        })
        .unwrap_or_else(|| panic!("{name}*.json in {}", dir.display()));
    harshjudge::serde_json::from_str(&read(&file)).unwrap()
}

/// It returned while the route still held its answer (which it holds until
/// the step lets it go, once the call has returned).
fn while_held(v: &Value, what: &str) {
    assert_eq!(v["held"], true, "{what}: returned after the hold: {v}");
    let ms = v["ms"].as_u64().unwrap();
    assert!(
        ms < HOLD_LIMIT.as_millis() as u64,
        "{what}: took {ms} ms: {v}"
    );
}

fn viewport_on(browser: &str) {
    let run = passed(browser, "held_viewport");
    let v = attached(&run, 1, "viewport");
    if browser == "chromium" {
        // Chromium's BiDi answers setViewport once the navigation has its
        // document (the route's hold): late, but no longer never.
        let ms = v["ms"].as_u64().unwrap();
        assert!(
            ms < HOLD.as_millis() as u64 + 5_000,
            "{browser}: set_viewport_size took {ms} ms: {v}"
        );
    } else {
        while_held(&v, &format!("{browser}: set_viewport_size"));
    }
    assert_eq!(v["routed"], json!([600, 500]), "{browser}: {v}");
    assert_eq!(v["png"], json!([600, 500]), "{browser}: {v}");
    assert_eq!(v["unrouted"], json!([700, 450]), "{browser}: {v}");
    assert!(support::fulfilled(&run, 1, "/next"), "{browser}");
}

fn typed_on(browser: &str) {
    let run = passed(browser, "held_typing");
    let v = attached(&run, 1, "typed");
    while_held(&v, &format!("{browser}: insert_text"));
    let typed = &v["typed"];
    assert_eq!(typed["value"], "héllo wörld", "{browser}: {v}");
    let events: Vec<&str> = typed["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert!(
        events.iter().all(|e| !e.starts_with("key")),
        "{browser}: key events: {events:?}"
    );
    assert!(
        events.contains(&"input:insertText:héllo wörld"),
        "{browser}: {events:?}"
    );
    assert!(support::fulfilled(&run, 1, "/held.js"), "{browser}");
    // As on the page without routes (CDP's Input.insertText on Chromium):
    // the value and its `input` events. The editing command this side uses
    // over BiDi sends a `beforeinput` first, as a user's typing does, where
    // CDP's sends none.
    let plain = attached(&passed(browser, "plain_state"), 1, "typed");
    let inputs = |t: &Value| -> Vec<Value> {
        t["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| !e.as_str().unwrap().starts_with("beforeinput:"))
            .cloned()
            .collect()
    };
    assert_eq!(plain["value"], typed["value"], "{browser}: {plain} {typed}");
    assert_eq!(inputs(&plain), inputs(typed), "{browser}: {plain} {typed}");
}

fn files_on(browser: &str) {
    let run = passed(browser, "held_files");
    let v = attached(&run, 1, "chosen");
    while_held(&v, &format!("{browser}: set_input_files"));
    let expected = json!({
        "events": ["input:notes.txt/5,photo.bin/3", "change:notes.txt/5,photo.bin/3"],
        "text": "hello",
    });
    assert_eq!(v["chosen"], expected, "{browser}: {v}");
    // As on the page without routes (classic Element Send Keys on Chromium).
    let plain = attached(&passed(browser, "plain_files"), 1, "chosen");
    assert_eq!(plain, expected, "{browser}: without routes: {plain}");
    assert!(support::fulfilled(&run, 1, "/held.js"), "{browser}");
    // And inside a frame.
    let framed = attached(&passed(browser, "framed_files"), 1, "chosen");
    assert_eq!(framed, expected, "{browser}: in a frame: {framed}");
}

fn cookies_on(browser: &str) {
    let run = passed(browser, "held_cookies");
    let v = attached(&run, 1, "cookies");
    let during = &v["during"];
    while_held(during, &format!("{browser}: cookies"));
    let expected = json!([
        {"name": "a", "value": "1"},
        {"name": "b", "value": "2"},
        {"name": "c", "value": "3"},
    ]);
    let names = |list: &Value| -> Value {
        Value::Array(
            list.as_array()
                .unwrap()
                .iter()
                .map(|c| json!({"name": c["name"], "value": c["value"]}))
                .collect(),
        )
    };
    assert_eq!(names(&during["read"]), expected, "{browser}: {v}");
    assert_eq!(names(&v["state"]), expected, "{browser}: {v}");
    let echoed = during["echoed"].as_str().unwrap();
    assert!(
        echoed.contains("a=1") && echoed.contains("b=2") && echoed.contains("c=3"),
        "{browser}: s.request() sent {echoed:?}"
    );
    let document = v["document"].as_str().unwrap();
    assert!(
        document.contains("a=1") && document.contains("b=2"),
        "{browser}: {document:?}"
    );
    assert!(support::fulfilled(&run, 1, "/later"), "{browser}");
    // Every field as the page without routes reads it (CDP's on Chromium).
    assert_eq!(v["unrouted"], v["state"], "{browser}");
    assert_eq!(during["read"], v["state"], "{browser}");
    let host = url::Url::parse(&outcome().base)
        .unwrap()
        .host_str()
        .unwrap()
        .to_string();
    for c in v["state"].as_array().unwrap() {
        assert_eq!(c["domain"], host.as_str(), "{browser}: {c}");
        let expires = c["expires"].as_f64().unwrap();
        if c["name"] == "c" {
            assert!(expires > 0.0, "{browser}: {c}");
        } else {
            assert_eq!(expires, -1.0, "{browser}: {c}");
        }
        if browser == "chromium" {
            assert_eq!(c["sameSite"], "Lax", "{browser}: {c}");
        }
    }
}

fn set_viewport_size_returns_while_a_route_holds_the_document_on_chromium() {
    viewport_on("chromium");
}

fn set_viewport_size_returns_while_a_route_holds_the_document_on_firefox() {
    viewport_on("firefox");
}

fn insert_text_returns_while_a_route_holds_a_script_on_chromium() {
    typed_on("chromium");
}

fn insert_text_returns_while_a_route_holds_a_script_on_firefox() {
    typed_on("firefox");
}

fn cookies_are_read_and_set_while_a_route_holds_the_document_on_chromium() {
    cookies_on("chromium");
}

fn cookies_are_read_and_set_while_a_route_holds_the_document_on_firefox() {
    cookies_on("firefox");
}

fn set_input_files_returns_while_a_route_holds_a_script_on_chromium() {
    files_on("chromium");
}

fn set_input_files_returns_while_a_route_holds_a_script_on_firefox() {
    files_on("firefox");
}

/// Every fact of the runs above, checked in one test: the runs are made once (`support::facts`).
#[test]
fn every_fact_of_the_runs() {
    support::facts(&[
        (
            "set_viewport_size_returns_while_a_route_holds_the_document_on_chromium",
            set_viewport_size_returns_while_a_route_holds_the_document_on_chromium,
        ),
        (
            "set_viewport_size_returns_while_a_route_holds_the_document_on_firefox",
            set_viewport_size_returns_while_a_route_holds_the_document_on_firefox,
        ),
        (
            "insert_text_returns_while_a_route_holds_a_script_on_chromium",
            insert_text_returns_while_a_route_holds_a_script_on_chromium,
        ),
        (
            "insert_text_returns_while_a_route_holds_a_script_on_firefox",
            insert_text_returns_while_a_route_holds_a_script_on_firefox,
        ),
        (
            "cookies_are_read_and_set_while_a_route_holds_the_document_on_chromium",
            cookies_are_read_and_set_while_a_route_holds_the_document_on_chromium,
        ),
        (
            "cookies_are_read_and_set_while_a_route_holds_the_document_on_firefox",
            cookies_are_read_and_set_while_a_route_holds_the_document_on_firefox,
        ),
        (
            "set_input_files_returns_while_a_route_holds_a_script_on_chromium",
            set_input_files_returns_while_a_route_holds_a_script_on_chromium,
        ),
        (
            "set_input_files_returns_while_a_route_holds_a_script_on_firefox",
            set_input_files_returns_while_a_route_holds_a_script_on_firefox,
        ),
    ]);
}
