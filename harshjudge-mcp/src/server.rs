//! The MCP server: `tools/list` from the tool table, `tools/call` through
//! [`crate::call`]. A result carries the compact JSON in `content[0].text`
//! (what every client reads) and the same value as structured content; a
//! failure sets `isError` with `{"error", "code"}`.

use std::sync::Arc;

pub use crate::tool_sets::{ENABLE_TOOLS, TOOL_SETS, Tools, tool_set};

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListToolsResult,
    PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, Role, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServiceExt};

use crate::context::Context;
use crate::dispatch;

/// The server over one project.
#[derive(Clone)]
pub struct Server {
    ctx: Arc<Context>,
    /// Every tool (the dispatcher's, then `enable_tools`), each built with its
    /// schemas when first listed or asked for: a lean server lists the start
    /// set, and deriving the other schemas would page in code it never runs.
    tools: Arc<[std::sync::OnceLock<Tool>]>,
    shape: Shape,
    /// What `tools/list` gave at first.
    tools_at_start: Tools,
    /// The tool sets listed so far ([`Tools::Start`]: `start`, then what
    /// `enable_tools` added; [`Tools::All`]: every set).
    enabled: Arc<std::sync::Mutex<Vec<&'static str>>>,
}

/// Shorter descriptions a model reads in [`Shape::Lean`] (the same facts,
/// fewer words); `--output-schemas` gives the full ones.
const LEAN_DESCRIPTIONS: &[(&str, &str)] = &[
    (
        "browser_expect",
        "Web-first assertion, retried up to timeoutMs (5000). Page: to_have_url, to_have_title, to_have_request (expected: URL glob; method, status), to_have_no_errors (expected: errors allowed), to_have_message. Target (as browser_click): to_be_visible|hidden|attached|enabled|disabled|checked|focused|editable|empty|in_viewport, to_have_text|count|value|values|attribute|class|css|id|role|accessible_name, to_contain_text|class, to_match_aria_snapshot. expected: string, {regex}, count or list; attribute: of to_have_attribute/css; not inverts.",
    ),
    (
        "enable_tools",
        "List more tool sets (any tool can be called anyway): project (initProject, getStatus), run, scenario, judge, browser (launch, route, handle_dialog, press, wait_for, screenshot, console, network, run_steps), record, knowledge, dashboard, all.",
    ),
    (
        "browser_launch",
        "Open headless Chromium for baseUrl (default: config.yaml's). While a run is active, each action records screenshots, console and network into the current step.",
    ),
];

/// The properties of a browser target, which each browser tool's description
/// already explains ("Target: one of role (+ name, exact), label, …").
const TARGET_PROPERTIES: &[&str] = &[
    "role",
    "name",
    "exact",
    "label",
    "placeholder",
    "altText",
    "title",
    "testId",
    "selector",
    "ref",
    "nth",
];

/// A browser tool's input schema without the descriptions of its target's
/// properties (said once in the tool's description); other schemas unchanged.
fn terse_targets(
    schema: &serde_json::Map<String, serde_json::Value>,
) -> serde_json::Map<String, serde_json::Value> {
    let mut s = schema.clone();
    let is_target = s
        .get("properties")
        .and_then(|p| p.as_object())
        .is_some_and(|p| p.contains_key("ref") && p.contains_key("testId"));
    if is_target && let Some(props) = s.get_mut("properties").and_then(|p| p.as_object_mut()) {
        for name in TARGET_PROPERTIES {
            if let Some(p) = props.get_mut(*name).and_then(|p| p.as_object_mut()) {
                p.remove("description");
            }
        }
    }
    s
}

/// An input schema as a model needs it: without the root's `$schema`, `title`
/// and `description` (the tool's description says it), a nullable optional
/// field as its type alone (`anyOf [T, null]` with `default: null` → `T`:
/// leaving it out means null), and without `format` annotations.
fn lean_schema(schema: &mut serde_json::Map<String, serde_json::Value>, root: bool) {
    use serde_json::Value;
    if root {
        for k in ["$schema", "title", "description"] {
            schema.remove(k);
        }
    }
    if let Some(Value::Array(branches)) = schema.get("anyOf")
        && branches.len() == 2
        && let Some(i) = branches
            .iter()
            .position(|b| b.get("type").and_then(Value::as_str) == Some("null"))
        && branches[i].as_object().is_some_and(|o| o.len() == 1)
        && let Some(Value::Object(other)) = branches.get(1 - i).cloned()
    {
        schema.remove("anyOf");
        for (k, v) in other {
            schema.entry(k).or_insert(v);
        }
    }
    schema.remove("format");
    if schema.get("default") == Some(&Value::Null) {
        schema.remove("default");
    }
    if root && let Some(Value::Object(defs)) = schema.get_mut("$defs") {
        // The property that uses a definition describes it already.
        for def in defs.values_mut() {
            strip_descriptions(def);
        }
    }
    for (_, v) in schema.iter_mut() {
        match v {
            Value::Object(o) => lean_schema(o, false),
            Value::Array(a) => {
                for x in a {
                    if let Value::Object(o) = x {
                        lean_schema(o, false);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Removes every `description` in `v`.
fn strip_descriptions(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(o) => {
            o.remove("description");
            o.values_mut().for_each(strip_descriptions);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

/// The arguments of `enable_tools`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnableTools {
    /// Sets to list: project, run, scenario, judge, browser, record, knowledge, dashboard, or all.
    pub sets: Vec<String>,
}

fn enable_tools_def() -> Tool {
    let mut t = Tool::new(
        ENABLE_TOOLS,
        "List more tools (only the start set is listed at first; every tool can be called). Sets: project (initProject, getStatus), run (startRun, recordEvidence, completeStep, completeRun, getRunState, getStepTrace, pruneRuns), scenario (createScenario, saveScenario, toggleStar), judge (getPendingJudgments, recordVerdict), browser (launch, route, press, wait_for, screenshot, console, network, run_steps), record (record_start … record_export), knowledge (knowledge_*, discover*), dashboard; or all.",
        rmcp::handler::server::common::schema_for_type::<EnableTools>(),
    );
    let output = serde_json::json!({
        "type": "object",
        "properties": {"listed": {"type": "array", "items": {"type": "string"}, "description": "The tools listed now that were not before."}},
        "required": ["listed"],
    });
    if let serde_json::Value::Object(o) = output {
        t.output_schema = Some(Arc::new(o));
    }
    t
}

/// How much `tools/list` and each result carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shape {
    /// The default, for a model's context: no `outputSchema` in `tools/list`,
    /// and one compact copy of each result (the JSON in `content[0].text`).
    #[default]
    Lean,
    /// What a client that validates results asks for (`--output-schemas`):
    /// each tool's `outputSchema`, and each result also as `structuredContent`.
    OutputSchemas,
}

impl Server {
    /// A server for the project of `ctx`.
    pub fn new(ctx: Context) -> Self {
        Server::with_shape(ctx, Shape::Lean)
    }

    /// A server whose `tools/list` and results have `shape`, listing the
    /// start set ([`Shape::Lean`]) or every tool ([`Shape::OutputSchemas`])
    /// until [`Server::with_tools`] says otherwise. No tool's schema is
    /// derived yet: each is, once, when `tools/list` first gives the tool.
    pub fn with_shape(ctx: Context, shape: Shape) -> Self {
        let count = crate::dispatcher().tools().len() + 1;
        let tools = match shape {
            Shape::Lean => Tools::Start,
            Shape::OutputSchemas => Tools::All,
        };
        Server {
            ctx: Arc::new(ctx),
            tools: (0..count).map(|_| std::sync::OnceLock::new()).collect(),
            shape,
            tools_at_start: tools,
            enabled: Arc::new(std::sync::Mutex::new(Vec::new())),
        }
        .with_tools(tools)
    }

    /// The same server listing `tools` at first: the start set, or every tool
    /// (as the original did, for clients and skills written for it).
    pub fn with_tools(self, tools: Tools) -> Self {
        let sets = match tools {
            Tools::Start => vec![TOOL_SETS[0].0],
            Tools::All => TOOL_SETS.iter().map(|(s, _)| *s).collect(),
        };
        Server {
            tools_at_start: tools,
            enabled: Arc::new(std::sync::Mutex::new(sets)),
            ..self
        }
    }

    /// The name of tool `i` (the dispatcher's tools, then `enable_tools`).
    fn name_of(i: usize) -> &'static str {
        crate::dispatcher()
            .tools()
            .get(i)
            .map_or(ENABLE_TOOLS, |t| t.name)
    }

    /// Tool `i` as this server lists it (built on first use).
    fn tool(&self, i: usize) -> &Tool {
        self.tools[i].get_or_init(|| {
            let mut t = tool_of(i, self.shape);
            if self.shape == Shape::Lean {
                make_lean(&mut t);
            }
            t
        })
    }

    /// What `tools/list` answers now: the tools of the sets enabled so far
    /// (every set with [`Tools::All`]).
    pub fn listed(&self) -> Vec<Tool> {
        let all = 0..self.tools.len();
        let enabled = self.enabled.lock().unwrap_or_else(|e| e.into_inner());
        all.filter(|&i| tool_set(Self::name_of(i)).is_none_or(|s| enabled.contains(&s)))
            .map(|i| self.tool(i).clone())
            .collect()
    }

    /// `enable_tools`: adds sets to what `tools/list` answers; the result
    /// names the tools added. Bad input names the set and the sets there are.
    pub fn enable(&self, args: Option<serde_json::Value>) -> dispatch::Outcome {
        let start = std::time::Instant::now();
        let fail = |msg: String| dispatch::Outcome {
            value: serde_json::json!({"error": msg, "code": "INVALID_INPUT"}),
            code: Some(crate::Code::InvalidInput),
            elapsed: start.elapsed(),
            effects: Vec::new(),
        };
        let a: EnableTools = match serde_json::from_value(args.unwrap_or_default()) {
            Ok(a) => a,
            Err(e) => {
                return fail(format!(
                    "invalid arguments for enable_tools: {e} (expected {{\"sets\": [\"run\", …]}})"
                ));
            }
        };
        let mut added = Vec::new();
        let mut enabled = self.enabled.lock().unwrap_or_else(|e| e.into_inner());
        for want in &a.sets {
            let sets: Vec<&'static str> = if want == "all" {
                TOOL_SETS.iter().map(|(s, _)| *s).collect()
            } else if let Some((s, _)) = TOOL_SETS.iter().find(|(s, _)| s == want) {
                vec![*s]
            } else {
                let names: Vec<&str> = TOOL_SETS.iter().map(|(s, _)| *s).collect();
                return fail(format!(
                    "unknown tool set {:?}: the sets are {}, or all",
                    want.chars().take(100).collect::<String>(),
                    names.join(", ")
                ));
            };
            for s in sets {
                if !enabled.contains(&s) {
                    enabled.push(s);
                    let tools = TOOL_SETS.iter().find(|(n, _)| *n == s).map(|(_, t)| *t);
                    added.extend(tools.unwrap_or_default().iter().copied());
                }
            }
        }
        dispatch::Outcome {
            value: serde_json::json!({"listed": added}),
            code: None,
            elapsed: start.elapsed(),
            effects: Vec::new(),
        }
    }

    /// Serves MCP over stdin/stdout until the client closes stdin. Each line
    /// from stdin passes [`screen`] first: what rmcp would drop or misanswer (a
    /// line that is not JSON, a request whose `params` do not fit its method)
    /// is answered here with the JSON-RPC error it calls for; the rest goes on
    /// to rmcp, parsed (a thread reads stdin, so rmcp never waits on it).
    /// Replies and error answers go out as whole lines, under stdout's lock.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        // stdin is read by a thread of its own, each line parsed once there;
        // rmcp gets the messages themselves (no second parse, no byte pipes
        // and tasks between), and its replies are written at once, whole lines.
        std::thread::Builder::new()
            .name("harshjudge-mcp-stdin".into())
            .spawn(move || read_stdin(&tx))
            .map_err(|source| ServeError::Stdin { source })?;
        let running = self
            .serve(StdioMessages { from_stdin: rx })
            .await
            .map_err(|e| ServeError::Initialize {
                source: Box::new(e),
            })?;
        tracing::info!("MCP server running on stdio");
        running
            .waiting()
            .await
            .map_err(|source| ServeError::Stopped { source })?;
        Ok(())
    }
}

/// The MCP messages of stdin and stdout: what [`read_stdin`] screened and
/// parsed comes in; each reply goes out as one line, written whole.
struct StdioMessages {
    from_stdin: tokio::sync::mpsc::UnboundedReceiver<rmcp::model::ClientJsonRpcMessage>,
}

impl rmcp::transport::Transport<RoleServer> for StdioMessages {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: rmcp::model::ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let written = serde_json::to_vec(&item)
            .map_err(std::io::Error::other)
            .and_then(|mut line| {
                line.push(b'\n');
                write_stdout(&line)
            });
        std::future::ready(written)
    }

    fn receive(
        &mut self,
    ) -> impl Future<Output = Option<rmcp::model::ClientJsonRpcMessage>> + Send {
        self.from_stdin.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.from_stdin.close();
        Ok(())
    }
}

/// Writes one whole line on stdout (under its lock, so lines never mix).
fn write_stdout(line: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(line)?;
    out.flush()
}

/// Reads stdin line by line until it closes: each line passes [`screen`];
/// a message goes to rmcp, an error reply straight to stdout.
fn read_stdin(to_rmcp: &tokio::sync::mpsc::UnboundedSender<rmcp::model::ClientJsonRpcMessage>) {
    use std::io::BufRead;
    let mut input = std::io::stdin().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => match screen(&line) {
                Screened::Forward(message) => {
                    if to_rmcp.send(*message).is_err() {
                        break;
                    }
                }
                Screened::Answer(reply) => {
                    if write_stdout(&reply).is_err() {
                        break;
                    }
                }
                Screened::Drop => {}
            },
        }
    }
    // stdin closed: the sender drops, rmcp sees the end of its input and stops.
}

/// What [`screen`] decided about one line from the client.
#[derive(Debug)]
pub enum Screened {
    /// rmcp handles it: the message, parsed.
    Forward(Box<rmcp::model::ClientJsonRpcMessage>),
    /// The JSON-RPC error to send back (a whole line).
    Answer(Vec<u8>),
    /// Nothing to do (a blank line, or a notification rmcp cannot read:
    /// notifications get no reply).
    Drop,
}

/// The methods of MCP a client may call: with unfit `params` they get -32602
/// (other methods are rmcp's to answer, -32601 when unknown).
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// A JSON-RPC error reply, as one line.
pub fn rpc_error(id: &serde_json::Value, code: i64, message: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": dispatch::bound_message(message)},
    }))
    .expect("JSON serializes");
    line.push(b'\n');
    line
}

/// Decides what to do with one line from the client: JSON-RPC 2.0's answers
/// for a parse error (-32700, id null), an invalid request (-32600) and
/// invalid params of a known method (-32602); everything else goes to rmcp.
pub fn screen(line: &[u8]) -> Screened {
    use serde::Deserialize;
    use serde_json::Value;
    if line.iter().all(u8::is_ascii_whitespace) {
        return Screened::Drop;
    }
    let v: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Screened::Answer(rpc_error(
                &Value::Null,
                -32700,
                &format!(
                    "Parse error: the line is not JSON ({e}); send one JSON-RPC 2.0 message per line"
                ),
            ));
        }
    };
    let Some(o) = v.as_object() else {
        return Screened::Answer(rpc_error(
            &Value::Null,
            -32600,
            "Invalid Request: a message must be a JSON object (batches are not supported)",
        ));
    };
    let id = match o.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
        Some(Value::Null) | None => None,
        Some(_) => {
            return Screened::Answer(rpc_error(
                &Value::Null,
                -32600,
                "Invalid Request: id must be a string or a number",
            ));
        }
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    if o.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Screened::Answer(rpc_error(
            &reply_id,
            -32600,
            "Invalid Request: \"jsonrpc\" must be \"2.0\"",
        ));
    }
    let Some(method) = o.get("method") else {
        // A response to one of the server's requests (one rmcp cannot read
        // has no one to answer to).
        if o.contains_key("result") || o.contains_key("error") {
            return match rmcp::model::ClientJsonRpcMessage::deserialize(&v) {
                Ok(m) => Screened::Forward(Box::new(m)),
                Err(_) => Screened::Drop,
            };
        }
        return Screened::Answer(rpc_error(
            &reply_id,
            -32600,
            "Invalid Request: a message needs a \"method\" (or is a response with \"result\" or \"error\")",
        ));
    };
    let Some(method) = method.as_str() else {
        return Screened::Answer(rpc_error(
            &reply_id,
            -32600,
            "Invalid Request: \"method\" must be a string",
        ));
    };
    let params = o.get("params").unwrap_or(&Value::Null);
    let invalid = |why: String| {
        if id.is_none() {
            // A notification: never answered.
            return Screened::Drop;
        }
        Screened::Answer(rpc_error(
            &reply_id,
            -32602,
            &format!("Invalid params for {method}: {why}"),
        ))
    };
    if KNOWN_METHODS.contains(&method) {
        let fits = match method {
            // Checked by reading the JSON in place: a call's arguments are
            // not copied.
            "tools/call" => CallToolRequestParams::deserialize(params)
                .map(|_| ())
                .map_err(|e| format!("{e} (expected {{\"name\": string, \"arguments\": object}})")),
            "initialize" => rmcp::model::InitializeRequestParams::deserialize(params)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            _ => match params {
                Value::Null | Value::Object(_) => Ok(()),
                _ => Err("params must be an object".to_string()),
            },
        };
        if let Err(why) = fits {
            return invalid(why);
        }
    }
    // Whatever rmcp itself cannot read would go unanswered: answer it here.
    match rmcp::model::ClientJsonRpcMessage::deserialize(&v) {
        Ok(message) => Screened::Forward(Box::new(message)),
        Err(e) if KNOWN_METHODS.contains(&method) => invalid(e.to_string()),
        Err(_) => match id {
            None => Screened::Drop,
            Some(_) => Screened::Answer(rpc_error(
                &reply_id,
                -32601,
                &format!("Method not found: {method}"),
            )),
        },
    }
}

/// Converts a dispatch outcome into the MCP result, as a client that asked
/// for output schemas gets it (the JSON as text and as structured content).
pub fn to_result(out: dispatch::Outcome) -> CallToolResult {
    to_result_shaped(out, Shape::OutputSchemas)
}

/// Converts a dispatch outcome into the MCP result of `shape`: the compact
/// JSON in `content[0].text`, and with [`Shape::OutputSchemas`] the same
/// value as structured content.
pub fn to_result_shaped(mut out: dispatch::Outcome, shape: Shape) -> CallToolResult {
    // An image asked for inline (browser_screenshot with `inline`) travels as an
    // image block, not inside the JSON.
    let image = out
        .value
        .as_object_mut()
        .and_then(|o| o.remove("__image"))
        .and_then(|i| {
            Some(ContentBlock::image(
                i["data"].as_str()?.to_string(),
                i["mimeType"].as_str()?.to_string(),
            ))
        });
    let text = out.value.to_string();
    let mut r = if out.is_error() {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(
            std::iter::once(ContentBlock::text(text))
                .chain(image)
                .collect(),
        )
    };
    if shape == Shape::OutputSchemas {
        r.structured_content = Some(out.value);
    }
    r
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("harshjudge", env!("CARGO_PKG_VERSION")))
        .with_instructions(crate::skill::texts::instructions(
            self.tools_at_start == Tools::All,
        ))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(prompt_list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        get_prompt(&request.name, request.arguments.as_ref()).map(Into::into)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.listed()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        (0..self.tools.len())
            .find(|&i| Self::name_of(i) == name)
            .map(|i| self.tool(i).clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if let Some(info) = context.peer.peer_info() {
            self.ctx.set_client_name(&info.client_info.name);
        }
        // Tools are short file operations (well under a millisecond) and one
        // agent talks to one server: they run inline on the server's single
        // thread, sparing a hand-off between threads on every call.
        let args = request.arguments.map(serde_json::Value::Object);
        if request.name == ENABLE_TOOLS {
            let out = self.enable(args);
            let changed = out.value["listed"]
                .as_array()
                .is_some_and(|a| !a.is_empty());
            if changed {
                let _ = context.peer.notify_tool_list_changed().await;
            }
            return Ok(to_result_shaped(out, self.shape).into());
        }
        let lean = self.shape == Shape::Lean;
        let out = crate::call(&self.ctx, &request.name, args);
        if lean
            && !out.is_error()
            && let Some(text) = crate::tools::lean::text(&self.ctx, &request.name, &out.value)
        {
            // As a model reads it best (browser results: a line, a snapshot's
            // aria lines); `--output-schemas` keeps the JSON.
            let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
            r.is_error = None;
            return Ok(r.into());
        }
        Ok(to_result_shaped(out, self.shape).into())
    }
}

/// What `tools/list` answers: every tool of [`crate::dispatcher`] with its
/// input and output schemas.
pub fn tool_list() -> Vec<Tool> {
    tools_of(Shape::OutputSchemas)
}

/// Every tool with its input schema, and its output schema only for
/// [`Shape::OutputSchemas`]: deriving the output schemas was three quarters of
/// a lean server's start-up (callgrind: 13.3 M of 28.1 M instructions), for
/// schemas it never sends.
fn tools_of(shape: Shape) -> Vec<Tool> {
    (0..=crate::dispatcher().tools().len())
        .map(|i| tool_of(i, shape))
        .collect()
}

/// Tool `i` of [`tools_of`] (past the dispatcher's tools: `enable_tools`).
fn tool_of(i: usize, shape: Shape) -> Tool {
    let d = crate::dispatcher();
    let Some(t) = d.tools().get(i) else {
        return enable_tools_def();
    };
    let mut tool = Tool::new(t.name, t.description, d.input_schema(t));
    if shape == Shape::OutputSchemas {
        tool.output_schema = Some(crate::tools::output::output_schema(t));
    }
    tool
}

/// A tool as [`Shape::Lean`] lists it: no output schema, an input schema
/// without what the description says already, a shorter description where
/// there is one.
fn make_lean(t: &mut Tool) {
    t.output_schema = None;
    let mut schema = terse_targets(&t.input_schema);
    lean_schema(&mut schema, true);
    if t.name == "browser_expect"
        && let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut())
    {
        // The tool's description says what each of these takes.
        for name in [
            "assertion",
            "expected",
            "attribute",
            "not",
            "timeoutMs",
            "method",
            "status",
            "text",
        ] {
            if let Some(p) = props.get_mut(name).and_then(|p| p.as_object_mut()) {
                p.remove("description");
            }
        }
    }
    t.input_schema = Arc::new(schema);
    if let Some((_, d)) = LEAN_DESCRIPTIONS.iter().find(|(n, _)| *n == t.name) {
        t.description = Some((*d).into());
    }
}

/// What `prompts/list` answers: one prompt per workflow of [`crate::skill`].
pub fn prompt_list() -> Vec<Prompt> {
    crate::skill::WORKFLOWS
        .iter()
        .map(|w| {
            let args = w
                .arguments
                .iter()
                .map(|a| {
                    PromptArgument::new(a.name)
                        .with_description(a.description)
                        .with_required(a.required)
                })
                .collect::<Vec<_>>();
            let mut p = Prompt::new(
                w.prompt,
                Some(format!("{}: use {}.", w.title, w.when)),
                (!args.is_empty()).then_some(args),
            );
            p.title = Some(w.title.to_string());
            p
        })
        .collect()
}

/// What `prompts/get` answers for `name` with `args`: one user message with
/// the workflow; bad input is `-32602` naming what was wrong.
pub fn get_prompt(
    name: &str,
    args: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Result<GetPromptResult, McpError> {
    let empty = serde_json::Map::new();
    let w = crate::skill::workflow(name);
    let text = crate::skill::prompt_text(name, args.unwrap_or(&empty))
        .map_err(|e| McpError::invalid_params(e.to_string(), None))?;
    let mut r = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
    if let Some(w) = w {
        r = r.with_description(w.title);
    }
    Ok(r)
}

/// Why [`Server::serve_stdio`] stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The MCP handshake with the client failed.
    #[error("MCP initialisation failed: {source}")]
    Initialize {
        /// The cause.
        source: Box<rmcp::service::ServerInitializeError>,
    },
    /// The server's task ended abnormally.
    #[error("MCP server stopped: {source}")]
    Stopped {
        /// The cause.
        source: tokio::task::JoinError,
    },
    /// The thread that reads stdin could not be started.
    #[error("cannot start the thread that reads stdin: {source}")]
    Stdin {
        /// The cause.
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lean_server_derives_only_the_tools_it_lists() {
        let dir = tempfile::tempdir().unwrap();
        let s = Server::with_shape(Context::new(dir.path()).unwrap(), Shape::Lean);
        let built = |s: &Server| s.tools.iter().filter(|t| t.get().is_some()).count();
        assert_eq!(built(&s), 0, "no tool is derived before it is listed");
        let listed = s.listed();
        assert_eq!(listed.len(), TOOL_SETS[0].1.len(), "the start set");
        assert_eq!(built(&s), listed.len(), "only the listed tools are derived");
        let run = s.get_tool("startRun").expect("startRun is a tool");
        assert!(run.output_schema.is_none(), "lean: no output schema");
        assert_eq!(built(&s), listed.len() + 1);
        assert!(s.get_tool("noSuchTool").is_none());
        // The same tools as the eager list, shaped alike.
        let full = Server::with_shape(Context::new(dir.path()).unwrap(), Shape::OutputSchemas);
        let all = full.listed();
        assert_eq!(all.len(), tool_list().len());
        assert!(all.iter().all(|t| t.output_schema.is_some()));
        assert_eq!(
            all.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
            tool_list().into_iter().map(|t| t.name).collect::<Vec<_>>()
        );
    }
}
