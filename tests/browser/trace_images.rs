//! Issue 39 stage 5 (D9, D10, D11 of docs/design/trace.md): the images a
//! traced step's snapshots draw, read back from the browser's network
//! record when the step's trace is written and kept as the run's resources.
//!
//! A test server's page shows a same-origin PNG (`/logo.png`, counted) and
//! a lazy image far below the fold that never loads. Traced `on`: Chromium
//! (CDP, `Network.getResponseBody`) and Firefox (BiDi, a data collector and
//! `network.getData`; Chromium over chromedriver's BiDi too) keep
//! `trace-resources/{sha}.png` holding the served
//! bytes, `trace-dom.json`'s `images` names it, the lazy one is null and
//! said in `limits`; the server saw the PNG asked once (no fetch of ours);
//! WebKit (classic) keeps none and says why. On Chromium: two runs share the
//! PNG's inode; under `retain-on-failure` the passing step that drew it
//! stores nothing; the `file://` report's replay draws the PNG from a
//! `data:` URL at its natural size and the lazy one as a hatched box of its
//! size titled "image not recorded: {url}". The page's `<style>` declares
//! two `@font-face` fonts, one used by its text: that one is kept
//! (`fonts`, `.woff2`) and replayed from a `data:` URL, the other left out;
//! a `style` attribute's background is kept and replayed, a sheet's rule
//! that matches nothing loads nothing and is left out.

use std::io::Write;
use std::net::TcpStream;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use harshjudge::{Scenario, expect, scenario, step};
use serde_json::Value;

use crate::support;

const PAGE: &str = r#"<!doctype html><html><head><title>logo</title>
<style>
@font-face { font-family: Used; src: url(/used.woff2) format("woff2"); }
@font-face { font-family: Unused; src: url("/unused.woff2") format("woff2"); }
#text { font-family: Used, sans-serif; }
.never:hover { background-image: url(/hover.png); }
</style></head>
<body style="margin: 0">
<img id="logo" src="/logo.png" alt="">
<p id="text">A page with a logo</p>
<div id="bg" style="width: 20px; height: 10px; background-image: url(/bg.png)"></div>
<div style="height: 20000px"></div>
<img id="lazy" loading="lazy" src="/lazy.png" width="50" height="40" alt="">
</body></html>"#;

const PLAIN: &str = "<!doctype html><html><body><p id=\"text\">No image</p></body></html>";

/// The bytes served as `/used.woff2` (not a font the browser can use: it
/// asks for it all the same, and the trace keeps what it was served).
const FONT: &[u8] = b"wOF2 bytes of a font that is not one";

/// The PNG's size: the replay shows it at this size only when it decoded.
const PNG_SIZE: (u32, u32) = (7, 5);

/// The requests of `/logo.png` each server saw (one server per test).
static ASKED: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];

fn app<const N: usize>(stream: TcpStream) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut r = std::io::BufReader::new(stream);
    while let Some(path) = support::next_request_path(&mut r)? {
        let (status, kind, body): (&str, &str, Vec<u8>) = match path.as_str() {
            "/" => ("200 OK", "text/html", PAGE.into()),
            "/plain" => ("200 OK", "text/html", PLAIN.into()),
            "/logo.png" => {
                ASKED[N].fetch_add(1, Ordering::SeqCst);
                ("200 OK", "image/png", support::png(PNG_SIZE.0, PNG_SIZE.1))
            }
            "/lazy.png" | "/hover.png" => ("200 OK", "image/png", support::png(3, 3)),
            "/bg.png" => ("200 OK", "image/png", support::png(2, 2)),
            "/used.woff2" | "/unused.woff2" => ("200 OK", "font/woff2", FONT.to_vec()),
            _ => ("404 Not Found", "text/plain", b"no".to_vec()),
        };
        write!(
            out,
            "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\r\n",
            body.len()
        )?;
        out.write_all(&body)?;
    }
    Ok(())
}

#[scenario(trace = "on")]
async fn images_kept(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the page with a logo", {
        page.goto("/").await?;
        expect(&page.locator("#text"))
            .to_have_text("A page with a logo")
            .await?;
    });
    Ok(())
}

#[scenario(trace = "retain-on-failure")]
async fn images_retained(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Pass with the logo", {
        page.goto("/").await?;
        page.locator("#text").click().await?;
    });
    step!("Fail without it", {
        page.goto("/plain").await?;
        expect(&page.locator("#text"))
            .to_have_text("never")
            .timeout(std::time::Duration::from_millis(300))
            .await?;
    });
    Ok(())
}

/// Checks a run of `images_kept` on `browser`, whose server is `base`; the
/// path of its PNG resource (none on WebKit).
fn check_run(browser: &str, base: &str, run: &Path) -> Option<PathBuf> {
    let result = support::json(run.join("result.json"));
    assert_eq!(result["status"], "pass", "{browser}: {result}");
    let evidence = run.join("step-01/evidence");
    let trace = support::json(evidence.join("trace.json"));
    let dom = support::json(evidence.join("trace-dom.json"));
    let (logo, lazy) = (format!("{base}/logo.png"), format!("{base}/lazy.png"));
    let images = &dom["images"];
    let limits = trace["limits"].to_string();
    let (used, unused) = (format!("{base}/used.woff2"), format!("{base}/unused.woff2"));
    if browser == "webkit" {
        assert_eq!(images[&logo], Value::Null, "{browser}: {dom}");
        assert_eq!(dom["fonts"][&used], Value::Null, "{browser}: {dom}");
        assert!(
            limits.contains("WebDriver classic keeps no network record"),
            "{limits}"
        );
        assert!(
            !run.join("trace-resources").exists(),
            "{:?}",
            support::tree(run)
        );
        return None;
    }
    let sha = images[&logo]
        .as_str()
        .unwrap_or_else(|| panic!("{browser}: {images}"));
    let bytes = support::png(PNG_SIZE.0, PNG_SIZE.1);
    assert_eq!(
        sha,
        harshjudge::browser::trace::ContentHash::of(&bytes).to_string()
    );
    let resource = &dom["resources"][sha];
    assert_eq!(resource["type"], "image/png", "{browser}: {resource}");
    let path = evidence.join(resource["file"].as_str().unwrap());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "{browser}: the served bytes"
    );
    assert_eq!(
        path.file_name().unwrap().to_string_lossy(),
        format!("{sha}.png")
    );
    assert_eq!(
        path.parent().unwrap().file_name().unwrap(),
        "trace-resources"
    );
    // The font the text uses is kept; the one no text uses was never loaded:
    // left out.
    let font = dom["fonts"][&used]
        .as_str()
        .unwrap_or_else(|| panic!("{browser}: fonts {}", dom["fonts"]));
    assert_eq!(
        font,
        harshjudge::browser::trace::ContentHash::of(FONT).to_string()
    );
    assert_eq!(dom["resources"][font]["type"], "font/woff2", "{browser}");
    let file = evidence.join(dom["resources"][font]["file"].as_str().unwrap());
    assert!(file.to_string_lossy().ends_with(".woff2"), "{file:?}");
    assert_eq!(std::fs::read(&file).unwrap(), FONT, "{browser}");
    assert!(
        dom["fonts"].get(&unused).is_none(),
        "{browser}: {}",
        dom["fonts"]
    );
    // The background of a `style` attribute is kept; the sheet's rule that
    // matches nothing loaded nothing: left out.
    let bg = images[format!("{base}/bg.png")]
        .as_str()
        .unwrap_or_else(|| panic!("{browser}: {images}"));
    assert_eq!(
        bg,
        harshjudge::browser::trace::ContentHash::of(&support::png(2, 2)).to_string()
    );
    assert!(
        images.get(format!("{base}/hover.png")).is_none(),
        "{browser}: {images}"
    );
    // The lazy image never loaded: not recorded, and said so.
    assert_eq!(images[&lazy], Value::Null, "{browser}: {images}");
    assert!(
        limits.contains("/lazy.png") && limits.contains("not in the page's network record"),
        "{browser}: {limits}"
    );
    Some(path)
}

#[test]
fn images_are_kept_from_the_network_record_on_cdp_and_bidi_and_not_on_classic() {
    let base = support::serve_with(app::<0>);
    let tmp = tempfile::tempdir().unwrap();
    let _alone = support::in_process();
    support::in_process_env(&base);
    let mut failed = Vec::new();
    for browser in ["chromium", "firefox", "webkit"] {
        let hj = tmp.path().join(browser);
        ASKED[0].store(0, Ordering::SeqCst);
        let code = support::run_in_process("browser", &hj, browser, &["images_kept"]);
        let checked = std::panic::catch_unwind(|| {
            assert_eq!(code, 0, "{browser}: the scenario passes");
            let runs = support::runs(&hj, &format!("images-kept-{browser}"));
            assert_eq!(runs.len(), 1, "{browser}: {:?}", support::tree(&hj));
            check_run(browser, &base, &runs[0]);
            // The page's own request only: the trace fetched nothing.
            assert_eq!(
                ASKED[0].load(Ordering::SeqCst),
                1,
                "{browser}: /logo.png asked"
            );
        });
        if let Err(e) = checked {
            failed.push(format!("- {browser}: {}", support::panic_text(&*e)));
        }
    }
    // Chromium through chromedriver's WebDriver BiDi: its data collector.
    let hj = tmp.path().join("chromedriver");
    ASKED[0].store(0, Ordering::SeqCst);
    // SAFETY: under `support::in_process`: no other test of the binary reads
    // the environment meanwhile; put back by its drop.
    unsafe { std::env::set_var("HARSHJUDGE_CHROMIUM_PROTOCOL", "webdriver") };
    let code = support::run_in_process("browser", &hj, "chromium", &["images_kept"]);
    // SAFETY: as above.
    unsafe { std::env::remove_var("HARSHJUDGE_CHROMIUM_PROTOCOL") };
    let checked = std::panic::catch_unwind(|| {
        assert_eq!(code, 0, "chromedriver: the scenario passes");
        let runs = support::runs(&hj, "images-kept-chromium");
        let trace = support::json(runs[0].join("step-01/evidence/trace.json"));
        assert_eq!(trace["pages"][0]["protocol"], "webdriver-bidi", "{trace}");
        check_run("chromium over chromedriver's BiDi", &base, &runs[0]);
        assert_eq!(ASKED[0].load(Ordering::SeqCst), 1, "/logo.png asked");
    });
    if let Err(e) = checked {
        failed.push(format!("- chromedriver: {}", support::panic_text(&*e)));
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn images_are_one_inode_kept_only_with_the_trace_and_replayed_offline() {
    let base = support::serve_with(app::<1>);
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let _alone = support::in_process();
    support::in_process_env(&base);
    let slug = "images-kept-chromium";

    // Two runs of the page share their PNG's inode.
    for _ in 0..2 {
        let code = support::run_in_process("browser", &hj, "chromium", &["images_kept"]);
        assert_eq!(code, 0);
    }
    let runs = support::runs(&hj, slug);
    assert_eq!(runs.len(), 2, "{:?}", support::tree(&hj));
    let pngs: Vec<PathBuf> = runs
        .iter()
        .map(|r| check_run("chromium", &base, r).unwrap())
        .collect();
    let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
    assert_ne!(pngs[0], pngs[1]);
    assert_eq!(ino(&pngs[0]), ino(&pngs[1]), "one inode per content");
    assert_eq!(ASKED[1].load(Ordering::SeqCst), 2, "one request a run");

    // retain-on-failure: the passing step drew the logo and stores nothing;
    // the failing one draws no image: the run has no resources at all.
    let code = support::run_in_process("browser", &hj, "chromium", &["images_retained"]);
    assert_ne!(code, 0, "the second step fails");
    let retained = support::runs(&hj, "images-retained-chromium");
    assert!(!retained[0].join("step-01/evidence/trace.json").exists());
    let failed = support::json(retained[0].join("step-02/evidence/trace-dom.json"));
    assert!(failed.get("images").is_none(), "{failed}");
    assert!(
        !retained[0].join("trace-resources").exists(),
        "{:?}",
        support::tree(&retained[0])
    );
    assert_eq!(
        ASKED[1].load(Ordering::SeqCst),
        3,
        "the page's own request only"
    );

    // The report replays the step: the logo from a data: URL, decoded at its
    // natural size; the lazy image a titled box of its size.
    harshjudge_store::report::html::write(&hj).unwrap();
    let run_id = runs[1].file_name().unwrap().to_string_lossy().into_owned();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(replayed(&hj, &base, slug, &run_id));
}

async fn replayed(hj: &Path, base: &str, slug: &str, run: &str) {
    use crate::support::page::until;
    use harshjudge::browser::{TextMatch, expect};
    let (_browsers, page) = crate::support::page::open_report(hj, "").await;
    page.eval(&format!(
        "location.hash = '#/run/{slug}/{run}/01'; return true"
    ))
    .await
    .unwrap();
    until(
        &page,
        "the snapshot",
        "return !!document.querySelector('#timeline iframe.snapshot')",
    )
    .await;
    let frame = page.frame_locator("#timeline iframe.snapshot");
    let logo = frame.locator("#logo");
    expect(&logo)
        .to_have_attribute(
            "src",
            harshjudge::regex::Regex::new("^data:image/png;base64,").unwrap(),
        )
        .await
        .unwrap();
    // Decoded: drawn at the PNG's own size (the markup sets none).
    expect(&logo)
        .to_have_css("width", format!("{}px", PNG_SIZE.0).as_str())
        .await
        .unwrap();
    expect(&logo)
        .to_have_css("height", format!("{}px", PNG_SIZE.1).as_str())
        .await
        .unwrap();
    let lazy = frame.locator("#lazy");
    expect(&lazy)
        .to_have_attribute(
            "title",
            TextMatch::Exact(format!("image not recorded: {base}/lazy.png")),
        )
        .await
        .unwrap();
    expect(&lazy).to_have_css("width", "50px").await.unwrap();
    expect(&lazy).to_have_css("height", "40px").await.unwrap();
    expect(&lazy)
        .to_have_css(
            "background-image",
            harshjudge::regex::Regex::new("^repeating-linear-gradient").unwrap(),
        )
        .await
        .unwrap();
    let src = frame.locator("#lazy[src]").count().await.unwrap();
    assert_eq!(src, 0, "no URL of the page is written");
    expect(&frame.locator("#bg"))
        .to_have_css(
            "background-image",
            harshjudge::regex::Regex::new(r#"^url\("data:image/png;base64,"#).unwrap(),
        )
        .await
        .unwrap();
    // The font: its @font-face names it by a data: URL, the unused one by none.
    let css = frame
        .locator("style")
        .all_text_contents()
        .await
        .unwrap()
        .join("\n");
    assert!(css.contains("url(\"data:font/woff2;base64,"), "{css}");
    assert!(!css.contains("used.woff2"), "{css}");
}
