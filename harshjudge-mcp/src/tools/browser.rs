//! Browser tools on `harshjudge`'s browser module: launch, navigate, click,
//! type, press, wait, screenshot, snapshot, console, network, close.
//!
//! Every tool that takes an element takes the same [`Target`]: `role` (+ `name`,
//! `exact`), `label`, `placeholder`, `text`, `altText`, `title`, `testId`, a CSS
//! `selector`, or a `ref` from the last `browser_snapshot`, narrowed by `nth`;
//! [`Resolved::locator`] turns it into a `harshjudge` [`Locator`]. `browser_expect`
//! runs the web-first assertions of `harshjudge::expect`. Nothing large goes inline: screenshots are files,
//! returned as paths (an image block only with `inline: true`). While a run is
//! active (after `startRun`, until `completeRun`), every action records its
//! before/after screenshots, console and network into the current step.

use std::time::{Duration, Instant};

use harshjudge::browser::{BrowserConfig, BrowserError, Locator, Page, TextMatch};
use harshjudge::run::RunHandle;
use harshjudge::store::{EvidenceName, RunId, Slug, StepId};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::agent::BrowserSession;
use crate::context::Context;
use crate::error::{Code, ToolError};

/// Declares an argument struct with the element target fields of every browser
/// tool (`role` + `name` + `exact`, `label`, `placeholder`, `altText`, `title`,
/// `testId`, `selector`, `ref`, `nth`) plus its own fields; its `target()` gives
/// the one [`Target`] all of them are turned into a locator through.
macro_rules! with_target {
    (
        $(#[$m:meta])*
        pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty,)* }
        text: $text:expr
    ) => {
        $(#[$m])*
        #[derive(Debug, Default, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct $name {
            /// An ARIA role (button, link, checkbox, textbox, heading, listitem, …),
            /// as Playwright's getByRole; refine with `name`.
            #[serde(default)]
            pub role: Option<String>,
            /// With `role`: the accessible name (a case-insensitive substring unless `exact`).
            #[serde(default)]
            pub name: Option<String>,
            /// Match `name`, `label`, `placeholder`, `text`, `altText` or `title` as the
            /// whole text, case-sensitive (default: case-insensitive substring).
            #[serde(default)]
            pub exact: Option<bool>,
            /// A form control by its label (`<label>`, aria-labelledby, aria-label).
            #[serde(default)]
            pub label: Option<String>,
            /// An input by its placeholder.
            #[serde(default)]
            pub placeholder: Option<String>,
            /// An image (or area, image input) by its alt text.
            #[serde(default)]
            pub alt_text: Option<String>,
            /// An element by its title attribute.
            #[serde(default)]
            pub title: Option<String>,
            /// A `data-testid` value.
            #[serde(default)]
            pub test_id: Option<String>,
            /// A CSS selector.
            #[serde(default)]
            pub selector: Option<String>,
            /// An element ref from the last `browser_snapshot` (e.g. "e12").
            #[serde(default, rename = "ref")]
            pub reference: Option<String>,
            /// Which match to take when the target matches several (from 0; -1 is the last).
            #[serde(default)]
            pub nth: Option<i64>,
            $($(#[$fm])* pub $f: $t,)*
        }

        impl $name {
            /// The element target of these arguments.
            #[allow(clippy::redundant_closure_call)]
            pub fn target(&self) -> Target {
                Target {
                    role: self.role.clone(),
                    name: self.name.clone(),
                    exact: self.exact,
                    label: self.label.clone(),
                    placeholder: self.placeholder.clone(),
                    text: ($text)(self),
                    alt_text: self.alt_text.clone(),
                    title: self.title.clone(),
                    test_id: self.test_id.clone(),
                    selector: self.selector.clone(),
                    reference: self.reference.clone(),
                    nth: self.nth,
                }
            }
        }
    };
}

with_target! {
    /// What an action aims at: exactly one kind of target (the arguments of
    /// `browser_click`), optionally narrowed by `nth`.
    pub struct Target {
        /// Visible text of the element (a case-insensitive substring unless `exact`).
        #[serde(default)]
        pub text: Option<String>,
    }
    text: |s: &Target| s.text.clone()
}

/// A target checked and ready to become a locator on a page.
#[derive(Clone, Debug)]
pub struct Resolved {
    kind: &'static str,
    value: String,
    name: Option<String>,
    exact: bool,
    nth: Option<i64>,
}

impl Resolved {
    /// The `harshjudge` locator of this target on `page`: the one place a tool
    /// target becomes a [`Locator`].
    pub fn locator(&self, page: &Page) -> Locator {
        let m = |s: &str| -> TextMatch {
            if self.exact {
                TextMatch::exact(s)
            } else {
                s.into()
            }
        };
        let v = self.value.as_str();
        let mut l = match self.kind {
            "role" => {
                let l = page.get_by_role(v);
                match &self.name {
                    Some(n) => l.name(m(n)),
                    None => l,
                }
            }
            "label" => page.get_by_label(m(v)),
            "placeholder" => page.get_by_placeholder(m(v)),
            "text" => page.get_by_text(m(v)),
            "altText" => page.get_by_alt_text(m(v)),
            "title" => page.get_by_title(m(v)),
            "testId" => page.get_by_test_id(v),
            "ref" => page.locator(&format!("css=[data-hj-ref=\"{v}\"]")),
            _ => page.locator(&format!("css={v}")),
        };
        if let Some(n) = self.nth {
            l = l.nth(n);
        }
        l
    }

    /// How the target is named in results (`role:button "Save"`, `testId:x`).
    pub fn describe(&self) -> String {
        let mut s = format!("{}:{}", self.kind, self.value);
        if let Some(n) = &self.name {
            s.push_str(&format!(" {n:?}"));
        }
        if let Some(n) = self.nth {
            s.push_str(&format!(" nth={n}"));
        }
        s
    }
}

/// The target kinds, in the order error messages name them.
const KINDS: &str = "role, label, placeholder, text, altText, title, testId, selector or ref";

impl Target {
    /// Checks the target: exactly one kind (or none when not `required`),
    /// non-empty, `name` only with `role`, `exact` only with a text kind.
    pub fn resolve(&self, required: bool) -> Result<Option<Resolved>, ToolError> {
        let given: Vec<(&'static str, &String)> = [
            ("role", &self.role),
            ("label", &self.label),
            ("placeholder", &self.placeholder),
            ("text", &self.text),
            ("altText", &self.alt_text),
            ("title", &self.title),
            ("testId", &self.test_id),
            ("selector", &self.selector),
            ("ref", &self.reference),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
        .collect();
        for (k, v) in &given {
            if v.trim().is_empty() {
                return Err(ToolError::invalid(format!(
                    "the target {k} is empty: give a non-empty {k} (or another of {KINDS})"
                )));
            }
        }
        if let Some(r) = &self.reference
            && !(r.len() > 1 && r.starts_with('e') && r[1..].bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(ToolError::invalid(format!(
                "ref {r:?} is not a ref from browser_snapshot (they look like \"e12\"); take a snapshot and use one of its refs"
            )));
        }
        let (kind, value) = match given.as_slice() {
            [] => {
                if self.name.is_some() {
                    return Err(ToolError::invalid(
                        "name without role: name is the accessible name of a role target; give role too (e.g. role: \"button\", name: \"Save\")",
                    ));
                }
                if self.nth.is_some() || self.exact.is_some() {
                    return Err(ToolError::invalid(format!(
                        "nth and exact refine a target but none was given: give one of {KINDS}"
                    )));
                }
                if required {
                    return Err(ToolError::invalid(format!(
                        "no target: give one of {KINDS} (ref from browser_snapshot)"
                    )));
                }
                return Ok(None);
            }
            [(k, v)] => (*k, (*v).clone()),
            many => {
                return Err(ToolError::invalid(format!(
                    "more than one target ({}): give exactly one of {KINDS}, and narrow with nth if it matches several",
                    many.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
                )));
            }
        };
        if self.name.is_some() && kind != "role" {
            return Err(ToolError::invalid(format!(
                "name refines a role target, not {kind}: give role with name, or drop name"
            )));
        }
        if self.name.as_ref().is_some_and(|n| n.trim().is_empty()) {
            return Err(ToolError::invalid(
                "name is empty: give the accessible name of the element, or drop name",
            ));
        }
        if self.exact.is_some() && matches!(kind, "testId" | "selector" | "ref") {
            return Err(ToolError::invalid(format!(
                "exact applies to role names, label, placeholder, text, altText and title, not to {kind}: drop exact"
            )));
        }
        if kind == "role" && (value.contains(char::is_whitespace) || value != value.to_lowercase())
        {
            return Err(ToolError::invalid(format!(
                "role {value:?} is not an ARIA role name: give one lowercase word such as button, link, checkbox, textbox, heading"
            )));
        }
        Ok(Some(Resolved {
            kind,
            value,
            name: self.name.clone(),
            exact: self.exact == Some(true),
            nth: self.nth,
        }))
    }
}

/// Classifies a browser error into a stable code.
pub fn classify(e: BrowserError) -> ToolError {
    let msg = e.to_string();
    let code = match &e {
        BrowserError::Timeout { found, .. } if found.contains("no element matches") => {
            Code::TargetNotFound
        }
        BrowserError::Strict { .. } => Code::StrictMode,
        BrowserError::Assertion { .. } => Code::AssertionFailed,
        BrowserError::Timeout { .. } => Code::WaitTimeout,
        BrowserError::DriverNotFound(_)
        | BrowserError::BrowserNotFound(_)
        | BrowserError::DriverStart(_)
        | BrowserError::Session { .. } => Code::BrowserUnavailable,
        BrowserError::Command { action, .. } if action.starts_with("opening") => {
            Code::NavigationFailed
        }
        _ => Code::ActionFailed,
    };
    ToolError::new(code, msg)
}

fn no_session() -> ToolError {
    ToolError::new(
        Code::NoSession,
        "no browser session: call browser_launch first (it opens headless Chromium)",
    )
}

/// The page of the session, or `NO_SESSION`.
fn page(ctx: &Context) -> Result<Page, ToolError> {
    let agent = ctx.agent();
    agent
        .block_on({
            let agent = agent.clone();
            async move { agent.browser.lock().await.as_ref().map(|b| b.page.clone()) }
        })?
        .ok_or_else(no_session)
}

/// Evidence of one action, to write into the active run.
struct Captured {
    before: Option<Vec<u8>>,
    after: Option<Vec<u8>>,
    console: Value,
    network: Value,
    n: usize,
}

/// The step evidence goes to: the first step of the active run not completed yet.
fn evidence_target(ctx: &Context) -> Option<(RunId, Slug, StepId)> {
    let (run, slug) = ctx.agent().active_run()?;
    let store = ctx.store();
    let result = store.read_result(&slug, &run).ok()??;
    if result.status != harshjudge::store::RunStatus::Running {
        ctx.agent().set_active_run(None);
        return None;
    }
    let meta = store.read_meta(&slug).ok()??;
    let step = meta
        .steps
        .iter()
        .find(|s| !result.steps.iter().any(|r| r.id == s.id))
        .or(meta.steps.last())?;
    Some((run, slug, StepId::new(step.id.clone()).ok()?))
}

/// Runs one browser action: with a run active, a screenshot before and after
/// and the console and network of the action become evidence of the current step.
fn act<F, Fut>(ctx: &Context, verb: &'static str, f: F) -> Result<Value, ToolError>
where
    F: FnOnce(Page) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<Value, BrowserError>> + Send,
{
    let target = evidence_target(ctx);
    let record = target.is_some();
    let agent = ctx.agent();
    let (result, captured) = agent.block_on({
        let agent = agent.clone();
        async move {
            let mut guard = agent.browser.lock().await;
            let Some(session) = guard.as_mut() else {
                return (Err(no_session()), None);
            };
            session.actions += 1;
            let n = session.actions;
            let page = session.page.clone();
            let before = if record {
                page.screenshot().await.ok()
            } else {
                None
            };
            let result = f(page.clone()).await.map_err(classify);
            let after = if record {
                page.screenshot().await.ok()
            } else {
                None
            };
            let (console, network) = page.take_logs().await.unwrap_or_default();
            let captured = record.then(|| Captured {
                before,
                after,
                console: serde_json::to_value(&console).unwrap_or_default(),
                network: serde_json::to_value(&network).unwrap_or_default(),
                n,
            });
            session.console.extend(console);
            session.network.extend(network);
            (result, captured)
        }
    })?;
    let mut files = vec![];
    if let (Some((run, slug, step)), Some(c)) = (target, captured) {
        match write_evidence(ctx, &run, &slug, &step, verb, c) {
            Ok(f) => files = f,
            Err(e) => tracing::warn!("evidence of {verb} could not be recorded: {e}"),
        }
    }
    let mut value = result?;
    if !files.is_empty()
        && let Some(o) = value.as_object_mut()
    {
        o.insert("evidence".into(), json!(files));
    }
    Ok(value)
}

fn write_evidence(
    ctx: &Context,
    run: &RunId,
    slug: &Slug,
    step: &StepId,
    verb: &str,
    c: Captured,
) -> Result<Vec<String>, ToolError> {
    let mut handle = RunHandle::open_in(ctx.store(), slug, run)?;
    let prefix = format!("act{:02}-{verb}", c.n);
    let mut out = vec![];
    let mut put = |word: &str, ext: &str, kind: &str, bytes: Vec<u8>| -> Result<(), ToolError> {
        let name = EvidenceName::new(format!("{prefix}-{word}"))?;
        let w = handle.record_evidence(step, &name, ext, kind, &bytes, Default::default())?;
        out.push(ctx.rel(&w.path));
        Ok(())
    };
    if let Some(b) = c.before {
        put("before", "png", "screenshot", b)?;
    }
    if let Some(a) = c.after {
        put("after", "png", "screenshot", a)?;
    }
    let pretty = |v: &Value| serde_json::to_vec_pretty(v).expect("JSON serializes");
    if c.console.as_array().is_some_and(|a| !a.is_empty()) {
        put("console", "json", "console_log", pretty(&c.console))?;
    }
    if c.network.as_array().is_some_and(|a| !a.is_empty()) {
        put("network", "json", "network_log", pretty(&c.network))?;
    }
    Ok(out)
}

/// A locator for the element `loc` points at that survives the page being
/// reloaded (for recordings and exports): a snapshot ref becomes its test id,
/// id, name, short text, or CSS path. Other locators are returned as they are.
async fn stable_locator(page: &Page, loc: &str) -> String {
    let Some(r) = loc
        .strip_prefix("css=[data-hj-ref=\"")
        .and_then(|r| r.strip_suffix("\"]"))
    else {
        return loc.to_string();
    };
    let js = format!(
        r#"const el = document.querySelector('[data-hj-ref="{r}"]');
if (!el) return null;
const t = el.getAttribute('data-testid'); if (t) return 'testid=' + t;
if (el.id) return 'css=#' + CSS.escape(el.id);
const nm = el.getAttribute('name'); if (nm) return 'css=' + el.tagName.toLowerCase() + '[name="' + nm + '"]';
const txt = (el.innerText || '').trim();
if (txt && txt.length < 60 && (el.tagName === 'BUTTON' || el.tagName === 'A')) return 'text=' + txt;
const path = []; let e = el;
while (e && e.nodeType === 1 && e !== document.body) {{
  let i = 1, s = e; while ((s = s.previousElementSibling)) if (s.tagName === e.tagName) i++;
  path.unshift(e.tagName.toLowerCase() + ':nth-of-type(' + i + ')'); e = e.parentElement;
}}
return 'css=body > ' + path.join(' > ');"#
    );
    match page.eval(&js).await {
        Ok(Value::String(s)) => s,
        _ => loc.to_string(),
    }
}

// ---- launch / close ----------------------------------------------------------

/// Arguments of `browser_launch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Launch {
    /// The app's base URL (relative URLs are joined to it); default: `baseUrl`
    /// of `.harshJudge/config.yaml`.
    #[serde(default)]
    pub base_url: Option<String>,
    /// Window width in pixels (default 1280).
    #[serde(default)]
    pub width: Option<u32>,
    /// Window height in pixels (default 800).
    #[serde(default)]
    pub height: Option<u32>,
}

/// Opens headless Chromium (once; again returns the open session).
pub fn launch(ctx: &Context, a: Launch) -> Result<Value, ToolError> {
    let base_url = match a.base_url {
        Some(u) => u,
        None => ctx
            .store()
            .read_config()
            .ok()
            .map(|c| c.base_url)
            .filter(|u| !u.is_empty())
            .ok_or_else(|| {
                ToolError::invalid(
                    "no baseUrl: give browser_launch a baseUrl (e.g. http://127.0.0.1:3000) or set baseUrl in .harshJudge/config.yaml (initProject)",
                )
            })?,
    };
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(ToolError::invalid(format!(
            "baseUrl {base_url:?} is not an http:// or https:// URL"
        )));
    }
    let mut config = BrowserConfig::from_env().map_err(classify)?;
    for (v, name) in [(a.width, "width"), (a.height, "height")] {
        if let Some(v) = v
            && !(100..=4000).contains(&v)
        {
            return Err(ToolError::invalid(format!(
                "{name} {v} is out of range: give 100 to 4000 pixels"
            )));
        }
    }
    config.window = (
        a.width.unwrap_or(config.window.0),
        a.height.unwrap_or(config.window.1),
    );
    let agent = ctx.agent();
    let base = base_url.trim_end_matches('/').to_string();
    agent.block_on({
        let agent = agent.clone();
        async move {
            let mut guard = agent.browser.lock().await;
            if let Some(s) = guard.as_ref() {
                return Ok(json!({
                    "success": true,
                    "alreadyOpen": true,
                    "baseUrl": s.base_url,
                    "sessionId": s.page.session_id().await,
                }));
            }
            let started = Instant::now();
            let page = harshjudge::browser::open_page_with(&config, &base)
                .await
                .map_err(classify)?;
            let id = page.session_id().await;
            *guard = Some(BrowserSession {
                page,
                base_url: base.clone(),
                console: vec![],
                network: vec![],
                actions: 0,
            });
            Ok(json!({
                "success": true,
                "alreadyOpen": false,
                "baseUrl": base,
                "sessionId": id,
                "window": {"width": config.window.0, "height": config.window.1},
                "launchMs": started.elapsed().as_millis() as u64,
            }))
        }
    })?
}

/// Arguments of `browser_close`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Close {}

/// Closes the browser (and chromedriver).
pub fn close(ctx: &Context, _a: Close) -> Result<Value, ToolError> {
    let agent = ctx.agent();
    agent.block_on({
        let agent = agent.clone();
        async move {
            let session = agent.browser.lock().await.take();
            let was_open = session.is_some();
            if let Some(s) = session {
                harshjudge::browser::release_page(s.page).await;
            }
            harshjudge::browser::shutdown().await;
            json!({"success": true, "wasOpen": was_open})
        }
    })
}

// ---- actions -------------------------------------------------------------------

/// Arguments of `browser_navigate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Navigate {
    /// A path (joined to the base URL) or an absolute URL.
    pub url: String,
}

/// Opens a URL.
pub fn navigate(ctx: &Context, a: Navigate) -> Result<Value, ToolError> {
    if a.url.trim().is_empty() {
        return Err(ToolError::invalid(
            "url must not be empty: give a path such as /login or an absolute URL",
        ));
    }
    act(ctx, "navigate", move |page| async move {
        page.goto(&a.url).await?;
        Ok(json!({"success": true, "url": page.url().await?, "title": page.title().await?}))
    })
}

/// The locator string a ref target stands for (until the next snapshot).
fn ref_css(r: &Resolved) -> String {
    format!("css=[data-hj-ref=\"{}\"]", r.value.replace('"', ""))
}

/// What a result names as the target's `locator` (and a recording keeps): for
/// a snapshot ref, a locator that survives a reload (its test id, id, name,
/// short text or CSS path); for a test id or a selector, `testid=…` / `css=…`;
/// for the other kinds, the target as described.
async fn locator_name(page: &Page, r: &Resolved) -> String {
    match r.kind {
        "ref" => stable_locator(page, &ref_css(r)).await,
        "testId" if r.nth.is_none() => format!("testid={}", r.value),
        "selector" if r.nth.is_none() => format!("css={}", r.value),
        _ => r.describe(),
    }
}

/// Clicks an element (waiting until it is visible, stable, enabled and receives the click).
pub fn click(ctx: &Context, a: Target) -> Result<Value, ToolError> {
    let t = a.resolve(true)?.expect("required");
    act(ctx, "click", move |page| async move {
        let locator = locator_name(&page, &t).await;
        t.locator(&page).click().await?;
        Ok(
            json!({"success": true, "clicked": t.describe(), "locator": locator, "url": page.url().await?}),
        )
    })
}

with_target! {
    /// Arguments of `browser_type`: a target (not `text`, which is what is typed).
    pub struct Type {
        /// The text to type (it replaces the field's value).
        pub text: String,
        /// Press Enter afterwards.
        #[serde(default)]
        pub submit: bool,
    }
    text: |_: &Type| None
}

/// Types into a field (its value replaced, without blurring it).
pub fn type_text(ctx: &Context, a: Type) -> Result<Value, ToolError> {
    let t = a.target().resolve(true)?.expect("required");
    let (text, submit) = (a.text, a.submit);
    act(ctx, "type", move |page| async move {
        let locator = locator_name(&page, &t).await;
        let l = t.locator(&page);
        l.fill(&text).await?;
        if submit {
            l.press("Enter").await?;
        }
        Ok(
            json!({"success": true, "typed": t.describe(), "locator": locator, "length": text.chars().count(), "submitted": submit}),
        )
    })
}

with_target! {
    /// Arguments of `browser_press`: a key, and a target (default: the page).
    pub struct Press {
        /// A key or chord: Enter, Tab, Escape, Backspace, Delete, Space,
        /// ArrowUp/Down/Left/Right, Home, End, one character, or "Control+a", "Shift+Tab".
        pub key: String,
        /// Visible text of the element (a case-insensitive substring unless `exact`).
        #[serde(default)]
        pub text: Option<String>,
    }
    text: |s: &Press| s.text.clone()
}

/// Presses a key in an element (or the page).
pub fn press(ctx: &Context, a: Press) -> Result<Value, ToolError> {
    if a.key.is_empty() {
        return Err(ToolError::invalid(
            "key is missing: give a key such as Enter, Escape, Tab or a chord such as Control+a",
        ));
    }
    let t = a.target().resolve(false)?;
    let key = a.key;
    act(ctx, "press", move |page| async move {
        match &t {
            Some(t) => {
                let locator = locator_name(&page, t).await;
                t.locator(&page).press(&key).await?;
                Ok(json!({"success": true, "pressed": key, "in": t.describe(), "locator": locator}))
            }
            None => {
                page.keyboard().press(&key).await?;
                Ok(json!({"success": true, "pressed": key, "in": "page", "locator": "css=body"}))
            }
        }
    })
}

with_target! {
    /// Arguments of `browser_wait_for`: a target to become visible, and/or text.
    pub struct WaitFor {
        /// Visible text to wait for (alone: anywhere on the page; with a target: in it).
        #[serde(default)]
        pub text: Option<String>,
        /// How long to wait, in ms (default 5000, at most 60000).
        #[serde(default)]
        pub timeout_ms: Option<u64>,
    }
    text: |_: &WaitFor| None
}

/// Checks a `timeoutMs` argument (default 5000, 1 to 60000).
fn timeout_of(ms: Option<u64>) -> Result<Duration, ToolError> {
    let timeout = ms.unwrap_or(5000);
    if timeout == 0 || timeout > 60_000 {
        return Err(ToolError::invalid(format!(
            "timeoutMs {timeout} is out of range: give 1 to 60000"
        )));
    }
    Ok(Duration::from_millis(timeout))
}

/// Waits until an element is visible (or text appears).
pub fn wait_for(ctx: &Context, a: WaitFor) -> Result<Value, ToolError> {
    let timeout = timeout_of(a.timeout_ms)?;
    let target = a.target().resolve(false)?;
    let text = a.text;
    if target.is_none() && text.is_none() {
        return Err(ToolError::invalid(format!(
            "nothing to wait for: give a target ({KINDS}) and/or text"
        )));
    }
    // Waiting for something that never appears is a timeout of the wait.
    let timed_out = |e: ToolError| {
        if matches!(e.code, Code::TargetNotFound | Code::AssertionFailed) {
            ToolError::new(Code::WaitTimeout, e.message)
        } else {
            e
        }
    };
    act(ctx, "wait", move |page| async move {
        let started = Instant::now();
        let page = page.with_timeout(timeout);
        let (found, locator) = match (&target, &text) {
            (Some(t), Some(x)) => {
                harshjudge::expect(&t.locator(&page))
                    .timeout(timeout)
                    .to_contain_text(x.as_str())
                    .await?;
                (t.describe(), locator_name(&page, t).await)
            }
            (Some(t), None) => {
                harshjudge::expect(&t.locator(&page))
                    .timeout(timeout)
                    .to_be_visible()
                    .await?;
                (t.describe(), locator_name(&page, t).await)
            }
            (None, x) => {
                let x = x.clone().unwrap_or_default();
                harshjudge::expect(&page.get_by_text(x.as_str()).first())
                    .timeout(timeout)
                    .to_be_visible()
                    .await?;
                (format!("text:{x}"), format!("text:{x}"))
            }
        };
        Ok(json!({"success": true, "found": found, "locator": locator, "text": text, "waitedMs": started.elapsed().as_millis() as u64}))
    })
    .map_err(timed_out)
}

/// A text an assertion expects: the exact string, or `{"regex": "…"}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ExpectedText {
    /// The whole text (whitespace normalised).
    Exact(String),
    /// A regular expression (Rust `regex` syntax) the text must match.
    Regex {
        /// The pattern.
        regex: String,
    },
}

impl ExpectedText {
    fn text_match(&self) -> Result<TextMatch, ToolError> {
        match self {
            ExpectedText::Exact(s) => Ok(TextMatch::exact(s.clone())),
            ExpectedText::Regex { regex } => harshjudge::regex::Regex::new(regex)
                .map(TextMatch::Regex)
                .map_err(|e| {
                    ToolError::invalid(format!(
                        "expected.regex {regex:?} is not a valid regular expression: {e}"
                    ))
                }),
        }
    }

    /// How it is written in an exported scenario.
    pub fn rust(&self) -> String {
        match self {
            ExpectedText::Exact(s) => crate::tools::record::lit(s),
            ExpectedText::Regex { regex } => format!(
                "harshjudge::regex::Regex::new({})?",
                crate::tools::record::lit(regex)
            ),
        }
    }
}

/// What `browser_expect` expects: a text (exact or regex), a count, or one
/// text per element, in order.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ExpectedValue {
    /// A count (for to_have_count).
    Count(u64),
    /// One text.
    Text(ExpectedText),
    /// One text per matching element, in order (to_have_text, to_contain_text, to_have_class).
    List(Vec<ExpectedText>),
}

/// The assertions of `browser_expect`: page ones (no target) and locator ones.
pub const ASSERTIONS: &[&str] = &[
    "to_have_url",
    "to_have_title",
    "to_be_visible",
    "to_be_hidden",
    "to_be_attached",
    "to_be_enabled",
    "to_be_disabled",
    "to_be_checked",
    "to_be_focused",
    "to_be_editable",
    "to_be_empty",
    "to_be_in_viewport",
    "to_have_text",
    "to_contain_text",
    "to_have_count",
    "to_have_value",
    "to_have_values",
    "to_have_attribute",
    "to_have_class",
    "to_contain_class",
    "to_have_css",
    "to_have_id",
    "to_have_role",
    "to_have_accessible_name",
    "to_match_aria_snapshot",
];

with_target! {
    /// Arguments of `browser_expect`: a web-first assertion that retries until
    /// it holds or `timeoutMs` runs out.
    pub struct Expect {
        /// Visible text of the element (a case-insensitive substring unless `exact`).
        #[serde(default)]
        pub text: Option<String>,
        /// to_have_url, to_have_title (no target), or a locator assertion: to_be_visible,
        /// to_be_hidden, to_be_attached, to_be_enabled, to_be_disabled, to_be_checked,
        /// to_be_focused, to_be_editable, to_be_empty, to_be_in_viewport, to_have_text,
        /// to_contain_text, to_have_count, to_have_value, to_have_values (the selected
        /// values of a <select multiple>, a list), to_have_attribute, to_have_class,
        /// to_contain_class, to_have_css, to_have_id, to_have_role,
        /// to_have_accessible_name, to_match_aria_snapshot (a YAML template such as
        /// "- heading \"Todos\" [level=1]").
        pub assertion: String,
        /// What is expected: a string (exact), {"regex": "…"}, a count, or a list of
        /// strings/regexes (one per element). Not for the to_be_* assertions.
        #[serde(default)]
        pub expected: Option<ExpectedValue>,
        /// With to_have_attribute: the attribute's name; with to_have_css: the CSS
        /// property's name (e.g. "color").
        #[serde(default)]
        pub attribute: Option<String>,
        /// Invert the assertion (Playwright's `.not`).
        #[serde(default)]
        pub not: bool,
        /// How long to retry, in ms (default 5000, at most 60000).
        #[serde(default)]
        pub timeout_ms: Option<u64>,
    }
    text: |s: &Expect| s.text.clone()
}

/// A checked `browser_expect` call, ready to run (and to export).
#[derive(Clone, Debug)]
pub struct Assertion {
    /// The target (none for page assertions).
    pub target: Option<Resolved>,
    /// The assertion's name.
    pub assertion: String,
    /// What is expected.
    pub expected: Option<ExpectedValue>,
    /// The attribute of to_have_attribute.
    pub attribute: Option<String>,
    /// Inverted.
    pub not: bool,
}

impl Expect {
    /// Checks the arguments: a known assertion, a target exactly for locator
    /// assertions, and an `expected` of the kind the assertion takes.
    pub fn check(&self) -> Result<Assertion, ToolError> {
        let a = self.assertion.as_str();
        if !ASSERTIONS.contains(&a) {
            return Err(ToolError::invalid(format!(
                "assertion {a:?} is not known: give one of {}",
                ASSERTIONS.join(", ")
            )));
        }
        let page_level = matches!(a, "to_have_url" | "to_have_title");
        let target = self.target().resolve(!page_level)?;
        if page_level && target.is_some() {
            return Err(ToolError::invalid(format!(
                "{a} asserts on the page: drop the target ({KINDS})"
            )));
        }
        let takes = match a {
            "to_have_count" => "count",
            "to_have_text" | "to_contain_text" | "to_have_class" | "to_contain_class" => "texts",
            "to_have_values" => "list",
            "to_match_aria_snapshot" | "to_have_role" => "string",
            a if a.starts_with("to_be_") => "nothing",
            _ => "text",
        };
        let bad = |what: &str| ToolError::invalid(format!("{a} expects {what} as expected"));
        match (takes, &self.expected) {
            ("nothing", Some(_)) => {
                return Err(ToolError::invalid(format!(
                    "{a} takes no expected value: drop expected (use not: true to invert)"
                )));
            }
            ("nothing", None) => {}
            (_, None) => {
                return Err(bad(match takes {
                    "count" => "a count (e.g. 2)",
                    "texts" => "a string, {\"regex\": \"…\"} or a list of them",
                    "list" => "a list of the selected values, in order (e.g. [\"red\", \"blue\"])",
                    "string" if a == "to_have_role" => "a role name string (e.g. \"button\")",
                    "string" => "a YAML template string (e.g. \"- heading \\\"Todos\\\"\")",
                    _ => "a string or {\"regex\": \"…\"}",
                }));
            }
            ("count", Some(ExpectedValue::Count(_))) => {}
            ("count", Some(_)) => return Err(bad("a count (e.g. 2)")),
            ("list", Some(ExpectedValue::List(l))) => {
                for t in l {
                    t.text_match()?;
                }
            }
            ("list", Some(_)) => {
                return Err(bad(
                    "a list of the selected values, in order (e.g. [\"red\", \"blue\"])",
                ));
            }
            ("string", Some(ExpectedValue::Text(ExpectedText::Exact(_)))) => {}
            ("string", Some(_)) => {
                return Err(bad(if a == "to_have_role" {
                    "a role name string (e.g. \"button\")"
                } else {
                    "a YAML template string (e.g. \"- heading \\\"Todos\\\" [level=1]\")"
                }));
            }
            ("texts", Some(ExpectedValue::Text(t))) => {
                t.text_match()?;
            }
            ("texts", Some(ExpectedValue::List(l))) => {
                for t in l {
                    t.text_match()?;
                }
            }
            ("texts", Some(ExpectedValue::Count(_))) => {
                return Err(bad("a string, {\"regex\": \"…\"} or a list of them"));
            }
            (_, Some(ExpectedValue::Text(t))) => {
                t.text_match()?;
            }
            (_, Some(_)) => return Err(bad("a string or {\"regex\": \"…\"}")),
        }
        match (a, &self.attribute) {
            ("to_have_attribute", None) => {
                return Err(ToolError::invalid(
                    "to_have_attribute needs attribute (the attribute's name, e.g. \"href\")",
                ));
            }
            ("to_have_css", None) => {
                return Err(ToolError::invalid(
                    "to_have_css needs attribute (the CSS property's name, e.g. \"color\")",
                ));
            }
            ("to_have_attribute" | "to_have_css", Some(n)) if n.trim().is_empty() => {
                return Err(ToolError::invalid(format!(
                    "attribute is empty: give the {} name",
                    if a == "to_have_css" {
                        "CSS property's"
                    } else {
                        "attribute's"
                    }
                )));
            }
            ("to_have_attribute" | "to_have_css", Some(_)) | (_, None) => {}
            (_, Some(_)) => {
                return Err(ToolError::invalid(format!(
                    "attribute only goes with to_have_attribute and to_have_css, not {a}: drop it"
                )));
            }
        }
        Ok(Assertion {
            target,
            assertion: a.to_string(),
            expected: self.expected.clone(),
            attribute: self.attribute.clone(),
            not: self.not,
        })
    }
}

impl Assertion {
    fn one(&self) -> TextMatch {
        match &self.expected {
            Some(ExpectedValue::Text(t)) => t.text_match().expect("checked"),
            _ => TextMatch::exact(""),
        }
    }

    fn many(&self) -> harshjudge::browser::Expected {
        match &self.expected {
            Some(ExpectedValue::List(l)) => harshjudge::browser::Expected::List(
                l.iter().map(|t| t.text_match().expect("checked")).collect(),
            ),
            _ => harshjudge::browser::Expected::One(self.one()),
        }
    }

    /// Runs the assertion on `page`.
    async fn run(&self, page: &Page, timeout: Duration) -> Result<(), BrowserError> {
        let Some(t) = &self.target else {
            let mut e = harshjudge::expect(page).timeout(timeout);
            if self.not {
                e = e.not();
            }
            return match self.assertion.as_str() {
                "to_have_url" => e.to_have_url(self.one()).await,
                _ => e.to_have_title(self.one()).await,
            };
        };
        let mut e = harshjudge::expect(&t.locator(page)).timeout(timeout);
        if self.not {
            e = e.not();
        }
        match self.assertion.as_str() {
            "to_be_visible" => e.to_be_visible().await,
            "to_be_hidden" => e.to_be_hidden().await,
            "to_be_attached" => e.to_be_attached().await,
            "to_be_in_viewport" => e.to_be_in_viewport().await,
            "to_contain_class" => e.to_contain_class(self.many()).await,
            "to_have_css" => {
                e.to_have_css(self.attribute.as_deref().unwrap_or(""), self.one())
                    .await
            }
            "to_have_values" => {
                let list: Vec<TextMatch> = match &self.expected {
                    Some(ExpectedValue::List(l)) => {
                        l.iter().map(|t| t.text_match().expect("checked")).collect()
                    }
                    _ => Vec::new(),
                };
                e.to_have_values(list).await
            }
            "to_match_aria_snapshot" => {
                let template = match &self.expected {
                    Some(ExpectedValue::Text(ExpectedText::Exact(t))) => t.clone(),
                    _ => String::new(),
                };
                e.to_match_aria_snapshot(&template).await
            }
            "to_be_enabled" => e.to_be_enabled().await,
            "to_be_disabled" => e.to_be_disabled().await,
            "to_be_checked" => e.to_be_checked().await,
            "to_be_focused" => e.to_be_focused().await,
            "to_be_editable" => e.to_be_editable().await,
            "to_be_empty" => e.to_be_empty().await,
            "to_have_text" => e.to_have_text(self.many()).await,
            "to_contain_text" => e.to_contain_text(self.many()).await,
            "to_have_class" => e.to_have_class(self.many()).await,
            "to_have_count" => {
                let n = match self.expected {
                    Some(ExpectedValue::Count(n)) => n as usize,
                    _ => 0,
                };
                e.to_have_count(n).await
            }
            "to_have_value" => e.to_have_value(self.one()).await,
            "to_have_attribute" => {
                e.to_have_attribute(self.attribute.as_deref().unwrap_or(""), self.one())
                    .await
            }
            "to_have_id" => e.to_have_id(self.one()).await,
            "to_have_role" => {
                let role = match &self.expected {
                    Some(ExpectedValue::Text(ExpectedText::Exact(r))) => r.clone(),
                    _ => String::new(),
                };
                e.to_have_role(&role).await
            }
            _ => e.to_have_accessible_name(self.one()).await,
        }
    }
}

/// A web-first assertion on the page or an element (Playwright's `expect`).
pub fn expect(ctx: &Context, a: Expect) -> Result<Value, ToolError> {
    let timeout = timeout_of(a.timeout_ms)?;
    let check = a.check()?;
    act(ctx, "expect", move |page| async move {
        let started = Instant::now();
        check.run(&page, timeout).await?;
        let waited = started.elapsed().as_millis() as u64;
        let (target, locator) = match &check.target {
            Some(t) => (json!(t.describe()), json!(locator_name(&page, t).await)),
            None => (json!("page"), Value::Null),
        };
        Ok(json!({
            "success": true,
            "assertion": check.assertion,
            "not": check.not,
            "target": target,
            "locator": locator,
            "waitedMs": waited,
        }))
    })
}

// ---- observations --------------------------------------------------------------

/// Arguments of `browser_screenshot`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Screenshot {
    /// File name (letters, digits, `.`, `_`, `-`; default `screenshot-N`).
    #[serde(default)]
    pub name: Option<String>,
    /// The whole page rather than the viewport.
    #[serde(default)]
    pub full_page: bool,
    /// Also return the image inline (costs tokens; off by default).
    #[serde(default)]
    pub inline: bool,
}

/// Takes a screenshot into a file: the current step's evidence while a run is
/// active, else `.harshJudge/agent/screenshots/`.
pub fn screenshot(ctx: &Context, a: Screenshot) -> Result<Value, ToolError> {
    let page = page(ctx)?;
    let full = a.full_page;
    let png = ctx
        .agent()
        .block_on(async move { page.capture(full).await })?
        .map_err(classify)?;
    let n = ctx.agent().next_file_number();
    let name = EvidenceName::new(a.name.unwrap_or_else(|| format!("screenshot-{n}")))?;
    let path = match evidence_target(ctx) {
        Some((run, slug, step)) => {
            let mut handle = RunHandle::open_in(ctx.store(), &slug, &run)?;
            handle
                .record_evidence(&step, &name, "png", "screenshot", &png, Default::default())?
                .path
        }
        None => {
            let path = ctx
                .store()
                .dir()
                .join("agent")
                .join("screenshots")
                .join(format!("{}-{name}.png", ctx.agent().session));
            ctx.store().write_file(&path, &png)?;
            path
        }
    };
    let (w, h) = png_size(&png);
    let mut out = json!({
        "success": true,
        "path": ctx.rel(&path),
        "bytes": png.len(),
        "width": w,
        "height": h,
    });
    if a.inline {
        use base64::Engine;
        out["__image"] = json!({
            "data": base64::engine::general_purpose::STANDARD.encode(&png),
            "mimeType": "image/png",
        });
    }
    Ok(out)
}

fn png_size(b: &[u8]) -> (u32, u32) {
    if b.len() >= 24 && &b[..8] == b"\x89PNG\r\n\x1a\n" {
        (
            u32::from_be_bytes(b[16..20].try_into().expect("4 bytes")),
            u32::from_be_bytes(b[20..24].try_into().expect("4 bytes")),
        )
    } else {
        (0, 0)
    }
}

/// The page outline script: headings, interactive elements (each tagged with a
/// `data-hj-ref` so a later action can target it), test ids, visible text; capped.
const SNAPSHOT_JS: &str = r#"
const max = arguments[0];
const cut = (s, n) => { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n - 1) + '…' : s; };
const visible = (el) => { const r = el.getBoundingClientRect(); const st = getComputedStyle(el); return r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none'; };
document.querySelectorAll('[data-hj-ref]').forEach(el => el.removeAttribute('data-hj-ref'));
const headings = Array.from(document.querySelectorAll('h1,h2,h3')).filter(visible).slice(0, 20).map(h => ({level: +h.tagName[1], text: cut(h.innerText, 80)}));
const sel = 'a[href],button,input,select,textarea,[role=button],[role=link],[role=checkbox],[role=tab],[onclick],[data-testid]';
const all = Array.from(document.querySelectorAll(sel)).filter(visible);
const elements = [];
let n = 0;
for (const el of all) {
  if (elements.length >= max) break;
  n += 1;
  const ref = 'e' + n;
  el.setAttribute('data-hj-ref', ref);
  const tag = el.tagName.toLowerCase();
  const e = {ref, tag};
  const role = el.getAttribute('role'); if (role) e.role = role;
  const tid = el.getAttribute('data-testid'); if (tid) e.testId = tid;
  const name = el.getAttribute('aria-label') || el.innerText || el.value || el.getAttribute('placeholder') || el.getAttribute('name') || '';
  if (cut(name, 60)) e.name = cut(name, 60);
  if (tag === 'input') { e.type = el.type; if (el.type === 'checkbox' || el.type === 'radio') e.checked = el.checked; }
  if (tag === 'a') e.href = cut(el.getAttribute('href'), 80);
  if (el.disabled) e.disabled = true;
  elements.push(e);
}
const testIds = Array.from(new Set(Array.from(document.querySelectorAll('[data-testid]')).map(e => e.getAttribute('data-testid')))).slice(0, 100);
return {url: location.href, title: document.title, headings, elements, testIds, text: cut(document.body ? document.body.innerText : '', 600), truncated: all.length > elements.length, interactiveCount: all.length};
"#;

/// Arguments of `browser_snapshot`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Snapshot {
    /// Most interactive elements listed (default 80, at most 300).
    #[serde(default)]
    pub max_elements: Option<u32>,
}

/// A compact outline of the page, with refs for later actions.
pub fn snapshot(ctx: &Context, a: Snapshot) -> Result<Value, ToolError> {
    let max = a.max_elements.unwrap_or(80);
    if max == 0 || max > 300 {
        return Err(ToolError::invalid(format!(
            "maxElements {max} is out of range: give 1 to 300"
        )));
    }
    let page = page(ctx)?;
    let v = ctx
        .agent()
        .block_on(async move {
            page.client()
                .execute(SNAPSHOT_JS, vec![json!(max)])
                .await
                .map_err(|e| BrowserError::Command {
                    action: "reading the page outline".into(),
                    message: e.to_string(),
                })
        })?
        .map_err(classify)?;
    Ok(v)
}

/// Arguments of `browser_console`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Console {
    /// Only this level: error, warning, info, debug.
    #[serde(default)]
    pub level: Option<String>,
    /// Keep the entries for the next call (default: they are returned once).
    #[serde(default)]
    pub peek: bool,
}

/// Console entries since the last call.
pub fn console(ctx: &Context, a: Console) -> Result<Value, ToolError> {
    if let Some(l) = &a.level
        && !["error", "warning", "info", "debug"].contains(&l.as_str())
    {
        return Err(ToolError::invalid(format!(
            "level {l:?} is not one of error, warning, info, debug"
        )));
    }
    let (level, peek) = (a.level, a.peek);
    with_logs(ctx, move |s| {
        let entries: Vec<_> = s
            .console
            .iter()
            .filter(|e| level.as_ref().is_none_or(|l| &e.level == l))
            .cloned()
            .collect();
        if !peek {
            s.console.clear();
        }
        json!({"count": entries.len(), "entries": entries})
    })
}

/// Reads the logs chromedriver holds into the session's buffers, then `f`.
fn with_logs(
    ctx: &Context,
    f: impl FnOnce(&mut BrowserSession) -> Value + Send + 'static,
) -> Result<Value, ToolError> {
    let agent = ctx.agent();
    agent.block_on({
        let agent = agent.clone();
        async move {
            let mut guard = agent.browser.lock().await;
            let s = guard.as_mut().ok_or_else(no_session)?;
            let (c, n) = s.page.take_logs().await.map_err(classify)?;
            s.console.extend(c);
            s.network.extend(n);
            Ok(f(s))
        }
    })?
}

/// Arguments of `browser_network`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Network {
    /// Only failed requests and error statuses (4xx, 5xx).
    #[serde(default)]
    pub failed_only: bool,
    /// Keep the entries for the next call.
    #[serde(default)]
    pub peek: bool,
}

/// Requests since the last call.
pub fn network(ctx: &Context, a: Network) -> Result<Value, ToolError> {
    let (failed_only, peek) = (a.failed_only, a.peek);
    with_logs(ctx, move |s| {
        let entries: Vec<_> = s
            .network
            .iter()
            .filter(|e| !failed_only || e.failure.is_some() || e.status.is_some_and(|st| st >= 400))
            .cloned()
            .collect();
        if !peek {
            s.network.clear();
        }
        json!({"count": entries.len(), "entries": entries})
    })
}

/// Whether a tool is a browser action (it may change the page).
pub fn is_action(tool: &str) -> bool {
    matches!(
        tool,
        "browser_navigate"
            | "browser_click"
            | "browser_type"
            | "browser_press"
            | "browser_wait_for"
            | "browser_expect"
    )
}

/// The page's state after an action, read once and kept for whoever asks
/// next (the knowledge store, then `run_steps`' observation).
pub fn observe(ctx: &Context) -> Option<(String, String, Vec<String>)> {
    let state = page_state(ctx);
    if let Ok(mut last) = ctx.agent().last_page.lock() {
        *last = state.clone();
    }
    state
}

/// The page's state as last observed after `tool`, or read now.
pub fn observed_after(ctx: &Context, tool: &str) -> Option<(String, String, Vec<String>)> {
    if is_action(tool)
        && let Some(s) = ctx.agent().last_page.lock().ok().and_then(|mut l| l.take())
    {
        return Some(s);
    }
    page_state(ctx)
}

/// The live page's state, for the knowledge store (url, title, test ids).
pub fn page_state(ctx: &Context) -> Option<(String, String, Vec<String>)> {
    let page = page(ctx).ok()?;
    ctx.agent()
        .block_on(async move {
            let v = page
                .eval("return {url: location.href, title: document.title, ids: Array.from(new Set(Array.from(document.querySelectorAll('[data-testid]')).map(e => e.getAttribute('data-testid')))).slice(0, 50)}")
                .await
                .ok()?;
            Some((
                v["url"].as_str()?.to_string(),
                v["title"].as_str().unwrap_or("").to_string(),
                v["ids"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect())
                    .unwrap_or_default(),
            ))
        })
        .ok()
        .flatten()
}
