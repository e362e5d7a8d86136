//! Issue 41 point 7: `browser_launch` takes the emulation options by
//! Playwright's names (`locale`, `timezoneId`, `colorScheme`,
//! `extraHTTPHeaders`, `httpCredentials`, `device`, …); a recording keeps
//! them but never the password, and its export writes them as
//! `#[scenario(…)]` arguments that compile. A misspelt or malformed option
//! is refused naming the accepted forms. In real headless Chromium against
//! the demo app's `/device` page.

use harshjudge_mcp::Context;
use serde_json::json;

use crate::support::mcp_calls::{fails, ok};
use crate::support::rlibs;

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
            "timezoneId": "Asia/Kolkata",
            "colorScheme": "dark",
            "extraHTTPHeaders": {"X-Tenant": "acme"},
            "httpCredentials": {"username": "admin", "password": "s3cret-pw-41"}
        }),
    );
    ok(&ctx, "browser_navigate", json!({"url": "/device"}));
    for (id, text) in [
        ("language", "de-DE"),
        ("time-zone", "Asia/Kolkata"),
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
    for entry in walk(&ctx.root().join(".harshJudge")) {
        let bytes = std::fs::read(&entry).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("s3cret-pw-41"),
            "the password is in {}",
            entry.display()
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
        r#"timezone_id = "Asia/Kolkata""#,
        r#"color_scheme = "dark""#,
        r#"extra_http_headers = [("X-Tenant", "acme")]"#,
        r#"http_credentials = ("admin", std::env::var("HTTP_CREDENTIALS_PASSWORD").unwrap_or_default())"#,
    ] {
        assert!(source.contains(part), "{part} in:\n{source}");
    }
    assert!(!source.contains("s3cret"), "{source}");
    // It compiles as a user's crate would (the attribute's checks included).
    let krate = tempfile::tempdir().unwrap();
    std::fs::write(krate.path().join("emulated.rs"), &source).unwrap();
    let main_rs = krate.path().join("main.rs");
    std::fs::write(&main_rs, "mod emulated;\n\nharshjudge::main!();\n").unwrap();
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let target_dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap();
    let externs = rlibs::rlibs(workspace, target_dir, "mcp", &["harshjudge"]);
    let check = rlibs::check_bin(&main_rs, &externs);
    assert!(
        check.status.success(),
        "the export does not compile:\n{}\n--- the export:\n{source}",
        String::from_utf8_lossy(&check.stderr)
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
