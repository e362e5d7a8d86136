//! `run_steps`: several tool calls in one round trip, each through the same
//! execution path as a call of its own (validation, timing, logging, codes).

use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
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
    /// none | failures | all: the page's url and title after a step, when a
    /// browser is open (default: all with `detail`, else failures).
    #[serde(default)]
    pub include_observations: Option<Observations>,
    /// Every call's full result and timing (default false: one small object
    /// per call, with what it did, its error's first line and its evidence).
    #[serde(default)]
    pub detail: bool,
}

/// What `run_steps` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BatchResult {
    /// One per call run, in order: a [`StepBrief`], or with `detail` the
    /// call's full result.
    pub steps: Vec<StepReport<BatchStepResult>>,
    /// The batch as a whole.
    pub summary: BatchSummary,
}

/// One call of a batch or a replay, as reported: in brief (the default) or in
/// detail (`detail: true`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum StepReport<T> {
    /// The call's full result and timing.
    Detail(T),
    /// A small object: what the call did, its error's first line, its evidence.
    Brief(StepBrief),
}

/// One call of a batch or a replay in brief: what a model needs to go on.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StepBrief {
    /// 1-based.
    pub index: usize,
    /// The tool.
    pub tool: String,
    /// Whether it succeeded.
    pub ok: bool,
    /// What it did, in one line (a browser action: the locator it resolved to).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub did: Option<String>,
    /// Its error when it failed: the code and the first line of the message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Evidence files it wrote (while a run is active), relative to the project.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
    /// The page after the call, when asked for and a browser is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation: Option<PageObservation>,
    /// A `browser_snapshot`'s lines: what the tool alone gives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
}

impl StepBrief {
    /// The brief of call `index` (1-based) of `tool`, whose outcome is `value`
    /// (its result, or its `{"error", "code"}` when `ok` is false).
    pub fn of(index: usize, tool: &str, ok: bool, value: &Value) -> StepBrief {
        let (did, error) = if ok {
            (super::lean::line(tool, value), None)
        } else {
            let e = CallError::of(value);
            let first = e.message.lines().next().unwrap_or_default();
            (None, Some(format!("{}: {first}", e.code)))
        };
        StepBrief {
            index,
            tool: tool.to_string(),
            ok,
            did,
            error,
            evidence: value["evidence"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|f| f.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default(),
            observation: None,
            snapshot: (ok && tool == "browser_snapshot")
                .then(|| value["snapshot"].as_str().map(String::from))
                .flatten(),
        }
    }
}

/// One call of a batch, as run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BatchStepResult {
    /// The tool.
    pub tool: String,
    /// Whether it succeeded.
    pub ok: bool,
    /// Its timing.
    pub meta: CallMeta,
    /// Its result when it succeeded: open, the tool's own result (see that
    /// tool's output schema).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub result: Option<Value>,
    /// Its error when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CallError>,
    /// The page after the call, when asked for and a browser is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation: Option<PageObservation>,
}

/// When a call of a batch ran and how long it took.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallMeta {
    /// Milliseconds, to the microsecond.
    pub duration_ms: f64,
    /// When it started, ISO 8601.
    pub timestamp: String,
}

/// A failed call's error.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CallError {
    /// The stable error code (`INVALID_INPUT`, `NOT_FOUND`, …).
    pub code: String,
    /// What went wrong.
    pub message: String,
}

impl CallError {
    /// The error of a failed call's `{"error", "code"}`.
    pub fn of(failure: &Value) -> CallError {
        let s = |k: &str| failure[k].as_str().unwrap_or_default().to_string();
        CallError {
            code: s("code"),
            message: s("error"),
        }
    }
}

/// The page after a call of a batch.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageObservation {
    /// Its URL.
    pub url: String,
    /// Its title.
    pub title: String,
    /// How many `data-testid`s it has.
    pub test_ids: usize,
}

/// The summary of a batch.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchSummary {
    /// No call failed.
    pub ok: bool,
    /// Calls run.
    pub total: usize,
    /// Calls that succeeded.
    pub succeeded: usize,
    /// Calls that failed.
    pub failed: usize,
    /// Calls not run (after a failure with stopOnError).
    pub skipped: usize,
    /// Milliseconds, to the microsecond.
    pub duration_ms: f64,
}

crate::plain_output!(BatchResult);

/// Runs the steps in order.
pub fn run_steps(ctx: &Context, d: &Dispatcher, a: RunSteps) -> Result<BatchResult, ToolError> {
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
    let observations = a.include_observations.unwrap_or(if a.detail {
        Observations::All
    } else {
        Observations::Failures
    });
    for (i, step) in a.steps.into_iter().enumerate() {
        let timestamp = harshjudge_store::store::now_iso();
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
        let observe = match observations {
            Observations::None => false,
            Observations::Failures => !ok,
            Observations::All => true,
        };
        let observation = observe
            .then(|| super::browser::observed_after(ctx, &step.tool))
            .flatten()
            .map(|(url, title, test_ids)| PageObservation {
                url,
                title,
                test_ids: test_ids.len(),
            });
        if ok {
            succeeded += 1;
        } else {
            failed += 1;
        }
        results.push(if a.detail {
            StepReport::Detail(BatchStepResult {
                tool: step.tool,
                ok,
                meta: CallMeta {
                    duration_ms: (out.elapsed.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
                    timestamp,
                },
                error: (!ok).then(|| CallError::of(&out.value)),
                result: ok.then_some(out.value),
                observation,
            })
        } else {
            let mut brief = StepBrief::of(i + 1, &step.tool, ok, &out.value);
            brief.observation = observation;
            StepReport::Brief(brief)
        });
        if !ok && a.stop_on_error {
            break;
        }
    }
    let total = results.len();
    Ok(BatchResult {
        steps: results,
        summary: BatchSummary {
            ok: failed == 0,
            total,
            succeeded,
            failed,
            skipped: requested - total,
            duration_ms: (start.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
        },
    })
}
