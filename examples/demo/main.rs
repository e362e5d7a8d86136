//! The demo suite: scenarios against the demo app (examples/demo-app), which
//! the suite starts itself on 127.0.0.1. Run it with `cargo test --test demo`;
//! evidence lands in `.harshJudge/`.
//!
//! `HARSHJUDGE_DEMO_FAIL=1` adds a scenario that fails on purpose, to see what
//! failure evidence looks like.

mod api;
mod cli;
mod web;

/// Starts the demo app for the whole suite (unless HARSHJUDGE_BASE_URL points elsewhere).
fn start_demo_app() -> harshjudge::Result<String> {
    Ok(demo_app::start_in_background()?)
}

harshjudge::main!(base_url = start_demo_app);
