//! A CDP context and page against a real Chromium and a tiny HTTP server:
//! the engine's calls, navigations (interrupted too), history, input with
//! its console and network, screenshots, cookies, isolation and disposal.

use std::time::{Duration, Instant};

use serde_json::json;

use super::super::connection::{CdpError, Gone};
use super::super::context::{CdpBrowser, CdpContext};
use super::super::frames::frame_of;
use super::super::protocol::Evaluate;
use super::super::screenshot::Area;
use super::super::testing::{Served, serve_with};
use super::{CdpPage, PageError};
use crate::config::BrowserConfig;
use crate::cookies::Cookie;
use crate::protocol::{Answer, Call, Read, Request, Step, Target};

const WAIT: Duration = Duration::from_secs(5);

/// The pages of these tests; `/slow` answers after 3 s.
async fn server() -> String {
    serve_with(|path| {
        let (headers, body) = match path {
            "/" => ("", "<title>Home</title><h1>Hello CDP</h1>"),
            "/second" => ("", "<title>Second</title><h1>Second</h1>"),
            // Its own navigation commits while its image still loads.
            "/jump" => (
                "",
                "<script>location.href = '/landed'</script><img src='/slow'>",
            ),
            "/landed" => ("", "<h1>Landed</h1>"),
            "/frame" => (
                "",
                "<h1>Outer</h1><iframe srcdoc='<h1>Inner</h1>'></iframe>",
            ),
            "/slow" => ("", "late"),
            "/data" => ("", "{}"),
            "/button" => (
                "",
                "<button style='position:absolute;left:0;top:0;width:100px;height:40px' \
                 onclick=\"console.log('clicked'); fetch('/data')\">Go</button>",
            ),
            "/cookie" => ("set-cookie: flavour=oat; Path=/\r\n", "<h1>cookie</h1>"),
            _ => return None,
        };
        let delay = Duration::from_secs(if path == "/slow" { 3 } else { 0 });
        Some(Served {
            status: 200,
            headers,
            body,
            delay,
        })
    })
    .await
}

async fn browser() -> CdpBrowser {
    let config = BrowserConfig::from_env().expect("config");
    CdpBrowser::launch(&config, None)
        .await
        .expect("Chromium starts")
}

async fn page_of(context: &CdpContext) -> CdpPage {
    context.new_page().await.expect("a page")
}

/// The engine's request for the text of the single `selector`, as the
/// library builds it.
fn text_content(selector: &str) -> String {
    let call = Call {
        request: Request::Query {
            target: Target {
                chain: vec![Step::Css {
                    sel: selector.into(),
                }],
                describe: format!("page.locator({selector:?})"),
                frame: None,
                trace: false,
            },
            read: Read::TextContent,
            all: false,
            name: None,
        },
        timeout: 2000,
    };
    serde_json::to_string(&call).expect("JSON")
}

async fn text_of(page: &CdpPage, selector: &str) -> serde_json::Value {
    let answer = page
        .call_engine(None, &text_content(selector), WAIT)
        .await
        .expect("the engine answers");
    Answer::decode(answer)
        .expect("an answer")
        .result
        .expect("a value")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_navigates_runs_the_engine_and_goes_back_and_forth() {
    let base = server().await;
    let browser = browser().await;
    let context = browser.new_context().await.expect("a context");
    let page = page_of(&context).await;
    page.navigate(&format!("{base}/")).await.expect("loaded");
    assert_eq!(text_of(&page, "h1").await, json!("Hello CDP"));
    assert_eq!(page.title().await.expect("title"), "Home");
    let content = page.content().await.expect("content");
    assert!(content.contains("<h1>Hello CDP</h1>"), "{content}");

    page.navigate(&format!("{base}/second"))
        .await
        .expect("loaded");
    assert_eq!(text_of(&page, "h1").await, json!("Second"));
    assert!(page.go_back().await.expect("back"));
    assert_eq!(page.url().await.expect("url"), format!("{base}/"));
    assert_eq!(text_of(&page, "h1").await, json!("Hello CDP"));
    assert!(page.go_forward().await.expect("forward"));
    assert_eq!(page.url().await.expect("url"), format!("{base}/second"));
    assert!(!page.go_forward().await.expect("nothing after"));
    page.reload().await.expect("reloaded");
    assert_eq!(text_of(&page, "h1").await, json!("Second"));

    // 300 calls after 50 to warm up: the median round trip.
    let request = text_content("h1");
    let mut took = Vec::with_capacity(300);
    for i in 0..350 {
        let start = Instant::now();
        page.call_engine(None, &request, WAIT)
            .await
            .expect("a call");
        if i >= 50 {
            took.push(start.elapsed());
        }
    }
    took.sort();
    eprintln!(
        "CDP engine call (text_content of h1): median {:?}, p90 {:?} over 300",
        took[150], took[270]
    );
    browser.close().await;
}

/// A document that sends the page on while it is parsed is no
/// interruption (as Playwright's `goto`, and the WebDriver backends, say):
/// the navigation ends with the load of the document it went on to.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_that_navigates_while_parsed_ends_on_the_next_load() {
    let base = server().await;
    let browser = browser().await;
    let context = browser.new_context().await.expect("a context");
    let page = page_of(&context).await;
    let jump = format!("{base}/jump");
    page.navigate(&jump).await.expect("no interruption");
    assert_eq!(page.url().await.expect("url"), format!("{base}/landed"));
    assert_eq!(text_of(&page, "h1").await, json!("Landed"));
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_logs_its_console_and_its_fetch_and_a_screenshot_is_a_png() {
    let base = server().await;
    let browser = browser().await;
    let context = browser.new_context().await.expect("a context");
    let page = page_of(&context).await;
    page.navigate(&format!("{base}/button"))
        .await
        .expect("loaded");
    let _ = page.take_console_network().await;
    let click = json!([{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
        "actions": [{"type": "pointerMove", "x": 50, "y": 20},
                    {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]);
    page.perform(&click).await.expect("clicked");
    let (mut console, mut network) = (Vec::new(), Vec::new());
    let until = Instant::now() + WAIT;
    while Instant::now() < until
        && !(console
            .iter()
            .any(|c: &crate::logs::ConsoleEntry| c.text == "clicked")
            && network.iter().any(|n: &crate::logs::NetworkEntry| {
                n.url == format!("{base}/data") && n.status == Some(200)
            }))
    {
        let (c, n) = page.take_console_network().await;
        console.extend(c);
        network.extend(n);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        console.iter().any(|c| c.text == "clicked"),
        "the click's console entry: {console:?}"
    );
    assert!(
        network
            .iter()
            .any(|n| n.url == format!("{base}/data") && n.status == Some(200)),
        "the click's fetch: {network:?}"
    );

    page.set_viewport(400, 300).await.expect("viewport");
    let png = page.screenshot(Area::Viewport).await.expect("a screenshot");
    let decoder = png::Decoder::new(std::io::Cursor::new(&png));
    let reader = decoder.read_info().expect("a PNG");
    assert_eq!((reader.info().width, reader.info().height), (400, 300));
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cookies_are_read_and_set_per_context_and_dispose_closes_its_page() {
    let base = server().await;
    let browser = browser().await;
    let one = browser.new_context().await.expect("a context");
    let two = browser.new_context().await.expect("another context");
    let (page_one, page_two) = (page_of(&one).await, page_of(&two).await);
    page_one
        .navigate(&format!("{base}/cookie"))
        .await
        .expect("loaded");
    let cookies = one.cookies().await.expect("cookies");
    assert!(
        cookies
            .iter()
            .any(|c| c.name == "flavour" && c.value == "oat" && c.domain == "127.0.0.1"),
        "the response's cookie: {cookies:?}"
    );
    let set = Cookie {
        name: "set".into(),
        value: "1".into(),
        domain: "127.0.0.1".into(),
        path: "/".into(),
        expires: -1.0,
        http_only: false,
        secure: false,
        same_site: "Lax".into(),
    };
    one.set_cookies(&[set]).await.expect("set");
    let seen = page_one.evaluate("document.cookie").await.expect("cookie");
    assert!(seen.as_str().is_some_and(|s| s.contains("set=1")), "{seen}");

    page_two
        .navigate(&format!("{base}/"))
        .await
        .expect("loaded");
    let theirs = two.cookies().await.expect("cookies");
    assert!(theirs.is_empty(), "another context's cookies: {theirs:?}");
    let seen = page_two.evaluate("document.cookie").await.expect("cookie");
    assert_eq!(seen, json!(""));

    one.dispose().await.expect("disposed");
    match page_one.evaluate("1").await {
        Err(PageError::Cdp(CdpError::Lost {
            gone: Gone::PageClosed,
            ..
        })) => {}
        other => panic!("expected the page closed, got {other:?}"),
    }
    assert_eq!(page_two.evaluate("1 + 1").await.expect("alive"), json!(2));
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_runs_in_a_frames_default_world() {
    let base = server().await;
    let browser = browser().await;
    let context = browser.new_context().await.expect("a context");
    let page = page_of(&context).await;
    page.navigate(&format!("{base}/frame"))
        .await
        .expect("loaded");
    let iframe = Evaluate {
        expression: "document.querySelector('iframe')",
        await_promise: false,
        return_by_value: false,
        context_id: None,
    };
    let element = page
        .connection
        .send(Some(&page.session), &iframe)
        .await
        .expect("the iframe");
    let object = element.result.object_id.expect("an object");
    let frame = frame_of(&page.connection, &page.session, &object)
        .await
        .expect("its frame");
    let answer = page
        .call_engine(Some(&frame), &text_content("h1"), WAIT)
        .await
        .expect("the engine answers in the frame");
    let text = Answer::decode(answer).expect("an answer").result;
    assert_eq!(text, Ok(json!("Inner")));
    assert_eq!(text_of(&page, "h1").await, json!("Outer"));
    browser.close().await;
}
