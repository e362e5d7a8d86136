//! Start-up: a one-page scenario as a whole process (start, chromedriver,
//! Chromium, one page, its evidence and reports, exit) against playwright-core's
//! launch-to-close (`chromium.launch`, `newPage`, `goto`, `screenshot`, `close`)
//! on the same system Chromium, the same page, the same machine, interleaved.
//!
//! `cargo bench --bench startup` (`STARTUP_RUNS`, default 10, runs of each
//! after one warm-up each). playwright-core is installed from npm into
//! `target/startup-bench` the first time (its browsers are not downloaded:
//! it runs the system Chromium, the one harshjudge finds, or
//! `HARSHJUDGE_CHROMIUM`). A missing node, npm, Chromium or chromedriver
//! fails the bench with a message naming it.
//!
//! The harshjudge side is this binary itself, started again with
//! `--startup-suite`: then it is a suite of one scenario (the `main!` path:
//! arguments, plan, store, browser, evidence, reports, exit code).
//! `STARTUP_BASELINE=path`: another build of this bench (say, of the commit
//! before a change) runs its suite in the same rounds, for before/after figures.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use harshjudge::{Scenario, expect, scenario, step};

/// The page both sides open.
const PAGE: &str = "<!doctype html><html><head><title>Start-up</title></head>\
<body><h1>Start-up</h1><p>One page, opened once.</p></body></html>";

#[scenario]
async fn one_page(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Open the page", {
        page.goto("/").await?;
        expect(&page.get_by_role("heading").name("Start-up"))
            .to_be_visible()
            .await?;
    });
    Ok(())
}

/// playwright-core's side: launch to close, timed inside node as well.
const PLAYWRIGHT_SCRIPT: &str = r#"
const { chromium } = require(process.env.PW_CORE);
(async () => {
  const t0 = performance.now();
  const browser = await chromium.launch({ executablePath: process.env.PW_CHROMIUM });
  const page = await browser.newPage();
  await page.goto(process.env.PW_URL);
  await page.screenshot({ path: process.env.PW_SHOT });
  await browser.close();
  console.log(`launch_to_close_ms=${(performance.now() - t0).toFixed(1)}`);
})().catch((e) => { console.error(e); process.exit(1); });
"#;

/// A loopback HTTP server answering every request with [`PAGE`].
fn serve() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local address");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream));
        }
    });
    format!("http://{addr}")
}

fn answer(mut stream: std::net::TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        // One request per connection (answered with `Connection: close`).
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    let (status, body) = if buf.starts_with(b"GET / ") {
        ("200 OK", PAGE)
    } else {
        ("404 Not Found", "not found")
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// `name` on PATH.
fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Fails the bench, naming what is missing and how to get it.
fn missing(what: &str, fix: &str) -> ! {
    eprintln!("startup bench: {what} is missing: {fix}");
    std::process::exit(1);
}

/// The Chromium both sides run: `HARSHJUDGE_CHROMIUM`, else the first of
/// harshjudge's names on PATH.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("HARSHJUDGE_CHROMIUM").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        if !p.is_file() {
            missing(
                &format!("HARSHJUDGE_CHROMIUM={}", p.display()),
                "point it at a Chromium binary",
            );
        }
        return p;
    }
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .find_map(|n| which(n))
    .unwrap_or_else(|| {
        missing(
            "Chromium (chromium, chromium-browser or google-chrome on PATH)",
            "install it (`apt-get install chromium`) or set HARSHJUDGE_CHROMIUM",
        )
    })
}

/// playwright-core's folder under `target/startup-bench`, installed from npm
/// when absent.
fn playwright_core(root: &Path) -> PathBuf {
    let dir = root.join("target/startup-bench");
    let core = dir.join("node_modules/playwright-core");
    if core.join("package.json").is_file() {
        return core;
    }
    if which("npm").is_none() {
        missing(
            "npm (to install playwright-core)",
            "install Node.js with npm (`apt-get install nodejs npm`)",
        );
    }
    std::fs::create_dir_all(&dir).expect("create target/startup-bench");
    let manifest = dir.join("package.json");
    if !manifest.is_file() {
        std::fs::write(&manifest, r#"{"name":"hj-startup-bench","private":true}"#)
            .expect("write target/startup-bench/package.json");
    }
    eprintln!(
        "startup bench: installing playwright-core into {}",
        dir.display()
    );
    let ok = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "playwright-core"])
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .current_dir(&dir)
        .status()
        .is_ok_and(|s| s.success());
    if !ok || !core.join("package.json").is_file() {
        missing(
            &format!("playwright-core in {}", dir.display()),
            "`npm install playwright-core` failed there; install it by hand",
        );
    }
    core
}

struct Sample {
    /// The whole process, spawn to exit.
    process: Duration,
    /// What the process says it took itself (playwright: launch to close).
    inner: Option<Duration>,
}

fn timed(mut cmd: Command, what: &str) -> Sample {
    let start = Instant::now();
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what} could not start: {e}"));
    let process = start.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let inner = stdout
        .lines()
        .find_map(|l| l.strip_prefix("launch_to_close_ms="))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map(|ms| Duration::from_secs_f64(ms / 1000.0));
    Sample { process, inner }
}

fn stats(name: &str, samples: &[Duration]) {
    let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    ms.sort_by(f64::total_cmp);
    let mean = ms.iter().sum::<f64>() / ms.len() as f64;
    let median = if ms.len() % 2 == 1 {
        ms[ms.len() / 2]
    } else {
        (ms[ms.len() / 2 - 1] + ms[ms.len() / 2]) / 2.0
    };
    let all: Vec<String> = ms.iter().map(|m| format!("{m:.0}")).collect();
    eprintln!(
        "  {name:<34} mean {mean:7.1} ms  median {median:7.1} ms  ({})",
        all.join(" ")
    );
}

fn main() {
    if std::env::args().any(|a| a == "--startup-suite") {
        // The suite: libtest's arguments without ours.
        let args = harshjudge::harness::Arguments::from_iter(
            std::env::args().filter(|a| a != "--startup-suite"),
        );
        let pkg = harshjudge::harness::Package::new("startup", env!("CARGO_MANIFEST_DIR"));
        std::process::exit(harshjudge::harness::run(pkg, &args));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let runs: usize = std::env::var("STARTUP_RUNS")
        .ok()
        .map(|v| {
            v.parse()
                .ok()
                .filter(|n| *n > 0)
                .unwrap_or_else(|| panic!("STARTUP_RUNS={v}: expected a positive number"))
        })
        .unwrap_or(10);
    let node = which("node").unwrap_or_else(|| {
        missing(
            "node (to run playwright-core)",
            "install Node.js (`apt-get install nodejs`)",
        )
    });
    let chromium = chromium();
    if std::env::var_os("HARSHJUDGE_CHROMEDRIVER").is_none() && which("chromedriver").is_none() {
        missing(
            "chromedriver (on PATH)",
            "install it (`apt-get install chromium-driver`) or set HARSHJUDGE_CHROMEDRIVER",
        );
    }
    let core = playwright_core(&root);
    let me = std::env::current_exe().expect("this bench's path");
    let url = serve();
    let tmp = tempfile::tempdir().expect("temporary folder");
    let script = tmp.path().join("launch.js");
    std::fs::write(&script, PLAYWRIGHT_SCRIPT).expect("write launch.js");

    // Another build of this bench (e.g. of an earlier commit), run the same way
    // in the same rounds: before/after figures of a change.
    let baseline = std::env::var_os("STARTUP_BASELINE")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    if let Some(b) = baseline.as_ref().filter(|b| !b.is_file()) {
        missing(
            &format!("STARTUP_BASELINE={}", b.display()),
            "point it at another build of this bench (target/release/deps/startup-*)",
        );
    }
    let harshjudge = |bin: &Path, i: usize| {
        let mut cmd = Command::new(bin);
        cmd.args(["--startup-suite", "--quiet", "--test-threads", "1"])
            .env("CARGO_MANIFEST_DIR", &root)
            .env("HARSHJUDGE_DIR", tmp.path().join(format!("hj-{i}")))
            .env("HARSHJUDGE_BASE_URL", &url)
            .env("HARSHJUDGE_CHROMIUM", &chromium);
        timed(cmd, "the one-page harshjudge suite")
    };
    let playwright = |i: usize| {
        let mut cmd = Command::new(&node);
        cmd.arg(&script)
            .env("PW_CORE", &core)
            .env("PW_CHROMIUM", &chromium)
            .env("PW_URL", format!("{url}/"))
            .env("PW_SHOT", tmp.path().join(format!("pw-{i}.png")));
        timed(cmd, "playwright-core's launch-to-close")
    };

    eprintln!(
        "startup: {runs} runs each, interleaved, after one warm-up each ({})",
        chromium.display()
    );
    harshjudge(&me, 0);
    playwright(0);
    if let Some(b) = &baseline {
        harshjudge(b, 0);
    }
    let (mut hj, mut pw, mut pw_inner, mut base) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let contenders = if baseline.is_some() { 3 } else { 2 };
    for i in 1..=runs {
        // Each round starts with the next contender.
        for k in 0..contenders {
            match (i + k) % contenders {
                0 => hj.push(harshjudge(&me, i).process),
                1 => {
                    let p = playwright(i);
                    pw.push(p.process);
                    pw_inner.extend(p.inner);
                }
                _ => {
                    let b = baseline.as_deref().expect("a baseline");
                    base.push(harshjudge(b, runs + i).process);
                }
            }
        }
    }
    let shots = walk(&tmp.path().join(format!("hj-{runs}")))
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .count();
    assert!(
        shots > 0,
        "the harshjudge run wrote no screenshot: its evidence is missing"
    );
    eprintln!("startup: one page, whole process unless said (spawn to exit):");
    stats("harshjudge (suite process)", &hj);
    stats("playwright-core (node process)", &pw);
    stats("playwright-core (launch to close)", &pw_inner);
    if !base.is_empty() {
        stats("harshjudge (STARTUP_BASELINE)", &base);
    }
}

/// Every file below `dir`.
fn walk(dir: &Path) -> impl Iterator<Item = PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.into_iter()
}
