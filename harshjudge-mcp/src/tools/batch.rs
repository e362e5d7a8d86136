//! `run_steps`: several tool calls in one round trip, each through the same
//! execution path as a call of its own (validation, timing, logging, codes).

use std::time::Instant;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::context::Context;
use crate::dispatch::{Dispatcher, Outcome};
use crate::error::ToolError;

/// One call of a batch.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchStep {
    /// The tool's name (any tool but run_steps).
    pub tool: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Option<Map<String, Value>>,
}

/// When a step's result carries an observation of the page.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Observations {
    /// Never (fastest).
    None,
    /// Only for failed steps.
    Failures,
    /// For every step (default).
    #[default]
    All,
}

/// Arguments of `run_steps`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunSteps {
    /// 1 to 50 tool calls, run in order.
    pub steps: Vec<BatchStep>,
    /// Stop at the first failed step (default false: go on).
    #[serde(default)]
    pub stop_on_error: bool,
    /// none | failures | all (default all): the page's url and title after a step,
    /// when a browser is open.
    #[serde(default)]
    pub include_observations: Observations,
}

/// Runs the steps in order.
pub fn run_steps(ctx: &Context, d: &Dispatcher, a: RunSteps) -> Result<Value, ToolError> {
    if a.steps.is_empty() || a.steps.len() > 50 {
        return Err(ToolError::invalid(format!(
            "steps must hold 1 to 50 tool calls (got {})",
            a.steps.len()
        )));
    }
    let start = Instant::now();
    let requested = a.steps.len();
    let mut results = Vec::with_capacity(a.steps.len());
    let (mut succeeded, mut failed) = (0usize, 0usize);
    for step in a.steps {
        let timestamp = harshjudge::store::now_iso();
        let out = if step.tool == "run_steps" {
            Outcome {
                value: json!({"error": "run_steps cannot be nested: list the calls in one batch", "code": "INVALID_INPUT"}),
                code: Some(crate::error::Code::InvalidInput),
                elapsed: std::time::Duration::ZERO,
                effects: Vec::new(),
            }
        } else {
            d.call(ctx, &step.tool, step.args.map(Value::Object))
        };
        let ok = !out.is_error();
        let mut r = json!({
            "tool": step.tool,
            "ok": ok,
            "meta": {
                "durationMs": (out.elapsed.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
                "timestamp": timestamp,
            },
        });
        if ok {
            succeeded += 1;
            r["result"] = out.value;
        } else {
            failed += 1;
            r["error"] = json!({
                "code": out.value["code"],
                "message": out.value["error"],
            });
        }
        let observe = match a.include_observations {
            Observations::None => false,
            Observations::Failures => !ok,
            Observations::All => true,
        };
        let tool = r["tool"].as_str().unwrap_or_default().to_string();
        if observe && let Some((url, title, test_ids)) = super::browser::observed_after(ctx, &tool)
        {
            r["observation"] = json!({"url": url, "title": title, "testIds": test_ids.len()});
        }
        results.push(r);
        if !ok && a.stop_on_error {
            break;
        }
    }
    let total = results.len();
    Ok(json!({
        "steps": results,
        "summary": {
            "ok": failed == 0,
            "total": total,
            "succeeded": succeeded,
            "failed": failed,
            "skipped": requested - total,
            "durationMs": (start.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
        },
    }))
}
