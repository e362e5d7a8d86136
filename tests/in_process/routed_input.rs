//! Issue 23 (the leftovers of point 2): input and engine calls on a page
//! with routes, and engine calls while the page navigates.
//!
//! 1. A link clicked, or a form submitted by Enter, onto a document only a
//!    route answers: classic WebDriver's actions (and every classic command
//!    sent meanwhile) waited in chromedriver for that load, which waited for
//!    the route's BiDi answer, so the step timed out. With routes, the page's
//!    input and engine calls go over WebDriver BiDi; the step ends in well
//!    under 10 s on Chromium and Firefox.
//! 2. On Firefox, an engine call whose document navigates away under it
//!    ends at once as a navigation and is asked again in the new document
//!    (geckodriver's classic async script could lose its callback and
//!    answer at the 60 s script timeout): a page that navigates every few
//!    milliseconds while expectations poll it; no call comes near the
//!    script timeout.
//!
//! The scenarios run in-process through the harness with `--browser NAME`,
//! one run after the other, against a loopback server of this test that
//! does not know the routed paths (it answers them 404).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use harshjudge::{Response, Scenario, expect, scenario, step};

use crate::support;

const START: &str = r#"<!doctype html><title>start</title>
<p id="start">start</p>
<a id="link" href="/next">next</a>
<form action="/found" method="get"><input id="q" name="q"></form>"#;

/// A route answers `/next` and `/found`; a link and Enter in a form open them.
#[scenario]
async fn routed_input(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("A link clicked onto a routed document", {
        page.route("**/next", |route| async move {
            let doc = Response::new()
                .content_type("text/html")
                .body("<!doctype html><title>next</title><p id=\"next\">routed next</p>");
            route.fulfill(doc).await
        })
        .await?;
        page.goto("/start").await?;
        let started = Instant::now();
        page.locator("#link").click().await?;
        expect(&page.locator("#next"))
            .to_have_text("routed next")
            .await?;
        expect(&page).to_have_title("next").await?;
        s.attach_text("ms", &started.elapsed().as_millis().to_string())?;
    });
    step!("A form submitted by Enter onto a routed document", {
        page.route("**/found?*", |route| async move {
            let query = route
                .request()
                .url()
                .split('?')
                .nth(1)
                .unwrap_or_default()
                .to_string();
            let doc = Response::new().content_type("text/html").body(format!(
                "<!doctype html><title>found</title><p id=\"found\">{query}</p>"
            ));
            route.fulfill(doc).await
        })
        .await?;
        page.goto("/start").await?;
        let started = Instant::now();
        page.locator("#q").fill("rust").await?;
        page.locator("#q").press("Enter").await?;
        expect(&page.locator("#found"))
            .to_have_text("q=rust")
            .await?;
        s.attach_text("ms", &started.elapsed().as_millis().to_string())?;
    });
    Ok(())
}

/// How many times each step of `navigation_after_a_load` goes to the routed
/// document, and how long the route holds it each time: 100 ms, some 200
/// round trips, so the next command always arrives while the document is
/// held (the hang needed only that; 300 ms cost 14 s more per run).
const AFTER_A_LOAD: usize = 12;
const AFTER_A_LOAD_HOLD: std::time::Duration = std::time::Duration::from_millis(100);

/// The routed `/next`, with a link back to `/start`.
fn next_document() -> Response {
    Response::new().content_type("text/html").body(
        "<!doctype html><title>next</title><p id=\"next\">routed next</p>\
         <a id=\"back\" href=\"/start\">back</a>",
    )
}

/// A navigation onto a routed document sent right after another document
/// loaded, again and again: by `goto` after `goto`, by a click after a
/// `goto`, and by a click after a click; the route holds the document a
/// moment. chromedriver may hear of a load after the next navigation has
/// started; its read of the loaded document's state then waited for ever
/// while the route held the new document, and it forwarded no BiDi command
/// meanwhile, the route's answer among them: about 1 such `goto` in 10 hung
/// on a busy machine while classic and BiDi commands shared the session (the
/// BiDi backend sends only BiDi now, and chromedriver's load tracking is off).
#[scenario]
async fn navigation_after_a_load(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    page.route("**/next", |route| async move {
        tokio::time::sleep(AFTER_A_LOAD_HOLD).await;
        route.fulfill(next_document()).await
    })
    .await?;
    step!("goto after goto onto a routed document", {
        for _ in 0..AFTER_A_LOAD {
            page.goto("/start").await?;
            page.goto("/next").await?;
        }
        expect(&page.locator("#next"))
            .to_have_text("routed next")
            .await?;
    });
    step!("A click after a goto onto a routed document", {
        for _ in 0..AFTER_A_LOAD {
            page.goto("/start").await?;
            page.locator("#link").click().await?;
            expect(&page.locator("#next"))
                .to_have_text("routed next")
                .await?;
        }
    });
    step!("A click after a click onto a routed document", {
        page.goto("/next").await?;
        for _ in 0..AFTER_A_LOAD {
            page.locator("#back").click().await?;
            expect(&page.locator("#start"))
                .to_have_text("start")
                .await?;
            page.locator("#link").click().await?;
            expect(&page.locator("#next"))
                .to_have_text("routed next")
                .await?;
        }
    });
    Ok(())
}

/// Frames and a popup with the page's engine calls and input over BiDi
/// (always on Firefox; on Chromium because the page has a route).
#[scenario]
async fn frames_and_popups(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Click in a nested frame and read a popup", {
        page.route(
            "**/never-requested",
            |route| async move { route.abort().await },
        )
        .await?;
        page.goto("/frames").await?;
        let pay = page.frame_locator("iframe#pay");
        pay.get_by_role("button").name("Pay").click().await?;
        expect(&pay.locator("#status")).to_have_text("paid").await?;
        expect(&pay.frame_locator("#deep").locator("#d"))
            .to_have_text("deep")
            .await?;
        let popup = page.wait_for_popup(page.locator("#blank").click()).await?;
        expect(&popup.locator("#d")).to_have_text("deep").await?;
        popup.close().await?;
        expect(&page.locator("#top")).to_have_text("top").await?;
    });
    Ok(())
}

/// Expectations polling a page that navigates itself every few milliseconds.
#[scenario]
async fn navigating_page(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Poll a page while it navigates", {
        page.goto("/loop?0").await?;
        let mut times = Vec::new();
        for _ in 0..60 {
            let started = Instant::now();
            expect(&page.locator("#count")).to_be_attached().await?;
            times.push(started.elapsed().as_millis() as u64);
        }
        // The page kept navigating meanwhile.
        let last: u64 = page
            .locator("#count")
            .text_content()
            .await?
            .trim()
            .parse()
            .unwrap_or(0);
        let list: Vec<String> = times.iter().map(u64::to_string).collect();
        s.attach_text("call-ms", &list.join("\n"))?;
        s.attach_text("navigations", &last.to_string())?;
    });
    step!("Poll a page that stays", {
        // The loop's own navigation can take the place of a goto sent
        // meanwhile (the document leaving is still the one a script
        // navigates), and `goto` then fails as interrupted: stop the loop
        // first, asking again until the server was asked, and wait for a
        // document that will not navigate.
        for tries in 1.. {
            match page.goto("/loop-stop").await {
                Ok(()) => break,
                Err(harshjudge::browser::BrowserError::NavigationInterrupted { .. })
                    if LOOP_STOPPED.load(std::sync::atomic::Ordering::SeqCst) || tries < 20 => {}
                Err(e) => return Err(e.into()),
            }
        }
        page.wait_for_function("() => !window.__loop", ()).await?;
        page.goto("/start").await?;
        let mut times = Vec::new();
        for _ in 0..60 {
            let started = Instant::now();
            expect(&page.locator("#start")).to_be_attached().await?;
            times.push(started.elapsed().as_micros() as u64);
        }
        let list: Vec<String> = times.iter().map(u64::to_string).collect();
        s.attach_text("call-us", &list.join("\n"))?;
    });
    Ok(())
}

/// `goto` while the page navigates itself every 20 ms (`/hop?N`), 40 times,
/// at staggered moments: the page's own navigation sometimes takes the place
/// of the one `goto` asked for. Each `goto` must then fail, naming both URLs
/// ([`harshjudge::browser::BrowserError::NavigationInterrupted`]), or land where it
/// was sent: never succeed on another document (classic WebDriver's Navigate
/// To returned success on `/hop?3`), nor fail with the browser's own abort
/// words while its document loaded (BiDi's navigate on a routed page did).
/// Chromium may still carry out a navigation the left document asked for
/// after the asked document loaded: each `/start?load=N` writes its query
/// to the tab's session storage, so such a `goto` is told from one that
/// ended on another document, and counted (`moved-on-after-the-load`).
///
/// A hang is told by each `goto`'s own 10 s clock; the step's limit is wide
/// (80 navigations take 7 s on a quiet 2-core machine and 25 s beside busy
/// loops), so that it measures no throughput.
#[scenario(step_timeout = "5m")]
async fn goto_while_the_page_navigates(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open a page while it navigates itself", {
        open_while_navigating(&s, &page).await?;
    });
    Ok(())
}

/// The same with a route, so `goto` goes over BiDi's `browsingContext.navigate`.
/// (Its step's limit: as above.)
#[scenario(step_timeout = "5m")]
async fn goto_while_a_routed_page_navigates(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open a routed page while it navigates itself", {
        page.route("**/never", |route| async move { route.abort().await })
            .await?;
        open_while_navigating(&s, &page).await?;
    });
    Ok(())
}

async fn open_while_navigating(s: &Scenario, page: &harshjudge::Page) -> harshjudge::Result {
    // A document that sends the page on while it is parsed, or once it is
    // shown, is not an interruption: `goto` succeeds (as Playwright's does)
    // and the page goes on.
    for (path, then) in [("/redirect-inline", "/start"), ("/redirect-meta", "/start")] {
        page.goto(path)
            .await
            .map_err(|e| harshjudge::Error::msg(format!("goto({path}): {e}")))?;
        expect(page).to_have_url(then).await?;
    }
    let (mut wrong, mut interrupted, mut moved_on) = (Vec::new(), Vec::new(), 0);
    let mut judge =
        |asked: &str, r: Result<(), harshjudge::browser::BrowserError>, now: &str| match r {
            Ok(())
                if asked != "/hop?0"
                    && !now.split(' ').next().is_some_and(|u| u.ends_with(asked)) =>
            {
                wrong.push(format!("goto({asked}) succeeded on {now}"));
            }
            Ok(()) => {}
            Err(harshjudge::browser::BrowserError::NavigationInterrupted { url, by })
                if url.ends_with(asked) && by.contains("/hop?") =>
            {
                let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
                interrupted.push((asked.to_string(), now.map_or(0, |d| d.as_millis())));
            }
            Err(e) => wrong.push(format!("goto({asked}) failed on {now}: {e}")),
        };
    // Each `goto` on its own clock: one that never answers is named as a
    // hang (the step's own 30 s limit would only say the step was slow),
    // and the gotos' times are attached, so that a step over its limit on a
    // loaded machine tells slowness from a hang.
    let started = Instant::now();
    let mut times = Vec::new();
    let mut timed = async |asked: &str| {
        let t = Instant::now();
        let r = tokio::time::timeout(std::time::Duration::from_secs(10), page.goto(asked)).await;
        times.push(format!("{asked} {} ms", t.elapsed().as_millis()));
        r.map_err(|_| {
            harshjudge::Error::msg(format!(
                "goto({asked}) gave no answer in 10 s (a hang), {} ms into the loop",
                started.elapsed().as_millis()
            ))
        })
    };
    for i in 0..40u64 {
        let r = timed("/hop?0").await?;
        judge("/hop?0", r, "");
        tokio::time::sleep(std::time::Duration::from_millis(10 * (i % 5))).await;
        let asked = format!("/start?load={i}");
        let r = timed(&asked).await?;
        // The page's URL and what the last `/start?load=N` wrote, read at
        // once (the page may be hopping on meanwhile: read again then).
        let mut read = Err(String::new());
        for _ in 0..5 {
            read = page
                .evaluate::<(String, Option<String>), _>(
                    "[document.URL, sessionStorage.getItem('loaded')]",
                    (),
                )
                .await
                .map_err(|e| e.to_string());
            if read.is_ok() {
                break;
            }
        }
        let (now, loaded) = read.unwrap_or_else(|e| (e, None));
        if r.is_ok() && !now.ends_with(&asked) && loaded.as_deref() == Some(&asked[6..]) {
            // The document asked for loaded (it wrote its query where the
            // next document of the tab reads it), and a navigation the left
            // document had asked for was carried out after it: Chromium
            // does that, and `goto` cannot foresee it.
            moved_on += 1;
            continue;
        }
        judge(
            &asked,
            r,
            &format!("{now} (the tab's last /start load: {loaded:?})"),
        );
    }
    // A `goto` said to be interrupted must not load its document after it
    // returned: Chromium carried out one taken for interrupted when the
    // page's own navigation committed first, in the middle of the next
    // `goto` (which then failed as interrupted by it). (Its document may
    // have committed before the page's own navigation replaced it.) The
    // page stopped hopping (a document that does not navigate), every load
    // it made is in the tab's list.
    for tries in 1.. {
        match page.goto("/start").await {
            Ok(()) => break,
            Err(harshjudge::browser::BrowserError::NavigationInterrupted { .. }) if tries < 20 => {}
            Err(e) => return Err(e.into()),
        }
    }
    let loads: String = page
        .evaluate("sessionStorage.getItem('loads') || ''", ())
        .await?;
    for (asked, returned) in &interrupted {
        let Some(query) = asked.strip_prefix("/start") else {
            continue;
        };
        let later = loads
            .split(' ')
            .filter_map(|l| l.split_once('@'))
            .find(|(q, at)| *q == query && at.parse::<u128>().is_ok_and(|at| at > *returned));
        if let Some((_, at)) = later {
            wrong.push(format!(
                "goto({asked}) failed as interrupted, and its document loaded {} ms later",
                at.parse::<u128>().unwrap_or(0) - returned
            ));
        }
    }
    s.attach_text("goto-times", &times.join("\n"))?;
    s.attach_text("interrupted", &interrupted.len().to_string())?;
    s.attach_text("moved-on-after-the-load", &moved_on.to_string())?;
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(harshjudge::Error::msg(wrong.join("\n")))
    }
}

/// The test's server: `/start`, `/loop-stop`, `/loop?N` (shows N and opens `/loop?N+1`
/// after 20 ms); anything else, the routed paths included, is a 404.
fn serve() -> String {
    support::serve_with(answer)
}

/// Set by `/loop-stop`: the loop pages served after it do not navigate.
static LOOP_STOPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn answer(stream: TcpStream) -> std::io::Result<()> {
    let mut r = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    r.read_line(&mut line)?;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let (status, body) = if path == "/start" {
        ("200 OK", START.to_string())
    } else if path.starts_with("/start?load=") {
        // `/start` that leaves its query in the tab's session storage.
        // And appends it, with the time (ms since the epoch), to the tab's
        // list of them (`loads`).
        let mark = "<script>sessionStorage.setItem('loaded', location.search);\
            sessionStorage.setItem('loads', (sessionStorage.getItem('loads') || '') + location.search + '@' + Date.now() + ' ')</script>";
        ("200 OK", format!("{START}{mark}"))
    } else if path == "/frames" {
        let body = "<!doctype html><title>frames</title><p id=\"top\">top</p>\
            <a id=\"blank\" href=\"/deep\" target=\"_blank\">open</a><br>\
            <iframe id=\"pay\" src=\"/inner\" style=\"margin-left: 60px; border: 7px solid #888; padding: 5px; width: 400px; height: 200px\"></iframe>";
        ("200 OK", body.to_string())
    } else if path == "/inner" {
        let body = "<!doctype html><p id=\"status\">due</p>\
            <button style=\"margin-left: 80px\" onclick=\"document.getElementById('status').textContent = 'paid'\">Pay</button>\
            <iframe id=\"deep\" src=\"/deep\"></iframe>";
        ("200 OK", body.to_string())
    } else if path == "/deep" {
        ("200 OK", "<!doctype html><p id=\"d\">deep</p>".to_string())
    } else if path == "/loop-stop" {
        LOOP_STOPPED.store(true, std::sync::atomic::Ordering::SeqCst);
        (
            "200 OK",
            "<!doctype html><title>stopped</title>".to_string(),
        )
    } else if path == "/redirect-inline" {
        let body = "<!doctype html><title>away</title><script>location.replace('/start');</script>";
        ("200 OK", body.to_string())
    } else if path == "/redirect-meta" {
        let body = "<!doctype html><title>away</title><meta http-equiv=\"refresh\" content=\"0;url=/start\">";
        ("200 OK", body.to_string())
    } else if let Some(n) = path.strip_prefix("/hop?") {
        let n: u64 = n.parse().unwrap_or(0);
        let body = format!(
            "<!doctype html><title>hop</title><p id=\"count\">{n}</p>\
             <script>setTimeout(function () {{ location.href = '/hop?{}'; }}, 20);</script>",
            n + 1
        );
        ("200 OK", body)
    } else if let Some(n) = path.strip_prefix("/loop?") {
        let n: u64 = n.parse().unwrap_or(0);
        // Once `/loop-stop` was asked for, a loop page no longer navigates.
        let next = if LOOP_STOPPED.load(std::sync::atomic::Ordering::SeqCst) {
            String::new()
        } else {
            format!(
                "<script>window.__loop = setTimeout(function () {{ location.href = '/loop?{}'; }}, 20);</script>",
                n + 1
            )
        };
        let body = format!("<!doctype html><title>loop</title><p id=\"count\">{n}</p>{next}");
        ("200 OK", body)
    } else {
        (
            "404 Not Found",
            "not here: only a route answers this".to_string(),
        )
    };
    let mut w = stream;
    write!(
        w,
        "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nCache-Control: no-store\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The scenarios of the Chromium run; Firefox's run has `navigating_page` too.
const CHROMIUM: &[&str] = &[
    "routed_input",
    "frames_and_popups",
    "goto_while_the_page_navigates",
    "goto_while_a_routed_page_navigates",
    "navigation_after_a_load",
];
const FIREFOX: &[&str] = &[
    "routed_input",
    "frames_and_popups",
    "navigating_page",
    "goto_while_the_page_navigates",
    "goto_while_a_routed_page_navigates",
    "navigation_after_a_load",
];

/// The runs, once for every test: one per browser.
fn outcome() -> &'static support::InProcessRuns {
    static RUN: OnceLock<support::InProcessRuns> = OnceLock::new();
    RUN.get_or_init(|| {
        support::InProcessRuns::run(
            "routed_input",
            &serve(),
            &[("chromium", CHROMIUM), ("firefox", FIREFOX)],
        )
    })
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The run of `slug`, which must have passed.
fn passed(slug: &str, browser: &str, filter: &str) -> PathBuf {
    outcome().passed(slug, browser, filter)
}

/// A text a step attached (`name` is the attachment's name).
fn attached(run: &Path, step: usize, name: &str) -> String {
    let dir = run.join(format!("step-{step:02}/evidence"));
    let file = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.contains(name) && n.ends_with(".txt"))
        })
        .unwrap_or_else(|| panic!("{name} in {}", dir.display()));
    read(&file)
}

fn routed_input_on(browser: &str) {
    let run = passed(&format!("routed-input-{browser}"), browser, "routed_input");
    for (step, path) in [(1, "/next"), (2, "/found")] {
        let ms: u64 = attached(&run, step, "ms").trim().parse().unwrap();
        assert!(ms < 10_000, "{browser} step {step}: took {ms} ms");
        assert!(
            support::fulfilled(&run, step, path),
            "{browser} step {step}: {path}"
        );
    }
}

fn a_click_and_an_enter_onto_routed_documents_end_in_time_on_chromium() {
    routed_input_on("chromium");
}

fn a_click_and_an_enter_onto_routed_documents_end_in_time_on_firefox() {
    routed_input_on("firefox");
}

/// Every step of `navigation_after_a_load` ended, each navigation onto
/// the routed document answered by the route.
fn navigation_after_a_load_on(browser: &str) {
    let run = passed(
        &format!("navigation-after-a-load-{browser}"),
        browser,
        "navigation_after_a_load",
    );
    for step in 1..=3 {
        let routed = support::fulfilled_count(&run, step, "/next");
        assert!(
            routed >= AFTER_A_LOAD,
            "{browser} step {step}: {routed} fulfilled /next requests"
        );
    }
}

fn navigations_right_after_a_load_onto_routed_documents_end_on_chromium() {
    navigation_after_a_load_on("chromium");
}

fn navigations_right_after_a_load_onto_routed_documents_end_on_firefox() {
    navigation_after_a_load_on("firefox");
}

fn frames_and_popups_over_bidi_on_chromium() {
    passed(
        "frames-and-popups-chromium",
        "chromium",
        "frames_and_popups",
    );
}

fn frames_and_popups_over_bidi_on_firefox() {
    passed("frames-and-popups-firefox", "firefox", "frames_and_popups");
}

fn engine_calls_on_a_navigating_firefox_page_end_in_time() {
    let run = passed("navigating-page-firefox", "firefox", "navigating_page");
    let times: Vec<u64> = attached(&run, 1, "call-ms")
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(times.len(), 60);
    let navigations: u64 = attached(&run, 1, "navigations").trim().parse().unwrap();
    assert!(navigations >= 10, "the page navigated {navigations} times");
    let max = times.iter().max().copied().unwrap_or(0);
    let mean = times.iter().sum::<u64>() / times.len() as u64;
    let mut sorted = times.clone();
    sorted.sort();
    eprintln!(
        "engine calls on a navigating Firefox page: mean {mean} ms, median {} ms, max {max} ms",
        sorted[sorted.len() / 2]
    );
    let mut still: Vec<u64> = attached(&run, 2, "call-us")
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    still.sort();
    eprintln!(
        "engine calls on a still Firefox page: mean {} us, median {} us, max {} us",
        still.iter().sum::<u64>() / still.len() as u64,
        still[still.len() / 2],
        still[still.len() - 1]
    );
    // The script timeout is 60 s; a lost callback would show as one.
    assert!(max < 5_000, "a call took {max} ms: {times:?}");
}

/// A `goto` that the page's own navigation took the place of fails, naming
/// both URLs, and one that landed succeeds, on either engine, routed or not.
fn a_goto_the_page_interrupted_fails_and_one_that_landed_succeeds() {
    for browser in ["chromium", "firefox"] {
        for (slug, filter) in [
            (
                "goto-while-the-page-navigates",
                "goto_while_the_page_navigates",
            ),
            (
                "goto-while-a-routed-page-navigates",
                "goto_while_a_routed_page_navigates",
            ),
        ] {
            let run = passed(&format!("{slug}-{browser}"), browser, filter);
            eprintln!(
                "{filter} on {browser}: {} of 40 interrupted",
                attached(&run, 1, "interrupted").trim()
            );
        }
    }
}

/// Every fact of the runs above, checked in one test: the runs are made once (`support::facts`).
#[test]
fn every_fact_of_the_runs() {
    support::facts(&[
        (
            "a_click_and_an_enter_onto_routed_documents_end_in_time_on_chromium",
            a_click_and_an_enter_onto_routed_documents_end_in_time_on_chromium,
        ),
        (
            "a_click_and_an_enter_onto_routed_documents_end_in_time_on_firefox",
            a_click_and_an_enter_onto_routed_documents_end_in_time_on_firefox,
        ),
        (
            "navigations_right_after_a_load_onto_routed_documents_end_on_chromium",
            navigations_right_after_a_load_onto_routed_documents_end_on_chromium,
        ),
        (
            "navigations_right_after_a_load_onto_routed_documents_end_on_firefox",
            navigations_right_after_a_load_onto_routed_documents_end_on_firefox,
        ),
        (
            "frames_and_popups_over_bidi_on_chromium",
            frames_and_popups_over_bidi_on_chromium,
        ),
        (
            "frames_and_popups_over_bidi_on_firefox",
            frames_and_popups_over_bidi_on_firefox,
        ),
        (
            "engine_calls_on_a_navigating_firefox_page_end_in_time",
            engine_calls_on_a_navigating_firefox_page_end_in_time,
        ),
        (
            "a_goto_the_page_interrupted_fails_and_one_that_landed_succeeds",
            a_goto_the_page_interrupted_fails_and_one_that_landed_succeeds,
        ),
    ]);
}
