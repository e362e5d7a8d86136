//! A run's judgment, kept apart from its execution: `runs/{runId}/judge/`.
//!
//! ```text
//! runs/{runId}/
//! ├── result.json, step-NN/evidence/…   execution (the original's layout)
//! └── judge/
//!     ├── result.json                   per step: verdict, judge, reasoning, inputs' hash
//!     ├── step-NN.prompt.md             what the judge was shown (when it has a prompt)
//!     ├── step-NN.response.txt          what it answered
//!     └── replay.sh                     re-makes the judgment alone
//! ```

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{RunId, RunResult, RunStatus, Slug, StepId, Store, StoreError};

/// What a judge decided about one step (stored in `judge/result.json`;
/// `crate::judge` re-exports it and parses a judge's answer into it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The evidence shows what the expectation says.
    Pass,
    /// The evidence contradicts the expectation.
    Fail,
    /// The judge could not tell; counts as failed unless `HARSHJUDGE_UNCERTAIN=pass`.
    Uncertain,
}

impl Verdict {
    /// The verdict's word, as written in files and replies.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Uncertain => "uncertain",
        }
    }

    /// Whether the step passes under this verdict; `uncertain` passes only when
    /// `uncertain_passes` (`HARSHJUDGE_UNCERTAIN=pass`).
    pub fn passes(self, uncertain_passes: bool) -> bool {
        match self {
            Verdict::Pass => true,
            Verdict::Fail => false,
            Verdict::Uncertain => uncertain_passes,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step's judgment, as `judge/result.json` keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepJudgment {
    /// The step (`01`…).
    pub step_id: String,
    /// The expectation the verdict answers.
    pub expectation: String,
    /// The verdict; `None` when the judge gave none (see `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Why, in the judge's words.
    #[serde(default)]
    pub reasoning: String,
    /// `command`, `http` or `agent`.
    pub judge: String,
    /// The command line, `model@url`, or the agent's name.
    pub identity: String,
    /// Hash of the inputs (evidence, expectation, code outcome, judge identity).
    pub inputs_hash: String,
    /// How long the judgment took.
    #[serde(default)]
    pub duration_ms: u64,
    /// Attempts made.
    #[serde(default)]
    pub attempts: u32,
    /// When it was made (ISO 8601).
    pub judged_at: String,
    /// Why there is no verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the judge's server said about its answers (model, token usage,
    /// latency) and, with `HARSHJUDGE_JUDGE_VOTES`, every vote.
    #[serde(flatten)]
    pub answer: AnswerInfo,
}

/// Tokens a model spent on one judgment, as its server reported them
/// (OpenAI's `usage.prompt_tokens`/`completion_tokens`, Anthropic's
/// `usage.input_tokens`/`output_tokens`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    /// Tokens of the prompt (images included).
    pub input_tokens: u64,
    /// Tokens of the answer.
    pub output_tokens: u64,
    /// Their sum, or the server's total when it gives one.
    pub total_tokens: u64,
}

impl TokenUsage {
    /// The sum of two usages.
    pub fn plus(self, other: TokenUsage) -> TokenUsage {
        TokenUsage {
            input_tokens: self.input_tokens + other.input_tokens,
            output_tokens: self.output_tokens + other.output_tokens,
            total_tokens: self.total_tokens + other.total_tokens,
        }
    }
}

/// What a judge's server said about its answer, kept beside the verdict in
/// `judge/result.json` (each field only when known).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerInfo {
    /// The model that answered, as the server named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Tokens spent (summed over the votes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// Time from request to answer, in milliseconds (summed over the votes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// Every answer when the judge was asked more than once
    /// (`HARSHJUDGE_JUDGE_VOTES`), in the order given; the verdict is their majority.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub votes: Vec<Vote>,
}

/// One answer of a judge asked several times (`HARSHJUDGE_JUDGE_VOTES`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Vote {
    /// Its verdict; `None` when that ask gave none (see `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Its reasoning.
    #[serde(default)]
    pub reasoning: String,
    /// The model that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Tokens spent on this answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// Its latency, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// Why this ask gave no verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `judge/result.json`: every judged step of one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunJudgment {
    /// The run.
    pub run_id: String,
    /// The judged steps, by step id.
    pub steps: Vec<StepJudgment>,
}

impl RunJudgment {
    /// The judgment of one step.
    pub fn step(&self, step: &str) -> Option<&StepJudgment> {
        self.steps.iter().find(|s| s.step_id == step)
    }
}

impl Store {
    /// Folds a final run's judgment into its `result.json` by `combine` (the
    /// judge's rule, `crate::judge::combine_verdicts`: the store only stores)
    /// and, when its status changed, its scenario's
    /// statistics in `meta.yaml` (`passCount`/`failCount`, and `lastResult`
    /// when it is the last run): under the run's lock, then the `meta.yaml`
    /// lock, so it never races a completion or a recount. The caller must not
    /// hold the run's lock. A run still running is left alone (its completion
    /// combines); a run without `result.json` is an error. Returns the result
    /// as written (or as it was, when nothing changed).
    pub(super) fn apply_judgment(
        &self,
        slug: &Slug,
        run: &RunId,
        combine: impl FnOnce(&mut RunResult, Option<&RunJudgment>) -> bool,
    ) -> Result<RunResult, StoreError> {
        let _lock = self.scenario(slug).run(run).lock()?;
        let Some(mut result) = self.scenario(slug).run(run).result()? else {
            return Err(StoreError::Corrupt {
                path: self.scenario(slug).run(run).result_path(),
                problem: "the run has no result.json to judge".into(),
            });
        };
        if result.status == RunStatus::Running {
            return Ok(result);
        }
        let judgment = self.scenario(slug).run(run).judgment()?;
        let old = result.status;
        if !combine(&mut result, judgment.as_ref()) {
            return Ok(result);
        }
        self.try_update_meta(slug, |doc, _| {
            self.scenario(slug).run(run).write_result(&result)?;
            if old != result.status && !result.interrupted {
                let count = |doc: &super::MetaDoc, key: &str| {
                    doc.0
                        .get(key)
                        .and_then(serde_json::Value::as_u64)
                        .unwrap_or(0)
                };
                let (pass, fail) = (count(doc, "passCount"), count(doc, "failCount"));
                let (pass, fail) = if result.status == RunStatus::Pass {
                    (pass + 1, fail.saturating_sub(1))
                } else {
                    (pass.saturating_sub(1), fail + 1)
                };
                doc.set("passCount", pass);
                doc.set("failCount", fail);
                // `lastResult` is the last completed run's status.
                let newer = self.scenario(slug).runs()?.into_iter().any(|other| {
                    other != *run
                        && self
                            .scenario(slug)
                            .run(&other)
                            .result()
                            .ok()
                            .flatten()
                            .is_some_and(|o| {
                                o.status != RunStatus::Running
                                    && o.completed_at > result.completed_at
                            })
                });
                if !newer {
                    doc.set("lastResult", result.status.as_str());
                }
            }
            Ok(())
        })?;
        Ok(result)
    }

    /// Reads `judge/result.json`; `None` when the run was never judged.
    pub(super) fn read_judgment_of(
        &self,
        at: &super::RunDir,
    ) -> Result<Option<RunJudgment>, StoreError> {
        let path = at.judgment_path();
        match self.read_file(&path) {
            Ok(bytes) => {
                serde_json::from_slice(&bytes)
                    .map(Some)
                    .map_err(|e| StoreError::Corrupt {
                        path,
                        problem: format!("not a judgment record: {e}"),
                    })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::Io { path, source: e }),
        }
    }

    /// Records one step's judgment under the run's lock (read, replace the step's
    /// entry, write atomically), with the judge's prompt and answer beside it.
    /// A judgment recorded twice keeps the last.
    pub(super) fn record_judgment(
        &self,
        slug: &Slug,
        run: &RunId,
        judgment: StepJudgment,
        prompt: Option<&str>,
        response: Option<&str>,
    ) -> Result<RunJudgment, StoreError> {
        let step = StepId::new(judgment.step_id.clone())?;
        let _lock = self.scenario(slug).run(run).lock()?;
        let at = self.scenario(slug).run(run);
        let files = [
            (at.judge_file(&step, "prompt.md"), prompt),
            (at.judge_file(&step, "response.txt"), response),
        ];
        for (path, text) in files {
            match text {
                Some(text) => self.write_file(&path, text.as_bytes())?,
                None => match self.remove_file(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(StoreError::Io { path, source: e }),
                },
            }
        }
        let mut all = at.judgment()?.unwrap_or_default();
        all.run_id = run.to_string();
        all.steps.retain(|s| s.step_id != judgment.step_id);
        all.steps.push(judgment);
        all.steps.sort_by(|a, b| a.step_id.cmp(&b.step_id));
        let json = serde_json::to_vec_pretty(&all).map_err(|e| StoreError::Corrupt {
            path: at.judgment_path(),
            problem: e.to_string(),
        })?;
        self.write_file(&at.judgment_path(), &json)?;
        Ok(all)
    }

    /// Writes `judge/replay.sh`: the command that re-makes this run's judgment
    /// from its recorded evidence, without re-running it.
    pub(super) fn write_judge_replay(
        &self,
        slug: &Slug,
        run: &RunId,
        script: &str,
    ) -> Result<PathBuf, StoreError> {
        let path = self.scenario(slug).run(run).judge_replay_path();
        self.write_file(&path, script.as_bytes())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755));
        }
        Ok(path)
    }
}

/// A judgment of `step` with `verdict`, for the tests of the store and of
/// the judge (the same record in both).
#[cfg(test)]
pub(crate) fn judged(step: &str, verdict: Verdict) -> StepJudgment {
    StepJudgment {
        step_id: step.into(),
        expectation: "a receipt is shown".into(),
        verdict: Some(verdict),
        reasoning: "seen".into(),
        judge: "command".into(),
        identity: "command:judge.sh".into(),
        inputs_hash: "sha256:00".into(),
        duration_ms: 5,
        attempts: 1,
        judged_at: "2026-11-23T00:00:00.000Z".into(),
        error: None,
        answer: AnswerInfo::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judgments_are_kept_beside_the_run_and_replaced_per_step() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join(".harshJudge"));
        store.init_project("p", "http://127.0.0.1").unwrap();
        let slug = Slug::new("checkout").unwrap();
        let run = RunId::new("r1").unwrap();
        std::fs::create_dir_all(store.scenario(&slug).run(&run).path()).unwrap();
        assert_eq!(store.scenario(&slug).run(&run).judgment().unwrap(), None);
        store
            .scenario(&slug)
            .run(&run)
            .record_judgment(judged("02", Verdict::Fail), Some("prompt"), Some("answer"))
            .unwrap();
        store
            .scenario(&slug)
            .run(&run)
            .record_judgment(judged("01", Verdict::Pass), None, None)
            .unwrap();
        let all = store
            .scenario(&slug)
            .run(&run)
            .record_judgment(judged("02", Verdict::Pass), None, Some("again"))
            .unwrap();
        assert_eq!(
            all.steps
                .iter()
                .map(|s| s.step_id.as_str())
                .collect::<Vec<_>>(),
            ["01", "02"]
        );
        assert_eq!(all.step("02").unwrap().verdict, Some(Verdict::Pass));
        assert_eq!(
            store.scenario(&slug).run(&run).judgment().unwrap().unwrap(),
            all
        );
        let judge = store.scenario(&slug).run(&run).judge_dir();
        assert!(
            !judge.join("step-02.prompt.md").exists(),
            "a stale prompt is removed"
        );
        assert_eq!(
            std::fs::read_to_string(judge.join("step-02.response.txt")).unwrap(),
            "again"
        );
        // Bad step ids never become paths.
        let err = store
            .scenario(&slug)
            .run(&run)
            .record_judgment(judged("../x", Verdict::Pass), None, None)
            .unwrap_err();
        assert!(err.to_string().contains("invalid step id"), "{err}");
        // A corrupt record is named, not overwritten.
        std::fs::write(judge.join("result.json"), "{").unwrap();
        let err = store
            .scenario(&slug)
            .run(&run)
            .judgment()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("judge/result.json") && err.contains("not a judgment record"),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_judge_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join(".harshJudge"));
        store.init_project("p", "http://127.0.0.1").unwrap();
        let slug = Slug::new("checkout").unwrap();
        let run = RunId::new("r1").unwrap();
        std::fs::create_dir_all(store.scenario(&slug).run(&run).path()).unwrap();
        std::os::unix::fs::symlink(outside.path(), store.scenario(&slug).run(&run).judge_dir())
            .unwrap();
        let err = store
            .scenario(&slug)
            .run(&run)
            .record_judgment(judged("01", Verdict::Pass), Some("p"), None)
            .unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}
