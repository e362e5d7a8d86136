//! The fields a search looks in, their weights, and the similarity weights.

use super::MAX_TEST_IDS;
use super::records::{Observation, StepRecord};
use super::tokenizer::{each_token, url_tokens};
use serde_json::Value;

/// The fields of a step a search looks in, with their weights (in tenths).
/// `tool` and `args` say what the step did and weigh most; what the page
/// showed weighs less.
pub(super) const FIELDS: [(u8, &str, u32); 7] = [
    (F_TOOL, "tool", 10),
    (F_ARGS, "args", 10),
    (F_ERROR, "error", 8),
    (F_URL, "url", 7),
    (F_TEST_IDS, "testIds", 7),
    (F_TITLE, "title", 6),
    (F_TEXT, "text", 4),
];
pub(super) const F_TOOL: u8 = 1;
pub(super) const F_ARGS: u8 = 2;
pub(super) const F_ERROR: u8 = 4;
pub(super) const F_URL: u8 = 8;
pub(super) const F_TEST_IDS: u8 = 16;
pub(super) const F_TITLE: u8 = 32;
pub(super) const F_TEXT: u8 = 64;
/// The strongest field's weight (tenths).
pub(super) const W_MAX: u32 = 10;

/// The weight of the strongest field in `mask`.
pub(super) fn best_weight(mask: u8) -> u32 {
    FIELDS
        .iter()
        .filter(|(bit, _, _)| mask & bit != 0)
        .map(|f| f.2)
        .max()
        .unwrap_or(0)
}

/// Calls `f(bit, token)` for every token of the fields of `step` that are
/// its own: tool, args, error, text.
pub(super) fn step_tokens(step: &StepRecord, f: &mut impl FnMut(u8, &str)) {
    each_token(&step.tool, &mut |t| f(F_TOOL, t));
    pub(super) fn args(v: &Value, f: &mut impl FnMut(&str)) {
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
pub(super) fn page_tokens(o: &Observation, f: &mut impl FnMut(u8, &str)) {
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
pub(super) const SIM_PATH: f64 = 8.0;
pub(super) const SIM_TEST_IDS: f64 = 6.0;
pub(super) const SIM_TITLE: f64 = 3.0;
pub(super) const SIM_TOOL: f64 = 2.0;

/// Dice coefficient of two sets given the size of their intersection: 1 for
/// equal sets, 0 for disjoint ones.
pub(super) fn dice(shared: usize, a: usize, b: usize) -> f64 {
    if a + b == 0 {
        0.0
    } else {
        (2 * shared.min(a).min(b)) as f64 / (a + b) as f64
    }
}

/// Rounds to 3 decimals, except that nothing short of a perfect match shows
/// as 1 (0.9996 gives 0.999).
pub(super) fn round_down(c: f64) -> f64 {
    if c >= 1.0 {
        1.0
    } else if c > 0.0 {
        ((c * 1000.0).round() / 1000.0).min(0.999)
    } else {
        0.0
    }
}
