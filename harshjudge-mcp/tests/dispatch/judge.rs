//! An agent as judge, in process through the dispatcher the MCP server and the
//! CLI use: `getPendingJudgments` lists exactly the steps that wait for a
//! verdict, `recordVerdict` records one and the run's status and statistics
//! follow; bad input is refused with a message naming the field.

use std::path::{Path, PathBuf};

use harshjudge_mcp::{Code, Context, call};
use harshjudge_store::recorder::{Completion, RunHandle, StepRecord};
use harshjudge_store::store::{
    EvidenceName, NewEvidence, RunId, ScenarioSpec, Slug, StepDoc, StepId, StepResult, StepStatus,
    Store,
};
use serde_json::{Value, json};

struct Project {
    _dir: tempfile::TempDir,
    ctx: Context,
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

/// Evidence of a step: (name, extension, content).
type Evidence<'a> = &'a [(&'a str, &'a str, &'a [u8])];
/// A step of a code run: (title, code status, expectation, evidence).
type CodeStep<'a> = (&'a str, StepStatus, Option<&'a str>, Evidence<'a>);

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Context::new(dir.path()).unwrap();
        let p = Project { _dir: dir, ctx };
        p.ok(
            "initProject",
            json!({"projectName": "Judged", "baseUrl": "http://127.0.0.1:9"}),
        );
        p
    }
    fn store(&self) -> &Store {
        self.ctx.store()
    }
    fn hj(&self) -> PathBuf {
        self.ctx.root().join(".harshJudge")
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
        (code, out.value["error"].as_str().unwrap().to_string())
    }
    fn run_dir(&self, slug: &str, run: &str) -> PathBuf {
        self.hj()
            .join("scenarios")
            .join(slug)
            .join("runs")
            .join(run)
    }
    fn result(&self, slug: &str, run: &str) -> Value {
        serde_json::from_slice(&std::fs::read(self.run_dir(slug, run).join("result.json")).unwrap())
            .unwrap()
    }
    fn meta(&self, slug: &str) -> (u64, u64, String) {
        let m = self
            .store()
            .scenario(&Slug::new(slug).unwrap())
            .meta()
            .unwrap()
            .unwrap();
        (
            m.pass_count,
            m.fail_count,
            m.last_result.unwrap_or_default(),
        )
    }

    /// A run as `cargo test` records it: a scenario defined in Rust (its step
    /// files carry the code), steps with `expectation` in result.json.
    /// `steps`: (title, code status, expectation, evidence).
    fn code_run(&self, slug: &str, steps: &[CodeStep<'_>]) -> String {
        let store = self.store();
        let slug = Slug::new(slug).unwrap();
        let titles: Vec<String> = steps.iter().map(|s| s.0.to_string()).collect();
        let docs: Vec<StepDoc> = steps
            .iter()
            .map(|_| StepDoc {
                description: "Defined in Rust".into(),
                preconditions: String::new(),
                actions: "Runs the step's code:".into(),
                code: Some(("rust".into(), "page.goto(\"/\").await?;".into())),
                expected_outcome: "The step's code completes without an error or a panic.".into(),
            })
            .collect();
        let spec = ScenarioSpec {
            title: slug.to_string(),
            steps: titles.clone(),
            tags: None,
            starred: None,
            estimated_duration: None,
        };
        store.scenario(&slug).upsert(&spec, &docs).unwrap();
        let mut run = RunHandle::start(store, &slug, titles).unwrap();
        let mut results = vec![];
        for (i, (title, status, expectation, evidence)) in steps.iter().enumerate() {
            let id = StepId::from_index(i + 1).unwrap();
            run.begin_step(&id).unwrap();
            for (name, ext, bytes) in evidence.iter() {
                run.record_evidence(
                    &id,
                    NewEvidence {
                        name: &EvidenceName::new(*name).unwrap(),
                        ext,
                        kind: if *ext == "png" {
                            "screenshot"
                        } else {
                            "custom"
                        },
                        bytes,
                    },
                    Default::default(),
                )
                .unwrap();
            }
            let error = (*status == StepStatus::Fail).then(|| "the code broke".to_string());
            run.complete_step(StepRecord {
                id: id.clone(),
                status: *status,
                duration_ms: 5,
                error: error.clone(),
                location: None,
                summary: None,
            })
            .unwrap();
            results.push(StepResult {
                id: id.to_string(),
                status: *status,
                duration: 5,
                error,
                evidence_files: vec![],
                summary: None,
                title: Some(title.to_string()),
                error_location: None,
                expectation: expectation.map(str::to_string),
                executed_status: None,
                verdict: None,
            });
        }
        run.complete_with(Completion {
            steps: Some(results),
            ..Completion::default()
        })
        .unwrap();
        let id = run.id().clone();
        // What the harness does when no judge is configured: mark them pending.
        store
            .scenario(&slug)
            .run(&id)
            .apply_judgment(|r, j| harshjudge_store::judge::combine_verdicts(r, j, false))
            .unwrap();
        id.to_string()
    }

    /// A run recorded through MCP, of a scenario created with createScenario.
    fn mcp_run(&self, statuses: &[&str]) -> String {
        self.ok("createScenario", json!({
            "slug": "login", "title": "Login",
            "steps": [
                {"title": "Open the login page", "actions": "goto /login", "expectedOutcome": "A sign-in form with email and password fields"},
                {"title": "Sign in", "actions": "submit", "expectedOutcome": "The dashboard greets the user by name"},
                {"title": "Sign out", "actions": "click sign out", "expectedOutcome": "The login page again"}
            ]
        }));
        let run = self.ok("startRun", json!({"scenarioSlug": "login"}))["runId"]
            .as_str()
            .unwrap()
            .to_string();
        use base64::Engine;
        for (i, status) in statuses.iter().enumerate() {
            let step = format!("{:02}", i + 1);
            self.ok(
                "recordEvidence",
                json!({"runId": run, "stepId": step, "type": "screenshot", "name": "after",
                "data": base64::engine::general_purpose::STANDARD.encode(PNG)}),
            );
            self.ok("recordEvidence", json!({"runId": run, "stepId": step, "type": "console_log", "name": "console", "data": format!("step {step}")}));
            self.ok(
                "completeStep",
                json!({"runId": run, "stepId": step, "status": status, "duration": 10}),
            );
        }
        self.ok("completeRun", json!({"runId": run}));
        run
    }
}

fn sha256_of(path: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_string()
}

fn keys(pending: &Value) -> Vec<String> {
    pending["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}/{}",
                p["scenarioSlug"].as_str().unwrap(),
                p["stepId"].as_str().unwrap()
            )
        })
        .collect()
}

const RECEIPT: &str = "a receipt with the total is shown and no error is visible";

#[test]
fn pending_lists_exactly_the_steps_with_an_expectation_and_no_verdict() {
    let p = Project::new();
    let ev: &[(&str, &str, &[u8])] = &[
        ("after", "png", PNG),
        ("page-text", "txt", b"Receipt #1001"),
    ];
    let code = p.code_run(
        "checkout",
        &[
            ("Open the cart", StepStatus::Pass, None, &[]),
            ("Pay", StepStatus::Pass, Some(RECEIPT), ev),
            ("Print", StepStatus::Fail, Some("a printout"), &[]),
            ("Leave", StepStatus::Skipped, Some("the home page"), &[]),
        ],
    );
    let judged = p.code_run("judged", &[("Pay", StepStatus::Pass, Some(RECEIPT), &[])]);
    p.ok(
        "recordVerdict",
        json!({"runId": judged, "stepId": "01", "verdict": "pass", "reasoning": "seen"}),
    );
    let mcp = p.mcp_run(&["pass", "fail"]);

    let all = p.ok("getPendingJudgments", json!({}));
    // Newest run first; no step without expectation, no skipped step, no judged step.
    assert_eq!(
        keys(&all),
        ["login/01", "login/02", "checkout/02", "checkout/03"],
        "{all:#}"
    );
    assert_eq!(
        (all["total"].as_u64(), all["leftOut"].as_u64()),
        (Some(4), Some(0))
    );
    assert_eq!(all["judgeIdentity"], "agent:agent");
    let login1 = &all["pending"][0];
    assert_eq!(login1["runId"], mcp.as_str());
    assert_eq!(
        login1["expectation"],
        "A sign-in form with email and password fields"
    );
    assert_eq!(login1["expectationSource"], "stepFile");
    assert_eq!(login1["title"], "Open the login page");
    assert_eq!(
        all["pending"][1]["code"],
        json!({"status": "fail", "error": null})
    );
    let pay = &all["pending"][2];
    assert_eq!(pay["runId"], code.as_str());
    assert_eq!(pay["expectation"], RECEIPT);
    assert_eq!(pay["expectationSource"], "code");
    assert_eq!(pay["verdict"], "pending");
    assert_eq!(pay["code"]["status"], "pass");
    assert!(pay["inputsHash"].as_str().unwrap().starts_with("sha256:"));
    let evidence = pay["evidence"].as_array().unwrap();
    assert_eq!(evidence.len(), 2, "{pay:#}");
    for e in evidence {
        let path = Path::new(e["path"].as_str().unwrap());
        assert!(path.is_absolute() && path.starts_with(p.hj()), "{e}");
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(e["bytes"].as_u64(), Some(bytes.len() as u64));
        assert_eq!(e["sha256"].as_str().unwrap(), sha256_of(path));
    }
    assert_eq!(evidence[0]["name"], "after.png");
    assert_eq!(evidence[0]["kind"], "image");
    assert_eq!(evidence[1]["kind"], "text");
    assert_eq!(all["pending"][3]["code"]["error"], "the code broke");

    // Bounded: the rest is counted and said.
    let one = p.ok("getPendingJudgments", json!({"limit": 1}));
    assert_eq!(keys(&one), ["login/01"]);
    assert_eq!(
        (one["total"].as_u64(), one["leftOut"].as_u64()),
        (Some(4), Some(3))
    );
    assert!(
        one["note"].as_str().unwrap().contains("3 more steps"),
        "{one}"
    );
    // Filters.
    assert_eq!(
        keys(&p.ok("getPendingJudgments", json!({"scenarioSlug": "checkout"}))),
        ["checkout/02", "checkout/03"]
    );
    assert_eq!(
        keys(&p.ok("getPendingJudgments", json!({"runId": mcp}))),
        ["login/01", "login/02"]
    );

    // The verdict is recorded against the hash getPendingJudgments announced,
    // and the step is no longer pending.
    let rec = p.ok("recordVerdict", json!({"runId": code, "stepId": "02", "verdict": "pass", "reasoning": "Receipt #1001 is shown"}));
    assert_eq!(rec["inputsHash"], pay["inputsHash"]);
    assert_eq!(
        keys(&p.ok("getPendingJudgments", json!({}))),
        ["login/01", "login/02", "checkout/03"]
    );
    // A judge that gave no verdict leaves the step pending, as `error`.
    let store = p.store();
    let (slug, run) = (
        Slug::new("checkout").unwrap(),
        RunId::new(code.clone()).unwrap(),
    );
    let mut j = store
        .scenario(&slug)
        .run(&run)
        .judgment()
        .unwrap()
        .unwrap()
        .steps[0]
        .clone();
    j.step_id = "03".into();
    j.verdict = None;
    j.error = Some("the judge gave no answer within 120s".into());
    store
        .scenario(&slug)
        .run(&run)
        .record_judgment(j, None, None)
        .unwrap();
    let again = p.ok("getPendingJudgments", json!({"scenarioSlug": "checkout"}));
    assert_eq!(again["pending"][0]["verdict"], "error");
    assert!(
        again["pending"][0]["judgeError"]
            .as_str()
            .unwrap()
            .contains("no answer")
    );
}

#[test]
fn record_verdict_flips_a_passing_run_to_fail_and_back() {
    let p = Project::new();
    let run = p.code_run(
        "checkout",
        &[
            ("Open the cart", StepStatus::Pass, None, &[]),
            (
                "Pay",
                StepStatus::Pass,
                Some(RECEIPT),
                &[("page-text", "txt", b"The card was declined.")],
            ),
        ],
    );
    assert_eq!(p.meta("checkout"), (1, 0, "pass".into()));
    let rec = p.ok(
        "recordVerdict",
        json!({"runId": run, "stepId": "02", "verdict": "fail",
        "reasoning": "The page says the card was declined; no receipt.", "judge": "tester"}),
    );
    assert_eq!(rec["runStatusBefore"], "pass");
    assert_eq!(rec["runStatusAfter"], "fail");
    assert_eq!(rec["stepStatus"], "fail");
    assert_eq!(rec["executedStatus"], "pass");
    assert_eq!(rec["applied"], true);
    assert_eq!(rec["judgeIdentity"], "agent:tester");
    assert_eq!(
        (rec["passCount"].as_u64(), rec["failCount"].as_u64()),
        (Some(0), Some(1))
    );
    let result = p.result("checkout", &run);
    assert_eq!(result["status"], "fail");
    assert_eq!(result["executedStatus"], "pass");
    assert_eq!(result["failedStep"], "02");
    let step = &result["steps"][1];
    assert_eq!(
        (
            step["status"].as_str(),
            step["executedStatus"].as_str(),
            step["verdict"].as_str()
        ),
        (Some("fail"), Some("pass"), Some("fail"))
    );
    assert!(
        step["error"]
            .as_str()
            .unwrap()
            .contains("card was declined"),
        "{step}"
    );
    assert_eq!(p.meta("checkout"), (0, 1, "fail".into()));
    let judgment: Value = serde_json::from_slice(
        &std::fs::read(p.run_dir("checkout", &run).join("judge/result.json")).unwrap(),
    )
    .unwrap();
    let j = &judgment["steps"][0];
    assert_eq!(
        (
            j["judge"].as_str(),
            j["identity"].as_str(),
            j["verdict"].as_str()
        ),
        (Some("agent"), Some("agent:tester"), Some("fail"))
    );
    assert_eq!(j["expectation"], RECEIPT);
    assert_eq!(j["inputsHash"], rec["inputsHash"]);

    // Judged again as passing: the run passes again, counted once.
    let back = p.ok("recordVerdict", json!({"runId": run, "stepId": "02", "verdict": "pass", "reasoning": "On a second look the receipt is there."}));
    assert_eq!(
        (
            back["runStatusBefore"].as_str(),
            back["runStatusAfter"].as_str()
        ),
        (Some("fail"), Some("pass"))
    );
    assert_eq!(p.result("checkout", &run)["status"], "pass");
    assert_eq!(p.result("checkout", &run)["steps"][1]["error"], Value::Null);
    assert_eq!(p.meta("checkout"), (1, 0, "pass".into()));
    // Uncertain fails (HARSHJUDGE_UNCERTAIN unset).
    let unsure = p.ok("recordVerdict", json!({"runId": run, "stepId": "02", "verdict": "uncertain", "reasoning": "The screenshot is blank."}));
    assert_eq!(unsure["runStatusAfter"], "fail");
    assert_eq!(p.meta("checkout"), (0, 1, "fail".into()));
    // The recount from the results agrees with the adjusted counts.
    let stats = p
        .store()
        .scenario(&Slug::new("checkout").unwrap())
        .recount_stats()
        .unwrap();
    assert_eq!((stats.pass_count, stats.fail_count), (0, 1));
}

#[test]
fn a_verdict_on_a_run_recorded_through_mcp_counts_against_the_expected_outcome() {
    let p = Project::new();
    let run = p.mcp_run(&["pass", "pass", "pass"]);
    assert_eq!(p.meta("login"), (1, 0, "pass".into()));
    let rec = p.ok(
        "recordVerdict",
        json!({"runId": run, "stepId": "02", "verdict": "fail",
        "reasoning": "The dashboard shows no name."}),
    );
    assert_eq!(rec["expectation"], "The dashboard greets the user by name");
    assert_eq!(rec["runStatusAfter"], "fail");
    let result = p.result("login", &run);
    assert_eq!(result["status"], "fail");
    assert_eq!(
        result["steps"][1]["expectation"],
        "The dashboard greets the user by name"
    );
    assert_eq!(result["steps"][1]["verdict"], "fail");
    assert_eq!(p.meta("login"), (0, 1, "fail".into()));
    // getRunState shows it.
    let state = p.ok("getRunState", json!({"runId": run}));
    assert!(
        state.to_string().contains("The dashboard shows no name"),
        "{state}"
    );
}

#[test]
fn bad_ids_verdicts_and_steps_are_refused_naming_the_field() {
    let p = Project::new();
    let run = p.code_run(
        "checkout",
        &[
            ("Open the cart", StepStatus::Pass, None, &[]),
            ("Pay", StepStatus::Pass, Some(RECEIPT), &[]),
            ("Leave", StepStatus::Skipped, Some("the home page"), &[]),
        ],
    );
    let v = |extra: Value| {
        let mut a = json!({"runId": run, "stepId": "02", "verdict": "pass", "reasoning": "seen"});
        for (k, x) in extra.as_object().unwrap() {
            a[k] = x.clone();
        }
        a
    };
    let cases: Vec<(Value, Code, &str)> = vec![
        (
            v(json!({"runId": "a/b"})),
            Code::InvalidInput,
            "runId \"a/b\" is not a valid run id",
        ),
        (
            v(json!({"stepId": "2"})),
            Code::InvalidInput,
            "stepId \"2\" is not a step id",
        ),
        (
            v(json!({"verdict": "maybe"})),
            Code::InvalidInput,
            "verdict: unknown variant `maybe`, expected one of `pass`, `fail`, `uncertain`",
        ),
        (
            v(json!({"reasoning": "  "})),
            Code::InvalidInput,
            "reasoning must not be empty",
        ),
        (
            v(json!({"reasoning": "x".repeat(9000)})),
            Code::InvalidInput,
            "reasoning is 9000 bytes, over the 8192 allowed",
        ),
        (
            v(json!({"judge": ""})),
            Code::InvalidInput,
            "judge must not be empty",
        ),
        (
            v(json!({"runId": "nope"})),
            Code::NotFound,
            "Run \"nope\" does not exist",
        ),
        (
            v(json!({"stepId": "09"})),
            Code::InvalidInput,
            "stepId \"09\" is not a step of run",
        ),
        (
            v(json!({"stepId": "03"})),
            Code::InvalidInput,
            "was skipped",
        ),
        (
            v(json!({"stepId": "01"})),
            Code::InvalidInput,
            "has no expectation to judge against",
        ),
    ];
    for (args, code, msg) in cases {
        let (c, e) = p.err("recordVerdict", args.clone());
        assert_eq!(c, code, "{args}: {e}");
        assert!(e.contains(msg), "{args}: {e}");
    }
    let (c, e) = p.err(
        "recordVerdict",
        json!({"runId": run, "stepId": "02", "verdict": "pass"}),
    );
    assert_eq!(c, Code::InvalidInput);
    assert!(e.contains("missing field `reasoning`"), "{e}");
    for (args, msg) in [
        (json!({"limit": 0}), "limit must be 1 to 100 (got 0)"),
        (json!({"limit": 101}), "limit must be 1 to 100 (got 101)"),
        (
            json!({"runId": "../x"}),
            "runId \"../x\" is not a valid run id",
        ),
        (
            json!({"scenarioSlug": "Bad"}),
            "scenarioSlug \"Bad\" is not a valid scenario slug",
        ),
        (
            json!({"runId": run, "scenarioSlug": "other"}),
            "is a run of scenario \"checkout\", not of scenarioSlug \"other\"",
        ),
    ] {
        let (c, e) = p.err("getPendingJudgments", args.clone());
        assert_eq!(c, Code::InvalidInput, "{args}: {e}");
        assert!(e.contains(msg), "{args}: {e}");
    }
    assert_eq!(
        p.err("getPendingJudgments", json!({"scenarioSlug": "ghost"}))
            .0,
        Code::NotFound
    );
    // Nothing was recorded by the refused calls.
    assert!(!p.run_dir("checkout", &run).join("judge").exists());
    assert_eq!(p.meta("checkout"), (1, 0, "pass".into()));
    // A judgment record that cannot be read is said, not overwritten.
    let judge_dir = p.run_dir("checkout", &run).join("judge");
    std::fs::create_dir_all(&judge_dir).unwrap();
    std::fs::write(judge_dir.join("result.json"), "{").unwrap();
    let out = p.ok("getPendingJudgments", json!({}));
    assert_eq!(out["pending"], json!([]), "{out}");
    assert!(
        out["unreadable"][0]["error"]
            .as_str()
            .unwrap()
            .contains("not a judgment record"),
        "{out}"
    );
    let (c, e) = p.err(
        "recordVerdict",
        json!({"runId": run, "stepId": "02", "verdict": "pass", "reasoning": "seen"}),
    );
    assert_eq!(c, Code::Corrupt, "{e}");
    assert_eq!(
        std::fs::read_to_string(judge_dir.join("result.json")).unwrap(),
        "{"
    );
}

#[cfg(unix)]
#[test]
fn a_linked_evidence_file_pointing_outside_is_never_read() {
    let p = Project::new();
    let run = p.code_run(
        "checkout",
        &[(
            "Pay",
            StepStatus::Pass,
            Some(RECEIPT),
            &[("page-text", "txt", b"Receipt")],
        )],
    );
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "top secret").unwrap();
    let file = p
        .run_dir("checkout", &run)
        .join("step-01/evidence/page-text.txt");
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&secret, &file).unwrap();

    let out = p.ok("getPendingJudgments", json!({}));
    assert_eq!(out["pending"].as_array().unwrap().len(), 0, "{out:#}");
    assert_eq!(out["total"], 1);
    let u = &out["unreadable"][0];
    assert_eq!(
        (u["runId"].as_str(), u["stepId"].as_str()),
        (Some(run.as_str()), Some("01"))
    );
    assert!(
        u["error"].as_str().unwrap().contains("symbolic link"),
        "{u}"
    );
    let secret_sha = sha256_of(&secret);
    assert!(
        !out.to_string().contains(&secret_sha),
        "the outside file was hashed: {out}"
    );

    let (c, e) = p.err(
        "recordVerdict",
        json!({"runId": run, "stepId": "01", "verdict": "pass", "reasoning": "seen"}),
    );
    assert_eq!(c, Code::AccessDenied, "{e}");
    assert!(e.contains("symbolic link"), "{e}");
    assert!(
        !p.run_dir("checkout", &run)
            .join("judge/result.json")
            .exists()
    );
}

/// A verdict on a running run is recorded at once and folded into the run's
/// status when it completes (RunHandle::complete_with combines the recorded
/// judgments: helper A1's part of issue 15).
#[test]
fn a_verdict_on_a_running_run_counts_when_it_completes() {
    let p = Project::new();
    p.mcp_run(&["pass", "pass", "pass"]);
    let run = p.ok("startRun", json!({"scenarioSlug": "login"}))["runId"]
        .as_str()
        .unwrap()
        .to_string();
    p.ok(
        "completeStep",
        json!({"runId": run, "stepId": "01", "status": "pass", "duration": 3}),
    );
    let rec = p.ok("recordVerdict", json!({"runId": run, "stepId": "01", "verdict": "fail", "reasoning": "No form is visible."}));
    assert_eq!(rec["applied"], false);
    assert_eq!(
        (
            rec["runStatusBefore"].as_str(),
            rec["runStatusAfter"].as_str()
        ),
        (Some("running"), Some("running"))
    );
    assert!(
        rec["note"].as_str().unwrap().contains("completeRun"),
        "{rec}"
    );
    // Not listed: the run is not final yet.
    assert_eq!(
        p.ok("getPendingJudgments", json!({"runId": run}))["total"],
        0
    );
    p.ok(
        "completeStep",
        json!({"runId": run, "stepId": "02", "status": "pass", "duration": 3}),
    );
    p.ok(
        "completeStep",
        json!({"runId": run, "stepId": "03", "status": "pass", "duration": 3}),
    );
    let done = p.ok("completeRun", json!({"runId": run}));
    assert_eq!(done["status"], "fail", "{done}");
    assert_eq!(p.result("login", &run)["steps"][0]["verdict"], "fail");
    assert_eq!(p.meta("login"), (1, 1, "fail".into()));
}
