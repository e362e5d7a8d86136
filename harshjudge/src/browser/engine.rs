//! [`Engine`]: the calls of the engine injected into the page, over one
//! session's client: the script timeout each wait needs, the engine registered
//! for every new document, a call repeated in the new document when a
//! navigation interrupts it, and the page's answer turned into a value or a
//! located [`BrowserError`] (the one place an [`EngineError`] becomes one).

use std::future::Future;
use std::panic::Location;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fantoccini::Client;
use serde_json::{Value, json};

use super::bidi::Bidi;
use super::config::BrowserKind;
use super::driver::DriverWatch;
use super::error::BrowserError;
use super::protocol::{Acted, Action, Answer, Call, EngineError, FrameScope, Request, Target};
use super::session::Session;
use super::wire::{self, BidiReturns, cdp};

/// The offset of the current frame's viewport in the top document's (CSS
/// pixels): each frame element's box, border and padding, up to the top.
pub(crate) const FRAME_OFFSET_JS: &str = "let x = 0, y = 0, w = window;
while (w.frameElement) {
  const f = w.frameElement, r = f.getBoundingClientRect(), s = w.parent.getComputedStyle(f);
  x += r.left + f.clientLeft + parseFloat(s.paddingLeft || '0');
  y += r.top + f.clientTop + parseFloat(s.paddingTop || '0');
  w = w.parent;
}
return [x, y];";

/// The engine of one page's session. Locators, assertions and the page's
/// waits call it; it knows nothing of them.
pub(crate) struct Engine {
    client: Client,
    /// The session's script timeout as last set (ms).
    script_timeout: AtomicU64,
    /// Whether this engine made sure of the registration (or has none).
    registered: AtomicBool,
    /// Whether the engine is registered for every new document of the
    /// session: the session's flag, kept across its pooled pages.
    session_registered: Arc<AtomicBool>,
    /// The driver the session's commands go to (none: a remote one).
    driver: Option<DriverWatch>,
    /// Held by every call: a call in a frame or in a popup's window switches
    /// the session there and back under it, so that no other call of the
    /// session (of this page or its popups) runs in between. The session rests
    /// on the main window's top document.
    switching: Arc<tokio::sync::Mutex<()>>,
    /// The window of a popup's page (none: the session's main window).
    window: Option<String>,
    /// The session's WebDriver BiDi connection, if it has one.
    bidi: Option<Arc<Bidi>>,
    /// The session's browser.
    browser: BrowserKind,
}

impl Engine {
    pub(crate) fn new(session: &Session) -> Engine {
        Engine {
            client: session.client.clone(),
            script_timeout: AtomicU64::new(session.script_timeout),
            registered: AtomicBool::new(false),
            session_registered: session.registered.clone(),
            driver: session.driver,
            switching: Arc::default(),
            window: None,
            bidi: session.bidi.clone(),
            browser: session.browser,
        }
    }

    /// `e` with the session's driver's exit as its cause, when that is why
    /// the command lost its connection ([`DriverWatch::explain`]).
    pub(crate) fn explain(&self, e: BrowserError) -> BrowserError {
        match &self.driver {
            Some(d) => d.explain(e),
            None => e,
        }
    }

    /// The BiDi connection and this engine's browsing context (a popup's
    /// window handle is its context id) when the page's input goes over
    /// WebDriver BiDi: while the page has routes. A classic command sent
    /// while a navigation waits for a route's answer waits in chromedriver
    /// behind that navigation (its Perform Actions until the load; any other
    /// command too), and only a BiDi command, answered while the navigation
    /// waits, can settle the route. Over BiDi neither the input nor the
    /// engine's calls wait for a navigation they start.
    pub(crate) fn bidi_input(&self) -> Option<(&Arc<Bidi>, String)> {
        let bidi = self.bidi.as_ref()?;
        if bidi.routes.is_empty() || !bidi.is_open() {
            return None;
        }
        self.context_of(bidi)
    }

    /// Makes chromedriver catch up with the last load of this engine's
    /// window, when the page has routes on Chromium and chromedriver may not
    /// have caught up yet ([`Bidi::catch_up_due`]): before whatever may
    /// start a navigation over BiDi onto a routed document (a `goto` whose
    /// URL a route matches, a reload, a step through history, an action, an
    /// engine call, a read).
    ///
    /// chromedriver learns of a load from its own DevTools session, which
    /// may hear of it later than the BiDi mapper does (30 ms and more on a
    /// busy machine), and on hearing it reads the document's `readyState`,
    /// waiting for the answer. Once a new navigation has started and its
    /// document is held by a route, that read is never answered, and
    /// chromedriver forwards no BiDi command meanwhile, the route's answer
    /// among them: the page hung until the step's limit (`goto` then `goto`
    /// onto a routed document: `held_viewport` in `tests/routed_state.rs`,
    /// about 1 run in 10; `navigation_after_a_load` in
    /// `tests/routed_input.rs`).
    ///
    /// A classic command makes chromedriver take in what its session has
    /// heard, that load included, before it answers: `GET url` does, at the
    /// cost of one round trip per load. It is sent only when nothing is
    /// under way that it would wait for (a navigation, a route's answer),
    /// and its failure is the next command's to report. Not after our own
    /// navigations: on a page that navigates itself, each such command
    /// waited for the page's next navigation (`goto_while_a_routed_page_navigates`
    /// in `tests/routed_input.rs` went past its step's limit on a busy
    /// machine).
    ///
    /// A page whose own script navigates onto a routed document within
    /// milliseconds of its load can still meet that late read: only a
    /// page-load strategy of `none` would take chromedriver's tracker out of
    /// the way, and every classic command on Chromium would then stop
    /// waiting for navigations.
    pub(crate) async fn catch_up(&self) {
        if self.browser != BrowserKind::Chromium {
            return;
        }
        let Some((bidi, context)) = self.bidi_input() else {
            return;
        };
        if bidi.catch_up_due(&context) {
            // Boxed: every call awaits this, and a debug build's test thread
            // has 2 MiB of stack (an expectation's future overflowed it).
            let _ = Box::pin(self.in_window(wire::get(
                &self.client,
                "url",
                "letting chromedriver catch up with the page's load",
            )))
            .await;
        }
    }

    /// The BiDi connection, while it is open, and this engine's browsing
    /// context: whatever the page's calls go over, its events are watched
    /// through it (a `goto` interrupted by another navigation).
    pub(crate) fn bidi_events(&self) -> Option<(&Arc<Bidi>, String)> {
        let bidi = self.bidi.as_ref()?;
        if !bidi.is_open() {
            return None;
        }
        self.context_of(bidi)
    }

    /// The BiDi connection and this engine's browsing context when its calls
    /// go over BiDi (`script.callFunction`): while the page has routes (as
    /// [`Engine::bidi_input`]), and always on Firefox, whose classic async
    /// scripts may lose their callback when their document goes away
    /// (geckodriver then answers at the script timeout); over BiDi a call
    /// ends as a navigation as soon as its document is gone
    /// ([`Bidi::call_function`]). The page's reads and screenshots go the
    /// same way (`Page::settled` in `page.rs`).
    pub(crate) fn bidi_calls(&self) -> Option<(&Arc<Bidi>, String)> {
        let bidi = self.bidi.as_ref()?;
        if self.browser != BrowserKind::Firefox && bidi.routes.is_empty() || !bidi.is_open() {
            return None;
        }
        self.context_of(bidi)
    }

    fn context_of<'a>(&self, bidi: &'a Arc<Bidi>) -> Option<(&'a Arc<Bidi>, String)> {
        let context = match &self.window {
            Some(w) => w.clone(),
            None => bidi.context.lock().expect("bidi lock").clone()?,
        };
        Some((bidi, context))
    }

    /// The engine of a popup's page: the same session in another window.
    pub(crate) fn for_window(&self, window: String) -> Engine {
        Engine {
            client: self.client.clone(),
            script_timeout: AtomicU64::new(self.script_timeout()),
            registered: AtomicBool::new(true),
            session_registered: self.session_registered.clone(),
            driver: self.driver,
            switching: self.switching.clone(),
            window: Some(window),
            bidi: self.bidi.clone(),
            browser: self.browser,
        }
    }

    /// The popup window this engine's page is (none: the main window).
    pub(crate) fn window(&self) -> Option<&str> {
        self.window.as_deref()
    }

    /// Runs `f` with the session in this engine's window (a popup's), then
    /// back in the main one; under the switching lock either way. A lost
    /// connection's error says so when the session's driver exited.
    pub(crate) async fn in_window<T, F>(&self, f: F) -> Result<T, BrowserError>
    where
        F: Future<Output = Result<T, BrowserError>>,
    {
        let _held = self.switching.lock().await;
        let main = self.enter_window().await.map_err(|e| self.explain(e))?;
        let r = f.await;
        self.leave_window(main).await;
        r.map_err(|e| self.explain(e))
    }

    /// Switches to this engine's window; the main window's handle to come back to.
    async fn enter_window(&self) -> Result<Option<fantoccini::wd::WindowHandle>, BrowserError> {
        let Some(w) = &self.window else {
            return Ok(None);
        };
        let main = self
            .client
            .window()
            .await
            .map_err(|e| wire::fail("reading the current window", e))?;
        let handle = fantoccini::wd::WindowHandle::try_from(w.clone())
            .map_err(|e| super::error::cmd_err("naming the popup's window", e))?;
        self.client
            .switch_to_window(handle)
            .await
            .map_err(|e| BrowserError::Invalid {
                message: format!(
                    "the popup's window {w} is gone (closed by the page or by page.close()): {e}"
                ),
                location: None,
            })?;
        Ok(Some(main))
    }

    async fn leave_window(&self, main: Option<fantoccini::wd::WindowHandle>) {
        if let Some(main) = main {
            let _ = self.client.switch_to_window(main).await;
        }
    }

    /// The script timeout as last set (kept with a pooled session).
    pub(crate) fn script_timeout(&self) -> u64 {
        self.script_timeout.load(Ordering::Relaxed)
    }

    /// Raises the session's script timeout so that a wait of `wait_ms` fits.
    pub(crate) async fn ensure_script_timeout(&self, wait_ms: u64) -> Result<(), BrowserError> {
        let needed = wait_ms + 15_000;
        if self.script_timeout.load(Ordering::Relaxed) >= needed {
            return Ok(());
        }
        let set = needed.max(60_000);
        wire::post(
            &self.client,
            "timeouts",
            json!({"script": set}),
            "setting the script timeout",
        )
        .await?;
        self.script_timeout.store(set, Ordering::Relaxed);
        Ok(())
    }

    /// Marks the engine as registered without a command: an engine without
    /// CDP (Firefox, WebKit) has no registration, each call checks and sends
    /// it. Their drivers answer the CDP endpoint with a bare 405 and then
    /// close the connection, which the next command, sent on it at once,
    /// finds closed ("IncompleteMessage").
    pub(crate) fn skip_registration(&self) {
        self.registered.store(true, Ordering::Relaxed);
    }

    /// Registers the engine for every new document of the session (once).
    pub(crate) async fn ensure_registered(&self) {
        if self.registered.swap(true, Ordering::Relaxed) {
            return;
        }
        if self.session_registered.load(Ordering::Relaxed) {
            return;
        }
        if cdp(
            &self.client,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": wire::install_source()}),
        )
        .await
        .is_ok()
        {
            self.session_registered.store(true, Ordering::Relaxed);
        }
    }

    /// One call of the injected engine in `frame` (none: the top document):
    /// the session switches into the frame (finding each iframe element by the
    /// engine, waiting for it) and back around the call. A point the engine
    /// answers there is moved into the page's viewport.
    pub(crate) async fn call_in(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        self.call_unexplained(frame, call, during)
            .await
            .map_err(|e| self.explain(e))
    }

    /// [`Engine::call_in`] before its error is explained.
    async fn call_unexplained(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        if let Some((bidi, context)) = self.bidi_calls() {
            self.catch_up().await;
            // No switching, so no lock: a route's handler may call the page
            // while an action of it waits.
            return Box::pin(self.call_bidi(
                bidi,
                context,
                frame,
                call,
                BidiReturns::Answer,
                during,
            ))
            .await;
        }
        // Boxed as the BiDi path: an expectation or action awaiting a call
        // stays small (a debug build's test thread has 2 MiB of stack).
        Box::pin(self.call_classic(frame, call, during)).await
    }

    /// [`Engine::call_in`] of a call that finds an element for a BiDi
    /// command of its own (`input.setFiles`), when the page's calls go over
    /// BiDi: its answer is `{"node": shared id, "context": the browsing
    /// context the element is in}`. None when they are classic.
    pub(crate) async fn call_element_bidi(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        during: &str,
    ) -> Option<(Arc<Bidi>, Result<Answer, BrowserError>)> {
        let (bidi, context) = self.bidi_calls()?;
        self.catch_up().await;
        let bidi = bidi.clone();
        let answer =
            Box::pin(self.call_bidi(&bidi, context, frame, call, BidiReturns::Element, during))
                .await;
        Some((bidi, answer))
    }

    /// [`Engine::call_in`] over classic WebDriver whatever the page (an
    /// answer that carries an element reference needs it: BiDi's are not
    /// classic's).
    pub(crate) async fn call_classic(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        self.call_classic_then(frame, call, during, |answer| async { Ok(answer) })
            .await
    }

    /// [`Engine::call_classic`], then `then` with its answer while the
    /// session is still in the call's window and frame: a command on an
    /// element reference the answer carries (Element Send Keys of the files)
    /// finds that element only there.
    pub(crate) async fn call_classic_then<F, Fut>(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        during: &str,
        then: F,
    ) -> Result<Answer, BrowserError>
    where
        F: FnOnce(Answer) -> Fut + Send,
        Fut: Future<Output = Result<Answer, BrowserError>> + Send,
    {
        let _held = self.switching.lock().await;
        if frame.is_none() && self.window.is_none() {
            return then(self.call_here(call, during).await?).await;
        }
        // Boxed: the switching path is rare, and its future is big.
        Box::pin(self.call_switched(frame, call, during, then)).await
    }

    /// [`Engine::call_in`] in another window or a frame, the lock held; then
    /// `then` with its answer before the session leaves them.
    async fn call_switched<F, Fut>(
        &self,
        frame: Option<&Arc<FrameScope>>,
        mut call: Call,
        during: &str,
        then: F,
    ) -> Result<Answer, BrowserError>
    where
        F: FnOnce(Answer) -> Fut + Send,
        Fut: Future<Output = Result<Answer, BrowserError>> + Send,
    {
        let main = self.enter_window().await?;
        let r = async {
            let Some(frame) = frame else {
                return then(self.call_here(call, during).await?).await;
            };
            let start = Instant::now();
            let result = async {
                for f in frame.path() {
                    let left = Duration::from_millis(call.timeout).saturating_sub(start.elapsed());
                    self.enter_frame(&f, left).await?;
                }
                call.timeout = Duration::from_millis(call.timeout)
                    .saturating_sub(start.elapsed())
                    .as_millis() as u64;
                let mut answer = self.call_here(call, during).await?;
                if let Ok(v) = &mut answer.result
                    && v["point"].is_object()
                {
                    let offset = self
                        .client
                        .execute(FRAME_OFFSET_JS, vec![])
                        .await
                        .map_err(|e| wire::fail("reading the frame's offset in the page", e))?;
                    for (k, i) in [("x", 0), ("y", 1)] {
                        let moved = v["point"][k].as_f64().unwrap_or(0.0)
                            + offset[i].as_f64().unwrap_or(0.0);
                        v["point"][k] = moved.into();
                    }
                }
                then(answer).await
            }
            .await;
            // Back to the top document whatever happened.
            let _ = wire::post(
                &self.client,
                "frame",
                json!({"id": null}),
                "leaving the frame",
            )
            .await;
            result
        }
        .await;
        self.leave_window(main).await;
        r
    }

    /// [`Engine::call_in`] over WebDriver BiDi in `context` (the page's
    /// window): each frame of the path is found by the engine in its parent's
    /// document, which answers the frame's window, that is its browsing
    /// context; the call runs there. A point the engine answers in a frame is
    /// moved into the page's viewport, as on the classic path.
    async fn call_bidi(
        &self,
        bidi: &Bidi,
        mut context: String,
        frame: Option<&Arc<FrameScope>>,
        mut call: Call,
        returns: BidiReturns,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        let Some(frame) = frame else {
            return self
                .call_bidi_here(bidi, &context, call, returns, during)
                .await;
        };
        let start = Instant::now();
        for f in frame.path() {
            let left = Duration::from_millis(call.timeout).saturating_sub(start.elapsed());
            context = self.frame_context(bidi, &context, &f, left).await?;
        }
        call.timeout = Duration::from_millis(call.timeout)
            .saturating_sub(start.elapsed())
            .as_millis() as u64;
        let mut answer = self
            .call_bidi_here(bidi, &context, call, returns, during)
            .await?;
        if let Ok(v) = &mut answer.result
            && v["point"].is_object()
        {
            let offset = bidi
                .call_function(
                    &context,
                    &format!(
                        "function () {{ return JSON.stringify((function () {{ {FRAME_OFFSET_JS} }})()); }}"
                    ),
                    "",
                    Duration::from_secs(30),
                    "reading the frame's offset in the page",
                )
                .await?;
            for (k, i) in [("x", 0), ("y", 1)] {
                let moved =
                    v["point"][k].as_f64().unwrap_or(0.0) + offset[i].as_f64().unwrap_or(0.0);
                v["point"][k] = moved.into();
            }
        }
        Ok(answer)
    }

    /// The browsing context of `frame`'s iframe element in `context`'s
    /// document (waiting up to `wait` for the element).
    async fn frame_context(
        &self,
        bidi: &Bidi,
        context: &str,
        frame: &FrameScope,
        wait: Duration,
    ) -> Result<String, BrowserError> {
        let (call, what, during) = frame_lookup(frame, wait);
        let start = Instant::now();
        let answer = self
            .call_bidi_here(bidi, context, call, BidiReturns::FrameWindow, &during)
            .await?;
        let v = answer.into_value(&frame.desc, what, start.elapsed(), Location::caller())?;
        match v["window"].as_str() {
            Some(window) => Ok(window.to_string()),
            None => Err(BrowserError::Invalid {
                message: format!(
                    "{} matches an element that is not a frame (an <iframe> or <frame> is needed)",
                    frame.desc
                ),
                location: None,
            }),
        }
    }

    /// One call of the injected engine in `context`'s document over BiDi:
    /// one `script.callFunction` (two when the document lacks the engine),
    /// repeated in the new document when a navigation ends it. `returns`
    /// says what it answers: the engine's answer, or the window or the
    /// element (with `context`) that the call found.
    async fn call_bidi_here(
        &self,
        bidi: &Bidi,
        context: &str,
        mut call: Call,
        returns: BidiReturns,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        bidi.ensure_preload(wire::install_source()).await;
        let deadline =
            Instant::now() + Duration::from_millis(call.timeout) + Duration::from_secs(2);
        loop {
            let req = serde_json::to_string(&call).map_err(|e| {
                super::error::cmd_err(format!("encoding the request ({during})"), e)
            })?;
            // The engine answers by its own timeout; the page gets as long
            // again as the classic script timeout would give it.
            let limit = Duration::from_millis(call.timeout) + Duration::from_secs(15);
            let function = |full| wire::bidi_function(full, returns);
            let mut r = bidi
                .call_function(context, function(false), &req, limit, during)
                .await;
            if matches!(&r, Ok(v) if v["missing"] == true) {
                r = bidi
                    .call_function(context, function(true), &req, limit, during)
                    .await;
            }
            match r {
                Err(e) if wire::is_navigation(&e) && Instant::now() < deadline => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    call.timeout = left.saturating_sub(Duration::from_secs(2)).as_millis() as u64;
                    tokio::time::sleep(Duration::from_millis(30)).await;
                }
                Err(e) => return Err(e),
                Ok(v) if v["window"].is_string() => {
                    return Ok(Answer {
                        result: Ok(v),
                        log: Vec::new(),
                    });
                }
                Ok(v) if v["node"].is_string() => {
                    return Ok(Answer {
                        result: Ok(json!({"node": v["node"], "context": context})),
                        log: Vec::new(),
                    });
                }
                Ok(v) => return decode(v, during),
            }
        }
    }

    /// Finds `frame`'s iframe element in the current document (waiting up to
    /// `wait`) and switches the session into it.
    async fn enter_frame(&self, frame: &FrameScope, wait: Duration) -> Result<(), BrowserError> {
        let (call, what, during) = frame_lookup(frame, wait);
        let start = Instant::now();
        let answer = self.call_here(call, &during).await?;
        let v = answer.into_value(&frame.desc, what, start.elapsed(), Location::caller())?;
        let element = match serde_json::from_value::<Acted>(v) {
            Ok(Acted::Element { element }) => element,
            other => {
                return Err(BrowserError::Invalid {
                    message: format!(
                        "{}: the page engine answered {other:?} where the iframe element was expected",
                        frame.desc
                    ),
                    location: None,
                });
            }
        };
        wire::post(&self.client, "frame", json!({"id": element}), &during)
            .await
            .map_err(|e| BrowserError::Invalid {
                message: format!(
                    "{} matches an element that is not a frame (an <iframe> or <frame> is needed): {e}",
                    frame.desc
                ),
                location: None,
            })
            .map(|_| ())
    }

    /// One call of the injected engine in the current document: one
    /// execute-async-script command (two when the document lacks the engine),
    /// repeated in the new document when a navigation interrupts it.
    async fn call_here(&self, mut call: Call, during: &str) -> Result<Answer, BrowserError> {
        self.ensure_script_timeout(call.timeout).await?;
        self.ensure_registered().await;
        let deadline =
            Instant::now() + Duration::from_millis(call.timeout) + Duration::from_secs(2);
        let mut prompt_since: Option<Instant> = None;
        loop {
            let req = serde_json::to_value(&call).map_err(|e| {
                super::error::cmd_err(format!("encoding the request ({during})"), e)
            })?;
            let c = &self.client;
            let mut r = c
                .execute_async(wire::short_script(), vec![req.clone()])
                .await
                .map_err(|e| wire::fail(during, e));
            if matches!(&r, Ok(v) if v["missing"] == true) {
                r = c
                    .execute_async(wire::full_script(), vec![req])
                    .await
                    .map_err(|e| wire::fail(during, e));
            }
            // chromedriver may answer "script timeout" at once when the document
            // goes away under a script: before our own deadline, that is a navigation.
            let early_timeout = matches!(&r, Err(BrowserError::Command { message, .. })
                if message.contains("script timeout"))
                && Instant::now() + Duration::from_secs(3) < deadline;
            match r {
                // A dialog the action opened and WebDriver BiDi is answering
                // (`dialog.rs`): wait for the answer; one left open (no BiDi)
                // is dismissed by the classic command after a second.
                Err(e) if prompt_open(&e) && Instant::now() < deadline => {
                    let since = *prompt_since.get_or_insert_with(Instant::now);
                    if since.elapsed() > Duration::from_secs(1) {
                        let _ = wire::post(
                            &self.client,
                            "alert/dismiss",
                            json!({}),
                            "dismissing a dialog",
                        )
                        .await;
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e)
                    if (early_timeout || wire::is_navigation(&e)) && Instant::now() < deadline =>
                {
                    let left = deadline.saturating_duration_since(Instant::now());
                    call.timeout = left.saturating_sub(Duration::from_secs(2)).as_millis() as u64;
                    tokio::time::sleep(Duration::from_millis(30)).await;
                }
                Err(e) => return Err(e),
                // The engine always answers an object; geckodriver answers
                // null when the document unloads under the script (a click
                // that navigates): a navigation too, so the call is repeated
                // in the new document.
                Ok(Value::Null) if Instant::now() < deadline => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    call.timeout = left.saturating_sub(Duration::from_secs(2)).as_millis() as u64;
                    tokio::time::sleep(Duration::from_millis(30)).await;
                }
                Ok(v) => return decode(v, during),
            }
        }
    }

    /// Runs `script` (which ends by calling the async callback with an engine
    /// answer) with `arg`, waiting up to `timeout_ms` in the page.
    pub(crate) async fn call_script(
        &self,
        script: &str,
        arg: Value,
        timeout_ms: u64,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        self.ensure_script_timeout(timeout_ms).await?;
        let _held = self.switching.lock().await;
        let main = self.enter_window().await?;
        let v = self
            .client
            .execute_async(script, vec![arg])
            .await
            .map_err(|e| self.explain(wire::fail(during, e)));
        self.leave_window(main).await;
        decode(v?, during)
    }
}

/// Whether a command failed because a dialog is open (`unexpected alert open`).
pub(crate) fn prompt_open(e: &BrowserError) -> bool {
    matches!(e, BrowserError::Command { message, .. } if message.contains("unexpected alert open"))
}

/// The page's answer, or a typed error naming what this side does not know.
pub(crate) fn decode(v: Value, during: &str) -> Result<Answer, BrowserError> {
    Answer::decode(v).map_err(|e| BrowserError::Command {
        action: format!("reading the page engine's answer ({during})"),
        message: format!("{e}: the injected engine and this library disagree"),
    })
}

impl Answer {
    /// The value, or a located error naming `locator`, what was expected of it
    /// and the call log.
    pub(crate) fn into_value(
        self,
        locator: &str,
        what: &str,
        waited: Duration,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        let error = match self.result {
            Ok(v) => return Ok(v),
            Err(e) => e,
        };
        Err(match error {
            EngineError::Strict { count, matches } => BrowserError::Strict {
                locator: locator.to_string(),
                count,
                matches,
                location: Some(at),
            },
            EngineError::Timeout { problem } => BrowserError::Timeout {
                locator: locator.to_string(),
                expected: what.to_string(),
                found: format!(
                    "{}{}",
                    if problem.is_empty() {
                        "nothing"
                    } else {
                        &problem
                    },
                    call_log(&self.log)
                ),
                waited,
                location: Some(at),
            },
            EngineError::Usage { message } | EngineError::Js { message } => BrowserError::Invalid {
                message: format!("{locator}: {message}"),
                location: Some(at),
            },
        })
    }
}

/// The engine's call log as the indented list a failure shows.
pub(crate) fn call_log(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut s = String::from("\nCall log:");
    for l in lines {
        s.push_str("\n  - ");
        s.push_str(l);
    }
    s
}

/// The engine call that finds `frame`'s iframe element (waiting up to
/// `wait`), what it expects of it, and what it is doing, for both the
/// classic and the BiDi way into a frame.
pub(crate) fn frame_lookup(frame: &FrameScope, wait: Duration) -> (Call, &'static str, String) {
    let call = Call {
        request: Request::Act {
            target: Target {
                chain: frame.chain.clone(),
                describe: frame.desc.clone(),
                frame: None,
            },
            action: Action::SetInputFiles,
            verify: None,
        },
        timeout: wait.as_millis() as u64,
    };
    (
        call,
        "be attached (the <iframe> of a frame locator)",
        format!("waiting for the frame {}", frame.desc),
    )
}
