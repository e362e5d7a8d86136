//! Every tool, every error code and every guard, in process through the same
//! dispatch path the MCP server and the CLI use.

use std::path::Path;

use harshjudge_mcp::{Code, Context, call};
use serde_json::{Value, json};

struct Project {
    _dir: tempfile::TempDir,
    ctx: Context,
}

impl Project {
    /// A fresh folder; evidence may be read only from the project itself.
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = Context::new(dir.path()).unwrap();
        ctx.allowed_roots = vec![ctx.root().to_path_buf()];
        Project { _dir: dir, ctx }
    }
    fn root(&self) -> &Path {
        self.ctx.root()
    }
    fn hj(&self) -> std::path::PathBuf {
        self.root().join(".harshJudge")
    }
    fn ok(&self, tool: &str, args: Value) -> Value {
        let out = call(&self.ctx, tool, Some(args));
        assert!(!out.is_error(), "{tool} failed: {}", out.value);
        out.value
    }
    fn err(&self, tool: &str, args: Value) -> (Code, String) {
        let out = call(&self.ctx, tool, Some(args));
        let code = out
            .code
            .unwrap_or_else(|| panic!("{tool} should fail, gave {}", out.value));
        assert_eq!(out.value["code"], code.as_str());
        (code, out.value["error"].as_str().unwrap().to_string())
    }
    /// initProject + a 3-step scenario `login`.
    fn with_scenario() -> Project {
        let p = Project::new();
        p.ok(
            "initProject",
            json!({"projectName": "Demo", "baseUrl": "http://localhost:3000"}),
        );
        p.ok("createScenario", json!({
            "slug": "login", "title": "User login", "tags": ["auth"],
            "steps": [
                {"title": "Open the login page", "actions": "goto /login", "expectedOutcome": "a form"},
                {"title": "Sign in", "actions": "fill and submit", "expectedOutcome": "dashboard"},
                {"title": "See the greeting", "actions": "read h1", "expectedOutcome": "Welcome"}
            ]
        }));
        p
    }
    fn start(&self) -> String {
        self.ok("startRun", json!({"scenarioSlug": "login"}))["runId"]
            .as_str()
            .unwrap()
            .to_string()
    }
    fn run_dir(&self, run: &str) -> std::path::PathBuf {
        self.hj().join("scenarios/login/runs").join(run)
    }
    fn result(&self, run: &str) -> Value {
        serde_json::from_slice(&std::fs::read(self.run_dir(run).join("result.json")).unwrap())
            .unwrap()
    }
    fn meta(&self) -> harshjudge_store::store::yaml::Value {
        harshjudge_store::store::yaml::from_str(
            &std::fs::read_to_string(self.hj().join("scenarios/login/meta.yaml")).unwrap(),
        )
        .unwrap()
    }
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

#[test]
fn init_project_writes_the_layout_and_refuses_twice() {
    let p = Project::new();
    let out = p.ok(
        "initProject",
        json!({"projectName": "Demo", "baseUrl": "http://localhost:3000"}),
    );
    assert_eq!(out["configPath"], ".harshJudge/config.yaml");
    let config = std::fs::read_to_string(p.hj().join("config.yaml")).unwrap();
    assert!(
        config.contains("projectName: Demo\nbaseUrl: http://localhost:3000\nversion: '1.0'\n"),
        "{config}"
    );
    assert!(
        std::fs::read_to_string(p.hj().join("prd.md"))
            .unwrap()
            .contains("## Authentication")
    );
    // The original's 206 bytes, then our local-only files.
    let gitignore = std::fs::read_to_string(p.hj().join(".gitignore")).unwrap();
    assert_eq!(
        &gitignore[..206],
        &harshjudge_store::store::GITIGNORE[..206]
    );
    assert!(
        gitignore.ends_with(".dashboard.log\n.running/\n.suite/\n# harshjudge: saved logins (page.save_storage_state)\n.auth/\n"),
        "{gitignore}"
    );
    assert!(p.hj().join("scenarios").is_dir());
    let (code, msg) = p.err("initProject", json!({"projectName": "Again"}));
    assert_eq!(code, Code::AlreadyExists);
    assert!(msg.contains("already initialized"), "{msg}");
    // The first config survives.
    assert!(
        std::fs::read_to_string(p.hj().join("config.yaml"))
            .unwrap()
            .contains("Demo")
    );
}

#[test]
fn init_project_validates_its_arguments() {
    let p = Project::new();
    for args in [
        json!({"projectName": ""}),
        json!({"projectName": "x".repeat(101)}),
        json!({"projectName": "Demo", "baseUrl": "not-a-url"}),
        json!({"projectName": "Demo", "baseUrl": ""}),
        json!({"projectName": "Demo", "baseUrl": "ftp://example.com"}),
        json!({}),
        json!({"projectName": 5}),
    ] {
        let (code, msg) = p.err("initProject", args.clone());
        assert_eq!(code, Code::InvalidInput, "{args}: {msg}");
    }
    assert!(!p.hj().exists(), "nothing may be written on invalid input");
    // Without a base URL, an empty one is stored, as the original does.
    p.ok("initProject", json!({"projectName": "Demo"}));
    assert!(
        std::fs::read_to_string(p.hj().join("config.yaml"))
            .unwrap()
            .contains("baseUrl: ''")
    );
}

#[test]
fn every_tool_but_init_needs_an_initialized_project() {
    let p = Project::new();
    for (tool, args) in [
        (
            "createScenario",
            json!({"slug": "a", "title": "A", "steps": [{"title": "s", "actions": "a", "expectedOutcome": "e"}]}),
        ),
        ("toggleStar", json!({"scenarioSlug": "a"})),
        ("startRun", json!({"scenarioSlug": "a"})),
        (
            "recordEvidence",
            json!({"runId": "r1", "stepId": "01", "type": "custom", "name": "n", "data": "{}"}),
        ),
        (
            "completeStep",
            json!({"runId": "r1", "stepId": "01", "status": "pass", "duration": 1}),
        ),
        (
            "completeRun",
            json!({"runId": "r1", "status": "pass", "duration": 1}),
        ),
        ("getStatus", json!({})),
        ("getRunState", json!({"runId": "r1"})),
        ("getStepTrace", json!({"runId": "r1", "step": 1})),
        ("discoverTree", json!({})),
        ("discoverSearch", json!({"pattern": "x"})),
    ] {
        let (code, msg) = p.err(tool, args);
        assert_eq!(code, Code::NotInitialized, "{tool}: {msg}");
        assert!(msg.contains("initProject"), "{msg}");
    }
    assert!(!p.hj().exists());
}

#[test]
fn create_scenario_writes_meta_and_step_files_and_updates_keep_stars_tags_and_stats() {
    let p = Project::with_scenario();
    let meta = p.meta();
    assert_eq!(meta["title"].as_str(), Some("User login"));
    assert_eq!(meta["steps"][0]["id"].as_str(), Some("01"));
    let text = std::fs::read_to_string(p.hj().join("scenarios/login/meta.yaml")).unwrap();
    assert!(text.contains("id: '01'"), "{text}");
    let step1 = std::fs::read_to_string(
        p.hj()
            .join("scenarios/login/steps/01-open-the-login-page.md"),
    )
    .unwrap();
    assert!(
        step1.starts_with("# Step 01: Open the login page\n"),
        "{step1}"
    );
    assert!(step1.contains("## Expected Outcome\na form"), "{step1}");

    p.ok("toggleStar", json!({"scenarioSlug": "login"}));
    let run = p.start();
    p.ok(
        "completeRun",
        json!({"runId": run, "status": "pass", "duration": 100}),
    );
    // Update with two steps, no tags, no starred.
    let out = p.ok(
        "createScenario",
        json!({
            "slug": "login", "title": "User login v2",
            "steps": [
                {"title": "Open the login page", "actions": "goto", "expectedOutcome": "form"},
                {"title": "Sign in with SSO", "actions": "click", "expectedOutcome": "dashboard"}
            ]
        }),
    );
    assert_eq!(out["isNew"], false);
    assert_eq!(
        out["stepFiles"][1],
        ".harshJudge/scenarios/login/steps/02-sign-in-with-sso.md"
    );
    let meta = p.meta();
    assert_eq!(meta["starred"].as_bool(), Some(true), "starred kept");
    assert_eq!(meta["tags"][0].as_str(), Some("auth"), "tags kept");
    assert_eq!(meta["totalRuns"].as_u64(), Some(1), "stats kept");
    let mut files: Vec<String> = std::fs::read_dir(p.hj().join("scenarios/login/steps"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["01-open-the-login-page.md", "02-sign-in-with-sso.md"],
        "dropped step files removed"
    );
    // Explicit values replace.
    p.ok(
        "createScenario",
        json!({
            "slug": "login", "title": "User login", "tags": [], "starred": false,
            "steps": [{"title": "Only", "actions": "a", "expectedOutcome": "e"}]
        }),
    );
    let meta = p.meta();
    assert_eq!(meta["starred"].as_bool(), Some(false));
    assert_eq!(meta["tags"].as_array().map(|s| s.len()), Some(0));
}

#[test]
fn create_scenario_rejects_bad_input_and_traversal_in_slugs() {
    let p = Project::with_scenario();
    let step = json!({"title": "s", "actions": "a", "expectedOutcome": "e"});
    for args in [
        json!({"slug": "../evil", "title": "T", "steps": [step]}),
        json!({"slug": "a/b", "title": "T", "steps": [step]}),
        json!({"slug": "Upper", "title": "T", "steps": [step]}),
        json!({"slug": "", "title": "T", "steps": [step]}),
        json!({"slug": "ok", "title": "", "steps": [step]}),
        json!({"slug": "ok", "title": "T", "steps": []}),
        json!({"slug": "ok", "title": "T", "steps": [{"title": "s", "actions": "", "expectedOutcome": "e"}]}),
        json!({"slug": "ok", "title": "T", "steps": [{"title": "s", "actions": "a"}]}),
        json!({"slug": "ok", "title": "T", "steps": [step], "estimatedDuration": -5}),
        json!({"slug": "ok", "title": "T", "steps": vec![step.clone(); 100]}),
    ] {
        let (code, msg) = p.err("createScenario", args.clone());
        assert_eq!(code, Code::InvalidInput, "{args}: {msg}");
    }
    assert!(!p.root().join("evil").exists() && !p.hj().join("evil").exists());
    assert!(!p.hj().join("scenarios/ok").exists());
}

#[test]
fn toggle_star_toggles_sets_and_reports_unknown_scenarios() {
    let p = Project::with_scenario();
    assert_eq!(
        p.ok("toggleStar", json!({"scenarioSlug": "login"}))["starred"],
        true
    );
    assert_eq!(
        p.ok("toggleStar", json!({"scenarioSlug": "login"}))["starred"],
        false
    );
    assert_eq!(
        p.ok(
            "toggleStar",
            json!({"scenarioSlug": "login", "starred": true})
        )["starred"],
        true
    );
    assert_eq!(
        p.ok(
            "toggleStar",
            json!({"scenarioSlug": "login", "starred": true})
        )["starred"],
        true
    );
    assert_eq!(p.meta()["starred"].as_bool(), Some(true));
    let (code, msg) = p.err("toggleStar", json!({"scenarioSlug": "nope"}));
    assert_eq!(code, Code::NotFound);
    assert!(msg.contains("Scenario \"nope\" does not exist"), "{msg}");
    std::fs::create_dir_all(p.hj().join("scenarios/bare")).unwrap();
    let (code, msg) = p.err("toggleStar", json!({"scenarioSlug": "bare"}));
    assert_eq!(code, Code::NotFound);
    assert!(msg.contains("has no meta.yaml"), "{msg}");
    assert_eq!(
        p.err("toggleStar", json!({"scenarioSlug": ".."})).0,
        Code::InvalidInput
    );
}

#[test]
fn start_run_is_running_at_once_with_a_stored_number() {
    let p = Project::with_scenario();
    let out = p.ok("startRun", json!({"scenarioSlug": "login"}));
    let run = out["runId"].as_str().unwrap();
    assert_eq!(out["runNumber"], 1);
    assert_eq!(out["scenarioTitle"], "User login");
    assert_eq!(out["steps"][2]["id"], "03");
    assert_eq!(
        out["runPath"],
        format!(".harshJudge/scenarios/login/runs/{run}")
    );
    let result = p.result(run);
    assert_eq!(result["status"], "running");
    assert_eq!(result["startedAt"], out["startedAt"]);
    assert!(p.run_dir(run).join("evidence").is_dir());
    assert!(p.run_dir(run).join("skill-state.yaml").is_file());
    assert_eq!(
        p.ok("startRun", json!({"scenarioSlug": "login"}))["runNumber"],
        2
    );
    assert_eq!(p.meta()["lastRunNumber"].as_u64(), Some(2));
    let (code, _) = p.err("startRun", json!({"scenarioSlug": "missing"}));
    assert_eq!(code, Code::NotFound);
    assert_eq!(
        p.err("startRun", json!({"scenarioSlug": "../login"})).0,
        Code::InvalidInput
    );
    assert_eq!(p.err("startRun", json!({})).0, Code::InvalidInput);
}

#[test]
fn a_corrupt_meta_yaml_is_reported_not_overwritten() {
    let p = Project::with_scenario();
    let path = p.hj().join("scenarios/login/meta.yaml");
    std::fs::write(&path, "title: [unclosed\n").unwrap();
    let (code, msg) = p.err("startRun", json!({"scenarioSlug": "login"}));
    assert_eq!(code, Code::Corrupt);
    assert!(msg.contains("meta.yaml"), "{msg}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "title: [unclosed\n"
    );
    // The project status still answers, flagging the scenario.
    let status = p.ok("getStatus", json!({}));
    assert!(
        status["scenarios"][0]["error"]
            .as_str()
            .unwrap()
            .contains("meta.yaml")
    );
}

#[test]
fn record_evidence_copies_files_stores_content_and_decodes_base64_screenshots() {
    let p = Project::with_scenario();
    let run = p.start();
    let shot = p.root().join("shot.png");
    std::fs::write(&shot, PNG).unwrap();
    let out = p.ok(
        "recordEvidence",
        json!({
            "runId": run, "step": 1, "type": "screenshot", "name": "before",
            "data": shot.to_str().unwrap(), "metadata": {"url": "/login"}
        }),
    );
    assert_eq!(out["fileSize"], PNG.len());
    assert_eq!(
        out["filePath"],
        format!(".harshJudge/scenarios/login/runs/{run}/step-01/evidence/before.png")
    );
    let ev = p.run_dir(&run).join("step-01/evidence");
    assert_eq!(std::fs::read(ev.join("before.png")).unwrap(), PNG);
    let side: Value =
        serde_json::from_slice(&std::fs::read(ev.join("before.meta.json")).unwrap()).unwrap();
    let keys: Vec<&String> = side.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "runId",
            "stepId",
            "type",
            "name",
            "capturedAt",
            "fileSize",
            "metadata"
        ]
    );
    assert_eq!(side["type"], "screenshot");
    assert_eq!(side["metadata"]["url"], "/login");

    // A text type given a file path with source "file": the file's content is stored.
    let resp = p.root().join("response.json");
    std::fs::write(&resp, r#"{"id": 7}"#).unwrap();
    p.ok("recordEvidence", json!({"runId": run, "stepId": "02", "type": "api_response", "name": "resp", "data": resp.to_str().unwrap(), "source": "file"}));
    assert_eq!(
        std::fs::read_to_string(p.run_dir(&run).join("step-02/evidence/resp.json")).unwrap(),
        r#"{"id": 7}"#
    );

    // Content as given, for every type and its extension.
    for (kind, ext) in [
        ("db_snapshot", "json"),
        ("console_log", "txt"),
        ("network_log", "json"),
        ("html_snapshot", "html"),
        ("custom", "json"),
        ("api_response", "json"),
        ("api_headers", "json"),
        ("stdout", "txt"),
        ("stderr", "txt"),
        ("exit_code", "txt"),
    ] {
        let data = format!("content of {kind}\nline 2 /not/a/path.txt");
        p.ok(
            "recordEvidence",
            json!({"runId": run, "stepId": "03", "type": kind, "name": kind, "data": data}),
        );
        let file = p
            .run_dir(&run)
            .join(format!("step-03/evidence/{kind}.{ext}"));
        assert_eq!(std::fs::read_to_string(file).unwrap(), data);
    }
    // base64 PNG, with or without a data: prefix.
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(PNG);
    p.ok(
        "recordEvidence",
        json!({"runId": run, "stepId": "01", "type": "screenshot", "name": "after", "data": b64}),
    );
    p.ok("recordEvidence", json!({"runId": run, "stepId": "01", "type": "screenshot", "name": "after2", "data": format!("data:image/png;base64,{b64}")}));
    assert_eq!(std::fs::read(ev.join("after.png")).unwrap(), PNG);
    assert_eq!(std::fs::read(ev.join("after2.png")).unwrap(), PNG);
    // A JPEG keeps its real extension.
    let jpg = p.root().join("shot.jpg");
    std::fs::write(&jpg, b"\xff\xd8\xff\xe0JFIF").unwrap();
    let out = p.ok("recordEvidence", json!({"runId": run, "stepId": "01", "type": "screenshot", "name": "photo", "data": jpg.to_str().unwrap()}));
    assert!(out["filePath"].as_str().unwrap().ends_with("photo.jpg"));
    // Forced content: a path-looking string stored as text.
    p.ok("recordEvidence", json!({"runId": run, "stepId": "01", "type": "console_log", "name": "literal", "data": "/var/log/app.log", "source": "content"}));
    assert_eq!(
        std::fs::read_to_string(ev.join("literal.txt")).unwrap(),
        "/var/log/app.log"
    );
    // The same name again replaces file and sidecar.
    p.ok("recordEvidence", json!({"runId": run, "stepId": "01", "type": "console_log", "name": "literal", "data": "second"}));
    assert_eq!(
        std::fs::read_to_string(ev.join("literal.txt")).unwrap(),
        "second"
    );
}

#[test]
fn record_evidence_guards() {
    let mut p = Project::with_scenario();
    let run = p.start();
    let base = json!({"runId": run, "stepId": "01", "type": "custom", "name": "n", "data": "{}"});
    let with = |k: &str, v: Value| {
        let mut a = base.clone();
        a[k] = v;
        a
    };
    // Bad ids and names: nothing may escape the evidence folder.
    for (args, field) in [
        (with("name", json!("../../escape")), "name"),
        (with("name", json!("a/b")), "name"),
        (with("name", json!(".hidden")), "name"),
        (with("name", json!("x.meta")), "name"),
        (with("name", json!("")), "name"),
        (with("runId", json!("..")), "runId"),
        (with("runId", json!("../login")), "runId"),
        (with("stepId", json!("../01")), "stepId"),
        (with("stepId", json!("1")), "stepId"),
        (with("stepId", json!("00")), "stepId"),
        (with("type", json!("video")), "type"),
    ] {
        let (code, msg) = p.err("recordEvidence", args.clone());
        assert_eq!(code, Code::InvalidInput, "{args}: {msg}");
        assert!(msg.contains(field), "{field}: {msg}");
    }
    let mut no_step = base.clone();
    no_step.as_object_mut().unwrap().remove("stepId");
    assert!(
        p.err("recordEvidence", no_step.clone())
            .1
            .contains("stepId")
    );
    let mut both = base.clone();
    both["step"] = json!(2);
    assert_eq!(p.err("recordEvidence", both).0, Code::InvalidInput);
    no_step["step"] = json!(0);
    assert_eq!(p.err("recordEvidence", no_step).0, Code::InvalidInput);
    // Unknown run.
    let (code, msg) = p.err("recordEvidence", with("runId", json!("nope")));
    assert_eq!(code, Code::NotFound);
    assert!(msg.contains("Run \"nope\" does not exist"), "{msg}");
    // Screenshots: not an image, bad base64, missing file.
    let (code, msg) = p.err("recordEvidence", json!({"runId": run, "stepId": "01", "type": "screenshot", "name": "s", "data": "not base64 at all!"}));
    assert_eq!(code, Code::InvalidInput, "{msg}");
    assert!(msg.contains("For type=\"screenshot\""), "{msg}");
    let text = p.root().join("notes.txt");
    std::fs::write(&text, "hello").unwrap();
    let (code, msg) = p.err("recordEvidence", json!({"runId": run, "stepId": "01", "type": "screenshot", "name": "s", "data": text.to_str().unwrap()}));
    assert_eq!(code, Code::InvalidInput);
    assert!(msg.contains("not a PNG or JPEG"), "{msg}");
    let (code, _) = p.err("recordEvidence", json!({"runId": run, "stepId": "01", "type": "screenshot", "name": "s", "data": p.root().join("missing.png").to_str().unwrap()}));
    assert_eq!(code, Code::NotFound);
    // A path-looking string naming no file, given as a file: an error.
    let mut typo = with("data", json!(p.root().join("typo.json").to_str().unwrap()));
    typo["source"] = json!("file");
    let (code, msg) = p.err("recordEvidence", typo);
    assert_eq!(code, Code::NotFound, "{msg}");
    // Outside the allowed roots (here: only the project).
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.png");
    std::fs::write(&secret, PNG).unwrap();
    let (code, msg) = p.err("recordEvidence", json!({"runId": run, "stepId": "01", "type": "screenshot", "name": "s", "data": secret.to_str().unwrap()}));
    assert_eq!(code, Code::AccessDenied);
    assert!(msg.contains("allow-root"), "{msg}");
    let mut passwd = with("data", json!("/etc/passwd"));
    passwd["source"] = json!("file");
    let (code, _) = p.err("recordEvidence", passwd);
    assert_eq!(code, Code::AccessDenied);
    // A symbolic link inside the project pointing outside is still outside.
    std::os::unix::fs::symlink(&secret, p.root().join("link.png")).unwrap();
    let (code, _) = p.err("recordEvidence", json!({"runId": run, "stepId": "01", "type": "screenshot", "name": "s", "data": p.root().join("link.png").to_str().unwrap()}));
    assert_eq!(code, Code::AccessDenied);
    // Size limit, for content and for files.
    p.ctx.max_evidence_bytes = 1000;
    let (code, msg) = p.err("recordEvidence", with("data", json!("x".repeat(1001))));
    assert_eq!(code, Code::TooLarge);
    assert!(msg.contains("1000 bytes"), "{msg}");
    let big = p.root().join("big.json");
    std::fs::write(&big, "y".repeat(5000)).unwrap();
    let mut big_file = with("data", json!(big.to_str().unwrap()));
    big_file["source"] = json!("file");
    assert_eq!(p.err("recordEvidence", big_file).0, Code::TooLarge);
    p.ok("recordEvidence", with("data", json!("x".repeat(1000))));
    // Allowing the folder lets it in.
    p.ctx.max_evidence_bytes = 1 << 20;
    p.ctx.allow_root(outside.path()).unwrap();
    p.ok("recordEvidence", json!({"runId": run, "stepId": "01", "type": "screenshot", "name": "s", "data": secret.to_str().unwrap()}));
    // Nothing was written outside the run's step folders.
    let mut written = vec![];
    for e in walk(&p.run_dir(&run)) {
        written.push(
            e.strip_prefix(p.run_dir(&run))
                .unwrap()
                .to_string_lossy()
                .into_owned(),
        );
    }
    assert!(
        written.iter().all(|w| w.starts_with("step-01/evidence/")
            || ["result.json", "skill-state.yaml", ".run.lock"].contains(&w.as_str())),
        "{written:?}"
    );
    // Completed run.
    p.ok(
        "completeRun",
        json!({"runId": run, "status": "pass", "duration": 5}),
    );
    let (code, msg) = p.err("recordEvidence", base.clone());
    assert_eq!(code, Code::RunCompleted);
    assert!(
        msg.contains("already completed. Cannot add evidence"),
        "{msg}"
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn complete_step_records_results_and_gives_the_next_step() {
    let p = Project::with_scenario();
    let run = p.start();
    p.ok("recordEvidence", json!({"runId": run, "stepId": "01", "type": "console_log", "name": "console", "data": "ok"}));
    let out = p.ok("completeStep", json!({"runId": run, "stepId": "01", "status": "pass", "duration": 120, "summary": "form shown"}));
    assert_eq!(
        out,
        json!({"success": true, "runId": run, "stepId": "01", "status": "pass", "nextStepId": "02"})
    );
    let result = p.result(&run);
    assert_eq!(result["status"], "running");
    assert_eq!(result["steps"][0]["evidenceFiles"], json!(["console.txt"]));
    assert_eq!(result["steps"][0]["summary"], "form shown");
    assert_eq!(
        p.ok(
            "completeStep",
            json!({"runId": run, "stepId": "02", "status": "skipped", "duration": 0})
        )["nextStepId"],
        "03"
    );
    assert_eq!(
        p.ok(
            "completeStep",
            json!({"runId": run, "stepId": "03", "status": "pass", "duration": 1.6})
        )["nextStepId"],
        Value::Null
    );
    assert_eq!(p.result(&run)["steps"][2]["duration"], 2);
    // Repeating a step replaces it; a failure ends the walk.
    let out = p.ok("completeStep", json!({"runId": run, "stepId": "02", "status": "fail", "duration": 5, "error": "no dashboard"}));
    assert_eq!(out["nextStepId"], Value::Null);
    let state: harshjudge_store::store::yaml::Value = harshjudge_store::store::yaml::from_str(
        &std::fs::read_to_string(p.run_dir(&run).join("skill-state.yaml")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["currentPhase"].as_str(), Some("error"));
    assert_eq!(state["error"]["step"].as_u64(), Some(2));
    assert_eq!(state["error"]["message"].as_str(), Some("no dashboard"));
    for (args, code) in [
        (
            json!({"runId": run, "stepId": "04", "status": "pass", "duration": 1}),
            Code::InvalidInput,
        ),
        (
            json!({"runId": run, "stepId": "1", "status": "pass", "duration": 1}),
            Code::InvalidInput,
        ),
        (
            json!({"runId": run, "stepId": "01", "status": "done", "duration": 1}),
            Code::InvalidInput,
        ),
        (
            json!({"runId": run, "stepId": "01", "status": "pass", "duration": -1}),
            Code::InvalidInput,
        ),
        (
            json!({"runId": run, "stepId": "01", "status": "pass"}),
            Code::InvalidInput,
        ),
        (
            json!({"runId": "nope", "stepId": "01", "status": "pass", "duration": 1}),
            Code::NotFound,
        ),
        (
            json!({"runId": "a/../b", "stepId": "01", "status": "pass", "duration": 1}),
            Code::InvalidInput,
        ),
    ] {
        assert_eq!(p.err("completeStep", args.clone()).0, code, "{args}");
    }
    p.ok("completeRun", json!({"runId": run}));
    let (code, msg) = p.err(
        "completeStep",
        json!({"runId": run, "stepId": "01", "status": "pass", "duration": 1}),
    );
    assert_eq!(code, Code::RunCompleted);
    assert!(msg.contains("Cannot add step results"), "{msg}");
}

#[test]
fn complete_run_derives_the_outcome_from_the_steps_and_updates_statistics() {
    let p = Project::with_scenario();
    let run = p.start();
    p.ok(
        "completeStep",
        json!({"runId": run, "stepId": "01", "status": "pass", "duration": 10}),
    );
    p.ok("completeStep", json!({"runId": run, "stepId": "02", "status": "fail", "duration": 10, "error": "wrong password"}));
    let out = p.ok(
        "completeRun",
        json!({"runId": run, "status": "pass", "duration": 1000}),
    );
    assert_eq!(out["status"], "fail");
    assert_eq!(out["failedStep"], "02");
    assert_eq!(out["errorMessage"], "wrong password");
    let warning = out["warning"].as_str().unwrap();
    assert!(
        warning.contains(
            "Status mismatch: status \"pass\" contradicts step results (derived: \"fail\")"
        ),
        "{warning}"
    );
    assert!(
        warning.contains("Steps 03 were never completed"),
        "{warning}"
    );
    assert_eq!(
        out["updatedMeta"],
        json!({"totalRuns": 1, "passCount": 0, "failCount": 1, "avgDuration": 1000})
    );
    let result = p.result(&run);
    assert_eq!(result["status"], "fail");
    assert_eq!(result["failedStep"], "02");
    assert_eq!(result["duration"], 1000);
    assert!(result["completedAt"].is_string());
    assert_eq!(result["steps"][2]["status"], "skipped");
    let keys: Vec<&String> = result.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "runId",
            "scenarioSlug",
            "status",
            "startedAt",
            "completedAt",
            "duration",
            "steps",
            "failedStep",
            "errorMessage",
            "runNumber"
        ]
    );
    let meta = p.meta();
    assert_eq!(meta["lastResult"].as_str(), Some("fail"));
    assert!(meta["lastRun"].as_str().unwrap().ends_with('Z'));

    // A second run given its steps at the end; the mean rounds half up.
    let run2 = p.start();
    let out = p.ok("completeRun", json!({"runId": run2, "status": "pass", "duration": 2001, "steps": [
        {"id": "01", "status": "pass", "duration": 1}, {"id": "02", "status": "pass"}, {"id": "03", "status": "skipped"}
    ]}));
    assert_eq!(out["status"], "pass");
    assert!(out.get("warning").is_none(), "{out}");
    assert_eq!(
        out["updatedMeta"],
        json!({"totalRuns": 2, "passCount": 1, "failCount": 1, "avgDuration": 1501})
    );

    // No steps at all: the failed step named by the caller, from the step folders.
    let run3 = p.start();
    p.ok(
        "recordEvidence",
        json!({"runId": run3, "step": 1, "type": "custom", "name": "a", "data": "{}"}),
    );
    p.ok(
        "recordEvidence",
        json!({"runId": run3, "step": 2, "type": "custom", "name": "b", "data": "{}"}),
    );
    let out = p.ok("completeRun", json!({"runId": run3, "status": "fail", "duration": 3, "failedStep": "02", "errorMessage": "boom"}));
    assert_eq!(out["status"], "fail");
    let r3 = p.result(&run3);
    assert_eq!(r3["steps"][1]["status"], "fail");
    assert_eq!(r3["steps"][1]["error"], "boom");
    assert_eq!(r3["steps"][1]["evidenceFiles"], json!(["b.json"]));
    assert_eq!(r3["errorMessage"], "boom");

    // Nothing at all: the claim stands; without duration it is measured.
    let run4 = p.start();
    let out = p.ok("completeRun", json!({"runId": run4, "status": "fail"}));
    assert_eq!(out["status"], "fail");
    assert_eq!(
        p.err(
            "completeRun",
            json!({"runId": run4, "status": "pass", "duration": 1})
        )
        .0,
        Code::RunCompleted
    );
    for args in [
        json!({"runId": run, "status": "maybe"}),
        json!({"runId": run, "failedStep": "2"}),
        json!({"runId": run, "duration": -3}),
        json!({"runId": run, "steps": [{"id": "x", "status": "pass"}]}),
    ] {
        assert_eq!(
            p.err("completeRun", args.clone()).0,
            Code::InvalidInput,
            "{args}"
        );
    }
    assert_eq!(
        p.err("completeRun", json!({"runId": "unknown"})).0,
        Code::NotFound
    );
    assert_eq!(
        p.meta()["totalRuns"].as_u64(),
        Some(4),
        "no double counting"
    );
}

#[test]
fn racing_complete_runs_complete_once() {
    for _ in 0..5 {
        let p = std::sync::Arc::new(Project::with_scenario());
        let run = p.start();
        p.ok(
            "completeStep",
            json!({"runId": run, "stepId": "01", "status": "pass", "duration": 1}),
        );
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let (p, run, barrier) = (p.clone(), run.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    call(
                        &p.ctx,
                        "completeRun",
                        Some(json!({"runId": run, "status": "pass", "duration": 10})),
                    )
                    .code
                })
            })
            .collect();
        let codes: Vec<Option<Code>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(codes.iter().filter(|c| c.is_none()).count(), 1, "{codes:?}");
        assert!(
            codes.iter().flatten().all(|c| *c == Code::RunCompleted),
            "{codes:?}"
        );
        assert_eq!(p.meta()["totalRuns"].as_u64(), Some(1));
    }
}

#[test]
fn racing_evidence_and_steps_lose_nothing() {
    let p = std::sync::Arc::new(Project::with_scenario());
    let run = p.start();
    let handles: Vec<_> = (1..=3)
        .map(|n| {
            let (p, run) = (p.clone(), run.clone());
            std::thread::spawn(move || {
                for i in 0..10 {
                    p.ok("recordEvidence", json!({"runId": run, "step": n, "type": "custom", "name": format!("e{i}"), "data": "{}"}));
                }
                p.ok("completeStep", json!({"runId": run, "stepId": format!("{n:02}"), "status": "pass", "duration": 1}));
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let result = p.result(&run);
    let steps = result["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "{result}");
    for s in steps {
        assert_eq!(s["evidenceFiles"].as_array().unwrap().len(), 10, "{s}");
    }
}

#[test]
fn get_status_reports_the_project_and_a_scenario() {
    let p = Project::with_scenario();
    p.ok(
        "createScenario",
        json!({"slug": "checkout", "title": "Checkout", "starred": true, "tags": ["shop"],
        "steps": [{"title": "Pay", "actions": "pay", "expectedOutcome": "receipt"}]}),
    );
    let run = p.start();
    p.ok(
        "completeStep",
        json!({"runId": run, "stepId": "01", "status": "pass", "duration": 1}),
    );
    p.ok("completeRun", json!({"runId": run, "duration": 40}));
    let running = p.start();
    let status = p.ok("getStatus", json!({}));
    assert_eq!(status["projectName"], "Demo");
    assert_eq!(status["scenarioCount"], 2);
    assert_eq!(
        (
            status["passing"].as_u64(),
            status["failing"].as_u64(),
            status["neverRun"].as_u64()
        ),
        (Some(1), Some(0), Some(1))
    );
    assert_eq!(status["scenarios"][0]["slug"], "checkout");
    assert_eq!(
        status["scenarios"][1]["tags"],
        json!(["auth"]),
        "tags come from meta.yaml"
    );
    assert_eq!(status["scenarios"][1]["passRate"], 100);
    let starred = p.ok("getStatus", json!({"starredOnly": true}));
    assert_eq!(starred["scenarioCount"], 1);
    assert_eq!(starred["scenarios"][0]["slug"], "checkout");
    // Omitted arguments are fine.
    assert!(!call(&p.ctx, "getStatus", None).is_error());
    let detail = p.ok("getStatus", json!({"scenarioSlug": "login"}));
    assert_eq!(detail["stepCount"], 3);
    assert_eq!(detail["steps"][1]["title"], "Sign in");
    assert_eq!(detail["meta"]["totalRuns"], 1);
    let runs = detail["recentRuns"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        runs[0]["id"],
        running.as_str(),
        "newest first, running runs included"
    );
    assert_eq!(runs[0]["status"], "running");
    assert_eq!(runs[0]["runNumber"], 2);
    assert_eq!(runs[1]["runNumber"], 1);
    assert_eq!(runs[1]["duration"], 40);
    assert_eq!(
        p.err("getStatus", json!({"scenarioSlug": "nope"})).0,
        Code::NotFound
    );
    assert_eq!(
        p.err("getStatus", json!({"scenarioSlug": "../x"})).0,
        Code::InvalidInput
    );
}

#[test]
fn get_run_state_says_where_a_run_stands() {
    let p = Project::with_scenario();
    let run = p.start();
    let state = p.ok("getRunState", json!({"runId": run}));
    assert_eq!(state["nextStep"]["id"], "01");
    assert_eq!(state["resumable"], true);
    assert_eq!(state["totalSteps"], 3);
    p.ok(
        "recordEvidence",
        json!({"runId": run, "stepId": "01", "type": "custom", "name": "x", "data": "{}"}),
    );
    p.ok(
        "completeStep",
        json!({"runId": run, "stepId": "01", "status": "pass", "duration": 1}),
    );
    let state = p.ok("getRunState", json!({"scenarioSlug": "login"}));
    assert_eq!(state["runId"], run.as_str());
    assert_eq!(state["completedSteps"][0]["id"], "01");
    assert_eq!(
        state["completedSteps"][0]["evidenceFiles"],
        json!(["x.json"])
    );
    assert_eq!(
        state["nextStep"],
        json!({"id": "02", "title": "Sign in", "file": "02-sign-in.md"})
    );
    assert_eq!(state["lastAction"], "Step 01 pass");
    assert_eq!(state["phase"], "execute-steps");
    p.ok(
        "completeStep",
        json!({"runId": run, "stepId": "02", "status": "fail", "duration": 1, "error": "denied"}),
    );
    let state = p.ok("getRunState", json!({"runId": run}));
    assert_eq!(state["nextStep"], Value::Null);
    assert_eq!(state["error"]["message"], "denied");
    p.ok("completeRun", json!({"runId": run}));
    let state = p.ok("getRunState", json!({"runId": run}));
    assert_eq!(state["status"], "fail");
    assert_eq!(state["resumable"], false);
    assert_eq!(state["phase"], "completed");
    assert_eq!(
        p.err("getRunState", json!({"runId": "missing"})).0,
        Code::NotFound
    );
    assert_eq!(p.err("getRunState", json!({})).0, Code::InvalidInput);
    assert_eq!(
        p.err("getRunState", json!({"runId": "../../etc"})).0,
        Code::InvalidInput
    );
}

#[test]
fn get_run_state_shows_the_verdicts_and_the_judge_s_reasoning() {
    use harshjudge_store::judge::Verdict;
    use harshjudge_store::store::judge::StepJudgment;
    use harshjudge_store::store::{RunId, Slug, Store};
    let p = Project::with_scenario();
    let run = p.start();
    let steps = json!([
        {"id": "01", "status": "pass", "duration": 1},
        {"id": "02", "status": "pass", "duration": 1},
        {"id": "03", "status": "pass", "duration": 1}
    ]);
    p.ok("completeRun", json!({"runId": run, "steps": steps}));
    // Steps 01 and 02 carry an expectation in words; 03 has none.
    let store = Store::new(p.hj());
    let (slug, id) = (
        Slug::new("login").unwrap(),
        RunId::new(run.clone()).unwrap(),
    );
    let mut result = store.scenario(&slug).run(&id).result().unwrap().unwrap();
    result.steps[0].expectation = Some("the login form is shown".into());
    result.steps[1].expectation = Some("the dashboard greets the user".into());
    store
        .scenario(&slug)
        .run(&id)
        .write_result(&result)
        .unwrap();
    let judged = |step: &str, verdict: Verdict, reasoning: &str| StepJudgment {
        step_id: step.into(),
        // The expectation the verdict answers (a judged step takes it).
        expectation: result.steps[if step == "01" { 0 } else { 1 }]
            .expectation
            .clone()
            .unwrap(),
        verdict: Some(verdict),
        reasoning: reasoning.into(),
        judge: "command".into(),
        identity: "command:judge.sh".into(),
        inputs_hash: "sha256:00".into(),
        duration_ms: 3,
        attempts: 1,
        judged_at: "2026-11-23T00:00:00.000Z".into(),
        error: None,
        answer: harshjudge_store::store::judge::AnswerInfo::default(),
    };
    let form = judged(
        "01",
        Verdict::Pass,
        "the form with two fields is on the screenshot",
    );
    store
        .scenario(&slug)
        .run(&id)
        .record_judgment(form, None, None)
        .unwrap();
    let error = judged("02", Verdict::Fail, "the screenshot shows an error page");
    store
        .scenario(&slug)
        .run(&id)
        .record_judgment(error, None, None)
        .unwrap();
    store
        .scenario(&slug)
        .run(&id)
        .apply_judgment(|r, j| harshjudge_store::judge::combine_verdicts(r, j, false))
        .unwrap();

    let state = p.ok("getRunState", json!({"runId": run}));
    assert_eq!(state["status"], "fail", "{state}");
    assert_eq!(state["executedStatus"], "pass", "the code alone passed");
    let s = &state["completedSteps"];
    assert_eq!(s[0]["status"], "pass");
    assert_eq!(s[0]["expectation"], "the login form is shown");
    assert_eq!(s[0]["verdict"], "pass");
    assert_eq!(s[0]["executedStatus"], "pass");
    assert_eq!(
        s[0]["reasoning"],
        "the form with two fields is on the screenshot"
    );
    assert_eq!(s[0]["judge"], "command");
    assert_eq!(s[1]["status"], "fail");
    assert_eq!(s[1]["verdict"], "fail");
    assert_eq!(s[1]["executedStatus"], "pass");
    assert_eq!(s[1]["reasoning"], "the screenshot shows an error page");
    assert!(
        s[1]["error"]
            .as_str()
            .unwrap()
            .contains("the screenshot shows an error page"),
        "{state}"
    );
    // A step without an expectation has no judgment keys at all.
    for k in [
        "expectation",
        "verdict",
        "executedStatus",
        "reasoning",
        "judge",
    ] {
        assert!(s[2].get(k).is_none(), "{k}: {state}");
    }
    // Nor has a run without one.
    let plain = p.start();
    let state = p.ok("getRunState", json!({"runId": plain}));
    assert!(state.get("executedStatus").is_none(), "{state}");
}

#[test]
fn a_run_started_by_the_original_is_picked_up() {
    // The original's startRun creates only runs/{id}/evidence/ (no result.json).
    let p = Project::with_scenario();
    std::fs::create_dir_all(p.hj().join("scenarios/login/runs/V1StGXR8_Z/evidence")).unwrap();
    p.ok(
        "recordEvidence",
        json!({"runId": "V1StGXR8_Z", "step": 1, "type": "custom", "name": "a", "data": "{}"}),
    );
    p.ok(
        "completeStep",
        json!({"runId": "V1StGXR8_Z", "stepId": "01", "status": "pass", "duration": 1}),
    );
    let out = p.ok(
        "completeRun",
        json!({"runId": "V1StGXR8_Z", "status": "pass", "duration": 9}),
    );
    assert_eq!(out["status"], "pass");
    assert_eq!(p.result("V1StGXR8_Z")["runId"], "V1StGXR8_Z");
}

#[test]
fn discover_tree_and_search_stay_inside_the_project() {
    let p = Project::with_scenario();
    let run = p.start();
    p.ok(
        "completeStep",
        json!({"runId": run, "stepId": "01", "status": "pass", "duration": 1}),
    );
    let tree = p.ok("discoverTree", json!({}));
    assert_eq!(tree["root"], ".harshJudge/");
    assert_eq!(tree["tree"]["config.yaml"]["projectName"], "Demo");
    let login = &tree["tree"]["scenarios/"]["login/"];
    assert_eq!(login["meta.yaml"]["title"], "User login");
    assert_eq!(
        login["runs/"][format!("{run}/")]["result.json"]["status"],
        "running"
    );
    assert_eq!(login["steps/"]["01-open-the-login-page.md"], true);
    assert!(
        login["runs/"][format!("{run}/")].get(".run.lock").is_none(),
        "lock files are internal"
    );
    let sub = p.ok("discoverTree", json!({"path": "scenarios/login/steps"}));
    assert_eq!(sub["root"], ".harshJudge/scenarios/login/steps/");
    let found = p.ok("discoverSearch", json!({"pattern": "SIGN IN"}));
    let matches = found["matches"].as_array().unwrap();
    assert!(
        matches.iter().any(|m| m["match"] == "# Step 02: Sign in"),
        "{found}"
    );
    assert!(matches.iter().all(|m| {
        m["file"]
            .as_str()
            .unwrap()
            .starts_with(p.hj().to_str().unwrap())
    }));
    let found = p.ok(
        "discoverSearch",
        json!({"pattern": "welcome", "path": "scenarios/login/steps"}),
    );
    assert_eq!(found["matches"].as_array().unwrap().len(), 1, "{found}");
    for args in [
        json!({"path": "../"}),
        json!({"path": "/etc"}),
        json!({"path": "scenarios/../../x"}),
    ] {
        assert_eq!(
            p.err("discoverTree", args.clone()).0,
            Code::AccessDenied,
            "{args}"
        );
    }
    std::os::unix::fs::symlink("/etc", p.hj().join("etc-link")).unwrap();
    assert_eq!(
        p.err("discoverTree", json!({"path": "etc-link"})).0,
        Code::AccessDenied
    );
    assert_eq!(
        p.err("discoverSearch", json!({"pattern": "root", "path": ".."}))
            .0,
        Code::AccessDenied
    );
    assert_eq!(
        p.err("discoverSearch", json!({"pattern": ""})).0,
        Code::InvalidInput
    );
    assert_eq!(
        p.err("discoverTree", json!({"path": "nope"})).0,
        Code::NotFound
    );
}

#[test]
fn unknown_tools_and_malformed_arguments_are_clear_errors() {
    let p = Project::with_scenario();
    let (code, msg) = p.err("deleteEverything", json!({}));
    assert_eq!(code, Code::UnknownTool);
    assert!(
        msg.starts_with("Unknown tool: deleteEverything") && msg.contains("startRun"),
        "{msg}"
    );
    for args in [json!([1, 2]), json!("text"), json!(3)] {
        let out = call(&p.ctx, "startRun", Some(args));
        assert_eq!(out.code, Some(Code::InvalidInput));
        assert!(
            out.value["error"]
                .as_str()
                .unwrap()
                .contains("expected an object")
        );
    }
    let (code, msg) = p.err("startRun", json!({"scenarioSlug": 42}));
    assert_eq!(code, Code::InvalidInput);
    assert!(
        msg.contains("invalid arguments for startRun") && msg.contains("invalid type"),
        "{msg}"
    );
    // An unknown key is ignored with a warning (the original strips it); here
    // the required one is then missing.
    let out = call(&p.ctx, "startRun", Some(json!({"scenario": "login"})));
    assert!(
        out.value["error"]
            .as_str()
            .unwrap()
            .contains("missing field `scenarioSlug`"),
        "{}",
        out.value
    );
    assert_eq!(
        out.value["warnings"],
        json!(["unknown argument \"scenario\" ignored (startRun takes scenarioSlug)"])
    );
}

#[test]
fn every_tool_has_an_object_schema_and_the_original_names() {
    let names: Vec<&str> = harshjudge_mcp::dispatcher()
        .tools()
        .iter()
        .map(|t| t.name)
        .collect();
    for original in [
        "initProject",
        "createScenario",
        "toggleStar",
        "startRun",
        "recordEvidence",
        "completeStep",
        "completeRun",
        "getStatus",
    ] {
        assert!(names.contains(&original), "{original}");
    }
    for t in harshjudge_mcp::dispatcher().tools() {
        let schema = (t.schema)();
        assert_eq!(schema["type"], "object", "{}", t.name);
    }
    let record = harshjudge_mcp::dispatcher()
        .tools()
        .iter()
        .find(|t| t.name == "recordEvidence")
        .unwrap();
    let schema = Value::Object((*(record.schema)()).clone());
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(required, ["runId", "type", "name", "data"]);
    assert!(schema["properties"]["step"].is_object() && schema["properties"]["stepId"].is_object());
}

#[test]
fn the_original_s_calls_work_unchanged() {
    let p = Project::with_scenario();
    // saveScenario (deprecated): a clash gives {slug}-2, then -3.
    let args = json!({"slug": "login", "title": "Login: the old way", "content": "# Login\n\nSign in.", "tags": ["a b", "c"]});
    let first = p.ok("saveScenario", args.clone());
    assert_eq!(first["slug"], "login-2", "login exists already");
    assert_eq!(
        first["scenarioPath"],
        ".harshJudge/scenarios/login-2/scenario.md"
    );
    assert_eq!(first["metaPath"], ".harshJudge/scenarios/login-2/meta.yaml");
    assert_eq!(first["isNew"], true);
    assert!(
        first["warnings"][0]
            .as_str()
            .unwrap()
            .contains("deprecated")
    );
    assert_eq!(p.ok("saveScenario", args)["slug"], "login-3");
    let md = std::fs::read_to_string(p.hj().join("scenarios/login-2/scenario.md")).unwrap();
    assert_eq!(
        md,
        "---\nid: login-2\ntitle: 'Login: the old way'\ntags: [a b, c]\nestimatedDuration: 60\n---\n\n# Login\n\nSign in."
    );
    let detail = p.ok("getStatus", json!({"scenarioSlug": "login-2"}));
    assert_eq!(detail["content"], "# Login\n\nSign in.");
    assert_eq!(detail["title"], "Login: the old way");
    // A saved scenario can be run like any other.
    let run = p.ok("startRun", json!({"scenarioSlug": "login-2"}));
    assert_eq!(run["scenarioTitle"], "Login: the old way");

    // Unknown keys, at the top and nested, are ignored with a warning each.
    let out = p.ok(
        "createScenario",
        json!({"slug": "extra", "title": "Extra", "owner": "qa",
               "steps": [{"title": "One", "actions": "a", "expectedOutcome": "e", "type": "frontend"}]}),
    );
    let w: Vec<&str> = out["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].starts_with(
            "unknown argument \"owner\" ignored (createScenario takes slug, title, steps"
        ),
        "{w:?}"
    );
    assert!(
        w[1].starts_with(
            "unknown argument \"steps[0].type\" ignored (createScenario takes title, description"
        ),
        "{w:?}"
    );
    // Nothing of them reaches the files.
    let meta = std::fs::read_to_string(p.hj().join("scenarios/extra/meta.yaml")).unwrap();
    assert!(
        !meta.contains("owner") && !meta.contains("frontend"),
        "{meta}"
    );

    // Text evidence is content even when it looks like a path, or is one.
    let run = p.start();
    let real = p.root().join("real.txt");
    std::fs::write(&real, "the file's content").unwrap();
    for (kind, ext, data) in [
        ("console_log", "txt", "/static/app.js".to_string()),
        ("network_log", "json", real.to_str().unwrap().to_string()),
        ("html_snapshot", "html", "/index.html".to_string()),
        ("custom", "json", real.to_str().unwrap().to_string()),
        ("db_snapshot", "json", "/var/lib/app/db.json".to_string()),
    ] {
        let out = p.ok(
            "recordEvidence",
            json!({"runId": run, "step": 1, "type": kind, "name": kind, "data": data}),
        );
        assert!(out["copiedFrom"].is_null(), "{out}");
        let file = p
            .run_dir(&run)
            .join(format!("step-01/evidence/{kind}.{ext}"));
        assert_eq!(std::fs::read_to_string(file).unwrap(), data, "{kind}");
    }
}

#[test]
fn init_project_starts_the_dashboard_when_asked_and_returns_its_url() {
    let mut p = Project::new();
    harshjudge_mcp::dashboard::set_binary(env!("CARGO_BIN_EXE_harshjudge-mcp"));
    p.ctx.dashboard_on_init = true;
    let out = p.ok("initProject", json!({"projectName": "Dash"}));
    let closed = p.ok("closeDashboard", json!({}));
    let url = out["dashboardUrl"]
        .as_str()
        .unwrap_or_else(|| panic!("{out}"));
    assert!(url.starts_with("http://127.0.0.1:"), "{out}");
    let msg = out["message"].as_str().unwrap();
    assert!(
        msg.starts_with(&format!(
            "HarshJudge initialized successfully. Dashboard running at {url} (PID: "
        )),
        "{msg}"
    );
    assert_eq!(closed["success"], true, "{closed}");
    // Off (a library context, or HARSHJUDGE_DASHBOARD=off for the binary): no url.
    let q = Project::new();
    let out = q.ok("initProject", json!({"projectName": "Quiet"}));
    assert!(out.get("dashboardUrl").is_none(), "{out}");
    assert!(!q.hj().join(".dashboard-state.json").exists());
}

/// Issue 11 point 10: a result.json truncated to 0 bytes (or garbled) is
/// listed as corrupt, with its path, never as a run in progress.
#[test]
fn a_truncated_result_json_is_listed_as_corrupt_with_its_path() {
    let p = Project::with_scenario();
    let ok_run = p.start();
    p.ok("completeRun", json!({"runId": ok_run, "status": "pass"}));
    let empty = p.start();
    let garbled = p.start();
    std::fs::write(p.run_dir(&empty).join("result.json"), b"").unwrap();
    std::fs::write(p.run_dir(&garbled).join("result.json"), b"{\"runId\": ").unwrap();
    let detail = p.ok("getStatus", json!({"scenarioSlug": "login"}));
    let runs = detail["recentRuns"].as_array().unwrap();
    let find = |id: &str| runs.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(find(&ok_run)["status"], "pass", "{detail}");
    for (id, why) in [(&empty, "empty"), (&garbled, "not a valid result.json")] {
        let r = find(id);
        assert_eq!(r["status"], "corrupt", "{r}");
        let path = p.run_dir(id).join("result.json").display().to_string();
        assert_eq!(r["path"], path.as_str(), "{r}");
        let msg = r["errorMessage"].as_str().unwrap();
        assert!(msg.contains(&path) && msg.contains(why), "{msg}");
    }
    // getRunState names the file too.
    let (code, msg) = p.err("getRunState", json!({"runId": empty}));
    assert_eq!(code, Code::Corrupt);
    assert!(
        msg.contains("result.json") && msg.contains("empty"),
        "{msg}"
    );
}

/// Every file under `dir` with its content (links not followed).
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = vec![];
    for p in walk(dir) {
        out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
    }
    out.sort();
    out
}

/// Issue 11 point 16: symbolic links inside .harshJudge/ that lead outside are
/// never followed, for writes (startRun, recordEvidence, completeStep,
/// createScenario) nor reads (getStatus, getRunState, discoverTree,
/// discoverSearch).
#[test]
fn symlinks_inside_harshjudge_are_never_followed() {
    use std::os::unix::fs::symlink;
    let p = Project::with_scenario();
    let outside = tempfile::tempdir().unwrap();
    let o = outside.path();
    const SECRET: &str = "TOPSECRET-outside-the-project";
    for d in ["runs", "step", "ev", "scenario", "meta"] {
        std::fs::create_dir_all(o.join(d)).unwrap();
    }
    std::fs::write(o.join("secret.md"), format!("# {SECRET}\n")).unwrap();
    std::fs::write(
        o.join("result.json"),
        format!(r#"{{"runId":"x","scenarioSlug":"login","status":"pass","startedAt":"{SECRET}","duration":1,"steps":[]}}"#),
    )
    .unwrap();
    std::fs::write(
        o.join("meta/meta.yaml"),
        format!("title: {SECRET}\nslug: other\n"),
    )
    .unwrap();
    std::fs::write(
        o.join("scenario/meta.yaml"),
        format!("title: {SECRET}\nslug: evil\n"),
    )
    .unwrap();
    let before = snapshot(o);
    let mut outputs: Vec<String> = vec![];
    let mut refused = 0;
    let mut expect_refused = |out: harshjudge_mcp::Outcome, what: &str| {
        assert!(out.is_error(), "{what} must be refused: {}", out.value);
        assert_eq!(out.value["code"], "ACCESS_DENIED", "{what}: {}", out.value);
        assert!(
            out.value["error"]
                .as_str()
                .unwrap()
                .contains("symbolic link"),
            "{what}: {}",
            out.value
        );
        refused += 1;
    };

    // A run whose step folder, evidence folder and result.json are links.
    let run = p.start();
    symlink(o.join("step"), p.run_dir(&run).join("step-01")).unwrap();
    std::fs::create_dir_all(p.run_dir(&run).join("step-02")).unwrap();
    symlink(o.join("ev"), p.run_dir(&run).join("step-02/evidence")).unwrap();
    for step in [1, 2] {
        let out = call(
            &p.ctx,
            "recordEvidence",
            Some(json!({"runId": run, "step": step, "type": "custom", "name": "x", "data": "{}"})),
        );
        expect_refused(out, &format!("recordEvidence into a linked step {step}"));
    }
    let run2 = p.start();
    std::fs::remove_file(p.run_dir(&run2).join("result.json")).unwrap();
    symlink(o.join("result.json"), p.run_dir(&run2).join("result.json")).unwrap();
    let out = call(&p.ctx, "getRunState", Some(json!({"runId": run2})));
    outputs.push(out.value.to_string());
    expect_refused(out, "getRunState of a linked result.json");
    let out = call(
        &p.ctx,
        "completeStep",
        Some(json!({"runId": run2, "stepId": "01", "status": "pass", "duration": 1})),
    );
    outputs.push(out.value.to_string());
    expect_refused(out, "completeStep over a linked result.json");
    let status = p.ok("getStatus", json!({"scenarioSlug": "login"}));
    outputs.push(status.to_string());

    // runs/ itself is a link.
    let runs = p.hj().join("scenarios/login/runs");
    std::fs::rename(&runs, p.root().join("runs-moved")).unwrap();
    symlink(o.join("runs"), &runs).unwrap();
    let out = call(&p.ctx, "startRun", Some(json!({"scenarioSlug": "login"})));
    expect_refused(out, "startRun into a linked runs/");

    // A linked scenario folder and a linked meta.yaml.
    symlink(o.join("scenario"), p.hj().join("scenarios/evil")).unwrap();
    let out = call(
        &p.ctx,
        "createScenario",
        Some(
            json!({"slug": "evil", "title": "Evil", "steps": [{"title": "A", "actions": "a", "expectedOutcome": "b"}]}),
        ),
    );
    expect_refused(out, "createScenario into a linked scenario folder");
    std::fs::create_dir_all(p.hj().join("scenarios/other")).unwrap();
    symlink(
        o.join("meta/meta.yaml"),
        p.hj().join("scenarios/other/meta.yaml"),
    )
    .unwrap();
    let out = call(
        &p.ctx,
        "createScenario",
        Some(
            json!({"slug": "other", "title": "Other", "steps": [{"title": "A", "actions": "a", "expectedOutcome": "b"}]}),
        ),
    );
    expect_refused(out, "createScenario over a linked meta.yaml");
    outputs.push(p.ok("getStatus", json!({})).to_string());

    // Linked step files and folders are neither listed nor searched.
    symlink(
        o.join("secret.md"),
        p.hj().join("scenarios/login/steps/99-secret.md"),
    )
    .unwrap();
    symlink(o, p.hj().join("outside")).unwrap();
    let found = p.ok("discoverSearch", json!({"pattern": "topsecret"}));
    assert_eq!(found["matches"].as_array().unwrap().len(), 0, "{found}");
    outputs.push(found.to_string());
    outputs.push(p.ok("discoverTree", json!({})).to_string());

    let writes_outside = {
        let after = snapshot(o);
        after.len() as i64 - before.len() as i64
            + after.iter().zip(&before).filter(|(a, b)| a != b).count() as i64
    };
    let reads_outside = outputs.iter().filter(|o| o.contains(SECRET)).count();
    eprintln!(
        "symlink probes: {refused} refused, {writes_outside} writes and {reads_outside} reads outside .harshJudge/"
    );
    assert_eq!(snapshot(o), before, "nothing written outside");
    assert_eq!((writes_outside, reads_outside), (0, 0), "{outputs:#?}");
    assert_eq!(refused, 7);
}
