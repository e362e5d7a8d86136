//! The browser actions: launch, close, navigate, click, type, press, wait.

use std::time::{Duration, Instant};

use harshjudge_browser::BrowserConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::agent::BrowserSession;
use crate::context::Context;
use crate::error::{Code, ToolError};

use super::emulation::LaunchEmulation;
use super::evidence::{Acted, act};
use super::targets::{KINDS, Target, locator_name};
use super::{classify, timeout_of};

// ---- launch / close ----------------------------------------------------------

/// Arguments of `browser_launch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
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
    /// The engine: chromium (the default), firefox or webkit.
    #[serde(default)]
    pub browser: Option<String>,
    /// The device, place and time (Playwright's context options).
    #[serde(flatten)]
    pub emulation: LaunchEmulation,
    /// Arguments of no field above (serde's `deny_unknown_fields` does not
    /// work beside `flatten`): refused by [`launch`], naming them, so that a
    /// misspelt option is an error rather than ignored.
    #[serde(flatten)]
    #[schemars(skip)]
    pub unknown: std::collections::BTreeMap<String, serde_json::Value>,
}

/// What `browser_launch` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Launched {
    /// Always true.
    pub success: bool,
    /// A session was open already (it is returned as it is).
    pub already_open: bool,
    /// The base URL relative URLs are joined to.
    pub base_url: String,
    /// The WebDriver session.
    pub session_id: Option<String>,
    /// The window, when opened now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
    /// Milliseconds the launch took, when opened now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launch_ms: Option<u64>,
}

/// A browser window's size.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Window {
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
}

/// What `browser_close` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Closed {
    /// Always true.
    pub success: bool,
    /// A browser was open.
    pub was_open: bool,
}

/// What `browser_navigate` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Navigated {
    /// Always true.
    pub success: bool,
    /// The page's URL after navigation.
    pub url: String,
    /// Its title.
    pub title: String,
}

/// What `browser_click` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Clicked {
    /// Always true.
    pub success: bool,
    /// The target, as given.
    pub clicked: String,
    /// A stable locator of the element.
    pub locator: String,
    /// The page's URL after the click.
    pub url: String,
}

/// What `browser_type` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Typed {
    /// Always true.
    pub success: bool,
    /// The target, as given.
    pub typed: String,
    /// A stable locator of the element.
    pub locator: String,
    /// Characters typed.
    pub length: usize,
    /// Enter was pressed after.
    pub submitted: bool,
}

/// What `browser_press` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Pressed {
    /// Always true.
    pub success: bool,
    /// The key or chord.
    pub pressed: String,
    /// The target, or "page".
    #[serde(rename = "in")]
    pub target: String,
    /// A stable locator of the element (`css=body` for the page).
    pub locator: String,
}

/// What `browser_wait_for` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Waited {
    /// Always true.
    pub success: bool,
    /// What was found.
    pub found: String,
    /// A stable locator of it.
    pub locator: String,
    /// The text waited for.
    pub text: Option<String>,
    /// Milliseconds waited.
    pub waited_ms: u64,
}

crate::plain_output!(Launched, Closed);

/// Opens headless Chromium (once; again returns the open session).
pub fn launch(ctx: &Context, a: Launch) -> Result<Launched, ToolError> {
    if let Some(name) = a.unknown.keys().next() {
        return Err(ToolError::invalid(format!(
            "browser_launch has no argument {:?}: use {}",
            name.chars().take(40).collect::<String>(),
            super::emulation::LAUNCH_ARGUMENTS
        )));
    }
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
    let browser: Option<harshjudge_browser::BrowserKind> = match a.browser.as_deref() {
        None => None,
        Some(name) => Some(name.parse().map_err(|_| {
            ToolError::invalid(format!(
                "browser {:?} is not one of chromium, firefox, webkit",
                name.chars().take(40).collect::<String>()
            ))
        })?),
    };
    let mut config = BrowserConfig::from_env().map_err(classify)?;
    // Decided once, for the session's life: what its page's calls record.
    let trace_mode = harshjudge_browser::settings::TraceMode::from_env()
        .map_err(|e| ToolError::invalid(e.to_string()))?;
    let trace_screenshots = harshjudge_browser::settings::trace_screenshots()
        .map_err(|e| ToolError::invalid(e.to_string()))?;
    if let Some(kind) = browser {
        config = config.for_browser(kind);
    }
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
    config.emulation = a.emulation.to_emulation()?;
    // Its password is a secret: masked in what the server writes from now on.
    if let Some(c) = &config.emulation.http_credentials {
        let _ = harshjudge_browser::secrets::add("HTTP_CREDENTIALS", &c.password);
    }
    let agent = ctx.agent();
    let base = base_url.trim_end_matches('/').to_string();
    // Opening is bounded by its own limit (two tries of
    // HARSHJUDGE_LAUNCH_TIMEOUT, a new driver each): the call's limit leaves
    // room for both.
    let limit =
        crate::agent::tool_timeout()?.max(config.launch_timeout * 2 + Duration::from_secs(30));
    agent.block_within(limit, "HARSHJUDGE_LAUNCH_TIMEOUT", {
        let agent = agent.clone();
        async move {
            let mut guard = agent.browser.lock().await;
            if agent.take_unresponsive()
                && let Some(hung) = guard.take()
            {
                // The open session's browser gave no answer: a new one.
                agent.browsers.discard(hung.page).await;
                agent.browsers.shutdown().await;
            }
            if let Some(s) = guard.as_ref() {
                return Ok(Launched {
                    success: true,
                    already_open: true,
                    base_url: s.base_url.clone(),
                    session_id: s.page.session_id().await,
                    window: None,
                    launch_ms: None,
                });
            }
            let started = Instant::now();
            let page = (agent.browsers)
                .open_page_with(&config, &base)
                .await
                .map_err(classify)?;
            let id = page.session_id().await;
            let tracer = harshjudge_browser::Tracer::recording(trace_mode, trace_screenshots);
            if let Some(tracer) = &tracer {
                page.trace_into(tracer).await;
            }
            *guard = Some(BrowserSession {
                page,
                base_url: base.clone(),
                console: vec![],
                network: vec![],
                actions: 0,
                tracer,
                traced: None,
                trace_run: None,
            });
            Ok(Launched {
                success: true,
                already_open: false,
                base_url: base,
                session_id: id,
                window: Some(Window {
                    width: config.window.0,
                    height: config.window.1,
                }),
                launch_ms: Some(started.elapsed().as_millis() as u64),
            })
        }
    })?
}

/// Arguments of `browser_close`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Close {}

/// Closes the browser (and chromedriver). A session whose browser gave no
/// answer to a call is let go without a word to it, its processes stopped.
pub fn close(ctx: &Context, _a: Close) -> Result<Closed, ToolError> {
    let agent = ctx.agent();
    // Closing is bounded by itself (each session's end, then the drivers'):
    // the call's limit leaves it room even when HARSHJUDGE_TOOL_TIMEOUT is short.
    let limit = crate::agent::tool_timeout()?.max(Duration::from_secs(60));
    agent.block_within(limit, "HARSHJUDGE_TOOL_TIMEOUT", {
        let agent = agent.clone();
        async move {
            let session = agent.browser.lock().await.take();
            let was_open = session.is_some();
            let hung = agent.take_unresponsive();
            if let Some(s) = session {
                if hung {
                    agent.browsers.discard(s.page).await;
                } else {
                    agent.browsers.release(s.page).await;
                }
            }
            agent.browsers.shutdown().await;
            Closed {
                success: true,
                was_open,
            }
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
pub fn navigate(ctx: &Context, a: Navigate) -> Result<Acted<Navigated>, ToolError> {
    if a.url.trim().is_empty() {
        return Err(ToolError::invalid(
            "url must not be empty: give a path such as /login or an absolute URL",
        ));
    }
    if super::page(ctx).is_err() {
        // No browser yet: open it for the URL's origin (a path: config.yaml's baseUrl).
        let u = a.url.trim();
        let origin = u.split_once("://").map(|(scheme, rest)| {
            format!(
                "{scheme}://{}",
                rest.split(['/', '?', '#']).next().unwrap_or(rest)
            )
        });
        launch(
            ctx,
            Launch {
                base_url: origin,
                width: None,
                height: None,
                browser: None,
                emulation: LaunchEmulation::default(),
                unknown: Default::default(),
            },
        )?;
    }
    act(ctx, "navigate", move |page| async move {
        page.goto(&a.url).await?;
        Ok(Navigated {
            success: true,
            url: page.url().await?,
            title: page.title().await?,
        })
    })
}

/// Clicks an element (waiting until it is visible, stable, enabled and receives the click).
pub fn click(ctx: &Context, a: Target) -> Result<Acted<Clicked>, ToolError> {
    let t = a.resolve(true)?.expect("required");
    act(ctx, "click", move |page| async move {
        let locator = locator_name(&page, &t).await;
        t.locator(&page).click().await?;
        Ok(Clicked {
            success: true,
            clicked: t.describe(),
            locator,
            url: page.url().await?,
        })
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
pub fn type_text(ctx: &Context, a: Type) -> Result<Acted<Typed>, ToolError> {
    let t = a.target().resolve(true)?.expect("required");
    let (text, submit) = (a.text, a.submit);
    act(ctx, "type", move |page| async move {
        let locator = locator_name(&page, &t).await;
        let l = t.locator(&page);
        l.fill(&text).await?;
        if submit {
            l.press("Enter").await?;
        }
        Ok(Typed {
            success: true,
            typed: t.describe(),
            locator,
            length: text.chars().count(),
            submitted: submit,
        })
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
pub fn press(ctx: &Context, a: Press) -> Result<Acted<Pressed>, ToolError> {
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
                Ok(Pressed {
                    success: true,
                    pressed: key,
                    target: t.describe(),
                    locator,
                })
            }
            None => {
                page.keyboard().press(&key).await?;
                Ok(Pressed {
                    success: true,
                    pressed: key,
                    target: "page".into(),
                    locator: "css=body".into(),
                })
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

/// Waits until an element is visible (or text appears).
pub fn wait_for(ctx: &Context, a: WaitFor) -> Result<Acted<Waited>, ToolError> {
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
                harshjudge_browser::expect(&t.locator(&page))
                    .timeout(timeout)
                    .to_contain_text(x.as_str())
                    .await?;
                (t.describe(), locator_name(&page, t).await)
            }
            (Some(t), None) => {
                harshjudge_browser::expect(&t.locator(&page))
                    .timeout(timeout)
                    .to_be_visible()
                    .await?;
                (t.describe(), locator_name(&page, t).await)
            }
            (None, x) => {
                let x = x.clone().unwrap_or_default();
                harshjudge_browser::expect(&page.get_by_text(x.as_str()).first())
                    .timeout(timeout)
                    .to_be_visible()
                    .await?;
                (format!("text:{x}"), format!("text:{x}"))
            }
        };
        Ok(Waited {
            success: true,
            found,
            locator,
            text,
            waited_ms: started.elapsed().as_millis() as u64,
        })
    })
    .map_err(timed_out)
}
