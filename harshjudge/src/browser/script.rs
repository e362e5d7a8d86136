//! `impl Page`: JavaScript in the page (`evaluate`, `eval`,
//! `wait_for_function`), run by the page's backend.

use std::future::Future;
use std::panic::Location;
use std::time::Instant;

use serde_json::{Value, json};

use super::backend::PageBackend;
use super::error::{BrowserError, cmd_err};
use super::page::Page;

impl Page {
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
        }
    }

    /// Runs JavaScript as a function body (`return …` gives a value). See
    /// [`evaluate`](Page::evaluate) for expressions, arguments and typed results.
    pub async fn eval(&self, js: &str) -> Result<serde_json::Value, BrowserError> {
        self.backend().eval(js).await
    }
}
