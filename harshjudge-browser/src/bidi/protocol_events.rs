//! The WebDriver BiDi events this side reads, typed: [`BidiEvent`], parsed
//! once by [`super::Bidi`]'s reader task and turned in `adapt.rs` into the
//! protocol-neutral news of the step's log (`steplog.rs`) and of the
//! navigations (`lifecycle.rs`); a blocked request goes to the routes
//! (`route.rs`), a prompt to the dialogs (`dialog.rs`). Each struct has only the
//! fields read (the rest is ignored); a field the reader did without before
//! (absent) takes the default it took then, while a field of another type
//! makes the whole event [`BidiEvent::Malformed`], said on stderr and
//! otherwise ignored. An event this side does not read is
//! [`BidiEvent::Other`].

use serde::Deserialize;

use super::protocol::Header;

/// One event of the remote end (`{"type": "event", "method", "params"}`).
#[derive(Debug, Deserialize)]
#[serde(tag = "method", content = "params")]
pub(crate) enum BidiEvent {
    /// A console call or a page error.
    #[serde(rename = "log.entryAdded")]
    LogEntryAdded(LogEntry),
    /// A request is sent (or blocked by an intercept: `is_blocked`).
    #[serde(rename = "network.beforeRequestSent")]
    BeforeRequestSent(BeforeRequestSent),
    /// A response's headers arrived.
    #[serde(rename = "network.responseStarted")]
    ResponseStarted(ResponseEvent),
    /// A response's body arrived.
    #[serde(rename = "network.responseCompleted")]
    ResponseCompleted(ResponseEvent),
    /// A request failed.
    #[serde(rename = "network.fetchError")]
    FetchError(FetchError),
    /// A browsing context closed.
    #[serde(rename = "browsingContext.contextDestroyed")]
    ContextDestroyed(NavigationEvent),
    #[serde(rename = "browsingContext.navigationStarted")]
    NavigationStarted(NavigationEvent),
    #[serde(rename = "browsingContext.domContentLoaded")]
    DomContentLoaded(NavigationEvent),
    #[serde(rename = "browsingContext.load")]
    Load(NavigationEvent),
    #[serde(rename = "browsingContext.navigationAborted")]
    NavigationAborted(NavigationEvent),
    #[serde(rename = "browsingContext.navigationFailed")]
    NavigationFailed(NavigationEvent),
    #[serde(rename = "browsingContext.fragmentNavigated")]
    FragmentNavigated(NavigationEvent),
    #[serde(rename = "browsingContext.navigationCommitted")]
    NavigationCommitted(NavigationEvent),
    /// A navigation became a download.
    #[serde(rename = "browsingContext.downloadWillBegin")]
    DownloadWillBegin(DownloadWillBegin),
    /// A dialog opened.
    #[serde(rename = "browsingContext.userPromptOpened")]
    UserPromptOpened(UserPromptOpened),
    /// A request met an authentication challenge.
    #[serde(rename = "network.authRequired")]
    AuthRequired(AuthRequired),
    /// An event of a known method whose parameters have another shape.
    #[serde(skip)]
    Malformed { method: String, error: String },
    /// An event this side does not read.
    #[serde(other)]
    Other,
}

impl BidiEvent {
    /// The browsing context a console or network event is of (none: not a
    /// page's, or another kind of event).
    pub(crate) fn log_context(&self) -> Option<&str> {
        match self {
            BidiEvent::LogEntryAdded(e) => e.source.context.as_deref(),
            BidiEvent::BeforeRequestSent(e) => e.context.as_deref(),
            BidiEvent::ResponseStarted(e) | BidiEvent::ResponseCompleted(e) => e.context.as_deref(),
            BidiEvent::FetchError(e) => Some(&e.context),
            _ => None,
        }
    }

    /// The event `message` (a whole event message) is: never an error.
    pub(crate) fn parse(message: &serde_json::Value) -> BidiEvent {
        let error = match BidiEvent::deserialize(message) {
            Ok(event) => return event,
            Err(e) => e.to_string(),
        };
        let method = message["method"].as_str().unwrap_or_default();
        // serde reads `Other` only without parameters: the method alone
        // tells an unknown event (whatever its parameters) from a known one.
        match BidiEvent::deserialize(serde_json::json!({ "method": method })) {
            Ok(BidiEvent::Other) if !method.is_empty() => BidiEvent::Other,
            _ => BidiEvent::Malformed {
                method: method.to_string(),
                error,
            },
        }
    }
}

/// The parameters of the navigation events (`browsingContext.navigationStarted`,
/// `domContentLoaded`, `load`, `navigationAborted`, `navigationFailed`,
/// `fragmentNavigated`, `navigationCommitted`) and of
/// `browsingContext.contextDestroyed` (whose `navigation` is absent).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct NavigationEvent {
    #[serde(default)]
    pub(crate) context: String,
    #[serde(default)]
    pub(crate) navigation: Option<String>,
    /// The URL of the navigation, or of the document.
    #[serde(default)]
    pub(crate) url: String,
}

/// `browsingContext.downloadWillBegin`: a navigation's and a file name.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DownloadWillBegin {
    #[serde(default)]
    pub(crate) context: String,
    #[serde(default)]
    pub(crate) navigation: Option<String>,
    #[serde(default)]
    pub(crate) url: String,
    #[serde(default)]
    pub(crate) suggested_filename: String,
}

/// `log.entryAdded`: a console call (`type` `console`) or a page error
/// (`javascript`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LogEntry {
    #[serde(rename = "type", default)]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) level: Option<String>,
    /// Null when the call had nothing to print.
    #[serde(default)]
    pub(crate) text: Option<String>,
    #[serde(default)]
    pub(crate) timestamp: f64,
    #[serde(default)]
    pub(crate) stack_trace: Option<StackTrace>,
    /// Where it was logged.
    #[serde(default)]
    pub(crate) source: LogSource,
}

/// The realm a log entry comes from: its browsing context, if a page's.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct LogSource {
    #[serde(default)]
    pub(crate) context: Option<String>,
}

/// Where a console call was made.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StackTrace {
    #[serde(default)]
    pub(crate) call_frames: Vec<CallFrame>,
}

/// One frame of a [`StackTrace`].
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallFrame {
    #[serde(default)]
    pub(crate) url: String,
    #[serde(default)]
    pub(crate) line_number: Option<u64>,
}

/// BiDi's `network.RequestData`, the fields read.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestData {
    /// The request's id, the same through its redirects.
    #[serde(default)]
    pub(crate) request: String,
    #[serde(default)]
    pub(crate) url: String,
    #[serde(default = "get")]
    pub(crate) method: String,
    #[serde(default)]
    pub(crate) headers: Vec<Header>,
    #[serde(default)]
    pub(crate) destination: Option<String>,
    #[serde(default)]
    pub(crate) initiator_type: Option<String>,
}

impl Default for RequestData {
    fn default() -> RequestData {
        RequestData {
            request: String::new(),
            url: String::new(),
            method: get(),
            headers: Vec::new(),
            destination: None,
            initiator_type: None,
        }
    }
}

/// The method of a request that names none.
fn get() -> String {
    "GET".to_string()
}

/// `network.beforeRequestSent`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BeforeRequestSent {
    /// The browsing context of the request (none: not a page's).
    #[serde(default)]
    pub(crate) context: Option<String>,
    #[serde(default)]
    pub(crate) request: RequestData,
    #[serde(default)]
    pub(crate) redirect_count: u64,
    #[serde(default)]
    pub(crate) timestamp: f64,
    /// Blocked by an intercept of ours: a route answers it.
    #[serde(default)]
    pub(crate) is_blocked: bool,
}

/// `network.authRequired`: blocked by our `authRequired` intercept (the
/// page's `http_credentials` answer it, `auth.rs`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AuthRequired {
    #[serde(default)]
    pub(crate) request: RequestData,
    #[serde(default)]
    pub(crate) is_blocked: bool,
}

/// `network.responseStarted` and `network.responseCompleted`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResponseEvent {
    /// The browsing context of the request (none: not a page's).
    #[serde(default)]
    pub(crate) context: Option<String>,
    #[serde(default)]
    pub(crate) request: RequestData,
    #[serde(default)]
    pub(crate) redirect_count: u64,
    #[serde(default)]
    pub(crate) timestamp: Option<f64>,
    #[serde(default)]
    pub(crate) response: ResponseData,
}

/// BiDi's `network.ResponseData`, the fields read.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResponseData {
    #[serde(default)]
    pub(crate) status: Option<u64>,
    #[serde(default)]
    pub(crate) status_text: String,
    #[serde(default)]
    pub(crate) headers: Vec<Header>,
}

/// `network.fetchError`: `navigation` is null for a request that is not a
/// document's.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FetchError {
    #[serde(default)]
    pub(crate) request: RequestData,
    #[serde(default)]
    pub(crate) redirect_count: u64,
    #[serde(default)]
    pub(crate) timestamp: Option<f64>,
    #[serde(default)]
    pub(crate) error_text: Option<String>,
    #[serde(default)]
    pub(crate) context: String,
    #[serde(default)]
    pub(crate) navigation: Option<String>,
}

/// `browsingContext.userPromptOpened`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UserPromptOpened {
    #[serde(default)]
    pub(crate) context: String,
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[serde(rename = "type", default = "alert")]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) message: String,
    #[serde(default)]
    pub(crate) default_value: Option<String>,
}

/// The kind of a prompt that names none.
fn alert() -> String {
    "alert".to_string()
}
