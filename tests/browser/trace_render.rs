//! The snapshot renderer (issue 39 stage 6, D16 of docs/design/trace.md) in
//! Chromium over the DevTools protocol: a host page served by the test loads
//! `report/html/snapshot.js` (the bytes the crate ships,
//! `harshjudge_store::report::html::SNAPSHOT_RENDERER`) and puts what
//! `hjrRender` gives for a hand-written snapshot
//! (`tests/fixtures/trace_render/*.json`, D8's format, `{{BASE}}` the test
//! server's URL) into `<iframe sandbox="allow-scripts" srcdoc>`; the rendered
//! document is then read through `frame_locator`, as a user's test reads a
//! page. The server records every request it gets: "no request" is what
//! the server saw. (The page's network log is no witness: Chromium runs a
//! sandboxed frame out of the page's process, and its requests are not in
//! the page's log; seen while writing this test.)

use crate::support::browsers;
use std::io::BufReader;
use std::net::TcpStream;
use std::sync::Mutex;
use std::time::Duration;

use harshjudge::browser::{FrameLocator, Page, expect};
use harshjudge::regex::Regex;
use harshjudge_store::report::html::SNAPSHOT_RENDERER;

use crate::support;
use crate::support::engines;

/// The page the snapshots are shown in: `show(dom, index, bare)` renders
/// snapshot `index` of a trace-dom.json object into `#view` (`bare`: with its
/// CSP taken out, to see the renderer's own neutralising alone: the MCP tool
/// renders without it, D18), `raw(html)` puts `html` there as it is (the
/// controls); `window.shown` counts the frame's loads and `window.messages`
/// what frames posted to it.
const HOST: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>render host</title>
<script src="/snapshot.js"></script></head>
<body style="margin: 0">
<iframe id="view" sandbox="allow-scripts" style="width: 800px; height: 600px; border: 0"></iframe>
<script>
window.messages = [];
addEventListener('message', (e) => window.messages.push(String(e.data)));
window.shown = 0;
const view = document.getElementById('view');
view.addEventListener('load', () => { window.shown++; });
window.show = (dom, i, bare) => {
  const html = hjrRender(dom.snapshots, i, dom.resources || {});
  const csp = /<meta http-equiv="Content-Security-Policy"[^>]*>/;
  if (bare && !csp.test(html)) throw new Error('no CSP in the rendered document');
  view.srcdoc = bare ? html.replace(csp, '') : html;
};
window.raw = (html) => { view.srcdoc = html; };
</script></body></html>"#;

/// Every request the test servers got: (the server's port, the path).
static SEEN: Mutex<Vec<(u16, String)>> = Mutex::new(Vec::new());

fn app(stream: TcpStream) -> std::io::Result<()> {
    let port = stream.local_addr()?.port();
    let mut out = stream.try_clone()?;
    let mut r = BufReader::new(stream);
    while let Some(path) = support::next_request_path(&mut r)? {
        SEEN.lock().unwrap().push((port, path.clone()));
        let (status, kind, body) = match path.as_str() {
            "/" => ("200 OK", "text/html", HOST),
            "/snapshot.js" => ("200 OK", "text/javascript", SNAPSHOT_RENDERER),
            _ => ("404 Not Found", "text/plain", "no"),
        };
        support::respond(&mut out, status, kind, body)?;
    }
    Ok(())
}

/// A host page in Chromium (CDP), on a server of its own.
struct Host {
    page: Page,
    base: String,
}

impl Host {
    async fn open() -> Host {
        let base = support::serve_with(app);
        let page = browsers()
            .open_page_with(&engines::chromium_cdp(), &base)
            .await
            .expect("a Chromium page over CDP");
        page.goto("/").await.unwrap();
        Host { page, base }
    }

    /// Snapshot `index` of the fixture `name`, rendered and loaded in `#view`.
    async fn show(&self, name: &str, index: usize) {
        self.render(name, index, false).await;
    }

    /// Snapshot `index` of the fixture `name`, rendered, `bare` of its CSP
    /// or not, and loaded in `#view`.
    async fn render(&self, name: &str, index: usize, bare: bool) {
        let path = support::workspace().join(format!("tests/fixtures/trace_render/{name}.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        let dom = text.replace("{{BASE}}", &self.base);
        self.load(&format!("show({dom}, {index}, {bare})")).await;
    }

    /// `html` as it is in `#view` (no renderer).
    async fn raw(&self, html: &str) {
        let html = serde_json::to_string(html).unwrap();
        self.load(&format!("raw({html})")).await;
    }

    async fn load(&self, call: &str) {
        let js = format!("window.wanted = window.shown + 1; {call}; return true");
        assert_eq!(self.page.eval(&js).await.unwrap(), true);
        support::page::until(
            &self.page,
            "the frame loaded",
            "return window.shown >= window.wanted",
        )
        .await;
    }

    fn view(&self) -> FrameLocator {
        self.page.frame_locator("#view")
    }

    async fn messages(&self) -> Vec<String> {
        let v = support::page::js(&self.page, "return window.messages").await;
        serde_json::from_value(v).unwrap()
    }

    /// The paths under `/probe/` this host's server was asked for.
    fn probes(&self) -> Vec<String> {
        let port: u16 = self.base.rsplit(':').next().unwrap().parse().unwrap();
        SEEN.lock()
            .unwrap()
            .iter()
            .filter(|(p, path)| *p == port && path.starts_with("/probe/"))
            .map(|(_, path)| path.clone())
            .collect()
    }

    async fn close(self) {
        browsers().release(self.page).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn form_state_scroll_and_the_target_are_restored() {
    let host = Host::open().await;
    host.show("form", 0).await;
    let v = host.view();
    expect(&v.locator("#name"))
        .to_have_value("milk \"2%\" </script><b>")
        .await
        .unwrap();
    expect(&v.locator("#secret"))
        .to_have_value("••••")
        .await
        .unwrap();
    expect(&v.locator("#agree")).to_be_checked().await.unwrap();
    // Checked by its attribute, unchecked when captured: the state wins.
    expect(&v.locator("#spam")).to_be_unchecked().await.unwrap();
    expect(&v.locator("#size"))
        .to_have_value("large")
        .await
        .unwrap();
    expect(&v.locator("#note"))
        .to_have_value("two\nlines")
        .await
        .unwrap();
    // The open shadow root, rebuilt, with its field's value.
    expect(&v.locator("#deep"))
        .to_have_text("in the shadow")
        .await
        .unwrap();
    expect(&v.locator("#deep-input"))
        .to_have_value("deep value")
        .await
        .unwrap();
    // #box scrolled 250 px down: its rows 5 (250-300 px) in view, row 0 not.
    expect(&v.locator("#row-5"))
        .to_be_in_viewport()
        .await
        .unwrap();
    expect(&v.locator("#row-0"))
        .not()
        .to_be_in_viewport()
        .await
        .unwrap();
    // The document's adopted sheet: adopted, after the document's own
    // sheets (the body's last <style> says rgb(9, 9, 9)).
    expect(&v.locator("#cancel"))
        .to_have_css("color", "rgb(1, 2, 3)")
        .await
        .unwrap();
    // The target outlined, the button beside it not.
    expect(&v.locator("#save"))
        .to_have_css("outline-style", "solid")
        .await
        .unwrap();
    expect(&v.locator("#save"))
        .to_have_css("outline-color", "rgb(229, 72, 77)")
        .await
        .unwrap();
    expect(&v.locator("#cancel"))
        .to_have_css("outline-style", "none")
        .await
        .unwrap();

    // A target 3,000 px down a page not scrolled: scrolled into view.
    host.show("form", 1).await;
    expect(&v.locator("#far"))
        .to_be_in_viewport()
        .await
        .unwrap();
    expect(&v.locator("#top"))
        .not()
        .to_be_in_viewport()
        .await
        .unwrap();
    expect(&v.locator("#far"))
        .to_have_css("outline-style", "solid")
        .await
        .unwrap();

    // The document's own scroll position (`scroll`: [x, y]).
    host.show("form", 2).await;
    expect(&v.locator("#scrolled-to"))
        .to_be_in_viewport()
        .await
        .unwrap();
    expect(&v.locator("#head-of-page"))
        .not()
        .to_be_in_viewport()
        .await
        .unwrap();
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_snapshot_runs_no_script_and_cannot_break_out() {
    let host = Host::open().await;
    // The control: the same kind of markup, not rendered, posts its markers
    // from the same sandbox (so their absence below means something).
    host.raw(r#"<script>parent.postMessage('control-script', '*')</script><img src="nothing-here" onerror="parent.postMessage('control-img', '*')">"#)
        .await;
    support::page::until(
        &host.page,
        "the control's markers",
        "return ['control-script', 'control-img'].every((m) => window.messages.includes(m))",
    )
    .await;
    // Behind the CSP, and without it (the renderer's own wall alone).
    for bare in [false, true] {
        support::page::js(&host.page, "window.messages = []; return true").await;
        hostile(&host, bare).await;
    }
    host.close().await;
}

/// The hostile fixture rendered (`bare`: without its CSP) runs none of its
/// scripts, and its texts and values stay texts and values.
async fn hostile(host: &Host, bare: bool) {
    host.render("hostile", 0, bare).await;
    let v = host.view();
    // Ours ran (the value is a property it set) …
    expect(&v.locator("#val"))
        .to_have_value("\"><script>parent.postMessage('value','*')</script>")
        .await
        .unwrap();
    // … and every value came through as text, whole.
    expect(&v.locator("#quoted"))
        .to_have_attribute(
            "title",
            "\"><img src=x onerror=\"parent.postMessage('attr','*')\">'</script>",
        )
        .await
        .unwrap();
    expect(&v.locator("#quoted"))
        .to_have_attribute("data-x", "a'b\"c&amp;d")
        .await
        .unwrap();
    expect(&v.locator("#quoted"))
        .to_have_text("</script><img src=x onerror=\"parent.postMessage('text','*')\">\"><b>not bold</b>&amp;")
        .await
        .unwrap();
    expect(&v.locator("#ta"))
        .to_have_value("</textarea><img src=x onerror=\"parent.postMessage('textarea','*')\">")
        .await
        .unwrap();
    expect(&v.locator("#after"))
        .to_have_text("after the plaintext")
        .await
        .unwrap();
    // No element was made of a text or a value: the one <img> is the
    // snapshot's own (its src and onerror gone), and no <b>.
    expect(&v.locator("img")).to_have_count(1).await.unwrap();
    expect(&v.locator("b")).to_have_count(0).await.unwrap();
    expect(&v.locator("#bad-img"))
        .not()
        .to_have_attribute_present("onerror")
        .await
        .unwrap();
    expect(&v.locator("#named"))
        .to_have_text("named")
        .await
        .unwrap();
    // The frame the page had keeps our sandbox, not its own.
    expect(&v.locator("#inline"))
        .to_have_attribute("sandbox", "allow-scripts")
        .await
        .unwrap();
    // Links and the form do not take the frame anywhere.
    v.locator("#js").click().await.unwrap();
    v.locator("#away").click().await.unwrap();
    v.locator("#submit").click().await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    expect(&v.locator("#after")).to_be_visible().await.unwrap();
    expect(&v.locator("html"))
        .not()
        .to_have_attribute_present("data-pwned")
        .await
        .unwrap();
    assert_eq!(host.messages().await, Vec::<String>::new(), "bare: {bare}");
    assert_eq!(host.probes(), Vec::<String>::new(), "bare: {bare}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_references_resolve_against_the_same_frame() {
    let host = Host::open().await;
    let v = host.view();
    let mut texts = vec![];
    // Snapshot 1 is another frame's: `back` counts frame 0's snapshots only.
    for i in [0, 2, 3, 4, 5] {
        host.show("refs", i).await;
        texts.push(v.locator("body").inner_text().await.unwrap());
    }
    assert!(
        texts[0].contains("Items") && texts[0].contains("eggs"),
        "{texts:?}"
    );
    assert_eq!(texts[1], texts[0], "a snapshot that is one reference");
    assert!(
        texts[2].contains("bread") && texts[2].contains("Saved"),
        "{texts:?}"
    );
    assert!(texts[2].starts_with(&texts[0]), "{texts:?}");
    assert_eq!(texts[3], texts[2], "references to references");
    // Out of range, past the first snapshot, to itself: nothing.
    assert_eq!(texts[4], "only this");
    host.show("refs", 4).await;
    expect(&v.locator("#status"))
        .to_have_text("Saved")
        .await
        .unwrap();
    expect(&v.locator("#list li"))
        .to_have_count(3)
        .await
        .unwrap();
    expect(&v.locator("title")).to_have_count(1).await.unwrap();
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_frame_renders_nested() {
    let host = Host::open().await;
    host.show("frames", 0).await;
    let v = host.view();
    expect(&v.locator("#outer"))
        .to_have_text("outer page")
        .await
        .unwrap();
    expect(&v.locator("#child"))
        .to_have_attribute("sandbox", "allow-scripts")
        .await
        .unwrap();
    let child = v.frame_locator("#child");
    // The child of the same moment (not the `before` one).
    expect(&child.locator("#inner"))
        .to_have_text("inner page")
        .await
        .unwrap();
    expect(&child.locator("#field"))
        .to_have_value("typed inside")
        .await
        .unwrap();
    expect(&child.locator("#go"))
        .to_have_css("outline-style", "solid")
        .await
        .unwrap();
    expect(&child.frame_locator("#grandchild").locator("#deepest"))
        .to_have_text("two frames down")
        .await
        .unwrap();
    expect(&v.frame_locator("#missing").locator("p"))
        .to_have_text("frame not recorded")
        .await
        .unwrap();
    assert_eq!(host.probes(), Vec::<String>::new(), "no request");
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_makes_no_request() {
    let host = Host::open().await;
    // The control: a request from the same sandbox reaches the server.
    let control = format!(r#"<img src="{}/probe/control.png">"#, host.base);
    host.raw(&control).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(host.probes(), ["/probe/control.png"]);
    // Behind the CSP, and without it (the renderer's own wall alone).
    for bare in [false, true] {
        offline(&host, bare).await;
    }
    host.close().await;
}

/// The offline fixture rendered (`bare`: without its CSP): its resources
/// drawn from data: URLs, no other URL asked for.
async fn offline(host: &Host, bare: bool) {
    host.render("offline", 0, bare).await;
    let v = host.view();
    // What the resources give is there, as data: URLs …
    expect(&v.locator("#styled"))
        .to_have_css("color", "rgb(0, 128, 0)")
        .await
        .unwrap();
    expect(&v.locator("#logo"))
        .to_have_attribute("src", Regex::new("^data:image/png;base64,").unwrap())
        .await
        .unwrap();
    let png = Regex::new(r#"^url\("data:image/png"#).unwrap();
    for id in ["#css-known", "#sheet-url"] {
        expect(&v.locator(id))
            .to_have_css("background-image", png.clone())
            .await
            .unwrap();
    }
    // … and nothing else is asked for (fonts, images and sheets given time
    // to load).
    expect(&v.locator("#remote-img"))
        .not()
        .to_have_attribute_present("src")
        .await
        .unwrap();
    expect(&v.locator("#remote-img"))
        .to_have_attribute("__hj_missing", format!("{}/probe/img.png", host.base))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(host.probes(), ["/probe/control.png"], "bare: {bare}");
}

/// The renderer can be inlined in a page's `<script>` (the report's, stage
/// 7): nothing in it ends or comments out a script element.
#[test]
fn the_renderer_can_be_inlined_in_a_script_element() {
    let lower = SNAPSHOT_RENDERER.to_lowercase();
    assert!(
        !lower.contains("</script"),
        "a literal </script in snapshot.js"
    );
    assert!(!lower.contains("<!--"), "a literal <!-- in snapshot.js");
    assert!(SNAPSHOT_RENDERER.contains("function hjrRender("));
}
