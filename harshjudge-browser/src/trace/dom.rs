//! The DOM snapshots of a step's trace (D7, D8, D11 of docs/design/trace.md;
//! stage 3: full snapshots, no back-references). The page serialises a
//! document (`injected/snapshot.js`) and answers it as JSON text, held here
//! unparsed until the step's end, for the running step only.
//!
//! Moments: a traced `act` answers the snapshot of its document taken after
//! its element was resolved and found actionable, before it acted (the
//! entry's **before**), a traced `expect` the one of its last check (**at**);
//! `Page::call` completes either into the whole page ([`moment`]). An
//! action's, a navigation's and an input's span takes the **after** when it
//! ends ([`after`]). A moment is one snapshot per document: the top one
//! (frame 0) and each child frame's, found by the frame walk
//! (`backend/walk.rs`) with `iframe, frame` and nth, as the page numbers
//! them (`__hj_frame`); a page without frames costs no call of its own for
//! a before or an at.
//!
//! Limits (D11): a snapshot over 4 MiB is `{"omitted": "N MiB, over the 4
//! MiB limit"}`; past 24 MiB held in a step, its oldest snapshots are
//! dropped (`{"omitted": "dropped: …"}`), said in `trace.json`'s `limits`;
//! at most 32 documents a moment, 8 frames deep. A snapshot that could not
//! be taken is `{"error": "…"}`: never the action's failure (D15).

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{Tracer, now_ms};
use crate::backend::{AnyPage, PageBackend};
use crate::error::BrowserError;
use crate::protocol::{Call, EngineError, FrameScope, Request, Snapshotted, Step};
use crate::trace::ContentHash;

/// One snapshot's limit, in bytes of JSON.
pub(crate) const SNAPSHOT_LIMIT: usize = 4 << 20;
/// What a step may hold of snapshots, in bytes of JSON.
pub(crate) const STEP_LIMIT: usize = 24 << 20;
/// Documents (the top one and frames) snapshotted at one moment.
const MAX_DOCUMENTS: u32 = 32;
/// How deep the frame walk goes.
const MAX_DEPTH: usize = 8;
/// One snapshot call's limit.
const CALL_LIMIT: Duration = Duration::from_secs(5);
/// The version of `trace-dom.json`.
pub(crate) const DOM_VERSION: u32 = 1;

/// When a snapshot was taken, as `trace-dom.json` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Moment {
    /// Before an action acted.
    Before,
    /// After an action, a navigation or an input.
    After,
    /// At an assertion's last check.
    At,
}

impl Moment {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Moment::Before => "before",
            Moment::After => "after",
            Moment::At => "at",
        }
    }

    /// The moment a traced request's own snapshot is of: an `act`'s is its
    /// before, an `expect`'s its last check.
    pub(crate) fn of(request: &Request) -> Option<Moment> {
        match request {
            Request::Act { target, .. } if target.trace => Some(Moment::Before),
            Request::Expect { target, .. } if target.trace => Some(Moment::At),
            _ => None,
        }
    }
}

/// One document's snapshot at one moment of one entry, held until the
/// step's end.
#[derive(Clone, Debug)]
pub(crate) struct Held {
    /// The entry's `seq`.
    pub entry: u64,
    pub moment: Moment,
    pub page: usize,
    /// Its number in the moment: 0 the top document, then in walk order.
    pub frame: u32,
    /// The number of the document holding its frame.
    pub parent: Option<u32>,
    /// Its iframe's index among the parent's frames (its `__hj_frame`).
    pub index: Option<u32>,
    /// When it was taken (ms since the Unix epoch).
    pub time: f64,
    /// The page's JSON text (or ours: omitted, error).
    pub json: Box<str>,
}

/// One document's snapshot of a moment, as taken (before it is held).
#[derive(Clone, Debug)]
pub(crate) struct Doc {
    /// Its number in the moment (0: the top document).
    pub frame: u32,
    /// The number of the document holding its frame.
    pub parent: Option<u32>,
    /// Its iframe's index among the parent's frames.
    pub index: Option<u32>,
    /// When it was taken.
    pub time: f64,
    /// The page's JSON text.
    pub json: String,
}

/// The snapshot text for one past the limit.
fn bounded(json: String) -> Box<str> {
    if json.len() <= SNAPSHOT_LIMIT {
        return json.into_boxed_str();
    }
    let mib = json.len() as f64 / (1u64 << 20) as f64;
    serde_json::json!({ "omitted": format!("{mib:.1} MiB, over the 4 MiB limit") })
        .to_string()
        .into_boxed_str()
}

fn error_json(why: impl std::fmt::Display) -> String {
    serde_json::json!({ "error": why.to_string() }).to_string()
}

/// Why one document's snapshot could not be taken.
#[derive(Debug, thiserror::Error)]
enum Unsnapped {
    #[error("no answer within {0:?}")]
    NoAnswer(Duration),
    #[error("{0}")]
    Call(BrowserError),
    #[error("the engine answered {0:?}")]
    Engine(EngineError),
    #[error("the page answered a snapshot of another shape: {0}")]
    Shape(serde_json::Error),
}

/// A page the tracer takes its spans' after snapshots of, held without
/// keeping it open (`page.rs`'s `WeakPage`).
pub(crate) trait SnapshotPage: Send + Sync {
    /// [`after`] on the page, while it is open.
    fn after<'a>(
        &'a self,
        tracer: &'a Tracer,
        page: usize,
        entry: u64,
        target: Option<String>,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

    /// A PNG of the page's viewport (as the engine takes it: no entry of
    /// the trace), none when the page is closed.
    fn screenshot(&self) -> Screenshot<'_>;
}

/// A screenshot a [`SnapshotPage`] is taking: none when the page closed.
pub(crate) type Screenshot<'a> =
    Pin<Box<dyn Future<Output = Option<Result<Vec<u8>, BrowserError>>> + Send + 'a>>;

/// One document's snapshot asked of the page (`scope`: none for the top one).
async fn ask(
    page: &AnyPage,
    scope: Option<Arc<FrameScope>>,
    target: Option<&str>,
    skip: Option<&str>,
) -> Result<Snapshotted, Unsnapped> {
    let call = Call {
        request: Request::Snapshot {
            target: target.map(str::to_string),
            skip: skip.map(str::to_string),
            frame: scope.clone(),
        },
        timeout: 0,
    };
    let during = "taking a DOM snapshot for the trace";
    let answer = tokio::time::timeout(CALL_LIMIT, page.call_engine(scope.as_ref(), call, during))
        .await
        .map_err(|_| Unsnapped::NoAnswer(CALL_LIMIT))?
        .map_err(Unsnapped::Call)?;
    let value = answer.result.map_err(Unsnapped::Engine)?;
    serde_json::from_value(value).map_err(Unsnapped::Shape)
}

/// A document still to snapshot in a moment's walk.
struct Todo {
    scope: Option<Arc<FrameScope>>,
    number: u32,
    parent: Option<u32>,
    index: Option<u32>,
    depth: usize,
    /// Its snapshot, when the request that began the moment answered it.
    known: Option<Snapshotted>,
}

/// The documents of one moment: the top one, then each frame in walk
/// order. `first`: the snapshot a request answered of its own document,
/// the top one unless `in_frame` (then the walk asks every document, the
/// one of `first` answering without its snapshot: it is `first`'s).
/// `target`: the id of the element to mark. Also whether documents were
/// left out (past [`MAX_DOCUMENTS`] or [`MAX_DEPTH`]).
async fn round(
    page: &AnyPage,
    first: Option<Snapshotted>,
    in_frame: bool,
    target: Option<&str>,
) -> (Vec<Doc>, bool) {
    let (mut first, top) = if in_frame {
        (first, None)
    } else {
        (None, first)
    };
    let skip = first.as_ref().map(|f| f.doc.clone());
    let mut queue = VecDeque::from([Todo {
        scope: None,
        number: 0,
        parent: None,
        index: None,
        depth: 0,
        known: top,
    }]);
    let mut docs = Vec::new();
    let mut next = 1u32;
    let mut cut = false;
    while let Some(t) = queue.pop_front() {
        let (json, frames) = match t.known {
            Some(s) => (s.json, s.frames),
            None => match ask(page, t.scope.clone(), target, skip.as_deref()).await {
                Ok(s) => (s.json, s.frames),
                Err(e) => (Some(error_json(e)), 0),
            },
        };
        // Skipped: the document of `first`, taken already.
        let json = match json {
            Some(j) => j,
            None => first
                .take()
                .and_then(|f| f.json)
                .unwrap_or_else(|| error_json("the page answered no snapshot")),
        };
        docs.push(Doc {
            frame: t.number,
            parent: t.parent,
            index: t.index,
            time: now_ms(),
            json,
        });
        if frames > 0 && t.depth >= MAX_DEPTH {
            cut = true;
            continue;
        }
        for i in 0..frames {
            if next >= MAX_DOCUMENTS {
                cut = true;
                break;
            }
            let under = t.scope.as_ref().map_or("the page", |s| s.desc.as_str());
            let scope = FrameScope {
                parent: t.scope.clone(),
                chain: vec![
                    Step::Css {
                        sel: "iframe, frame".to_string(),
                    },
                    Step::Nth { i: i64::from(i) },
                ],
                desc: format!("frame {i} of {under}"),
            };
            queue.push_back(Todo {
                scope: Some(Arc::new(scope)),
                number: next,
                parent: Some(t.number),
                index: Some(i),
                depth: t.depth + 1,
                known: None,
            });
            next += 1;
        }
    }
    // Its frame was not met again (gone, navigated): kept, on its own.
    if let Some(json) = first.and_then(|f| f.json) {
        docs.push(Doc {
            frame: next,
            parent: None,
            index: None,
            time: now_ms(),
            json,
        });
    }
    (docs, cut)
}

/// Completes and holds the moment of the entry open on this task whose
/// engine call on `page` (number `n` of `tracer`), in `frame` (none: the
/// top document), answered `first`, its own document's snapshot. Nothing
/// without an open span.
pub(crate) async fn moment(
    page: &AnyPage,
    (tracer, n): &(Arc<Tracer>, usize),
    frame: Option<Arc<FrameScope>>,
    moment: Moment,
    first: Snapshotted,
) {
    let Some(entry) = super::open_entry() else {
        return;
    };
    let (docs, cut) = round(page, Some(first), frame.is_some(), None).await;
    tracer.hold(entry, moment, *n, docs, cut);
}

/// Takes and holds the after moment of entry `entry` of `page` (number `n`
/// of `tracer`), marking the element `target` names (a
/// [`crate::protocol::Traced`]'s id).
pub(crate) async fn after(
    page: &AnyPage,
    tracer: &Tracer,
    n: usize,
    entry: u64,
    target: Option<String>,
) {
    let (docs, cut) = round(page, None, false, target.as_deref()).await;
    tracer.hold(entry, Moment::After, n, docs, cut);
}

/// What the step holds of snapshots (the tracer's state).
#[derive(Default)]
pub(crate) struct Snapshots {
    pub held: Vec<Held>,
    /// Bytes of `held`'s texts.
    bytes: usize,
    /// The step dropped snapshots past [`STEP_LIMIT`].
    pub dropped: usize,
    /// Moments that left documents out.
    pub cut: usize,
}

const DROPPED: &str =
    r#"{"omitted":"dropped: the step's snapshots passed the 24 MiB it may hold"}"#;

impl Snapshots {
    /// Holds the documents of one moment of `entry` in place of any
    /// earlier ones of the same moment (a pointer action retried keeps its
    /// last attempt's), dropping the oldest past [`STEP_LIMIT`].
    pub(crate) fn hold(
        &mut self,
        entry: u64,
        moment: Moment,
        page: usize,
        docs: Vec<Doc>,
        cut: bool,
    ) {
        let mut freed = 0;
        self.held.retain(|h| {
            let same = h.entry == entry && h.moment == moment && h.page == page;
            if same {
                freed += h.json.len();
            }
            !same
        });
        self.bytes -= freed;
        self.cut += usize::from(cut);
        for d in docs {
            let json = bounded(d.json);
            self.bytes += json.len();
            self.held.push(Held {
                entry,
                moment,
                page,
                frame: d.frame,
                parent: d.parent,
                index: d.index,
                time: d.time,
                json,
            });
        }
        for h in &mut self.held {
            if self.bytes <= STEP_LIMIT {
                break;
            }
            if &*h.json != DROPPED {
                self.bytes -= h.json.len();
                h.json = DROPPED.into();
                self.bytes += DROPPED.len();
                self.dropped += 1;
            }
        }
    }
}

/// A document's snapshot as the page wrote it: the keys `trace-dom.json`
/// keeps, each as its JSON (any other key of the page's is left out).
#[derive(Deserialize)]
struct PageSnapshot {
    url: Option<Box<RawValue>>,
    viewport: Option<Box<RawValue>>,
    scroll: Option<Box<RawValue>>,
    doctype: Option<Box<RawValue>>,
    html: Option<Box<RawValue>>,
    cut: Option<Box<RawValue>>,
    omitted: Option<Box<RawValue>>,
    error: Option<Box<RawValue>>,
    /// The texts of the stylesheets its LINKs name (`__hj_sheet`), by the
    /// SHA-256 the page computed of each (checked here).
    #[serde(default)]
    sheets: BTreeMap<String, String>,
    /// What the page left out of it (a sheet over its limit).
    #[serde(default)]
    limits: Vec<String>,
}

/// An image's body stored as a resource (`images.rs` reads it back).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Kept {
    pub sha: ContentHash,
    /// Its extension (`png`).
    pub ext: &'static str,
    /// Its size.
    pub bytes: usize,
}

/// A resource of `trace-dom.json`'s `resources`.
#[derive(Serialize)]
struct Resource {
    r#type: &'static str,
    bytes: usize,
    /// Relative to the step's evidence folder.
    file: String,
}

/// One snapshot of `trace-dom.json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Written {
    entry: u32,
    moment: &'static str,
    page: String,
    frame: u32,
    parent_frame: Option<u32>,
    frame_index: Option<u32>,
    time: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    viewport: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scroll: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    doctype: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    html: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cut: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Box<RawValue>>,
}

#[derive(Serialize)]
struct DomFile<'a> {
    version: u32,
    snapshots: Vec<Written>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    resources: BTreeMap<String, Resource>,
    /// Each image URL the snapshots draw → the SHA-256 of its body among
    /// `resources`, null when it was not recorded (`images.rs`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    images: BTreeMap<&'a str, Option<&'a str>>,
    /// The same of the fonts the page loaded (`@font-face` URLs).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    fonts: BTreeMap<&'a str, Option<&'a str>>,
}

/// A step's `trace-dom.json` as [`file`] writes it.
pub(crate) struct DomWritten {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Each entry's (by `seq`) indexes in it.
    pub indexes: Vec<(u64, Indexes)>,
    /// What the snapshots left out, for `trace.json`'s `limits`.
    pub limits: Vec<String>,
    /// The distinct stylesheet texts the snapshots name (the run's
    /// `trace-resources/{sha256}.css`).
    pub sheets: Vec<Vec<u8>>,
}

/// Where an entry's moments are in `trace-dom.json`'s list: its top
/// document's snapshot of each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Indexes {
    pub before: Option<u32>,
    pub after: Option<u32>,
    pub at: Option<u32>,
}

/// `trace-dom.json`'s bytes of the snapshots `held` whose entry `n_of`
/// numbers (those of no kept entry are left out), each entry's indexes in
/// it (by `seq`), and the stylesheets they name. A sheet whose text is not
/// the SHA-256 it is named by is left out (its LINK shows unstyled), said
/// in the limits. `images` and `fonts`: what the images the snapshots draw
/// and the fonts the page loaded came to (`images.rs`), written as the
/// file's `images` and `fonts` and their resources.
pub(crate) fn file(
    held: Vec<Held>,
    n_of: impl Fn(u64) -> Option<u32>,
    images: &BTreeMap<String, Option<Kept>>,
    fonts: &BTreeMap<String, Option<Kept>>,
) -> DomWritten {
    let mut indexes: Vec<(u64, Indexes)> = Vec::new();
    let mut sheets: BTreeMap<String, String> = BTreeMap::new();
    let mut limits: Vec<String> = Vec::new();
    let mut snapshots = Vec::with_capacity(held.len());
    for h in held {
        let Some(n) = n_of(h.entry) else {
            continue;
        };
        let i = snapshots.len() as u32;
        if h.frame == 0 {
            let at = match indexes.iter().position(|(e, _)| *e == h.entry) {
                Some(at) => at,
                None => {
                    indexes.push((h.entry, Indexes::default()));
                    indexes.len() - 1
                }
            };
            let slot = &mut indexes[at].1;
            match h.moment {
                Moment::Before => slot.before = Some(i),
                Moment::After => slot.after = Some(i),
                Moment::At => slot.at = Some(i),
            }
        }
        let body = serde_json::from_str::<PageSnapshot>(&h.json).unwrap_or_else(|e| PageSnapshot {
            url: None,
            viewport: None,
            scroll: None,
            doctype: None,
            html: None,
            cut: None,
            omitted: None,
            error: serde_json::value::to_raw_value(&format!(
                "the page answered a snapshot that is not JSON of D8's shape: {e}"
            ))
            .ok(),
            sheets: BTreeMap::new(),
            limits: Vec::new(),
        });
        for l in body.limits {
            if !limits.contains(&l) && limits.len() < 32 {
                limits.push(l);
            }
        }
        for (sha, text) in body.sheets {
            if sheets.contains_key(&sha) {
                continue;
            }
            if ContentHash::of(text.as_bytes()).as_str() != sha {
                let why = format!(
                    "a stylesheet was left out: the page named it {sha:.12}…, not its text's SHA-256"
                );
                if !limits.contains(&why) {
                    limits.push(why);
                }
                continue;
            }
            sheets.insert(sha, text);
        }
        snapshots.push(Written {
            entry: n,
            moment: h.moment.as_str(),
            page: format!("p{}", h.page + 1),
            frame: h.frame,
            parent_frame: h.parent,
            frame_index: h.index,
            time: h.time,
            url: body.url,
            viewport: body.viewport,
            scroll: body.scroll,
            doctype: body.doctype,
            html: body.html,
            cut: body.cut,
            omitted: body.omitted,
            error: body.error,
        });
    }
    let mut resources: BTreeMap<String, Resource> = sheets
        .iter()
        .filter_map(|(sha, text)| {
            let hash = ContentHash::parse(sha)?;
            let file = crate::trace::resource_from_evidence(&hash, "css");
            let r#type = "text/css";
            Some((
                sha.clone(),
                Resource {
                    r#type,
                    bytes: text.len(),
                    file,
                },
            ))
        })
        .collect();
    for kept in images.values().chain(fonts.values()).flatten() {
        resources.insert(
            kept.sha.as_str().to_string(),
            Resource {
                r#type: crate::trace::resource_type(kept.ext).unwrap_or("application/octet-stream"),
                bytes: kept.bytes,
                file: crate::trace::resource_from_evidence(&kept.sha, kept.ext),
            },
        );
    }
    let bytes = serde_json::to_vec(&DomFile {
        version: DOM_VERSION,
        snapshots,
        resources,
        images: named(images),
        fonts: named(fonts),
    })
    .unwrap_or_else(|e| {
        serde_json::json!({"version": DOM_VERSION, "snapshots": [], "error": e.to_string()})
            .to_string()
            .into_bytes()
    });
    DomWritten {
        bytes,
        indexes,
        limits,
        sheets: sheets.into_values().map(String::into_bytes).collect(),
    }
}

/// A map of URLs to bodies as `trace-dom.json` writes it: URL → SHA-256.
fn named(map: &BTreeMap<String, Option<Kept>>) -> BTreeMap<&str, Option<&str>> {
    map.iter()
        .map(|(url, kept)| (url.as_str(), kept.as_ref().map(|k| k.sha.as_str())))
        .collect()
}

#[cfg(test)]
#[path = "dom_tests.rs"]
mod tests;
