//! Judging while a run goes on: the store writer hands every finished step
//! with an expectation (`step!(…, expect = "…")`) to the configured judge
//! once the step's evidence is on disk, on a task of its own, so the next
//! steps run meanwhile. At most [`MAX_PARALLEL_JUDGES`] judges work at once
//! per harness invocation.
//!
//! The run is made final with the code's statuses first
//! ([`RunHandle::complete_with`](super::RunHandle::complete_with)); then its
//! judge tasks are awaited and their verdicts folded in by the one rule
//! ([`RunDir::apply_judgment`](crate::store::RunDir::apply_judgment) → [`combine_verdicts`](crate::judge::combine_verdicts)).
//! A crash while judging leaves the execution intact and its verdicts
//! `pending`, for `--rejudge` / `--resume`.

use std::sync::Arc;

use tokio::sync::Semaphore;

use super::replay::{ReplayInfo, sh_quote};
use crate::judge::{self, JudgeSettings};
use crate::store::{RunId, Slug, StepResult, StepStatus, Store};
use harshjudge_browser::process::binary_name;
use harshjudge_browser::settings::env;

/// How many judges may work at once in one harness invocation.
pub const MAX_PARALLEL_JUDGES: usize = 4;

/// The variables that choose and tune the judge, written as comments into
/// `judge/replay.sh` (never `HARSHJUDGE_JUDGE_API_KEY`'s value).
const JUDGE_VARIABLES: [&str; 7] = [
    "HARSHJUDGE_JUDGE_CMD",
    "HARSHJUDGE_JUDGE_URL",
    "HARSHJUDGE_JUDGE_MODEL",
    "HARSHJUDGE_JUDGE_TIMEOUT",
    "HARSHJUDGE_JUDGE_RETRIES",
    "HARSHJUDGE_JUDGE_VOTES",
    "HARSHJUDGE_UNCERTAIN",
];

/// The judging of one harness invocation: its settings (read once, before any
/// run) and the permits that bound how many judges work at once.
pub struct Judging {
    /// The judge and what `uncertain` counts as.
    pub settings: JudgeSettings,
    permits: Arc<Semaphore>,
    /// How runs are replayed (`replay.sh`), for `judge/replay.sh`.
    replay: Option<Arc<ReplayInfo>>,
    /// The judge's settings as given (name, value), for `judge/replay.sh`.
    given: Vec<(String, String)>,
    /// Whether `HARSHJUDGE_JUDGE_API_KEY` is set (its value is never written).
    api_key: bool,
}

impl std::fmt::Debug for Judging {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Judging")
            .field("settings", &self.settings)
            .finish()
    }
}

impl Judging {
    /// The judging of an invocation with `settings`; `replay` tells how its
    /// runs' `judge/replay.sh` reaches the test binary.
    pub fn new(settings: JudgeSettings, replay: Option<Arc<ReplayInfo>>) -> Arc<Judging> {
        let given = JUDGE_VARIABLES
            .iter()
            .filter_map(|k| env(k).ok().flatten().map(|v| (k.to_string(), v)))
            .collect();
        Arc::new(Judging {
            settings,
            permits: Arc::new(Semaphore::new(MAX_PARALLEL_JUDGES)),
            replay,
            given,
            api_key: env("HARSHJUDGE_JUDGE_API_KEY").ok().flatten().is_some(),
        })
    }

    /// Whether a judge is configured.
    pub fn has_judge(&self) -> bool {
        self.settings.judge.is_some()
    }

    /// Judges step `step` of a run (its evidence is on disk): waits for a
    /// permit, reads the evidence through the store, asks the judge and
    /// records the judgment in `judge/`. Returns a warning when the store
    /// failed (the judge's own failure is recorded as the step's judgment).
    pub async fn judge(
        self: Arc<Self>,
        store: Store,
        slug: Slug,
        run: RunId,
        step: StepResult,
        expectation: String,
    ) -> Option<String> {
        let judge = self.settings.judge.clone()?;
        let _permit = self.permits.acquire().await.ok()?;
        let (s, sl, r, st) = (store.clone(), slug.clone(), run.clone(), step.clone());
        let title = step.title.clone().unwrap_or_default();
        let input = tokio::task::spawn_blocking(move || {
            judge::step_input(&s, &sl, &r, &st, &title, &expectation)
        })
        .await;
        let input = match input {
            Ok(Ok(input)) => input,
            Ok(Err(e)) => {
                return Some(format!(
                    "{slug}: step {} could not be judged: its evidence could not be read: {e}",
                    step.id
                ));
            }
            Err(e) => return Some(format!("{slug}: step {} was not judged: {e}", step.id)),
        };
        match judge::judge_step(&store, &slug, &run, &input, &*judge, false).await {
            Ok(_) => None,
            Err(e) => Some(format!(
                "{slug}: the judgment of step {} could not be recorded: {e}",
                step.id
            )),
        }
    }

    /// Writes `judge/replay.sh` of a judged run: it re-makes this run's
    /// judgment alone from its recorded evidence (`--rejudge-run`), selecting
    /// the scenario by `filter` (an exact test name), with the judge's
    /// settings as comments.
    pub fn write_replay(
        &self,
        store: &Store,
        slug: &Slug,
        run: &RunId,
        filter: &str,
    ) -> Result<(), ReplayError> {
        let Some(info) = &self.replay else {
            return Ok(());
        };
        let script = self.replay_script(info, slug, run, filter);
        store
            .scenario(slug)
            .run(run)
            .write_judge_replay(&script)
            .map(|_| ())
            .map_err(|source| ReplayError {
                source,
                slug: slug.clone(),
            })
    }

    fn replay_script(&self, info: &ReplayInfo, slug: &Slug, run: &RunId, filter: &str) -> String {
        let exe = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let root = sh_quote(&info.package_root.display().to_string());
        let mut s = String::from("#!/bin/sh\n");
        s.push_str(&format!(
            "# Re-makes the judgment of run {run} of scenario \"{slug}\" from its recorded\n\
             # evidence: no app, no browser, no new run. Only judge/, the run's status and\n\
             # the scenario's statistics change. Arguments are passed on to the test binary.\n\
             #\n# The judge this run was judged with (set them before running this script):\n"
        ));
        if self.given.is_empty() {
            s.push_str("#   (none was configured: set HARSHJUDGE_JUDGE_CMD or HARSHJUDGE_JUDGE_URL + HARSHJUDGE_JUDGE_MODEL)\n");
        }
        for (k, v) in &self.given {
            s.push_str(&format!(
                "#   export {k}={}\n",
                sh_quote(v).replace('\n', " ")
            ));
        }
        if self.api_key {
            s.push_str("#   export HARSHJUDGE_JUDGE_API_KEY=…   (was set; never written here)\n");
        }
        s.push_str(&format!(
            "set -e\ncd {root}\nexport CARGO_MANIFEST_DIR={root}\nexport HARSHJUDGE_DIR={}\n",
            sh_quote(&info.store_dir.display().to_string())
        ));
        let (run, filter) = (sh_quote(run.as_str()), sh_quote(filter));
        s.push_str(&format!(
            "bin={}\nif [ -x \"$bin\" ]; then\n  exec \"$bin\" --rejudge-run {run} --exact {filter} \"$@\"\nfi\n\
             echo \"replay.sh: $bin is gone (rebuilt or cleaned): running through cargo\" >&2\n\
             exec cargo test -p {} --test {} -- --rejudge-run {run} --exact {filter} \"$@\"\n",
            sh_quote(&exe),
            sh_quote(&info.package),
            sh_quote(&binary_name()),
        ));
        s
    }
}

/// `judge/replay.sh` of a judged run could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{slug}: judge/replay.sh could not be written: {source}")]
pub struct ReplayError {
    /// Why the store could not write it.
    pub source: crate::store::StoreError,
    /// The run's scenario.
    pub slug: Slug,
}

/// What the judge of a step is shown of the code's outcome: a step as
/// `result.json` records it.
pub(crate) fn step_result(
    id: &str,
    title: &str,
    status: StepStatus,
    error: Option<String>,
) -> StepResult {
    StepResult {
        id: id.to_string(),
        status,
        duration: 0,
        error,
        evidence_files: vec![],
        summary: None,
        title: Some(title.to_string()),
        error_location: None,
        expectation: None,
        executed_status: None,
        verdict: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Verdict;
    use crate::recorder::{Completion, RunHandle, StepRecord};
    use crate::store::judge::StepJudgment;
    use crate::store::{RunStatus, ScenarioSpec, StepId, VerdictState};

    fn store() -> (tempfile::TempDir, Store, Slug) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join(".harshJudge"));
        store.init_project("p", "http://127.0.0.1").unwrap();
        let slug = Slug::new("checkout").unwrap();
        let spec = ScenarioSpec {
            title: "Checkout".into(),
            steps: vec!["Pay".into()],
            tags: None,
            starred: None,
            estimated_duration: None,
        };
        store.scenario(&slug).upsert(&spec, &[]).unwrap();
        (dir, store, slug)
    }

    fn uncertain() -> StepJudgment {
        StepJudgment {
            step_id: "01".into(),
            expectation: "a receipt is shown".into(),
            verdict: Some(Verdict::Uncertain),
            reasoning: "the screenshot is blank".into(),
            judge: "agent".into(),
            identity: "agent:test".into(),
            inputs_hash: "sha256:00".into(),
            duration_ms: 0,
            attempts: 1,
            judged_at: "2026-11-23T00:00:00.000Z".into(),
            error: None,
            answer: crate::store::judge::AnswerInfo::default(),
        }
    }

    /// `completeRun` after an agent's `recordVerdict`: the verdict already
    /// recorded is folded in when the run completes, and counted once.
    #[test]
    fn completing_a_run_folds_in_a_judgment_already_recorded() {
        let (_dir, store, slug) = store();
        let mut run = RunHandle::start(&store, &slug, vec!["Pay".into()]).unwrap();
        let id = StepId::new("01").unwrap();
        run.begin_step(&id).unwrap();
        run.expect(&id, "a receipt is shown".into());
        run.complete_step(StepRecord {
            id: id.clone(),
            status: StepStatus::Pass,
            duration_ms: 1,
            error: None,
            location: None,
            summary: None,
        })
        .unwrap();
        let written = store
            .scenario(&slug)
            .run(run.id())
            .result()
            .unwrap()
            .unwrap();
        assert_eq!(
            written.steps[0].expectation.as_deref(),
            Some("a receipt is shown")
        );
        store
            .scenario(&slug)
            .run(run.id())
            .record_judgment(uncertain(), None, None)
            .unwrap();
        let done = run.complete_with(Completion::default()).unwrap();
        assert_eq!(done.status, RunStatus::Fail);
        let result = store
            .scenario(&slug)
            .run(run.id())
            .result()
            .unwrap()
            .unwrap();
        assert_eq!(result.executed_status, Some(RunStatus::Pass));
        assert_eq!(result.steps[0].verdict, Some(VerdictState::Uncertain));
        assert!(
            (result.steps[0].error.as_deref().unwrap()).contains("the screenshot is blank"),
            "{result:?}"
        );
        let meta = store.scenario(&slug).meta().unwrap().unwrap();
        assert_eq!((meta.pass_count, meta.fail_count), (0, 1));
        // Applying the same judgment afterwards changes nothing.
        store
            .scenario(&slug)
            .run(run.id())
            .apply_judgment(|r, j| crate::judge::combine_verdicts(r, j, false))
            .unwrap();
        let meta = store.scenario(&slug).meta().unwrap().unwrap();
        assert_eq!((meta.pass_count, meta.fail_count), (0, 1));

        // With HARSHJUDGE_UNCERTAIN=pass the same verdict passes.
        let mut run = RunHandle::start(&store, &slug, vec!["Pay".into()]).unwrap();
        run.expect(&id, "a receipt is shown".into());
        run.complete_step(StepRecord {
            id: id.clone(),
            status: StepStatus::Pass,
            duration_ms: 1,
            error: None,
            location: None,
            summary: None,
        })
        .unwrap();
        store
            .scenario(&slug)
            .run(run.id())
            .record_judgment(uncertain(), None, None)
            .unwrap();
        let done = run
            .complete_with(Completion {
                uncertain_passes: true,
                ..Completion::default()
            })
            .unwrap();
        assert_eq!(done.status, RunStatus::Pass);
    }

    #[test]
    fn the_judge_replay_names_the_run_and_never_the_api_key() {
        let (_dir, store, slug) = store();
        let judging = Judging {
            settings: JudgeSettings {
                judge: None,
                uncertain_passes: false,
            },
            permits: Arc::new(Semaphore::new(1)),
            replay: None,
            given: vec![("HARSHJUDGE_JUDGE_MODEL".into(), "m'1".into())],
            api_key: true,
        };
        let info = ReplayInfo {
            package: "pkg".into(),
            package_root: store.dir().to_path_buf(),
            store_dir: store.dir().to_path_buf(),
            env: vec![],
        };
        let run = RunId::new("r1").unwrap();
        let s = judging.replay_script(&info, &slug, &run, "checkout::02_pay");
        assert!(
            s.contains("--rejudge-run 'r1' --exact 'checkout::02_pay'"),
            "{s}"
        );
        assert!(
            s.contains("#   export HARSHJUDGE_JUDGE_MODEL='m'\\''1'"),
            "{s}"
        );
        assert!(s.contains("HARSHJUDGE_JUDGE_API_KEY=…   (was set; never written here)"));
        let status = std::process::Command::new("/bin/sh")
            .args(["-n", "-c", &s])
            .status()
            .unwrap();
        assert!(status.success(), "the script parses: {s}");
    }
}
