//! The MCP side of issue 23 and the locators of issue 24.3, in process
//! (harshjudge-mcp's `call`) in real headless Chromium against the demo app:
//! `browser_route` fulfils JSON, aborts and is removed (on the demo app's
//! console page); `browser_expect`'s
//! `to_have_request` (and its `not`: a request that must not happen),
//! `to_have_no_errors` and `to_have_message` read what the page fetched and
//! logged; `browser_launch` opens the engine it is given (Firefox here) and
//! refuses an unknown one by name; and a
//! click by snapshot ref is recorded and exported as the locator a person
//! would write, with the route and the assertions.

use harshjudge_mcp::Context;
use serde_json::json;

use crate::support::mcp_calls;
use mcp_calls::{fails, launched_project, ok};

#[test]
fn browser_route_fulfils_and_aborts_and_browser_expect_reads_network_and_console() {
    let base = demo_app::start_in_background().expect("demo app");
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    // The engine chosen at launch drives the session: Firefox, with what it
    // logged read over BiDi; then closed for the Chromium part below.
    ok(
        &ctx,
        "browser_launch",
        json!({"baseUrl": base, "browser": "firefox"}),
    );
    ok(&ctx, "browser_navigate", json!({"url": "/console"}));
    ok(
        &ctx,
        "browser_expect",
        json!({"assertion": "to_have_message", "expected": "demo: something failed"}),
    );
    let firefoxes = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
            .filter(|c| String::from_utf8_lossy(c).contains("geckodriver"))
            .count()
    };
    assert!(
        firefoxes() > 0,
        "the session runs in Firefox, through geckodriver"
    );
    ok(&ctx, "browser_close", json!({}));
    // A wrong engine is refused by name.
    let (code, msg) = fails(
        &ctx,
        "browser_launch",
        json!({"baseUrl": base, "browser": "lynx"}),
    );
    assert_eq!(code, "INVALID_INPUT", "{msg}");
    assert!(msg.contains("chromium, firefox, webkit"), "{msg}");
    launched_project(&ctx, &base, "Route");

    ok(&ctx, "record_start", json!({"name": "routed"}));
    // The console page fetches /api/data as it loads, /api/missing on each
    // click of "load missing" (a 404 from the demo app), and logs
    // "demo: something failed".
    ok(&ctx, "browser_navigate", json!({"url": "/console"}));
    ok(
        &ctx,
        "browser_route",
        json!({"pattern": "**/api/missing", "action": "fulfill", "status": 418, "json": {"message": "stubbed"}}),
    );
    ok(&ctx, "browser_click", json!({"selector": "#load-missing"}));
    ok(
        &ctx,
        "browser_expect",
        json!({"testId": "missing-status", "assertion": "to_have_text", "expected": "status 418"}),
    );
    // The newest route is asked first.
    ok(
        &ctx,
        "browser_route",
        json!({"pattern": "/\\/api\\/missing$/", "action": "abort"}),
    );
    ok(&ctx, "browser_click", json!({"selector": "#load-missing"}));
    ok(
        &ctx,
        "browser_expect",
        json!({"testId": "missing-status", "assertion": "to_contain_text", "expected": "error:"}),
    );
    // What the page fetched: the stubbed request, with its method and status.
    ok(
        &ctx,
        "browser_expect",
        json!({"assertion": "to_have_request", "expected": "**/api/missing", "method": "GET", "status": 418}),
    );
    // A request that must not happen, and one that did not get that status.
    ok(
        &ctx,
        "browser_expect",
        json!({"assertion": "to_have_request", "expected": "**/api/never", "not": true, "timeoutMs": 300}),
    );
    let (code, msg) = fails(
        &ctx,
        "browser_expect",
        json!({"assertion": "to_have_request", "expected": "**/api/missing", "status": 201, "timeoutMs": 300}),
    );
    assert_eq!(code, "ASSERTION_FAILED", "{msg}");
    assert!(
        msg.contains("status 201") && msg.contains("/api/missing"),
        "{msg}"
    );
    let (code, msg) = fails(
        &ctx,
        "browser_expect",
        json!({"assertion": "to_have_request", "expected": "**/api/data", "not": true}),
    );
    assert_eq!(code, "ASSERTION_FAILED", "{msg}");
    // What it logged: the error fails to_have_no_errors unless allowed.
    let (code, msg) = fails(
        &ctx,
        "browser_expect",
        json!({"assertion": "to_have_no_errors"}),
    );
    assert_eq!(code, "ASSERTION_FAILED", "{msg}");
    assert!(msg.contains("demo: something failed"), "{msg}");
    ok(
        &ctx,
        "browser_expect",
        json!({"assertion": "to_have_no_errors", "expected": ["demo: something failed", {"regex": "^Failed to load resource"}]}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"assertion": "to_have_message", "expected": "low stock"}),
    );
    // The requests are marked as the route settled them.
    let net = ok(&ctx, "browser_network", json!({}));
    let marks: Vec<(String, String)> = net["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| {
            Some((
                e["url"].as_str()?.rsplit('/').next()?.to_string(),
                e["intercepted"].as_str()?.to_string(),
            ))
        })
        .collect();
    assert!(
        marks.contains(&("missing".into(), "fulfilled".into())),
        "{net}"
    );
    assert!(
        marks.contains(&("missing".into(), "aborted".into())),
        "{net}"
    );
    // Removed, the routes no longer answer: the demo app does.
    ok(
        &ctx,
        "browser_route",
        json!({"pattern": "**/api/missing", "action": "remove"}),
    );
    ok(
        &ctx,
        "browser_route",
        json!({"pattern": "/\\/api\\/missing$/", "action": "remove"}),
    );
    ok(&ctx, "browser_click", json!({"selector": "#load-missing"}));
    ok(
        &ctx,
        "browser_expect",
        json!({"testId": "missing-status", "assertion": "to_have_text", "expected": "not found"}),
    );

    // Bad input names what was wrong.
    let (code, msg) = fails(
        &ctx,
        "browser_route",
        json!({"pattern": "**/x", "action": "stub"}),
    );
    assert_eq!(code, "INVALID_INPUT");
    assert!(msg.contains("fulfill, abort, continue, remove"), "{msg}");
    let (_, msg) = fails(
        &ctx,
        "browser_route",
        json!({"pattern": "**/x", "action": "abort", "status": 200}),
    );
    assert!(msg.contains("fulfill"), "{msg}");
    let (_, msg) = fails(
        &ctx,
        "browser_route",
        json!({"pattern": "/(/", "action": "abort"}),
    );
    assert!(msg.contains("regular expression"), "{msg}");
    let (_, msg) = fails(
        &ctx,
        "browser_expect",
        json!({"assertion": "to_have_text", "selector": "p", "expected": "x", "method": "GET"}),
    );
    assert!(
        msg.contains("method and status refine to_have_request"),
        "{msg}"
    );

    // The TodoMVC toggle clicked by snapshot ref: recorded and exported as a person writes it.
    ok(&ctx, "browser_navigate", json!({"url": "/todos/"}));
    for t in ["buy milk", "feed the cat", "walk the dog"] {
        ok(
            &ctx,
            "browser_type",
            json!({"placeholder": "What needs to be done?", "text": t, "submit": true}),
        );
    }
    let snap = ok(&ctx, "browser_snapshot", json!({}));
    let toggles: Vec<&str> = snap["snapshot"]
        .as_str()
        .unwrap()
        .lines()
        .filter(|l| l.trim_start().starts_with("- checkbox"))
        .filter_map(|l| l.split("[ref=").nth(1)?.split(']').next())
        .collect();
    assert!(toggles.len() >= 4, "{snap}");
    let clicked = ok(&ctx, "browser_click", json!({"ref": toggles[2]}));
    assert_eq!(
        clicked["locator"],
        r#"get_by_test_id("todo-item").filter_has_text("feed the cat").get_by_role("checkbox")"#
    );
    let seq = ok(&ctx, "record_stop", json!({}));
    let out = ok(
        &ctx,
        "record_export",
        json!({"sequenceId": seq["sequenceId"], "functionName": "routed"}),
    );
    let source = std::fs::read_to_string(ctx.root().join(out["path"].as_str().unwrap())).unwrap();
    let flat: String = source.split_whitespace().collect::<Vec<_>>().join(" ");
    for line in [
        r#"page.get_by_test_id("todo-item") .filter_has_text("feed the cat") .get_by_role("checkbox") .click() .await?;"#,
        r#"page.get_by_test_id("load-missing").click().await?;"#,
        r#"step!("Route **/api/missing: fulfill""#,
        r#"page.route("**/api/missing", |route| async move { route.fulfill(harshjudge::Response::new().status(418).content_type("application/json").body("{\"message\":\"stubbed\"}")).await })"#,
        r#"page.route(harshjudge::regex::Regex::new("\\/api\\/missing$")?, |route| async move { route.abort().await })"#,
        r#"page.unroute("**/api/missing").await?;"#,
        r#"expect(&s.network()) .to_have_request("**/api/missing") .method("GET") .status(418) .await?;"#,
        r#"expect(&s.network()) .not() .to_have_request("**/api/never")"#,
        r#"expect(&s.console()) .allow("demo: something failed") .allow(harshjudge::regex::Regex::new("^Failed to load resource")?) .to_have_no_errors() .await?;"#,
        r#"expect(&s.console()).to_have_message("low stock").await?;"#,
    ] {
        assert!(flat.contains(line), "{line}\nin:\n{source}");
    }
    assert!(!source.contains("nth-of-type"), "{source}");
    ok(&ctx, "browser_close", json!({}));
}
