//! Issue 23: a browser that hangs cannot hang an agent. The real
//! `harshjudge-mcp` binary over stdio, Chromium and Firefox: once the page's
//! renderer processes are stopped (SIGSTOP, as a page in an endless script or
//! an overloaded machine leaves them), a WebDriver command to the page gets no
//! answer, and the driver waits minutes (chromedriver) or for ever
//! (geckodriver). The tool call must still answer within
//! `HARSHJUDGE_TOOL_TIMEOUT` with `BROWSER_UNAVAILABLE` naming that limit;
//! `browser_close` must then end the session, leaving none of its processes
//! behind, and `browser_launch` open a browser that works.

use crate::support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The limit the server is started with.
const LIMIT: Duration = Duration::from_secs(4);

/// The `harshjudge-mcp` server over stdio, with a JSON-RPC reader.
struct Server {
    child: Child,
    stdin: ChildStdin,
    replies: mpsc::Receiver<Value>,
    next_id: u64,
}

impl Server {
    fn start(project: &std::path::Path) -> Server {
        let mut child = Command::new(support::mcp_binary())
            .current_dir(project)
            .env("HARSHJUDGE_DASHBOARD", "off")
            .env("HARSHJUDGE_LOG", "warn")
            .env("HARSHJUDGE_TOOL_TIMEOUT", "4s")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("harshjudge-mcp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line).expect("stdout carries JSON-RPC");
                if v.get("id").is_some() && tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut s = Server {
            child,
            stdin,
            replies,
            next_id: 0,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "hung-browser-test", "version": "1"}}),
            Duration::from_secs(30),
        );
        s.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, v: Value) {
        self.stdin.write_all(v.to_string().as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// A request's result, which must come within `within`.
    fn request(&mut self, method: &str, params: Value, within: Duration) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let reply = self
            .replies
            .recv_timeout(within)
            .unwrap_or_else(|_| panic!("{method} {params}: no reply within {within:?}"));
        assert_eq!(reply["id"], id, "{reply}");
        reply["result"].clone()
    }

    /// A tool call's outcome: whether it failed, and its JSON body; with how
    /// long it took.
    fn call(&mut self, tool: &str, args: Value, within: Duration) -> (bool, Value, Duration) {
        let started = Instant::now();
        let result = self.request(
            "tools/call",
            json!({"name": tool, "arguments": args}),
            within,
        );
        let took = started.elapsed();
        let failed = result["isError"].as_bool().unwrap_or(false);
        let text = result["content"][0]["text"].as_str().unwrap_or("{}");
        let body = serde_json::from_str(text).unwrap_or(Value::String(text.into()));
        (failed, body, took)
    }

    fn ok(&mut self, tool: &str, args: Value) -> Value {
        let (failed, body, _) = self.call(tool, args.clone(), Duration::from_secs(150));
        assert!(!failed, "{tool} {args} failed: {body}");
        body
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The page's content processes: Chromium's renderers, Firefox's content processes.
fn renderers(server: u32) -> Vec<u32> {
    support::descendants(server)
        .into_iter()
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmd = String::from_utf8_lossy(&cmd);
            cmd.contains("--type=renderer") || cmd.contains("-contentproc")
        })
        .collect()
}

fn signal(pids: &[u32], sig: rustix::process::Signal) {
    for pid in pids {
        if let Some(p) = rustix::process::Pid::from_raw(*pid as i32) {
            let _ = rustix::process::kill_process(p, sig);
        }
    }
}

/// A loopback app of one page.
fn serve() -> String {
    support::serve_with(|mut stream: TcpStream| {
        let _ = stream.read(&mut [0u8; 4096])?;
        let body = "<!doctype html><title>Orders</title><h1>Orders</h1><button>Refresh</button>";
        write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    })
}

fn a_hung_page_fails_the_call_within_the_limit_and_close_ends_it(browser: &str) {
    let base = serve();
    let project = tempfile::tempdir().unwrap();
    let mut server = Server::start(project.path());
    let pid = server.child.id();
    server.ok(
        "browser_launch",
        json!({"baseUrl": base, "browser": browser}),
    );
    // A run is recorded: its step's calls are traced.
    server.ok(
        "initProject",
        json!({"projectName": "Orders", "baseUrl": base}),
    );
    server.ok(
        "createScenario",
        json!({"slug": "orders", "title": "Orders", "steps": [
            {"title": "Open", "actions": "open", "expectedOutcome": "the orders"},
        ]}),
    );
    let run = server.ok("startRun", json!({"scenarioSlug": "orders"}));
    let run_id = run["runId"].as_str().unwrap().to_string();
    server.ok("browser_navigate", json!({"url": "/"}));
    let page = server.ok("browser_snapshot", json!({}));
    assert!(page.to_string().contains("Orders"), "{page}");
    // An action whose element the trace names from the page as the step ends.
    server.ok(
        "browser_click",
        json!({"role": "button", "name": "Refresh"}),
    );

    let stopped = renderers(pid);
    assert!(
        !stopped.is_empty(),
        "{browser}: the page's content processes are found under the server: {:?}",
        support::descendants(pid)
    );
    signal(&stopped, rustix::process::Signal::STOP);

    // The step's end, first: its trace cannot be read from the hung page,
    // which costs the step its trace (said in its evidence), not its result.
    let (failed, body, took) = server.call(
        "completeStep",
        json!({"runId": run_id, "stepId": "01", "status": "fail", "duration": 5}),
        Duration::from_secs(60),
    );
    assert!(!failed, "{browser}: completeStep on a hung page: {body}");
    assert!(
        took < LIMIT + Duration::from_secs(10),
        "{browser}: completeStep took {took:?}"
    );
    let evidence = project
        .path()
        .join(".harshJudge/scenarios/orders/runs")
        .join(&run_id)
        .join("step-01/evidence");
    let why = std::fs::read_to_string(evidence.join("trace-error.txt")).unwrap_or_else(|e| {
        panic!(
            "{browser}: trace-error.txt: {e}: {:?}",
            support::tree(&evidence)
        )
    });
    assert!(
        why.contains("trace was not written") && why.contains("HARSHJUDGE_TOOL_TIMEOUT"),
        "{browser}: {why}"
    );
    let result = support::json(evidence.join("../../result.json"));
    assert_eq!(result["steps"][0]["status"], "fail", "{browser}: {result}");

    // Reads, an action and an assertion: each answers within the limit (and
    // a little), failing with the code and the limit's name.
    for (tool, args) in [
        ("browser_snapshot", json!({})),
        (
            "browser_click",
            json!({"role": "button", "name": "Refresh"}),
        ),
        (
            "browser_expect",
            json!({"assertion": "to_have_title", "expected": "Orders", "timeoutMs": 1000}),
        ),
    ] {
        let (failed, body, took) = server.call(tool, args, Duration::from_secs(60));
        assert!(failed, "{browser}: {tool} on a hung page must fail: {body}");
        assert_eq!(
            body["code"], "BROWSER_UNAVAILABLE",
            "{browser}: {tool}: {body}"
        );
        let message = body["error"].as_str().unwrap_or_default();
        assert!(
            message.contains("HARSHJUDGE_TOOL_TIMEOUT") && message.contains("4s"),
            "{browser}: {tool}: the message names the limit: {message}"
        );
        assert!(
            message.contains("browser_close"),
            "{browser}: {tool}: the message says what to do: {message}"
        );
        assert!(
            took >= LIMIT && took < LIMIT + Duration::from_secs(10),
            "{browser}: {tool} answered after {took:?}, not at the limit of {LIMIT:?}"
        );
    }

    // browser_close ends the hung session and its processes.
    let (failed, body, took) = server.call("browser_close", json!({}), Duration::from_secs(60));
    assert!(!failed, "{browser}: browser_close failed: {body}");
    assert!(
        took < Duration::from_secs(30),
        "{browser}: browser_close took {took:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let alive = |pids: &[u32]| -> Vec<u32> {
        pids.iter()
            .copied()
            .filter(|p| support::alive(*p))
            .collect()
    };
    while !alive(&stopped).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    let left = alive(&stopped);
    // Whatever is left is let go again before the assertion fails.
    signal(&left, rustix::process::Signal::CONT);
    assert!(
        left.is_empty(),
        "{browser}: the hung session's processes outlive browser_close: {left:?}"
    );

    // A new browser works.
    server.ok(
        "browser_launch",
        json!({"baseUrl": base, "browser": browser}),
    );
    server.ok("browser_navigate", json!({"url": "/"}));
    let page = server.ok("browser_snapshot", json!({"full": true}));
    assert!(page.to_string().contains("Refresh"), "{browser}: {page}");
    server.ok("browser_close", json!({}));
}

#[test]
fn a_hung_chromium_page_fails_each_call_within_the_limit() {
    a_hung_page_fails_the_call_within_the_limit_and_close_ends_it("chromium");
}

#[test]
fn a_hung_firefox_page_fails_each_call_within_the_limit() {
    a_hung_page_fails_the_call_within_the_limit_and_close_ends_it("firefox");
}
