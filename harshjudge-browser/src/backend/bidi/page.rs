//! The BiDi page's [`PageBackend`] implementation: navigation, reads,
//! scripts, input, screenshots, the viewport, console and network, routes
//! and dialogs, each one BiDi command (or a few) on the page's context.

use std::future::Future;
use std::panic::Location;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use fantoccini::Client;
use serde_json::Value;
use tokio::sync::oneshot;

use super::BidiPage;
use crate::backend::page_backend::{
    ActionWatch, DownloadArm, History, LastAnswer, PageBackend, PopupArm, Shot,
};
use crate::backend::walk;
use crate::bidi::protocol::{AddPreloadScript, Origin, SetViewport, Viewport};
use crate::config::BrowserKind;
use crate::cookies::Cookie;
use crate::dialogs::{Handler, Recorder};
use crate::emulation::Emulation;
use crate::engine::decode;
use crate::engines;
use crate::error::BrowserError;
use crate::glob::{Matcher, UrlPattern};
use crate::logs::{ConsoleEntry, NetworkEntry};
use crate::protocol::{Answer, Call, FrameScope};
use crate::routes::Route;
use crate::steplog::Seen;
use crate::wire;

/// The page's HTML, as the drivers' Get Page Source serialise it (the
/// document element's markup, no doctype).
const HTML_JS: &str = "document.documentElement ? document.documentElement.outerHTML : new XMLSerializer().serializeToString(document)";

type Logs = (Vec<ConsoleEntry>, Vec<NetworkEntry>);

impl PageBackend for BidiPage {
    fn kind(&self) -> BrowserKind {
        self.browser
    }
    async fn session_id(&self) -> Option<String> {
        self.client.session_id().await.ok().flatten()
    }
    fn webdriver(&self) -> Option<&Client> {
        Some(&self.client)
    }
    fn watch_action(&self) -> ActionWatch {
        ActionWatch::Bidi(self.bidi.navigations_under_way())
    }
    async fn after_action(&self, watch: ActionWatch, last: LastAnswer, limit: Duration) {
        if let ActionWatch::Bidi(before) = watch {
            self.bidi
                .after_action(&self.context, before, last, limit)
                .await;
        }
    }

    async fn call_engine(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        walk::call(self, frame, call, during).await
    }

    async fn set_input_files(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        files: &[String],
        during: &str,
        desc: &str,
    ) -> Result<Answer, BrowserError> {
        let (scope, node) = match walk::element(self, frame, call, during).await? {
            Ok(found) => found,
            // A timeout or the engine's error: told by the caller.
            Err(answer) => return Ok(answer),
        };
        if node.is_empty() {
            return Err(BrowserError::Invalid {
                message: format!("{desc}: no element came back"),
                location: None,
            });
        }
        let setting = format!("setting the files of {desc}");
        self.bidi
            .set_files(scope.context(), &node, files, &setting)
            .await?;
        Ok(Answer {
            result: Ok(serde_json::json!({})),
            log: Vec::new(),
            traced: None,
            snapshot: None,
        })
    }

    async fn goto(&self, url: &str) -> Result<(), BrowserError> {
        let during = format!("opening {url}");
        let open = self.bidi.navigate(&self.context, Some(url), &during);
        self.bidi.watch_navigation(&self.context, url, open).await
    }
    async fn reload(&self) -> Result<(), BrowserError> {
        self.bidi
            .navigate(&self.context, None, "reloading the page")
            .await
    }
    async fn go(&self, to: History) -> Result<(), BrowserError> {
        let (delta, during) = match to {
            History::Back => (-1, "going back"),
            History::Forward => (1, "going forward"),
        };
        self.bidi.traverse(&self.context, delta, during).await
    }

    async fn url(&self) -> Result<String, BrowserError> {
        self.settle().await;
        self.bidi.url(&self.context, "reading the URL").await
    }
    async fn title(&self) -> Result<String, BrowserError> {
        self.settle().await;
        self.bidi
            .read(&self.context, "document.title", "reading the title")
            .await
    }
    async fn html(&self) -> Result<String, BrowserError> {
        self.settle().await;
        self.bidi
            .read(&self.context, HTML_JS, "reading the HTML")
            .await
    }

    async fn evaluate(&self, js: &str, arg: Value) -> Result<Value, BrowserError> {
        self.settle().await;
        let function = format!(
            "async function (__hjArg) {{ try {{ var f = (\n{js}\n);
  var v = typeof f === 'function' ? await f(JSON.parse(__hjArg)) : await f;
  return JSON.stringify({{ok: true, v: v === undefined ? null : v}});
}} catch (e) {{ return JSON.stringify({{ok: false, e: String(e && e.stack || e)}}); }} }}"
        );
        self.bidi
            .call_function(
                &self.context,
                &function,
                &arg.to_string(),
                self.script_limit(),
                "running JavaScript (evaluate)",
            )
            .await
    }
    async fn eval(&self, js: &str) -> Result<Value, BrowserError> {
        self.settle().await;
        // A throw fails as a classic command's does (a Command error,
        // "javascript error: …").
        let function = format!(
            "async function () {{ const v = await (function () {{\n{js}\n}}).call(this);
  return v === undefined ? null : JSON.stringify(v); }}"
        );
        self.bidi
            .call_function(
                &self.context,
                &function,
                "",
                self.script_limit(),
                "running JavaScript",
            )
            .await
    }
    async fn wait_for_function(
        &self,
        js: &str,
        args: Value,
        timeout_ms: u64,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        self.settle().await;
        let function = format!(
            "async function (__hjArg) {{\n{}\nvar f = (\n{js}\n); var r;
try {{ r = await window.__harshjudgeEngine.waitForFunction(JSON.parse(__hjArg), f); }}
catch (e) {{ r = {{ok: false, error: {{kind: 'js', message: String(e && e.message || e)}}, log: []}}; }}
return JSON.stringify(r); }}",
            wire::install_source()
        );
        let limit = Duration::from_millis(timeout_ms) + Duration::from_secs(15);
        let v = self
            .bidi
            .call_function(&self.context, &function, &args.to_string(), limit, during)
            .await?;
        decode(v, during)
    }

    async fn perform(&self, actions: Value, during: &str) -> Result<(), BrowserError> {
        self.perform_input(actions, during).await
    }
    async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        self.settle().await;
        // In the frame of another site that holds the focus, if one does:
        // the page's script cannot reach into its document.
        let focused = self.focused_context().await;
        self.bidi
            .call_function(
                &focused,
                engines::INSERT_TEXT,
                text,
                self.script_limit(),
                "inserting text",
            )
            .await
            .map(drop)
    }

    async fn screenshot(&self, shot: Shot<'_>) -> Result<Vec<u8>, BrowserError> {
        self.settle().await;
        let (origin, clip, during) = match shot {
            Shot::Viewport => (Origin::Viewport, None, "taking a screenshot"),
            Shot::FullPage => (Origin::Document, None, "taking a full-page screenshot"),
            Shot::Clip(b) => (
                Origin::Document,
                Some(engines::box_clip(b)),
                "taking a screenshot of part of the page",
            ),
        };
        self.bidi.capture(&self.context, origin, clip, during).await
    }
    async fn set_viewport(&self, width: u32, height: u32) -> Result<(), BrowserError> {
        let params = SetViewport {
            context: &self.context,
            viewport: Viewport { width, height },
        };
        let set = self.bidi.command(&params).await.map(drop);
        if let Some(s) = self.session.lock().expect("session lock").as_mut() {
            s.viewport = set.is_ok().then_some((width, height));
        }
        set
    }
    fn emulation(&self) -> Emulation {
        self.emulation.lock().expect("emulation lock").clone()
    }
    async fn apply_emulation(
        &self,
        wanted: &Emulation,
        base_url: &str,
    ) -> Result<(), BrowserError> {
        self.apply(wanted, &origin_of(base_url)).await
    }
    fn viewport(&self) -> Option<(u32, u32)> {
        self.session
            .lock()
            .expect("session lock")
            .as_ref()
            .and_then(|s| s.viewport)
    }

    async fn take_logs(&self) -> Result<Logs, BrowserError> {
        // No round trip: the caller took the boundary's screenshot first,
        // by which time the page's earlier events have arrived.
        Ok(self.bidi.log.take().await)
    }
    async fn peek_logs(&self, pending: bool) -> Result<Logs, BrowserError> {
        // One round trip through the page's renderer: its events come
        // before the answer.
        self.bidi.flush(&self.context).await;
        Ok(self.bidi.log.peek(pending))
    }
    async fn cdp(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        self.goog_cdp(method, params).await
    }

    async fn cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        BidiPage::cookies(self).await
    }
    async fn set_cookies(&self, cookies: &[Cookie], _base_url: &str) -> Result<(), BrowserError> {
        BidiPage::set_cookies(self, cookies).await
    }
    async fn store_cookies(&self, cookies: &[Cookie], _base_url: &str) -> Result<(), BrowserError> {
        BidiPage::store_cookies(self, cookies).await
    }
    async fn open_url(&self, url: &str, during: &str) -> Result<(), BrowserError> {
        self.bidi.navigate(&self.context, Some(url), during).await
    }
    async fn evaluate_aside(&self, url: &str, expression: &str) -> Result<String, BrowserError> {
        BidiPage::evaluate_aside(self, url, expression).await
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
        self.bidi.route(pattern, base_url, handler).await
    }
    async fn unroute(
        &self,
        pattern: &UrlPattern,
        _at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        self.bidi.unroute(pattern).await.map(drop)
    }
    fn network_waiter(
        &self,
        matcher: Matcher,
        response: bool,
        _what: &str,
        _at: &'static Location<'static>,
    ) -> Result<oneshot::Receiver<Seen>, BrowserError> {
        Ok(self.bidi.log.waiter(matcher, response))
    }
    fn set_dialog_handler(
        &self,
        handler: Arc<Handler>,
        _at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        self.bidi.dialogs.set_handler(handler);
        Ok(())
    }
    fn set_dialog_recorder(&self, recorder: Arc<Recorder>) {
        self.bidi.dialogs.set_recorder(recorder);
    }

    async fn watch_downloads(&self, folder: &Path) -> Result<DownloadArm, BrowserError> {
        self.downloads_to(Some(&folder.display().to_string()))
            .await?;
        Ok(DownloadArm::Folder(folder.to_path_buf()))
    }
    async fn end_downloads(&self) {
        let _ = self.downloads_to(None).await;
    }
    async fn watch_popups(&self) -> Result<PopupArm, BrowserError> {
        Ok(PopupArm::Windows(self.top_contexts().await?))
    }
    async fn next_popup(
        &self,
        arm: &mut PopupArm,
        wait: Duration,
    ) -> Result<BidiPage, BrowserError> {
        let context = self.next_popup_context(arm, wait).await?;
        Ok(self.popup_page(context))
    }
    async fn close(&self) -> Result<(), BrowserError> {
        self.close_popup().await
    }
    async fn add_init_script(
        &self,
        source: &str,
        what: &str,
        _at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        // The page's user context (the scenario's own: a pooled session's
        // next scenario gets a new one, its tab there, `reuse.rs`; a fresh
        // session's first is in `default`, which no later tab uses), so
        // that its popups, new top-level contexts, run it from their first
        // document as the page's frames do; a popup's page, or a tab the
        // tree names no user context of: its own top-level context.
        let user_context = match self.popup {
            false => self.tab_user_context().await?,
            true => None,
        };
        let (contexts, user_contexts) = match user_context {
            Some(u) => (None, Some(vec![u])),
            None => (Some(vec![self.context.clone()]), None),
        };
        let script = AddPreloadScript {
            function_declaration: format!("function () {{\n{source}\n}}"),
            contexts,
            user_contexts,
        };
        self.bidi
            .command(&script)
            .await
            .map(|_| ())
            .map_err(|e| match e {
                BrowserError::Command { message, .. } => BrowserError::Command {
                    action: format!("{what} (adding a preload script)"),
                    message,
                },
                e => e,
            })
    }
    async fn keep_response_bodies(&self) {
        self.bidi.collect_bodies().await;
    }
    fn bodies(&self) -> Result<(), crate::backend::page_backend::NoBodies> {
        self.bidi.bodies().map(drop)
    }
    fn resource_request(&self, url: &str) -> Option<crate::steplog::Recorded> {
        self.bidi.log.resource(url)
    }
    async fn response_body(&self, request: &str) -> Result<Vec<u8>, BrowserError> {
        self.bidi.response_body(request).await
    }
}

/// The origin of `url` (`http://127.0.0.1:8001` of `http://127.0.0.1:8001/a`).
fn origin_of(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
            format!("{scheme}://{host}")
        }
        None => url.to_string(),
    }
}
