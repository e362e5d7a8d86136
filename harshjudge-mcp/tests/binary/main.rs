//! The built `harshjudge-mcp` binary: its CLI, JSON-RPC over stdio, the MCP Inspector against
//! it, the live dashboard's processes, and build.rs's hot-code layout.

mod cli;
mod dashboard;
mod inspector;
mod jsonrpc;
#[path = "../shared/trace_fixture.rs"]
mod trace_fixture;
