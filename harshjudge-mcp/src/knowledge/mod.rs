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

mod index;
mod query;
mod records;
mod scoring;
mod store;
#[cfg(test)]
mod tests;
mod tokenizer;

pub use records::{
    Hit, Observation, Outcome, PageState, Scope, SearchQuery, SearchResult, StepRecord,
    compact_args,
};
pub use store::KnowledgeStore;
pub use tokenizer::{page_path, tokenize};

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
pub(super) const MAX_TOKEN_CHARS: usize = 40;
