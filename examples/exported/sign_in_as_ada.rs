//! Exported by harshjudge-mcp from the recorded sequence 20261123T160245405Z-atjj2u ("Sign in as Ada").
//! Put it in `tests/` and register it from a suite (`mod ...;` next to
//! `harshjudge::main!(...)`), or add `harshjudge::main!();` below.

use harshjudge::{Scenario, expect, scenario, step};

/// Ada signs in and is greeted.
#[scenario(tags = ["recorded"])]
pub async fn sign_in_as_ada(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open /login", {
        page.goto("/login").await?;
    });
    step!("Type into label:Email", {
        page.get_by_label("Email").fill("ada@example.com").await?;
    });
    step!("Type into testid=password", {
        page.get_by_test_id("password").fill("secret").await?;
    });
    step!("Click role:button 'Sign in'", {
        page.get_by_role("button").name("Sign in").click().await?;
    });
    step!("Expect role:heading to contain text", {
        expect(&page.get_by_role("heading"))
            .to_contain_text("Ada")
            .await?;
    });
    Ok(())
}
