//! Locator generation (issue 24.3) in real headless Chromium: for one element
//! of a live page, `generate_locator` gives the locator a person would write
//! (test id, role and name, label, placeholder), scoped by a unique ancestor
//! with `filter_has_text`, `.exact()` or `nth` only when needed, and every
//! generated locator matches that element alone on the page.

use crate::support::browsers;
use harshjudge::browser::{BrowserConfig, GeneratedLocator, Page, generate_locator};

fn config() -> BrowserConfig {
    let mut c = BrowserConfig::from_env().expect("browser settings");
    c.webdriver_url = None;
    c
}

/// A page of the demo app whose body is `html`.
async fn page_with(page: &Page, html: &str) {
    page.goto("/play").await.unwrap();
    let _: serde_json::Value = page
        .evaluate("(h) => { document.body.innerHTML = h; return null; }", html)
        .await
        .unwrap();
}

/// The locator generated for the element marked `data-target`, checked to
/// match it alone on the page.
async fn generated(page: &Page) -> GeneratedLocator {
    let g = generate_locator(page, "[data-target]").await.unwrap();
    let l = g.locator(page);
    assert_eq!(l.count().await.unwrap(), 1, "{} matches one element", g);
    assert_eq!(
        l.get_attribute("data-target").await.unwrap().as_deref(),
        Some("yes"),
        "{g} is the target"
    );
    assert!(g.unique);
    g
}

/// Playwright's TodoMVC markup: the toggles share their label, the items have
/// no test id; the footer's filters are list items too.
const TODOMVC: &str = r##"
<section class="todoapp"><header><h1>todos</h1><input class="new-todo" placeholder="What needs to be done?"></header>
<section class="main"><ul class="todo-list">
  <li><div class="view"><input class="toggle" type="checkbox" aria-label="Toggle Todo"><label>buy milk</label><button class="destroy" aria-label="Delete"></button></div></li>
  <li><div class="view"><input class="toggle" type="checkbox" aria-label="Toggle Todo" data-target="yes"><label>feed the cat</label><button class="destroy" aria-label="Delete"></button></div></li>
  <li><div class="view"><input class="toggle" type="checkbox" aria-label="Toggle Todo"><label>walk the dog</label><button class="destroy" aria-label="Delete"></button></div></li>
</ul></section>
<footer><ul class="filters"><li><a href="#/">All</a></li><li><a href="#/active">Active</a></li></ul></footer></section>"##;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_locators_read_as_an_engineer_writes_them() {
    let base = demo_app::start_in_background().expect("demo app");
    let page = browsers()
        .open_page_with(&config(), &base)
        .await
        .expect("a page");

    // Duplicated labels: scoped by the list item and its text, as Playwright MCP writes it.
    page_with(&page, TODOMVC).await;
    assert_eq!(
        generated(&page).await.rust(),
        r#"get_by_role("listitem").filter_has_text("feed the cat").get_by_label("Toggle Todo")"#
    );

    // A test id wins over everything else.
    page_with(
        &page,
        r#"<button data-testid="save-btn" data-target="yes">Save</button><button>Save</button>"#,
    )
    .await;
    assert_eq!(
        generated(&page).await.rust(),
        r#"get_by_test_id("save-btn")"#
    );

    // A form control by its label, then by its placeholder.
    page_with(
        &page,
        r#"<label for="e">Email</label><input id="e" data-target="yes" placeholder="you@example.com"><input placeholder="Search">"#,
    )
    .await;
    assert_eq!(generated(&page).await.rust(), r#"get_by_label("Email")"#);
    page_with(
        &page,
        r#"<input placeholder="Search" data-target="yes"><input placeholder="Filter">"#,
    )
    .await;
    assert_eq!(
        generated(&page).await.rust(),
        r#"get_by_placeholder("Search")"#
    );

    // An ambiguous name: "Save" is a part of "Save draft", so the name is exact.
    page_with(
        &page,
        r#"<button>Save draft</button><button data-target="yes">Save</button>"#,
    )
    .await;
    assert_eq!(
        generated(&page).await.rust(),
        r#"get_by_role("button").name("Save").exact()"#
    );

    // Duplicates nothing tells apart: nth, and only then.
    page_with(
        &page,
        r#"<div><button>Add</button><button data-target="yes">Add</button><button>Add</button></div>"#,
    )
    .await;
    assert_eq!(
        generated(&page).await.rust(),
        r#"get_by_role("button").name("Add").nth(1)"#
    );

    // A link by its role and name.
    page_with(
        &page,
        r#"<nav><a href="/a">Home</a><a href="/b" data-target="yes">Pricing</a></nav>"#,
    )
    .await;
    assert_eq!(
        generated(&page).await.rust(),
        r#"get_by_role("link").name("Pricing")"#
    );

    // A selector of no element, or of several, is an error naming it.
    let e = generate_locator(&page, "button.none").await.unwrap_err();
    assert!(e.to_string().contains("matches 0 elements"), "{e}");
    let e = generate_locator(&page, "a").await.unwrap_err();
    assert!(e.to_string().contains("matches 2 elements"), "{e}");
    browsers().release(page).await;
}

/// On the demo app's TodoMVC page (test ids on the items, unlabelled toggles),
/// the item's test id and text scope the toggle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_todo_toggle_is_scoped_by_its_item() {
    let base = demo_app::start_in_background().expect("demo app");
    let page = browsers()
        .open_page_with(&config(), &base)
        .await
        .expect("a page");
    page.goto("/todos/").await.unwrap();
    let input = page.get_by_placeholder("What needs to be done?");
    for t in ["buy milk", "feed the cat", "walk the dog"] {
        input.fill(t).await.unwrap();
        input.press("Enter").await.unwrap();
    }
    let _: serde_json::Value = page
        .evaluate(
            "() => { document.querySelectorAll('.todo-list li')[1].querySelector('input.toggle').setAttribute('data-target', 'yes'); return null; }",
            (),
        )
        .await
        .unwrap();
    assert_eq!(
        generated(&page).await.rust(),
        r#"get_by_test_id("todo-item").filter_has_text("feed the cat").get_by_role("checkbox")"#
    );
    // The new-todo field: its placeholder.
    let g = generate_locator(&page, "input.new-todo").await.unwrap();
    assert_eq!(g.rust(), r#"get_by_placeholder("What needs to be done?")"#);
    browsers().release(page).await;
}
