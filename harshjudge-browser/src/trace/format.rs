//! The format of `step-NN/evidence/trace.json` and of the resources its DOM
//! snapshots name (`runs/{runId}/trace-resources/{sha256}.{ext}`): what the
//! tracer writes, and what the report, the judge and the MCP server read.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The folder of a run that holds the resources of its DOM snapshots.
pub const TRACE_RESOURCES: &str = "trace-resources";

/// The SHA-256 of a content, as 64 lowercase hex digits: a blob's name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ContentHash(String);

impl ContentHash {
    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> ContentHash {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let digest = Sha256::digest(bytes);
        let mut hex = String::with_capacity(64);
        for b in digest {
            hex.push(char::from(HEX[usize::from(b >> 4)]));
            hex.push(char::from(HEX[usize::from(b & 15)]));
        }
        ContentHash(hex)
    }

    /// The hash written as `hex` (64 lowercase hex digits), if it is one.
    pub fn parse(hex: &str) -> Option<ContentHash> {
        (hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| ContentHash(hex.to_string()))
    }

    /// The 64 hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ContentHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `RunDir::trace_resource` as a step's evidence files
/// name it, relative to their folder: `../../trace-resources/{hash}.{ext}`.
pub fn resource_from_evidence(hash: &ContentHash, ext: &str) -> String {
    format!("../../{TRACE_RESOURCES}/{}.{ext}", hash.as_str())
}

/// The extension a trace resource of MIME type `mime` is stored under
/// (`image/png` → `png`, parameters and case ignored): `css`, `png`,
/// `jpg`, `gif`, `webp`, `svg`, `avif`, `ico`, `woff2`, `woff`, `ttf`,
/// `otf`; any other `bin`.
pub fn resource_ext(mime: &str) -> &'static str {
    let essence = mime.split(';').next().unwrap_or("").trim();
    match essence.to_ascii_lowercase().as_str() {
        "text/css" => "css",
        "image/png" => "png",
        "image/jpeg" | "image/jpg" | "image/pjpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "image/avif" => "avif",
        "image/x-icon" | "image/vnd.microsoft.icon" => "ico",
        "font/woff2" => "woff2",
        "font/woff" | "application/font-woff" => "woff",
        "font/ttf" | "application/x-font-ttf" | "font/sfnt" => "ttf",
        "font/otf" | "application/x-font-otf" => "otf",
        _ => "bin",
    }
}

/// The MIME type a trace resource stored under `ext` is served as (the
/// inverse of [`resource_ext`]); none
/// for an extension it never gives.
pub fn resource_type(ext: &str) -> Option<&'static str> {
    Some(match ext {
        "css" => "text/css",
        "png" => "image/png",
        "jpg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "avif" => "image/avif",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "bin" => "application/octet-stream",
        _ => return None,
    })
}

/// The `trace.json` format version this harshjudge writes and reads. New
/// optional keys do not change it; a reader refuses a higher one.
pub const TRACE_VERSION: u32 = 1;

/// `step-NN/evidence/trace.json`: what happened inside one step, one entry
/// per action, read, assertion and navigation, in the order they began.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceFile {
    /// [`TRACE_VERSION`].
    pub version: u32,
    /// The step, `01`…
    pub step: String,
    /// The attempt of the scenario (1, then 2… for retries).
    pub attempt: u32,
    /// The trace mode it was recorded under (`on`, `retain-on-failure`, …).
    pub mode: String,
    /// When the step began, ms since the Unix epoch.
    pub started_at: f64,
    /// When its trace was taken (its end), ms since the Unix epoch.
    pub ended_at: f64,
    /// The scenario's pages that entries name (`p1`, `p2`, …).
    pub pages: Vec<TracePage>,
    /// The entries, in the order they began.
    pub entries: Vec<TraceEntry>,
    /// The console lines and requests of the step that began inside no entry.
    pub between: TraceLogs,
    /// What was left out and why (none so far).
    #[serde(default)]
    pub limits: Vec<String>,
    /// What could not be recorded (a page that did not hand its logs).
    #[serde(default)]
    pub errors: Vec<String>,
}

/// Why a `trace.json` cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceReadError {
    /// Written by a newer harshjudge.
    #[error("trace.json version {found} is newer than this harshjudge (reads {TRACE_VERSION})")]
    Newer {
        /// The file's version.
        found: u32,
    },
    /// Not a trace file.
    #[error("trace.json is not a trace: {0}")]
    Json(#[from] serde_json::Error),
}

impl TraceFile {
    /// Reads a `trace.json`, refusing one of a newer version by its number.
    pub fn read(text: &str) -> Result<TraceFile, TraceReadError> {
        #[derive(Deserialize)]
        struct Version {
            version: u32,
        }
        let Version { version } = serde_json::from_str(text)?;
        if version > TRACE_VERSION {
            return Err(TraceReadError::Newer { found: version });
        }
        Ok(serde_json::from_str(text)?)
    }
}

/// A page of a trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TracePage {
    /// `p1`, `p2`, … in the order the scenario opened them.
    pub id: String,
    /// `chromium`, `firefox`, `webkit`.
    pub browser: String,
    /// `cdp`, `webdriver-bidi`, `webdriver-classic`.
    pub protocol: String,
    /// Width and height in CSS pixels, when known.
    pub viewport: Option<[u32; 2]>,
}

/// One action, read, assertion or navigation of a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceEntry {
    /// 1-based, in the order entries began.
    pub n: u32,
    /// `action`, `assertion`, `read`, `navigation`, `input` or `script`.
    pub kind: String,
    /// The page's id (`p1`).
    pub page: String,
    /// The frame locator chain as written, or none for the page's own document.
    pub frame: Option<String>,
    /// The call as written: `page.get_by_role("button").name("Save").click()`.
    pub call: String,
    /// Where it was called, `file:line:column`.
    pub at: String,
    /// When it began, ms since the Unix epoch.
    pub start: f64,
    /// When it ended, ms since the Unix epoch.
    pub end: f64,
    /// How it ended, with its call log.
    pub outcome: TraceOutcome,
    /// Console lines logged while it ran.
    pub console: Vec<TraceConsole>,
    /// Requests that began while it ran (wherever they ended).
    pub network: Vec<TraceRequest>,
    /// The element an action acted on (or last waited for, when it failed);
    /// none for other entries and in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<TraceTarget>,
    /// Where its DOM snapshots are in the step's `trace-dom.json` (the top
    /// document's of each moment); none without snapshots and in files
    /// written before they were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshots: Option<TraceSnapshots>,
    /// Its screenshot after it, a file of the step's evidence
    /// (`trace-03.png`), under `HARSHJUDGE_TRACE_SCREENSHOTS=on`; none
    /// otherwise and in files written before screenshots were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
}

/// The indexes of an entry's snapshots in `trace-dom.json`'s `snapshots`:
/// an action's page before and after it, an assertion's at its last check,
/// a navigation's or an input's after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceSnapshots {
    /// Before it acted (its element resolved and found actionable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<u32>,
    /// After it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u32>,
    /// At an assertion's last check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<u32>,
}

/// The element of an action: where it was, and how to find it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceTarget {
    /// Its box when the action met it, in the top page's CSS pixels (as
    /// `Locator::bounding_box` gives it; inside a frame, offset by the
    /// frame's position).
    #[serde(rename = "box")]
    pub bbox: TraceBox,
    /// Its locator as `generate_locator` writes it, taken when the step's
    /// trace was written (relative to its frame's document); none when it
    /// was `detached` then, or could not be asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locator: Option<String>,
    /// The element was gone from its document when the trace was written.
    #[serde(default)]
    pub detached: bool,
    /// What of its computed style tells whether it could be acted on, read
    /// when the action met it (why was it not clickable?).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<TraceStyle>,
}

/// A trace target's computed style, the properties that decide whether it
/// can be seen and acted on (`getComputedStyle`'s values as written).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceStyle {
    /// `display` (`none`: not rendered).
    pub display: String,
    /// `visibility` (`hidden`: not seen, not hit).
    pub visibility: String,
    /// `opacity` (`0`: invisible, still hit).
    pub opacity: String,
    /// `pointer-events` (`none`: clicks go through it).
    pub pointer_events: String,
    /// `position`.
    pub position: String,
    /// `z-index` (`auto` or a number): what may cover it.
    pub z_index: String,
}

/// A box in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TraceBox {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// How an entry ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceOutcome {
    /// `ok`, `failed`, or `unfinished` (the step ended it: its time limit, the scenario's).
    pub status: String,
    /// A failure's kind: `timeout`, `strict`, `assertion`, `invalid`, `lost`,
    /// `navigation-interrupted`, `command`, `unsupported`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The failure as the step's error says it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The call log: what the page waited for, retries.
    pub log: Vec<String>,
}

/// Console lines and requests outside every entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TraceLogs {
    /// Console lines.
    pub console: Vec<TraceConsole>,
    /// Requests.
    pub network: Vec<TraceRequest>,
}

/// A console line of a trace (as in `console.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceConsole {
    /// `info`, `warning`, `error`, `debug`.
    pub level: String,
    /// The message.
    pub text: String,
    /// `console-api`, `javascript`, `network`, …
    pub source: String,
    /// The script or resource URL, when known.
    pub url: Option<String>,
    /// Ms since the Unix epoch.
    pub timestamp: u64,
}

/// A request of a trace (as in `network.json`, with its start).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceRequest {
    /// GET, POST, …
    pub method: String,
    /// The URL.
    pub url: String,
    /// The HTTP status (none when it failed or is pending).
    pub status: Option<u64>,
    /// Document, Fetch, XHR, …
    #[serde(rename = "type")]
    pub kind: String,
    /// Ms from request to its end.
    pub timing: Option<f64>,
    /// Why it failed, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// When it was sent, ms since the Unix epoch (none over classic WebDriver).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<f64>,
}
