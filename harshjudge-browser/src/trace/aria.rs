//! One DOM snapshot of a step's `trace-dom.json` as an ARIA snapshot (issue
//! 39, D18: what `getStepTrace` with `action` answers). The snapshot is
//! rebuilt by the report's renderer (`report/html/snapshot.js`, `hjrRender`:
//! scripts of the page removed, nothing fetched, its CSP first in `<head>`),
//! written as the document of a blank page (no sandboxed frame around it, so
//! the engine reads it as a page of its own), and `aria.js` runs there as on
//! a live page: the same roles and names, visibility from the recorded
//! styles. A child frame of the moment is a nested sandboxed `srcdoc` frame
//! (an opaque origin), so it shows as an `iframe` node without its content.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::super::error::{BrowserError, cmd_err};
use super::super::page::Page;

/// Where a snapshot of the list was taken: its page, entry, moment and
/// frame (the rest of it, the document's tree, is not read here: it may
/// nest deeper than a parsed JSON value may).
#[derive(Debug, Default, PartialEq, Deserialize)]
struct Place {
    page: Option<String>,
    entry: Option<u64>,
    moment: Option<String>,
    frame: Option<u64>,
}

impl Place {
    /// `snapshot`'s place; none of it when it is not an object of that shape.
    fn of(snapshot: &RawValue) -> Place {
        serde_json::from_str(snapshot.get()).unwrap_or_default()
    }

    /// Whether `self` is of the same moment as `other`: its page, entry and
    /// moment (the top document and its frames).
    fn same_moment(&self, other: &Place) -> bool {
        (&self.page, self.entry, &self.moment) == (&other.page, other.entry, &other.moment)
    }
}

/// The snapshots `hjrRender` needs to rebuild snapshot `index` of `list`:
/// those of its moment (its page, entry and moment: the top document and
/// its frames) and the earlier ones of the same documents (an incremental
/// snapshot refers back to them), in their order; and `index`'s place among
/// them. Every other snapshot of the step is left out (the list may hold
/// 24 MiB).
fn needed(list: &[Box<RawValue>], index: usize) -> (Vec<&RawValue>, usize) {
    if index >= list.len() {
        return (Vec::new(), 0);
    }
    let places: Vec<Place> = list.iter().map(|s| Place::of(s)).collect();
    let shown = &places[index];
    let frames: Vec<(&Option<String>, Option<u64>)> = places
        .iter()
        .filter(|p| p.same_moment(shown))
        .map(|p| (&p.page, p.frame))
        .collect();
    let mut kept = Vec::new();
    let mut at = 0;
    for (j, (s, p)) in list.iter().zip(&places).enumerate() {
        if j == index {
            at = kept.len();
        }
        if j == index || p.same_moment(shown) || (j < index && frames.contains(&(&p.page, p.frame)))
        {
            kept.push(&**s);
        }
    }
    (kept, at)
}

/// The ARIA snapshot (YAML, as [`Page::aria_snapshot`] gives it for a live
/// page) of snapshot `index` of `snapshots` (`trace-dom.json`'s list, each
/// as its JSON text: a document's tree may nest deeper than a parsed
/// `serde_json::Value` may), rebuilt by `renderer` (the report's,
/// `report::html::SNAPSHOT_RENDERER`: the browser layer does not reach up
/// to the report) in `page`: the page is taken to `about:blank` first and
/// is left showing the rebuilt document. A snapshot the list has as
/// `omitted` or `error` is rendered as the renderer's page saying so; the
/// caller tells those apart before.
pub async fn trace_aria_snapshot(
    page: &Page,
    renderer: &str,
    snapshots: &[Box<RawValue>],
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
        "(a) => {{\n{renderer}\nconst html = hjrRender(JSON.parse(a.snapshots), a.index, {{}});\n\
         document.open(); document.write(html); document.close(); return true; }}"
    );
    // The list as JSON text, parsed by the page: never a parsed value here.
    let texts: Vec<&str> = list.iter().map(|s| s.get()).collect();
    let arg = serde_json::json!({"snapshots": format!("[{}]", texts.join(",")), "index": at});
    let _: serde_json::Value = page.evaluate(&js, arg).await?;
    page.aria_snapshot().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn snap(page: &str, entry: u32, moment: &str, frame: u32) -> Box<RawValue> {
        let v = json!({"page": page, "entry": entry, "moment": moment, "frame": frame});
        RawValue::from_string(v.to_string()).unwrap()
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
        let kept: Vec<&str> = kept.into_iter().map(RawValue::get).collect();
        let of = |i: usize| list[i].get();
        assert_eq!(kept, [of(0), of(1), of(3), of(4)]);
        assert!(needed(&list, 6).0.is_empty());
    }
}
