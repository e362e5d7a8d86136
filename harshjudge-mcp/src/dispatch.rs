//! One execution path for every tool: parse and validate the arguments, run
//! the handler, time it, log it, classify a failure into a stable code, and
//! tell the observers. A [`Dispatcher`] owns the tool table and the
//! observers; the MCP server and the CLI both call [`Dispatcher::call`]
//! (through `crate::call` and `crate::dispatcher`, which assemble the
//! default one). This module knows no tool and no observer: tools are
//! registered into it (`crate::tools::all`), observers too
//! (`crate::observers`), so nothing here imports `crate::tools`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use harshjudge_store::store::{RunId, Slug};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::context::Context;
use crate::error::{Code, ToolError};

/// A tool's handler: arguments in (unknown keys already stripped), typed
/// reply out. It gets the dispatcher it runs under, for tools that call
/// other tools (`run_steps`, `record_replay`).
pub type Handler = fn(&Context, &Dispatcher, Value) -> Result<Reply, ToolError>;

/// What kind of tool a [`ToolDef`] is: observers decide by it, never by
/// the tool's wire name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Project, scenario, run, discovery and dashboard tools.
    Project,
    /// Browser tools (`browser_*`).
    Browser,
    /// `run_steps`: its calls are observed one by one, not the batch.
    Batch,
    /// The knowledge store's own tools (`knowledge_*`): never indexed nor recorded.
    Knowledge,
    /// Recording and replay (`record_*`): never recorded.
    Recording,
}

/// A tool as listed by `tools/list`.
pub struct ToolDef {
    /// The name (the original's names are kept).
    pub name: &'static str,
    /// What it does, for the agent.
    pub description: &'static str,
    /// Its input JSON Schema.
    pub schema: fn() -> Arc<Map<String, Value>>,
    /// Its output JSON Schema, derived from the handler's result type
    /// ([`output_schema_of`]).
    pub output: fn() -> Schema,
    /// What kind of tool it is.
    pub group: Group,
    /// The handler.
    pub handler: Handler,
}

/// What a call did that the agent's session follows, typed: observers read
/// these instead of digging in the result's JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// A run was started (`startRun`): browser evidence goes to it.
    RunStarted {
        /// The run.
        run: RunId,
        /// Its scenario.
        slug: Slug,
    },
    /// A run was completed (`completeRun`).
    RunCompleted {
        /// The run.
        run: RunId,
    },
}

/// A handler's result: the JSON the caller gets, and the typed effects.
#[derive(Clone, Debug, Default)]
pub struct Reply {
    /// The result.
    pub value: Value,
    /// What it did that observers follow.
    pub effects: Vec<Effect>,
}

/// A tool's typed result: serialised for the caller, with the effects it
/// carries (none by default).
pub trait ToolOutput: Serialize {
    /// What the call did that observers follow.
    fn effects(&self) -> Vec<Effect> {
        Vec::new()
    }
}

/// An untyped result: its output schema is an open object (see
/// [`output_schema_of`]). Every tool of this crate has a typed result; this is
/// for tools added without one yet.
impl ToolOutput for Value {}

/// Declares typed results that carry no effect: `plain_output!(A, B);`.
#[macro_export]
#[doc(hidden)]
macro_rules! plain_output {
    ($($t:ty),* $(,)?) => {
        $(impl $crate::dispatch::ToolOutput for $t {})*
    };
}

/// Serialises a typed result into a [`Reply`].
pub fn reply<T: ToolOutput>(out: T) -> Result<Reply, ToolError> {
    let effects = out.effects();
    let value = serde_json::to_value(&out)
        .map_err(|e| ToolError::new(Code::Internal, format!("a result did not serialise: {e}")))?;
    Ok(Reply { value, effects })
}

/// The output schema of a typed result `T`, for the serialize contract (what
/// the result writes: a field skipped when empty is optional, an `Option`
/// written as `null` is required and nullable), with nullable types split as
/// in input schemas and `warnings` allowed. A root that is a union of object
/// shapes (`anyOf`, e.g. `getStatus`) is declared `"type": "object"` as MCP
/// requires; a result that is no object schema at all ([`Value`]) gives an
/// open object.
pub fn output_schema_of<T: JsonSchema + 'static>() -> Schema {
    let derived = if std::any::TypeId::of::<T>() == std::any::TypeId::of::<Value>() {
        Map::new()
    } else {
        (*rmcp::handler::server::common::schema_for_output::<T>()).clone()
    };
    let mut m = portable("", &derived);
    m.entry("type").or_insert_with(|| "object".into());
    let props = m
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(props) = props {
        props.insert(
            "warnings".into(),
            serde_json::json!({"type": "array", "items": {"type": "string"}, "description": "Argument keys the tool does not know, ignored."}),
        );
    }
    Arc::new(m)
}

/// The output schema of a handler's result type (what [`tool!`](crate::tool)
/// derives each tool's `outputSchema` from).
pub fn output_schema_of_handler<A, T: JsonSchema + 'static>(
    _handler: fn(&Context, A) -> Result<T, ToolError>,
) -> Schema {
    output_schema_of::<T>()
}

/// [`output_schema_of_handler`] for a handler that gets the dispatcher.
pub fn output_schema_of_nested<A, T: JsonSchema + 'static>(
    _handler: fn(&Context, &Dispatcher, A) -> Result<T, ToolError>,
) -> Schema {
    output_schema_of::<T>()
}

/// Declares a tool whose arguments deserialize into `$args` (unknown fields
/// rejected) before `$f` runs. `nested` tools get the dispatcher too. The
/// output schema is derived from `$f`'s result type (`=> $out` names it).
#[macro_export]
#[doc(hidden)]
macro_rules! tool {
    ($group:ident, $name:literal, $args:ty, $f:path, $desc:expr) => {
        $crate::dispatch::ToolDef {
            name: $name,
            description: $desc,
            schema: || rmcp::handler::server::common::schema_for_type::<$args>(),
            output: || $crate::dispatch::output_schema_of_handler($f),
            group: $crate::dispatch::Group::$group,
            handler: |ctx, _d, v| {
                $crate::dispatch::reply($f(ctx, $crate::dispatch::parse::<$args>($name, v)?)?)
            },
        }
    };
    ($group:ident, $name:literal, $args:ty => $out:ty, $f:path, $desc:expr) => {
        $crate::dispatch::ToolDef {
            name: $name,
            description: $desc,
            schema: || rmcp::handler::server::common::schema_for_type::<$args>(),
            output: || $crate::dispatch::output_schema_of::<$out>(),
            group: $crate::dispatch::Group::$group,
            handler: |ctx, _d, v| {
                $crate::dispatch::reply::<$out>($f(
                    ctx,
                    $crate::dispatch::parse::<$args>($name, v)?,
                )?)
            },
        }
    };
    (nested $group:ident, $name:literal, $args:ty, $f:path, $desc:expr) => {
        $crate::dispatch::ToolDef {
            name: $name,
            description: $desc,
            schema: || rmcp::handler::server::common::schema_for_type::<$args>(),
            output: || $crate::dispatch::output_schema_of_nested($f),
            group: $crate::dispatch::Group::$group,
            handler: |ctx, d, v| {
                $crate::dispatch::reply($f(ctx, d, $crate::dispatch::parse::<$args>($name, v)?)?)
            },
        }
    };
}

/// Deserializes a tool's arguments; the error names the tool and the field
/// (an id refused by its own `Deserialize` is given as its message,
/// preceded by the argument's path).
pub fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(args).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        if harshjudge_store::store::ids::is_invalid_id(&inner) {
            return ToolError::invalid(format!("{path} {inner}"));
        }
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

/// A JSON Schema.
pub type Schema = Arc<Map<String, Value>>;

/// One finished call, as observers see it.
pub struct Call<'a> {
    /// The tool.
    pub tool: &'a ToolDef,
    /// Its arguments, unknown keys stripped, secret ones replaced by a
    /// placeholder (`secret_args::observable_args`).
    pub args: &'a Value,
    /// How it went.
    pub outcome: &'a Outcome,
}

/// Something that follows every call (the agent's active run, the knowledge
/// store, the recording). Observers of tools of [`Group::Batch`] are not
/// told: the batch's calls are, one by one.
pub trait Observer: Send + Sync {
    /// Called after each call, in the order observers were registered.
    fn observe(&self, ctx: &Context, call: &Call<'_>);
}

/// The tool table and the observers: one execution path for every call.
pub struct Dispatcher {
    tools: Vec<ToolDef>,
    /// Each tool's input schema, derived when first needed (a call's unknown
    /// keys, `tools/list`): a server that never lists a tool never pays for it.
    inputs: Vec<std::sync::OnceLock<Schema>>,
    observers: Vec<Box<dyn Observer>>,
}

impl Dispatcher {
    /// A dispatcher over `tools` (in the order `tools/list` gives them), with
    /// no observer yet.
    pub fn new(tools: Vec<ToolDef>) -> Self {
        let inputs = tools.iter().map(|_| std::sync::OnceLock::new()).collect();
        Dispatcher {
            tools,
            inputs,
            observers: Vec::new(),
        }
    }

    /// Adds an observer, told after every call from now on.
    pub fn observe(mut self, o: impl Observer + 'static) -> Self {
        self.observers.push(Box::new(o));
        self
    }

    /// Every tool, in the order `tools/list` gives them.
    pub fn tools(&self) -> &[ToolDef] {
        &self.tools
    }

    /// The tool named `name`.
    pub fn find(&self, name: &str) -> Option<&ToolDef> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The input schema `tools/list` gives for a tool (built once, when first
    /// asked for).
    pub fn input_schema(&self, def: &ToolDef) -> Schema {
        self.tools
            .iter()
            .position(|t| t.name == def.name)
            .map(|i| self.inputs[i].get_or_init(|| input_schema_of(def)).clone())
            .unwrap_or_else(|| input_schema_of(def))
    }

    /// Runs tool `name` with `args` (absent arguments count as `{}`). Never panics
    /// on user input: a handler that panics is reported as `INTERNAL`.
    pub fn call(&self, ctx: &Context, name: &str, args: Option<Value>) -> Outcome {
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
        let Some(def) = self.find(name) else {
            let names: Vec<&str> = self.tools.iter().map(|t| t.name).collect();
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
        let warnings = strip_unknown(name, &mut args, &self.input_schema(def));
        // Kept for the observers, which look at a call after it ran.
        let observed = def.group != Group::Batch && !self.observers.is_empty();
        let kept_args = observed.then(|| args.clone());
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (def.handler)(ctx, self, args)
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
            Ok(Reply { value, effects }) => {
                let elapsed = start.elapsed();
                tracing::info!(tool = name, ms = %format!("{:.3}", elapsed.as_secs_f64() * 1000.0), "ok");
                Outcome {
                    value,
                    code: None,
                    elapsed,
                    effects,
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
            // What observers keep (the knowledge store, a recording) never
            // holds a secret argument.
            let args = crate::secret_args::observable_args(name, args);
            let call = Call {
                tool: def,
                args: &args,
                outcome: &out,
            };
            for o in &self.observers {
                o.observe(ctx, &call);
            }
        }
        out
    }
}

/// A tool's input schema, derived from its arguments' type.
fn input_schema_of(def: &ToolDef) -> Schema {
    Arc::new(portable(def.name, &(def.schema)()))
}

/// Pairs of arguments of which a tool needs at least one.
const ONE_OF_REQUIRED: &[(&str, &str, &str)] = &[
    ("recordEvidence", "stepId", "step"),
    ("getRunState", "runId", "scenarioSlug"),
    ("getStepTrace", "runId", "scenarioSlug"),
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
    /// What the call did that observers follow (none when it failed).
    pub effects: Vec<Effect>,
}

impl Outcome {
    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.code.is_some()
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
        effects: Vec::new(),
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

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::tools::run::{CompleteRun, StartRun};
    use serde_json::json;

    #[test]
    fn ids_deserialise_typed_with_the_argument_named() {
        let a: StartRun = parse("startRun", json!({"scenarioSlug": "login"})).unwrap();
        assert_eq!(a.scenario_slug.as_str(), "login");
        let e = parse::<StartRun>("startRun", json!({"scenarioSlug": "Bad Slug"})).unwrap_err();
        assert_eq!(
            e.message,
            "scenarioSlug \"Bad Slug\" is not a valid scenario slug: use 1 to 100 lowercase letters, digits and hyphens, e.g. \"user-login\""
        );
        let e = parse::<CompleteRun>(
            "completeRun",
            json!({"runId": "r1", "steps": [{"id": "01", "status": "pass"}, {"id": "1", "status": "pass"}]}),
        )
        .unwrap_err();
        assert!(
            e.message.starts_with("steps[1].id \"1\" is not a step id"),
            "{}",
            e.message
        );
        let e = parse::<CompleteRun>("completeRun", json!({"runId": "a/b"})).unwrap_err();
        assert!(
            e.message
                .starts_with("runId \"a/b\" is not a valid run id: 1 to 64 letters"),
            "{}",
            e.message
        );
        // The wrong JSON type keeps serde's message.
        let e = parse::<StartRun>("startRun", json!({"scenarioSlug": 3})).unwrap_err();
        assert!(
            e.message
                .starts_with("invalid arguments for startRun: scenarioSlug: invalid type"),
            "{}",
            e.message
        );
    }
}
