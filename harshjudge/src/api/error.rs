//! [`ApiError`]: why a request, a command or an assertion on them failed.

use std::panic::Location;
use std::path::PathBuf;
use std::time::Duration;

use crate::evidence::SendError;
use harshjudge_browser::BrowserError;
use harshjudge_store::store::StoreError;

/// Why a request, a command or an assertion on their results failed. Each
/// variant names the values at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApiError {
    /// The scenario's saved storage state (`#[scenario(storage_state = …)]`)
    /// could not be read, so its cookies cannot go with the request.
    #[error("{reason}")]
    StorageState {
        /// What is wrong with it, and how to fix it.
        reason: String,
    },
    /// A relative URL with no base URL to join it to.
    #[error(
        "request to {path:?}: a relative URL needs a base URL: set HARSHJUDGE_BASE_URL, `baseUrl` in .harshJudge/config.yaml or `main!(base_url = …)`, or give an absolute URL"
    )]
    NoBaseUrl {
        /// The relative URL.
        path: String,
    },
    /// A URL that does not parse.
    #[error("request to {url:?}: not a URL: {source}")]
    BadUrl {
        /// The URL as given (joined to the base URL).
        url: String,
        /// Why.
        source: url::ParseError,
    },
    /// A header name or value that HTTP does not allow, or a URL hyper refuses.
    #[error("{method} {url}: cannot build the request ({what}): {source}")]
    BadRequest {
        /// The method.
        method: String,
        /// The URL.
        url: String,
        /// What was refused (the header's name, or `URL`).
        what: String,
        /// Why.
        source: http::Error,
    },
    /// A value given to `.json(…)` that does not serialize.
    #[error("{method} {url}: the JSON body does not serialize: {source}")]
    JsonBody {
        /// The method.
        method: String,
        /// The URL.
        url: String,
        /// Why.
        source: serde_json::Error,
    },
    /// The request failed, or timed out, before a whole response came.
    #[error("{method} {url}: {source}")]
    Send {
        /// The method.
        method: String,
        /// The URL.
        url: String,
        /// Why.
        source: SendError,
    },
    /// `response.json::<T>()` on a body that is not that JSON.
    #[error(
        "{method} {url} → {status}: the body is not the JSON expected ({source}); body: {body}"
    )]
    JsonResponse {
        /// The method.
        method: String,
        /// The URL.
        url: String,
        /// The response's status.
        status: u16,
        /// The start of the body.
        body: String,
        /// Why.
        source: serde_json::Error,
    },
    /// `output.json::<T>()` on a stdout that is not that JSON.
    #[error("command {command}: its stdout is not the JSON expected ({source}); stdout: {stdout}")]
    JsonOutput {
        /// The command line.
        command: String,
        /// The start of its stdout.
        stdout: String,
        /// Why.
        source: serde_json::Error,
    },
    /// The cookies of an open page could not be read.
    #[error("{url}: cannot read the open page's cookies: {source}")]
    PageCookies {
        /// The request's URL.
        url: String,
        /// Why.
        source: BrowserError,
    },
    /// The cookies a response set could not be given to the open page.
    #[error("{url}: cannot give the open page the cookies the response set: {source}")]
    StoreCookies {
        /// The request's URL.
        url: String,
        /// Why.
        source: BrowserError,
    },
    /// A storage state file that cannot be read.
    #[error("storage state {}: cannot read it: {source}", path.display())]
    StorageStateRead {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A storage state file that is not Playwright's `{"cookies": […], "origins": […]}`.
    #[error("storage state {}: not a storage state (`{{\"cookies\": [{{name, value, domain, path, …}}], \"origins\": […]}}`): {source}", path.display())]
    StorageStateParse {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// The evidence of a request or command could not be written.
    #[error("recording the evidence: {source}")]
    Evidence {
        /// Why.
        source: StoreError,
    },
    /// A command that could not be started.
    #[error("command {command}: cannot start it{}: {source}", cwd.as_ref().map(|c| format!(" in {}", c.display())).unwrap_or_default())]
    Spawn {
        /// The command line.
        command: String,
        /// Its working directory, when one was given.
        cwd: Option<PathBuf>,
        /// Why.
        source: std::io::Error,
    },
    /// A command's input or output failed.
    #[error("command {command}: {source}")]
    CommandIo {
        /// The command line.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// A command still running when its time ran out (it and its process group
    /// were killed).
    #[error("command {command} did not finish within {:.1} s: killed with its process group; stdout: {stdout:?}; stderr: {stderr:?}", after.as_secs_f64())]
    CommandTimeout {
        /// The command line.
        command: String,
        /// The limit.
        after: Duration,
        /// The end of what it wrote on stdout.
        stdout: String,
        /// The end of what it wrote on stderr.
        stderr: String,
    },
    /// An assertion that did not hold: what was expected, what was received.
    #[error("{message}")]
    Assertion {
        /// Expected and received.
        message: String,
        /// The line of the `expect(…)` call.
        location: &'static Location<'static>,
    },
}
