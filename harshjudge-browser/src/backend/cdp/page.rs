//! One page over the DevTools protocol: a target of a browser context,
//! attached by the root (`context.rs`) and paused until its init is sent, as
//! Playwright's `crPage.ts` (`FrameSession._initialize`): the domains, the
//! lifecycle events, the injected engine for every document, the viewport
//! and focus emulation, all sent at once and awaited together, then
//! `Runtime.runIfWaitingForDebugger`. Its session's events (and its
//! out-of-process iframes') are read by `readers.rs` into what the page's
//! methods read ([`Shared`]): frames' contexts, console and network, the
//! [`Lifecycle`] of navigations, routes and dialogs.
//!
//! The methods are shaped as `PageBackend`'s (`docs/design/backends.md`
//! §2.2) will be, so that step 9 only delegates to them.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::connection::{CdpError, Connection};
use super::downloads::{DownloadWatch, Downloads, FramesOf};
use super::frames::{Contexts, FrameError};
use super::input::{self, InputError, InputState};
use super::load_wait::{End, Lifecycle, LoadWait};
use super::popups::{PopupWatch, Popups};
use super::protocol::{
    AddScriptToEvaluateOnNewDocument, AttachedToTarget, BrowserContextId, CallArgument,
    CallFunctionOn, CloseTarget, Evaluate, Evaluated, GetFrameTree, GetNavigationHistory,
    InsertText, LogEnable, Navigate, NavigateToHistoryEntry, NetworkEnable, PageEnable, Reload,
    RunIfWaitingForDebugger, RuntimeEnable, SessionId, SetDeviceMetricsOverride, SetFileInputFiles,
    SetFocusEmulationEnabled, SetLifecycleEventsEnabled, TargetId,
};
use super::readers::{CHILDREN, Shared, read_page};
use super::screenshot::{self, Area, ScreenshotError};
use crate::dialogs::Dialogs;
use crate::emulation::Emulation;
use crate::error::BrowserError;
use crate::logs::{ConsoleEntry, NetworkEntry};
use crate::steplog::StepLog;
use crate::wire::{self, BidiReturns};

/// What a page is opened with.
#[derive(Clone, Debug)]
pub(crate) struct PageOptions {
    /// The viewport, CSS pixels.
    pub(crate) viewport: (u32, u32),
    /// How long a navigation may take to load.
    pub(crate) navigation_timeout: Duration,
    /// Applied before the page runs (a popup: its context's, `emulate.rs`).
    pub(crate) emulation: Emulation,
}

impl Default for PageOptions {
    fn default() -> PageOptions {
        PageOptions {
            viewport: (1280, 720),
            navigation_timeout: Duration::from_secs(30),
            emulation: Emulation::default(),
        }
    }
}

/// Why an engine call has no answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum CallError {
    /// The document it ran in went (a navigation): the caller may call again.
    #[error("the page navigated while the engine ran ({message})")]
    Navigated { message: String },
    /// The frame has no document to run in.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// The command failed.
    #[error(transparent)]
    Cdp(CdpError),
    /// The call's script threw (not the engine's own error, which it answers).
    #[error("the engine's call threw: {message}")]
    Thrown { message: String },
    /// The answer was not the engine's JSON text.
    #[error("the engine's answer is not JSON text: {answer}")]
    Answer { answer: String },
}

impl From<CdpError> for CallError {
    fn from(e: CdpError) -> Self {
        match e {
            CdpError::Navigated { message, .. } => CallError::Navigated { message },
            e => CallError::Cdp(e),
        }
    }
}

impl From<CallError> for BrowserError {
    fn from(e: CallError) -> Self {
        match e {
            CallError::Cdp(e) => e.into(),
            CallError::Frame(e) => e.into(),
            e => BrowserError::Command {
                action: "calling the page's engine".into(),
                message: e.to_string(),
            },
        }
    }
}

/// Why a navigation did not load.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum NavError {
    /// Another navigation replaced it before it loaded.
    #[error("navigating to {url} was interrupted by another navigation{}", by.as_ref().map(|b| format!(" to {b}")).unwrap_or_default())]
    Interrupted { url: String, by: Option<String> },
    /// The browser could not load it (`net::ERR_…`).
    #[error("navigating to {url} failed: {error_text}")]
    Failed { url: String, error_text: String },
    /// It did not load in time.
    #[error("navigating to {url} did not load within {} ms", after.as_millis())]
    Timeout { url: String, after: Duration },
    /// The page closed while it loaded.
    #[error("the page closed while navigating to {url}")]
    Closed { url: String },
    /// A command failed.
    #[error(transparent)]
    Cdp(#[from] CdpError),
}

impl From<NavError> for BrowserError {
    fn from(e: NavError) -> Self {
        match e {
            NavError::Cdp(e) => e.into(),
            // Worded as every backend words a failed `goto` (`opening URL: why`),
            // which the MCP server's `NAVIGATION_FAILED` reads.
            NavError::Failed { url, error_text } => BrowserError::Command {
                action: format!("opening {url}"),
                message: error_text,
            },
            NavError::Timeout { url, after } => BrowserError::Command {
                action: format!("opening {url}"),
                message: format!("it did not load within {} ms", after.as_millis()),
            },
            NavError::Closed { url } => BrowserError::Command {
                action: format!("opening {url}"),
                message: "the page closed while it loaded".into(),
            },
            NavError::Interrupted { url, by } => BrowserError::NavigationInterrupted {
                url,
                by: by.unwrap_or_else(|| "another URL".into()),
            },
        }
    }
}

/// Why a page command failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum PageError {
    #[error(transparent)]
    Cdp(#[from] CdpError),
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Screenshot(#[from] ScreenshotError),
    /// The page's script threw.
    #[error("the page's script threw: {message}")]
    Thrown { message: String },
}

impl From<PageError> for BrowserError {
    fn from(e: PageError) -> Self {
        match e {
            PageError::Cdp(e) => e.into(),
            PageError::Input(e) => e.into(),
            PageError::Screenshot(e) => e.into(),
            e @ PageError::Thrown { .. } => BrowserError::Command {
                action: "evaluating in the page".into(),
                message: e.to_string(),
            },
        }
    }
}

/// The page's document as HTML: its doctype, then its root element.
const CONTENT_JS: &str = "(() => { let s = ''; \
if (document.doctype) s = new XMLSerializer().serializeToString(document.doctype); \
if (document.documentElement) s += document.documentElement.outerHTML; return s; })()";

/// One page (see the module's doc).
#[derive(Debug)]
pub(crate) struct CdpPage {
    pub(super) connection: Arc<Connection>,
    pub(super) session: SessionId,
    target: TargetId,
    /// The main frame's id.
    pub(super) main_frame: String,
    pub(super) shared: Arc<Shared>,
    input: Mutex<InputState>,
    options: PageOptions,
    reader: JoinHandle<()>,
    /// Whether `Fetch` pauses the page's requests (`fetch.rs`).
    pub(super) fetch_on: tokio::sync::Mutex<bool>,
    /// Its browser context (none: the browser's default one).
    pub(super) context: Option<BrowserContextId>,
    /// The root reader's popups and downloads (`context.rs`).
    pub(super) popups: Arc<Popups<CdpPage>>,
    pub(super) downloads: Arc<Downloads>,
}

impl Drop for CdpPage {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl CdpPage {
    /// The page of a target attached (paused) by the root: its init sent at
    /// once and awaited together, then the target let run.
    pub(crate) async fn attach(
        connection: Arc<Connection>,
        attached: AttachedToTarget,
        options: PageOptions,
    ) -> Result<CdpPage, CdpError> {
        CdpPage::attach_with(connection, attached, options, Arc::default(), Vec::new()).await
    }

    /// [`CdpPage::attach`], its dialogs answered and recorded by `dialogs`
    /// (a popup: its opener's, as one WebDriver session's are), starting
    /// with the init scripts `scripts` (a popup: its opener's), sent after
    /// the engine, before it runs.
    pub(crate) async fn attach_with(
        connection: Arc<Connection>,
        attached: AttachedToTarget,
        options: PageOptions,
        dialogs: Arc<Dialogs>,
        scripts: Vec<Arc<str>>,
    ) -> Result<CdpPage, CdpError> {
        let session = attached.session_id;
        let shared = Arc::new(Shared::new(dialogs));
        for source in &scripts {
            shared.add_init_script(source);
        }
        let events = connection.events(Some(&session));
        let reader = tokio::spawn(read_page(
            events,
            shared.clone(),
            connection.clone(),
            session.clone(),
        ));
        let s = Some(&session);
        let c = &connection;
        let (width, height) = options.viewport;
        // Each `send` goes out when called, in this order; awaited together.
        let (enable, tree) = (c.send(s, &PageEnable {}), c.send(s, &GetFrameTree {}));
        let lifecycle_on = c.send(s, &SetLifecycleEventsEnabled { enabled: true });
        let runtime = c.send(s, &RuntimeEnable {});
        let (log, network) = (
            c.send(s, &LogEnable {}),
            c.send(s, &NetworkEnable::default()),
        );
        let engine = c.send(
            s,
            &AddScriptToEvaluateOnNewDocument {
                source: wire::install_source(),
                run_immediately: Some(true),
            },
        );
        let metrics = c.send(
            s,
            &SetDeviceMetricsOverride {
                width,
                height,
                device_scale_factor: 1.0,
                mobile: false,
            },
        );
        let inits = futures_util::future::join_all(scripts.iter().map(|source| {
            let add = AddScriptToEvaluateOnNewDocument {
                source,
                run_immediately: None,
            };
            c.send(s, &add)
        }));
        let focus = c.send(s, &SetFocusEmulationEnabled { enabled: true });
        // Its authentication challenges answered (`intercept.rs`), before
        // it runs (a popup's first document may be challenged).
        let challenges = c.send(s, &super::intercept::CHALLENGES_ONLY);
        let children = c.send(s, &CHILDREN);
        // A popup's emulation goes before it runs (its first document has
        // it), sent with the run after the init (`emulate.rs`).
        let fetch_on = tokio::sync::Mutex::new(false);
        let none = Emulation::default();
        let run = async {
            if options.emulation.is_default() {
                return c.send(s, &RunIfWaitingForDebugger {}).await.map(drop);
            }
            let target = super::emulate::Target {
                connection: c,
                session: &session,
                shared: &shared,
            };
            let (e, v) = (&options.emulation, options.viewport);
            let emulated = super::emulate::emulate(target, &none, e, v, None, true).await;
            emulated.map_err(|e| e.error)
        };
        let (a, tree, b, d, e, f, g, h, i, k, l, j, inits) = tokio::join!(
            enable,
            tree,
            lifecycle_on,
            runtime,
            log,
            network,
            engine,
            metrics,
            focus,
            children,
            challenges,
            run,
            inits
        );
        a.and(b)
            .and(d)
            .and(e)
            .and(f)
            .and(h)
            .and(i)
            .and(k)
            .and(l)
            .and(j)?;
        g?;
        for added in inits {
            added?;
        }
        let main_frame = tree?.frame_tree.frame.id;
        Ok(CdpPage {
            target: attached.target_info.target_id,
            connection,
            session,
            main_frame,
            shared,
            input: Mutex::new(InputState::default()),
            options,
            reader,
            fetch_on,
            context: attached.target_info.browser_context_id,
            popups: Arc::default(),
            downloads: Arc::default(),
        })
    }

    /// The page, its popups and downloads followed by the root reader's
    /// `popups` and `downloads` (`context.rs`).
    pub(super) fn rooted(
        mut self,
        popups: Arc<Popups<CdpPage>>,
        downloads: Arc<Downloads>,
    ) -> CdpPage {
        if let Some(context) = &self.context {
            let shared: Arc<dyn FramesOf> = self.shared.clone();
            downloads.page(&self.target, context, &shared);
        }
        popups.opener(
            &self.target,
            &self.shared.dialogs,
            &self.shared.init_scripts,
        );
        self.popups = popups;
        self.downloads = downloads;
        self
    }

    /// A wait for the next popup this page opens, armed now (before the
    /// action that opens it); the popup is a page of the same context.
    pub(crate) fn watch_popups(&self) -> PopupWatch<CdpPage> {
        self.popups.watch(&self.target)
    }

    /// Saves the downloads of the page's context in `folder` (as
    /// `<folder>/<guid>`) and watches them from now on.
    pub(crate) async fn watch_downloads(&self, folder: &Path) -> Result<DownloadWatch, CdpError> {
        let context = self
            .context
            .clone()
            .unwrap_or(BrowserContextId(String::new()));
        self.downloads
            .watch(&self.connection, &context, folder)
            .await
    }

    /// Points the downloads of the page's context back at the browser's
    /// default, once its watch ended (none other armed).
    pub(crate) async fn end_downloads(&self) -> Result<(), CdpError> {
        let context = self
            .context
            .clone()
            .unwrap_or(BrowserContextId(String::new()));
        self.downloads.end(&self.connection, &context).await
    }

    /// Its session (`Page::session_id`).
    pub(crate) fn id(&self) -> &str {
        &self.session.0
    }

    /// Its target.
    pub(crate) fn target(&self) -> &TargetId {
        &self.target
    }

    /// Its connection, session and frames' contexts (`cdp/backend.rs`).
    pub(crate) fn parts(&self) -> (&Arc<Connection>, &SessionId, &Contexts) {
        (&self.connection, &self.session, &self.shared.contexts)
    }

    /// What [`CdpPage::take_console_network`] would give, left in place.
    pub(crate) fn peek_console_network(
        &self,
        pending: bool,
    ) -> (Vec<ConsoleEntry>, Vec<NetworkEntry>) {
        self.shared.log().peek(pending)
    }

    /// The steps of its frames' navigations from now on.
    pub(crate) fn lifecycle(&self) -> broadcast::Receiver<Lifecycle> {
        self.shared.lifecycle.subscribe()
    }

    /// The injected engine's answer to `request` (a `Call` as JSON text),
    /// as the engine wrote it (`Answer::decode` reads it), in the top
    /// document or in `frame`'s default world (waiting up to `wait` for the
    /// frame to have one). The engine is installed in every document; a
    /// document that lacks it still (made before the init) gets it first.
    pub(crate) async fn call_engine(
        &self,
        frame: Option<&str>,
        request: &str,
        wait: Duration,
    ) -> Result<Value, CallError> {
        let deadline = Instant::now() + wait;
        let mut answer = self.run_engine(frame, request, false, deadline).await?;
        if answer["missing"] == true {
            answer = self.run_engine(frame, request, true, deadline).await?;
        }
        Ok(answer)
    }

    /// One round trip of [`CdpPage::call_engine`].
    async fn run_engine(
        &self,
        frame: Option<&str>,
        request: &str,
        full: bool,
        deadline: Instant,
    ) -> Result<Value, CallError> {
        let function = wire::bidi_function(full, BidiReturns::Answer);
        let s = Some(&self.session);
        let evaluated = match frame {
            None => {
                let arg = Value::String(request.to_string());
                let expression = format!("({function})({arg})");
                let evaluate = Evaluate {
                    expression: &expression,
                    await_promise: true,
                    return_by_value: true,
                    context_id: None,
                };
                self.connection.send(s, &evaluate).await?
            }
            Some(frame) => {
                let context = self
                    .shared
                    .contexts
                    .wait_default_of(frame, deadline)
                    .await?;
                let arg = Value::String(request.to_string());
                let call = CallFunctionOn {
                    function_declaration: function,
                    object_id: None,
                    execution_context_id: Some(context.id),
                    arguments: &[CallArgument::Value(&arg)],
                    await_promise: true,
                    return_by_value: true,
                };
                let s = context.session.as_ref().or(s);
                self.connection.send(s, &call).await?
            }
        };
        if let Some(e) = &evaluated.exception_details {
            return Err(CallError::Thrown {
                message: e.message().to_string(),
            });
        }
        match evaluated.result.value {
            Some(Value::String(text)) => {
                serde_json::from_str(&text).map_err(|_| CallError::Answer { answer: text })
            }
            other => Err(CallError::Answer {
                answer: other.map_or_else(|| "undefined".into(), |v| v.to_string()),
            }),
        }
    }

    /// Navigates the page to `url`; done when that navigation's document
    /// loaded (`Page.lifecycleEvent` `load` of its loader); another document
    /// in its place is [`NavError::Interrupted`] (`wait_load`).
    pub(crate) async fn navigate(&self, url: &str) -> Result<(), NavError> {
        let mut events = self.lifecycle();
        // Read after subscribing: a commit after this is in `events`.
        let left = self.shared.document();
        let navigated = self
            .connection
            .send(Some(&self.session), &Navigate { url })
            .await?;
        if let Some(error_text) = navigated.error_text.filter(|e| !e.is_empty()) {
            return Err(if error_text.contains("ERR_ABORTED") {
                NavError::Interrupted {
                    url: url.to_string(),
                    by: None,
                }
            } else {
                NavError::Failed {
                    url: url.to_string(),
                    error_text,
                }
            });
        }
        match navigated.loader_id {
            // Within the document: nothing loads.
            None => Ok(()),
            Some(loader) => {
                let wait = LoadWait::for_loader(Some(loader), left);
                self.wait_load(&mut events, wait, url).await
            }
        }
    }

    /// Reloads the page, until its new document loaded.
    pub(crate) async fn reload(&self) -> Result<(), NavError> {
        let mut events = self.lifecycle();
        self.connection
            .send(Some(&self.session), &Reload {})
            .await?;
        let wait = LoadWait::for_loader(None, None);
        self.wait_load(&mut events, wait, "the page again").await
    }

    /// Goes back in the history; false when there is no entry before.
    pub(crate) async fn go_back(&self) -> Result<bool, NavError> {
        self.go_history(-1).await
    }

    /// Goes forward in the history; false when there is no entry after.
    pub(crate) async fn go_forward(&self) -> Result<bool, NavError> {
        self.go_history(1).await
    }

    async fn go_history(&self, delta: isize) -> Result<bool, NavError> {
        let s = Some(&self.session);
        let history = self.connection.send(s, &GetNavigationHistory {}).await?;
        let Some(entry) = history
            .current_index
            .checked_add_signed(delta)
            .and_then(|i| history.entries.get(i))
        else {
            return Ok(false);
        };
        let mut events = self.lifecycle();
        let to = NavigateToHistoryEntry { entry_id: entry.id };
        self.connection.send(s, &to).await?;
        let wait = LoadWait::for_history(&entry.url);
        self.wait_load(&mut events, wait, &entry.url).await?;
        Ok(true)
    }

    /// Waits until the main frame loaded `loader`'s document (none: the
    /// first one it commits; a navigation within the document also ends
    /// it then), or the document that document navigated to on its own;
    /// another document in its place is [`NavError::Interrupted`], its
    /// request failing [`NavError::Failed`] (`load_wait.rs` judges).
    async fn wait_load(
        &self,
        events: &mut broadcast::Receiver<Lifecycle>,
        mut wait: LoadWait,
        url: &str,
    ) -> Result<(), NavError> {
        let after = self.options.navigation_timeout;
        let deadline = Instant::now() + after;
        let main = self.main_frame.as_str();
        loop {
            let event = match tokio::time::timeout_at(deadline, events.recv()).await {
                Err(_) => {
                    let url = url.to_string();
                    return Err(match wait.overtaken_by() {
                        Some(by) => NavError::Interrupted {
                            url,
                            by: Some(by.to_string()),
                        },
                        None => NavError::Timeout { url, after },
                    });
                }
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
                Ok(Err(broadcast::error::RecvError::Closed) | Ok(Lifecycle::Closed)) => {
                    return Err(NavError::Closed {
                        url: url.to_string(),
                    });
                }
                Ok(Ok(e)) => e,
            };
            match wait.step(event, main) {
                Some(End::Loaded) => return Ok(()),
                Some(End::Interrupted { by }) => {
                    return Err(NavError::Interrupted {
                        url: url.to_string(),
                        by: Some(by),
                    });
                }
                Some(End::Failed { error }) => {
                    return Err(NavError::Failed {
                        url: url.to_string(),
                        error_text: error,
                    });
                }
                None => {}
            }
        }
    }

    /// Evaluates `expression` in the top document (a promise awaited), its
    /// value as JSON (`undefined` and what JSON cannot hold: null).
    pub(crate) async fn evaluate(&self, expression: &str) -> Result<Value, PageError> {
        let evaluated: Evaluated = self
            .connection
            .send(
                Some(&self.session),
                &Evaluate {
                    expression,
                    await_promise: true,
                    return_by_value: true,
                    context_id: None,
                },
            )
            .await?;
        if let Some(e) = &evaluated.exception_details {
            return Err(PageError::Thrown {
                message: e.message().to_string(),
            });
        }
        Ok(evaluated.result.value.unwrap_or(Value::Null))
    }

    /// The text `expression` evaluates to.
    async fn text(&self, expression: &str) -> Result<String, PageError> {
        Ok(match self.evaluate(expression).await? {
            Value::String(s) => s,
            other => other.to_string(),
        })
    }

    /// The top document's URL.
    pub(crate) async fn url(&self) -> Result<String, PageError> {
        self.text("location.href").await
    }

    /// The top document's title.
    pub(crate) async fn title(&self) -> Result<String, PageError> {
        self.text("document.title").await
    }

    /// The top document as HTML (its doctype, then its root element).
    pub(crate) async fn content(&self) -> Result<String, PageError> {
        self.text(CONTENT_JS).await
    }

    /// Performs W3C action sequences (`cdp/input.rs`).
    pub(crate) async fn perform(&self, actions: &Value) -> Result<(), PageError> {
        let steps = {
            let mut state = self.input.lock().unwrap_or_else(|p| p.into_inner());
            input::plan(&mut state, actions)?
        };
        Ok(input::run(&self.connection, &self.session, &steps).await?)
    }

    /// Types `text` as an input method commits it (no key events).
    pub(crate) async fn insert_text(&self, text: &str) -> Result<(), PageError> {
        let text = text.to_string();
        let insert = InsertText { text };
        self.connection.send(Some(&self.session), &insert).await?;
        Ok(())
    }

    /// Sets the files of the `<input type=file>` of `object_id`, an object
    /// of `session` (none: the page's own; else an iframe's).
    pub(crate) async fn set_files(
        &self,
        session: Option<&SessionId>,
        object_id: &str,
        files: &[String],
    ) -> Result<(), PageError> {
        let set = SetFileInputFiles { files, object_id };
        let session = session.unwrap_or(&self.session);
        self.connection.send(Some(session), &set).await?;
        Ok(())
    }

    /// A PNG of `area` (`cdp/screenshot.rs`). Chromium never answers a
    /// capture that a commit of the main frame overtakes (its copy request
    /// went with the document's widget: a screenshot right after a click
    /// whose script then navigates): such a capture is asked again of the
    /// new document (once it has a widget: until then the browser says "Not
    /// attached to an active page"). One with no answer within
    /// [`CAPTURE_LIMIT`] is asked once more, then an error.
    pub(crate) async fn screenshot(&self, area: Area) -> Result<Vec<u8>, PageError> {
        let (mut commits, mut silent) = (0, 0);
        loop {
            let mut events = self.lifecycle();
            let capture = screenshot::screenshot(&self.connection, &self.session, area);
            let main = self.main_frame.as_str();
            let overtaken = async {
                loop {
                    match events.recv().await {
                        Ok(Lifecycle::Committed { frame, .. }) if frame == main => return,
                        Err(broadcast::error::RecvError::Closed) | Ok(Lifecycle::Closed) => {
                            std::future::pending::<()>().await
                        }
                        _ => {}
                    }
                }
            };
            tokio::select! {
                shot = capture => match shot {
                    // Between the commit and the new document's widget.
                    Err(ScreenshotError::Cdp(CdpError::Protocol { message, .. }))
                        if message.contains("Not attached to an active page") && commits < 20 =>
                    {
                        commits += 1;
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    shot => return Ok(shot?),
                },
                () = overtaken, if commits < 20 => commits += 1,
                () = tokio::time::sleep(CAPTURE_LIMIT) => {
                    silent += 1;
                    if silent == 2 {
                        let waited = CAPTURE_LIMIT * 2;
                        return Err(ScreenshotError::NoAnswer { waited }.into());
                    }
                }
            }
        }
    }

    /// Sets the viewport to `width`×`height` CSS pixels.
    pub(crate) async fn set_viewport(&self, width: u32, height: u32) -> Result<(), PageError> {
        Ok(screenshot::set_viewport(&self.connection, &self.session, width, height).await?)
    }

    /// The step's console and network (`cdp/events.rs`): its waiters of
    /// requests and responses, its peeks.
    /// Runs `source` in every new document of the page and of its
    /// out-of-process iframes, before their own scripts (not in the
    /// documents there now).
    pub(crate) async fn add_init_script(&self, source: &str) -> Result<(), CdpError> {
        let children = self.shared.add_init_script(source);
        let add = AddScriptToEvaluateOnNewDocument {
            source,
            run_immediately: None,
        };
        for child in &children {
            // An iframe gone meanwhile: nothing to do.
            let _ = self.connection.send(Some(child), &add).await;
        }
        self.connection.send(Some(&self.session), &add).await?;
        Ok(())
    }

    pub(crate) fn step_log(&self) -> &Arc<StepLog> {
        &self.shared.log
    }

    /// The page's dialog handling (`cdp/dialog.rs`).
    pub(crate) fn dialogs(&self) -> &Arc<Dialogs> {
        &self.shared.dialogs
    }

    /// The console and the network since the last take, at a step boundary
    /// ([`StepLog::take`]: requests in flight get a short while to finish).
    pub(crate) async fn take_console_network(&self) -> (Vec<ConsoleEntry>, Vec<NetworkEntry>) {
        self.shared.log.take().await
    }

    /// Closes the page's target.
    pub(crate) async fn close(&self) -> Result<(), CdpError> {
        let close = CloseTarget {
            target_id: &self.target,
        };
        self.connection.send(None, &close).await.map(drop)
    }
}

/// How long a capture may go unanswered, no navigation in between, before
/// it is asked again (one takes well under a second).
const CAPTURE_LIMIT: Duration = Duration::from_secs(5);

#[cfg(test)]
#[path = "page_tests.rs"]
mod tests;
