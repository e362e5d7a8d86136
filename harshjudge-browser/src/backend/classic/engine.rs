//! [`Engine`]: the calls of the engine injected into the page over classic
//! WebDriver (execute-async-script): the script timeout each wait needs, the
//! engine registered for every new document (Chromium, through CDP), a call
//! repeated in the new document when a navigation interrupts it, a dialog
//! left open dismissed, and the window/frame switching of popups and frames
//! under the session's switching lock, which exists only here.

use std::future::Future;
use std::panic::Location;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fantoccini::Client;
use serde_json::{Value, json};

use crate::backend::webdriver::driver::DriverWatch;
use crate::backend::webdriver::session::Session;
use crate::engine::{CONTENT_BOX_JS, FrameCoordinates, decode, frame_lookup, prompt_open};
use crate::error::BrowserError;
use crate::protocol::{Acted, Answer, Call, FrameScope};
use crate::wire::{self, cdp};

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
        }
    }

    /// Whether this engine's page is a popup's window.
    pub(crate) fn is_popup(&self) -> bool {
        self.window.is_some()
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
            .map_err(|e| crate::error::cmd_err("naming the popup's window", e))?;
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

    /// Runs `f` in a new tab of the session, closed after it, then back in
    /// the window the session was in; under the switching lock (a storage
    /// state's read of an origin the page left).
    pub(crate) async fn in_new_tab<T, F>(&self, f: F) -> Result<T, BrowserError>
    where
        F: Future<Output = Result<T, BrowserError>>,
    {
        let _held = self.switching.lock().await;
        let back = self
            .client
            .window()
            .await
            .map_err(|e| self.explain(wire::fail("reading the current window", e)))?;
        let tab = self
            .client
            .new_window(true)
            .await
            .map_err(|e| self.explain(wire::fail("opening a tab", e)))?;
        let r = match self.client.switch_to_window(tab.handle).await {
            Ok(()) => {
                let r = f.await;
                let _ = self.client.close_window().await;
                r
            }
            Err(e) => Err(wire::fail("switching to a new tab", e)),
        };
        self.leave_window(Some(back)).await;
        r.map_err(|e| self.explain(e))
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
        self.call_classic(frame, call, during)
            .await
            .map_err(|e| self.explain(e))
    }

    /// [`Engine::call_in`] before its error is explained.
    async fn call_classic(
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
        self.call_switched(frame, call, during, then).await
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
            let coordinates = FrameCoordinates::of(&call.request);
            let result = async {
                // Each frame's offset is read in its parent, before the
                // switch (a frame of another origin cannot read its own).
                let mut offset = coordinates.possible().then_some((0.0, 0.0));
                for f in frame.path() {
                    let left = Duration::from_millis(call.timeout).saturating_sub(start.elapsed());
                    self.enter_frame(&f, left, offset.as_mut()).await?;
                }
                call.timeout = Duration::from_millis(call.timeout)
                    .saturating_sub(start.elapsed())
                    .as_millis() as u64;
                let mut answer = self.call_here(call, during).await?;
                if let Some(offset) = offset
                    && coordinates.any(&answer)
                {
                    coordinates.move_by(&mut answer, offset);
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

    /// Finds `frame`'s iframe element in the current document (waiting up to
    /// `wait`) and switches the session into it.
    async fn enter_frame(
        &self,
        frame: &FrameScope,
        wait: Duration,
        offset: Option<&mut (f64, f64)>,
    ) -> Result<(), BrowserError> {
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
        if let Some((x, y)) = offset {
            let script = format!("return ({CONTENT_BOX_JS})(arguments[0]);");
            let reading = "reading the frame's offset in the page";
            let b = (self.client)
                .execute(&script, vec![element.clone()])
                .await
                .map_err(|e| wire::fail(reading, e))?;
            *x += b[0].as_f64().unwrap_or(0.0);
            *y += b[1].as_f64().unwrap_or(0.0);
        }
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
                crate::error::cmd_err(format!("encoding the request ({during})"), e)
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
