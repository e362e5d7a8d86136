//! `harshjudge-mcp judge-calibrate LABELS`: a judge run over labelled steps
//! (run, step, the right verdict), scored by precision, recall and agreement.
//!
//! A failure is what a judge is there to catch, so `fail` is the positive
//! class: precision is the share of the judge's failing verdicts that were
//! right, recall the share of the labelled failures it caught. A verdict
//! counts as failing when it fails the step (`uncertain` too, unless
//! `HARSHJUDGE_UNCERTAIN=pass`; no verdict at all fails as it would in a run).
//! Agreement is the share of steps whose verdict is exactly the label.
//! Nothing is written into the runs.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Judge, Verdict, step_input};
use crate::store::{RunId, Slug, StepId, Store, StoreError};

/// One labelled step: a line `RUN STEP VERDICT` of the labels file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Label {
    /// The run id.
    pub run: RunId,
    /// The step id (`01`…).
    pub step: StepId,
    /// The right verdict.
    pub verdict: Verdict,
    /// Its line in the file (1-based).
    pub line: usize,
}

/// Why a calibration could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    /// The labels file cannot be read.
    #[error("cannot read the labels file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not `RUN STEP VERDICT`.
    #[error(
        "{}:{line}: {problem}; each line is RUN STEP VERDICT (separated by blanks or commas, VERDICT pass, fail or uncertain; # starts a comment)",
        path.display()
    )]
    Line {
        /// The file.
        path: PathBuf,
        /// The line number.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// The file labels nothing.
    #[error("{} labels no step; each line is RUN STEP VERDICT", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A labelled run or step is not in the store, or cannot be judged.
    #[error("line {line}: {problem}")]
    Step {
        /// The labels file's line.
        line: usize,
        /// What is missing.
        problem: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Reads a labels file: one `RUN STEP VERDICT` per line (blanks or commas
/// between; a `run,step,verdict` header, blank lines and `#` comments skipped).
pub fn read_labels(path: &Path) -> Result<Vec<Label>, CalibrateError> {
    let text = std::fs::read_to_string(path).map_err(|source| CalibrateError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut labels = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let fields: Vec<&str> = content
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty())
            .collect();
        let bad = |problem: String| CalibrateError::Line {
            path: path.to_path_buf(),
            line,
            problem,
        };
        if fields.len() != 3 {
            return Err(bad(format!("{} fields in {content:?}", fields.len())));
        }
        if fields[0].eq_ignore_ascii_case("run") && labels.is_empty() {
            continue;
        }
        let run = RunId::new(fields[0])
            .map_err(|e| bad(format!("{:?} is not a run id ({e})", fields[0])))?;
        let step = match fields[1].parse::<usize>() {
            Ok(n) if n > 0 => StepId::from_index(n),
            _ => StepId::new(fields[1]),
        }
        .map_err(|e| bad(format!("{:?} is not a step id ({e})", fields[1])))?;
        let verdict = Verdict::parse(fields[2]).map_err(|_| {
            bad(format!(
                "{:?} is not a verdict (pass, fail or uncertain)",
                fields[2]
            ))
        })?;
        labels.push(Label {
            run,
            step,
            verdict,
            line,
        });
    }
    if labels.is_empty() {
        return Err(CalibrateError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(labels)
}

/// One labelled step, judged.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scored {
    /// The run.
    pub run: String,
    /// Its scenario.
    pub scenario: String,
    /// The step.
    pub step: String,
    /// The right verdict.
    pub expected: Verdict,
    /// The judge's verdict; `None` when it gave none (see `error`).
    pub got: Option<Verdict>,
    /// The judge's reasoning.
    pub reasoning: String,
    /// Why the judge gave no verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A judge's scores over a labels file.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Calibration {
    /// The judge's identity.
    pub judge: String,
    /// Steps judged.
    pub steps: usize,
    /// Labelled failures the judge failed.
    pub true_fail: usize,
    /// Labelled passes the judge failed.
    pub false_fail: usize,
    /// Labelled failures the judge passed.
    pub missed_fail: usize,
    /// Steps whose verdict is exactly the label.
    pub agreed: usize,
    /// `true_fail / (true_fail + false_fail)`; 1 when the judge failed nothing.
    pub precision: f64,
    /// `true_fail / (true_fail + missed_fail)`; 1 when nothing is labelled failed.
    pub recall: f64,
    /// `agreed / steps`.
    pub agreement: f64,
    /// Every step, in the labels' order.
    pub scored: Vec<Scored>,
}

/// Judges every labelled step with `judge` (nothing is recorded) and scores it.
pub async fn calibrate(
    store: &Store,
    labels: &[Label],
    judge: &dyn Judge,
    uncertain_passes: bool,
) -> Result<Calibration, CalibrateError> {
    let mut scored = Vec::new();
    let (mut tp, mut fp, mut fneg, mut agreed) = (0, 0, 0, 0);
    for label in labels {
        let missing = |problem: String| CalibrateError::Step {
            line: label.line,
            problem,
        };
        let slug: Slug = store.find_run(&label.run)?.ok_or_else(|| {
            missing(format!(
                "run {} is in no scenario of {}",
                label.run,
                store.dir().display()
            ))
        })?;
        let result = store
            .scenario(&slug)
            .run(&label.run)
            .result()?
            .ok_or_else(|| missing(format!("run {} has no result.json", label.run)))?;
        let step = result
            .steps
            .iter()
            .find(|s| s.id == label.step.as_str())
            .ok_or_else(|| {
                missing(format!(
                    "run {} of {slug} has no step {}",
                    label.run, label.step
                ))
            })?;
        let expectation = step.expectation.clone().ok_or_else(|| {
            missing(format!(
                "step {} of run {} has no expectation to judge (step!(…, expect = \"…\"))",
                label.step, label.run
            ))
        })?;
        let title = step.title.clone().unwrap_or_default();
        let input = step_input(store, &slug, &label.run, step, &title, &expectation)?;
        let (got, reasoning, error) = match judge.judge(&input).await {
            Ok(reply) => (Some(reply.verdict), reply.reasoning, None),
            Err(e) => (None, String::new(), Some(e.to_string())),
        };
        let predicted_fail = !got.is_some_and(|v| v.passes(uncertain_passes));
        let labelled_fail = label.verdict != Verdict::Pass;
        match (labelled_fail, predicted_fail) {
            (true, true) => tp += 1,
            (false, true) => fp += 1,
            (true, false) => fneg += 1,
            (false, false) => {}
        }
        if got == Some(label.verdict) {
            agreed += 1;
        }
        scored.push(Scored {
            run: label.run.to_string(),
            scenario: slug.to_string(),
            step: label.step.to_string(),
            expected: label.verdict,
            got,
            reasoning,
            error,
        });
    }
    let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
    Ok(Calibration {
        judge: judge.identity(),
        steps: scored.len(),
        true_fail: tp,
        false_fail: fp,
        missed_fail: fneg,
        agreed,
        precision: ratio(tp, tp + fp),
        recall: ratio(tp, tp + fneg),
        agreement: ratio(agreed, scored.len()),
        scored,
    })
}
