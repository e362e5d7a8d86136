//! A step's trace in the report (issue 39, D16 of docs/design/trace.md): what
//! the run's page says of it ([`TraceView`]: that there is one, its entries
//! and failures) and the data script the page loads when the step is opened,
//! `data/traces/{slug}/{runId}/{step}.js` = `window.__hj.trace({...})` with the
//! step's `trace.json` and `trace-dom.json` as they are on disk (checked to be
//! JSON, never re-encoded), and the resources its snapshots name
//! (`RunDir::trace_resource`: stylesheets, images) inlined as `data:` URLs
//! (`resources`, D16). One script per step, loaded on demand: the
//! overview and the run's script never carry a trace.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::store::{RunDir, Store};

/// The trace's file in a step's evidence folder.
pub(crate) const TRACE_JSON: &str = "trace.json";
/// Its DOM snapshots, beside it.
pub(crate) const TRACE_DOM_JSON: &str = "trace-dom.json";
/// A step's data over this many bytes is left out of its script, which says
/// so instead (the page would hold it all in memory).
pub(crate) const SCRIPT_LIMIT: u64 = 8 * 1024 * 1024;
/// `report/data/traces`, beside `runs`.
pub(crate) const TRACES: &str = "traces";

/// A step's trace, as the run's page knows it before loading it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceView {
    /// Entries (actions, assertions, reads…), when `trace.json` could be read.
    pub entries: Option<usize>,
    /// Entries that failed.
    pub failed: Option<usize>,
    /// Whether the step has DOM snapshots (`trace-dom.json`).
    pub snapshots: bool,
    /// The step's evidence folder relative to the report's page, `/` at its
    /// end (a trace's own screenshot names are relative to it).
    pub evidence: String,
    /// Why the counts are missing (`trace.json` unreadable or too large).
    pub notice: Option<String>,
    /// The files the script is made of.
    #[serde(skip)]
    pub(crate) sources: Sources,
}

/// Where a step's trace files are.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sources {
    pub(crate) trace: PathBuf,
    pub(crate) dom: Option<PathBuf>,
}

/// Only what the counts need of `trace.json`.
#[derive(Deserialize)]
struct Counts {
    version: u32,
    entries: Vec<CountedEntry>,
}

#[derive(Deserialize)]
struct CountedEntry {
    outcome: CountedOutcome,
}

#[derive(Deserialize)]
struct CountedOutcome {
    status: String,
}

/// The view of a step whose evidence has `trace.json` at `trace` (linked as
/// `link` from the report's page), and `trace-dom.json` at `dom` if any.
pub(crate) fn view(store: &Store, trace: &Path, link: &str, dom: Option<&Path>) -> TraceView {
    let evidence = link
        .rsplit_once('/')
        .map_or_else(String::new, |(dir, _)| format!("{dir}/"));
    let size = store.metadata(trace).map(|m| m.len()).unwrap_or(0);
    let read = if size > SCRIPT_LIMIT {
        Err(format!(
            "trace.json is {}, over the report's {} MiB limit: read the file",
            mib(size),
            SCRIPT_LIMIT >> 20
        ))
    } else {
        store
            .read_file(trace)
            .map_err(|e| format!("trace.json could not be read: {e}"))
            .and_then(|b| {
                serde_json::from_slice::<Counts>(&b)
                    .map_err(|e| format!("trace.json is not a trace: {e}"))
            })
            .and_then(|c| {
                if c.version > harshjudge_browser::trace::TRACE_VERSION {
                    Err(format!(
                        "trace.json version {} is newer than this harshjudge",
                        c.version
                    ))
                } else {
                    Ok(c)
                }
            })
    };
    let (entries, failed, notice) = match read {
        Ok(c) => (
            Some(c.entries.len()),
            Some(
                c.entries
                    .iter()
                    .filter(|e| e.outcome.status == "failed")
                    .count(),
            ),
            None,
        ),
        Err(why) => (None, None, Some(why)),
    };
    TraceView {
        entries,
        failed,
        snapshots: dom.is_some(),
        evidence,
        notice,
        sources: Sources {
            trace: trace.to_path_buf(),
            dom: dom.map(Path::to_path_buf),
        },
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// `report/data/traces` of `store`.
pub(crate) fn scripts_dir(store: &Store) -> PathBuf {
    store
        .report_run_scripts()
        .parent()
        .map_or_else(|| store.report_run_scripts(), Path::to_path_buf)
        .join(TRACES)
}

/// `report/data/traces/{slug}/{runId}/{step}.js`.
pub(crate) fn script_path(store: &Store, slug: &str, run: &str, step: &str) -> PathBuf {
    scripts_dir(store)
        .join(slug)
        .join(run)
        .join(format!("{step}.js"))
}

/// What the resources of a step's snapshots may take of its script,
/// together (D16): past it, the rest are not inlined, and a notice says so.
pub(crate) const RESOURCES_LIMIT: u64 = 8 * 1024 * 1024;

/// Only the resources `trace-dom.json` names (the rest of it is skipped).
#[derive(Deserialize)]
struct DomResources {
    #[serde(default)]
    resources: std::collections::BTreeMap<String, DomResource>,
}

/// A resource as `trace-dom.json` names it: its MIME type (a stylesheet's
/// when absent, as the first files wrote it).
#[derive(Deserialize)]
struct DomResource {
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

/// The resources `trace-dom.json` (`dom`, its text) names that are on disk
/// beside its run, as `data:` URLs by their SHA-256, within
/// [`RESOURCES_LIMIT`]; what is left out said in `notices`.
fn resources(
    store: &Store,
    dom_path: &Path,
    dom: &str,
    notices: &mut Vec<String>,
) -> std::collections::BTreeMap<String, String> {
    use base64::Engine as _;
    let mut out = std::collections::BTreeMap::new();
    let Ok(named) = serde_json::from_str::<DomResources>(dom) else {
        return out;
    };
    let Some(evidence) = dom_path.parent() else {
        return out;
    };
    let mut room = RESOURCES_LIMIT;
    let mut left = Vec::new();
    for (sha, resource) in &named.resources {
        let Some(hash) = harshjudge_browser::trace::ContentHash::parse(sha) else {
            continue;
        };
        let ext =
            harshjudge_browser::trace::resource_ext(resource.kind.as_deref().unwrap_or("text/css"));
        let mime =
            harshjudge_browser::trace::resource_type(ext).unwrap_or("application/octet-stream");
        let Some(path) = RunDir::trace_resource_beside(evidence, &hash, ext) else {
            continue;
        };
        let size = store.metadata(&path).map(|m| m.len()).unwrap_or(0);
        let bytes = (size <= room)
            .then(|| store.read_file(&path).ok())
            .flatten();
        match bytes {
            Some(b) if b.len() as u64 <= room => {
                room -= b.len() as u64;
                let data = base64::engine::general_purpose::STANDARD.encode(&b);
                out.insert(sha.clone(), format!("data:{mime};base64,{data}"));
            }
            _ => left.push(format!("{sha:.12}…")),
        }
    }
    if !left.is_empty() {
        notices.push(format!(
            "{} resources of the snapshots (stylesheets, images) are not inlined (missing, or past the {} MiB a step's resources may take): {}",
            left.len(),
            RESOURCES_LIMIT >> 20,
            left.join(", ")
        ));
    }
    out
}

/// What the page's `window.__hj.trace` receives.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Script<'a> {
    slug: &'a str,
    run_id: &'a str,
    step: &'a str,
    trace: Option<&'a RawValue>,
    dom: Option<&'a RawValue>,
    /// The resources the snapshots name, as `data:` URLs by SHA-256.
    resources: std::collections::BTreeMap<String, String>,
    notices: Vec<String>,
}

/// The data script of a step's trace: its `trace.json` and `trace-dom.json`
/// (when present, readable JSON and within [`SCRIPT_LIMIT`] together; else a
/// notice says what was left out).
pub(crate) fn script(
    store: &Store,
    slug: &str,
    run: &str,
    step: &str,
    sources: &Sources,
) -> String {
    let mut notices = Vec::new();
    let mut room = SCRIPT_LIMIT;
    let mut take = |path: &Path, name: &str, notices: &mut Vec<String>| -> Option<String> {
        let size = store.metadata(path).map(|m| m.len()).unwrap_or(0);
        if size > room {
            notices.push(format!(
                "{name} ({}) is left out: a step's trace in the report is at most {} MiB; read the file",
                mib(size),
                SCRIPT_LIMIT >> 20
            ));
            return None;
        }
        let text = match store.read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                notices.push(format!("{name} could not be read: {e}"));
                return None;
            }
        };
        if let Err(e) = serde_json::from_str::<&RawValue>(&text) {
            notices.push(format!("{name} is not JSON: {e}"));
            return None;
        }
        room -= size;
        Some(text)
    };
    let trace = take(&sources.trace, TRACE_JSON, &mut notices);
    let dom = match (&trace, &sources.dom) {
        (Some(_), Some(dom)) => take(dom, TRACE_DOM_JSON, &mut notices),
        _ => None,
    };
    let resources = match (&dom, &sources.dom) {
        (Some(text), Some(path)) => resources(store, path, text, &mut notices),
        _ => Default::default(),
    };
    let raw = |t: &Option<String>| -> Option<Box<RawValue>> {
        t.as_deref()
            .and_then(|t| RawValue::from_string(t.trim().to_string()).ok())
    };
    let (trace, dom) = (raw(&trace), raw(&dom));
    let data = Script {
        slug,
        run_id: run,
        step,
        trace: trace.as_deref(),
        dom: dom.as_deref(),
        resources,
        notices,
    };
    super::call("trace", &data)
}

#[cfg(test)]
#[path = "trace_tests.rs"]
mod tests;
