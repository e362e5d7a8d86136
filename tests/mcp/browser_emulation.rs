//! Issue 41 point 7: `browser_launch` takes the emulation options by
//! Playwright's names (`locale`, `timezoneId`, `colorScheme`,
//! `extraHTTPHeaders`, `httpCredentials`, `device`, …); a recording keeps
//! them but never the password, and its export writes them as
//! `#[scenario(…)]` arguments that compile. A misspelt or malformed option
//! is refused naming the accepted forms. In real headless Chromium against
//! the demo app's `/device` page.

use harshjudge_mcp::Context;
use serde_json::json;

use crate::support::mcp_calls::{assert_export_compiles, fails, ok};
use crate::support::tree;

#[test]
fn browser_launch_emulates_records_without_the_password_and_exports_the_attribute() {
    let base = demo_app::start_in_background().expect("demo app");
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    ok(
        &ctx,
        "initProject",
        json!({"projectName": "Emulated", "baseUrl": base}),
    );

    // Refused before anything opens, naming what is accepted.
    let (code, msg) = fails(&ctx, "browser_launch", json!({"timezone": "UTC"}));
    assert_eq!(code, "INVALID_INPUT", "{msg}");
    assert!(
        msg.contains("\"timezone\"") && msg.contains("timezoneId"),
        "{msg}"
    );
    let (_, msg) = fails(&ctx, "browser_launch", json!({"device": "Nokia 3310"}));
    assert!(
        msg.contains("unknown device") && msg.contains("Pixel 7"),
        "{msg}"
    );
    let (_, msg) = fails(&ctx, "browser_launch", json!({"timezoneId": "Berlin"}));
    assert!(msg.contains("Europe/Berlin"), "{msg}");

    ok(&ctx, "record_start", json!({"name": "emulated"}));
    ok(
        &ctx,
        "browser_launch",
        json!({
            "browser": "chromium",
            "locale": "de-DE",
            "timezoneId": "Asia/Tokyo",
            "colorScheme": "dark",
            "extraHTTPHeaders": {"X-Tenant": "acme"},
            "httpCredentials": {"username": "admin", "password": "s3cret-pw-41"}
        }),
    );
    ok(&ctx, "browser_navigate", json!({"url": "/device"}));
    for (id, text) in [
        ("language", "de-DE"),
        ("time-zone", "Asia/Tokyo"),
        ("number", "1.234,5"),
        ("color-scheme", "dark"),
        ("request-x-tenant", "acme"),
    ] {
        ok(
            &ctx,
            "browser_expect",
            json!({"testId": id, "assertion": "to_have_text", "expected": text}),
        );
    }
    let seq = ok(&ctx, "record_stop", json!({}));
    let id = seq["sequenceId"]
        .as_str()
        .expect("a sequence id")
        .to_string();
    ok(&ctx, "browser_close", json!({}));

    // Nothing under .harshJudge/ holds the password.
    let hj = ctx.root().join(".harshJudge");
    for entry in tree(&hj) {
        let bytes = std::fs::read(hj.join(&entry)).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("s3cret-pw-41"),
            "the password is in {entry}"
        );
    }

    let out = ok(
        &ctx,
        "record_export",
        json!({"sequenceId": id, "functionName": "emulated"}),
    );
    let source = std::fs::read_to_string(ctx.root().join(out["path"].as_str().unwrap())).unwrap();
    for part in [
        r#"locale = "de-DE""#,
        r#"timezone_id = "Asia/Tokyo""#,
        r#"color_scheme = "dark""#,
        r#"extra_http_headers = [("X-Tenant", "acme")]"#,
        r#"http_credentials = ("admin", std::env::var("HTTP_CREDENTIALS_PASSWORD").unwrap_or_default())"#,
    ] {
        assert!(source.contains(part), "{part} in:\n{source}");
    }
    assert!(!source.contains("s3cret"), "{source}");
    // It compiles as a user's crate would (the attribute's checks included).
    assert_export_compiles(&source, "emulated");
}
