//! The DOM snapshots of a traced step (issue 39 stage 3, D7 and D8 of
//! docs/design/trace.md) on Chromium (CDP), Firefox (BiDi) and WebKit
//! (classic WebDriver): a scenario of this binary, traced (`trace = "on"`),
//! runs in this process against a page with a script, an `onclick`, a
//! `javascript:` link, a password field, a checkbox, a text input, an open
//! shadow root and an iframe; the step's `trace-dom.json` holds the page
//! before and after each action, at the assertion's last check and after
//! the navigation, as D8 writes it (form state as attributes, what could run
//! or leak left out), with the frame's document as a snapshot of its own,
//! and `trace.json`'s entries index it.

use std::net::TcpStream;
use std::path::Path;

use harshjudge::{Scenario, expect, scenario, step};
use serde_json::Value;

use crate::support;

const PAGE: &str = r#"<!doctype html><html><head><title>dom</title>
<meta http-equiv="refresh" content="3600; url=/REFRESH-MARKER">
<base href="/">
<link rel="preload" href="/preloaded.css" as="style">
<script>window.marker = "SCRIPT-BODY-MARKER";</script>
</head>
<body>
<button id="go" onclick="document.getElementById('out').textContent = 'clicked'">Go</button>
<div id="out"></div>
<a id="js" href="javascript:void(0)">a script link</a>
<input id="pw" type="password">
<input id="box" type="checkbox">
<input id="name" type="text">
<noscript><p>NOSCRIPT-CHILD</p></noscript>
<div id="host"></div>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<span id="in-shadow">SHADOW-TEXT</span>';</script>
<iframe id="frame" src="/inner"></iframe>
</body></html>"#;

const INNER: &str = r#"<!doctype html><html><head><title>inner</title></head>
<body><p id="inner">INNER-TEXT</p></body></html>"#;

/// The password the scenario types: never in the evidence.
const PASSWORD: &str = "hunter22secret";

fn app(stream: TcpStream) -> std::io::Result<()> {
    support::answer_pages(stream, &[("/", PAGE), ("/inner", INNER)])
}

#[scenario(trace = "on")]
async fn traced_dom(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Fill the form and go", {
        page.goto("/").await?;
        expect(&page.frame_locator("#frame").locator("#inner"))
            .to_have_text("INNER-TEXT")
            .await?;
        page.locator("#name").fill("typed text").await?;
        page.locator("#pw").fill(PASSWORD).await?;
        page.locator("#box").check().await?;
        page.locator("#go").click().await?;
        expect(&page.locator("#out"))
            .to_have_text("clicked")
            .await?;
    });
    Ok(())
}

/// Every element of `node` (D8's form) and below, shadow templates included.
fn elements<'a>(node: &'a Value, out: &mut Vec<&'a Value>) {
    let Some(list) = node.as_array() else {
        return;
    };
    if list.first().is_some_and(Value::is_string) && list.get(1).is_some_and(Value::is_object) {
        out.push(node);
        for child in &list[2..] {
            elements(child, out);
        }
    }
}

/// The element of `snapshot` whose `id` attribute is `id`.
fn by_id<'a>(snapshot: &'a Value, id: &str) -> &'a Value {
    let mut all = Vec::new();
    elements(&snapshot["html"], &mut all);
    let found: Vec<&Value> = all.into_iter().filter(|e| e[1]["id"] == id).collect();
    assert_eq!(found.len(), 1, "one #{id} in {snapshot}");
    found[0]
}

/// The entry of step 1 whose call ends with `call`.
fn entry<'a>(trace: &'a Value, call: &str) -> &'a Value {
    let found: Vec<&Value> = trace["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["call"].as_str().is_some_and(|c| c.ends_with(call)))
        .collect();
    assert_eq!(found.len(), 1, "one {call} in {trace:#}");
    found[0]
}

fn check(browser: &str, run: &Path) {
    let result = support::json(run.join("result.json"));
    assert_eq!(result["status"], "pass", "{browser}: {result}");
    let evidence = run.join("step-01/evidence");
    let trace = support::json(evidence.join("trace.json"));
    let text = std::fs::read_to_string(evidence.join("trace-dom.json")).unwrap();
    let dom: Value = serde_json::from_str(&text).unwrap();
    let snapshots = dom["snapshots"].as_array().unwrap();
    assert_eq!(dom["version"], 1, "{browser}");

    // What could run, redirect or leak is not in the file at all.
    for absent in [
        "SCRIPT-BODY-MARKER",
        PASSWORD,
        "onclick",
        "javascript:",
        "NOSCRIPT-CHILD",
        // The refresh's target, not its delay: "3600" also turns up in
        // times and boxes (a timestamp …3600… failed a loaded run).
        "REFRESH-MARKER",
        "preloaded.css",
    ] {
        assert!(
            !text.contains(absent),
            "{browser}: {absent:?} in trace-dom.json"
        );
    }

    let snapshot = |i: &Value| -> &Value {
        let i = i
            .as_u64()
            .unwrap_or_else(|| panic!("{browser}: an index, got {i}"));
        &snapshots[i as usize]
    };
    let click = entry(&trace, "page.locator(\"#go\").click()");
    let n = &click["n"];
    let before = snapshot(&click["snapshots"]["before"]);
    assert_eq!(
        (&before["entry"], &before["moment"], &before["frame"]),
        (n, &Value::from("before"), &Value::from(0)),
        "{browser}: {before}"
    );
    assert!(before["url"].as_str().unwrap().ends_with('/'), "{browser}");
    assert_eq!(before["doctype"], "html", "{browser}");
    assert!(
        before["viewport"]["width"].as_f64().unwrap() > 0.0,
        "{browser}"
    );

    // The element acted on, and only it, is marked.
    let go = by_id(before, "go");
    assert_eq!(go[0], "BUTTON", "{browser}: {go}");
    assert_eq!(go[1]["__hj_target"], "", "{browser}: {go}");
    for s in snapshots {
        let marks = s.to_string().matches("__hj_target").count();
        assert!(marks <= 1, "{browser}: {marks} targets in {s}");
    }
    assert!(
        by_id(before, "out")[1].get("__hj_target").is_none(),
        "{browser}"
    );
    assert!(go[1].get("onclick").is_none(), "{browser}: {go}");
    // Form state as attributes; the password as dots of its length.
    assert_eq!(
        by_id(before, "name")[1]["__hj_value"],
        "typed text",
        "{browser}"
    );
    assert_eq!(
        by_id(before, "pw")[1]["__hj_value"],
        "•".repeat(PASSWORD.len()).as_str(),
        "{browser}"
    );
    assert_eq!(by_id(before, "box")[1]["__hj_checked"], "true", "{browser}");
    assert_eq!(by_id(before, "js")[1]["href"], "", "{browser}");
    // Scripts stay, empty.
    let mut all = Vec::new();
    elements(&before["html"], &mut all);
    let scripts: Vec<&&Value> = all.iter().filter(|e| e[0] == "SCRIPT").collect();
    assert_eq!(scripts.len(), 2, "{browser}: {before}");
    assert!(
        scripts.iter().all(|s| s.as_array().unwrap().len() == 2),
        "{browser}: {scripts:?}"
    );
    assert!(
        !all.iter()
            .any(|e| e[0] == "META" && e[1]["http-equiv"].is_string()),
        "{browser}"
    );
    assert!(!all.iter().any(|e| e[0] == "BASE"), "{browser}");
    let noscript = all
        .iter()
        .find(|e| e[0] == "NOSCRIPT")
        .expect("the noscript element");
    assert_eq!(
        noscript.as_array().unwrap().len(),
        2,
        "{browser}: {noscript}"
    );
    // The open shadow root, as the host's first child.
    let host = by_id(before, "host");
    assert_eq!(host[2][0], "TEMPLATE", "{browser}: {host}");
    assert_eq!(host[2][1]["__hj_shadow"], "", "{browser}: {host}");
    assert_eq!(by_id(before, "in-shadow")[2], "SHADOW-TEXT", "{browser}");
    // The iframe names its frame; the frame's document is a snapshot of
    // the same moment.
    assert_eq!(by_id(before, "frame")[1]["__hj_frame"], "0", "{browser}");
    let child: Vec<&Value> = snapshots
        .iter()
        .filter(|s| s["entry"] == *n && s["moment"] == "before" && s["parentFrame"] == 0)
        .collect();
    assert_eq!(
        child.len(),
        1,
        "{browser}: the frame's snapshot: {snapshots:?}"
    );
    assert_eq!(child[0]["frameIndex"], 0, "{browser}");
    assert!(
        child[0]["url"].as_str().unwrap().ends_with("/inner"),
        "{browser}"
    );
    assert_eq!(by_id(child[0], "inner")[2], "INNER-TEXT", "{browser}");

    // After the click: the page it left, the target still marked.
    let after = snapshot(&click["snapshots"]["after"]);
    assert_eq!(
        (&after["entry"], &after["moment"]),
        (n, &Value::from("after")),
        "{browser}"
    );
    assert_eq!(by_id(after, "out")[2], "clicked", "{browser}: {after}");
    assert_eq!(by_id(after, "go")[1]["__hj_target"], "", "{browser}");
    assert!(
        by_id(before, "out").as_array().unwrap().len() == 2,
        "{browser}: nothing before"
    );

    // The checkbox: unchecked before its check, checked after.
    let check = entry(&trace, "page.locator(\"#box\").check()");
    let b = snapshot(&check["snapshots"]["before"]);
    assert!(
        by_id(b, "box")[1].get("__hj_checked").is_none(),
        "{browser}: {b}"
    );
    assert_eq!(by_id(b, "box")[1]["__hj_target"], "", "{browser}");
    let a = snapshot(&check["snapshots"]["after"]);
    assert_eq!(by_id(a, "box")[1]["__hj_checked"], "true", "{browser}");

    // The password's fill: before it, the field is empty.
    let fill = entry(&trace, "page.locator(\"#pw\").fill(\"••••\")");
    let b = snapshot(&fill["snapshots"]["before"]);
    assert_eq!(by_id(b, "pw")[1]["__hj_value"], "", "{browser}");

    // An assertion: at its last check, its element marked; one in a frame
    // has the frame's document with its target and the page's around it.
    let assertion = entry(&trace, "page.locator(\"#out\")).to_have_text(\"clicked\")");
    let at = snapshot(&assertion["snapshots"]["at"]);
    assert_eq!(at["moment"], "at", "{browser}");
    assert_eq!(by_id(at, "out")[1]["__hj_target"], "", "{browser}");
    assert!(assertion["snapshots"].get("before").is_none(), "{browser}");
    let in_frame = entry(&trace, ".locator(\"#inner\")).to_have_text(\"INNER-TEXT\")");
    let top = snapshot(&in_frame["snapshots"]["at"]);
    assert_eq!(top["frame"], 0, "{browser}");
    assert!(
        top["url"].as_str().unwrap().ends_with('/'),
        "{browser}: {top}"
    );
    let frame: Vec<&Value> = snapshots
        .iter()
        .filter(|s| s["entry"] == in_frame["n"] && s["parentFrame"] == 0)
        .collect();
    assert_eq!(frame.len(), 1, "{browser}: {snapshots:?}");
    assert_eq!(by_id(frame[0], "inner")[1]["__hj_target"], "", "{browser}");

    // The navigation: the page after it.
    let goto = entry(&trace, "page.goto(\"/\")");
    let after = snapshot(&goto["snapshots"]["after"]);
    assert_eq!(by_id(after, "go")[0], "BUTTON", "{browser}");
    // The files are the step's evidence.
    assert!(
        result["steps"][0]["evidenceFiles"]
            .as_array()
            .is_some_and(|f| f
                .iter()
                .any(|f| f.as_str().is_some_and(|f| f.ends_with("trace-dom.json")))),
        "{browser}: {result}"
    );
}

/// Each engine's run, checked after all ran (`support::on_every_engine`: one
/// failure does not hide the others').
#[test]
fn a_traced_step_s_dom_snapshots_on_every_engine() {
    let base = support::serve_with(app);
    let tmp = tempfile::tempdir().unwrap();
    support::on_every_engine(
        "browser",
        &base,
        tmp.path(),
        "traced_dom",
        |browser, hj, code| {
            assert_eq!(code, 0, "{browser}: the scenario passes");
            let runs = support::runs(hj, &format!("traced-dom-{browser}"));
            assert_eq!(
                runs.len(),
                1,
                "{browser}: one run in {:?}",
                support::tree(hj)
            );
            check(browser, &runs[0]);
        },
    );
}
