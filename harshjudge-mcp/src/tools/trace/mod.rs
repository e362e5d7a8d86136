//! `getStepTrace` (and the CLI's `trace`): a step's `trace.json` as compact
//! lines, one per entry, for an agent to read what happened inside the step
//! (`docs/design/trace.md`, D18). The file is read through the store (ids
//! validated by their types, no link followed out of `.harshJudge/`); a step
//! without one is `NOT_FOUND` with the reason when it can be told.

use std::fmt::Write as _;

use harshjudge_browser::trace::{TraceEntry, TraceFile, TraceLogs, TraceRequest};
use harshjudge_store::store::{RunId, RunResult, RunStatus, Slug, StepId, StepStatus, Store};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::scenario::existing;
use crate::context::Context;
use crate::error::{Code, ToolError};

mod aria;

/// A step's trace in its evidence.
const TRACE_FILE: &str = "trace.json";
/// What the store writer leaves when a step's trace could not be written.
const TRACE_ERROR_FILE: &str = "trace-error.txt";
/// Entries given in full; past it the first [`HEAD`] and the last
/// `MAX_LINES - HEAD` are, with every failed one between.
const MAX_LINES: usize = 100;
/// Entries kept from the start of a long trace.
const HEAD: usize = 20;
/// A call longer than this many characters is cut.
const MAX_CALL: usize = 200;
/// A failure's text: its first line, up to this many characters.
const MAX_ERROR: usize = 300;
/// A console line or a URL: up to this many characters.
const MAX_TEXT: usize = 160;
/// Failed requests, and console errors, named per line (the rest counted).
const MAX_NAMED: usize = 3;

/// Arguments of `getStepTrace`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetStepTrace {
    /// The run; omitted: the newest run of scenarioSlug.
    #[serde(default)]
    pub run_id: Option<RunId>,
    /// The scenario (with no runId: its newest run).
    #[serde(default)]
    pub scenario_slug: Option<Slug>,
    /// The step's number, 1-based (3 for step 03).
    #[schemars(range(min = 1, max = 99))]
    pub step: u64,
    /// An entry's number (#n of the lines): instead of the lines, the page
    /// at that moment as an ARIA snapshot (YAML), rebuilt from the step's
    /// trace-dom.json in a headless browser.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub action: Option<u64>,
    /// With action, which of its snapshots: before (it acted), after (it
    /// ended) or at (an assertion's last check). Default: after, else the one
    /// the entry has.
    #[serde(default)]
    pub moment: Option<Moment>,
}

/// One of an entry's snapshots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Moment {
    /// Before it acted.
    Before,
    /// After it ended.
    After,
    /// At an assertion's last check.
    At,
}

impl Moment {
    /// Its name: `before`, `after`, `at`.
    pub fn as_str(self) -> &'static str {
        match self {
            Moment::Before => "before",
            Moment::After => "after",
            Moment::At => "at",
        }
    }
}

/// What `getStepTrace` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepTrace {
    /// The scenario.
    pub scenario_slug: String,
    /// The run.
    pub run_id: String,
    /// The step, "01"…
    pub step: String,
    /// The attempt of the scenario the run was (1, then 2… for retries).
    pub attempt: u32,
    /// The trace mode it was recorded under.
    pub mode: String,
    /// `trace.json`, relative to the project.
    pub path: String,
    /// The trace as lines: a header, one line per entry, then what happened
    /// between entries and what was cut (what a model reads).
    pub text: String,
    /// The entries the lines show, as `trace.json` has them (call logs included).
    pub entries: Vec<TraceEntry>,
    /// Entries of the file the lines leave out (over the limit of 100).
    pub left_out: usize,
    /// With action: the moment shown (before, after or at).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moment: Option<Moment>,
    /// With action: the page at that moment as an ARIA snapshot (YAML, cut
    /// as `text` says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aria: Option<String>,
}

crate::plain_output!(StepTrace);

/// The run an agent named: `runId` (checked against `scenarioSlug` when
/// both are given), else the newest run of `scenarioSlug`.
fn run_of(
    store: &Store,
    run: Option<RunId>,
    slug: Option<Slug>,
) -> Result<(Slug, RunId), ToolError> {
    let missing = |id: &RunId| {
        ToolError::not_found(format!(
            "Run \"{id}\" does not exist. List a scenario's runs with getStatus(scenarioSlug)."
        ))
    };
    match (run, slug) {
        (Some(id), Some(slug)) => {
            existing(store, &slug)?;
            match store.find_run(&id)? {
                Some(s) if s == slug => Ok((slug, id)),
                Some(other) => Err(ToolError::not_found(format!(
                    "Run \"{id}\" is a run of scenario \"{other}\", not of \"{slug}\"."
                ))),
                None => Err(missing(&id)),
            }
        }
        (Some(id), None) => match store.find_run(&id)? {
            Some(slug) => Ok((slug, id)),
            None => Err(missing(&id)),
        },
        (None, Some(slug)) => {
            existing(store, &slug)?;
            let id = store.scenario(&slug).runs()?.pop().ok_or_else(|| {
                ToolError::not_found(format!(
                    "Scenario \"{slug}\" has no runs yet; run it (cargo test) first."
                ))
            })?;
            Ok((slug, id))
        }
        (None, None) => Err(ToolError::invalid(
            "give runId, or scenarioSlug for its newest run",
        )),
    }
}

/// A step's trace as lines.
pub fn get_step_trace(ctx: &Context, a: GetStepTrace) -> Result<StepTrace, ToolError> {
    let store = ctx.require_init()?;
    if !(1..=99).contains(&a.step) {
        return Err(ToolError::invalid(format!(
            "step must be a number from 1 to 99 (got {})",
            a.step
        )));
    }
    if a.moment.is_some() && a.action.is_none() {
        return Err(ToolError::invalid(
            "moment needs action: the entry (#n of the lines) whose snapshot to show",
        ));
    }
    let step = StepId::from_index(a.step as usize)?;
    let (slug, id) = run_of(store, a.run_id, a.scenario_slug)?;
    let run = store.scenario(&slug).run(&id);
    let result = run.result()?;
    let dirs = run.steps()?;
    let planned = store.scenario(&slug).meta()?.map_or(0, |m| m.steps.len());
    let recorded = result.as_ref().map_or(0, |r| r.steps.len());
    let known = dirs.contains(&step)
        || result
            .as_ref()
            .is_some_and(|r| r.steps.iter().any(|s| s.id == step.as_str()))
        || step.number() <= planned;
    if !known {
        let last = planned
            .max(recorded)
            .max(dirs.last().map_or(0, StepId::number));
        return Err(ToolError::not_found(if last == 0 {
            format!("Run \"{id}\" of scenario \"{slug}\" has no steps, so no step {step}.")
        } else {
            format!(
                "Run \"{id}\" of scenario \"{slug}\" has no step {step}: its steps are 01 to {last:02}."
            )
        }));
    }
    let evidence = run.step(&step).evidence();
    let path = evidence.join(TRACE_FILE);
    let Some(bytes) = store.read_if_present(&path)? else {
        let why = no_trace_reason(store, &slug, &id, &step, result.as_ref(), &dirs)?;
        return Err(ToolError::not_found(format!(
            "step {step} of run {id} ({slug}) has no trace: {why}"
        )));
    };
    let file = std::str::from_utf8(&bytes)
        .map_err(|e| e.to_string())
        .and_then(|text| TraceFile::read(text).map_err(|e| e.to_string()))
        .map_err(|e| ToolError::new(Code::Corrupt, format!("{}: {e}", ctx.rel(&path))))?;
    if let Some(n) = a.action {
        let at = Where {
            slug: &slug,
            id: &id,
            step: &step,
        };
        return aria::action_snapshot(ctx, &file, &at, n, a.moment);
    }
    let path = ctx.rel(&path);
    let (text, shown, left_out) = render(&file, &slug, &id, &path);
    Ok(StepTrace {
        scenario_slug: slug.to_string(),
        run_id: id.to_string(),
        step: step.to_string(),
        attempt: file.attempt,
        mode: file.mode.clone(),
        path,
        text,
        entries: shown.into_iter().cloned().collect(),
        left_out,
        moment: None,
        aria: None,
    })
}

/// The step a trace is of.
struct Where<'a> {
    pub slug: &'a Slug,
    pub id: &'a RunId,
    pub step: &'a StepId,
}

/// Why a step of a run has no `trace.json`, as far as the run tells it.
fn no_trace_reason(
    store: &Store,
    slug: &Slug,
    id: &RunId,
    step: &StepId,
    result: Option<&RunResult>,
    dirs: &[StepId],
) -> Result<String, ToolError> {
    let run = store.scenario(slug).run(id);
    let error = run.step(step).evidence().join(TRACE_ERROR_FILE);
    if let Some(bytes) = store.read_if_present(&error)? {
        let text = String::from_utf8_lossy(&bytes);
        return Ok(format!(
            "its trace could not be written ({TRACE_ERROR_FILE}: {})",
            cut(first_line(&text), MAX_ERROR)
        ));
    }
    let status = result.and_then(|r| r.steps.iter().find(|s| s.id == step.as_str()));
    let status = match status {
        Some(s) => s.executed(),
        None if result.is_some_and(|r| r.status == RunStatus::Running) => {
            return Ok("it has not run yet (the run is still running)".into());
        }
        None => return Ok("it did not run (the run ended before it)".into()),
    };
    if status == StepStatus::Skipped {
        return Ok("it was skipped (a skipped step has no trace)".into());
    }
    // What the run's other traces say of its mode.
    let mut traced = None;
    for other in dirs.iter().filter(|d| *d != step) {
        let path = run.step(other).evidence().join(TRACE_FILE);
        if let Ok(Some(bytes)) = store.read_if_present(&path)
            && let Ok(file) = TraceFile::read(&String::from_utf8_lossy(&bytes))
        {
            traced = Some((other.clone(), file.mode));
            break;
        }
    }
    Ok(match (traced, status) {
        (Some((_, mode)), StepStatus::Pass) if mode == "retain-on-failure" => {
            "it passed under retain-on-failure (only a failed step keeps its trace; HARSHJUDGE_TRACE=on keeps every step's)".into()
        }
        (Some((other, _)), _) if other.number() > step.number() => format!(
            "it ended before the scenario opened a page (step {other} has a trace; a step before the first page has none)"
        ),
        (Some((other, mode)), _) => format!(
            "none was written for it though step {other} of this run has one (mode {mode}); a step that used no page has none"
        ),
        (None, StepStatus::Pass) => "it passed, and no step of this run has a trace: under retain-on-failure (the default) only a failed step keeps its trace; HARSHJUDGE_TRACE=on (or `-- --trace on`, #[scenario(trace = \"on\")]) traces every step".into(),
        (None, _) => "no step of this run has a trace: it ran with tracing off (HARSHJUDGE_TRACE=off, or on-first-retry on a first attempt), was recorded through the MCP tools (their runs have no trace yet), or its scenario opened no page".into(),
    })
}

/// The first line of `text`.
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("").trim_end()
}

/// `text` cut to `max` characters, an ellipsis marking the cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Seconds with milliseconds: `1.203s`.
fn secs(ms: f64) -> String {
    format!("{:.3}s", ms.max(0.0) / 1000.0)
}

/// A URL as a line shows it: its path and query when it is http(s), cut.
fn short_url(url: &str) -> String {
    let shown = match url::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => match u.query() {
            Some(q) => format!("{}?{q}", u.path()),
            None => u.path().to_string(),
        },
        _ => url.to_string(),
    };
    cut(&shown, MAX_TEXT)
}

/// A request that failed: an HTTP error status, or no answer.
fn failed(r: &TraceRequest) -> bool {
    r.failure.is_some() || r.status.is_some_and(|s| s >= 400)
}

/// What was cut from the lines, said once at their end.
#[derive(Default)]
struct Cuts {
    calls: usize,
    errors: usize,
    named: usize,
    entries: Vec<String>,
}

impl Cuts {
    fn line(&self) -> Option<String> {
        let mut said = Vec::new();
        if !self.entries.is_empty() {
            said.push(format!(
                "entries left out: {} (failed ones are always kept)",
                self.entries.join(", ")
            ));
        }
        if self.calls > 0 {
            said.push(format!(
                "calls cut to {MAX_CALL} characters: {}",
                self.calls
            ));
        }
        if self.errors > 0 {
            said.push(format!(
                "failure texts cut to their first line (at most {MAX_ERROR} characters): {}",
                self.errors
            ));
        }
        if self.named > 0 {
            said.push(format!(
                "failed requests and console errors past {MAX_NAMED} a line, counted only: {}",
                self.named
            ));
        }
        (!said.is_empty()).then(|| format!("cut: {}; the file has it all", said.join("; ")))
    }
}

/// A line's failed requests and console errors (`POST /api/items 500`,
/// `console error "…"`; at most [`MAX_NAMED`] of each, the rest counted).
fn named(logs: &TraceLogs, cuts: &mut Cuts) -> Vec<String> {
    let mut out = Vec::new();
    let bad: Vec<&TraceRequest> = logs.network.iter().filter(|r| failed(r)).collect();
    for r in bad.iter().take(MAX_NAMED) {
        let end = match (&r.failure, r.status) {
            (Some(f), _) => format!("failed {}", cut(first_line(f), MAX_TEXT)),
            (None, Some(s)) => s.to_string(),
            (None, None) => "no answer".into(),
        };
        out.push(format!("{} {} {end}", r.method, short_url(&r.url)));
    }
    let errors: Vec<_> = logs.console.iter().filter(|c| c.level == "error").collect();
    for c in errors.iter().take(MAX_NAMED) {
        out.push(format!(
            "console error {:?}",
            cut(first_line(&c.text), MAX_TEXT)
        ));
    }
    cuts.named += bad.len().saturating_sub(MAX_NAMED) + errors.len().saturating_sub(MAX_NAMED);
    out
}

/// `3 requests`, `1 console`: what a line counts (nothing when none).
fn counts(logs: &TraceLogs) -> Vec<String> {
    let mut out = Vec::new();
    let n = logs.network.len();
    if n > 0 {
        out.push(format!("{n} request{}", if n == 1 { "" } else { "s" }));
    }
    if !logs.console.is_empty() {
        out.push(format!("{} console", logs.console.len()));
    }
    out
}

/// One entry's line: `#n +start duration call · outcome · failures · file:line · counts`.
fn entry_line(file: &TraceFile, e: &TraceEntry, cuts: &mut Cuts) -> String {
    let call = if e.call.chars().count() > MAX_CALL {
        cuts.calls += 1;
        cut(&e.call, MAX_CALL)
    } else {
        e.call.clone()
    };
    let outcome = match e.outcome.status.as_str() {
        "ok" => "ok".to_string(),
        status => {
            let error = e.outcome.error.as_deref().unwrap_or("");
            let first = first_line(error);
            if first.len() < error.trim_end().len() || first.chars().count() > MAX_ERROR {
                cuts.errors += 1;
            }
            let kind = (e.outcome.kind.as_deref())
                .map(|k| format!(" {k}"))
                .unwrap_or_default();
            format!("{}{kind}: {}", status.to_uppercase(), cut(first, MAX_ERROR))
        }
    };
    // `file:line` of `file:line:column`.
    let at = match e.at.rsplit_once(':') {
        Some((head, col)) if col.bytes().all(|b| b.is_ascii_digit()) && head.contains(':') => head,
        _ => e.at.as_str(),
    };
    let logs = TraceLogs {
        console: e.console.clone(),
        network: e.network.clone(),
    };
    let mut parts = vec![
        format!(
            "#{} +{} {} {call}",
            e.n,
            secs(e.start - file.started_at),
            secs(e.end - e.start)
        ),
        outcome,
    ];
    parts.extend(named(&logs, cuts));
    parts.push(at.to_string());
    parts.extend(counts(&logs));
    parts.join(" · ")
}

/// `… #21–#77: 57 entries left out`, for the entries of `gap` (emptied).
fn flush(gap: &mut Vec<u32>, out: &mut String, cuts: &mut Cuts) {
    if let (Some(first), Some(last)) = (gap.first(), gap.last()) {
        let range = if first == last {
            format!("#{first}")
        } else {
            format!("#{first}–#{last}")
        };
        let _ = writeln!(out, "… {range}: {} left out", gap.len());
        cuts.entries.push(range);
        gap.clear();
    }
}

/// The lines of a trace, the entries they show and how many they leave out.
fn render<'a>(
    file: &'a TraceFile,
    slug: &Slug,
    id: &RunId,
    path: &str,
) -> (String, Vec<&'a TraceEntry>, usize) {
    let n = file.entries.len();
    let mut out = format!(
        "step {} of run {id} ({slug}), attempt {}, trace mode {}: {n} entr{} in {}\n",
        file.step,
        file.attempt,
        file.mode,
        if n == 1 { "y" } else { "ies" },
        secs(file.ended_at - file.started_at),
    );
    let keep = |i: usize, e: &TraceEntry| {
        n <= MAX_LINES || i < HEAD || i >= n - (MAX_LINES - HEAD) || e.outcome.status != "ok"
    };
    let mut cuts = Cuts::default();
    let mut shown = Vec::new();
    let mut gap: Vec<u32> = Vec::new();
    for (i, e) in file.entries.iter().enumerate() {
        if keep(i, e) {
            flush(&mut gap, &mut out, &mut cuts);
            out.push_str(&entry_line(file, e, &mut cuts));
            out.push('\n');
            shown.push(e);
        } else {
            gap.push(e.n);
        }
    }
    flush(&mut gap, &mut out, &mut cuts);
    let between = &file.between;
    if !between.network.is_empty() || !between.console.is_empty() {
        let mut parts = named(between, &mut cuts);
        parts.extend(counts(between));
        let _ = writeln!(out, "between entries: {}", parts.join(" · "));
    }
    for (what, list) in [("limits", &file.limits), ("errors", &file.errors)] {
        if !list.is_empty() {
            let _ = writeln!(out, "{what}: {}", list.join("; "));
        }
    }
    if let Some(line) = cuts.line() {
        out.push_str(&line);
        out.push('\n');
    }
    let _ = write!(out, "file: {path}");
    let left_out = n - shown.len();
    (out, shown, left_out)
}
