//! Which judge a run uses, from the `HARSHJUDGE_JUDGE_*` settings.

use std::sync::Arc;
use std::time::Duration;

use super::{CommandJudge, HttpJudge, Judge, MAX_JUDGE_VOTES, Voting};
use harshjudge_browser::settings::{SettingError, env, env_duration};

/// Default for `HARSHJUDGE_JUDGE_TIMEOUT` (one attempt).
pub const DEFAULT_JUDGE_TIMEOUT: Duration = Duration::from_secs(120);
/// Default for `HARSHJUDGE_JUDGE_RETRIES`.
pub const DEFAULT_JUDGE_RETRIES: u32 = 1;
/// The most retries `HARSHJUDGE_JUDGE_RETRIES` accepts.
pub const MAX_JUDGE_RETRIES: u32 = 10;

/// The judging settings of a run.
#[derive(Clone)]
pub struct JudgeSettings {
    /// The judge, when one is configured (`HARSHJUDGE_JUDGE_CMD` or
    /// `HARSHJUDGE_JUDGE_URL` + `HARSHJUDGE_JUDGE_MODEL`); without one, steps
    /// with an expectation wait for an agent's verdict (`recordVerdict`).
    pub judge: Option<Arc<dyn Judge>>,
    /// `HARSHJUDGE_UNCERTAIN=pass`: an `uncertain` verdict counts as passed
    /// (default: failed).
    pub uncertain_passes: bool,
}

impl std::fmt::Debug for JudgeSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JudgeSettings")
            .field("judge", &self.judge.as_ref().map(|j| j.identity()))
            .field("uncertain_passes", &self.uncertain_passes)
            .finish()
    }
}

impl JudgeSettings {
    /// `HARSHJUDGE_UNCERTAIN` alone (`pass` or `fail`, default `fail`): whether an
    /// `uncertain` verdict counts as passed. For writers of verdicts that use no
    /// configured judge (the MCP server's `recordVerdict`).
    pub fn uncertain_passes_from_env() -> Result<bool, SettingError> {
        Ok(match env("HARSHJUDGE_UNCERTAIN")? {
            None => false,
            Some(v) => match v.trim().to_ascii_lowercase().as_str() {
                "pass" => true,
                "fail" => false,
                _ => {
                    return Err(SettingError {
                        name: "HARSHJUDGE_UNCERTAIN",
                        value: v,
                        expected:
                            "pass or fail (what an `uncertain` verdict counts as; default fail)"
                                .into(),
                    });
                }
            },
        })
    }

    /// Reads the environment; a bad or contradictory value is an error naming it.
    pub fn from_env() -> Result<JudgeSettings, SettingError> {
        let timeout = env_duration("HARSHJUDGE_JUDGE_TIMEOUT", DEFAULT_JUDGE_TIMEOUT)?;
        let retries = match env("HARSHJUDGE_JUDGE_RETRIES")? {
            None => DEFAULT_JUDGE_RETRIES,
            Some(v) => match v.trim().parse::<u32>() {
                Ok(n) if n <= MAX_JUDGE_RETRIES => n,
                _ => {
                    return Err(SettingError {
                        name: "HARSHJUDGE_JUDGE_RETRIES",
                        value: v,
                        expected: format!("a whole number from 0 to {MAX_JUDGE_RETRIES}"),
                    });
                }
            },
        };
        let votes = match env("HARSHJUDGE_JUDGE_VOTES")? {
            None => 1,
            Some(v) => match v.trim().parse::<u32>() {
                Ok(n) if (1..=MAX_JUDGE_VOTES).contains(&n) => n,
                _ => {
                    return Err(SettingError {
                        name: "HARSHJUDGE_JUDGE_VOTES",
                        value: v,
                        expected: format!(
                            "a whole number from 1 to {MAX_JUDGE_VOTES}: how many times a judge that says fail or uncertain is asked (the majority is kept)"
                        ),
                    });
                }
            },
        };
        let uncertain_passes = JudgeSettings::uncertain_passes_from_env()?;
        let cmd = env("HARSHJUDGE_JUDGE_CMD")?;
        let url = env("HARSHJUDGE_JUDGE_URL")?;
        let model = env("HARSHJUDGE_JUDGE_MODEL")?;
        let api_key = env("HARSHJUDGE_JUDGE_API_KEY")?;
        let judge: Option<Arc<dyn Judge>> = match (cmd, url) {
            (Some(cmd), Some(url)) => {
                return Err(SettingError {
                    name: "HARSHJUDGE_JUDGE_URL",
                    value: url,
                    expected: format!(
                        "only one judge: HARSHJUDGE_JUDGE_CMD is also set ({cmd:?}); unset one of the two"
                    ),
                });
            }
            (Some(command), None) => Some(Arc::new(CommandJudge {
                command,
                timeout,
                retries,
            })),
            (None, Some(url)) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(SettingError {
                        name: "HARSHJUDGE_JUDGE_URL",
                        value: url,
                        expected: "an http:// or https:// URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1 or http://127.0.0.1:8080/v1".into(),
                    });
                }
                let Some(model) = model else {
                    return Err(SettingError {
                        name: "HARSHJUDGE_JUDGE_MODEL",
                        value: String::new(),
                        expected: format!(
                            "the model to ask at {url} (HARSHJUDGE_JUDGE_URL is set), e.g. gpt-4o-mini"
                        ),
                    });
                };
                Some(Arc::new(HttpJudge {
                    url,
                    model,
                    api_key,
                    timeout,
                    retries,
                }))
            }
            (None, None) => None,
        };
        let judge = match judge {
            Some(inner) if votes > 1 => Some(Arc::new(Voting { inner, votes }) as Arc<dyn Judge>),
            other => other,
        };
        Ok(JudgeSettings {
            judge,
            uncertain_passes,
        })
    }
}
