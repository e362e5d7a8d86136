//! The harness's event consumers: each step's trial slot (filled once, awaited
//! by its libtest trial), the end-of-run summary, and the buffer that holds a
//! retried scenario's events until its last attempt.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

use libtest_mimic::{Completion, Failed};

use crate::registry::ScenarioDef;
use harshjudge_store::event::{Event, EventSink, StepOutcome};
use harshjudge_store::report::{RunLine, Summary};
use harshjudge_store::store::judge::RunJudgment;
use harshjudge_store::store::{RunResult, Slug, StepStatus, Store, VerdictState};

use super::step_test_name;

/// Outcome slot of one step, filled once by the runner, awaited by its trial.
#[derive(Default)]
pub(super) struct Slot {
    value: Mutex<SlotState>,
    ready: Condvar,
}

/// What a [`Slot`] holds: the outcome once filled, and whether a trial waits
/// for it.
#[derive(Default)]
struct SlotState {
    outcome: Option<StepOutcome>,
    waiting: bool,
}

impl Slot {
    /// Fills the slot (once; a second outcome is dropped). The waiting trial
    /// is woken after the lock is released, so that it does not wake only to
    /// wait for the lock; a slot nobody waits for yet wakes no one (each
    /// wake-up is a system call, and the runner fills a slot at every step).
    pub(super) fn fill(&self, outcome: StepOutcome) {
        let waiting = {
            let mut v = self.value.lock().expect("slot lock");
            if v.outcome.is_some() {
                return;
            }
            v.outcome = Some(outcome);
            v.waiting
        };
        if waiting {
            self.ready.notify_all();
        }
    }
    pub(super) fn wait(&self) -> StepOutcome {
        let mut v = self.value.lock().expect("slot lock");
        loop {
            if let Some(o) = v.outcome.as_ref() {
                return o.clone();
            }
            // Under the lock, before it is released by the wait: a fill
            // that follows sees it and wakes this trial.
            v.waiting = true;
            v = self.ready.wait(v).expect("slot lock");
        }
    }
}

/// Routes runner events to the trials and to the end-of-run summary.
pub(super) struct HarnessSink {
    pub(super) slots: HashMap<&'static str, Vec<Arc<Slot>>>,
    pub(super) fn_names: HashMap<&'static str, &'static str>,
    pub(super) summary: Mutex<Summary>,
    /// Per scenario, whether each step's trial was selected by the filter (a
    /// step that is not selected still runs when a later one is).
    pub(super) selected: HashMap<&'static str, Vec<bool>>,
    /// A failure of a step whose trial was not selected, per scenario: it is
    /// reported by the next selected trial of that scenario, so that libtest
    /// counts it (FAILED, exit code 101) instead of ignoring that trial.
    pub(super) carried: Mutex<HashMap<String, (String, StepOutcome)>>,
    /// Per scenario, the outcomes held until its run is final: a step with an
    /// expectation whose code passed (its verdict decides), and every step
    /// after it (so that they reach the trials in order).
    pub(super) deferred: Mutex<HashMap<String, Vec<StepOutcome>>>,
    /// The final result of each run, by its folder: the reports at exit are
    /// built from these rather than from their `result.json` read back.
    pub(super) finished: Mutex<harshjudge_store::report::reads::Finished>,
}

impl HarnessSink {
    fn is_selected(&self, slug: &str, index: usize) -> bool {
        self.selected
            .get(slug)
            .and_then(|s| s.get(index - 1))
            .copied()
            .unwrap_or(true)
    }

    /// What the trial of `outcome` reports: the outcome itself, or, for a
    /// selected step skipped because an unselected earlier step failed, that
    /// failure.
    fn shown(&self, slug: &str, test: &str, outcome: &StepOutcome) -> StepOutcome {
        let mut carried = self.carried.lock().expect("carried");
        if !self.is_selected(slug, outcome.index) {
            if outcome.status == StepStatus::Fail {
                carried.insert(slug.to_string(), (test.to_string(), outcome.clone()));
            }
            return outcome.clone();
        }
        match carried.remove(slug) {
            Some((failed_test, f)) if outcome.status != StepStatus::Fail => StepOutcome {
                status: StepStatus::Fail,
                error: Some(format!(
                    "step {} \"{}\" failed before this step could run: {}\n  (step {} ran because this later step was selected; its own test `{failed_test}` was not selected by the filter)",
                    f.id,
                    f.title,
                    f.error.as_deref().unwrap_or("failed"),
                    f.id,
                )),
                location: f.location.clone(),
                reason: None,
                evidence_dir: f.evidence_dir.clone(),
                ..outcome.clone()
            },
            _ => outcome.clone(),
        }
    }
}

impl HarnessSink {
    /// Fills the trial slot of a step's outcome and notes a failure for the summary.
    fn deliver(&self, slug: &str, outcome: &StepOutcome) {
        let fn_name = self.fn_names.get(slug).copied().unwrap_or(slug);
        let test = step_test_name(fn_name, outcome.index, &outcome.title);
        let shown = self.shown(slug, &test, outcome);
        if let Some(slot) = self.slots.get(slug).and_then(|s| s.get(outcome.index - 1)) {
            slot.fill(shown);
        }
        if outcome.status == StepStatus::Fail {
            self.summary
                .lock()
                .expect("summary")
                .failures
                .push((test, outcome.clone()));
        }
    }
}

/// `--repeat-each N`: the step outcomes of each repetition of one scenario,
/// held until the last; then, per step, the first failure (else the last
/// outcome) goes on to the trial, naming every repetition that failed it
/// ([`repetitions_failed`]). Every other event (each repetition's end: its
/// line in the summary) goes on at once.
pub(super) struct Repeats {
    /// Who hears the events next.
    next: Arc<HarnessSink>,
    /// How many repetitions were asked for.
    count: u32,
    /// Per repetition started, its step outcomes (final: code and verdict).
    runs: Mutex<Vec<Vec<StepOutcome>>>,
}

impl Repeats {
    pub(super) fn new(next: Arc<HarnessSink>, count: u32) -> Repeats {
        Repeats {
            next,
            count,
            runs: Mutex::new(Vec::new()),
        }
    }

    /// A repetition starts: its outcomes are held apart.
    pub(super) fn begin(&self) {
        self.runs.lock().expect("repeats").push(Vec::new());
    }

    /// Delivers one outcome per step: the first repetition that failed it
    /// (its error naming every repetition that failed the step), else the
    /// last one that ran it.
    pub(super) fn finish(&self, slug: &Slug) {
        let runs = std::mem::take(&mut *self.runs.lock().expect("repeats"));
        let steps = runs.iter().map(Vec::len).max().unwrap_or(0);
        for index in 1..=steps {
            let of = |k: usize| runs[k].iter().find(|o| o.index == index);
            let failed: Vec<(usize, &StepOutcome)> = (0..runs.len())
                .filter_map(|k| of(k).map(|o| (k + 1, o)))
                .filter(|(_, o)| o.status == StepStatus::Fail)
                .collect();
            let chosen = match failed.first() {
                Some((_, o)) => {
                    let mut o = (*o).clone();
                    if let Some(e) = &mut o.error {
                        let errors: Vec<(usize, Option<&str>)> = (failed.iter())
                            .map(|(k, o)| (*k, o.error.as_deref()))
                            .collect();
                        e.push_str(&repetitions_failed(&errors, self.count));
                    }
                    Some(o)
                }
                None => (0..runs.len()).rev().find_map(of).cloned(),
            };
            if let Some(mut o) = chosen {
                // Already combined with its verdict: not held again.
                o.expectation = None;
                self.next
                    .on_event(&Event::StepFinished { slug, outcome: &o });
            }
        }
    }
}

/// What a step's error adds under `--repeat-each`: every repetition that
/// failed the step (1-based, with its error), of `count`. The error shown is
/// the first one's; each other repetition whose error differs adds its first
/// line. `(repetitions 2, 5 and 8 of 8 failed, --repeat-each; the error above
/// is repetition 2's)` then `repetition 5: run 5 fails`, ….
fn repetitions_failed(failed: &[(usize, Option<&str>)], count: u32) -> String {
    let Some((first, first_error)) = failed.first() else {
        return String::new();
    };
    if failed.len() == 1 {
        return format!("\n  (repetition {first} of {count} failed, --repeat-each)");
    }
    let numbers: Vec<String> = failed.iter().map(|(k, _)| k.to_string()).collect();
    let (last, rest) = numbers.split_last().expect("several");
    let mut out = format!(
        "\n  (repetitions {} and {last} of {count} failed, --repeat-each; the error above is repetition {first}'s)",
        rest.join(", ")
    );
    for (k, error) in &failed[1..] {
        if error != first_error {
            let line = error.and_then(|e| e.lines().next()).unwrap_or("no error");
            out.push_str(&format!("\n  repetition {k}: {line}"));
        }
    }
    out
}

impl EventSink for Repeats {
    fn on_event(&self, event: &Event<'_>) {
        match event {
            Event::StepFinished { outcome, .. } => {
                let mut runs = self.runs.lock().expect("repeats");
                if runs.is_empty() {
                    runs.push(Vec::new());
                }
                runs.last_mut().expect("one").push((*outcome).clone());
            }
            Event::RunFinished { result, .. } => {
                if let Some(last) = self.runs.lock().expect("repeats").last_mut() {
                    for o in last.iter_mut() {
                        *o = combined(o.clone(), *result);
                    }
                }
                self.next.on_event(event);
            }
            _ => self.next.on_event(event),
        }
    }
}

/// A held outcome made final by the run's combined result: a step whose
/// verdict failed it fails with the judge's message ([`combine_verdicts`](harshjudge_store::judge::combine_verdicts)).
fn combined(mut outcome: StepOutcome, result: Option<&RunResult>) -> StepOutcome {
    let step = result.and_then(|r| r.steps.iter().find(|s| s.id == outcome.id.as_str()));
    if let Some(step) = step
        && step.status == StepStatus::Fail
        && outcome.status == StepStatus::Pass
    {
        outcome.status = StepStatus::Fail;
        outcome.error = step.error.clone();
        outcome.location = None;
    }
    outcome
}

/// The summary's lines about a run's verdicts, and how many steps await one.
fn verdict_lines(
    slug: &str,
    result: &RunResult,
    judgment: Option<&RunJudgment>,
) -> (Vec<String>, usize) {
    let (mut lines, mut pending) = (Vec::new(), 0);
    for step in &result.steps {
        let Some(state) = step.verdict else {
            continue;
        };
        let judged = judgment.and_then(|j| j.step(&step.id));
        let by = judged.map_or(String::new(), |j| format!(" by the {} judge", j.judge));
        let why = |text: &str| {
            let first = text.lines().next().unwrap_or("").trim();
            let cut: String = first.chars().take(300).collect();
            if cut.len() < first.len() {
                format!("{cut}…")
            } else {
                cut
            }
        };
        let line = match state {
            VerdictState::Skipped => continue,
            VerdictState::Pending => {
                pending += 1;
                format!("{slug}: step {} awaits a verdict", step.id)
            }
            VerdictState::Error => format!(
                "{slug}: step {} got no verdict{by}: {}{}",
                step.id,
                why(judged
                    .and_then(|j| j.error.as_deref())
                    .unwrap_or("no answer")),
                if step.status == StepStatus::Pass {
                    " (counted as passed: HARSHJUDGE_UNCERTAIN=pass)"
                } else {
                    ""
                }
            ),
            _ => format!(
                "{slug}: step {} judged {}{by}: {}{}",
                step.id,
                state.as_str(),
                why(judged.map_or("", |j| j.reasoning.as_str())),
                if state == VerdictState::Uncertain && step.status == StepStatus::Pass {
                    " (counted as passed: HARSHJUDGE_UNCERTAIN=pass)"
                } else {
                    ""
                }
            ),
        };
        lines.push(line);
    }
    (lines, pending)
}

impl EventSink for HarnessSink {
    fn on_event(&self, event: &Event<'_>) {
        match event {
            Event::StepFinished { slug, outcome } => {
                let slug = slug.as_str();
                {
                    let mut deferred = self.deferred.lock().expect("deferred");
                    let held = deferred.get(slug).is_some_and(|d| !d.is_empty());
                    if held || (outcome.expectation.is_some() && outcome.status == StepStatus::Pass)
                    {
                        deferred
                            .entry(slug.to_string())
                            .or_default()
                            .push((*outcome).clone());
                        return;
                    }
                }
                self.deliver(slug, outcome);
            }
            Event::RunFinished {
                slug,
                result,
                run_dir,
                store_error,
                warnings,
                judgment,
                evidence,
            } => {
                for w in *warnings {
                    eprintln!("harshjudge: {w}");
                }
                let held = (self.deferred.lock().expect("deferred")).remove(slug.as_str());
                for o in held.unwrap_or_default() {
                    self.deliver(slug.as_str(), &combined(o, *result));
                }
                if let (Some(r), Some(dir)) = (result, run_dir) {
                    (self.finished.lock().expect("finished")).insert(
                        dir,
                        (*r).clone(),
                        evidence.cloned(),
                    );
                }
                let mut summary = self.summary.lock().expect("summary");
                if let Some(r) = result {
                    let (lines, pending) = verdict_lines(slug.as_str(), r, *judgment);
                    summary.verdicts.extend(lines);
                    summary.pending += pending;
                }
                summary.runs.push(RunLine {
                    slug: slug.to_string(),
                    status: result
                        .map(|r| if r.flaky { "flaky" } else { r.status.as_str() }.to_string()),
                    run_dir: run_dir.map(Path::to_path_buf),
                    store_error: store_error.map(str::to_string),
                    note: result
                        .filter(|r| r.interrupted)
                        .map(|_| "interrupted".to_string()),
                    earlier: vec![],
                    retried: false,
                });
            }
            _ => {}
        }
    }
}

pub(super) fn trial_result(o: &StepOutcome) -> Result<Completion, Failed> {
    match o.status {
        StepStatus::Pass => Ok(Completion::Completed),
        StepStatus::Skipped => Ok(Completion::ignored_with(
            o.reason.clone().unwrap_or_default(),
        )),
        StepStatus::Fail => Err(harshjudge_store::report::failure_message(o).into()),
    }
}

/// Why a scenario's steps did not run, for [`not_run`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum NotRun<'a> {
    /// Its run could not be recorded (or the runner failed), with the error:
    /// step 1 fails, the others are skipped, and the run ends with the error.
    Unrecorded(&'a str),
    /// The suite was interrupted before it started, with the reason: every
    /// step is skipped.
    Interrupted(&'a str),
    /// Its recorded run could not be re-judged, with why: step 1 fails, the
    /// others are skipped.
    NotRejudged(&'a str),
    /// It was not started (`--max-failures` was reached), with why: every
    /// step is skipped with that reason.
    NotStarted(&'a str),
    /// It was not run, with the reason (a setup it depends on failed): every
    /// step is skipped with that reason.
    Skipped(&'a str),
}

/// The outcomes of the steps of a scenario that did not run, each delivered
/// to `sink` (and, for a run that could not be recorded, its end): the one
/// place the harness makes up results for steps that did not run.
pub(crate) fn not_run(sink: &dyn EventSink, store: &Store, def: &ScenarioDef, why: NotRun<'_>) {
    let slug = Slug::new(def.slug).expect("validated");
    let (error, reason, fails_first) = match why {
        NotRun::Unrecorded(e) => (
            format!("the run could not be recorded: {e}"),
            "the run could not be recorded".to_string(),
            true,
        ),
        NotRun::Interrupted(r) => (String::new(), format!("not run: {r}"), false),
        NotRun::NotStarted(r) => (String::new(), r.to_string(), false),
        NotRun::Skipped(r) => (String::new(), r.to_string(), false),
        NotRun::NotRejudged(w) => (
            format!("not re-judged: {w}"),
            format!("not re-judged: {w}"),
            true,
        ),
    };
    for (i, step) in def.steps.iter().enumerate() {
        let fails = fails_first && i == 0;
        let outcome = StepOutcome {
            index: i + 1,
            id: harshjudge_store::store::StepId::from_index(i + 1).expect("≤ 99 steps"),
            title: step.title.to_string(),
            status: if fails {
                StepStatus::Fail
            } else {
                StepStatus::Skipped
            },
            duration: Default::default(),
            error: fails.then(|| error.clone()),
            location: None,
            reason: (!fails).then(|| reason.clone()),
            evidence_dir: store.dir().to_path_buf(),
            expectation: None,
        };
        sink.on_event(&Event::StepFinished {
            slug: &slug,
            outcome: &outcome,
        });
    }
    if let NotRun::Unrecorded(error) = why {
        sink.on_event(&Event::RunFinished {
            slug: &slug,
            result: None,
            run_dir: None,
            store_error: Some(error),
            warnings: &[],
            judgment: None,
            evidence: None,
        });
    }
}

/// A buffered `RunFinished`: result, run folder, store error, warnings,
/// judgment, evidence as listed at completion.
type Finished = (
    Option<harshjudge_store::store::RunResult>,
    Option<PathBuf>,
    Option<String>,
    Vec<String>,
    Option<RunJudgment>,
    Option<harshjudge_store::store::RunEvidence>,
);

/// Holds one attempt's events until it is known whether it is the last.
#[derive(Default)]
pub(super) struct Buffer {
    steps: Mutex<Vec<StepOutcome>>,
    finished: Mutex<Option<Finished>>,
}

impl EventSink for Buffer {
    fn on_event(&self, event: &Event<'_>) {
        match event {
            Event::StepFinished { outcome, .. } => {
                self.steps.lock().expect("buffer").push((*outcome).clone());
            }
            Event::RunFinished {
                result,
                run_dir,
                store_error,
                warnings,
                judgment,
                evidence,
                ..
            } => {
                *self.finished.lock().expect("buffer") = Some((
                    result.cloned(),
                    run_dir.map(Path::to_path_buf),
                    store_error.map(str::to_string),
                    warnings.to_vec(),
                    judgment.cloned(),
                    evidence.cloned(),
                ));
            }
            _ => {}
        }
    }
}

impl Buffer {
    pub(super) fn outcomes(&self) -> Vec<StepOutcome> {
        self.steps.lock().expect("buffer").clone()
    }

    /// Sends the last attempt's events on. A step that failed in an earlier
    /// attempt and passed now is flaky; with `fail_on_flaky` it fails, saying so.
    pub(super) fn forward(
        &self,
        sink: &dyn EventSink,
        slug: &Slug,
        attempt: u32,
        earlier: &[(PathBuf, Vec<StepOutcome>)],
        fail_on_flaky: bool,
    ) {
        for mut o in self.outcomes() {
            let failed_before = earlier.iter().enumerate().find_map(|(i, (_, steps))| {
                steps
                    .iter()
                    .find(|e| e.index == o.index && e.status == StepStatus::Fail)
                    .map(|e| (i + 1, e.error.clone().unwrap_or_default()))
            });
            match (o.status, failed_before) {
                (StepStatus::Pass, Some((n, err))) if fail_on_flaky => {
                    o.status = StepStatus::Fail;
                    o.error = Some(format!(
                        "flaky: failed on attempt {n} ({err}), passed on attempt {attempt}; --fail-on-flaky (HARSHJUDGE_FLAKY=fail) counts that as a failure"
                    ));
                }
                (StepStatus::Fail, Some(_)) => {
                    if let Some(e) = &mut o.error {
                        e.push_str(&format!(
                            "\n  (attempt {attempt}; all {attempt} attempts failed)"
                        ));
                    }
                }
                _ => {}
            }
            sink.on_event(&Event::StepFinished { slug, outcome: &o });
        }
        if let Some((result, dir, err, warnings, judgment, evidence)) =
            self.finished.lock().expect("buffer").take()
        {
            sink.on_event(&Event::RunFinished {
                slug,
                result: result.as_ref(),
                run_dir: dir.as_deref(),
                store_error: err.as_deref(),
                warnings: &warnings,
                judgment: judgment.as_ref(),
                evidence: evidence.as_ref(),
            });
        }
    }
}

/// What a job learns of one attempt from its events: the run folder
/// (`RunStarted`) and how the run ended (`RunFinished`).
#[derive(Default)]
pub(super) struct Attempt {
    dir: Mutex<Option<PathBuf>>,
    /// Final status and whether it was interrupted; `None` when the run could
    /// not be made final.
    end: Mutex<Option<(harshjudge_store::store::RunStatus, bool)>>,
    /// The run's `errorMessage`, or why it could not be recorded.
    error: Mutex<Option<String>>,
}

impl Attempt {
    /// The run folder, once the run started.
    pub(super) fn dir(&self) -> Option<PathBuf> {
        self.dir.lock().expect("attempt").clone()
    }

    /// Why the run failed (its `errorMessage`), when it did.
    pub(super) fn error(&self) -> Option<String> {
        self.error.lock().expect("attempt").clone()
    }

    /// Whether the run passed, and whether it was interrupted.
    pub(super) fn ended(&self) -> (bool, bool) {
        match *self.end.lock().expect("attempt") {
            Some((status, interrupted)) => (
                status == harshjudge_store::store::RunStatus::Pass,
                interrupted,
            ),
            None => (false, false),
        }
    }
}

/// Notes an attempt's start and end in its [`Attempt`], and passes every event on.
pub(super) struct Tracked {
    /// Where the attempt is noted.
    pub(super) attempt: Arc<Attempt>,
    /// Who hears the events next.
    pub(super) next: Arc<dyn EventSink>,
}

impl EventSink for Tracked {
    fn on_event(&self, event: &Event<'_>) {
        match event {
            Event::RunStarted { run_dir, .. } => {
                *self.attempt.dir.lock().expect("attempt") = Some(run_dir.to_path_buf());
            }
            Event::RunFinished {
                result,
                store_error,
                ..
            } => {
                *self.attempt.end.lock().expect("attempt") =
                    result.map(|r| (r.status, r.interrupted));
                *self.attempt.error.lock().expect("attempt") = result
                    .and_then(|r| r.error_message.clone())
                    .or_else(|| store_error.map(str::to_string));
            }
            _ => {}
        }
        self.next.on_event(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(index: usize) -> StepOutcome {
        StepOutcome {
            index,
            id: harshjudge_store::store::StepId::from_index(index).unwrap(),
            title: format!("Step {index}"),
            status: StepStatus::Pass,
            duration: std::time::Duration::ZERO,
            error: None,
            location: None,
            reason: None,
            evidence_dir: PathBuf::new(),
            expectation: None,
        }
    }

    /// Issue 37.5: a step that failed in several repetitions names every
    /// one of them (the error shown is the first one's; the others' differ).
    #[test]
    fn a_step_failed_in_several_repetitions_names_each_one() {
        let slot = Arc::new(Slot::default());
        let sink = Arc::new(HarnessSink {
            slots: HashMap::from([("s", vec![slot.clone()])]),
            fn_names: HashMap::from([("s", "s")]),
            summary: Mutex::default(),
            selected: HashMap::new(),
            carried: Mutex::default(),
            deferred: Mutex::default(),
            finished: Mutex::default(),
        });
        let slug = Slug::new("s").unwrap();
        let repeats = Repeats::new(sink, 8);
        for k in 1..=8 {
            repeats.begin();
            let mut o = outcome(1);
            if k % 3 == 2 {
                o.status = StepStatus::Fail;
                o.error = Some(format!("run {k} fails\n  more about run {k}"));
            }
            repeats.on_event(&Event::StepFinished {
                slug: &slug,
                outcome: &o,
            });
        }
        repeats.finish(&slug);
        let shown = slot.wait();
        assert_eq!(shown.status, StepStatus::Fail);
        assert_eq!(
            shown.error.as_deref(),
            Some(
                "run 2 fails\n  more about run 2\n  (repetitions 2, 5 and 8 of 8 failed, --repeat-each; the error above is repetition 2's)\n  repetition 5: run 5 fails\n  repetition 8: run 8 fails"
            )
        );
        // One failed repetition, the same error twice.
        assert_eq!(
            repetitions_failed(&[(3, Some("x"))], 4),
            "\n  (repetition 3 of 4 failed, --repeat-each)"
        );
        assert_eq!(
            repetitions_failed(&[(1, Some("x")), (4, Some("x"))], 4),
            "\n  (repetitions 1 and 4 of 4 failed, --repeat-each; the error above is repetition 1's)"
        );
    }

    /// Issue 25.1: a slot wakes its trial only when the trial waits, and
    /// after releasing its lock. No outcome may be lost whichever comes
    /// first, the fill or the wait (a lost wake-up hangs the trial), and the
    /// first outcome stays.
    #[test]
    fn a_slot_hands_over_its_first_outcome_whichever_comes_first() {
        // Filled before anyone waits.
        let slot = Slot::default();
        slot.fill(outcome(1));
        slot.fill(outcome(2));
        assert_eq!(slot.wait().index, 1);
        // Many races of a trial and the runner, each slot filled once.
        let slots: Vec<Arc<Slot>> = (0..2000).map(|_| Arc::new(Slot::default())).collect();
        let trial = {
            let slots = slots.clone();
            std::thread::spawn(move || slots.iter().map(|s| s.wait().index).sum::<usize>())
        };
        for (i, s) in slots.iter().enumerate() {
            if i % 7 == 0 {
                std::thread::yield_now();
            }
            s.fill(outcome(i % 99 + 1));
        }
        let expected: usize = (0..2000).map(|i| i % 99 + 1).sum();
        assert_eq!(trial.join().unwrap(), expected);
    }
}
