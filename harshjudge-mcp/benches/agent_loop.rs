//! A realistic agent loop through a real stdio MCP client (rmcp's client,
//! spawning the release binary): startRun; 5 × [recordEvidence screenshot,
//! recordEvidence text, completeStep]; completeRun; getStatus. Reports calls
//! per second, p50/p99 latency per tool (client-side: request written to
//! response parsed), the server's CPU per call (user + system, from
//! `/proc/PID/stat`), and its memory after the loops from
//! `/proc/PID/smaps_rollup`: PSS, anonymous PSS and anonymous memory (what the
//! server itself holds; its code pages are clean and shared), RSS and peak
//! RSS for reference.
//!
//! `cargo bench -p harshjudge-mcp --bench agent_loop` (`HARSHJUDGE_MCP_BIN=path`
//! measures another build of the server, through rmcp's client only).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

const LOOPS: usize = 300;

fn args(v: Value) -> rmcp::model::JsonObject {
    v.as_object().unwrap().clone()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().to_path_buf();
    // A small real PNG (1×1) to copy as the screenshot.
    let png: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
        0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8,
        0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];
    let shot = project.join("shot.png");
    std::fs::write(&shot, png).unwrap();

    // HARSHJUDGE_MCP_BIN: another build of the server (a before/after run).
    let bin = std::env::var("HARSHJUDGE_MCP_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_harshjudge-mcp").to_string());
    let mut cmd = tokio::process::Command::new(bin);
    cmd.current_dir(&project).env("HARSHJUDGE_DASHBOARD", "off");
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = transport.id().unwrap();
    let client = ().serve(transport).await.unwrap();

    let mut lat: BTreeMap<&'static str, Vec<Duration>> = BTreeMap::new();
    let call = |name: &'static str, a: Value| {
        let client = &client;
        async move {
            let t = Instant::now();
            let r = client
                .call_tool(CallToolRequestParams::new(name).with_arguments(args(a)))
                .await
                .unwrap();
            let d = t.elapsed();
            assert_ne!(r.is_error, Some(true), "{name}: {:?}", r.content);
            // The lean default sends the result once, as compact JSON text.
            let value = r.structured_content.clone().unwrap_or_else(|| {
                r.content
                    .first()
                    .and_then(|c| c.as_text())
                    .and_then(|t| serde_json::from_str(&t.text).ok())
                    .unwrap_or(Value::Null)
            });
            (value, d)
        }
    };
    call("initProject", json!({"projectName": "Bench"})).await;
    let steps: Vec<Value> = (1..=5)
        .map(|i| json!({"title": format!("Step {i}"), "actions": "act", "expectedOutcome": "ok"}))
        .collect();
    call(
        "createScenario",
        json!({"slug": "loop", "title": "Loop", "steps": steps}),
    )
    .await;

    let cpu_before = cpu_ticks(pid);
    let total = Instant::now();
    let mut calls = 0usize;
    for _ in 0..LOOPS {
        let (run, d) = call("startRun", json!({"scenarioSlug": "loop"})).await;
        lat.entry("startRun").or_default().push(d);
        let id = run["runId"].as_str().unwrap().to_string();
        for step in 1..=5 {
            let sid = format!("{step:02}");
            let (_, d) = call("recordEvidence", json!({"runId": id, "stepId": sid, "type": "screenshot", "name": "after", "data": shot.to_str().unwrap()})).await;
            lat.entry("recordEvidence(screenshot)").or_default().push(d);
            let (_, d) = call("recordEvidence", json!({"runId": id, "stepId": sid, "type": "console_log", "name": "console", "data": "GET /api/items 200\nrendered 3 items"})).await;
            lat.entry("recordEvidence(text)").or_default().push(d);
            let (_, d) = call(
                "completeStep",
                json!({"runId": id, "stepId": sid, "status": "pass", "duration": 12}),
            )
            .await;
            lat.entry("completeStep").or_default().push(d);
        }
        let (_, d) = call(
            "completeRun",
            json!({"runId": id, "status": "pass", "duration": 100}),
        )
        .await;
        lat.entry("completeRun").or_default().push(d);
        let (_, d) = call("getStatus", json!({})).await;
        lat.entry("getStatus").or_default().push(d);
        calls += 18;
    }
    let elapsed = total.elapsed();
    let cpu = cpu_ticks(pid).zip(cpu_before).map(|(a, b)| a - b);
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let hwm = status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("VmHWM: ?")
        .to_string();
    client.cancel().await.unwrap();

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    eprintln!();
    eprintln!(
        "agent_loop: {LOOPS} loops x 18 calls over stdio: {:.0} calls/s ({:.3} ms/call)",
        calls as f64 / elapsed.as_secs_f64(),
        ms(elapsed) / calls as f64
    );
    for (tool, mut v) in lat {
        v.sort();
        let p = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
        eprintln!(
            "  {tool:<28} p50 {:.3} ms  p99 {:.3} ms  (n={})",
            ms(p(0.50)),
            ms(p(0.99)),
            v.len()
        );
    }
    eprintln!(
        "  server peak RSS (VmHWM): {}",
        hwm.trim_start_matches("VmHWM:").trim()
    );
    if let Some(ticks) = cpu {
        eprintln!(
            "  server CPU per call: {:.3} ms",
            ticks as f64 * 1000.0 / clock_ticks() / calls as f64
        );
    }
    let kb = |key: &str| {
        rollup
            .lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    let mb = |key: &str| kb(key).map_or("?".into(), |k| format!("{:.2} MB", k as f64 / 1024.0));
    eprintln!(
        "  server memory after the loops: Pss {}, Pss_Anon {}, Anonymous {}, Rss {}",
        mb("Pss"),
        mb("Pss_Anon"),
        mb("Anonymous"),
        mb("Rss")
    );
    // The raw client and the in-process loop measure this build's server,
    // not the one HARSHJUDGE_MCP_BIN names: left out for another build.
    if std::env::var_os("HARSHJUDGE_MCP_BIN").is_none() {
        raw_client(&shot);
        in_process(&shot);
    }
}

/// The user and system CPU time of process `pid` so far, in clock ticks
/// (`/proc/PID/stat`, fields 14 and 15, all its threads).
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name, which may hold spaces: field 3 onwards.
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 on Linux).
fn clock_ticks() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// The same loop through a minimal JSON-RPC client (one line per message,
/// blocking pipes): the server's round trip without rmcp's client machinery.
fn raw_client(shot: &std::path::Path) {
    use std::io::{BufRead, Write};
    struct Raw {
        stdin: std::process::ChildStdin,
        stdout: std::io::BufReader<std::process::ChildStdout>,
        id: u64,
        line: String,
    }
    impl Raw {
        fn send(&mut self, msg: Value) {
            writeln!(self.stdin, "{msg}").unwrap();
            self.stdin.flush().unwrap();
        }
        fn rpc(&mut self, method: &str, params: Value) -> Value {
            self.id += 1;
            self.send(json!({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}));
            self.line.clear();
            self.stdout.read_line(&mut self.line).unwrap();
            let v: Value = serde_json::from_str(&self.line).unwrap();
            assert!(v["result"]["isError"] != json!(true), "{method}: {v}");
            match &v["result"]["structuredContent"] {
                Value::Null => v["result"]["content"][0]["text"]
                    .as_str()
                    .and_then(|t| serde_json::from_str(t).ok())
                    .unwrap_or(Value::Null),
                structured => structured.clone(),
            }
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_harshjudge-mcp"))
        .current_dir(tmp.path())
        .env("HARSHJUDGE_DASHBOARD", "off")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut raw = Raw {
        stdin: child.stdin.take().unwrap(),
        stdout: std::io::BufReader::new(child.stdout.take().unwrap()),
        id: 0,
        line: String::new(),
    };
    raw.rpc("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}));
    raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut lat: BTreeMap<&'static str, Vec<Duration>> = BTreeMap::new();
    let mut call = |label: &'static str, name: &str, a: Value| {
        let t = Instant::now();
        let v = raw.rpc("tools/call", json!({"name": name, "arguments": a}));
        lat.entry(label).or_default().push(t.elapsed());
        v
    };
    call(
        "initProject",
        "initProject",
        json!({"projectName": "Bench"}),
    );
    let steps: Vec<Value> = (1..=5)
        .map(|i| json!({"title": format!("Step {i}"), "actions": "act", "expectedOutcome": "ok"}))
        .collect();
    call(
        "createScenario",
        "createScenario",
        json!({"slug": "loop", "title": "Loop", "steps": steps}),
    );
    let start = Instant::now();
    for _ in 0..LOOPS {
        let run = call("startRun", "startRun", json!({"scenarioSlug": "loop"}));
        let rid = run["runId"].as_str().unwrap().to_string();
        for step in 1..=5 {
            let sid = format!("{step:02}");
            call(
                "recordEvidence(screenshot)",
                "recordEvidence",
                json!({"runId": rid, "stepId": sid, "type": "screenshot", "name": "after", "data": shot.to_str().unwrap()}),
            );
            call(
                "recordEvidence(text)",
                "recordEvidence",
                json!({"runId": rid, "stepId": sid, "type": "console_log", "name": "console", "data": "GET /api/items 200"}),
            );
            call(
                "completeStep",
                "completeStep",
                json!({"runId": rid, "stepId": sid, "status": "pass", "duration": 12}),
            );
        }
        call(
            "completeRun",
            "completeRun",
            json!({"runId": rid, "status": "pass", "duration": 100}),
        );
        call("getStatus", "getStatus", json!({}));
    }
    let elapsed = start.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    eprintln!(
        "  minimal line client (the server's round trip): {:.0} calls/s",
        (LOOPS * 18) as f64 / elapsed.as_secs_f64()
    );
    report(lat);
}

fn report(lat: BTreeMap<&'static str, Vec<Duration>>) {
    for (tool, mut v) in lat {
        if v.len() < 10 {
            continue;
        }
        v.sort();
        let p = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
        eprintln!(
            "  {tool:<28} p50 {:.3} ms  p99 {:.3} ms",
            p(0.50).as_secs_f64() * 1000.0,
            p(0.99).as_secs_f64() * 1000.0
        );
    }
}

/// The same loop without the transport: the tools' own cost, in this process.
fn in_process(shot: &std::path::Path) {
    let tmp = tempfile::tempdir().unwrap();
    let ctx = harshjudge_mcp::Context::new(tmp.path()).unwrap();
    let mut lat: BTreeMap<&'static str, Vec<Duration>> = BTreeMap::new();
    let mut call = |label: &'static str, name: &str, a: Value| {
        let out = harshjudge_mcp::call(&ctx, name, Some(a));
        assert!(!out.is_error(), "{name}: {}", out.value);
        lat.entry(label).or_default().push(out.elapsed);
        out.value
    };
    call(
        "initProject",
        "initProject",
        json!({"projectName": "Bench"}),
    );
    let steps: Vec<Value> = (1..=5)
        .map(|i| json!({"title": format!("Step {i}"), "actions": "act", "expectedOutcome": "ok"}))
        .collect();
    call(
        "createScenario",
        "createScenario",
        json!({"slug": "loop", "title": "Loop", "steps": steps}),
    );
    for _ in 0..LOOPS {
        let run = call("startRun", "startRun", json!({"scenarioSlug": "loop"}));
        let id = run["runId"].as_str().unwrap().to_string();
        for step in 1..=5 {
            let sid = format!("{step:02}");
            call(
                "recordEvidence(screenshot)",
                "recordEvidence",
                json!({"runId": id, "stepId": sid, "type": "screenshot", "name": "after", "data": shot.to_str().unwrap()}),
            );
            call(
                "recordEvidence(text)",
                "recordEvidence",
                json!({"runId": id, "stepId": sid, "type": "console_log", "name": "console", "data": "GET /api/items 200"}),
            );
            call(
                "completeStep",
                "completeStep",
                json!({"runId": id, "stepId": sid, "status": "pass", "duration": 12}),
            );
        }
        call(
            "completeRun",
            "completeRun",
            json!({"runId": id, "status": "pass", "duration": 100}),
        );
        call("getStatus", "getStatus", json!({}));
    }
    eprintln!("  in process (no transport), the tools' own time:");
    report(lat);
}
