//! Rendering of outcomes for people: the failure message of a step and the
//! summary printed at the end of a harness run.

pub mod html;
pub mod junit;

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::event::StepOutcome;

/// The message of a failed step: the error, where it was raised, and its evidence folder.
pub fn failure_message(o: &StepOutcome) -> String {
    let mut s = o.error.clone().unwrap_or_else(|| "failed".into());
    if let Some(loc) = &o.location {
        let _ = write!(s, "\n  at {loc}");
    }
    let _ = write!(s, "\n  evidence: {}", o.evidence_dir.display());
    s
}

/// One finished run, for the summary.
#[derive(Clone, Debug)]
pub struct RunLine {
    /// Scenario slug.
    pub slug: String,
    /// pass / fail (None when the run could not be finalised).
    pub status: Option<String>,
    /// `runs/{runId}`.
    pub run_dir: Option<PathBuf>,
    /// Why recording failed.
    pub store_error: Option<String>,
    /// Said after the run: `reused by --resume`, `attempt 1 of 3: retried`, …
    pub note: Option<String>,
    /// Run folders of earlier attempts of this scenario (retries).
    pub earlier: Vec<PathBuf>,
    /// An attempt that failed and was retried (its scenario has a later line).
    pub retried: bool,
}

/// What the harness prints after libtest's own summary.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Runs, in the order they finished.
    pub runs: Vec<RunLine>,
    /// Failed steps with the name of their test.
    pub failures: Vec<(String, StepOutcome)>,
}

impl Summary {
    /// The final lines: runs recorded, and for each failed step its error and evidence folder.
    pub fn render(&self, store_dir: &Path) -> String {
        let mut out = String::new();
        if self.runs.is_empty() {
            return out;
        }
        let mut runs = self.runs.clone();
        runs.sort_by(|a, b| a.slug.cmp(&b.slug));
        let _ = writeln!(
            out,
            "harshjudge: {} run(s) recorded in {}",
            runs.len(),
            store_dir.display()
        );
        for r in &runs {
            let status = r.status.as_deref().unwrap_or("not recorded");
            let dir = r
                .run_dir
                .as_ref()
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            let _ = writeln!(out, "  {:<4} {}  {}", status, r.slug, dir);
            if let Some(note) = &r.note {
                let _ = writeln!(out, "        ({note})");
            }
            if let Some(e) = &r.store_error {
                let _ = writeln!(out, "       error: {e}");
            }
        }
        if !self.failures.is_empty() {
            let _ = writeln!(out, "\nfailed steps:");
            for (test, o) in &self.failures {
                let _ = writeln!(out, "  {test}  (step {} \"{}\")", o.id, o.title);
                let _ = writeln!(out, "    error: {}", o.error.as_deref().unwrap_or("failed"));
                if let Some(loc) = &o.location {
                    let _ = writeln!(out, "    at: {loc}");
                }
                let _ = writeln!(out, "    evidence: {}", o.evidence_dir.display());
            }
        }
        out
    }
}
