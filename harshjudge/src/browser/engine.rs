//! [`Engine`]: the calls of the engine injected into the page, over one
//! session's client: the script timeout each wait needs, the engine registered
//! for every new document, a call repeated in the new document when a
//! navigation interrupts it, and the page's answer turned into a value or a
//! located [`BrowserError`] (the one place an [`EngineError`] becomes one).

use std::panic::Location;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fantoccini::Client;
use serde_json::{Value, json};

use super::error::BrowserError;
use super::protocol::{Answer, Call, EngineError};
use super::wire::{self, cdp};

/// The engine of one page's session. Locators, assertions and the page's
/// waits call it; it knows nothing of them.
pub(crate) struct Engine {
    client: Client,
    /// The session's script timeout as last set (ms).
    script_timeout: AtomicU64,
    /// Whether the engine is registered for every new document of the session.
    registered: AtomicBool,
}

impl Engine {
    pub(crate) fn new(client: Client, script_timeout: u64) -> Engine {
        Engine {
            client,
            script_timeout: AtomicU64::new(script_timeout),
            registered: AtomicBool::new(false),
        }
    }

    /// The script timeout as last set (kept with a pooled session).
    pub(crate) fn script_timeout(&self) -> u64 {
        self.script_timeout.load(Ordering::Relaxed)
    }

    /// Raises the session's script timeout so that a wait of `wait_ms` fits.
    pub(crate) async fn ensure_script_timeout(&self, wait_ms: u64) -> Result<(), BrowserError> {
        let needed = wait_ms + 15_000;
        if self.script_timeout.load(Ordering::Relaxed) >= needed {
            return Ok(());
        }
        let set = needed.max(60_000);
        wire::post(
            &self.client,
            "timeouts",
            json!({"script": set}),
            "setting the script timeout",
        )
        .await?;
        self.script_timeout.store(set, Ordering::Relaxed);
        Ok(())
    }

    /// Registers the engine for every new document of the session (once).
    pub(crate) async fn ensure_registered(&self) {
        if self.registered.swap(true, Ordering::Relaxed) {
            return;
        }
        static SESSIONS: Mutex<Vec<String>> = Mutex::new(Vec::new());
        let Some(id) = self.client.session_id().await.ok().flatten() else {
            return;
        };
        if SESSIONS.lock().expect("sessions lock").contains(&id) {
            return;
        }
        if cdp(
            &self.client,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": wire::install_source()}),
        )
        .await
        .is_ok()
        {
            SESSIONS.lock().expect("sessions lock").push(id);
        }
    }

    /// One call of the injected engine: one execute-async-script command (two
    /// when the document lacks the engine), repeated in the new document when a
    /// navigation interrupts it.
    pub(crate) async fn call(&self, mut call: Call, during: &str) -> Result<Answer, BrowserError> {
        self.ensure_script_timeout(call.timeout).await?;
        self.ensure_registered().await;
        let deadline =
            Instant::now() + Duration::from_millis(call.timeout) + Duration::from_secs(2);
        loop {
            let req = serde_json::to_value(&call).map_err(|e| {
                super::error::cmd_err(format!("encoding the request ({during})"), e)
            })?;
            let c = &self.client;
            let mut r = c
                .execute_async(wire::short_script(), vec![req.clone()])
                .await
                .map_err(|e| wire::fail(during, e));
            if matches!(&r, Ok(v) if v["missing"] == true) {
                r = c
                    .execute_async(wire::full_script(), vec![req])
                    .await
                    .map_err(|e| wire::fail(during, e));
            }
            // chromedriver may answer "script timeout" at once when the document
            // goes away under a script: before our own deadline, that is a navigation.
            let early_timeout = matches!(&r, Err(BrowserError::Command { message, .. })
                if message.contains("script timeout"))
                && Instant::now() + Duration::from_secs(3) < deadline;
            match r {
                Err(e)
                    if (early_timeout || wire::is_navigation(&e)) && Instant::now() < deadline =>
                {
                    let left = deadline.saturating_duration_since(Instant::now());
                    call.timeout = left.saturating_sub(Duration::from_secs(2)).as_millis() as u64;
                    tokio::time::sleep(Duration::from_millis(30)).await;
                }
                Err(e) => return Err(e),
                Ok(v) => return decode(v, during),
            }
        }
    }

    /// Runs `script` (which ends by calling the async callback with an engine
    /// answer) with `arg`, waiting up to `timeout_ms` in the page.
    pub(crate) async fn call_script(
        &self,
        script: &str,
        arg: Value,
        timeout_ms: u64,
        during: &str,
    ) -> Result<Answer, BrowserError> {
        self.ensure_script_timeout(timeout_ms).await?;
        let v = self
            .client
            .execute_async(script, vec![arg])
            .await
            .map_err(|e| wire::fail(during, e))?;
        decode(v, during)
    }
}

/// The page's answer, or a typed error naming what this side does not know.
fn decode(v: Value, during: &str) -> Result<Answer, BrowserError> {
    Answer::decode(v).map_err(|e| BrowserError::Command {
        action: format!("reading the page engine's answer ({during})"),
        message: format!("{e}: the injected engine and this library disagree"),
    })
}

impl Answer {
    /// The value, or a located error naming `locator`, what was expected of it
    /// and the call log.
    pub(crate) fn into_value(
        self,
        locator: &str,
        what: &str,
        waited: Duration,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        let error = match self.result {
            Ok(v) => return Ok(v),
            Err(e) => e,
        };
        Err(match error {
            EngineError::Strict { count, matches } => BrowserError::Strict {
                locator: locator.to_string(),
                count,
                matches,
                location: Some(at),
            },
            EngineError::Timeout { problem } => BrowserError::Timeout {
                locator: locator.to_string(),
                expected: what.to_string(),
                found: format!(
                    "{}{}",
                    if problem.is_empty() {
                        "nothing"
                    } else {
                        &problem
                    },
                    call_log(&self.log)
                ),
                waited,
                location: Some(at),
            },
            EngineError::Usage { message } | EngineError::Js { message } => BrowserError::Invalid {
                message: format!("{locator}: {message}"),
                location: Some(at),
            },
        })
    }
}

/// The engine's call log as the indented list a failure shows.
pub(crate) fn call_log(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut s = String::from("\nCall log:");
    for l in lines {
        s.push_str("\n  - ");
        s.push_str(l);
    }
    s
}
