//! Judging during `cargo test` runs of tests/fixtures/judged.rs (the
//! `judged_suite` target): real judge scripts (`HARSHJUDGE_JUDGE_CMD`) and a
//! local chat-completions server (`HARSHJUDGE_JUDGE_URL`; it speaks the wire
//! format, it is not a model). Each run's exit code, libtest trial lines,
//! `result.json`, `judge/`, `meta.yaml` and summary lines are checked.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, UNIX_EPOCH};

use serde_json::Value;
use support::{Run, json, runs, test_binary, yaml};

const SUITE: &str = "judged_suite";
const PAY: &str = "checkout::02_pay_with_the_saved_card";
const NOTE: &str = "notes::01_write_the_note";

/// A judge that reads the evidence: it logs what it was given (one JSON file
/// per call, with the time it started and ended), checks that screenshots are
/// PNG files, and decides from the text evidence, or as `JUDGE_MODE` says.
const JUDGE_PY: &str = r#"
import json, os, sys, time
start = time.time()
doc = json.load(sys.stdin)
mode = os.environ.get("JUDGE_MODE", "see")
log = os.environ["JUDGE_LOG"]
seen = {}
for e in doc["evidence"]:
    p = e["path"]
    info = {"kind": e["kind"], "exists": os.path.isfile(p)}
    if e["kind"] == "image" and info["exists"]:
        with open(p, "rb") as f:
            info["png"] = f.read(8) == b"\x89PNG\r\n\x1a\n"
    if e["kind"] == "text" and info["exists"]:
        with open(p) as f:
            info["text"] = f.read()
    seen[e["name"]] = info
if mode == "slow-notes" and doc["scenario"] == "notes":
    # Held until the checkout's judge is called (or 20 s).
    release = os.path.join(log, "release")
    for _ in range(200):
        if os.path.exists(release):
            break
        time.sleep(0.1)
if mode == "slow-notes" and doc["scenario"] == "checkout":
    open(os.path.join(log, "release"), "w").close()
if mode == "sleep":
    time.sleep(30)
def record():
    name = "%s-%s-%d.json" % (doc["scenario"], doc["stepId"], time.time_ns())
    with open(os.path.join(log, name), "w") as f:
        json.dump({"input": doc, "seen": seen, "start": start, "end": time.time()}, f)
record()
if mode == "crash":
    sys.stderr.write("judge blew up on purpose\n")
    sys.exit(3)
if mode == "malformed":
    print("I think it looks fine")
    sys.exit(0)
if mode in ("pass", "fail", "uncertain"):
    print(json.dumps({"verdict": mode, "reasoning": "told to say " + mode}))
    sys.exit(0)
text = " ".join(v.get("text", "") for v in seen.values())
if doc["scenario"] == "checkout":
    ok = "Receipt" in text and "declined" not in text
    why = "the page text shows a receipt with Total: 42.00 EUR" if ok else "the page says: The card was declined."
else:
    ok = "all good" in text
    why = "the note says %r" % text.strip()
print(json.dumps({"verdict": "pass" if ok else "fail", "reasoning": why}))
"#;

struct Project {
    _tmp: tempfile::TempDir,
    hj: PathBuf,
    log: PathBuf,
    judge: String,
}

fn project() -> Project {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let log = tmp.path().join("judge-log");
    std::fs::create_dir_all(&log).unwrap();
    let script = tmp.path().join("judge.py");
    std::fs::write(&script, JUDGE_PY).unwrap();
    let judge = format!("{} {}", support::python(), script.display());
    Project {
        hj,
        log,
        judge,
        _tmp: tmp,
    }
}

/// Runs the judged suite's binary with `args`; judge settings from `envs` only.
fn run(p: &Project, args: &[&str], envs: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(test_binary(SUITE));
    cmd.current_dir(support::workspace())
        .args(args)
        .env("HARSHJUDGE_DIR", &p.hj)
        .env("JUDGE_LOG", &p.log)
        .env("HARSHJUDGE_REPORT", "off")
        .env("HARSHJUDGE_JUNIT", "off");
    for k in [
        "HARSHJUDGE_BASE_URL",
        "HARSHJUDGE_JUDGE_CMD",
        "HARSHJUDGE_JUDGE_URL",
        "HARSHJUDGE_JUDGE_MODEL",
        "HARSHJUDGE_JUDGE_API_KEY",
        "HARSHJUDGE_JUDGE_TIMEOUT",
        "HARSHJUDGE_JUDGE_RETRIES",
        "HARSHJUDGE_JUDGE_VOTES",
        "HARSHJUDGE_UNCERTAIN",
        "NEXTEST_RUN_ID",
        "NEXTEST",
        "JUDGED_RECEIPT",
        "JUDGED_NOTE",
        "JUDGED_CODE_FAIL",
    ] {
        cmd.env_remove(k);
    }
    for (k, v) in envs {
        cmd.env(k, v);
    }
    Run::from(cmd.output().expect("the suite runs"))
}

/// The latest run folder of `slug`.
fn last_run(p: &Project, slug: &str) -> PathBuf {
    runs(&p.hj, slug).pop().expect("a run")
}

fn step<'a>(result: &'a Value, id: &str) -> &'a Value {
    result["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step {id} in {result:#}"))
}

fn judged(run: &Path, id: &str) -> Value {
    let j = json(run.join("judge").join("result.json"));
    j["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stepId"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no judgment of step {id} in {j:#}"))
}

/// The judge's calls, as its log files (sorted by name: scenario, step, time).
fn calls(p: &Project) -> Vec<Value> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(&p.log)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    names.into_iter().map(json_loose).collect()
}

fn json_loose(path: PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The trial line libtest printed for `test`.
fn trial<'a>(r: &'a Run, test: &str) -> &'a str {
    r.stdout
        .lines()
        .find(|l| l.starts_with(&format!("test {test} ")))
        .unwrap_or_else(|| panic!("no trial line for {test}: {r:?}"))
}

fn meta(p: &Project, slug: &str) -> Value {
    yaml(p.hj.join("scenarios").join(slug).join("meta.yaml"))
}

#[test]
fn a_judge_reads_the_checkout_evidence_and_its_verdict_decides_the_step() {
    let p = project();
    let judge = [("HARSHJUDGE_JUDGE_CMD", p.judge.as_str())];

    // The receipt is shown: the judge passes step 02.
    let r = run(&p, &["checkout::"], &judge);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(trial(&r, PAY).ends_with("ok"), "{r:?}");
    let dir = last_run(&p, "checkout");
    let result = json(dir.join("result.json"));
    assert_eq!(result["status"], "pass");
    assert_eq!(result["executedStatus"], "pass");
    let pay = step(&result, "02");
    assert_eq!(
        pay["expectation"],
        "a receipt with the total is shown and no error is visible"
    );
    assert_eq!(pay["verdict"], "pass");
    assert_eq!(pay["executedStatus"], "pass");
    assert!(
        step(&result, "01").get("verdict").is_none(),
        "a step without expectation has no verdict: {result:#}"
    );
    let j = judged(&dir, "02");
    assert_eq!(
        (&j["verdict"], &j["judge"]),
        (&Value::from("pass"), &Value::from("command"))
    );
    assert!(
        j["reasoning"].as_str().unwrap().contains("42.00 EUR"),
        "{j}"
    );
    assert!(j["inputsHash"].as_str().unwrap().starts_with("sha256:"));
    let prompt = std::fs::read_to_string(dir.join("judge/step-02.prompt.md")).unwrap();
    assert!(
        prompt.contains("a receipt with the total is shown"),
        "{prompt}"
    );
    let response = std::fs::read_to_string(dir.join("judge/step-02.response.txt")).unwrap();
    assert!(response.contains("\"verdict\": \"pass\""), "{response}");
    // What the judge was given: the screenshots (real PNG files) and the page text.
    let c = calls(&p);
    assert_eq!(c.len(), 1, "one judged step, one call: {c:#?}");
    let seen = &c[0]["seen"];
    for png in ["before.png", "after.png"] {
        assert_eq!(seen[png]["kind"], "image", "{seen:#}");
        assert_eq!(seen[png]["png"], true, "{png} is a PNG file: {seen:#}");
    }
    assert!(
        seen["page-text.txt"]["text"]
            .as_str()
            .unwrap()
            .contains("Receipt #1001"),
        "{seen:#}"
    );
    assert_eq!(c[0]["input"]["code"]["status"], "pass");
    // The step's .md names the expectation.
    let md = std::fs::read_to_string(
        p.hj.join("scenarios/checkout/steps/02-pay-with-the-saved-card.md"),
    )
    .unwrap();
    let expected = &md[md.find("## Expected Outcome").expect("section")..];
    assert!(
        expected.contains("a receipt with the total is shown and no error is visible"),
        "{md}"
    );
    // replay.sh re-makes this judgment alone.
    let replay = std::fs::read_to_string(dir.join("judge/replay.sh")).unwrap();
    let run_id = dir.file_name().unwrap().to_str().unwrap();
    assert!(
        replay.contains(&format!("--rejudge-run '{run_id}' --exact '{PAY}'")),
        "{replay}"
    );
    assert!(
        replay.contains("#   export HARSHJUDGE_JUDGE_CMD="),
        "{replay}"
    );
    assert!(
        r.stdout.contains(
            "verdicts (1):\n  checkout: step 02 judged pass by the command judge: the page text shows a receipt"
        ),
        "{r:?}"
    );

    // An error page: the code passes, the judge fails the step.
    let r = run(
        &p,
        &["checkout::"],
        &[judge[0], ("JUDGED_RECEIPT", "error")],
    );
    assert_eq!(r.code, 101, "a failing verdict fails the invocation: {r:?}");
    assert!(trial(&r, PAY).ends_with("FAILED"), "{r:?}");
    assert!(
        trial(&r, "checkout::01_open_the_cart").ends_with("ok"),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains("the command judge's verdict is fail: the page says: The card was declined.")
            && r.stdout
                .contains("expected: a receipt with the total is shown"),
        "the trial names the verdict, the judge and the reasoning: {r:?}"
    );
    assert!(
        r.stdout.contains(
            "checkout: step 02 judged fail by the command judge: the page says: The card was declined."
        ),
        "{r:?}"
    );
    let dir = last_run(&p, "checkout");
    let result = json(dir.join("result.json"));
    assert_eq!(result["status"], "fail");
    assert_eq!(result["executedStatus"], "pass");
    assert_eq!(result["failedStep"], "02");
    let pay = step(&result, "02");
    assert_eq!(
        (&pay["status"], &pay["executedStatus"], &pay["verdict"]),
        (
            &Value::from("fail"),
            &Value::from("pass"),
            &Value::from("fail")
        )
    );
    let m = meta(&p, "checkout");
    assert_eq!(
        (&m["totalRuns"], &m["passCount"], &m["failCount"]),
        (&Value::from(2), &Value::from(1), &Value::from(1)),
        "{m:#}"
    );
    assert_eq!(m["lastResult"], "fail");
}

#[test]
fn uncertain_malformed_timeout_and_crash_fail_the_step_with_the_reason() {
    let p = project();
    let cmd = p.judge.clone();
    let with = |mode: &'static str, extra: &[(&'static str, &'static str)]| {
        let mut envs: Vec<(&str, &str)> = vec![
            ("HARSHJUDGE_JUDGE_CMD", cmd.as_str()),
            ("HARSHJUDGE_JUDGE_RETRIES", "0"),
            ("JUDGE_MODE", mode),
        ];
        envs.extend_from_slice(extra);
        let r = run(&p, &["notes::"], &envs);
        let dir = last_run(&p, "notes");
        (r, json(dir.join("result.json")), dir)
    };

    let (r, result, _) = with("uncertain", &[]);
    assert_eq!(r.code, 101, "{r:?}");
    assert!(trial(&r, NOTE).ends_with("FAILED"), "{r:?}");
    assert!(
        r.stdout.contains("verdict is uncertain (an uncertain verdict fails the step; HARSHJUDGE_UNCERTAIN=pass counts it as passed): told to say uncertain"),
        "{r:?}"
    );
    assert_eq!(step(&result, "01")["verdict"], "uncertain");
    assert_eq!(result["status"], "fail");

    let (r, result, _) = with("uncertain", &[("HARSHJUDGE_UNCERTAIN", "pass")]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(trial(&r, NOTE).ends_with("ok"), "{r:?}");
    assert_eq!(step(&result, "01")["verdict"], "uncertain");
    assert_eq!(result["status"], "pass");
    assert!(
        r.stdout
            .contains("judged uncertain by the command judge: told to say uncertain (counted as passed: HARSHJUDGE_UNCERTAIN=pass)"),
        "{r:?}"
    );

    let (r, result, dir) = with("malformed", &[]);
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stdout.contains("the command judge gave no verdict"),
        "{r:?}"
    );
    assert_eq!(step(&result, "01")["verdict"], "error");
    let j = judged(&dir, "01");
    assert!(j.get("verdict").is_none(), "{j}");
    assert!(!j["error"].as_str().unwrap().is_empty(), "{j}");

    let started = Instant::now();
    let (r, result, dir) = with("sleep", &[("HARSHJUDGE_JUDGE_TIMEOUT", "1s")]);
    let took = started.elapsed();
    assert_eq!(r.code, 101, "{r:?}");
    assert_eq!(step(&result, "01")["verdict"], "error");
    let error = judged(&dir, "01")["error"].as_str().unwrap().to_string();
    assert!(error.contains("no answer within 1s"), "{error}");
    assert!(
        took < Duration::from_secs(20),
        "the judge is stopped at its timeout (took {took:?})"
    );

    let (r, result, dir) = with("crash", &[]);
    assert_eq!(r.code, 101, "{r:?}");
    assert_eq!(step(&result, "01")["verdict"], "error");
    let error = judged(&dir, "01")["error"].as_str().unwrap().to_string();
    assert!(
        error.contains("exited with") && error.contains("judge blew up on purpose"),
        "{error}"
    );
    assert!(r.stdout.contains("judge blew up on purpose"), "{r:?}");

    // The code's own failure stands whatever the verdict.
    let (r, result, _) = with("pass", &[("JUDGED_CODE_FAIL", "1")]);
    assert_eq!(r.code, 101, "{r:?}");
    let note = step(&result, "01");
    assert_eq!(
        (&note["status"], &note["verdict"]),
        (&Value::from("fail"), &Value::from("pass"))
    );
    assert!(
        r.stdout.contains("the code failed after writing the note"),
        "{r:?}"
    );
    let m = meta(&p, "notes");
    assert_eq!(
        (&m["totalRuns"], &m["passCount"], &m["failCount"]),
        (&Value::from(6), &Value::from(1), &Value::from(5)),
        "{m:#}"
    );
}

#[test]
fn without_a_judge_verdicts_stay_pending_and_the_summary_says_how_to_give_them() {
    let p = project();
    let r = run(&p, &["notes::"], &[]);
    assert_eq!(r.code, 0, "the code's status stands: {r:?}");
    assert!(trial(&r, NOTE).ends_with("ok"), "{r:?}");
    let dir = last_run(&p, "notes");
    let result = json(dir.join("result.json"));
    assert_eq!(result["status"], "pass");
    let note = step(&result, "01");
    assert_eq!(note["verdict"], "pending");
    assert_eq!(note["expectation"], "the note says all is good");
    assert!(!dir.join("judge").exists(), "nothing judged");
    assert!(
        r.stdout.contains("notes: step 01 awaits a verdict")
            && r.stdout
                .contains("1 step(s) await a verdict: set HARSHJUDGE_JUDGE_CMD")
            && r.stdout.contains("getPendingJudgments"),
        "{r:?}"
    );
    // A bad judge setting stops the invocation before any run.
    let p = project();
    let r = run(&p, &["notes::"], &[("HARSHJUDGE_UNCERTAIN", "maybe")]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("HARSHJUDGE_UNCERTAIN"), "{r:?}");
    assert!(runs(&p.hj, "notes").is_empty());
}

#[test]
fn a_failing_verdict_fails_the_whole_scenario_trial_under_nextest() {
    let p = project();
    let envs = [
        ("HARSHJUDGE_JUDGE_CMD", p.judge.as_str()),
        ("JUDGED_NOTE", "nothing works"),
        ("NEXTEST", "1"),
    ];
    let r = run(&p, &["notes"], &envs);
    assert_eq!(r.code, 101, "{r:?}");
    assert!(trial(&r, "notes").ends_with("FAILED"), "{r:?}");
    assert!(
        r.stdout.contains("step 01 \"Write the note\" failed: the command judge's verdict is fail: the note says 'nothing works'"),
        "{r:?}"
    );
}

#[test]
fn a_slow_judge_does_not_hold_up_the_steps_that_follow() {
    let p = project();
    let envs = [
        ("HARSHJUDGE_JUDGE_CMD", p.judge.as_str()),
        ("JUDGE_MODE", "slow-notes"),
    ];
    let started = Instant::now();
    let r = run(&p, &["--test-threads", "2"], &envs);
    let took = started.elapsed();
    assert_eq!(r.code, 0, "{r:?}");
    let c = calls(&p);
    assert_eq!(c.len(), 2, "{c:#?}");
    let (checkout, notes) = (&c[0], &c[1]);
    assert_eq!(notes["input"]["scenario"], "notes");
    let secs = |v: &Value| v.as_f64().unwrap();
    // The notes judge waits until the checkout's judge is called: the two
    // judged at once, and the checkout's steps were not held up by it.
    let held = secs(&notes["end"]) - secs(&notes["start"]);
    assert!(
        held < 19.0,
        "the checkout's judge was called while the notes judge worked (it waited {held:.1}s)"
    );
    assert!(secs(&checkout["start"]) < secs(&notes["end"]));
    // The note's next step ran while its judge was working.
    let read = last_run(&p, "notes").join("step-02/evidence/read.txt");
    let written = std::fs::metadata(&read)
        .unwrap()
        .modified()
        .unwrap()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        written < secs(&notes["end"]),
        "step 02 ran before step 01's verdict: written at {written}, verdict at {}",
        secs(&notes["end"])
    );
    eprintln!(
        "parallel judging: notes judge held {held:.2}s, step 02 written {:.2}s before its verdict, invocation {took:?}",
        secs(&notes["end"]) - written
    );
}

/// A local server speaking the chat-completions wire format (not a model): it
/// saves each request and answers a verdict.
const CHAT_PY: &str = r#"
import http.server, json, os, sys
log = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        n = len(os.listdir(log))
        with open(os.path.join(log, "request-%d.json" % n), "w") as f:
            json.dump({"path": self.path, "auth": self.headers.get("authorization"), "body": json.loads(body)}, f)
        answer = json.dumps({"verdict": "pass", "reasoning": "the screenshot shows Receipt #1001 and the total"})
        out = json.dumps({"choices": [{"message": {"role": "assistant", "content": answer}}]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"#;

#[test]
fn the_http_judge_gets_the_expectation_and_the_screenshots_as_images() {
    use std::io::BufRead;
    let p = project();
    let script = p.log.parent().unwrap().join("chat.py");
    std::fs::write(&script, CHAT_PY).unwrap();
    let requests = p.log.parent().unwrap().join("requests");
    std::fs::create_dir_all(&requests).unwrap();
    let mut server = Command::new(support::python())
        .arg(&script)
        .arg(&requests)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    let url = format!("http://127.0.0.1:{}/v1", port.trim());
    let r = run(
        &p,
        &["checkout::"],
        &[
            ("HARSHJUDGE_JUDGE_URL", url.as_str()),
            ("HARSHJUDGE_JUDGE_MODEL", "judge-test-model"),
            ("HARSHJUDGE_JUDGE_API_KEY", "sk-never-written"),
        ],
    );
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(r.code, 0, "{r:?}");
    let reqs: Vec<PathBuf> = std::fs::read_dir(&requests)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(reqs.len(), 1, "one judged step, one request");
    let req = json_loose(reqs[0].clone());
    assert_eq!(req["path"], "/v1/chat/completions");
    assert_eq!(req["auth"], "Bearer sk-never-written");
    assert_eq!(req["body"]["model"], "judge-test-model");
    let text = req["body"].to_string();
    assert!(
        text.contains("a receipt with the total is shown and no error is visible"),
        "{text}"
    );
    let images = req["body"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|part| part["type"] == "image_url")
        .filter(|part| {
            part["image_url"]["url"]
                .as_str()
                .unwrap()
                .starts_with("data:image/png;base64,iVBORw0KGgo")
        })
        .count();
    assert_eq!(images, 2, "before.png and after.png as image parts");
    let dir = last_run(&p, "checkout");
    let j = judged(&dir, "02");
    assert_eq!(
        (&j["verdict"], &j["judge"]),
        (&Value::from("pass"), &Value::from("http"))
    );
    assert!(j["identity"].as_str().unwrap().contains("judge-test-model"));
    let result = json(dir.join("result.json"));
    assert_eq!(step(&result, "02")["verdict"], "pass");
    assert!(r.stdout.contains("judged pass by the http judge"), "{r:?}");
    let replay = std::fs::read_to_string(dir.join("judge/replay.sh")).unwrap();
    assert!(
        replay.contains("HARSHJUDGE_JUDGE_MODEL='judge-test-model'"),
        "{replay}"
    );
    for f in support::tree(&dir) {
        let text = std::fs::read(dir.join(&f)).unwrap();
        assert!(
            !String::from_utf8_lossy(&text).contains("sk-never-written"),
            "the API key is written nowhere: {f}"
        );
    }
}

/// A chat-completions server that answers from a script (it is not a model):
/// `see` fails a step whose prompt shows "declined" or "broken" and passes the
/// others; `pass` passes everything; `votes` answers fail, pass, pass, … in
/// turn. Every answer names its model and token usage (OpenAI's shape).
const SCRIPTED_PY: &str = r#"
import http.server, json, sys
mode = sys.argv[1]
n = [0]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        text = json.dumps(body["messages"][1]["content"])
        n[0] += 1
        if mode == "see":
            bad = "declined" in text or "broken" in text
            verdict, why = ("fail", "the evidence shows an error") if bad else ("pass", "the evidence shows what was expected")
        elif mode == "votes":
            verdict = "fail" if n[0] % 3 == 1 else "pass"
            why = "answer %d" % n[0]
        else:
            verdict, why = "pass", "looks fine"
        answer = json.dumps({"verdict": verdict, "reasoning": why})
        out = json.dumps({"model": "scripted-judge-1", "choices": [{"message": {"role": "assistant", "content": answer}}],
                          "usage": {"prompt_tokens": 100 * n[0], "completion_tokens": 7, "total_tokens": 100 * n[0] + 7}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"#;

/// A scripted judge server in `mode`: (its process, its base URL).
fn scripted_judge(p: &Project, mode: &str) -> (std::process::Child, String) {
    use std::io::BufRead;
    let script = p.log.parent().unwrap().join("scripted.py");
    std::fs::write(&script, SCRIPTED_PY).unwrap();
    let mut server = Command::new(support::python())
        .arg(&script)
        .arg(mode)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    (server, format!("http://127.0.0.1:{}/v1", port.trim()))
}

#[test]
fn votes_keep_the_majority_and_the_model_tokens_and_latency_are_recorded() {
    let p = project();
    let (mut server, url) = scripted_judge(&p, "votes");
    let r = run(
        &p,
        &["notes::"],
        &[
            ("HARSHJUDGE_JUDGE_URL", url.as_str()),
            ("HARSHJUDGE_JUDGE_MODEL", "asked-model"),
            ("HARSHJUDGE_JUDGE_VOTES", "3"),
        ],
    );
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(r.code, 0, "fail, pass, pass: the majority passes: {r:?}");
    let dir = last_run(&p, "notes");
    let j = judged(&dir, "01");
    assert_eq!(j["verdict"], "pass", "{j:#}");
    let votes: Vec<&str> = j["votes"]
        .as_array()
        .unwrap_or_else(|| panic!("every answer is recorded: {j:#}"))
        .iter()
        .map(|v| v["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(votes, ["fail", "pass", "pass"]);
    assert_eq!(j["votes"][0]["reasoning"], "answer 1");
    assert_eq!(j["model"], "scripted-judge-1");
    assert_eq!(j["usage"]["inputTokens"], 600, "100 + 200 + 300: {j:#}");
    assert_eq!(j["usage"]["outputTokens"], 21);
    assert!(j["latencyMs"].is_u64(), "{j:#}");
    assert!(
        j["votes"][2]["latencyMs"].is_u64() && j["votes"][2]["usage"]["totalTokens"] == 307,
        "{j:#}"
    );
    // A bad count is refused by name.
    let r = run(
        &p,
        &["notes::"],
        &[
            ("HARSHJUDGE_JUDGE_URL", url.as_str()),
            ("HARSHJUDGE_JUDGE_MODEL", "asked-model"),
            ("HARSHJUDGE_JUDGE_VOTES", "0"),
        ],
    );
    assert_ne!(r.code, 0);
    assert!(format!("{r:?}").contains("HARSHJUDGE_JUDGE_VOTES"), "{r:?}");
}

/// Runs `notes` and `checkout` with screens that match their expectation and
/// with screens that contradict it (injected on purpose), without a judge;
/// returns the labels file (run, step, the right verdict).
fn calibration_set(p: &Project) -> PathBuf {
    let mut labels = String::from("run,step,verdict\n# made by tests/judge.rs\n");
    for (slug, step, envs, right) in [
        ("checkout", "02", vec![], "pass"),
        ("checkout", "02", vec![("JUDGED_RECEIPT", "error")], "fail"),
        ("notes", "01", vec![], "pass"),
        (
            "notes",
            "01",
            vec![("JUDGED_NOTE", "the export is broken")],
            "fail",
        ),
        (
            "notes",
            "01",
            vec![("JUDGED_NOTE", "all good, 3 saved")],
            "pass",
        ),
    ] {
        let r = run(p, &[&format!("{slug}::")], &envs);
        assert_eq!(r.code, 0, "pending verdicts do not fail: {r:?}");
        let dir = last_run(p, slug);
        let id = dir.file_name().unwrap().to_string_lossy().into_owned();
        labels.push_str(&format!("{id} {step} {right}\n"));
    }
    let path = p.log.parent().unwrap().join("labels.txt");
    std::fs::write(&path, labels).unwrap();
    path
}

fn calibrate(p: &Project, url: &str, args: &[&str]) -> (i32, Value, String) {
    let out = Command::new(support::mcp_binary())
        .arg("--cwd")
        .arg(p.hj.parent().unwrap())
        .arg("--dashboard")
        .arg("off")
        .arg("judge-calibrate")
        .args(args)
        .env_remove("HARSHJUDGE_JUDGE_CMD")
        .env_remove("HARSHJUDGE_JUDGE_VOTES")
        .env_remove("HARSHJUDGE_UNCERTAIN")
        .env("HARSHJUDGE_JUDGE_URL", url)
        .env("HARSHJUDGE_JUDGE_MODEL", "scripted")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let doc = if out.status.success() {
        &stdout
    } else {
        &stderr
    };
    let value = serde_json::from_str(doc.trim()).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), value, stderr)
}

#[test]
fn judge_calibrate_scores_a_judge_over_labelled_runs_and_fails_under_its_thresholds() {
    let p = project();
    let labels = calibration_set(&p);
    let labels = labels.to_str().unwrap();
    let before = support::tree(&p.hj);
    let strict = [
        labels,
        "--min-precision",
        "1",
        "--min-recall",
        "1",
        "--min-agreement",
        "1",
    ];
    // A judge that reads the evidence agrees with every label.
    let (mut server, url) = scripted_judge(&p, "see");
    let (code, v, err) = calibrate(&p, &url, &strict);
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(code, 0, "{v:#} {err}");
    assert_eq!(
        (v["steps"].as_u64(), v["agreed"].as_u64()),
        (Some(5), Some(5))
    );
    assert_eq!(
        (v["precision"].as_f64(), v["recall"].as_f64()),
        (Some(1.0), Some(1.0))
    );
    assert_eq!(v["scored"][1]["got"], "fail", "{v:#}");
    // A judge that passes everything misses both injected failures.
    let (mut server, url) = scripted_judge(&p, "pass");
    let (code, v, err) = calibrate(&p, &url, &strict);
    let lenient = calibrate(&p, &url, &[labels, "--min-agreement", "0.6"]);
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(code, 1, "{v:#} {err}");
    assert_eq!(v["code"], "BELOW_THRESHOLD");
    assert_eq!(
        (v["recall"].as_f64(), v["agreement"].as_f64()),
        (Some(0.0), Some(0.6))
    );
    let why = v["error"].as_str().unwrap();
    assert!(
        why.contains("recall 0.000 is under --min-recall 1") && why.contains("agreement 0.600"),
        "{why}"
    );
    assert_eq!(lenient.0, 0, "0.6 agreement meets 0.6: {:#}", lenient.1);
    // Calibrating wrote nothing into the runs.
    assert_eq!(support::tree(&p.hj), before);
    // Bad input: a label naming an unknown run, a bad verdict, no judge.
    let bad = p.log.parent().unwrap().join("bad.txt");
    std::fs::write(&bad, "20260101-000000-000-abcdef 01 pass\n").unwrap();
    let (code, v, _) = calibrate(&p, &url, &[bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("line 1: run 20260101-000000-000-abcdef is in no scenario"),
        "{v:#}"
    );
    std::fs::write(&bad, "20260101-000000-000-abcdef 01 maybe\n").unwrap();
    let (code, v, _) = calibrate(&p, &url, &[bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains(":1: \"maybe\" is not a verdict"),
        "{v:#}"
    );
}
