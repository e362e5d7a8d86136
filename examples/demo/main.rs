//! The demo suite: scenarios against the demo app (examples/demo-app), which
//! the suite starts as a process of its own (`demo-cli serve`) on a free
//! loopback port, and stops when it ends (Ctrl-C and SIGKILL included; under
//! cargo-nextest once for the whole run). Run it with `cargo test --test demo`;
//! evidence lands in `.harshJudge/`.
//!
//! `HARSHJUDGE_DEMO_FAIL=1` adds a scenario that fails on purpose, to see what
//! failure evidence looks like. `HARSHJUDGE_BASE_URL=http://…` runs the suite
//! against an app already running there.

mod account;
mod api;
mod cli;
mod web;

use harshjudge::WebServer;

/// The demo app, served by its own binary for the whole suite.
fn demo_app() -> WebServer {
    WebServer::command(concat!(
        "'",
        env!("CARGO_BIN_EXE_demo-cli"),
        "' serve --port {port}"
    ))
    .ready("/api/health")
}

harshjudge::main!(web_server = demo_app);
