//! Evidence of browser actions: while a run is active, each action's
//! before/after screenshots, console and network go into the current step.

use harshjudge_browser::{BrowserError, Page, StepTrace};
use harshjudge_store::recorder::RunHandle;
use harshjudge_store::store::{EvidenceName, NewEvidence, RunId, Slug, StepId};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::context::Context;
use crate::error::ToolError;

use super::{classify, no_session};

/// Evidence of one action, to write into the active run.
struct Captured {
    before: Option<Vec<u8>>,
    after: Option<Vec<u8>>,
    console: Value,
    network: Value,
    n: usize,
}

/// The step evidence goes to: the first step of the active run not completed yet.
pub(super) fn evidence_target(ctx: &Context) -> Option<(RunId, Slug, StepId)> {
    let (run, slug) = ctx.agent().active_run()?;
    let store = ctx.store();
    let result = store.scenario(&slug).run(&run).result().ok()??;
    if result.status != harshjudge_store::store::RunStatus::Running {
        ctx.agent().set_active_run(None);
        return None;
    }
    let meta = store.scenario(&slug).meta().ok()??;
    let step = meta
        .steps
        .iter()
        .find(|s| !result.steps.iter().any(|r| r.id == s.id))
        .or(meta.steps.last())?;
    Some((run, slug, StepId::new(step.id.clone()).ok()?))
}

/// The run and step a browser call made now belongs to, for its trace: the
/// step [`evidence_target`] gives (none: no run is active).
pub(super) fn trace_target(ctx: &Context) -> Option<(RunId, StepId)> {
    evidence_target(ctx).map(|(run, _, step)| (run, step))
}

/// Ends the trace of step `step` of run `run` (it `failed` or passed) when
/// the session's calls recorded into it: its files, when the trace mode
/// keeps such a step (`HARSHJUDGE_TRACE`), for the caller to write with the
/// step's result. The trace's next step begins either way.
pub(crate) fn end_step_trace(
    ctx: &Context,
    run: &RunId,
    step: &StepId,
    failed: bool,
) -> Result<Option<StepTrace>, ToolError> {
    let step = step.clone();
    Ok(end_trace_in(ctx, run, move |s| (*s == step).then_some(failed))?.map(|(_, t)| t))
}

/// Ends the trace of the step of run `run` the session's calls recorded
/// into, if any and if `failed` says how it ended (`None`: it did not end:
/// the trace goes on): the step and its files, when the mode keeps them.
pub(crate) fn end_trace_in(
    ctx: &Context,
    run: &RunId,
    failed: impl FnOnce(&StepId) -> Option<bool> + Send + 'static,
) -> Result<Option<(StepId, StepTrace)>, ToolError> {
    let agent = ctx.agent();
    let run = run.clone();
    agent.block_on({
        let agent = agent.clone();
        async move {
            let mut guard = agent.browser.lock().await;
            let session = guard.as_mut()?;
            let (_, step) = session.traced.clone().filter(|(r, _)| *r == run)?;
            let failed = failed(&step)?;
            session.traced = None;
            let tracer = session.tracer.clone()?;
            let pages = std::slice::from_ref(&session.page);
            let pages = (!agent.is_unresponsive()).then_some(pages);
            let trace = tracer
                .end_step(step.as_str(), failed, pages, TRACE_READ_LIMIT)
                .await?;
            Some((step, trace))
        }
    })
}

/// How long ending a step's trace waits for each read of the page.
const TRACE_READ_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// A browser action's result `T`, with the evidence it left in the active run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Acted<T> {
    /// The action's own result.
    #[serde(flatten)]
    pub result: T,
    /// Evidence files written into the current step (while a run is active),
    /// relative to the project.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
}

impl<T: Serialize> crate::dispatch::ToolOutput for Acted<T> {}

/// Runs one browser action: with a run active, a screenshot before and after
/// and the console and network of the action become evidence of the current step.
pub(super) fn act<T, F, Fut>(ctx: &Context, verb: &'static str, f: F) -> Result<Acted<T>, ToolError>
where
    T: Send + 'static,
    F: FnOnce(Page) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<T, BrowserError>> + Send,
{
    let target = evidence_target(ctx);
    let record = target.is_some();
    let step_key = target
        .as_ref()
        .map(|(run, _, step)| (run.clone(), step.clone()));
    let agent = ctx.agent();
    let (result, captured) = agent.block_on({
        let agent = agent.clone();
        async move {
            let mut guard = agent.browser.lock().await;
            let Some(session) = guard.as_mut() else {
                return (Err(no_session()), None);
            };
            session.trace_call_in(step_key);
            session.actions += 1;
            let n = session.actions;
            let page = session.page.clone();
            let before = if record {
                harshjudge_browser::untraced(page.screenshot()).await.ok()
            } else {
                None
            };
            let result = f(page.clone()).await.map_err(classify);
            let after = if record {
                harshjudge_browser::untraced(page.screenshot()).await.ok()
            } else {
                None
            };
            let (console, network) = page.take_logs().await.unwrap_or_default();
            let captured = record.then(|| Captured {
                before,
                after,
                console: serde_json::to_value(&console).unwrap_or_default(),
                network: serde_json::to_value(&network).unwrap_or_default(),
                n,
            });
            session.console.extend(console);
            session.network.extend(network);
            (result, captured)
        }
    })?;
    let mut files = vec![];
    if let (Some((run, slug, step)), Some(c)) = (target, captured) {
        match write_evidence(ctx, &run, &slug, &step, verb, c) {
            Ok(f) => files = f,
            Err(e) => tracing::warn!("evidence of {verb} could not be recorded: {e}"),
        }
    }
    Ok(Acted {
        result: result?,
        evidence: files,
    })
}

fn write_evidence(
    ctx: &Context,
    run: &RunId,
    slug: &Slug,
    step: &StepId,
    verb: &str,
    c: Captured,
) -> Result<Vec<String>, ToolError> {
    let mut handle = RunHandle::open_in(ctx.store(), slug, run)?;
    let prefix = format!("act{:02}-{verb}", c.n);
    let mut out = vec![];
    let mut put = |word: &str, ext: &str, kind: &str, bytes: Vec<u8>| -> Result<(), ToolError> {
        let name = EvidenceName::new(format!("{prefix}-{word}"))?;
        let w = handle.record_evidence(
            step,
            NewEvidence {
                name: &name,
                ext,
                kind,
                bytes: &bytes,
            },
            Default::default(),
        )?;
        out.push(ctx.rel(&w.path));
        Ok(())
    };
    if let Some(b) = c.before {
        put("before", "png", "screenshot", b)?;
    }
    if let Some(a) = c.after {
        put("after", "png", "screenshot", a)?;
    }
    let pretty = |v: &Value| serde_json::to_vec_pretty(v).expect("JSON serializes");
    if c.console.as_array().is_some_and(|a| !a.is_empty()) {
        put("console", "json", "console_log", pretty(&c.console))?;
    }
    if c.network.as_array().is_some_and(|a| !a.is_empty()) {
        put("network", "json", "network_log", pretty(&c.network))?;
    }
    Ok(out)
}
