//! The part of [`super`] (the typed DevTools protocol) for the network
//! events, routes (`Fetch`), dialogs, downloads and other origins' storage.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{BrowserContextId, Command, Empty, Event};

/// Headers as the DevTools protocol sends them (an object), as pairs.
pub(crate) fn header_pairs(headers: &Map<String, Value>) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(k, v)| {
            let v = v.as_str().map_or_else(|| v.to_string(), String::from);
            (k.clone(), v)
        })
        .collect()
}

// ---- Network ----

/// A request as the network events and `Fetch.requestPaused` tell it.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct NetRequest {
    pub(crate) url: String,
    pub(crate) method: String,
    #[serde(default)]
    pub(crate) headers: Map<String, Value>,
}

/// A response's head.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NetResponse {
    pub(crate) status: u64,
    #[serde(default)]
    pub(crate) status_text: String,
    #[serde(default)]
    pub(crate) headers: Map<String, Value>,
}

/// `Network.requestWillBeSent`: a request (or the next hop of a redirect,
/// with the response that redirected it) is sent. Times in seconds.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestWillBeSent {
    pub(crate) request_id: String,
    #[serde(default)]
    pub(crate) loader_id: String,
    pub(crate) request: NetRequest,
    /// Monotonic.
    pub(crate) timestamp: f64,
    /// Since the Unix epoch.
    #[serde(default)]
    pub(crate) wall_time: f64,
    /// Document, Script, Fetch, XHR, …
    #[serde(rename = "type", default)]
    pub(crate) kind: Option<String>,
    #[serde(default)]
    pub(crate) frame_id: Option<String>,
    #[serde(default)]
    pub(crate) redirect_response: Option<NetResponse>,
    /// What started it; for a navigation a script asked for, the script's stack.
    #[serde(default)]
    pub(crate) initiator: Option<Initiator>,
}
event!(RequestWillBeSent, "Network.requestWillBeSent");

/// `Network.Initiator`: what started a request.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Initiator {
    #[serde(rename = "type", default)]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) stack: Option<InitiatorStack>,
}

/// `Runtime.StackTrace`, the frames' URLs only.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InitiatorStack {
    #[serde(default)]
    pub(crate) call_frames: Vec<InitiatorFrame>,
}

/// A frame of a stack: the URL of its script (an inline script's: its document's).
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct InitiatorFrame {
    #[serde(default)]
    pub(crate) url: String,
}

impl Initiator {
    /// The URL of the script that asked for the request, if a script did.
    pub(crate) fn script_url(&self) -> Option<&str> {
        let frame = self.stack.as_ref()?.call_frames.first()?;
        (self.kind == "script" && !frame.url.is_empty()).then_some(frame.url.as_str())
    }
}

/// `Network.responseReceived`: a response's head arrived.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResponseReceived {
    pub(crate) request_id: String,
    pub(crate) timestamp: f64,
    pub(crate) response: NetResponse,
}
event!(ResponseReceived, "Network.responseReceived");

/// `Network.getResponseBody`: the body the browser kept of a response.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GetResponseBody<'a> {
    pub(crate) request_id: &'a str,
}
command!(GetResponseBody<'a>, "Network.getResponseBody", ResponseBody);

/// The answer of [`GetResponseBody`]: the body, as text or base64.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResponseBody {
    pub(crate) body: String,
    #[serde(default)]
    pub(crate) base64_encoded: bool,
}

/// `Network.loadingFinished`: a response's body arrived.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LoadingFinished {
    pub(crate) request_id: String,
    pub(crate) timestamp: f64,
}
event!(LoadingFinished, "Network.loadingFinished");

/// `Network.loadingFailed`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LoadingFailed {
    pub(crate) request_id: String,
    pub(crate) timestamp: f64,
    #[serde(default)]
    pub(crate) error_text: String,
    #[serde(default)]
    pub(crate) canceled: bool,
    /// Document, Script, Fetch, XHR, …
    #[serde(rename = "type", default)]
    pub(crate) kind: Option<String>,
}
event!(LoadingFailed, "Network.loadingFailed");

/// `Network.setCacheDisabled`: while routes exist, every request reaches them.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetCacheDisabled {
    pub(crate) cache_disabled: bool,
}
command!(SetCacheDisabled, "Network.setCacheDisabled", Empty);

// ---- Fetch (routes) ----

/// Which requests `Fetch.enable` pauses.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestPattern {
    pub(crate) url_pattern: &'static str,
    /// Only requests of this type (none: any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) resource_type: Option<&'static str>,
    /// "Request": before it is sent.
    pub(crate) request_stage: &'static str,
}

/// `Fetch.enable`: the requests of `patterns` pause ([`RequestPaused`]);
/// authentication challenges too, when asked (`AuthRequired`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FetchEnable<'a> {
    pub(crate) patterns: &'a [RequestPattern],
    pub(crate) handle_auth_requests: bool,
}
command!(FetchEnable<'a>, "Fetch.enable", Empty);

/// `Fetch.requestPaused`: a request waits for its verdict.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestPaused {
    /// The id the `Fetch` verdicts name.
    pub(crate) request_id: String,
    pub(crate) request: NetRequest,
    /// The id of its `Network` events (none for some requests: a preflight).
    #[serde(default)]
    pub(crate) network_id: Option<String>,
}
event!(RequestPaused, "Fetch.requestPaused");

/// A header as `Fetch` takes it.
#[derive(Debug, Serialize)]
pub(crate) struct HeaderEntry<'a> {
    pub(crate) name: &'a str,
    pub(crate) value: &'a str,
}

/// Pairs as `Fetch` headers.
pub(crate) fn header_entries(headers: &[(String, String)]) -> Vec<HeaderEntry<'_>> {
    headers
        .iter()
        .map(|(name, value)| HeaderEntry { name, value })
        .collect()
}

/// `Fetch.fulfillRequest`: answered without the server.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FulfillRequest<'a> {
    pub(crate) request_id: &'a str,
    pub(crate) response_code: u16,
    pub(crate) response_headers: Vec<HeaderEntry<'a>>,
    /// Base64.
    pub(crate) body: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) response_phrase: Option<&'a str>,
}
command!(FulfillRequest<'a>, "Fetch.fulfillRequest", Empty);

/// `Fetch.failRequest`: as a network error.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FailRequest<'a> {
    pub(crate) request_id: &'a str,
    /// "Failed", "Aborted", …
    pub(crate) error_reason: &'static str,
}
command!(FailRequest<'a>, "Fetch.failRequest", Empty);

/// `Fetch.continueRequest`: on to the server (its headers replaced when given).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContinueRequest<'a> {
    pub(crate) request_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) headers: Option<Vec<HeaderEntry<'a>>>,
}
command!(ContinueRequest<'a>, "Fetch.continueRequest", Empty);

// ---- Page: dialogs ----

/// `Page.javascriptDialogOpening`: the page waits for the dialog's answer.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct JavascriptDialogOpening {
    #[serde(default)]
    pub(crate) url: String,
    pub(crate) message: String,
    /// alert, confirm, prompt, beforeunload.
    #[serde(rename = "type")]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) default_prompt: Option<String>,
}
event!(JavascriptDialogOpening, "Page.javascriptDialogOpening");

/// `Page.handleJavaScriptDialog`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HandleJavaScriptDialog<'a> {
    pub(crate) accept: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) prompt_text: Option<&'a str>,
}
command!(
    HandleJavaScriptDialog<'a>,
    "Page.handleJavaScriptDialog",
    Empty
);

// ---- Browser: downloads ----

/// `Browser.setDownloadBehavior` of a browser context.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetDownloadBehavior<'a> {
    /// "allowAndName": saved as `<download_path>/<guid>`; "default", "deny".
    pub(crate) behavior: &'static str,
    /// None: the browser's default context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) browser_context_id: Option<&'a BrowserContextId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) download_path: Option<&'a str>,
    pub(crate) events_enabled: bool,
}
command!(
    SetDownloadBehavior<'a>,
    "Browser.setDownloadBehavior",
    Empty
);

/// `Browser.downloadWillBegin` (on the root session).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DownloadWillBegin {
    pub(crate) frame_id: String,
    pub(crate) guid: String,
    pub(crate) url: String,
    pub(crate) suggested_filename: String,
}
event!(DownloadWillBegin, "Browser.downloadWillBegin");

/// `Browser.downloadProgress`: `inProgress`, `completed` or `canceled`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DownloadProgress {
    pub(crate) guid: String,
    pub(crate) state: String,
    #[serde(default)]
    pub(crate) received_bytes: f64,
}
event!(DownloadProgress, "Browser.downloadProgress");
