//! Issue 39 stage 5 (D9, D10, D14 of docs/design/trace.md): a screenshot
//! after each action when `HARSHJUDGE_TRACE_SCREENSHOTS=on`, and a page's
//! external same-origin stylesheet kept as a run's resource.
//!
//! Scenarios of this binary run in process against a page styled only by
//! `/app.css` (served as `text/css` by the test): on Chromium (CDP),
//! Firefox (BiDi) and WebKit (classic), two navigations to the same page
//! (the same screen) and a click that changes it leave `trace-01.png` …
//! `trace-03.png` of the viewport's size, named by their entries, the two
//! equal screens one inode; the snapshots' LINK names the sheet by the
//! SHA-256 of its text, kept as `runs/{id}/trace-resources/{sha}.css`. On
//! Chromium: a second run shares that file's inode, the default (off) takes
//! none, `retain-on-failure` keeps the failing step's and not the passing
//! one's, and the report's replay draws the sheet's rule in its sandboxed
//! frame (`to_have_css`) with the screenshot beside it.

use std::net::TcpStream;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use harshjudge::{Scenario, expect, scenario, step};
use serde_json::Value;

use crate::support;

const PAGE: &str = r#"<!doctype html><html><head><title>styled</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<p id="styled">Styled only by app.css</p>
<button id="go" onclick="document.getElementById('out').textContent = 'clicked'">Go</button>
<div id="out"></div>
</body></html>"#;

const CSS: &str =
    "#styled { color: rgb(10, 20, 30); font-weight: 700; }\n#out { min-height: 20px; }\n";

/// The sheet's text as the page's CSSOM gives it back (each rule's
/// `cssText`, one a line): what the trace keeps.
const SHEET_TEXT: &str =
    "#styled { color: rgb(10, 20, 30); font-weight: 700; }\n#out { min-height: 20px; }";

fn app(stream: TcpStream) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut r = std::io::BufReader::new(stream);
    while let Some(path) = support::next_request_path(&mut r)? {
        let (status, kind, body) = match path.as_str() {
            "/" => ("200 OK", "text/html", PAGE),
            "/app.css" => ("200 OK", "text/css", CSS),
            _ => ("404 Not Found", "text/plain", "no"),
        };
        support::respond(&mut out, status, kind, body)?;
    }
    Ok(())
}

#[scenario(trace = "on")]
async fn shots_and_sheet(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the styled page twice and click", {
        page.goto("/").await?;
        page.goto("/").await?;
        page.locator("#go").click().await?;
        expect(&page.locator("#out"))
            .to_have_text("clicked")
            .await?;
    });
    Ok(())
}

#[scenario(trace = "retain-on-failure")]
async fn shots_retained(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Pass", {
        page.goto("/").await?;
        page.locator("#go").click().await?;
    });
    step!("Fail", {
        page.locator("#go").click().await?;
        expect(&page.locator("#out"))
            .to_have_text("never")
            .timeout(std::time::Duration::from_millis(300))
            .await?;
    });
    Ok(())
}

/// The width and height a PNG's header gives.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

/// The `trace-*.png` files of a step's evidence, sorted.
fn shots(evidence: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(evidence)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("trace-") && n.ends_with(".png"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn sha256(text: &str) -> String {
    harshjudge::browser::trace::ContentHash::of(text.as_bytes()).to_string()
}

/// The attributes of every LINK element in `node` (D8's form).
fn links(node: &Value, out: &mut Vec<Value>) {
    let Some(list) = node.as_array() else {
        return;
    };
    if list.first().is_some_and(|t| t == "LINK") {
        out.push(list[1].clone());
    }
    for child in list.iter().skip(2) {
        links(child, out);
    }
}

/// Checks a run of `shots_and_sheet` with screenshots on; the path of its
/// stylesheet resource.
fn check_run(browser: &str, run: &Path) -> PathBuf {
    let result = support::json(run.join("result.json"));
    assert_eq!(result["status"], "pass", "{browser}: {result}");
    let evidence = run.join("step-01/evidence");
    let trace = support::json(evidence.join("trace.json"));
    let entries = trace["entries"].as_array().unwrap();
    let named: Vec<&Value> = entries.iter().map(|e| &e["screenshot"]).collect();
    // The two navigations and the click have one each; the assertion none.
    assert_eq!(
        named,
        [
            &Value::from("trace-01.png"),
            &Value::from("trace-02.png"),
            &Value::from("trace-03.png"),
            &Value::Null
        ],
        "{browser}: {trace:#}"
    );
    assert_eq!(
        shots(&evidence),
        ["trace-01.png", "trace-02.png", "trace-03.png"],
        "{browser}"
    );
    // Each is of the viewport as the page measured it after the action (its
    // snapshot's `innerWidth` × `innerHeight`: WebKit's window keeps some of
    // the configured height for itself).
    let dom = support::json(evidence.join("trace-dom.json"));
    for e in &entries[..3] {
        let after = &dom["snapshots"][e["snapshots"]["after"].as_u64().unwrap() as usize];
        let size = &after["viewport"];
        let name = e["screenshot"].as_str().unwrap();
        let bytes = std::fs::read(evidence.join(name)).unwrap();
        let (w, h) = png_size(&bytes);
        assert_eq!(
            (u64::from(w), u64::from(h)),
            (
                size["width"].as_u64().unwrap(),
                size["height"].as_u64().unwrap()
            ),
            "{browser}: {name}"
        );
    }
    // The same screen twice is one content, one inode (the store's blob);
    // the click changed the screen.
    let ino = |n: &str| std::fs::metadata(evidence.join(n)).unwrap().ino();
    assert_eq!(ino("trace-01.png"), ino("trace-02.png"), "{browser}");
    assert_ne!(ino("trace-02.png"), ino("trace-03.png"), "{browser}");
    let listed = result["steps"][0]["evidenceFiles"].to_string();
    assert!(listed.contains("trace-03.png"), "{browser}: {listed}");

    // The stylesheet: named by its text's hash on the LINK, its text kept once.
    let sha = sha256(SHEET_TEXT);
    let mut found = Vec::new();
    for s in dom["snapshots"].as_array().unwrap() {
        links(&s["html"], &mut found);
    }
    assert!(!found.is_empty(), "{browser}: LINKs in {dom}");
    for attrs in &found {
        assert_eq!(attrs["__hj_sheet"], sha.as_str(), "{browser}: {attrs}");
    }
    let file = dom["resources"][&sha]["file"].as_str().unwrap();
    let resource = evidence.join(file);
    assert_eq!(
        std::fs::read_to_string(&resource).unwrap(),
        SHEET_TEXT,
        "{browser}"
    );
    assert_eq!(
        resource.parent().unwrap().file_name().unwrap(),
        "trace-resources"
    );
    resource
}

/// Sets the screenshots variable for the runs that follow (under the
/// caller's `in_process`).
fn screenshots(value: Option<&str>) {
    // SAFETY: under the caller's `support::in_process`: no other test of
    // the binary reads the environment meanwhile; put back by its drop.
    unsafe {
        match value {
            Some(v) => std::env::set_var("HARSHJUDGE_TRACE_SCREENSHOTS", v),
            None => std::env::remove_var("HARSHJUDGE_TRACE_SCREENSHOTS"),
        }
    }
}

#[test]
fn screenshots_after_actions_and_sheets_as_resources_on_every_engine() {
    let base = support::serve_with(app);
    let tmp = tempfile::tempdir().unwrap();
    let _alone = support::in_process();
    support::in_process_env(&base);
    screenshots(Some("on"));
    let mut failed = Vec::new();
    for browser in ["chromium", "firefox", "webkit"] {
        let hj = tmp.path().join(browser);
        let code = support::run_in_process("browser", &hj, browser, &["shots_and_sheet"]);
        let checked = std::panic::catch_unwind(|| {
            assert_eq!(code, 0, "{browser}: the scenario passes");
            let runs = support::runs(&hj, &format!("shots-and-sheet-{browser}"));
            assert_eq!(runs.len(), 1, "{browser}: {:?}", support::tree(&hj));
            check_run(browser, &runs[0]);
        });
        if let Err(e) = checked {
            failed.push(format!("- {browser}: {}", support::panic_text(&*e)));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn screenshots_are_asked_for_kept_with_the_trace_and_replayed_with_the_sheet() {
    let base = support::serve_with(app);
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let _alone = support::in_process();
    support::in_process_env(&base);
    let slug = "shots-and-sheet-chromium";

    // Off (the default): no screenshot, no `screenshot` in an entry.
    screenshots(None);
    let code = support::run_in_process("browser", &hj, "chromium", &["shots_and_sheet"]);
    assert_eq!(code, 0);
    let off = support::runs(&hj, slug);
    let evidence = off[0].join("step-01/evidence");
    assert_eq!(shots(&evidence), Vec::<String>::new());
    let trace = support::json(evidence.join("trace.json"));
    assert!(
        trace["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e.get("screenshot").is_none()),
        "{trace:#}"
    );

    // On: two runs of the page share their sheet's inode.
    screenshots(Some("on"));
    for _ in 0..2 {
        let code = support::run_in_process("browser", &hj, "chromium", &["shots_and_sheet"]);
        assert_eq!(code, 0);
    }
    let mut runs = support::runs(&hj, slug);
    runs.retain(|r| *r != off[0]);
    assert_eq!(runs.len(), 2, "{:?}", support::tree(&hj));
    let sheets: Vec<PathBuf> = runs.iter().map(|r| check_run("chromium", r)).collect();
    let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
    assert_ne!(sheets[0], sheets[1]);
    assert_eq!(ino(&sheets[0]), ino(&sheets[1]), "one inode per content");

    // retain-on-failure: the passing step keeps nothing, the failing one
    // its trace with its screenshots.
    let code = support::run_in_process("browser", &hj, "chromium", &["shots_retained"]);
    assert_ne!(code, 0, "the second step fails");
    let retained = support::runs(&hj, "shots-retained-chromium");
    let (passed, failed) = (
        retained[0].join("step-01/evidence"),
        retained[0].join("step-02/evidence"),
    );
    assert_eq!(shots(&passed), Vec::<String>::new());
    assert!(!passed.join("trace.json").exists());
    assert_eq!(shots(&failed), ["trace-01.png"]);
    let trace = support::json(failed.join("trace.json"));
    assert_eq!(trace["entries"][0]["screenshot"], "trace-01.png");

    // The report replays the step with its sheet, the screenshot beside it.
    harshjudge_store::report::html::write(&hj).unwrap();
    let run_id = runs[1].file_name().unwrap().to_string_lossy().into_owned();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(replayed(&hj, slug, &run_id));
}

async fn replayed(hj: &Path, slug: &str, run: &str) {
    use crate::support::page::until;
    let (_browsers, page) = crate::support::page::open_report(hj, "").await;
    page.eval(&format!(
        "location.hash = '#/run/{slug}/{run}/01'; return true"
    ))
    .await
    .unwrap();
    until(
        &page,
        "the snapshot and the screenshot",
        "return !!document.querySelector('#timeline iframe.snapshot') && !!document.querySelector('#timeline .tl-shot img')",
    )
    .await;
    let frame = page.frame_locator("#timeline iframe.snapshot");
    harshjudge::browser::expect(&frame.locator("#styled"))
        .to_have_css("color", "rgb(10, 20, 30)")
        .await
        .unwrap();
    let src = page
        .eval("return document.querySelector('#timeline .tl-shot img').getAttribute('src')")
        .await
        .unwrap();
    assert!(
        src.as_str().is_some_and(|s| s.ends_with("/trace-01.png")),
        "{src}"
    );
}
