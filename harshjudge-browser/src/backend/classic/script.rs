//! A classic page's scripts, input and files.

use std::sync::Arc;

use serde_json::{Value, json};

use super::ClassicPage;
use crate::config::BrowserKind;
use crate::engines;
use crate::error::BrowserError;
use crate::protocol::{Acted, Answer, Call, FrameScope, element_id};
use crate::wire;

impl ClassicPage {
    /// `js` run with `arg`: `{"ok": true, "v": …}` or `{"ok": false, "e": …}`.
    pub(super) async fn evaluate(&self, js: &str, arg: Value) -> Result<Value, BrowserError> {
        let during = "running JavaScript (evaluate)";
        let script = format!(
            "var done = arguments[arguments.length - 1]; var __hjArg = arguments[0];
Promise.resolve().then(function () {{ var f = (\n{js}\n); return typeof f === 'function' ? f(__hjArg) : f; }})
  .then(function (v) {{ done({{ok: true, v: v === undefined ? null : v}}); }},
        function (e) {{ done({{ok: false, e: String(e && e.stack || e)}}); }});"
        );
        self.engine
            .in_window(async {
                self.client
                    .execute_async(&script, vec![arg])
                    .await
                    .map_err(|e| wire::fail(during, e))
            })
            .await
    }

    /// The engine's `waitForFunction`, polled in the page.
    pub(super) async fn wait_for_function(
        &self,
        js: &str,
        args: Value,
        timeout: u64,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        let script = format!(
            "var done = arguments[arguments.length - 1];\n{}\nvar f = (\n{js}\n);
window.__harshjudgeEngine.waitForFunction(arguments[0], f).then(done, function (e) {{
  done({{ok: false, error: {{kind: 'js', message: String(e && e.message || e)}}, log: []}});
}});",
            wire::install_source()
        );
        self.engine
            .call_script(&script, args, timeout, during)
            .await
    }

    /// `js` as a function body.
    pub(super) async fn eval(&self, js: &str) -> Result<Value, BrowserError> {
        self.engine
            .in_window(async {
                self.client
                    .execute(js, vec![])
                    .await
                    .map_err(|e| wire::fail("running JavaScript", e))
            })
            .await
    }

    /// Performs WebDriver action sequences on the page: one Perform Actions
    /// command.
    pub(super) async fn perform(&self, actions: Value, during: &str) -> Result<(), BrowserError> {
        self.engine
            .in_window(wire::post(
                &self.client,
                "actions",
                json!({ "actions": actions }),
                during,
            ))
            .await
            .map(|_| ())
    }

    /// Inserts text as an input method would (no key events).
    pub(super) async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        if self.browser != BrowserKind::Chromium {
            // Under the switching lock: it may enter a frame.
            return (self.engine)
                .in_window(engines::insert_text(&self.client, text))
                .await;
        }
        self.engine
            .in_window(wire::cdp(
                &self.client,
                "Input.insertText",
                json!({"text": text}),
            ))
            .await
            .map(|_| ())
    }

    /// Finds the `<input type=file>` of `call` and sets its files.
    pub(super) async fn set_input_files(
        &self,
        frame: Option<&Arc<FrameScope>>,
        call: Call,
        files: &[String],
        during: &str,
        desc: &str,
    ) -> Result<Answer, BrowserError> {
        let setting = format!("setting the files of {desc}");
        // Over classic WebDriver: its element reference is what Element
        // Send Keys takes, in the element's frame (the session is still
        // there for `then`).
        let client = self.client.clone();
        let text = files.join("\n");
        self.engine
            .call_classic_then(frame, call, during, |answer| async move {
                let id = match &answer.result {
                    Ok(v) => match serde_json::from_value::<Acted>(v.clone()) {
                        Ok(Acted::Element { element }) => element_id(&element),
                        _ => None,
                    },
                    // A timeout or the engine's error: told by the caller.
                    Err(_) => return Ok(answer),
                };
                let id = id.ok_or_else(|| BrowserError::Invalid {
                    message: format!("{desc}: no element reference came back"),
                    location: None,
                })?;
                wire::post(
                    &client,
                    format!("element/{id}/value"),
                    json!({"text": text}),
                    &setting,
                )
                .await?;
                Ok(answer)
            })
            .await
    }
}
