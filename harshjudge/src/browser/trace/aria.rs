//! One DOM snapshot of a step's `trace-dom.json` as an ARIA snapshot (issue
//! 39, D18: what `getStepTrace` with `action` answers). The snapshot is
//! rebuilt by the report's renderer (`report/html/snapshot.js`, `hjrRender`:
//! scripts of the page removed, nothing fetched, its CSP first in `<head>`),
//! written as the document of a blank page (no sandboxed frame around it, so
//! the engine reads it as a page of its own), and `aria.js` runs there as on
//! a live page: the same roles and names, visibility from the recorded
//! styles. A child frame of the moment is a nested sandboxed `srcdoc` frame
//! (an opaque origin), so it shows as an `iframe` node without its content.

use serde_json::Value;

use super::super::error::{BrowserError, cmd_err};
use super::super::page::Page;

/// The snapshots `hjrRender` needs to rebuild snapshot `index` of `list`:
/// those of its moment (its page, entry and moment: the top document and
/// its frames) and the earlier ones of the same documents (an incremental
/// snapshot refers back to them), in their order; and `index`'s place among
/// them. Every other snapshot of the step is left out (the list may hold
/// 24 MiB).
fn needed(list: &[Value], index: usize) -> (Vec<&Value>, usize) {
    let Some(shown) = list.get(index) else {
        return (Vec::new(), 0);
    };
    let frame = |s: &Value| (s.get("page").cloned(), s.get("frame").cloned());
    let of_moment = |s: &Value| {
        ["page", "entry", "moment"]
            .iter()
            .all(|k| s.get(k) == shown.get(k))
    };
    let frames: Vec<_> = list.iter().filter(|s| of_moment(s)).map(frame).collect();
    let mut kept = Vec::new();
    let mut at = 0;
    for (j, s) in list.iter().enumerate() {
        if j == index {
            at = kept.len();
        }
        if j == index || of_moment(s) || (j < index && frames.contains(&frame(s))) {
            kept.push(s);
        }
    }
    (kept, at)
}

/// The ARIA snapshot (YAML, as [`Page::aria_snapshot`] gives it for a live
/// page) of snapshot `index` of `snapshots` (`trace-dom.json`'s list),
/// rebuilt by `renderer` (the report's, `report::html::SNAPSHOT_RENDERER`:
/// the browser layer does not reach up to the report) in `page`: the page is taken to `about:blank` first and is left
/// showing the rebuilt document. A snapshot the list has as `omitted` or
/// `error` is rendered as the renderer's page saying so; the caller tells
/// those apart before.
pub async fn trace_aria_snapshot(
    page: &Page,
    renderer: &str,
    snapshots: &[Value],
    index: usize,
) -> Result<String, BrowserError> {
    let (list, at) = needed(snapshots, index);
    if list.is_empty() {
        return Err(cmd_err(
            "rebuilding a trace snapshot",
            format!(
                "no snapshot {index}: the list has {} (0 to {})",
                snapshots.len(),
                snapshots.len().saturating_sub(1)
            ),
        ));
    }
    page.goto("about:blank").await?;
    let js = format!(
        "(a) => {{\n{renderer}\nconst html = hjrRender(a.snapshots, a.index, {{}});\n\
         document.open(); document.write(html); document.close(); return true; }}"
    );
    let arg = serde_json::json!({"snapshots": list, "index": at});
    let _: Value = page.evaluate(&js, arg).await?;
    page.aria_snapshot().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn snap(page: &str, entry: u32, moment: &str, frame: u32) -> Value {
        json!({"page": page, "entry": entry, "moment": moment, "frame": frame})
    }

    #[test]
    fn keeps_the_moment_and_earlier_snapshots_of_its_documents() {
        let list = vec![
            snap("p1", 1, "before", 0), // same document, earlier: kept
            snap("p1", 1, "before", 1), // its frame, earlier: kept
            snap("p2", 1, "before", 0), // another page: left out
            snap("p1", 2, "after", 0),  // shown
            snap("p1", 2, "after", 1),  // its frame: kept
            snap("p1", 3, "before", 0), // later: left out
        ];
        let (kept, at) = needed(&list, 3);
        assert_eq!(at, 2);
        let kept: Vec<Value> = kept.into_iter().cloned().collect();
        assert_eq!(
            kept,
            vec![
                list[0].clone(),
                list[1].clone(),
                list[3].clone(),
                list[4].clone()
            ]
        );
        assert!(needed(&list, 6).0.is_empty());
    }
}
