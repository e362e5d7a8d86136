//! Every page answers 200 HTML with its test ids; anything else is a 404 page.

mod common;

use common::{get, post};
use demo_app::DemoApp;

/// GETs `path` and checks it is a 200 HTML page; returns the body.
async fn page(app: &DemoApp, path: &str) -> String {
    let res = get(app.addr(), path).await;
    assert_eq!(res.status, 200, "GET {path}");
    let content_type = res.header("content-type").unwrap_or_default();
    assert!(
        content_type.starts_with("text/html"),
        "GET {path}: content-type {content_type}"
    );
    assert!(res.body.starts_with("<!DOCTYPE html>"), "GET {path}");
    res.body
}

fn assert_has(body: &str, path: &str, needles: &[&str]) {
    for needle in needles {
        assert!(
            body.contains(needle),
            "GET {path}: no {needle:?} in\n{body}"
        );
    }
}

fn test_ids(ids: &[&str]) -> Vec<String> {
    ids.iter()
        .map(|id| format!("data-testid=\"{id}\""))
        .collect()
}

fn assert_test_ids(body: &str, path: &str, ids: &[&str]) {
    let ids = test_ids(ids);
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    assert_has(body, path, &ids);
}

/// Nothing is loaded from elsewhere: no external scripts, styles or images.
fn assert_self_contained(body: &str, path: &str) {
    for needle in [
        "<script src",
        "<link rel=\"stylesheet\"",
        "http://",
        "https://",
        "//cdn",
    ] {
        assert!(!body.contains(needle), "GET {path}: contains {needle:?}");
    }
}

#[tokio::test]
async fn home() {
    let app = DemoApp::start().await.unwrap();
    let body = page(&app, "/").await;
    assert_has(
        &body,
        "/",
        &["<h1>Demo App</h1>", "<title>Demo App</title>"],
    );
    assert_test_ids(
        &body,
        "/",
        &["nav-login", "nav-items", "nav-console", "nav-slow"],
    );
    assert_has(
        &body,
        "/",
        &[
            r#"href="/login" data-testid="nav-login""#,
            r#"href="/items" data-testid="nav-items""#,
            r#"href="/console" data-testid="nav-console""#,
            r#"href="/slow" data-testid="nav-slow""#,
        ],
    );
    assert_self_contained(&body, "/");
    app.stop().await;
}

#[tokio::test]
async fn login() {
    let app = DemoApp::start().await.unwrap();
    let body = page(&app, "/login").await;
    assert_test_ids(
        &body,
        "/login",
        &["email", "password", "sign-in", "login-error"],
    );
    assert_has(
        &body,
        "/login",
        &[
            r#"id="email""#,
            r#"id="password""#,
            ">Sign in</button>",
            "/api/login",
            "/dashboard?name=",
            r#"<p data-testid="login-error" role="alert">Invalid email or password</p>"#,
        ],
    );
    assert_self_contained(&body, "/login");
    app.stop().await;
}

#[tokio::test]
async fn dashboard() {
    let app = DemoApp::start().await.unwrap();
    let body = page(&app, "/dashboard?name=Ada").await;
    assert_has(&body, "/dashboard", &["<h1>Welcome, Ada</h1>"]);
    assert_test_ids(&body, "/dashboard", &["sign-out"]);
    let body = page(&app, "/dashboard?name=Grace%20Hopper").await;
    assert_has(&body, "/dashboard", &["<h1>Welcome, Grace Hopper</h1>"]);
    // The name is escaped.
    let body = page(&app, "/dashboard?name=%3Cb%3Ex%3C%2Fb%3E").await;
    assert_has(
        &body,
        "/dashboard",
        &["<h1>Welcome, &lt;b&gt;x&lt;/b&gt;</h1>"],
    );
    app.stop().await;
}

#[tokio::test]
async fn items() {
    let app = DemoApp::start().await.unwrap();
    let body = page(&app, "/items").await;
    assert_test_ids(
        &body,
        "/items",
        &[
            "item-list",
            "item",
            "remove-1",
            "remove-2",
            "new-item",
            "add-item",
            "category",
            "urgent",
            "item-count",
        ],
    );
    assert_has(
        &body,
        "/items",
        &[
            r#"<ul data-testid="item-list">"#,
            r#"<span data-testid="item-text">apple</span>"#,
            r#"<span data-testid="item-text">pear</span>"#,
            r#"<span data-testid="item-count">2 items</span>"#,
            r#"id="new-item""#,
            r#"<option value="general" selected>general</option>"#,
            r#"<option value="fruit">fruit</option>"#,
            r#"<option value="tools">tools</option>"#,
            r#"type="checkbox" data-testid="urgent"> Urgent</label>"#,
            ">Add</button>",
            ">Remove</button>",
            "/api/items",
        ],
    );
    assert_eq!(body.matches(r#"<li data-testid="item">"#).count(), 2);

    // The page shows the current state, escaped.
    post(
        app.addr(),
        "/api/items",
        r#"{"text":"<saw>","category":"tools","urgent":true}"#,
    )
    .await;
    let body = page(&app, "/items").await;
    assert_eq!(body.matches(r#"<li data-testid="item">"#).count(), 3);
    assert_has(
        &body,
        "/items",
        &[
            "&lt;saw&gt;",
            r#"data-testid="remove-3""#,
            r#"data-testid="item-urgent""#,
            r#"<span data-testid="item-count">3 items</span>"#,
        ],
    );
    assert_self_contained(&body, "/items");
    app.stop().await;
}

#[tokio::test]
async fn console() {
    let app = DemoApp::start().await.unwrap();
    let body = page(&app, "/console").await;
    assert_test_ids(
        &body,
        "/console",
        &["data-message", "load-missing", "missing-status", "throw"],
    );
    assert_has(
        &body,
        "/console",
        &[
            r#"console.log("demo: page loaded")"#,
            r#"console.warn("demo: low stock")"#,
            r#"console.error("demo: something failed")"#,
            r#"throw new Error("demo: boom")"#,
            "fetch('/api/data')",
            "fetch('/api/missing')",
            "'not found'",
        ],
    );
    assert_self_contained(&body, "/console");
    app.stop().await;
}

#[tokio::test]
async fn slow() {
    let app = DemoApp::start().await.unwrap();
    let body = page(&app, "/slow").await;
    assert_test_ids(&body, "/slow", &["slow-status", "slow-result"]);
    assert_has(
        &body,
        "/slow",
        &[
            r#"<p data-testid="slow-status">Loading…</p>"#,
            r#"<div data-testid="slow-result">Ready</div>"#,
            "'Done'",
            "}, 1500);",
        ],
    );
    let body = page(&app, "/slow?ms=200").await;
    assert_has(&body, "/slow?ms=200", &["}, 200);"]);
    let body = page(&app, "/slow?ms=junk").await;
    assert_has(&body, "/slow?ms=junk", &["}, 1500);"]);
    assert_self_contained(&body, "/slow");
    app.stop().await;
}

#[tokio::test]
async fn unknown_path_is_a_404_page() {
    let app = DemoApp::start().await.unwrap();
    for path in ["/nope", "/login/extra", "/items.html"] {
        let res = get(app.addr(), path).await;
        assert_eq!(res.status, 404, "GET {path}");
        assert!(res.header("content-type").unwrap().starts_with("text/html"));
        assert!(res.body.contains("<h1>Not found</h1>"), "GET {path}");
    }
    app.stop().await;
}

#[tokio::test]
async fn favicon_is_empty_not_404() {
    let app = DemoApp::start().await.unwrap();
    assert_eq!(get(app.addr(), "/favicon.ico").await.status, 204);
    // Pages also point the icon at an empty data: URL.
    assert!(
        page(&app, "/")
            .await
            .contains(r#"<link rel="icon" href="data:,">"#)
    );
    app.stop().await;
}
