//! What the store keeps: a [`StepRecord`] per tool call with its
//! [`Observation`] of the page, and the shapes of queries and answers.

use super::{DEFAULT_LIMIT, MAX_ARG_CHARS, MAX_ERROR_CHARS, MAX_TEST_IDS, MAX_TEXT_CHARS};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashSet;

/// One tool call as the knowledge store keeps it (one line of
/// `steps/{session}.jsonl`). Missing fields read as their defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct StepRecord {
    /// Unique id, `{session}-{seq}` (given by [`KnowledgeStore::record`](super::KnowledgeStore::record) when empty).
    pub id: String,
    /// The session that made the call (set by [`KnowledgeStore::record`](super::KnowledgeStore::record)).
    pub session: String,
    /// When the call was made, ISO 8601 UTC (set by `record` when empty).
    pub timestamp: String,
    /// The tool's name.
    pub tool: String,
    /// The arguments, compacted (see [`compact_args`]).
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub args: Value,
    /// Whether the call succeeded.
    pub ok: bool,
    /// The error code of a failed call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The error message of a failed call (cut to [`MAX_ERROR_CHARS`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How long the call took, in milliseconds.
    pub duration_ms: f64,
    /// What the page looked like after the call.
    pub observation: Observation,
}

impl StepRecord {
    /// A successful call of `tool` with `args`; `record` fills in the id,
    /// session and timestamp.
    pub fn new(tool: impl Into<String>, args: Value) -> StepRecord {
        StepRecord {
            tool: tool.into(),
            args,
            ok: true,
            ..StepRecord::default()
        }
    }
}

/// What was seen after a call: the page and a short text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Observation {
    /// The page's URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The page's title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `data-testid`s on the page (at most [`MAX_TEST_IDS`], no duplicates).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub test_ids: Vec<String>,
    /// Short visible text or a summary of the result (cut to [`MAX_TEXT_CHARS`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// A page's state, compared with the stored steps by [`KnowledgeStore::similar`](super::KnowledgeStore::similar).
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageState {
    /// The page's URL (only its path counts; ids in it are wildcards).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The page's title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `data-testid`s on the page.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub test_ids: Vec<String>,
    /// The tool about to be called.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// Which sessions a call looks at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Only the current session.
    Session,
    /// Every recorded session (the default).
    #[default]
    All,
}

/// A step's outcome, as a search filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Calls that succeeded.
    Ok,
    /// Calls that failed.
    Error,
}

/// A search of the stored steps.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchQuery {
    /// Free text: words, test ids, tool names, URL paths, error codes.
    pub query: String,
    /// Most hits to return ([`DEFAULT_LIMIT`](super::DEFAULT_LIMIT); more than [`MAX_LIMIT`](super::MAX_LIMIT) counts as [`MAX_LIMIT`](super::MAX_LIMIT)).
    pub limit: usize,
    /// Which sessions.
    pub scope: Scope,
    /// Only steps of this tool (case-insensitive, exact).
    pub tool: Option<String>,
    /// Only steps that succeeded, or failed.
    pub outcome: Option<Outcome>,
    /// Only steps whose URL contains this (case-insensitive).
    pub url: Option<String>,
}

impl SearchQuery {
    /// `query` over all sessions, [`DEFAULT_LIMIT`](super::DEFAULT_LIMIT) hits, no filters.
    pub fn new(query: impl Into<String>) -> SearchQuery {
        SearchQuery {
            query: query.into(),
            limit: DEFAULT_LIMIT,
            scope: Scope::All,
            tool: None,
            outcome: None,
            url: None,
        }
    }
}

/// What a search or `similar` call found.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    /// The best steps, best first (ties: newer first).
    pub hits: Vec<Hit>,
    /// Steps scored: they matched and passed the filters. Steps that cannot
    /// rank (a page's older ones, pages that cannot beat the hits) are not
    /// scored; at most [`MAX_CANDIDATES`](super::MAX_CANDIDATES) steps are looked at.
    pub scanned: usize,
    /// Steps in scope (the session, or all indexed steps), before filters.
    pub total: usize,
    /// Milliseconds spent building the index, when this call built it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_built_ms: Option<f64>,
}

/// One step found.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// 0 to 1; 1 is a perfect match (see [`KnowledgeStore::search`](super::KnowledgeStore::search) and
    /// [`KnowledgeStore::similar`](super::KnowledgeStore::similar) for the formulas). Rounded to 3 decimals,
    /// and only a perfect match shows as 1.
    pub confidence: f64,
    /// What matched: `field:token` for a search, `url:…`, `testIds:n/m`,
    /// `title:…`, `tool:…` for `similar`; strongest first.
    pub matched: Vec<String>,
    /// The step.
    pub step: StepRecord,
}

/// Cuts `args` down to what is worth keeping: strings to [`MAX_ARG_CHARS`]
/// characters (marked with `…`), arrays to 20 items, objects to 50 keys,
/// nesting to 6 levels.
pub fn compact_args(args: &Value) -> Value {
    pub(super) fn go(v: &Value, depth: usize) -> Value {
        match v {
            Value::String(s) => Value::String(cut(s, MAX_ARG_CHARS)),
            Value::Array(a) if depth >= 6 => json!(format!("[{} items]", a.len())),
            Value::Object(o) if depth >= 6 => json!(format!("{{{} keys}}", o.len())),
            Value::Array(a) => {
                let mut out: Vec<Value> = a.iter().take(20).map(|x| go(x, depth + 1)).collect();
                if a.len() > 20 {
                    out.push(json!(format!("… {} more", a.len() - 20)));
                }
                Value::Array(out)
            }
            Value::Object(o) => Value::Object(
                o.iter()
                    .take(50)
                    .map(|(k, x)| (cut(k, MAX_ARG_CHARS), go(x, depth + 1)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    go(args, 0)
}

/// `s` cut to `max` characters, with `…` when cut.
pub(super) fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

/// Applies the size caps and fills id, session and timestamp.
pub(super) fn normalize(step: &mut StepRecord, session: &str, seq: u64) {
    step.session = session.to_string();
    if step.id.is_empty() {
        step.id = format!("{session}-{seq}");
    }
    if step.timestamp.is_empty() {
        step.timestamp = harshjudge_store::store::now_iso();
    }
    step.args = compact_args(&step.args);
    if !step.duration_ms.is_finite() {
        step.duration_ms = 0.0; // NaN would be written as null: an unreadable line
    }
    if let Some(e) = &mut step.error {
        *e = cut(e, MAX_ERROR_CHARS);
    }
    let o = &mut step.observation;
    if let Some(t) = &mut o.text {
        *t = cut(t, MAX_TEXT_CHARS);
    }
    if let Some(u) = &mut o.url {
        *u = cut(u, 2 * MAX_ARG_CHARS);
    }
    if let Some(t) = &mut o.title {
        *t = cut(t, MAX_ARG_CHARS);
    }
    let mut seen = HashSet::new();
    o.test_ids
        .retain(|t| !t.is_empty() && seen.len() < MAX_TEST_IDS && seen.insert(t.clone()));
    for t in &mut o.test_ids {
        *t = cut(t, MAX_ARG_CHARS);
    }
}
