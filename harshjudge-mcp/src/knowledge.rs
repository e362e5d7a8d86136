//! The knowledge store: every tool call an agent makes is kept as a compact
//! step (tool, arguments, outcome, and what the page looked like), so a later
//! session can ask what worked on this app before (`knowledge_search`) and what
//! was done on a page like the current one (`knowledge_similar`).
//!
//! # Files
//!
//! `<project>/.harshJudge/knowledge/steps/{session}.jsonl`: one [`StepRecord`]
//! per line, appended with one write per line. A crash leaves at most a torn
//! last line; readers skip any line that is not a whole JSON record, and a
//! writer that finds its file not ending in a newline starts on a new line.
//!
//! # The index
//!
//! The first search (or [`KnowledgeStore::similar`]) reads every session's
//! file (newest sessions first, up to [`MAX_INDEX_BYTES`]) into an in-memory
//! inverted index. A step's own fields (tool, args, error, text) are indexed
//! per step; what the page showed (url, title, test ids) is indexed once per
//! distinct page state, shared by every step that saw it, since agents come
//! back to the same pages again and again. Only the index and a file offset
//! per step stay in memory; the hits a call returns are read back from their
//! files. [`KnowledgeStore::record`] indexes what it appends at once. Before
//! each call the files are looked at again (one directory listing and one
//! `stat` per file): lines another process appended are indexed
//! incrementally; a file that shrank, was replaced (another inode) or
//! removed, or whose indexed part no longer ends where it did, makes the
//! index rebuild from scratch.
//!
//! # Answering
//!
//! A step's search score is a sum over the query's tokens of the weight of
//! the strongest field that has the token. It splits exactly into the part
//! its page earns and what its own fields add on top, so pages are scored
//! once, and steps one by one only where their own fields add something.
//! The other steps of a page all score the same, and ties go to the newest,
//! so only the newest `limit` steps of each page can make it: pages are
//! taken best first, and the walk stops as soon as no page left can beat
//! the hits found. `similar` works the same way on page scores. The answers
//! are exactly those of scoring every step (a test checks this against brute
//! force).
//!
//! # Scan limits
//!
//! A call looks at most at [`MAX_CANDIDATES`] steps: first the steps whose
//! own fields matched (rarest query tokens first, newest steps first), then
//! steps of the best pages. Past that, the best of what was looked at is
//! returned. Queries keep their first [`MAX_QUERY_TOKENS`] distinct tokens; a
//! step or a page indexes at most [`MAX_TOKENS_PER_STEP`] distinct tokens.

use harshjudge::store::Store;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::fs::{self, File};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Instant, SystemTime};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::{Code, ToolError};

/// At most this many steps are looked at by one search or `similar` call
/// (see the module's "Scan limits").
pub const MAX_CANDIDATES: usize = 20_000;
/// A query keeps its first this many distinct tokens.
pub const MAX_QUERY_TOKENS: usize = 16;
/// A step's own fields (in order: tool, args, error, text), and a page's
/// (url, title, test ids), index at most this many distinct tokens.
pub const MAX_TOKENS_PER_STEP: usize = 512;
/// The index reads session files newest first until their sizes add up to
/// this (the newest file is always read); older sessions are left out.
pub const MAX_INDEX_BYTES: u64 = 256 * 1024 * 1024;
/// Lines longer than this are skipped unread (records are a few hundred bytes).
pub const MAX_LINE_BYTES: usize = 256 * 1024;
/// Default number of hits.
pub const DEFAULT_LIMIT: usize = 10;
/// Most hits a call returns.
pub const MAX_LIMIT: usize = 100;
/// Strings in a step's `args` are cut to this many characters.
pub const MAX_ARG_CHARS: usize = 200;
/// An observation keeps at most this many test ids.
pub const MAX_TEST_IDS: usize = 50;
/// An observation's `text` is cut to this many characters.
pub const MAX_TEXT_CHARS: usize = 300;
/// A step's `error` is cut to this many characters.
pub const MAX_ERROR_CHARS: usize = 500;
/// Tokens longer than this many characters (hashes, base64) are not indexed.
const MAX_TOKEN_CHARS: usize = 40;

// ---------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------

/// One tool call as the knowledge store keeps it (one line of
/// `steps/{session}.jsonl`). Missing fields read as their defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StepRecord {
    /// Unique id, `{session}-{seq}` (given by [`KnowledgeStore::record`] when empty).
    pub id: String,
    /// The session that made the call (set by [`KnowledgeStore::record`]).
    pub session: String,
    /// When the call was made, ISO 8601 UTC (set by `record` when empty).
    pub timestamp: String,
    /// The tool's name.
    pub tool: String,
    /// The arguments, compacted (see [`compact_args`]).
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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

/// A page's state, compared with the stored steps by [`KnowledgeStore::similar`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
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
    /// Most hits to return ([`DEFAULT_LIMIT`]; more than [`MAX_LIMIT`] counts as [`MAX_LIMIT`]).
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
    /// `query` over all sessions, [`DEFAULT_LIMIT`] hits, no filters.
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
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    /// The best steps, best first (ties: newer first).
    pub hits: Vec<Hit>,
    /// Steps scored: they matched and passed the filters. Steps that cannot
    /// rank (a page's older ones, pages that cannot beat the hits) are not
    /// scored; at most [`MAX_CANDIDATES`] steps are looked at.
    pub scanned: usize,
    /// Steps in scope (the session, or all indexed steps), before filters.
    pub total: usize,
    /// Milliseconds spent building the index, when this call built it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_built_ms: Option<f64>,
}

/// One step found.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// 0 to 1; 1 is a perfect match (see [`KnowledgeStore::search`] and
    /// [`KnowledgeStore::similar`] for the formulas). Rounded to 3 decimals,
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
    fn go(v: &Value, depth: usize) -> Value {
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
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

/// Applies the size caps and fills id, session and timestamp.
fn normalize(step: &mut StepRecord, session: &str, seq: u64) {
    step.session = session.to_string();
    if step.id.is_empty() {
        step.id = format!("{session}-{seq}");
    }
    if step.timestamp.is_empty() {
        step.timestamp = harshjudge::store::now_iso();
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

// ---------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------

/// The stopwords of [`is_stopword`], for its test.
#[cfg(test)]
const STOPWORDS: &[&str] = &[
    "an", "and", "are", "as", "at", "be", "by", "can", "did", "do", "does", "for", "from", "had",
    "has", "have", "how", "is", "it", "its", "me", "my", "of", "or", "our", "so", "than", "that",
    "the", "then", "there", "these", "this", "those", "to", "was", "we", "were", "what", "when",
    "where", "which", "who", "why", "will", "with", "you", "your",
];

/// Words too common to tell steps apart. `in`, `on`, `up`, `out` are kept
/// (`sign-in`, `log-out`).
fn is_stopword(w: &str) -> bool {
    matches!(
        w,
        "an" | "and"
            | "are"
            | "as"
            | "at"
            | "be"
            | "by"
            | "can"
            | "did"
            | "do"
            | "does"
            | "for"
            | "from"
            | "had"
            | "has"
            | "have"
            | "how"
            | "is"
            | "it"
            | "its"
            | "me"
            | "my"
            | "of"
            | "or"
            | "our"
            | "so"
            | "than"
            | "that"
            | "the"
            | "then"
            | "there"
            | "these"
            | "this"
            | "those"
            | "to"
            | "was"
            | "we"
            | "were"
            | "what"
            | "when"
            | "where"
            | "which"
            | "who"
            | "why"
            | "will"
            | "with"
            | "you"
            | "your"
    )
}

/// Lowercase tokens of `s`: split on anything not a letter or digit and at
/// camelCase boundaries (`submitButton` → `submit`, `button`; `HTMLParser` →
/// `html`, `parser`), without 1-character tokens, tokens over 40 characters
/// and stopwords; a plural `s`/`ies` is taken off (`buttons` → `button`).
pub fn tokenize(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_token(s, &mut |t| out.push(t.to_string()));
    out
}

/// Calls `f` with each token of `s` (see [`tokenize`]).
fn each_token(s: &str, f: &mut impl FnMut(&str)) {
    let mut buf = String::new();
    for word in s.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        if word.is_ascii() {
            let b = word.as_bytes();
            let mut start = 0;
            for i in 1..b.len() {
                let (p, c) = (b[i - 1], b[i]);
                if (p.is_ascii_lowercase() && c.is_ascii_uppercase())
                    || (p.is_ascii_uppercase()
                        && c.is_ascii_uppercase()
                        && b.get(i + 1).is_some_and(u8::is_ascii_lowercase))
                {
                    emit(&word[start..i], &mut buf, f);
                    start = i;
                }
            }
            emit(&word[start..], &mut buf, f);
        } else {
            let chars: Vec<char> = word.chars().collect();
            let mut start = 0;
            let mut part = String::new();
            for i in 1..=chars.len() {
                let boundary = i == chars.len() || {
                    let (p, c) = (chars[i - 1], chars[i]);
                    (p.is_lowercase() && c.is_uppercase())
                        || (p.is_uppercase()
                            && c.is_uppercase()
                            && chars.get(i + 1).is_some_and(|n| n.is_lowercase()))
                };
                if boundary {
                    part.clear();
                    part.extend(&chars[start..i]);
                    emit(&part, &mut buf, f);
                    start = i;
                }
            }
        }
    }
}

fn emit(part: &str, buf: &mut String, f: &mut impl FnMut(&str)) {
    let n = if part.is_ascii() {
        part.len()
    } else {
        part.chars().count()
    };
    if !(2..=MAX_TOKEN_CHARS).contains(&n) {
        return;
    }
    buf.clear();
    if part.is_ascii() {
        buf.push_str(part);
        buf.make_ascii_lowercase();
    } else {
        buf.extend(part.chars().flat_map(char::to_lowercase));
    }
    if is_stopword(buf) {
        return;
    }
    stem(buf);
    f(buf);
}

/// Takes a plural ending off: `entries` → `entry`, `buttons` → `button`;
/// leaves `status`, `class`, `analysis` and short words alone.
fn stem(w: &mut String) {
    let n = w.len();
    if n > 4 && w.ends_with("ies") {
        w.truncate(n - 3);
        w.push('y');
    } else if n > 3
        && w.ends_with('s')
        && !(w.ends_with("ss") || w.ends_with("us") || w.ends_with("is"))
    {
        w.truncate(n - 1);
    }
}

/// Tokens of a URL: host and port, path segments, query; the scheme is dropped.
fn url_tokens(url: &str, f: &mut impl FnMut(&str)) {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    each_token(rest, f);
}

/// The page a URL is on: its path, lowercase, without host, query, trailing
/// slash; segments that are ids (all digits, or 8+ hex digits and dashes with
/// a digit) become `:id`. A hash route (`#/cart`) is part of the path.
pub fn page_path(url: &str) -> String {
    let url = url.trim();
    let (had_scheme, rest) = match url.split_once("://") {
        Some((_, r)) => (true, r),
        None => (false, url),
    };
    let (main, hash) = match rest.split_once('#') {
        Some((m, h)) => (m, Some(h)),
        None => (rest, None),
    };
    let main = main.split('?').next().unwrap_or("");
    let path = if had_scheme {
        main.find('/').map_or("", |i| &main[i..])
    } else if main.starts_with('/') {
        main
    } else {
        // "localhost:3000/cart" or "shop.example.com/cart" (a host), or "cart".
        let first = main.split('/').next().unwrap_or("");
        if first.contains('.') || first.contains(':') {
            main.find('/').map_or("", |i| &main[i..])
        } else {
            main
        }
    };
    let mut segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(seg_norm)
        .collect();
    if let Some(h) = hash
        && let Some(route) = h.strip_prefix('/').or_else(|| h.strip_prefix("!/"))
    {
        segs.push("#".into());
        segs.extend(
            route
                .split('?')
                .next()
                .unwrap_or("")
                .split('/')
                .filter(|s| !s.is_empty())
                .map(seg_norm),
        );
    }
    format!("/{}", segs.join("/"))
}

fn seg_norm(s: &str) -> String {
    let digits = s.bytes().all(|b| b.is_ascii_digit());
    let hexid = s.len() >= 8
        && s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
        && s.bytes().any(|b| b.is_ascii_digit());
    if digits || hexid {
        ":id".into()
    } else {
        s.to_lowercase()
    }
}

/// Sortable number from an ISO timestamp (its first 17 digits, padded), for
/// "newer first"; 0 when there are not enough digits.
fn ts_key(ts: &str) -> u64 {
    let mut n: u64 = 0;
    let mut count = 0;
    for b in ts.bytes() {
        if b.is_ascii_digit() {
            n = n * 10 + u64::from(b - b'0');
            count += 1;
            if count == 17 {
                break;
            }
        }
    }
    if count < 8 {
        return 0;
    }
    n * 10u64.pow(17 - count)
}

// ---------------------------------------------------------------------------
// Fields and scoring
// ---------------------------------------------------------------------------

/// The fields of a step a search looks in, with their weights (in tenths).
/// `tool` and `args` say what the step did and weigh most; what the page
/// showed weighs less.
const FIELDS: [(u8, &str, u32); 7] = [
    (F_TOOL, "tool", 10),
    (F_ARGS, "args", 10),
    (F_ERROR, "error", 8),
    (F_URL, "url", 7),
    (F_TEST_IDS, "testIds", 7),
    (F_TITLE, "title", 6),
    (F_TEXT, "text", 4),
];
const F_TOOL: u8 = 1;
const F_ARGS: u8 = 2;
const F_ERROR: u8 = 4;
const F_URL: u8 = 8;
const F_TEST_IDS: u8 = 16;
const F_TITLE: u8 = 32;
const F_TEXT: u8 = 64;
/// The strongest field's weight (tenths).
const W_MAX: u32 = 10;

/// The weight of the strongest field in `mask`.
fn best_weight(mask: u8) -> u32 {
    FIELDS
        .iter()
        .filter(|(bit, _, _)| mask & bit != 0)
        .map(|f| f.2)
        .max()
        .unwrap_or(0)
}

/// Calls `f(bit, token)` for every token of the fields of `step` that are
/// its own: tool, args, error, text.
fn step_tokens(step: &StepRecord, f: &mut impl FnMut(u8, &str)) {
    each_token(&step.tool, &mut |t| f(F_TOOL, t));
    fn args(v: &Value, f: &mut impl FnMut(&str)) {
        match v {
            Value::String(s) => each_token(s, f),
            Value::Number(n) => each_token(&n.to_string(), f),
            Value::Array(a) => a.iter().for_each(|x| args(x, f)),
            Value::Object(o) => o.values().for_each(|x| args(x, f)),
            _ => {}
        }
    }
    args(&step.args, &mut |t| f(F_ARGS, t));
    if let Some(c) = &step.code {
        each_token(c, &mut |t| f(F_ERROR, t));
    }
    if let Some(e) = &step.error {
        each_token(e, &mut |t| f(F_ERROR, t));
    }
    if let Some(t) = &step.observation.text {
        each_token(t, &mut |x| f(F_TEXT, x));
    }
}

/// Calls `f(bit, token)` for every token of the page a step was on: url,
/// title, test ids (shared by the steps taken on the same page).
fn page_tokens(o: &Observation, f: &mut impl FnMut(u8, &str)) {
    if let Some(u) = &o.url {
        url_tokens(u, &mut |t| f(F_URL, t));
    }
    if let Some(t) = &o.title {
        each_token(t, &mut |x| f(F_TITLE, x));
    }
    for id in o.test_ids.iter().take(MAX_TEST_IDS) {
        each_token(id, &mut |t| f(F_TEST_IDS, t));
    }
}

/// Weights of [`KnowledgeStore::similar`]: same page path, shared test ids,
/// shared title words, same tool.
const SIM_PATH: f64 = 8.0;
const SIM_TEST_IDS: f64 = 6.0;
const SIM_TITLE: f64 = 3.0;
const SIM_TOOL: f64 = 2.0;

/// Dice coefficient of two sets given the size of their intersection: 1 for
/// equal sets, 0 for disjoint ones.
fn dice(shared: usize, a: usize, b: usize) -> f64 {
    if a + b == 0 {
        0.0
    } else {
        (2 * shared.min(a).min(b)) as f64 / (a + b) as f64
    }
}

/// Rounds to 3 decimals, except that nothing short of a perfect match shows
/// as 1 (0.9996 gives 0.999).
fn round_down(c: f64) -> f64 {
    if c >= 1.0 {
        1.0
    } else if c > 0.0 {
        ((c * 1000.0).round() / 1000.0).min(0.999)
    } else {
        0.0
    }
}

// ---------------------------------------------------------------------------
// The index
// ---------------------------------------------------------------------------

/// FxHash: fast hashing of short strings and small integers.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

const NONE: u32 = u32::MAX;

#[derive(Default)]
struct Interner {
    ids: FxMap<Box<str>, u32>,
    names: Vec<Box<str>>,
}

impl Interner {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s.into());
        self.ids.insert(s.into(), i);
        i
    }
    fn get(&self, s: &str) -> Option<u32> {
        self.ids.get(s).copied()
    }
}

/// Where a token occurs: in steps' own fields, and in pages (every step on
/// the page has it), each with the fields it is in. Ascending ids.
#[derive(Default)]
struct Postings {
    steps: Vec<u32>,
    step_fields: Vec<u8>,
    pages: Vec<u32>,
    page_fields: Vec<u8>,
}

/// A distinct page state (url, title, test ids), shared by the steps that
/// saw it: indexed once however often an agent comes back to it.
struct PageEntry {
    /// Interned lowercase URL, for the url filter.
    url: u32,
    n_test_ids: u8,
    n_title: u8,
    /// The steps on this page, ascending.
    steps: Vec<u32>,
}

/// What the index keeps of a step (its full record stays in its file).
struct StepMeta {
    file: u32,
    offset: u64,
    len: u32,
    session: u32,
    tool: u32,
    page: u32,
    ts: u64,
    ok: bool,
}

/// An indexed file and how much of it is indexed.
struct FileState {
    path: PathBuf,
    session: u32,
    /// Bytes indexed: up to and including the last newline seen.
    indexed: u64,
    /// Size and mtime when last read (skip re-reading an unchanged torn tail).
    seen_len: u64,
    seen_mtime: Option<SystemTime>,
    /// Device and inode (0 off Unix): another means the file was replaced.
    id: (u64, u64),
}

#[derive(Default)]
struct Index {
    files: Vec<FileState>,
    by_path: FxMap<PathBuf, usize>,
    /// Older files left out by [`MAX_INDEX_BYTES`].
    left_out: HashSet<PathBuf>,
    steps: Vec<StepMeta>,
    tokens: Interner,
    postings: Vec<Postings>,
    pages: Vec<PageEntry>,
    /// Page states by a 128-bit hash of their url, title and test ids.
    page_ids: FxMap<u128, u32>,
    test_ids: Interner,
    test_id_pages: Vec<Vec<u32>>,
    paths: Interner,
    path_pages: Vec<Vec<u32>>,
    tools: Interner,
    tool_steps: Vec<Vec<u32>>,
    urls: Interner,
    sessions: Interner,
    session_counts: Vec<usize>,
}

/// Reused buffers of indexing.
#[derive(Default)]
struct BuildScratch {
    /// Token id → fields, for one step or page.
    marks: FxMap<u32, u8>,
}

/// A page state's identity: SipHash and FxHash of its url, title and test
/// ids side by side (128 bits; a collision would need both to collide).
fn page_key(o: &Observation) -> u128 {
    use std::hash::Hash;
    let mut sip = std::hash::DefaultHasher::new();
    let mut fx = FxHasher::default();
    let parts = [o.url.as_deref(), o.title.as_deref()];
    let ids = o
        .test_ids
        .iter()
        .take(MAX_TEST_IDS)
        .map(|s| Some(s.as_str()));
    for part in parts.into_iter().chain(ids) {
        part.hash(&mut sip);
        part.hash(&mut fx);
    }
    (u128::from(sip.finish()) << 64) | u128::from(fx.finish())
}

fn file_id(m: &fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        (0, 0)
    }
}

/// A file's session: its name without `.jsonl`.
fn session_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let s = name.strip_suffix(".jsonl")?;
    (!s.is_empty()).then(|| s.to_string())
}

/// The `.jsonl` files in `steps`, with their metadata (none if it is missing).
fn list_files(root: &Store, steps: &Path) -> io::Result<Vec<(PathBuf, fs::Metadata)>> {
    let rd = match root.read_dir(steps) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry?;
        let path = entry.path();
        if session_of(&path).is_none() {
            continue;
        }
        // Removed between the listing and now: not there.
        let Ok(meta) = root.metadata(&path) else {
            continue;
        };
        if meta.is_file() {
            out.push((path, meta));
        }
    }
    Ok(out)
}

/// What a file change means for the index.
enum Change {
    Fine,
    Rebuild,
}

impl Index {
    /// Reads the files of `steps` into a new index.
    fn build(root: &Store, steps: &Path, scratch: &mut BuildScratch) -> io::Result<Index> {
        let mut files = list_files(root, steps)?;
        // Newest first to choose what fits; then indexed oldest first, so
        // step numbers grow with time (appends come last, as the newest).
        files.sort_by(|a, b| {
            let (ma, mb) = (a.1.modified().ok(), b.1.modified().ok());
            mb.cmp(&ma).then_with(|| b.0.cmp(&a.0))
        });
        let mut idx = Index::default();
        let mut bytes = 0u64;
        let mut keep = Vec::new();
        for (i, (path, meta)) in files.into_iter().enumerate() {
            bytes = bytes.saturating_add(meta.len());
            if i > 0 && bytes > MAX_INDEX_BYTES {
                idx.left_out.insert(path);
            } else {
                keep.push((path, meta));
            }
        }
        for (path, meta) in keep.into_iter().rev() {
            let fi = idx.add_file(path, &meta);
            // A file replaced while we read it: what is indexed is consistent
            // up to `indexed`, and the next call's sync sees the change.
            let _ = idx.catch_up(root, fi, &meta, scratch)?;
        }
        Ok(idx)
    }

    fn add_file(&mut self, path: PathBuf, meta: &fs::Metadata) -> usize {
        let session = session_of(&path).unwrap_or_default();
        let session = self.session_id(&session);
        let fi = self.files.len();
        self.by_path.insert(path.clone(), fi);
        self.files.push(FileState {
            path,
            session,
            indexed: 0,
            seen_len: 0,
            seen_mtime: None,
            id: file_id(meta),
        });
        fi
    }

    fn session_id(&mut self, s: &str) -> u32 {
        let id = self.sessions.intern(s);
        if self.session_counts.len() <= id as usize {
            self.session_counts.resize(id as usize + 1, 0);
        }
        id
    }

    /// Brings the index up to date with the files on disk.
    fn sync(
        &mut self,
        root: &Store,
        steps: &Path,
        scratch: &mut BuildScratch,
    ) -> io::Result<Change> {
        let listed = list_files(root, steps)?;
        if listed.len() < self.files.len() {
            return Ok(Change::Rebuild); // a file went away
        }
        let mut present = 0;
        for (path, meta) in listed {
            match self.by_path.get(&path) {
                Some(&fi) => {
                    present += 1;
                    if let Change::Rebuild = self.catch_up(root, fi, &meta, scratch)? {
                        return Ok(Change::Rebuild);
                    }
                }
                None if self.left_out.contains(&path) => {}
                None => {
                    let fi = self.add_file(path, &meta);
                    present += 1;
                    if let Change::Rebuild = self.catch_up(root, fi, &meta, scratch)? {
                        return Ok(Change::Rebuild);
                    }
                }
            }
        }
        if present < self.files.len() {
            return Ok(Change::Rebuild);
        }
        Ok(Change::Fine)
    }

    /// Indexes what was appended to file `fi` since it was last read.
    fn catch_up(
        &mut self,
        root: &Store,
        fi: usize,
        meta: &fs::Metadata,
        scratch: &mut BuildScratch,
    ) -> io::Result<Change> {
        let f = &self.files[fi];
        let (len, mtime) = (meta.len(), meta.modified().ok());
        if file_id(meta) != f.id || len < f.indexed {
            return Ok(Change::Rebuild);
        }
        if len == f.seen_len && mtime == f.seen_mtime {
            return Ok(Change::Fine);
        }
        let from = f.indexed;
        // Read from one byte before `from`: it must still be the newline we
        // stopped after, or the file was rewritten.
        let start = from.saturating_sub(1);
        let mut buf = Vec::with_capacity((len - start) as usize + 1);
        let read = root.open_file(&f.path).and_then(|mut file| {
            file.seek(SeekFrom::Start(start))?;
            file.read_to_end(&mut buf)
        });
        match read {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Change::Rebuild),
            Err(e) => {
                // One unreadable file must not take the others down: skipped
                // for now, tried again by the next call.
                tracing::warn!(file = %f.path.display(), "knowledge store: cannot read: {e}");
                return Ok(Change::Fine);
            }
        }
        let mut at = 0;
        if from > 0 {
            if buf.first() != Some(&b'\n') {
                return Ok(Change::Rebuild);
            }
            at = 1;
        }
        let session = f.session;
        let mut consumed = from;
        while let Some(nl) = buf[at..].iter().position(|&b| b == b'\n') {
            let line = &buf[at..at + nl];
            let offset = consumed;
            consumed += nl as u64 + 1;
            at += nl + 1;
            if line.len() > MAX_LINE_BYTES || line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let Ok(step) = serde_json::from_slice::<StepRecord>(line) else {
                continue; // not a record: skipped
            };
            self.add_step(
                &step,
                fi as u32,
                offset,
                line.len() as u32,
                session,
                scratch,
            );
        }
        let f = &mut self.files[fi];
        f.indexed = consumed;
        f.seen_len = start + buf.len() as u64;
        f.seen_mtime = mtime;
        Ok(Change::Fine)
    }

    #[allow(clippy::too_many_arguments)]
    fn add_step(
        &mut self,
        step: &StepRecord,
        file: u32,
        offset: u64,
        len: u32,
        session: u32,
        scratch: &mut BuildScratch,
    ) {
        let n = self.steps.len() as u32;
        let page = self.page_of(&step.observation, scratch);
        self.pages[page as usize].steps.push(n);
        let BuildScratch { marks, .. } = scratch;
        marks.clear();
        let tokens = &mut self.tokens;
        step_tokens(step, &mut |bit, t| {
            let id = tokens.intern(t);
            if let Some(m) = marks.get_mut(&id) {
                *m |= bit;
            } else if marks.len() < MAX_TOKENS_PER_STEP {
                marks.insert(id, bit);
            }
        });
        for (id, mask) in marks.drain() {
            let p = self.postings_mut(id);
            p.steps.push(n);
            p.step_fields.push(mask);
        }
        let tool = if step.tool.is_empty() {
            NONE
        } else {
            let t = self.tools.intern(&step.tool.to_lowercase());
            push_to(&mut self.tool_steps, t, n);
            t
        };
        self.session_counts[session as usize] += 1;
        self.steps.push(StepMeta {
            file,
            offset,
            len,
            session,
            tool,
            page,
            ts: ts_key(&step.timestamp),
            ok: step.ok,
        });
    }

    fn postings_mut(&mut self, token: u32) -> &mut Postings {
        if self.postings.len() <= token as usize {
            self.postings
                .resize_with(token as usize + 1, Postings::default);
        }
        &mut self.postings[token as usize]
    }

    /// The page entry of an observation, made on first sight.
    fn page_of(&mut self, o: &Observation, scratch: &mut BuildScratch) -> u32 {
        let key = page_key(o);
        if let Some(&p) = self.page_ids.get(&key) {
            return p;
        }
        let p = self.pages.len() as u32;
        self.page_ids.insert(key, p);
        let marks = &mut scratch.marks;
        marks.clear();
        let tokens = &mut self.tokens;
        page_tokens(o, &mut |bit, t| {
            let id = tokens.intern(t);
            if let Some(m) = marks.get_mut(&id) {
                *m |= bit;
            } else if marks.len() < MAX_TOKENS_PER_STEP {
                marks.insert(id, bit);
            }
        });
        let mut n_title = 0usize;
        for (id, mask) in marks.drain() {
            n_title += usize::from(mask & F_TITLE != 0);
            let post = self.postings_mut(id);
            post.pages.push(p);
            post.page_fields.push(mask);
        }
        let mut ids: Vec<u32> = o
            .test_ids
            .iter()
            .take(MAX_TEST_IDS)
            .filter(|t| !t.is_empty())
            .map(|t| self.test_ids.intern(t))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        for &id in &ids {
            push_to(&mut self.test_id_pages, id, p);
        }
        let url = match &o.url {
            Some(u) if !u.trim().is_empty() => {
                let path = self.paths.intern(&page_path(u));
                push_to(&mut self.path_pages, path, p);
                self.urls.intern(&u.to_lowercase())
            }
            _ => NONE,
        };
        self.pages.push(PageEntry {
            url,
            n_test_ids: ids.len().min(255) as u8,
            n_title: n_title.min(255) as u8,
            steps: Vec::new(),
        });
        p
    }

    fn total(&self, session: Option<u32>) -> usize {
        match session {
            None => self.steps.len(),
            Some(s) => self.session_counts.get(s as usize).copied().unwrap_or(0),
        }
    }
}

fn push_to(lists: &mut Vec<Vec<u32>>, id: u32, step: u32) {
    if lists.len() <= id as usize {
        lists.resize_with(id as usize + 1, Vec::new);
    }
    lists[id as usize].push(step);
}

/// Which steps a call may look at.
struct Filter {
    session: Option<u32>,
    tool: Option<u32>,
    ok: Option<bool>,
    /// Per interned URL: whether it contains the filter.
    urls: Option<Vec<bool>>,
}

impl Filter {
    fn pass(&self, idx: &Index, s: &StepMeta) -> bool {
        self.session.is_none_or(|x| s.session == x)
            && self.tool.is_none_or(|x| s.tool == x)
            && self.ok.is_none_or(|x| s.ok == x)
            && self.urls.as_ref().is_none_or(|u| {
                let url = idx.pages[s.page as usize].url;
                url != NONE && u[url as usize]
            })
    }
}

/// Per-step and per-page state of one call, reused across calls.
#[derive(Default)]
struct Scratch {
    /// Per step: what its own fields add to its page's score (tenths).
    step_extra: Vec<u32>,
    steps_touched: Vec<u32>,
    /// Per page: its score (tenths, for a search).
    page_points: Vec<u32>,
    /// Per page: the current query token's weight on it.
    page_token: Vec<u8>,
    /// Per page, for `similar`: shared test ids, shared title tokens, same path.
    page_sim: Vec<[u8; 3]>,
    /// Per page, for `similar`: its score.
    page_score: Vec<f64>,
    pages_touched: Vec<u32>,
    build: BuildScratch,
}

impl Scratch {
    /// Clears what the last call left and sizes the arrays for the index.
    fn reset(&mut self, steps: usize, pages: usize) {
        for &s in &self.steps_touched {
            self.step_extra[s as usize] = 0;
        }
        self.steps_touched.clear();
        for &p in &self.pages_touched {
            self.page_points[p as usize] = 0;
            self.page_token[p as usize] = 0;
            self.page_sim[p as usize] = [0; 3];
            self.page_score[p as usize] = 0.0;
        }
        self.pages_touched.clear();
        if self.step_extra.len() < steps {
            self.step_extra.resize(steps, 0);
        }
        if self.page_points.len() < pages {
            self.page_points.resize(pages, 0);
            self.page_token.resize(pages, 0);
            self.page_sim.resize(pages, [0; 3]);
            self.page_score.resize(pages, 0.0);
        }
    }

    /// Marks page `p` as used by this call (once).
    fn touch_page(&mut self, p: u32, fresh: bool) {
        if fresh {
            self.pages_touched.push(p);
        }
    }
}

/// The best `k` steps seen so far: a min-heap on `(score, timestamp, step)`,
/// so the newer step wins a tie.
struct TopK {
    k: usize,
    heap: BinaryHeap<Reverse<(u32, u64, u32)>>,
    /// Steps scored.
    scored: usize,
    /// Steps looked at (scored or filtered out), against [`MAX_CANDIDATES`].
    looked: usize,
}

impl TopK {
    fn new(k: usize) -> TopK {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k + 1),
            scored: 0,
            looked: 0,
        }
    }

    /// Whether the scan limit is reached.
    fn full_scan(&self) -> bool {
        self.looked >= MAX_CANDIDATES
    }

    /// Whether nothing scoring `score` can get in any more.
    fn closed_below(&self, score: u32) -> bool {
        self.heap.len() >= self.k && self.heap.peek().is_some_and(|m| score < m.0.0)
    }

    fn push(&mut self, idx: &Index, s: u32, score: u32) {
        self.scored += 1;
        let key = (score, idx.steps[s as usize].ts, s);
        if self.heap.len() < self.k {
            self.heap.push(Reverse(key));
        } else if self.heap.peek().is_some_and(|m| key > m.0) {
            self.heap.pop();
            self.heap.push(Reverse(key));
        }
    }

    /// `(step, score)`, best first.
    fn into_sorted(self) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u64, u32)> = self.heap.into_iter().map(|r| r.0).collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v.into_iter().map(|(score, _, s)| (s, score)).collect()
    }
}

// ---------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------

struct Inner {
    index: Option<Index>,
    scratch: Scratch,
    /// Next sequence number of this session's step ids (0: not read yet).
    seq: u64,
}

/// The knowledge store of one project, for one session. `Send + Sync`; calls
/// are serialised by an internal lock.
pub struct KnowledgeStore {
    dir: PathBuf,
    /// `.harshJudge/`, the folder no read or write may leave.
    root: Store,
    session: String,
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for KnowledgeStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KnowledgeStore")
            .field("dir", &self.dir)
            .field("session", &self.session)
            .finish()
    }
}

/// A session id usable as a file name: characters other than letters,
/// digits, `.`, `_`, `-` become `_`; no leading `.`; at most 100 characters.
fn safe_session(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        out.push_str("session");
    }
    if out.starts_with('.') {
        out.replace_range(..1, "_");
    }
    out
}

impl KnowledgeStore {
    /// A store over `dir` (`<project>/.harshJudge/knowledge`, created on the
    /// first [`record`](Self::record)) for session `session` (made safe as a
    /// file name, see [`session`](Self::session)). Reads nothing yet.
    pub fn open(dir: PathBuf, session: String) -> KnowledgeStore {
        KnowledgeStore {
            root: Store::new(dir.parent().unwrap_or(&dir)),
            dir,
            session: safe_session(&session),
            inner: Mutex::new(Inner {
                index: None,
                scratch: Scratch::default(),
                seq: 0,
            }),
        }
    }

    /// The current session's id (as given to `open`, with characters that
    /// cannot be in a file name replaced by `_`).
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The store's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn steps_dir(&self) -> PathBuf {
        self.dir.join("steps")
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| {
            // A panic mid-update may have left the index half-changed.
            let mut g = poisoned.into_inner();
            g.index = None;
            g.scratch = Scratch::default();
            g
        })
    }

    /// Appends `step` to `steps/{session}.jsonl` as one line, in one write, in
    /// append mode. Before writing: `session` is set to this store's; an empty
    /// `id` becomes `{session}-{seq}`, an empty `timestamp` now; `args` go
    /// through [`compact_args`]; `error`, observation text, title and URL
    /// are cut, test ids deduplicated and capped (see the `MAX_*` constants).
    /// If the index is built, the new line (and anything another process
    /// appended) is indexed at once.
    pub fn record(&self, mut step: StepRecord) -> io::Result<()> {
        let mut g = self.lock();
        let steps = self.steps_dir();
        let path = steps.join(format!("{}.jsonl", self.session));
        if g.seq == 0 {
            g.seq = match self.root.read_file(&path) {
                Ok(bytes) => bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1,
                Err(_) => 1,
            };
        }
        normalize(&mut step, &self.session, g.seq);
        let mut line = serde_json::to_string(&step).map_err(io::Error::other)?;
        line.push('\n');
        let mut file = self.root.append_file(&path)?;
        let len = file.metadata()?.len();
        if len > 0 {
            // A torn last line (a crash mid-write): start on a line of our own.
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1))?;
            file.read_exact(&mut last)?;
            if last[0] != b'\n' {
                line.insert(0, '\n');
            }
        }
        file.write_all(line.as_bytes())?;
        drop(file);
        g.seq += 1;
        // The line is written: from here on a problem only costs the index,
        // which the next call rebuilds.
        let Inner { index, scratch, .. } = &mut *g;
        if let Some(idx) = index {
            let fresh = self.root.metadata(&path).and_then(|meta| {
                let fi = match idx.by_path.get(&path) {
                    Some(&fi) => fi,
                    None => idx.add_file(path, &meta),
                };
                idx.catch_up(&self.root, fi, &meta, &mut scratch.build)
            });
            if !matches!(fresh, Ok(Change::Fine)) {
                *index = None;
            }
        }
        Ok(())
    }

    /// Builds the index if there is none, or brings it up to date; returns
    /// the build time when it built.
    fn fresh<'a>(&self, g: &'a mut Inner) -> io::Result<(&'a Index, &'a mut Scratch, Option<f64>)> {
        let steps = self.steps_dir();
        let mut built = None;
        if let Some(idx) = &mut g.index
            && let Change::Rebuild = idx.sync(&self.root, &steps, &mut g.scratch.build)?
        {
            g.index = None;
        }
        if g.index.is_none() {
            let t = Instant::now();
            g.scratch = Scratch::default();
            g.index = Some(Index::build(&self.root, &steps, &mut g.scratch.build)?);
            built = Some(t.elapsed().as_secs_f64() * 1000.0);
        }
        let Inner { index, scratch, .. } = g;
        let idx = index.as_ref().expect("index built above");
        Ok((idx, scratch, built))
    }

    /// The steps matching `q`, best first.
    ///
    /// The query is tokenized like the steps ([`tokenize`]; its first
    /// [`MAX_QUERY_TOKENS`] distinct tokens count). Each field of a step has a
    /// weight: tool 1.0, args 1.0, error 0.8, url 0.7, testIds 0.7, title 0.6,
    /// text 0.4. For a query of `n` tokens,
    ///
    /// `confidence = Σ over query tokens t of (weight of the strongest field containing t) / n`
    ///
    /// (0 for a token found nowhere): 1 exactly when every query token is in
    /// the tool name or the arguments, never more. Ties go to the newer step.
    /// Filters (scope, tool, outcome, url) are applied before scoring; at most
    /// [`MAX_CANDIDATES`] steps are looked at (see the module's "Answering").
    pub fn search(&self, q: &SearchQuery) -> io::Result<SearchResult> {
        let mut g = self.lock();
        let (idx, scratch, built) = self.fresh(&mut g)?;
        let mut tokens: Vec<String> = Vec::new();
        for t in tokenize(&q.query) {
            if !tokens.contains(&t) && tokens.len() < MAX_QUERY_TOKENS {
                tokens.push(t);
            }
        }
        let session = self.scope_session(idx, q.scope);
        let mut result = SearchResult {
            hits: Vec::new(),
            scanned: 0,
            total: idx.total(session),
            index_built_ms: built,
        };
        let Some(filter) = filter(idx, session, q) else {
            return Ok(result);
        };
        let k = q.limit.min(MAX_LIMIT);
        if tokens.is_empty() || k == 0 {
            return Ok(result);
        }
        scratch.reset(idx.steps.len(), idx.pages.len());
        // A step's score is Σ over tokens of max(weight in its own fields,
        // weight on its page) = Σ page weights + Σ max(0, own − page): pages
        // are scored once, and a step only where its own fields add to that.
        // Rarest tokens first, so that they come first in `steps_touched`.
        let mut lists: Vec<&Postings> = tokens
            .iter()
            .filter_map(|t| idx.tokens.get(t))
            .map(|id| &idx.postings[id as usize])
            .collect();
        lists.sort_by_key(|p| p.steps.len() + p.pages.len());
        for p in lists {
            for (&pg, &mask) in p.pages.iter().zip(&p.page_fields) {
                let w = best_weight(mask);
                let fresh = scratch.page_points[pg as usize] == 0;
                scratch.page_points[pg as usize] += w;
                scratch.page_token[pg as usize] = w as u8;
                scratch.touch_page(pg, fresh);
            }
            for (&s, &mask) in p.steps.iter().zip(&p.step_fields).rev() {
                let page = idx.steps[s as usize].page;
                let own = best_weight(mask);
                let on_page = u32::from(scratch.page_token[page as usize]);
                if own > on_page {
                    let e = &mut scratch.step_extra[s as usize];
                    if *e == 0 {
                        scratch.steps_touched.push(s);
                    }
                    *e += own - on_page;
                }
            }
            for &pg in &p.pages {
                scratch.page_token[pg as usize] = 0;
            }
        }
        let mut top = TopK::new(k);
        // Steps whose own fields matched.
        for &s in &scratch.steps_touched {
            if top.full_scan() {
                break;
            }
            top.looked += 1;
            let m = &idx.steps[s as usize];
            if filter.pass(idx, m) {
                let score = scratch.page_points[m.page as usize] + scratch.step_extra[s as usize];
                top.push(idx, s, score);
            }
        }
        // The other steps of a page all score the page's points: best pages
        // first, and of each page only its newest `k` steps can make it.
        let mut by_points: Vec<Vec<u32>> = Vec::new();
        for &pg in &scratch.pages_touched {
            let pts = scratch.page_points[pg as usize] as usize;
            if by_points.len() <= pts {
                by_points.resize_with(pts + 1, Vec::new);
            }
            by_points[pts].push(pg);
        }
        'pages: for (pts, pages) in by_points.iter_mut().enumerate().rev() {
            if pts == 0 || top.closed_below(pts as u32) {
                break;
            }
            pages.sort_unstable_by(|a, b| b.cmp(a));
            for &pg in pages.iter() {
                let mut taken = 0;
                for &s in idx.pages[pg as usize].steps.iter().rev() {
                    if scratch.step_extra[s as usize] > 0 {
                        continue; // scored above
                    }
                    if top.full_scan() {
                        break 'pages;
                    }
                    top.looked += 1;
                    if filter.pass(idx, &idx.steps[s as usize]) {
                        top.push(idx, s, pts as u32);
                        taken += 1;
                        if taken >= k {
                            break;
                        }
                    }
                }
            }
        }
        result.scanned = top.scored;
        let denom = (W_MAX as usize * tokens.len()) as f64;
        let best = top.into_sorted();
        result.hits = load(&self.root, idx, &best, |step| {
            let mut found: FxMap<String, u8> = FxMap::default();
            let mut note = |bit: u8, t: &str| {
                if tokens.iter().any(|q| q == t) {
                    *found.entry(t.to_string()).or_default() |= bit;
                }
            };
            step_tokens(step, &mut note);
            page_tokens(&step.observation, &mut note);
            let mut out = Vec::new();
            for (bit, name, _) in FIELDS {
                for t in &tokens {
                    if found.get(t).is_some_and(|m| m & bit != 0) {
                        out.push(format!("{name}:{t}"));
                    }
                }
            }
            out
        })
        .into_iter()
        .map(|(_, score, step, matched)| Hit {
            confidence: round_down(f64::from(score) / denom),
            matched,
            step,
        })
        .collect();
        Ok(result)
    }

    fn scope_session(&self, idx: &Index, scope: Scope) -> Option<u32> {
        match scope {
            Scope::All => None,
            Scope::Session => Some(idx.sessions.get(&self.session).unwrap_or(NONE)),
        }
    }

    /// The steps taken on pages like `state`, best first.
    ///
    /// A step scores, for each part of `state` that is given: same page path
    /// (see [`page_path`]: host, query and ids in the path ignored) 8; test
    /// ids 6 × the Dice overlap of the two sets (2·shared / (|state| + |step's|));
    /// title 3 × the Dice overlap of their tokens; same tool 2.
    /// `confidence = score / (sum of the weights of the parts given)`, so a
    /// step recorded on an identical state scores exactly 1 and nothing more.
    /// Ties go to the newer step. Pages are scored first, then their steps
    /// are looked at best page first (at most [`MAX_CANDIDATES`]); with a
    /// tool, steps of that tool on pages that share nothing come last.
    /// `limit` is capped at [`MAX_LIMIT`].
    pub fn similar(
        &self,
        state: &PageState,
        limit: usize,
        scope: Scope,
    ) -> io::Result<SearchResult> {
        let mut g = self.lock();
        let (idx, scratch, built) = self.fresh(&mut g)?;
        let session = self.scope_session(idx, scope);
        let mut result = SearchResult {
            hits: Vec::new(),
            scanned: 0,
            total: idx.total(session),
            index_built_ms: built,
        };
        let filter = Filter {
            session,
            tool: None,
            ok: None,
            urls: None,
        };
        let path = state
            .url
            .as_deref()
            .filter(|u| !u.trim().is_empty())
            .map(page_path);
        let mut ids: Vec<&str> = state
            .test_ids
            .iter()
            .map(String::as_str)
            .filter(|t| !t.is_empty())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.truncate(MAX_TEST_IDS);
        let mut title: Vec<String> = state.title.as_deref().map(tokenize).unwrap_or_default();
        title.sort_unstable();
        title.dedup();
        let tool = state
            .tool
            .as_deref()
            .filter(|t| !t.is_empty())
            .map(str::to_lowercase);
        // The most a step can score: the weights of the parts given, added in
        // the same order as a step's score below.
        let mut max = 0.0;
        if path.is_some() {
            max += SIM_PATH;
        }
        if !ids.is_empty() {
            max += SIM_TEST_IDS;
        }
        if !title.is_empty() {
            max += SIM_TITLE;
        }
        if tool.is_some() {
            max += SIM_TOOL;
        }
        let k = limit.min(MAX_LIMIT);
        if max == 0.0 || k == 0 {
            return Ok(result);
        }
        scratch.reset(idx.steps.len(), idx.pages.len());

        // Pages first: what each shares with the state.
        let bump = |scratch: &mut Scratch, pg: u32, slot: usize| {
            let e = &mut scratch.page_sim[pg as usize];
            let fresh = *e == [0; 3];
            e[slot] = e[slot].saturating_add(1);
            scratch.touch_page(pg, fresh);
        };
        if let Some(list) = path
            .as_deref()
            .and_then(|p| idx.paths.get(p))
            .and_then(|p| idx.path_pages.get(p as usize))
        {
            for &pg in list {
                bump(scratch, pg, 2);
            }
        }
        for t in &ids {
            if let Some(list) = idx
                .test_ids
                .get(t)
                .and_then(|t| idx.test_id_pages.get(t as usize))
            {
                for &pg in list {
                    bump(scratch, pg, 0);
                }
            }
        }
        for t in &title {
            if let Some(p) = idx.tokens.get(t).map(|t| &idx.postings[t as usize]) {
                for (&pg, &mask) in p.pages.iter().zip(&p.page_fields) {
                    if mask & F_TITLE != 0 {
                        bump(scratch, pg, 1);
                    }
                }
            }
        }
        let mut pages: Vec<(u32, f64)> = Vec::with_capacity(scratch.pages_touched.len());
        for &pg in &scratch.pages_touched {
            let e = &idx.pages[pg as usize];
            let [shared_ids, shared_words, same_path] = scratch.page_sim[pg as usize];
            let mut score = 0.0;
            if path.is_some() && same_path > 0 {
                score += SIM_PATH;
            }
            if !ids.is_empty() {
                score += SIM_TEST_IDS * dice(shared_ids as usize, ids.len(), e.n_test_ids as usize);
            }
            if !title.is_empty() {
                score += SIM_TITLE * dice(shared_words as usize, title.len(), e.n_title as usize);
            }
            scratch.page_score[pg as usize] = score;
            if score > 0.0 {
                pages.push((pg, score));
            }
        }
        pages.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));

        // Then steps, best page first. Ranked on millionths of `max`;
        // reported exactly.
        let tool_id = tool.as_deref().and_then(|t| idx.tools.get(t));
        let page_score = &scratch.page_score;
        let exact = |s: u32| -> f64 {
            let m = &idx.steps[s as usize];
            let mut score = page_score[m.page as usize];
            if tool.is_some() && tool_id == Some(m.tool) {
                score += SIM_TOOL;
            }
            (score / max).min(1.0)
        };
        let ticks = |c: f64| (c * 1_000_000.0).round() as u32;
        let bonus = if tool_id.is_some() { SIM_TOOL } else { 0.0 };
        let mut top = TopK::new(k);
        'pages: for &(pg, score) in &pages {
            if top.closed_below(ticks(((score + bonus) / max).min(1.0))) {
                break;
            }
            let (mut plain, mut with_tool) = (0, 0);
            for &s in idx.pages[pg as usize].steps.iter().rev() {
                if top.full_scan() {
                    break 'pages;
                }
                top.looked += 1;
                let m = &idx.steps[s as usize];
                if !filter.pass(idx, m) {
                    continue;
                }
                let taken = if tool_id == Some(m.tool) {
                    &mut with_tool
                } else {
                    &mut plain
                };
                if *taken < k {
                    *taken += 1;
                    top.push(idx, s, ticks(exact(s)));
                }
                if plain >= k && (tool_id.is_none() || with_tool >= k) {
                    break;
                }
            }
        }
        if let Some(list) = tool_id.and_then(|t| idx.tool_steps.get(t as usize))
            && !top.closed_below(ticks(SIM_TOOL / max))
        {
            let mut taken = 0;
            for &s in list.iter().rev() {
                let m = &idx.steps[s as usize];
                if page_score[m.page as usize] > 0.0 {
                    continue; // its page was looked at above
                }
                if top.full_scan() || taken >= k {
                    break;
                }
                top.looked += 1;
                if filter.pass(idx, m) {
                    top.push(idx, s, ticks(exact(s)));
                    taken += 1;
                }
            }
        }
        result.scanned = top.scored;
        let best = top.into_sorted();
        result.hits = load(&self.root, idx, &best, |step| {
            similar_matched(step, path.as_deref(), &ids, &title, tool.as_deref())
        })
        .into_iter()
        .map(|(s, _, step, matched)| Hit {
            confidence: round_down(exact(s)),
            matched,
            step,
        })
        .collect();
        Ok(result)
    }
}

/// The filter of a search; `None` when nothing can pass (an unknown tool).
fn filter(idx: &Index, session: Option<u32>, q: &SearchQuery) -> Option<Filter> {
    let tool = match q.tool.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        None => None,
        Some(t) => Some(idx.tools.get(&t.to_lowercase())?),
    };
    let urls = q
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(|u| {
            let u = u.to_lowercase();
            idx.urls.names.iter().map(|x| x.contains(&u)).collect()
        });
    Some(Filter {
        session,
        tool,
        ok: q.outcome.map(|o| o == Outcome::Ok),
        urls,
    })
}

/// Reads the records of `top` back from their files (a record that can no
/// longer be read is left out) with what matched.
fn load(
    root: &Store,
    idx: &Index,
    top: &[(u32, u32)],
    mut matched: impl FnMut(&StepRecord) -> Vec<String>,
) -> Vec<(u32, u32, StepRecord, Vec<String>)> {
    let mut open: FxMap<u32, Option<File>> = FxMap::default();
    let mut out = Vec::with_capacity(top.len());
    for &(s, score) in top {
        let m = &idx.steps[s as usize];
        let file = open
            .entry(m.file)
            .or_insert_with(|| root.open_file(&idx.files[m.file as usize].path).ok());
        let Some(file) = file else { continue };
        let mut buf = vec![0u8; m.len as usize];
        if file.seek(SeekFrom::Start(m.offset)).is_err() || file.read_exact(&mut buf).is_err() {
            continue;
        }
        let Ok(step) = serde_json::from_slice::<StepRecord>(&buf) else {
            continue;
        };
        let why = matched(&step);
        out.push((s, score, step, why));
    }
    out
}

/// What a step shares with the state of a `similar` call.
fn similar_matched(
    step: &StepRecord,
    path: Option<&str>,
    ids: &[&str],
    title: &[String],
    tool: Option<&str>,
) -> Vec<String> {
    let o = &step.observation;
    let mut out = Vec::new();
    if let (Some(p), Some(u)) = (path, &o.url)
        && page_path(u) == p
    {
        out.push(format!("url:{p}"));
    }
    if !ids.is_empty() {
        let shared = ids
            .iter()
            .filter(|t| o.test_ids.iter().any(|x| x == *t))
            .count();
        if shared > 0 {
            out.push(format!("testIds:{shared}/{}", ids.len()));
        }
    }
    if !title.is_empty() {
        let theirs = o.title.as_deref().map(tokenize).unwrap_or_default();
        for t in title {
            if theirs.contains(t) {
                out.push(format!("title:{t}"));
            }
        }
    }
    if let Some(t) = tool
        && step.tool.eq_ignore_ascii_case(t)
    {
        out.push(format!("tool:{}", step.tool));
    }
    out
}

// ---------------------------------------------------------------------------
// The MCP tools
// ---------------------------------------------------------------------------

/// Arguments of `knowledge_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KnowledgeSearch {
    /// What to look for: words, test ids (`checkout-button`), tool names
    /// (`browser_click`), URL paths (`/cart`), error codes (`WAIT_TIMEOUT`).
    pub query: String,
    /// Most hits, 1 to 100 (default 10).
    pub limit: Option<usize>,
    /// `all` sessions (default) or only this `session`.
    pub scope: Option<Scope>,
    /// Only steps of this tool (exact name, e.g. `browser_click`).
    pub tool: Option<String>,
    /// Only steps that succeeded (`ok`) or failed (`error`).
    pub outcome: Option<Outcome>,
    /// Only steps whose page URL contains this text (e.g. `/checkout`).
    pub url: Option<String>,
}

fn limit_of(limit: Option<usize>) -> Result<usize, ToolError> {
    match limit {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        Some(n) => Err(ToolError::invalid(format!(
            "limit {n} is out of range: give 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})"
        ))),
    }
}

fn io_error(store: &KnowledgeStore, e: io::Error) -> ToolError {
    ToolError::new(
        Code::Internal,
        format!(
            "the knowledge store in {} could not be read: {e}",
            store.dir().display()
        ),
    )
}

/// `knowledge_search`: past steps (this and earlier sessions) matching a
/// query, best first, with a confidence and what matched.
pub fn knowledge_search(store: &KnowledgeStore, a: KnowledgeSearch) -> Result<Value, ToolError> {
    if a.query.trim().is_empty() {
        return Err(ToolError::invalid(
            "query is empty: give words to look for, e.g. a test id (\"checkout-button\"), a tool (\"browser_click\"), a page (\"/cart\") or an error code",
        ));
    }
    let limit = limit_of(a.limit)?;
    let tokens = tokenize(&a.query);
    if tokens.is_empty() {
        return Err(ToolError::invalid(format!(
            "query {:?} has no searchable words (words of 2 or more letters or digits, other than stopwords like \"the\", \"and\")",
            a.query
        )));
    }
    let q = SearchQuery {
        query: a.query,
        limit,
        scope: a.scope.unwrap_or_default(),
        tool: a.tool,
        outcome: a.outcome,
        url: a.url,
    };
    let r = store.search(&q).map_err(|e| io_error(store, e))?;
    let mut out =
        serde_json::to_value(&r).map_err(|e| ToolError::new(Code::Internal, e.to_string()))?;
    let mut shown: Vec<String> = Vec::new();
    for t in tokens {
        if !shown.contains(&t) && shown.len() < MAX_QUERY_TOKENS {
            shown.push(t);
        }
    }
    out["tokens"] = json!(shown);
    Ok(out)
}

/// Arguments of `knowledge_similar`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KnowledgeSimilar {
    /// A page URL (only the path counts). With none of url, title, testIds the open browser's page is used.
    pub url: Option<String>,
    /// A page title.
    pub title: Option<String>,
    /// `data-testid`s on the page.
    pub test_ids: Option<Vec<String>>,
    /// The tool about to be called (steps of the same tool rank higher).
    pub tool: Option<String>,
    /// Most hits, 1 to 100 (default 10).
    pub limit: Option<usize>,
    /// `all` sessions (default) or only this `session`.
    pub scope: Option<Scope>,
}

/// `knowledge_similar`: past steps taken on pages like the given one (or the
/// open browser's page, `current`), best first. The page is described by the
/// arguments when any of `url`, `title`, `testIds` is given (the current page
/// is then ignored, so two pages are never mixed), else by `current`; `tool`
/// comes from the arguments, else from `current`.
pub fn knowledge_similar(
    store: &KnowledgeStore,
    a: KnowledgeSimilar,
    current: Option<PageState>,
) -> Result<Value, ToolError> {
    let limit = limit_of(a.limit)?;
    let given = |s: Option<String>| s.filter(|x| !x.trim().is_empty());
    let url = given(a.url);
    let title = given(a.title);
    let ids: Vec<String> = a
        .test_ids
        .unwrap_or_default()
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect();
    let current = current.unwrap_or_default();
    let mut state = if url.is_some() || title.is_some() || !ids.is_empty() {
        PageState {
            url,
            title,
            test_ids: ids,
            tool: None,
        }
    } else {
        PageState {
            url: given(current.url),
            title: given(current.title),
            test_ids: current
                .test_ids
                .into_iter()
                .filter(|t| !t.is_empty())
                .collect(),
            tool: None,
        }
    };
    state.tool = given(a.tool).or(given(current.tool));
    if state.url.is_none() && state.title.is_none() && state.test_ids.is_empty() {
        return Err(ToolError::invalid(
            "no page to compare with: give url, title or testIds, or open a page with browser_launch / browser_navigate so the current page is used",
        ));
    }
    let r = store
        .similar(&state, limit, a.scope.unwrap_or_default())
        .map_err(|e| io_error(store, e))?;
    let mut out =
        serde_json::to_value(&r).map_err(|e| ToolError::new(Code::Internal, e.to_string()))?;
    out["state"] = serde_json::to_value(&state).unwrap_or(Value::Null);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords() {
        assert!(STOPWORDS.iter().all(|w| is_stopword(w)));
        assert!(!is_stopword("in") && !is_stopword("button"));
    }

    #[test]
    fn tokens() {
        assert_eq!(tokenize("sign-in"), ["sign", "in"]);
        assert_eq!(tokenize("submitButton"), ["submit", "button"]);
        assert_eq!(tokenize("HTMLParser x_y"), ["html", "parser"]);
        assert_eq!(tokenize("browser_click"), ["browser", "click"]);
        assert_eq!(tokenize("The Buttons of entries"), ["button", "entry"]);
        assert_eq!(
            tokenize("status class h1 e2e 404"),
            ["status", "class", "h1", "e2e", "404"]
        );
        assert!(tokenize("a the and").is_empty());
        let mut u = Vec::new();
        url_tokens(
            "https://shop.example.com:8080/cart/items?q=shoes",
            &mut |t| u.push(t.to_string()),
        );
        assert_eq!(
            u,
            ["shop", "example", "com", "8080", "cart", "item", "shoe"]
        );
    }

    #[test]
    fn paths() {
        assert_eq!(page_path("http://127.0.0.1:4000/cart/"), "/cart");
        assert_eq!(page_path("https://x.io"), "/");
        assert_eq!(page_path("/Products/123?x=1#top"), "/products/:id");
        assert_eq!(
            page_path("localhost:3000/orders/9f8e7d6c-1234"),
            "/orders/:id"
        );
        assert_eq!(page_path("cart"), "/cart");
        assert_eq!(
            page_path("http://h/app#/settings/profile"),
            "/app/#/settings/profile"
        );
    }

    #[test]
    fn timestamps_sort() {
        assert!(ts_key("2024-01-20T14:30:52.001Z") > ts_key("2024-01-20T14:30:52Z"));
        assert_eq!(ts_key("2024-01-20T14:30:52Z"), 20240120143052000);
        assert_eq!(ts_key("garbage"), 0);
    }

    #[test]
    fn compact() {
        let long = "x".repeat(1000);
        let v = compact_args(&json!({"data": long, "list": (0..30).collect::<Vec<_>>()}));
        assert_eq!(
            v["data"].as_str().unwrap().chars().count(),
            MAX_ARG_CHARS + 1
        );
        assert_eq!(v["list"].as_array().unwrap().len(), 21);
    }

    #[test]
    fn weights() {
        assert_eq!(best_weight(F_TEXT | F_ARGS), W_MAX);
        assert_eq!(best_weight(F_TEXT), 4);
        assert_eq!(best_weight(0), 0);
        assert_eq!(dice(3, 3, 3), 1.0);
        assert_eq!(round_down(0.9999), 0.999);
    }
}
