//! A raw WebDriver BiDi client for `benches/protocols.rs`: a chromedriver of
//! our own, one session created classically (`POST /session` with
//! `webSocketUrl: true` and `pageLoadStrategy: "none"`), then nothing but
//! BiDi on its WebSocket: the engine as a preload script, the page loaded
//! with `browsingContext.navigate`, calls with `script.callFunction` or
//! `script.evaluate`. Also the check whether chromedriver accepts BiDi's
//! `session.new` on `ws://HOST:PORT/session`. Included with `#[path]` (next to
//! `raw_conn.rs` and `raw_engine.rs`).

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::raw_conn::Conn;
use super::raw_engine;

/// A chromedriver on a free loopback port, leading a process group of its
/// own (its browsers are in it): the group is killed on drop.
pub struct Driver {
    child: std::process::Child,
    /// Its Chromiums' `TMPDIR` (their singleton sockets' folders, which a
    /// killed Chromium leaves), removed with it.
    _tmp: tempfile::TempDir,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

impl Driver {
    /// Starts `HARSHJUDGE_CHROMEDRIVER`, else `chromedriver` on PATH, with
    /// `--port=0`, and waits for the port it announces on stdout.
    pub fn start() -> Result<Driver, String> {
        use std::io::BufRead;
        use std::os::unix::process::CommandExt;
        let binary = std::env::var_os("HARSHJUDGE_CHROMEDRIVER")
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| "chromedriver".into());
        let tmp = tempfile::tempdir().map_err(|e| format!("a temporary folder: {e}"))?;
        let mut child = std::process::Command::new(&binary)
            .args(["--port=0", "--allowed-ips=127.0.0.1"])
            .env("TMPDIR", tmp.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("start {}: {e}", binary.display()))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        // Reads the announcement, then drains stdout so chromedriver never blocks on it.
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(port) = line
                    .split("started successfully on port ")
                    .nth(1)
                    .and_then(|r| r.trim().trim_end_matches('.').parse::<u16>().ok())
                {
                    let _ = tx.send(port);
                }
            }
        });
        let mut driver = Driver {
            child,
            _tmp: tmp,
            port: 0,
        };
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(port) => {
                driver.port = port;
                Ok(driver)
            }
            Err(_) => Err(format!(
                "{} did not say which port it listens on within 20 s",
                binary.display()
            )),
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let pid = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The session's capabilities: the library's Chromium arguments, BiDi, and
/// no page load strategy (no classic command follows, so nothing waits on it).
fn capabilities(web_socket_url: bool) -> Result<Value, String> {
    let mut caps = json!({
        "browserName": "chrome",
        "pageLoadStrategy": "none",
        "goog:chromeOptions": {
            "binary": raw_engine::chromium()?.display().to_string(),
            "args": raw_engine::chromium_args(),
        },
    });
    if web_socket_url {
        caps["webSocketUrl"] = true.into();
    }
    Ok(caps)
}

/// `POST http://127.0.0.1:{port}{path}` with a JSON body: the JSON answer.
async fn post(port: u16, path: &str, body: &Value) -> Result<Value, String> {
    let body = body.to_string();
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .map_err(|e| format!("connecting to chromedriver: {e}"))?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    // Read up to the end of the body its head announces (chromedriver keeps
    // the connection open whatever the request asks).
    let mut answer = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = s.read(&mut chunk).await.map_err(|e| e.to_string())?;
        answer.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&answer);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let head = head.to_ascii_lowercase();
            let chunked = head.contains("transfer-encoding: chunked");
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            let complete = match length {
                Some(len) => body.len() >= len,
                None if chunked => body.ends_with("0\r\n\r\n"),
                None => false,
            };
            if complete || n == 0 {
                let json_text = if chunked {
                    dechunk(body)
                } else {
                    body.to_string()
                };
                return serde_json::from_str(&json_text).map_err(|e| format!("{e}: {json_text}"));
            }
        }
        if n == 0 {
            return Err(format!("not an HTTP answer: {text}"));
        }
    }
}

/// The body of a chunked HTTP answer.
fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

/// One BiDi-only session on a chromedriver of its own, its page loaded.
pub struct BidiPage {
    /// The session's WebSocket.
    pub conn: Arc<Conn>,
    /// The page's browsing context.
    pub context: String,
    driver: Driver,
}

impl BidiPage {
    /// Starts the driver and the session, registers the engine, loads `url`.
    pub async fn open(url: &str) -> Result<BidiPage, String> {
        let driver = Driver::start()?;
        let created = post(
            driver.port,
            "/session",
            &json!({"capabilities": {"alwaysMatch": capabilities(true)?}}),
        )
        .await?;
        let ws = created["value"]["capabilities"]["webSocketUrl"]
            .as_str()
            .ok_or_else(|| format!("no webSocketUrl in {created}"))?
            .to_string();
        let conn = Conn::ws(&ws).await?;
        let tree = conn
            .send("browsingContext.getTree", json!({"maxDepth": 0}), None)
            .await?;
        let context = tree["contexts"][0]["context"]
            .as_str()
            .ok_or_else(|| format!("no context in {tree}"))?
            .to_string();
        let source = raw_engine::install_source();
        conn.send(
            "script.addPreloadScript",
            json!({"functionDeclaration": format!("() => {{ {source} }}")}),
            None,
        )
        .await?;
        conn.send(
            "browsingContext.navigate",
            json!({"context": context, "url": url, "wait": "complete"}),
            None,
        )
        .await?;
        Ok(BidiPage {
            conn,
            context,
            driver,
        })
    }

    /// `script.callFunction` of `declaration` with string arguments: the result's remote value.
    pub async fn call_function(&self, declaration: &str, args: &[&str]) -> Result<Value, String> {
        let arguments: Vec<Value> = args
            .iter()
            .map(|a| json!({"type": "string", "value": a}))
            .collect();
        let r = self
            .conn
            .send(
                "script.callFunction",
                json!({
                    "functionDeclaration": declaration,
                    "arguments": arguments,
                    "target": {"context": self.context},
                    "awaitPromise": true,
                    "resultOwnership": "none",
                }),
                None,
            )
            .await?;
        remote_value(r)
    }

    /// `script.evaluate` of `expression`: the result's remote value.
    pub async fn evaluate(&self, expression: &str) -> Result<Value, String> {
        let r = self
            .conn
            .send(
                "script.evaluate",
                json!({
                    "expression": expression,
                    "target": {"context": self.context},
                    "awaitPromise": true,
                    "resultOwnership": "none",
                }),
                None,
            )
            .await?;
        remote_value(r)
    }
}

/// The `value` of a script result's remote value, or its exception.
fn remote_value(mut r: Value) -> Result<Value, String> {
    if r["type"] != "success" {
        return Err(format!("the script threw: {}", r["exceptionDetails"]));
    }
    Ok(r["result"]["value"].take())
}

/// Whether chromedriver accepts BiDi's static `session.new` on
/// `ws://127.0.0.1:PORT/session`, in words.
pub async fn probe_session_new() -> String {
    let driver = match Driver::start() {
        Ok(d) => d,
        Err(e) => return format!("not tried: {e}"),
    };
    let url = format!("ws://127.0.0.1:{}/session", driver.port);
    let conn = match Conn::ws(&url).await {
        Ok(c) => c,
        Err(e) => return format!("no: the WebSocket was refused ({e})"),
    };
    let caps = match capabilities(false) {
        Ok(c) => c,
        Err(e) => return format!("not tried: {e}"),
    };
    let answer = conn
        .call(
            "session.new",
            json!({"capabilities": {"alwaysMatch": caps}}),
            None,
        )
        .await;
    match answer {
        Ok(v) if v["type"] == "success" => {
            let tree = conn
                .send("browsingContext.getTree", json!({"maxDepth": 0}), None)
                .await;
            let said = match tree {
                Ok(t) => format!(
                    "browsingContext.getTree then answered {} context(s)",
                    t["contexts"].as_array().map_or(0, Vec::len)
                ),
                Err(e) => format!("but browsingContext.getTree then failed: {e}"),
            };
            let _ = conn.send("session.end", json!({}), None).await;
            format!(
                "yes: session {} ({said})",
                v["result"]["sessionId"].as_str().unwrap_or("?")
            )
        }
        Ok(v) => format!(
            "no: session.new answered {} {}",
            v["error"],
            v["message"].as_str().unwrap_or_default()
        ),
        Err(e) => format!("no: {e}"),
    }
}
