//! harshjudge-mcp from outside its crate: its browser tools in process in real Chromium, the real
//! binary under a third-party MCP client (Python SDK, tests/mcp/*.py), an agent as judge of
//! real runs, and the file shapes of an MCP run against a `cargo test` run.

#[path = "../support/mod.rs"]
mod support;

mod browser_emulation;
mod browser_expect;
mod browser_hung;
mod browser_reach;
mod browser_route;
mod browser_targets;
mod browser_trace;
mod client;
mod judge;
mod shape;
