//! A WebDriver page's scripts, input and files (moved from `script.rs`,
//! `keyboard.rs` and `locator/actions.rs`): over classic WebDriver, or over
//! WebDriver BiDi while the page's calls go that way (routes, Firefox:
//! [`WebDriverPage::settled`] says why).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::WebDriverPage;
use crate::browser::config::BrowserKind;
use crate::browser::engine::decode;
use crate::browser::engines;
use crate::browser::error::BrowserError;
use crate::browser::protocol::{Acted, Answer, Call, FrameScope, element_id};
use crate::browser::wire;

impl WebDriverPage {
    /// How long a script of `evaluate` or `eval` may run: the session's
    /// script timeout, as on the classic path.
    pub(super) fn script_limit(&self) -> Duration {
        Duration::from_millis(self.engine.script_timeout().max(30_000))
    }

    /// `js` run with `arg`: `{"ok": true, "v": …}` or `{"ok": false, "e": …}`.
    pub(super) async fn evaluate(&self, js: &str, arg: Value) -> Result<Value, BrowserError> {
        let during = "running JavaScript (evaluate)";
        if let Some((bidi, context)) = self.settled().await {
            let function = format!(
                "async function (__hjArg) {{ try {{ var f = (\n{js}\n);
  var v = typeof f === 'function' ? await f(JSON.parse(__hjArg)) : await f;
  return JSON.stringify({{ok: true, v: v === undefined ? null : v}});
}} catch (e) {{ return JSON.stringify({{ok: false, e: String(e && e.stack || e)}}); }} }}"
            );
            return bidi
                .call_function(
                    &context,
                    &function,
                    &arg.to_string(),
                    self.script_limit(),
                    during,
                )
                .await;
        }
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
        if let Some((bidi, context)) = self.settled().await {
            // Polled in the page over BiDi: a classic script polling
            // meanwhile would hold back a route's answer (`settled`).
            let function = format!(
                "async function (__hjArg) {{\n{}\nvar f = (\n{js}\n); var r;
try {{ r = await window.__harshjudgeEngine.waitForFunction(JSON.parse(__hjArg), f); }}
catch (e) {{ r = {{ok: false, error: {{kind: 'js', message: String(e && e.message || e)}}, log: []}}; }}
return JSON.stringify(r); }}",
                wire::install_source()
            );
            let limit = Duration::from_millis(timeout) + Duration::from_secs(15);
            let v = bidi
                .call_function(&context, &function, &args.to_string(), limit, during)
                .await?;
            return decode(v, during);
        }
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
        if let Some((bidi, context)) = self.settled().await {
            // A throw fails as the classic command's does (a Command error,
            // "javascript error: …").
            let function = format!(
                "async function () {{ const v = await (function () {{\n{js}\n}}).call(this);
  return v === undefined ? null : JSON.stringify(v); }}"
            );
            return bidi
                .call_function(
                    &context,
                    &function,
                    "",
                    self.script_limit(),
                    "running JavaScript",
                )
                .await;
        }
        self.engine
            .in_window(async {
                self.client
                    .execute(js, vec![])
                    .await
                    .map_err(|e| wire::fail("running JavaScript", e))
            })
            .await
    }

    /// Performs WebDriver action sequences on the page: over WebDriver BiDi
    /// (`input.performActions` on the page's browsing context) while the page
    /// has routes, so that an action that starts a navigation a route answers
    /// does not wait for it ([`Engine::bidi_input`](crate::browser::engine::Engine::bidi_input)
    /// says why); else one classic Perform Actions command.
    pub(super) async fn perform(&self, actions: Value, during: &str) -> Result<(), BrowserError> {
        if let Some((bidi, context)) = self.engine.bidi_input() {
            self.engine.catch_up().await;
            return bidi.perform_actions(&context, actions, during).await;
        }
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
        // Over BiDi while the page's calls go that way (with routes, and on
        // Firefox), once a navigation under way has its document: CDP's
        // Input.insertText, sent while a routed document loads, waited in
        // chromedriver for that load (`settled` says why).
        if let Some((bidi, context)) = self.settled().await {
            bidi.call_function(
                &context,
                engines::INSERT_TEXT,
                text,
                self.script_limit(),
                "inserting text",
            )
            .await?;
            return Ok(());
        }
        if self.browser != BrowserKind::Chromium {
            return engines::insert_text(&self.client, text).await;
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
        // Where the page's calls go over BiDi (routes, Firefox), so do
        // the files: the element found as a node, `input.setFiles` on it.
        // A classic command there would wait for a load a route holds.
        if let Some((bidi, answer)) = self
            .engine
            .call_element_bidi(frame, call.clone(), during)
            .await
        {
            let answer = answer?;
            let v = match &answer.result {
                Ok(v) => v,
                Err(_) => return Ok(answer),
            };
            let (Some(node), Some(context)) = (v["node"].as_str(), v["context"].as_str()) else {
                return Err(BrowserError::Invalid {
                    message: format!("{desc}: no element came back"),
                    location: None,
                });
            };
            bidi.set_files(context, node, files, &setting).await?;
            return Ok(answer);
        }
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
