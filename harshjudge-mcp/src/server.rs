//! The MCP server: `tools/list` from the tool table, `tools/call` through
//! [`crate::call`]. A result carries the full JSON in `content[0].text`
//! (what every client reads) and the same value as structured content; a
//! failure sets `isError` with `{"error", "code"}`.

use std::sync::Arc;

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
    tools: Arc<Vec<Tool>>,
}

impl Server {
    /// A server for the project of `ctx`.
    pub fn new(ctx: Context) -> Self {
        Server {
            ctx: Arc::new(ctx),
            tools: Arc::new(tool_list()),
        }
    }

    /// Serves MCP over stdin/stdout until the client closes stdin. Each line
    /// from stdin passes [`screen`] first: what rmcp would drop or misanswer (a
    /// line that is not JSON, a request whose `params` do not fit its method)
    /// is answered here with the JSON-RPC error it calls for; the rest goes on
    /// to rmcp. One writer puts both on stdout, a whole line at a time.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let (mut to_rmcp, rmcp_in) = tokio::io::duplex(1 << 16);
        let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 16);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
        let writer = tokio::spawn(async move {
            let mut out = tokio::io::stdout();
            while let Some(line) = rx.recv().await {
                if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
                    break;
                }
            }
        });
        let replies = tx.clone();
        let from_rmcp = tokio::spawn(async move {
            let mut r = BufReader::new(from_rmcp);
            loop {
                let mut line = Vec::new();
                match r.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if replies.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let answers = tx;
        let from_stdin = tokio::spawn(async move {
            let mut r = BufReader::new(tokio::io::stdin());
            loop {
                let mut line = Vec::new();
                match r.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => match screen(&line) {
                        Screened::Forward => {
                            if !line.ends_with(b"\n") {
                                line.push(b'\n');
                            }
                            if to_rmcp.write_all(&line).await.is_err() {
                                break;
                            }
                        }
                        Screened::Answer(reply) => {
                            let _ = answers.send(reply);
                        }
                        Screened::Drop => {}
                    },
                }
            }
            // stdin closed: rmcp sees the end of its input and stops.
        });
        let result = async {
            let running =
                self.serve((rmcp_in, rmcp_out))
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
        .await;
        from_stdin.abort();
        let _ = from_stdin.await;
        let _ = from_rmcp.await;
        let _ = writer.await;
        result
    }
}

/// What [`screen`] decided about one line from the client.
#[derive(Debug, PartialEq)]
pub enum Screened {
    /// rmcp handles it.
    Forward,
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
        // A response to one of the server's requests.
        if o.contains_key("result") || o.contains_key("error") {
            return Screened::Forward;
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
    let params = o.get("params").cloned().unwrap_or(Value::Null);
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
            "tools/call" => serde_json::from_value::<CallToolRequestParams>(params.clone())
                .map(|_| ())
                .map_err(|e| format!("{e} (expected {{\"name\": string, \"arguments\": object}})")),
            "initialize" => {
                serde_json::from_value::<rmcp::model::InitializeRequestParams>(params.clone())
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }
            _ => match &params {
                Value::Null | Value::Object(_) => Ok(()),
                _ => Err("params must be an object".to_string()),
            },
        };
        if let Err(why) = fits {
            return invalid(why);
        }
    }
    // Whatever rmcp itself cannot read would go unanswered: answer it here.
    if let Err(e) = serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(v.clone()) {
        if KNOWN_METHODS.contains(&method) {
            return invalid(e.to_string());
        }
        return match id {
            None => Screened::Drop,
            Some(_) => Screened::Answer(rpc_error(
                &reply_id,
                -32601,
                &format!("Method not found: {method}"),
            )),
        };
    }
    Screened::Forward
}

/// Converts a dispatch outcome into the MCP result.
pub fn to_result(mut out: dispatch::Outcome) -> CallToolResult {
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
    let text = if out.is_error() {
        out.value.to_string()
    } else {
        serde_json::to_string_pretty(&out.value).expect("JSON serializes")
    };
    let mut r = if out.is_error() {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(
            std::iter::once(ContentBlock::text(text))
                .chain(image)
                .collect(),
        )
    };
    r.structured_content = Some(out.value);
    r
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("harshjudge", env!("CARGO_PKG_VERSION")))
        .with_instructions(crate::skill::texts::INSTRUCTIONS)
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
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
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
        let out = crate::call(&self.ctx, &request.name, args);
        Ok(to_result(out).into())
    }
}

/// What `tools/list` answers: every tool of [`crate::dispatcher`] with its
/// input and output schemas.
pub fn tool_list() -> Vec<Tool> {
    let d = crate::dispatcher();
    d.tools()
        .iter()
        .map(|t| {
            let mut tool = Tool::new(t.name, t.description, d.input_schema(t));
            tool.output_schema = Some(crate::tools::output::output_schema(t));
            tool
        })
        .collect()
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
}
