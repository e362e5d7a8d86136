//! The scenario handle given to every `#[scenario]` function.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::error::Error;
use crate::event::Event;
use crate::evidence::{PageProbe, Probe};
use crate::runner::Shared;
use crate::store::{EvidenceName, StepId};

/// The handle a scenario function receives: the app's base URL, the run and
/// step it is in, and the attachment API ([`attach_json`](Scenario::attach_json),
/// [`attach_text`](Scenario::attach_text), [`attach_bytes`](Scenario::attach_bytes),
/// [`attach_file`](Scenario::attach_file)). Cheap to clone.
#[derive(Clone)]
pub struct Scenario {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scenario")
            .field("slug", &self.slug())
            .field("run_id", &self.run_id())
            .finish()
    }
}

/// Step boundaries, called by the code `#[scenario]` generates.
#[doc(hidden)]
#[derive(Clone)]
pub struct StepMarker {
    shared: Arc<Shared>,
}

impl StepMarker {
    /// Ends the running step (if any) as passed and starts step `n` (1-based).
    /// Past the last step selected by the test filter, it never returns: the
    /// runner stops the scenario there.
    pub async fn begin(&self, n: usize) {
        if self.shared.begin(n).await {
            std::future::pending::<()>().await;
        }
    }
}

impl Scenario {
    pub(crate) fn step_marker(&self) -> StepMarker {
        StepMarker {
            shared: self.shared.clone(),
        }
    }

    /// The app's base URL (`HARSHJUDGE_BASE_URL`, else `baseUrl` of
    /// `.harshJudge/config.yaml`; empty when neither is set).
    pub fn base_url(&self) -> &str {
        &self.shared.base_url
    }

    /// `path` joined onto the base URL (`"/login"` → `http://127.0.0.1:3000/login`).
    /// An absolute URL is returned as it is.
    pub fn url(&self, path: &str) -> String {
        if path.starts_with("http://") || path.starts_with("https://") {
            return path.to_string();
        }
        let base = self.base_url().trim_end_matches('/');
        if path.is_empty() {
            base.to_string()
        } else if path.starts_with('/') {
            format!("{base}{path}")
        } else {
            format!("{base}/{path}")
        }
    }

    /// The scenario's slug.
    pub fn slug(&self) -> &str {
        self.shared.def.slug
    }

    /// The scenario's title.
    pub fn title(&self) -> &str {
        self.shared.def.title
    }

    /// The id of the run being recorded.
    pub fn run_id(&self) -> String {
        self.shared.run.lock().expect("run lock").id().to_string()
    }

    /// The step running now (`None` before the first step).
    pub fn current_step(&self) -> Option<StepId> {
        self.shared.current_step()
    }

    /// The evidence folder of the step running now.
    pub fn evidence_dir(&self) -> Option<PathBuf> {
        let step = self.current_step()?;
        Some(
            self.shared
                .run
                .lock()
                .expect("run lock")
                .evidence_dir(&step),
        )
    }
}

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

impl Scenario {
    /// Registers a probe. It captures at once (the `before` of the step running
    /// now), then at every step boundary (`after` of one step, `before` of the
    /// next), and when a step fails.
    pub async fn probe(&self, probe: impl Probe) {
        self.shared.add_probe(Arc::new(probe)).await;
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
            .add_probe(Arc::new(PageProbe {
                page: page.clone(),
                full_page,
            }))
            .await;
        Ok(page)
    }
}
