//! The calls under every locator action and read: requests to the injected
//! script, the pointer-action retry loop, and the answer turned into a value or
//! a located error.

use std::panic::Location;
use std::time::Duration;

use crate::backend::{ActionWatch, LastAnswer, PageBackend};
use crate::engine::call_log;

use serde_json::Value;

use super::Locator;
use crate::error::BrowserError;
use crate::keyboard::ClickSpec;
use crate::protocol::{Acted, Action, Call, HitEvents, HitReport, Point, Read, Request};
use crate::trace::{self, CallText, Kind};
use crate::wire;

impl Locator {
    /// After a key action's last command: the navigations it asked for have
    /// committed or ended (within the page's wait), as after a click.
    pub(crate) async fn after_action(&self, navigations: ActionWatch) {
        let wait = self.page.wait();
        let after = self
            .page
            .backend()
            .after_action(navigations, LastAnswer::Input, wait);
        Box::pin(after).await;
    }

    /// The misuse recorded while building the locator, as the error of a call.
    pub(crate) fn misused(&self, at: &'static Location<'static>) -> Result<(), BrowserError> {
        match &self.misuse {
            Some(m) => Err(BrowserError::Invalid {
                message: m.clone(),
                location: Some(at),
            }),
            None => Ok(()),
        }
    }

    /// Runs a request, waiting up to the page's limit; a failed wait becomes a
    /// located error naming the locator.
    pub(crate) async fn run(
        &self,
        request: Request,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        // One await of the body, through `span` (see there: two would each
        // be a slot of this future's state).
        let tracer = self.page.tracer().filter(|_| !trace::is_open());
        let described = tracer.map(|_| trace::of_request(&self.desc, &request));
        let kind = match &described {
            Some((kind, _)) => *kind,
            // Untraced, the kind says only whether slow motion waits first.
            None if matches!(request, Request::Act { .. }) => Kind::Action,
            None => Kind::Read,
        };
        // Boxed: a debug build moves a future by value through every layer
        // of its poll (the span, its `Either`, the task-local scope), and an
        // engine call's future is large (three backends' calls); unboxed,
        // `check()` overflowed a test thread's 2 MiB stack. One allocation
        // per call, against a round trip of 0.5 ms.
        let body = Box::pin(self.run_untraced(request, what, at));
        let call = || described.map(|(_, call)| call).expect("made when traced");
        let slow_mo = self.page.slow_mo();
        trace::span(tracer, slow_mo, self.frame.as_ref(), kind, call, at, body).await
    }

    /// Opens the trace's entry of a call made of several (`press`, `check`,
    /// `drag_to`, a click with options): the engine calls inside join it.
    pub(crate) async fn traced<T>(
        &self,
        kind: Kind,
        call: impl FnOnce() -> CallText,
        at: &'static Location<'static>,
        body: impl std::future::Future<Output = Result<T, BrowserError>>,
    ) -> Result<T, BrowserError> {
        trace::span(
            self.page.tracer(),
            self.page.slow_mo(),
            self.frame.as_ref(),
            kind,
            call,
            at,
            body,
        )
        .await
    }

    async fn run_untraced(
        &self,
        request: Request,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        self.misused(at)?;
        // Inside the call's span: while a trace is recorded the page names
        // the element it resolves (an action's, a read's, a wait's).
        let call = Call {
            request: request.traced(trace::is_open()),
            timeout: self.page.wait().as_millis() as u64,
        };
        let start = std::time::Instant::now();
        let during = format!("waiting for {} to {what}", self.desc);
        let answer = self
            .page
            .call(call, &during)
            .await
            .map_err(|e| e.located(at))?;
        trace::target(&self.desc, self.frame.as_ref(), answer.traced.as_ref());
        answer.into_value(&self.desc, what, start.elapsed(), at)
    }

    pub(super) async fn act(
        &self,
        action: Action,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<Acted, BrowserError> {
        let request = Request::Act {
            target: self.target(),
            action,
            verify: None,
        };
        let v = self.run(request, what, at).await?;
        typed(v, what, at)
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
        action: Action,
        what: &str,
        op: PointerOp,
        at: &'static Location<'static>,
    ) -> Result<Acted, BrowserError> {
        self.pointer_action_within(action, what, op, None, at).await
    }

    /// [`pointer_action`](Self::pointer_action) within `limit` (none: the
    /// page's wait). A forced action (`force`) is not checked afterwards.
    pub(super) async fn pointer_action_within(
        &self,
        action: Action,
        what: &str,
        op: PointerOp,
        limit: Option<Duration>,
        at: &'static Location<'static>,
    ) -> Result<Acted, BrowserError> {
        let tracer = self.page.tracer().filter(|_| !trace::is_open());
        let call = tracer.map(|_| trace::of_action(&self.desc, &action));
        // Boxed, as `run`'s body (see there).
        let body = Box::pin(self.pointer_untraced(action, what, op, limit, at));
        let call = || call.expect("made when traced");
        let slow_mo = self.page.slow_mo();
        trace::span(
            tracer,
            slow_mo,
            self.frame.as_ref(),
            Kind::Action,
            call,
            at,
            body,
        )
        .await
    }

    async fn pointer_untraced(
        &self,
        action: Action,
        what: &str,
        op: PointerOp,
        limit: Option<Duration>,
        at: &'static Location<'static>,
    ) -> Result<Acted, BrowserError> {
        self.misused(at)?;
        let forced = matches!(
            action,
            Action::Click { force: true, .. } | Action::Dblclick { force: true, .. }
        );
        let start = std::time::Instant::now();
        let deadline = start + limit.unwrap_or_else(|| self.page.wait());
        let during = format!("waiting for {} to {what}", self.desc);
        let mut earlier: Vec<String> = Vec::new();
        let mut missed = String::new();
        let engine = &self.page;
        for attempt in 1u32.. {
            let call = Call {
                request: Request::Act {
                    target: self.target(),
                    action: action.clone(),
                    verify: (!forced).then(|| op.events()),
                }
                .traced(trace::is_open()),
                timeout: deadline
                    .saturating_duration_since(std::time::Instant::now())
                    .as_millis() as u64,
            };
            // The protocol's futures are boxed here: inline, a debug build
            // gave this function a 104 KB stack frame (the attempt loop
            // holds several), and a test thread's 2 MiB stack overflowed.
            let mut answer = Box::pin(engine.call(call, &during))
                .await
                .map_err(|e| e.located(at))?;
            trace::target(&self.desc, self.frame.as_ref(), answer.traced.as_ref());
            if !earlier.is_empty() {
                let mut log = earlier.clone();
                log.append(&mut answer.log);
                answer.log = log;
            }
            let log = answer.log.clone();
            let v = match answer.into_value(&self.desc, what, start.elapsed(), at) {
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
            let v: Acted = typed(v, what, at)?;
            let Acted::Point {
                point: Point { x, y },
            } = v
            else {
                return Ok(v);
            };
            let mouse = self.page.mouse();
            let navigations = engine.backend().watch_action();
            match op {
                PointerOp::Click(spec) => Box::pin(mouse.click_with(x, y, spec)).await,
                PointerOp::Hover => Box::pin(mouse.move_to(x, y)).await,
                PointerOp::Press => Box::pin(mouse.press_at(x, y)).await,
            }
            .map_err(|e| e.located(at))?;
            // What the action asked for has committed when it returns.
            let settle = |last| {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                engine.backend().after_action(navigations, last, left)
            };
            if forced {
                settle(LastAnswer::Input).await;
                return Ok(v);
            }
            // (a timeout lets the engine call ride out a navigation the click started)
            let check = Call {
                request: Request::HitResult {
                    keep: matches!(op, PointerOp::Press),
                },
                timeout: 3000,
            };
            let checking = format!("checking that the {} reached {}", op.verb(), self.desc);
            let hit = match Box::pin(engine.backend().call_engine(
                self.frame.as_ref(),
                check,
                &checking,
            ))
            .await
            {
                Ok(hit) => typed(hit.result.unwrap_or_default(), what, at)?,
                // The document went away under the check: the action started a
                // navigation, so it reached the page; nothing is left to verify.
                Err(e @ BrowserError::Command { .. })
                    if wire::is_navigation(&e)
                        || matches!(&e, BrowserError::Command { message, .. } if message.contains("script timeout")) =>
                {
                    settle(LastAnswer::Renderer).await;
                    return Ok(v);
                }
                Err(e) => return Err(e.located(at)),
            };
            let verb = op.verb();
            let (why, instead) = match hit {
                HitReport::Reached { .. } => {
                    settle(LastAnswer::Renderer).await;
                    return Ok(v);
                }
                HitReport::Missed { hit: who, event } => (
                    format!(
                        "{who} intercepts pointer events: it received the {event} of attempt {attempt}"
                    ),
                    format!("{who} received the {event} instead: it intercepts pointer events"),
                ),
                HitReport::Unreached { .. } => (
                    format!(
                        "the {verb} of attempt {attempt} did not reach the frame's document: the page around the frame took it (something covers the frame, or the frame does not take input yet)"
                    ),
                    format!(
                        "the {verb} did not reach the frame's document: the page around the frame took it"
                    ),
                ),
            };
            if matches!(op, PointerOp::Press) {
                // Release the button the page never saw pressed (still stopped there).
                mouse.up().await.map_err(|e| e.located(at))?;
            }
            missed = why;
            earlier = log;
            earlier.push(instead);
            trace::note(&earlier[earlier.len() - 1..]);
            let now = std::time::Instant::now();
            if now >= deadline {
                return Err(BrowserError::Timeout {
                    locator: self.desc.clone(),
                    expected: what.to_string(),
                    found: format!("{missed}{}", call_log(&earlier)),
                    waited: start.elapsed(),
                    location: Some(at),
                });
            }
            earlier.push(format!(
                "retrying {} action, attempt {}",
                op.verb(),
                attempt + 1
            ));
            trace::note(&earlier[earlier.len() - 1..]);
            // Playwright's backoff between retries of an action.
            let pause = [0u64, 20, 100, 100, 500][(attempt as usize - 1).min(4)];
            tokio::time::sleep(Duration::from_millis(pause).min(deadline - now)).await;
        }
        unreachable!("the retry loop returns")
    }

    pub(super) async fn pointer(
        &self,
        action: Action,
        what: &str,
        op: PointerOp,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        self.pointer_action(action, what, op, at).await.map(|_| ())
    }

    /// A read of the single element (or of every match with `all`).
    pub(super) async fn query(
        &self,
        read: Read,
        all: bool,
        name: Option<String>,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        let request = Request::Query {
            target: self.target(),
            read,
            all,
            name,
        };
        self.run(request, "be attached", at).await
    }
}

/// What a pointer action does at the element's point.
#[derive(Clone, Copy)]
pub(super) enum PointerOp {
    /// Clicks (count 1) or double-clicks (2), with the click's options.
    Click(ClickSpec),
    /// Moves the mouse there.
    Hover,
    /// Moves there and presses the button (the start of a drag).
    Press,
}

impl PointerOp {
    /// The events the page checks (its `HJE_HIT_EVENTS`).
    pub(super) fn events(self) -> HitEvents {
        match self {
            PointerOp::Hover => HitEvents::Hover,
            _ => HitEvents::Mouse,
        }
    }

    pub(super) fn verb(self) -> &'static str {
        match self {
            PointerOp::Click(ClickSpec { count: 2, .. }) => "double-click",
            PointerOp::Click(_) => "click",
            PointerOp::Hover => "hover",
            PointerOp::Press => "drag",
        }
    }
}

/// The page's answer as the type `T` this side expects of it; another shape
/// is an error saying so (the injected engine and this library disagree).
pub(super) fn typed<T: serde::de::DeserializeOwned>(
    v: Value,
    what: &str,
    at: &'static Location<'static>,
) -> Result<T, BrowserError> {
    // Read through a reference: the answer is shown only when it does not fit.
    T::deserialize(&v).map_err(|e| {
        let mut shown = v.to_string();
        if let Some((cut, _)) = shown.char_indices().nth(200) {
            shown.truncate(cut);
            shown.push('…');
        }
        BrowserError::Invalid {
            message: format!(
                "the page engine answered {shown} to \"{what}\", which is not a {}: {e} (the injected engine and this library disagree)",
                std::any::type_name::<T>().rsplit("::").next().unwrap_or("value"),
            ),
            location: Some(at),
        }
    })
}

/// An answer that is not the shape this call expects (the injected engine and
/// this library disagree).
pub(super) fn unexpected(got: &Acted, what: &str, at: &'static Location<'static>) -> BrowserError {
    BrowserError::Invalid {
        message: format!(
            "the page engine answered {got:?} to \"{what}\" (the injected engine and this library disagree)"
        ),
        location: Some(at),
    }
}
