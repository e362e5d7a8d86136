//! Exported by harshjudge-mcp from the recorded sequence 20261123T090700347Z-pyxzs8 ("Sign in as Ada").
//! Put it in `tests/` and register it from a suite (`mod ...;` next to
//! `harshjudge::main!(...)`), or add `harshjudge::main!();` below.

use harshjudge::{Scenario, scenario, step};

/// Ada signs in and is greeted.
#[scenario(tags = ["recorded"])]
pub async fn sign_in_as_ada(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open /login", {
        page.goto("/login").await?;
    });
    step!("Type into css=#email", {
        page.fill("css=#email", "ada@example.com").await?;
    });
    step!("Type into css=#password", {
        page.fill("css=#password", "secret").await?;
    });
    step!("Click testid=sign-in", {
        page.click("testid=sign-in").await?;
    });
    step!("Wait for text=Welcome, Ada", {
        page.expect_visible("text=Welcome, Ada").await?;
    });
    Ok(())
}
