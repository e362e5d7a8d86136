//! What `benches/protocols.rs` sends to the page, the same as the library:
//! the injected engine's source (the library's `engine_source`), the
//! request `page.locator("h1").text_content()` sends (`protocol.rs`'s `Call` of a `Request::Query`), the BiDi function of
//! an engine call (`wire.rs`'s `bidi_function(false, Answer)`), and the
//! Chromium launch arguments of `config.rs`'s `chromium_capabilities`.
//! Included with `#[path]`.

#![allow(dead_code)]

use std::path::PathBuf;

/// The text every engine call reads: the demo app's home page's `<h1>`.
pub const H1: &str = "Demo App";

/// The source that installs `window.__harshjudgeEngine` unless it is there:
/// the library's own (a copy of its file list fell behind when the engine
/// gained a file, and every raw candidate's start failed).
pub fn install_source() -> String {
    harshjudge::browser::engine_source().to_string()
}

/// `page.locator("h1").text_content()`'s request, as JSON text.
pub fn text_content_request() -> String {
    serde_json::json!({
        "op": "query",
        "chain": [{"kind": "css", "sel": "h1"}],
        "describe": "page.locator(\"h1\")",
        "read": "textContent",
        "all": false,
        "name": null,
        "timeout": 5000,
    })
    .to_string()
}

/// The BiDi `script.callFunction` declaration of an engine call (argument:
/// the request as JSON text; result: the answer as JSON text).
pub const BIDI_FUNCTION: &str = "async function (__hjReq) {
if (!window.__harshjudgeEngine) return '{\"missing\": true}';
var __hjAnswer;
try { __hjAnswer = await window.__harshjudgeEngine.run(JSON.parse(__hjReq)); }
catch (e) { __hjAnswer = {ok: false, error: {kind: 'js', message: String(e && e.message || e)}, log: []}; }
return JSON.stringify(__hjAnswer);
}";

/// The CDP `Runtime.callFunctionOn` declaration of an engine call (argument:
/// the request as a value; result by value).
pub const CDP_FUNCTION: &str = "function (r) { return window.__harshjudgeEngine.run(r); }";

/// The Chromium binary: `HARSHJUDGE_CHROMIUM`, else the first of the
/// library's names on PATH.
pub fn chromium() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("HARSHJUDGE_CHROMIUM").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
    .find(|p| p.is_file())
    .ok_or_else(|| "no chromium, chromium-browser or google-chrome on PATH".to_string())
}

/// The library's Chromium arguments (`config.rs`), window 1280x800.
pub fn chromium_args() -> Vec<String> {
    let mut args: Vec<String> = [
        "--headless=new",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-features=Translate,OptimizationHints,MediaRouter,PaintHolding",
        "--allow-pre-commit-input",
        "--disable-renderer-backgrounding",
        "--disable-background-timer-throttling",
        "--disable-backgrounding-occluded-windows",
        "--disable-ipc-flooding-protection",
        "--disable-hang-monitor",
        "--disable-back-forward-cache",
        "--metrics-recording-only",
        "--disable-quic",
        "--mute-audio",
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1",
        "--window-size=1280,800",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if rustix::process::geteuid().is_root() {
        args.push("--no-sandbox".into());
    }
    args
}
