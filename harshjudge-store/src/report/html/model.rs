//! What the report page shows, read from the store: the overview (every
//! scenario and a summary of its recent runs) and one run in full.
//!
//! Works for runs written by `cargo test`, by agents through MCP and by the
//! original HarshJudge (including its v1 flat `runs/{id}/evidence/step-NN-name.ext`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde::Serialize;

use super::trace::{self, TraceView};
use crate::report::junit::NotRunRef;
use crate::report::reads::Reads;
use crate::store::judge::StepJudgment;
use crate::store::{
    RunId, RunResult, RunStatus, ScenarioMeta, Slug, StepStatus, Store, StoreError,
};

/// How many recent runs per scenario the overview summarises (and the static
/// report has pages for).
pub const HISTORY: usize = 12;

/// Text attachments up to this size are shown inline; larger ones are linked.
const INLINE_LIMIT: u64 = 64 * 1024;

/// Console or network entries shown per step (the file keeps them all).
const LOG_LIMIT: usize = 500;

/// The first page: every scenario with its statistics and recent runs.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    /// `config.yaml` projectName.
    pub project: String,
    /// When this was built (ISO 8601).
    pub generated_at: String,
    /// Every scenario, sorted by slug.
    pub scenarios: Vec<ScenarioRow>,
}

/// One scenario in the overview.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioRow {
    /// Folder name.
    pub slug: String,
    /// meta.yaml title, else the slug.
    pub title: String,
    /// meta.yaml tags.
    pub tags: Vec<String>,
    /// meta.yaml starred.
    pub starred: bool,
    /// Steps the scenario declares.
    pub step_count: usize,
    /// Completed runs (meta.yaml statistics).
    pub total_runs: u64,
    /// Passed runs.
    pub pass_count: u64,
    /// Pass rate in percent, one decimal (None before the first run).
    pub pass_rate: Option<f64>,
    /// Mean run duration in ms.
    pub avg_duration: u64,
    /// pass / fail / running of the newest run.
    pub last_result: Option<String>,
    /// Start of the newest run.
    pub last_run: Option<String>,
    /// Flaky: its newest finished run passed after a failed attempt of the same
    /// invocation (a retry). Nothing else makes a scenario flaky.
    pub flaky: bool,
    /// Mixed history: both passed and failed runs among its recent runs (a
    /// regression, a fix, or an unstable test: not flaky by itself).
    pub mixed: bool,
    /// Its newest finished run failed by a verdict alone: its code passed
    /// (`executedStatus` pass), a judge's verdict failed it.
    pub judged_fail: bool,
    /// Recent runs, newest first.
    pub history: Vec<HistoryEntry>,
    /// Removed from the code: the latest invocation of the test binary that
    /// had it no longer does (and no other binary has it). Its runs stay; the
    /// page shows it as removed and counts it neither passing nor failing.
    pub removed: Option<RemovedView>,
    /// Selected by the invocation that wrote this report but not run, with
    /// why (`skipped: …`, `fixme: …`, `not run: …`). Shown as its status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
}

/// Where and since when a scenario is no longer in its suite.
#[derive(Debug, Serialize)]
pub struct RemovedView {
    /// The test binary (test target) that had it.
    pub binary: String,
    /// When that binary first ran without it (ISO 8601).
    pub since: String,
}

/// One run in a scenario's history.
#[derive(Debug, Serialize)]
pub struct HistoryEntry {
    /// Run id.
    pub id: String,
    /// `pass`, `fail`, `running`.
    #[serde(rename = "s")]
    pub status: &'static str,
    /// Duration in ms.
    #[serde(rename = "d")]
    pub duration: u64,
    /// Passed on a retry (`result.json` flaky).
    #[serde(rename = "f", skip_serializing_if = "std::ops::Not::not")]
    pub flaky: bool,
    /// Failed by a verdict alone (its code passed).
    #[serde(rename = "j", skip_serializing_if = "std::ops::Not::not")]
    pub judged_fail: bool,
    /// startedAt (the row shows the newest; not sent per entry, to keep the first page light).
    #[serde(skip)]
    pub started_at: String,
}

/// One run, in full.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunView {
    /// Scenario slug.
    pub slug: String,
    /// Scenario title.
    pub title: String,
    /// Scenario tags.
    pub tags: Vec<String>,
    /// Run id.
    pub run_id: String,
    /// Stored run number, when the writer stored one.
    pub run_number: Option<u64>,
    /// pass / fail / running: the code's outcome combined with the verdicts.
    pub status: &'static str,
    /// The code's own outcome, when a step has an expectation (`executedStatus`):
    /// the page says "executed: pass, judged: fail" when it differs from `status`.
    pub executed_status: Option<&'static str>,
    /// ISO start.
    pub started_at: String,
    /// ISO end.
    pub completed_at: Option<String>,
    /// ms.
    pub duration: u64,
    /// Id of the failed step.
    pub failed_step: Option<String>,
    /// The run's error.
    pub error_message: Option<String>,
    /// Stopped before it ended (Ctrl-C, SIGTERM, its process died).
    pub interrupted: bool,
    /// Attempt number of a retried scenario.
    pub attempt: Option<u32>,
    /// The first attempt's run id.
    pub first_run_id: Option<String>,
    /// Passed after an earlier attempt failed.
    pub flaky: bool,
    /// The fixtures its scenario asked for, in set-up order (shown above the steps).
    pub fixtures: Vec<crate::store::FixtureRun>,
    /// Steps in order.
    pub steps: Vec<StepView>,
    /// The run's video and its cues (`HARSHJUDGE_VIDEO`), when it has one.
    pub video: Option<VideoView>,
}

/// A run's video (`runs/{id}/video.webm`) and its WebVTT cues, for the page.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VideoView {
    /// The video, relative to the report's page.
    pub src: String,
    /// Its cues (`video.vtt`'s text), when written: carried in the data, not
    /// linked, since a page opened from `file://` may not load a `<track>`
    /// file (Chromium refuses it as another origin); the page makes a blob of it.
    pub cues: Option<String>,
    /// The video's time 0 in ms since the Unix epoch, the clock of the
    /// trace's entries (`video.vtt`'s `NOTE startedAt=…`): the timeline
    /// seeks the video to a row's start and follows its time by it. None
    /// for a video recorded before it was written.
    pub started_at: Option<f64>,
}

/// The video's time 0 that `cues` (a `video.vtt`) gives in its comment
/// `NOTE startedAt=<ms since the Unix epoch>`, when it gives a finite,
/// positive one.
fn video_started_at(cues: &str) -> Option<f64> {
    let line = cues
        .lines()
        .find_map(|l| l.strip_prefix("NOTE startedAt="))?;
    let ms: f64 = line.split_whitespace().next()?.parse().ok()?;
    (ms.is_finite() && ms > 0.0).then_some(ms)
}

/// The video of `run`, if it has one (read through the store: no link followed).
fn video_of(store: &Store, slug: &Slug, run: &RunId) -> Option<VideoView> {
    let dir = store.scenario(slug).run(run);
    let video = dir.video_path();
    if store.confine(&video).is_err() || !video.is_file() {
        return None;
    }
    let rel = video.strip_prefix(store.dir()).ok()?;
    let cues = store.read_to_string(&dir.video_cues_path()).ok();
    Some(VideoView {
        src: format!("../{}", rel.to_string_lossy()),
        started_at: cues.as_deref().and_then(video_started_at),
        cues,
    })
}

/// One step of a run.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepView {
    /// `01`, `02`, …
    pub id: String,
    /// The step's title.
    pub title: String,
    /// pass / fail / skipped, or `running` / `pending` while the run goes on
    /// (for a step with an expectation: its code's outcome combined with its verdict).
    pub status: String,
    /// The code's own outcome of a step with an expectation.
    pub executed_status: Option<&'static str>,
    /// What must be seen, in words (`step!(…, expect = "…")`).
    pub expectation: Option<String>,
    /// The judgment of a step with an expectation.
    pub verdict: Option<VerdictView>,
    /// ms.
    pub duration: Option<u64>,
    /// The error (or skip reason).
    pub error: Option<String>,
    /// Where the error was raised (`file:line:col`).
    pub location: Option<String>,
    /// A summary the writer left (agents do).
    pub summary: Option<String>,
    /// Before/after/failure screenshots, per probe.
    pub shots: Vec<Shots>,
    /// Console entries of the step.
    pub console: Vec<serde_json::Value>,
    /// Requests of the step.
    pub network: Vec<serde_json::Value>,
    /// Whether console or network were cut at the display limit.
    pub logs_truncated: bool,
    /// Every other evidence file.
    pub files: Vec<FileView>,
    /// `to_have_screenshot` failures: `{name}-expected/actual/diff.png`.
    pub visuals: Vec<VisualView>,
    /// The step's API requests (`s.request()`): each `request-NN.json` as
    /// recorded, with `file`, its path.
    pub requests: Vec<serde_json::Value>,
    /// The step's commands (`s.command()`): each `command-NN.json` as
    /// recorded, with `file`, and `stdoutText`/`stderrText` when small enough.
    pub commands: Vec<serde_json::Value>,
    /// The step's trace (`trace.json`), when it has one: the page opens the
    /// step to its timeline, loading `data/traces/{slug}/{runId}/{step}.js`.
    pub trace: Option<TraceView>,
}

/// A step's judgment: where it stands (`result.json` `verdict`) and, once a
/// judge answered, what `judge/result.json` says.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerdictView {
    /// pass / fail / uncertain / pending / error / skipped.
    pub state: &'static str,
    /// `command`, `http` or `agent`.
    pub judge: Option<String>,
    /// The command line, `model@url`, or the agent's name.
    pub identity: Option<String>,
    /// Why, in the judge's words.
    pub reasoning: Option<String>,
    /// Why the judge gave no verdict.
    pub error: Option<String>,
    /// How long the judgment took (ms).
    pub duration: Option<u64>,
    /// When it was made (ISO 8601).
    pub judged_at: Option<String>,
}

impl VerdictView {
    fn new(state: &'static str, judged: Option<&StepJudgment>) -> VerdictView {
        VerdictView {
            state,
            judge: judged.map(|j| j.judge.clone()),
            identity: judged.map(|j| j.identity.clone()),
            reasoning: judged
                .map(|j| j.reasoning.clone())
                .filter(|r| !r.is_empty()),
            error: judged.and_then(|j| j.error.clone()),
            duration: judged.map(|j| j.duration_ms),
            judged_at: judged.map(|j| j.judged_at.clone()),
        }
    }
}

/// The images of one failed `to_have_screenshot(name)`.
#[derive(Debug, Default, Serialize)]
pub struct VisualView {
    /// The screenshot's name.
    pub name: String,
    /// The baseline (none when it is missing).
    pub expected: Option<String>,
    /// The screenshot taken.
    pub actual: Option<String>,
    /// The diff image.
    pub diff: Option<String>,
}

/// The screenshots one probe took at a step's boundaries.
#[derive(Debug, Default, Serialize)]
pub struct Shots {
    /// The probe's name prefix (empty for the first page).
    pub probe: String,
    /// Relative path of the screenshot before the step.
    pub before: Option<String>,
    /// After it.
    pub after: Option<String>,
    /// At the failure.
    pub failure: Option<String>,
}

/// An evidence file that is not a boundary screenshot or a log.
#[derive(Debug, Serialize)]
pub struct FileView {
    /// File name.
    pub name: String,
    /// Relative path from `report/`.
    pub path: String,
    /// image / json / text / html / other.
    pub kind: &'static str,
    /// Bytes.
    pub size: u64,
    /// The text, JSON pretty-printed, when small enough to show inline.
    pub content: Option<String>,
}

fn status_str(s: RunStatus) -> &'static str {
    s.as_str()
}

/// Ids we generate start with a UTC timestamp (`20261123T081052932Z-…`): sorted
/// by name they are sorted by time. Others (nanoid, from the original) are not.
fn time_sortable(run: &RunId) -> bool {
    let b = run.as_str().as_bytes();
    b.len() > 9 && b[..8].iter().all(u8::is_ascii_digit) && b[8] == b'T'
}

/// The `n` newest runs of a scenario, newest first (for ids we generate, by name
/// alone, without reading any file).
pub(crate) fn recent_runs(store: &Store, slug: &Slug, n: usize) -> Result<Vec<RunId>, StoreError> {
    let runs = store.scenario(slug).runs()?;
    if runs.iter().all(time_sortable) {
        return Ok(runs.into_iter().rev().take(n).collect());
    }
    Ok(recent_results(&Reads::new(store), slug, n)?
        .into_iter()
        .map(|(id, _)| id)
        .collect())
}

fn recent_results(
    reads: &Reads<'_>,
    slug: &Slug,
    n: usize,
) -> Result<Vec<(RunId, Rc<RunResult>)>, StoreError> {
    let runs = reads.store().scenario(slug).runs()?;
    let mut out = Vec::new();
    if runs.iter().all(time_sortable) {
        for run in runs.into_iter().rev() {
            if out.len() == n {
                break;
            }
            if let Some(r) = read_result_lenient(reads, slug, &run) {
                out.push((run, r));
            }
        }
        return Ok(out);
    }
    let mut all: Vec<(RunId, Rc<RunResult>)> = runs
        .into_iter()
        .filter_map(|run| read_result_lenient(reads, slug, &run).map(|r| (run, r)))
        .collect();
    all.sort_by(|a, b| {
        let key = |r: &RunResult| {
            if r.started_at.is_empty() {
                r.completed_at.clone().unwrap_or_default()
            } else {
                r.started_at.clone()
            }
        };
        key(b.1.as_ref()).cmp(&key(a.1.as_ref()))
    });
    all.truncate(n);
    Ok(all)
}

/// A run whose result.json is missing or unreadable is left out of the report
/// (it stays on disk for a person to look at) rather than failing the report.
fn read_result_lenient(reads: &Reads<'_>, slug: &Slug, run: &RunId) -> Option<Rc<RunResult>> {
    reads.result(slug, run).ok().flatten()
}

/// Builds the overview. `not_run`: the scenarios the invocation writing the
/// report selected but did not run; one that never ran before gets a row of
/// its own (it has no folder yet).
pub(crate) fn overview(reads: &Reads<'_>, not_run: &[NotRunRef]) -> Result<Overview, StoreError> {
    let store = reads.store();
    let project = store
        .read_config()
        .map(|c| c.project_name)
        .unwrap_or_default();
    let mut removed = crate::store::checkpoint::removed_scenarios(store);
    let mut scenarios = Vec::new();
    for slug in store.list_scenarios()? {
        let meta = reads.meta(&slug);
        let recent = recent_results(reads, &slug, HISTORY)?;
        let history: Vec<HistoryEntry> = recent
            .iter()
            .map(|(id, r)| HistoryEntry {
                id: id.to_string(),
                status: status_str(r.status),
                duration: r.duration,
                flaky: r.flaky,
                judged_fail: judged_fail(r),
                started_at: r.started_at.clone(),
            })
            .collect();
        let flaky = history
            .iter()
            .find(|h| h.status != "running")
            .is_some_and(|h| h.flaky);
        let judged_fail = history
            .iter()
            .find(|h| h.status != "running")
            .is_some_and(|h| h.judged_fail);
        let mixed = history.iter().any(|h| h.status == "pass")
            && history.iter().any(|h| h.status == "fail");
        let total = meta
            .total_runs
            .max(history.iter().filter(|h| h.status != "running").count() as u64);
        let pass_rate = (meta.total_runs > 0)
            .then(|| (meta.pass_count as f64 * 1000.0 / meta.total_runs as f64).round() / 10.0);
        scenarios.push(ScenarioRow {
            title: title_of(&meta, &slug),
            slug: slug.to_string(),
            tags: meta.tags.clone(),
            starred: meta.starred,
            step_count: meta.steps.len(),
            total_runs: total,
            pass_count: meta.pass_count,
            pass_rate,
            avg_duration: meta.avg_duration,
            last_result: history
                .first()
                .map(|h| h.status.to_string())
                .or(meta.last_result.clone()),
            last_run: history
                .first()
                .map(|h| h.started_at.clone())
                .or(meta.last_run.clone()),
            flaky,
            mixed,
            judged_fail,
            history,
            removed: removed.remove(slug.as_str()).map(|r| RemovedView {
                binary: r.binary,
                since: r.since,
            }),
            not_run: not_run
                .iter()
                .find(|n| n.slug == slug.as_str())
                .map(|n| n.reason.clone()),
        });
    }
    for n in not_run {
        if scenarios.iter().any(|s: &ScenarioRow| s.slug == n.slug) {
            continue;
        }
        scenarios.push(ScenarioRow {
            slug: n.slug.clone(),
            title: if n.title.is_empty() {
                n.slug.clone()
            } else {
                n.title.clone()
            },
            tags: n.tags.clone(),
            starred: false,
            step_count: n.steps.len(),
            total_runs: 0,
            pass_count: 0,
            pass_rate: None,
            avg_duration: 0,
            last_result: None,
            last_run: None,
            flaky: false,
            mixed: false,
            judged_fail: false,
            history: Vec::new(),
            removed: None,
            not_run: Some(n.reason.clone()),
        });
    }
    scenarios.sort_by(|a, b| a.slug.cmp(&b.slug));
    Ok(Overview {
        project,
        generated_at: crate::store::now_iso(),
        scenarios,
    })
}

/// A final run that failed by a verdict alone (its code passed).
fn judged_fail(r: &RunResult) -> bool {
    r.status == RunStatus::Fail && r.executed_status == Some(RunStatus::Pass)
}

fn title_of(meta: &ScenarioMeta, slug: &Slug) -> String {
    if meta.title.is_empty() {
        slug.to_string()
    } else {
        meta.title.clone()
    }
}

/// Builds one run's view, or `None` when the run has no `result.json`.
pub(crate) fn run_view(
    reads: &Reads<'_>,
    slug: &Slug,
    run: &RunId,
) -> Result<Option<RunView>, StoreError> {
    let store = reads.store();
    let Some(result) = reads.result(slug, run)? else {
        return Ok(None);
    };
    let meta = reads.meta(slug);
    // An unreadable judgment leaves the verdicts' states (from result.json) shown.
    let judgment = reads.judgment(slug, run).ok().flatten();
    let running = result.status == RunStatus::Running;
    // Evidence files per step id: step-NN/evidence/*, or v1 flat evidence/step-NN-name.ext.
    let mut files: BTreeMap<String, Vec<(String, String, PathBuf, u64)>> = BTreeMap::new();
    let evidence = reads.evidence(slug, run)?;
    for step in &evidence.step_dirs {
        files.entry(step.clone()).or_default();
    }
    for f in &evidence.files {
        if let Some(step) = &f.step {
            files.entry(step.clone()).or_default().push((
                f.name.clone(),
                format!("../{}", f.link),
                f.path.clone(),
                f.size,
            ));
        }
    }

    let mut ids: Vec<String> = result.steps.iter().map(|s| s.id.clone()).collect();
    ids.extend(files.keys().cloned());
    if running {
        ids.extend(meta.steps.iter().map(|s| s.id.clone()));
    }
    ids.sort();
    ids.dedup();

    let mut steps = Vec::new();
    for id in ids {
        let done = result.steps.iter().find(|s| s.id == id);
        let title = done
            .and_then(|s| s.title.clone())
            .or_else(|| {
                meta.steps
                    .iter()
                    .find(|s| s.id == id)
                    .map(|s| s.title.clone())
            })
            .unwrap_or_else(|| format!("Step {id}"));
        let status = match (done, files.contains_key(&id)) {
            (Some(s), _) => s.status.as_str().to_string(),
            (None, true) if running => "running".into(),
            (None, _) if running => "pending".into(),
            (None, _) => "skipped".into(),
        };
        let judged = judgment.as_ref().and_then(|j| j.step(&id));
        let expectation = done
            .and_then(|s| s.expectation.clone())
            .or_else(|| judged.map(|j| j.expectation.clone()));
        let verdict = expectation.as_ref().map(|_| {
            let state = match (done.and_then(|s| s.verdict), judged) {
                (Some(v), _) => v.as_str(),
                (None, Some(j)) => j.verdict.map_or("error", |v| v.as_str()),
                (None, None) => "pending",
            };
            VerdictView::new(state, judged)
        });
        let mut view = StepView {
            id: id.clone(),
            title,
            status,
            executed_status: done.and_then(|s| s.executed_status).map(StepStatus::as_str),
            expectation,
            verdict,
            duration: done.map(|s| s.duration),
            error: done.and_then(|s| s.error.clone()),
            location: done.and_then(|s| s.error_location.clone()),
            summary: done.and_then(|s| s.summary.clone()),
            shots: vec![],
            console: vec![],
            network: vec![],
            logs_truncated: false,
            files: vec![],
            visuals: vec![],
            requests: vec![],
            commands: vec![],
            trace: None,
        };
        let step_files = files.remove(&id).unwrap_or_default();
        view.trace = trace_of(store, &step_files);
        for (name, path, abs, size) in step_files {
            classify(store, &mut view, &abs, name, path, size);
        }
        gather_exchanges(&mut view);
        steps.push(view);
    }
    // A run-level error that no step carries (an agent's completeRun claim, or
    // the original's) still shows on the failed step.
    if let (Some(failed), Some(msg)) = (&result.failed_step, &result.error_message)
        && let Some(s) = steps.iter_mut().find(|s| &s.id == failed)
        && s.error.is_none()
    {
        s.error = Some(msg.clone());
    }

    Ok(Some(RunView {
        slug: slug.to_string(),
        title: title_of(&meta, slug),
        tags: meta.tags.clone(),
        run_id: run.to_string(),
        run_number: result.run_number,
        status: status_str(result.status),
        executed_status: result.executed_status.map(status_str),
        started_at: result.started_at.clone(),
        completed_at: result.completed_at.clone(),
        duration: result.duration,
        failed_step: result.failed_step.clone(),
        error_message: result.error_message.clone(),
        interrupted: result.interrupted,
        attempt: result.attempt,
        first_run_id: result.first_run_id.clone(),
        flaky: result.flaky,
        fixtures: result.fixtures.clone(),
        steps,
        video: video_of(store, slug, run),
    }))
}

/// The trace of a step whose evidence files are `files` (name, link, path,
/// size): its `trace.json` in the step's folder, and `trace-dom.json` beside it.
fn trace_of(store: &Store, files: &[(String, String, PathBuf, u64)]) -> Option<TraceView> {
    let (_, link, abs, _) = files.iter().find(|(name, ..)| name == trace::TRACE_JSON)?;
    let dom = files
        .iter()
        .find(|(name, _, p, _)| name == trace::TRACE_DOM_JSON && p.parent() == abs.parent())
        .map(|(_, _, p, _)| p.as_path());
    Some(trace::view(store, abs, link, dom))
}

fn classify(store: &Store, view: &mut StepView, abs: &Path, name: String, path: String, size: u64) {
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) => (s.to_string(), e.to_ascii_lowercase()),
        None => (name.clone(), String::new()),
    };
    let (probe, word) = match stem.rsplit_once('-') {
        Some((p, w)) => (p.to_string(), w.to_string()),
        None => (String::new(), stem.clone()),
    };
    let image = matches!(ext.as_str(), "png" | "jpg" | "jpeg" | "gif" | "webp");
    if image && matches!(word.as_str(), "before" | "after" | "error") {
        let shots = match view.shots.iter_mut().position(|s| s.probe == probe) {
            Some(i) => &mut view.shots[i],
            None => {
                view.shots.push(Shots {
                    probe: probe.clone(),
                    ..Shots::default()
                });
                view.shots.last_mut().expect("just pushed")
            }
        };
        match word.as_str() {
            "before" => shots.before = Some(path),
            "after" => shots.after = Some(path),
            _ => shots.failure = Some(path),
        }
        return;
    }
    if image && !probe.is_empty() && matches!(word.as_str(), "expected" | "actual" | "diff") {
        let v = match view.visuals.iter().position(|v| v.name == probe) {
            Some(i) => &mut view.visuals[i],
            None => {
                view.visuals.push(VisualView {
                    name: probe,
                    ..VisualView::default()
                });
                view.visuals.last_mut().expect("just pushed")
            }
        };
        match word.as_str() {
            "expected" => v.expected = Some(path),
            "actual" => v.actual = Some(path),
            _ => v.diff = Some(path),
        }
        return;
    }
    if ext == "json" && matches!(word.as_str(), "console" | "network") && size <= 8 * INLINE_LIMIT {
        let parsed = store
            .read_file(abs)
            .ok()
            .and_then(|b| serde_json::from_slice::<Vec<serde_json::Value>>(&b).ok());
        if let Some(mut entries) = parsed {
            if !probe.is_empty() {
                for e in &mut entries {
                    if let Some(o) = e.as_object_mut() {
                        o.insert("probe".into(), probe.clone().into());
                    }
                }
            }
            let target = if word == "console" {
                &mut view.console
            } else {
                &mut view.network
            };
            let room = LOG_LIMIT.saturating_sub(target.len());
            if entries.len() > room {
                view.logs_truncated = true;
            }
            target.extend(entries.into_iter().take(room));
            // Listed as a file too (without inline text), so the whole log is one click away.
            view.files.push(FileView {
                name,
                path,
                kind: "json",
                size,
                content: None,
            });
            return;
        }
    }
    let kind = match ext.as_str() {
        _ if image => "image",
        "json" => "json",
        "txt" | "log" | "md" | "yaml" | "yml" | "csv" | "xml" => "text",
        "html" | "htm" => "html",
        _ => "other",
    };
    // A request's or a command's record is read whole (its bodies are bounded
    // when recorded), to be shown as one.
    let limit = if exchange_part(&name).is_some() {
        4 * INLINE_LIMIT
    } else {
        INLINE_LIMIT
    };
    // A trace is shown by the timeline, from its own script.
    let traced = name == trace::TRACE_JSON || name == trace::TRACE_DOM_JSON;
    let content = (matches!(kind, "json" | "text") && size <= limit && !traced)
        .then(|| store.read_file(abs).ok())
        .flatten()
        .map(|bytes| {
            if kind == "json"
                && let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes)
            {
                return serde_json::to_string_pretty(&v).expect("JSON serializes");
            }
            String::from_utf8_lossy(&bytes).into_owned()
        });
    view.files.push(FileView {
        name,
        path,
        kind,
        size,
        content,
    });
}

/// `request-NN` / `command-NN` followed by nothing or `-stdout` / `-stderr`:
/// which call and which part.
fn exchange_part(name: &str) -> Option<(&'static str, &str, &str)> {
    let stem = name
        .strip_suffix(".json")
        .or_else(|| name.strip_suffix(".txt"))?;
    let (what, rest) = [("request", "request-"), ("command", "command-")]
        .into_iter()
        .find_map(|(w, p)| stem.strip_prefix(p).map(|r| (w, r)))?;
    let (num, part) = rest.split_once('-').unwrap_or((rest, ""));
    (num.len() >= 2 && num.bytes().all(|b| b.is_ascii_digit())).then_some((what, num, part))
}

/// Moves the step's API requests and commands out of its attachments into
/// their own lists: a command's stdout and stderr join it.
fn gather_exchanges(view: &mut StepView) {
    let mut rest = Vec::new();
    let mut streams: Vec<(String, &'static str, Option<String>, String)> = Vec::new();
    for f in std::mem::take(&mut view.files) {
        let parsed = |f: &FileView| {
            f.content
                .as_deref()
                .and_then(|c| serde_json::from_str::<serde_json::Value>(c).ok())
                .filter(serde_json::Value::is_object)
        };
        match exchange_part(&f.name) {
            Some((what, num, "")) if f.kind == "json" => match parsed(&f) {
                Some(mut v) => {
                    v["file"] = f.path.clone().into();
                    v["number"] = num.into();
                    if what == "request" {
                        view.requests.push(v);
                    } else {
                        view.commands.push(v);
                    }
                }
                None => rest.push(f),
            },
            Some(("command", num, part @ ("stdout" | "stderr"))) if f.kind == "text" => {
                let key = if part == "stdout" {
                    "stdoutText"
                } else {
                    "stderrText"
                };
                streams.push((num.to_string(), key, f.content.clone(), f.path.clone()));
                rest.push(f);
            }
            _ => rest.push(f),
        }
    }
    // The streams of a command shown with it are not listed again.
    rest.retain(|f| {
        !matches!(exchange_part(&f.name), Some(("command", num, "stdout" | "stderr"))
            if view.commands.iter().any(|c| c["number"] == num))
    });
    for (num, key, text, path) in streams {
        if let Some(c) = view
            .commands
            .iter_mut()
            .find(|c| c["number"] == num.as_str())
        {
            c[key] = text.into();
            c[key.replace("Text", "File")] = path.into();
        }
    }
    view.files = rest;
}
