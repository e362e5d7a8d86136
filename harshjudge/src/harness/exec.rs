//! Executing a plan: the runs prepared on disk, the repairs after processes
//! that died, the suite checkpoint, one job per scenario (with its retries) on a
//! tokio runtime, and libtest's trials waiting on their slots.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use libtest_mimic::{Arguments, Completion, Conclusion, Trial};

use super::flags::SuiteFlags;
use crate::registry::ScenarioDef;
use crate::run_settings::Settings;
use crate::runner::{self, Limits, Shared};
use harshjudge_browser::Tracing;
use harshjudge_browser::settings::TraceMode;
use harshjudge_store::event::{Event, EventSink, StepOutcome};
use harshjudge_store::judge::JudgeSettings;
use harshjudge_store::recorder::RunHandle;
use harshjudge_store::recorder::replay::ReplayInfo;
use harshjudge_store::report::{RunLine, Summary};
use harshjudge_store::store::checkpoint::{Judged, ScenarioEntry, ScenarioState, SuiteLog};
use harshjudge_store::store::{RunId, ScenarioSpec, Slug, StepDoc, StepStatus, Store, StoreError};

use super::consumers::{
    Attempt, Buffer, HarnessSink, NotRun, Repeats, Slot, Tracked, not_run, trial_result,
};
use super::error::HarnessError;
use super::plan::Plan;
use super::setups;
use super::{Package, step_test_name};

pub(super) fn dedent(source: &str) -> String {
    let mut lines = source.lines();
    let first = lines.next().unwrap_or("").to_string();
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = first;
    for l in rest {
        out.push('\n');
        out.push_str(l.get(indent..).unwrap_or(l.trim_start()));
    }
    out
}

fn scenario_spec(def: &ScenarioDef) -> (ScenarioSpec, Vec<StepDoc>) {
    let spec = ScenarioSpec {
        title: def.title.to_string(),
        steps: def.steps.iter().map(|s| s.title.to_string()).collect(),
        tags: Some(def.tags.iter().map(|t| t.to_string()).collect()),
        starred: None,
        estimated_duration: None,
    };
    let docs = def
        .steps
        .iter()
        .map(|s| StepDoc {
            description: format!(
                "Defined in `{}` at {}:{} (scenario `{}`).",
                def.module_path, def.file, s.line, def.fn_name
            ),
            preconditions: "The previous steps of this scenario passed.".into(),
            actions: "Runs the step's code:".into(),
            code: Some(("rust".into(), dedent(s.source))),
            expected_outcome: match s.expect {
                Some(expect) => format!(
                    "{expect}\n\nJudged from the step's evidence by a judge (`step!(…, expect = …)`); the step's code must also complete without an error or a panic."
                ),
                None => "The step's code completes without an error or a panic.".into(),
            },
        })
        .collect();
    (spec, docs)
}

/// Creates the run of a scenario on disk, ready to execute.
pub(crate) fn prepare(store: &Store, def: &'static ScenarioDef) -> Result<RunHandle, StoreError> {
    let slug = Slug::new(def.slug)?;
    let (spec, docs) = scenario_spec(def);
    store.scenario(&slug).upsert(&spec, &docs)?;
    RunHandle::start_marked(store, &slug, spec.steps).map(RunHandle::with_background_writes)
}

/// One scenario to execute, with its retries.
struct Job {
    def: &'static ScenarioDef,
    last: usize,
    store: Store,
    sink: Arc<HarnessSink>,
    base_url: String,
    limits: Limits,
    log: Option<Arc<SuiteLog>>,
    replay: Arc<ReplayInfo>,
    /// 1 + retries.
    attempts: u32,
    /// When its steps' traces are written: its `#[scenario(trace)]`, else
    /// `--trace`, else `HARSHJUDGE_TRACE`.
    trace: TraceMode,
    fail_on_flaky: bool,
    judging: Arc<harshjudge_store::recorder::judging::Judging>,
    /// The setups of the invocation: a job waits for those its scenario depends on.
    gate: Arc<setups::Gate>,
    /// `--repeat-each N`: runs of the scenario, each its own (1: once).
    repeat: u32,
    /// The failed runs of this invocation, against `--max-failures`.
    failures: Arc<Failures>,
    /// The run's browsers.
    browsers: Arc<harshjudge_browser::Browsers>,
}

/// `--max-failures N`: the runs that failed so far, shared by every job; once
/// there are N, no scenario (and no repetition) starts.
#[derive(Debug, Default)]
pub(super) struct Failures {
    max: Option<u32>,
    count: std::sync::atomic::AtomicU32,
}

impl Failures {
    /// A run failed (its last attempt).
    fn add(&self) {
        self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// Why nothing may start any more, once `--max-failures` is reached.
    fn stop_reason(&self) -> Option<String> {
        let max = self.max?;
        let n = self.count.load(std::sync::atomic::Ordering::SeqCst);
        (n >= max).then(|| {
            format!("not run: {n} run(s) failed, the limit of --max-failures {max} (HARSHJUDGE_MAX_FAILURES) was reached before it started")
        })
    }
}

impl Job {
    fn checkpoint(&self, state: ScenarioState, run: Option<String>, attempt: u32) {
        if let Some(log) = &self.log {
            log.set(self.def.slug, state, run, attempt);
        }
    }

    /// The checkpoint of a run that ended: with its execution and judgment
    /// apart, as its final `result.json` says.
    fn checkpoint_ended(&self, state: ScenarioState, run: String, attempt: u32) {
        let Some(log) = &self.log else {
            return;
        };
        let mut entry = ScenarioEntry::new(state, Some(run.clone()), attempt);
        if state.finished()
            && let (Ok(slug), Ok(id)) = (Slug::new(self.def.slug), RunId::new(run))
            && let Ok(Some(result)) = self.store.scenario(&slug).run(&id).result()
        {
            entry.note_result(&result);
            // A step the code expects something of, executed, without a verdict
            // state in result.json: its judgment is still to be made.
            let expecting = |id: &str| {
                let i = id.parse::<usize>().ok().and_then(|n| n.checked_sub(1));
                i.and_then(|i| self.def.steps.get(i))
                    .is_some_and(|s| s.expect.is_some())
            };
            let unjudged = result.steps.iter().any(|s| {
                expecting(&s.id) && s.executed() != StepStatus::Skipped && s.verdict.is_none()
            });
            if entry.executed.is_some() && entry.judged.is_none() && unjudged {
                entry.judged = Some(Judged::Pending);
            }
        }
        log.set_entry(self.def.slug, entry);
    }

    /// Runs the scenario once its setups passed (a setup: once per
    /// invocation), `repeat` times (each repetition its own run, with its
    /// retries) while `--max-failures` allows.
    async fn run(self) {
        let (gate, sink, store) = (self.gate.clone(), self.sink.clone(), self.store.clone());
        setups::run_job(&gate, self.def, &sink, &store, || self.repetitions()).await;
    }

    /// Every repetition of the scenario: how the first that failed ended, else
    /// the last one.
    async fn repetitions(self) -> setups::Ended {
        let def = self.def;
        let slug = Slug::new(def.slug).expect("validated");
        let repeats =
            (self.repeat > 1).then(|| Arc::new(Repeats::new(self.sink.clone(), self.repeat)));
        let events: Arc<dyn EventSink> = match &repeats {
            Some(r) => r.clone(),
            None => self.sink.clone(),
        };
        let mut ended: Option<setups::Ended> = None;
        for k in 1..=self.repeat {
            if let Some(why) = self.failures.stop_reason() {
                if k == 1 {
                    not_run(&*self.sink, &self.store, def, NotRun::NotStarted(&why));
                    ended = Some(setups::Ended::failed(why.clone(), None));
                }
                let why = if self.repeat > 1 {
                    format!(
                        "{why} (repetitions {k} to {} of {})",
                        self.repeat, self.repeat
                    )
                } else {
                    why
                };
                let mut summary = self.sink.summary.lock().expect("summary");
                summary.not_run.push((def.slug.to_string(), why));
                break;
            }
            if let Some(r) = &repeats {
                r.begin();
            }
            let (run, failed) = self.run_once(&events).await;
            if failed {
                self.failures.add();
            }
            ended = Some(match ended {
                Some(first) if !first.passed => first,
                _ => run,
            });
        }
        if let Some(r) = repeats {
            r.finish(&slug);
        }
        ended.unwrap_or_else(|| setups::Ended::failed("it made no attempt".into(), None))
    }

    /// One run of the scenario, with its retries; its events go to `events`.
    /// Returns how it ended, and whether it counts as a failed run for
    /// `--max-failures` (an interruption does not).
    async fn run_once(&self, events: &Arc<dyn EventSink>) -> (setups::Ended, bool) {
        let def = self.def;
        let mut first_run: Option<String> = None;
        // Earlier attempts: run folder and step outcomes.
        let mut earlier: Vec<(PathBuf, Vec<StepOutcome>)> = Vec::new();
        for attempt in 1..=self.attempts {
            if let Some(reason) = runner::interrupted() {
                not_run(&**events, &self.store, def, NotRun::Interrupted(&reason));
                self.checkpoint(ScenarioState::Interrupted, None, attempt - 1);
                return (setups::Ended::failed(reason, None), false);
            }
            let mut run = match prepare(&self.store, def) {
                Ok(run) => run,
                Err(e) => {
                    not_run(
                        &**events,
                        &self.store,
                        def,
                        NotRun::Unrecorded(&e.to_string()),
                    );
                    self.checkpoint(ScenarioState::Fail, None, attempt);
                    return (setups::Ended::failed(e.to_string(), None), true);
                }
            };
            let run_id = run.id().to_string();
            if self.attempts > 1
                && let Err(e) = run.set_attempt(attempt, first_run.clone())
            {
                eprintln!(
                    "harshjudge: {}: the attempt number could not be recorded: {e}",
                    def.slug
                );
            }
            first_run.get_or_insert_with(|| run_id.clone());
            let last_test = step_test_name(def.fn_name, self.last, def.steps[self.last - 1].title);
            if let Err(e) = self.replay.write(&run.dir(), def.slug, &run_id, &last_test) {
                eprintln!(
                    "harshjudge: {}: replay.sh could not be written: {e}",
                    def.slug
                );
            }
            self.checkpoint(ScenarioState::Running, Some(run_id.clone()), attempt);
            // With retries, outcomes wait until the attempt is known to be the last.
            let buffer = Arc::new(Buffer::default());
            let attempt_of = Arc::new(Attempt::default());
            let sink: Arc<dyn EventSink> = Arc::new(Tracked {
                attempt: attempt_of.clone(),
                next: if self.attempts > 1 {
                    buffer.clone()
                } else {
                    events.clone()
                },
            });
            let dir = run.dir();
            // What this attempt traces: decided here, once (the mode and
            // which attempt this is); the runner and the pages only see it.
            let limits = Limits {
                tracing: Tracing::for_attempt(self.trace, attempt),
                trace_mode: self.trace,
                attempt,
                ..self.limits.clone()
            };
            let shared = Shared::new(
                def,
                run,
                self.base_url.clone(),
                self.browsers.clone(),
                sink,
                self.last,
                limits,
                Some(harshjudge_store::recorder::writer::JudgeRun {
                    judging: self.judging.clone(),
                    filter: last_test.clone(),
                }),
            );
            if let Err(e) = tokio::spawn(runner::execute(shared)).await {
                // A bug in the runner: never leave a trial waiting.
                let msg = format!("internal error in the harshjudge runner: {e}");
                not_run(&**events, &self.store, def, NotRun::Unrecorded(&msg));
                self.checkpoint(ScenarioState::Fail, Some(run_id.clone()), attempt);
                return (setups::Ended::failed(msg, Some(run_id)), true);
            }
            let (passed, interrupted) = attempt_of.ended();
            let dir = attempt_of.dir().unwrap_or(dir);
            if self.attempts > 1 && !passed && !interrupted && attempt < self.attempts {
                self.sink
                    .summary
                    .lock()
                    .expect("summary")
                    .runs
                    .push(RunLine {
                        slug: def.slug.to_string(),
                        status: Some("fail".into()),
                        run_dir: Some(dir.clone()),
                        store_error: None,
                        note: Some(format!("attempt {attempt} of {}: retried", self.attempts)),
                        earlier: vec![],
                        retried: true,
                    });
                earlier.push((dir, buffer.outcomes()));
                continue;
            }
            if self.attempts > 1 {
                let slug = Slug::new(def.slug).expect("validated");
                buffer.forward(&**events, &slug, attempt, &earlier, self.fail_on_flaky);
                let mut summary = self.sink.summary.lock().expect("summary");
                if let Some(line) = summary.runs.iter_mut().rev().find(|l| l.slug == def.slug) {
                    line.earlier = earlier.iter().map(|(d, _)| d.clone()).collect();
                    if attempt > 1 {
                        line.note = Some(format!(
                            "attempt {attempt} of {}{}",
                            self.attempts,
                            if passed {
                                ": flaky, an earlier attempt failed"
                            } else {
                                ""
                            }
                        ));
                    }
                }
            }
            let state = match (interrupted, passed, attempt > 1) {
                (true, _, _) => ScenarioState::Interrupted,
                // Counted as a failure: --last-failed reruns it.
                (false, true, true) if self.fail_on_flaky => ScenarioState::Fail,
                (false, true, true) => ScenarioState::Flaky,
                (false, true, false) => ScenarioState::Pass,
                (false, false, _) => ScenarioState::Fail,
            };
            self.checkpoint_ended(state, run_id.clone(), attempt);
            let ended = setups::Ended {
                passed,
                error: attempt_of.error(),
                run_id: Some(run_id),
            };
            return (ended, state == ScenarioState::Fail);
        }
        (
            setups::Ended::failed("it made no attempt".into(), None),
            false,
        )
    }
}

/// The libtest trials of `plan`, each waiting on its step's slot (a
/// whole-scenario trial on all of them), and the slots per scenario.
pub(super) fn trials(plan: &Plan) -> (Vec<Trial>, HashMap<&'static str, Vec<Arc<Slot>>>) {
    let slots: HashMap<&'static str, Vec<Arc<Slot>>> = plan
        .scenarios
        .iter()
        .map(|def| {
            let steps = def.steps.iter().map(|_| Arc::new(Slot::default()));
            (def.slug, steps.collect())
        })
        .collect();
    let trials = plan
        .trials
        .iter()
        .map(|t| {
            let def = plan.scenarios[t.scenario];
            if let Some(skip) = def.skip {
                // Never run: listed, and ignored with the reason. Under
                // nextest flagged ignored as well, so that nextest skips it.
                return Trial::ignorable_test(t.name.clone(), move || {
                    Ok(Completion::ignored_with(skip))
                })
                .with_ignored_flag(t.whole);
            }
            let steps = &slots[def.slug];
            if t.whole {
                let all = steps.clone();
                Trial::test(t.name.clone(), move || {
                    let failed: Vec<String> = all
                        .iter()
                        .map(|s| s.wait())
                        .filter(|o| o.status == StepStatus::Fail)
                        .map(|o| {
                            format!(
                                "step {} \"{}\" failed: {}",
                                o.id,
                                o.title,
                                harshjudge_store::report::failure_message(&o)
                            )
                        })
                        .collect();
                    if failed.is_empty() {
                        Ok(())
                    } else {
                        Err(failed.join("\n").into())
                    }
                })
            } else {
                let slot = steps[t.last - 1].clone();
                Trial::ignorable_test(t.name.clone(), move || trial_result(&slot.wait()))
            }
        })
        .collect();
    (trials, slots)
}

/// Prepares the store before anything runs: `.harshJudge/` initialised, then
/// the base URL: `HARSHJUDGE_BASE_URL`, else the suite's own app
/// (`main!(web_server = …)` or `main!(base_url = …)`), else `config.yaml`. Only the variable's value is
/// written into a new `config.yaml`: a started app's port is not a setting.
/// When no scenario runs (`run` false: every selected one is reused by
/// `--resume`), the app is not started.
pub(super) fn resolve_base_url(
    pkg: &Package,
    package_root: &Path,
    store: &Store,
    settings: &mut Settings,
    run: bool,
) -> Result<(), HarnessError> {
    if pkg.base_url.is_some() && pkg.web_server.is_some() {
        return Err(HarnessError::TwoApps);
    }
    store.ensure_initialized(pkg.name, &settings.base_url)?;
    let config = crate::run_settings::read_config(store)?;
    if settings.base_url.is_empty() && run {
        settings.base_url = match (pkg.web_server, pkg.base_url) {
            (Some(app), _) => crate::server::start(
                &app(),
                package_root,
                &harshjudge_browser::process::binary_name(),
            )?,
            (None, Some(start)) => start().map_err(|cause| HarnessError::AppStart { cause })?,
            (None, None) => config.base_url,
        };
    }
    Ok(())
}

/// Repairs what processes that are gone left: runs left `running` (kill -9, a
/// crash) are marked interrupted and their scenario recounted, then
/// [`harshjudge_store::recorder::repair_leftovers`]. Returns one note per repair.
pub(super) fn repair(store: &Store) -> Vec<String> {
    let mut notes = Vec::new();
    for (slug, run, pid) in store.orphaned_runs() {
        let reason = format!(
            "interrupted: the process that ran it (pid {pid}) is gone (killed or crashed) and the run never ended"
        );
        let outcome = RunHandle::open_in(store, &slug, &run).and_then(|mut h| h.interrupt(&reason));
        match outcome {
            Ok(()) => notes.push(format!(
                "run {slug}/{run} was left running by a process that is gone (pid {pid}): marked interrupted"
            )),
            // It ended, but its process died before counting it or clearing its mark.
            Err(harshjudge_store::store::StoreError::RunCompleted { .. }) => store.scenario(&slug).run(&run).clear_running(),
            Err(harshjudge_store::store::StoreError::NotFound { .. }) => store.scenario(&slug).run(&run).clear_running(),
            Err(e) => notes.push(format!(
                "run {slug}/{run} was left running by a process that is gone, but could not be marked interrupted: {e}"
            )),
        }
        // The process may have died between a run's result and its count.
        if let Err(e) = store.scenario(&slug).recount_stats() {
            notes.push(format!(
                "the statistics of {slug} could not be recounted: {e}"
            ));
        }
    }
    notes.extend(harshjudge_store::recorder::repair_leftovers(store));
    notes
}

/// Starts this invocation's suite checkpoint (for `--resume` and
/// `--last-failed` next time); a failure is a note, not an error.
pub(super) fn checkpoint(
    store: &Store,
    binary: &str,
    suite: &[&str],
    plan: &Plan,
    notes: &mut Vec<String>,
) -> Option<Arc<SuiteLog>> {
    let selected: Vec<&str> = plan.work().iter().map(|(d, _)| d.slug).collect();
    let reused: BTreeMap<String, ScenarioEntry> = plan
        .reused
        .iter()
        .map(|r| (r.def.slug.to_string(), r.entry.clone()))
        .collect();
    let previous = plan.previous.as_ref();
    match SuiteLog::begin(store, binary, suite, previous, &selected, &reused) {
        Ok(l) => Some(Arc::new(l)),
        Err(e) => {
            notes.push(format!("the suite checkpoint could not be written ({e}): --resume will not know about this run"));
            None
        }
    }
}

/// The harness's consumer of every run's events, with the outcomes of the
/// scenarios reused by `--resume` already delivered.
pub(super) fn sink(
    plan: &Plan,
    slots: HashMap<&'static str, Vec<Arc<Slot>>>,
    store: &Store,
) -> Arc<HarnessSink> {
    let sink = Arc::new(HarnessSink {
        slots,
        fn_names: plan.scenarios.iter().map(|d| (d.slug, d.fn_name)).collect(),
        summary: Mutex::new(Summary::default()),
        selected: plan.selected.clone(),
        carried: Mutex::new(HashMap::new()),
        deferred: Mutex::new(HashMap::new()),
        finished: Mutex::default(),
    });
    {
        let mut summary = sink.summary.lock().expect("summary");
        for def in &plan.skipped {
            if let Some(skip) = def.skip {
                summary
                    .not_run
                    .push((def.slug.to_string(), skip.to_string()));
            }
        }
        // Under cargo-nextest `skip`/`fixme` scenarios are ignored tests, which
        // no process runs: each process names them, so that the invocation's
        // summary, JUnit and report still say why they did not run.
        if crate::harness::under_nextest() {
            for def in &plan.scenarios {
                if let Some(skip) = def.skip
                    && !plan.skipped.iter().any(|d| d.slug == def.slug)
                {
                    summary
                        .not_run
                        .push((def.slug.to_string(), skip.to_string()));
                }
            }
        }
        if !plan.tag_excluded.is_empty() {
            summary.filtered_by_tags = Some((
                plan.tag_selection.clone(),
                plan.tag_excluded
                    .iter()
                    .map(|d| d.slug.to_string())
                    .collect(),
            ));
        }
        summary.brought_along = (plan.brought_along.iter())
            .map(|(setup, of)| setups::brought_along(setup.fn_name, of))
            .collect();
    }
    for r in &plan.reused {
        let slug = Slug::new(r.def.slug).expect("validated");
        for o in &r.outcomes {
            sink.on_event(&Event::StepFinished {
                slug: &slug,
                outcome: o,
            });
        }
        let run_dir = (r.entry.run_id.as_deref())
            .and_then(|id| RunId::new(id).ok())
            .map(|id| store.scenario(&slug).run(&id).path());
        let status = match r.entry.state {
            ScenarioState::Pass => "pass",
            ScenarioState::Flaky => "flaky",
            _ => "fail",
        };
        sink.summary.lock().expect("summary").runs.push(RunLine {
            slug: r.def.slug.to_string(),
            status: Some(status.to_string()),
            run_dir,
            store_error: None,
            note: Some("reused by --resume".into()),
            earlier: vec![],
            retried: false,
        });
    }
    sink
}

/// What [`execute`] needs besides the trials.
pub(super) struct Execution<'a> {
    pub pkg: &'a Package,
    pub package_root: &'a Path,
    pub flags: &'a SuiteFlags,
    pub plan: &'a Plan,
    pub store: &'a Store,
    pub settings: &'a Settings,
    /// The judge of steps with an expectation (`HARSHJUDGE_JUDGE_*`,
    /// `HARSHJUDGE_UNCERTAIN`); none: their verdicts stay pending.
    pub judge: &'a JudgeSettings,
    pub sink: &'a Arc<HarnessSink>,
    pub log: &'a Option<Arc<SuiteLog>>,
    pub notes: &'a [String],
}

/// Runs the plan: the scenarios start in the plan's order on a tokio runtime,
/// at most `--test-threads` at once, while libtest runs the trials (each
/// waiting on its slot). Returns libtest's conclusion once every job ended
/// and the browsers are shut down.
pub(super) fn execute(
    x: Execution<'_>,
    args: &Arguments,
    trials: Vec<Trial>,
) -> (Conclusion, harshjudge_browser::Exiting) {
    let threads = args
        .test_threads
        .or_else(|| std::thread::available_parallelism().ok().map(Into::into))
        .unwrap_or(1)
        .max(1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.clamp(2, 16))
        .thread_name("harshjudge-scenario")
        .enable_all()
        .build()
        .expect("tokio runtime");
    // A scenario to run opens a page: the driver and the browser start now,
    // while the run gets ready, rather than when it asks for its page.
    // The run's browsers: every scenario's page comes from them.
    // Under cargo-nextest, every scenario a process: one Chromium per run.
    let browsers = Arc::new(harshjudge_browser::Browsers::for_test_run());
    let work = x.plan.work();
    if let Some((def, _)) = work.iter().find(|(d, _)| d.opens_page) {
        // Each scenario that opens a page in the same browser; each opens
        // the next one's page while it runs.
        let pages = work
            .iter()
            .filter(|(d, _)| d.opens_page && d.browser == def.browser)
            .map(|(d, _)| setups::repetitions(d, x.flags.repeat_each) as usize)
            .sum();
        browsers.warm_up(rt.handle(), def.browser, &x.settings.base_url, pages);
    }
    let limits = Limits {
        step_default: x.settings.step_timeout,
        scenario_default: x.settings.scenario_timeout,
        evidence: x.settings.evidence,
        full_page: x.settings.full_page,
        // Checked with the other settings before anything ran (`check_settings`).
        console: harshjudge_browser::ConsoleSettings::from_env().unwrap_or_default(),
        // Set per attempt (`Job::run_once`).
        tracing: harshjudge_browser::Tracing::Off,
        trace_mode: x.flags.trace,
        attempt: 1,
        trace_screenshots: x.settings.trace_screenshots,
    };
    super::signals::listen_for_signals(&rt, browsers.killer());
    let replay = Arc::new(ReplayInfo::from_env(
        x.pkg.name,
        x.package_root,
        &x.settings.dir,
    ));
    let judging =
        harshjudge_store::recorder::judging::Judging::new(x.judge.clone(), Some(replay.clone()));
    let failures = Arc::new(Failures {
        max: x.flags.max_failures,
        ..Failures::default()
    });
    let work = setups::order(x.plan.work());
    let gate = setups::Gate::new(&work, x.store, crate::harness::under_nextest());
    let jobs: Vec<Job> = (work.into_iter())
        .map(|(def, last)| Job {
            def,
            last,
            store: x.store.clone(),
            sink: x.sink.clone(),
            base_url: x.settings.base_url.clone(),
            limits: limits.clone(),
            log: x.log.clone(),
            replay: replay.clone(),
            attempts: 1 + def.retries.or(x.flags.retries).unwrap_or(0),
            trace: def.trace.unwrap_or(x.flags.trace),
            fail_on_flaky: x.flags.fail_on_flaky,
            judging: judging.clone(),
            repeat: setups::repetitions(def, x.flags.repeat_each),
            failures: failures.clone(),
            gate: gate.clone(),
            browsers: browsers.clone(),
        })
        .collect();
    // before_all: once, before the first scenario; when it fails, no scenario
    // runs and each one's first step fails with its cause.
    let hooked = !jobs.is_empty();
    let before = x.pkg.before_all.filter(|_| hooked);
    let jobs = match before.and_then(|h| rt.block_on(run_hook(h)).err()) {
        None => jobs,
        Some(failed) => {
            let cause = failed.to_string();
            (x.sink.summary.lock().expect("summary").invocation_errors)
                .push(("before_all".into(), cause.clone()));
            for job in &jobs {
                not_run(&*job.sink, &job.store, job.def, NotRun::Unrecorded(&cause));
                job.checkpoint(ScenarioState::Fail, None, 1);
            }
            Vec::new()
        }
    };
    let dispatcher = rt.spawn(async move {
        let permits = Arc::new(tokio::sync::Semaphore::new(threads));
        let mut tasks = Vec::new();
        for job in jobs {
            let permit = (permits.clone().acquire_owned().await).expect("semaphore open");
            tasks.push(tokio::spawn(async move {
                job.run().await;
                drop(permit);
            }));
        }
        for t in tasks {
            let _ = t.await;
        }
    });
    for n in x.notes {
        eprintln!("harshjudge: {n}");
    }
    let mut conclusion = libtest_mimic::run(args, trials);
    let _ = rt.block_on(dispatcher);
    // after_all: once every scenario ended, however it ended.
    let after = x.pkg.after_all.filter(|_| hooked);
    if let Some(cause) = after.and_then(|h| rt.block_on(run_hook(h)).err()) {
        eprintln!("harshjudge: {cause}");
        (x.sink.summary.lock().expect("summary").invocation_errors)
            .push(("after_all".into(), cause.to_string()));
        conclusion.num_failed += 1;
    }
    // Invocation fixtures, once every scenario and `after_all` ended.
    for cause in rt.block_on(crate::runner::fixtures::tear_down_invocation()) {
        eprintln!("harshjudge: {cause}");
        (x.sink.summary.lock().expect("summary").invocation_errors)
            .push(("fixture teardown".into(), cause));
        conclusion.num_failed += 1;
    }
    // No chromedriver, browser or app under test outlives the run: the
    // driver's group is killed now, and its profiles are removed while the
    // reports are written (`tail::finish` waits for that before it returns).
    let exiting = rt.block_on(browsers.kill_at_exit());
    drop(browsers);
    drop(rt);
    crate::server::stop();
    (conclusion, exiting)
}

/// A suite-level hook that failed: which, where, and why.
#[derive(Debug, thiserror::Error)]
#[error("{hook} failed: {cause}")]
struct HookFailed {
    /// `before_all \`f\` (file:line)`.
    hook: String,
    /// Its error (with where it was raised) or its panic.
    cause: String,
}

/// Runs a suite-level hook; its failure (an error or a panic) names the hook
/// and where it is given.
async fn run_hook(hook: super::SuiteHook) -> Result<(), HookFailed> {
    use futures_util::FutureExt;
    let outcome = std::panic::AssertUnwindSafe((hook.run)())
        .catch_unwind()
        .await;
    let cause = match outcome {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(e)) => format!("{} (at {})", e.message(), e.location()),
        Err(panic) => {
            let text = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            format!("panicked: {text}")
        }
    };
    Err(HookFailed {
        hook: hook.describe(),
        cause,
    })
}
