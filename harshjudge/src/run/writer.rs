//! The store writer: the consumer of a run's events that records them in the
//! run's files through its [`RunHandle`]. The runner does no file I/O: every
//! event of a run goes here first ([`StoreWriter::record`]), and what could not
//! be recorded changes what the other consumers hear (a step whose result could
//! not be written fails). Probe evidence is handed over already encoded and
//! written off the step's critical path ([`StoreWriter::capture`]); the run is
//! made final once every such write is done ([`StoreWriter::finish`]).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::event::Event;
use crate::evidence::Item;
use crate::store::{EvidenceName, RunId, RunResult, StepId, StepStatus, StoreError};

use super::{RunHandle, StepRecord};

/// How a run ended, for [`StoreWriter::finish`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ending<'a> {
    /// It ran to its end (passed, failed, or stopped after the selected steps).
    Completed,
    /// Ctrl-C or SIGTERM, with the reason.
    Interrupted(&'a str),
}

/// The run made final by [`StoreWriter::finish`].
#[derive(Debug)]
pub(crate) struct Finished {
    /// The final `result.json`, when it could be written.
    pub result: Option<RunResult>,
    /// `runs/{runId}`.
    pub dir: PathBuf,
    /// Why the run could not be made final.
    pub error: Option<String>,
    /// Evidence files that could not be written.
    pub warnings: Vec<String>,
}

/// Records a run's events in its files. Shares the run with the scenario's
/// attachment API ([`crate::Scenario::attach`]), which writes through the same handle.
pub(crate) struct StoreWriter {
    run: Arc<Mutex<RunHandle>>,
    /// Probe evidence being written; each answers a warning when it failed.
    writes: Mutex<Vec<tokio::task::JoinHandle<Option<String>>>>,
}

impl StoreWriter {
    /// The writer of `run`.
    pub fn new(run: Arc<Mutex<RunHandle>>) -> StoreWriter {
        StoreWriter {
            run,
            writes: Mutex::new(Vec::new()),
        }
    }

    fn run(&self) -> std::sync::MutexGuard<'_, RunHandle> {
        self.run.lock().expect("run lock")
    }

    /// The run's id.
    pub fn run_id(&self) -> RunId {
        self.run().id().clone()
    }

    /// `runs/{runId}`.
    pub fn dir(&self) -> PathBuf {
        self.run().dir()
    }

    /// The evidence folder of `step`.
    pub fn evidence_dir(&self, step: &StepId) -> PathBuf {
        self.run().evidence_dir(step)
    }

    /// Records one event: a step that starts (`skill-state.yaml`), an evidence
    /// file (listed in its step), a step that ended (`result.json` and
    /// `skill-state.yaml`; a failed step's evidence folder exists even when
    /// empty). Other events change no file.
    pub fn record(&self, event: &Event<'_>) -> Result<(), StoreError> {
        let mut run = self.run();
        match event {
            Event::StepStarted { id, .. } => run.begin_step(id),
            Event::EvidenceCaptured { id, path, .. } => {
                match path.file_name().and_then(|n| n.to_str()) {
                    Some(name) => run.note_evidence(id, name.to_string()),
                    None => Ok(()),
                }
            }
            Event::StepFinished { outcome, .. } => {
                if outcome.status == StepStatus::Fail {
                    let _ = run.create_evidence_dir(&outcome.id);
                }
                run.complete_step(StepRecord {
                    id: outcome.id.clone(),
                    status: outcome.status,
                    duration_ms: outcome.duration.as_millis() as u64,
                    error: outcome.error.clone(),
                    location: outcome.location.clone(),
                    summary: outcome.reason.as_ref().map(|r| format!("Skipped: {r}")),
                })
            }
            _ => Ok(()),
        }
    }

    /// Starts writing `item` as the evidence `{name}.{ext}` of `step` (file and
    /// sidecar) on the blocking pool, so the next step need not wait; returns
    /// the file's path. A run that is already final takes no more evidence (`None`).
    pub fn capture(&self, step: &StepId, name: EvidenceName, item: &Item) -> Option<PathBuf> {
        let run = self.run();
        run.ensure_running().ok()?;
        let path = run.evidence_dir(step).join(format!("{name}.{}", item.ext));
        let (store, slug, run_id, step) = (
            run.store().clone(),
            run.slug().clone(),
            run.id().clone(),
            step.clone(),
        );
        drop(run);
        let (ext, kind, bytes) = (item.ext, item.kind, item.bytes.clone());
        let write = tokio::task::spawn_blocking(move || {
            store
                .write_evidence(
                    &slug,
                    &run_id,
                    &step,
                    &name,
                    ext,
                    kind,
                    &bytes,
                    Default::default(),
                )
                .err()
                .map(|e| {
                    format!(
                        "{slug}: evidence {name}.{ext} of step {step} could not be written: {e}"
                    )
                })
        });
        self.writes.lock().expect("writes lock").push(write);
        Some(path)
    }

    /// Waits for every evidence write, then makes the run final: completed
    /// (status derived from its steps, statistics counted) or interrupted.
    pub async fn finish(&self, ending: Ending<'_>) -> Finished {
        let writes: Vec<_> = std::mem::take(&mut *self.writes.lock().expect("writes lock"));
        let mut warnings = Vec::new();
        for w in writes {
            if let Ok(Some(warning)) = w.await {
                warnings.push(warning);
            }
        }
        let mut run = self.run();
        let completed = match ending {
            Ending::Interrupted(reason) => run.interrupt(reason),
            Ending::Completed => run.complete(None).map(|_| ()),
        };
        Finished {
            result: completed.is_ok().then(|| run.result().clone()),
            dir: run.dir(),
            error: completed.err().map(|e| e.to_string()),
            warnings,
        }
    }
}
