//! Executes one scenario: steps in order, step and scenario time limits,
//! panics and errors turned into step failures, skipped steps with a reason.
//! It emits [`Event`]s and nothing else: no file I/O and no printing (but a
//! pause, `HARSHJUDGE_PAUSE=on-failure`, speaks to the terminal). Every
//! event, the evidence it produces and the scenario's attachments included,
//! goes through one entrance, the run's store writer ([`StoreWriter::emit`]),
//! which records it in the run's files and passes it on to the other consumers
//! (the harness's trial slots and summary, a test's recording sink). The
//! [`Scenario`] handle reaches the run through [`RunContext`], which [`Shared`]
//! implements. Knows nothing of libtest.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Mutex, Once};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::error::Error;
use crate::evidence::{BoxFuture, Item, PageProbe, Probe, Snapshot};
use crate::registry::ScenarioDef;
use crate::registry::ScenarioFuture;
use crate::run_settings::EvidenceMode;
use crate::scenario::{RunContext, Scenario};
use harshjudge_browser::settings::format_duration;
use harshjudge_store::event::{Event, EventSink, StepOutcome, Urgency};
use harshjudge_store::recorder::RunHandle;
use harshjudge_store::recorder::writer::{Ending, JudgeRun, Recorded, StoreWriter};
use harshjudge_store::store::NewEvidence;
use harshjudge_store::store::{EvidenceName, RunId, StepId, StepStatus, StoreError};

mod fixture_calls;
pub(crate) mod fixtures;
pub(crate) mod fixtures_shared;
mod pause;
mod soft;
mod video;

/// How a scenario's limits are chosen, and which evidence its probes capture.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    pub step_default: Option<Duration>,
    pub scenario_default: Option<Duration>,
    pub evidence: EvidenceMode,
    pub full_page: bool,
    /// `HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS` and its allow-list, read once per
    /// invocation (not at every step boundary).
    pub console: harshjudge_browser::ConsoleSettings,
    /// What this attempt's trace records (the harness decides per attempt).
    pub tracing: harshjudge_browser::Tracing,
    /// The trace mode it comes from, and the attempt (what `trace.json` says).
    pub trace_mode: harshjudge_browser::settings::TraceMode,
    /// The attempt's number, from 1.
    pub attempt: u32,
    /// A screenshot after each traced action (`HARSHJUDGE_TRACE_SCREENSHOTS`).
    pub trace_screenshots: bool,
}

/// The probes' captures at one boundary: each probe's prefix and its snapshot,
/// or why it failed.
type Captures = Vec<(String, Result<Snapshot, Error>)>;

/// State shared by the runner, the scenario handle (through [`RunContext`])
/// and the generated step boundaries.
pub(crate) struct Shared {
    pub def: &'static ScenarioDef,
    pub base_url: String,
    /// Where its pages come from (the run's).
    pub browsers: Arc<harshjudge_browser::Browsers>,
    /// Evidence numbers handed out so far, per kind (`popup`, `download`).
    numbers: Mutex<std::collections::HashMap<String, usize>>,
    /// Where every event goes: the run's store writer, which records it and
    /// passes it on ([`StoreWriter::emit`]).
    pub stream: StoreWriter,
    /// The last step to run (1-based): steps after it are not selected.
    pub stop_after: usize,
    limits: Limits,
    cursor: Mutex<Cursor>,
    notify: Notify,
    /// Probes registered by the scenario (browser pages, HTTP, commands).
    pub probes: Mutex<Vec<Arc<dyn Probe>>>,
    /// Browser pages opened by the scenario, released when it ends.
    pub pages: Mutex<Vec<harshjudge_browser::Page>>,
    /// The store the run is recorded in (where storage states are saved).
    store: harshjudge_store::store::Store,
    /// The cookies its requests keep while no page is open, seeded from its
    /// storage state at first use (or why that state cannot be read).
    cookies: std::sync::OnceLock<Result<crate::api::CookieJar, String>>,
    /// A probe did not answer within [`CAPTURE_LIMIT`] after the steps.
    unresponsive: std::sync::atomic::AtomicBool,
    /// The run's video (`HARSHJUDGE_VIDEO`, `video.rs`).
    video: video::Video,
    /// The attempt's trace recorder, given to its pages (none: not traced).
    tracer: Option<Arc<harshjudge_browser::Tracer>>,
    /// Its fixtures: set up, their values, what `result.json` says of them.
    fixtures: fixtures::Fixtures,
    /// What the running step printed (`log!`): its `log.txt` when it ends.
    output: Arc<crate::output::Captured>,
}

/// How long a probe may take to capture evidence once the steps are over
/// (a failed step's, the last step's `after`): no step limit bounds it then.
const CAPTURE_LIMIT: Duration = Duration::from_secs(10);

struct Cursor {
    /// 1-based running step; 0 when none.
    step: usize,
    started: Instant,
    deadline: Option<Instant>,
    /// Past `stop_after`: the runner must stop the scenario.
    stop: bool,
    /// Steps that ended, with their status.
    finished: Vec<StepStatus>,
    /// Why the running step fails at its end though its code went through
    /// (`Shared::end_failure`: its pages' console errors, its soft
    /// assertions), and where.
    end_failure: Option<(String, Option<String>)>,
    /// The running step's soft assertions that failed, in order
    /// (`expect(…).soft()`): it fails at its end for them.
    soft: Vec<harshjudge_browser::soft::SoftFailure>,
    /// Pages being opened now, and since when one has been: the step's
    /// clock stands still meanwhile ([`ClockHold`]).
    opening: (usize, Instant),
}

/// The running step's clock stopped while a page opens (its browser may
/// launch: that has its own limit, `HARSHJUDGE_LAUNCH_TIMEOUT`, as
/// Playwright's browser is a worker fixture outside a test's timeout). When
/// the last opening ends, the step's deadline moves by the time they took.
struct ClockHold(Arc<Shared>);

impl ClockHold {
    fn new(shared: Arc<Shared>) -> ClockHold {
        {
            let mut c = shared.cursor.lock().expect("cursor lock");
            if c.opening.0 == 0 {
                c.opening.1 = Instant::now();
            }
            c.opening.0 += 1;
        }
        ClockHold(shared)
    }
}

impl Drop for ClockHold {
    fn drop(&mut self) {
        let mut c = self.0.cursor.lock().unwrap_or_else(|p| p.into_inner());
        c.opening.0 -= 1;
        if c.opening.0 == 0 {
            let held = c.opening.1.elapsed();
            if let Some(d) = c.deadline.as_mut() {
                *d += held;
            }
            drop(c);
            // The runner's wait takes the moved deadline.
            self.0.notify.notify_one();
        }
    }
}

impl Shared {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        def: &'static ScenarioDef,
        run: RunHandle,
        base_url: String,
        browsers: Arc<harshjudge_browser::Browsers>,
        sink: Arc<dyn EventSink>,
        stop_after: usize,
        limits: Limits,
        judging: Option<JudgeRun>,
    ) -> Arc<Shared> {
        let store = run.store().clone();
        let tracer = harshjudge_browser::Tracer::new(
            limits.tracing,
            limits.trace_mode,
            limits.attempt,
            limits.trace_screenshots,
        );
        Arc::new(Shared {
            tracer,
            store,
            def,
            base_url,
            browsers,
            numbers: Mutex::default(),
            stream: StoreWriter::new(run, judging, sink),
            stop_after,
            limits,
            cursor: Mutex::new(Cursor {
                step: 0,
                started: Instant::now(),
                deadline: None,
                stop: false,
                finished: vec![],
                end_failure: None,
                soft: Vec::new(),
                opening: (0, Instant::now()),
            }),
            notify: Notify::new(),
            probes: Mutex::new(Vec::new()),
            pages: Mutex::new(Vec::new()),
            cookies: Default::default(),
            unresponsive: Default::default(),
            video: video::Video::from_env(),
            fixtures: Default::default(),
            output: Default::default(),
        })
    }

    fn step_id(n: usize) -> StepId {
        StepId::from_index(n).expect("the macro allows at most 99 steps")
    }

    pub fn current_step(&self) -> Option<StepId> {
        let c = self.cursor.lock().expect("cursor lock");
        (c.step > 0).then(|| Self::step_id(c.step))
    }

    /// The limit of step `n` and where it comes from.
    fn step_limit(&self, n: usize) -> Option<(Duration, &'static str)> {
        let step = self.def.steps.get(n - 1).and_then(|s| s.timeout);
        step.map(|d| (d, "step!(…, timeout = …)"))
            .or(self
                .def
                .step_timeout
                .map(|d| (d, "#[scenario(step_timeout = …)]")))
            .or(self
                .limits
                .step_default
                .map(|d| (d, "HARSHJUDGE_STEP_TIMEOUT")))
    }

    fn scenario_limit(&self) -> Option<(Duration, &'static str)> {
        self.def
            .timeout
            .map(|d| (d, "#[scenario(timeout = …)]"))
            .or(self
                .limits
                .scenario_default
                .map(|d| (d, "HARSHJUDGE_TIMEOUT")))
    }

    /// A step boundary: ends the running step as passed and starts step `n`.
    /// Every probe captures once here: its state is the `after` of the step
    /// that ends and the `before` of the step that starts.
    /// Returns true when the scenario must stop here (past the selected steps).
    pub async fn begin(&self, n: usize) -> bool {
        {
            // A `before` hook ran inside step 1, which the runner began for it.
            let c = self.cursor.lock().expect("cursor lock");
            if n == 1 && c.step == 1 && c.finished.is_empty() {
                return false;
            }
        }
        if self.cursor.lock().expect("cursor lock").step > 0
            && let Some(why) = self.end_failure().await
        {
            let mut c = self.cursor.lock().expect("cursor lock");
            c.end_failure = Some(why);
            c.stop = true;
            drop(c);
            self.notify.notify_one();
            return true;
        }
        let snapshots = if self.limits.evidence == EvidenceMode::All {
            self.snapshot_probes().await
        } else {
            Vec::new()
        };
        let ending = self.cursor.lock().expect("cursor lock").step;
        if ending > 0 {
            self.trace_step(ending, false).await;
        }
        let mut c = self.cursor.lock().expect("cursor lock");
        if c.step > 0 {
            let (step, started) = (c.step, c.started);
            self.write_snapshots(step, &snapshots, Side::After);
            self.finish(&mut c, step, started, StepStatus::Pass, None, None, None);
        }
        if n > self.stop_after || n > self.def.steps.len() {
            c.stop = true;
            c.step = 0;
            drop(c);
            self.notify.notify_one();
            return true;
        }
        c.step = n;
        c.started = Instant::now();
        c.deadline = self.step_limit(n).map(|(d, _)| c.started + d);
        let id = Self::step_id(n);
        let _ = self.stream.emit(&Event::StepStarted {
            slug: self.stream.slug(),
            id: &id,
            title: self.def.steps[n - 1].title,
        });
        self.write_snapshots(n, &snapshots, Side::Before);
        drop(c);
        self.notify.notify_one();
        false
    }

    /// Why the running step fails for its pages' console errors, if the
    /// settings say so (`HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS=1`).
    async fn console_failure(&self) -> Option<String> {
        if !self.limits.console.fail {
            return None;
        }
        let pages = self.pages.lock().expect("pages lock").clone();
        harshjudge_browser::console_failure(&pages, &self.limits.console).await
    }

    /// Registers a probe and captures its first state as the `before` of the
    /// step running now.
    pub async fn add_probe(&self, probe: Arc<dyn Probe>) {
        self.probes.lock().expect("probe lock").push(probe.clone());
        if self.limits.evidence != EvidenceMode::All {
            return;
        }
        let snap = probe.snapshot().await;
        let step = self.cursor.lock().expect("cursor lock").step;
        if step > 0 {
            // Nothing happened "during" the step for this probe yet.
            let snap = snap.map(|s| Snapshot {
                state: s.state,
                during: vec![],
            });
            self.write_snapshots(step, &[(probe.prefix().to_string(), snap)], Side::Before);
        }
    }

    /// Whether browser screenshots cover the whole page (`HARSHJUDGE_FULL_PAGE`).
    pub fn full_page(&self) -> bool {
        self.limits.full_page
    }

    fn probes(&self) -> Vec<Arc<dyn Probe>> {
        self.probes.lock().expect("probe lock").clone()
    }

    /// Every probe's snapshot, taken concurrently. A probe that fails leaves a
    /// `{prefix}probe-error.txt` instead.
    async fn snapshot_probes(&self) -> Captures {
        let probes = self.probes();
        let futures = probes
            .iter()
            .map(|p| async move { (p.prefix().to_string(), p.snapshot().await) });
        futures_util::future::join_all(futures).await
    }

    /// [`snapshot_probes`](Self::snapshot_probes) once the steps are over (no
    /// step limit runs): a probe that does not answer within
    /// [`CAPTURE_LIMIT`] leaves its `probe-error.txt` saying so, and marks the
    /// scenario's browser unresponsive.
    async fn snapshot_probes_bounded(&self) -> Captures {
        let probes = self.probes();
        let futures = probes.iter().map(|p| async move {
            let snap = self.bounded(p.snapshot()).await;
            (p.prefix().to_string(), snap)
        });
        futures_util::future::join_all(futures).await
    }

    /// Whether a probe did not answer within [`CAPTURE_LIMIT`].
    fn is_unresponsive(&self) -> bool {
        self.unresponsive.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// `capture` within [`CAPTURE_LIMIT`], else an error naming the limit.
    async fn bounded<T>(
        &self,
        capture: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        match tokio::time::timeout(CAPTURE_LIMIT, capture).await {
            Ok(r) => r,
            Err(_) => {
                self.unresponsive
                    .store(true, std::sync::atomic::Ordering::SeqCst);
                Err(Error::msg(format!(
                    "no answer within {} s, so no evidence from it (a browser held by a \
                     navigation that never finishes loading, a server that never answers); \
                     the scenario's browser sessions are closed rather than reused",
                    CAPTURE_LIMIT.as_secs()
                )))
            }
        }
    }

    /// What step `id` printed (`log!`), as its evidence `log.txt`, written
    /// off the step's critical path before its end is told.
    fn write_log(&self, id: &StepId, text: &str) {
        let name = EvidenceName::new("log").expect("a valid name");
        let _ = self.stream.emit(&Event::EvidenceProduced {
            slug: self.stream.slug(),
            id,
            file: NewEvidence {
                name: &name,
                ext: "txt",
                kind: "text",
                bytes: text.as_bytes(),
            },
            urgency: Urgency::Background,
        });
    }

    /// Emits snapshots as evidence of step `n`: `Before` as the state's
    /// `{prefix}before.*`; `After` as `{prefix}after.*` plus what happened
    /// during the step. The store writer writes them off the step's path.
    fn write_snapshots(
        &self,
        n: usize,
        snapshots: &[(String, Result<Snapshot, Error>)],
        side: Side,
    ) {
        let id = Self::step_id(n);
        for (prefix, snap) in snapshots {
            let lead = if prefix.is_empty() {
                String::new()
            } else {
                format!("{prefix}-")
            };
            let mut items: Vec<(String, &Item)> = Vec::new();
            let error_item;
            match snap {
                Ok(snap) => {
                    if let Some(state) = &snap.state {
                        let word = match side {
                            Side::Before => "before",
                            Side::After => "after",
                            Side::Error => "error",
                        };
                        items.push((format!("{lead}{word}"), state));
                        if side == Side::Error {
                            items.push((format!("{lead}after"), state));
                        }
                    }
                    if side != Side::Before {
                        items.extend(snap.during.iter().map(|i| (format!("{lead}{}", i.name), i)));
                    }
                }
                Err(e) => {
                    error_item = Item::new("probe-error", "txt", "text", e.message().into_bytes());
                    items.push((format!("{lead}probe-error"), &error_item));
                }
            }
            for (name, item) in items {
                let Ok(name) = EvidenceName::new(name) else {
                    continue;
                };
                // Encoded already; the store writer writes the file (and its
                // sidecar) off the step's critical path. A run already final
                // takes no more evidence.
                let _ = self.stream.emit(&Event::EvidenceProduced {
                    slug: self.stream.slug(),
                    id: &id,
                    file: NewEvidence {
                        name: &name,
                        ext: item.ext,
                        kind: item.kind,
                        bytes: &item.bytes,
                    },
                    urgency: Urgency::Background,
                });
            }
        }
    }

    /// Evidence of a failed step: each probe's state (as `error` and `after`),
    /// what happened during the step, and the probe's own failure extras.
    async fn capture_failure(&self, n: usize) {
        if self.limits.evidence == EvidenceMode::Off {
            return;
        }
        let snapshots = self.snapshot_probes_bounded().await;
        self.write_snapshots(n, &snapshots, Side::Error);
        if self.is_unresponsive() {
            // Its extras would wait on the same held browser.
            return;
        }
        let probes = self.probes();
        let extras =
            futures_util::future::join_all(probes.iter().map(|p| async move {
                (p.prefix().to_string(), self.bounded(p.on_failure()).await)
            }))
            .await;
        let as_snapshots: Captures = extras
            .into_iter()
            .map(|(prefix, r)| {
                (
                    prefix,
                    r.map(|items| Snapshot {
                        state: None,
                        during: items,
                    }),
                )
            })
            .collect();
        self.write_snapshots(n, &as_snapshots, Side::After);
    }

    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        c: &mut Cursor,
        n: usize,
        started: Instant,
        status: StepStatus,
        error: Option<String>,
        location: Option<String>,
        reason: Option<String>,
    ) {
        let id = Self::step_id(n);
        let duration = if status == StepStatus::Skipped {
            Duration::ZERO
        } else {
            started.elapsed()
        };
        let outcome = StepOutcome {
            index: n,
            evidence_dir: self.stream.evidence_dir(&id),
            id,
            title: self.def.steps[n - 1].title.to_string(),
            status,
            duration,
            error,
            location,
            reason,
            expectation: self.def.steps[n - 1].expect.map(str::to_string),
        };
        if let Some(text) = self.output.take() {
            self.write_log(&outcome.id, &text);
        }
        // The status the consumers heard: failed when it could not be recorded.
        (self.video).step_ended(n, &outcome.title, started, duration, status);
        let heard = match self.stream.emit(&Event::StepFinished {
            slug: self.stream.slug(),
            outcome: &outcome,
        }) {
            Ok(Recorded::Step(status)) => status,
            _ => outcome.status,
        };
        c.finished.push(heard);
        c.step = 0;
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Before,
    After,
    Error,
}

enum End {
    Returned(Result<crate::error::Result, Panicked>),
    Stopped,
    StepTimeout(Duration, &'static str),
    /// The step's code went through, but it fails at its end: its pages
    /// logged errors (`HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS`), or soft
    /// assertions failed. Why, and where.
    FailedAtClose(String, Option<String>),
    ScenarioTimeout(Duration, &'static str),
    Interrupted(String),
}

/// The interruption of the whole process (Ctrl-C, SIGTERM): the reason, once set.
fn interrupt_channel() -> &'static tokio::sync::watch::Sender<Option<String>> {
    static CHANNEL: std::sync::OnceLock<tokio::sync::watch::Sender<Option<String>>> =
        std::sync::OnceLock::new();
    CHANNEL.get_or_init(|| tokio::sync::watch::channel(None).0)
}

/// Stops every running scenario: each marks its run interrupted with `reason`.
pub(crate) fn interrupt_all(reason: String) {
    interrupt_channel().send_replace(Some(reason));
}

/// Why the process is being interrupted, if it is.
pub(crate) fn interrupted() -> Option<String> {
    interrupt_channel().borrow().clone()
}

/// Runs the scenario to its end and finalises the run.
pub(crate) async fn execute(shared: Arc<Shared>) {
    install_panic_hook();
    let _ = shared.stream.emit(&Event::RunStarted {
        slug: shared.stream.slug(),
        run_id: shared.stream.run_id(),
        run_dir: shared.stream.dir(),
    });
    let mut interrupt = interrupt_channel().subscribe();
    let already = interrupt.borrow_and_update().clone();
    if let Some(reason) = already {
        finalize(&shared, End::Interrupted(reason)).await;
        return;
    }
    let handle = Scenario {
        shared: shared.clone(),
    };
    let mut fut = CatchPanic(Box::pin(crate::output::scope(
        shared.output.clone(),
        harshjudge_browser::soft::scope(soft::sink(&shared), with_before_hook(&shared, handle)),
    )));
    let scenario_deadline = shared
        .scenario_limit()
        .map(|(d, src)| (Instant::now() + d, d, src));
    let end = loop {
        let step_deadline = {
            let c = shared.cursor.lock().expect("cursor lock");
            c.deadline.filter(|_| c.opening.0 == 0)
        };
        let deadline = match (step_deadline, scenario_deadline.map(|s| s.0)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let sleep = async move {
            match deadline {
                Some(d) => tokio::time::sleep_until(d.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            r = &mut fut => break End::Returned(r),
            Ok(()) = interrupt.changed() => {
                let reason = interrupt.borrow_and_update().clone();
                if let Some(reason) = reason {
                    break End::Interrupted(reason);
                }
            }
            _ = shared.notify.notified() => {
                let mut c = shared.cursor.lock().expect("cursor lock");
                if let Some((why, at)) = c.end_failure.take() {
                    break End::FailedAtClose(why, at);
                }
                if c.stop {
                    break End::Stopped;
                }
            }
            _ = sleep => {
                let now = Instant::now();
                if let Some((at, d, src)) = scenario_deadline && now >= at {
                    break End::ScenarioTimeout(d, src);
                }
                let c = shared.cursor.lock().expect("cursor lock");
                if c.step > 0 && c.opening.0 == 0 && c.deadline.is_some_and(|d| now >= d) {
                    let (d, src) = shared.step_limit(c.step).expect("a deadline has a limit");
                    break End::StepTimeout(d, src);
                }
            }
        }
    };
    // Drop the scenario's future (and what it holds) before the run is final.
    drop(fut);
    // The last step's console, when errors fail a step.
    let end = match end {
        End::Returned(Ok(Ok(()))) if shared.cursor.lock().expect("cursor lock").step > 0 => {
            match shared.end_failure().await {
                Some((why, at)) => End::FailedAtClose(why, at),
                None => End::Returned(Ok(Ok(()))),
            }
        }
        end => end,
    };
    finalize(&shared, end).await;
}

/// The scenario's future: its function, after its fixtures' set-up and its
/// `before` hook (run inside step 1, which the runner begins for them; a
/// failure fails step 1, naming the fixture or the hook).
fn with_before_hook(shared: &Arc<Shared>, handle: Scenario) -> ScenarioFuture {
    let def = shared.def;
    if def.before.is_none() && def.fixtures.is_empty() {
        return (def.run)(handle);
    }
    let shared = shared.clone();
    Box::pin(async move {
        if shared.begin(1).await {
            return Ok(());
        }
        fixtures::set_up(&shared, &handle).await?;
        if let Some(hook) = def.before {
            (hook.run)(&handle)
                .await
                .map_err(|e| e.with_context(hook_failure("before", &hook)))?;
        }
        (def.run)(handle).await
    })
}

/// How a hook's failure begins: the hook, where it is named, where its evidence is.
fn hook_failure(which: &str, hook: &crate::registry::Hook) -> String {
    format!(
        "{which} hook `{}` (named at {}:{}; its evidence is in this step's) failed",
        hook.name, hook.file, hook.line
    )
}

/// Runs the `after` hook (panics caught, within the running step's limit or
/// 60 s): its failure, if it failed.
async fn run_after_hook(shared: &Arc<Shared>) -> Option<Error> {
    let hook = shared.def.after?;
    let step = shared.cursor.lock().expect("cursor lock").step;
    let limit = (step > 0)
        .then(|| shared.step_limit(step))
        .flatten()
        .map_or(Duration::from_secs(60), |(d, _)| d);
    let handle = Scenario {
        shared: shared.clone(),
    };
    let output = shared.output.clone();
    let fut: ScenarioFuture = Box::pin(crate::output::scope(output, async move {
        (hook.run)(&handle).await
    }));
    run_cleanup(fut, limit, hook_failure("after", &hook)).await
}

/// Runs a cleanup after the steps (the `after` hook, a fixture's teardown)
/// within `limit`, its panic caught: its failure, if it failed, beginning
/// with `context` (an error keeps where it was raised).
pub(super) async fn run_cleanup(
    fut: ScenarioFuture,
    limit: Duration,
    context: String,
) -> Option<Error> {
    match tokio::time::timeout(limit, CatchPanic(fut)).await {
        Ok(Ok(Ok(()))) => None,
        Ok(Ok(Err(e))) => Some(e.with_context(context)),
        Ok(Err(p)) => Some(Error::msg(format!(
            "{context}: panicked: {}{}",
            p.message,
            p.location.map(|l| format!(" at {l}")).unwrap_or_default()
        ))),
        Err(_) => Some(Error::msg(format!(
            "{context}: timed out after {}",
            format_duration(limit)
        ))),
    }
}

async fn finalize(shared: &Arc<Shared>, end: End) {
    let interrupted = match &end {
        End::Interrupted(reason) => Some(reason.clone()),
        _ => None,
    };
    let failing = |end: &End| {
        let c = shared.cursor.lock().expect("cursor lock");
        let failed = !matches!(
            end,
            End::Returned(Ok(Ok(()))) | End::Stopped | End::Interrupted(_)
        );
        (failed && c.step > 0).then_some(c.step)
    };
    let mut failing_step = failing(&end);
    // A step that failed while the app under test (`main!(web_server = â¦)`) is
    // down: its failure says so first, with the server's last lines as evidence.
    let server_down = match failing_step {
        Some(n) => server_down(shared, n).await,
        None => None,
    };
    if let Some(n) = failing_step {
        shared.capture_failure(n).await;
    }
    // The `after` hook runs however the steps ended (not when interrupted).
    let after = match interrupted {
        None => run_after_hook(shared).await,
        Some(_) => None,
    };
    // Then the fixtures, in reverse order (also when interrupted); their
    // failures are told after the `after` hook's.
    let torn = fixtures::tear_down(shared).await;
    let after = torn.into_iter().fold(after, |after, failure| {
        Some(match after {
            None => failure,
            Some(e) => Error::located(
                format!("{}\nthen {}", e.message(), failure.message()),
                e.location(),
            ),
        })
    });
    if failing_step.is_none() && after.is_some() {
        let step = shared.cursor.lock().expect("cursor lock").step;
        if step > 0 {
            failing_step = Some(step);
            shared.capture_failure(step).await;
        }
    }
    if failing_step.is_none()
        && shared.limits.evidence == EvidenceMode::All
        && interrupted.is_none()
        && !shared.is_unresponsive()
    {
        // The last step's `after`.
        let step = shared.cursor.lock().expect("cursor lock").step;
        if step > 0 {
            let snaps = shared.snapshot_probes_bounded().await;
            shared.write_snapshots(step, &snaps, Side::After);
        }
    }
    // The running step's trace, before its end is told (judges and its
    // evidence listing see the file).
    let step = shared.cursor.lock().expect("cursor lock").step;
    if step > 0 {
        let failed = failing_step.is_some() || interrupted.is_some();
        shared.trace_step(step, failed).await;
    }
    // `HARSHJUDGE_PAUSE=on-failure`: the failed step's browser as it stands,
    // its evidence and trace written, before its pages close.
    if let Some(n) = failing_step
        && interrupted.is_none()
    {
        shared.pause_on_failure(n).await;
    }
    record_outcomes(shared, end, server_down, after);
    shared
        .stream
        .record_fixtures(shared.fixtures.take_records());
    shared.video.end(shared.run_dir()).await;
    // The browser sessions go back to the pool for the next scenario (reset
    // when taken), unless one did not answer: a session still held by its
    // browser would hold the next scenario too, so they are let go without
    // asking that browser anything (`Browsers::discard`).
    let pages: Vec<_> = std::mem::take(&mut *shared.pages.lock().expect("pages lock"));
    shared.probes.lock().expect("probe lock").clear();
    let unresponsive = shared.is_unresponsive();
    for page in pages {
        if unresponsive {
            shared.browsers.discard(page).await;
        } else {
            shared.browsers.release(page).await;
        }
    }
    // Every evidence file is on disk before the run is final; the store
    // writer then tells the consumers `RunFinished`.
    let ending = match &interrupted {
        Some(reason) => Ending::Interrupted(reason),
        None => Ending::Completed,
    };
    shared.stream.finish(ending).await;
}

/// Records how the scenario ended: the running step passes or fails, the rest
/// are skipped with the reason.
fn record_outcomes(shared: &Shared, end: End, server_down: Option<String>, after: Option<Error>) {
    let mut c = shared.cursor.lock().expect("cursor lock");
    let total = shared.def.steps.len();
    let was_interrupted = matches!(end, End::Interrupted(_));
    let failure: Option<(String, Option<String>)> = match end {
        End::Returned(Ok(Ok(()))) | End::Stopped => None,
        End::Returned(Ok(Err(e))) => Some((e.message(), Some(e.location().to_string()))),
        End::Returned(Err(p)) => Some((format!("panicked: {}", p.message), p.location)),
        End::StepTimeout(d, src) => Some((
            format!(
                "step timed out after {} (the step's limit, set by {src})",
                format_duration(d)
            ),
            step_location(shared.def, c.step),
        )),
        End::Interrupted(ref reason) => Some((reason.clone(), None)),
        End::FailedAtClose(ref why, ref at) => Some((
            why.clone(),
            at.clone().or_else(|| step_location(shared.def, c.step)),
        )),
        End::ScenarioTimeout(d, src) => Some((
            format!(
                "scenario timed out after {} (the whole scenario's limit, set by {src})",
                format_duration(d)
            ),
            step_location(shared.def, c.step),
        )),
    };
    // A fixture still setting up when a limit ended the step: named first.
    let failure = match (failure, shared.fixtures.stopped_setting_up()) {
        (Some((msg, loc)), Some(fixture)) => Some((format!("{fixture}: {msg}"), loc)),
        (failure, _) => failure,
    };
    // Soft assertions of the step that failed before it did: told first.
    let failure = match (
        failure,
        harshjudge_browser::soft::describe(&std::mem::take(&mut c.soft)),
    ) {
        (Some((msg, loc)), Some(soft)) => Some((format!("{soft}\nthen {msg}"), loc)),
        (failure, _) => failure,
    };
    // The `after` hook's failure: the failure when the steps passed, else added to it.
    let failure = match (failure, after) {
        (failure, None) => failure,
        (None, Some(e)) if !was_interrupted => Some((e.message(), Some(e.location().to_string()))),
        (Some((msg, loc)), Some(e)) => Some((format!("{msg}\nthen {}", e.message()), loc)),
        (None, Some(_)) => None,
    };
    let failure = match (failure, server_down) {
        (Some((msg, loc)), Some(down)) => Some((format!("{down}\n{msg}"), loc)),
        (failure, _) => failure,
    };
    let mut failed_at = None;
    if c.step > 0 {
        let (n, started) = (c.step, c.started);
        match failure {
            None => shared.finish(&mut c, n, started, StepStatus::Pass, None, None, None),
            Some((msg, loc)) => {
                failed_at = Some(n);
                shared.finish(&mut c, n, started, StepStatus::Fail, Some(msg), loc, None)
            }
        }
    } else if let Some((msg, loc)) = failure {
        // Failed before the first boundary: blame step 1.
        let n = c.finished.len() + 1;
        if n <= total {
            failed_at = Some(n);
            let started = c.started;
            shared.finish(&mut c, n, started, StepStatus::Fail, Some(msg), loc, None);
        }
    }
    let stopped = c.stop;
    let already_failed = c
        .finished
        .iter()
        .position(|s| *s == StepStatus::Fail)
        .map(|i| i + 1);
    for n in c.finished.len() + 1..=total {
        let reason = match (failed_at.or(already_failed), stopped) {
            _ if was_interrupted => "the run was interrupted".to_string(),
            (Some(f), _) => format!("step {f:02} failed"),
            (None, true) => "not selected by the test filter".to_string(),
            (None, false) => "the scenario returned before this step".to_string(),
        };
        let started = Instant::now();
        shared.finish(
            &mut c,
            n,
            started,
            StepStatus::Skipped,
            None,
            None,
            Some(reason),
        );
    }
}

/// When the app under test is down as step `n` fails: what happened to it
/// (said first in the failure), its last output lines written as the step's
/// evidence `web-server-output.txt`.
async fn server_down(shared: &Shared, n: usize) -> Option<String> {
    let down = tokio::task::spawn_blocking(crate::server::down)
        .await
        .ok()
        .flatten()?;
    let mut text = down.lines.join("\n");
    text.push('\n');
    if let Ok(name) = EvidenceName::new("web-server-output") {
        let _ = shared.stream.emit(&Event::EvidenceProduced {
            slug: shared.stream.slug(),
            id: &Shared::step_id(n),
            file: NewEvidence {
                name: &name,
                ext: "txt",
                kind: "text",
                bytes: text.as_bytes(),
            },
            urgency: Urgency::Now,
        });
    }
    Some(down.message)
}

/// Why a scenario cannot start with the storage state `name`: it was never
/// saved; names the setups that could save it.
fn never_saved(def: &ScenarioDef, name: &str) -> String {
    let mut could: Vec<&str> = def.depends_on.to_vec();
    let hint = if could.is_empty() {
        could = crate::registry::all()
            .into_iter()
            .filter(|d| d.setup)
            .map(|d| d.fn_name)
            .collect();
        if could.is_empty() {
            "no scenario of this suite is a setup: add one, `#[scenario(setup)]`, that calls it"
                .to_string()
        } else {
            format!(
                "the setup scenarios of this suite: {}; name the one that saves it in `#[scenario(depends_on = [...])]`",
                could.join(", ")
            )
        }
    } else {
        format!(
            "it depends on {}: one of them must call it (did it pass?)",
            could.join(", ")
        )
    };
    format!(
        "storage state {name:?} was never saved (`#[scenario(storage_state = {name:?})]` of `{}`): a setup scenario saves it with `page.save_storage_state({name:?})`; {hint}",
        def.fn_name
    )
}

/// Where step `n` is declared, `file:line`.
fn step_location(def: &ScenarioDef, n: usize) -> Option<String> {
    def.steps
        .get(n.checked_sub(1)?)
        .map(|s| format!("{}:{}", def.file, s.line))
}

// ---- the scenario handle's view of the run -----------------------------------

impl RunContext for Shared {
    fn slug(&self) -> &'static str {
        self.def.slug
    }

    fn title(&self) -> &'static str {
        self.def.title
    }

    fn base_url(&self) -> &str {
        &self.base_url
    }

    fn run_id(&self) -> &RunId {
        self.stream.run_id()
    }

    fn recorded_in(&self) -> harshjudge_store::store::Store {
        self.store.clone()
    }

    fn current_step(&self) -> Option<StepId> {
        Shared::current_step(self)
    }

    fn evidence_dir(&self, step: &StepId) -> std::path::PathBuf {
        self.stream.evidence_dir(step)
    }

    fn attach(
        &self,
        step: &StepId,
        file: NewEvidence<'_>,
    ) -> Result<std::path::PathBuf, StoreError> {
        let recorded = self.stream.emit(&Event::EvidenceProduced {
            slug: self.stream.slug(),
            id: step,
            file,
            urgency: Urgency::Now,
        })?;
        match recorded {
            Recorded::Written(path) => Ok(path),
            other => unreachable!("evidence written now answers its path, not {other:?}"),
        }
    }

    fn begin(&self, n: usize) -> BoxFuture<'_, bool> {
        Box::pin(Shared::begin(self, n))
    }

    fn probe(&self, probe: Arc<dyn Probe>) -> BoxFuture<'_, ()> {
        Box::pin(self.add_probe(probe))
    }

    fn pages(&self) -> Vec<harshjudge_browser::Page> {
        self.pages.lock().expect("pages lock").clone()
    }

    fn cookie_jar(&self) -> Result<crate::api::CookieJar, Error> {
        let jar = self.cookies.get_or_init(|| {
            let state = RunContext::storage_state(self).map_err(|e| e.message())?;
            let cookies = state.map(|s| s.cookies).unwrap_or_default();
            Ok(crate::api::CookieJar::from_cookies(cookies))
        });
        jar.clone().map_err(Error::msg)
    }

    fn storage_state(&self) -> Result<Option<harshjudge_browser::StorageState>, Error> {
        let Some(name) = self.def.storage_state else {
            return Ok(None);
        };
        match self.store.load_storage_state(name)? {
            Some(state) => Ok(Some(state)),
            None => Err(Error::msg(never_saved(self.def, name))),
        }
    }

    fn browsers(&self) -> &harshjudge_browser::Browsers {
        &self.browsers
    }

    fn fixture(&self, key: &str) -> Option<Arc<dyn std::any::Any + Send + Sync>> {
        self.fixtures.get(key)
    }

    fn page(
        self: Arc<Self>,
        emulation: Option<harshjudge_browser::Emulation>,
    ) -> BoxFuture<'static, Result<harshjudge_browser::Page, Error>> {
        Box::pin(async move {
            let mut config = harshjudge_browser::BrowserConfig::from_env()?;
            if let Some(b) = self.def.browser {
                config = config.for_browser(b);
            }
            config.emulation = emulation
                .or_else(|| self.def.emulation.map(|e| e()))
                .unwrap_or_default();
            // The password of HTTP authentication is a secret: masked in
            // everything written or printed from now on.
            if let Some(c) = &config.emulation.http_credentials {
                let _ = harshjudge_browser::secrets::add("HTTP_CREDENTIALS", &c.password);
            }
            // A browser slow to start on a busy machine leaves the step all
            // of its own time.
            let hold = ClockHold::new(self.clone());
            let page = self
                .browsers
                .open_page_with(&config, &self.base_url)
                .await?;
            drop(hold);
            page.set_owner(&self);
            if let Some(tracer) = &self.tracer {
                page.trace_into(tracer).await;
            }
            let others = RunContext::pages(&*self);
            self.pages.lock().expect("pages lock").push(page.clone());
            self.video.page_opened(&page, self.run_dir()).await;
            // The page starts with the scenario's cookies now (its storage
            // state's, what its requests or other pages set since) and the
            // state's localStorage: requests and pages share one jar.
            let origins = RunContext::storage_state(&*self)?.map(|s| s.origins);
            let jar = RunContext::cookie_jar(&*self)?;
            let state = harshjudge_browser::StorageState {
                cookies: crate::api::cookies::scenario_cookies(&others, &jar).await?,
                origins: origins.unwrap_or_default(),
            };
            page.restore_storage_state(&state).await?;
            let probe = PageProbe {
                page: page.clone(),
                full_page: self.full_page(),
            };
            self.add_probe(Arc::new(probe)).await;
            Ok(page)
        })
    }
}

// ---- panics ------------------------------------------------------------------

struct Panicked {
    message: String,
    location: Option<String>,
}

thread_local! {
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<(String, Option<String>)>> = const { RefCell::new(None) };
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CAPTURING.get() {
                let msg = info.payload_as_str().unwrap_or("Box<dyn Any>").to_string();
                let loc = info.location().map(|l| l.to_string());
                LAST_PANIC.set(Some((msg, loc)));
            } else {
                previous(info);
            }
        }));
    });
}

/// Polls the scenario future with panics caught and attributed (message and
/// location) instead of printed.
struct CatchPanic(ScenarioFuture);

impl Future for CatchPanic {
    type Output = Result<crate::error::Result, Panicked>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let was = CAPTURING.replace(true);
        let r = catch_unwind(AssertUnwindSafe(|| self.0.as_mut().poll(cx)));
        CAPTURING.set(was);
        match r {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(payload) => {
                let (message, location) = LAST_PANIC.take().unwrap_or_else(|| {
                    let m = payload
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "Box<dyn Any>".into());
                    (m, None)
                });
                Poll::Ready(Err(Panicked { message, location }))
            }
        }
    }
}

mod trace;

#[cfg(test)]
mod tests;

#[cfg(test)]
#[path = "hook_tests.rs"]
mod hook_tests;

#[cfg(test)]
#[path = "fixture_tests.rs"]
mod fixture_tests;

/// The evidence interface a page holds of the scenario that opened it
/// (`to_have_screenshot` keeps its baseline per scenario and attaches its
/// images to the step running): what `Scenario::attach` does.
impl harshjudge_browser::ScenarioEvidence for Shared {
    fn slug(&self) -> &str {
        self.def.slug
    }

    fn attach(
        self: Arc<Self>,
        name: &str,
        ext: &str,
        kind: &str,
        bytes: &[u8],
    ) -> std::result::Result<std::path::PathBuf, Box<dyn std::error::Error + Send + Sync>> {
        crate::scenario::Scenario { shared: self }
            .attach(name, ext, kind, bytes)
            .map_err(|e| e.message().into())
    }

    fn save_storage_state(
        &self,
        name: &harshjudge_browser::StateName,
        bytes: &[u8],
    ) -> std::result::Result<std::path::PathBuf, Box<dyn std::error::Error + Send + Sync>> {
        Ok(self.store.write_storage_state(name, bytes)?)
    }

    fn next_number(&self, kind: &str) -> usize {
        let mut numbers = self.numbers.lock().expect("numbers lock");
        let n = numbers.entry(kind.to_string()).or_default();
        *n += 1;
        *n
    }

    fn hold_clock(self: Arc<Self>) -> Box<dyn Send> {
        self.clock_hold()
    }

    fn step_label(&self) -> Option<String> {
        let n = self.cursor.lock().expect("cursor lock").step;
        let title = self.def.steps.get(n.checked_sub(1)?)?.title;
        Some(format!("step {n} \"{title}\""))
    }

    fn run_folder(&self) -> Option<std::path::PathBuf> {
        Some(self.run_dir().path())
    }
}
