//! Judges: verdicts made from a step's recorded evidence and its expectation in
//! words (`step!("…", expect = "…", {…})`), kept apart from execution.
//!
//! A judge reads what a step left on disk (before/after screenshots, console,
//! network, attachments, the code's own outcome) and returns a [`Verdict`] with
//! its reasoning. Three kinds exist:
//! - [`CommandJudge`]: `HARSHJUDGE_JUDGE_CMD`, any program reading one JSON
//!   document ([`JudgeInput`]) on stdin and printing a JSON verdict;
//! - [`HttpJudge`]: an OpenAI-compatible chat-completions endpoint
//!   (`HARSHJUDGE_JUDGE_URL`, `_MODEL`, `_API_KEY`), screenshots sent as images;
//! - an agent through MCP (`getPendingJudgments` / `recordVerdict`), which
//!   records its verdicts itself.
//!
//! Every judgment carries the hash of its inputs ([`inputs_hash`]): evidence
//! contents, expectation, code outcome and the judge's identity. A verdict is
//! reused only while that hash is unchanged.

mod calibrate;
mod cmd;
mod combine;
mod config;
mod http;
mod step;
mod vote;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use calibrate::{CalibrateError, Calibration, Label, Scored, calibrate, read_labels};
pub use cmd::CommandJudge;
pub use combine::combine_verdicts;
pub use config::{DEFAULT_JUDGE_RETRIES, DEFAULT_JUDGE_TIMEOUT, JudgeSettings, MAX_JUDGE_RETRIES};
pub use http::HttpJudge;
pub use step::{Judged, judge_step, step_input};
pub use vote::{MAX_JUDGE_VOTES, Voting};

/// The longest reasoning kept from a judge, in bytes (the rest is cut at a
/// character boundary and marked).
pub const MAX_REASONING: usize = 8 * 1024;

/// The most a judge may print or answer, in bytes; more is an error.
pub const MAX_REPLY: usize = 1024 * 1024;

pub use crate::store::judge::{AnswerInfo, TokenUsage, Verdict, Vote};

impl Verdict {
    /// Parses `pass`, `fail` or `uncertain` (any case, surrounding blanks ignored).
    pub fn parse(text: &str) -> Result<Verdict, JudgeError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "pass" => Ok(Verdict::Pass),
            "fail" => Ok(Verdict::Fail),
            "uncertain" => Ok(Verdict::Uncertain),
            other => Err(JudgeError::Malformed(format!(
                "\"verdict\" is {other:?}; it must be one of \"pass\", \"fail\", \"uncertain\""
            ))),
        }
    }
}

/// One evidence file handed to a judge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvidenceInput {
    /// The evidence name (`after.png`, `console.json`, …).
    pub name: String,
    /// Its absolute path on disk.
    pub path: PathBuf,
    /// `image`, `text` or `json`.
    pub kind: String,
    /// SHA-256 of its bytes, hex.
    pub sha256: String,
    /// Its size in bytes.
    pub bytes: u64,
}

impl EvidenceInput {
    /// Describes the file at `path`, hashing its contents; the kind comes from the
    /// extension (`.png`/`.jpg` image, `.json` json, else text).
    pub fn read(name: &str, path: PathBuf) -> std::io::Result<EvidenceInput> {
        let bytes = std::fs::read(&path)?;
        Ok(EvidenceInput::of_bytes(name, path, &bytes))
    }

    /// Describes evidence already read (`bytes` are the file's contents).
    pub fn of_bytes(name: &str, path: PathBuf, bytes: &[u8]) -> EvidenceInput {
        let lower = name.to_ascii_lowercase();
        let kind = if lower.ends_with(".png") || lower.ends_with(".jpg") || lower.ends_with(".jpeg")
        {
            "image"
        } else if lower.ends_with(".json") {
            "json"
        } else {
            "text"
        };
        EvidenceInput {
            name: name.to_string(),
            path,
            kind: kind.to_string(),
            sha256: harshjudge_browser::trace::ContentHash::of(bytes).to_string(),
            bytes: bytes.len() as u64,
        }
    }
}

/// How the step's own code ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeOutcome {
    /// `pass` or `fail`, as in the step's `result.json`.
    pub status: String,
    /// The error, when the code failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The document a judge receives: for a command judge, exactly what is written
/// on its stdin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JudgeInput {
    /// The run.
    pub run_id: String,
    /// The scenario's slug.
    pub scenario: String,
    /// The step id (`01`…).
    pub step_id: String,
    /// The step title.
    pub title: String,
    /// What must be seen, in words.
    pub expectation: String,
    /// The code's own outcome.
    pub code: CodeOutcome,
    /// The evidence files, in name order.
    pub evidence: Vec<EvidenceInput>,
}

/// A judge's answer, before it is recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The verdict.
    pub verdict: Verdict,
    /// Why, in the judge's words (at most [`MAX_REASONING`] bytes).
    pub reasoning: String,
    /// The prompt as sent, when the judge has one (`prompt.md`).
    pub prompt: Option<String>,
    /// The raw answer (`response.txt`).
    pub response: Option<String>,
    /// Attempts made (1 when the first answer was usable).
    pub attempts: u32,
    /// What the server said about its answer (model, tokens, latency) and the
    /// votes, when known.
    pub info: AnswerInfo,
}

/// Why a judge gave no verdict.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// The judge program could not be started.
    #[error("the judge command could not be started: /bin/sh -c {command:?}: {source}")]
    Spawn {
        /// `HARSHJUDGE_JUDGE_CMD`.
        command: String,
        /// Why it could not be started.
        source: std::io::Error,
    },
    /// Talking to the judge program failed after it started (its pipes, its exit).
    #[error("the judge command failed: {during}: {source}")]
    Io {
        /// What was being done (`reading the judge's output`, …).
        during: &'static str,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The judge input could not be encoded as JSON.
    #[error("encoding the judge input: {0}")]
    Encode(#[source] serde_json::Error),
    /// No answer within the judge's timeout.
    #[error(
        "the judge gave no answer within {0:?}; raise HARSHJUDGE_JUDGE_TIMEOUT or make the judge faster"
    )]
    Timeout(Duration),
    /// The judge program exited with a failure.
    #[error("the judge command exited with {status}: {stderr}")]
    Crashed {
        /// The exit status, as printed.
        status: String,
        /// The end of its stderr.
        stderr: String,
    },
    /// The answer is not a verdict: what is wrong with it.
    #[error(
        "the judge's answer is not a verdict: {0}; a judge must answer one JSON object {{\"verdict\": \"pass\" | \"fail\" | \"uncertain\", \"reasoning\": \"…\"}}"
    )]
    Malformed(String),
    /// `HARSHJUDGE_JUDGE_URL` is not a URL.
    #[error("the judge endpoint failed: HARSHJUDGE_JUDGE_URL {endpoint:?} is not a URL: {source}")]
    Url {
        /// The endpoint it names.
        endpoint: String,
        /// Why it is not a URL.
        source: hyper::http::uri::InvalidUri,
    },
    /// The request could not be sent, or its answer not read.
    #[error("the judge endpoint failed: {during} {endpoint}: {source}")]
    Transport {
        /// `POST` or `reading the answer of`.
        during: &'static str,
        /// The chat-completions endpoint.
        endpoint: String,
        /// The transport's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The endpoint answered with an error status.
    #[error("the judge endpoint failed: POST {endpoint} answered {status}: {body}")]
    Status {
        /// The chat-completions endpoint.
        endpoint: String,
        /// The HTTP status.
        status: u16,
        /// The start of the answer's body.
        body: String,
    },
}

impl JudgeError {
    /// Whether another attempt may succeed (a timeout, a transport failure, a
    /// 429 or 5xx status); a bad URL or a refused request will not.
    pub fn is_transient(&self) -> bool {
        match self {
            JudgeError::Timeout(_) | JudgeError::Transport { .. } => true,
            JudgeError::Status { status, .. } => *status == 429 || *status >= 500,
            _ => false,
        }
    }
}

/// A judge: something that turns a [`JudgeInput`] into a [`Reply`].
pub trait Judge: Send + Sync {
    /// `command`, `http` or `agent`.
    fn kind(&self) -> &'static str;
    /// What identifies this judge's way of judging (the command line, or
    /// `model@url`): part of the inputs' hash, so a changed judge re-judges.
    fn identity(&self) -> String;
    /// Judges one step.
    fn judge<'a>(
        &'a self,
        input: &'a JudgeInput,
    ) -> futures_util::future::BoxFuture<'a, Result<Reply, JudgeError>>;
}

/// The hash of everything a verdict depends on: the expectation, the code's
/// outcome, every evidence file's name and content hash, and the judge's identity.
pub fn inputs_hash(input: &JudgeInput, judge_identity: &str) -> String {
    let mut h = Sha256::new();
    let mut field = |name: &str, value: &str| {
        h.update(name.as_bytes());
        h.update((value.len() as u64).to_le_bytes());
        h.update(value.as_bytes());
    };
    field("expectation", &input.expectation);
    field("code.status", &input.code.status);
    field("code.error", input.code.error.as_deref().unwrap_or(""));
    field("judge", judge_identity);
    let mut evidence: Vec<&EvidenceInput> = input.evidence.iter().collect();
    evidence.sort_by(|a, b| a.name.cmp(&b.name));
    for e in evidence {
        field("evidence.name", &e.name);
        field("evidence.sha256", &e.sha256);
    }
    format!("sha256:{}", hex(&h.finalize()))
}

/// Reads a verdict out of a judge's answer: one JSON object with `verdict` and
/// `reasoning`, possibly inside a ```json fence or surrounded by prose (the
/// first `{` to the last `}`).
pub fn parse_reply(text: &str) -> Result<(Verdict, String), JudgeError> {
    if text.len() > MAX_REPLY {
        return Err(JudgeError::Malformed(format!(
            "the answer is {} bytes, more than the {MAX_REPLY} allowed",
            text.len()
        )));
    }
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(JudgeError::Malformed("the answer is empty".into()));
    }
    let json = match (trimmed.find('{'), trimmed.rfind('}')) {
        (Some(start), Some(end)) if start < end => &trimmed[start..=end],
        _ => {
            return Err(JudgeError::Malformed(format!(
                "no JSON object in {:?}",
                excerpt(trimmed, 200)
            )));
        }
    };
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| JudgeError::Malformed(format!("{e} in {:?}", excerpt(json, 200))))?;
    let verdict = match value.get("verdict") {
        Some(serde_json::Value::String(s)) => Verdict::parse(s)?,
        Some(other) => {
            return Err(JudgeError::Malformed(format!(
                "\"verdict\" is {other}, not a string"
            )));
        }
        None => {
            return Err(JudgeError::Malformed(format!(
                "the object has no \"verdict\": {:?}",
                excerpt(json, 200)
            )));
        }
    };
    let reasoning = match value.get("reasoning") {
        Some(serde_json::Value::String(s)) => s.trim().to_string(),
        Some(serde_json::Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    Ok((verdict, bound(reasoning, MAX_REASONING)))
}

/// `text` cut to at most `max` bytes at a character boundary, marked when cut.
pub(crate) fn bound(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str(" … [cut]");
    }
    text
}

fn excerpt(text: &str, max: usize) -> String {
    bound(text.to_string(), max)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
