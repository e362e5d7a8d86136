//! Observations: screenshot, snapshot, console, network, and the page's state
//! after an action (for the knowledge store and `run_steps`).

use harshjudge::browser::{BrowserError, ConsoleEntry, NetworkEntry};
use harshjudge::recorder::RunHandle;
use harshjudge::store::{EvidenceName, NewEvidence};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::agent::BrowserSession;
use crate::context::Context;
use crate::error::ToolError;

use super::evidence::evidence_target;
use super::{classify, no_session, page};

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

/// What `browser_screenshot` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Screenshotted {
    /// Always true.
    pub success: bool,
    /// The PNG file, relative to the project.
    pub path: String,
    /// Its size.
    pub bytes: usize,
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
    /// The image itself, with `inline`: the server sends it as an image
    /// block and removes it from the structured result (so it is no part of
    /// the output schema).
    #[serde(rename = "__image", skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub image: Option<InlineImage>,
}

/// An image returned inline.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InlineImage {
    /// Base64.
    pub data: String,
    /// `image/png`.
    pub mime_type: String,
}

/// What `browser_snapshot` returns: the page's outline, as read in the page
/// (keys in alphabetical order, as chromedriver gives them).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageOutline {
    /// Its visible interactive elements, each with a ref for later actions
    /// (those of its same-origin iframes too, after the page's own).
    pub elements: Vec<OutlineElement>,
    /// Its visible iframes, each before the frames inside it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<OutlineFrame>,
    /// Its visible h1 to h3 (at most 20).
    pub headings: Vec<Heading>,
    /// Visible interactive elements in all.
    pub interactive_count: u64,
    /// `data-testid`s on the page (at most 100).
    pub test_ids: Vec<String>,
    /// The start of its visible text.
    pub text: String,
    /// Its title.
    pub title: String,
    /// More interactive elements than listed.
    pub truncated: bool,
    /// The page's URL.
    pub url: String,
}

impl PageOutline {
    /// The outline in Playwright's aria-snapshot form, one line per element
    /// with its ref (`- checkbox "Done" [checked] [ref=e4]`): what a model is
    /// given by default instead of the JSON.
    pub fn aria_text(&self) -> String {
        self.aria_lines().concat()
    }

    /// [`PageOutline::aria_text`]'s lines, each ending with a line break: the
    /// page line first, then headings and elements, then notes.
    pub fn aria_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let mut out = self.aria_page_line();
        lines.push(std::mem::take(&mut out));
        for h in &self.headings {
            lines.push(format!(
                "- heading {} [level={}]\n",
                quoted(&h.text),
                h.level
            ));
        }
        for e in self.elements.iter().filter(|e| e.frame.is_none()) {
            lines.push(format!("- {}\n", e.aria_line()));
        }
        // Each frame after the page's own elements, its elements indented
        // under it (a frame inside a frame one step further).
        for f in &self.frames {
            let depth = self.frame_depth(f);
            let pad = "  ".repeat(depth);
            let mut line = format!("{pad}- iframe");
            if let Some(n) = &f.name {
                line.push(' ');
                line.push_str(&quoted(n));
            }
            line.push_str(&format!(" [ref={}] [url={}]", f.reference, f.url));
            if f.cross_origin == Some(true) {
                line.push_str(" [cross-origin: not read]");
            }
            line.push('\n');
            lines.push(line);
            for e in (self.elements.iter()).filter(|e| e.frame.as_deref() == Some(&f.reference)) {
                lines.push(format!("{pad}  - {}\n", e.aria_line()));
            }
        }
        if self.elements.is_empty() && !self.text.is_empty() {
            lines.push(format!("- text: {}\n", quoted(&self.text)));
        }
        if self.truncated {
            lines.push(format!(
                "- note: {} interactive elements, {} listed (maxElements for more)\n",
                self.interactive_count,
                self.elements.len()
            ));
        }
        lines
    }

    /// The page line: `- page "Title" [url=…]`.
    pub fn aria_page_line(&self) -> String {
        format!("- page {} [url={}]\n", quoted(&self.title), self.url)
    }

    /// How many frames `f` is inside (0: an iframe of the page itself).
    fn frame_depth(&self, f: &OutlineFrame) -> usize {
        let mut depth = 0;
        let mut parent = f.parent.as_deref();
        while let Some(p) = parent {
            depth += 1;
            parent = (self.frames.iter())
                .find(|g| g.reference == p)
                .and_then(|g| g.parent.as_deref());
            if depth > self.frames.len() {
                break;
            }
        }
        depth
    }
}

impl OutlineElement {
    /// The element as an aria-snapshot line, without its indent and dash:
    /// `checkbox "Done" [checked] [ref=e4]`.
    fn aria_line(&self) -> String {
        let role = self.role.clone().unwrap_or_else(|| {
            match (self.tag.as_str(), self.kind.as_deref()) {
                ("a", _) => "link",
                ("button", _) => "button",
                ("select", _) => "combobox",
                ("textarea", _) => "textbox",
                ("li", _) => "listitem",
                ("label", _) => "text",
                ("input", Some("checkbox")) => "checkbox",
                ("input", Some("radio")) => "radio",
                ("input", Some("submit" | "button" | "reset")) => "button",
                ("input", Some("range")) => "slider",
                ("input", _) => "textbox",
                (tag, _) => tag,
            }
            .to_string()
        });
        let mut out = role;
        // "on" is a checkbox's default value, not a name.
        if let Some(n) = self.name.as_deref().filter(|n| !n.is_empty() && *n != "on") {
            out.push(' ');
            out.push_str(&quoted(n));
        }
        if self.checked == Some(true) {
            out.push_str(" [checked]");
        }
        if self.disabled == Some(true) {
            out.push_str(" [disabled]");
        }
        out.push_str(&format!(" [ref={}]", self.reference));
        if let Some(t) = &self.test_id {
            out.push_str(&format!(" [testid={t}]"));
        }
        if let Some(h) = &self.href {
            out.push_str(&format!(" [url={h}]"));
        }
        if let Some(v) = &self.value {
            out.push_str(": ");
            out.push_str(&quoted(v));
        }
        out
    }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A heading in a [`PageOutline`].
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Heading {
    /// 1 to 3.
    pub level: u8,
    /// Its text (cut to 80 characters).
    pub text: String,
}

/// An interactive element in a [`PageOutline`].
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutlineElement {
    /// A checkbox's or radio's state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
    /// Set when disabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    /// The ref of the iframe it is in (`f1`); none in the page itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// A link's href (cut to 80 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub href: Option<String>,
    /// Its accessible name, as `get_by_role(…).name(…)` matches it (cut to
    /// 60 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Usable as `ref` in actions (`e1`, `e2`, …; `f1e3` in frame `f1`).
    #[serde(rename = "ref")]
    pub reference: String,
    /// Its ARIA role, as `get_by_role` matches it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Its tag name, lowercase.
    pub tag: String,
    /// Its `data-testid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_id: Option<String>,
    /// An input's type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// What a text field or select holds (cut to 60 characters; never a
    /// password's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// An iframe in a [`PageOutline`].
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutlineFrame {
    /// Set when its document is of another origin: listed, not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_origin: Option<bool>,
    /// Its title or name attribute (cut to 60 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The ref of the frame it is in; none for an iframe of the page itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// `f1`, `f2`, …: its elements' refs start with it (`f1e3`).
    #[serde(rename = "ref")]
    pub reference: String,
    /// The CSS selector of the iframe in its parent's document, as
    /// `frame` (or `page.frame_locator(…)`) takes it.
    pub selector: String,
    /// Its document's URL (cut to 120 characters).
    pub url: String,
}

/// What `browser_console` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ConsoleLog {
    /// How many.
    pub count: usize,
    /// The messages, oldest first.
    pub entries: Vec<ConsoleEntry>,
}

/// What `browser_network` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct NetworkLog {
    /// How many.
    pub count: usize,
    /// The requests, oldest first.
    pub entries: Vec<NetworkEntry>,
}

crate::plain_output!(Screenshotted, PageOutline, ConsoleLog, NetworkLog);

/// Takes a screenshot into a file: the current step's evidence while a run is
/// active, else `.harshJudge/agent/screenshots/`.
pub fn screenshot(ctx: &Context, a: Screenshot) -> Result<Screenshotted, ToolError> {
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
                .record_evidence(
                    &step,
                    NewEvidence {
                        name: &name,
                        ext: "png",
                        kind: "screenshot",
                        bytes: &png,
                    },
                    Default::default(),
                )?
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
    let image = a.inline.then(|| {
        use base64::Engine;
        InlineImage {
            data: base64::engine::general_purpose::STANDARD.encode(&png),
            mime_type: "image/png".into(),
        }
    });
    Ok(Screenshotted {
        success: true,
        path: ctx.rel(&path),
        bytes: png.len(),
        width: w,
        height: h,
        image,
    })
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
/// Same-origin iframes are walked too (four deep): each gets a `data-hj-frame`
/// (`f1`, `f2`, … for the page's life) and its elements refs under it
/// (`f1e3`); an iframe of another origin is listed, unread.
const SNAPSHOT_BODY: &str = concat!(
    include_str!("frame_css.js"),
    r#"
const max = arguments[0];
const cut = (s, n) => { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n - 1) + '…' : s; };
const visible = (el) => { const r = el.getBoundingClientRect(); const st = el.ownerDocument.defaultView.getComputedStyle(el); return r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none'; };
const headings = Array.from(document.querySelectorAll('h1,h2,h3')).filter(visible).slice(0, 20).map(h => ({level: +h.tagName[1], text: cut(h.innerText, 80)}));
const sel = 'a[href],button,input,select,textarea,[role=button],[role=link],[role=checkbox],[role=tab],[onclick],[data-testid]';
const elements = [];
const frames = [];
let total = 0;
// Refs stay with their elements for the document's life (a later snapshot
// names the same element by the same ref, so it can send only what changed).
if (!window.__hjFrameSeq) window.__hjFrameSeq = 0;
const walk = (doc, win, prefix, frame, depth) => {
  const all = Array.from(doc.querySelectorAll(sel)).filter(visible);
  total += all.length;
  if (!win.__hjRefSeq) win.__hjRefSeq = 0;
  for (const el of all) {
    if (elements.length >= max) break;
    let ref = el.getAttribute('data-hj-ref');
    if (!ref) { win.__hjRefSeq += 1; ref = 'e' + win.__hjRefSeq; el.setAttribute('data-hj-ref', ref); }
    const tag = el.tagName.toLowerCase();
    const e = {ref: prefix + ref, tag};
    if (frame) e.frame = frame;
    const seen = window.__harshjudgeEngine.describe(el);
    if (seen.role) e.role = seen.role;
    const tid = el.getAttribute('data-testid'); if (tid) e.testId = tid;
    if (cut(seen.name, 60)) e.name = cut(seen.name, 60);
    if (tag === 'input') { e.type = el.type; if (el.type === 'checkbox' || el.type === 'radio') e.checked = el.checked; }
    // What a field holds (a password's never: it is a secret).
    const field = tag === 'textarea' || tag === 'select' || (tag === 'input' && !['checkbox', 'radio', 'password', 'hidden', 'file', 'submit', 'button', 'reset', 'image'].includes(el.type));
    if (field && cut(el.value, 60)) e.value = cut(el.value, 60);
    if (tag === 'a') e.href = cut(el.getAttribute('href'), 80);
    if (el.disabled) e.disabled = true;
    elements.push(e);
  }
  if (depth >= 4) return;
  for (const f of doc.querySelectorAll('iframe,frame')) {
    if (!visible(f)) continue;
    let own = f.getAttribute('data-hj-frame');
    if (!own) { window.__hjFrameSeq += 1; own = 'f' + window.__hjFrameSeq; f.setAttribute('data-hj-frame', own); }
    const entry = {ref: prefix + own, selector: hjFrameCss(f)};
    if (frame) entry.parent = frame;
    const label = f.getAttribute('title') || f.getAttribute('name') || '';
    if (cut(label, 60)) entry.name = cut(label, 60);
    let inner = null;
    try { inner = f.contentDocument; } catch (err) { inner = null; }
    entry.url = cut(inner ? inner.location.href : (f.getAttribute('src') || ''), 120);
    if (!inner) entry.crossOrigin = true;
    frames.push(entry);
    if (inner) walk(inner, f.contentWindow, prefix + own, prefix + own, depth + 1);
  }
};
walk(document, window, '', null, 0);
const testIds = Array.from(new Set(Array.from(document.querySelectorAll('[data-testid]')).map(e => e.getAttribute('data-testid')))).slice(0, 100);
return {url: location.href, title: document.title, headings, elements, frames, testIds, text: cut(document.body ? document.body.innerText : '', 600), truncated: total > elements.length, interactiveCount: total};
"#
);

/// The outline script after the injected engine (installed where missing),
/// whose roles and accessible names it lists.
fn snapshot_script() -> &'static str {
    static SCRIPT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SCRIPT.get_or_init(|| format!("{}\n{SNAPSHOT_BODY}", harshjudge::browser::engine_source()))
}

/// Arguments of `browser_snapshot`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Snapshot {
    /// Most elements listed (default 80, at most 300).
    #[serde(default)]
    pub max_elements: Option<u32>,
    /// Everything, not only what changed since the last snapshot.
    #[serde(default)]
    pub full: bool,
}

/// A compact outline of the page, with refs for later actions.
pub fn snapshot(ctx: &Context, a: Snapshot) -> Result<PageOutline, ToolError> {
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
                .execute(snapshot_script(), vec![json!(max)])
                .await
                .map_err(|e| BrowserError::Command {
                    action: "reading the page outline".into(),
                    message: e.to_string(),
                })
        })?
        .map_err(classify)?;
    serde_json::from_value(v).map_err(|e| {
        ToolError::new(
            crate::error::Code::Internal,
            format!("the page outline script gave an unexpected result ({e}); this is a bug in harshjudge-mcp, please report it"),
        )
    })
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
pub fn console(ctx: &Context, a: Console) -> Result<ConsoleLog, ToolError> {
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
        ConsoleLog {
            count: entries.len(),
            entries,
        }
    })
}

/// Reads the logs chromedriver holds into the session's buffers, then `f`.
pub(super) fn with_logs<T: Send + 'static>(
    ctx: &Context,
    f: impl FnOnce(&mut BrowserSession) -> T + Send + 'static,
) -> Result<T, ToolError> {
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
pub fn network(ctx: &Context, a: Network) -> Result<NetworkLog, ToolError> {
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
        NetworkLog {
            count: entries.len(),
            entries,
        }
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
