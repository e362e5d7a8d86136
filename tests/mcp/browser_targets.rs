//! The agent's browser tools in process (harshjudge-mcp's `call`), in real
//! headless Chromium against the demo app: every target kind, strictness with
//! its candidates, `browser_expect` passing, failing and inverted, and its
//! evidence recorded into the active run's current step.

use harshjudge_mcp::Context;
use serde_json::json;

use crate::support::mcp_calls;
use mcp_calls::{fails, ok};

#[test]
fn browser_tools_take_every_target_kind_and_browser_expect_asserts() {
    let base = demo_app::start_in_background().expect("demo app");
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    ok(
        &ctx,
        "initProject",
        json!({"projectName": "Targets", "baseUrl": base}),
    );
    ok(&ctx, "browser_launch", json!({}));

    // --- each target kind on the TodoMVC page ----------------------------------
    ok(&ctx, "browser_navigate", json!({"url": "/todos/"}));
    for t in ["buy milk", "feed the cat"] {
        ok(
            &ctx,
            "browser_type",
            json!({"placeholder": "What needs to be done?", "text": t, "submit": true}),
        );
    }
    ok(
        &ctx,
        "browser_expect",
        json!({"testId": "todo-title", "assertion": "to_have_text", "expected": ["buy milk", "feed the cat"]}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"testId": "todo-title", "assertion": "to_have_count", "expected": 2}),
    );
    ok(
        &ctx,
        "browser_click",
        json!({"label": "Mark all as complete"}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"role": "listitem", "nth": 0, "assertion": "to_have_class", "expected": {"regex": "completed"}}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"role": "button", "name": "Clear completed", "assertion": "to_be_visible"}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"testId": "todo-count", "assertion": "to_have_text", "expected": "0 items left"}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"label": "Mark all as complete", "assertion": "to_be_checked"}),
    );
    // exact: a name that is only a substring does not match.
    ok(
        &ctx,
        "browser_expect",
        json!({"role": "button", "name": "Clear", "exact": true, "assertion": "to_have_count", "expected": 0}),
    );
    ok(
        &ctx,
        "browser_click",
        json!({"role": "button", "name": "Clear completed", "exact": true}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"testId": "todo-title", "assertion": "to_have_count", "expected": 0}),
    );

    // --- the playground: text, altText, title, selector, page assertions -------
    ok(&ctx, "browser_navigate", json!({"url": "/play"}));
    ok(
        &ctx,
        "browser_expect",
        json!({"altText": "Tiny logo", "assertion": "to_have_attribute", "attribute": "width", "expected": "10"}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"title": "Tooltip text", "assertion": "to_have_text", "expected": "hover title"}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"text": "hover title", "assertion": "to_be_visible"}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"selector": "img", "nth": -1, "assertion": "to_be_visible"}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"assertion": "to_have_url", "expected": {"regex": "/play$"}}),
    );
    ok(
        &ctx,
        "browser_expect",
        json!({"assertion": "to_have_url", "expected": "/todos/", "not": true, "timeoutMs": 500}),
    );

    // --- strictness: the count and the candidates, a code of its own -----------
    ok(&ctx, "browser_navigate", json!({"url": "/login"}));
    let (code, msg) = fails(&ctx, "browser_click", json!({"text": "Sign in"}));
    assert_eq!(code, "STRICT_MODE", "{msg}");
    assert!(
        msg.contains("2 elements") && msg.contains("h1") && msg.contains("button"),
        "the count and the candidates: {msg}"
    );
    ok(&ctx, "browser_click", json!({"text": "Sign in", "nth": 1}));
    let (code, msg) = fails(
        &ctx,
        "browser_expect",
        json!({"text": "Sign in", "assertion": "to_have_text", "expected": "x", "timeoutMs": 300}),
    );
    assert_eq!(code, "STRICT_MODE", "{msg}");

    // --- invalid targets and assertions ----------------------------------------
    for (args, says) in [
        (json!({}), "no target"),
        (json!({"testId": "a", "label": "b"}), "more than one target"),
        (json!({"name": "Save"}), "name without role"),
        (json!({"label": "Email", "name": "x"}), "refines a role"),
        (json!({"selector": "a", "exact": true}), "exact applies"),
        (json!({"role": "Button Big"}), "not an ARIA role"),
        (json!({"label": ""}), "empty"),
    ] {
        let (code, msg) = fails(&ctx, "browser_click", args.clone());
        assert_eq!(code, "INVALID_INPUT", "{args}: {msg}");
        assert!(msg.contains(says), "{args}: {msg}");
    }
    for (args, says) in [
        (json!({"assertion": "to_be_visible"}), "no target"),
        (
            json!({"testId": "x", "assertion": "to_be_shiny"}),
            "not known",
        ),
        (
            json!({"testId": "x", "assertion": "to_have_url", "expected": "/"}),
            "drop the target",
        ),
        (
            json!({"testId": "x", "assertion": "to_be_visible", "expected": "a"}),
            "takes no expected",
        ),
        (
            json!({"testId": "x", "assertion": "to_have_count", "expected": "a"}),
            "a count",
        ),
        (
            json!({"testId": "x", "assertion": "to_have_text"}),
            "expects",
        ),
        (
            json!({"testId": "x", "assertion": "to_have_text", "expected": {"regex": "("}}),
            "not a valid regular expression",
        ),
        (
            json!({"testId": "x", "assertion": "to_have_attribute", "expected": "a"}),
            "needs attribute",
        ),
    ] {
        let (code, msg) = fails(&ctx, "browser_expect", args.clone());
        assert_eq!(code, "INVALID_INPUT", "{args}: {msg}");
        assert!(msg.contains(says), "{args}: {msg}");
    }

    // --- browser_expect failing, inverted, and its evidence in a run -----------
    ok(
        &ctx,
        "createScenario",
        json!({"slug": "expect", "title": "Expectations", "steps": [
            {"title": "Sign in page", "actions": "expect", "expectedOutcome": "the form"},
        ]}),
    );
    let run = ok(&ctx, "startRun", json!({"scenarioSlug": "expect"}));
    let (code, msg) = fails(
        &ctx,
        "browser_expect",
        json!({"testId": "sign-in", "assertion": "to_have_text", "expected": "Sign out", "timeoutMs": 400}),
    );
    assert_eq!(code, "ASSERTION_FAILED", "{msg}");
    assert!(
        msg.contains("expected") && msg.contains("Sign out"),
        "expected: {msg}"
    );
    assert!(
        msg.contains("received") && msg.contains("Sign in"),
        "received: {msg}"
    );
    let (code, msg) = fails(
        &ctx,
        "browser_expect",
        json!({"testId": "sign-in", "assertion": "to_be_visible", "not": true, "timeoutMs": 300}),
    );
    assert_eq!(code, "ASSERTION_FAILED", "{msg}");
    assert!(msg.contains("not"), "{msg}");
    let passed = ok(
        &ctx,
        "browser_expect",
        json!({"testId": "sign-in", "assertion": "to_have_text", "expected": "Sign out", "not": true, "timeoutMs": 300}),
    );
    assert_eq!(passed["not"], true);
    assert_eq!(passed["locator"], "testid=sign-in");
    let evidence: Vec<String> = passed["evidence"]
        .as_array()
        .unwrap_or_else(|| panic!("evidence recorded: {passed}"))
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect();
    assert!(
        evidence.iter().any(|e| e.contains("-expect-before.png"))
            && evidence.iter().any(|e| e.contains("-expect-after.png")),
        "{evidence:?}"
    );
    for e in &evidence {
        assert!(
            dir.path().join(e).is_file()
                && e.contains(run["runId"].as_str().unwrap())
                && e.contains("step-01"),
            "{e}"
        );
    }
    ok(&ctx, "browser_close", json!({}));
}
