//! The judge's calibration set made from the demo (issue 24.5): runs of
//! demo-app scenarios with judged steps (tests/fixtures/judged_demo.rs, the
//! `judged_demo_suite` target) against the demo app, some with failures
//! injected on purpose (screens that contradict their expectation: the
//! dashboard served by `DEMO_APP_VARIANT=changed-text`, an item removed),
//! labelled with the right verdict. `harshjudge-mcp judge-calibrate` runs a
//! scripted judge (a chat-completions server on loopback) over them: one that
//! reads the evidence agrees with every label; one that passes everything
//! misses the injected failures and is refused by the thresholds.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use support::{runs, serve_demo, test_binary};

const SUITE: &str = "judged_demo_suite";

/// A chat-completions judge on loopback. `see`: pass when every quoted text of
/// the step's expectation is in its evidence, else fail; `pass`: always pass.
const SCRIPTED_PY: &str = r###"
import http.server, json, re, sys
mode = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        content = body["messages"][1]["content"]
        text = content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
        expectation = text.split("## Expectation\n", 1)[1].split("\n\n", 1)[0]
        evidence = text.split("## Evidence\n", 1)[1]
        wanted = re.findall(r'"([^"]+)"', expectation)
        missing = [w for w in wanted if w not in evidence]
        if mode == "see" and missing:
            verdict, why = "fail", "the evidence does not show " + ", ".join(missing)
        else:
            verdict, why = "pass", "the evidence shows " + ", ".join(wanted)
        out = json.dumps({"model": "scripted-demo-judge", "choices": [{"message": {"role": "assistant",
                          "content": json.dumps({"verdict": verdict, "reasoning": why})}}]}).encode()
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
"###;

/// A server killed when dropped.
struct Judge(std::process::Child);

impl Drop for Judge {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn scripted_judge(dir: &Path, mode: &str) -> (Judge, String) {
    use std::io::BufRead;
    let script = dir.join("scripted.py");
    std::fs::write(&script, SCRIPTED_PY).unwrap();
    let mut child = Command::new(support::python())
        .arg(&script)
        .arg(mode)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    (Judge(child), format!("http://127.0.0.1:{}/v1", port.trim()))
}

/// Runs `filter` of the suite against the app at `url` (no judge: the
/// judged steps stay pending) and returns the new run's id.
fn run(hj: &Path, filter: &str, url: &str, envs: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(test_binary(SUITE));
    cmd.current_dir(support::workspace())
        .arg(filter)
        .env("HARSHJUDGE_DIR", hj)
        .env("HARSHJUDGE_REPORT", "off")
        .env("HARSHJUDGE_JUNIT", "off")
        .env("HARSHJUDGE_BASE_URL", url);
    for k in [
        "HARSHJUDGE_JUDGE_CMD",
        "HARSHJUDGE_JUDGE_URL",
        "HARSHJUDGE_JUDGE_VOTES",
        "JUDGED_DEMO_REMOVE",
        "NEXTEST",
        "NEXTEST_RUN_ID",
    ] {
        cmd.env_remove(k);
    }
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let r = support::Run::from(cmd.output().expect("the suite runs"));
    assert_eq!(r.code, 0, "the code passes; verdicts are pending: {r:?}");
    let slug = filter.trim_end_matches("::").replace('_', "-");
    let run = runs(hj, &slug).pop().expect("a run");
    run.file_name().unwrap().to_string_lossy().into_owned()
}

fn calibrate(root: &Path, url: &str, args: &[&str]) -> (i32, Value) {
    let out = Command::new(support::mcp_binary())
        .arg("--cwd")
        .arg(root)
        .args(["--dashboard", "off", "judge-calibrate"])
        .args(args)
        .env_remove("HARSHJUDGE_JUDGE_CMD")
        .env_remove("HARSHJUDGE_JUDGE_VOTES")
        .env_remove("HARSHJUDGE_UNCERTAIN")
        .env("HARSHJUDGE_JUDGE_URL", url)
        .env("HARSHJUDGE_JUDGE_MODEL", "scripted")
        .output()
        .unwrap();
    let doc = if out.status.success() {
        out.stdout
    } else {
        out.stderr
    };
    let text = String::from_utf8_lossy(&doc).into_owned();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_str(text.trim()).unwrap_or(Value::from(text)),
    )
}

/// The labelled set: 6 runs of the demo scenarios, 3 with a screen that
/// contradicts its expectation.
fn calibration_set(root: &Path) -> PathBuf {
    let hj = root.join(".harshJudge");
    let as_written = serve_demo("");
    let changed = serve_demo("changed-text");
    let mut labels = String::from("run,step,verdict\n# the demo, failures injected on purpose\n");
    for (filter, url, envs, right) in [
        ("demo_greeting::", &as_written.url, vec![], "pass"),
        ("demo_greeting::", &changed.url, vec![], "fail"),
        ("demo_items::", &as_written.url, vec![], "pass"),
        (
            "demo_items::",
            &as_written.url,
            vec![("JUDGED_DEMO_REMOVE", "apple")],
            "fail",
        ),
        (
            "demo_items::",
            &changed.url,
            vec![("JUDGED_DEMO_REMOVE", "pear")],
            "fail",
        ),
        ("demo_greeting::", &as_written.url, vec![], "pass"),
    ] {
        let id = run(&hj, filter, url, &envs);
        labels.push_str(&format!("{id},02,{right}\n"));
    }
    let path = root.join("labels.csv");
    std::fs::write(&path, labels).unwrap();
    path
}

#[test]
fn a_calibration_set_made_from_demo_runs_with_injected_failures_scores_a_scripted_judge() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let labels = calibration_set(root);
    let labels = labels.to_str().unwrap();
    let before = support::tree(&root.join(".harshJudge"));
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
    let (judge, url) = scripted_judge(root, "see");
    let (code, v) = calibrate(root, &url, &strict);
    drop(judge);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        (v["steps"].as_u64(), v["agreed"].as_u64()),
        (Some(6), Some(6)),
        "{v:#}"
    );
    assert_eq!(
        (v["precision"].as_f64(), v["recall"].as_f64()),
        (Some(1.0), Some(1.0))
    );
    let got: Vec<&str> = v["scored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["got"].as_str().unwrap())
        .collect();
    assert_eq!(
        got,
        ["pass", "fail", "pass", "fail", "fail", "pass"],
        "{v:#}"
    );
    // A judge that passes everything misses the 3 injected failures.
    let (judge, url) = scripted_judge(root, "pass");
    let (code, v) = calibrate(root, &url, &strict);
    drop(judge);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["code"], "BELOW_THRESHOLD", "{v:#}");
    assert_eq!(
        (v["recall"].as_f64(), v["agreement"].as_f64()),
        (Some(0.0), Some(0.5)),
        "{v:#}"
    );
    let why = v["error"].as_str().unwrap();
    assert!(
        why.contains("recall 0.000 is under --min-recall 1"),
        "{why}"
    );
    // Calibrating wrote nothing into the runs.
    assert_eq!(support::tree(&root.join(".harshJudge")), before);
}
