//! The HTML report: one self-contained page (`report/index.html`, no CDN, no
//! server) over data scripts written next to it: `data/overview.js` (every
//! scenario with a summarised history) and `data/runs/{slug}/{runId}.js` (one
//! run's steps and evidence, loaded on demand). Evidence is linked by relative
//! path (`../scenarios/…`), so the whole `.harshJudge/` folder can be uploaded
//! as a CI artifact and opened from disk. The live dashboard serves the same
//! page and builds the same scripts on request.
//!
//! A traced step has a script of its own, `data/traces/{slug}/{runId}/{step}.js`
//! (its `trace.json` and `trace-dom.json`), loaded when the step is opened.
//!
//! Data scripts are JavaScript calls (`window.__hj.overview({...})`) rather than
//! JSON because a page opened from `file://` may load scripts but not fetch files.

mod model;
mod trace;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::report::junit::{InvocationError, NotRunRef};
use crate::report::reads::Reads;
use crate::store::{RunId, Slug, Store, StoreError};

pub use model::{HISTORY, Overview, RunView};

/// The page: markup, style and script in one file (the renderer and the
/// timeline are put into its script where it names them).
const PAGE: &str = include_str!("page.html");

/// The timeline of a traced step (`timeline.js`): functions of the page's
/// script, put inside it.
const TIMELINE: &str = include_str!("timeline.js");

/// Where `page.html`'s script takes [`SNAPSHOT_RENDERER`] and [`TIMELINE`].
const RENDERER_SLOT: &str = "/*hj:renderer*/";
const TIMELINE_SLOT: &str = "/*hj:timeline*/";

/// The page with its scripts in place.
fn page() -> String {
    PAGE.replacen(RENDERER_SLOT, SNAPSHOT_RENDERER, 1)
        .replacen(TIMELINE_SLOT, TIMELINE, 1)
}

/// The snapshot renderer (`snapshot.js`, D16 of docs/design/trace.md):
/// `hjrRender(snapshots, index, resources)` gives the HTML of one DOM
/// snapshot of a step's `trace-dom.json`, for an `<iframe
/// sandbox="allow-scripts" srcdoc>`: back-references resolved, form state
/// and scroll restored by one nonced script, the target outlined, child
/// frames nested the same way, nothing fetched (resources as `data:` URLs,
/// every other URL dropped) and no script of the page run (a CSP first in
/// its head). Inlinable in a `<script>` element.
pub const SNAPSHOT_RENDERER: &str = include_str!("snapshot.js");

/// What [`write()`] did.
#[derive(Clone, Debug)]
pub struct ReportStats {
    /// `report/index.html`.
    pub index: PathBuf,
    /// Scenarios in the overview.
    pub scenarios: usize,
    /// Runs with a page.
    pub runs: usize,
    /// Run scripts (re)written this time (the others were up to date).
    pub run_pages_written: usize,
    /// Trace scripts (one per traced step) (re)written this time.
    pub trace_scripts_written: usize,
    /// Size of `data/overview.js` in bytes.
    pub overview_bytes: usize,
}

/// Writes (or refreshes) the report of the project whose `.harshJudge/` folder is
/// `store_dir`. Run scripts are rewritten only when their run changed since; the
/// scripts of runs that fell out of the history are removed.
pub fn write(store_dir: &Path) -> Result<ReportStats, StoreError> {
    write_with(store_dir, &[])
}

/// [`write()`], for an invocation that selected scenarios it did not run
/// (`skip`, `fixme`, `--max-failures`): each shows as skipped or not run with
/// its reason, a scenario that never ran included.
pub fn write_with(store_dir: &Path, not_run: &[NotRunRef]) -> Result<ReportStats, StoreError> {
    let store = Store::new(store_dir);
    write_from(&Reads::new(&store), not_run, &[])
}

/// [`write_with`], reading through `reads` (what the publication's other
/// reports read, and the results a harness process holds). `errors`: what
/// ended or failed processes of the invocation outside any scenario, said at
/// the top of `index.html` (as are the runs whose `result.json` is empty).
pub(crate) fn write_from(
    reads: &Reads<'_>,
    not_run: &[NotRunRef],
    errors: &[InvocationError],
) -> Result<ReportStats, StoreError> {
    let store = reads.store();
    let overview = model::overview(reads, not_run)?;
    let mut written = 0;
    let mut traces_written = 0;
    let mut runs = 0;
    let mut keep: HashSet<PathBuf> = HashSet::new();
    let mut keep_traces: HashSet<PathBuf> = HashSet::new();
    for s in &overview.scenarios {
        let slug = Slug::new(s.slug.clone())?;
        for h in &s.history {
            let run = RunId::new(h.id.clone())?;
            let target = store.report_run_script(&slug, &run);
            keep.insert(target.clone());
            keep_traces.insert(
                trace::scripts_dir(store)
                    .join(slug.as_str())
                    .join(run.as_str()),
            );
            runs += 1;
            let source = store.scenario(&slug).run(&run).result_path();
            if is_fresh(store, &target, &source) {
                continue;
            }
            if let Some(view) = model::run_view(reads, &slug, &run)? {
                store.write_file(&target, call("run", &view).as_bytes())?;
                written += 1;
                traces_written += write_traces(store, &view)?;
            }
        }
    }
    prune(store, &store.report_run_scripts(), &keep);
    prune(store, &trace::scripts_dir(store), &keep_traces);
    let overview_js = call("overview", &overview);
    store.write_file(&store.report_overview_script(), overview_js.as_bytes())?;
    let index = store.report_index();
    let page = page().replacen(NOTICES, &notices(errors, &store.empty_results()), 1);
    store.write_file(&index, page.as_bytes())?;
    Ok(ReportStats {
        index,
        scenarios: overview.scenarios.len(),
        runs,
        run_pages_written: written,
        trace_scripts_written: traces_written,
        overview_bytes: overview_js.len(),
    })
}

/// Writes the trace script of each traced step of `view` whose files are
/// newer than it; how many it wrote.
fn write_traces(store: &Store, view: &RunView) -> Result<usize, StoreError> {
    let mut written = 0;
    for step in &view.steps {
        let Some(t) = &step.trace else {
            continue;
        };
        let target = trace::script_path(store, &view.slug, &view.run_id, &step.id);
        let fresh = is_fresh(store, &target, &t.sources.trace)
            && t.sources
                .dom
                .as_ref()
                .is_none_or(|dom| is_fresh(store, &target, dom));
        if fresh {
            continue;
        }
        let js = trace::script(store, &view.slug, &view.run_id, &step.id, &t.sources);
        store.write_file(&target, js.as_bytes())?;
        written += 1;
    }
    Ok(written)
}

/// Where `index.html` says what went wrong outside the runs.
const NOTICES: &str = "<!--hj:notices-->";

/// The notices at the top of `index.html`, written into the page itself (read
/// without scripts, and by whoever greps the file): each invocation error
/// (the invocation failed, and why: the rows below are earlier runs), and each
/// run passed over for an empty `result.json`. Empty when there is none.
fn notices(errors: &[InvocationError], empty: &[crate::store::EmptyResult]) -> String {
    use crate::report::junit::escape;
    if errors.is_empty() && empty.is_empty() {
        return String::new();
    }
    let mut out = String::from("<div class=\"notices\" id=\"notices\">");
    for e in errors {
        let what = match e.stage.as_str() {
            "start" => "stopped before running any scenario",
            "before_all" => "failed in its before_all hook: no scenario ran",
            "after_all" => "failed in its after_all hook",
            _ => "failed",
        };
        out.push_str(&format!(
            "<div class=\"notice invocation-error\"><b>This invocation of {} failed</b> ({}, {}): it {what}; the scenarios below show earlier runs.<pre>{}</pre></div>",
            escape(&e.binary),
            escape(&e.stage),
            escape(&e.at),
            escape(&e.message)
        ));
    }
    for e in empty {
        out.push_str(&format!(
            "<div class=\"notice warn empty-result\">{}</div>",
            escape(&e.to_string())
        ));
    }
    out.push_str("</div>");
    out
}

/// The report page itself (the same bytes [`write()`] puts in `report/index.html`
/// when there is nothing to notice).
pub fn index_html() -> String {
    page().replacen(NOTICES, "", 1)
}

/// What the live dashboard's `data/overview.js` says about the data it carries.
#[derive(Clone, Debug, serde::Serialize)]
struct Live {
    /// The [`stamp`] the data was read at: taken *before* the data, so a change
    /// that lands while the data is read gives a later stamp, never a missed one.
    stamp: String,
}

/// `data/overview.js` of the live dashboard: `window.__hj.overview({...},
/// {"stamp": "…"})`. The page compares `/api/stamp` against the data's own
/// stamp, so a change between this script and the page's first poll is seen.
pub fn overview_js(store_dir: &Path) -> Result<String, StoreError> {
    let store = Store::new(store_dir);
    let live = Live {
        stamp: stamp(store_dir)?,
    };
    let overview = model::overview(&Reads::new(&store), &[])?;
    Ok(format!(
        "window.__hj.overview({}, {});\n",
        inert(&overview),
        inert(&live)
    ))
}

/// `data/runs/{slug}/{runId}.js`: `window.__hj.run({...})`, or `None` when there
/// is no such run. The ids are validated (an invalid one is an error, never a path).
pub fn run_js(store_dir: &Path, slug: &str, run_id: &str) -> Result<Option<String>, StoreError> {
    let store = Store::new(store_dir);
    let slug = Slug::new(slug)?;
    let run = RunId::new(run_id)?;
    Ok(model::run_view(&Reads::new(&store), &slug, &run)?.map(|v| call("run", &v)))
}

/// `data/traces/{slug}/{runId}/{step}.js`: `window.__hj.trace({...})`, or
/// `None` when the run or step has no trace. The ids are validated.
pub fn trace_js(
    store_dir: &Path,
    slug: &str,
    run_id: &str,
    step: &str,
) -> Result<Option<String>, StoreError> {
    let store = Store::new(store_dir);
    let slug = Slug::new(slug)?;
    let run = RunId::new(run_id)?;
    let Some(view) = model::run_view(&Reads::new(&store), &slug, &run)? else {
        return Ok(None);
    };
    Ok(view
        .steps
        .iter()
        .find(|s| s.id == step)
        .and_then(|s| s.trace.as_ref())
        .map(|t| trace::script(&store, slug.as_str(), run.as_str(), step, &t.sources)))
}

/// A token that changes whenever a run or scenario of the project changes
/// (a run starts, a step completes, a run ends, a scenario is edited): the
/// dashboard's page polls it.
pub fn stamp(store_dir: &Path) -> Result<String, StoreError> {
    let store = Store::new(store_dir);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    let mtime = |p: &Path| -> u128 {
        store
            .metadata(p)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos())
    };
    for slug in store.list_scenarios()? {
        mix(slug.as_str().as_bytes());
        mix(&mtime(&store.scenario(&slug).meta_path()).to_le_bytes());
        let runs_dir = store.scenario(&slug).runs_dir();
        mix(&mtime(&runs_dir).to_le_bytes());
        // Only the newest runs change; older ones are final.
        for run in model::recent_runs(&store, &slug, 3)? {
            mix(run.as_str().as_bytes());
            mix(&mtime(&store.scenario(&slug).run(&run).result_path()).to_le_bytes());
        }
    }
    Ok(format!("{h:016x}"))
}

fn call<T: serde::Serialize>(what: &str, v: &T) -> String {
    format!("window.__hj.{what}({});\n", inert(v))
}

/// `v` as JSON that stays data when inlined: `</script>` cannot occur in a
/// separate script file, but someone may inline it.
fn inert<T: serde::Serialize>(v: &T) -> String {
    let json = serde_json::to_string(v).expect("report data serializes");
    json.replace("</", "<\\/").replace('\u{2028}', "\\u2028")
}

fn is_fresh(store: &Store, target: &Path, source: &Path) -> bool {
    let modified = |p: &Path| store.metadata(p).and_then(|m| m.modified()).ok();
    matches!((modified(target), modified(source)), (Some(t), Some(s)) if t > s)
}

/// Removes what `dir/{slug}/` holds but `keep` does not: files (run
/// scripts), or the files of folders (a run's trace scripts).
fn prune(store: &Store, dir: &Path, keep: &HashSet<PathBuf>) {
    let Ok(slugs) = store.read_dir(dir) else {
        return;
    };
    for s in slugs.flatten() {
        let Ok(files) = store.read_dir(&s.path()) else {
            continue;
        };
        for f in files.flatten() {
            let path = f.path();
            if keep.contains(&path) {
                continue;
            }
            if f.file_type().is_ok_and(|t| t.is_dir()) {
                if let Ok(inner) = store.read_dir(&path) {
                    for g in inner.flatten() {
                        let _ = store.remove_file(&g.path());
                    }
                }
            } else {
                let _ = store.remove_file(&path);
            }
        }
    }
}

#[cfg(test)]
mod tests;
