//! `browser_snapshot` on the demo app's TodoMVC page in real headless
//! Chromium (in process, through the dispatcher the server uses; the page
//! served by this test's own 127.0.0.1 server): every node with its text and
//! its place in the tree, in full and in the changes-only form, and the same
//! lines alone, in a `run_steps` brief and in its detail. The agent's way:
//! find the checkbox of "feed the cat" and read the counter from the page,
//! knowing no test id in advance.

use std::io::{Read, Write};

use harshjudge_mcp::{Context, call};
use serde_json::{Value, json};

/// Serves the demo app's TodoMVC page at `/todos.html` on 127.0.0.1.
fn serve() -> String {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/demo-app/src/static/todos.html"),
    )
    .unwrap();
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).to_string();
            let (status, body) = if req.starts_with("GET /todos.html ") {
                ("200 OK", page.as_str())
            } else {
                ("404 Not Found", "no")
            };
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}")
}

fn ok(ctx: &Context, tool: &str, args: Value) -> Value {
    let out = call(ctx, tool, Some(args.clone()));
    assert!(!out.is_error(), "{tool} {args} failed: {}", out.value);
    out.value
}

/// What a model reads of a call's result (the server's lean text).
fn read(ctx: &Context, tool: &str, args: Value) -> String {
    let value = ok(ctx, tool, args);
    harshjudge_mcp::tools::lean::text(ctx, tool, &value)
        .unwrap_or_else(|| panic!("{tool}: no lean text for {value}"))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The lines of the node at `lines[start]` and of every node inside it (the
/// lines indented deeper below it).
fn block<'a>(lines: &[&'a str], start: usize) -> Vec<&'a str> {
    let depth = indent(lines[start]);
    std::iter::once(lines[start])
        .chain(
            lines[start + 1..]
                .iter()
                .take_while(|l| indent(l) > depth)
                .copied(),
        )
        .collect()
}

/// The list item that holds `title`, as an agent finds it: the listitem
/// whose block holds the title's text.
fn item_of<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = text.lines().collect();
    (0..lines.len())
        .filter(|&i| lines[i].trim_start().starts_with("- listitem "))
        .map(|i| block(&lines, i))
        .find(|b| b.iter().skip(1).any(|l| l.contains(title)))
        .unwrap_or_else(|| panic!("no listitem holds {title:?} in:\n{text}"))
}

fn ref_of(line: &str) -> &str {
    line.split("[ref=")
        .nth(1)
        .and_then(|r| r.split(']').next())
        .unwrap_or_else(|| panic!("no ref in {line:?}"))
}

/// The counter's line: the node whose text says how many items are left.
fn counter(text: &str) -> &str {
    text.lines()
        .find(|l| l.contains("left"))
        .unwrap_or_else(|| panic!("no counter in:\n{text}"))
}

#[test]
fn the_snapshot_gives_each_node_its_text_and_place_alone_and_in_a_batch() {
    let base = serve();
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    ok(
        &ctx,
        "browser_navigate",
        json!({"url": format!("{base}/todos.html")}),
    );
    let first = read(&ctx, "browser_snapshot", json!({}));
    let input = first
        .lines()
        .find(|l| l.contains("- textbox \"What needs to be done?\""))
        .unwrap_or_else(|| panic!("the new-todo field:\n{first}"));
    for t in ["buy milk", "feed the cat", "walk the dog"] {
        ok(
            &ctx,
            "browser_type",
            json!({"ref": ref_of(input), "text": t, "submit": true}),
        );
    }

    // In full: each item's title nested under its listitem, beside its
    // checkbox; the counter's text.
    let full = read(&ctx, "browser_snapshot", json!({"full": true}));
    for t in ["buy milk", "feed the cat", "walk the dog"] {
        let item = item_of(&full, t);
        let head = item[0];
        assert!(head.ends_with(':'), "a listitem holds its nodes: {head}");
        assert!(head.contains("[testid=todo-item]"), "{head}");
        let title = item.iter().find(|l| l.contains(t)).unwrap();
        assert!(
            indent(title) > indent(head) && title.contains("[testid=todo-title]"),
            "the title is nested under its listitem:\n{}",
            item.join("\n")
        );
        assert!(
            item.iter()
                .any(|l| l.trim_start().starts_with("- checkbox [ref=")
                    && indent(l) > indent(head)),
            "its checkbox is in it:\n{}",
            item.join("\n")
        );
    }
    assert!(
        counter(&full).contains("[testid=todo-count]: 3 items left"),
        "{full}"
    );
    assert!(
        full.contains("- heading \"todos\" [level=1] [ref="),
        "{full}"
    );
    assert!(full.contains("- link \"Active\" [ref="), "{full}");

    // The agent's task: complete "feed the cat" by the checkbox in its item.
    let item = item_of(&full, "feed the cat");
    let toggle = item
        .iter()
        .find(|l| l.contains("- checkbox"))
        .unwrap()
        .to_string();
    let clicked = ok(&ctx, "browser_click", json!({"ref": ref_of(&toggle)}));
    assert!(
        clicked["locator"]
            .as_str()
            .unwrap()
            .contains("feed the cat"),
        "{clicked}"
    );

    // Changes only: what changed, each under the nodes it is in.
    let changes = read(&ctx, "browser_snapshot", json!({}));
    assert!(changes.contains("- note: changes only"), "{changes}");
    assert!(
        counter(&changes).contains("2 items left"),
        "the counter changed:\n{changes}"
    );
    let item = item_of(&changes, "feed the cat");
    assert!(
        item.iter()
            .any(|l| l.contains("- checkbox [checked] [ref=") && indent(l) > indent(item[0])),
        "the checked box under its item:\n{changes}"
    );
    let list = changes
        .lines()
        .position(|l| l.trim_start().starts_with("- list "))
        .expect("the list the items are in");
    let at = changes
        .lines()
        .position(|l| l.contains("feed the cat"))
        .unwrap();
    assert!(
        list < at,
        "the item keeps its place in the list:\n{changes}"
    );

    // The same lines in a batch as alone: in brief and in detail.
    let alone = read(&ctx, "browser_snapshot", json!({"full": true}));
    let brief = read(
        &ctx,
        "run_steps",
        json!({"steps": [
            {"tool": "browser_expect", "args": {"assertion": "to_have_title", "expected": "Todos"}},
            {"tool": "browser_snapshot", "args": {"full": true}},
        ]}),
    );
    assert!(
        brief.contains("2 ok browser_snapshot\n"),
        "the call's line:\n{brief}"
    );
    let in_brief = brief.split("2 ok browser_snapshot\n").nth(1).unwrap();
    assert_eq!(in_brief, alone, "the snapshot in a brief is the tool's own");
    let detail = ok(
        &ctx,
        "run_steps",
        json!({"detail": true, "steps": [{"tool": "browser_snapshot", "args": {"full": true}}]}),
    );
    let in_detail = detail["steps"][0]["result"]["snapshot"]
        .as_str()
        .unwrap_or_else(|| panic!("{detail}"));
    assert_eq!(in_detail, alone, "the snapshot in detail is the tool's own");
    assert!(item_of(in_detail, "walk the dog").len() >= 3, "{in_detail}");

    // A batch's snapshot of an unchanged page is changes-only, as alone.
    let brief = read(
        &ctx,
        "run_steps",
        json!({"steps": [{"tool": "browser_snapshot"}]}),
    );
    assert!(
        brief.ends_with("- note: nothing changed (full: true for all)\n"),
        "{brief}"
    );
    ok(&ctx, "browser_close", json!({}));
}
