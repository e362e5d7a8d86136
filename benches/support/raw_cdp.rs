//! A raw Chrome DevTools protocol client for `benches/protocols.rs`: Chromium
//! launched with no driver, spoken to over `--remote-debugging-pipe` (it
//! reads fd 3, writes fd 4) or `--remote-debugging-port=0` (the WebSocket
//! it announces on stderr), one browser context and one page in it, the
//! engine registered for every document, the page loaded. Included with
//! `#[path]` (next to `raw_conn.rs` and `raw_engine.rs`).

#![allow(dead_code)]

use std::io::BufRead;
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::raw_conn::Conn;
use super::raw_engine;

/// How the client reaches the browser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// `--remote-debugging-pipe`: JSON + NUL on fds 3 and 4.
    Pipe,
    /// `--remote-debugging-port=0`: a WebSocket on a loopback port.
    Ws,
}

/// A Chromium of our own (its process group is killed on drop).
pub struct Chromium {
    child: Child,
    _profile: tempfile::TempDir,
    /// The browser's connection.
    pub conn: Arc<Conn>,
}

impl Drop for Chromium {
    fn drop(&mut self) {
        kill(&mut self.child);
    }
}

/// Kills `child`'s process group (it leads one) and reaps it.
fn kill(child: &mut Child) {
    let pid = rustix::process::Pid::from_child(child);
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
}

/// Launches Chromium with the library's arguments and connects to it.
pub async fn launch(transport: Transport) -> Result<Chromium, String> {
    let binary = raw_engine::chromium()?;
    let profile = tempfile::tempdir().map_err(|e| format!("a profile folder: {e}"))?;
    let mut cmd = Command::new(&binary);
    cmd.args(raw_engine::chromium_args())
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--no-startup-window")
        // Its singleton socket's folder goes with the profile, not in /tmp
        // (a killed Chromium leaves it), as the library's own launch does.
        .env("TMPDIR", profile.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .process_group(0);
    match transport {
        Transport::Pipe => {
            // Ours: we write `to_browser`, read `from_browser`; the browser's
            // ends become its fds 3 and 4.
            let (browser_reads, to_browser) = std::io::pipe().map_err(|e| e.to_string())?;
            let (from_browser, browser_writes) = std::io::pipe().map_err(|e| e.to_string())?;
            let (r, w) = (browser_reads.as_raw_fd(), browser_writes.as_raw_fd());
            if r <= 4 || w <= 4 {
                return Err(format!("pipe fds {r}, {w} would be overwritten by 3 and 4"));
            }
            cmd.arg("--remote-debugging-pipe").stderr(Stdio::null());
            let onto_three_and_four = move || -> std::io::Result<()> {
                // SAFETY: fds 3 and 4 are only named here, never closed
                // (ManuallyDrop): dup2 opens them onto the pipe ends.
                let mut three = ManuallyDrop::new(unsafe { OwnedFd::from_raw_fd(3) });
                // SAFETY: `r` is open in the child until exec (close-on-exec only).
                rustix::io::dup2(unsafe { BorrowedFd::borrow_raw(r) }, &mut three)?;
                // SAFETY: as fd 3.
                let mut four = ManuallyDrop::new(unsafe { OwnedFd::from_raw_fd(4) });
                // SAFETY: `w` is open in the child until exec (close-on-exec only).
                rustix::io::dup2(unsafe { BorrowedFd::borrow_raw(w) }, &mut four)?;
                Ok(())
            };
            // SAFETY: between fork and exec the closure only calls dup2
            // (async-signal-safe); it allocates nothing and takes no lock.
            unsafe { cmd.pre_exec(onto_three_and_four) };
            let child = cmd
                .spawn()
                .map_err(|e| format!("start {}: {e}", binary.display()))?;
            let mut child = child;
            drop((browser_reads, browser_writes));
            let ends = tokio::net::unix::pipe::Sender::from_owned_fd(OwnedFd::from(to_browser))
                .and_then(|to| {
                    let from = OwnedFd::from(from_browser);
                    Ok((to, tokio::net::unix::pipe::Receiver::from_owned_fd(from)?))
                });
            match ends {
                Ok((to, from)) => Ok(Chromium {
                    child,
                    _profile: profile,
                    conn: Conn::pipe(to, from),
                }),
                Err(e) => {
                    kill(&mut child);
                    Err(format!("the debugging pipe: {e}"))
                }
            }
        }
        Transport::Ws => {
            cmd.arg("--remote-debugging-port=0").stderr(Stdio::piped());
            let mut child = cmd
                .spawn()
                .map_err(|e| format!("start {}: {e}", binary.display()))?;
            let stderr = child.stderr.take().expect("piped stderr");
            let (tx, rx) = tokio::sync::oneshot::channel();
            // Reads the announcement, then drains stderr so Chromium never blocks on it.
            std::thread::spawn(move || {
                let mut tx = Some(tx);
                for line in std::io::BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    if let Some(url) = line.split("DevTools listening on ").nth(1)
                        && let Some(tx) = tx.take()
                    {
                        let _ = tx.send(url.trim().to_string());
                    }
                }
            });
            let url = match tokio::time::timeout(Duration::from_secs(20), rx).await {
                Ok(Ok(url)) => Ok(url),
                Ok(Err(_)) => Err("Chromium exited before saying where it listens".to_string()),
                Err(_) => Err("Chromium did not say where it listens within 20 s".to_string()),
            };
            let conn = match url {
                Ok(url) => Conn::ws(&url).await,
                Err(e) => Err(e),
            };
            match conn {
                Ok(conn) => Ok(Chromium {
                    child,
                    _profile: profile,
                    conn,
                }),
                Err(e) => {
                    kill(&mut child);
                    Err(e)
                }
            }
        }
    }
}

/// One page in a browser context of its own, the engine registered for every
/// document, loaded at `url`.
pub struct CdpPage {
    pub conn: Arc<Conn>,
    /// The page's flat session.
    pub session: String,
    /// The main world of its top document.
    pub context_id: i64,
    browser_context: String,
}

/// A string field of a CDP result.
fn field(v: &Value, name: &str) -> Result<String, String> {
    v[name]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("no {name} in {v}"))
}

impl CdpPage {
    /// Opens the page (as the design's CDP backend would: context, target,
    /// flat session, domains and the engine at once, navigate, wait for load).
    pub async fn open(conn: &Arc<Conn>, url: &str) -> Result<CdpPage, String> {
        let created = conn
            .send(
                "Target.createBrowserContext",
                json!({"disposeOnDetach": true}),
                None,
            )
            .await?;
        let browser_context = field(&created, "browserContextId")?;
        let target = conn
            .send(
                "Target.createTarget",
                json!({"url": "about:blank", "browserContextId": browser_context}),
                None,
            )
            .await?;
        let attached = conn
            .send(
                "Target.attachToTarget",
                json!({"targetId": field(&target, "targetId")?, "flatten": true}),
                None,
            )
            .await?;
        let session = field(&attached, "sessionId")?;
        let s = Some(session.as_str());
        let source = raw_engine::install_source();
        let (a, b, c) = tokio::join!(
            conn.send("Page.enable", json!({}), s),
            conn.send("Runtime.enable", json!({}), s),
            conn.send(
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": source, "runImmediately": true}),
                s
            ),
        );
        a?;
        b?;
        c?;
        let nav = conn.send("Page.navigate", json!({"url": url}), s).await?;
        if let Some(e) = nav["errorText"].as_str() {
            return Err(format!("Page.navigate to {url}: {e}"));
        }
        let frame = field(&nav, "frameId")?;
        let mut context_id = None;
        conn.event(Duration::from_secs(20), |v| {
            if v["sessionId"] != session.as_str() {
                return false;
            }
            let c = &v["params"]["context"];
            if v["method"] == "Runtime.executionContextCreated"
                && c["auxData"]["isDefault"] == true
                && c["auxData"]["frameId"] == frame.as_str()
            {
                context_id = c["id"].as_i64();
            }
            v["method"] == "Page.loadEventFired"
        })
        .await
        .map_err(|e| format!("waiting for {url} to load: {e}"))?;
        let context_id = context_id.ok_or("no execution context for the page's document")?;
        Ok(CdpPage {
            conn: conn.clone(),
            session,
            context_id,
            browser_context,
        })
    }

    /// `Runtime.evaluate` of `expression` in the top document's main world
    /// (no context id), awaited, by value: the value.
    pub async fn evaluate(&self, expression: &str) -> Result<Value, String> {
        let r = self
            .conn
            .send(
                "Runtime.evaluate",
                json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
                Some(&self.session),
            )
            .await?;
        value(r)
    }

    /// `Runtime.callFunctionOn` of `declaration` with `args` in the main
    /// world's execution context, awaited, by value: the value.
    pub async fn call_function(&self, declaration: &str, args: &[Value]) -> Result<Value, String> {
        let arguments: Vec<Value> = args.iter().map(|a| json!({"value": a})).collect();
        let r = self
            .conn
            .send(
                "Runtime.callFunctionOn",
                json!({
                    "functionDeclaration": declaration,
                    "arguments": arguments,
                    "executionContextId": self.context_id,
                    "awaitPromise": true,
                    "returnByValue": true,
                }),
                Some(&self.session),
            )
            .await?;
        value(r)
    }

    /// Disposes of the page's browser context.
    pub async fn close(self) {
        let _ = self
            .conn
            .send(
                "Target.disposeBrowserContext",
                json!({"browserContextId": self.browser_context}),
                None,
            )
            .await;
    }
}

/// The value of a `Runtime.evaluate`/`callFunctionOn` result, or its exception.
fn value(mut r: Value) -> Result<Value, String> {
    if let Some(e) = r.get("exceptionDetails") {
        return Err(format!("the script threw: {e}"));
    }
    Ok(r["result"]["value"].take())
}
