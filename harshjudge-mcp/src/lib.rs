//! `harshjudge-mcp`: an MCP server (stdio) and a CLI over the same tools, that
//! let AI agents record runs in the `.harshJudge/` layout through
//! `harshjudge`'s own store and run lifecycle: the files an agent records are
//! the files `cargo test` writes. Tool names and parameters are those of the
//! original HarshJudge server.

pub mod agent;
pub mod cli;
pub mod context;
pub mod dashboard;
pub mod dispatch;
pub mod error;
pub mod heal;
pub mod knowledge;
pub mod observers;
mod secret_args;
pub mod server;
pub mod settings;
pub mod skill;
pub mod tool_sets;
pub mod tools;

pub use context::Context;
pub use dispatch::{Dispatcher, Outcome};

/// The dispatcher every server and CLI command uses: every tool of
/// [`tools::all`], with the agent's observers (active run, knowledge store,
/// recording), built once.
pub fn dispatcher() -> &'static Dispatcher {
    static D: std::sync::OnceLock<Dispatcher> = std::sync::OnceLock::new();
    D.get_or_init(|| {
        Dispatcher::new(tools::all())
            .observe(observers::ActiveRun)
            .observe(observers::Knowledge)
            .observe(observers::Recorder)
    })
}

/// Runs tool `name` with `args` through [`dispatcher`] (absent arguments
/// count as `{}`). Never panics on user input.
pub fn call(ctx: &Context, name: &str, args: Option<serde_json::Value>) -> Outcome {
    dispatcher().call(ctx, name, args)
}
pub use error::{Code, ToolError};
