//! The demo app in a real headless Chromium.

use harshjudge::regex::Regex;
use harshjudge::{Scenario, expect, scenario, step};

/// Ada signs in and is greeted.
#[scenario(tags = ["web", "smoke"])]
async fn web_login(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the login page", {
        page.goto("/login").await?;
    });
    step!("Sign in", {
        page.get_by_label("Email").fill("ada@example.com").await?;
        page.get_by_label("Password").fill("secret").await?;
        page.get_by_role("button").name("Sign in").click().await?;
    });
    step!("The dashboard greets Ada", {
        expect(&page).to_have_url(Regex::new("/dashboard")?).await?;
        expect(&page.get_by_role("heading").level(1))
            .to_have_text("Welcome, Ada")
            .await?;
    });
    Ok(())
}

/// Add and remove items in the list.
#[scenario(tags = ["web"])]
async fn web_items(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the list", {
        page.goto("/items").await?;
        expect(&page.get_by_test_id("item-count"))
            .to_have_text("2 items")
            .await?;
    });
    step!("Add an urgent hammer", {
        page.get_by_test_id("new-item").fill("hammer").await?;
        page.get_by_test_id("category")
            .select_option(["tools"])
            .await?;
        page.get_by_test_id("urgent").check().await?;
        page.get_by_test_id("new-item").press("Enter").await?;
        expect(&page.get_by_test_id("item-count"))
            .to_have_text("3 items")
            .await?;
    });
    step!("Remove the apple", {
        page.get_by_test_id("item")
            .filter_has_text("apple")
            .get_by_role("button")
            .name("Remove")
            .click()
            .await?;
        expect(&page.get_by_test_id("item-count"))
            .to_have_text("2 items")
            .await?;
    });
    Ok(())
}

/// The console page logs and fetches JSON.
#[scenario(tags = ["web"])]
async fn web_console(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the console page", {
        page.goto("/console").await?;
        expect(&page.get_by_test_id("data-message"))
            .to_contain_text("Hello from the API")
            .await?;
    });
    step!("Load a missing resource", {
        page.get_by_test_id("load-missing").click().await?;
        expect(&page.get_by_test_id("missing-status"))
            .to_contain_text("not found")
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
        expect(&page.get_by_test_id("slow-result"))
            .to_be_visible()
            .await?;
        expect(&page.get_by_test_id("slow-status"))
            .to_contain_text("Done")
            .await?;
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
        page.get_by_label("Email").fill("ada@example.com").await?;
        let password = if std::env::var_os("HARSHJUDGE_DEMO_FAIL").is_some() {
            "wrong"
        } else {
            "secret"
        };
        page.get_by_label("Password").fill(password).await?;
        page.get_by_role("button").name("Sign in").click().await?;
        expect(&page).to_have_url(Regex::new("/dashboard")?).await?;
    });
    Ok(())
}

/// The TodoMVC-like page: add two todos, mark all complete, delete one
/// (Playwright's TodoMVC example, word for word in Rust).
#[scenario(tags = ["web"])]
async fn mark_all(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the app", {
        page.goto("/todos/").await?;
    });
    step!("Add two todos", {
        let new_todo = page.get_by_placeholder("What needs to be done?");
        new_todo.fill("buy milk").await?;
        new_todo.press("Enter").await?;
        new_todo.fill("feed the cat").await?;
        new_todo.press("Enter").await?;
        expect(&page.get_by_test_id("todo-title"))
            .to_have_text(["buy milk", "feed the cat"])
            .await?;
    });
    step!("Mark all as complete", {
        page.get_by_label("Mark all as complete").check().await?;
        expect(&page.get_by_test_id("todo-item"))
            .to_have_class(["completed", "completed"])
            .await?;
        expect(&page.get_by_role("button").name("Clear completed"))
            .to_be_visible()
            .await?;
        expect(&page.get_by_test_id("todo-count"))
            .to_have_text("0 items left")
            .await?;
    });
    step!("Delete the second", {
        let item = page.get_by_role("listitem").filter_has_text("feed the cat");
        item.hover().await?;
        item.get_by_role("button").name("Delete").click().await?;
        expect(&page.get_by_test_id("todo-item"))
            .to_have_count(1)
            .await?;
        expect(&page).to_have_url(Regex::new(r"/#/$")?).await?;
    });
    Ok(())
}
