//! The scenario handle given to every `#[scenario]` function.

use std::path::PathBuf;
use std::sync::Arc;

use crate::runner::Shared;
use crate::store::StepId;

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
