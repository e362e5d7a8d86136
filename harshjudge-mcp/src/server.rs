//! The MCP server: `tools/list` from the tool table, `tools/call` through
//! [`dispatch::call`]. A result carries the full JSON in `content[0].text`
//! (what every client reads) and the same value as structured content; a
//! failure sets `isError` with `{"error", "code"}`.

use std::sync::Arc;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
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
        let tools = dispatch::tools()
            .iter()
            .map(|t| Tool::new(t.name, t.description, dispatch::input_schema(t)))
            .collect();
        Server {
            ctx: Arc::new(ctx),
            tools: Arc::new(tools),
        }
    }

    /// Serves MCP over stdin/stdout until the client closes stdin.
    pub async fn serve_stdio(self) -> anyhow_like::Result {
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("MCP initialisation failed: {e}"))?;
        tracing::info!("MCP server running on stdio");
        running
            .waiting()
            .await
            .map_err(|e| format!("MCP server stopped: {e}"))?;
        Ok(())
    }
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
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("harshjudge", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "HarshJudge records end-to-end test runs as evidence in .harshJudge/. \
                 Workflow: initProject (once), createScenario, startRun, then for each step \
                 recordEvidence (screenshots, logs, responses) and completeStep, then completeRun; \
                 getStatus to see results, getRunState to resume an interrupted run.",
            )
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
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // Tools are short file operations (well under a millisecond) and one
        // agent talks to one server: they run inline on the server's single
        // thread, sparing a hand-off between threads on every call.
        let args = request.arguments.map(serde_json::Value::Object);
        let out = dispatch::call(&self.ctx, &request.name, args);
        Ok(to_result(out).into())
    }
}

/// A string error is enough for `main`.
pub mod anyhow_like {
    /// `Result<(), String>`.
    pub type Result = std::result::Result<(), String>;
}
