//! The snapshots held (limits, the latest moment kept) and `trace-dom.json`'s shape.

use serde_json::{Value, json};

use super::*;
use crate::settings::TraceMode;
use crate::trace::{CallText, Kind, Tracer, Tracing, span};

fn doc(frame: u32, parent: Option<u32>, index: Option<u32>, json: &str) -> Doc {
    Doc {
        frame,
        parent,
        index,
        time: 1.5,
        json: json.to_string(),
    }
}

const PAGE: &str = r#"{"url":"http://x/","viewport":{"width":800,"height":600},"scroll":[0,12],"doctype":"html","html":["HTML",{},["BODY",{},["BUTTON",{"__hj_target":""},"Save"]]]}"#;

#[test]
fn a_snapshot_over_4_mib_is_omitted_saying_its_size() {
    let small = "x".repeat(100);
    assert_eq!(&*bounded(small.clone()), small.as_str());
    let big = format!(r#"{{"html":"{}"}}"#, "x".repeat(5 << 20));
    let v: Value = serde_json::from_str(&bounded(big)).unwrap();
    assert_eq!(v, json!({"omitted": "5.0 MiB, over the 4 MiB limit"}));
    let just = "y".repeat(SNAPSHOT_LIMIT);
    assert_eq!(
        bounded(just).len(),
        SNAPSHOT_LIMIT,
        "the limit itself is kept"
    );
}

#[test]
fn a_moment_taken_again_replaces_the_earlier_and_the_step_keeps_the_latest_24_mib() {
    let mut s = Snapshots::default();
    s.hold(
        1,
        Moment::Before,
        0,
        vec![
            doc(0, None, None, "{\"a\":1}"),
            doc(1, Some(0), Some(0), "{}"),
        ],
        false,
    );
    s.hold(
        1,
        Moment::Before,
        0,
        vec![doc(0, None, None, "{\"a\":2}")],
        false,
    );
    s.hold(
        1,
        Moment::After,
        0,
        vec![doc(0, None, None, "{\"a\":3}")],
        true,
    );
    let texts: Vec<&str> = s.held.iter().map(|h| &*h.json).collect();
    assert_eq!(
        texts,
        ["{\"a\":2}", "{\"a\":3}"],
        "a retried action keeps its last before"
    );
    assert_eq!(s.cut, 1);
    assert_eq!(s.bytes, 14);

    // Seven 4 MiB snapshots: past 24 MiB the oldest go, the latest stay.
    let mut s = Snapshots::default();
    let four = format!("\"{}\"", "z".repeat(SNAPSHOT_LIMIT - 2));
    for e in 0..7 {
        s.hold(e, Moment::After, 0, vec![doc(0, None, None, &four)], false);
    }
    assert_eq!(s.dropped, 2);
    assert!(s.bytes <= STEP_LIMIT, "{}", s.bytes);
    assert_eq!(&*s.held[0].json, DROPPED);
    assert_eq!(&*s.held[1].json, DROPPED);
    assert_eq!(s.held[6].json.len(), SNAPSHOT_LIMIT);
    let v: Value = serde_json::from_str(DROPPED).unwrap();
    assert!(v["omitted"].as_str().unwrap().contains("24 MiB"), "{v}");
}

#[test]
fn the_file_lists_snapshots_with_their_entry_moment_and_frames() {
    let held = |entry, moment, frame, parent, index, json: &str| Held {
        entry,
        moment,
        page: 0,
        frame,
        parent,
        index,
        time: 10.0,
        json: json.into(),
    };
    let list = vec![
        held(7, Moment::Before, 0, None, None, PAGE),
        held(
            7,
            Moment::Before,
            1,
            Some(0),
            Some(0),
            r#"{"url":"http://x/inner","html":["HTML",{}],"sneaky":1,"entry":99}"#,
        ),
        // An entry no longer kept: left out.
        held(8, Moment::After, 0, None, None, PAGE),
        held(
            7,
            Moment::After,
            0,
            None,
            None,
            r#"{"omitted":"5.0 MiB, over the 4 MiB limit"}"#,
        ),
        held(9, Moment::At, 0, None, None, "not json"),
    ];
    let n_of = |seq: u64| match seq {
        7 => Some(1),
        9 => Some(2),
        _ => None,
    };
    let written = file(list, n_of, &Default::default(), &Default::default());
    let (bytes, indexes) = (written.bytes, written.indexes);
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(v["version"], 1);
    let s = v["snapshots"].as_array().unwrap();
    assert_eq!(s.len(), 4, "{v:#}");
    assert_eq!(
        s[0],
        json!({"entry": 1, "moment": "before", "page": "p1", "frame": 0, "parentFrame": null,
               "frameIndex": null, "time": 10.0, "url": "http://x/", "viewport": {"width": 800, "height": 600},
               "scroll": [0, 12], "doctype": "html",
               "html": ["HTML", {}, ["BODY", {}, ["BUTTON", {"__hj_target": ""}, "Save"]]]})
    );
    // The page's own keys are not the file's: ours are not overwritten.
    assert_eq!(s[1]["entry"], 1);
    assert_eq!(s[1]["frame"], 1);
    assert_eq!(s[1]["parentFrame"], 0);
    assert_eq!(s[1]["frameIndex"], 0);
    assert!(s[1].get("sneaky").is_none(), "{}", s[1]);
    assert_eq!(s[2]["moment"], "after");
    assert_eq!(s[2]["omitted"], "5.0 MiB, over the 4 MiB limit");
    assert!(s[2].get("html").is_none());
    assert_eq!(s[3]["moment"], "at");
    assert!(
        s[3]["error"].as_str().unwrap().contains("not JSON"),
        "{}",
        s[3]
    );
    assert_eq!(
        indexes,
        [
            (
                7,
                Indexes {
                    before: Some(0),
                    after: Some(2),
                    at: None
                }
            ),
            (
                9,
                Indexes {
                    before: None,
                    after: None,
                    at: Some(3)
                }
            ),
        ]
    );
}

#[test]
fn a_kept_step_s_entries_index_its_trace_dom_file_and_a_dropped_one_holds_nothing() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let t = Tracer::new(Tracing::KeepIfFailed, TraceMode::RetainOnFailure, 1, false).unwrap();
    let n = t.add_page("chromium", "cdp", None);
    let page = (t.clone(), n);
    let at = std::panic::Location::caller();
    let call = || CallText::locator("page.locator(\"#a\")", "click", String::new());
    rt.block_on(async {
        // Two entries; snapshots held while each is open (as `Page::call`
        // does with a traced act's answer).
        for _ in 0..2 {
            span(
                Some(&page),
                std::time::Duration::ZERO,
                None,
                Kind::Action,
                call,
                at,
                async {
                    let seq = crate::trace::open_entry().expect("open");
                    t.hold(
                        seq,
                        Moment::Before,
                        n,
                        vec![doc(0, None, None, PAGE)],
                        false,
                    );
                    Ok::<_, crate::error::BrowserError>(())
                },
            )
            .await
            .unwrap();
        }
    });
    // A passed step under retain-on-failure: nothing written, nothing kept.
    assert_eq!(t.take_step_with_dom("01", false), None);
    assert!(t.state().snapshots.held.is_empty());

    rt.block_on(async {
        span(
            Some(&page),
            std::time::Duration::ZERO,
            None,
            Kind::Action,
            call,
            at,
            async {
                let seq = crate::trace::open_entry().expect("open");
                t.hold(
                    seq,
                    Moment::Before,
                    n,
                    vec![doc(0, None, None, PAGE)],
                    false,
                );
                t.hold(
                    seq,
                    Moment::After,
                    n,
                    vec![doc(0, None, None, PAGE), doc(1, Some(0), Some(0), PAGE)],
                    false,
                );
                Ok::<_, crate::error::BrowserError>(())
            },
        )
        .await
        .unwrap();
        span(
            Some(&page),
            std::time::Duration::ZERO,
            None,
            Kind::Read,
            call,
            at,
            async { Ok::<_, crate::error::BrowserError>(()) },
        )
        .await
        .unwrap();
    });
    let trace = t.take_step_with_dom("02", true).expect("failed: kept");
    let (file, dom) = (trace.file, trace.dom);
    let snaps = file.entries[0].snapshots.expect("indexed");
    assert_eq!(
        (snaps.before, snaps.after, snaps.at),
        (Some(0), Some(1), None)
    );
    assert_eq!(file.entries[1].snapshots, None, "a read has none");
    let dom: Value = serde_json::from_slice(&dom.expect("written")).unwrap();
    assert_eq!(dom["snapshots"].as_array().unwrap().len(), 3);
    assert_eq!(dom["snapshots"][2]["parentFrame"], 0);
    let text = serde_json::to_string(&file).unwrap();
    assert!(
        text.contains(r#""snapshots":{"before":0,"after":1}"#),
        "{text}"
    );
    // An older file, without the key, still reads.
    let old = text.replace(r#","snapshots":{"before":0,"after":1}"#, "");
    assert_eq!(
        crate::trace::TraceFile::read(&old).unwrap().entries[0].snapshots,
        None
    );
    // The next step starts empty.
    assert_eq!(t.take_step_with_dom("03", true).unwrap().dom, None);
}

/// The sheets the page sends with a snapshot: each distinct text once, by
/// the SHA-256 it is named by, listed in the file's `resources` with its
/// path from the evidence folder; a text that is not its name's hash is
/// left out, and the page's limits reach `trace.json`'s.
#[test]
fn the_file_keeps_each_sheet_once_by_its_checked_hash() {
    let css = "p { color: red; }";
    let sha = crate::trace::ContentHash::of(css.as_bytes()).to_string();
    let snapshot = |extra: &str| {
        let json = format!(r#"{{"url":"http://x/","html":["HTML",{{}}]{extra}}}"#);
        Held {
            entry: 1,
            moment: Moment::After,
            page: 0,
            frame: 0,
            parent: None,
            index: None,
            time: 1.0,
            json: json.into(),
        }
    };
    let sheets = format!(r#","sheets":{{"{sha}":"{css}"}}"#);
    let bad = format!(
        r#","sheets":{{"{}":"q {{}}"}},"limits":["a sheet over 1 MiB"]"#,
        "0".repeat(64)
    );
    let written = file(
        vec![snapshot(&sheets), snapshot(&sheets), snapshot(&bad)],
        |_| Some(1),
        &Default::default(),
        &Default::default(),
    );
    assert_eq!(written.sheets, [css.as_bytes().to_vec()]);
    assert_eq!(written.limits.len(), 2, "{:?}", written.limits);
    assert_eq!(written.limits[0], "a sheet over 1 MiB");
    assert!(written.limits[1].contains("not its text's SHA-256"));
    let v: Value = serde_json::from_slice(&written.bytes).unwrap();
    assert_eq!(
        v["resources"],
        json!({ &sha: {"type": "text/css", "bytes": css.len(), "file": format!("../../trace-resources/{sha}.css")} })
    );
    assert!(v["snapshots"][0].get("sheets").is_none(), "{v:#}");
}
