//! The trace of a step: one entry per action, read, assertion, navigation,
//! keyboard or mouse call and script (the call as written, its source line,
//! start and end, outcome and call log), and the step's console and network
//! assigned to entries by time (`assign.rs`). A page records into the
//! [`Tracer`] of the scenario's attempt when it has one; without one every
//! hook is one `Option` check.
//!
//! One function opens an entry, `span`: the shared paths under every public
//! call (`Locator::run`, `Locator::pointer_action_within`, `expect`'s
//! assertion, the page's navigations), the composite actions (`press`,
//! `check`, `drag_to`: before their parts) and, through `page_span`, the
//! page's keyboard, mouse and scripts (`keyboard.rs`, `script.rs`; not when
//! harshjudge's own code calls them: `by_user`) call it. A span opened
//! inside another on the same task joins it (a task-local), so the outermost
//! call is the entry and the engine calls inside add their call logs to it.
//! A call that typed into a password field marks its span (`conceal`): its
//! arguments are written `"••••"`; declared secrets are masked when a call is
//! rendered.
//!
//! The page at each moment: the DOM snapshots of `dom.rs`, held for the
//! running step and written beside its `trace.json` as `trace-dom.json`,
//! with the stylesheets they carry and the images they draw (`images.rs`,
//! read back from the browser when the step keeps its trace) as the run's
//! resources; and when asked, a screenshot after each action (`shots.rs`,
//! `trace-NN.png`).

mod aria;
mod assign;
mod call;
pub(crate) mod dom;
pub mod format;
mod images;
mod shots;
mod targets;
#[cfg(test)]
mod tests;

pub use aria::trace_aria_snapshot;
pub(crate) use assign::assign;
pub(crate) use call::{of_action, of_request};
pub use format::*;

use std::future::Future;
use std::panic::Location;
use std::sync::{Arc, Mutex};

use futures_util::future::Either;

use super::Page;
use super::error::BrowserError;
use super::logs::{ConsoleEntry, NetworkEntry};
use super::protocol::{FrameScope, Traced};
use crate::settings::TraceMode;

/// What one attempt of a scenario records, decided once per attempt by the
/// harness from the trace mode and the attempt's number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tracing {
    /// Nothing: pages get no tracer.
    #[default]
    Off,
    /// Every executed step's trace is written (`on`; `on-first-retry`'s second attempt).
    Keep,
    /// Each step's trace is held until the step ends and written only when
    /// it failed (`retain-on-failure`).
    KeepIfFailed,
}

impl Tracing {
    /// What attempt `attempt` (1-based) of a scenario records under `mode`.
    pub fn for_attempt(mode: TraceMode, attempt: u32) -> Tracing {
        match mode {
            TraceMode::Off => Tracing::Off,
            TraceMode::On => Tracing::Keep,
            TraceMode::RetainOnFailure => Tracing::KeepIfFailed,
            TraceMode::OnFirstRetry if attempt == 2 => Tracing::Keep,
            TraceMode::OnFirstRetry => Tracing::Off,
        }
    }
}

/// What kind of call an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A locator action (click, fill, check, …).
    Action,
    /// A web-first assertion.
    Assertion,
    /// A locator read (text, count, state, box).
    Read,
    /// `goto`, `reload`, back, forward.
    Navigation,
    /// The page's keyboard and mouse (`page.keyboard().press("Enter")`).
    Input,
    /// JavaScript run in the page (`page.evaluate(…)`, `eval`, `wait_for_function`).
    Script,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Action => "action",
            Kind::Assertion => "assertion",
            Kind::Read => "read",
            Kind::Navigation => "navigation",
            Kind::Input => "input",
            Kind::Script => "script",
        }
    }
}

/// A call as the user wrote it, in parts; rendered when the trace is written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CallText {
    /// `{desc}.{method}({args})`: `page.get_by_label("Email").fill("ann@example.com")`.
    Locator {
        /// The locator's chain as written (`Locator.desc`).
        desc: String,
        /// The method.
        method: &'static str,
        /// Its arguments, written as Rust (`"milk"`, `MouseButton::Right`).
        args: String,
        /// Options chained after the call (`.button(MouseButton::Right)`).
        options: String,
    },
    /// `expect({desc}).{not().}{what}`.
    Expect {
        /// The locator's chain, or `page`.
        desc: String,
        /// `.not()`.
        not: bool,
        /// The matcher as written (`to_have_text("2 items")`).
        what: String,
    },
    /// `page.{method}({args})`: `page.goto("/items")`.
    Page {
        /// The method.
        method: &'static str,
        /// Its arguments, written as Rust.
        args: String,
    },
}

impl CallText {
    /// A locator method's call with its arguments written as Rust.
    pub(crate) fn locator(desc: &str, method: &'static str, args: String) -> CallText {
        CallText::Locator {
            desc: desc.to_string(),
            method,
            args,
            options: String::new(),
        }
    }

    /// The same call with its arguments written `"••••"`: what the trace
    /// keeps of a call that typed into a password field.
    fn concealed(self) -> CallText {
        match self {
            CallText::Locator {
                desc,
                method,
                options,
                ..
            } => CallText::Locator {
                desc,
                method,
                args: arg(CONCEALED),
                options,
            },
            CallText::Page { method, .. } => CallText::Page {
                method,
                args: arg(CONCEALED),
            },
            expect @ CallText::Expect { .. } => expect,
        }
    }

    /// The call as written, every declared secret masked in it
    /// (`fill("[secret:APP_PASSWORD]")`), as in every evidence file.
    pub(crate) fn render(&self) -> String {
        crate::secrets::mask(&self.render_unmasked()).into_owned()
    }

    fn render_unmasked(&self) -> String {
        match self {
            CallText::Locator {
                desc,
                method,
                args,
                options,
            } => format!("{desc}.{method}({args}){options}"),
            CallText::Expect { desc, not, what } => {
                format!("expect({desc}).{}{what}", if *not { "not()." } else { "" })
            }
            CallText::Page { method, args } => format!("page.{method}({args})"),
        }
    }
}

/// What the trace writes in place of the text a call typed into a password
/// field (never its length).
pub(crate) const CONCEALED: &str = "••••";

/// A string argument as Rust writes it (`"milk"`), so a call can be pasted back.
pub(crate) fn arg(s: &str) -> String {
    format!("{s:?}")
}

/// Now, in ms since the Unix epoch to 0.1 ms (the clock of console and
/// network entries).
pub fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| (d.as_secs_f64() * 10_000.0).round() / 10.0)
        .unwrap_or(0.0)
}

/// One entry being recorded or recorded.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// The order entries began in (times are 0.1 ms: two may tie).
    pub seq: u64,
    pub page: usize,
    /// The frame its locator is resolved in (none: the page's document).
    pub frame: Option<Arc<FrameScope>>,
    pub kind: Kind,
    pub call: CallText,
    pub at: &'static Location<'static>,
    pub start: f64,
    pub end: f64,
    /// `None`: ok; else the failure's kind and text.
    pub failure: Option<(&'static str, String)>,
    /// Ended by the step (its limit), not by itself.
    pub unfinished: bool,
    pub log: Vec<String>,
    /// The element an action acted on (its engine answer's `traced`).
    pub target: Option<Seen>,
}

/// An element an action's engine call answered (`traced`), and what the
/// step's end found of it.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    /// The locator the call was made on, as written (`Locator.desc`).
    pub desc: String,
    /// The frame it was resolved in.
    pub frame: Option<Arc<FrameScope>>,
    /// What the page answered.
    pub traced: Traced,
    /// Asked at the step's end: `Some(Some(locator))`, `Some(None)` when
    /// the element was gone; none when not asked (or no answer came).
    pub named: Option<Option<String>>,
}

impl Seen {
    fn written(&self) -> TraceTarget {
        let b = self.traced.bbox;
        TraceTarget {
            bbox: TraceBox {
                x: b.x,
                y: b.y,
                width: b.width,
                height: b.height,
            },
            locator: self.named.clone().flatten(),
            detached: matches!(self.named, Some(None)),
            style: self.traced.style.clone(),
        }
    }
}

/// A page the tracer knows: what `trace.json` says of it.
#[derive(Clone, Debug)]
struct PageInfo {
    browser: String,
    protocol: String,
    viewport: Option<(u32, u32)>,
    /// The page itself, for the snapshots a span takes when it ends
    /// (weak: the page holds the tracer).
    page: Option<Arc<dyn dom::SnapshotPage>>,
}

impl std::fmt::Debug for dyn dom::SnapshotPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SnapshotPage")
    }
}

#[derive(Default)]
struct State {
    step_started: f64,
    entries: Vec<Entry>,
    console: Vec<ConsoleEntry>,
    network: Vec<NetworkEntry>,
    /// Pages whose logs of this step were handed over.
    logs_from: Vec<usize>,
    pages: Vec<PageInfo>,
    /// What could not be recorded in this step (its file's `errors`).
    errors: Vec<String>,
    /// The step's DOM snapshots.
    snapshots: dom::Snapshots,
    /// Its screenshots after actions (`HARSHJUDGE_TRACE_SCREENSHOTS`).
    shots: shots::Shots,
    /// The images its snapshots draw, once read back (`images.rs`).
    images: images::StepImages,
}

/// What a step's end hands the store of its trace: `trace.json`, its DOM
/// snapshots (`trace-dom.json`), the screenshots after its actions and the
/// resources its snapshots name (each distinct stylesheet text once, the
/// images not stored before by this tracer).
#[derive(Debug, PartialEq)]
pub struct StepTrace {
    /// `trace.json`'s content.
    pub file: TraceFile,
    /// `trace-dom.json`'s bytes, when the step took snapshots.
    pub dom: Option<Vec<u8>>,
    /// Each kept screenshot: its evidence name (`trace-03`) and PNG bytes.
    pub shots: Vec<(String, Vec<u8>)>,
    /// The resources the snapshots name by their SHA-256, each with its
    /// extension (`runs/{id}/trace-resources/{sha256}.{ext}`): stylesheets
    /// (`css`) and images (`png`, …).
    pub resources: Vec<(&'static str, Vec<u8>)>,
}

/// The trace recorder of one attempt of a scenario: its pages record the
/// running step's entries into it; the runner takes them at the step's end.
pub struct Tracer {
    tracing: Tracing,
    mode: TraceMode,
    attempt: u32,
    /// A screenshot after each action (`HARSHJUDGE_TRACE_SCREENSHOTS=on`).
    screenshots: bool,
    state: Mutex<State>,
    /// The bodies of images read back so far (across steps).
    fetched: Mutex<images::Fetched>,
    /// The next entry's `seq`.
    begun: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Tracer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracer")
            .field("tracing", &self.tracing)
            .field("mode", &self.mode)
            .field("attempt", &self.attempt)
            .finish()
    }
}

impl Tracer {
    /// The tracer of an attempt that records as `tracing` says (none for
    /// `Off`); `mode` and `attempt` are what its files say of it;
    /// `screenshots`: a screenshot after each action.
    #[doc(hidden)]
    pub fn new(
        tracing: Tracing,
        mode: TraceMode,
        attempt: u32,
        screenshots: bool,
    ) -> Option<Arc<Tracer>> {
        (tracing != Tracing::Off).then(|| {
            Arc::new(Tracer {
                tracing,
                mode,
                attempt,
                screenshots,
                begun: Default::default(),
                fetched: Default::default(),
                state: Mutex::new(State {
                    step_started: now_ms(),
                    ..State::default()
                }),
            })
        })
    }

    /// The tracer of pages driven outside a scenario (the MCP server's
    /// browser tools): they record as attempt 1 of a scenario under `mode`
    /// does (none for `off`); `screenshots`: a screenshot after each action.
    /// Its steps are what [`end_step`](Self::end_step) and
    /// [`restart_step`](Self::restart_step) delimit.
    pub fn recording(mode: TraceMode, screenshots: bool) -> Option<Arc<Tracer>> {
        Tracer::new(Tracing::for_attempt(mode, 1), mode, 1, screenshots)
    }

    /// Forgets what the running step recorded so far and begins the next one
    /// now (what pages did outside any step).
    pub fn restart_step(&self) {
        let mut s = self.state();
        let pages = std::mem::take(&mut s.pages);
        *s = State {
            step_started: now_ms(),
            pages,
            ..State::default()
        };
    }

    /// The running step's calls (actions, assertions, reads, navigations,
    /// input, scripts) in the order they began: each as written (masked,
    /// a password's typing concealed) with its start and end (ms since the
    /// Unix epoch): what the run's video names over its frames.
    #[doc(hidden)]
    pub fn calls(&self) -> Vec<(String, f64, f64)> {
        let s = self.state();
        let mut entries: Vec<&Entry> = s.entries.iter().collect();
        entries.sort_by_key(|e| e.seq);
        entries
            .into_iter()
            .map(|e| (e.call.render(), e.start, e.end))
            .collect()
    }

    /// [`restart_step`](Self::restart_step) for the first step of another
    /// run: the images it stored were the last run's resources, so none
    /// counts as stored for this one.
    pub fn restart_run(&self) {
        self.restart_step();
        *self.fetched.lock().expect("tracer's bodies lock") = Default::default();
    }

    /// Ends step `step`'s trace (it `failed` or passed): its files when the
    /// tracer keeps such a step, else none; either way the next step begins.
    /// `pages` (none: the browser gave no answer, so nothing is asked of it)
    /// give what the trace still needs, each read within `limit`: the
    /// console and network no step boundary handed over (read from the
    /// step's start, left in place), the names of its targets, its images.
    pub async fn end_step(
        &self,
        step: &str,
        failed: bool,
        pages: Option<&[Page]>,
        limit: std::time::Duration,
    ) -> Option<StepTrace> {
        if let Some(pages) = pages.filter(|_| self.keeps(failed)) {
            let since = self.step_started().floor();
            for page in pages {
                let Some((_, i)) = page.tracer().filter(|(t, i)| !t.has_logs_of(*i)) else {
                    continue;
                };
                if let Ok(Ok((mut console, mut network))) =
                    tokio::time::timeout(limit, page.peek_logs(false)).await
                {
                    console.retain(|c| c.timestamp as f64 >= since);
                    network.retain(|r| r.started_at.is_some_and(|t| t >= since));
                    self.logs(*i, &console, &network);
                }
            }
            self.name_targets(pages, limit).await;
            self.read_images(pages, limit).await;
        }
        self.take_step_with_dom(step, failed)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("tracer lock")
    }

    /// Registers a page; its number (0-based: `p1` is 0).
    pub(crate) fn add_page(
        &self,
        browser: &str,
        protocol: &str,
        viewport: Option<(u32, u32)>,
    ) -> usize {
        let mut s = self.state();
        s.pages.push(PageInfo {
            browser: browser.to_string(),
            protocol: protocol.to_string(),
            viewport,
            page: None,
        });
        s.pages.len() - 1
    }

    /// Ties page number `n` to its page, whose spans then take snapshots.
    pub(crate) fn attach(&self, n: usize, page: Arc<dyn dom::SnapshotPage>) {
        if let Some(p) = self.state().pages.get_mut(n) {
            p.page = Some(page);
        }
    }

    /// Page number `n`'s handle, when attached.
    fn page_of(&self, n: usize) -> Option<Arc<dyn dom::SnapshotPage>> {
        self.state().pages.get(n)?.page.clone()
    }

    /// Holds the documents of one moment of entry `entry` (its `seq`) of
    /// page `page`; `cut`: the moment left documents out.
    fn hold(&self, entry: u64, moment: dom::Moment, page: usize, docs: Vec<dom::Doc>, cut: bool) {
        self.state().snapshots.hold(entry, moment, page, docs, cut);
    }

    fn push(&self, entry: Entry) {
        self.state().entries.push(entry);
    }

    /// The console and network a page's step boundary took: kept for the
    /// step's trace (assigned to entries when it is written).
    pub(crate) fn logs(&self, page: usize, console: &[ConsoleEntry], network: &[NetworkEntry]) {
        let mut s = self.state();
        s.console.extend_from_slice(console);
        s.network.extend_from_slice(network);
        if !s.logs_from.contains(&page) {
            s.logs_from.push(page);
        }
    }

    /// Whether page `page` handed this step's logs over already.
    pub(crate) fn has_logs_of(&self, page: usize) -> bool {
        self.state().logs_from.contains(&page)
    }

    /// When the running step began (ms since the Unix epoch).
    pub(crate) fn step_started(&self) -> f64 {
        self.state().step_started
    }

    /// Whether a step that `failed` (or passed) keeps its trace.
    pub(crate) fn keeps(&self, failed: bool) -> bool {
        match self.tracing {
            Tracing::Keep => true,
            Tracing::KeepIfFailed => failed,
            Tracing::Off => false,
        }
    }

    /// The running step's trace so far, as `step`'s file (no DOM
    /// snapshots), the step going on: what a pause writes, so that the
    /// trace it points to exists while the person looks. None when tracing
    /// is off or no page opened.
    #[doc(hidden)]
    pub fn step_so_far(&self, step: &str) -> Option<TraceFile> {
        let s = self.state();
        if matches!(self.tracing, Tracing::Off) || s.pages.is_empty() {
            return None;
        }
        let (started, pages, errors) = (s.step_started, s.pages.clone(), s.errors.clone());
        let (entries, console, network) = (s.entries.clone(), s.console.clone(), s.network.clone());
        drop(s);
        let mut file = self.file(step, started, now_ms(), &pages, entries, console, network);
        file.errors = errors;
        file.limits.push(
            "the step's trace so far, written as a pause began; the step's end replaces it when the step keeps its trace".into(),
        );
        Some(file)
    }

    /// Ends step `step`'s trace: its file when the step is to keep it (every
    /// step under `Keep`, a failed one under `KeepIfFailed`) and the scenario
    /// opened a page, else nothing;
    /// either way the next step starts empty.
    #[cfg(test)]
    pub(crate) fn take_step(&self, step: &str, failed: bool) -> Option<TraceFile> {
        self.take_step_with_dom(step, failed).map(|t| t.file)
    }

    /// `take_step`, with the step's `trace-dom.json`
    /// when it took snapshots (the entries' `snapshots` index it), its
    /// screenshots (the entries' `screenshot` name them) and stylesheets.
    pub fn take_step_with_dom(&self, step: &str, failed: bool) -> Option<StepTrace> {
        let mut s = self.state();
        let ended = now_ms();
        let started = std::mem::replace(&mut s.step_started, ended);
        let entries = std::mem::take(&mut s.entries);
        let console = std::mem::take(&mut s.console);
        let network = std::mem::take(&mut s.network);
        let errors = std::mem::take(&mut s.errors);
        let snapshots = std::mem::take(&mut s.snapshots);
        let shots = std::mem::take(&mut s.shots);
        let images = std::mem::take(&mut s.images);
        s.logs_from.clear();
        // A scenario that opened no page has nothing to trace.
        if !self.keeps(failed) || s.pages.is_empty() {
            return None;
        }
        let pages = s.pages.clone();
        drop(s);
        let mut seqs: Vec<u64> = entries.iter().map(|e| e.seq).collect();
        seqs.sort_unstable();
        let mut file = self.file(step, started, ended, &pages, entries, console, network);
        file.errors = errors;
        if snapshots.dropped > 0 {
            file.limits.push(format!(
                "{} DOM snapshots dropped: the step's snapshots passed the {} MiB it may hold (the latest are kept)",
                snapshots.dropped,
                dom::STEP_LIMIT >> 20
            ));
        }
        if snapshots.cut > 0 {
            file.limits.push(format!(
                "{} moments left frames out of their snapshots (at most 32 documents, 8 frames deep)",
                snapshots.cut
            ));
        }
        // Entries are numbered in the order they began (`seq`).
        let n_of = |seq: u64| seqs.binary_search(&seq).ok().map(|i| i as u32 + 1);
        let shots = Self::name_shots(&mut file, shots, n_of);
        if snapshots.held.is_empty() {
            return Some(StepTrace {
                file,
                dom: None,
                shots,
                resources: Vec::new(),
            });
        }
        let written = dom::file(snapshots.held, n_of, &images.map, &images.fonts);
        let (dom, indexes) = (written.bytes, written.indexes);
        file.limits.extend(written.limits);
        file.limits.extend(images.limits);
        for (seq, ix) in indexes {
            if let Some(e) = n_of(seq).and_then(|n| file.entries.get_mut(n as usize - 1)) {
                e.snapshots = Some(TraceSnapshots {
                    before: ix.before,
                    after: ix.after,
                    at: ix.at,
                });
            }
        }
        let sheets = written.sheets.into_iter().map(|css| ("css", css));
        Some(StepTrace {
            file,
            dom: Some(dom),
            shots,
            resources: sheets.chain(images.new).collect(),
        })
    }

    /// The screenshots of `file`'s entries (`n_of` numbers them by `seq`),
    /// each named in its entry, as evidence names and PNGs; the ones
    /// dropped or not taken said in the file.
    fn name_shots(
        file: &mut TraceFile,
        shots: shots::Shots,
        n_of: impl Fn(u64) -> Option<u32>,
    ) -> Vec<(String, Vec<u8>)> {
        if shots.dropped > 0 {
            file.limits.push(format!(
                "{} screenshots dropped: the step's screenshots passed the {} MiB it may hold (the latest are kept)",
                shots.dropped,
                shots::STEP_LIMIT >> 20
            ));
        }
        for (seq, why) in shots.failed {
            if let Some(n) = n_of(seq) {
                file.errors.push(format!(
                    "the screenshot after entry #{n} was not taken: {why}"
                ));
            }
        }
        let mut out = Vec::with_capacity(shots.held.len());
        for (seq, png) in shots.held {
            let Some(e) = n_of(seq).and_then(|n| file.entries.get_mut(n as usize - 1)) else {
                continue;
            };
            e.screenshot = Some(shots::file_name(e.n));
            out.push((shots::stem(e.n), png));
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn file(
        &self,
        step: &str,
        started: f64,
        ended: f64,
        pages: &[PageInfo],
        mut entries: Vec<Entry>,
        console: Vec<ConsoleEntry>,
        network: Vec<NetworkEntry>,
    ) -> TraceFile {
        entries.sort_by_key(|e| e.seq);
        let assigned = assign(&entries, &console, &network);
        let entries = entries
            .into_iter()
            .zip(assigned.entries)
            .enumerate()
            .map(|(i, (e, (console, network)))| TraceEntry {
                n: i as u32 + 1,
                kind: e.kind.as_str().to_string(),
                page: format!("p{}", e.page + 1),
                frame: e.frame.as_ref().map(|f| f.desc.clone()),
                call: e.call.render(),
                at: format!("{}:{}:{}", e.at.file(), e.at.line(), e.at.column()),
                start: e.start,
                end: e.end,
                outcome: outcome(e.failure, e.unfinished, e.log),
                console,
                network,
                target: e.target.as_ref().map(Seen::written),
                snapshots: None,
                screenshot: None,
            })
            .collect();
        TraceFile {
            version: TRACE_VERSION,
            step: step.to_string(),
            attempt: self.attempt,
            mode: self.mode.as_str().to_string(),
            started_at: started,
            ended_at: ended,
            pages: pages
                .iter()
                .enumerate()
                .map(|(i, p)| TracePage {
                    id: format!("p{}", i + 1),
                    browser: p.browser.clone(),
                    protocol: p.protocol.clone(),
                    viewport: p.viewport.map(|(w, h)| [w, h]),
                })
                .collect(),
            entries,
            between: TraceLogs {
                console: assigned.between.0,
                network: assigned.between.1,
            },
            limits: Vec::new(),
            errors: Vec::new(),
        }
    }
}

fn outcome(
    failure: Option<(&'static str, String)>,
    unfinished: bool,
    log: Vec<String>,
) -> TraceOutcome {
    let (status, kind, error) = match failure {
        _ if unfinished => (
            "unfinished",
            None,
            Some("the step ended before it did (its time limit, or the scenario's)".to_string()),
        ),
        None => ("ok", None, None),
        Some((kind, error)) => ("failed", Some(kind.to_string()), Some(error)),
    };
    TraceOutcome {
        status: status.into(),
        kind,
        error,
        log,
    }
}

/// The kind of a failure as `trace.json` names it.
pub(crate) fn failure_kind(e: &BrowserError) -> &'static str {
    match e {
        BrowserError::Timeout { .. } => "timeout",
        BrowserError::Strict { .. } => "strict",
        BrowserError::Assertion { .. } => "assertion",
        BrowserError::Invalid { .. }
        | BrowserError::NoBaseUrl { .. }
        | BrowserError::Setting { .. }
        | BrowserError::Emulation(_) => "invalid",
        BrowserError::Lost { .. } => "lost",
        BrowserError::NavigationInterrupted { .. } => "navigation-interrupted",
        BrowserError::Unsupported { .. } => "unsupported",
        _ => "command",
    }
}

/// The span open on this task: the call logs of the engine calls inside it.
#[derive(Default)]
struct Open {
    /// Its entry's `seq`.
    entry: u64,
    log: Mutex<Vec<String>>,
    /// The call typed into a password field: its arguments are not written.
    concealed: std::sync::atomic::AtomicBool,
    /// The elements its actions' engine calls answered, the latest of each
    /// locator (a pointer action retried answers once per attempt).
    targets: Mutex<Vec<Seen>>,
}

tokio::task_local! {
    static OPEN: Arc<Open>;
    static UNTRACED: ();
}

/// Runs `f` with no trace entries for the page calls it makes: a tool's own
/// bookkeeping (its evidence screenshots, its reads of the page's state),
/// not calls its user made.
pub async fn untraced<F: Future>(f: F) -> F::Output {
    UNTRACED.scope((), f).await
}

/// Whether this task runs [`untraced`].
pub(crate) fn is_untraced() -> bool {
    UNTRACED.try_with(|_| ()).is_ok()
}

/// Whether a span is open on this task (a call inside it joins it).
pub(crate) fn is_open() -> bool {
    OPEN.try_with(|_| ()).is_ok()
}

/// The `seq` of the entry open on this task, if any.
fn open_entry() -> Option<u64> {
    OPEN.try_with(|open| open.entry).ok()
}

/// Adds call-log lines to the span open on this task, if any (an engine
/// answer's log, a pointer action's retry).
pub(crate) fn note(lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let _ = OPEN.try_with(|open| {
        open.log
            .lock()
            .expect("span log lock")
            .extend_from_slice(lines)
    });
}

/// Marks the span open on this task, if any, as a call that typed into a
/// password field (or into a field that could not be told from one): its
/// entry writes its arguments `"••••"`.
pub(crate) fn conceal() {
    let _ = OPEN.try_with(|open| {
        open.concealed
            .store(true, std::sync::atomic::Ordering::Relaxed)
    });
}

/// Records, in the span open on this task if any, the element an action's
/// engine call on locator `desc` (in `frame`) answered: the entry's target.
pub(crate) fn target(desc: &str, frame: Option<&Arc<FrameScope>>, traced: Option<&Traced>) {
    let Some(traced) = traced else {
        return;
    };
    let _ = OPEN.try_with(|open| {
        let mut targets = open.targets.lock().expect("span targets lock");
        targets.retain(|t| t.desc != desc);
        targets.push(Seen {
            desc: desc.to_string(),
            frame: frame.cloned(),
            traced: traced.clone(),
            named: None,
        });
    });
}

/// The target of an entry made of `call`: of the elements its engine calls
/// answered, the one of the call's own locator (a `drag_to` also finds its
/// drop target), else the latest.
fn target_of(call: &CallText, mut seen: Vec<Seen>) -> Option<Seen> {
    let own = match call {
        CallText::Locator { desc, .. } => seen.iter().rposition(|t| &t.desc == desc),
        _ => None,
    };
    match own {
        Some(i) => Some(seen.swap_remove(i)),
        None => seen.pop(),
    }
}

/// Whether the keys of a `press` (`"a"`, `"Shift+A"`, `"Enter"`) type text:
/// one of its keys is a character, not a named key.
pub(crate) fn types_text(keys: &str) -> bool {
    keys == "+"
        || keys.ends_with("++")
        || keys
            .split('+')
            .any(|k| k.chars().count() == 1 || k == "Space")
}

/// Whether `at` is in a user's code, not in harshjudge's own: a call
/// harshjudge makes of its own public API (a screenshot's script, a popup's
/// polling, the runner's evidence) is no entry of the user's trace.
/// harshjudge's own code is this crate's `src/` and the `harshjudge` crate's
/// beside it.
pub(crate) fn by_user(at: &Location<'_>) -> bool {
    !own_file(file!(), at.file())
}

/// Whether `file` is in this crate's `src/` or in the `harshjudge` crate's
/// beside it, `this` being this file as rustc names it: relative in the
/// workspace (`harshjudge-browser/src/trace/mod.rs`, then
/// `harshjudge/src/…`), absolute from a registry
/// (`…/harshjudge-browser-0.1.0/src/trace/mod.rs`, then
/// `…/harshjudge-0.1.0/src/…`).
fn own_file(this: &str, file: &str) -> bool {
    const IN_SRC: &str = "/src/trace/mod.rs";
    let Some(root) = this.strip_suffix(IN_SRC) else {
        return false;
    };
    let (parent, folder) = match root.rfind('/') {
        Some(i) => root.split_at(i + 1),
        None => ("", root),
    };
    let runner = folder.replacen("harshjudge-browser", "harshjudge", 1);
    [folder, runner.as_str()].iter().any(|crate_folder| {
        file.strip_prefix(parent)
            .and_then(|rest| rest.strip_prefix(crate_folder))
            .is_some_and(|rest| rest.starts_with("/src/"))
    })
}

/// [`span`] for a call of the page itself, written `page.{method}({args})`
/// (`keyboard().press`, `evaluate`), when the user's code made it (see
/// [`by_user`]).
pub(crate) async fn page_span<T>(
    tracer: Option<&(Arc<Tracer>, usize)>,
    slow_mo: std::time::Duration,
    kind: Kind,
    method: &'static str,
    args: impl FnOnce() -> String,
    at: &'static Location<'static>,
    body: impl Future<Output = Result<T, BrowserError>>,
) -> Result<T, BrowserError> {
    let tracer = tracer.filter(|_| by_user(at));
    let call = move || CallText::Page {
        method,
        args: args(),
    };
    span(tracer, slow_mo, None, kind, call, at, body).await
}

/// An entry recorded when its call ends, or when its future is dropped
/// unfinished (the step's limit ended it).
struct Pending {
    tracer: Arc<Tracer>,
    open: Arc<Open>,
    entry: Option<Entry>,
}

impl Pending {
    /// Records the entry; its `seq`, kind and target's id when it had one
    /// to record.
    fn end(
        &mut self,
        failure: Option<(&'static str, String)>,
        unfinished: bool,
    ) -> Option<(u64, Kind, Option<String>)> {
        let mut entry = self.entry.take()?;
        entry.end = now_ms();
        entry.failure = failure;
        entry.unfinished = unfinished;
        entry.log = std::mem::take(&mut *self.open.log.lock().expect("span log lock"));
        let seen = std::mem::take(&mut *self.open.targets.lock().expect("span targets lock"));
        entry.target = target_of(&entry.call, seen);
        if self
            .open
            .concealed
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            entry.call = entry.call.concealed();
        }
        let ended = (
            entry.seq,
            entry.kind,
            entry.target.as_ref().map(|t| t.traced.id.clone()),
        );
        self.tracer.push(entry);
        Some(ended)
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let _ = self.end(None, true);
    }
}

/// Runs `body` as one entry of the step's trace when `tracer` is some (the
/// page's), and no span is open on this task already (then `body` joins
/// it); `call` is made only then. `frame`: the frame the call's locator is
/// resolved in (none: the page's document, or no locator). Without a
/// tracer: `body.await`. An action, navigation or input waits the page's
/// `slow_mo` first (`--slow-mo`, [`crate::watch::paced`]): every
/// action of a page passes here, traced or not.
pub(crate) async fn span<T>(
    tracer: Option<&(Arc<Tracer>, usize)>,
    slow_mo: std::time::Duration,
    frame: Option<&Arc<FrameScope>>,
    kind: Kind,
    call: impl FnOnce() -> CallText,
    at: &'static Location<'static>,
    body: impl Future<Output = Result<T, BrowserError>>,
) -> Result<T, BrowserError> {
    // `body` is awaited at one point only: each await of it would be a slot
    // of its own in this future's state, and spans nest (a `press` in a
    // step, a locator's call in the `press`), so a debug build's futures
    // grew until a test thread's stack overflowed.
    // Slow motion waits before actions, navigations and input; not reads
    // nor assertions.
    let paced = matches!(kind, Kind::Action | Kind::Navigation | Kind::Input);
    let body = if !slow_mo.is_zero() && paced {
        Either::Left(Box::pin(crate::watch::paced(slow_mo, body)))
    } else {
        Either::Right(body)
    };
    let mut pending = None;
    let run = match tracer {
        Some((tracer, page)) if OPEN.try_with(|_| ()).is_err() => {
            let seq = tracer
                .begun
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let open = Arc::new(Open {
                entry: seq,
                ..Open::default()
            });
            pending = Some(Pending {
                tracer: tracer.clone(),
                open: open.clone(),
                entry: Some(Entry {
                    seq,
                    page: *page,
                    frame: frame.cloned(),
                    kind,
                    call: call(),
                    at,
                    start: now_ms(),
                    end: 0.0,
                    failure: None,
                    unfinished: false,
                    log: Vec::new(),
                    target: None,
                }),
            });
            Either::Right(OPEN.scope(open, body))
        }
        _ => Either::Left(body),
    };
    let result = run.await;
    if let Some(mut pending) = pending {
        let failure = result
            .as_ref()
            .err()
            .map(|e| (failure_kind(e), e.to_string()));
        let ended = pending.end(failure, false);
        // The page after an action, a navigation or an input (D7), once its
        // entry is recorded: its time is not the call's. One engine call
        // per document, so only when every step's trace is kept (`on`):
        // under `retain-on-failure` a passing step pays no round trip for
        // its snapshots (those that ride on the calls made anyway, an act's
        // before and an assertion's last check, are taken). Boxed: see above.
        // Then its screenshot when asked (D14), in every mode that records:
        // held, and written only when the step keeps its trace.
        let acted = match (ended, tracer) {
            (
                Some((seq, Kind::Action | Kind::Navigation | Kind::Input, target)),
                Some((_, page)),
            ) => Some((seq, *page, target)),
            _ => None,
        };
        let t = &pending.tracer;
        if let Some((seq, page, target)) = acted
            && (t.tracing == Tracing::Keep || t.screenshots)
            && let Some(handle) = t.page_of(page)
        {
            if t.tracing == Tracing::Keep {
                handle.after(t, page, seq, target).await;
            }
            if t.screenshots {
                shots::after(&*handle, t, seq).await;
            }
        }
    }
    result
}
