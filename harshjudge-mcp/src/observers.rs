//! What follows every call in an agent's session, registered with the
//! [`Dispatcher`](crate::dispatch::Dispatcher) by [`crate::dispatcher`]:
//! the active run ([`ActiveRun`]), the knowledge store ([`Knowledge`]) and
//! the recording ([`Recorder`]). Each decides by the tool's
//! [`Group`] and the call's typed [`Effect`]s, never by a tool's wire name.

use crate::agent::{RecordedCall, recordable_args};
use crate::context::Context;
use crate::dispatch::{Call, Effect, Group, Observer};
use crate::knowledge::{StepRecord, compact_args};

/// Follows the run the agent is recording: set by a started run, cleared
/// when that run is completed (browser evidence goes to it in between).
pub struct ActiveRun;

impl Observer for ActiveRun {
    fn observe(&self, ctx: &Context, call: &Call<'_>) {
        let agent = ctx.agent();
        for effect in &call.outcome.effects {
            match effect {
                Effect::RunStarted { run, slug } => {
                    agent.set_active_run(Some((run.clone(), slug.clone())));
                }
                Effect::RunCompleted { run } => {
                    if agent.active_run().is_some_and(|(r, _)| r == *run) {
                        agent.set_active_run(None);
                    }
                }
            }
        }
    }
}

/// Keeps every call (but the knowledge tools' own) in the project's
/// knowledge store once the project exists, with the page a browser action
/// left.
pub struct Knowledge;

impl Observer for Knowledge {
    fn observe(&self, ctx: &Context, call: &Call<'_>) {
        if call.tool.group == Group::Knowledge || !ctx.store().is_initialized() {
            return;
        }
        let (name, out) = (call.tool.name, call.outcome);
        let mut step = StepRecord::new(name, compact_args(call.args));
        step.ok = !out.is_error();
        step.code = out.code.map(|c| c.as_str().to_string());
        step.error = out.value["error"].as_str().map(String::from);
        step.duration_ms = out.elapsed.as_secs_f64() * 1000.0;
        if call.tool.group == Group::Browser
            && crate::tools::browser::is_action(name)
            && let Some((url, title, test_ids)) = crate::tools::browser::observe(ctx)
        {
            step.observation.url = Some(url);
            step.observation.title = Some(title);
            step.observation.test_ids = test_ids;
        }
        // Browser results are untyped JSON (tools/browser.rs): the element
        // an action resolved to is read from them.
        step.observation.text = out.value["locator"]
            .as_str()
            .or(out.value["clicked"].as_str())
            .map(String::from);
        let agent = ctx.agent();
        if let Err(e) = agent.knowledge(ctx.store()).record(step) {
            tracing::warn!("the knowledge store could not record {name}: {e}");
        }
    }
}

/// Adds each call (but recording, replay and knowledge tools) to the
/// recording in progress, if any.
pub struct Recorder;

impl Observer for Recorder {
    fn observe(&self, ctx: &Context, call: &Call<'_>) {
        if matches!(call.tool.group, Group::Recording | Group::Knowledge) {
            return;
        }
        let agent = ctx.agent();
        let out = call.outcome;
        if let Ok(mut rec) = agent.recording.lock()
            && let Some(rec) = rec.as_mut()
        {
            let kept = rec.push(RecordedCall {
                tool: call.tool.name.to_string(),
                args: recordable_args(call.args),
                ok: !out.is_error(),
                code: out.code.map(|c| c.as_str().to_string()),
                duration_ms: (out.elapsed.as_secs_f64() * 1_000_000.0).round() / 1000.0,
                locator: out.value["locator"].as_str().map(String::from),
            });
            if !kept && rec.dropped == 1 {
                tracing::warn!("{}", rec.warning().unwrap_or_default());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::json;

    use crate::dispatch::{Call, Dispatcher, Effect, Observer};

    /// The tool name and effects of every call an observer was told about.
    type Calls = Arc<Mutex<Vec<(String, Vec<Effect>)>>>;

    /// Keeps the tool name and effects of every call it is told about.
    struct Seen(Calls);

    impl Observer for Seen {
        fn observe(&self, _ctx: &crate::Context, call: &Call<'_>) {
            self.0
                .lock()
                .unwrap()
                .push((call.tool.name.into(), call.outcome.effects.clone()));
        }
    }

    #[test]
    fn observers_registered_on_a_dispatcher_get_typed_effects() {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = crate::Context::new(tmp.path()).unwrap();
        let seen = Arc::new(Mutex::new(vec![]));
        let d = Dispatcher::new(crate::tools::all())
            .observe(super::ActiveRun)
            .observe(Seen(seen.clone()));
        assert!(
            !d.call(&ctx, "initProject", Some(json!({"projectName": "p"})))
                .is_error()
        );
        let steps = json!([{"title": "a", "actions": "x", "expectedOutcome": "y"}]);
        let out = d.call(
            &ctx,
            "createScenario",
            Some(json!({"slug": "s", "title": "S", "steps": steps})),
        );
        assert!(!out.is_error(), "{}", out.value);
        let out = d.call(&ctx, "startRun", Some(json!({"scenarioSlug": "s"})));
        let run = out.value["runId"].as_str().unwrap().to_string();
        assert_eq!(ctx.agent().active_run().unwrap().0.as_str(), run);
        // A batch is not observed itself: its calls are.
        let out = d.call(
            &ctx,
            "run_steps",
            Some(json!({"steps": [{"tool": "completeRun", "args": {"runId": run}}]})),
        );
        assert!(!out.is_error(), "{}", out.value);
        assert!(ctx.agent().active_run().is_none());
        let seen = seen.lock().unwrap();
        let names: Vec<&str> = seen.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["initProject", "createScenario", "startRun", "completeRun"]
        );
        assert!(matches!(seen[2].1[..], [Effect::RunStarted { .. }]));
        assert!(matches!(seen[3].1[..], [Effect::RunCompleted { .. }]));
    }
}
