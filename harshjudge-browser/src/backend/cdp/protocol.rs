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

/// `Log.enable`: `Log.entryAdded` (failed loads, interventions).
#[derive(Debug, Default, Serialize)]
pub(crate) struct LogEnable {}
command!(LogEnable, "Log.enable", Empty);

/// `Network.enable`: the request events, the browser keeping up to 64 MiB
/// of the page's response bodies, 8 MiB each (what a trace reads images
/// back from: `Network.getResponseBody`, D10 of docs/design/trace.md).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NetworkEnable {
    pub(crate) max_total_buffer_size: u64,
    pub(crate) max_resource_buffer_size: u64,
}
command!(NetworkEnable, "Network.enable", Empty);

impl Default for NetworkEnable {
    fn default() -> NetworkEnable {
        NetworkEnable {
            max_total_buffer_size: 64 << 20,
            max_resource_buffer_size: 8 << 20,
        }
    }
}

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

/// `Runtime.executionContextCreated`: a world of a frame is ready.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct ExecutionContextCreated {
    pub(crate) context: ExecutionContextDescription,
}
event!(ExecutionContextCreated, "Runtime.executionContextCreated");

/// An execution context: a frame's main world or an isolated one.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExecutionContextDescription {
    pub(crate) id: i64,
    #[serde(default)]
    pub(crate) origin: String,
    #[serde(default)]
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) aux_data: Option<ContextAuxData>,
}

/// Where a context lives (Chromium's `auxData`).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContextAuxData {
    #[serde(default)]
    pub(crate) frame_id: Option<String>,
    /// The frame's main world (not an isolated world or a worker's).
    #[serde(default)]
    pub(crate) is_default: bool,
}

/// `Runtime.executionContextDestroyed`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExecutionContextDestroyed {
    pub(crate) execution_context_id: i64,
}
event!(
    ExecutionContextDestroyed,
    "Runtime.executionContextDestroyed"
);

/// `Runtime.executionContextsCleared`: every context of the page went (the
/// top document navigated).
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct ExecutionContextsCleared {}
event!(ExecutionContextsCleared, "Runtime.executionContextsCleared");

// ---- DOM ----

/// `DOM.describeNode`: what a node of the page is (for an iframe element,
/// the frame it holds).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DescribeNode<'a> {
    pub(crate) object_id: &'a str,
}
command!(DescribeNode<'a>, "DOM.describeNode", Described);

/// `DOM.describeNode`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct Described {
    pub(crate) node: Node,
}

/// A DOM node as `DOM.describeNode` tells it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Node {
    #[serde(default)]
    pub(crate) node_name: String,
    /// An iframe element's frame (an `<iframe>`, `<frame>` or `<object>`).
    #[serde(default)]
    pub(crate) frame_id: Option<String>,
}

// ---- Input ----

/// `Input.dispatchKeyEvent`'s `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum KeyEventType {
    /// A key down that types its text.
    KeyDown,
    /// A key down that types nothing.
    RawKeyDown,
    KeyUp,
}

/// `Input.dispatchKeyEvent`, as a US keyboard makes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DispatchKeyEvent {
    #[serde(rename = "type")]
    pub(crate) kind: KeyEventType,
    /// Alt 1, Control 2, Meta 4, Shift 8.
    pub(crate) modifiers: u8,
    /// `KeyboardEvent.key`: "a", "A", "Enter", "Shift".
    pub(crate) key: String,
    /// `KeyboardEvent.code`: "KeyA", "Enter", "ShiftLeft".
    pub(crate) code: String,
    pub(crate) windows_virtual_key_code: u32,
    pub(crate) native_virtual_key_code: u32,
    /// What the key types (none for a key up or a key that types nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) unmodified_text: Option<String>,
    /// 0 standard, 1 left, 2 right, 3 numpad.
    pub(crate) location: u8,
    pub(crate) is_keypad: bool,
    pub(crate) auto_repeat: bool,
}
command!(DispatchKeyEvent, "Input.dispatchKeyEvent", Empty);

/// `Input.insertText`: text as an input method commits it (no key events).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct InsertText {
    pub(crate) text: String,
}
command!(InsertText, "Input.insertText", Empty);

/// `Input.dispatchMouseEvent`'s `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum MouseEventType {
    #[serde(rename = "mouseMoved")]
    Moved,
    #[serde(rename = "mousePressed")]
    Pressed,
    #[serde(rename = "mouseReleased")]
    Released,
    #[serde(rename = "mouseWheel")]
    Wheel,
}

/// A mouse button as `Input.dispatchMouseEvent` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum CdpButton {
    None,
    Left,
    Middle,
    Right,
    Back,
    Forward,
}

/// `Input.dispatchMouseEvent`, in CSS pixels of the viewport.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DispatchMouseEvent {
    #[serde(rename = "type")]
    pub(crate) kind: MouseEventType,
    pub(crate) x: f64,
    pub(crate) y: f64,
    /// Alt 1, Control 2, Meta 4, Shift 8.
    pub(crate) modifiers: u8,
    pub(crate) button: CdpButton,
    /// The buttons held: left 1, right 2, middle 4, back 8, forward 16.
    pub(crate) buttons: u8,
    pub(crate) click_count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) delta_x: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) delta_y: Option<f64>,
}
command!(DispatchMouseEvent, "Input.dispatchMouseEvent", Empty);

// ---- Screenshots, viewport ----

/// A rectangle of the page, in CSS pixels of the document.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Viewport {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
    /// Device pixels per CSS pixel of the capture.
    pub(crate) scale: f64,
}

/// `Page.captureScreenshot`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CaptureScreenshot {
    /// "png".
    pub(crate) format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) clip: Option<Viewport>,
    /// The clip may reach past the viewport (a full-page capture).
    pub(crate) capture_beyond_viewport: bool,
    pub(crate) from_surface: bool,
    /// The PNG compressed quickly: the same pixels, a larger file.
    pub(crate) optimize_for_speed: bool,
}
command!(CaptureScreenshot, "Page.captureScreenshot", Captured);

/// `Page.captureScreenshot`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct Captured {
    /// The image, base64.
    pub(crate) data: String,
}

/// `Page.getLayoutMetrics`.
#[derive(Debug, Default, Serialize)]
pub(crate) struct GetLayoutMetrics {}
command!(GetLayoutMetrics, "Page.getLayoutMetrics", LayoutMetrics);

/// `Page.getLayoutMetrics`'s answer (CSS pixels).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LayoutMetrics {
    pub(crate) css_content_size: Rect,
    pub(crate) css_visual_viewport: VisualViewport,
}

/// A size (and place) in CSS pixels.
#[derive(Clone, Copy, Debug, Deserialize)]
pub(crate) struct Rect {
    pub(crate) width: f64,
    pub(crate) height: f64,
}

/// The visible part of the page.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VisualViewport {
    pub(crate) page_x: f64,
    pub(crate) page_y: f64,
    pub(crate) client_width: f64,
    pub(crate) client_height: f64,
}

/// `Emulation.setDeviceMetricsOverride`: the viewport's size in CSS pixels.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetDeviceMetricsOverride {
    pub(crate) width: u32,
    pub(crate) height: u32,
    /// 0: the browser's own.
    pub(crate) device_scale_factor: f64,
    pub(crate) mobile: bool,
}
command!(
    SetDeviceMetricsOverride,
    "Emulation.setDeviceMetricsOverride",
    Empty
);

// ---- Page: frames, lifecycle, history ----

/// `Page.getFrameTree`.
#[derive(Debug, Default, Serialize)]
pub(crate) struct GetFrameTree {}
command!(GetFrameTree, "Page.getFrameTree", FrameTreeOf);

/// `Page.getFrameTree`'s answer (the main frame; its children unread).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FrameTreeOf {
    pub(crate) frame_tree: FrameTree,
}

/// A frame and (unread) its children.
#[derive(Debug, Deserialize)]
pub(crate) struct FrameTree {
    pub(crate) frame: Frame,
}

/// A frame as `Page.getFrameTree` and `Page.frameNavigated` tell it.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    pub(crate) id: String,
    /// None for a main frame.
    #[serde(default)]
    pub(crate) parent_id: Option<String>,
    pub(crate) loader_id: String,
    #[serde(default)]
    pub(crate) url: String,
}

/// `Page.setLifecycleEventsEnabled`.
#[derive(Debug, Serialize)]
pub(crate) struct SetLifecycleEventsEnabled {
    pub(crate) enabled: bool,
}
command!(
    SetLifecycleEventsEnabled,
    "Page.setLifecycleEventsEnabled",
    Empty
);

/// `Emulation.setFocusEmulationEnabled`: the page behaves focused.
#[derive(Debug, Serialize)]
pub(crate) struct SetFocusEmulationEnabled {
    pub(crate) enabled: bool,
}
command!(
    SetFocusEmulationEnabled,
    "Emulation.setFocusEmulationEnabled",
    Empty
);

/// `Page.lifecycleEvent`: `init`, `DOMContentLoaded`, `load`, … of a loader.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LifecycleEvent {
    pub(crate) frame_id: String,
    pub(crate) loader_id: String,
    pub(crate) name: String,
}
event!(LifecycleEvent, "Page.lifecycleEvent");

/// `Page.frameNavigated`: a frame committed a document.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct FrameNavigated {
    pub(crate) frame: Frame,
}
event!(FrameNavigated, "Page.frameNavigated");

/// `Page.frameRequestedNavigation`: the page asked for a navigation of
/// one of its frames (a link followed, a form sent, a script's
/// `location` set), in the renderer, before the frame's request goes out.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FrameRequestedNavigation {
    pub(crate) frame_id: String,
    pub(crate) url: String,
    /// `currentTab`, `newTab`, `newWindow` or `download`.
    pub(crate) disposition: String,
}
event!(FrameRequestedNavigation, "Page.frameRequestedNavigation");

/// `Page.frameStoppedLoading`: a frame has no navigation under way and its
/// document loaded.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FrameStoppedLoading {
    pub(crate) frame_id: String,
}
event!(FrameStoppedLoading, "Page.frameStoppedLoading");

/// `Page.navigatedWithinDocument`: a fragment or history API navigation.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NavigatedWithinDocument {
    pub(crate) frame_id: String,
    pub(crate) url: String,
}
event!(NavigatedWithinDocument, "Page.navigatedWithinDocument");

/// `Page.reload`.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Reload {}
command!(Reload, "Page.reload", Empty);

/// `Page.getNavigationHistory`.
#[derive(Debug, Default, Serialize)]
pub(crate) struct GetNavigationHistory {}
command!(GetNavigationHistory, "Page.getNavigationHistory", History);

/// `Page.getNavigationHistory`'s answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct History {
    pub(crate) current_index: usize,
    pub(crate) entries: Vec<HistoryEntry>,
}

/// One entry of the history.
#[derive(Debug, Deserialize)]
pub(crate) struct HistoryEntry {
    pub(crate) id: i64,
    pub(crate) url: String,
}

/// `Page.navigateToHistoryEntry`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NavigateToHistoryEntry {
    pub(crate) entry_id: i64,
}
command!(NavigateToHistoryEntry, "Page.navigateToHistoryEntry", Empty);

/// `DOM.setFileInputFiles`: the files of an `<input type=file>`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetFileInputFiles<'a> {
    pub(crate) files: &'a [String],
    pub(crate) object_id: &'a str,
}
command!(SetFileInputFiles<'a>, "DOM.setFileInputFiles", Empty);

// ---- Storage ----

/// `Storage.getCookies` of a browser context.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GetCookies<'a> {
    pub(crate) browser_context_id: &'a BrowserContextId,
}
command!(GetCookies<'a>, "Storage.getCookies", CookieList);

/// `Storage.getCookies`'s answer: DevTools cookies, read by `cookies.rs`.
#[derive(Debug, Deserialize)]
pub(crate) struct CookieList {
    pub(crate) cookies: Vec<Value>,
}

/// `Storage.setCookies` in a browser context (DevTools cookies, as `cookies.rs` writes them).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetCookies<'a> {
    pub(crate) cookies: &'a [Value],
    pub(crate) browser_context_id: &'a BrowserContextId,
}
command!(SetCookies<'a>, "Storage.setCookies", Empty);

// The network, routes, dialogs, downloads and other origins' storage.
#[path = "protocol_net.rs"]
mod net;
pub(crate) use net::*;

// Emulation: locale, time zone, place, media, user agent, network, permissions, auth.
#[path = "protocol_emulation.rs"]
mod emulation;
pub(crate) use emulation::*;
