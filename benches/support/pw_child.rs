//! Playwright's side of `benches/protocols.rs`: `benches/playwright/text_content.js`
//! run with `--serve` by node, on playwright-core and the system Chromium; it
//! times its calls itself and answers them a line at a time. playwright-core
//! is looked for in `PROTOCOLS_PW_CORE`, `target/startup-bench` (where
//! `benches/startup.rs` installs it) and `target/playwright` (where
//! `benches/playwright/compare.sh` installs Playwright Test, which carries
//! it), else installed from npm into `target/startup-bench` as those do (its
//! browsers are not downloaded). Included with `#[path]`.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::raw_engine;

/// How long one command of the script may take.
const WITHIN: Duration = Duration::from_secs(180);

/// The running script.
pub struct Pw {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    /// Its Chromium's `TMPDIR` (the singleton socket's folder, which a
    /// killed Chromium leaves), removed with it.
    _tmp: tempfile::TempDir,
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The workspace root (this bench's package is the root package).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root().join(t) })
        .unwrap_or_else(|| root().join("target"))
}

/// A playwright-core folder, installed when none is found.
fn playwright_core() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("PROTOCOLS_PW_CORE") {
        let p = PathBuf::from(p);
        return if p.join("package.json").is_file() {
            Ok(p)
        } else {
            Err(format!(
                "PROTOCOLS_PW_CORE={} holds no package.json",
                p.display()
            ))
        };
    }
    let target = target();
    let dir = target.join("startup-bench");
    for core in [
        dir.join("node_modules/playwright-core"),
        target.join("playwright/node_modules/playwright-core"),
    ] {
        if core.join("package.json").is_file() {
            return Ok(core);
        }
    }
    if which("npm").is_none() {
        return Err("no playwright-core found and no npm on PATH to install it".into());
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    let manifest = dir.join("package.json");
    if !manifest.is_file() {
        std::fs::write(&manifest, r#"{"name":"hj-startup-bench","private":true}"#)
            .map_err(|e| format!("write {}: {e}", manifest.display()))?;
    }
    println!("installing playwright-core into {}", dir.display());
    let ok = std::process::Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "playwright-core"])
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .current_dir(&dir)
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let core = dir.join("node_modules/playwright-core");
    if ok && core.join("package.json").is_file() {
        Ok(core)
    } else {
        Err(format!(
            "`npm install playwright-core` failed in {}",
            dir.display()
        ))
    }
}

impl Pw {
    /// Starts the script against `url`; an error says why Playwright is skipped.
    pub async fn start(url: &str) -> Result<Pw, String> {
        let node = which("node").ok_or("no node on PATH")?;
        let core = playwright_core()?;
        let chromium = raw_engine::chromium()?;
        let script = root().join("benches/playwright/text_content.js");
        let tmp = tempfile::tempdir().map_err(|e| format!("a temporary folder: {e}"))?;
        let mut child = Command::new(node)
            .arg(&script)
            .arg("--serve")
            .env("TMPDIR", tmp.path())
            .env("PW_CORE", &core)
            .env("PW_CHROMIUM", &chromium)
            .env("PW_URL", url)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("start node {}: {e}", script.display()))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let mut pw = Pw {
            child,
            stdin,
            lines,
            _tmp: tmp,
        };
        let ready = pw.line().await?;
        if !ready.starts_with("ready ") {
            return Err(format!("{} said {ready}", script.display()));
        }
        Ok(pw)
    }

    async fn line(&mut self) -> Result<String, String> {
        match tokio::time::timeout(WITHIN, self.lines.next_line()).await {
            Ok(Ok(Some(l))) => Ok(l),
            Ok(Ok(None)) => Err("the Playwright script exited".into()),
            Ok(Err(e)) => Err(format!("reading the Playwright script: {e}")),
            Err(_) => Err(format!(
                "the Playwright script said nothing within {WITHIN:?}"
            )),
        }
    }

    async fn ask(&mut self, command: &str) -> Result<String, String> {
        self.stdin
            .write_all(format!("{command}\n").as_bytes())
            .await
            .map_err(|e| format!("writing to the Playwright script: {e}"))?;
        self.line().await
    }

    /// `warm` untimed calls of `op` (`text_content`, `evaluate`), then the
    /// times of `n` calls (ms), as the script measured them.
    pub async fn times(&mut self, op: &str, warm: usize, n: usize) -> Result<Vec<f64>, String> {
        let said = self.ask(&format!("{op} {warm} {n}")).await?;
        let list = said
            .strip_prefix("times ")
            .ok_or_else(|| format!("the Playwright script said {said}"))?;
        serde_json::from_str(list).map_err(|e| format!("{e}: {list}"))
    }

    /// A second browser's launch to its first text read (ms).
    pub async fn startup(&mut self) -> Result<f64, String> {
        let said = self.ask("startup").await?;
        said.strip_prefix("startup_ms ")
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| format!("the Playwright script said {said}"))
    }

    /// Ends the script (its browser closes).
    pub async fn quit(mut self) {
        let _ = self.stdin.write_all(b"quit\n").await;
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
        let _ = self.child.kill().await;
    }
}
