//! The element of a traced action (issue 39 stage 2, D4 of
//! docs/design/trace.md) on Chromium (CDP), Firefox (BiDi) and WebKit
//! (classic WebDriver): a scenario of this binary, traced (`trace = "on"`),
//! runs in this process (`support::run_in_process`) against a small page
//! served by the test; its `trace.json` says, for each click, the element's
//! box (as `bounding_box()` gives it, inside a frame offset by the frame's
//! position) and its locator as `generate_locator` writes it, or
//! `detached: true` for an element gone by the step's end; and the page's
//! `screenshot()` is an entry of its own.

use std::net::TcpStream;
use std::path::Path;
use std::sync::Mutex;

use harshjudge::browser::{BoundingBox, generate_locator, generate_locator_in};
use harshjudge::{Scenario, expect, scenario, step};
use serde_json::Value;

use crate::support;

const PAGE: &str = r#"<!doctype html><html><head><title>targets</title></head>
<body style="margin: 0">
<div style="height: 40px"></div>
<button id="save" style="margin-left: 30px; width: 90px; height: 30px">Save</button>
<button id="gone" onclick="this.remove()">Remove me</button>
<iframe id="frame" src="/inner" style="position: absolute; left: 100px; top: 200px; width: 300px; height: 150px; border: 5px solid black; padding: 0"></iframe>
</body></html>"#;

/// The frame's button: 20 px from the left and 30 px from the top of the
/// frame's viewport, 80 x 25.
const INNER: &str = r#"<!doctype html><html><head><title>inner</title></head>
<body style="margin: 0">
<button id="inner" style="position: absolute; left: 20px; top: 30px; width: 80px; height: 25px">Inner</button>
</body></html>"#;

fn app(stream: TcpStream) -> std::io::Result<()> {
    support::answer_pages(stream, &[("/", PAGE), ("/inner", INNER)])
}

/// What the scenario read of its page (the live API's answers), for the
/// test to compare with its trace.
#[derive(Debug, Default)]
struct Seen {
    save: Option<BoundingBox>,
    save_locator: String,
    frame: Option<BoundingBox>,
    inner: Option<BoundingBox>,
    inner_locator: String,
}

static SEEN: Mutex<Option<Seen>> = Mutex::new(None);

fn seen(f: impl FnOnce(&mut Seen)) {
    f(SEEN.lock().unwrap().get_or_insert_with(Seen::default))
}

#[scenario(trace = "on")]
async fn traced_targets(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Click a button", {
        page.goto("/").await?;
        let save = page.get_by_role("button").name("Save");
        save.click().await?;
        let b = save.bounding_box().await?;
        let g = generate_locator(&page, "#save").await?;
        let png = page.screenshot().await?;
        assert_eq!(&png[..4], b"\x89PNG");
        seen(|s| {
            s.save = b;
            s.save_locator = g.rust();
        });
    });
    step!("Click a button that removes itself", {
        page.get_by_role("button").name("Remove me").click().await?;
    });
    step!("Click a button in a frame", {
        let inner = page
            .frame_locator("#frame")
            .get_by_role("button")
            .name("Inner");
        inner.click().await?;
        expect(&inner).to_be_visible().await?;
        let b = inner.bounding_box().await?;
        let f = page.locator("#frame").bounding_box().await?;
        let g = generate_locator_in(&page, &["#frame"], "#inner").await?;
        seen(|s| {
            s.inner = b;
            s.frame = f;
            s.inner_locator = g.rust();
        });
    });
    Ok(())
}

/// The one entry of `kind` whose call ends with `call` in step `n`'s trace.
fn entry(run: &Path, n: usize, call: &str) -> Value {
    let path = run.join(format!("step-{n:02}/evidence/trace.json"));
    let trace = support::json(&path);
    let found: Vec<&Value> = trace["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["call"].as_str().is_some_and(|c| c.ends_with(call)))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one {call} in {}: {trace:#}",
        path.display()
    );
    found[0].clone()
}

fn near(target: &Value, want: (f64, f64, f64, f64), what: &str) {
    let b = &target["box"];
    let got = [&b["x"], &b["y"], &b["width"], &b["height"]].map(|v| v.as_f64().unwrap_or(f64::NAN));
    let want = [want.0, want.1, want.2, want.3];
    assert!(
        got.iter().zip(want).all(|(g, w)| (g - w).abs() <= 1.0),
        "{what}: target.box {got:?}, expected {want:?} (within 1 px): {target}"
    );
}

fn of(b: Option<BoundingBox>) -> (f64, f64, f64, f64) {
    let b = b.expect("a box");
    (b.x, b.y, b.width, b.height)
}

/// The run of `traced_targets` in `browser`, checked against what it read.
fn check(browser: &str, run: &Path, seen: &Seen) {
    let result = support::json(run.join("result.json"));
    assert_eq!(result["status"], "pass", "{browser}: {result}");
    // `bounding_box()` of an element in a frame is in the top page's
    // viewport (Playwright's): the frame's border box, its 5 px border,
    // then the button's place in the frame.
    let (fx, fy, _, _) = of(seen.frame);
    let inner = of(seen.inner);
    let want = (fx + 5.0 + 20.0, fy + 5.0 + 30.0, 80.0, 25.0);
    assert!(
        [
            (inner.0, want.0),
            (inner.1, want.1),
            (inner.2, want.2),
            (inner.3, want.3)
        ]
        .iter()
        .all(|(g, w)| (g - w).abs() <= 1.0),
        "{browser}: bounding_box() in the frame is {inner:?}, expected {want:?}"
    );

    let click = entry(run, 1, ".name(\"Save\").click()");
    let t = &click["target"];
    near(
        t,
        of(seen.save),
        &format!("{browser}: the click's box is bounding_box()'s"),
    );
    // And where the page put it: 30 px in, below the 40 px block.
    near(
        t,
        (30.0, 40.0, 90.0, 30.0),
        &format!("{browser}: the button's place"),
    );
    assert_eq!(t["locator"], seen.save_locator.as_str(), "{browser}: {t}");
    assert_eq!(
        t["locator"], "get_by_role(\"button\").name(\"Save\")",
        "{browser}: {t}"
    );
    assert_eq!(t["detached"], false, "{browser}: {t}");
    // What of its computed style decides whether it could be clicked.
    assert_eq!(
        t["style"],
        serde_json::json!({"display": "inline-block", "visibility": "visible", "opacity": "1",
            "pointerEvents": "auto", "position": "static", "zIndex": "auto"}),
        "{browser}: {t}"
    );

    // The page's screenshot is an entry of its own, with no target.
    let shot = entry(run, 1, "page.screenshot()");
    assert_eq!(shot["kind"], "read", "{browser}: {shot}");
    assert_eq!(shot["outcome"]["status"], "ok", "{browser}: {shot}");
    assert!(shot.get("target").is_none(), "{browser}: {shot}");

    let removed = entry(run, 2, ".name(\"Remove me\").click()");
    let t = &removed["target"];
    assert_eq!(t["detached"], true, "{browser}: {t}");
    assert!(t.get("locator").is_none(), "{browser}: {t}");
    assert!(
        t["box"]["width"].as_f64().unwrap_or(0.0) > 0.0,
        "{browser}: {t}"
    );

    let inner = entry(run, 3, ".name(\"Inner\").click()");
    let t = &inner["target"];
    near(t, want, &format!("{browser}: offset by the frame"));
    near(
        t,
        (125.0, 235.0, 80.0, 25.0),
        &format!("{browser}: the frame's button's place"),
    );
    near(
        t,
        of(seen.inner),
        &format!("{browser}: the frame's button's bounding_box()"),
    );
    assert_eq!(t["locator"], seen.inner_locator.as_str(), "{browser}: {t}");
    assert_eq!(t["detached"], false, "{browser}: {t}");

    // Each entry names the frame its locator is resolved in: the action,
    // the assertion and the read in the frame; none for the page's own. A
    // read and an assertion name the element they resolved, as an action
    // does: the frame's button for both, the iframe for its own read.
    let in_frame = "page.frame_locator(\"#frame\")";
    // (The click's target is checked above.)
    for (call, check_target) in [
        (".name(\"Inner\").click()", false),
        (".name(\"Inner\")).to_be_visible()", true),
        (".name(\"Inner\").bounding_box()", true),
    ] {
        let e = entry(run, 3, call);
        assert_eq!(e["frame"], in_frame, "{browser}: {e}");
        if check_target {
            let t = &e["target"];
            near(t, of(seen.inner), &format!("{browser}: {call}'s target"));
            assert_eq!(t["locator"], seen.inner_locator.as_str(), "{browser}: {e}");
        }
    }
    let own = entry(run, 3, "page.locator(\"#frame\").bounding_box()");
    assert_eq!(own["frame"], Value::Null, "{browser}: {own}");
    near(
        &own["target"],
        of(seen.frame),
        &format!("{browser}: the iframe's bounding_box()'s target"),
    );
    assert_eq!(click["frame"], Value::Null, "{browser}: {click}");
}

/// Each engine's run, checked after all ran (`support::on_every_engine`: one
/// failure does not hide the others').
#[test]
fn an_action_s_trace_entry_names_its_element_on_every_engine() {
    let base = support::serve_with(app);
    let tmp = tempfile::tempdir().unwrap();
    *SEEN.lock().unwrap() = None;
    support::on_every_engine(
        "browser",
        &base,
        tmp.path(),
        "traced_targets",
        |browser, hj, code| {
            // What the scenario saw of this run (taken: the next run starts clean).
            let seen = SEEN.lock().unwrap().take().unwrap_or_default();
            assert_eq!(code, 0, "{browser}: the scenario passes");
            let runs = support::runs(hj, &format!("traced-targets-{browser}"));
            assert_eq!(
                runs.len(),
                1,
                "{browser}: one run in {:?}",
                support::tree(hj)
            );
            check(browser, &runs[0], &seen);
        },
    );
}
