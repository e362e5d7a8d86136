//! One execution path for every tool: parse and validate the arguments, run
//! the handler, time it, log it, and classify a failure into a stable code.
//! The MCP server and the CLI both call [`call`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::context::Context;
use crate::error::{Code, ToolError};

/// A tool's handler: validated arguments in, JSON result out.
pub type Handler = fn(&Context, Value) -> Result<Value, ToolError>;

/// A tool as listed by `tools/list`.
pub struct ToolDef {
    /// The name (the original's names are kept).
    pub name: &'static str,
    /// What it does, for the agent.
    pub description: &'static str,
    /// Its input JSON Schema.
    pub schema: fn() -> Arc<Map<String, Value>>,
    /// The handler.
    pub handler: Handler,
}

/// Declares a tool whose arguments deserialize into `$args` (unknown fields
/// rejected) before `$f` runs.
#[macro_export]
#[doc(hidden)]
macro_rules! tool {
    ($name:literal, $args:ty, $f:path, $desc:expr) => {
        $crate::dispatch::ToolDef {
            name: $name,
            description: $desc,
            schema: || rmcp::handler::server::common::schema_for_type::<$args>(),
            handler: |ctx, v| $f(ctx, $crate::dispatch::parse::<$args>($name, v)?),
        }
    };
}

/// Deserializes a tool's arguments; the error names the tool and the field.
pub fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(args).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let at = if path == "." {
            String::new()
        } else {
            format!("{path}: ")
        };
        ToolError::invalid(format!(
            "invalid arguments for {tool}: {at}{inner} (see the tool's input schema in tools/list)"
        ))
    })
}

/// Every tool, in the order `tools/list` gives them.
pub fn tools() -> &'static [ToolDef] {
    static TOOLS: std::sync::OnceLock<Vec<ToolDef>> = std::sync::OnceLock::new();
    TOOLS.get_or_init(crate::tools::all)
}

/// A JSON Schema.
pub type Schema = Arc<Map<String, Value>>;

/// The input schema `tools/list` gives for a tool (built once).
pub fn input_schema(def: &ToolDef) -> Schema {
    static SCHEMAS: std::sync::OnceLock<Vec<(&'static str, Schema)>> = std::sync::OnceLock::new();
    SCHEMAS
        .get_or_init(|| {
            tools()
                .iter()
                .map(|t| (t.name, Arc::new(portable(t.name, &(t.schema)()))))
                .collect()
        })
        .iter()
        .find(|(n, _)| *n == def.name)
        .map(|(_, s)| s.clone())
        .unwrap_or_else(|| Arc::new(portable(def.name, &(def.schema)())))
}

/// Pairs of arguments of which a tool needs at least one.
const ONE_OF_REQUIRED: &[(&str, &str, &str)] = &[
    ("recordEvidence", "stepId", "step"),
    ("getRunState", "runId", "scenarioSlug"),
];

/// A tool's input schema in the form the most clients accept: every nullable
/// `"type": [T, "null"]` split into `anyOf` branches of one type each (MCP
/// Inspector `--strict`, Gemini's single-type dialect), and each pair of
/// which one is required written as a root `if`/`then` — not a root `anyOf`,
/// which the Anthropic API refuses in a tool's `input_schema`.
pub fn portable(tool: &str, schema: &Map<String, Value>) -> Map<String, Value> {
    let mut v = Value::Object(schema.clone());
    split_nullable(&mut v);
    let Value::Object(mut m) = v else {
        unreachable!("an object stays an object")
    };
    for (t, a, b) in ONE_OF_REQUIRED {
        if *t == tool {
            m.insert("if".into(), serde_json::json!({"not": {"required": [a]}}));
            m.insert("then".into(), serde_json::json!({"required": [b]}));
        }
    }
    m
}

/// Keywords that describe a value rather than constrain it: they stay beside
/// the `anyOf` when a nullable type is split.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

fn split_nullable(v: &mut Value) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(split_nullable),
        Value::Object(o) => {
            o.values_mut().for_each(split_nullable);
            let Some(Value::Array(types)) = o.get("type") else {
                return;
            };
            if !types.iter().any(|t| t == "null") || types.len() < 2 {
                return;
            }
            let types: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
            let mut outer = Map::new();
            let mut rest = Map::new();
            for (k, x) in std::mem::take(o) {
                if ANNOTATIONS.contains(&k.as_str()) {
                    outer.insert(k, x);
                } else if k != "type" {
                    rest.insert(k, x);
                }
            }
            let mut branches: Vec<Value> = types
                .into_iter()
                .map(|t| {
                    let mut b = rest.clone();
                    b.insert("type".into(), t);
                    Value::Object(b)
                })
                .collect();
            branches.push(serde_json::json!({"type": "null"}));
            outer.insert("anyOf".into(), Value::Array(branches));
            *o = outer;
        }
        _ => {}
    }
}

/// Most `warnings` one call lists about unknown argument keys.
const MAX_KEY_WARNINGS: usize = 20;

/// Removes the argument keys a tool's schema does not declare (the original
/// strips them too), at every level the schema describes (`steps[0].type`),
/// and says which: an agent written for the original keeps working, and a typo
/// is still visible in the result's `warnings`.
pub fn strip_unknown(tool: &str, args: &mut Value, schema: &Map<String, Value>) -> Vec<String> {
    let mut found = vec![];
    strip_at(args, &Value::Object(schema.clone()), schema, "", &mut found);
    let total = found.len();
    let mut warnings: Vec<String> = found
        .into_iter()
        .take(MAX_KEY_WARNINGS)
        .map(|(path, known)| {
            bound_message(&format!(
                "unknown argument \"{path}\" ignored ({tool} takes {})",
                if known.is_empty() {
                    "no arguments here".to_string()
                } else {
                    known.join(", ")
                }
            ))
        })
        .collect();
    if total > MAX_KEY_WARNINGS {
        warnings.push(format!(
            "… and {} more unknown arguments ignored",
            total - MAX_KEY_WARNINGS
        ));
    }
    warnings
}

fn resolve<'a>(schema: &'a Value, root: &'a Map<String, Value>) -> &'a Value {
    let mut s = schema;
    for _ in 0..16 {
        let Some(r) = s.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let name = r
            .strip_prefix("#/$defs/")
            .or_else(|| r.strip_prefix("#/definitions/"));
        let defs = root.get("$defs").or_else(|| root.get("definitions"));
        match (name, defs) {
            (Some(n), Some(d)) if d.get(n).is_some() => s = &d[n],
            _ => break,
        }
    }
    s
}

fn strip_at(
    v: &mut Value,
    schema: &Value,
    root: &Map<String, Value>,
    path: &str,
    found: &mut Vec<(String, Vec<String>)>,
) {
    let schema = resolve(schema, root);
    match v {
        Value::Object(o) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                // The object form may sit in a branch (an optional struct).
                for key in ["anyOf", "oneOf", "allOf"] {
                    for b in schema
                        .get(key)
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        if resolve(b, root).get("properties").is_some() {
                            return strip_at(v, b, root, path, found);
                        }
                    }
                }
                return;
            };
            if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
                let unknown: Vec<String> = o
                    .keys()
                    .filter(|k| !props.contains_key(*k))
                    .cloned()
                    .collect();
                for k in unknown {
                    o.remove(&k);
                    let at = if path.is_empty() {
                        k
                    } else {
                        format!("{path}.{k}")
                    };
                    found.push((at, props.keys().cloned().collect()));
                }
            }
            for (k, x) in o.iter_mut() {
                if let Some(s) = props.get(k) {
                    let at = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    strip_at(x, s, root, &at, found);
                }
            }
        }
        Value::Array(a) => {
            let items = schema.get("items").cloned().or_else(|| {
                ["anyOf", "oneOf"].iter().find_map(|key| {
                    schema
                        .get(*key)?
                        .as_array()?
                        .iter()
                        .find_map(|b| resolve(b, root).get("items").cloned())
                })
            });
            if let Some(items) = items {
                for (i, x) in a.iter_mut().enumerate() {
                    strip_at(x, &items, root, &format!("{path}[{i}]"), found);
                }
            }
        }
        _ => {}
    }
}

/// The result of one call.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The result, or `{"error", "code"}`.
    pub value: Value,
    /// The failure's code, if it failed.
    pub code: Option<Code>,
    /// Time spent in the call.
    pub elapsed: Duration,
}

impl Outcome {
    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.code.is_some()
    }
}

/// Runs tool `name` with `args` (absent arguments count as `{}`). Never panics
/// on user input: a handler that panics is reported as `INTERNAL`.
pub fn call(ctx: &Context, name: &str, args: Option<Value>) -> Outcome {
    let start = Instant::now();
    let args = match args {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v,
        Some(other) => {
            return failed(
                name,
                start,
                ToolError::invalid(format!(
                    "invalid arguments for {name}: expected an object of named arguments, got {}",
                    kind(&other)
                )),
            );
        }
    };
    let Some(def) = tools().iter().find(|t| t.name == name) else {
        let names: Vec<&str> = tools().iter().map(|t| t.name).collect();
        return failed(
            name,
            start,
            ToolError::new(
                Code::UnknownTool,
                format!("Unknown tool: {name} (the tools are {})", names.join(", ")),
            ),
        );
    };
    let mut args = args;
    let warnings = strip_unknown(name, &mut args, &input_schema(def));
    // Kept for the recording and the agent's state, which look at a call after it ran.
    let kept_args = (name != "run_steps").then(|| args.clone());
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        (def.handler)(ctx, args)
    }))
    .unwrap_or_else(|panic| {
        let msg = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        Err(ToolError::new(
            Code::Internal,
            format!("{name} failed unexpectedly ({msg}); this is a bug in harshjudge-mcp, please report it"),
        ))
    });
    let mut out = match result {
        Ok(value) => {
            let elapsed = start.elapsed();
            tracing::info!(tool = name, ms = %format!("{:.3}", elapsed.as_secs_f64() * 1000.0), "ok");
            Outcome {
                value,
                code: None,
                elapsed,
            }
        }
        Err(e) => failed(name, start, e),
    };
    if !warnings.is_empty()
        && let Some(o) = out.value.as_object_mut()
    {
        match o.get_mut("warnings").and_then(Value::as_array_mut) {
            Some(list) => list.extend(warnings.into_iter().map(Value::String)),
            None => {
                o.insert("warnings".into(), warnings.into());
            }
        }
    }
    if let Some(args) = kept_args {
        after_call(ctx, name, args, &out);
    }
    out
}

/// What a call changes in the agent's session: the active run (browser
/// evidence goes there), and the recording.
fn after_call(ctx: &Context, name: &str, args: Value, out: &Outcome) {
    let agent = ctx.agent();
    if !out.is_error() {
        match name {
            "startRun" => {
                let run = out.value["runId"]
                    .as_str()
                    .and_then(|r| harshjudge::store::RunId::new(r).ok());
                let slug = out.value["scenarioSlug"]
                    .as_str()
                    .and_then(|s| harshjudge::store::Slug::new(s).ok());
                if let (Some(run), Some(slug)) = (run, slug) {
                    agent.set_active_run(Some((run, slug)));
                }
            }
            "completeRun"
                if agent
                    .active_run()
                    .is_some_and(|(r, _)| Some(r.as_str()) == args["runId"].as_str()) =>
            {
                agent.set_active_run(None);
            }
            _ => {}
        }
    }
    // Every call goes into the knowledge store (once the project exists), with
    // the page it left for browser actions.
    if !name.starts_with("knowledge_") && ctx.store().is_initialized() {
        let mut step =
            crate::knowledge::StepRecord::new(name, crate::knowledge::compact_args(&args));
        step.ok = !out.is_error();
        step.code = out.code.map(|c| c.as_str().to_string());
        step.error = out.value["error"].as_str().map(String::from);
        step.duration_ms = out.elapsed.as_secs_f64() * 1000.0;
        if crate::tools::browser::is_action(name)
            && let Some((url, title, test_ids)) = crate::tools::browser::observe(ctx)
        {
            step.observation.url = Some(url);
            step.observation.title = Some(title);
            step.observation.test_ids = test_ids;
        }
        step.observation.text = out.value["locator"]
            .as_str()
            .or(out.value["clicked"].as_str())
            .map(String::from);
        if let Err(e) = agent.knowledge(ctx.store().dir()).record(step) {
            tracing::warn!("the knowledge store could not record {name}: {e}");
        }
    }
    if crate::tools::record::is_recordable(name)
        && let Ok(mut rec) = agent.recording.lock()
        && let Some(rec) = rec.as_mut()
    {
        let kept = rec.push(crate::agent::RecordedCall {
            tool: name.to_string(),
            args: crate::agent::recordable_args(&args),
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

/// Longest value (in characters) an error message quotes whole.
pub const MAX_ECHO_CHARS: usize = 300;
/// Longest error message, in characters, once quoted values are cut.
pub const MAX_MESSAGE_CHARS: usize = 2000;

/// Bounds what an error message echoes of the caller's input. Every failure
/// passes through here, so a message quoting a bad value — serde's
/// `invalid type: string "…"`, `unknown field `…``, or a handler's `{value:?}` —
/// never grows with it: each quoted value (between `"` or `` ` ``) over
/// [`MAX_ECHO_CHARS`] characters keeps its start and says how long it was, and
/// the whole message is capped at [`MAX_MESSAGE_CHARS`].
pub fn bound_message(msg: &str) -> String {
    const KEEP: usize = 200;
    let chars: Vec<char> = msg.chars().collect();
    let mut out = String::with_capacity(msg.len().min(4 * MAX_MESSAGE_CHARS));
    let mut i = 0;
    while i < chars.len() {
        let q = chars[i];
        out.push(q);
        i += 1;
        if q != '"' && q != '`' {
            continue;
        }
        // The quoted value: up to the matching quote (not an escaped one).
        let start = i;
        let mut j = i;
        while j < chars.len() && chars[j] != q {
            j += if chars[j] == '\\' { 2 } else { 1 };
        }
        let end = j.min(chars.len());
        let len = end - start;
        if len > MAX_ECHO_CHARS {
            let mut keep = KEEP;
            // Never end on half an escape.
            while keep > 0
                && chars[start..start + keep]
                    .iter()
                    .rev()
                    .take_while(|c| **c == '\\')
                    .count()
                    % 2
                    == 1
            {
                keep -= 1;
            }
            out.extend(&chars[start..start + keep]);
            out.push_str(&format!("…[{len} characters in all]"));
        } else {
            out.extend(&chars[start..end]);
        }
        if end < chars.len() {
            out.push(q);
        }
        i = end + 1;
    }
    match out.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => out,
        Some((at, _)) => {
            let n = out.chars().count();
            format!("{}… [message cut: {n} characters in all]", &out[..at])
        }
    }
}

fn failed(name: &str, start: Instant, mut e: ToolError) -> Outcome {
    e.message = bound_message(&e.message);
    let elapsed = start.elapsed();
    tracing::warn!(
        tool = name,
        ms = %format!("{:.3}", elapsed.as_secs_f64() * 1000.0),
        code = e.code.as_str(),
        "failed: {}",
        e.message
    );
    Outcome {
        value: serde_json::json!({"error": e.message, "code": e.code.as_str()}),
        code: Some(e.code),
        elapsed,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
