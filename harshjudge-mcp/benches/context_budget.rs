//! The context budget of issues 24 and 37: the TodoMVC task (open, add three
//! todos, complete "feed the cat", filter Active, verify), where the agent
//! knows no test id and reads every target, the counter and the filtered list
//! from snapshots, scripted through the Python MCP SDK (benches/context/task.py)
//! against harshjudge-mcp and Playwright MCP 0.0.83, the page served by a real
//! `python3 -m http.server`; bytes and o200k tokens (npm gpt-tokenizer,
//! offline) of initialize + tools/list, each call's arguments and result, and
//! the whole task (benches/context/count.mjs). Once, the same task batched
//! (run_steps) while recorded, then replayed (record_replay): in brief and
//! with `detail: true`.
//!
//! The trace's figures (issue 39 point 6, `CONTEXT_BENCH_PART=trace` for them
//! alone): a failed TodoMVC step (tests/fixtures/trace_todomvc.rs, run under
//! the default retain-on-failure) as `getStepTrace` gives it, its lines and
//! the failed entry's page as an ARIA snapshot (`action`), against the
//! step's `page.html`; written to target/context-budget-trace.json.
//!
//! Needs: target/py-venv (the MCP SDK), node, and
//! `npm install --prefix target/context-bench-npm @playwright/mcp@0.0.83 gpt-tokenizer`;
//! Chromium at /usr/bin/chromium (HARSHJUDGE_CHROMIUM to change). Runs 3
//! times per server (CONTEXT_BENCH_RUNS); writes target/context-budget.json.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_harshjudge-mcp");

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn python() -> PathBuf {
    std::env::var_os("HARSHJUDGE_TEST_PYTHON")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/py-venv/bin/python"))
}

/// A child process killed when dropped.
struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn main() {
    let ws = workspace();
    let npm = ws.join("target/context-bench-npm");
    let pw_cli = npm.join("node_modules/@playwright/mcp/cli.js");
    if std::env::var("CONTEXT_BENCH_PART").as_deref() == Ok("trace") {
        trace_tokens(&ws, &npm);
        return;
    }
    assert!(
        pw_cli.exists() && npm.join("node_modules/gpt-tokenizer").exists(),
        "npm install --prefix {} @playwright/mcp@0.0.83 gpt-tokenizer",
        npm.display()
    );
    let chromium = std::env::var("HARSHJUDGE_CHROMIUM").unwrap_or("/usr/bin/chromium".into());
    let runs: usize = std::env::var("CONTEXT_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    // The TodoMVC page of the demo app, served as a static file.
    let mut http = Child(
        Command::new("python3")
            .args([
                "-u",
                "-m",
                "http.server",
                "0",
                "--bind",
                "127.0.0.1",
                "--directory",
            ])
            .arg(ws.join("examples/demo-app/src/static"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 -m http.server"),
    );
    let mut line = String::new();
    BufReader::new(http.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .split("port ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    let url = format!("http://127.0.0.1:{port}/todos.html");
    let out_dir = ws.join("target/context-bench");
    std::fs::create_dir_all(&out_dir).unwrap();
    let task = ws.join("harshjudge-mcp/benches/context/task.py");
    let mut files = Vec::new();
    for run in 0..runs {
        // The batched and replayed task (run_steps, record_replay) in brief and
        // in detail, once.
        let batched: &[&str] = if run == 0 {
            &["hjb", "hjb-detail"]
        } else {
            &[]
        };
        for &kind in ["hj", "pw"].iter().chain(batched) {
            let project = tempfile::tempdir().unwrap();
            let mut cmd = Command::new(python());
            cmd.arg(&task).arg(kind).arg(&url);
            if kind.starts_with("hj") {
                cmd.arg(BIN).arg("--cwd").arg(project.path());
            } else {
                cmd.arg("node").arg(&pw_cli).args([
                    "--headless",
                    "--isolated",
                    "--no-sandbox",
                    "--browser",
                    "chromium",
                    "--executable-path",
                    &chromium,
                    "--output-dir",
                ]);
                cmd.arg(project.path());
            }
            let out = cmd.output().unwrap();
            assert!(
                out.status.success(),
                "{kind} run {run}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let file = out_dir.join(format!("{kind}-{run}.json"));
            std::fs::write(&file, &out.stdout).unwrap();
            files.push(file);
        }
    }
    let counted = Command::new("node")
        .arg(ws.join("harshjudge-mcp/benches/context/count.mjs"))
        .args(&files)
        .env("TOKENIZER_FROM", &npm)
        .output()
        .unwrap();
    assert!(
        counted.status.success(),
        "{}",
        String::from_utf8_lossy(&counted.stderr)
    );
    let rows: Vec<Value> = String::from_utf8_lossy(&counted.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let pick =
        |kind: &str| -> Vec<&Value> { rows.iter().filter(|r| r["server"] == kind).collect() };
    let range = |rs: &[&Value], k: &str| {
        let v: Vec<u64> = rs.iter().map(|r| r[k].as_u64().unwrap()).collect();
        let (lo, hi) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
        if lo == hi {
            format!("{lo}")
        } else {
            format!("{lo}–{hi}")
        }
    };
    let (hj, pw) = (pick("hj"), pick("pw"));
    println!("context budget, TodoMVC task, {runs} run(s) each, o200k tokens");
    println!("| | harshjudge-mcp | Playwright MCP 0.0.83 |\n|---|---|---|");
    for (label, k) in [
        ("initialize + tools/list bytes", "startBytes"),
        ("initialize + tools/list tokens", "startTokens"),
        ("tools listed", "tools"),
        ("calls", "calls"),
        ("call arguments tokens", "argsTokens"),
        ("results bytes", "resultBytes"),
        ("results tokens (whole result)", "resultTokens"),
        ("results tokens (text only)", "resultTextTokens"),
        ("whole task tokens", "wholeTaskTokens"),
    ] {
        println!("| {label} | {} | {} |", range(&hj, k), range(&pw, k));
    }
    let ratio =
        hj[0]["wholeTaskTokens"].as_f64().unwrap() / pw[0]["wholeTaskTokens"].as_f64().unwrap();
    println!("whole task: harshjudge-mcp / Playwright MCP = {ratio:.2}");
    println!("\nper call (first run):");
    for r in [hj[0], pw[0]] {
        for c in r["perCall"].as_array().unwrap() {
            println!(
                "  {} {:<18} args {:>3} tok, result {:>5} B {:>4} tok (text {:>4})",
                r["server"].as_str().unwrap(),
                c["tool"].as_str().unwrap(),
                c["argsTokens"],
                c["resultBytes"],
                c["resultTokens"],
                c["textTokens"]
            );
        }
    }
    println!("\nrun_steps and record_replay of the task, in brief and with detail: true:");
    for kind in ["hjb", "hjb-detail"] {
        let r = pick(kind)[0];
        for c in r["perCall"].as_array().unwrap() {
            if matches!(c["tool"].as_str(), Some("run_steps" | "record_replay")) {
                println!(
                    "  {kind:<10} {:<14} result {:>6} B {:>5} tok",
                    c["tool"].as_str().unwrap(),
                    c["resultBytes"],
                    c["resultTokens"]
                );
            }
        }
        println!(
            "  {kind:<10} whole task {} tok in {} calls",
            r["wholeTaskTokens"], r["calls"]
        );
    }
    std::fs::write(
        ws.join("target/context-budget.json"),
        serde_json::to_string_pretty(&json!({"runs": rows, "ratio": ratio})).unwrap(),
    )
    .unwrap();
    drop(http);
    trace_tokens(&ws, &npm);
}

/// The failed TodoMVC step's trace as a model reads it: o200k tokens of its
/// lines, of its failed entry's ARIA snapshot, and of the step's `page.html`.
fn trace_tokens(ws: &Path, npm: &Path) {
    assert!(
        npm.join("node_modules/gpt-tokenizer").exists(),
        "npm install --prefix {} gpt-tokenizer",
        npm.display()
    );
    let cargo = std::env::var("CARGO").unwrap_or("cargo".into());
    let built = Command::new(cargo)
        .current_dir(ws)
        .args(["test", "--quiet", "--no-run", "--message-format=json"])
        .args(["-p", "harshjudge-workspace", "--test", "trace_todomvc"])
        .output()
        .unwrap();
    let exe = String::from_utf8_lossy(&built.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["target"]["name"] == "trace_todomvc")
        .and_then(|v| v["executable"].as_str().map(PathBuf::from))
        .expect("the trace_todomvc fixture builds");
    let project = tempfile::tempdir().unwrap();
    let ran = Command::new(exe)
        .current_dir(ws)
        .env("HARSHJUDGE_DIR", project.path().join(".harshJudge"))
        .env("HARSHJUDGE_WAIT", "2s")
        .env_remove("HARSHJUDGE_TRACE")
        .env_remove("HARSHJUDGE_EVIDENCE")
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("HARSHJUDGE_RETRIES")
        .output()
        .unwrap();
    assert_eq!(ran.status.code(), Some(101), "the TodoMVC step fails");
    let ctx = harshjudge_mcp::Context::new(project.path()).unwrap();
    let text = |args: Value| {
        let out = harshjudge_mcp::call(&ctx, "getStepTrace", Some(args));
        assert!(!out.is_error(), "{}", out.value);
        let text = harshjudge_mcp::tools::lean::text(&ctx, "getStepTrace", &out.value).unwrap();
        (text, out.value)
    };
    let (lines, v) = text(json!({"scenarioSlug": "todomvc", "step": 2}));
    let failed = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["outcome"]["status"] != "ok")
        .expect("a failed entry")["n"]
        .as_u64()
        .unwrap();
    let (aria, _) = text(json!({"scenarioSlug": "todomvc", "step": 2, "action": failed}));
    let trace = project.path().join(v["path"].as_str().unwrap());
    let page = std::fs::read_to_string(trace.with_file_name("page.html")).unwrap();
    let out_dir = ws.join("target/context-bench");
    std::fs::create_dir_all(&out_dir).unwrap();
    let mut files = Vec::new();
    for (name, body) in [("lines", &lines), ("aria", &aria), ("page", &page)] {
        let f = out_dir.join(format!("trace-{name}.txt"));
        std::fs::write(&f, body).unwrap();
        files.push(f);
    }
    let counted = Command::new("node")
        .arg("-e")
        .arg(
            "const { createRequire } = require('node:module');\
             const r = createRequire(process.env.TOKENIZER_FROM + '/');\
             const { encode } = r('gpt-tokenizer/encoding/o200k_base');\
             const fs = require('node:fs');\
             for (const f of process.argv.slice(1)) { const s = fs.readFileSync(f, 'utf8');\
             console.log(Buffer.byteLength(s) + ' ' + encode(s).length); }",
        )
        .args(&files)
        .env("TOKENIZER_FROM", npm)
        .output()
        .unwrap();
    assert!(
        counted.status.success(),
        "{}",
        String::from_utf8_lossy(&counted.stderr)
    );
    let figures: Vec<(u64, u64)> = String::from_utf8_lossy(&counted.stdout)
        .lines()
        .map(|l| {
            let (b, t) = l.split_once(' ').unwrap();
            (b.parse().unwrap(), t.parse().unwrap())
        })
        .collect();
    let entries = v["entries"].as_array().unwrap().len();
    println!(
        "\nthe failed TodoMVC step's trace ({entries} entries, #{failed} failed), o200k tokens:"
    );
    println!("| | bytes | tokens |\n|---|---|---|");
    let labels = [
        "getStepTrace: the lines",
        "getStepTrace with action: the failed entry's page as an ARIA snapshot",
        "the step's page.html",
    ];
    for (label, (b, t)) in labels.iter().zip(&figures) {
        println!("| {label} | {b} | {t} |");
    }
    let both = figures[0].1 + figures[1].1;
    println!(
        "lines + ARIA snapshot: {both} tokens, {:.2}× page.html",
        both as f64 / figures[2].1 as f64
    );
    std::fs::write(
        ws.join("target/context-budget-trace.json"),
        serde_json::to_string_pretty(&json!({
            "entries": entries, "failed": failed,
            "lines": {"bytes": figures[0].0, "tokens": figures[0].1},
            "aria": {"bytes": figures[1].0, "tokens": figures[1].1},
            "pageHtml": {"bytes": figures[2].0, "tokens": figures[2].1},
        }))
        .unwrap(),
    )
    .unwrap();
}
