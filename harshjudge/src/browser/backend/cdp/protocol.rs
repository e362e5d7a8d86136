//! The DevTools-protocol commands and events this side speaks, typed by hand
//! with only the fields it reads (serde ignores the rest, so a newer Chromium
//! adding fields or variants breaks nothing), as `browser/bidi/protocol.rs`
//! does for BiDi: what is sent is `Serialize`, what comes back `Deserialize`.
//! A [`Command`] names its method and its answer; an [`Event`] its method.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A command: its params are the value itself.
pub(crate) trait Command: Serialize {
    /// `Domain.method`.
    const METHOD: &'static str;
    /// What its answer's `result` holds.
    type Returns: DeserializeOwned + Send;
}

/// An event: its params are the value itself.
pub(crate) trait Event: DeserializeOwned {
    /// `Domain.event`.
    const METHOD: &'static str;
}

macro_rules! command {
    ($ty:ident $(<$l:lifetime>)?, $method:literal, $returns:ty) => {
        impl$(<$l>)? Command for $ty$(<$l>)? {
            const METHOD: &'static str = $method;
            type Returns = $returns;
        }
    };
}

macro_rules! event {
    ($ty:ident, $method:literal) => {
        impl Event for $ty {
            const METHOD: &'static str = $method;
        }
    };
}

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub(crate) struct $name(pub(crate) String);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id!(
    /// A flattened session: one target's traffic on the browser's connection.
    SessionId
);
id!(
    /// A target (a page, a worker, the browser).
    TargetId
);
id!(
    /// A browser context: an incognito-like profile of its own (cookies, storage).
    BrowserContextId
);

/// An answer without fields this side reads.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Empty {}

// ---- Browser ----

/// `Browser.getVersion`.
#[derive(Debug, Default, Serialize)]
pub(crate) struct GetVersion {}
command!(GetVersion, "Browser.getVersion", Version);

/// `Browser.getVersion`'s answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Version {
    pub(crate) protocol_version: String,
    /// "HeadlessChrome/156.0.…" or "Chrome/…".
    pub(crate) product: String,
    #[serde(default)]
    pub(crate) user_agent: String,
}

/// `Browser.close`: the browser quits (its answer may not come).
#[derive(Debug, Default, Serialize)]
pub(crate) struct CloseBrowser {}
command!(CloseBrowser, "Browser.close", Empty);

// ---- Target ----

/// `Target.createBrowserContext`.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreateBrowserContext {
    /// The context goes when the session that made it detaches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dispose_on_detach: Option<bool>,
}
command!(
    CreateBrowserContext,
    "Target.createBrowserContext",
    BrowserContextCreated
);

/// `Target.createBrowserContext`'s answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BrowserContextCreated {
    pub(crate) browser_context_id: BrowserContextId,
}

/// `Target.disposeBrowserContext`: closes its pages (popups too).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DisposeBrowserContext<'a> {
    pub(crate) browser_context_id: &'a BrowserContextId,
}
command!(
    DisposeBrowserContext<'a>,
    "Target.disposeBrowserContext",
    Empty
);

/// `Target.createTarget`: a new page.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreateTarget<'a> {
    pub(crate) url: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) browser_context_id: Option<&'a BrowserContextId>,
}
command!(CreateTarget<'a>, "Target.createTarget", TargetCreated);

/// `Target.createTarget`'s answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TargetCreated {
    pub(crate) target_id: TargetId,
}

/// `Target.closeTarget`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CloseTarget<'a> {
    pub(crate) target_id: &'a TargetId,
}
command!(CloseTarget<'a>, "Target.closeTarget", Empty);

/// `Target.attachToTarget`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AttachToTarget<'a> {
    pub(crate) target_id: &'a TargetId,
    /// Always true here: the session's traffic on the browser's connection,
    /// tagged with its `sessionId`.
    pub(crate) flatten: bool,
}
command!(AttachToTarget<'a>, "Target.attachToTarget", Attached);

/// `Target.attachToTarget`'s answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Attached {
    pub(crate) session_id: SessionId,
}

/// `Target.setAutoAttach`: new targets (popups) attach by themselves
/// ([`AttachedToTarget`]), paused until `Runtime.runIfWaitingForDebugger`
/// when `wait_for_debugger_on_start`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetAutoAttach {
    pub(crate) auto_attach: bool,
    pub(crate) wait_for_debugger_on_start: bool,
    pub(crate) flatten: bool,
}
command!(SetAutoAttach, "Target.setAutoAttach", Empty);

/// What a target is.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TargetInfo {
    pub(crate) target_id: TargetId,
    /// "page", "iframe", "worker", "browser", …
    #[serde(rename = "type")]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) url: String,
    /// The page that opened it (a popup's opener).
    #[serde(default)]
    pub(crate) opener_id: Option<TargetId>,
    #[serde(default)]
    pub(crate) browser_context_id: Option<BrowserContextId>,
}

/// `Target.attachedToTarget`: a session to a target now exists.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AttachedToTarget {
    pub(crate) session_id: SessionId,
    pub(crate) target_info: TargetInfo,
    #[serde(default)]
    pub(crate) waiting_for_debugger: bool,
}
event!(AttachedToTarget, "Target.attachedToTarget");

/// `Target.detachedFromTarget`: the session is gone (its target closed).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DetachedFromTarget {
    pub(crate) session_id: SessionId,
    #[serde(default)]
    pub(crate) target_id: Option<TargetId>,
}
event!(DetachedFromTarget, "Target.detachedFromTarget");

// ---- Inspector ----

/// `Inspector.targetCrashed` (on the crashed page's session).
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct TargetCrashed {}
event!(TargetCrashed, "Inspector.targetCrashed");

// ---- Runtime ----

/// `Runtime.enable`: execution-context and console events.
#[derive(Debug, Default, Serialize)]
pub(crate) struct RuntimeEnable {}
command!(RuntimeEnable, "Runtime.enable", Empty);

/// `Runtime.runIfWaitingForDebugger`: a target paused at its start goes on.
#[derive(Debug, Default, Serialize)]
pub(crate) struct RunIfWaitingForDebugger {}
command!(
    RunIfWaitingForDebugger,
    "Runtime.runIfWaitingForDebugger",
    Empty
);

/// `Runtime.evaluate` (in the top frame's main world, without a context id).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Evaluate<'a> {
    pub(crate) expression: &'a str,
    pub(crate) await_promise: bool,
    pub(crate) return_by_value: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) context_id: Option<i64>,
}
command!(Evaluate<'a>, "Runtime.evaluate", Evaluated);

/// An argument of `Runtime.callFunctionOn`: `{"value": …}` or `{"objectId": …}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum CallArgument<'a> {
    /// A JSON value.
    Value(&'a Value),
    /// An object of the page by its handle.
    ObjectId(&'a str),
}

/// `Runtime.callFunctionOn`: on an object (`object_id`) or in a context.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallFunctionOn<'a> {
    pub(crate) function_declaration: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) object_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) execution_context_id: Option<i64>,
    pub(crate) arguments: &'a [CallArgument<'a>],
    pub(crate) await_promise: bool,
    pub(crate) return_by_value: bool,
}
command!(CallFunctionOn<'a>, "Runtime.callFunctionOn", Evaluated);

/// The answer of `Runtime.evaluate` and `Runtime.callFunctionOn`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Evaluated {
    pub(crate) result: RemoteObject,
    /// Set when the script threw (or its promise was rejected).
    #[serde(default)]
    pub(crate) exception_details: Option<ExceptionDetails>,
}

/// A value of the page: by value (`return_by_value`) or by handle.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RemoteObject {
    /// "object", "number", "string", "undefined", …
    #[serde(rename = "type")]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) subtype: Option<String>,
    #[serde(default)]
    pub(crate) value: Option<Value>,
    /// `NaN`, `Infinity`, `-0`, bigints: what JSON cannot hold.
    #[serde(default)]
    pub(crate) unserializable_value: Option<String>,
    #[serde(default)]
    pub(crate) object_id: Option<String>,
    #[serde(default)]
    pub(crate) description: Option<String>,
}

/// Why a script failed.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExceptionDetails {
    /// "Uncaught", "Uncaught (in promise)", …
    pub(crate) text: String,
    /// The thrown value (its `description` holds the message and stack).
    #[serde(default)]
    pub(crate) exception: Option<RemoteObject>,
}

impl ExceptionDetails {
    /// The thrown error's message and stack, else the text.
    pub(crate) fn message(&self) -> &str {
        self.exception
            .as_ref()
            .and_then(|e| e.description.as_deref())
            .unwrap_or(&self.text)
    }
}

// ---- Page ----

/// `Page.enable`: lifecycle and dialog events.
#[derive(Debug, Default, Serialize)]
pub(crate) struct PageEnable {}
command!(PageEnable, "Page.enable", Empty);

/// `Page.navigate`.
#[derive(Debug, Serialize)]
pub(crate) struct Navigate<'a> {
    pub(crate) url: &'a str,
}
command!(Navigate<'a>, "Page.navigate", Navigated);

/// `Page.navigate`'s answer: the navigation's loader (none for a fragment
/// navigation), or why it failed at once.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Navigated {
    pub(crate) frame_id: String,
    #[serde(default)]
    pub(crate) loader_id: Option<String>,
    #[serde(default)]
    pub(crate) error_text: Option<String>,
}

/// `Page.addScriptToEvaluateOnNewDocument` (the injected engine).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AddScriptToEvaluateOnNewDocument<'a> {
    pub(crate) source: &'a str,
    /// Also in the documents already there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) run_immediately: Option<bool>,
}
command!(
    AddScriptToEvaluateOnNewDocument<'a>,
    "Page.addScriptToEvaluateOnNewDocument",
    ScriptAdded
);

/// `Page.addScriptToEvaluateOnNewDocument`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct ScriptAdded {
    pub(crate) identifier: String,
}
