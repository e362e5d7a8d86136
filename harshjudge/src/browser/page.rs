//! [`Page`]: navigation, JavaScript, viewport, screenshots and logs, the
//! evidence hooks the runner uses, and [`ScenarioEvidence`], all a page knows
//! of the scenario that opened it. Locators, assertions, the keyboard and the
//! string-selector shorthands add their `impl Page` blocks in their own files.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use base64::Engine as _;
use fantoccini::Client;
use serde_json::{Value, json};

use super::bidi::Bidi;
use super::bidi::protocol::Origin;
use super::config::BrowserKind;
use super::engine::Engine;
use super::engines;
use super::error::{BrowserError, cmd_err};
use super::logs::{self, ConsoleEntry, NetworkEntry, Pending};
use super::protocol::{Call, Clip, Request};
use super::session::Session;
use super::wire::{self, cdp};

/// What a page needs of the scenario that opened it, for the assertions that
/// leave evidence (`to_have_screenshot` keeps its baseline per scenario and
/// attaches its comparison images to the step running): the runner implements
/// it; the browser knows nothing else of the runner.
pub trait ScenarioEvidence: Send + Sync {
    /// The scenario's slug.
    fn slug(&self) -> &str;

    /// Writes `bytes` as `{name}.{ext}` (evidence type `kind`) into the
    /// evidence of the step running now; returns the file's path.
    fn attach(
        self: Arc<Self>,
        name: &str,
        ext: &str,
        kind: &str,
        bytes: &[u8],
    ) -> Result<PathBuf, Box<dyn std::error::Error + Send + Sync>>;

    /// The store the scenario records into, where
    /// [`Page::save_storage_state`] saves.
    fn store(&self) -> crate::store::Store;

    /// The next number of the scenario's evidence of `kind` (`popup`,
    /// `download`), from 1: `popup-1`, `popup-2`, … whichever page of the
    /// scenario records it.
    fn next_number(&self, kind: &str) -> usize;
}

/// A browser tab for one scenario. Cheap to clone.
///
/// Find elements with [`Locator`](super::Locator)s (`page.get_by_role("button").name("Save")`,
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
    /// How long web-first assertions retry when the call sets no timeout
    /// (the suite's `HARSHJUDGE_EXPECT_TIMEOUT` or `main!(expect_timeout)`);
    /// none: `wait`.
    expect_wait: Option<Duration>,
}

struct Inner {
    client: Client,
    session: Mutex<Option<Session>>,
    base_url: String,
    pending: Mutex<Pending>,
    /// Without BiDi: what the `devtools` log said during the step before its
    /// boundary (read early by a network or console assertion).
    early: Mutex<(Vec<ConsoleEntry>, Vec<NetworkEntry>)>,
    /// The session's BiDi connection, if the remote end offers BiDi.
    bidi: Option<Arc<Bidi>>,
    /// The injected engine's calls over `client`.
    engine: Engine,
    /// The scenario that opened the page (`Scenario::page`), for assertions that
    /// write evidence and baselines (`to_have_screenshot`). Weak: the scenario holds the page.
    owner: OnceLock<Weak<dyn ScenarioEvidence>>,
    /// The http(s) origins the page navigated to, in order (for
    /// [`Page::storage_state`]).
    visited: Mutex<Vec<String>>,
    /// Its engine.
    browser: BrowserKind,
    /// Without BiDi on an engine with no log endpoint (WebKit): whether the
    /// note saying so was recorded.
    noted: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("base_url", &self.inner.base_url)
            .finish()
    }
}

/// The origin of an http(s) URL, `None` for `about:blank` and the like.
pub(crate) fn origin_of(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    url.scheme()
        .starts_with("http")
        .then(|| url.origin().ascii_serialization())
}

/// The page's HTML over BiDi, as chromedriver's and geckodriver's Get Page
/// Source serialise it (the document element's markup, no doctype).
const HTML_JS: &str = "document.documentElement ? document.documentElement.outerHTML : new XMLSerializer().serializeToString(document)";

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
    pub(crate) fn new(
        session: Session,
        base_url: &str,
        wait: Duration,
        expect_wait: Option<Duration>,
    ) -> Page {
        super::error::register_call_site();
        let engine = Engine::new(&session);
        let bidi = session.bidi.clone();
        let browser = session.browser;
        Page {
            inner: Arc::new(Inner {
                client: session.client.clone(),
                session: Mutex::new(Some(session)),
                base_url: base_url.trim_end_matches('/').to_string(),
                pending: Mutex::new(Pending::new()),
                early: Mutex::default(),
                bidi,
                engine,
                owner: OnceLock::new(),
                visited: Mutex::new(Vec::new()),
                browser,
                noted: std::sync::atomic::AtomicBool::new(false),
            }),
            wait,
            expect_wait,
        }
    }

    /// The page of a popup window `handle` this page's session opened: the
    /// same session, its calls switched to that window and back.
    pub(crate) fn popup_page(&self, handle: String) -> Page {
        let owner = OnceLock::new();
        if let Some(o) = self.inner.owner.get() {
            let _ = owner.set(o.clone());
        }
        Page {
            inner: Arc::new(Inner {
                client: self.inner.client.clone(),
                session: Mutex::new(None),
                base_url: self.inner.base_url.clone(),
                pending: Mutex::new(Pending::new()),
                early: Mutex::default(),
                bidi: self.inner.bidi.clone(),
                engine: self.inner.engine.for_window(handle),
                owner,
                visited: Mutex::new(Vec::new()),
                browser: self.inner.browser,
                // The popup's session already said what its engine cannot record.
                noted: std::sync::atomic::AtomicBool::new(true),
            }),
            wait: self.wait,
            expect_wait: self.expect_wait,
        }
    }

    /// Ties the page to the scenario that opened it (once).
    pub(crate) fn set_owner<S: ScenarioEvidence + 'static>(&self, owner: &Arc<S>) {
        let owner: Weak<dyn ScenarioEvidence> = Arc::downgrade(owner) as Weak<dyn ScenarioEvidence>;
        if let Some(bidi) = &self.inner.bidi {
            let weak = owner.clone();
            bidi.dialogs
                .set_recorder(Arc::new(move |name: &str, bytes: &[u8]| {
                    if let Some(owner) = weak.upgrade() {
                        let _ = owner.attach(name, "json", "dialog", bytes);
                    }
                }));
        }
        let _ = self.inner.owner.set(owner);
    }

    /// The scenario that opened the page, while it runs.
    pub(crate) fn owner(&self) -> Option<Arc<dyn ScenarioEvidence>> {
        self.inner.owner.get()?.upgrade()
    }

    /// Notes that the page visited `origin`.
    pub(crate) fn visited(&self, origin: &str) {
        let mut visited = self.inner.visited.lock().expect("visited lock");
        if !visited.iter().any(|o| o == origin) {
            visited.push(origin.to_string());
        }
    }

    /// The origins the page visited, in order.
    pub(crate) fn visited_origins(&self) -> Vec<String> {
        self.inner.visited.lock().expect("visited lock").clone()
    }

    /// The injected engine's calls.
    pub(crate) fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// What a new session needs once (the script timeout, the engine registered
    /// for every document), done when it opens rather than in its first step.
    pub(crate) async fn prepare_session(&self) -> Result<(), BrowserError> {
        let engine = self.engine();
        engine
            .ensure_script_timeout(self.wait.as_millis() as u64)
            .await?;
        engine.ensure_registered().await;
        Ok(())
    }

    pub(crate) fn take_session(&self) -> Option<Session> {
        let mut session = self.inner.session.lock().expect("session lock").take()?;
        session.script_timeout = self.inner.engine.script_timeout();
        Some(session)
    }

    /// The same page with another auto-wait limit, of its actions and of
    /// its assertions (over the suite's `HARSHJUDGE_EXPECT_TIMEOUT`).
    pub fn with_timeout(&self, wait: Duration) -> Page {
        Page {
            inner: self.inner.clone(),
            wait,
            expect_wait: Some(wait),
        }
    }

    /// The auto-wait limit of actions (and of assertions when the suite sets
    /// no `HARSHJUDGE_EXPECT_TIMEOUT`).
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// How long a web-first assertion retries when its call sets no timeout:
    /// the suite's expect timeout, else [`wait`](Page::wait).
    pub(crate) fn expect_wait(&self) -> Duration {
        self.expect_wait.unwrap_or(self.wait)
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
    /// A navigation of the page's own (its script, a meta refresh) that takes
    /// the place of this one before its document comes fails it with
    /// [`BrowserError::NavigationInterrupted`], naming both URLs, where the
    /// session speaks WebDriver BiDi (not on WebKit).
    pub async fn goto(&self, path: impl AsRef<str>) -> Result<(), BrowserError> {
        let url = self.url_for(path.as_ref())?;
        if let Some(origin) = origin_of(&url) {
            self.visited(&origin);
        }
        let during = format!("opening {url}");
        let routed = self.routed_context();
        // BiDi's navigate waits for its own navigation's load and fails when
        // another takes its place; classic Navigate To says neither.
        let ends_its_own = routed.is_some();
        let open = async {
            if let Some((bidi, context)) = routed {
                if bidi.routes.matches(&url) {
                    self.engine().catch_up().await;
                }
                return bidi.navigate(&context, Some(&url), &during).await;
            }
            self.engine()
                .in_window(wire::post(
                    self.client(),
                    "url",
                    json!({"url": url}),
                    &during,
                ))
                .await
                .map(|_| ())
        };
        match self.engine().bidi_events() {
            Some((bidi, context)) => {
                bidi.watch_navigation(&context, &url, ends_its_own, open)
                    .await
            }
            None => open.await,
        }
    }

    /// The BiDi connection and this page's browsing context when the page has
    /// routes: its navigations then go through BiDi ([`Bidi::navigate`] says
    /// why), and take no switching lock, so a route's handler may call the
    /// page while the navigation waits for it.
    fn routed_context(&self) -> Option<(&Arc<Bidi>, String)> {
        let bidi = self.bidi()?;
        if bidi.routes.is_empty() {
            return None;
        }
        let context = match self.engine().window() {
            Some(w) => w.to_string(),
            None => bidi.context.lock().expect("bidi lock").clone()?,
        };
        Some((bidi, context))
    }

    /// The BiDi connection and this page's browsing context when its reads
    /// (`url`, `title`, `html`, `evaluate`, `eval`) and screenshots go over
    /// WebDriver BiDi, once a navigation under way has reached its document
    /// ([`Bidi::settle`]): while the page has routes, and always on Firefox
    /// (as its engine calls, [`Engine::bidi_calls`]). chromedriver serves a
    /// classic command sent while a navigation loads only after that load,
    /// and forwards no BiDi command meanwhile, so a read of a document a
    /// route answers (or an `evaluate` whose fetch one answers) would hold
    /// back the very answer it waits for; geckodriver's classic reads could
    /// see the document the navigation was leaving.
    pub(super) async fn settled(&self) -> Option<(&Arc<Bidi>, String)> {
        let (bidi, context) = self.engine().bidi_calls()?;
        self.engine().catch_up().await;
        bidi.settle(&context).await;
        Some((bidi, context))
    }

    /// Reloads the page.
    pub async fn reload(&self) -> Result<(), BrowserError> {
        if let Some((bidi, context)) = self.routed_context() {
            self.engine().catch_up().await;
            return bidi.navigate(&context, None, "reloading the page").await;
        }
        self.engine()
            .in_window(wire::post(
                self.client(),
                "refresh",
                json!({}),
                "reloading the page",
            ))
            .await
            .map(|_| ())
    }

    /// Goes back in history.
    pub async fn go_back(&self) -> Result<(), BrowserError> {
        if let Some((bidi, context)) = self.routed_context() {
            self.engine().catch_up().await;
            return bidi.traverse(&context, -1, "going back").await;
        }
        self.engine()
            .in_window(wire::post(self.client(), "back", json!({}), "going back"))
            .await
            .map(|_| ())
    }

    /// Goes forward in history.
    pub async fn go_forward(&self) -> Result<(), BrowserError> {
        if let Some((bidi, context)) = self.routed_context() {
            self.engine().catch_up().await;
            return bidi.traverse(&context, 1, "going forward").await;
        }
        self.engine()
            .in_window(wire::post(
                self.client(),
                "forward",
                json!({}),
                "going forward",
            ))
            .await
            .map(|_| ())
    }

    /// Runs a Chrome DevTools Protocol command (`"Emulation.setTimezoneOverride"`,
    /// …) through chromedriver, for anything the page API lacks.
    pub async fn cdp(&self, command: &str, params: Value) -> Result<Value, BrowserError> {
        if self.inner.browser != BrowserKind::Chromium {
            return Err(engines::no_cdp(self.inner.browser, command));
        }
        cdp(self.client(), command, params).await
    }

    /// Sets the viewport (the page's visible area, and so screenshots) to
    /// `width`x`height` CSS pixels.
    pub async fn set_viewport_size(&self, width: u32, height: u32) -> Result<(), BrowserError> {
        // Over BiDi while the page's calls go that way (with routes, and on
        // Firefox): chromedriver would hold a CDP command sent while a routed
        // document loads until that load, which the route's BiDi answer it
        // holds back would end (`Page::settled` says why).
        let set = match self.engine().bidi_calls() {
            // Chromium's mapper answers it once a navigation under way has
            // its document (a route's answer included).
            Some((bidi, context)) => {
                engines::set_viewport(self.client(), Some((&**bidi, &*context)), (width, height))
                    .await
            }
            None if self.inner.browser == BrowserKind::Chromium => cdp(
                self.client(),
                "Emulation.setDeviceMetricsOverride",
                json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
            )
            .await
            .map(|_| ()),
            None => engines::set_viewport(self.client(), None, (width, height)).await,
        };
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

    /// The ARIA snapshot of the whole page (YAML), as `aria.yml` evidence shows it.
    pub async fn aria_snapshot(&self) -> Result<String, BrowserError> {
        let answer = self
            .engine()
            .call(
                Call {
                    request: Request::AriaSnapshot,
                    timeout: 0,
                },
                "reading the ARIA snapshot",
            )
            .await?;
        let v = answer.result.unwrap_or_default();
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// A PNG of a region of the page (document coordinates).
    pub(crate) async fn capture_clip(&self, b: &Clip) -> Result<Vec<u8>, BrowserError> {
        if let Some((bidi, context)) = self.settled().await {
            return bidi
                .capture(
                    &context,
                    Origin::Document,
                    Some(engines::box_clip(b)),
                    "taking a screenshot of part of the page",
                )
                .await;
        }
        if self.inner.browser != BrowserKind::Chromium {
            return engines::capture_clip(self.inner.browser, self.bidi().map(|b| &**b), b).await;
        }
        let shot = cdp(
            self.client(),
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true, "clip": {
                "x": b.x, "y": b.y, "width": b.width, "height": b.height, "scale": 1}}),
        )
        .await?;
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap_or_default())
            .map_err(|e| cmd_err("decoding a screenshot", e))
    }

    /// A PNG of the viewport.
    pub async fn screenshot(&self) -> Result<Vec<u8>, BrowserError> {
        if let Some((bidi, context)) = self.settled().await {
            return bidi
                .capture(&context, Origin::Viewport, None, "taking a screenshot")
                .await;
        }
        self.engine()
            .in_window(async {
                self.inner
                    .client
                    .screenshot()
                    .await
                    .map_err(|e| wire::fail("taking a screenshot", e))
            })
            .await
    }

    /// The current URL.
    pub async fn url(&self) -> Result<String, BrowserError> {
        if let Some((bidi, context)) = self.settled().await {
            return bidi.url(&context, "reading the URL").await;
        }
        self.engine()
            .in_window(async {
                self.inner
                    .client
                    .current_url()
                    .await
                    .map(|u| u.to_string())
                    .map_err(|e| wire::fail("reading the URL", e))
            })
            .await
    }

    /// The document's title.
    pub async fn title(&self) -> Result<String, BrowserError> {
        if let Some((bidi, context)) = self.settled().await {
            return bidi
                .read(&context, "document.title", "reading the title")
                .await;
        }
        self.engine()
            .in_window(async {
                self.inner
                    .client
                    .title()
                    .await
                    .map_err(|e| wire::fail("reading the title", e))
            })
            .await
    }

    /// The page's HTML as it is now.
    pub async fn html(&self) -> Result<String, BrowserError> {
        if let Some((bidi, context)) = self.settled().await {
            return bidi.read(&context, HTML_JS, "reading the HTML").await;
        }
        self.engine()
            .in_window(async {
                self.inner
                    .client
                    .source()
                    .await
                    .map_err(|e| wire::fail("reading the HTML", e))
            })
            .await
    }

    // ---- evidence hooks ----

    /// A PNG of the viewport, or of the whole page (through CDP) when `full_page`.
    #[doc(hidden)]
    pub async fn capture(&self, full_page: bool) -> Result<Vec<u8>, BrowserError> {
        if !full_page {
            return self.screenshot().await;
        }
        if let Some((bidi, context)) = self.settled().await {
            return bidi
                .capture(
                    &context,
                    Origin::Document,
                    None,
                    "taking a full-page screenshot",
                )
                .await;
        }
        let c = &self.inner.client;
        if self.inner.browser != BrowserKind::Chromium {
            return engines::capture_full(c, self.bidi().map(|b| &**b)).await;
        }
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

    /// The session's BiDi connection, if it has one.
    pub(crate) fn bidi(&self) -> Option<&Arc<Bidi>> {
        self.inner.bidi.as_ref()
    }

    /// The page's engine.
    pub fn browser(&self) -> BrowserKind {
        self.inner.browser
    }

    /// The base URL relative paths and globs are joined to.
    pub(crate) fn base_url(&self) -> &str {
        &self.inner.base_url
    }

    /// Waits until the events the page sent before now have arrived: one BiDi
    /// round trip through the page's renderer (its events come before the answer).
    async fn flush_events(&self, bidi: &Bidi) {
        let context = bidi.context.lock().expect("bidi lock").clone();
        if let Some(context) = context {
            bidi.flush(&context).await;
        }
    }

    /// Console and network entries since the previous call. With BiDi: the
    /// events that arrived (no WebDriver command); else one read of the
    /// `devtools` log, which carries both (more only while requests are in flight).
    #[doc(hidden)]
    pub async fn take_logs(&self) -> Result<(Vec<ConsoleEntry>, Vec<NetworkEntry>), BrowserError> {
        if let Some(bidi) = &self.inner.bidi {
            // No round trip: the caller took the boundary's screenshot first,
            // by which time the page's earlier events have arrived.
            return Ok(bidi.log.take().await);
        }
        if self.inner.browser != BrowserKind::Chromium {
            // No BiDi and no log endpoint (WebKit): nothing to read; the
            // first step's console says so.
            let first = !self
                .inner
                .noted
                .swap(true, std::sync::atomic::Ordering::Relaxed);
            let note = first.then(|| engines::no_bidi_entry(self.inner.browser));
            return Ok((note.into_iter().collect(), Vec::new()));
        }
        let c = &self.inner.client;
        let read =
            |v: &Value| logs::devtools(v, &mut self.inner.pending.lock().expect("pending lock"));
        let (mut console, mut network) = read(&get_log(c, "devtools").await?);
        {
            let mut early = self.inner.early.lock().expect("early lock");
            console.splice(0..0, std::mem::take(&mut early.0));
            network.splice(0..0, std::mem::take(&mut early.1));
        }
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

    /// The step's console and network so far, as its boundary will record them
    /// (left in place for it); with `pending`, requests not yet answered too.
    pub(crate) async fn peek_logs(
        &self,
        pending: bool,
    ) -> Result<(Vec<ConsoleEntry>, Vec<NetworkEntry>), BrowserError> {
        if let Some(bidi) = &self.inner.bidi {
            self.flush_events(bidi).await;
            return Ok(bidi.log.peek(pending));
        }
        if self.inner.browser != BrowserKind::Chromium {
            return Ok((Vec::new(), Vec::new()));
        }
        let got = get_log(&self.inner.client, "devtools").await?;
        let mut open = self.inner.pending.lock().expect("pending lock");
        let (console, network) = logs::devtools(&got, &mut open);
        let mut early = self.inner.early.lock().expect("early lock");
        early.0.extend(console);
        early.1.extend(network);
        let mut net = early.1.clone();
        net.extend(
            open.values()
                .filter(|(e, _)| pending || e.status.is_some())
                .map(|(e, _)| e.clone()),
        );
        Ok((early.0.clone(), net))
    }

    /// The page's HTML for failure evidence.
    #[doc(hidden)]
    pub async fn page_html(&self) -> Result<String, BrowserError> {
        self.html().await
    }
}
