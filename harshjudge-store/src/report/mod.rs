//! Rendering of outcomes for people: the failure message of a step, the
//! summary printed at the end of a harness run, and the reports of an
//! invocation (JUnit XML, the GitHub step summary, the HTML report).

pub mod html;
pub mod invocation;
pub mod junit;
pub mod merge;
pub mod reads;

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
    /// One line per step with an expectation: its verdict, the judge and the
    /// reasoning (`checkout: step 02 judged fail by the command judge: …`).
    pub verdicts: Vec<String>,
    /// Steps with an expectation that await a verdict (no judge configured).
    pub pending: usize,
    /// Selected scenarios that did not run, with why (`skipped: …`,
    /// `fixme: …`, `not run: … --max-failures …`), in the order they were noted.
    pub not_run: Vec<(String, String)>,
    /// The tag selection as given (`--tags "smoke"`) and the scenarios it left out.
    pub filtered_by_tags: Option<(String, Vec<String>)>,
    /// The setup scenarios that ran though no filter or tag selected them,
    /// each with why: `fixture_database: brought along as a setup of smoke_login`.
    pub brought_along: Vec<String>,
    /// What failed outside any scenario: `(stage, message)`, the stage
    /// `before_all` or `after_all` (a suite hook that failed or panicked).
    pub invocation_errors: Vec<(String, String)>,
}

impl Summary {
    /// The lines about scenarios that did not run, and why, and about the
    /// setups that ran though nothing selected them.
    fn render_not_run(&self, out: &mut String) {
        if !self.not_run.is_empty() {
            let _ = writeln!(
                out,
                "harshjudge: {} scenario(s) did not run:",
                self.not_run.len()
            );
            let mut lines = self.not_run.clone();
            lines.sort();
            for (slug, why) in &lines {
                let _ = writeln!(out, "  {slug}: {why}");
            }
        }
        if let Some((selection, slugs)) = &self.filtered_by_tags
            && !slugs.is_empty()
        {
            let _ = writeln!(
                out,
                "harshjudge: {} scenario(s) filtered by tags ({selection}): {}",
                slugs.len(),
                slugs.join(", ")
            );
        }
        for line in &self.brought_along {
            let _ = writeln!(out, "harshjudge: {line}");
        }
    }

    /// The final lines: a count of the runs recorded, the runs that did not
    /// simply pass (failed, flaky, interrupted, not recorded) with their
    /// folders, and for each failed step its error and evidence folder.
    /// Passing runs are listed only when `verbose` (`HARSHJUDGE_VERBOSE=1`).
    pub fn render(&self, store_dir: &Path, verbose: bool) -> String {
        let mut out = String::new();
        self.render_not_run(&mut out);
        if self.runs.is_empty() {
            return out;
        }
        let mut runs = self.runs.clone();
        runs.sort_by(|a, b| a.slug.cmp(&b.slug));
        let last: Vec<&RunLine> = runs.iter().filter(|r| !r.retried).collect();
        let count = |s: &str| {
            last.iter()
                .filter(|r| {
                    r.status.as_deref() == Some(s) && r.note.as_deref() != Some("interrupted")
                })
                .count()
        };
        let (passed, flaky) = (count("pass"), count("flaky"));
        let _ = writeln!(
            out,
            "harshjudge: {} run(s) recorded in {}: {passed} passed, {} failed, {flaky} flaky",
            last.len(),
            store_dir.display(),
            last.len() - passed - flaky,
        );
        let quiet = |r: &RunLine| {
            !verbose
                && r.status.as_deref() == Some("pass")
                && r.store_error.is_none()
                && (r.note.is_none() || r.note.as_deref() == Some("reused by --resume"))
        };
        let (mut hidden, mut reused) = (0, 0);
        for r in &runs {
            if quiet(r) {
                hidden += 1;
                reused += usize::from(r.note.is_some());
                continue;
            }
            let status = r.status.as_deref().unwrap_or("not recorded");
            let dir = r
                .run_dir
                .as_ref()
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            let _ = writeln!(out, "  {:<5} {}  {}", status, r.slug, dir);
            if let Some(note) = &r.note {
                let _ = writeln!(out, "        ({note})");
            }
            if let Some(e) = &r.store_error {
                let _ = writeln!(out, "       error: {e}");
            }
        }
        if hidden > 0 {
            let reused = if reused > 0 {
                format!(", {reused} of them reused by --resume")
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  ({hidden} passing run(s) not listed{reused}; HARSHJUDGE_VERBOSE=1 lists them with their folders)"
            );
        }
        if !self.verdicts.is_empty() {
            let mut lines = self.verdicts.clone();
            lines.sort();
            let _ = writeln!(out, "\nverdicts ({}):", lines.len());
            for l in &lines {
                let _ = writeln!(out, "  {l}");
            }
        }
        if self.pending > 0 {
            let _ = writeln!(
                out,
                "  {} step(s) await a verdict: set HARSHJUDGE_JUDGE_CMD (a command that reads the step's JSON on stdin) or HARSHJUDGE_JUDGE_URL + HARSHJUDGE_JUDGE_MODEL and run `-- --rejudge`, or let an agent give them through MCP (getPendingJudgments, recordVerdict)",
                self.pending
            );
        }
        if !self.failures.is_empty() {
            let _ = writeln!(out, "\nfailed steps ({}):", self.failures.len());
            for (test, o) in &self.failures {
                let _ = writeln!(out, "  {test}  (step {} \"{}\")", o.id, o.title);
                let error = o.error.as_deref().unwrap_or("failed");
                let _ = writeln!(out, "    error: {}", error.replace('\n', "\n    "));
                if let Some(loc) = &o.location {
                    let _ = writeln!(out, "    at: {loc}");
                }
                let _ = writeln!(out, "    evidence: {}", o.evidence_dir.display());
            }
        }
        out
    }
}
