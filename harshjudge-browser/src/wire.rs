//! What goes over the wire to the WebDriver: raw commands, the injected
//! engine's source and call scripts (the calls themselves are `engine.rs`'s),
//! and the one place where a failed command becomes a [`BrowserError`] that
//! names its cause first (the driver exited, the page crashed, …).

use fantoccini::Client;
use fantoccini::error::CmdError;
use fantoccini::wd::WebDriverCompatibleCommand;

use super::error::BrowserError;

/// A W3C command the client has no method for (or one we send in one trip).
#[derive(Debug)]
pub(crate) struct Raw {
    pub(crate) path: String,
    pub(crate) body: Option<serde_json::Value>,
}

impl WebDriverCompatibleCommand for Raw {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/{}",
            session.unwrap_or_default(),
            self.path
        ))
    }
    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        match &self.body {
            Some(b) => (http::Method::POST, Some(b.to_string())),
            None => (http::Method::GET, None),
        }
    }
}

/// POSTs `body` to `session/{id}/{path}`.
pub(crate) async fn post(
    client: &Client,
    path: impl Into<String>,
    body: serde_json::Value,
    during: &str,
) -> Result<serde_json::Value, BrowserError> {
    client
        .issue_cmd(Raw {
            path: path.into(),
            body: Some(body),
        })
        .await
        .map_err(|e| fail(during, e))
}

/// GETs `session/{id}/{path}`.
pub(crate) async fn get(
    client: &Client,
    path: impl Into<String>,
    during: &str,
) -> Result<serde_json::Value, BrowserError> {
    client
        .issue_cmd(Raw {
            path: path.into(),
            body: None,
        })
        .await
        .map_err(|e| fail(during, e))
}

/// A Chrome DevTools command through chromedriver's passthrough.
pub(crate) async fn cdp(
    client: &Client,
    cmd: &str,
    params: serde_json::Value,
) -> Result<serde_json::Value, BrowserError> {
    post(
        client,
        "goog/cdp/execute",
        serde_json::json!({"cmd": cmd, "params": params}),
        &format!("running CDP {cmd}"),
    )
    .await
}

/// The cause of a command that lost its connection to the driver. The
/// session's driver, which knows whether it exited, makes it "chromedriver
/// exited" then ([`super::backend::webdriver::driver::DriverWatch::explain`]).
pub(crate) const UNREACHABLE: &str = "webdriver not reachable";

/// The cause of a failed command, when it is not about the page's content: the
/// driver or browser went away, or the page crashed.
fn cause(e: &CmdError) -> Option<&'static str> {
    let text = e.to_string().to_lowercase();
    if matches!(
        e,
        CmdError::Lost(_) | CmdError::Failed(_) | CmdError::FailedC(_)
    ) {
        return Some(UNREACHABLE);
    }
    if text.contains("page crash")
        || text.contains("tab crashed")
        || text.contains("target crashed")
    {
        return Some("the page crashed");
    }
    if text.contains("chrome not reachable")
        || text.contains("not connected to devtools")
        || text.contains("browser has closed")
        || text.contains("unable to receive message from renderer")
    {
        return Some("the browser is gone");
    }
    if text.contains("invalid session id") || text.contains("session deleted") {
        return Some("the browser session ended");
    }
    None
}

/// The one mechanism turning a failed WebDriver command into an error: a lost
/// driver, browser or page leads the message ("chromedriver exited while
/// waiting for …: …"); anything else says what was being done.
pub(crate) fn fail(during: &str, e: CmdError) -> BrowserError {
    match cause(&e) {
        Some(cause) => BrowserError::Lost {
            cause: cause.to_string(),
            during: during.to_string(),
            detail: e.to_string(),
            location: None,
        },
        None => BrowserError::Command {
            action: during.to_string(),
            message: e.to_string(),
        },
    }
}

/// Whether a script failed because its document went away (a navigation while
/// it ran): the call is then repeated in the new document.
pub(crate) fn is_navigation(e: &BrowserError) -> bool {
    match e {
        BrowserError::Command { message, .. } => {
            let m = message.to_lowercase();
            // Chromium: "document unloaded while waiting for result";
            // geckodriver: "Document was unloaded"; WebKitWebDriver:
            // "Callback was not called before the unload event".
            m.contains("document unloaded")
                || m.contains("document was unloaded")
                || m.contains("before the unload event")
                || m.contains("execution context was destroyed")
                || m.contains("inspected target navigated")
                || m.contains("cannot find context")
                || m.contains("frame was detached")
                || m.contains("no such execution context")
        }
        _ => false,
    }
}

/// The in-page script's files, concatenated in this order into one closure:
/// the role functions (`roles.js`, `names.js`, then `aria.js`), then the engine
/// (`engine.js`, `actions.js`, `assertions.js`, which installs it), then the
/// locator generator (`generate.js`, which adds itself to the engine), then
/// the trace's DOM snapshots (`snapshot.js`).
const INJECTED: [&str; 8] = [
    include_str!("injected/roles.js"),
    include_str!("injected/names.js"),
    include_str!("injected/aria.js"),
    include_str!("injected/engine.js"),
    include_str!("injected/actions.js"),
    include_str!("injected/assertions.js"),
    include_str!("injected/generate.js"),
    include_str!("injected/snapshot.js"),
];

/// The source that installs `window.__harshjudgeEngine` unless it is there.
pub(crate) fn install_source() -> &'static str {
    static SRC: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SRC.get_or_init(|| {
        format!(
            "if (!window.__harshjudgeEngine) {{ (function () {{\n'use strict';\n{}\n}})(); }}\n",
            INJECTED.join("\n")
        )
    })
}

const CALL: &str = "var done = arguments[arguments.length - 1];
window.__harshjudgeEngine.run(arguments[0]).then(done, function (e) {
  done({ok: false, error: {kind: 'js', message: String(e && e.message || e)}, log: []});
});";

/// The body of a BiDi call (`script.callFunction`): the engine's answer to
/// the request `__hjReq` (JSON text) in `__hjAnswer`.
const BIDI_CALL: &str = "var __hjAnswer;
try { __hjAnswer = await window.__harshjudgeEngine.run(JSON.parse(__hjReq)); }
catch (e) { __hjAnswer = {ok: false, error: {kind: 'js', message: String(e && e.message || e)}, log: []}; }
";

/// What a BiDi call returns: the answer as JSON text.
const BIDI_ANSWER: &str = "return JSON.stringify(__hjAnswer);";

/// What a BiDi call that finds an element for a command of its own returns:
/// the element (BiDi answers it as a node with its shared id), or the answer
/// as JSON text (not found in time).
const BIDI_ELEMENT: &str =
    "var el = __hjAnswer && __hjAnswer.ok && __hjAnswer.value && __hjAnswer.value.element;
if (el && el.nodeType === 1) return el;
if (el) __hjAnswer.value = {};
return JSON.stringify(__hjAnswer);";

/// What an engine call over BiDi returns to Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BidiReturns {
    /// The engine's answer, as JSON text.
    Answer,
    /// The element found (`{"node": shared id, "context": …}`), for a BiDi
    /// command that takes an element (`input.setFiles`).
    Element,
}

/// The BiDi function of an engine call: `full` installs the engine first,
/// else the function answers `{"missing": true}` when the document lacks it.
pub(crate) fn bidi_function(full: bool, returns: BidiReturns) -> &'static str {
    static SRC: std::sync::OnceLock<[String; 4]> = std::sync::OnceLock::new();
    let all = SRC.get_or_init(|| {
        let make = |full: bool, tail: &str| {
            let head = if full {
                install_source().to_string()
            } else {
                "if (!window.__harshjudgeEngine) return '{\"missing\": true}';\n".to_string()
            };
            format!("async function (__hjReq) {{\n{head}{BIDI_CALL}{tail}\n}}")
        };
        [
            make(false, BIDI_ANSWER),
            make(false, BIDI_ELEMENT),
            make(true, BIDI_ANSWER),
            make(true, BIDI_ELEMENT),
        ]
    });
    let tail = match returns {
        BidiReturns::Answer => 0,
        BidiReturns::Element => 1,
    };
    &all[usize::from(full) * 2 + tail]
}

/// The script of a call when the engine may be missing: asks for the full one.
pub(crate) fn short_script() -> &'static str {
    static SRC: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SRC.get_or_init(|| {
        format!(
            "if (!window.__harshjudgeEngine) {{ arguments[arguments.length - 1]({{missing: true}}); return; }}\n{CALL}"
        )
    })
}

/// The script of a call that installs the engine first.
pub(crate) fn full_script() -> &'static str {
    static SRC: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SRC.get_or_init(|| format!("{}{CALL}", install_source()))
}

#[cfg(test)]
mod tests {
    use super::is_navigation;
    use crate::error::BrowserError;

    fn command(message: &str) -> BrowserError {
        BrowserError::Command {
            action: "expecting page to_have_url(…)".into(),
            message: message.into(),
        }
    }

    /// A script whose document went away under it is a navigation, in each
    /// driver's words (geckodriver's was not recognised, so an expectation
    /// running while a Firefox page navigated failed instead of asking again).
    #[test]
    fn each_drivers_words_for_a_document_gone_under_a_script_are_a_navigation() {
        for message in [
            "webdriver returned error: javascript error: document unloaded while waiting for result",
            "webdriver returned error: Document was unloaded",
            "webdriver returned error: Callback was not called before the unload event.",
            "javascript error: Execution context was destroyed.",
        ] {
            assert!(is_navigation(&command(message)), "{message}");
        }
        assert!(!is_navigation(&command(
            "no such element: Unable to locate element"
        )));
    }
}
