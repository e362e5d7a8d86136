//! The events a run emits, in order: run started, step started, evidence
//! produced and captured, step finished, run finished. They carry typed ids
//! ([`Slug`], [`RunId`], [`StepId`]).
//!
//! One stream, many consumers: the runner emits and does nothing else; the
//! run's store writer (`recorder::writer`) is the first consumer and the only
//! way evidence and results reach the run's files. It records each event, then
//! passes it on to the harness's consumers (the libtest trial slots and the
//! end-of-run summary, whose runs the JUnit/HTML report tail publishes): an
//! [`Event::EvidenceProduced`] becomes an [`Event::EvidenceCaptured`] once
//! the file is whole on disk, and [`Event::RunFinished`] is the writer's own,
//! once the run is final. Producers never print; consumers render.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::store::judge::RunJudgment;
use crate::store::{NewEvidence, RunEvidence, RunId, RunResult, Slug, StepId, StepStatus};

/// How one step ended.
#[derive(Clone, Debug, PartialEq)]
pub struct StepOutcome {
    /// 1-based position.
    pub index: usize,
    /// `01`…
    pub id: StepId,
    /// Title as declared.
    pub title: String,
    /// pass, fail or skipped.
    pub status: StepStatus,
    /// Wall time (zero when skipped).
    pub duration: Duration,
    /// The failure message.
    pub error: Option<String>,
    /// Where the failure was raised, `file:line:col`.
    pub location: Option<String>,
    /// Why a skipped step did not run.
    pub reason: Option<String>,
    /// The step's evidence folder.
    pub evidence_dir: PathBuf,
    /// What a judge must see in the step's evidence (`step!(…, expect = "…")`).
    /// The trial of such a step reports the combined outcome (code and
    /// verdict), known at `RunFinished`.
    pub expectation: Option<String>,
}

/// Something that happened in a run.
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A run was created on disk.
    RunStarted {
        /// Scenario slug.
        slug: &'a Slug,
        /// Run id.
        run_id: &'a RunId,
        /// `runs/{runId}`.
        run_dir: &'a Path,
    },
    /// A step began.
    StepStarted {
        /// Scenario slug.
        slug: &'a Slug,
        /// The step.
        id: &'a StepId,
        /// Its title.
        title: &'a str,
    },
    /// Evidence a step produced, not yet on disk. The store writer writes it
    /// (`step-NN/evidence/{name}.{ext}` and its sidecar) and tells the
    /// consumers after it [`Event::EvidenceCaptured`] once it is.
    EvidenceProduced {
        /// Scenario slug.
        slug: &'a Slug,
        /// The step.
        id: &'a StepId,
        /// The file's name, type and content.
        file: NewEvidence<'a>,
        /// Whether the producer waits for the write.
        urgency: Urgency,
    },
    /// An evidence file is whole on disk, with its sidecar (announced by the
    /// store writer after the write landed; a probe's file, written off the
    /// step's critical path, may be announced after its step finished, always
    /// before the run finished).
    EvidenceCaptured {
        /// Scenario slug.
        slug: &'a Slug,
        /// The step.
        id: &'a StepId,
        /// The file.
        path: &'a Path,
    },
    /// A step's trace, `trace.json` (the browser's record of what happened
    /// inside it), not yet on disk. The store writer writes it off the step's
    /// path; a trace that cannot be written leaves `trace-error.txt` instead
    /// and never changes the step's status.
    TraceCaptured {
        /// Scenario slug.
        slug: &'a Slug,
        /// The step.
        id: &'a StepId,
        /// `trace.json`'s content.
        bytes: &'a [u8],
        /// `trace-dom.json`'s, when the step took DOM snapshots.
        dom: Option<&'a [u8]>,
        /// The screenshots after its actions: each evidence name
        /// (`trace-03`) and PNG (`HARSHJUDGE_TRACE_SCREENSHOTS`).
        shots: &'a [(String, Vec<u8>)],
        /// The resources its snapshots name, each with its extension
        /// (`css`, `png`, …), for the run's `trace-resources/` (each stored
        /// once per content).
        resources: &'a [(&'static str, Vec<u8>)],
    },
    /// A step ended (passed, failed, or was skipped).
    StepFinished {
        /// Scenario slug.
        slug: &'a Slug,
        /// How.
        outcome: &'a StepOutcome,
    },
    /// The run is final.
    RunFinished {
        /// Scenario slug.
        slug: &'a Slug,
        /// The final `result.json`, when it could be written.
        result: Option<&'a RunResult>,
        /// `runs/{runId}`, when the run could be created.
        run_dir: Option<&'a Path>,
        /// A store error that prevented recording, if any.
        store_error: Option<&'a str>,
        /// What was recorded only in part (an evidence file that could not be written).
        warnings: &'a [String],
        /// The run's judgment (`judge/result.json`), when its steps were judged.
        judgment: Option<&'a RunJudgment>,
        /// The run's evidence files as its completion listed them (what
        /// [`RunDir::evidence`](crate::store::RunDir::evidence) would list now),
        /// when that listing is known to be current: not for an interrupted or
        /// judged run.
        evidence: Option<&'a RunEvidence>,
    },
}

/// When a producer needs its evidence on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Urgency {
    /// Before it goes on: an attachment, whose path (or why it could not be
    /// written) the scenario gets back.
    Now,
    /// Off the step's critical path: a probe's capture. The run is made final
    /// only once every such write landed.
    Background,
}

/// A consumer of events.
pub trait EventSink: Send + Sync {
    /// Called for every event, in order for one scenario.
    fn on_event(&self, event: &Event<'_>);
}

/// A sink that drops everything.
pub struct NoSink;
impl EventSink for NoSink {
    fn on_event(&self, _: &Event<'_>) {}
}
