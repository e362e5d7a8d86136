//! Browser tools on `harshjudge`'s browser module: launch, navigate, click,
//! type, press, wait, screenshot, snapshot, console, network, close.
//!
//! Targets are a `testId`, a CSS `selector`, visible `text`, or a `ref` from the
//! last `browser_snapshot`. Nothing large goes inline: screenshots are files,
//! returned as paths (an image block only with `inline: true`). While a run is
//! active (after `startRun`, until `completeRun`), every action records its
//! before/after screenshots, console and network into the current step.

use std::time::{Duration, Instant};

use harshjudge::browser::{BrowserConfig, BrowserError, Page};
use harshjudge::run::RunHandle;
use harshjudge::store::{EvidenceName, RunId, Slug, StepId};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::agent::BrowserSession;
use crate::context::Context;
use crate::error::{Code, ToolError};

/// What an action aims at: exactly one of these (the arguments of `browser_click`).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Target {
    /// A `data-testid` value.
    #[serde(default)]
    pub test_id: Option<String>,
    /// A CSS selector.
    #[serde(default)]
    pub selector: Option<String>,
    /// An element ref from the last `browser_snapshot` (e.g. "e12").
    #[serde(default, rename = "ref")]
    pub reference: Option<String>,
    /// Visible text of the element.
    #[serde(default)]
    pub text: Option<String>,
}

impl Target {
    /// The locator for `harshjudge`'s page API, and how to name it.
    fn locator(&self, required: bool) -> Result<Option<(String, String)>, ToolError> {
        let given: Vec<(String, String)> = [
            self.test_id
                .as_ref()
                .map(|t| (format!("testid={t}"), format!("testId:{t}"))),
            self.selector
                .as_ref()
                .map(|s| (format!("css={s}"), format!("selector:{s}"))),
            self.reference.as_ref().map(|r| {
                (
                    format!("css=[data-hj-ref=\"{}\"]", r.replace('"', "")),
                    format!("ref:{r}"),
                )
            }),
            self.text
                .as_ref()
                .map(|t| (format!("text={t}"), format!("text:{t}"))),
        ]
        .into_iter()
        .flatten()
        .collect();
        for (_, name) in &given {
            if name.ends_with(':') {
                return Err(ToolError::invalid(format!(
                    "the target {name} is empty: give a non-empty testId, selector, ref or text"
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
        match given.len() {
            0 if !required => Ok(None),
            0 => Err(ToolError::invalid(
                "no target: give one of testId, selector, ref (from browser_snapshot) or text",
            )),
            1 => Ok(given.into_iter().next()),
            _ => Err(ToolError::invalid(
                "more than one target: give exactly one of testId, selector, ref or text",
            )),
        }
    }
}

/// Classifies a browser error into a stable code.
pub fn classify(e: BrowserError) -> ToolError {
    let msg = e.to_string();
    let code = match &e {
        BrowserError::Timeout { found, .. } if found.contains("no element matches") => {
            Code::TargetNotFound
        }
        BrowserError::Timeout { .. } | BrowserError::Assertion { .. } => Code::WaitTimeout,
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

fn target_of(
    test_id: Option<String>,
    selector: Option<String>,
    reference: Option<String>,
    text: Option<String>,
) -> Target {
    Target {
        test_id,
        selector,
        reference,
        text,
    }
}

/// Clicks an element (waiting until it is visible and enabled).
pub fn click(ctx: &Context, a: Target) -> Result<Value, ToolError> {
    let (loc, name) = a.locator(true)?.expect("required");
    act(ctx, "click", move |page| async move {
        let locator = stable_locator(&page, &loc).await;
        page.click(&loc).await?;
        Ok(json!({"success": true, "clicked": name, "locator": locator, "url": page.url().await?}))
    })
}

/// Arguments of `browser_type`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Type {
    /// A `data-testid` value.
    #[serde(default)]
    pub test_id: Option<String>,
    /// A CSS selector.
    #[serde(default)]
    pub selector: Option<String>,
    /// An element ref from the last `browser_snapshot`.
    #[serde(default, rename = "ref")]
    pub reference: Option<String>,
    /// The text to type (the field is cleared first).
    pub text: String,
    /// Press Enter afterwards.
    #[serde(default)]
    pub submit: bool,
}

/// Types into a field (cleared first).
pub fn type_text(ctx: &Context, a: Type) -> Result<Value, ToolError> {
    let (loc, name) = target_of(a.test_id, a.selector, a.reference, None)
        .locator(true)?
        .expect("required");
    let (text, submit) = (a.text, a.submit);
    act(ctx, "type", move |page| async move {
        let locator = stable_locator(&page, &loc).await;
        page.fill(&loc, &text).await?;
        if submit {
            page.press(&loc, "Enter").await?;
        }
        Ok(
            json!({"success": true, "typed": name, "locator": locator, "length": text.chars().count(), "submitted": submit}),
        )
    })
}

/// Arguments of `browser_press`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Press {
    /// Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp/Down/Left/Right, Home, End, or one character.
    pub key: String,
    /// A `data-testid` value (default: the page's body).
    #[serde(default)]
    pub test_id: Option<String>,
    /// A CSS selector.
    #[serde(default)]
    pub selector: Option<String>,
    /// An element ref from the last `browser_snapshot`.
    #[serde(default, rename = "ref")]
    pub reference: Option<String>,
}

/// Presses a key in an element (or the page).
pub fn press(ctx: &Context, a: Press) -> Result<Value, ToolError> {
    let (loc, name) = target_of(a.test_id, a.selector, a.reference, None)
        .locator(false)?
        .unwrap_or_else(|| ("css=body".into(), "page".into()));
    let key = a.key;
    act(ctx, "press", move |page| async move {
        let locator = stable_locator(&page, &loc).await;
        page.press(&loc, &key).await?;
        Ok(json!({"success": true, "pressed": key, "in": name, "locator": locator}))
    })
}

/// Arguments of `browser_wait_for`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitFor {
    /// A `data-testid` value.
    #[serde(default)]
    pub test_id: Option<String>,
    /// A CSS selector.
    #[serde(default)]
    pub selector: Option<String>,
    /// An element ref from the last `browser_snapshot`.
    #[serde(default, rename = "ref")]
    pub reference: Option<String>,
    /// Visible text to wait for (alone: anywhere on the page; with a target: in it).
    #[serde(default)]
    pub text: Option<String>,
    /// How long to wait, in ms (default 5000, at most 60000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// Waits until an element is visible (or text appears).
pub fn wait_for(ctx: &Context, a: WaitFor) -> Result<Value, ToolError> {
    let timeout = a.timeout_ms.unwrap_or(5000);
    if timeout == 0 || timeout > 60_000 {
        return Err(ToolError::invalid(format!(
            "timeoutMs {timeout} is out of range: give 1 to 60000"
        )));
    }
    let target = target_of(a.test_id, a.selector, a.reference, None).locator(false)?;
    let text = a.text;
    let (loc, name, text) = match (target, text) {
        (Some((loc, name)), text) => (loc, name, text),
        (None, Some(t)) => (format!("text={t}"), format!("text:{t}"), None),
        (None, None) => {
            return Err(ToolError::invalid(
                "nothing to wait for: give a testId, selector or ref, and/or text",
            ));
        }
    };
    // Waiting for something that never appears is a timeout of the wait.
    let timed_out = |e: ToolError| {
        if e.code == Code::TargetNotFound {
            ToolError::new(Code::WaitTimeout, e.message)
        } else {
            e
        }
    };
    act(ctx, "wait", move |page| async move {
        let started = Instant::now();
        let page = page.with_timeout(Duration::from_millis(timeout));
        match &text {
            Some(t) => harshjudge::expect(&page.locator(&loc)).to_contain_text(t.as_str()).await?,
            None => page.expect_visible(&loc).await?,
        }
        let locator = stable_locator(&page, &loc).await;
        Ok(json!({"success": true, "found": name, "locator": locator, "text": text, "waitedMs": started.elapsed().as_millis() as u64}))
    })
    .map_err(timed_out)
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
