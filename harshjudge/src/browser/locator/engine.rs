//! The engine under every locator action and read: requests to the injected
//! script, the pointer-action retry loop, and the answer turned into a value or
//! a located error.

use std::panic::Location;
use std::time::Duration;

use serde_json::{Value, json};

use super::Locator;
use crate::browser::{BrowserError, wire};

impl Locator {
    pub(super) fn request(&self, op: &str, timeout: Duration) -> Value {
        json!({
            "op": op,
            "chain": self.chain,
            "describe": self.desc,
            "timeout": timeout.as_millis() as u64,
        })
    }

    /// Runs a request; a failed wait becomes a located error naming the locator.
    pub(crate) async fn run(
        &self,
        mut req: Value,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        if let Some(m) = &self.misuse {
            return Err(BrowserError::Invalid {
                message: m.clone(),
                location: Some(at),
            });
        }
        if req.get("timeout").is_none() {
            req["timeout"] = json!(self.page.wait().as_millis() as u64);
        }
        let start = std::time::Instant::now();
        let during = format!("waiting for {} to {what}", self.desc);
        let answer = self
            .page
            .engine(req, &during)
            .await
            .map_err(|e| e.located(at))?;
        engine_result(answer, &self.desc, what, start.elapsed(), at)
    }

    pub(super) async fn act(
        &self,
        action: &str,
        extra: Value,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        let mut req = self.request("act", self.page.wait());
        req["action"] = json!(action);
        if let Value::Object(m) = extra {
            for (k, v) in m {
                req[k] = v;
            }
        }
        self.run(req, what, at).await
    }

    /// A pointer action, Playwright style: waits in the page until the element is
    /// actionable and receives the pointer at its point, performs `op` there with
    /// WebDriver's mouse, then asks the page whether the action's first event
    /// reached the element. Stability is judged in the page but the mouse comes
    /// in another command, so the element may have moved, or something may have
    /// covered it, in between: the page then stopped the event where it landed
    /// (the element in the way is not clicked) and this retries the whole, until
    /// the timeout, the call log saying "retrying click action, attempt N" and
    /// naming the element that received it. Returns the engine's answer when it
    /// had nothing to do (no `point`: already checked, an HTML5 drag done).
    pub(super) async fn pointer_action(
        &self,
        action: &str,
        extra: Value,
        what: &str,
        op: PointerOp,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        if let Some(m) = &self.misuse {
            return Err(BrowserError::Invalid {
                message: m.clone(),
                location: Some(at),
            });
        }
        let start = std::time::Instant::now();
        let deadline = start + self.page.wait();
        let during = format!("waiting for {} to {what}", self.desc);
        let mut earlier: Vec<Value> = Vec::new();
        let mut missed = String::new();
        for attempt in 1u32.. {
            let mut req = self.request(
                "act",
                deadline.saturating_duration_since(std::time::Instant::now()),
            );
            req["action"] = json!(action);
            req["verify"] = json!(op.events());
            if let Value::Object(m) = &extra {
                for (k, v) in m {
                    req[k] = v.clone();
                }
            }
            let mut answer = self
                .page
                .engine(req, &during)
                .await
                .map_err(|e| e.located(at))?;
            if !earlier.is_empty() {
                let mut log = earlier.clone();
                log.extend(answer["log"].as_array().cloned().unwrap_or_default());
                answer["log"] = Value::Array(log);
            }
            let log = answer["log"].clone();
            let v = match engine_result(answer, &self.desc, what, start.elapsed(), at) {
                Ok(v) => v,
                // Timed out after a miss: the element in the way leads the message.
                Err(BrowserError::Timeout {
                    locator,
                    expected,
                    found,
                    waited,
                    location,
                }) if !missed.is_empty() => {
                    return Err(BrowserError::Timeout {
                        locator,
                        expected,
                        found: format!("{missed}; then {found}"),
                        waited,
                        location,
                    });
                }
                Err(e) => return Err(e),
            };
            let Some((x, y)) = v["point"]["x"].as_f64().zip(v["point"]["y"].as_f64()) else {
                return Ok(v);
            };
            let mouse = self.page.mouse();
            match op {
                PointerOp::Click(n) => mouse.click_at(x, y, n).await,
                PointerOp::Hover => mouse.move_to(x, y).await,
                PointerOp::Press => mouse.press_at(x, y).await,
            }
            .map_err(|e| e.located(at))?;
            // (a timeout lets the engine call ride out a navigation the click started)
            let hit = match self
                .page
                .engine(
                    json!({"op": "hitResult", "keep": matches!(op, PointerOp::Press), "timeout": 3000}),
                    &format!("checking that the {} reached {}", op.verb(), self.desc),
                )
                .await
            {
                Ok(hit) => hit,
                // The document went away under the check: the action started a
                // navigation, so it reached the page; nothing is left to verify.
                Err(e @ BrowserError::Command { .. })
                    if wire::is_navigation(&e)
                        || matches!(&e, BrowserError::Command { message, .. } if message.contains("script timeout")) =>
                {
                    return Ok(v);
                }
                Err(e) => return Err(e.located(at)),
            };
            let Some(who) = hit["value"]["hit"].as_str() else {
                return Ok(v);
            };
            if matches!(op, PointerOp::Press) {
                // Release the button the page never saw pressed (still stopped there).
                mouse.up().await.map_err(|e| e.located(at))?;
            }
            let event = hit["value"]["event"].as_str().unwrap_or("event");
            missed = format!(
                "{who} intercepts pointer events: it received the {event} of attempt {attempt}"
            );
            earlier = log.as_array().cloned().unwrap_or_default();
            earlier.push(json!(format!(
                "{who} received the {event} instead: it intercepts pointer events"
            )));
            let now = std::time::Instant::now();
            if now >= deadline {
                return Err(BrowserError::Timeout {
                    locator: self.desc.clone(),
                    expected: what.to_string(),
                    found: format!("{missed}{}", call_log(&Value::Array(earlier))),
                    waited: start.elapsed(),
                    location: Some(at),
                });
            }
            earlier.push(json!(format!(
                "retrying {} action, attempt {}",
                op.verb(),
                attempt + 1
            )));
            // Playwright's backoff between retries of an action.
            let pause = [0u64, 20, 100, 100, 500][(attempt as usize - 1).min(4)];
            tokio::time::sleep(Duration::from_millis(pause).min(deadline - now)).await;
        }
        unreachable!("the retry loop returns")
    }

    pub(super) async fn pointer(
        &self,
        action: &str,
        what: &str,
        op: PointerOp,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        self.pointer_action(action, json!({}), what, op, at)
            .await
            .map(|_| ())
    }

    pub(super) async fn query(
        &self,
        read: &str,
        extra: Value,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        let mut req = self.request("query", self.page.wait());
        req["read"] = json!(read);
        if let Value::Object(m) = extra {
            for (k, v) in m {
                req[k] = v;
            }
        }
        self.run(req, "be attached", at).await
    }
}

/// What a pointer action does at the element's point.
#[derive(Clone, Copy)]
pub(super) enum PointerOp {
    /// Clicks (1) or double-clicks (2).
    Click(u32),
    /// Moves the mouse there.
    Hover,
    /// Moves there and presses the button (the start of a drag).
    Press,
}

impl PointerOp {
    /// The events the page checks (its `HJE_HIT_EVENTS`).
    pub(super) fn events(self) -> &'static str {
        match self {
            PointerOp::Hover => "hover",
            _ => "mouse",
        }
    }

    pub(super) fn verb(self) -> &'static str {
        match self {
            PointerOp::Click(2) => "double-click",
            PointerOp::Click(_) => "click",
            PointerOp::Hover => "hover",
            PointerOp::Press => "drag",
        }
    }
}

/// The id of a WebDriver element reference.
pub(super) fn element_id(v: &Value) -> Option<String> {
    v.get("element-6066-11e4-a52e-4f735466cecf")
        .or_else(|| v.get("ELEMENT"))
        .and_then(|id| id.as_str())
        .map(str::to_string)
}

/// Turns the engine's answer into a value or a located error.
pub(crate) fn engine_result(
    answer: Value,
    locator: &str,
    what: &str,
    waited: Duration,
    at: &'static Location<'static>,
) -> Result<Value, BrowserError> {
    if answer["ok"] == true {
        return Ok(answer["value"].clone());
    }
    let err = &answer["error"];
    let log = call_log(&answer["log"]);
    match err["kind"].as_str().unwrap_or_default() {
        "strict" => Err(BrowserError::Strict {
            locator: locator.to_string(),
            count: err["count"].as_u64().unwrap_or(0) as usize,
            matches: err["matches"]
                .as_array()
                .map(|m| {
                    m.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            location: Some(at),
        }),
        "timeout" => {
            let problem = err["problem"].as_str().unwrap_or_default();
            Err(BrowserError::Timeout {
                locator: locator.to_string(),
                expected: what.to_string(),
                found: format!(
                    "{}{log}",
                    if problem.is_empty() {
                        "nothing"
                    } else {
                        problem
                    }
                ),
                waited,
                location: Some(at),
            })
        }
        _ => Err(BrowserError::Invalid {
            message: format!(
                "{locator}: {}",
                err["message"].as_str().unwrap_or("the page script failed")
            ),
            location: Some(at),
        }),
    }
}

/// The engine's call log as the indented list a failure shows.
pub(crate) fn call_log(log: &Value) -> String {
    let lines: Vec<&str> = log
        .as_array()
        .map(|l| l.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
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
