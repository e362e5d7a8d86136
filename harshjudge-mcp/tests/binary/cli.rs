//! The CLI: every command through the real binary, `--cwd`, and errors (exit
//! code 1, `{"error", "code"}` on stderr, nothing on stdout).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_harshjudge-mcp");

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn json(&self) -> Value {
        assert_eq!(self.code, 0, "stderr: {}", self.stderr);
        assert_eq!(
            self.stdout.lines().count(),
            1,
            "one line of JSON: {:?}",
            self.stdout
        );
        assert!(
            !self.stdout.trim_end().contains('\n') && !self.stdout.contains("  "),
            "compact: {}",
            self.stdout
        );
        serde_json::from_str(self.stdout.trim_end()).unwrap()
    }
    fn error(&self, code: &str) -> String {
        assert_eq!(self.code, 1, "should fail: {} {}", self.stdout, self.stderr);
        assert!(self.stdout.is_empty(), "nothing on stdout: {}", self.stdout);
        let v: Value = serde_json::from_str(self.stderr.trim_end())
            .unwrap_or_else(|e| panic!("stderr is JSON ({e}): {}", self.stderr));
        assert_eq!(v["code"], code, "{v}");
        v["error"].as_str().unwrap().to_string()
    }
}

/// The CLI's "system temporary folder": one of its own for each call, so that
/// a checkout (and its target dir) under /tmp is not inside an allowed root by
/// accident. Held by the caller and removed with it: not a process-wide
/// folder, which is never dropped (it stayed behind after every run).
fn cli_tmpdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn run(cwd: &Path, args: &[&str]) -> Out {
    let tmp = cli_tmpdir();
    run_in(cwd, args, tmp.path())
}

/// `run` with `tmp` as the binary's `TMPDIR`.
fn run_in(cwd: &Path, args: &[&str], tmp: &Path) -> Out {
    run_with(cwd, args, tmp, &[])
}

/// `run_in` with more environment variables.
fn run_with(cwd: &Path, args: &[&str], tmp: &Path, vars: &[(&str, &str)]) -> Out {
    let o = Command::new(BIN)
        .envs(vars.iter().copied())
        // No dashboard started by `init` (the binary starts one, as the original).
        .env("HARSHJUDGE_DASHBOARD", "off")
        .args(args)
        .current_dir(cwd)
        .env("TMPDIR", tmp)
        .env_remove("HARSHJUDGE_PROJECT")
        .env_remove("HARSHJUDGE_MAX_EVIDENCE_BYTES")
        .env_remove("HARSHJUDGE_ALLOWED_ROOTS")
        .output()
        .unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// `--cwd DIR` prepended.
fn hj(dir: &Path, args: &[&str]) -> Out {
    let mut all = vec!["--cwd", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    run(Path::new("/"), &all)
}

const STEPS: &str = r#"[{"title":"Open","actions":"go","expectedOutcome":"page"},{"title":"Sign in","actions":"type","expectedOutcome":"welcome"}]"#;

fn project() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().to_path_buf();
    hj(&p, &["init", "Demo", "--base-url", "http://localhost:3000"]).json();
    hj(
        &p,
        &[
            "create",
            "login",
            "--title",
            "Login",
            "--steps",
            STEPS,
            "--tags",
            "auth, smoke",
        ],
    )
    .json();
    (t, p)
}

fn start(p: &Path) -> String {
    hj(p, &["start", "login"]).json()["runId"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn help_and_version() {
    let o = run(Path::new("/"), &["--help"]);
    assert_eq!(o.code, 0);
    for cmd in [
        "init",
        "create",
        "star",
        "status",
        "start",
        "evidence",
        "complete-step",
        "complete-run",
        "run-state",
        "trace",
        "discover",
    ] {
        assert!(o.stdout.contains(cmd), "{cmd} in help:\n{}", o.stdout);
    }
    let o = run(Path::new("/"), &["--version"]);
    assert_eq!(
        (o.code, o.stdout.trim()),
        (0, concat!("harshjudge-mcp ", env!("CARGO_PKG_VERSION")))
    );
    assert_eq!(run(Path::new("/"), &["evidence", "--help"]).code, 0);
}

#[test]
fn usage_errors_are_json_on_stderr_with_exit_1() {
    let t = tempfile::tempdir().unwrap();
    let msg = run(t.path(), &["bogus"]).error("INVALID_INPUT");
    assert!(msg.contains("bogus"), "{msg}");
    let msg = run(
        t.path(),
        &["complete-step", "r1", "--step", "01", "--status", "pass"],
    )
    .error("INVALID_INPUT");
    assert!(msg.contains("--duration"), "{msg}");
    let msg = run(
        t.path(),
        &[
            "complete-step",
            "r1",
            "--step",
            "01",
            "--status",
            "pass",
            "--duration",
            "abc",
        ],
    )
    .error("INVALID_INPUT");
    assert!(msg.contains("abc"), "{msg}");
    let msg = run(t.path(), &["--cwd", "/no/such/dir", "status"]).error("INVALID_INPUT");
    assert!(msg.contains("/no/such/dir"), "{msg}");
    let msg = run(t.path(), &["status"]).error("NOT_INITIALIZED");
    assert!(msg.contains("harshjudge-mcp init"), "{msg}");
}

#[test]
fn init_writes_the_project_and_refuses_twice_or_a_bad_url() {
    let t = tempfile::tempdir().unwrap();
    hj(t.path(), &["init", "Demo", "--base-url", "not a url"]).error("INVALID_INPUT");
    assert!(!t.path().join(".harshJudge").exists());
    let v = hj(t.path(), &["init", "Demo"]).json();
    assert_eq!(v["success"], true);
    let config = std::fs::read_to_string(t.path().join(".harshJudge/config.yaml")).unwrap();
    assert!(
        config.contains("projectName: Demo") && config.contains("baseUrl: ''"),
        "{config}"
    );
    assert!(t.path().join(".harshJudge/prd.md").is_file());
    hj(t.path(), &["init", "Demo"]).error("ALREADY_EXISTS");
}

#[test]
fn cwd_works_before_and_after_the_command_and_defaults_to_the_current_folder() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().to_str().unwrap();
    run(Path::new("/"), &["init", "Demo", "--cwd", dir]).json();
    assert!(t.path().join(".harshJudge/config.yaml").is_file());
    let v = run(Path::new("/"), &["--cwd", dir, "status"]).json();
    assert_eq!(v["projectName"], "Demo");
    let v = run(t.path(), &["status"]).json();
    assert_eq!(v["projectName"], "Demo");
    let v = run(Path::new("/"), &["discover", "tree", "--cwd", dir]).json();
    assert_eq!(v["root"], ".harshJudge/");
}

#[test]
fn create_from_json_or_a_file_keeps_stars_and_tags_and_drops_old_step_files() {
    let (_t, p) = project();
    let meta = std::fs::read_to_string(p.join(".harshJudge/scenarios/login/meta.yaml")).unwrap();
    assert!(
        meta.contains("- auth\n") && meta.contains("- smoke\n") && meta.contains("id: '01'"),
        "{meta}"
    );
    hj(&p, &["star", "login"]).json();
    let file = p.join("steps.json");
    std::fs::write(
        &file,
        r#"[{"title":"Only step","actions":"a","expectedOutcome":"e"}]"#,
    )
    .unwrap();
    let v = hj(
        &p,
        &[
            "create",
            "login",
            "--title",
            "Login 2",
            "--steps-file",
            file.to_str().unwrap(),
            "--estimated-duration",
            "30",
        ],
    )
    .json();
    assert_eq!(v["isNew"], false);
    assert_eq!(
        v["stepFiles"],
        json!([".harshJudge/scenarios/login/steps/01-only-step.md"])
    );
    let meta = std::fs::read_to_string(p.join(".harshJudge/scenarios/login/meta.yaml")).unwrap();
    assert!(
        meta.contains("starred: true")
            && meta.contains("- auth")
            && meta.contains("estimatedDuration: 30"),
        "{meta}"
    );
    let files: Vec<_> = std::fs::read_dir(p.join(".harshJudge/scenarios/login/steps"))
        .unwrap()
        .collect();
    assert_eq!(files.len(), 1);
    let msg = hj(
        &p,
        &["create", "x", "--title", "X", "--steps", "[{not json"],
    )
    .error("INVALID_INPUT");
    assert!(msg.contains("--steps is not valid JSON"), "{msg}");
    hj(&p, &["create", "x", "--title", "X", "--steps", "[]"]).error("INVALID_INPUT");
    hj(
        &p,
        &["create", "Bad Slug", "--title", "X", "--steps", STEPS],
    )
    .error("INVALID_INPUT");
    hj(
        &p,
        &[
            "create",
            "x",
            "--title",
            "X",
            "--steps-file",
            "/no/such/file.json",
        ],
    )
    .error("INVALID_INPUT");
    let v = hj(
        &p,
        &[
            "create",
            "starred-one",
            "--title",
            "S",
            "--steps",
            STEPS,
            "--starred",
        ],
    )
    .json();
    assert_eq!(v["isNew"], true);
    let v = hj(&p, &["status", "--starred-only"]).json();
    assert_eq!(v["scenarioCount"], 2);
}

#[test]
fn star_toggles_without_a_flag_and_sets_with_one() {
    let (_t, p) = project();
    assert_eq!(hj(&p, &["star", "login"]).json()["starred"], true);
    assert_eq!(hj(&p, &["star", "login"]).json()["starred"], false);
    assert_eq!(hj(&p, &["star", "login", "--on"]).json()["starred"], true);
    assert_eq!(hj(&p, &["star", "login", "--on"]).json()["starred"], true);
    assert_eq!(hj(&p, &["star", "login", "--off"]).json()["starred"], false);
    assert_eq!(hj(&p, &["star", "login", "--on"]).json()["starred"], true);
    assert_eq!(
        hj(&p, &["star", "login", "--unstar"]).json()["starred"],
        false
    );
    hj(&p, &["star", "login", "--on", "--off"]).error("INVALID_INPUT");
    hj(&p, &["star", "nope"]).error("NOT_FOUND");
}

/// The secrets `HARSHJUDGE_SECRETS` names are masked in what the server's
/// commands write, as in what the harness writes.
#[test]
fn the_secrets_harshjudge_secrets_names_never_reach_evidence() {
    let (_t, p) = project();
    let run = start(&p);
    let token = "tok-9f8e7d6c5b4a3";
    let tmp = cli_tmpdir();
    let text = format!("the app answered {token} to the login");
    let args = [
        "--cwd",
        p.to_str().unwrap(),
        "evidence",
        &run,
        "--step",
        "1",
        "--type",
        "custom",
        "--name",
        "answer",
        "--data",
        &text,
    ];
    let secret = [("HARSHJUDGE_SECRETS", "APP_TOKEN"), ("APP_TOKEN", token)];
    let out = run_with(Path::new("/"), &args, tmp.path(), &secret);
    let written = out.json()["filePath"].as_str().unwrap().to_string();
    let body = std::fs::read_to_string(p.join(&written)).unwrap();
    assert!(!body.contains(token), "{body}");
    assert!(body.contains("[secret:APP_TOKEN]"), "{body}");
    // Named but too short to mask: a clear error naming it, nothing written.
    let short = [("HARSHJUDGE_SECRETS", "APP_TOKEN"), ("APP_TOKEN", "ab")];
    let out = run_with(Path::new("/"), &args, tmp.path(), &short);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        (out.stdout.clone() + &out.stderr).contains("APP_TOKEN"),
        "{} {}",
        out.stdout,
        out.stderr
    );
}

#[test]
fn a_whole_run_from_the_command_line() {
    let (_t, p) = project();
    let run = start(&p);
    let shot = p.join("shot.png");
    std::fs::write(&shot, b"\x89PNG\r\n\x1a\nrest").unwrap();
    let v = hj(
        &p,
        &[
            "evidence",
            &run,
            "--step",
            "1",
            "--type",
            "screenshot",
            "--name",
            "before",
            "--data",
            shot.to_str().unwrap(),
        ],
    )
    .json();
    assert!(
        v["filePath"]
            .as_str()
            .unwrap()
            .ends_with("step-01/evidence/before.png"),
        "{v}"
    );
    hj(
        &p,
        &[
            "evidence",
            &run,
            "--step",
            "01",
            "--type",
            "stdout",
            "--name",
            "out",
            "--data",
            "hello",
            "--metadata",
            r#"{"cmd":"ls"}"#,
        ],
    )
    .json();
    hj(
        &p,
        &[
            "evidence",
            &run,
            "--step",
            "2",
            "--type",
            "console_log",
            "--name",
            "lit",
            "--data",
            "/not/a/file.txt",
            "--source",
            "content",
        ],
    )
    .json();
    let ev = p.join(format!(
        ".harshJudge/scenarios/login/runs/{run}/step-01/evidence"
    ));
    assert_eq!(
        std::fs::read(ev.join("before.png")).unwrap(),
        b"\x89PNG\r\n\x1a\nrest"
    );
    assert_eq!(
        std::fs::read_to_string(ev.join("out.txt")).unwrap(),
        "hello"
    );
    let side: Value =
        serde_json::from_str(&std::fs::read_to_string(ev.join("out.meta.json")).unwrap()).unwrap();
    assert_eq!(side["metadata"]["cmd"], "ls");
    hj(
        &p,
        &[
            "evidence",
            &run,
            "--step",
            "1",
            "--type",
            "custom",
            "--name",
            "m",
            "--data",
            "{}",
            "--metadata",
            "nope",
        ],
    )
    .error("INVALID_INPUT");
    hj(
        &p,
        &[
            "evidence", &run, "--step", "1", "--type", "video", "--name", "v", "--data", "x",
        ],
    )
    .error("INVALID_INPUT");
    hj(
        &p,
        &[
            "evidence", &run, "--step", "1", "--type", "custom", "--name", "../x", "--data", "x",
        ],
    )
    .error("INVALID_INPUT");

    let v = hj(
        &p,
        &[
            "complete-step",
            &run,
            "--step",
            "1",
            "--status",
            "pass",
            "--duration",
            "40",
        ],
    )
    .json();
    assert_eq!(
        v,
        json!({"success": true, "runId": run, "stepId": "01", "status": "pass", "nextStepId": "02"})
    );
    hj(
        &p,
        &[
            "complete-step",
            &run,
            "--step",
            "02",
            "--status",
            "done",
            "--duration",
            "1",
        ],
    )
    .error("INVALID_INPUT");
    let v = hj(
        &p,
        &[
            "complete-step",
            &run,
            "--step",
            "02",
            "--status",
            "fail",
            "--duration",
            "5",
            "--error",
            "no welcome",
            "--summary",
            "stuck",
        ],
    )
    .json();
    assert_eq!(v["nextStepId"], Value::Null);
    let state = hj(&p, &["run-state", &run]).json();
    assert_eq!(state["completedSteps"][1]["status"], "fail");
    assert_eq!(
        hj(&p, &["run-state", "--scenario", "login"]).json()["runId"],
        run.as_str()
    );

    let v = hj(
        &p,
        &[
            "complete-run",
            &run,
            "--status",
            "pass",
            "--duration",
            "100",
        ],
    )
    .json();
    assert_eq!(v["status"], "fail");
    assert!(
        v["warning"].as_str().unwrap().contains("Status mismatch"),
        "{v}"
    );
    let msg = hj(
        &p,
        &[
            "complete-run",
            &run,
            "--status",
            "pass",
            "--duration",
            "100",
        ],
    )
    .error("RUN_COMPLETED");
    assert!(msg.contains("already completed"), "{msg}");
    let result: Value = serde_json::from_str(
        &std::fs::read_to_string(p.join(format!(
            ".harshJudge/scenarios/login/runs/{run}/result.json"
        )))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(result["failedStep"], "02");
    assert_eq!(result["errorMessage"], "no welcome");

    // complete-run with its steps given at once.
    let run2 = start(&p);
    let v = hj(
        &p,
        &[
            "complete-run",
            &run2,
            "--status",
            "pass",
            "--duration",
            "10",
            "--steps",
            r#"[{"id":"01","status":"pass"},{"id":"02","status":"pass"}]"#,
        ],
    )
    .json();
    assert_eq!(
        (v["status"].as_str(), v.get("warning")),
        (Some("pass"), None)
    );
    let run3 = start(&p);
    let v = hj(
        &p,
        &[
            "complete-run",
            &run3,
            "--status",
            "fail",
            "--duration",
            "10",
            "--failed-step",
            "1",
            "--error",
            "boom",
        ],
    )
    .json();
    assert_eq!(v["status"], "fail");
    let status = hj(&p, &["status", "login"]).json();
    assert_eq!(status["meta"]["totalRuns"], 3);
    assert_eq!(status["recentRuns"].as_array().unwrap().len(), 3);
    hj(
        &p,
        &[
            "complete-step",
            "unknown-run",
            "--step",
            "01",
            "--status",
            "pass",
            "--duration",
            "1",
        ],
    )
    .error("NOT_FOUND");
    hj(&p, &["status", "nope"]).error("NOT_FOUND");
}

#[test]
fn evidence_limits_and_allowed_roots() {
    let (_t, p) = project();
    let run = start(&p);
    // A folder that is neither the project nor the system's temporary folder.
    let outside = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-outside-{}", std::process::id()));
    std::fs::create_dir_all(&outside).unwrap();
    let file = outside.join("body.json");
    std::fs::write(&file, r#"{"a":1}"#).unwrap();
    let f = file.to_str().unwrap();
    let msg = hj(
        &p,
        &[
            "evidence",
            &run,
            "--step",
            "1",
            "--type",
            "api_response",
            "--name",
            "body",
            "--source",
            "file",
            "--data",
            f,
        ],
    )
    .error("ACCESS_DENIED");
    assert!(msg.contains("--allow-root"), "{msg}");
    hj(
        &p,
        &[
            "--allow-root",
            outside.to_str().unwrap(),
            "evidence",
            &run,
            "--step",
            "1",
            "--type",
            "api_response",
            "--name",
            "body",
            "--source",
            "file",
            "--data",
            f,
        ],
    )
    .json();
    let body = p.join(format!(
        ".harshJudge/scenarios/login/runs/{run}/step-01/evidence/body.json"
    ));
    assert_eq!(std::fs::read_to_string(body).unwrap(), r#"{"a":1}"#);
    let msg = hj(
        &p,
        &[
            "--max-evidence-bytes",
            "4",
            "evidence",
            &run,
            "--step",
            "1",
            "--type",
            "stdout",
            "--name",
            "big",
            "--data",
            "12345",
        ],
    )
    .error("TOO_LARGE");
    assert!(msg.contains("4 bytes"), "{msg}");
    let _ = std::fs::remove_dir_all(&outside);
}

/// The binary's variables follow the settings' rules (one reader, the one
/// boolean vocabulary, errors naming the variable), and a flag wins over its variable.
#[test]
fn variables_are_read_through_the_settings_and_flags_win() {
    let (_t, p) = project();
    let tmp = cli_tmpdir();
    let with = |vars: &[(&str, &str)], args: &[&str]| {
        let mut all = vec!["--cwd", p.to_str().unwrap()];
        all.extend_from_slice(args);
        let mut c = Command::new(BIN);
        c.args(&all)
            .current_dir("/")
            .env("TMPDIR", tmp.path())
            .env("HARSHJUDGE_DASHBOARD", "off")
            .env_remove("HARSHJUDGE_PROJECT")
            .env_remove("HARSHJUDGE_MAX_EVIDENCE_BYTES")
            .env_remove("HARSHJUDGE_ALLOWED_ROOTS");
        for (k, v) in vars {
            c.env(k, v);
        }
        let o = c.output().unwrap();
        Out {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    };
    let run = start(&p);
    let evidence = |name: &str| {
        vec![
            "evidence",
            run.as_str(),
            "--step",
            "1",
            "--type",
            "stdout",
            "--name",
            name,
            "--data",
            "12345",
        ]
        .into_iter()
        .map(str::to_string)
        .collect::<Vec<_>>()
    };
    let args = evidence("a");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // The variable sets the limit; the flag wins over it.
    let msg = with(&[("HARSHJUDGE_MAX_EVIDENCE_BYTES", "4")], &args).error("TOO_LARGE");
    assert!(msg.contains("4 bytes"), "{msg}");
    let mut flagged = vec!["--max-evidence-bytes", "100"];
    flagged.extend_from_slice(&args);
    with(&[("HARSHJUDGE_MAX_EVIDENCE_BYTES", "4")], &flagged).json();
    // A bad value names the variable and what it takes.
    let msg = with(&[("HARSHJUDGE_MAX_EVIDENCE_BYTES", "25MB")], &args).error("INVALID_INPUT");
    assert!(
        msg.contains("HARSHJUDGE_MAX_EVIDENCE_BYTES") && msg.contains("whole number of bytes"),
        "{msg}"
    );
    // HARSHJUDGE_DASHBOARD takes the one boolean vocabulary (clap took only on/off).
    let msg = with(&[("HARSHJUDGE_DASHBOARD", "maybe")], &["status"]).error("INVALID_INPUT");
    assert!(
        msg.contains("HARSHJUDGE_DASHBOARD") && msg.contains("yes"),
        "{msg}"
    );
    with(&[("HARSHJUDGE_DASHBOARD", "no")], &["status"]).json();
    // HARSHJUDGE_PROJECT picks the project when --cwd is absent.
    let o = Command::new(BIN)
        .args(["status"])
        .current_dir("/")
        .env("HARSHJUDGE_PROJECT", &p)
        .env("HARSHJUDGE_DASHBOARD", "off")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("login"));
}

#[test]
fn discover_tree_and_search() {
    let (_t, p) = project();
    let v = hj(&p, &["discover", "tree"]).json();
    assert_eq!(
        v["tree"]["scenarios/"]["login/"]["meta.yaml"]["title"],
        "Login"
    );
    let v = hj(&p, &["discover", "tree", "scenarios/login"]).json();
    assert_eq!(v["root"], ".harshJudge/scenarios/login/");
    let v = hj(&p, &["discover", "search", "SIGN IN"]).json();
    assert!(!v["matches"].as_array().unwrap().is_empty(), "{v}");
    let v = hj(
        &p,
        &[
            "discover",
            "search",
            "sign in",
            "--path",
            "scenarios/login/steps",
        ],
    )
    .json();
    assert_eq!(v["matches"].as_array().unwrap().len(), 1, "{v}");
    hj(&p, &["discover", "tree", "../.."]).error("ACCESS_DENIED");
    hj(&p, &["discover", "search", "x", "--path", "/etc"]).error("ACCESS_DENIED");
}

/// A sequence as `record_stop` saves it, written by hand: two project calls
/// (one with a `{{slug}}` placeholder) and a browser click.
fn write_sequence(p: &Path, id: &str) {
    let seq = json!({
        "id": id,
        "name": "Login run",
        "description": "Records a run of login.",
        "createdAt": "2026-11-23T00:00:00.000Z",
        "variables": ["slug"],
        "calls": [
            {"tool": "toggleStar", "args": {"scenarioSlug": "login", "starred": true}, "ok": true, "durationMs": 1.0},
            {"tool": "getStatus", "args": {"scenarioSlug": "{{slug}}"}, "ok": true, "durationMs": 1.0},
            {"tool": "browser_click", "args": {"testId": "sign-in"}, "ok": true, "durationMs": 1.0, "locator": "testid=sign-in"},
        ],
    });
    let dir = p.join(".harshJudge/sequences");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{id}.json")), seq.to_string()).unwrap();
}

#[test]
fn replay_and_export_a_recorded_sequence_from_the_command_line() {
    let (_t, p) = project();
    write_sequence(&p, "seq-1");
    // Every placeholder needs a value.
    let e = hj(&p, &["replay", "seq-1"]).error("INVALID_INPUT");
    assert!(e.contains("{{slug}}"), "{e}");
    // Without a browser the third call fails: the replay stops there…
    let out = hj(&p, &["replay", "seq-1", "--var", "slug=login"]).json();
    assert_eq!(out["summary"]["ran"], 3, "{out}");
    // …in brief by default: per call its index, tool, ok, the error's first line…
    assert_eq!(
        out["steps"][0],
        json!({"index": 1, "tool": "toggleStar", "ok": true}),
        "{out}"
    );
    let e = out["steps"][2]["error"].as_str().unwrap();
    assert!(e.starts_with("NO_SESSION: ") && !e.contains('\n'), "{e}");
    assert!(out["steps"][1].get("result").is_none(), "{out}");
    // …and in full with --detail.
    let out = hj(&p, &["replay", "seq-1", "--var", "slug=login", "--detail"]).json();
    assert_eq!(out["summary"]["ran"], 3, "{out}");
    assert_eq!(out["summary"]["succeeded"], 2, "{out}");
    assert_eq!(
        out["steps"][1]["result"]["slug"], "login",
        "the variable was filled in"
    );
    assert_eq!(out["steps"][2]["error"]["code"], "NO_SESSION");
    assert_eq!(out["summary"]["ok"], false);
    let e = hj(&p, &["replay", "seq-1", "--var", "slug"]).error("INVALID_INPUT");
    assert!(e.contains("NAME=VALUE"), "{e}");
    let e = hj(&p, &["replay", "nope"]).error("NOT_FOUND");
    assert!(e.contains("record_list"), "{e}");

    // Export: the browser call becomes a step using the page API.
    let out = hj(&p, &["export", "seq-1", "--function", "login_run"]).json();
    assert_eq!(out["steps"], 1, "{out}");
    let src = std::fs::read_to_string(p.join(".harshJudge/exports/login_run.rs")).unwrap();
    assert!(
        src.contains("pub async fn login_run(s: Scenario)")
            && src.contains("page.get_by_test_id(\"sign-in\").click().await?;")
            && src.contains("Not exported (no page API equivalent): toggleStar, getStatus."),
        "{src}"
    );
    hj(&p, &["export", "seq-1", "--function", "1bad"]).error("INVALID_INPUT");
    hj(&p, &["export", "../../etc"]).error("INVALID_INPUT");
}

#[test]
fn replay_of_a_run_needs_its_replay_script() {
    let (_t, p) = project();
    let run = start(&p);
    let e = hj(&p, &["replay", &run]).error("NOT_FOUND");
    assert!(e.contains("has no replay.sh"), "{e}");
}

/// Issue 11 point 21: `harshjudge-mcp prune` keeps the newest runs per
/// scenario (never a running one nor the newest failed one), with
/// HARSHJUDGE_KEEP_RUNS as the default, and leaves the statistics alone.
#[test]
fn prune_keeps_the_newest_runs_and_the_statistics() {
    let (_t, p) = project();
    let mut ids = vec![];
    for i in 0..6 {
        std::thread::sleep(std::time::Duration::from_millis(2));
        let id = start(&p);
        let status = if i == 1 { "fail" } else { "pass" };
        hj(
            &p,
            &["complete-run", &id, "--status", status, "--duration", "10"],
        )
        .json();
        ids.push(id);
    }
    let running = start(&p);
    let stats = |p: &Path| {
        let v = hj(p, &["status", "login"]).json();
        (
            v["meta"]["totalRuns"].clone(),
            v["meta"]["passCount"].clone(),
            v["meta"]["failCount"].clone(),
            v["meta"]["avgDuration"].clone(),
        )
    };
    let before = stats(&p);
    let runs_dir = p.join(".harshJudge/scenarios/login/runs");
    let left = || {
        let mut v: Vec<String> = std::fs::read_dir(&runs_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    // A bad value of the variable is an error naming it.
    let o = Command::new(BIN)
        .args(["--cwd", p.to_str().unwrap(), "prune"])
        .env("HARSHJUDGE_KEEP_RUNS", "lots")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("HARSHJUDGE_KEEP_RUNS"));
    // The variable is the default.
    let o = Command::new(BIN)
        .args(["--cwd", p.to_str().unwrap(), "prune"])
        .env("HARSHJUDGE_KEEP_RUNS", "4")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (out["keep"].clone(), out["removedCount"].clone()),
        (json!(4), json!(2)),
        "{out}"
    );
    assert_eq!(out["removed"]["login"], json!([ids[0], ids[2]]), "{out}");
    let mut expect = vec![
        ids[1].clone(),
        ids[3].clone(),
        ids[4].clone(),
        ids[5].clone(),
        running.clone(),
    ];
    expect.sort();
    assert_eq!(left(), expect, "the newest 4 and the newest failed run");
    assert_eq!(stats(&p), before, "statistics unchanged");
    // --keep 1: the running run and the newest failed run stay.
    let out = hj(&p, &["prune", "login", "--keep", "1"]).json();
    assert_eq!(out["removedCount"], 3, "{out}");
    let mut expect = vec![ids[1].clone(), running.clone()];
    expect.sort();
    assert_eq!(left(), expect);
    assert_eq!(stats(&p), before, "statistics unchanged");
    let msg = hj(&p, &["prune", "--keep", "0"]).error("INVALID_INPUT");
    assert!(msg.contains("keep"), "{msg}");
}

#[test]
fn pending_judgments_and_record_verdict_from_the_command_line() {
    let (_t, p) = project();
    let run = start(&p);
    for step in ["1", "2"] {
        hj(
            &p,
            &[
                "complete-step",
                &run,
                "--step",
                step,
                "--status",
                "pass",
                "--duration",
                "7",
            ],
        )
        .json();
    }
    hj(&p, &["complete-run", &run]).json();
    let all = hj(&p, &["pending-judgments"]).json();
    let steps: Vec<&str> = all["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["stepId"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["01", "02"], "{all}");
    assert_eq!(all["pending"][1]["expectation"], "welcome");
    let one = hj(
        &p,
        &[
            "pending-judgments",
            "--scenario",
            "login",
            "--run",
            &run,
            "--limit",
            "1",
        ],
    )
    .json();
    assert_eq!(
        (one["total"].as_u64(), one["leftOut"].as_u64()),
        (Some(2), Some(1))
    );
    let v = hj(
        &p,
        &[
            "record-verdict",
            &run,
            "--step",
            "2",
            "--verdict",
            "fail",
            "--reasoning",
            "No welcome message on the page.",
        ],
    )
    .json();
    assert_eq!(
        (v["runStatusBefore"].as_str(), v["runStatusAfter"].as_str()),
        (Some("pass"), Some("fail")),
        "{v}"
    );
    assert_eq!(v["judgeIdentity"], "agent:agent");
    assert_eq!(v["inputsHash"], all["pending"][1]["inputsHash"]);
    // An uncertain verdict passes under HARSHJUDGE_UNCERTAIN=pass.
    let o = Command::new(BIN)
        .env("HARSHJUDGE_DASHBOARD", "off")
        .env("HARSHJUDGE_UNCERTAIN", "pass")
        .args(["--cwd", p.to_str().unwrap(), "record-verdict", &run])
        .args([
            "--step",
            "02",
            "--verdict",
            "uncertain",
            "--judge",
            "ci-bot",
        ])
        .args(["--reasoning", "The screenshot is cut off."])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["runStatusAfter"], "pass", "{v}");
    assert_eq!(v["judgeIdentity"], "agent:ci-bot");
    let result: Value = serde_json::from_slice(
        &std::fs::read(
            p.join(".harshJudge/scenarios/login/runs")
                .join(&run)
                .join("result.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(result["steps"][1]["verdict"], "uncertain");
    assert_eq!(result["status"], "pass");
    assert_eq!(
        hj(&p, &["pending-judgments"]).json()["total"],
        1,
        "step 01 still waits"
    );
    let msg = hj(
        &p,
        &[
            "record-verdict",
            &run,
            "--step",
            "01",
            "--verdict",
            "maybe",
            "--reasoning",
            "x",
        ],
    )
    .error("INVALID_INPUT");
    assert!(msg.contains("verdict: unknown variant `maybe`"), "{msg}");
    let msg = hj(&p, &["pending-judgments", "--limit", "500"]).error("INVALID_INPUT");
    assert!(msg.contains("limit must be 1 to 100"), "{msg}");
}

/// A command's failure is an enum a caller matches on, carrying the value that
/// was wrong; what the binary prints is its JSON form, the same bytes as the
/// `{"error", "code"}` object it printed before; every command maps to a tool
/// or says why not (one total match).
#[test]
fn cli_errors_are_types_a_caller_matches() {
    use clap::Parser;
    use harshjudge_mcp::cli::{Cli, CliError, Command, to_call};
    use harshjudge_mcp::context::ContextError;

    let parse = |args: &[&str]| {
        Cli::try_parse_from(std::iter::once("harshjudge-mcp").chain(args.iter().copied()))
            .unwrap()
            .command
            .unwrap()
    };
    let e = to_call(&parse(&["export", "seq-1", "--var", "nope"])).unwrap_err();
    assert!(
        matches!(&e, CliError::Var { given } if given == "nope"),
        "{e:?}"
    );
    assert_eq!(
        e.to_json().to_string(),
        r#"{"error":"--var \"nope\" is not NAME=VALUE (e.g. --var password=secret)","code":"INVALID_INPUT"}"#
    );
    let e = to_call(&parse(&[
        "evidence",
        "r1",
        "--step",
        "1",
        "--type",
        "custom",
        "--name",
        "n",
        "--data",
        "d",
        "--metadata",
        "{",
    ]))
    .unwrap_err();
    assert!(
        matches!(
            &e,
            CliError::Json {
                flag: "--metadata",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(std::error::Error::source(&e).is_some());
    for cmd in [
        &["report"][..],
        &["merge", "a", "--into", "b"],
        &["dashboard", "serve"],
    ] {
        assert!(
            matches!(to_call(&parse(cmd)), Err(CliError::NotATool)),
            "{cmd:?}"
        );
    }
    assert!(matches!(to_call(&Command::Serve), Ok(None)));
    let (name, args) = to_call(&parse(&[
        "complete-step",
        "r1",
        "--step",
        "2",
        "--status",
        "pass",
        "--duration",
        "5",
    ]))
    .unwrap()
    .unwrap();
    assert_eq!(name, "completeStep");
    assert_eq!(
        args,
        json!({"runId": "r1", "stepId": "02", "status": "pass", "duration": 5.0})
    );

    let elsewhere = cli_tmpdir();
    let missing = elsewhere.path().join("no-such-project-folder");
    match harshjudge_mcp::Context::new(&missing) {
        Err(ContextError::Project { path, .. }) => assert_eq!(path, missing),
        other => panic!("{:?}", other.err()),
    }
    // The binary prints the same object for it.
    let out = run(
        elsewhere.path(),
        &["--cwd", missing.to_str().unwrap(), "status"],
    );
    let msg = out.error("INVALID_INPUT");
    assert!(
        msg.starts_with("project folder ") && msg.contains("--cwd"),
        "{msg}"
    );
}

/// `trace` prints the lines `getStepTrace` gives a model (its lean text), not
/// JSON; its failures are the `{"error", "code"}` of every command.
#[test]
fn trace_prints_the_tool_s_text() {
    use crate::trace_fixture::{self as fx, EXPECTED};
    let t = tempfile::tempdir().unwrap();
    let p = t.path().to_path_buf();
    fx::recorded(&harshjudge_store::store::Store::new(p.join(".harshJudge")));
    let ctx = harshjudge_mcp::Context::new(&p).unwrap();
    let out = harshjudge_mcp::call(
        &ctx,
        "getStepTrace",
        Some(json!({"scenarioSlug": "items", "step": 2})),
    );
    assert!(!out.is_error(), "{}", out.value);
    let tool = harshjudge_mcp::tools::lean::text(&ctx, "getStepTrace", &out.value).unwrap();
    assert_eq!(tool, EXPECTED);
    for args in [
        &["trace", "items", "--step", "2"][..],
        &["trace", "--run", "trace-run", "--step", "02"],
        &["trace", "items", "--run", "trace-run", "--step", "2"],
    ] {
        let o = hj(&p, args);
        assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
        assert_eq!(o.stdout, format!("{tool}\n"), "{args:?}");
    }
    let msg = hj(&p, &["trace", "items", "--step", "1"]).error("NOT_FOUND");
    assert!(msg.ends_with("it passed under retain-on-failure (only a failed step keeps its trace; HARSHJUDGE_TRACE=on keeps every step's)"), "{msg}");
    let msg = hj(&p, &["trace", "items", "--step", "9"]).error("NOT_FOUND");
    assert!(msg.contains("has no step 09"), "{msg}");
    hj(&p, &["trace", "--step", "2"]).error("INVALID_INPUT");
    hj(&p, &["trace", "items", "--step", "two"]).error("INVALID_INPUT");
}

#[test]
fn trace_action_prints_the_tool_s_aria_snapshot() {
    use crate::trace_fixture as fx;
    let t = tempfile::tempdir().unwrap();
    let p = t.path().to_path_buf();
    fx::recorded_with_dom(&harshjudge_store::store::Store::new(p.join(".harshJudge")));
    let ctx = harshjudge_mcp::Context::new(&p).unwrap();
    let tool = |args: Value| {
        let out = harshjudge_mcp::call(&ctx, "getStepTrace", Some(args));
        assert!(!out.is_error(), "{}", out.value);
        harshjudge_mcp::tools::lean::text(&ctx, "getStepTrace", &out.value).unwrap()
    };
    let after = tool(json!({"scenarioSlug": "items", "step": 2, "action": 3}));
    assert!(
        after.contains("\n- heading \"Saved\" [level=1]\n"),
        "{after}"
    );
    let o = hj(&p, &["trace", "items", "--step", "2", "--action", "3"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, format!("{after}\n"));
    let before = tool(json!({"runId": "trace-run", "step": 2, "action": 3, "moment": "before"}));
    assert!(before.contains("\n- button \"Save\"\n"), "{before}");
    let args = [
        "trace",
        "--run",
        "trace-run",
        "--step",
        "2",
        "--action",
        "3",
        "--moment",
        "before",
    ];
    let o = hj(&p, &args);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, format!("{before}\n"));
    let msg = hj(&p, &["trace", "items", "--step", "2", "--action", "7"]).error("NOT_FOUND");
    assert!(
        msg.ends_with("has no entry #7: its entries are #1 to #3"),
        "{msg}"
    );
    // --moment needs --action (clap refuses it).
    let o = hj(&p, &["trace", "items", "--step", "2", "--moment", "after"]);
    assert_ne!(o.code, 0);
    // A TMPDIR as long as macOS's (`/var/folders/…/T/`) and longer: the
    // browser that renders the snapshot still starts (Chromium's singleton
    // socket under it would pass a socket path's 107 bytes).
    let long = tempfile::tempdir().unwrap();
    let tmp = long
        .path()
        .join("a-temporary-folder-as-long-as-some-systems-give".repeat(2));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut all = vec!["--cwd", p.to_str().unwrap()];
    all.extend_from_slice(&["trace", "items", "--step", "2", "--action", "3"]);
    let o = run_in(Path::new("/"), &all, &tmp);
    assert_eq!(o.code, 0, "under TMPDIR {}: {}", tmp.display(), o.stderr);
    assert_eq!(o.stdout, format!("{after}\n"));
}
