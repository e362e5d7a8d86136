//! The demo app in a real headless Chromium.

use harshjudge::{Scenario, scenario, step};

/// Ada signs in and is greeted.
#[scenario(tags = ["web", "smoke"])]
async fn web_login(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the login page", {
        page.goto("/login").await?;
    });
    step!("Sign in", {
        page.fill("#email", "ada@example.com").await?;
        page.fill("#password", "secret").await?;
        page.click("testid=sign-in").await?;
    });
    step!("The dashboard greets Ada", {
        page.expect_url("/dashboard").await?;
        page.expect_text("h1", "Welcome, Ada").await?;
    });
    Ok(())
}

/// Add and remove items in the list.
#[scenario(tags = ["web"])]
async fn web_items(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the list", {
        page.goto("/items").await?;
        page.expect_text("testid=item-count", "2 items").await?;
    });
    step!("Add an urgent hammer", {
        page.fill("testid=new-item", "hammer").await?;
        page.select("testid=category", "tools").await?;
        page.check("testid=urgent", true).await?;
        page.press("testid=new-item", "Enter").await?;
        page.expect_text("testid=item-count", "3 items").await?;
    });
    step!("Remove the apple", {
        page.click("testid=remove-1").await?;
        page.expect_text("testid=item-count", "2 items").await?;
    });
    Ok(())
}

/// The console page logs and fetches JSON.
#[scenario(tags = ["web"])]
async fn web_console(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the console page", {
        page.goto("/console").await?;
        page.expect_text("testid=data-message", "Hello from the API")
            .await?;
    });
    step!("Load a missing resource", {
        page.click("testid=load-missing").await?;
        page.expect_text("testid=missing-status", "not found")
            .await?;
    });
    Ok(())
}

/// Waits for an element that appears late.
#[scenario(tags = ["web"])]
async fn web_slow(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the slow page", {
        page.goto("/slow?ms=1200").await?;
    });
    step!("The result appears", {
        page.expect_visible("testid=slow-result").await?;
        page.expect_text("testid=slow-status", "Done").await?;
    });
    Ok(())
}

/// Fails on purpose with HARSHJUDGE_DEMO_FAIL=1, to show the failure evidence.
#[scenario(tags = ["web", "demo-failure"])]
async fn web_expected_failure(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the login page", {
        page.goto("/login").await?;
    });
    step!("Sign in with a wrong password", {
        page.fill("#email", "ada@example.com").await?;
        let password = if std::env::var_os("HARSHJUDGE_DEMO_FAIL").is_some() {
            "wrong"
        } else {
            "secret"
        };
        page.fill("#password", password).await?;
        page.click("testid=sign-in").await?;
        page.expect_url("/dashboard").await?;
    });
    Ok(())
}
