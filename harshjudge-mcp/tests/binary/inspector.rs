//! The real MCP Inspector (2.12, CLI mode) against `harshjudge-mcp`:
//! `tools/list --strict` reports no schema portability problem at all, and
//! tool calls through it validate their `structuredContent` against each
//! tool's `outputSchema`. CI installs the Inspector into target/npm-tools
//! (see .ci/run); this test fails, it never skips, when it is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_harshjudge-mcp");

fn inspector() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let tools = root.join("target/npm-tools");
    let bin = tools.join("node_modules/.bin/mcp-inspector");
    assert!(
        bin.exists(),
        "MCP Inspector missing: npm install --prefix {} @modelcontextprotocol/inspector@2.12.0 (.ci/run does it)",
        tools.display()
    );
    let pkg: Value = serde_json::from_slice(
        &std::fs::read(tools.join("node_modules/@modelcontextprotocol/inspector/package.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(pkg["version"], "2.12.0", "the Inspector version tested");
    bin
}

fn run(project: &Path, args: &[&str]) -> Output {
    Command::new(inspector())
        .arg("--cli")
        .args(["--cwd", project.to_str().unwrap()])
        .args([
            "-e",
            "HARSHJUDGE_DASHBOARD=off",
            "-e",
            "HARSHJUDGE_LOG=warn",
        ])
        .args(args)
        .arg("--")
        .arg(BIN)
        // A client that validates results asks for the output schemas.
        .arg("--output-schemas")
        .output()
        .expect("node runs the Inspector")
}

/// A tool call through the Inspector: it fails (non-zero exit) when the tool
/// fails or its structuredContent does not match its outputSchema.
fn call(project: &Path, tool: &str, args: &[&str]) -> Value {
    let mut all = vec!["--method", "tools/call", "--tool-name", tool];
    if !args.is_empty() {
        all.push("--tool-arg");
        all.extend_from_slice(args);
    }
    let out = run(project, &all);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{tool} through the Inspector failed ({:?}):\n{stdout}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["isError"], false, "{v}");
    v["structuredContent"].clone()
}

#[test]
fn the_mcp_inspector_finds_no_schema_problem_and_every_result_matches_its_output_schema() {
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    let out = run(
        p,
        &["--strict", "--format", "json", "--method", "tools/list"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        listed.get("schemaFindings").is_none(),
        "--strict findings: {}",
        serde_json::to_string_pretty(&listed["schemaFindings"]).unwrap()
    );
    assert!(
        !stderr.contains("Warning:") && !stderr.contains("Error:"),
        "{stderr}"
    );
    let tools = listed["result"]["tools"].as_array().unwrap();
    println!(
        "MCP Inspector 2.12 --strict: 0 findings over {} tools",
        tools.len()
    );
    for t in tools {
        assert_eq!(t["outputSchema"]["type"], "object", "{}", t["name"]);
    }
    let schema =
        |name: &str| tools.iter().find(|t| t["name"] == name).unwrap()["inputSchema"].clone();
    let evidence = schema("recordEvidence");
    assert_eq!(
        evidence["properties"]["runId"]["pattern"],
        "^[A-Za-z0-9_-]{1,64}$"
    );
    assert_eq!(evidence["properties"]["step"]["anyOf"][0]["minimum"], 1);
    assert_eq!(
        evidence["properties"]["stepId"]["anyOf"][0]["pattern"],
        "^(0[1-9]|[1-9][0-9])$"
    );
    assert_eq!(evidence["if"]["not"]["required"][0], "stepId");
    assert_eq!(evidence["then"]["required"][0], "step");
    assert!(
        evidence.get("anyOf").is_none(),
        "no root anyOf (the Anthropic API refuses it)"
    );
    assert_eq!(schema("getRunState")["then"]["required"][0], "scenarioSlug");
    assert_eq!(
        schema("startRun")["properties"]["scenarioSlug"]["pattern"],
        "^[a-z0-9-]{1,100}$"
    );

    // The workflow, each result checked against its outputSchema by the Inspector.
    call(
        p,
        "initProject",
        &["projectName=Inspected", "baseUrl=http://127.0.0.1:9"],
    );
    call(
        p,
        "saveScenario",
        &["slug=legacy", "title=Legacy", "content=# Legacy"],
    );
    call(
        p,
        "createScenario",
        &[
            "slug=login",
            "title=Login",
            r#"steps=[{"title":"Open","actions":"go","expectedOutcome":"a form"},{"title":"Sign in","actions":"submit","expectedOutcome":"welcome"}]"#,
        ],
    );
    call(p, "toggleStar", &["scenarioSlug=login"]);
    let run = call(p, "startRun", &["scenarioSlug=login"]);
    let run_id = format!("runId={}", run["runId"].as_str().unwrap());
    call(
        p,
        "recordEvidence",
        &[
            &run_id,
            "step=1",
            "type=console_log",
            "name=console",
            "data=/static/app.js",
        ],
    );
    call(
        p,
        "completeStep",
        &[&run_id, "stepId=01", "status=pass", "duration=12"],
    );
    call(p, "getRunState", &[&run_id]);
    call(p, "completeRun", &[&run_id, "status=pass"]);
    call(p, "getStatus", &[]);
    call(p, "getStatus", &["scenarioSlug=legacy"]);
    call(p, "getRunState", &["scenarioSlug=login"]);
    call(p, "discoverTree", &[]);
    call(p, "discoverSearch", &["pattern=login"]);
    call(p, "getDashboardStatus", &[]);
    call(p, "record_list", &[]);
    call(p, "knowledge_search", &["query=startRun"]);
}
