//! Steps' traces in real Chromium (issue 39, stage 1): runs of
//! tests/fixtures/trace.rs under each trace mode, checked by the
//! `step-NN/evidence/trace.json` files they leave. The default
//! (`retain-on-failure`) writes only the failed steps' traces, with the
//! calls as written, their lines, the failure's kind and the console and
//! requests of each call; `off` none; `on` every executed step; the
//! attribute wins over the flag and the flag over the variable;
//! `on-first-retry` traces only the retry; a trace that cannot be written
//! leaves `trace-error.txt` and the step fails as it would without one.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use harshjudge::browser::trace::TraceFile;
use support::{Run, json, runs, test_binary};

const SUITE: &str = "trace_suite";
const FIXTURE: &str = "tests/fixtures/trace.rs";

/// Runs the suite binary with `args` and `envs`, its evidence in a folder of its own.
fn run(args: &[&str], envs: &[(&str, &str)]) -> (tempfile::TempDir, Run) {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(test_binary(SUITE));
    cmd.current_dir(support::workspace())
        .args(args)
        .env("HARSHJUDGE_DIR", tmp.path().join(".harshJudge"))
        .env("HARSHJUDGE_WAIT", "1s")
        .env_remove("HARSHJUDGE_TRACE")
        .env_remove("HARSHJUDGE_EVIDENCE")
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("HARSHJUDGE_RETRIES")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let r = Run::from(cmd.output().expect("the suite runs"));
    (tmp, r)
}

fn store_of(tmp: &tempfile::TempDir) -> PathBuf {
    tmp.path().join(".harshJudge")
}

/// The steps (`01`, …) of `run` that have a `trace.json`.
fn traced_steps(run: &Path) -> Vec<String> {
    let mut steps: Vec<String> = std::fs::read_dir(run)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            let step = name.strip_prefix("step-")?.to_string();
            run.join(&name)
                .join("evidence/trace.json")
                .is_file()
                .then_some(step)
        })
        .collect();
    steps.sort();
    steps
}

/// `trace.json` of step `step` of `run`, read as the readers read it.
fn trace(run: &Path, step: &str) -> TraceFile {
    let path = run.join(format!("step-{step}/evidence/trace.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    TraceFile::read(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The only run of `slug`.
fn only_run(hj: &Path, slug: &str) -> PathBuf {
    let mut all = runs(hj, slug);
    assert_eq!(all.len(), 1, "{slug}: {all:?}");
    all.pop().unwrap()
}

/// `file:line` of the fixture's line holding `text` inside `fn {function}`.
fn fixture_line(function: &str, text: &str) -> String {
    let source = std::fs::read_to_string(support::workspace().join(FIXTURE)).unwrap();
    let start = source
        .lines()
        .position(|l| l.contains(&format!("fn {function}(")))
        .expect("the scenario");
    let line = (source.lines().enumerate().skip(start))
        .find(|(_, l)| l.contains(text))
        .map(|(i, _)| i + 1)
        .unwrap_or_else(|| panic!("{text} in fn {function}"));
    format!("{FIXTURE}:{line}:")
}

#[test]
fn by_default_only_failed_steps_keep_their_trace_with_calls_lines_and_logs() {
    let (tmp, r) = run(&[], &[]);
    assert_eq!(r.code, 101, "failing and unwritable fail: {r:?}");
    let hj = store_of(&tmp);
    assert_eq!(
        traced_steps(&only_run(&hj, "passing")),
        Vec::<String>::new()
    );
    let failing = only_run(&hj, "failing");
    assert_eq!(traced_steps(&failing), ["02"], "only the failed step");

    let t = trace(&failing, "02");
    assert_eq!(
        (t.version, t.step.as_str(), t.attempt, t.mode.as_str()),
        (1, "02", 1, "retain-on-failure")
    );
    assert_eq!(t.pages.len(), 1);
    assert_eq!(
        (t.pages[0].browser.as_str(), t.pages[0].protocol.as_str()),
        ("chromium", "cdp")
    );
    let calls: Vec<&str> = t.entries.iter().map(|e| e.call.as_str()).collect();
    assert_eq!(
        calls,
        [
            "page.goto(\"/items\")",
            "page.get_by_label(\"Name\").fill(\"milk\")",
            "page.get_by_role(\"button\").name(\"Save\").click()",
        ]
    );
    let kinds: Vec<&str> = t.entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["navigation", "action", "action"]);
    for (e, text) in t.entries.iter().zip([
        "page.goto(\"/items\")",
        ".fill(\"milk\")",
        ".name(\"Save\").click()",
    ]) {
        let line = fixture_line("failing", text);
        assert!(
            e.at.starts_with(&line),
            "{} at {}, not {line}",
            e.call,
            e.at
        );
        assert!(
            t.started_at <= e.start && e.start <= e.end && e.end <= t.ended_at,
            "{e:?}"
        );
    }
    let oks: Vec<&str> = t
        .entries
        .iter()
        .map(|e| e.outcome.status.as_str())
        .collect();
    assert_eq!(oks, ["ok", "ok", "failed"]);
    let click = &t.entries[2].outcome;
    assert_eq!(click.kind.as_deref(), Some("timeout"), "{click:?}");
    // The failure as the step's error says it, and the call log with it.
    let result = json(failing.join("result.json"));
    let step_error = result["steps"][1]["error"].as_str().unwrap();
    let error = click.error.as_deref().unwrap();
    assert!(
        error.starts_with("timed out after") && step_error.contains(error.lines().next().unwrap()),
        "{error:?} vs {step_error:?}"
    );
    assert!(
        click
            .log
            .iter()
            .any(|l| l.contains("disabled") || l.contains("enabled")),
        "{:?}",
        click.log
    );
    // Typing logged an error and sent a request: both belong to the fill.
    let fill = &t.entries[1];
    assert!(
        fill.console.iter().any(|c| c.text.contains("typed milk")),
        "{:?} / between {:?}",
        fill.console,
        t.between
    );
    let typed = fill
        .network
        .iter()
        .find(|r| r.url.ends_with("/api/typed?v=milk"))
        .unwrap_or_else(|| panic!("{:?} / between {:?}", fill.network, t.between));
    assert!(
        typed
            .started_at
            .is_some_and(|s| fill.start.floor() <= s && s <= fill.end)
    );
    // The goto's own document request is the goto's.
    assert!(
        t.entries[0]
            .network
            .iter()
            .any(|r| r.url.ends_with("/items")),
        "{:?}",
        t.entries[0].network
    );
    // Listed with the step's evidence.
    let files = result["steps"][1]["evidenceFiles"].to_string();
    assert!(files.contains("trace.json"), "{files}");

    // The attribute: every step of `traced`, though the run's mode keeps failures only.
    let traced = only_run(&hj, "traced");
    assert_eq!(traced_steps(&traced), ["01", "02"]);
    let count = &trace(&traced, "02").entries;
    assert_eq!(count.len(), 1);
    assert_eq!(count[0].call, "page.get_by_role(\"heading\").count()");
    assert_eq!(count[0].kind, "read");
    assert_eq!(trace(&traced, "01").mode, "on");

    // A failed first attempt keeps its failed step's trace; the passing retry none.
    let flaky = runs(&hj, "flaky");
    assert_eq!(flaky.len(), 2, "{flaky:?}");
    assert_eq!(traced_steps(&flaky[0]), ["02"]);
    let assertion = &trace(&flaky[0], "02").entries[0];
    assert_eq!(
        assertion.call,
        "expect(page.get_by_role(\"heading\")).to_have_text(\"Shopping list\")"
    );
    assert_eq!(
        (assertion.kind.as_str(), assertion.outcome.status.as_str()),
        ("assertion", "ok")
    );
    assert_eq!(traced_steps(&flaky[1]), Vec::<String>::new());

    // A trace that cannot be written: said in the step's evidence, the step's
    // failure its own.
    let unwritable = only_run(&hj, "unwritable");
    let evidence = unwritable.join("step-01/evidence");
    let said = std::fs::read_to_string(evidence.join("trace-error.txt")).unwrap();
    assert!(
        said.starts_with("this step's trace was not written: ")
            && said.contains("the step's outcome is its own"),
        "{said}"
    );
    let result = json(unwritable.join("result.json"));
    assert_eq!(result["steps"][0]["status"], "fail");
    let error = result["steps"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("timed out after") && error.contains("name(\"Save\")"),
        "{error}"
    );
    assert!(
        r.stderr.contains("the trace of step 01 was not written"),
        "{}",
        r.stderr
    );
}

#[test]
fn off_writes_none_but_the_attribute_and_the_flag_win_over_the_variable() {
    let (tmp, r) = run(&[], &[("HARSHJUDGE_TRACE", "off")]);
    assert_eq!(r.code, 101, "{r:?}");
    let hj = store_of(&tmp);
    for slug in ["passing", "failing", "unwritable"] {
        for run in runs(&hj, slug) {
            assert_eq!(traced_steps(&run), Vec::<String>::new(), "{slug}");
        }
    }
    let unwritable = only_run(&hj, "unwritable");
    assert!(!unwritable.join("step-01/evidence/trace-error.txt").exists());
    assert_eq!(traced_steps(&only_run(&hj, "traced")), ["01", "02"]);

    // `--trace on` over `HARSHJUDGE_TRACE=off`: every executed step.
    let (tmp, r) = run(
        &["--trace", "on", "passing", "failing"],
        &[("HARSHJUDGE_TRACE", "off")],
    );
    assert_eq!(r.code, 101, "{r:?}");
    let hj = store_of(&tmp);
    assert_eq!(traced_steps(&only_run(&hj, "passing")), ["01", "02"]);
    let failing = only_run(&hj, "failing");
    assert_eq!(traced_steps(&failing), ["01", "02"], "step 03 never ran");
    let t = trace(&failing, "01");
    assert_eq!(t.mode, "on");
    let calls: Vec<&str> = t.entries.iter().map(|e| e.call.as_str()).collect();
    assert_eq!(
        calls,
        [
            "page.goto(\"/home\")",
            "expect(page.get_by_role(\"heading\")).to_have_text(\"Shopping list\")"
        ]
    );
}

#[test]
fn on_first_retry_traces_only_the_second_attempt() {
    let (tmp, r) = run(
        &["flaky", "failing"],
        &[("HARSHJUDGE_TRACE", "on-first-retry")],
    );
    assert_eq!(r.code, 101, "{r:?}");
    let hj = store_of(&tmp);
    let flaky = runs(&hj, "flaky");
    assert_eq!(flaky.len(), 2, "{flaky:?}");
    assert_eq!(traced_steps(&flaky[0]), Vec::<String>::new(), "attempt 1");
    assert_eq!(traced_steps(&flaky[1]), ["01", "02"], "attempt 2");
    let t = trace(&flaky[1], "02");
    assert_eq!((t.attempt, t.mode.as_str()), (2, "on-first-retry"));
    // No retry, no trace.
    assert_eq!(
        traced_steps(&only_run(&hj, "failing")),
        Vec::<String>::new()
    );
}

#[test]
fn a_bad_trace_mode_stops_the_run_naming_the_four() {
    for (args, envs, named) in [
        (
            &["--trace", "sometimes"][..],
            &[][..],
            "--trace \"sometimes\" is invalid",
        ),
        (
            &[][..],
            &[("HARSHJUDGE_TRACE", "always")][..],
            "HARSHJUDGE_TRACE=\"always\"",
        ),
    ] {
        let (_tmp, r) = run(args, envs);
        assert_eq!(r.code, 2, "{r:?}");
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(
            all.contains(named) && all.contains("off, on, retain-on-failure or on-first-retry"),
            "{all}"
        );
    }
}

/// The passwords and the secret `inputs` types (tests/fixtures/trace.rs).
const PASSWORDS: [&str; 5] = [
    "filled-pw-4821",
    "typed-pw-9930",
    "keyboard-pw-1177",
    "inserted-pw-6402",
    "pin-pw-3056",
];
const SECRET: &str = "token-secret-7713";

#[test]
fn the_pages_keyboard_mouse_and_scripts_are_entries_at_their_lines() {
    let (tmp, r) = run(&["inputs"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let inputs = only_run(&store_of(&tmp), "inputs");
    assert_eq!(traced_steps(&inputs), ["01", "02"]);

    // The page's own calls, as written, at their lines.
    let t = trace(&inputs, "01");
    let calls: Vec<&str> = t.entries.iter().map(|e| e.call.as_str()).collect();
    assert_eq!(
        calls,
        [
            "page.goto(\"/login\")",
            "page.get_by_label(\"User\").focus()",
            "page.keyboard().type_text(\"ann\")",
            "page.keyboard().press(\"Enter\")",
            "page.mouse().click(5.0, 5.0)",
            "page.mouse().wheel(0.0, 10.0)",
            "page.evaluate(\"document.title\", ())",
            "page.eval(\"return 1\")",
            "page.wait_for_function(\"(n) => n > 1\", 2)",
        ]
    );
    let kinds: Vec<&str> = t.entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "navigation",
            "action",
            "input",
            "input",
            "input",
            "input",
            "script",
            "script",
            "script"
        ]
    );
    for (e, text) in t.entries.iter().zip([
        "page.goto(\"/login\")",
        ".focus()",
        ".type_text(\"ann\")",
        ".press(\"Enter\")",
        ".click(5.0, 5.0)",
        ".wheel(0.0, 10.0)",
        ".evaluate(\"document.title\"",
        ".eval(\"return 1\")",
        ".wait_for_function(",
    ]) {
        let line = fixture_line("inputs", text);
        assert!(
            e.at.starts_with(&line),
            "{} at {}, not {line}",
            e.call,
            e.at
        );
        assert_eq!(e.outcome.status, "ok", "{e:?}");
    }
}

#[test]
fn passwords_and_secrets_never_reach_the_trace() {
    let (tmp, r) = run(&["inputs"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let inputs = only_run(&store_of(&tmp), "inputs");
    // The text typed into a password field (by `fill`, `press_sequentially`,
    // the keyboard, whatever its `type`'s case) is written "••••"; a
    // declared secret as every evidence file masks it.
    let path = inputs.join("step-02/evidence/trace.json");
    let text = std::fs::read_to_string(&path).unwrap();
    for secret in PASSWORDS.iter().chain([&SECRET]) {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let t = trace(&inputs, "02");
    let calls: Vec<&str> = t.entries.iter().map(|e| e.call.as_str()).collect();
    assert_eq!(
        calls,
        [
            "page.get_by_label(\"Password\").fill(\"••••\")",
            "page.get_by_label(\"Password\").press_sequentially(\"••••\")",
            "page.keyboard().type_text(\"••••\")",
            "page.keyboard().insert_text(\"••••\")",
            "page.get_by_label(\"PIN\").fill(\"••••\")",
            "page.get_by_label(\"User\").fill(\"[secret:TRACE_TOKEN]\")",
            "page.get_by_label(\"User\").fill(\"ann\")",
        ]
    );
}
