//! [`Page`]: navigation, JavaScript, viewport, screenshots and logs, the
//! evidence hooks the runner uses, and [`ScenarioEvidence`], all a page knows
//! of the scenario that opened it. Locators, assertions, the keyboard and the
//! string-selector shorthands add their `impl Page` blocks in their own files.

use std::future::Future;
use std::panic::Location;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use fantoccini::Client;
use serde_json::Value;

use super::backend::{AnyPage, History, PageBackend, Shot};
use super::config::BrowserKind;
use super::error::BrowserError;
use super::logs::{ConsoleEntry, NetworkEntry};
use super::protocol::{Answer, Call, Clip, Request};
use super::trace::{CallText, Kind, Tracer, arg, span};

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

    /// Saves a storage state as `name` where the scenario's later runs find
    /// it ([`Page::save_storage_state`]): `.harshJudge/.auth/{name}.json`.
    /// Returns the file's path.
    fn save_storage_state(
        &self,
        name: &super::state_name::StateName,
        bytes: &[u8],
    ) -> Result<PathBuf, Box<dyn std::error::Error + Send + Sync>>;

    /// The next number of the scenario's evidence of `kind` (`popup`,
    /// `download`), from 1: `popup-1`, `popup-2`, … whichever page of the
    /// scenario records it.
    fn next_number(&self, kind: &str) -> usize;

    /// Stops the running step's timer until the value returned is dropped
    /// ([`Page::pause`]); by default there is no timer to stop.
    fn hold_clock(self: Arc<Self>) -> Box<dyn Send> {
        Box::new(())
    }

    /// The running step, as a pause names it (`step 2 "Pay"`).
    fn step_label(&self) -> Option<String> {
        None
    }

    /// The scenario's run folder (its evidence and traces), as a pause names it.
    fn run_folder(&self) -> Option<PathBuf> {
        None
    }
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
///
/// ```no_run
/// # async fn f(page: harshjudge_browser::Page) -> Result<(), Box<dyn std::error::Error>> {
/// use harshjudge_browser::expect;
///
/// page.goto("/login").await?; // relative to the base URL
/// page.get_by_label("Email").fill("ada@example.com").await?;
/// page.get_by_label("Password").fill("secret").await?;
/// page.get_by_role("button").name("Sign in").click().await?;
/// expect(&page).to_have_url("/dashboard").await?;
/// let items: u64 = page.evaluate("() => document.querySelectorAll('li').length", ()).await?;
/// assert!(items > 0);
/// # Ok(()) }
/// ```
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
    /// The protocol the page speaks (chosen when it opened; never asked which).
    backend: AnyPage,
    base_url: String,
    /// The scenario that opened the page (`Scenario::page`), for assertions that
    /// write evidence and baselines (`to_have_screenshot`). Weak: the scenario holds the page.
    owner: OnceLock<Weak<dyn ScenarioEvidence>>,
    /// The http(s) origins the page navigated to, in order (for
    /// [`Page::storage_state`]).
    visited: Mutex<Vec<String>>,
    /// The tracer of the scenario's attempt and the page's number in it,
    /// when its steps are traced.
    trace: OnceLock<(Arc<Tracer>, usize)>,
    /// How long the page waits before each action (`--slow-mo`; zero: none).
    slow_mo: Duration,
}

/// A page held without keeping it open (the tracer's: the page holds the
/// tracer).
#[derive(Clone)]
pub(crate) struct WeakPage {
    inner: Weak<Inner>,
    wait: Duration,
    expect_wait: Option<Duration>,
}

impl std::fmt::Debug for WeakPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WeakPage")
    }
}

impl WeakPage {
    /// The page, while it is open.
    pub(crate) fn upgrade(&self) -> Option<Page> {
        Some(Page {
            inner: self.inner.upgrade()?,
            wait: self.wait,
            expect_wait: self.expect_wait,
        })
    }
}

impl super::trace::dom::SnapshotPage for WeakPage {
    fn after<'a>(
        &'a self,
        tracer: &'a Tracer,
        n: usize,
        entry: u64,
        target: Option<String>,
    ) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + 'a>> {
        Box::pin(async move {
            if let Some(page) = self.upgrade() {
                super::trace::dom::after(page.backend(), tracer, n, entry, target).await;
            }
        })
    }

    fn screenshot(&self) -> super::trace::dom::Screenshot<'_> {
        Box::pin(async move {
            let page = self.upgrade()?;
            Some(page.backend().screenshot(Shot::Viewport).await)
        })
    }
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

impl Page {
    pub(crate) fn new(
        backend: AnyPage,
        base_url: &str,
        wait: Duration,
        expect_wait: Option<Duration>,
        slow_mo: Duration,
    ) -> Page {
        Page {
            inner: Arc::new(Inner {
                backend,
                base_url: base_url.trim_end_matches('/').to_string(),
                owner: OnceLock::new(),
                visited: Mutex::new(Vec::new()),
                trace: OnceLock::new(),
                slow_mo,
            }),
            wait,
            expect_wait,
        }
    }

    /// The page of a popup this page opened (`backend`), tied to the same
    /// scenario.
    pub(crate) fn popup_page(&self, backend: AnyPage) -> Page {
        let owner = OnceLock::new();
        if let Some(o) = self.inner.owner.get() {
            let _ = owner.set(o.clone());
        }
        let page = Page {
            inner: Arc::new(Inner {
                backend,
                base_url: self.inner.base_url.clone(),
                owner,
                visited: Mutex::new(Vec::new()),
                trace: OnceLock::new(),
                slow_mo: self.inner.slow_mo,
            }),
            wait: self.wait,
            expect_wait: self.expect_wait,
        };
        if let Some((tracer, _)) = self.tracer() {
            page.set_tracer(tracer);
        }
        page
    }

    /// Records what is done on the page into `tracer` from now on (a page
    /// has one tracer for its life: a second is ignored), and has the browser
    /// keep the response bodies the trace's images are read from.
    pub async fn trace_into(&self, tracer: &Arc<Tracer>) {
        self.set_tracer(tracer);
        // Before its first load: a BiDi collector keeps only the bodies that
        // arrive after it (the trace's images).
        self.keep_response_bodies().await;
    }

    /// Records the page's calls into `tracer` (once; the scenario's attempt's).
    pub(crate) fn set_tracer(&self, tracer: &Arc<Tracer>) {
        let b = self.backend();
        let n = tracer.add_page(b.kind().name(), b.protocol(), b.viewport());
        tracer.attach(
            n,
            Arc::new(WeakPage {
                inner: Arc::downgrade(&self.inner),
                wait: self.wait,
                expect_wait: self.expect_wait,
            }),
        );
        let _ = self.inner.trace.set((tracer.clone(), n));
    }

    /// Has the browser keep the page's response bodies from now on, for
    /// its trace's images (`trace/images.rs`; BiDi: the session's data
    /// collector, asked for once).
    pub(crate) async fn keep_response_bodies(&self) {
        self.backend().keep_response_bodies().await;
    }

    /// The page's tracer and its number there, when its steps are traced.
    pub(crate) fn tracer(&self) -> Option<&(Arc<Tracer>, usize)> {
        (self.inner.trace.get()).filter(|_| !super::trace::is_untraced())
    }

    /// How long the page waits before each action (`--slow-mo`; zero: none).
    pub(crate) fn slow_mo(&self) -> Duration {
        self.inner.slow_mo
    }

    /// The protocol the page speaks.
    pub(crate) fn backend(&self) -> &AnyPage {
        &self.inner.backend
    }

    /// Ties the page to the scenario that opened it (once).
    #[doc(hidden)]
    pub fn set_owner<S: ScenarioEvidence + 'static>(&self, owner: &Arc<S>) {
        let owner: Weak<dyn ScenarioEvidence> = Arc::downgrade(owner) as Weak<dyn ScenarioEvidence>;
        let weak = owner.clone();
        self.backend()
            .set_dialog_recorder(Arc::new(move |name: &str, bytes: &[u8]| {
                if let Some(owner) = weak.upgrade() {
                    let _ = owner.attach(name, "json", "dialog", bytes);
                }
            }));
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

    /// One call of the injected engine, in the frame its target names (if
    /// any), repeated in the new document when a navigation ends it.
    /// A traced `act` or `expect` answers its document's DOM snapshot: the
    /// trace's moment is completed and held here (`trace/dom.rs`).
    pub(crate) async fn call(&self, call: Call, during: &str) -> Result<Answer, BrowserError> {
        let frame = call.request.frame().cloned();
        let moment = super::trace::dom::Moment::of(&call.request);
        let mut answer = self
            .backend()
            .call_engine(frame.as_ref(), call, during)
            .await?;
        if let Some(tracer) = self.tracer() {
            super::trace::note(&answer.log);
            if let (Some(moment), Some(first)) = (moment, answer.snapshot.take()) {
                // Boxed: the engine calls of the frame walk are large futures.
                let backend = self.backend();
                Box::pin(super::trace::dom::moment(
                    backend, tracer, frame, moment, first,
                ))
                .await;
            }
        }
        Ok(answer)
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

    /// The underlying fantoccini client of a WebDriver session, for anything
    /// the page API lacks; `None` for a page over the DevTools protocol
    /// (`HARSHJUDGE_CHROMIUM_PROTOCOL=cdp`). A page that speaks WebDriver
    /// BiDi sends no classic command itself: the client's current window may
    /// be another (a pooled session's first tab), so switch to the page's
    /// before a classic command.
    pub fn client(&self) -> Option<&Client> {
        self.backend().webdriver()
    }

    /// The page's session id: the WebDriver session's, or the DevTools
    /// session's.
    pub async fn session_id(&self) -> Option<String> {
        self.backend().session_id().await
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
    /// session speaks WebDriver BiDi or the DevTools protocol (not on WebKit).
    #[track_caller]
    pub fn goto(
        &self,
        path: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let path = path.as_ref().to_string();
        let args = arg(&path);
        let call = move || CallText::Page {
            method: "goto",
            args,
        };
        self.navigation(call, at, async move {
            let url = self.url_for(&path)?;
            if let Some(origin) = origin_of(&url) {
                self.visited(&origin);
            }
            self.backend().goto(&url).await
        })
    }

    /// Reloads the page.
    #[track_caller]
    pub fn reload(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        self.moved("reload", None, Location::caller())
    }

    /// Goes back in history.
    #[track_caller]
    pub fn go_back(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        self.moved("go_back", Some(History::Back), Location::caller())
    }

    /// Goes forward in history.
    #[track_caller]
    pub fn go_forward(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        self.moved("go_forward", Some(History::Forward), Location::caller())
    }

    /// A reload (`None`) or a move in history.
    fn moved(
        &self,
        method: &'static str,
        history: Option<History>,
        at: &'static Location<'static>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let call = move || CallText::Page {
            method,
            args: String::new(),
        };
        self.navigation(call, at, async move {
            match history {
                None => self.backend().reload().await,
                Some(h) => self.backend().go(h).await,
            }
        })
    }

    /// A navigation (`goto`, a reload, a move in history) as one entry of
    /// the trace, boxed as every public future of the page.
    fn navigation<'a>(
        &'a self,
        call: impl FnOnce() -> CallText + Send + 'a,
        at: &'static Location<'static>,
        body: impl Future<Output = Result<(), BrowserError>> + Send + 'a,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        Box::pin(span(
            self.tracer(),
            self.slow_mo(),
            None,
            Kind::Navigation,
            call,
            at,
            body,
        ))
    }

    /// Runs a Chrome DevTools Protocol command (`"Emulation.setTimezoneOverride"`,
    /// …) on the page's target (through chromedriver, or directly with
    /// `HARSHJUDGE_CHROMIUM_PROTOCOL=cdp`), for anything the page API lacks.
    pub async fn cdp(&self, command: &str, params: Value) -> Result<Value, BrowserError> {
        self.backend().cdp(command, params).await
    }

    /// Sets the viewport (the page's visible area, and so screenshots) to
    /// `width`x`height` CSS pixels.
    pub async fn set_viewport_size(&self, width: u32, height: u32) -> Result<(), BrowserError> {
        self.backend().set_viewport(width, height).await
    }

    /// Sets the viewport unless the page already has that size (a pooled
    /// session keeps the size it was released with).
    pub(crate) async fn ensure_viewport(&self, (w, h): (u32, u32)) -> Result<(), BrowserError> {
        if self.backend().viewport() == Some((w, h)) {
            return Ok(());
        }
        self.set_viewport_size(w, h).await
    }

    /// The ARIA snapshot of the whole page (YAML), as `aria.yml` evidence shows it.
    pub async fn aria_snapshot(&self) -> Result<String, BrowserError> {
        let answer = self
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
        self.backend().screenshot(Shot::Clip(b)).await
    }

    /// A PNG of the viewport.
    #[track_caller]
    pub fn screenshot(&self) -> impl Future<Output = Result<Vec<u8>, BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let shot = self.backend().screenshot(Shot::Viewport);
            super::trace::page_span(
                self.tracer(),
                self.slow_mo(),
                Kind::Read,
                "screenshot",
                String::new,
                at,
                shot,
            )
            .await
        })
    }

    /// The current URL.
    pub async fn url(&self) -> Result<String, BrowserError> {
        self.backend().url().await
    }

    /// The document's title.
    pub async fn title(&self) -> Result<String, BrowserError> {
        self.backend().title().await
    }

    /// The page's HTML as it is now.
    pub async fn html(&self) -> Result<String, BrowserError> {
        self.backend().html().await
    }

    // ---- evidence hooks ----

    /// A PNG of the viewport, or of the whole page when `full_page`.
    #[doc(hidden)]
    pub fn capture(
        &self,
        full_page: bool,
    ) -> impl Future<Output = Result<Vec<u8>, BrowserError>> + Send + '_ {
        let shot = if full_page {
            Shot::FullPage
        } else {
            Shot::Viewport
        };
        Box::pin(self.backend().screenshot(shot))
    }

    /// The page's engine.
    pub fn browser(&self) -> BrowserKind {
        self.backend().kind()
    }

    /// The protocol the page speaks, picked once when its session opened:
    /// `cdp` (a local Chromium), `webdriver-bidi` (Firefox, and any
    /// WebDriver session whose remote end offers BiDi) or `webdriver-classic`
    /// (WebKitGTK, remote ends without BiDi).
    #[doc(hidden)]
    pub fn protocol(&self) -> &'static str {
        self.backend().protocol()
    }

    /// The base URL relative paths and globs are joined to.
    pub(crate) fn base_url(&self) -> &str {
        &self.inner.base_url
    }

    /// Console and network entries since the previous call (at a step's
    /// boundary, after its screenshot).
    #[doc(hidden)]
    pub async fn take_logs(&self) -> Result<(Vec<ConsoleEntry>, Vec<NetworkEntry>), BrowserError> {
        let (console, network) = self.backend().take_logs().await?;
        if let Some((tracer, n)) = self.tracer() {
            tracer.logs(*n, &console, &network);
        }
        Ok((console, network))
    }

    /// The step's console and network so far, as its boundary will record them
    /// (left in place for it); with `pending`, requests not yet answered too.
    pub(crate) async fn peek_logs(
        &self,
        pending: bool,
    ) -> Result<(Vec<ConsoleEntry>, Vec<NetworkEntry>), BrowserError> {
        self.backend().peek_logs(pending).await
    }

    /// The page's HTML for failure evidence (after [`Page::until_parsed`]).
    #[doc(hidden)]
    pub async fn page_html(&self) -> Result<String, BrowserError> {
        self.html().await
    }

    /// Waits, up to [`PARSE_LIMIT`], while the top document is still being
    /// parsed (`document.readyState` is `loading`): a navigation that has
    /// just committed, a body still arriving. Between a document's commit
    /// and its first bytes the document is empty, and evidence read then
    /// (its HTML, its ARIA snapshot) would be of nothing. A read that fails
    /// (the page gone, its document replaced meanwhile) ends the wait: the
    /// evidence's own read then says what happened. Evidence only: a user's
    /// `page.html()` reads the page as it is, as Playwright's `content()`.
    #[doc(hidden)]
    pub async fn until_parsed(&self) {
        let deadline = tokio::time::Instant::now() + PARSE_LIMIT;
        loop {
            let state = self
                .evaluate_value("document.readyState", Value::Null)
                .await;
            let loading = state.is_ok_and(|s| s == "loading");
            if !loading || tokio::time::Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// How long evidence waits for a document still being parsed
/// ([`Page::until_parsed`]) before it is read as it is.
const PARSE_LIMIT: Duration = Duration::from_secs(2);
