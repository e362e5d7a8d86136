//! Custom evidence: attachments a scenario adds to the step running now.
//!
//! Each attachment is written as `step-NN/evidence/{name}.{ext}` with a
//! `{name}.meta.json` sidecar and listed in `result.json` `evidenceFiles`.
//! Names are letters, digits, `.`, `_` and `-` (never a path); a second
//! attachment with the same name in the same step replaces the first.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::Scenario;
use crate::error::Error;
use crate::event::Event;
use crate::store::EvidenceName;

impl Scenario {
    /// Attaches `value` as pretty-printed JSON (`{name}.json`, type `custom`).
    #[track_caller]
    pub fn attach_json<T: Serialize + ?Sized>(
        &self,
        name: &str,
        value: &T,
    ) -> Result<PathBuf, Error> {
        let bytes = serde_json::to_vec_pretty(value).map_err(|e| {
            Error::msg(format!(
                "attachment {name:?}: cannot serialize to JSON: {e}"
            ))
        })?;
        self.attach(name, "json", "custom", &bytes)
    }

    /// Attaches text (`{name}.txt`, type `text`).
    #[track_caller]
    pub fn attach_text(&self, name: &str, text: &str) -> Result<PathBuf, Error> {
        self.attach(name, "txt", "text", text.as_bytes())
    }

    /// Attaches bytes as `{name}.{ext}` (type `custom`).
    #[track_caller]
    pub fn attach_bytes(&self, name: &str, ext: &str, bytes: &[u8]) -> Result<PathBuf, Error> {
        self.attach(name, ext, "custom", bytes)
    }

    /// Copies a file in as `{name}.{its extension}` (type `file`).
    #[track_caller]
    pub fn attach_file(&self, name: &str, path: impl AsRef<Path>) -> Result<PathBuf, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            Error::msg(format!(
                "attachment {name:?}: cannot read {}: {e}",
                path.display()
            ))
        })?;
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("bin");
        self.attach(name, ext, "file", &bytes)
    }

    /// Writes an attachment of any type into the current step's evidence.
    #[track_caller]
    pub fn attach(
        &self,
        name: &str,
        ext: &str,
        kind: &str,
        bytes: &[u8],
    ) -> Result<PathBuf, Error> {
        let name = EvidenceName::new(name)?;
        let step = self
            .current_step()
            .ok_or_else(|| Error::msg(format!("attachment {name}: no step is running")))?;
        let written = {
            let mut run = self.shared.run.lock().expect("run lock");
            run.record_evidence(&step, &name, ext, kind, bytes, serde_json::Map::new())?
        };
        self.shared.sink.on_event(&Event::EvidenceCaptured {
            slug: &self.shared.slug,
            id: &step,
            path: &written.path,
        });
        Ok(written.path)
    }
}

// ---- probes ---------------------------------------------------------------------

use std::future::Future;
use std::pin::Pin;

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
/// [`Scenario::probe`]; the runner calls it at each step boundary and when a
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
}

impl Scenario {
    /// Registers a probe. It captures at once (the `before` of the step running
    /// now), then at every step boundary (`after` of one step, `before` of the
    /// next), and when a step fails.
    pub async fn probe(&self, probe: impl Probe) {
        self.shared.add_probe(std::sync::Arc::new(probe)).await;
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
            let value = crate::http::get_json_evidence(&self.url).await?;
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
        }
    }
}

impl Probe for CommandProbe {
    fn prefix(&self) -> &str {
        &self.prefix
    }
    fn snapshot(&self) -> BoxFuture<'_, Result<Snapshot, Error>> {
        Box::pin(async move {
            let started = std::time::Instant::now();
            let out = tokio::process::Command::new(&self.program)
                .args(&self.args)
                .kill_on_drop(true)
                .output()
                .await
                .map_err(|e| {
                    Error::msg(format!(
                        "probe {:?}: cannot run {:?}: {e}",
                        self.prefix, self.program
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
    pub(crate) page: crate::browser::Page,
    pub(crate) full_page: bool,
}

impl Probe for PageProbe {
    fn prefix(&self) -> &str {
        ""
    }
    fn snapshot(&self) -> BoxFuture<'_, Result<Snapshot, Error>> {
        Box::pin(async move {
            let (png, logs) =
                tokio::join!(self.page.capture(self.full_page), self.page.take_logs());
            let (console, network) = logs?;
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
}

impl Scenario {
    /// A browser page for this scenario: headless Chromium through chromedriver
    /// (started for you, or `HARSHJUDGE_WEBDRIVER_URL`), a session reused from an
    /// earlier scenario when there is one (its state reset). From now on every
    /// step records `before.png`, `after.png`, `console.json` and `network.json`,
    /// and a failed step `error.png`, `page.html` and `aria.yml` (the page's ARIA
    /// snapshot) (`HARSHJUDGE_EVIDENCE`).
    pub async fn page(&self) -> Result<crate::browser::Page, Error> {
        let page = crate::browser::open_page(self.base_url()).await?;
        page.set_owner(&self.shared);
        self.shared
            .pages
            .lock()
            .expect("pages lock")
            .push(page.clone());
        let full_page = self.shared.full_page();
        self.shared
            .add_probe(std::sync::Arc::new(PageProbe {
                page: page.clone(),
                full_page,
            }))
            .await;
        Ok(page)
    }
}
