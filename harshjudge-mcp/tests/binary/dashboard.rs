//! The live dashboard: `dashboard open|status|close` through the real binary,
//! the MCP tools through the in-process dispatch and over stdio, the HTTP
//! routes (report, JSON API, files) with a raw HTTP client, path confinement,
//! port fallback, stale state and the `report` command.
//!
//! Every test closes what it opened; a guard kills the dashboard if a test
//! panics first.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use harshjudge_mcp::dashboard::{Dashboard, alive};
use harshjudge_mcp::{Code, Context, call};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_harshjudge-mcp");

// ---------------------------------------------------------------- helpers

/// A block of 10 ports, all free now, different for every call of this process
/// (below the ephemeral range, so outgoing connections do not take them).
fn free_ports() -> u16 {
    static NEXT: Mutex<u16> = Mutex::new(0);
    let mut next = NEXT.lock().unwrap_or_else(|e| e.into_inner());
    if *next == 0 {
        *next = 12_000 + (std::process::id() % 1500) as u16 * 10;
    }
    loop {
        let p = *next;
        *next = if p > 29_000 { 12_000 } else { p + 10 };
        if (p..p + 10).all(harshjudge_mcp::dashboard::port_free) {
            return p;
        }
    }
}

/// Ten consecutive loopback ports, bound here. A range found free may be taken
/// before it is bound (other tests start servers meanwhile): then the next.
fn hold_ten_ports() -> (u16, Vec<TcpListener>) {
    loop {
        let port = free_ports();
        let held: Result<Vec<TcpListener>, _> = (port..port + 10)
            .map(|q| TcpListener::bind((Ipv4Addr::LOCALHOST, q)))
            .collect();
        if let Ok(held) = held {
            return (port, held);
        }
    }
}

struct Project {
    dir: tempfile::TempDir,
    ctx: Context,
}

impl Project {
    /// initProject, scenario `login` (2 steps) and one passed run with a
    /// console log in step 01.
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Context::new(dir.path()).unwrap();
        let p = Project { dir, ctx };
        p.ok("initProject", json!({"projectName": "Demo"}));
        p.ok(
            "createScenario",
            json!({"slug": "login", "title": "User login", "tags": ["auth"], "steps": [
                {"title": "Open the page", "actions": "goto /", "expectedOutcome": "a form"},
                {"title": "Sign in", "actions": "submit", "expectedOutcome": "welcome"}
            ]}),
        );
        p.record_run();
        p
    }
    fn root(&self) -> &Path {
        self.ctx.root()
    }
    fn hj(&self) -> PathBuf {
        self.root().join(".harshJudge")
    }
    fn state_file(&self) -> PathBuf {
        self.hj().join(".dashboard-state.json")
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
    fn start(&self) -> String {
        self.ok("startRun", json!({"scenarioSlug": "login"}))["runId"]
            .as_str()
            .unwrap()
            .to_string()
    }
    /// A whole passed run; its id.
    fn record_run(&self) -> String {
        let run = self.start();
        self.ok(
            "recordEvidence",
            json!({"runId": run, "step": 1, "type": "console_log", "name": "console", "data": "hello from step one"}),
        );
        for step in ["01", "02"] {
            self.ok(
                "completeStep",
                json!({"runId": run, "stepId": step, "status": "pass", "duration": 12}),
            );
        }
        self.ok("completeRun", json!({"runId": run}));
        run
    }
    /// `harshjudge-mcp --cwd <root> args…`.
    fn cli(&self, args: &[&str]) -> Out {
        cli(self.root(), args)
    }
    /// The project root as the `{p}` segment of an API route.
    fn p(&self) -> String {
        encode(&self.root().to_string_lossy())
    }
}

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

fn cli(root: &Path, args: &[&str]) -> Out {
    let mut all = vec!["--cwd", root.to_str().unwrap()];
    all.extend_from_slice(args);
    let o = Command::new(BIN)
        .env("HARSHJUDGE_DASHBOARD", "off")
        .args(&all)
        .current_dir("/")
        .env_remove("HARSHJUDGE_PROJECT")
        .env_remove("HARSHJUDGE_ALLOWED_ROOTS")
        .output()
        .unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Closes the project's dashboard when dropped, and kills the process if that
/// did not stop it (a test that panics leaves nothing running).
struct Guard {
    root: PathBuf,
    pid: Option<u32>,
}

impl Guard {
    fn new(root: &Path) -> Guard {
        Guard {
            root: root.to_path_buf(),
            pid: None,
        }
    }
    fn pid(&mut self, pid: u64) -> u32 {
        let pid = u32::try_from(pid).unwrap();
        self.pid = Some(pid);
        pid
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = Dashboard::new(&self.root).close();
        if let Some(pid) = self.pid.filter(|p| *p > 1)
            && alive(pid)
        {
            // A process this test started.
            let _ = rustix::process::kill_process(
                rustix::process::Pid::from_raw(pid as i32).expect("a pid"),
                rustix::process::Signal::KILL,
            );
        }
    }
}

fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// An HTTP answer.
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    fn json(&self) -> Value {
        assert_eq!(self.status, 200, "{}", self.text());
        assert_eq!(
            self.header("content-type"),
            Some("application/json; charset=utf-8")
        );
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }
    fn error(&self, status: u16) -> String {
        assert_eq!(self.status, status, "{}", self.text());
        let v: Value =
            serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()));
        v["error"].as_str().unwrap().to_string()
    }
}

/// A raw HTTP/1.1 request (the path is sent exactly as given).
fn request(port: u16, method: &str, path: &str, host: &str) -> Resp {
    let mut s = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut buf = vec![];
    s.read_to_end(&mut buf).unwrap();
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete HTTP answer");
    let head = String::from_utf8_lossy(&buf[..split]).into_owned();
    let body = buf[split + 4..].to_vec();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let r = Resp {
        status,
        headers,
        body,
    };
    if let Some(n) = r.header("content-length").filter(|_| method != "HEAD") {
        assert_eq!(n.parse::<usize>().unwrap(), r.body.len(), "whole body");
    }
    r
}

fn get(port: u16, path: &str) -> Resp {
    request(port, "GET", path, &format!("127.0.0.1:{port}"))
}

fn session_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()
}

fn wait_until(what: &str, secs: u64, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Opens the dashboard with the CLI on a free port; (guard, port, pid, result).
fn open(p: &Project) -> (Guard, u16, u32, Value) {
    let mut guard = Guard::new(p.root());
    let port = free_ports();
    let v = p
        .cli(&[
            "dashboard",
            "open",
            "--no-browser",
            "--port",
            &port.to_string(),
        ])
        .json();
    let pid = guard.pid(v["pid"].as_u64().unwrap());
    (guard, port, pid, v)
}

// ---------------------------------------------------------------- tests

#[test]
fn cli_open_status_api_and_close() {
    let p = Project::new();
    let run = p.ok("getStatus", json!({"scenarioSlug": "login"}))["recentRuns"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let t = Instant::now();
    let (guard, port, pid, v) = open(&p);
    // The command returns at once: the dashboard does not hold its output open.
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    let url = format!("http://127.0.0.1:{port}");
    assert_eq!(
        v,
        json!({"success": true, "url": url, "port": port, "pid": pid, "alreadyRunning": false,
               "message": format!("Dashboard started at {url}")})
    );
    assert!(alive(pid));
    assert_eq!(session_of(pid), Some(pid), "own session (setsid)");

    // The state file, with the original's keys in its order.
    let text = std::fs::read_to_string(p.state_file()).unwrap();
    let state: Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&str> = state
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(keys, ["pid", "port", "url", "startedAt", "projectPath"]);
    assert_eq!(state["pid"], pid);
    assert_eq!(state["port"], port);
    assert_eq!(state["url"], url);
    assert_eq!(state["projectPath"], p.root().to_str().unwrap());
    let started = state["startedAt"].as_str().unwrap().to_string();
    assert!(started.ends_with('Z') && started.len() == 24, "{started}");

    let s = p.cli(&["dashboard", "status"]).json();
    assert_eq!(
        s,
        json!({"running": true, "pid": pid, "port": port, "url": url, "startedAt": started,
               "message": format!("Dashboard running at {url} (PID: {pid})")})
    );

    // Opening again finds it.
    let again = p
        .cli(&[
            "dashboard",
            "open",
            "--no-browser",
            "--port",
            &(port + 5).to_string(),
        ])
        .json();
    assert_eq!(again["alreadyRunning"], true);
    assert_eq!(again["pid"], pid);
    assert_eq!(again["port"], port);
    assert_eq!(
        again["message"],
        format!("Dashboard already running at {url}")
    );

    // --- the JSON API
    let projects = get(port, "/api/projects").json();
    assert_eq!(
        projects,
        json!([{"path": p.root().to_str().unwrap(), "name": "Demo", "scenarioCount": 1, "overallStatus": "pass"}])
    );
    let list = get(port, &format!("/api/projects/{}/scenarios", p.p())).json();
    assert_eq!(list.as_array().unwrap().len(), 1);
    let sc = &list[0];
    assert_eq!(sc["slug"], "login");
    assert_eq!(sc["title"], "User login");
    assert_eq!(sc["tags"], json!(["auth"]));
    assert_eq!(sc["stepCount"], 2);
    assert_eq!(sc["lastResult"], "pass");
    assert_eq!(sc["totalRuns"], 1);
    assert_eq!(sc["passRate"], 100.0);
    assert!(sc["lastRun"].is_string());

    let detail = get(port, &format!("/api/projects/{}/scenarios/login", p.p())).json();
    assert_eq!(detail["slug"], "login");
    assert_eq!(
        detail["steps"],
        json!([{"id": "01", "title": "Open the page"}, {"id": "02", "title": "Sign in"}])
    );
    assert_eq!(detail["stepCount"], 2);
    assert_eq!(detail["content"], "");
    assert_eq!(detail["meta"]["title"], "User login");
    assert_eq!(detail["meta"]["totalRuns"], 1);
    assert_eq!(detail["recentRuns"][0]["id"], run.as_str());

    let runs = get(
        port,
        &format!("/api/projects/{}/scenarios/login/runs", p.p()),
    )
    .json();
    let r0 = &runs[0];
    let keys: Vec<&str> = r0.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "id",
            "runNumber",
            "status",
            "duration",
            "startedAt",
            "completedAt",
            "errorMessage",
            "failedStep"
        ]
    );
    assert_eq!(r0["id"], run.as_str());
    assert_eq!(r0["runNumber"], 1);
    assert_eq!(r0["status"], "pass");
    assert!(r0["errorMessage"].is_null());

    let one = get(
        port,
        &format!("/api/projects/{}/scenarios/login/runs/{run}", p.p()),
    )
    .json();
    assert_eq!(one["runId"], run.as_str());
    assert_eq!(one["scenarioSlug"], "login");
    assert_eq!(one["result"]["status"], "pass");
    assert_eq!(one["result"]["runNumber"], 1);
    let evidence = p.hj().join(format!(
        "scenarios/login/runs/{run}/step-01/evidence/console.txt"
    ));
    assert_eq!(one["evidencePaths"], json!([evidence.to_str().unwrap()]));

    // Unknown scenario and run are 404 (the original answered null), bad ids 400.
    let e = get(port, &format!("/api/projects/{}/scenarios/nope", p.p())).error(404);
    assert!(e.contains("nope"), "{e}");
    get(
        port,
        &format!("/api/projects/{}/scenarios/nope/runs", p.p()),
    )
    .error(404);
    get(
        port,
        &format!("/api/projects/{}/scenarios/login/runs/nope", p.p()),
    )
    .error(404);
    get(port, &format!("/api/projects/{}/scenarios/Bad_Slug", p.p())).error(400);
    get(
        port,
        &format!("/api/projects/{}/scenarios/login/runs/a.b", p.p()),
    )
    .error(400);
    assert_eq!(get(port, "/api/nope").error(404), "API endpoint not found");

    // Another project, even a real one, is refused.
    let other = Project::new();
    let e = get(port, &format!("/api/projects/{}/scenarios", other.p())).error(403);
    assert!(e.contains(p.root().to_str().unwrap()), "{e}");
    get(
        port,
        &format!("/api/projects/{}/scenarios/login/runs", other.p()),
    )
    .error(403);
    get(port, &format!("/api/projects/{}/scenarios", encode("/etc"))).error(403);

    // Evidence through /api/file (absolute, or relative to the project) and as a static file.
    let f = get(
        port,
        &format!("/api/file?path={}", encode(evidence.to_str().unwrap())),
    );
    assert_eq!(f.status, 200);
    assert_eq!(f.text(), "hello from step one");
    assert_eq!(f.header("content-type"), Some("text/plain; charset=utf-8"));
    let f = get(
        port,
        &format!(
            "/api/file?path={}",
            encode(&format!(
                ".harshJudge/scenarios/login/runs/{run}/step-01/evidence/console.txt"
            ))
        ),
    );
    assert_eq!(f.text(), "hello from step one");
    let f = get(
        port,
        &format!("/scenarios/login/runs/{run}/step-01/evidence/console.txt"),
    );
    assert_eq!(f.status, 200);
    assert_eq!(f.text(), "hello from step one");
    let sidecar = get(
        port,
        &format!("/scenarios/login/runs/{run}/step-01/evidence/console.meta.json"),
    );
    assert_eq!(
        sidecar.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    assert_eq!(get(port, "/scenarios/login/runs/nope.png").status, 404);

    // --- the report, served live
    let r = get(port, "/");
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), Some("/report/"));
    for path in ["/report/", "/report/index.html"] {
        let r = get(port, path);
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(r.text(), harshjudge_store::report::html::index_html());
    }
    let r = get(port, "/report/data/overview.js");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("application/javascript; charset=utf-8")
    );
    assert_eq!(r.header("cache-control"), Some("no-cache"));
    assert!(
        r.text().starts_with("window.__hj.overview("),
        "{}",
        r.text()
    );
    assert!(r.text().contains(&run), "{}", r.text());
    let r = get(port, &format!("/report/data/runs/login/{run}.js"));
    assert_eq!(r.status, 200);
    assert!(r.text().starts_with("window.__hj.run("), "{}", r.text());
    assert!(r.text().contains("hello from step one") || r.text().contains("console.txt"));
    assert_eq!(
        get(
            port,
            "/report/data/runs/login/20990101T000000000Z-zzzzzz.js"
        )
        .status,
        404
    );
    assert_eq!(get(port, "/report/data/runs/login/a.b.js").status, 400);
    assert_eq!(get(port, "/report/data/runs/Bad/x.js").status, 400);
    let stamp = get(port, "/api/stamp").json();
    assert!(
        stamp["stamp"].as_str().is_some_and(|s| !s.is_empty()),
        "{stamp}"
    );
    let h = get(port, "/api/health").json();
    assert_eq!(h["pid"], pid);
    assert_eq!(h["projectPath"], p.root().to_str().unwrap());
    // No CORS: same origin only.
    assert!(
        get(port, "/api/projects")
            .header("access-control-allow-origin")
            .is_none()
    );

    // --- close
    let c = p.cli(&["dashboard", "close"]).json();
    assert_eq!(
        c,
        json!({"success": true, "wasRunning": true, "message": format!("Dashboard stopped (was running on port {port})")})
    );
    assert!(!alive(pid), "the process is gone");
    assert!(!p.state_file().exists());
    assert!(
        TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err(),
        "port closed"
    );
    assert_eq!(
        p.cli(&["dashboard", "status"]).json(),
        json!({"running": false, "message": "Dashboard is not running. Use openDashboard to start it."})
    );
    assert_eq!(
        p.cli(&["dashboard", "close"]).json(),
        json!({"success": true, "wasRunning": false, "message": "Dashboard is not running"})
    );
    // The log holds the dashboard's output (nothing went to the command's stdout).
    let log = std::fs::read_to_string(p.hj().join(".dashboard.log")).unwrap();
    assert!(log.contains(&format!("http://127.0.0.1:{port}/")), "{log}");
    assert!(log.contains("stopped"), "{log}");
    drop(guard);
}

#[test]
fn files_outside_harshjudge_are_never_served() {
    let p = Project::new();
    let secret = "TOP-SECRET-CONTENT";
    std::fs::write(p.root().join("secret.txt"), secret).unwrap();
    std::fs::write(p.dir.path().join("secret.txt"), secret).unwrap();
    std::os::unix::fs::symlink(p.root().join("secret.txt"), p.hj().join("link.txt")).unwrap();
    std::os::unix::fs::symlink(p.root(), p.hj().join("up")).unwrap();
    let (guard, port, _pid, _) = open(&p);

    let root = p.root().to_str().unwrap().to_string();
    let hj = p.hj().to_str().unwrap().to_string();
    for (path, status) in [
        (format!("{root}/secret.txt"), 403),
        (format!("{hj}/../secret.txt"), 403),
        (format!("{hj}/link.txt"), 403),
        (format!("{hj}/up/secret.txt"), 403),
        ("/etc/passwd".to_string(), 403),
        ("secret.txt".to_string(), 403),
        (format!("{root}/.harshJudgeX/secret.txt"), 403),
        ("/nonexistent/.harshJudge/x".to_string(), 403),
        (format!("{hj}/missing.png"), 404),
        (format!("{hj}/scenarios"), 404),
    ] {
        let r = get(port, &format!("/api/file?path={}", encode(&path)));
        assert_eq!(r.status, status, "{path}: {}", r.text());
        assert!(!r.text().contains(secret), "{path}");
    }
    assert_eq!(get(port, "/api/file").error(400), "Missing path parameter");
    assert_eq!(
        get(port, "/api/file?path=").error(400),
        "Missing path parameter"
    );
    let e = get(
        port,
        &format!("/api/file?path={}", encode(&format!("{hj}/../secret.txt"))),
    )
    .error(403);
    assert!(e.contains("traversal"), "{e}");

    for path in [
        "/../secret.txt",
        "/..%2fsecret.txt",
        "/..%2Fsecret.txt",
        "/%2e%2e/secret.txt",
        "/%2e%2e%2fsecret.txt",
        "/scenarios/..%2f..%2fsecret.txt",
        "/scenarios/%2e%2e/%2e%2e/secret.txt",
        "/..%5csecret.txt",
        "/..%2f..%2f..%2f..%2f..%2f..%2fetc/passwd",
        "/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/link.txt",
        "/up/secret.txt",
        "/%00secret.txt",
        "/secret.txt",
    ] {
        let r = get(port, path);
        assert!(
            r.status == 403 || r.status == 404 || r.status == 400,
            "{path}: {} {}",
            r.status,
            r.text()
        );
        assert!(!r.text().contains(secret), "{path} leaked the file");
        assert!(!r.text().contains("root:"), "{path} leaked /etc/passwd");
    }
    // Inside is fine, hidden files too.
    assert_eq!(get(port, "/config.yaml").status, 200);
    assert!(
        get(port, "/.dashboard-state.json")
            .text()
            .contains("startedAt")
    );

    // Only GET and HEAD; only local Host names.
    for m in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        for path in ["/api/projects", "/config.yaml", "/report/"] {
            let r = request(port, m, path, &format!("127.0.0.1:{port}"));
            assert_eq!(r.status, 405, "{m} {path}");
            assert_eq!(r.header("allow"), Some("GET, HEAD"));
        }
    }
    let head = request(port, "HEAD", "/config.yaml", &format!("localhost:{port}"));
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(
        request(port, "GET", "/api/projects", "evil.example").status,
        403,
        "DNS rebinding"
    );
    assert_eq!(
        request(
            port,
            "GET",
            "/api/projects",
            &format!("localhost:{}", port + 1)
        )
        .status,
        200,
        "any port (forwarding)"
    );
    // Captured pages run no script in the dashboard's origin.
    std::fs::write(p.hj().join("page.html"), "<script>alert(1)</script>").unwrap();
    let r = get(port, "/page.html");
    assert_eq!(r.header("content-security-policy"), Some("sandbox"));
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));

    // Loopback only.
    let lan = std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|s| s.connect("192.0.2.1:9").map(|()| s))
        .and_then(|s| s.local_addr())
        .map(|a| a.ip());
    if let Ok(ip) = lan
        && !ip.is_loopback()
    {
        assert!(
            TcpStream::connect_timeout(&(ip, port).into(), Duration::from_millis(500)).is_err(),
            "not reachable on {ip}"
        );
    }
    drop(guard);
}

/// `/api/stamp?since=S` is a long poll: it answers at once when the stamp is
/// not `S`, and holds while it is, answering with the new stamp as soon as
/// the store changes (the live page saw a change only at its next 1 s poll).
#[test]
fn a_stamp_asked_since_the_current_one_is_held_until_the_store_changes() {
    let p = Project::new();
    let (guard, port, _pid, _) = open(&p);
    let stamp1 = get(port, "/api/stamp").json()["stamp"]
        .as_str()
        .unwrap()
        .to_string();
    let other = get(port, "/api/stamp?since=0000").json()["stamp"].clone();
    assert_eq!(other, stamp1.as_str(), "another stamp answers at once");

    let since = stamp1.clone();
    let held = std::thread::spawn(move || {
        let t = Instant::now();
        let r = get(port, &format!("/api/stamp?since={since}")).json();
        (r["stamp"].as_str().unwrap().to_string(), t.elapsed())
    });
    std::thread::sleep(Duration::from_millis(400));
    assert!(!held.is_finished(), "an unchanged stamp is held");
    let changed_at = Instant::now();
    let _running = p.start();
    let (stamp2, waited) = held.join().unwrap();
    let after_change = changed_at.elapsed();
    // A new stamp: the first change it saw (starting a run writes more than
    // one file, so the stamp may move on again after the answer).
    assert_ne!(stamp2, stamp1, "it answered with a new stamp");
    assert!(
        waited < Duration::from_secs(20),
        "answered by the change, not by the 20 s hold: {waited:?} ({after_change:?} after the change)"
    );
    drop(guard);
}

#[test]
fn new_runs_show_up_live() {
    let p = Project::new();
    let (guard, port, _pid, _) = open(&p);
    let runs_path = format!("/api/projects/{}/scenarios/login/runs", p.p());
    let before = get(port, &runs_path).json();
    assert_eq!(before.as_array().unwrap().len(), 1);
    let stamp1 = get(port, "/api/stamp").json()["stamp"].clone();
    assert_eq!(get(port, "/api/stamp").json()["stamp"], stamp1, "stable");

    // A run that is still going shows as running.
    let running = p.start();
    let stamp2 = get(port, "/api/stamp").json()["stamp"].clone();
    assert_ne!(stamp2, stamp1, "a new run changes the stamp");
    let now = get(port, &runs_path).json();
    assert_eq!(now.as_array().unwrap().len(), 2);
    assert_eq!(now[0]["id"], running.as_str());
    assert_eq!(now[0]["status"], "running");
    assert_eq!(now[0]["runNumber"], 2);
    assert!(now[0].get("completedAt").is_none(), "{}", now[0]);

    // It fails at step 01.
    p.ok(
        "completeStep",
        json!({"runId": running, "stepId": "01", "status": "fail", "duration": 5, "error": "no form"}),
    );
    let stamp3 = get(port, "/api/stamp").json()["stamp"].clone();
    assert_ne!(stamp3, stamp2, "a completed step changes the stamp");
    p.ok("completeRun", json!({"runId": running}));
    let now = get(port, &runs_path).json();
    assert_eq!(now[0]["status"], "fail");
    assert_eq!(now[0]["failedStep"], "01");
    assert_eq!(now[0]["errorMessage"], "no form");
    assert_ne!(get(port, "/api/stamp").json()["stamp"], stamp3);

    let third = p.record_run();
    let now = get(port, &runs_path).json();
    let ids: Vec<&str> = now
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(ids[0], third);
    assert_eq!(ids[1], running);
    let numbers: Vec<u64> = now
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["runNumber"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [3, 2, 1], "stored run numbers");
    assert_eq!(
        get(port, &format!("/api/projects/{}/scenarios/login", p.p())).json()["recentRuns"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let overview = get(port, "/report/data/overview.js").text();
    assert!(
        overview.contains(&third) && overview.contains(&running),
        "{overview}"
    );
    assert_eq!(
        get(port, &format!("/report/data/runs/login/{running}.js")).status,
        200
    );
    let projects = get(port, "/api/projects").json();
    assert_eq!(projects[0]["overallStatus"], "pass", "the last run passed");

    // A new scenario appears too.
    p.ok(
        "createScenario",
        json!({"slug": "checkout", "title": "Checkout", "steps": [{"title": "Pay", "actions": "pay", "expectedOutcome": "paid"}]}),
    );
    let list = get(port, &format!("/api/projects/{}/scenarios", p.p())).json();
    let slugs: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["slug"].as_str().unwrap())
        .collect();
    assert_eq!(
        slugs,
        ["login", "checkout"],
        "run ones first, never-run last"
    );
    assert_eq!(list[1]["passRate"], 0.0);
    assert!(list[1]["lastRun"].is_null());
    drop(guard);
}

#[test]
fn mcp_tools_open_status_and_close_in_process() {
    harshjudge_mcp::dashboard::set_binary(BIN);
    let p = Project::new();
    let mut guard = Guard::new(p.root());
    let port = free_ports();

    assert_eq!(
        p.ok("getDashboardStatus", json!({})),
        json!({"running": false, "message": "Dashboard is not running. Use openDashboard to start it."})
    );
    let v = p.ok("openDashboard", json!({"port": port, "openBrowser": false}));
    let pid = guard.pid(v["pid"].as_u64().unwrap());
    let url = format!("http://127.0.0.1:{port}");
    assert_eq!(v["success"], true);
    assert_eq!(v["url"], url);
    assert_eq!(v["port"], port);
    assert_eq!(v["alreadyRunning"], false);
    assert_eq!(v["message"], format!("Dashboard started at {url}"));
    assert_ne!(pid, std::process::id());

    let s = p.ok(
        "getDashboardStatus",
        json!({"projectPath": p.root().to_str().unwrap()}),
    );
    assert_eq!(s["running"], true);
    assert_eq!(s["pid"], pid);
    assert_eq!(s["url"], url);
    assert!(s["startedAt"].is_string());
    assert_eq!(
        s["message"],
        format!("Dashboard running at {url} (PID: {pid})")
    );
    let again = p.ok("openDashboard", json!({"openBrowser": false}));
    assert_eq!(again["alreadyRunning"], true);
    assert_eq!(again["pid"], pid);
    assert_eq!(
        again["message"],
        format!("Dashboard already running at {url}")
    );

    // The CLI sees the dashboard the tool opened.
    assert_eq!(p.cli(&["dashboard", "status"]).json()["pid"], pid);

    let c = p.ok("closeDashboard", json!({"projectPath": "."}));
    assert_eq!(
        c,
        json!({"success": true, "wasRunning": true, "message": format!("Dashboard stopped (was running on port {port})")})
    );
    // The server reaps its child: no zombie either.
    wait_until("the dashboard is reaped", 5, || {
        // Signal 0 only checks that the process exists.
        rustix::process::test_kill_process(
            rustix::process::Pid::from_raw(pid as i32).expect("a pid"),
        )
        .is_err()
    });
    assert!(!p.state_file().exists());
    assert_eq!(p.ok("getDashboardStatus", json!({}))["running"], false);
    drop(guard);
}

#[test]
fn mcp_tools_validate_their_arguments_and_the_project_path() {
    harshjudge_mcp::dashboard::set_binary(BIN);
    let mut p = Project::new();
    p.ctx.allowed_roots = vec![p.root().to_path_buf()];
    for (args, needle) in [
        (json!({"port": 80}), "port must be 1024 to 65535 (got 80)"),
        (
            json!({"port": 70000}),
            "port must be 1024 to 65535 (got 70000)",
        ),
        (json!({"port": -1}), "port must be 1024 to 65535"),
        (json!({"port": "7002"}), "port"),
        (json!({"openBrowser": "no"}), "openBrowser"),
        (json!({"projectPath": ""}), "projectPath must not be empty"),
    ] {
        let (code, msg) = p.err("openDashboard", args.clone());
        assert_eq!(code, Code::InvalidInput, "{args}: {msg}");
        assert!(msg.contains(needle), "{args}: {msg}");
    }
    // An unknown key is ignored, with a warning.
    let out = p.ok("closeDashboard", json!({"port": 7002}));
    assert_eq!(
        out["warnings"][0],
        "unknown argument \"port\" ignored (closeDashboard takes projectPath)"
    );

    // Outside the project and its allowed roots: refused, and nothing written there.
    let other = tempfile::tempdir().unwrap();
    for tool in ["openDashboard", "closeDashboard", "getDashboardStatus"] {
        let (code, msg) = p.err(tool, json!({"projectPath": other.path().to_str().unwrap()}));
        assert_eq!(code, Code::AccessDenied, "{tool}: {msg}");
        assert!(msg.contains("outside this server's project"), "{msg}");
        let (code, _) = p.err(tool, json!({"projectPath": "/"}));
        assert_eq!(code, Code::AccessDenied, "{tool}");
        let (code, _) = p.err(tool, json!({"projectPath": ".."}));
        assert_eq!(code, Code::AccessDenied, "{tool}");
        let (code, _) = p.err(tool, json!({"projectPath": "no/such/folder"}));
        assert_eq!(code, Code::NotFound, "{tool}");
    }
    assert_eq!(std::fs::read_dir(other.path()).unwrap().count(), 0);

    // Inside an allowed root: accepted; an uninitialized project is not opened
    // and gets no .harshJudge/.
    p.ctx.allow_root(other.path()).unwrap();
    let o = other.path().to_str().unwrap();
    assert_eq!(
        p.ok("getDashboardStatus", json!({"projectPath": o}))["running"],
        false
    );
    assert_eq!(
        p.ok("closeDashboard", json!({"projectPath": o}))["wasRunning"],
        false
    );
    let (code, msg) = p.err(
        "openDashboard",
        json!({"projectPath": o, "openBrowser": false}),
    );
    assert_eq!(code, Code::NotInitialized, "{msg}");
    assert!(msg.contains("initProject"), "{msg}");
    assert!(!other.path().join(".harshJudge").exists());

    // The schema says what is accepted.
    let def = harshjudge_mcp::dispatcher()
        .tools()
        .iter()
        .find(|t| t.name == "openDashboard")
        .unwrap();
    let schema = Value::Object((*(def.schema)()).clone());
    assert_eq!(schema["properties"]["port"]["minimum"], 1024, "{schema}");
    assert_eq!(schema["properties"]["port"]["maximum"], 65535, "{schema}");
    assert_eq!(
        schema["properties"]["openBrowser"]["default"], true,
        "{schema}"
    );
    assert!(schema["properties"]["projectPath"].is_object());
    for name in ["closeDashboard", "getDashboardStatus"] {
        assert!(
            harshjudge_mcp::dispatcher()
                .tools()
                .iter()
                .any(|t| t.name == name)
        );
    }
}

#[test]
fn a_taken_port_falls_back_to_the_next_and_ten_taken_ports_fail() {
    let p = Project::new();
    let mut guard = Guard::new(p.root());
    let port = free_ports();
    let hold = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).unwrap();
    let v = p
        .cli(&[
            "dashboard",
            "open",
            "--no-browser",
            "--port",
            &port.to_string(),
        ])
        .json();
    guard.pid(v["pid"].as_u64().unwrap());
    assert_eq!(v["port"], port + 1, "{v}");
    assert_eq!(v["url"], format!("http://127.0.0.1:{}", port + 1));
    assert_eq!(get(port + 1, "/api/projects").json()[0]["name"], "Demo");
    p.cli(&["dashboard", "close"]).json();
    drop(hold);

    // All ten taken.
    let (port, held) = hold_ten_ports();
    let msg = p
        .cli(&[
            "dashboard",
            "open",
            "--no-browser",
            "--port",
            &port.to_string(),
        ])
        .error("INVALID_INPUT");
    assert!(
        msg.contains(&format!("No available port found starting from {port}")),
        "{msg}"
    );
    assert!(!p.state_file().exists());
    drop(held);

    // Ports below 1024 are refused by the CLI too.
    let msg = p
        .cli(&["dashboard", "open", "--port", "80"])
        .error("INVALID_INPUT");
    assert!(msg.contains("--port"), "{msg}");
    drop(guard);
}

#[test]
fn the_default_port_is_7002_or_the_next_free_one() {
    // Other programs may hold 7002…: whatever it picks must be in 7002..=7011
    // and free before; with all of them taken it must say so.
    let p = Project::new();
    let mut guard = Guard::new(p.root());
    let free: Vec<u16> = (7002..=7011)
        .filter(|q| harshjudge_mcp::dashboard::port_free(*q))
        .collect();
    let out = p.cli(&["dashboard", "open", "--no-browser"]);
    if free.is_empty() {
        let msg = out.error("INVALID_INPUT");
        assert!(
            msg.contains("No available port found starting from 7002"),
            "{msg}"
        );
        return;
    }
    let v = out.json();
    guard.pid(v["pid"].as_u64().unwrap());
    let port = v["port"].as_u64().unwrap() as u16;
    assert!((7002..=7011).contains(&port), "{v}");
    assert!(free.contains(&port), "{v} {free:?}");
    assert_eq!(get(port, "/api/health").json()["pid"], v["pid"]);
    drop(guard);
}

#[test]
fn stale_state_is_reported_and_cleaned_up() {
    let p = Project::new();
    // The pid of a process that has exited.
    let mut dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    let port = free_ports();
    let write_state = |pid: u32| {
        std::fs::write(
            p.state_file(),
            json!({"pid": pid, "port": port, "url": format!("http://127.0.0.1:{port}"),
                   "startedAt": "2026-01-01T00:00:00.000Z", "projectPath": p.root()})
            .to_string(),
        )
        .unwrap();
    };

    write_state(dead_pid);
    let s = p.cli(&["dashboard", "status"]).json();
    assert_eq!(
        s,
        json!({"running": false, "pid": dead_pid, "port": port, "stale": true,
               "message": format!("Dashboard state is stale (process {dead_pid} is dead). Run openDashboard to start a new one.")})
    );
    assert!(p.state_file().exists(), "status changes nothing");
    assert_eq!(
        p.cli(&["dashboard", "close"]).json(),
        json!({"success": true, "wasRunning": true, "message": "Cleaned up stale dashboard state (process was already dead)"})
    );
    assert!(!p.state_file().exists());

    // A live process that is not a dashboard (a recycled pid) is never signalled.
    let mut other = Command::new("sleep").arg("30").spawn().unwrap();
    write_state(other.id());
    let s = p.cli(&["dashboard", "status"]).json();
    assert_eq!(s["stale"], true);
    assert!(
        s["message"].as_str().unwrap().contains("does not answer"),
        "{s}"
    );
    let c = p.cli(&["dashboard", "close"]).json();
    assert_eq!(c["success"], true);
    assert!(
        c["message"].as_str().unwrap().contains("not a dashboard"),
        "{c}"
    );
    assert!(other.try_wait().unwrap().is_none(), "sleep was not killed");
    other.kill().unwrap();
    other.wait().unwrap();

    // pid 0 (what the original writes under tests) and a corrupt file.
    write_state(0);
    assert_eq!(p.cli(&["dashboard", "status"]).json()["stale"], true);
    std::fs::write(p.state_file(), "{not json").unwrap();
    let s = p.cli(&["dashboard", "status"]).json();
    assert_eq!(s["running"], false);
    assert_eq!(s["stale"], true);
    assert!(
        s["message"].as_str().unwrap().contains("cannot be read"),
        "{s}"
    );

    // open replaces a stale state.
    write_state(dead_pid);
    let mut guard = Guard::new(p.root());
    let v = p
        .cli(&[
            "dashboard",
            "open",
            "--no-browser",
            "--port",
            &free_ports().to_string(),
        ])
        .json();
    guard.pid(v["pid"].as_u64().unwrap());
    assert_eq!(v["alreadyRunning"], false);
    assert_eq!(p.cli(&["dashboard", "status"]).json()["running"], true);
    p.cli(&["dashboard", "close"]).json();
    drop(guard);
}

#[test]
fn sigterm_stops_the_dashboard_gracefully_and_it_removes_its_state() {
    let p = Project::new();
    let (guard, port, pid, _) = open(&p);
    // The dashboard this test started.
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid as i32).expect("a pid"),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    wait_until("the dashboard stops", 5, || !alive(pid));
    wait_until("the state file goes", 2, || !p.state_file().exists());
    assert!(TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err());
    assert_eq!(p.cli(&["dashboard", "status"]).json()["running"], false);
    drop(guard);
}

#[test]
fn open_needs_an_initialized_project_and_the_server_keeps_stdout_clean() {
    // Not initialized: refused, nothing created.
    let empty = tempfile::tempdir().unwrap();
    let msg = cli(empty.path(), &["dashboard", "open", "--no-browser"]).error("NOT_INITIALIZED");
    assert!(msg.contains("initProject"), "{msg}");
    assert!(!empty.path().join(".harshJudge").exists());
    assert_eq!(
        cli(empty.path(), &["dashboard", "status"]).json()["running"],
        false
    );
    assert_eq!(
        cli(empty.path(), &["dashboard", "close"]).json()["wasRunning"],
        false
    );
    assert!(!empty.path().join(".harshJudge").exists());

    // Over MCP stdio: stdout carries only JSON-RPC, and once the server exits
    // stdout closes although the dashboard it started lives on.
    let p = Project::new();
    let mut guard = Guard::new(p.root());
    let port = free_ports();
    let mut server = Command::new(BIN)
        .env("HARSHJUDGE_DASHBOARD", "off")
        .args(["--cwd", p.root().to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let stdout = server.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Option<String>>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            match line {
                Ok(l) => {
                    let _ = tx.send(Some(l));
                }
                Err(_) => break,
            }
        }
        let _ = tx.send(None);
    });
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}),
    );
    let line = rx.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
    assert_eq!(serde_json::from_str::<Value>(&line).unwrap()["id"], 1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "openDashboard", "arguments": {"port": port, "openBrowser": false}}}),
    );
    let line = rx.recv_timeout(Duration::from_secs(15)).unwrap().unwrap();
    let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(v["id"], 2);
    // The result's one copy: the JSON in content[0].text.
    let result: Value =
        serde_json::from_str(v["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    let result = &result;
    assert_eq!(result["port"], port, "{v}");
    let pid = guard.pid(result["pid"].as_u64().unwrap());
    drop(stdin);
    // EOF on stdout: nothing else holds the server's stdout.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(None) => break,
            Ok(Some(l)) => {
                serde_json::from_str::<Value>(&l)
                    .unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {l}"));
            }
            Err(_) => panic!("the server's stdout stayed open after it exited"),
        }
    }
    server.wait().unwrap();
    assert!(alive(pid), "the dashboard outlives the server");
    assert_eq!(get(port, "/api/health").json()["pid"], pid);
    assert_eq!(p.cli(&["dashboard", "close"]).json()["wasRunning"], true);
    assert!(!alive(pid));
    drop(guard);
}

#[test]
fn report_command_writes_the_html_report() {
    let p = Project::new();
    let v = p.cli(&["report"]).json();
    let index = p.hj().join("report/index.html");
    assert_eq!(
        v,
        json!({"index": index.to_str().unwrap(), "scenarios": 1, "runs": 1})
    );
    assert_eq!(
        std::fs::read_to_string(&index).unwrap(),
        harshjudge_store::report::html::index_html()
    );
    assert!(p.hj().join("report/data/overview.js").is_file());
    let empty = tempfile::tempdir().unwrap();
    let msg = cli(empty.path(), &["report"]).error("NOT_INITIALIZED");
    assert!(msg.contains("initProject"), "{msg}");
    assert!(!empty.path().join(".harshJudge").exists());
}

/// Issue 11 point 16: the dashboard's own files (state, log) and its API
/// reads (a run folder, an evidence folder, `scenario.md`) never follow a
/// link out of `.harshJudge/`: 0 writes and 0 reads outside.
#[test]
fn the_dashboard_never_follows_links_out_of_harshjudge() {
    use std::os::unix::fs::symlink;
    let p = Project::new();
    let real_run = p.record_run();
    let outside = tempfile::tempdir().unwrap();
    let o = outside.path();
    let secret = "TOPSECRET-outside-the-project";
    // A run folder that is a link, an evidence folder that is a link, a linked scenario.md.
    std::fs::create_dir_all(o.join("run/step-01/evidence")).unwrap();
    std::fs::write(
        o.join("run/result.json"),
        format!(r#"{{"runId":"linkedrun","scenarioSlug":"login","status":"fail","startedAt":"2030-01-01T00:00:00Z","duration":1,"errorMessage":"{secret}","steps":[]}}"#),
    )
    .unwrap();
    std::fs::write(o.join("run/step-01/evidence/secret.txt"), secret).unwrap();
    std::fs::create_dir_all(o.join("ev")).unwrap();
    std::fs::write(o.join("ev/secret.txt"), secret).unwrap();
    std::fs::write(o.join("scenario.md"), format!("# {secret}\n")).unwrap();
    let runs = p.hj().join("scenarios/login/runs");
    symlink(o.join("run"), runs.join("linkedrun")).unwrap();
    let ev = runs.join(&real_run).join("step-02/evidence");
    std::fs::create_dir_all(ev.parent().unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&ev);
    symlink(o.join("ev"), &ev).unwrap();
    symlink(
        o.join("scenario.md"),
        p.hj().join("scenarios/login/scenario.md"),
    )
    .unwrap();
    let before = snapshot_of(o);

    let (guard, port, _pid, _) = open(&p);
    let mut outputs = vec![];
    let base = format!("/api/projects/{}/scenarios/login", p.p());
    let r = get(port, &format!("{base}/runs/linkedrun"));
    assert_eq!(
        r.status,
        404,
        "a linked run folder is not served: {}",
        r.text()
    );
    outputs.push(r.text());
    let r = get(port, &format!("{base}/runs/{real_run}"));
    assert_eq!(r.status, 200, "{}", r.text());
    let paths = r.json()["evidencePaths"].to_string();
    assert!(
        !paths.contains("step-02"),
        "a linked evidence folder is not listed: {paths}"
    );
    outputs.push(r.text());
    for path in [
        base.clone(),
        format!("{base}/runs"),
        format!("/api/projects/{}/scenarios", p.p()),
        "/report/data/overview.js".to_string(),
        format!("/report/data/runs/login/{real_run}.js"),
        "/report/data/runs/login/linkedrun.js".to_string(),
    ] {
        outputs.push(get(port, &path).text());
    }
    let status = p.cli(&["dashboard", "close"]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    drop(guard);

    // The state file and the log are links: the dashboard neither reads nor writes them.
    std::fs::write(
        o.join("state.json"),
        format!(
            r#"{{"pid":1,"port":1,"url":"http://{secret}","startedAt":"x","projectPath":"/"}}"#
        ),
    )
    .unwrap();
    std::fs::write(o.join("dashboard.log"), "error: kept outside\n").unwrap();
    let before_files = snapshot_of(o);
    let _ = std::fs::remove_file(p.state_file());
    let _ = std::fs::remove_file(p.hj().join(".dashboard.log"));
    symlink(o.join("state.json"), p.state_file()).unwrap();
    outputs.push(p.cli(&["dashboard", "status"]).stdout);
    std::fs::remove_file(p.state_file()).unwrap();
    symlink(o.join("dashboard.log"), p.hj().join(".dashboard.log")).unwrap();
    let mut guard = Guard::new(p.root());
    let port = free_ports();
    let opened = p.cli(&[
        "dashboard",
        "open",
        "--no-browser",
        "--port",
        &port.to_string(),
    ]);
    outputs.push(opened.stdout.clone() + &opened.stderr);
    if opened.code == 0 {
        let v: Value = serde_json::from_str(opened.stdout.trim_end()).unwrap();
        guard.pid(v["pid"].as_u64().unwrap());
        let _ = p.cli(&["dashboard", "close"]);
    }
    drop(guard);

    let after = snapshot_of(o);
    let writes_outside = after.iter().filter(|a| !before_files.contains(a)).count()
        + before
            .iter()
            .filter(|b| !after.iter().any(|a| a.0 == b.0))
            .count();
    let reads_outside = outputs.iter().filter(|o| o.contains(secret)).count();
    eprintln!(
        "dashboard symlink probes: {writes_outside} writes and {reads_outside} reads outside .harshJudge/"
    );
    assert_eq!((writes_outside, reads_outside), (0, 0), "{outputs:#?}");
}

/// Every file under `dir` with its bytes, sorted.
fn snapshot_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), out);
            } else {
                out.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    let mut out = vec![];
    walk(dir, &mut out);
    out.sort();
    out
}

// ------------------------------------------------- a dashboard and its project

#[path = "../../../tests/support/dashboards.rs"]
mod dashboards;
use dashboards::dashboards_of;

/// The real MCP server over stdio, with the dashboard on (as the original).
struct McpServer {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    next_id: u64,
}

impl McpServer {
    fn start(root: &Path) -> McpServer {
        let mut child = Command::new(BIN)
            .env_remove("HARSHJUDGE_DASHBOARD")
            .env("HARSHJUDGE_LOG", "warn")
            .args(["--cwd", root.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        let mut s = McpServer {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 1,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}),
        );
        s.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }
    fn send(&mut self, v: Value) {
        writeln!(self.stdin.as_mut().unwrap(), "{v}").unwrap();
    }
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|e| panic!("no answer to {method}: {e}"));
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }
    /// A tool's result (the JSON of content[0].text) and whether it is an error.
    fn tool(&mut self, name: &str, args: Value) -> (Value, bool) {
        let v = self.request("tools/call", json!({"name": name, "arguments": args}));
        let r = &v["result"];
        let value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        (value, r["isError"] == true)
    }
    /// Closes stdin and waits for the server to exit.
    fn exit(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "the MCP server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The dashboard's pid from the project's state file.
fn state_pid(root: &Path) -> u32 {
    let text = std::fs::read_to_string(root.join(".harshJudge/.dashboard-state.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    u32::try_from(v["pid"].as_u64().unwrap()).unwrap()
}

/// Issue 20.10: the dashboard initProject starts outlives the MCP server (as
/// the original's), but not its project: once the project's folder is deleted
/// it exits by itself, removing nothing (its process is polled).
#[test]
fn a_dashboard_exits_once_its_project_is_deleted() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap().join("throwaway");
    std::fs::create_dir(&root).unwrap();
    let mut guard = Guard::new(&root);
    let mut server = McpServer::start(&root);
    let (out, err) = server.tool("initProject", json!({"projectName": "Throwaway"}));
    assert!(!err, "{out}");
    assert!(
        out["dashboardUrl"]
            .as_str()
            .is_some_and(|u| u.starts_with("http://127.0.0.1:")),
        "initProject starts the dashboard (ports 7002-7011): {out}"
    );
    let pid = guard.pid(u64::from(state_pid(&root)));
    assert_eq!(dashboards_of(&root), [pid]);
    // A second initProject of the same project starts nothing.
    let (out, err) = server.tool("initProject", json!({"projectName": "Throwaway"}));
    assert!(err && out["code"] == "ALREADY_EXISTS", "{out}");
    assert_eq!(dashboards_of(&root), [pid]);
    server.exit();
    assert!(alive(pid), "the dashboard outlives the MCP server");

    std::fs::remove_dir_all(&root).unwrap();
    let t = Instant::now();
    wait_until("the dashboard of the deleted project exits", 10, || {
        !alive(pid)
    });
    eprintln!(
        "the dashboard exited {:?} after its project was deleted",
        t.elapsed()
    );
    assert!(dashboards_of(&root).is_empty(), "no dashboard left");
    assert!(!root.exists(), "the dashboard recreated nothing");
    drop(guard);
}

/// Issue 20.10: `open` finds the project's dashboard even when its state file
/// is gone, and reuses it instead of starting a second; a `.harshJudge/`
/// removed and initialized anew is another project: the old dashboard exits
/// and the new one is the only one left.
#[test]
fn open_reuses_the_project_dashboard_and_a_replaced_project_gets_a_new_one() {
    let p = Project::new();
    let (guard, port, pid, _) = open(&p);
    std::fs::remove_file(p.state_file()).unwrap();
    let again = p
        .cli(&[
            "dashboard",
            "open",
            "--no-browser",
            "--port",
            &port.to_string(),
        ])
        .json();
    assert_eq!(again["pid"], pid, "{again}");
    assert_eq!(again["alreadyRunning"], true, "{again}");
    assert_eq!(dashboards_of(p.root()), [pid]);
    assert_eq!(p.cli(&["dashboard", "status"]).json()["pid"], pid);

    // The project thrown away and initialized again in the same folder.
    std::fs::remove_dir_all(p.hj()).unwrap();
    p.ok("initProject", json!({"projectName": "Again"}));
    let mut guard2 = Guard::new(p.root());
    let fresh = p
        .cli(&[
            "dashboard",
            "open",
            "--no-browser",
            "--port",
            &port.to_string(),
        ])
        .json();
    let new_pid = guard2.pid(fresh["pid"].as_u64().unwrap());
    assert_ne!(new_pid, pid, "the old folder's dashboard is not reused");
    wait_until("the old dashboard exits", 10, || !alive(pid));
    assert_eq!(dashboards_of(p.root()), [new_pid]);
    p.cli(&["dashboard", "close"]).json();
    assert!(dashboards_of(p.root()).is_empty(), "no dashboard left");
    drop(guard2);
    drop(guard);
}
