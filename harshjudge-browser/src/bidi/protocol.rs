//! The WebDriver BiDi commands this side sends, typed: what is sent
//! (`Serialize`) and what comes back (`Deserialize`, only the fields read),
//! so that nobody builds or picks apart a BiDi message by hand:
//! [`super::Bidi::command`] is the one way to send one. The events are
//! [`super::protocol_events::BidiEvent`].

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};

/// A command: its parameters are the value itself, its method and the shape
/// of its answer are the type's, so a method is never sent with another's
/// parameters or read as another's answer, and parameters built by hand
/// (`json!`) do not compile. `IgnoredAny`: the answer is not read.
pub(crate) trait Command: Serialize {
    /// `module.command`.
    const METHOD: &'static str;
    /// What its answer holds.
    type Returns: DeserializeOwned;
}

/// `command!(Params, "module.command", Answer)`: the [`Command`] impl.
macro_rules! command {
    ($ty:ident $(<$l:lifetime>)?, $method:literal, $returns:ty) => {
        impl$(<$l>)? $crate::bidi::protocol::Command for $ty$(<$l>)? {
            const METHOD: &'static str = $method;
            type Returns = $returns;
        }
    };
}
pub(crate) use command;

command!(GetTree<'a>, "browsingContext.getTree", Tree);
command!(
    CaptureScreenshot<'a>,
    "browsingContext.captureScreenshot",
    Screenshot
);
command!(SetViewport<'a>, "browsingContext.setViewport", Empty);
command!(Navigate<'a>, "browsingContext.navigate", IgnoredAny);
command!(Reload<'a>, "browsingContext.reload", IgnoredAny);
command!(
    TraverseHistory<'a>,
    "browsingContext.traverseHistory",
    IgnoredAny
);
command!(Create<'a>, "browsingContext.create", Created);
command!(Close<'a>, "browsingContext.close", IgnoredAny);
command!(
    HandleUserPrompt<'a>,
    "browsingContext.handleUserPrompt",
    IgnoredAny
);
command!(Evaluate<'a>, "script.evaluate", ScriptResult);
command!(CallFunction<'a>, "script.callFunction", ScriptResult);
command!(AddPreloadScript, "script.addPreloadScript", IgnoredAny);
command!(SetFiles<'a>, "input.setFiles", IgnoredAny);
command!(PerformActions<'a>, "input.performActions", IgnoredAny);
command!(GetCookies, "storage.getCookies", Cookies);
command!(SetCookie<'a>, "storage.setCookie", Empty);
command!(DeleteCookies<'a>, "storage.deleteCookies", IgnoredAny);
command!(Subscribe<'a>, "session.subscribe", IgnoredAny);
command!(AddIntercept, "network.addIntercept", Intercept);
command!(RemoveIntercept<'a>, "network.removeIntercept", IgnoredAny);
command!(ContinueRequest<'a>, "network.continueRequest", IgnoredAny);
command!(FailRequest<'a>, "network.failRequest", IgnoredAny);
command!(ProvideResponse<'a>, "network.provideResponse", IgnoredAny);
command!(AddDataCollector, "network.addDataCollector", DataCollector);
command!(GetData<'a>, "network.getData", Data);
command!(
    CreateUserContext,
    "browser.createUserContext",
    UserContextInfo
);
command!(GetUserContexts, "browser.getUserContexts", UserContexts);
command!(
    RemoveUserContext<'a>,
    "browser.removeUserContext",
    IgnoredAny
);
command!(
    SetDownloadBehavior,
    "browser.setDownloadBehavior",
    IgnoredAny
);

/// `browsingContext.getTree`: one context (`root`) and none of its children.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GetTree<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) root: Option<&'a str>,
    pub(crate) max_depth: u32,
}

/// `browsingContext.getTree`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct Tree {
    pub(crate) contexts: Vec<ContextInfo>,
}

/// One browsing context of a [`Tree`].
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContextInfo {
    pub(crate) context: String,
    /// The URL of its current document.
    #[serde(default)]
    pub(crate) url: String,
    /// The user context it lives in.
    #[serde(default)]
    pub(crate) user_context: Option<String>,
}

/// What a screenshot covers: the viewport, or the whole document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Origin {
    Viewport,
    Document,
}

/// A region of the document (CSS pixels), BiDi's `BoxClipRectangle`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct BoxClip {
    #[serde(rename = "type")]
    pub(crate) kind: BoxKind,
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
}

/// The one kind of clip this side sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum BoxKind {
    Box,
}

/// `browsingContext.captureScreenshot`.
#[derive(Debug, Serialize)]
pub(crate) struct CaptureScreenshot<'a> {
    pub(crate) context: &'a str,
    pub(crate) origin: Origin,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) clip: Option<BoxClip>,
}

/// `browsingContext.captureScreenshot`'s answer: a PNG in base64.
#[derive(Debug, Deserialize)]
pub(crate) struct Screenshot {
    pub(crate) data: String,
}

/// Where a script runs: a browsing context's current document.
#[derive(Debug, Serialize)]
pub(crate) struct ContextTarget<'a> {
    pub(crate) context: &'a str,
}

/// Who owns the value a script returns: nobody (serialised, no handle kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Ownership {
    None,
}

/// `script.evaluate`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Evaluate<'a> {
    pub(crate) expression: &'a str,
    pub(crate) target: ContextTarget<'a>,
    pub(crate) await_promise: bool,
    pub(crate) result_ownership: Ownership,
}

/// A string or number argument of `script.callFunction` (BiDi's `LocalValue`).
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum LocalValue<'a> {
    String { value: &'a str },
    Number { value: f64 },
}

/// An argument of `script.callFunction`: a value, or a node by reference.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Argument<'a> {
    Value(LocalValue<'a>),
    Node(SharedReference<'a>),
}

/// `script.callFunction`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallFunction<'a> {
    pub(crate) function_declaration: &'a str,
    pub(crate) arguments: Vec<Argument<'a>>,
    pub(crate) target: ContextTarget<'a>,
    pub(crate) await_promise: bool,
    pub(crate) result_ownership: Ownership,
}

/// `input.setFiles`.
#[derive(Debug, Serialize)]
pub(crate) struct SetFiles<'a> {
    pub(crate) context: &'a str,
    pub(crate) element: SharedReference<'a>,
    pub(crate) files: &'a [String],
}

/// A node by its shared id (`script.SharedReference`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SharedReference<'a> {
    pub(crate) shared_id: &'a str,
}

/// The answer of `script.evaluate` and `script.callFunction`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub(crate) enum ScriptResult {
    Success {
        result: RemoteValue,
    },
    #[serde(rename_all = "camelCase")]
    Exception {
        exception_details: ExceptionDetails,
    },
}

/// The values a script of this side returns: JSON text, a window (an
/// iframe's `contentWindow`), a number, an array of those, null or
/// undefined; anything else is [`RemoteValue::Other`].
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum RemoteValue {
    String {
        value: String,
    },
    Window {
        value: WindowProxy,
    },
    /// A number (`NaN`, `-0` and the infinities come as strings).
    Number {
        value: serde_json::Value,
    },
    Array {
        value: Vec<RemoteValue>,
    },
    /// A DOM node, by the id BiDi commands take it by.
    Node {
        #[serde(rename = "sharedId")]
        shared_id: String,
    },
    Null,
    Undefined,
    #[serde(other)]
    Other,
}

/// A window's browsing context.
#[derive(Debug, Deserialize)]
pub(crate) struct WindowProxy {
    pub(crate) context: String,
}

/// What a script threw.
#[derive(Debug, Deserialize)]
pub(crate) struct ExceptionDetails {
    #[serde(default)]
    pub(crate) text: String,
}

/// `browsingContext.setViewport`: the context's viewport in CSS pixels.
#[derive(Debug, Serialize)]
pub(crate) struct SetViewport<'a> {
    pub(crate) context: &'a str,
    pub(crate) viewport: Viewport,
}

/// A viewport's size (CSS pixels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Viewport {
    pub(crate) width: u32,
    pub(crate) height: u32,
}

/// The answer of a command that answers nothing (`{}`).
#[derive(Debug, Deserialize)]
pub(crate) struct Empty {}

/// The storage partition of the `storage` commands: a user context's (they
/// default to the browser's default user context).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub(crate) enum Partition {
    #[serde(rename_all = "camelCase")]
    StorageKey { user_context: String },
}

/// `storage.getCookies`: every cookie of the partition.
#[derive(Debug, Serialize)]
pub(crate) struct GetCookies {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) partition: Option<Partition>,
}

/// `storage.getCookies`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct Cookies {
    pub(crate) cookies: Vec<NetworkCookie>,
}

/// A cookie's value: text, or bytes in base64.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum BytesValue {
    String { value: String },
    Base64 { value: String },
}

/// BiDi's `network.Cookie`, as `storage.getCookies` gives it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NetworkCookie {
    pub(crate) name: String,
    pub(crate) value: BytesValue,
    pub(crate) domain: String,
    #[serde(default)]
    pub(crate) path: Option<String>,
    #[serde(default)]
    pub(crate) http_only: bool,
    #[serde(default)]
    pub(crate) secure: bool,
    /// `strict`, `lax`, `none` or `default`.
    #[serde(default)]
    pub(crate) same_site: Option<String>,
    /// Unix seconds; none for a session cookie.
    #[serde(default)]
    pub(crate) expiry: Option<f64>,
}

/// BiDi's `storage.PartialCookie`, what `storage.setCookie` sets.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PartialCookie<'a> {
    pub(crate) name: &'a str,
    pub(crate) value: BytesValue,
    pub(crate) domain: &'a str,
    pub(crate) path: &'a str,
    pub(crate) http_only: bool,
    pub(crate) secure: bool,
    pub(crate) same_site: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) expiry: Option<u64>,
}

/// `storage.setCookie`.
#[derive(Debug, Serialize)]
pub(crate) struct SetCookie<'a> {
    pub(crate) cookie: PartialCookie<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) partition: Option<Partition>,
}

/// Which cookies `storage.deleteCookies` deletes: by name, domain and path.
#[derive(Debug, Serialize)]
pub(crate) struct CookieFilter<'a> {
    pub(crate) name: &'a str,
    pub(crate) domain: &'a str,
    pub(crate) path: &'a str,
}

/// `storage.deleteCookies`: the cookies of the partition that match.
#[derive(Debug, Serialize)]
pub(crate) struct DeleteCookies<'a> {
    pub(crate) filter: CookieFilter<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) partition: Option<Partition>,
}

/// `session.subscribe`: the events this side reads.
#[derive(Debug, Serialize)]
pub(crate) struct Subscribe<'a> {
    pub(crate) events: &'a [&'a str],
}

/// `script.addPreloadScript`: a function every new document runs first.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AddPreloadScript {
    pub(crate) function_declaration: String,
    /// The top-level contexts it is for (their frames too); none: every one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) contexts: Option<Vec<String>>,
    /// The user contexts it is for (every context in them, popups opened
    /// later too); not with `contexts`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) user_contexts: Option<Vec<String>>,
}

/// `input.performActions`: WebDriver's action sequences, as classic Perform
/// Actions takes them (`Engine`'s keyboard and mouse build them).
#[derive(Debug, Serialize)]
pub(crate) struct PerformActions<'a> {
    pub(crate) context: &'a str,
    pub(crate) actions: &'a serde_json::Value,
}

/// How far a navigation command waits: until the document's load event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Readiness {
    Complete,
}

/// `browsingContext.navigate`.
#[derive(Debug, Serialize)]
pub(crate) struct Navigate<'a> {
    pub(crate) context: &'a str,
    pub(crate) url: &'a str,
    pub(crate) wait: Readiness,
}

/// `browsingContext.reload`.
#[derive(Debug, Serialize)]
pub(crate) struct Reload<'a> {
    pub(crate) context: &'a str,
    pub(crate) wait: Readiness,
}

/// `browsingContext.traverseHistory` (-1: back, 1: forward).
#[derive(Debug, Serialize)]
pub(crate) struct TraverseHistory<'a> {
    pub(crate) context: &'a str,
    pub(crate) delta: i64,
}

/// The one kind of browsing context this side creates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CreateType {
    Tab,
}

/// `browsingContext.create`: a tab, in a user context when one is named;
/// `background`: the page's own tab stays the active one.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Create<'a> {
    #[serde(rename = "type")]
    pub(crate) kind: CreateType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) user_context: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) background: bool,
}

/// The answer of `browsingContext.create`: the new context.
#[derive(Debug, Deserialize)]
pub(crate) struct Created {
    pub(crate) context: String,
}

/// `browsingContext.close`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Close<'a> {
    pub(crate) context: &'a str,
    pub(crate) prompt_unload: bool,
}

/// `browsingContext.handleUserPrompt`: accept or dismiss, a prompt's text.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HandleUserPrompt<'a> {
    pub(crate) context: &'a str,
    pub(crate) accept: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) user_text: Option<&'a str>,
}

/// The phase an intercept blocks requests at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum InterceptPhase {
    BeforeRequestSent,
    /// An authentication challenge (the page's `http_credentials`).
    AuthRequired,
}

/// BiDi's `network.UrlPattern`: the URLs an intercept blocks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum InterceptPattern {
    /// Any URL whose path is `pathname`.
    Pattern { pathname: String },
    /// Exactly this URL.
    String { pattern: String },
}

impl From<crate::glob::Literal> for InterceptPattern {
    fn from(l: crate::glob::Literal) -> InterceptPattern {
        match l {
            crate::glob::Literal::Path(pathname) => InterceptPattern::Pattern { pathname },
            crate::glob::Literal::Url(pattern) => InterceptPattern::String { pattern },
        }
    }
}

/// `network.addIntercept`: the page's requests (of `contexts` when given,
/// of `url_patterns` when given) are blocked until answered.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AddIntercept {
    pub(crate) phases: Vec<InterceptPhase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) contexts: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) url_patterns: Option<Vec<InterceptPattern>>,
}

/// The answer of `network.addIntercept`: the intercept's id.
#[derive(Debug, Deserialize)]
pub(crate) struct Intercept {
    pub(crate) intercept: String,
}

/// `network.removeIntercept`.
#[derive(Debug, Serialize)]
pub(crate) struct RemoveIntercept<'a> {
    pub(crate) intercept: &'a str,
}

/// A header as BiDi writes it (`network.Header`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Header {
    pub(crate) name: String,
    pub(crate) value: BytesValue,
}

/// `network.continueRequest`, with the request's headers replaced when given.
#[derive(Debug, Serialize)]
pub(crate) struct ContinueRequest<'a> {
    pub(crate) request: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) headers: Option<Vec<Header>>,
}

/// `network.failRequest`.
#[derive(Debug, Serialize)]
pub(crate) struct FailRequest<'a> {
    pub(crate) request: &'a str,
}

/// `network.provideResponse`: the response a route answers with.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ProvideResponse<'a> {
    pub(crate) request: &'a str,
    pub(crate) status_code: u16,
    pub(crate) reason_phrase: &'a str,
    pub(crate) headers: Vec<Header>,
    pub(crate) body: BytesValue,
}

/// What a data collector keeps: responses' bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum DataType {
    Response,
}

/// `network.addDataCollector`: the remote end keeps the bodies of the
/// responses that arrive from now on, each up to `max_encoded_data_size`
/// bytes, until read (`network.getData`) or their context goes.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AddDataCollector {
    pub(crate) data_types: Vec<DataType>,
    pub(crate) max_encoded_data_size: u64,
}

/// The answer of `network.addDataCollector`: the collector's id.
#[derive(Debug, Deserialize)]
pub(crate) struct DataCollector {
    pub(crate) collector: String,
}

/// `network.getData`: the body a collector kept of request `request`'s
/// response (kept for a later read: not `disown`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GetData<'a> {
    pub(crate) data_type: DataType,
    pub(crate) collector: &'a str,
    pub(crate) request: &'a str,
}

/// The answer of `network.getData`.
#[derive(Debug, Deserialize)]
pub(crate) struct Data {
    pub(crate) bytes: BytesValue,
}

/// `browser.createUserContext`.
#[derive(Debug, Serialize)]
pub(crate) struct CreateUserContext {}

/// `browser.getUserContexts`.
#[derive(Debug, Serialize)]
pub(crate) struct GetUserContexts {}

/// A user context, as `browser.createUserContext` and
/// `browser.getUserContexts` name it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UserContextInfo {
    pub(crate) user_context: String,
}

/// The answer of `browser.getUserContexts`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UserContexts {
    pub(crate) user_contexts: Vec<UserContextInfo>,
}

/// `browser.removeUserContext`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RemoveUserContext<'a> {
    pub(crate) user_context: &'a str,
}

/// Where downloads go: into a folder (`None` in [`SetDownloadBehavior`]:
/// back to the browser's default).
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum DownloadBehavior {
    #[serde(rename_all = "camelCase")]
    Allowed { destination_folder: String },
}

/// `browser.setDownloadBehavior`: null restores the default.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetDownloadBehavior {
    pub(crate) download_behavior: Option<DownloadBehavior>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The commands are written as the BiDi spec spells them.
    #[test]
    fn commands_serialise_as_the_spec_spells_them() {
        let shot = CaptureScreenshot {
            context: "c",
            origin: Origin::Document,
            clip: Some(BoxClip {
                kind: BoxKind::Box,
                x: 1.0,
                y: 2.0,
                width: 3.0,
                height: 4.0,
            }),
        };
        assert_eq!(
            serde_json::to_value(shot).unwrap(),
            json!({"context": "c", "origin": "document",
                "clip": {"type": "box", "x": 1.0, "y": 2.0, "width": 3.0, "height": 4.0}})
        );
        let call = CallFunction {
            function_declaration: "function (a) {}",
            arguments: vec![
                Argument::Value(LocalValue::String { value: "x" }),
                Argument::Node(SharedReference { shared_id: "n1" }),
            ],
            target: ContextTarget { context: "c" },
            await_promise: true,
            result_ownership: Ownership::None,
        };
        assert_eq!(
            serde_json::to_value(call).unwrap(),
            json!({"functionDeclaration": "function (a) {}",
                "arguments": [{"type": "string", "value": "x"}, {"sharedId": "n1"}],
                "target": {"context": "c"}, "awaitPromise": true, "resultOwnership": "none"})
        );
        assert_eq!(
            serde_json::to_value(GetTree {
                root: Some("c"),
                max_depth: 0
            })
            .unwrap(),
            json!({"root": "c", "maxDepth": 0})
        );
    }

    /// Answers of each shape are read, an unknown value type included.
    #[test]
    fn script_answers_of_every_shape_are_read() {
        let r: ScriptResult = serde_json::from_value(json!({"type": "success", "realm": "r",
            "result": {"type": "string", "value": "{}"}}))
        .unwrap();
        assert!(
            matches!(r, ScriptResult::Success { result: RemoteValue::String { value } } if value == "{}")
        );
        let r: ScriptResult = serde_json::from_value(json!({"type": "success",
            "result": {"type": "window", "value": {"context": "f1"}}}))
        .unwrap();
        assert!(
            matches!(r, ScriptResult::Success { result: RemoteValue::Window { value } } if value.context == "f1")
        );
        // A frame's window and its offset (`frame_at`), NaN coming as text.
        let r: ScriptResult = serde_json::from_value(json!({"type": "success",
            "result": {"type": "array", "value": [
                {"type": "window", "value": {"context": "f2"}},
                {"type": "number", "value": 12.5},
                {"type": "number", "value": "NaN"}]}}))
        .unwrap();
        let ScriptResult::Success {
            result: RemoteValue::Array { value },
        } = r
        else {
            panic!("an array: {r:?}")
        };
        assert!(
            matches!(&value[..], [RemoteValue::Window { value: w }, RemoteValue::Number { value: x }, RemoteValue::Number { value: y }]
                if w.context == "f2" && x.as_f64() == Some(12.5) && y.as_f64().is_none())
        );
        let r: ScriptResult = serde_json::from_value(json!({"type": "success",
            "result": {"type": "regexp", "value": {"pattern": "a"}}}))
        .unwrap();
        assert!(matches!(
            r,
            ScriptResult::Success {
                result: RemoteValue::Other
            }
        ));
        let r: ScriptResult = serde_json::from_value(json!({"type": "exception", "realm": "r",
            "exceptionDetails": {"text": "Error: boom", "lineNumber": 1}}))
        .unwrap();
        assert!(
            matches!(r, ScriptResult::Exception { exception_details } if exception_details.text == "Error: boom")
        );
    }

    /// The viewport and storage commands, as the spec spells them.
    #[test]
    fn state_commands_serialise_as_the_spec_spells_them() {
        let set = SetViewport {
            context: "c",
            viewport: Viewport {
                width: 600,
                height: 500,
            },
        };
        assert_eq!(
            serde_json::to_value(set).unwrap(),
            json!({"context": "c", "viewport": {"width": 600, "height": 500}})
        );
        let partition = Some(Partition::StorageKey {
            user_context: "u".into(),
        });
        assert_eq!(
            serde_json::to_value(GetCookies {
                partition: partition.clone()
            })
            .unwrap(),
            json!({"partition": {"type": "storageKey", "userContext": "u"}})
        );
        assert_eq!(
            serde_json::to_value(GetCookies { partition: None }).unwrap(),
            json!({})
        );
        let cookie = PartialCookie {
            name: "n",
            value: BytesValue::String { value: "v".into() },
            domain: "h",
            path: "/",
            http_only: true,
            secure: false,
            same_site: "lax",
            expiry: Some(7),
        };
        assert_eq!(
            serde_json::to_value(SetCookie { cookie, partition }).unwrap(),
            json!({"cookie": {"name": "n", "value": {"type": "string", "value": "v"},
                "domain": "h", "path": "/", "httpOnly": true, "secure": false,
                "sameSite": "lax", "expiry": 7},
                "partition": {"type": "storageKey", "userContext": "u"}})
        );
        let tree: Tree = serde_json::from_value(
            json!({"contexts": [{"context": "c", "url": "about:blank", "userContext": "default",
                "children": null, "parent": null}]}),
        )
        .unwrap();
        assert_eq!(tree.contexts[0].user_context.as_deref(), Some("default"));
        let _: Empty = serde_json::from_value(json!({})).unwrap();
    }
}
