//! The store writer: the consumer of a run's events that records them in the
//! run's files through its [`RunHandle`]. The runner does no file I/O: every
//! event of a run goes here first ([`StoreWriter::record`]), and what could not
//! be recorded changes what the other consumers hear (a step whose result could
//! not be written fails). Probe evidence is handed over already encoded and
//! written off the step's critical path ([`StoreWriter::capture`]); the run is
//! made final once every such write is done ([`StoreWriter::finish`]).
//!
//! With a judge configured, a finished step with an expectation is judged on a
//! task once its own evidence writes are done (`judging.rs`); `finish` makes
//! the execution final first, then awaits the judges and folds their verdicts
//! in ([`RunDir::apply_judgment`](crate::store::RunDir::apply_judgment)).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::event::Event;
use crate::evidence::Item;
use crate::store::{EvidenceName, RunId, RunResult, StepId, StepStatus, StoreError};

use super::judging::{Judging, step_result};
use super::{Completion, RunHandle, StepRecord};

/// The judging of one run: the invocation's judge, and the exact test name
/// that selects the scenario (for `judge/replay.sh`).
#[derive(Clone, Debug)]
pub(crate) struct JudgeRun {
    /// The invocation's judging.
    pub judging: Arc<Judging>,
    /// An exact test name of the scenario (its last selected step).
    pub filter: String,
}

/// A pending write of evidence: the step (1-based) and its task, which
/// answers warnings.
type Write = (usize, tokio::task::JoinHandle<Vec<String>>);

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
    /// The run's judgment, when its steps were judged during the run.
    pub judgment: Option<crate::store::judge::RunJudgment>,
}

/// Records a run's events in its files. Shares the run with the scenario's
/// attachment API ([`crate::Scenario::attach`]), which writes through the same handle.
pub(crate) struct StoreWriter {
    run: Arc<Mutex<RunHandle>>,
    /// Probe evidence being written, per step; each answers its warnings.
    writes: Mutex<Vec<Write>>,
    /// The judge, when steps with an expectation are judged during the run.
    judging: Option<JudgeRun>,
    /// Judge tasks of this run; each answers a warning when the store failed.
    judges: Mutex<Vec<tokio::task::JoinHandle<Option<String>>>>,
}

impl StoreWriter {
    /// The writer of `run`, judging its steps with `judging`.
    pub fn new(run: Arc<Mutex<RunHandle>>, judging: Option<JudgeRun>) -> StoreWriter {
        StoreWriter {
            run,
            writes: Mutex::new(Vec::new()),
            judging,
            judges: Mutex::new(Vec::new()),
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
                if let Some(e) = &outcome.expectation {
                    run.expect(&outcome.id, e.clone());
                }
                run.complete_step(StepRecord {
                    id: outcome.id.clone(),
                    status: outcome.status,
                    duration_ms: outcome.duration.as_millis() as u64,
                    error: outcome.error.clone(),
                    location: outcome.location.clone(),
                    summary: outcome.reason.as_ref().map(|r| format!("Skipped: {r}")),
                })?;
                drop(run);
                self.judge_later(outcome);
                Ok(())
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
        let step_number = step.number();
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
            let warning = store
                .scenario(&slug)
                .run(&run_id)
                .write_evidence(&step, &name, ext, kind, &bytes, Default::default())
                .err()
                .map(|e| {
                    format!(
                        "{slug}: evidence {name}.{ext} of step {step} could not be written: {e}"
                    )
                });
            Vec::from_iter(warning)
        });
        (self.writes.lock().expect("writes lock")).push((step_number, write));
        Some(path)
    }

    /// Starts judging a step that ran and has an expectation, when a judge is
    /// configured: a task waits for the step's own evidence writes, then asks
    /// the judge (while the next steps run). Skipped steps are not judged.
    fn judge_later(&self, outcome: &crate::event::StepOutcome) {
        let (Some(judging), Some(expectation)) = (&self.judging, &outcome.expectation) else {
            return;
        };
        if !judging.judging.has_judge() || outcome.status == StepStatus::Skipped {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let n = outcome.index;
        let mut writes = self.writes.lock().expect("writes lock");
        let (mine, others): (Vec<Write>, Vec<Write>) = std::mem::take(&mut *writes)
            .into_iter()
            .partition(|(s, _)| *s == n);
        *writes = others;
        let (done, written) = tokio::sync::oneshot::channel::<()>();
        // The step's writes, awaited once: the judge starts when they are done,
        // and `finish` still collects their warnings.
        let joined = rt.spawn(async move {
            let mut warnings = Vec::new();
            for (_, w) in mine {
                warnings.extend(w.await.unwrap_or_default());
            }
            let _ = done.send(());
            warnings
        });
        writes.push((n, joined));
        drop(writes);
        let run = self.run();
        let (store, slug, id) = (run.store().clone(), run.slug().clone(), run.id().clone());
        drop(run);
        let step = step_result(
            outcome.id.as_str(),
            &outcome.title,
            outcome.status,
            outcome.error.clone(),
        );
        let task = judging
            .judging
            .clone()
            .judge(store, slug, id, step, expectation.clone());
        let judge = rt.spawn(async move {
            let _ = written.await;
            task.await
        });
        self.judges.lock().expect("judges lock").push(judge);
    }

    /// Waits for every evidence write, then makes the run final: completed
    /// (status derived from its steps, statistics counted) or interrupted.
    /// A completed run's judges are awaited after that, and their verdicts
    /// folded into its status and statistics; an interrupted run's are stopped.
    pub async fn finish(&self, ending: Ending<'_>) -> Finished {
        let writes: Vec<_> = std::mem::take(&mut *self.writes.lock().expect("writes lock"));
        let mut warnings = Vec::new();
        for (_, w) in writes {
            warnings.extend(w.await.unwrap_or_default());
        }
        let uncertain_passes =
            (self.judging.as_ref()).is_some_and(|j| j.judging.settings.uncertain_passes);
        let (mut finished, store, slug, id) = {
            let mut run = self.run();
            let completed = match ending {
                Ending::Interrupted(reason) => run.interrupt(reason),
                Ending::Completed => run
                    .complete_with(Completion {
                        uncertain_passes,
                        ..Completion::default()
                    })
                    .map(|_| ()),
            };
            let finished = Finished {
                result: completed.is_ok().then(|| run.result().clone()),
                dir: run.dir(),
                error: completed.err().map(|e| e.to_string()),
                warnings,
                judgment: None,
            };
            let (store, slug, id) = (run.store().clone(), run.slug().clone(), run.id().clone());
            (finished, store, slug, id)
        };
        let judges: Vec<_> = std::mem::take(&mut *self.judges.lock().expect("judges lock"));
        if judges.is_empty() {
            return finished;
        }
        if matches!(ending, Ending::Interrupted(_)) || finished.result.is_none() {
            judges.iter().for_each(|j| j.abort());
            return finished;
        }
        // The execution is final: a crash from here on leaves it intact, its
        // verdicts pending.
        for j in judges {
            finished.warnings.extend(j.await.ok().flatten());
        }
        let applied = {
            let (store, slug, id) = (store.clone(), slug.clone(), id.clone());
            tokio::task::spawn_blocking(move || {
                store
                    .scenario(&slug)
                    .run(&id)
                    .apply_judgment(|r, j| crate::judge::combine_verdicts(r, j, uncertain_passes))
            })
            .await
        };
        match applied {
            Ok(Ok(result)) => finished.result = Some(result),
            Ok(Err(e)) => finished.warnings.push(format!(
                "{slug}: the verdicts could not be applied to run {id}: {e}"
            )),
            Err(e) => finished.warnings.push(format!(
                "{slug}: the verdicts were not applied to run {id}: {e}"
            )),
        }
        match store.scenario(&slug).run(&id).judgment() {
            Ok(judgment) => finished.judgment = judgment,
            Err(e) => finished.warnings.push(format!("{slug}: {e}")),
        }
        if let Some(j) = &self.judging
            && let Err(e) = j.judging.write_replay(&store, &slug, &id, &j.filter)
        {
            finished.warnings.push(e);
        }
        finished
    }
}
