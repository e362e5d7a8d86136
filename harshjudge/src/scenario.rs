//! The scenario handle given to every `#[scenario]` function, and what it asks
//! of the run it is in ([`RunContext`]: the runner implements it, so that this
//! handle, the registry that stores `fn(Scenario)` and the runner that calls
//! it import each other in one direction only: runner -> registry -> scenario).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::api::{ApiRequestContext, CommandBuilder, CookieJar, Host};
use crate::error::Error;
use crate::evidence::{BoxFuture, Probe};
use harshjudge_store::store::NewEvidence;
use harshjudge_store::store::{EvidenceName, RunId, StepId, StoreError};

/// What a [`Scenario`] handle asks of the run it is in. The runner implements
/// it (`runner::Shared`); everything the handle writes goes through the run's
/// event stream there.
pub(crate) trait RunContext: Send + Sync + 'static {
    /// The scenario's slug.
    fn slug(&self) -> &'static str;
    /// The scenario's title.
    fn title(&self) -> &'static str;
    /// The app's base URL (empty when none is set).
    fn base_url(&self) -> &str;
    /// The run being recorded.
    fn run_id(&self) -> &RunId;
    /// The store the run is recorded in.
    fn recorded_in(&self) -> harshjudge_store::store::Store;
    /// The step running now.
    fn current_step(&self) -> Option<StepId>;
    /// The evidence folder of `step`.
    fn evidence_dir(&self, step: &StepId) -> PathBuf;
    /// Writes `file` into the evidence of `step` before it returns: the
    /// file's path, once it is on disk.
    fn attach(&self, step: &StepId, file: NewEvidence<'_>) -> Result<PathBuf, StoreError>;
    /// A step boundary: ends the running step as passed and starts step `n`.
    /// True when the scenario must stop here (past the selected steps).
    fn begin(&self, n: usize) -> BoxFuture<'_, bool>;
    /// Registers a probe (its first capture is the running step's `before`).
    fn probe(&self, probe: Arc<dyn Probe>) -> BoxFuture<'_, ()>;
    /// Opens a browser page for the scenario, released when it ends, and
    /// registers it as a probe.
    /// `emulation`: the device, place and time it opens with (`None`: the
    /// scenario's own, from `#[scenario(locale = …, device = …)]`).
    fn page(
        self: Arc<Self>,
        emulation: Option<harshjudge_browser::Emulation>,
    ) -> BoxFuture<'static, Result<harshjudge_browser::Page, Error>>;
    /// The run's browsers, which the scenario's pages come from.
    fn browsers(&self) -> &harshjudge_browser::Browsers;
    /// The pages the scenario opened (their cookies go with `s.request()`).
    fn pages(&self) -> Vec<harshjudge_browser::Page>;
    /// The jar the scenario's requests share while it has no open page
    /// (seeded from its storage state at first use), handed to its page as it
    /// opens: the same one at every call. An error naming the state when it
    /// cannot be read.
    fn cookie_jar(&self) -> Result<CookieJar, Error>;
    /// The saved storage state the scenario starts with
    /// (`#[scenario(storage_state = "…")]`): `None` without one; an error
    /// naming the state and the setups that could save it when it never was.
    fn storage_state(&self) -> Result<Option<harshjudge_browser::StorageState>, Error>;
    /// The value of the fixture `key` (`module::name`), once set up for the
    /// scenario (or for the invocation).
    fn fixture(&self, key: &str) -> Option<Arc<dyn std::any::Any + Send + Sync>>;
}

/// The handle a scenario function receives: the app's base URL, the run and
/// step it is in, and the attachment API ([`attach_json`](Scenario::attach_json),
/// [`attach_text`](Scenario::attach_text), [`attach_bytes`](Scenario::attach_bytes),
/// [`attach_file`](Scenario::attach_file)). Cheap to clone.
///
/// It opens what a step works with: a browser [`page`](Scenario::page), HTTP
/// [`request`](Scenario::request)s and [`command`](Scenario::command)s, each
/// recorded in the step's evidence.
///
/// ```no_run
/// use harshjudge::serde_json::json;
/// use harshjudge::{Scenario, expect, scenario, step};
///
/// #[scenario]
/// async fn health(s: Scenario) -> harshjudge::Result {
///     step!("The API answers", {
///         let health = s.request().get("/api/health").send().await?;
///         expect(&health).to_be_ok().await?;
///         s.attach_json("base", &json!({ "url": s.base_url() }))?;
///     });
///     step!("The page says so", {
///         let page = s.page().await?;
///         page.goto("/status").await?;
///         expect(&page.get_by_test_id("status")).to_have_text("ok").await?;
///     });
///     Ok(())
/// }
///
/// harshjudge::main!();
/// ```
#[derive(Clone)]
pub struct Scenario {
    pub(crate) shared: Arc<dyn RunContext>,
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scenario")
            .field("slug", &self.slug())
            .field("run_id", &self.run_id())
            .finish()
    }
}

/// Step boundaries, called by the code `#[scenario]` generates.
#[doc(hidden)]
#[derive(Clone)]
pub struct StepMarker {
    shared: Arc<dyn RunContext>,
}

impl StepMarker {
    /// Ends the running step (if any) as passed and starts step `n` (1-based).
    /// Past the last step selected by the test filter, it never returns: the
    /// runner stops the scenario there.
    pub async fn begin(&self, n: usize) {
        if self.shared.begin(n).await {
            std::future::pending::<()>().await;
        }
    }
}

impl Scenario {
    pub(crate) fn step_marker(&self) -> StepMarker {
        StepMarker {
            shared: self.shared.clone(),
        }
    }

    /// The app's base URL (`HARSHJUDGE_BASE_URL`, else `baseUrl` of
    /// `.harshJudge/config.yaml`; empty when neither is set).
    pub fn base_url(&self) -> &str {
        self.shared.base_url()
    }

    /// `path` joined onto the base URL (`"/login"` → `http://127.0.0.1:3000/login`).
    /// An absolute URL is returned as it is.
    pub fn url(&self, path: &str) -> String {
        if path.starts_with("http://") || path.starts_with("https://") {
            return path.to_string();
        }
        let base = self.base_url().trim_end_matches('/');
        if path.is_empty() {
            base.to_string()
        } else if path.starts_with('/') {
            format!("{base}{path}")
        } else {
            format!("{base}/{path}")
        }
    }

    /// The scenario's slug.
    pub fn slug(&self) -> &str {
        self.shared.slug()
    }

    /// The scenario's title.
    pub fn title(&self) -> &str {
        self.shared.title()
    }

    /// The id of the run being recorded.
    pub fn run_id(&self) -> String {
        self.shared.run_id().to_string()
    }

    /// The step running now (`None` before the first step).
    pub fn current_step(&self) -> Option<StepId> {
        self.shared.current_step()
    }

    /// The evidence folder of the step running now.
    pub fn evidence_dir(&self) -> Option<PathBuf> {
        let step = self.current_step()?;
        Some(self.shared.evidence_dir(&step))
    }
}

impl Scenario {
    /// Attaches `value` as pretty-printed JSON (`{name}.json`, type `custom`).
    #[track_caller]
    pub fn attach_json<T: Serialize + ?Sized>(
        &self,
        name: &str,
        value: &T,
    ) -> Result<PathBuf, Error> {
        let bytes = serde_json::to_vec_pretty(value).map_err(|e| {
            Error::msg(format!(
                "attachment {name:?}: cannot serialize to JSON: {e}"
            ))
        })?;
        self.attach(name, "json", "custom", &bytes)
    }

    /// Attaches text (`{name}.txt`, type `text`).
    #[track_caller]
    pub fn attach_text(&self, name: &str, text: &str) -> Result<PathBuf, Error> {
        self.attach(name, "txt", "text", text.as_bytes())
    }

    /// Attaches bytes as `{name}.{ext}` (type `custom`).
    #[track_caller]
    pub fn attach_bytes(&self, name: &str, ext: &str, bytes: &[u8]) -> Result<PathBuf, Error> {
        self.attach(name, ext, "custom", bytes)
    }

    /// Copies a file in as `{name}.{its extension}` (type `file`).
    #[track_caller]
    pub fn attach_file(&self, name: &str, path: impl AsRef<Path>) -> Result<PathBuf, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            Error::msg(format!(
                "attachment {name:?}: cannot read {}: {e}",
                path.display()
            ))
        })?;
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("bin");
        self.attach(name, ext, "file", &bytes)
    }

    /// Writes an attachment of any type into the current step's evidence.
    #[track_caller]
    pub fn attach(
        &self,
        name: &str,
        ext: &str,
        kind: &str,
        bytes: &[u8],
    ) -> Result<PathBuf, Error> {
        let name = EvidenceName::new(name)?;
        let step = self
            .current_step()
            .ok_or_else(|| Error::msg(format!("attachment {name}: no step is running")))?;
        let file = NewEvidence {
            name: &name,
            ext,
            kind,
            bytes,
        };
        Ok(self.shared.attach(&step, file)?)
    }
}

impl Scenario {
    /// Registers a probe. It captures at once (the `before` of the step running
    /// now), then at every step boundary (`after` of one step, `before` of the
    /// next), and when a step fails.
    pub async fn probe(&self, probe: impl Probe) {
        self.shared.probe(Arc::new(probe)).await;
    }
}

impl Scenario {
    /// A browser page for this scenario: headless Chromium (started for you;
    /// `HARSHJUDGE_BROWSER` picks Firefox or WebKit, `HARSHJUDGE_WEBDRIVER_URL`
    /// a remote end), starting at `about:blank` with none of the state of the
    /// scenarios before it (a browser context of its own on Chromium, a user
    /// context on Firefox, a new MiniBrowser on WebKit; a session reset when
    /// taken on a remote end without BiDi), but a saved login's storage state
    /// when the scenario asks for one. From now on every
    /// step records `before.png`, `after.png`, `console.json` and `network.json`,
    /// and a failed step `error.png`, `page.html` and `aria.yml` (the page's ARIA
    /// snapshot) (`HARSHJUDGE_EVIDENCE`).
    /// With `#[scenario(locale = "de-DE", device = "iPhone 15", …)]`, the page
    /// opens with that device, place and time.
    pub async fn page(&self) -> Result<harshjudge_browser::Page, Error> {
        self.shared.clone().page(None).await
    }

    /// [`Scenario::page`] opened with `emulation` instead of the scenario's
    /// own (Playwright's `browser.newPage({ locale, … })`): a second user on
    /// another device, or one page in dark mode.
    ///
    /// ```no_run
    /// # async fn f(s: harshjudge::Scenario) -> harshjudge::Result {
    /// use harshjudge::browser::{ColorScheme, Emulation};
    /// let phone = s.page_with(Emulation::device("Pixel 7")?.color_scheme(ColorScheme::Dark)).await?;
    /// # Ok(()) }
    /// ```
    pub async fn page_with(
        &self,
        emulation: harshjudge_browser::Emulation,
    ) -> Result<harshjudge_browser::Page, Error> {
        self.shared.clone().page(Some(emulation)).await
    }

    /// The run's [`Browsers`](harshjudge_browser::Browsers), which
    /// [`Scenario::page`] opens pages from (tests look at its processes).
    #[doc(hidden)]
    pub fn browsers(&self) -> &harshjudge_browser::Browsers {
        self.shared.browsers()
    }
}

impl Scenario {
    /// HTTP requests recorded in the step's evidence (Playwright's
    /// `APIRequestContext`): `s.request().get("/api/items").send().await?`.
    /// Relative URLs join the base URL. Every `s.request()` of the scenario
    /// and its pages share one cookie jar both ways: what the page sets or
    /// deletes the next request sees, and what a response sets is in the page
    /// too (before any page opens: its saved storage state's cookies and those
    /// responses set, handed to the page as it opens).
    ///
    /// ```no_run
    /// # async fn f(s: harshjudge::Scenario) -> harshjudge::Result {
    /// use harshjudge::expect;
    /// use harshjudge::serde_json::json;
    ///
    /// let api = s.request();
    /// let created = api
    ///     .post("/api/items")
    ///     .json(&json!({ "text": "Buy pears" }))
    ///     .send()
    ///     .await?;
    /// expect(&created).to_have_status(201).await?;
    /// let list = api.get("/api/items").query(&[("limit", "10")]).send().await?;
    /// expect(&list).to_have_json(json!([{ "text": "Buy pears" }])).await?;
    /// # Ok(()) }
    /// ```
    pub fn request(&self) -> ApiRequestContext {
        ApiRequestContext::new(Arc::new(ApiHost(self.shared.clone())))
    }

    /// A command recorded in the step's evidence (`stdout`, `stderr`,
    /// `exit_code`): `s.command("demo-cli").args(["greet", "Ada"]).run().await?`.
    ///
    /// ```no_run
    /// # async fn f(s: harshjudge::Scenario) -> harshjudge::Result {
    /// use harshjudge::expect;
    ///
    /// let out = s
    ///     .command("demo-cli")
    ///     .args(["greet", "Ada"])
    ///     .timeout(std::time::Duration::from_secs(10))
    ///     .run()
    ///     .await?;
    /// expect(&out).to_succeed().await?;
    /// expect(&out).to_have_stdout("Hello, Ada!").await?;
    /// # Ok(()) }
    /// ```
    pub fn command(&self, program: impl Into<std::ffi::OsString>) -> CommandBuilder {
        CommandBuilder::new(Arc::new(ApiHost(self.shared.clone())), program)
    }
}

/// The scenario as requests and commands see it.
struct ApiHost(Arc<dyn RunContext>);

impl Host for ApiHost {
    fn base_url(&self) -> String {
        self.0.base_url().to_string()
    }
    fn step_key(&self) -> Option<PathBuf> {
        self.0.current_step().map(|s| self.0.evidence_dir(&s))
    }
    fn attach(&self, file: NewEvidence<'_>) -> Result<Option<PathBuf>, StoreError> {
        match self.0.current_step() {
            Some(step) => self.0.attach(&step, file).map(Some),
            None => Ok(None),
        }
    }
    fn pages(&self) -> Vec<harshjudge_browser::Page> {
        self.0.pages()
    }
    /// The scenario's jar (`#[scenario(storage_state = "…")]` seeds it); a
    /// state never saved is an error naming the setups that could save it.
    fn cookie_jar(&self) -> Result<CookieJar, crate::api::ApiError> {
        (self.0.cookie_jar()).map_err(|e| crate::api::ApiError::StorageState {
            reason: e.message(),
        })
    }
}

/// What the running step's pages fetched and logged (issue 23.3).
impl Scenario {
    /// The running step's requests, of every page the scenario opened, as the
    /// step's `network.json` records them: `expect(&s.network()).to_have_request("**/api/items").method("POST").status(201).await?`,
    /// or `.not()` for a request that must not happen.
    pub fn network(&self) -> harshjudge_browser::NetworkLog {
        harshjudge_browser::NetworkLog::new(self.shared.pages())
    }

    /// The running step's console messages and page errors, of every page the
    /// scenario opened, as the step's `console.json` records them:
    /// `expect(&s.console()).to_have_no_errors().await?`,
    /// `expect(&s.console()).to_have_message("saved").await?`.
    pub fn console(&self) -> harshjudge_browser::ConsoleLog {
        harshjudge_browser::ConsoleLog::new(self.shared.pages())
    }
}
