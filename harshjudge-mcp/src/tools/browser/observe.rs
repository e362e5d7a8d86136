//! Observations: screenshot, snapshot, console, network, and the page's state
//! after an action (for the knowledge store and `run_steps`).

use harshjudge_browser::{BrowserError, ConsoleEntry, NetworkEntry};
use harshjudge_store::recorder::RunHandle;
use harshjudge_store::store::{EvidenceName, NewEvidence};
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

/// What `browser_snapshot` returns: the page's accessibility tree as
/// aria-snapshot lines, the same text a model reads of the tool alone, in a
/// `run_steps` brief and in its detail.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageOutline {
    /// The page's URL.
    pub url: String,
    /// Its title.
    pub title: String,
    /// The page line, then one line per node (`- listitem [ref=e5]
    /// [testid=todo-item]:`), each with its ref (for `ref` in actions), its
    /// test id and its text (`- generic [ref=e7]: feed the cat`), its children
    /// indented under it; same-origin iframes' nodes under their iframe. On
    /// the same page as the last snapshot, unless `full`: only the lines that
    /// are new or changed, each under the lines of the nodes it is in, and
    /// the refs that are gone.
    pub snapshot: String,
    /// Whether `snapshot` holds only what changed since the last snapshot.
    pub changes_only: bool,
    /// Nodes in the page's tree as read (at most maxElements).
    pub nodes: u64,
    /// More nodes than maxElements: the rest are left out.
    pub truncated: bool,
    /// Its visible iframes, each before the frames inside it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<OutlineFrame>,
}

/// What the page's snapshot script answers.
#[derive(Debug, Deserialize)]
struct PageTree {
    url: String,
    title: String,
    /// The tree's lines (`hjAriaYaml`), without the page line.
    yaml: String,
    nodes: u64,
    truncated: bool,
    #[serde(default)]
    frames: Vec<OutlineFrame>,
}

impl PageTree {
    /// The snapshot's lines, each ending with a line break: the page line,
    /// the tree, and a note when it was cut.
    fn lines(&self) -> Vec<String> {
        let mut lines = vec![page_line(&self.title, &self.url)];
        lines.extend(
            (self.yaml.lines())
                .filter(|l| !l.trim().is_empty())
                .map(|l| format!("{l}\n")),
        );
        if self.truncated {
            lines.push(format!(
                "- note: the first {} nodes; more left out (maxElements for more)\n",
                self.nodes
            ));
        }
        lines
    }
}

/// The page line: `- page "Title" [url=…]`.
pub fn page_line(title: &str, url: &str) -> String {
    format!("- page {} [url={url}]\n", quoted(title))
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A snapshot's `lines` as sent: all of them when `before` (the last
/// snapshot's lines, of the same page) is `None`; else the page line, the
/// lines that are new or changed, each after the lines of the nodes it is in
/// (so it keeps its place in the tree), and the refs that are gone. A line is
/// the same when the same text stood under the same node before.
pub fn snapshot_text(lines: &[String], before: Option<&[String]>) -> (String, bool) {
    let Some(before) = before else {
        return (lines.concat(), false);
    };
    let (keys_now, parents) = keyed(lines);
    let (keys_before, _) = keyed(before);
    let known: std::collections::HashSet<&String> = keys_before.iter().collect();
    let mut out = lines.first().cloned().unwrap_or_default();
    let refs = |ls: &[String]| -> Vec<String> {
        ls.iter()
            .filter_map(|l| l.split("[ref=").nth(1)?.split(']').next().map(String::from))
            .collect()
    };
    let now = refs(lines);
    let gone: Vec<String> = refs(before)
        .into_iter()
        .filter(|r| !now.contains(r))
        .collect();
    let changed: Vec<usize> = (1..lines.len())
        .filter(|&i| !known.contains(&keys_now[i]))
        .collect();
    if changed.is_empty() && gone.is_empty() {
        out.push_str("- note: nothing changed (full: true for all)\n");
        return (out, true);
    }
    out.push_str("- note: changes only, each under the nodes it is in (full: true for all)\n");
    let mut sent = vec![false; lines.len()];
    for i in changed {
        let mut chain = Vec::new();
        let mut p = parents[i];
        while let Some(a) = p {
            if sent[a] {
                break;
            }
            chain.push(a);
            p = parents[a];
        }
        for a in chain.into_iter().rev().chain([i]) {
            if !sent[a] {
                sent[a] = true;
                out.push_str(&lines[a]);
            }
        }
    }
    if !gone.is_empty() {
        out.push_str(&format!("- gone: {}\n", gone.join(", ")));
    }
    (out, true)
}

/// Each line's key (its text under the node it is in: that node's ref, or
/// its own key when it has none) and the line of the node it is in. The
/// first line (the page's) is the root.
fn keyed(lines: &[String]) -> (Vec<String>, Vec<Option<usize>>) {
    let depth = |l: &str| (l.len() - l.trim_start_matches(' ').len()) / 2;
    let own_ref = |l: &str| -> Option<String> {
        l.split("[ref=").nth(1)?.split(']').next().map(String::from)
    };
    let mut keys = Vec::with_capacity(lines.len());
    let mut anchors: Vec<String> = Vec::with_capacity(lines.len());
    let mut parents = Vec::with_capacity(lines.len());
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if i == 0 {
            keys.push(line.clone());
            anchors.push(String::new());
            parents.push(None);
            continue;
        }
        let d = depth(line);
        while stack.last().is_some_and(|&(sd, _)| sd >= d) {
            stack.pop();
        }
        let parent = stack.last().map(|&(_, p)| p);
        let anchor = parent.map_or("", |p| anchors[p].as_str());
        let key = format!("{anchor}\u{0}{line}");
        anchors.push(own_ref(line).unwrap_or_else(|| key.clone()));
        keys.push(key);
        parents.push(parent);
        stack.push((d, i));
    }
    (keys, parents)
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

/// The snapshot script: the engine's ARIA tree of the page for an agent
/// (`agentSnapshot`, in harshjudge's injected `aria.js`), with the refs kept
/// here: each element gets a `data-hj-ref` (`e1`, `e2`, … for its document's
/// life, so a later snapshot names the same element by the same ref and can
/// send only what changed). Same-origin iframes are read too (four deep): each
/// gets a `data-hj-frame` (`f1`, `f2`, … for the page's life) and its
/// elements refs under it (`f1e3`); an iframe of another origin is listed,
/// unread.
const SNAPSHOT_BODY: &str = concat!(
    include_str!("frame_css.js"),
    r#"
const max = arguments[0];
const cut = (s, n) => { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n - 1) + '…' : s; };
if (!window.__hjFrameSeq) window.__hjFrameSeq = 0;
const frames = [];
const prefixes = new Map([[document, '']]);
const ref = (el) => {
  const win = el.ownerDocument.defaultView;
  if (!win.__hjRefSeq) win.__hjRefSeq = 0;
  let r = el.getAttribute('data-hj-ref');
  if (!r) { win.__hjRefSeq += 1; r = 'e' + win.__hjRefSeq; el.setAttribute('data-hj-ref', r); }
  return (prefixes.get(el.ownerDocument) || '') + r;
};
const frame = (f) => {
  const prefix = prefixes.get(f.ownerDocument) || '';
  let own = f.getAttribute('data-hj-frame');
  if (!own) { window.__hjFrameSeq += 1; own = 'f' + window.__hjFrameSeq; f.setAttribute('data-hj-frame', own); }
  const entry = {ref: prefix + own, selector: hjFrameCss(f)};
  if (prefix) entry.parent = prefix;
  const label = cut(f.getAttribute('title') || f.getAttribute('name') || '', 60);
  if (label) entry.name = label;
  let inner = null;
  try { inner = f.contentDocument; } catch (err) { inner = null; }
  entry.url = cut(inner ? inner.location.href : (f.getAttribute('src') || ''), 120);
  if (!inner) entry.crossOrigin = true;
  frames.push(entry);
  const deep = (prefix.match(/f/g) || []).length >= 4;
  if (!inner || deep) return {ref: entry.ref, url: entry.url};
  prefixes.set(inner, entry.ref);
  return {ref: entry.ref, url: entry.url, body: inner.body || inner.documentElement};
};
const tree = window.__harshjudgeEngine.agentSnapshot({max, ref, frame});
return {url: location.href, title: document.title, yaml: tree.yaml, nodes: tree.nodes, truncated: tree.truncated, frames};
"#
);

/// The snapshot script after the injected engine (installed where missing),
/// whose ARIA tree it reads.
fn snapshot_script() -> &'static str {
    static SCRIPT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SCRIPT.get_or_init(|| format!("{}\n{SNAPSHOT_BODY}", harshjudge_browser::engine_source()))
}

/// Arguments of `browser_snapshot`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Snapshot {
    /// Most nodes read (default 300, at most 2000).
    #[serde(default)]
    pub max_elements: Option<u32>,
    /// Everything, not only what changed since the last snapshot.
    #[serde(default)]
    pub full: bool,
}

/// The page's accessibility tree with refs for later actions: all of it the
/// first time, after a navigation or with `full`; else what changed since
/// the last snapshot (which this one becomes).
pub fn snapshot(ctx: &Context, a: Snapshot) -> Result<PageOutline, ToolError> {
    let max = a.max_elements.unwrap_or(300);
    if max == 0 || max > 2000 {
        return Err(ToolError::invalid(format!(
            "maxElements {max} is out of range: give 1 to 2000"
        )));
    }
    let page = page(ctx)?;
    let v = ctx
        .agent()
        .block_on(async move {
            // The script reads `arguments`: called as a function with them.
            let js = format!(
                "(args) => (function () {{\n{}\n}}).apply(null, args)",
                snapshot_script()
            );
            page.evaluate::<serde_json::Value, _>(&js, json!([max]))
                .await
                .map_err(|e| BrowserError::Command {
                    action: "reading the page's snapshot".into(),
                    message: e.to_string(),
                })
        })?
        .map_err(classify)?;
    let tree: PageTree = serde_json::from_value(v).map_err(|e| {
        ToolError::new(
            crate::error::Code::Internal,
            format!("the page snapshot script gave an unexpected result ({e}); this is a bug in harshjudge-mcp, please report it"),
        )
    })?;
    let lines = tree.lines();
    let previous = (ctx.agent().last_snapshot.lock())
        .ok()
        .and_then(|mut l| l.replace((tree.url.clone(), lines.clone())));
    let before = previous
        .as_ref()
        .filter(|(u, _)| !a.full && *u == tree.url)
        .map(|(_, l)| l.as_slice());
    let (snapshot, changes_only) = snapshot_text(&lines, before);
    Ok(PageOutline {
        url: tree.url,
        title: tree.title,
        snapshot,
        changes_only,
        nodes: tree.nodes,
        truncated: tree.truncated,
        frames: tree.frames,
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

/// Reads the logs chromedriver holds into the session's buffers, then `f`
/// (the logs taken belong to the active run's current step's trace).
pub(super) fn with_logs<T: Send + 'static>(
    ctx: &Context,
    f: impl FnOnce(&mut BrowserSession) -> T + Send + 'static,
) -> Result<T, ToolError> {
    let agent = ctx.agent();
    let step = super::evidence::trace_target(ctx);
    agent.block_on({
        let agent = agent.clone();
        async move {
            let mut guard = agent.browser.lock().await;
            let s = guard.as_mut().ok_or_else(no_session)?;
            s.trace_call_in(step);
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
            let read = page.eval("return {url: location.href, title: document.title, ids: Array.from(new Set(Array.from(document.querySelectorAll('[data-testid]')).map(e => e.getAttribute('data-testid')))).slice(0, 50)}");
            let v = harshjudge_browser::untraced(read).await.ok()?;
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
