//! The store writer: the first consumer of a run's events and the only way
//! evidence and results reach the run's files (through its [`RunHandle`],
//! which it alone holds). The runner does no file I/O: it hands every event
//! to [`StoreWriter::emit`], which records it and passes it on to the other
//! consumers — as it became: a step whose result could not be written fails,
//! and an [`Event::EvidenceProduced`] reaches them as
//! [`Event::EvidenceCaptured`] once the file is whole on disk. An attachment
//! is written before `emit` returns ([`Urgency::Now`]); probe evidence is
//! written off the step's critical path ([`Urgency::Background`]) and
//! announced at the next event after it landed. [`StoreWriter::finish`] waits
//! for every write, makes the run final and tells the consumers
//! [`Event::RunFinished`].
//!
//! With a judge configured, a finished step with an expectation is judged on a
//! task once its own evidence writes are done (`judging.rs`); `finish` makes
//! the execution final first, then awaits the judges and folds their verdicts
//! in ([`RunDir::apply_judgment`](crate::store::RunDir::apply_judgment)).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use futures_util::FutureExt;

use crate::event::{Event, EventSink, StepOutcome, Urgency};
use crate::store::NewEvidence;
use crate::store::{RunId, RunResult, Slug, StepId, StepStatus, StoreError};

use super::judging::{Judging, ReplayError, step_result};
use super::trace_files::TraceFiles;
use super::{Completion, RunHandle, StepRecord};

/// The judging of one run: the invocation's judge, and the exact test name
/// that selects the scenario (for `judge/replay.sh`).
#[derive(Clone, Debug)]
pub struct JudgeRun {
    /// The invocation's judging.
    pub judging: Arc<Judging>,
    /// An exact test name of the scenario (its last selected step).
    pub filter: String,
}

/// A background write of evidence that ended: the file, or why it is missing.
struct Landed {
    step: StepId,
    path: PathBuf,
    warning: Option<String>,
}

/// A pending write of evidence: the step (1-based) and its task, which
/// answers what landed.
type Write = (usize, tokio::task::JoinHandle<Vec<Landed>>);

/// How a run ended, for [`StoreWriter::finish`].
#[derive(Clone, Copy, Debug)]
pub enum Ending<'a> {
    /// It ran to its end (passed, failed, or stopped after the selected steps).
    Completed,
    /// Ctrl-C or SIGTERM, with the reason.
    Interrupted(&'a str),
}

/// What [`StoreWriter::emit`] did with an event.
#[derive(Debug, PartialEq)]
pub enum Recorded {
    /// Recorded (or nothing to record), and passed on.
    Passed,
    /// Evidence written before `emit` returned ([`Urgency::Now`]), at this path.
    Written(PathBuf),
    /// A step's status as the consumers heard it: failed when its result
    /// could not be recorded.
    Step(StepStatus),
}

/// Records a run's events in its files and passes them on to the consumers.
pub struct StoreWriter {
    run: Mutex<RunHandle>,
    slug: Slug,
    id: RunId,
    dir: PathBuf,
    /// Probe evidence being written, per step; each answers what landed.
    writes: Mutex<Vec<Write>>,
    /// Evidence files that could not be written, for `RunFinished`.
    warnings: Mutex<Vec<String>>,
    /// The judge, when steps with an expectation are judged during the run.
    judging: Option<JudgeRun>,
    /// Judge tasks of this run; each answers a warning when the store failed.
    judges: Mutex<Vec<tokio::task::JoinHandle<Option<String>>>>,
    /// Everyone after the writer (the harness, a test's recording sink).
    next: Arc<dyn EventSink>,
}

impl StoreWriter {
    /// The writer of `run`, judging its steps with `judging`, passing every
    /// event on to `next`.
    pub fn new(run: RunHandle, judging: Option<JudgeRun>, next: Arc<dyn EventSink>) -> StoreWriter {
        let (slug, id, dir) = (run.slug().clone(), run.id().clone(), run.dir());
        StoreWriter {
            run: Mutex::new(run),
            slug,
            id,
            dir,
            writes: Mutex::new(Vec::new()),
            warnings: Mutex::new(Vec::new()),
            judging,
            judges: Mutex::new(Vec::new()),
            next,
        }
    }

    fn run(&self) -> std::sync::MutexGuard<'_, RunHandle> {
        self.run.lock().expect("run lock")
    }

    /// The scenario's slug.
    pub fn slug(&self) -> &Slug {
        &self.slug
    }

    /// The run's id.
    pub fn run_id(&self) -> &RunId {
        &self.id
    }

    /// `runs/{runId}`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The evidence folder of `step`.
    pub fn evidence_dir(&self, step: &StepId) -> PathBuf {
        self.run().evidence_dir(step)
    }

    /// Records one event and passes it on: a step that starts
    /// (`skill-state.yaml`), evidence produced (written, now or in the
    /// background, listed in its step, then announced as captured), a step
    /// that ended (`result.json` and `skill-state.yaml`; a failed step's
    /// evidence folder exists even when empty). The consumers hear of a step's
    /// start and end whether or not it could be recorded (a failure to record
    /// a start resurfaces when the step completes: same store, same error),
    /// and of evidence only once it is on disk.
    pub fn emit(&self, event: &Event<'_>) -> Result<Recorded, StoreError> {
        self.announce_landed();
        match event {
            Event::StepStarted { id, .. } => {
                let started = self.run().begin_step(id);
                self.next.on_event(event);
                started.map(|()| Recorded::Passed)
            }
            Event::EvidenceProduced {
                slug,
                id,
                file,
                urgency: Urgency::Now,
            } => {
                let written = self.run().record_evidence(
                    id,
                    NewEvidence {
                        name: file.name,
                        ext: file.ext,
                        kind: file.kind,
                        bytes: file.bytes,
                    },
                    serde_json::Map::new(),
                )?;
                self.next.on_event(&Event::EvidenceCaptured {
                    slug,
                    id,
                    path: &written.path,
                });
                Ok(Recorded::Written(written.path))
            }
            Event::EvidenceProduced {
                id,
                file,
                urgency: Urgency::Background,
                ..
            } => self.write_later(id, file).map(|()| Recorded::Passed),
            Event::TraceCaptured {
                id,
                bytes,
                dom,
                shots,
                resources,
                ..
            } => self
                .write_trace(id, bytes, *dom, shots, resources)
                .map(|()| Recorded::Passed),
            Event::StepFinished { slug, outcome } => {
                let Err(e) = self.record_step(outcome) else {
                    self.next.on_event(event);
                    return Ok(Recorded::Step(outcome.status));
                };
                self.next.on_event(&Event::StepFinished {
                    slug,
                    outcome: &StepOutcome {
                        status: StepStatus::Fail,
                        error: Some(format!("could not record the step's result: {e}")),
                        ..(*outcome).clone()
                    },
                });
                Ok(Recorded::Step(StepStatus::Fail))
            }
            _ => {
                self.next.on_event(event);
                Ok(Recorded::Passed)
            }
        }
    }

    /// A step's result in `result.json`, then its judging started.
    fn record_step(&self, outcome: &StepOutcome) -> Result<(), StoreError> {
        let mut run = self.run();
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

    /// Starts writing `file` into the evidence of `step` (file and sidecar) on
    /// the blocking pool, so the next step need not wait; the step lists it at
    /// once. A run that is already final takes no more evidence.
    fn write_later(&self, step: &StepId, file: &NewEvidence<'_>) -> Result<(), StoreError> {
        let mut run = self.run();
        run.ensure_running()?;
        let file_name = format!("{}.{}", file.name, file.ext);
        let path = run.evidence_dir(step).join(&file_name);
        run.note_evidence(step, file_name)?;
        let store = run.store().clone();
        drop(run);
        let (slug, run_id, step) = (self.slug.clone(), self.id.clone(), step.clone());
        let step_number = step.number();
        let name = file.name.clone();
        let (ext, kind, bytes) = (
            file.ext.to_string(),
            file.kind.to_string(),
            file.bytes.to_vec(),
        );
        let write = tokio::task::spawn_blocking(move || {
            let warning = store
                .scenario(&slug)
                .run(&run_id)
                .write_evidence(
                    &step,
                    NewEvidence {
                        name: &name,
                        ext: &ext,
                        kind: &kind,
                        bytes: &bytes,
                    },
                    Default::default(),
                )
                .err()
                .map(|e| {
                    format!(
                        "{slug}: evidence {name}.{ext} of step {step} could not be written: {e}"
                    )
                });
            vec![Landed {
                step,
                path,
                warning,
            }]
        });
        (self.writes.lock().expect("writes lock")).push((step_number, write));
        Ok(())
    }

    /// Starts writing a step's `trace.json` (and its `trace-dom.json`, when
    /// `dom`; its screenshots `shots`, `trace-NN.png`; the run's
    /// `trace-resources/` of `resources`, first, so that what the snapshots
    /// name is there) as [`write_later`](Self::write_later) does, except that a
    /// failure costs the trace only: the step's evidence gets
    /// `trace-error.txt` saying why (best effort), stderr says it once, and
    /// the run gets no warning (its outcome is not the trace's).
    fn write_trace(
        &self,
        step: &StepId,
        bytes: &[u8],
        dom: Option<&[u8]>,
        shots: &[(String, Vec<u8>)],
        resources: &[(&'static str, Vec<u8>)],
    ) -> Result<(), StoreError> {
        let files = TraceFiles {
            bytes,
            dom,
            shots,
            resources,
        };
        let mut run = self.run();
        run.ensure_running()?;
        for name in files.names() {
            run.note_evidence(step, name)?;
        }
        let store = run.store().clone();
        drop(run);
        let (slug, run_id, step) = (self.slug.clone(), self.id.clone(), step.clone());
        let step_number = step.number();
        let (bytes, dom) = (bytes.to_vec(), dom.map(<[u8]>::to_vec));
        let (shots, resources) = (shots.to_vec(), resources.to_vec());
        let write = tokio::task::spawn_blocking(move || {
            let files = TraceFiles {
                bytes: &bytes,
                dom: dom.as_deref(),
                shots: &shots,
                resources: &resources,
            };
            let dir = store.scenario(&slug).run(&run_id);
            let landed = files.write(&dir, &slug, &step);
            landed
                .into_iter()
                .map(|path| Landed {
                    step: step.clone(),
                    path,
                    warning: None,
                })
                .collect()
        });
        (self.writes.lock().expect("writes lock")).push((step_number, write));
        Ok(())
    }

    /// Tells the consumers of the background writes that landed since the
    /// last event (a write that failed becomes a warning of the run).
    fn announce_landed(&self) {
        let landed: Vec<Vec<Landed>> = {
            let mut writes = self.writes.lock().expect("writes lock");
            if !writes.iter().any(|(_, w)| w.is_finished()) {
                return;
            }
            let (done, pending): (Vec<Write>, Vec<Write>) = std::mem::take(&mut *writes)
                .into_iter()
                .partition(|(_, w)| w.is_finished());
            *writes = pending;
            done.into_iter()
                .filter_map(|(_, w)| w.now_or_never().and_then(Result::ok))
                .collect()
        };
        self.tell(landed.into_iter().flatten());
    }

    fn tell(&self, landed: impl IntoIterator<Item = Landed>) {
        for l in landed {
            match l.warning {
                Some(w) => self.warnings.lock().expect("warnings lock").push(w),
                None => self.next.on_event(&Event::EvidenceCaptured {
                    slug: &self.slug,
                    id: &l.step,
                    path: &l.path,
                }),
            }
        }
    }

    /// Starts judging a step that ran and has an expectation, when a judge is
    /// configured: a task waits for the step's own evidence writes, then asks
    /// the judge (while the next steps run). Skipped steps are not judged.
    fn judge_later(&self, outcome: &StepOutcome) {
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
        // and what landed is still announced.
        let joined = rt.spawn(async move {
            let mut landed = Vec::new();
            for (_, w) in mine {
                landed.extend(w.await.unwrap_or_default());
            }
            let _ = done.send(());
            landed
        });
        writes.push((n, joined));
        drop(writes);
        let store = self.run().store().clone();
        let step = step_result(
            outcome.id.as_str(),
            &outcome.title,
            outcome.status,
            outcome.error.clone(),
        );
        let task = judging.judging.clone().judge(
            store,
            self.slug.clone(),
            self.id.clone(),
            step,
            expectation.clone(),
        );
        let judge = rt.spawn(async move {
            let _ = written.await;
            task.await
        });
        self.judges.lock().expect("judges lock").push(judge);
    }

    /// The run's fixtures, set up and torn down (`result.json`'s `fixtures`,
    /// written when the run is made final).
    pub fn record_fixtures(&self, fixtures: Vec<crate::store::FixtureRun>) {
        self.run().set_fixtures(fixtures);
    }

    /// Waits for every evidence write (announcing each), then makes the run
    /// final: completed (status derived from its steps, statistics counted)
    /// or interrupted. A completed run's judges are awaited after that, and
    /// their verdicts folded into its status and statistics; an interrupted
    /// run's are stopped. Then the consumers hear [`Event::RunFinished`].
    pub async fn finish(&self, ending: Ending<'_>) {
        let writes: Vec<_> = std::mem::take(&mut *self.writes.lock().expect("writes lock"));
        for (_, w) in writes {
            let landed = w.await.unwrap_or_default();
            self.tell(landed);
        }
        let warnings = std::mem::take(&mut *self.warnings.lock().expect("warnings lock"));
        let mut finished = self.complete(ending, warnings).await;
        if let Err(e) = &finished.replay {
            finished.warnings.push(e.to_string());
        }
        self.next.on_event(&Event::RunFinished {
            slug: &self.slug,
            result: finished.result.as_ref(),
            run_dir: Some(&self.dir),
            store_error: finished.store_error.as_deref(),
            warnings: &finished.warnings,
            judgment: finished.judgment.as_ref(),
            evidence: finished.evidence.as_ref(),
        });
    }

    async fn complete(&self, ending: Ending<'_>, warnings: Vec<String>) -> Finished {
        let uncertain_passes =
            (self.judging.as_ref()).is_some_and(|j| j.judging.settings.uncertain_passes);
        let (mut finished, store) = {
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
                evidence: completed
                    .is_ok()
                    .then(|| run.take_listed_evidence())
                    .flatten(),
                store_error: completed.err().map(|e| e.to_string()),
                warnings,
                judgment: None,
                replay: Ok(()),
            };
            (finished, run.store().clone())
        };
        let (slug, id) = (&self.slug, &self.id);
        let judges: Vec<_> = std::mem::take(&mut *self.judges.lock().expect("judges lock"));
        if judges.is_empty() {
            return finished;
        }
        // A judged run's evidence is listed again by whoever reports it.
        finished.evidence = None;
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
        match store.scenario(slug).run(id).judgment() {
            Ok(judgment) => finished.judgment = judgment,
            Err(e) => finished.warnings.push(format!("{slug}: {e}")),
        }
        if let Some(j) = &self.judging {
            finished.replay = j.judging.write_replay(&store, slug, id, &j.filter);
        }
        finished
    }
}

/// The run made final by [`StoreWriter::finish`].
struct Finished {
    /// The final `result.json`, when it could be written.
    result: Option<RunResult>,
    /// The run's evidence as its completion listed it (see [`Event::RunFinished`]).
    evidence: Option<crate::store::RunEvidence>,
    /// Why the run could not be made final.
    store_error: Option<String>,
    /// Evidence files that could not be written, judges that failed.
    warnings: Vec<String>,
    /// The run's judgment, when its steps were judged during the run.
    judgment: Option<crate::store::judge::RunJudgment>,
    /// Whether `judge/replay.sh` could be written.
    replay: Result<(), ReplayError>,
}
