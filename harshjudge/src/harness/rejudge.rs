//! Verdicts made again from recorded evidence, without running anything:
//! `--rejudge` (the latest finished run of each selected scenario),
//! `--rejudge-run RUN_ID` (one run, every verdict re-made: what
//! `judge/replay.sh` calls), and `--resume` completing the judgment of runs an
//! earlier invocation executed but did not finish judging.
//!
//! No app, no browser, no base URL, no new run folder, no probe: only the run's
//! `judge/`, the status fields of its `result.json`
//! ([`RunDir::apply_judgment`](harshjudge_store::store::RunDir::apply_judgment)), its scenario's statistics and the suite
//! checkpoint change. A verdict is reused while the hash of its inputs
//! (evidence, expectation, code outcome, judge identity) is unchanged
//! ([`judge::judge_step`]); a judgment without a verdict is always re-made.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use libtest_mimic::{Arguments, Trial};

use super::flags::SuiteFlags;
use crate::registry::ScenarioDef;
use crate::run_settings::Settings;
use harshjudge_store::event::{Event, EventSink};
use harshjudge_store::judge::{self, Judge, JudgeInput, JudgeSettings, Judged};
use harshjudge_store::store::checkpoint::{ScenarioEntry, SuiteLog};
use harshjudge_store::store::judge::StepJudgment;
use harshjudge_store::store::{
    RunId, RunResult, RunStatus, Slug, StepId, StepStatus, Store, StoreError,
};

use super::consumers::{HarnessSink, NotRun, Slot, not_run};
use super::error::{HarnessError, NO_JUDGE, PendingVerdict, RejudgeError};
use super::outcomes::recorded_outcomes;
use super::plan::Plan;
use super::tail;

/// `--rejudge-run RUN_ID`: the scenario of this binary whose runs hold it.
pub(super) fn owner(
    store: &Store,
    scenarios: Vec<&'static ScenarioDef>,
    run: &str,
) -> Result<Vec<&'static ScenarioDef>, RejudgeError> {
    let id = run_id(run)?;
    let slug = match store.find_run(&id) {
        Ok(Some(slug)) => slug,
        Ok(None) => {
            return Err(RejudgeError::NoSuchRun {
                run: id,
                store: store.dir().to_path_buf(),
            });
        }
        Err(source) => return Err(RejudgeError::FindRun { run: id, source }),
    };
    match scenarios.iter().find(|d| d.slug == slug.as_str()) {
        Some(def) => Ok(vec![*def]),
        None => Err(RejudgeError::OtherBinary {
            run: id,
            slug,
            binary: harshjudge_browser::process::binary_name(),
        }),
    }
}

/// `--rejudge-run`'s value as a run id.
fn run_id(value: &str) -> Result<RunId, RejudgeError> {
    RunId::new(value).map_err(|source| RejudgeError::RunId {
        value: value.into(),
        source,
    })
}

/// One step to judge: the document its judge reads, and its judgment as recorded.
struct StepToJudge {
    input: JudgeInput,
    recorded: Option<StepJudgment>,
}

impl StepToJudge {
    /// Why this step needs a new verdict when no judge is configured
    /// (`None`: its recorded verdict stands, its inputs unchanged under the
    /// identity of the judge that made it).
    fn needs_judge(&self, force: bool) -> Option<&'static str> {
        match &self.recorded {
            None => Some("no verdict yet"),
            Some(j) if j.verdict.is_none() => Some("its judge gave no verdict"),
            Some(_) if force => Some("--rejudge-run re-makes every verdict"),
            Some(j) if judge::inputs_hash(&self.input, &j.identity) != j.inputs_hash => {
                Some("its evidence or expectation changed")
            }
            Some(_) => None,
        }
    }

    /// Whether the step has no verdict recorded (pending, or the judge gave none).
    fn unjudged(&self) -> bool {
        self.recorded.as_ref().is_none_or(|j| j.verdict.is_none())
    }
}

/// The executed steps of `run` that have an expectation, ready to judge. The
/// expectation is the code's current one (`StepDef::expect`), else the one
/// `result.json` recorded; the title likewise.
fn steps_to_judge(
    store: &Store,
    def: &ScenarioDef,
    slug: &Slug,
    run: &RunId,
    result: &RunResult,
) -> Result<Vec<StepToJudge>, StoreError> {
    let judgment = store.scenario(slug).run(run).judgment()?;
    let mut out = Vec::new();
    for step in &result.steps {
        if step.executed() == StepStatus::Skipped {
            continue;
        }
        let index = StepId::new(step.id.clone())?
            .as_str()
            .parse::<usize>()
            .unwrap_or(0);
        let code = index.checked_sub(1).and_then(|i| def.steps.get(i));
        let expectation = code
            .and_then(|c| c.expect)
            .map(str::to_string)
            .or_else(|| step.expectation.clone());
        let Some(expectation) = expectation else {
            continue;
        };
        let title = code
            .map(|c| c.title.to_string())
            .or_else(|| step.title.clone())
            .unwrap_or_else(|| step.id.clone());
        let input = judge::step_input(store, slug, run, step, &title, &expectation)?;
        let recorded = judgment.as_ref().and_then(|j| j.step(&step.id)).cloned();
        out.push(StepToJudge { input, recorded });
    }
    Ok(out)
}

/// One recorded run to re-judge.
struct Target {
    def: &'static ScenarioDef,
    slug: Slug,
    run: RunId,
    steps: Vec<StepToJudge>,
}

/// The run of `def` to re-judge (`only`, else its latest run that is not
/// running) with its steps to judge; `Err` says why there is none.
fn target(
    store: &Store,
    def: &'static ScenarioDef,
    only: Option<&RunId>,
    binary: &str,
    notes: &mut Vec<String>,
) -> Result<Target, RejudgeError> {
    let slug = Slug::new(def.slug)?;
    let read = |run: &RunId| {
        store
            .scenario(&slug)
            .run(run)
            .result()
            .map_err(|source| RejudgeError::Unreadable {
                slug: slug.clone(),
                run: run.clone(),
                source,
            })
    };
    let (run, result) = match only {
        Some(run) => match read(run)? {
            None => {
                return Err(RejudgeError::NoResult {
                    slug,
                    run: run.clone(),
                });
            }
            Some(r) if r.status == RunStatus::Running => {
                return Err(RejudgeError::StillRunning {
                    slug,
                    run: run.clone(),
                });
            }
            Some(r) => (run.clone(), r),
        },
        None => {
            let runs = store.scenario(&slug).runs()?;
            let mut skipped = Vec::new();
            let mut found = None;
            for run in runs.into_iter().rev() {
                match read(&run)? {
                    Some(r) if r.status != RunStatus::Running => {
                        found = Some((run, r));
                        break;
                    }
                    _ => skipped.push(run),
                }
            }
            let Some(found) = found else {
                return Err(RejudgeError::NoFinishedRun {
                    slug,
                    store: store.dir().to_path_buf(),
                    binary: binary.into(),
                    unfinished: skipped,
                });
            };
            if !skipped.is_empty() {
                let names: Vec<&str> = skipped.iter().map(RunId::as_str).collect();
                notes.push(format!(
                    "{slug}: newer run(s) {} did not end: re-judging run {}, the latest that did",
                    names.join(", "),
                    found.0
                ));
            }
            found
        }
    };
    let steps = match steps_to_judge(store, def, &slug, &run, &result) {
        Ok(steps) => steps,
        Err(source) => return Err(RejudgeError::Unjudgeable { slug, run, source }),
    };
    Ok(Target {
        def,
        slug,
        run,
        steps,
    })
}

/// What re-judging one run did.
struct Rejudged {
    made: usize,
    reused: usize,
    /// Judgments made without a verdict (the judge failed).
    errors: usize,
    before: RunStatus,
    result: RunResult,
}

impl Rejudged {
    fn note(&self, how: &str) -> String {
        let mut note = format!(
            "{how}: {} verdict(s) made, {} reused",
            self.made, self.reused
        );
        if self.errors > 0 {
            note.push_str(&format!(
                ", {} without a verdict (judge error)",
                self.errors
            ));
        }
        if self.before != self.result.status {
            note.push_str(&format!(
                "; status {} -> {}",
                self.before.as_str(),
                self.result.status.as_str()
            ));
        }
        if self.result.interrupted {
            note.push_str("; the run was interrupted");
        }
        note
    }
}

/// Re-judges one run: each step through [`judge::judge_step`] (or, without a
/// judge, its recorded verdict kept: the caller checked that they all stand),
/// then [`RunDir::apply_judgment`](harshjudge_store::store::RunDir::apply_judgment).
async fn rejudge_target(
    store: &Store,
    target: &Target,
    judge: Option<&dyn Judge>,
    force: bool,
    uncertain_passes: bool,
) -> Result<Rejudged, StoreError> {
    let before = store
        .scenario(&target.slug)
        .run(&target.run)
        .result()?
        .map_or(RunStatus::Running, |r| r.status);
    let (mut made, mut reused, mut errors) = (0, 0, 0);
    for step in &target.steps {
        let Some(judge) = judge else {
            reused += 1;
            continue;
        };
        match judge::judge_step(store, &target.slug, &target.run, &step.input, judge, force).await?
        {
            Judged::Reused(_) => reused += 1,
            Judged::Made(j) => {
                made += 1;
                errors += usize::from(j.verdict.is_none());
            }
        }
    }
    let result = store
        .scenario(&target.slug)
        .run(&target.run)
        .apply_judgment(|r, j| judge::combine_verdicts(r, j, uncertain_passes))?;
    Ok(Rejudged {
        made,
        reused,
        errors,
        before,
        result,
    })
}

/// Hands a re-judged run's steps to the trials and its line to the summary.
fn deliver(sink: &HarnessSink, store: &Store, target: &Target, done: &Rejudged, how: &str) {
    let Some(outcomes) = recorded_outcomes(store, target.def, &target.run, &done.result, how)
    else {
        not_run(
            sink,
            store,
            target.def,
            NotRun::NotRejudged("its steps could not be read back"),
        );
        return;
    };
    for o in &outcomes {
        sink.on_event(&Event::StepFinished {
            slug: &target.slug,
            outcome: o,
        });
    }
    let dir = store.scenario(&target.slug).run(&target.run).path();
    let judgment = store
        .scenario(&target.slug)
        .run(&target.run)
        .judgment()
        .ok()
        .flatten();
    sink.on_event(&Event::RunFinished {
        slug: &target.slug,
        result: Some(&done.result),
        run_dir: Some(&dir),
        store_error: None,
        warnings: &[],
        judgment: judgment.as_ref(),
        evidence: None,
    });
    let mut summary = sink.summary.lock().expect("summary");
    if let Some(line) = summary
        .runs
        .iter_mut()
        .rev()
        .find(|l| l.slug == target.def.slug)
    {
        line.note = Some(done.note(how));
    }
}

/// The error when steps need a verdict and no judge is configured; `None` when
/// every recorded verdict stands.
fn missing_judge(targets: &[Target], force: bool, flag: &'static str) -> Option<RejudgeError> {
    let steps: Vec<PendingVerdict> = targets
        .iter()
        .flat_map(|t| {
            t.steps.iter().filter_map(move |s| {
                s.needs_judge(force).map(|why| PendingVerdict {
                    slug: t.slug.clone(),
                    run: t.run.clone(),
                    step: s.input.step_id.clone(),
                    why,
                })
            })
        })
        .collect();
    (!steps.is_empty()).then_some(RejudgeError::NoJudge { flag, steps })
}

/// A tokio runtime for judges (processes, HTTP, timeouts).
fn runtime(threads: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.clamp(2, 16))
        .thread_name("harshjudge-judge")
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn threads(args: &Arguments) -> usize {
    args.test_threads
        .or_else(|| std::thread::available_parallelism().ok().map(Into::into))
        .unwrap_or(1)
        .max(1)
}

/// What [`run`] needs of the invocation.
pub(super) struct Context<'a> {
    pub store: &'a Store,
    pub settings: &'a Settings,
    /// The judge, read with the other settings when the invocation began.
    pub judge: &'a JudgeSettings,
    pub plan: &'a Plan,
    pub flags: &'a SuiteFlags,
    pub binary: &'a str,
    pub notes: Vec<String>,
    pub started: SystemTime,
    pub nextest: bool,
    pub verbose: bool,
}

/// `--rejudge` / `--rejudge-run`: re-judges the run of each selected scenario
/// while libtest's trials wait on their slots, then updates the suite
/// checkpoint and finishes like a run (summary, reports, exit code 101 when a
/// step fails after re-judging). `Err` (exit code 2): bad judge settings, or
/// steps that need a verdict with no judge configured; nothing is changed then.
pub(super) fn run(
    mut cx: Context<'_>,
    args: &Arguments,
    trials: Vec<Trial>,
    slots: HashMap<&'static str, Vec<Arc<Slot>>>,
) -> Result<i32, HarnessError> {
    let settings = cx.judge;
    let force = cx.flags.rejudge_run.is_some();
    let (flag, how) = if force {
        ("--rejudge-run", "re-judged by --rejudge-run")
    } else {
        ("--rejudge", "re-judged by --rejudge")
    };
    let only = (cx.flags.rejudge_run.as_deref()).map(run_id).transpose()?;
    let mut targets = Vec::new();
    let mut missing = Vec::new();
    for (def, _) in cx.plan.work() {
        match target(cx.store, def, only.as_ref(), cx.binary, &mut cx.notes) {
            Ok(t) => targets.push(t),
            Err(why) => missing.push((def, why)),
        }
    }
    if settings.judge.is_none()
        && let Some(e) = missing_judge(&targets, force, flag)
    {
        return Err(e.into());
    }
    if !cx.plan.any_selected() {
        cx.notes.push(format!(
            "{flag}: no scenario is selected: nothing to re-judge"
        ));
    }
    let sink = super::exec::sink(cx.plan, slots, cx.store);
    for (def, why) in &missing {
        not_run(&*sink, cx.store, def, NotRun::NotRejudged(&why.to_string()));
    }
    for n in &cx.notes {
        eprintln!("harshjudge: {n}");
    }
    let threads = threads(args);
    let rt = runtime(threads);
    let finished: Arc<Mutex<Vec<(String, String, RunResult)>>> = Arc::default();
    let dispatcher = {
        let (store, sink, finished) = (cx.store.clone(), sink.clone(), finished.clone());
        let judge = settings.judge.clone();
        let uncertain = settings.uncertain_passes;
        rt.spawn(async move {
            let permits = Arc::new(tokio::sync::Semaphore::new(threads));
            let mut tasks = Vec::new();
            for t in targets {
                let permit = (permits.clone().acquire_owned().await).expect("semaphore open");
                let (store, sink, finished, judge) =
                    (store.clone(), sink.clone(), finished.clone(), judge.clone());
                tasks.push(tokio::spawn(async move {
                    let t = Arc::new(t);
                    let work = {
                        let (store, t) = (store.clone(), t.clone());
                        tokio::spawn(async move {
                            rejudge_target(&store, &t, judge.as_deref(), force, uncertain).await
                        })
                    };
                    match work.await {
                        Ok(Ok(done)) => {
                            deliver(&sink, &store, &t, &done, how);
                            let entry = (t.slug.to_string(), t.run.to_string(), done.result);
                            finished.lock().expect("finished").push(entry);
                        }
                        Ok(Err(e)) => {
                            not_run(&*sink, &store, t.def, NotRun::NotRejudged(&e.to_string()))
                        }
                        Err(e) => not_run(
                            &*sink,
                            &store,
                            t.def,
                            NotRun::NotRejudged(&format!("internal error while judging: {e}")),
                        ),
                    }
                    drop(permit);
                }));
            }
            for t in tasks {
                let _ = t.await;
            }
        })
    };
    let conclusion = libtest_mimic::run(args, trials);
    let _ = rt.block_on(dispatcher);
    drop(rt);
    let finished = std::mem::take(&mut *finished.lock().expect("finished"));
    let update = SuiteLog::update_previous(cx.store, cx.binary, |entries| {
        for (slug, run, result) in &finished {
            if let Some(e) = entries.get_mut(slug)
                && e.run_id.as_deref() == Some(run.as_str())
            {
                e.note_result(result);
            }
        }
    });
    if let Err(e) = update {
        eprintln!("harshjudge: the suite checkpoint could not be updated: {e}");
    }
    // Re-judging creates no run: nothing to prune.
    let mut settings = cx.settings.clone();
    settings.keep_runs = None;
    let tail = tail::Tail {
        exiting: Default::default(),
        store: cx.store,
        settings: &settings,
        sink: &sink,
        log: None,
        started: cx.started,
        nextest: cx.nextest,
        verbose: cx.verbose,
        json: tail::json_format(args),
        scenarios_of: (cx.plan.scenarios.iter()).map(|d| (d.slug, *d)).collect(),
    };
    Ok(tail::finish(tail, &conclusion))
}

/// `--resume`: the reused scenarios whose run was executed but not fully
/// judged (a step with an expectation has no verdict, or its judge gave none:
/// the process died while judging, or no judge was configured) are re-judged
/// from their evidence instead of being run again; their trials then report
/// the combined outcome. Without a judge configured they are reused as they
/// are, with a note.
pub(super) fn complete_judgments(
    store: &Store,
    judge: &JudgeSettings,
    plan: &mut Plan,
    args: &Arguments,
    notes: &mut Vec<String>,
) {
    let mut pending: Vec<(usize, Target)> = Vec::new();
    for (i, r) in plan.reused.iter().enumerate() {
        let Some(run) = r.entry.run_id.as_deref().and_then(|id| RunId::new(id).ok()) else {
            continue;
        };
        let Ok(slug) = Slug::new(r.def.slug) else {
            continue;
        };
        let Ok(Some(result)) = store.scenario(&slug).run(&run).result() else {
            continue;
        };
        match steps_to_judge(store, r.def, &slug, &run, &result) {
            Ok(steps) if steps.iter().any(StepToJudge::unjudged) => pending.push((
                i,
                Target {
                    def: r.def,
                    slug,
                    run,
                    steps,
                },
            )),
            Ok(_) => {}
            Err(e) => notes.push(format!(
                "--resume: run {run} of \"{slug}\" cannot be judged ({e}): reused as recorded"
            )),
        }
    }
    if pending.is_empty() {
        return;
    }
    let settings = judge;
    let Some(judge) = settings.judge.clone() else {
        let names: Vec<String> = pending
            .iter()
            .map(|(_, t)| format!("{} (run {})", t.slug, t.run))
            .collect();
        notes.push(format!(
            "--resume: {} scenario(s) were executed but not fully judged: {}; no judge is configured, so they are reused with their verdicts pending. To judge them, {NO_JUDGE}",
            names.len(),
            names.join(", ")
        ));
        return;
    };
    let uncertain = settings.uncertain_passes;
    let rt = runtime(threads(args));
    let done: Vec<(usize, Target, Result<Rejudged, StoreError>)> = rt.block_on(async {
        let tasks: Vec<_> = pending
            .into_iter()
            .map(|(i, t)| {
                let (store, judge) = (store.clone(), judge.clone());
                tokio::spawn(async move {
                    let r =
                        rejudge_target(&store, &t, Some(judge.as_ref()), false, uncertain).await;
                    (i, t, r)
                })
            })
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            if let Ok(v) = t.await {
                out.push(v);
            }
        }
        out
    });
    drop(rt);
    for (i, t, r) in done {
        match r {
            Ok(rejudged) => {
                let reused = &mut plan.reused[i];
                if let Some(outcomes) = recorded_outcomes(
                    store,
                    t.def,
                    &t.run,
                    &rejudged.result,
                    "reused by --resume, re-judged",
                ) {
                    reused.outcomes = outcomes;
                }
                let mut entry: ScenarioEntry = reused.entry.clone();
                entry.note_result(&rejudged.result);
                reused.entry = entry;
                notes.push(format!(
                    "--resume: {}: run {} was executed but not fully judged: {}",
                    t.slug,
                    t.run,
                    rejudged.note("re-judged from its evidence")
                ));
            }
            Err(e) => notes.push(format!(
                "--resume: run {} of \"{}\" could not be re-judged ({e}): reused as recorded",
                t.run, t.slug
            )),
        }
    }
}
