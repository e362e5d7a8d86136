//! `HARSHJUDGE_JUDGE_VOTES`: a judge asked again when it says fail or
//! uncertain, its majority kept and every answer recorded.

use std::sync::Arc;

use super::{AnswerInfo, Judge, JudgeError, JudgeInput, Reply, Verdict, Vote};

/// The most votes `HARSHJUDGE_JUDGE_VOTES` accepts.
pub const MAX_JUDGE_VOTES: u32 = 9;

/// A judge asked up to `votes` times for one step.
///
/// A first answer `pass` stands alone. A `fail` or `uncertain` answer is
/// checked by asking again, until one verdict holds a majority of `votes` or
/// `votes` answers are in; the verdict is the one given most often (a tie is
/// `uncertain`). Every answer is kept in [`AnswerInfo::votes`]; the usage and
/// latency are their sums. An ask that gives no verdict counts as no vote
/// (recorded with its error); when no ask gives one, the last error is returned.
pub struct Voting {
    /// The judge asked.
    pub inner: Arc<dyn Judge>,
    /// At most how many times (2 or more).
    pub votes: u32,
}

impl Judge for Voting {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    fn identity(&self) -> String {
        format!("{} (majority of {})", self.inner.identity(), self.votes)
    }

    fn judge<'a>(
        &'a self,
        input: &'a JudgeInput,
    ) -> futures_util::future::BoxFuture<'a, Result<Reply, JudgeError>> {
        Box::pin(async move {
            let mut votes: Vec<Vote> = Vec::new();
            let mut replies: Vec<Reply> = Vec::new();
            let mut last_error = None;
            for _ in 0..self.votes.max(1) {
                match self.inner.judge(input).await {
                    Ok(reply) => {
                        votes.push(Vote {
                            verdict: Some(reply.verdict),
                            reasoning: reply.reasoning.clone(),
                            model: reply.info.model.clone(),
                            usage: reply.info.usage,
                            latency_ms: reply.info.latency_ms,
                            error: None,
                        });
                        replies.push(reply);
                    }
                    Err(e) => {
                        votes.push(Vote {
                            verdict: None,
                            reasoning: String::new(),
                            model: None,
                            usage: None,
                            latency_ms: None,
                            error: Some(e.to_string()),
                        });
                        last_error = Some(e);
                    }
                }
                if replies.len() == 1 && replies[0].verdict == Verdict::Pass && votes.len() == 1 {
                    break;
                }
                if majority(&replies, self.votes).is_some() {
                    break;
                }
            }
            if replies.is_empty() {
                return Err(last_error.expect("at least one ask was made"));
            }
            let verdict = majority(&replies, self.votes).unwrap_or_else(|| most(&replies));
            let counted = replies.iter().filter(|r| r.verdict == verdict).count();
            let chosen = replies
                .iter()
                .find(|r| r.verdict == verdict)
                .unwrap_or(&replies[0]);
            let reasoning = if votes.len() == 1 {
                chosen.reasoning.clone()
            } else {
                format!(
                    "{verdict} by {counted} of {} answers: {}",
                    votes.len(),
                    chosen.reasoning
                )
            };
            let sum_usage = replies
                .iter()
                .filter_map(|r| r.info.usage)
                .reduce(|a, b| a.plus(b));
            let sum_latency = replies
                .iter()
                .filter_map(|r| r.info.latency_ms)
                .reduce(|a, b| a + b);
            let response = replies
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    r.response
                        .as_ref()
                        .map(|t| format!("--- answer {} ---\n{t}", i + 1))
                })
                .collect::<Vec<_>>();
            Ok(Reply {
                verdict,
                reasoning,
                prompt: replies[0].prompt.clone(),
                response: (!response.is_empty()).then(|| response.join("\n")),
                attempts: replies.iter().map(|r| r.attempts).sum(),
                info: AnswerInfo {
                    model: chosen.info.model.clone(),
                    usage: sum_usage,
                    latency_ms: sum_latency,
                    votes,
                },
            })
        })
    }
}

/// The verdict more than half of `votes` answers agree on, if any.
fn majority(replies: &[Reply], votes: u32) -> Option<Verdict> {
    [Verdict::Pass, Verdict::Fail, Verdict::Uncertain]
        .into_iter()
        .find(|v| replies.iter().filter(|r| r.verdict == *v).count() * 2 > votes as usize)
}

/// The verdict given most often; a tie is `uncertain`.
fn most(replies: &[Reply]) -> Verdict {
    let count = |v: Verdict| replies.iter().filter(|r| r.verdict == v).count();
    let (pass, fail, uncertain) = (
        count(Verdict::Pass),
        count(Verdict::Fail),
        count(Verdict::Uncertain),
    );
    if pass > fail && pass > uncertain {
        Verdict::Pass
    } else if fail > pass && fail > uncertain {
        Verdict::Fail
    } else {
        Verdict::Uncertain
    }
}
