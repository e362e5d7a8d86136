//! The MCP browser tests' two calls in process (harshjudge-mcp's `call`): one
//! that must succeed (its value) and one that must fail (its code and message).

use harshjudge_mcp::{Context, call};
use serde_json::Value;

/// The value of a call that must succeed.
pub fn ok(ctx: &Context, tool: &str, args: Value) -> Value {
    let out = call(ctx, tool, Some(args.clone()));
    assert!(!out.is_error(), "{tool} {args} failed: {}", out.value);
    out.value
}

/// The code and message of a call that must fail.
pub fn fails(ctx: &Context, tool: &str, args: Value) -> (String, String) {
    let out = call(ctx, tool, Some(args.clone()));
    assert!(out.is_error(), "{tool} {args} must fail: {}", out.value);
    (
        out.value["code"].as_str().unwrap_or_default().to_string(),
        out.value["error"].as_str().unwrap_or_default().to_string(),
    )
}

/// A project in a new folder, Chromium launched at `base`, and a recording
/// started: what each MCP browser test begins with.
#[allow(dead_code)]
pub fn recording(base: &str, project: &str, sequence: &str) -> (tempfile::TempDir, Context) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    launched_project(&ctx, base, project);
    ok(&ctx, "record_start", serde_json::json!({"name": sequence}));
    (dir, ctx)
}

/// Chromium launched at `base` and a project initialised in `ctx`.
#[allow(dead_code)]
pub fn launched_project(ctx: &Context, base: &str, project: &str) {
    ok(
        ctx,
        "browser_launch",
        serde_json::json!({"baseUrl": base, "browser": "chromium"}),
    );
    ok(
        ctx,
        "initProject",
        serde_json::json!({"projectName": project, "baseUrl": base}),
    );
}

/// Type-checks `source`, a file `record_export` wrote, as module `module` of a
/// user's crate depending on harshjudge would be (rustc against the harshjudge
/// this test's own build made, no second build); fails showing rustc's errors
/// and the source.
#[allow(dead_code)]
pub fn assert_export_compiles(source: &str, module: &str) {
    let krate = tempfile::tempdir().unwrap();
    std::fs::write(krate.path().join(format!("{module}.rs")), source).unwrap();
    let main_rs = krate.path().join("main.rs");
    std::fs::write(&main_rs, format!("mod {module};\n\nharshjudge::main!();\n")).unwrap();
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let target_dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap();
    let externs = super::rlibs::rlibs(workspace, target_dir, "mcp", &["harshjudge"]);
    let check = super::rlibs::check_bin(&main_rs, &externs);
    assert!(
        check.status.success(),
        "the export does not compile:\n{}\n--- the export:\n{source}",
        String::from_utf8_lossy(&check.stderr)
    );
}
