//! Record and replay: `record_start` … `record_stop` keeps the tool calls an
//! agent makes as a sequence in `.harshJudge/sequences/{id}.json`;
//! `record_replay` runs one again without an LLM (with `{{variable}}`
//! placeholders filled in, optionally recorded as a run with evidence);
//! `record_export` (in `export.rs`) turns one into a Rust `#[scenario]` using
//! the page API.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use harshjudge_store::store::RunId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::agent::{RecordedCall, Recording};
use crate::context::Context;
use crate::dispatch::{Dispatcher, Outcome};
use crate::error::{Code, ToolError};

/// A saved sequence (what `record_get` returns).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Sequence {
    /// Its id (file name).
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: Option<String>,
    /// When the recording started.
    pub created_at: String,
    /// The `{{variable}}` names its calls use.
    #[serde(default)]
    pub variables: Vec<String>,
    /// The calls, in order.
    pub calls: Vec<RecordedCall>,
}

/// What `record_start` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordingStarted {
    /// Always true.
    pub success: bool,
    /// The sequence's id.
    pub sequence_id: String,
    /// Its name.
    pub name: String,
    /// Always true.
    pub recording: bool,
    /// What one recording keeps at most.
    pub limits: RecordingLimits,
}

/// What one recording keeps at most.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordingLimits {
    /// Calls.
    pub calls: usize,
    /// Bytes of arguments in all.
    pub bytes: usize,
    /// Bytes of one string argument.
    pub string_bytes: usize,
}

/// What `record_stop` returns: a saved sequence, or how many calls were discarded.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordingStopped {
    /// Always true.
    pub success: bool,
    /// Whether the sequence was saved.
    pub saved: bool,
    /// The saved sequence's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence_id: Option<String>,
    /// Its file, relative to the project.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Calls saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<usize>,
    /// The `{{variable}}` names its calls use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variables: Option<Vec<String>>,
    /// What the recording could not keep.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// Calls discarded (`save: false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discarded: Option<usize>,
}

/// What `record_list` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SequenceList {
    /// How many.
    pub count: usize,
    /// Newest first (unreadable ones last).
    pub sequences: Vec<SequenceEntry>,
}

/// One saved sequence in [`SequenceList`].
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum SequenceEntry {
    /// A readable sequence.
    Saved(SequenceSummary),
    /// A file that is no valid sequence.
    Unreadable {
        /// Its id (file name).
        #[serde(rename = "sequenceId")]
        sequence_id: String,
        /// What is wrong.
        error: String,
    },
}

/// A readable saved sequence.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SequenceSummary {
    /// Its id.
    pub sequence_id: String,
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
    /// When the recording started.
    pub created_at: String,
    /// Calls.
    pub calls: usize,
    /// The `{{variable}}` names its calls use.
    pub variables: Vec<String>,
}

/// What `record_delete` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SequenceDeleted {
    /// Always true.
    pub success: bool,
    /// The id deleted.
    pub deleted: String,
}

/// What `record_replay` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Replayed {
    /// The sequence.
    pub sequence_id: String,
    /// One per call run, in order: a [`super::batch::StepBrief`], or with
    /// `detail` the call's full result.
    pub steps: Vec<super::batch::StepReport<ReplayStep>>,
    /// The replay as a whole.
    pub summary: ReplaySummary,
    /// The run, when the replay was recorded as one.
    #[serde(flatten)]
    pub run: Option<ReplayRun>,
}

/// One call of a replay.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplayStep {
    /// 1-based.
    pub index: usize,
    /// The tool.
    pub tool: String,
    /// Whether it succeeded now.
    pub ok: bool,
    /// Whether it succeeded when recorded.
    pub recorded_ok: bool,
    /// Its timing.
    pub meta: ReplayMeta,
    /// Its result when it succeeded: open, the tool's own result.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub result: Option<Value>,
    /// Its error when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<super::batch::CallError>,
}

/// How long a replayed call took.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplayMeta {
    /// Milliseconds, to the microsecond.
    pub duration_ms: f64,
}

/// The summary of a replay.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplaySummary {
    /// Every call ran and succeeded.
    pub ok: bool,
    /// Calls in the sequence.
    pub total: usize,
    /// Calls run.
    pub ran: usize,
    /// Calls that succeeded.
    pub succeeded: usize,
    /// Calls that failed.
    pub failed: usize,
    /// Milliseconds.
    pub duration_ms: u64,
}

/// The run a replay was recorded as.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplayRun {
    /// Its id.
    pub run_id: String,
    /// pass or fail; null when it could not be completed.
    pub run_status: Option<String>,
}

crate::plain_output!(
    RecordingStarted,
    RecordingStopped,
    SequenceList,
    Sequence,
    SequenceDeleted,
    Replayed,
);

fn seq_id(s: &str) -> Result<RunId, ToolError> {
    RunId::new(s).map_err(|_| {
        ToolError::invalid(format!(
            "sequenceId {s:?} is not a sequence id (letters, digits, _ and -, as record_list shows them)"
        ))
    })
}

pub(super) fn load(ctx: &Context, id: &str) -> Result<Sequence, ToolError> {
    let id = seq_id(id)?;
    let path = ctx.store().sequence_path(&id);
    let bytes = ctx.store().read_file(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            ToolError::not_found(format!(
                "no sequence {id}: record_list shows the saved ones"
            ))
        } else {
            ToolError::new(Code::Internal, format!("{}: {e}", path.display()))
        }
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        ToolError::new(
            Code::Corrupt,
            format!("{}: not a valid sequence: {e}", ctx.rel(&path)),
        )
    })
}

/// `{{name}}` placeholders in a value.
fn placeholders(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) => {
            let mut rest = s.as_str();
            while let Some(i) = rest.find("{{") {
                let after = &rest[i + 2..];
                let Some(j) = after.find("}}") else { break };
                let name = after[..j].trim();
                if !name.is_empty() {
                    out.insert(name.to_string());
                }
                rest = &after[j + 2..];
            }
        }
        Value::Array(a) => a.iter().for_each(|x| placeholders(x, out)),
        Value::Object(o) => o.values().for_each(|x| placeholders(x, out)),
        _ => {}
    }
}

pub(super) fn substitute(v: &Value, vars: &BTreeMap<String, String>) -> Value {
    match v {
        Value::String(s) => {
            let mut out = s.clone();
            for (k, val) in vars {
                out = out.replace(&format!("{{{{{k}}}}}", k = k), val);
                out = out.replace(&format!("{{{{ {k} }}}}", k = k), val);
            }
            Value::String(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute(x, vars)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), substitute(x, vars)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Arguments of `record_start`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordStart {
    /// A name for the sequence.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: Option<String>,
}

/// Starts recording the calls that follow.
pub fn record_start(ctx: &Context, a: RecordStart) -> Result<RecordingStarted, ToolError> {
    super::check_len("name", &a.name, 1, 200)?;
    let agent = ctx.agent();
    let mut rec = agent
        .recording
        .lock()
        .map_err(|_| ToolError::new(Code::Internal, "recording lock poisoned"))?;
    if let Some(r) = rec.as_ref() {
        return Err(ToolError::new(
            Code::AlreadyExists,
            format!(
                "a recording is in progress ({} \"{}\", {} calls): call record_stop first",
                r.id,
                r.name,
                r.calls.len()
            ),
        ));
    }
    let id = RunId::generate().to_string();
    *rec = Some(Recording::new(id.clone(), a.name.clone(), a.description));
    Ok(RecordingStarted {
        success: true,
        sequence_id: id,
        name: a.name,
        recording: true,
        limits: RecordingLimits {
            calls: crate::agent::MAX_RECORDED_CALLS,
            bytes: crate::agent::MAX_RECORDED_BYTES,
            string_bytes: crate::agent::MAX_RECORDED_STRING,
        },
    })
}

/// Arguments of `record_stop`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordStop {
    /// Save the sequence (default true); false discards it.
    #[serde(default)]
    pub save: Option<bool>,
    /// Turn recorded values into placeholders: `{"email": "ada@example.com"}`
    /// saves every occurrence of that value as `{{email}}`, to be given again
    /// (or changed) at replay.
    #[serde(default)]
    pub variables: BTreeMap<String, String>,
}

/// Replaces each variable's value by its `{{name}}` placeholder.
fn parameterize(v: &Value, vars: &BTreeMap<String, String>) -> Value {
    match v {
        Value::String(s) => {
            let mut out = s.clone();
            // Longest values first, so a value inside another does not split it.
            let mut by_len: Vec<(&String, &String)> = vars.iter().collect();
            by_len.sort_by_key(|(_, val)| std::cmp::Reverse(val.len()));
            for (k, val) in by_len {
                if !val.is_empty() {
                    out = out.replace(val.as_str(), &format!("{{{{{k}}}}}"));
                }
            }
            Value::String(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| parameterize(x, vars)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), parameterize(x, vars)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Stops recording; saves the sequence unless `save: false`.
pub fn record_stop(ctx: &Context, a: RecordStop) -> Result<RecordingStopped, ToolError> {
    // Checked before the recording is taken: a typo must not lose it.
    for name in a.variables.keys() {
        let ok = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !ok {
            return Err(ToolError::invalid(format!(
                "variable name {name:?} must be letters, digits, _ or -"
            )));
        }
    }
    let agent = ctx.agent();
    let rec = agent
        .recording
        .lock()
        .map_err(|_| ToolError::new(Code::Internal, "recording lock poisoned"))?
        .take()
        .ok_or_else(|| {
            ToolError::new(
                Code::NotFound,
                "no recording in progress: call record_start first",
            )
        })?;
    let warning = rec.warning();
    if !a.save.unwrap_or(true) {
        return Ok(RecordingStopped {
            success: true,
            saved: false,
            sequence_id: None,
            path: None,
            calls: None,
            variables: None,
            warning: None,
            discarded: Some(rec.calls.len()),
        });
    }
    let mut rec = rec;
    if !a.variables.is_empty() {
        for c in &mut rec.calls {
            c.args = parameterize(&c.args, &a.variables);
        }
    }
    let mut vars = BTreeSet::new();
    for c in &rec.calls {
        placeholders(&c.args, &mut vars);
    }
    let seq = Sequence {
        id: rec.id.clone(),
        name: rec.name,
        description: rec.description,
        created_at: rec.started_at,
        variables: vars.into_iter().collect(),
        calls: rec.calls,
    };
    let path = ctx.store().sequence_path(&seq_id(&seq.id)?);
    let text = serde_json::to_string_pretty(&seq).expect("sequence serializes");
    ctx.store().write_file(&path, text.as_bytes())?;
    Ok(RecordingStopped {
        success: true,
        saved: true,
        sequence_id: Some(seq.id),
        path: Some(ctx.rel(&path)),
        calls: Some(seq.calls.len()),
        variables: Some(seq.variables),
        warning,
        discarded: None,
    })
}

/// Arguments of `record_list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordList {}

/// The saved sequences, newest first.
pub fn record_list(ctx: &Context, _a: RecordList) -> Result<SequenceList, ToolError> {
    let mut out = vec![];
    if let Ok(rd) = ctx.store().read_dir(&ctx.store().sequences_dir()) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_suffix(".json") else {
                continue;
            };
            match load(ctx, id) {
                Ok(s) => out.push(SequenceEntry::Saved(SequenceSummary {
                    sequence_id: s.id,
                    name: s.name,
                    description: s.description,
                    created_at: s.created_at,
                    calls: s.calls.len(),
                    variables: s.variables,
                })),
                Err(e) => out.push(SequenceEntry::Unreadable {
                    sequence_id: id.to_string(),
                    error: e.message,
                }),
            }
        }
    }
    let created = |e: &SequenceEntry| match e {
        SequenceEntry::Saved(s) => Some(s.created_at.clone()),
        SequenceEntry::Unreadable { .. } => None,
    };
    out.sort_by_key(|e| std::cmp::Reverse(created(e)));
    Ok(SequenceList {
        count: out.len(),
        sequences: out,
    })
}

/// Arguments of `record_get` and `record_delete`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SequenceRef {
    /// The sequence's id.
    #[schemars(regex(pattern = crate::tools::RUN_ID_PATTERN))]
    pub sequence_id: String,
}

/// A saved sequence in full.
pub fn record_get(ctx: &Context, a: SequenceRef) -> Result<Sequence, ToolError> {
    load(ctx, &a.sequence_id)
}

/// Deletes a saved sequence.
pub fn record_delete(ctx: &Context, a: SequenceRef) -> Result<SequenceDeleted, ToolError> {
    let seq = load(ctx, &a.sequence_id)?;
    let path = ctx.store().sequence_path(&seq_id(&seq.id)?);
    ctx.store()
        .remove_file(&path)
        .map_err(|e| ToolError::new(Code::Internal, format!("{}: {e}", ctx.rel(&path))))?;
    Ok(SequenceDeleted {
        success: true,
        deleted: seq.id,
    })
}

/// Arguments of `record_replay`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordReplay {
    /// The sequence to run.
    #[schemars(regex(pattern = crate::tools::RUN_ID_PATTERN))]
    pub sequence_id: String,
    /// Values of its `{{variable}}` placeholders.
    #[serde(default)]
    pub variables: BTreeMap<String, String>,
    /// Go on after a failed call (default false: stop).
    #[serde(default)]
    pub continue_on_error: bool,
    /// Record the replay as a run of this scenario (created with one step per
    /// call when it does not exist): every browser action leaves its evidence.
    #[serde(default)]
    #[schemars(regex(pattern = crate::tools::SLUG_PATTERN))]
    pub scenario_slug: Option<String>,
    /// Every call's full result and timing (default false: one small object
    /// per call, with what it did, its error's first line and its evidence).
    #[serde(default)]
    pub detail: bool,
}

pub(super) fn describe(c: &RecordedCall) -> String {
    let a = &c.args;
    let target = c
        .locator
        .clone()
        .or_else(|| a["testId"].as_str().map(|t| format!("testId {t}")))
        .or_else(|| a["selector"].as_str().map(String::from))
        .or_else(|| a["text"].as_str().map(|t| format!("\"{t}\"")))
        .unwrap_or_default();
    let text = match c.tool.as_str() {
        "browser_launch" => "Open the browser".to_string(),
        "browser_navigate" => format!("Open {}", a["url"].as_str().unwrap_or("the page")),
        "browser_click" => format!("Click {target}"),
        "browser_type" => format!("Type into {target}"),
        "browser_press" => format!("Press {}", a["key"].as_str().unwrap_or("a key")),
        "browser_wait_for" => format!("Wait for {target}"),
        "browser_expect" => format!(
            "Expect {}{}{}",
            if target.is_empty() {
                "page".to_string()
            } else {
                target
            },
            if a["not"].as_bool() == Some(true) {
                " not"
            } else {
                ""
            },
            a["assertion"]
                .as_str()
                .map(|x| format!(" {}", x.replace('_', " ")))
                .unwrap_or_default()
        ),
        "browser_screenshot" => "Take a screenshot".to_string(),
        "browser_handle_dialog" => match (a["accept"].as_bool(), a["promptText"].as_str()) {
            (Some(true), Some(t)) => format!("Accept dialogs with {t:?}"),
            (Some(true), None) => "Accept dialogs".to_string(),
            _ => "Dismiss dialogs".to_string(),
        },
        "browser_route" => format!(
            "Route {}: {}",
            a["pattern"].as_str().unwrap_or("requests"),
            a["action"].as_str().unwrap_or("")
        ),
        other => format!("Call {other}"),
    };
    let t: String = text.chars().take(120).collect();
    t.trim().to_string()
}

/// Runs a saved sequence again.
pub fn record_replay(
    ctx: &Context,
    d: &Dispatcher,
    a: RecordReplay,
) -> Result<Replayed, ToolError> {
    let seq = load(ctx, &a.sequence_id)?;
    let mut needed = BTreeSet::new();
    for c in &seq.calls {
        placeholders(&c.args, &mut needed);
    }
    let missing: Vec<&String> = needed
        .iter()
        .filter(|n| !a.variables.contains_key(*n))
        .collect();
    if !missing.is_empty() {
        return Err(ToolError::invalid(format!(
            "sequence {} needs values for {}: pass them in `variables`",
            seq.id,
            missing
                .iter()
                .map(|m| format!("{{{{{m}}}}}"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let call = |tool: &str, args: Value| d.call(ctx, tool, Some(args));
    // Optionally as a run: one step per call.
    let mut run_id: Option<String> = None;
    if let Some(slug) = &a.scenario_slug {
        let exists = ctx
            .store()
            .scenario(&harshjudge_store::store::Slug::new(slug.clone())?)
            .meta()?
            .is_some();
        if !exists {
            let steps: Vec<Value> = seq
                .calls
                .iter()
                .map(|c| {
                    json!({"title": describe(c), "actions": format!("{} {}", c.tool, c.args), "expectedOutcome": "The call succeeds."})
                })
                .collect();
            let out = call(
                "createScenario",
                json!({"slug": slug, "title": seq.name, "steps": steps, "tags": ["replay"]}),
            );
            if out.is_error() {
                return Err(ToolError::new(
                    out.code.expect("failed"),
                    format!(
                        "the replay's scenario could not be created: {}",
                        out.value["error"]
                    ),
                ));
            }
        }
        let out = call("startRun", json!({"scenarioSlug": slug}));
        if out.is_error() {
            return Err(ToolError::new(
                out.code.expect("failed"),
                format!(
                    "the replay's run could not be started: {}",
                    out.value["error"]
                ),
            ));
        }
        run_id = out.value["runId"].as_str().map(String::from);
    }
    let start = Instant::now();
    let mut results = vec![];
    let (mut succeeded, mut failed) = (0usize, 0usize);
    for (i, c) in seq.calls.iter().enumerate() {
        let args = substitute(&c.args, &a.variables);
        let out = if has_omitted(&args) {
            Outcome {
                value: json!({
                    "error": format!("call {} ({}) was recorded without a value over {} bytes; replay cannot send it again: record the sequence with smaller arguments", i + 1, c.tool, crate::agent::MAX_RECORDED_STRING),
                    "code": Code::InvalidInput.as_str(),
                }),
                code: Some(Code::InvalidInput),
                elapsed: std::time::Duration::ZERO,
                effects: Vec::new(),
            }
        } else {
            call(&c.tool, args)
        };
        let ok = !out.is_error();
        if ok {
            succeeded += 1;
        } else {
            failed += 1;
        }
        let error = (!ok).then(|| super::batch::CallError::of(&out.value));
        if let Some(id) = &run_id {
            let mut step = json!({
                "runId": id,
                "stepId": format!("{:02}", (i + 1).min(99)),
                "status": if ok { "pass" } else { "fail" },
                "duration": out.elapsed.as_millis() as u64,
            });
            if let Some(e) = &error {
                step["error"] = e.message.clone().into();
            }
            let _ = call("completeStep", step);
        }
        results.push(if a.detail {
            super::batch::StepReport::Detail(ReplayStep {
                index: i + 1,
                tool: c.tool.clone(),
                ok,
                recorded_ok: c.ok,
                meta: ReplayMeta {
                    duration_ms: (out.elapsed.as_secs_f64() * 1_000_000.0).round() / 1000.0,
                },
                result: ok.then_some(out.value),
                error,
            })
        } else {
            super::batch::StepReport::Brief(super::batch::StepBrief::of(
                i + 1,
                &c.tool,
                ok,
                &out.value,
            ))
        });
        if !ok && !a.continue_on_error {
            break;
        }
    }
    let summary = ReplaySummary {
        ok: failed == 0 && results.len() == seq.calls.len(),
        total: seq.calls.len(),
        ran: results.len(),
        succeeded,
        failed,
        duration_ms: start.elapsed().as_millis() as u64,
    };
    let run = run_id.map(|id| {
        let done = call("completeRun", json!({"runId": id}));
        ReplayRun {
            run_id: id,
            run_status: done.value["status"].as_str().map(String::from),
        }
    });
    Ok(Replayed {
        sequence_id: seq.id,
        steps: results,
        summary,
        run,
    })
}

/// Whether a recorded value stands for a string too large to keep.
fn has_omitted(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.contains_key(crate::agent::OMITTED) || o.values().any(has_omitted),
        Value::Array(a) => a.iter().any(has_omitted),
        _ => false,
    }
}
