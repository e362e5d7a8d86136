//! `impl Page`: JavaScript in the page (`evaluate`, `eval`,
//! `wait_for_function`), over classic WebDriver, or over WebDriver BiDi's
//! `script.callFunction` when the page's reads go that way (while it has
//! routes, and always on Firefox: `Page::settled` in `page.rs` says why).

use std::future::Future;
use std::panic::Location;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::engine::decode;
use super::error::{BrowserError, cmd_err};
use super::page::Page;
use super::wire;

impl Page {
    /// How long a script of `evaluate` or `eval` may run: the session's
    /// script timeout, as on the classic path.
    fn script_limit(&self) -> Duration {
        Duration::from_millis(self.engine().script_timeout().max(30_000))
    }

    /// Runs JavaScript in the page and returns its result: `js` is an expression
    /// (`"document.title"`) or a function called with `arg` (`"(n) => n * 2"`,
    /// async functions too); the result is deserialised into `T`.
    pub async fn evaluate<T, A>(&self, js: &str, arg: A) -> Result<T, BrowserError>
    where
        T: serde::de::DeserializeOwned,
        A: serde::Serialize,
    {
        let arg = serde_json::to_value(arg)
            .map_err(|e| cmd_err("serialising the argument of evaluate", e))?;
        let during = "running JavaScript (evaluate)";
        let v = if let Some((bidi, context)) = self.settled().await {
            let function = format!(
                "async function (__hjArg) {{ try {{ var f = (\n{js}\n);
  var v = typeof f === 'function' ? await f(JSON.parse(__hjArg)) : await f;
  return JSON.stringify({{ok: true, v: v === undefined ? null : v}});
}} catch (e) {{ return JSON.stringify({{ok: false, e: String(e && e.stack || e)}}); }} }}"
            );
            bidi.call_function(
                &context,
                &function,
                &arg.to_string(),
                self.script_limit(),
                during,
            )
            .await?
        } else {
            let script = format!(
                "var done = arguments[arguments.length - 1]; var __hjArg = arguments[0];
Promise.resolve().then(function () {{ var f = (\n{js}\n); return typeof f === 'function' ? f(__hjArg) : f; }})
  .then(function (v) {{ done({{ok: true, v: v === undefined ? null : v}}); }},
        function (e) {{ done({{ok: false, e: String(e && e.stack || e)}}); }});"
            );
            self.engine()
                .in_window(async {
                    self.client()
                        .execute_async(&script, vec![arg])
                        .await
                        .map_err(|e| wire::fail(during, e))
                })
                .await?
        };
        if v["ok"] != true {
            return Err(BrowserError::Invalid {
                message: format!(
                    "the page's JavaScript threw: {}",
                    v["e"].as_str().unwrap_or("an error")
                ),
                location: None,
            });
        }
        serde_json::from_value(v["v"].clone()).map_err(|e| {
            cmd_err(
                "reading the result of evaluate",
                format!("{e} (the result was {})", v["v"]),
            )
        })
    }

    /// Waits until `js` (an expression, or a function called with `arg`) returns
    /// a truthy value, polled inside the page; returns that value.
    #[track_caller]
    pub fn wait_for_function<'a, A: serde::Serialize>(
        &'a self,
        js: &'a str,
        arg: A,
    ) -> impl Future<Output = Result<Value, BrowserError>> + Send + 'a {
        let at = Location::caller();
        let arg = serde_json::to_value(arg).unwrap_or(Value::Null);
        async move {
            let timeout = self.wait().as_millis() as u64;
            let during = "waiting for a function to return a truthy value";
            let args = json!({"timeout": timeout, "arg": arg});
            let start = Instant::now();
            let answer = if let Some((bidi, context)) = self.settled().await {
                // Polled in the page over BiDi: a classic script polling
                // meanwhile would hold back a route's answer (`Page::settled`).
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
                decode(v, during)?
            } else {
                let script = format!(
                    "var done = arguments[arguments.length - 1];\n{}\nvar f = (\n{js}\n);
window.__harshjudgeEngine.waitForFunction(arguments[0], f).then(done, function (e) {{
  done({{ok: false, error: {{kind: 'js', message: String(e && e.message || e)}}, log: []}});
}});",
                    wire::install_source()
                );
                self.engine()
                    .call_script(&script, args, timeout, during)
                    .await?
            };
            answer.into_value(
                "wait_for_function",
                "return a truthy value",
                start.elapsed(),
                at,
            )
        }
    }

    /// Runs JavaScript as a function body (`return …` gives a value). See
    /// [`evaluate`](Page::evaluate) for expressions, arguments and typed results.
    pub async fn eval(&self, js: &str) -> Result<serde_json::Value, BrowserError> {
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
        self.engine()
            .in_window(async {
                self.client()
                    .execute(js, vec![])
                    .await
                    .map_err(|e| wire::fail("running JavaScript", e))
            })
            .await
    }
}
