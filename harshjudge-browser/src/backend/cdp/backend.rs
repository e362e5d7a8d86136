//! The CDP backend: [`PageBackend`] over a [`CdpPage`] of a browser context
//! of its own ([`CdpContext`], disposed when the page is released). The
//! engine call is the generic one of `backend/walk.rs` over [`Scopes`]: a
//! scope is a frame id (none: the top document), its document the frame's
//! default execution context; an iframe element's frame comes from
//! `DOM.describeNode`.
//!
//! Routes are the page's (`fetch.rs`), request and response waits its step
//! log's, dialogs its own (`dialog.rs`); downloads are watched per context
//! (`downloads.rs`); a popup is a page of the same context (`popups.rs`),
//! closed by `close` and otherwise with its opener's context; `page.cdp`
//! sends its command as it is (`Connection::send_raw`).

use std::future::Future;
use std::panic::Location;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fantoccini::Client;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::connection::CdpError;
use super::context::CdpContext;
use super::emulate;
use super::frames::{self, FrameError};
use super::page::{CdpPage, NavError, PageError};
use super::popups::PopupError;
use super::protocol::{
    CallArgument, CallFunctionOn, DisposeBrowserContext, Evaluate, Evaluated, SessionId,
};
use super::screenshot::Area;
use crate::backend::live::Live;
use crate::backend::page_backend::{
    self, ActionWatch, DownloadArm, History, LastAnswer, PageBackend, PopupArm, Shot,
};
use crate::backend::walk::{self, CallFailure, Returned, Scopes};
use crate::config::BrowserKind;
use crate::cookies::Cookie;
use crate::dialogs::{Handler, Recorder};
use crate::emulation::Emulation;
use crate::engine::{CONTENT_BOX_JS, decode};
use crate::error::BrowserError;
use crate::glob::{Matcher, UrlPattern};
use crate::logs::{ConsoleEntry, NetworkEntry};
use crate::protocol::{Answer, Call, FrameScope};
use crate::routes::Route;
use crate::steplog::Seen;
use crate::wire::{self, BidiReturns};

/// The document element's markup (no doctype), as WebDriver's Get Page
/// Source gives it.
const HTML_JS: &str = "document.documentElement ? document.documentElement.outerHTML : new XMLSerializer().serializeToString(document)";

/// A page over the DevTools protocol, in a browser context of its own.
pub(crate) struct CdpBackend {
    page: CdpPage,
    /// Its context, disposed when the (opener) page is released.
    context: Arc<CdpContext>,
    /// A popup of another page of the context.
    popup: bool,
    viewport: Mutex<Option<(u32, u32)>>,
    /// Counts it among its owner's open pages (a popup: its opener does).
    _live: Option<Live>,
}

impl CdpBackend {
    /// A page of a new context: `page` of `context`, its viewport `viewport`.
    pub(crate) fn new(
        page: CdpPage,
        context: CdpContext,
        viewport: (u32, u32),
        live: Live,
    ) -> CdpBackend {
        CdpBackend {
            page,
            context: Arc::new(context),
            popup: false,
            viewport: Mutex::new(Some(viewport)),
            _live: Some(live),
        }
    }

    /// The backend of a popup this page opened (same context).
    fn popup_of(&self, page: CdpPage) -> CdpBackend {
        CdpBackend {
            page,
            context: self.context.clone(),
            popup: true,
            viewport: Mutex::new(None),
            _live: None,
        }
    }

    /// Closes the page's context, its pages with it.
    pub(crate) async fn dispose(&self) {
        let (connection, _, _) = self.page.parts();
        let dispose = DisposeBrowserContext {
            browser_context_id: self.context.id(),
        };
        let _ = connection.send(None, &dispose).await;
    }

    /// `function` called with `args` in `scope` (the top document or a
    /// frame's default world, waiting until `deadline` for it); with the
    /// session it ran in (none: the page's own; else an out-of-process
    /// iframe's).
    async fn call_function(
        &self,
        scope: &Scope,
        function: &str,
        args: &[CallArgument<'_>],
        by_value: bool,
        deadline: Instant,
    ) -> Result<(Evaluated, Option<SessionId>), CallFailure> {
        let (connection, page_session, contexts) = self.page.parts();
        let context = match scope {
            None => None,
            Some(entered) => Some(
                contexts
                    .wait_default_of(&entered.frame, deadline)
                    .await
                    .map_err(|e| CallFailure::Failed(e.into()))?,
            ),
        };
        let child = context.as_ref().and_then(|c| c.session.clone());
        let session = child.as_ref().unwrap_or(page_session);
        let sent = match context.map(|c| c.id) {
            // The top document's main world: no context id to look up.
            None => {
                let mut expression = format!("({function})(");
                for (i, a) in args.iter().enumerate() {
                    if let CallArgument::Value(v) = a {
                        if i > 0 {
                            expression.push(',');
                        }
                        expression.push_str(&v.to_string());
                    }
                }
                expression.push(')');
                let evaluate = Evaluate {
                    expression: &expression,
                    await_promise: true,
                    return_by_value: by_value,
                    context_id: None,
                };
                connection.send(Some(session), &evaluate).await
            }
            Some(id) => {
                let call = CallFunctionOn {
                    function_declaration: function,
                    object_id: None,
                    execution_context_id: Some(id),
                    arguments: args,
                    await_promise: true,
                    return_by_value: by_value,
                };
                connection.send(Some(session), &call).await
            }
        };
        match sent {
            Ok(e) => Ok((e, child)),
            Err(CdpError::Navigated { .. }) => Err(CallFailure::Navigated),
            // An iframe's session detached: its frame navigated (to a
            // document of the parent's site, or another cross-site one).
            Err(CdpError::Lost { .. }) if child.is_some() && !connection.is_closed() => {
                Err(CallFailure::Navigated)
            }
            Err(e) => Err(CallFailure::Failed(e.into())),
        }
    }

    /// The offset of the content box of the iframe `node` in the viewport
    /// of its own document.
    async fn content_box_offset(&self, node: &Node) -> Result<(f64, f64), BrowserError> {
        let (connection, page_session, _) = self.page.parts();
        let call = CallFunctionOn {
            function_declaration: CONTENT_BOX_JS,
            object_id: Some(&node.object),
            execution_context_id: None,
            arguments: &[],
            await_promise: false,
            return_by_value: true,
        };
        let session = node.session.as_ref().unwrap_or(page_session);
        let evaluated =
            connection
                .send(Some(session), &call)
                .await
                .map_err(|e| BrowserError::Command {
                    action: "reading the frame's offset in the page".into(),
                    message: e.to_string(),
                })?;
        let v = evaluated.result.value.unwrap_or(Value::Null);
        Ok((v[0].as_f64().unwrap_or(0.0), v[1].as_f64().unwrap_or(0.0)))
    }
}

/// Where an engine call runs: the top document (none), or the frame
/// entered through an iframe element.
type Scope = Option<Arc<Entered>>;

/// A frame entered through an iframe element of its parent scope.
#[derive(Debug)]
pub(crate) struct Entered {
    /// The frame's id (an out-of-process one's is its target's id).
    frame: String,
    /// The iframe element that holds it.
    iframe: Node,
}

/// An element a call found: its remote object, in the session of the
/// document it is in, and the scope that document is.
#[derive(Debug)]
pub(crate) struct Node {
    parent: Scope,
    /// None: the page's own session; else an out-of-process iframe's.
    session: Option<SessionId>,
    object: String,
}

impl Scopes for CdpBackend {
    type Scope = Scope;
    type Element = Node;

    fn top(&self) -> Scope {
        None
    }

    async fn call_in(
        &self,
        scope: &Scope,
        request: &str,
        returns: BidiReturns,
        wait: Duration,
    ) -> Result<Returned<Node>, CallFailure> {
        let deadline = Instant::now() + wait;
        let arg = Value::String(request.to_string());
        let args = [CallArgument::Value(&arg)];
        let by_value = returns == BidiReturns::Answer;
        let mut full = false;
        loop {
            let function = wire::bidi_function(full, returns);
            let (evaluated, session) = self
                .call_function(scope, function, &args, by_value, deadline)
                .await?;
            if let Some(e) = &evaluated.exception_details {
                return Err(CallFailure::Failed(BrowserError::Command {
                    action: "calling the page's engine".into(),
                    message: format!("the engine's call threw: {}", e.message()),
                }));
            }
            let result = evaluated.result;
            if let Some(Value::String(text)) = &result.value {
                let v: Value = serde_json::from_str(text).map_err(|_| {
                    CallFailure::Failed(BrowserError::Command {
                        action: "calling the page's engine".into(),
                        message: format!("the engine's answer is not JSON text: {text}"),
                    })
                })?;
                // A document made before the engine's registration: once
                // with the engine's source.
                if v["missing"] == true && !full {
                    full = true;
                    continue;
                }
                return Ok(Returned::Answer(v));
            }
            return match result.object_id {
                Some(object) if result.subtype.as_deref() == Some("node") => {
                    Ok(Returned::Element(Node {
                        parent: scope.clone(),
                        session,
                        object,
                    }))
                }
                _ => Err(CallFailure::Failed(BrowserError::Command {
                    action: "calling the page's engine".into(),
                    message: format!(
                        "the engine answered a {} where its JSON text was expected",
                        result.kind
                    ),
                })),
            };
        }
    }

    async fn frame_scope(&self, iframe: Node, frame: &FrameScope) -> Result<Scope, CallFailure> {
        let (connection, page_session, _) = self.page.parts();
        let session = iframe.session.as_ref().unwrap_or(page_session);
        match frames::frame_of(connection, session, &iframe.object).await {
            Ok(id) => Ok(Some(Arc::new(Entered { frame: id, iframe }))),
            Err(FrameError::NotAFrame { node_name }) => {
                Err(CallFailure::Failed(BrowserError::Invalid {
                    message: format!(
                        "{} matches an element that is not a frame (an <iframe> or <frame> is needed; it is a <{node_name}>)",
                        frame.desc
                    ),
                    location: None,
                }))
            }
            Err(e) => Err(CallFailure::Failed(e.into())),
        }
    }

    /// The sum of the content-box offsets of the iframes entered, each in
    /// its parent's viewport: asked of each iframe element where it is
    /// (its parent's session), so that a cross-origin or out-of-process
    /// frame, which cannot see its own element, is placed as well.
    async fn frame_offset(&self, scope: &Scope) -> Result<(f64, f64), BrowserError> {
        let (mut x, mut y) = (0.0, 0.0);
        let mut at = scope.clone();
        while let Some(entered) = at {
            let (dx, dy) = self.content_box_offset(&entered.iframe).await?;
            (x, y) = (x + dx, y + dy);
            at = entered.iframe.parent.clone();
        }
        Ok((x, y))
    }
}

/// A call's error when the browser or the page went: it says what the
/// call was doing (the locator waited for), not which command was waiting.
fn lost_during(e: BrowserError, during: &str) -> BrowserError {
    match e {
        BrowserError::Lost {
            cause,
            detail,
            location,
            ..
        } => BrowserError::Lost {
            cause,
            during: during.to_string(),
            detail,
            location,
        },
        e => e,
    }
}

/// A page command's error as the page API says it.
fn page_error(e: PageError) -> BrowserError {
    e.into()
}

type Logs = (Vec<ConsoleEntry>, Vec<NetworkEntry>);

impl PageBackend for CdpBackend {
    fn watch_action(&self) -> ActionWatch {
        ActionWatch::Cdp(self.page.watch_action())
    }
    async fn after_action(&self, watch: ActionWatch, last: LastAnswer, limit: Duration) {
        if let ActionWatch::Cdp(watch) = watch {
            self.page.after_action(watch, last, limit).await;
        }
    }
    fn kind(&self) -> BrowserKind {
        BrowserKind::Chromium
    }
    async fn session_id(&self) -> Option<String> {
        Some(self.page.id().to_string())
    }
    fn webdriver(&self) -> Option<&Client> {
        None
    }
    async fn call_engine(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        walk::call(self, frame, call, during)
            .await
            .map_err(|e| lost_during(e, during))
    }
    async fn set_input_files(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        files: &[String],
        during: &str,
        _desc: &str,
    ) -> Result<Answer, BrowserError> {
        let element = match walk::element(self, frame, call, during).await? {
            Ok(element) => element,
            Err(answer) => return Ok(answer),
        };
        // DevTools takes absolute paths.
        let files: Vec<String> = files
            .iter()
            .map(|f| {
                std::path::absolute(f)
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| f.clone())
            })
            .collect();
        self.page
            .set_files(element.session.as_ref(), &element.object, &files)
            .await
            .map_err(page_error)?;
        Ok(Answer {
            result: Ok(json!({})),
            log: Vec::new(),
            traced: None,
            snapshot: None,
        })
    }
    async fn goto(&self, url: &str) -> Result<(), BrowserError> {
        self.page.navigate(url).await.map_err(BrowserError::from)
    }
    async fn reload(&self) -> Result<(), BrowserError> {
        self.page.reload().await.map_err(BrowserError::from)
    }
    async fn go(&self, to: History) -> Result<(), BrowserError> {
        let went = match to {
            History::Back => self.page.go_back().await,
            History::Forward => self.page.go_forward().await,
        };
        went.map(drop).map_err(BrowserError::from)
    }
    async fn url(&self) -> Result<String, BrowserError> {
        self.page.url().await.map_err(page_error)
    }
    async fn title(&self) -> Result<String, BrowserError> {
        self.page.title().await.map_err(page_error)
    }
    async fn html(&self) -> Result<String, BrowserError> {
        match self.page.evaluate(HTML_JS).await.map_err(page_error)? {
            Value::String(s) => Ok(s),
            other => Ok(other.to_string()),
        }
    }
    async fn evaluate(&self, js: &str, arg: Value) -> Result<Value, BrowserError> {
        let expression = format!(
            "(async (__hjArg) => {{ try {{ var f = (\n{js}\n);
  var v = typeof f === 'function' ? await f(__hjArg) : await f;
  return {{ok: true, v: v === undefined ? null : v}};
}} catch (e) {{ return {{ok: false, e: String(e && e.stack || e)}}; }} }})({arg})"
        );
        self.page.evaluate(&expression).await.map_err(page_error)
    }
    async fn eval(&self, js: &str) -> Result<Value, BrowserError> {
        let expression = format!(
            "(async function () {{ const v = await (function () {{\n{js}\n}}).call(this);
  return v === undefined ? null : v; }})()"
        );
        self.page.evaluate(&expression).await.map_err(page_error)
    }
    async fn wait_for_function(
        &self,
        js: &str,
        args: Value,
        _timeout_ms: u64,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        let expression = format!(
            "(async (__hjArg) => {{\n{}\nvar f = (\n{js}\n); var r;
try {{ r = await window.__harshjudgeEngine.waitForFunction(__hjArg, f); }}
catch (e) {{ r = {{ok: false, error: {{kind: 'js', message: String(e && e.message || e)}}, log: []}}; }}
return JSON.stringify(r); }})({args})",
            wire::install_source()
        );
        let v = self.page.evaluate(&expression).await.map_err(page_error)?;
        let v = match v {
            Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::Null),
            other => other,
        };
        decode(v, during)
    }
    async fn perform(&self, actions: Value, _during: &str) -> Result<(), BrowserError> {
        self.page.perform(&actions).await.map_err(page_error)
    }
    async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        self.page.insert_text(text).await.map_err(page_error)
    }
    async fn screenshot(&self, shot: Shot<'_>) -> Result<Vec<u8>, BrowserError> {
        let area = match shot {
            Shot::Viewport => Area::Viewport,
            Shot::FullPage => Area::Document,
            Shot::Clip(c) => Area::Clip(*c),
        };
        self.page.screenshot(area).await.map_err(page_error)
    }
    async fn set_viewport(&self, width: u32, height: u32) -> Result<(), BrowserError> {
        // A device's scale and mobile flag kept.
        let metrics = emulate::metrics(&self.context.emulation(), (width, height));
        let (connection, session, _) = self.page.parts();
        let set = connection.send(Some(session), &metrics).await.map(drop);
        *self.viewport.lock().unwrap_or_else(|p| p.into_inner()) =
            set.is_ok().then_some((width, height));
        set.map_err(BrowserError::from)
    }
    fn viewport(&self) -> Option<(u32, u32)> {
        *self.viewport.lock().unwrap_or_else(|p| p.into_inner())
    }
    fn emulation(&self) -> Emulation {
        self.context.emulation()
    }
    async fn apply_emulation(
        &self,
        wanted: &Emulation,
        _base_url: &str,
    ) -> Result<(), BrowserError> {
        let previous = self.context.emulation();
        let viewport = self.viewport().unwrap_or((1280, 720));
        // Permissions are the context's: granted once, by its first page.
        let context = (!self.popup).then(|| self.context.id());
        let page = &self.page;
        let target = emulate::Target {
            connection: &page.connection,
            session: &page.session,
            shared: &page.shared,
        };
        emulate::emulate(target, &previous, wanted, viewport, context, false).await?;
        self.context.set_emulation(wanted.clone());
        if let Some(v) = wanted.viewport {
            *self.viewport.lock().unwrap_or_else(|p| p.into_inner()) = Some(v);
        }
        Ok(())
    }
    async fn take_logs(&self) -> Result<Logs, BrowserError> {
        Ok(self.page.take_console_network().await)
    }
    async fn peek_logs(&self, pending: bool) -> Result<Logs, BrowserError> {
        // One round trip through the renderer: its events come before the answer.
        let _ = self.page.evaluate("0").await;
        Ok(self.page.peek_console_network(pending))
    }
    async fn cdp(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        let (connection, session, _) = self.page.parts();
        connection
            .send_raw(Some(session), method, &params)
            .await
            .map_err(|e| BrowserError::Command {
                action: format!("page.cdp({method:?})"),
                message: e.to_string(),
            })
    }
    async fn cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        Ok(self.context.cookies().await?)
    }
    async fn set_cookies(&self, cookies: &[Cookie], _base_url: &str) -> Result<(), BrowserError> {
        if cookies.is_empty() {
            return Ok(());
        }
        Ok(self.context.set_cookies(cookies).await?)
    }
    async fn store_cookies(&self, cookies: &[Cookie], base_url: &str) -> Result<(), BrowserError> {
        // An expired cookie set is a cookie deleted (its expiry in the past).
        let cookies: Vec<Cookie> = cookies
            .iter()
            .map(|c| {
                let mut c = c.clone();
                if c.expired() {
                    c.expires = 1.0;
                }
                c
            })
            .collect();
        self.set_cookies(&cookies, base_url).await
    }
    async fn open_url(&self, url: &str, _during: &str) -> Result<(), BrowserError> {
        match self.page.navigate(url).await {
            Ok(()) | Err(NavError::Interrupted { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
    async fn evaluate_aside(&self, url: &str, expression: &str) -> Result<String, BrowserError> {
        // A new target of the page's context: its own session and log.
        let aside = self.context.new_page().await?;
        let read = match aside.navigate(url).await {
            Ok(()) => aside.evaluate(expression).await.map_err(page_error),
            Err(e) => Err(e.into()),
        };
        let _ = aside.close().await;
        Ok(read?.as_str().unwrap_or_default().to_string())
    }
    async fn route<F, Fut>(
        &self,
        pattern: UrlPattern,
        base_url: &str,
        handler: F,
        _at: &'static Location<'static>,
    ) -> Result<(), BrowserError>
    where
        F: Fn(Route) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), BrowserError>> + Send + 'static,
    {
        Ok(self.page.route(pattern, base_url, handler).await?)
    }
    async fn unroute(
        &self,
        pattern: &UrlPattern,
        _at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        Ok(self.page.unroute(pattern).await.map(drop)?)
    }
    fn network_waiter(
        &self,
        matcher: Matcher,
        response: bool,
        _what: &str,
        _at: &'static Location<'static>,
    ) -> Result<oneshot::Receiver<Seen>, BrowserError> {
        Ok(self.page.step_log().waiter(matcher, response))
    }
    fn set_dialog_handler(
        &self,
        handler: Arc<Handler>,
        _at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        self.page.dialogs().set_handler(handler);
        Ok(())
    }
    fn set_dialog_recorder(&self, recorder: Arc<Recorder>) {
        self.page.dialogs().set_recorder(recorder);
    }
    async fn watch_downloads(&self, folder: &Path) -> Result<DownloadArm, BrowserError> {
        Ok(DownloadArm::Cdp(self.page.watch_downloads(folder).await?))
    }
    async fn end_downloads(&self) {
        // The watch's folder goes with its download: the context's
        // downloads go back to the browser's default.
        let _ = self.page.end_downloads().await;
    }
    async fn watch_popups(&self) -> Result<PopupArm, BrowserError> {
        Ok(PopupArm::Cdp(self.page.watch_popups()))
    }
    async fn next_popup(
        &self,
        arm: &mut PopupArm,
        wait: Duration,
    ) -> Result<CdpBackend, BrowserError> {
        let PopupArm::Cdp(watch) = arm else {
            return Err(page_backend::foreign_arm());
        };
        match watch.next(wait).await {
            Ok(page) => Ok(self.popup_of(page)),
            Err(PopupError::Timeout { waited }) => Err(page_backend::no_popup(
                "no popup opened by the page".into(),
                waited,
            )),
            Err(e) => Err(e.into()),
        }
    }
    async fn close(&self) -> Result<(), BrowserError> {
        if !self.popup {
            return Err(BrowserError::Invalid {
                message: "page.close() closes a popup's page (from wait_for_popup); the scenario's own page closes when the scenario ends".into(),
                location: None,
            });
        }
        Ok(self.page.close().await?)
    }
    async fn add_init_script(
        &self,
        source: &str,
        _what: &str,
        _at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        Ok(self.page.add_init_script(source).await?)
    }
    async fn screencast(&self) -> Result<Option<super::screencast::Screencast>, BrowserError> {
        let viewport = self.viewport().unwrap_or((1280, 720));
        let (page, frames) = (&self.page, &self.page.shared.screencast);
        let cast =
            super::screencast::Screencast::start(&page.connection, &page.session, frames, viewport);
        Ok(Some(cast.await?))
    }
    fn bodies(&self) -> Result<(), crate::backend::page_backend::NoBodies> {
        Ok(())
    }
    fn resource_request(&self, url: &str) -> Option<crate::steplog::Recorded> {
        self.page.step_log().resource(url)
    }
    async fn response_body(&self, request: &str) -> Result<Vec<u8>, BrowserError> {
        use base64::Engine as _;
        let (connection, session, _) = self.page.parts();
        let body = connection
            .send(
                Some(session),
                &super::protocol::GetResponseBody {
                    request_id: request,
                },
            )
            .await?;
        if !body.base64_encoded {
            return Ok(body.body.into_bytes());
        }
        base64::engine::general_purpose::STANDARD
            .decode(body.body.as_bytes())
            .map_err(|e| BrowserError::Command {
                action: "reading a response's body (Network.getResponseBody)".into(),
                message: format!("the body is not base64: {e}"),
            })
    }
}
