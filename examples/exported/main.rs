//! Scenarios exported by `harshjudge-mcp` (`record_export`) from an agent's
//! recorded session, run as they were written: `cargo test --test exported`.
//! tests/mcp_client.rs checks that the exporter still writes them.

mod sign_in_as_ada;

fn start_demo_app() -> harshjudge::Result<String> {
    Ok(demo_app::start_in_background()?)
}

harshjudge::main!(base_url = start_demo_app);
