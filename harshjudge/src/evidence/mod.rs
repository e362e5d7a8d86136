//! Evidence beyond the scenario's own attachments: probes that capture the
//! state of the app at every step boundary ([`Probe`]: the page, an HTTP
//! endpoint, a command), and what they capture ([`Item`], [`Snapshot`]).
//!
//! Attachments are [`Scenario::attach`](crate::Scenario::attach) and its
//! siblings: each is written as `step-NN/evidence/{name}.{ext}` with a
//! `{name}.meta.json` sidecar and listed in `result.json` `evidenceFiles`.

use std::future::Future;
use std::pin::Pin;

use crate::error::Error;

pub(crate) mod http;

pub use http::SendError;

/// A boxed future, as probes return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One piece of evidence a probe captured.
#[derive(Clone, Debug)]
pub struct Item {
    /// Base name (`screenshot`, `response`, `stdout`, …).
    pub name: String,
    /// File extension (`png`, `json`, `txt`, `html`).
    pub ext: &'static str,
    /// Evidence type in the sidecar (`screenshot`, `api_response`, `stdout`, …).
    pub kind: &'static str,
    /// The content.
    pub bytes: Vec<u8>,
}

impl Item {
    /// An item of evidence.
    pub fn new(
        name: impl Into<String>,
        ext: &'static str,
        kind: &'static str,
        bytes: Vec<u8>,
    ) -> Self {
        Item {
            name: name.into(),
            ext,
            kind,
            bytes,
        }
    }
}

/// What a probe captured at a step boundary (the end of one step is the start
/// of the next).
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// The state at the boundary: stored as `after` of the step that ends and
    /// `before` of the step that starts (`{prefix}after.{ext}` / `{prefix}before.{ext}`).
    pub state: Option<Item>,
    /// What happened during the step that ends (console and network logs, …),
    /// stored under that step with their own names.
    pub during: Vec<Item>,
}

/// Captures evidence around every step of a scenario. Register one with
/// [`Scenario::probe`](crate::Scenario::probe); the runner calls it at each step boundary and when a
/// step fails.
pub trait Probe: Send + Sync + 'static {
    /// Prefix of its files: `""` gives `before.png`/`after.png`, `"api"` gives
    /// `api-before.json`/`api-after.json`.
    fn prefix(&self) -> &str;
    /// Captures the state now, and what happened since the previous call.
    fn snapshot(&self) -> BoxFuture<'_, Result<Snapshot, Error>>;
    /// Extra evidence when a step fails (the failure screenshot, the page's HTML).
    fn on_failure(&self) -> BoxFuture<'_, Result<Vec<Item>, Error>> {
        Box::pin(async { Ok(vec![]) })
    }
    /// The state as a failure in the middle of a step shows it (a soft
    /// assertion's: a page's screenshot, named `error`), without taking the
    /// step's logs as [`Probe::snapshot`] does. None by default.
    fn failure_shot(&self) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(async { Ok(None) })
    }
}

/// A probe that GETs a URL at every boundary and stores the response
/// (`{prefix}-before.json` / `{prefix}-after.json`: status, headers, body).
pub struct HttpProbe {
    prefix: String,
    url: String,
}

impl HttpProbe {
    /// Probes `url` (absolute, `http://`), files named after `prefix`.
    pub fn new(prefix: impl Into<String>, url: impl Into<String>) -> Self {
        HttpProbe {
            prefix: prefix.into(),
            url: url.into(),
        }
    }
}

impl Probe for HttpProbe {
    fn prefix(&self) -> &str {
        &self.prefix
    }
    fn snapshot(&self) -> BoxFuture<'_, Result<Snapshot, Error>> {
        Box::pin(async move {
            let value = http::get_json_evidence(&self.url).await?;
            let bytes = serde_json::to_vec_pretty(&value).expect("JSON serializes");
            Ok(Snapshot {
                state: Some(Item::new("response", "json", "api_response", bytes)),
                during: vec![],
            })
        })
    }
}

/// A probe that runs a command at every boundary and stores its output, exit
/// code and duration (`{prefix}-before.json` / `{prefix}-after.json`).
pub struct CommandProbe {
    prefix: String,
    program: std::ffi::OsString,
    args: Vec<std::ffi::OsString>,
    cwd: Option<std::path::PathBuf>,
    env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
}

impl CommandProbe {
    /// Probes `program args…`, files named after `prefix`.
    pub fn new<I, S>(
        prefix: impl Into<String>,
        program: impl Into<std::ffi::OsString>,
        args: I,
    ) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<std::ffi::OsString>,
    {
        CommandProbe {
            prefix: prefix.into(),
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            cwd: None,
            env: Vec::new(),
        }
    }

    /// Runs it in `dir` (relative to the test process's directory: the package
    /// root under `cargo test`).
    pub fn cwd(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets an environment variable for it (the rest is inherited).
    pub fn env(
        mut self,
        key: impl Into<std::ffi::OsString>,
        value: impl Into<std::ffi::OsString>,
    ) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }
}

impl Probe for CommandProbe {
    fn prefix(&self) -> &str {
        &self.prefix
    }
    fn snapshot(&self) -> BoxFuture<'_, Result<Snapshot, Error>> {
        Box::pin(async move {
            let started = std::time::Instant::now();
            let mut cmd = tokio::process::Command::new(&self.program);
            cmd.args(&self.args)
                .envs(self.env.iter().map(|(k, v)| (k, v)));
            if let Some(dir) = &self.cwd {
                cmd.current_dir(dir);
            }
            let out = cmd.kill_on_drop(true).output().await.map_err(|e| {
                Error::msg(format!(
                    "probe {:?}: cannot run {:?}{}: {e}",
                    self.prefix,
                    self.program,
                    self.cwd
                        .as_ref()
                        .map(|d| format!(" in {}", d.display()))
                        .unwrap_or_default()
                ))
            })?;
            let value = serde_json::json!({
                "command": std::iter::once(&self.program).chain(&self.args).map(|a| a.to_string_lossy()).collect::<Vec<_>>(),
                "exitCode": out.status.code(),
                "stdout": String::from_utf8_lossy(&out.stdout),
                "stderr": String::from_utf8_lossy(&out.stderr),
                "durationMs": started.elapsed().as_millis() as u64,
            });
            let bytes = serde_json::to_vec_pretty(&value).expect("JSON serializes");
            Ok(Snapshot {
                state: Some(Item::new("output", "json", "stdout", bytes)),
                during: vec![],
            })
        })
    }
}

// ---- the browser as a probe ----------------------------------------------------

/// A scenario's browser page as a probe: at each boundary one screenshot
/// (`before.png` / `after.png`), taken while the step's console and network
/// logs are fetched (`console.json`, `network.json`); on failure the runner adds
/// `error.png`, and the probe `page.html`.
pub(crate) struct PageProbe {
    pub(crate) page: harshjudge_browser::Page,
    pub(crate) full_page: bool,
}

impl Probe for PageProbe {
    fn prefix(&self) -> &str {
        ""
    }
    fn snapshot(&self) -> BoxFuture<'_, Result<Snapshot, Error>> {
        Box::pin(async move {
            // The screenshot first: what the page sent before the boundary has
            // arrived by then (events come on BiDi's socket, beside the commands).
            let png = self.page.capture(self.full_page).await;
            let (console, network) = self.page.take_logs().await?;
            let json =
                |v: serde_json::Value| serde_json::to_vec_pretty(&v).expect("JSON serializes");
            Ok(Snapshot {
                state: Some(Item::new("screenshot", "png", "screenshot", png?)),
                during: vec![
                    Item::new(
                        "console",
                        "json",
                        "console_log",
                        json(serde_json::to_value(&console).expect("JSON")),
                    ),
                    Item::new(
                        "network",
                        "json",
                        "network_log",
                        json(serde_json::to_value(&network).expect("JSON")),
                    ),
                ],
            })
        })
    }
    fn on_failure(&self) -> BoxFuture<'_, Result<Vec<Item>, Error>> {
        Box::pin(async move {
            // Both of the document, not of the moment before it is parsed.
            self.page.until_parsed().await;
            let (html, aria) = tokio::join!(self.page.page_html(), self.page.aria_snapshot());
            let mut items = vec![Item::new(
                "page",
                "html",
                "html_snapshot",
                html?.into_bytes(),
            )];
            // What an assertion saw, as the accessibility tree (Playwright's ARIA snapshot).
            if let Ok(aria) = aria {
                items.push(Item::new("aria", "yml", "custom", aria.into_bytes()));
            }
            Ok(items)
        })
    }
    fn failure_shot(&self) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(async move {
            let png = self.page.capture(self.full_page).await?;
            Ok(Some(Item::new("error", "png", "screenshot", png)))
        })
    }
}
