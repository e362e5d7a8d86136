//! `impl Page`: JavaScript in the page (`evaluate`, `eval`,
//! `wait_for_function`), run by the page's backend; each call of the user's
//! is one entry of the step's trace (`page.evaluate("document.title", ())`).

use std::future::Future;
use std::panic::Location;
use std::time::Instant;

use serde_json::{Value, json};

use super::backend::PageBackend;
use super::error::{BrowserError, cmd_err};
use super::page::Page;
use super::trace::{self, Kind};

/// A script and its argument as Rust writes them: `"(n) => n * 2", 21`; the
/// argument as it was serialised (`()` for none, `json!(…)` for an object or
/// a list).
fn script_args(js: &str, arg: &Value) -> String {
    let arg = match arg {
        Value::Null => "()".to_string(),
        Value::String(s) => trace::arg(s),
        Value::Bool(_) | Value::Number(_) => arg.to_string(),
        Value::Array(_) | Value::Object(_) => format!("json!({arg})"),
    };
    format!("{}, {arg}", trace::arg(js))
}

impl Page {
    /// Runs JavaScript in the page and returns its result: `js` is an expression
    /// (`"document.title"`) or a function called with `arg` (`"(n) => n * 2"`,
    /// async functions too); the result is deserialised into `T`.
    #[track_caller]
    pub fn evaluate<'a, T, A>(
        &'a self,
        js: &'a str,
        arg: A,
    ) -> impl Future<Output = Result<T, BrowserError>> + Send + 'a
    where
        T: serde::de::DeserializeOwned,
        A: serde::Serialize,
    {
        let at = Location::caller();
        let arg = serde_json::to_value(arg)
            .map_err(|e| cmd_err("serialising the argument of evaluate", e));
        Box::pin(async move {
            let arg = arg?;
            let args = || script_args(js, &arg);
            let v = trace::page_span(
                self.tracer(),
                self.slow_mo(),
                Kind::Script,
                "evaluate",
                args,
                at,
                async { self.evaluate_value(js, arg.clone()).await },
            )
            .await?;
            T::deserialize(&v).map_err(|e| {
                cmd_err(
                    "reading the result of evaluate",
                    format!("{e} (the result was {v})"),
                )
            })
        })
    }

    /// `evaluate`'s result as the page gave it.
    pub(crate) async fn evaluate_value(&self, js: &str, arg: Value) -> Result<Value, BrowserError> {
        let v = self.backend().evaluate(js, arg).await?;
        if v["ok"] != true {
            return Err(BrowserError::Invalid {
                message: format!(
                    "the page's JavaScript threw: {}",
                    v["e"].as_str().unwrap_or("an error")
                ),
                location: None,
            });
        }
        Ok(v["v"].clone())
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
        Box::pin(async move {
            let args = || script_args(js, &arg);
            let body = async {
                let timeout = self.wait().as_millis() as u64;
                let during = "waiting for a function to return a truthy value";
                let args = json!({"timeout": timeout, "arg": arg});
                let start = Instant::now();
                let answer = self
                    .backend()
                    .wait_for_function(js, args, timeout, during)
                    .await?;
                answer.into_value(
                    "wait_for_function",
                    "return a truthy value",
                    start.elapsed(),
                    at,
                )
            };
            let method = "wait_for_function";
            trace::page_span(
                self.tracer(),
                self.slow_mo(),
                Kind::Script,
                method,
                args,
                at,
                body,
            )
            .await
        })
    }

    /// Runs `script` (JavaScript source) in every new document of the page,
    /// its frames' included, before the document's own scripts, as
    /// Playwright's `page.addInitScript`: to stub an API, seed storage, fix
    /// `Math.random`. Not in the document there now (navigate after adding
    /// it). Chromium and Firefox; on WebKitGTK (classic WebDriver has no way)
    /// it is [`BrowserError::Unsupported`].
    #[track_caller]
    pub fn add_init_script<'a>(
        &'a self,
        script: &'a str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        Box::pin(async move {
            let args = || trace::arg(script);
            let body = self
                .backend()
                .add_init_script(script, "page.add_init_script", at);
            trace::page_span(
                self.tracer(),
                self.slow_mo(),
                Kind::Script,
                "add_init_script",
                args,
                at,
                body,
            )
            .await
        })
    }

    /// Runs JavaScript as a function body (`return …` gives a value). See
    /// [`evaluate`](Page::evaluate) for expressions, arguments and typed results.
    #[track_caller]
    pub fn eval<'a>(
        &'a self,
        js: &'a str,
    ) -> impl Future<Output = Result<Value, BrowserError>> + Send + 'a {
        let at = Location::caller();
        Box::pin(async move {
            let args = || trace::arg(js);
            trace::page_span(
                self.tracer(),
                self.slow_mo(),
                Kind::Script,
                "eval",
                args,
                at,
                async { self.backend().eval(js).await },
            )
            .await
        })
    }
}
