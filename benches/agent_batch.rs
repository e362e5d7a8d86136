//! A 5-action browser flow (navigate, type, type, click, wait) against the demo
//! app through `harshjudge-mcp` over stdio: as one `run_steps` call and as five
//! calls. Reports round trips and wall time (median of 20 rounds each).
//!
//! `cargo bench --bench agent_batch` (builds the release server first; needs
//! chromium and chromium-driver).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

struct Client {
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    id: u64,
}

impl Client {
    fn send(&mut self, msg: Value) {
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
    }
    fn rpc(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let id = self.id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v["result"].clone();
            }
        }
    }
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let r = self.rpc("tools/call", json!({"name": tool, "arguments": args}));
        assert_ne!(r["isError"], true, "{tool}: {r}");
        r["structuredContent"].clone()
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let built = Command::new(env!("CARGO"))
        .current_dir(root)
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "harshjudge-mcp",
            "--bin",
            "harshjudge-mcp",
        ])
        .status()
        .unwrap();
    assert!(built.success());
    let bin = std::path::Path::new(root).join("target/release/harshjudge-mcp");
    let base = demo_app::start_in_background().unwrap();
    let project = tempfile::tempdir().unwrap();
    let mut child = Command::new(bin)
        .current_dir(project.path())
        .env("HARSHJUDGE_LOG", "warn")
        .env("HARSHJUDGE_DASHBOARD", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut c = Client {
        stdin: child.stdin.take().unwrap(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
        id: 0,
    };
    c.rpc(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}),
    );
    c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    c.call(
        "initProject",
        json!({"projectName": "Bench", "baseUrl": base}),
    );
    c.call("browser_launch", json!({}));
    let flow = [
        ("browser_navigate", json!({"url": "/login"})),
        (
            "browser_type",
            json!({"selector": "#email", "text": "ada@example.com"}),
        ),
        (
            "browser_type",
            json!({"selector": "#password", "text": "secret"}),
        ),
        ("browser_click", json!({"testId": "sign-in"})),
        ("browser_wait_for", json!({"text": "Welcome, Ada"})),
    ];
    let steps: Vec<Value> = flow
        .iter()
        .map(|(t, a)| json!({"tool": t, "args": a}))
        .collect();
    // Warm up both ways.
    c.call(
        "run_steps",
        json!({"steps": steps, "includeObservations": "none"}),
    );
    for (t, a) in &flow {
        c.call(t, a.clone());
    }
    let (mut batched, mut single, mut inside) = (vec![], vec![], vec![]);
    for _ in 0..20 {
        let t = Instant::now();
        let r = c.call(
            "run_steps",
            json!({"steps": steps, "includeObservations": "none"}),
        );
        batched.push(t.elapsed());
        assert_eq!(r["summary"]["succeeded"], 5, "{r}");
        let tools_ms: f64 = r["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["meta"]["durationMs"].as_f64().unwrap())
            .sum();
        inside.push(Duration::from_secs_f64(tools_ms / 1000.0));
        let t = Instant::now();
        for (tool, a) in &flow {
            c.call(tool, a.clone());
        }
        single.push(t.elapsed());
    }
    c.call("browser_close", json!({}));
    drop(c);
    let _ = child.wait();
    let (b, s, i) = (median(batched), median(single), median(inside));
    eprintln!();
    eprintln!("agent_batch: a 5-action browser flow over stdio, median of 20 rounds");
    eprintln!(
        "  run_steps (1 round trip)   {:.1} ms",
        b.as_secs_f64() * 1000.0
    );
    eprintln!(
        "  five calls (5 round trips) {:.1} ms",
        s.as_secs_f64() * 1000.0
    );
    eprintln!(
        "  the actions themselves     {:.1} ms (browser time inside run_steps)",
        i.as_secs_f64() * 1000.0
    );
    eprintln!(
        "  saved per flow             {:.1} ms ({:.2} ms per round trip avoided)",
        (s.as_secs_f64() - b.as_secs_f64()) * 1000.0,
        (s.as_secs_f64() - b.as_secs_f64()) * 1000.0 / 4.0
    );
}
