//! API requests and commands from a scenario, each recorded as evidence of its
//! step: [`Scenario::request`](crate::Scenario::request) gives an
//! [`ApiRequestContext`] (Playwright's `APIRequestContext`),
//! [`Scenario::command`](crate::Scenario::command) a [`CommandBuilder`].
//! [`expect`](crate::expect) asserts on what they return ([`ApiResponse`],
//! [`CommandOutput`]).
//!
//! Evidence: each request is `request-NN.json` (type `api_response`: method,
//! URL, status, headers, bodies up to [`EVIDENCE_LIMIT`] bytes, time) with the
//! values of `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
//! masked, and those of secret-looking JSON, form and query fields
//! (`password`, `token`, `secret`, …); each command is `command-NN.json` (type
//! `exit_code`: the command line, cwd, environment, exit code, time) with
//! `command-NN-stdout.txt` and `command-NN-stderr.txt` (types `stdout`,
//! `stderr`, the original HarshJudge's).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use harshjudge_browser::Page;
use harshjudge_store::store::{NewEvidence, StoreError};

mod command;
pub(crate) mod cookies;
mod error;
mod expect;
mod json;
mod mask;
mod request;

pub use command::{CommandBuilder, CommandOutput, OutputMatch, contains};
pub use cookies::CookieJar;
pub use error::ApiError;
pub use expect::{OutputExpect, ResponseExpect};
pub use harshjudge_browser::Cookie;
/// The method of [`ApiRequestContext::fetch`] (`Method::OPTIONS`, …).
pub use http::Method;
pub use request::{ApiRequestContext, ApiResponse, RequestBuilder};

/// The most bytes of a body, an output or an error stream kept in evidence;
/// the rest is cut, and the evidence says how much there was.
pub const EVIDENCE_LIMIT: usize = 64 * 1024;

/// What requests and commands need of the scenario they run in (the scenario
/// handle implements it, so that this module knows nothing of the runner).
pub(crate) trait Host: Send + Sync + 'static {
    /// The app's base URL (empty when none is set).
    fn base_url(&self) -> String;
    /// The evidence folder of the step running now (`None` outside a step):
    /// the key under which evidence files are numbered.
    fn step_key(&self) -> Option<PathBuf>;
    /// Writes `file` into the evidence of the step running now, through the
    /// run's event stream, before it returns (`None` outside a step).
    fn attach(&self, file: NewEvidence<'_>) -> Result<Option<PathBuf>, StoreError>;
    /// The scenario's open pages: while any is open, their browsers hold the
    /// cookies its requests send and keep.
    fn pages(&self) -> Vec<Page>;
    /// The jar the scenario's requests share while no page is open, the same
    /// one at every call: seeded from its saved storage state, handed to its
    /// page as it opens ([`cookies::scenario_cookies`]). An error (what to
    /// fix) when the scenario names a state that cannot be read.
    fn cookie_jar(&self) -> Result<CookieJar, ApiError>;
}

/// The next free number of `what` (`request`, `command`) in the evidence of
/// the step at `key`: `01`, `02`, … in the order the calls were made.
fn next_number(key: &std::path::Path, what: &'static str) -> usize {
    static COUNTERS: Mutex<Option<HashMap<(PathBuf, &'static str), usize>>> = Mutex::new(None);
    let mut guard = COUNTERS.lock().unwrap_or_else(|p| p.into_inner());
    let n = guard
        .get_or_insert_with(HashMap::new)
        .entry((key.to_path_buf(), what))
        .or_insert(0);
    *n += 1;
    *n
}

/// Records `files` (`(suffix, ext, kind, bytes)`) as the evidence of one call
/// named `{what}-NN{suffix}`; nothing outside a step.
fn record(
    host: &Arc<dyn Host>,
    what: &'static str,
    files: &[(&str, &str, &str, &[u8])],
) -> Result<(), ApiError> {
    let Some(key) = host.step_key() else {
        return Ok(());
    };
    let n = next_number(&key, what);
    for (suffix, ext, kind, bytes) in files {
        let name = harshjudge_store::store::EvidenceName::new(format!("{what}-{n:02}{suffix}"))
            .map_err(|source| ApiError::Evidence { source })?;
        host.attach(NewEvidence {
            name: &name,
            ext,
            kind,
            bytes,
        })
        .map_err(|source| ApiError::Evidence { source })?;
    }
    Ok(())
}

/// `bytes` cut to [`EVIDENCE_LIMIT`], as text (lossy), and whether it was cut.
fn bounded_text(bytes: &[u8]) -> (String, bool) {
    let cut = bytes.len() > EVIDENCE_LIMIT;
    let kept = &bytes[..bytes.len().min(EVIDENCE_LIMIT)];
    (String::from_utf8_lossy(kept).into_owned(), cut)
}

#[cfg(test)]
mod tests;
