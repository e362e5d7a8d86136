//! The page API: navigation, actions and expectations that wait until the
//! element is ready, and the evidence hooks the runner uses.

use std::future::Future;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use fantoccini::Client;
use serde_json::{Value, json};

use super::keyboard::{Keyboard, Mouse};
use super::locator::{Locator, TextMatch, engine_result};
use super::logs::{self, ConsoleEntry, NetworkEntry, Pending};
use super::wire::{self, cdp};
use super::{BrowserError, Session, cmd_err};

/// A browser tab for one scenario. Cheap to clone.
///
/// Find elements with [`Locator`]s (`page.get_by_role("button").name("Save")`,
/// `page.get_by_label("Email")`, `page.locator("#id")`, …), act on them and
/// assert with [`expect`](super::expect). Locators are resolved inside the page
/// by an injected script, at each use; actions wait for actionability and
/// assertions retry, up to the page's wait limit (`HARSHJUDGE_WAIT`, 5 s).
///
/// The string-selector methods (`page.click("testid=save")`, …) are shorthands
/// for `page.locator(selector).…`; selectors are CSS by default, `testid=x`,
/// `text=Sign in` (the innermost element whose whole text is that), `//…`, `(//…`
/// or `xpath=…` (XPath), `css=…`.
#[derive(Clone)]
pub struct Page {
    inner: Arc<Inner>,
    wait: Duration,
}

struct Inner {
    client: Client,
    session: Mutex<Option<Session>>,
    base_url: String,
    pending: Mutex<Pending>,
    /// The session's script timeout as last set (ms).
    script_timeout: AtomicU64,
    /// Whether the engine is registered for every new document of the session.
    registered: AtomicBool,
    /// The scenario that opened the page (`Scenario::page`), for assertions that
    /// write evidence and baselines (`to_have_screenshot`). Weak: the scenario holds the page.
    owner: std::sync::OnceLock<std::sync::Weak<crate::runner::Shared>>,
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("base_url", &self.inner.base_url)
            .finish()
    }
}

/// Runs a shorthand's locator call, located at the shorthand's caller.
async fn shorthand<T, F, Fut>(
    l: Locator,
    at: &'static Location<'static>,
    f: F,
) -> Result<T, BrowserError>
where
    F: FnOnce(Locator) -> Fut,
    Fut: Future<Output = Result<T, BrowserError>>,
{
    f(l).await.map_err(|e| e.located(at))
}

/// How long the end of a step waits for requests still in flight.
const NETWORK_SETTLE: std::time::Duration = std::time::Duration::from_millis(250);

async fn get_log(client: &Client, kind: &str) -> Result<serde_json::Value, BrowserError> {
    wire::post(
        client,
        "se/log",
        serde_json::json!({"type": kind}),
        &format!("reading the {kind} log"),
    )
    .await
}

/// Clears cookies, cache and storage, closes extra windows, drains the logs and
/// leaves the tab on `about:blank`.
pub(crate) async fn reset(client: &Client) -> Result<(), BrowserError> {
    let windows = client
        .windows()
        .await
        .map_err(|e| cmd_err("listing windows", e))?;
    if windows.len() > 1 {
        let keep = windows[0].clone();
        for w in windows.into_iter().skip(1) {
            client
                .switch_to_window(w)
                .await
                .map_err(|e| cmd_err("switching window", e))?;
            client
                .close_window()
                .await
                .map_err(|e| cmd_err("closing window", e))?;
        }
        client
            .switch_to_window(keep)
            .await
            .map_err(|e| cmd_err("switching window", e))?;
    }
    if let Ok(url) = client.current_url().await
        && url.scheme().starts_with("http")
    {
        let origin = url.origin().ascii_serialization();
        cdp(
            client,
            "Storage.clearDataForOrigin",
            serde_json::json!({"origin": origin, "storageTypes": "all"}),
        )
        .await?;
    }
    cdp(client, "Network.clearBrowserCookies", serde_json::json!({})).await?;
    cdp(client, "Network.clearBrowserCache", serde_json::json!({})).await?;
    // Navigate straight (fantoccini's `goto` reads the URL first: one more command).
    wire::post(
        client,
        "url",
        json!({"url": "about:blank"}),
        "opening about:blank",
    )
    .await?;
    let _ = get_log(client, "devtools").await;
    Ok(())
}

impl Page {
    pub(crate) fn new(session: Session, base_url: &str, wait: Duration) -> Page {
        let script_timeout = session.script_timeout;
        Page {
            inner: Arc::new(Inner {
                client: session.client.clone(),
                session: Mutex::new(Some(session)),
                base_url: base_url.trim_end_matches('/').to_string(),
                pending: Mutex::new(Pending::new()),
                script_timeout: AtomicU64::new(script_timeout),
                registered: AtomicBool::new(false),
                owner: std::sync::OnceLock::new(),
            }),
            wait,
        }
    }

    /// Ties the page to the scenario that opened it (once).
    pub(crate) fn set_owner(&self, shared: &Arc<crate::runner::Shared>) {
        let _ = self.inner.owner.set(Arc::downgrade(shared));
    }

    /// The scenario that opened the page, while it runs.
    pub(crate) fn owner(&self) -> Option<crate::Scenario> {
        let shared = self.inner.owner.get()?.upgrade()?;
        Some(crate::Scenario { shared })
    }

    pub(crate) fn take_session(&self) -> Option<Session> {
        let mut session = self.inner.session.lock().expect("session lock").take()?;
        session.script_timeout = self.inner.script_timeout.load(Ordering::Relaxed);
        Some(session)
    }

    /// The same page with another auto-wait limit.
    pub fn with_timeout(&self, wait: Duration) -> Page {
        Page {
            inner: self.inner.clone(),
            wait,
        }
    }

    /// The auto-wait limit of actions and assertions.
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// The underlying fantoccini client, for anything the page API lacks.
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The WebDriver session id.
    pub async fn session_id(&self) -> Option<String> {
        self.inner.client.session_id().await.ok().flatten()
    }

    /// `path` joined to the base URL; absolute URLs (`http://…`, `about:…`,
    /// `data:…`, `file:…`) as they are. A relative one without a base URL is an error.
    pub(crate) fn url_for(&self, path: &str) -> Result<String, BrowserError> {
        let absolute = path.contains("://")
            || ["about:", "data:", "file:", "chrome:"]
                .iter()
                .any(|p| path.starts_with(p));
        if absolute {
            Ok(path.to_string())
        } else if self.inner.base_url.is_empty() {
            Err(BrowserError::NoBaseUrl {
                url: path.to_string(),
            })
        } else if path.starts_with('/') {
            Ok(format!("{}{path}", self.inner.base_url))
        } else {
            Ok(format!("{}/{path}", self.inner.base_url))
        }
    }

    /// Opens `path` (joined to the base URL; absolute URLs as they are) and waits
    /// for it to load. A relative path without a base URL fails, naming the settings.
    pub async fn goto(&self, path: &str) -> Result<(), BrowserError> {
        let url = self.url_for(path)?;
        wire::post(
            self.client(),
            "url",
            json!({"url": url}),
            &format!("opening {url}"),
        )
        .await
        .map(|_| ())
    }

    /// Reloads the page.
    pub async fn reload(&self) -> Result<(), BrowserError> {
        wire::post(self.client(), "refresh", json!({}), "reloading the page")
            .await
            .map(|_| ())
    }

    /// Goes back in history.
    pub async fn go_back(&self) -> Result<(), BrowserError> {
        wire::post(self.client(), "back", json!({}), "going back")
            .await
            .map(|_| ())
    }

    /// Goes forward in history.
    pub async fn go_forward(&self) -> Result<(), BrowserError> {
        wire::post(self.client(), "forward", json!({}), "going forward")
            .await
            .map(|_| ())
    }

    /// Runs a Chrome DevTools Protocol command (`"Emulation.setTimezoneOverride"`,
    /// …) through chromedriver, for anything the page API lacks.
    pub async fn cdp(&self, command: &str, params: Value) -> Result<Value, BrowserError> {
        cdp(self.client(), command, params).await
    }

    /// The page's keyboard (keys go to the focused element).
    pub fn keyboard(&self) -> Keyboard {
        Keyboard::new(self.clone())
    }

    /// The page's mouse.
    pub fn mouse(&self) -> Mouse {
        Mouse::new(self.clone())
    }

    /// Sets the viewport (the page's visible area, and so screenshots) to
    /// `width`x`height` CSS pixels.
    pub async fn set_viewport_size(&self, width: u32, height: u32) -> Result<(), BrowserError> {
        let set = cdp(
            self.client(),
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        )
        .await
        .map(|_| ());
        if let Some(s) = self.inner.session.lock().expect("session lock").as_mut() {
            s.viewport = set.is_ok().then_some((width, height));
        }
        set
    }

    /// Sets the viewport unless the session already has that size (a pooled
    /// session keeps the size it was released with).
    pub(crate) async fn ensure_viewport(&self, (w, h): (u32, u32)) -> Result<(), BrowserError> {
        let current = self
            .inner
            .session
            .lock()
            .expect("session lock")
            .as_ref()
            .and_then(|s| s.viewport);
        if current == Some((w, h)) {
            return Ok(());
        }
        self.set_viewport_size(w, h).await
    }

    /// Runs JavaScript in the page and returns its result: `js` is an expression
    /// (`"document.title"`) or a function called with `arg` (`"(n) => n * 2"`,
    /// async functions too); the result is deserialised into `T`.
    pub async fn evaluate<T, A>(&self, js: &str, arg: A) -> Result<T, BrowserError>
    where
        T: serde::de::DeserializeOwned,
        A: serde::Serialize,
    {
        let arg = serde_json::to_value(arg)
            .map_err(|e| cmd_err("serialising the argument of evaluate", e))?;
        let script = format!(
            "var done = arguments[arguments.length - 1]; var __hjArg = arguments[0];
Promise.resolve().then(function () {{ var f = (\n{js}\n); return typeof f === 'function' ? f(__hjArg) : f; }})
  .then(function (v) {{ done({{ok: true, v: v === undefined ? null : v}}); }},
        function (e) {{ done({{ok: false, e: String(e && e.stack || e)}}); }});"
        );
        let v = self
            .inner
            .client
            .execute_async(&script, vec![arg])
            .await
            .map_err(|e| wire::fail("running JavaScript (evaluate)", e))?;
        if v["ok"] != true {
            return Err(BrowserError::Invalid {
                message: format!(
                    "the page's JavaScript threw: {}",
                    v["e"].as_str().unwrap_or("an error")
                ),
                location: None,
            });
        }
        serde_json::from_value(v["v"].clone()).map_err(|e| {
            cmd_err(
                "reading the result of evaluate",
                format!("{e} (the result was {})", v["v"]),
            )
        })
    }

    /// Waits until `js` (an expression, or a function called with `arg`) returns
    /// a truthy value, polled inside the page; returns that value.
    #[track_caller]
    pub fn wait_for_function<'a, A: serde::Serialize>(
        &'a self,
        js: &'a str,
        arg: A,
    ) -> impl Future<Output = Result<Value, BrowserError>> + Send + 'a {
        let at = Location::caller();
        let arg = serde_json::to_value(arg).unwrap_or(Value::Null);
        async move {
            let timeout = self.wait.as_millis() as u64;
            self.ensure_script_timeout(timeout).await?;
            let script = format!(
                "var done = arguments[arguments.length - 1];\n{}\nvar f = (\n{js}\n);
window.__harshjudgeEngine.waitForFunction(arguments[0], f).then(done, function (e) {{
  done({{ok: false, error: {{kind: 'js', message: String(e && e.message || e)}}, log: []}});
}});",
                wire::install_source()
            );
            let start = Instant::now();
            let answer = self
                .inner
                .client
                .execute_async(&script, vec![json!({"timeout": timeout, "arg": arg})])
                .await
                .map_err(|e| wire::fail("waiting for a function to return a truthy value", e))?;
            engine_result(
                answer,
                "wait_for_function",
                "return a truthy value",
                start.elapsed(),
                at,
            )
        }
    }

    /// Waits until the URL is `expected` (a path is joined to the base URL) or
    /// matches a regex.
    #[track_caller]
    pub fn wait_for_url(
        &self,
        expected: impl Into<TextMatch>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send {
        super::expect::expect(self).to_have_url(expected)
    }

    /// The ARIA snapshot of the whole page (YAML), as `aria.yml` evidence shows it.
    pub async fn aria_snapshot(&self) -> Result<String, BrowserError> {
        let v = self
            .engine(
                json!({"op": "ariaSnapshot", "timeout": 0}),
                "reading the ARIA snapshot",
            )
            .await?;
        Ok(v["value"].as_str().unwrap_or_default().to_string())
    }

    // ---- the engine ---------------------------------------------------------------

    async fn ensure_script_timeout(&self, wait_ms: u64) -> Result<(), BrowserError> {
        let needed = wait_ms + 15_000;
        if self.inner.script_timeout.load(Ordering::Relaxed) >= needed {
            return Ok(());
        }
        let set = needed.max(60_000);
        wire::post(
            self.client(),
            "timeouts",
            json!({"script": set}),
            "setting the script timeout",
        )
        .await?;
        self.inner.script_timeout.store(set, Ordering::Relaxed);
        Ok(())
    }

    /// What a new session needs once (the script timeout, the engine registered
    /// for every document), done when it opens rather than in its first step.
    pub(crate) async fn prepare_session(&self) -> Result<(), BrowserError> {
        self.ensure_script_timeout(self.wait.as_millis() as u64)
            .await?;
        self.ensure_registered().await;
        Ok(())
    }

    /// Registers the engine for every new document of the session (once).
    async fn ensure_registered(&self) {
        if self.inner.registered.swap(true, Ordering::Relaxed) {
            return;
        }
        static SESSIONS: Mutex<Vec<String>> = Mutex::new(Vec::new());
        let Some(id) = self.session_id().await else {
            return;
        };
        if SESSIONS.lock().expect("sessions lock").contains(&id) {
            return;
        }
        if cdp(
            self.client(),
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": wire::install_source()}),
        )
        .await
        .is_ok()
        {
            SESSIONS.lock().expect("sessions lock").push(id);
        }
    }

    /// One call of the injected engine: one execute-async-script command (two
    /// when the document lacks the engine), repeated in the new document when a
    /// navigation interrupts it.
    pub(crate) async fn engine(&self, mut req: Value, during: &str) -> Result<Value, BrowserError> {
        let timeout = req["timeout"].as_u64().unwrap_or(0);
        self.ensure_script_timeout(timeout).await?;
        self.ensure_registered().await;
        let deadline = Instant::now() + Duration::from_millis(timeout) + Duration::from_secs(2);
        loop {
            let c = &self.inner.client;
            let mut r = c
                .execute_async(wire::short_script(), vec![req.clone()])
                .await
                .map_err(|e| wire::fail(during, e));
            if matches!(&r, Ok(v) if v["missing"] == true) {
                r = c
                    .execute_async(wire::full_script(), vec![req.clone()])
                    .await
                    .map_err(|e| wire::fail(during, e));
            }
            // chromedriver may answer "script timeout" at once when the document
            // goes away under a script: before our own deadline, that is a navigation.
            let early_timeout = matches!(&r, Err(BrowserError::Command { message, .. })
                if message.contains("script timeout"))
                && Instant::now() + Duration::from_secs(3) < deadline;
            match r {
                Err(e)
                    if (early_timeout || wire::is_navigation(&e)) && Instant::now() < deadline =>
                {
                    let left = deadline.saturating_duration_since(Instant::now());
                    req["timeout"] =
                        json!(left.saturating_sub(Duration::from_secs(2)).as_millis() as u64);
                    tokio::time::sleep(Duration::from_millis(30)).await;
                }
                other => return other,
            }
        }
    }

    /// A PNG of a region of the page (document coordinates).
    pub(crate) async fn capture_clip(&self, b: &Value) -> Result<Vec<u8>, BrowserError> {
        let shot = cdp(
            self.client(),
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true, "clip": {
                "x": b["x"], "y": b["y"], "width": b["width"], "height": b["height"], "scale": 1}}),
        )
        .await?;
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap_or_default())
            .map_err(|e| cmd_err("decoding a screenshot", e))
    }

    // ---- string-selector shorthands ------------------------------------------------

    /// `page.locator(selector).click()`.
    #[track_caller]
    pub fn click<'a>(
        &'a self,
        selector: &'a str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            shorthand(
                self.locator(selector),
                at,
                |l| async move { l.click().await },
            )
            .await
        }
    }

    /// `page.locator(selector).fill(text)`: replaces the field's value without blurring it.
    #[track_caller]
    pub fn fill<'a>(
        &'a self,
        selector: &'a str,
        text: &'a str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            shorthand(
                self.locator(selector),
                at,
                |l| async move { l.fill(text).await },
            )
            .await
        }
    }

    /// `page.locator(selector).press(key)`: a key or chord (`"Enter"`, `"Control+a"`).
    #[track_caller]
    pub fn press<'a>(
        &'a self,
        selector: &'a str,
        key: &'a str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            shorthand(
                self.locator(selector),
                at,
                |l| async move { l.press(key).await },
            )
            .await
        }
    }

    /// `page.locator(selector).select_option([value_or_label])`.
    #[track_caller]
    pub fn select<'a>(
        &'a self,
        selector: &'a str,
        value_or_label: &'a str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            shorthand(self.locator(selector), at, |l| async move {
                l.select_option([value_or_label]).await.map(|_| ())
            })
            .await
        }
    }

    /// `page.locator(selector).set_checked(on)`.
    #[track_caller]
    pub fn check<'a>(
        &'a self,
        selector: &'a str,
        on: bool,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            shorthand(self.locator(selector), at, |l| async move {
                l.set_checked(on).await
            })
            .await
        }
    }

    /// The element's rendered text, once it is visible.
    #[track_caller]
    pub fn text<'a>(
        &'a self,
        selector: &'a str,
    ) -> impl Future<Output = Result<String, BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            shorthand(self.locator(selector), at, |l| async move {
                l.wait_for(super::WaitState::Visible).await?;
                l.inner_text().await
            })
            .await
        }
    }

    /// `page.locator(selector).get_attribute(name)`.
    #[track_caller]
    pub fn attribute<'a>(
        &'a self,
        selector: &'a str,
        name: &'a str,
    ) -> impl Future<Output = Result<Option<String>, BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            shorthand(self.locator(selector), at, |l| async move {
                l.get_attribute(name).await
            })
            .await
        }
    }

    /// Whether any element matching `selector` is visible now (no waiting).
    #[track_caller]
    pub fn is_visible<'a>(
        &'a self,
        selector: &'a str,
    ) -> impl Future<Output = Result<bool, BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            shorthand(self.locator(selector), at, |l| async move {
                Ok(l.filter_visible().count().await? > 0)
            })
            .await
        }
    }

    /// Waits until the element is visible.
    #[track_caller]
    pub fn wait_for<'a>(
        &'a self,
        selector: &'a str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            shorthand(self.locator(selector), at, |l| async move {
                l.wait_for(super::WaitState::Visible).await
            })
            .await
        }
    }

    /// `expect(&page.locator(selector)).to_be_visible()`.
    #[track_caller]
    pub fn expect_visible<'a>(
        &'a self,
        selector: &'a str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        let l = self.locator(selector);
        async move {
            super::expect::Expectable::expect_at(&l, at)
                .to_be_visible()
                .await
        }
    }

    /// Runs JavaScript as a function body (`return …` gives a value). See
    /// [`evaluate`](Page::evaluate) for expressions, arguments and typed results.
    pub async fn eval(&self, js: &str) -> Result<serde_json::Value, BrowserError> {
        self.inner
            .client
            .execute(js, vec![])
            .await
            .map_err(|e| wire::fail("running JavaScript", e))
    }

    /// A PNG of the viewport.
    pub async fn screenshot(&self) -> Result<Vec<u8>, BrowserError> {
        self.inner
            .client
            .screenshot()
            .await
            .map_err(|e| wire::fail("taking a screenshot", e))
    }

    /// The current URL.
    pub async fn url(&self) -> Result<String, BrowserError> {
        self.inner
            .client
            .current_url()
            .await
            .map(|u| u.to_string())
            .map_err(|e| wire::fail("reading the URL", e))
    }

    /// The document's title.
    pub async fn title(&self) -> Result<String, BrowserError> {
        self.inner
            .client
            .title()
            .await
            .map_err(|e| wire::fail("reading the title", e))
    }

    /// The page's HTML as it is now.
    pub async fn html(&self) -> Result<String, BrowserError> {
        self.inner
            .client
            .source()
            .await
            .map_err(|e| wire::fail("reading the HTML", e))
    }

    // ---- evidence hooks ----

    /// A PNG of the viewport, or of the whole page (through CDP) when `full_page`.
    #[doc(hidden)]
    pub async fn capture(&self, full_page: bool) -> Result<Vec<u8>, BrowserError> {
        if !full_page {
            return self.screenshot().await;
        }
        let c = &self.inner.client;
        let metrics = cdp(c, "Page.getLayoutMetrics", serde_json::json!({})).await?;
        let size = if metrics["cssContentSize"].is_object() {
            &metrics["cssContentSize"]
        } else {
            &metrics["contentSize"]
        };
        let (w, h) = (
            size["width"].as_f64().unwrap_or(1280.0),
            size["height"].as_f64().unwrap_or(800.0),
        );
        let shot = cdp(
            c,
            "Page.captureScreenshot",
            serde_json::json!({"format": "png", "captureBeyondViewport": true, "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}}),
        )
        .await?;
        let data = shot["data"].as_str().unwrap_or_default();
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| cmd_err("decoding a full-page screenshot", e))
    }

    /// Console and network entries since the previous call: one read of the
    /// `devtools` log, which carries both (more only while requests are in flight).
    #[doc(hidden)]
    pub async fn take_logs(&self) -> Result<(Vec<ConsoleEntry>, Vec<NetworkEntry>), BrowserError> {
        let c = &self.inner.client;
        let read =
            |v: &Value| logs::devtools(v, &mut self.inner.pending.lock().expect("pending lock"));
        let (mut console, mut network) = read(&get_log(c, "devtools").await?);
        // A request whose response arrived but whose body is still loading (a fetch
        // the page already reacted to) belongs to this step: give in-flight requests
        // a short while to finish, then report the answered ones as they stand.
        let settle_until = std::time::Instant::now() + NETWORK_SETTLE;
        while !self.inner.pending.lock().expect("pending lock").is_empty()
            && std::time::Instant::now() < settle_until
        {
            // Every read is a WebDriver command: poll sparingly.
            tokio::time::sleep(std::time::Duration::from_millis(60)).await;
            let (more_console, more_network) = read(&get_log(c, "devtools").await?);
            console.extend(more_console);
            network.extend(more_network);
        }
        network.extend(logs::answered(
            &mut self.inner.pending.lock().expect("pending lock"),
        ));
        Ok((console, network))
    }

    /// The page's HTML for failure evidence.
    #[doc(hidden)]
    pub async fn page_html(&self) -> Result<String, BrowserError> {
        self.html().await
    }
}
