//! The span's joining and costs, the step's file, the reader's version check.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::Location;
use std::sync::Arc;

use super::*;
use crate::trace::TraceReadError;

/// Counts the allocations of the current thread (this test binary's allocator).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is passed to the system allocator unchanged; the count
// is a thread-local integer (no allocation of its own).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, that is from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

fn tracer(tracing: Tracing) -> (Arc<Tracer>, usize) {
    let t = Tracer::new(tracing, TraceMode::On, 1, false).expect("a tracer");
    let n = t.add_page("chromium", "cdp", Some((1280, 720)));
    (t, n)
}

fn call(method: &'static str) -> CallText {
    CallText::locator("page.get_by_label(\"Name\")", method, String::new())
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

#[test]
fn off_costs_no_allocation_and_never_makes_the_call() {
    let rt = rt();
    rt.block_on(async {
        let at = Location::caller();
        let before = allocations();
        let v = span(
            None,
            std::time::Duration::ZERO,
            None,
            Kind::Action,
            || -> CallText { panic!("no call text without a tracer") },
            at,
            async { Ok::<_, BrowserError>(7) },
        )
        .await;
        let after = allocations();
        assert_eq!(v.unwrap(), 7);
        assert_eq!(after - before, 0, "span without a tracer allocated");
    });
}

#[test]
fn a_composite_action_is_one_entry_with_the_logs_of_its_parts() {
    let (t, n) = tracer(Tracing::Keep);
    let page = Some(&(t.clone(), n));
    rt().block_on(async {
        let at = Location::caller();
        // `press`: the focus act (an engine call with its log), then the keys.
        span(
            page,
            std::time::Duration::ZERO,
            None,
            Kind::Action,
            || call("press"),
            at,
            async {
                span(
                    page,
                    std::time::Duration::ZERO,
                    None,
                    Kind::Action,
                    || call("focus"),
                    at,
                    async {
                        note(&["waiting for the element to be visible".to_string()]);
                        Ok::<_, BrowserError>(())
                    },
                )
                .await?;
                note(&["pressing Enter".to_string()]);
                Ok(())
            },
        )
        .await
        .unwrap();
    });
    let file = t.take_step("01", false).expect("kept");
    assert_eq!(file.entries.len(), 1, "{:?}", file.entries);
    let e = &file.entries[0];
    assert_eq!(e.call, "page.get_by_label(\"Name\").press()");
    assert_eq!(
        e.outcome.log,
        ["waiting for the element to be visible", "pressing Enter"]
    );
    assert_eq!(e.outcome.status, "ok");
    assert!(
        e.at.starts_with("harshjudge-browser/src/trace/tests.rs:"),
        "{}",
        e.at
    );
    assert!(e.start <= e.end);
}

#[test]
fn two_calls_joined_on_one_task_are_two_overlapping_entries() {
    let (t, n) = tracer(Tracing::Keep);
    let page = Some(&(t.clone(), n));
    rt().block_on(async {
        let at = Location::caller();
        let slow = |method| {
            span(
                page,
                std::time::Duration::ZERO,
                None,
                Kind::Action,
                move || call(method),
                at,
                async move {
                    tokio::time::sleep(std::time::Duration::from_millis(30)).await;
                    note(&[format!("{method} done")]);
                    Ok::<_, BrowserError>(())
                },
            )
        };
        let (a, b) = tokio::join!(slow("click"), slow("dblclick"));
        a.unwrap();
        b.unwrap();
    });
    let file = t.take_step("01", false).expect("kept");
    let calls: Vec<_> = file.entries.iter().map(|e| e.call.as_str()).collect();
    assert_eq!(
        calls,
        [
            "page.get_by_label(\"Name\").click()",
            "page.get_by_label(\"Name\").dblclick()"
        ]
    );
    assert_eq!(file.entries[0].outcome.log, ["click done"]);
    assert_eq!(file.entries[1].outcome.log, ["dblclick done"]);
    assert!(file.entries[1].start < file.entries[0].end, "overlap");
}

#[test]
fn a_failure_names_its_kind_and_a_dropped_call_is_unfinished() {
    let (t, n) = tracer(Tracing::KeepIfFailed);
    let page = Some(&(t.clone(), n));
    rt().block_on(async {
        let at = Location::caller();
        let e = span(
            page,
            std::time::Duration::ZERO,
            None,
            Kind::Action,
            || call("click"),
            at,
            async {
                Err::<(), _>(BrowserError::Timeout {
                    locator: "page.get_by_label(\"Name\")".into(),
                    expected: "be clicked".into(),
                    found: "nothing".into(),
                    waited: std::time::Duration::from_secs(1),
                    location: None,
                })
            },
        )
        .await
        .unwrap_err();
        // The step's limit drops a call under way.
        let pending = span(
            page,
            std::time::Duration::ZERO,
            None,
            Kind::Action,
            || call("fill"),
            at,
            async { std::future::pending::<Result<(), BrowserError>>().await },
        );
        let _ = tokio::time::timeout(std::time::Duration::from_millis(5), pending).await;
        let file = t.take_step("02", true).expect("a failed step keeps it");
        let failed = &file.entries[0].outcome;
        assert_eq!(
            (failed.status.as_str(), failed.kind.as_deref()),
            ("failed", Some("timeout"))
        );
        assert_eq!(failed.error.as_deref(), Some(e.to_string().as_str()));
        assert_eq!(file.entries[1].outcome.status, "unfinished");
    });
}

#[test]
fn retain_on_failure_drops_a_passed_steps_entries() {
    let (t, n) = tracer(Tracing::KeepIfFailed);
    let page = Some(&(t.clone(), n));
    let one = |t: &Arc<Tracer>| {
        rt().block_on(async {
            span(
                page,
                std::time::Duration::ZERO,
                None,
                Kind::Read,
                || call("count"),
                Location::caller(),
                async { Ok::<_, BrowserError>(()) },
            )
            .await
            .unwrap();
        });
        t.keeps(false)
    };
    assert!(!one(&t));
    assert_eq!(t.take_step("01", false), None, "passed: dropped");
    one(&t);
    let file = t.take_step("02", true).expect("failed: kept");
    assert_eq!(file.entries.len(), 1, "only step 02's entry");
    assert_eq!(
        (file.step.as_str(), file.attempt, file.mode.as_str()),
        ("02", 1, "on")
    );
    assert_eq!(file.pages[0].id, "p1");
    assert_eq!(file.pages[0].viewport, Some([1280, 720]));
}

#[test]
fn modes_become_what_each_attempt_records() {
    use TraceMode::*;
    let of = |m, a| Tracing::for_attempt(m, a);
    assert_eq!([of(Off, 1), of(Off, 2)], [Tracing::Off; 2]);
    assert_eq!([of(On, 1), of(On, 3)], [Tracing::Keep; 2]);
    assert_eq!(of(RetainOnFailure, 1), Tracing::KeepIfFailed);
    assert_eq!(
        [
            of(OnFirstRetry, 1),
            of(OnFirstRetry, 2),
            of(OnFirstRetry, 3)
        ],
        [Tracing::Off, Tracing::Keep, Tracing::Off]
    );
    assert!(Tracer::new(Tracing::Off, Off, 1, false).is_none());
}

#[test]
fn a_scenario_without_a_page_writes_no_trace() {
    let t = Tracer::new(Tracing::Keep, TraceMode::On, 1, false).unwrap();
    assert_eq!(t.take_step("01", true), None);
    t.add_page("firefox", "webdriver-bidi", None);
    assert!(t.take_step("02", true).is_some());
}

#[test]
fn calls_render_as_written() {
    let expect = CallText::Expect {
        desc: "page.get_by_test_id(\"count\")".into(),
        not: true,
        what: "to_have_text(\"2 items\")".into(),
    };
    assert_eq!(
        expect.render(),
        "expect(page.get_by_test_id(\"count\")).not().to_have_text(\"2 items\")"
    );
    let goto = CallText::Page {
        method: "goto",
        args: arg("/items"),
    };
    assert_eq!(goto.render(), "page.goto(\"/items\")");
    let fill = CallText::locator("page.get_by_label(\"Email\")", "fill", arg("a\"b"));
    assert_eq!(
        fill.render(),
        "page.get_by_label(\"Email\").fill(\"a\\\"b\")"
    );
}

#[test]
fn a_newer_trace_file_is_refused_by_its_number() {
    let (t, _) = tracer(Tracing::Keep);
    let file = t.take_step("01", false).unwrap();
    let mut json = serde_json::to_value(&file).unwrap();
    let text = json.to_string();
    let read = TraceFile::read(&text).unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap(), json);
    json["version"] = 2.into();
    let e = TraceFile::read(&json.to_string()).unwrap_err();
    assert!(matches!(e, TraceReadError::Newer { found: 2 }));
    assert_eq!(
        e.to_string(),
        "trace.json version 2 is newer than this harshjudge (reads 1)"
    );
}

/// A call that typed into a password field keeps its method and options,
/// never its text; the span it joined is the one concealed.
#[test]
fn a_concealed_call_writes_its_arguments_as_dots() {
    let (t, n) = tracer(Tracing::Keep);
    let page = Some(&(t.clone(), n));
    rt().block_on(async {
        let at = Location::caller();
        let fill = || CallText::locator("page.get_by_label(\"Password\")", "fill", arg("hunter22"));
        span(
            page,
            std::time::Duration::ZERO,
            None,
            Kind::Action,
            fill,
            at,
            async {
                // The engine call inside joins the span; the check conceals it.
                span(
                    page,
                    std::time::Duration::ZERO,
                    None,
                    Kind::Action,
                    || call("focus"),
                    at,
                    async {
                        conceal();
                        Ok::<_, BrowserError>(())
                    },
                )
                .await
            },
        )
        .await
        .unwrap();
        let typed = || CallText::Page {
            method: "keyboard().type_text",
            args: arg("hunter22"),
        };
        span(
            page,
            std::time::Duration::ZERO,
            None,
            Kind::Input,
            typed,
            at,
            async {
                conceal();
                Ok::<_, BrowserError>(())
            },
        )
        .await
        .unwrap();
        let plain = || CallText::locator("page.get_by_label(\"User\")", "fill", arg("ann"));
        span(
            page,
            std::time::Duration::ZERO,
            None,
            Kind::Action,
            plain,
            at,
            async { Ok::<_, BrowserError>(()) },
        )
        .await
        .unwrap();
        // Outside a span: nothing to conceal, nothing happens.
        conceal();
    });
    let file = t.take_step("01", false).expect("kept");
    let calls: Vec<_> = file.entries.iter().map(|e| e.call.as_str()).collect();
    assert_eq!(
        calls,
        [
            "page.get_by_label(\"Password\").fill(\"••••\")",
            "page.keyboard().type_text(\"••••\")",
            "page.get_by_label(\"User\").fill(\"ann\")",
        ]
    );
    assert_eq!(file.entries[1].kind, "input");
    assert!(!serde_json::to_string(&file).unwrap().contains("hunter22"));
}

#[test]
fn the_keys_of_a_press_type_text_when_one_is_a_character() {
    for keys in ["a", "Shift+A", "+", "Control++", "Space", "é"] {
        assert!(types_text(keys), "{keys}");
    }
    for keys in [
        "Enter",
        "Tab",
        "Shift+Tab",
        "ArrowLeft",
        "F1",
        "Control+Shift+Delete",
    ] {
        assert!(!types_text(keys), "{keys}");
    }
}

/// harshjudge's own calls of its public API (a screenshot's script, a
/// popup's polling) are no entries: a page-level span made here records none.
#[test]
fn harshjudges_own_files_are_its_two_crates_sources() {
    for (this, file, own) in [
        (
            "harshjudge-browser/src/trace/mod.rs",
            "harshjudge-browser/src/page.rs",
            true,
        ),
        (
            "harshjudge-browser/src/trace/mod.rs",
            "harshjudge/src/runner/mod.rs",
            true,
        ),
        ("harshjudge-browser/src/trace/mod.rs", "tests/app.rs", false),
        (
            "harshjudge-browser/src/trace/mod.rs",
            "harshjudge-mcp/src/agent.rs",
            false,
        ),
        (
            "harshjudge-browser/src/trace/mod.rs",
            "harshjudge-browsers/src/x.rs",
            false,
        ),
        (
            "/r/harshjudge-browser-0.1.0/src/trace/mod.rs",
            "/r/harshjudge-0.1.0/src/evidence/mod.rs",
            true,
        ),
        (
            "/r/harshjudge-browser-0.1.0/src/trace/mod.rs",
            "/r/harshjudge-browser-0.1.0/src/locator/mod.rs",
            true,
        ),
        (
            "/r/harshjudge-browser-0.1.0/src/trace/mod.rs",
            "/r/other-1.0/src/lib.rs",
            false,
        ),
        (
            "/r/harshjudge-browser-0.1.0/src/trace/mod.rs",
            "/home/me/suite/src/harshjudge/x.rs",
            false,
        ),
    ] {
        assert_eq!(own_file(this, file), own, "{file} (this file: {this})");
    }
}

#[test]
fn a_call_from_harshjudge_itself_is_no_entry() {
    let here = Location::caller();
    assert!(!by_user(here), "{}", here.file());
    let (t, n) = tracer(Tracing::Keep);
    let page = Some(&(t.clone(), n));
    rt().block_on(async {
        page_span(
            page,
            std::time::Duration::ZERO,
            Kind::Script,
            "eval",
            || arg("1"),
            here,
            async { Ok::<_, BrowserError>(()) },
        )
        .await
        .unwrap();
    });
    assert_eq!(t.take_step("01", false).expect("kept").entries.len(), 0);
}

fn traced(id: &str, x: f64) -> crate::protocol::Traced {
    crate::protocol::Traced {
        id: id.into(),
        bbox: crate::protocol::Clip {
            x,
            y: 2.0,
            width: 3.0,
            height: 4.0,
        },
        style: None,
    }
}

/// An entry's target is the element its own locator's engine calls answered
/// last (a retried click answers once per attempt; a `drag_to` also finds
/// its drop target, which is not the entry's); not named yet, it is written
/// with its box alone; a file without `target` (older) still reads.
#[test]
fn an_entry_s_target_is_its_own_locator_s_latest_element() {
    let (t, n) = tracer(Tracing::Keep);
    let page = Some(&(t.clone(), n));
    rt().block_on(async {
        let at = Location::caller();
        let source = "page.get_by_label(\"Name\")";
        span(
            page,
            std::time::Duration::ZERO,
            None,
            Kind::Action,
            || call("drag_to"),
            at,
            async {
                target(source, None, Some(&traced("a:1", 10.0)));
                target(source, None, Some(&traced("a:2", 11.0)));
                target(
                    "page.get_by_text(\"Bin\")",
                    None,
                    Some(&traced("a:3", 99.0)),
                );
                target(source, None, None);
                Ok::<_, BrowserError>(())
            },
        )
        .await
        .unwrap();
        // Outside every span: nothing recorded, nothing panics.
        target(source, None, Some(&traced("a:4", 1.0)));
        span(
            page,
            std::time::Duration::ZERO,
            None,
            Kind::Read,
            || call("count"),
            at,
            async { Ok::<_, BrowserError>(()) },
        )
        .await
        .unwrap();
    });
    let file = t.take_step("01", false).unwrap();
    let json = serde_json::to_value(&file).unwrap();
    assert_eq!(
        json["entries"][0]["target"],
        serde_json::json!({"box": {"x": 11.0, "y": 2.0, "width": 3.0, "height": 4.0}, "detached": false})
    );
    assert!(json["entries"][1].get("target").is_none(), "{json}");
    let mut older = json.clone();
    older["entries"][0]
        .as_object_mut()
        .unwrap()
        .remove("target");
    let read = TraceFile::read(&older.to_string()).unwrap();
    assert_eq!(read.entries[0].target, None);

    // A target named at the step's end is written with its locator, or as
    // detached.
    let mut seen = Seen {
        desc: "page.get_by_label(\"Name\")".into(),
        frame: None,
        traced: traced("a:5", 1.0),
        named: Some(Some("get_by_role(\"button\").name(\"Save\")".into())),
    };
    let w = seen.written();
    assert_eq!(
        w.locator.as_deref(),
        Some("get_by_role(\"button\").name(\"Save\")")
    );
    assert!(!w.detached);
    seen.named = Some(None);
    let w = seen.written();
    assert_eq!((w.locator, w.detached), (None, true));
}

#[test]
fn an_entry_names_the_frame_its_locator_is_resolved_in() {
    let (t, n) = tracer(Tracing::Keep);
    let page = Some(&(t.clone(), n));
    let outer = Arc::new(FrameScope {
        parent: None,
        chain: Vec::new(),
        desc: "page.frame_locator(\"#outer\")".into(),
    });
    let inner = Arc::new(FrameScope {
        parent: Some(outer.clone()),
        chain: Vec::new(),
        desc: "page.frame_locator(\"#outer\").frame_locator(\"#inner\")".into(),
    });
    rt().block_on(async {
        let at = Location::caller();
        let ok = || async { Ok::<_, BrowserError>(()) };
        span(
            page,
            std::time::Duration::ZERO,
            None,
            Kind::Action,
            || call("click"),
            at,
            ok(),
        )
        .await
        .unwrap();
        span(
            page,
            std::time::Duration::ZERO,
            Some(&outer),
            Kind::Read,
            || call("count"),
            at,
            ok(),
        )
        .await
        .unwrap();
        span(
            page,
            std::time::Duration::ZERO,
            Some(&inner),
            Kind::Assertion,
            || call("fill"),
            at,
            ok(),
        )
        .await
        .unwrap();
    });
    let file = t.take_step("01-frames", false).expect("kept");
    let frames: Vec<Option<&str>> = file.entries.iter().map(|e| e.frame.as_deref()).collect();
    assert_eq!(
        frames,
        [
            None,
            Some("page.frame_locator(\"#outer\")"),
            Some("page.frame_locator(\"#outer\").frame_locator(\"#inner\")"),
        ]
    );
    let json = serde_json::to_value(&file).unwrap();
    assert_eq!(json["entries"][0]["frame"], serde_json::Value::Null);
    assert_eq!(
        json["entries"][1]["frame"],
        "page.frame_locator(\"#outer\")"
    );
}
