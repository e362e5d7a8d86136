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
pub mod knowledge;
pub mod server;
pub mod tools;

pub use context::Context;
pub use dispatch::{Outcome, call};
pub use error::{Code, ToolError};
