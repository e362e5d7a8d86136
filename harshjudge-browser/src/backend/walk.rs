//! The injected engine's call, written once over [`Scopes`]
//! (`docs/design/backends.md` §2.5): the frame walk (each iframe of a
//! [`FrameScope`]'s path found by the engine in its parent's document, its
//! document then the scope of the next step) and the retry when a
//! navigation takes the document away (the whole path walked again in the
//! new document, until the call's deadline). A backend only says how to
//! call the engine in a scope and which scope an iframe element holds.

use std::future::Future;
use std::panic::Location;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::engine::{FrameCoordinates, decode, frame_lookup};
use crate::error::BrowserError;
use crate::protocol::{Answer, Call, FrameScope};
use crate::wire::BidiReturns;

/// Past the call's own timeout, how long a call may go on being repeated
/// after navigations (the engine answers its own timeout first).
const GRACE: Duration = Duration::from_secs(2);

/// What one call in a scope gave.
#[derive(Debug)]
pub(crate) enum Returned<E> {
    /// The engine's answer (JSON).
    Answer(Value),
    /// The element the call found (asked with [`BidiReturns::Element`]).
    Element(E),
}

/// Why one call in a scope has no answer.
#[derive(Debug)]
pub(crate) enum CallFailure {
    /// The scope's document went (a navigation): call again.
    Navigated,
    /// Anything else.
    Failed(BrowserError),
}

/// What a backend gives the generic call: the engine called in a scope, and
/// the scope of an iframe element.
pub(crate) trait Scopes: Send + Sync {
    /// Where a call runs (CDP: a frame id, none for the top document).
    type Scope: Clone + Send + Sync;
    /// An element a call found (CDP: its remote object id).
    type Element: Send;

    /// The top document's scope.
    fn top(&self) -> Self::Scope;

    /// One call of the engine with `request` (a [`Call`] as JSON) in
    /// `scope`, returning what `returns` says; `wait`: how long the scope
    /// may take to have a document.
    fn call_in(
        &self,
        scope: &Self::Scope,
        request: &str,
        returns: BidiReturns,
        wait: Duration,
    ) -> impl Future<Output = Result<Returned<Self::Element>, CallFailure>> + Send;

    /// The scope of the document `iframe` holds (an error naming `frame`
    /// when it is no frame).
    fn frame_scope(
        &self,
        iframe: Self::Element,
        frame: &FrameScope,
    ) -> impl Future<Output = Result<Self::Scope, CallFailure>> + Send;

    /// The offset of `scope`'s viewport in the top document's.
    fn frame_offset(
        &self,
        scope: &Self::Scope,
    ) -> impl Future<Output = Result<(f64, f64), BrowserError>> + Send;
}

/// One call of the engine in `frame` (none: the top document), repeated
/// after navigations; the coordinates answered in a frame moved into the
/// page's viewport (by the offset the backend reads from the frames'
/// parents: a frame of another origin cannot read its own).
pub(crate) async fn call<B: Scopes>(
    b: &B,
    frame: Option<&Arc<FrameScope>>,
    call: Call,
    during: &str,
) -> Result<Answer, BrowserError> {
    let coordinates = FrameCoordinates::of(&call.request);
    let (scope, returned) = run(b, frame, call, BidiReturns::Answer, during).await?;
    let v = match returned {
        Returned::Answer(v) => v,
        Returned::Element(_) => Value::Null,
    };
    let mut answer = decode(v, during)?;
    if frame.is_some() && coordinates.any(&answer) {
        let offset = b.frame_offset(&scope).await?;
        coordinates.move_by(&mut answer, offset);
    }
    Ok(answer)
}

/// One call of the engine that finds an element: the element, or the
/// engine's answer when it found none (its error says why).
pub(crate) async fn element<B: Scopes>(
    b: &B,
    frame: Option<&Arc<FrameScope>>,
    call: Call,
    during: &str,
) -> Result<Result<B::Element, Answer>, BrowserError> {
    match run(b, frame, call, BidiReturns::Element, during).await? {
        (_, Returned::Element(e)) => Ok(Ok(e)),
        (_, Returned::Answer(v)) => Ok(Err(decode(v, during)?)),
    }
}

/// The walk to `frame`'s scope then the call there, all again after a
/// navigation until the deadline.
async fn run<B: Scopes>(
    b: &B,
    frame: Option<&Arc<FrameScope>>,
    mut call: Call,
    returns: BidiReturns,
    during: &str,
) -> Result<(B::Scope, Returned<B::Element>), BrowserError> {
    let deadline = Instant::now() + Duration::from_millis(call.timeout) + GRACE;
    loop {
        let attempt = async {
            let scope = walk(b, frame, deadline).await?;
            let request = serde_json::to_string(&call).map_err(|e| {
                CallFailure::Failed(crate::error::cmd_err(
                    format!("encoding the request ({during})"),
                    e,
                ))
            })?;
            let left = deadline.saturating_duration_since(Instant::now());
            let returned = b.call_in(&scope, &request, returns, left).await?;
            Ok((scope, returned))
        };
        match attempt.await {
            Ok(done) => return Ok(done),
            Err(CallFailure::Navigated) if Instant::now() < deadline => {
                let left = deadline.saturating_duration_since(Instant::now());
                call.timeout = left.saturating_sub(GRACE).as_millis() as u64;
                tokio::time::sleep(Duration::from_millis(30)).await;
            }
            Err(CallFailure::Navigated) => {
                return Err(BrowserError::Command {
                    action: during.to_string(),
                    message: format!(
                        "the page kept navigating until the call's limit ({} ms past its own timeout)",
                        GRACE.as_millis()
                    ),
                });
            }
            Err(CallFailure::Failed(e)) => return Err(e),
        }
    }
}

/// The scope of `frame`: each iframe of its path found in its parent's
/// document (waiting for it up to the deadline).
async fn walk<B: Scopes>(
    b: &B,
    frame: Option<&Arc<FrameScope>>,
    deadline: Instant,
) -> Result<B::Scope, CallFailure> {
    let mut scope = b.top();
    let Some(frame) = frame else {
        return Ok(scope);
    };
    for f in frame.path() {
        let start = Instant::now();
        let left = deadline.saturating_duration_since(start);
        let (lookup, what, during) = frame_lookup(&f, left.saturating_sub(GRACE));
        let request = serde_json::to_string(&lookup).map_err(|e| {
            CallFailure::Failed(crate::error::cmd_err("encoding a frame lookup", e))
        })?;
        let element = match b
            .call_in(&scope, &request, BidiReturns::Element, left)
            .await?
        {
            Returned::Element(e) => e,
            Returned::Answer(v) => {
                let answer = decode(v, &during).map_err(CallFailure::Failed)?;
                let waited = start.elapsed();
                answer
                    .into_value(&f.desc, what, waited, Location::caller())
                    .map_err(CallFailure::Failed)?;
                return Err(CallFailure::Failed(BrowserError::Invalid {
                    message: format!(
                        "{} matches an element that is not a frame (an <iframe> or <frame> is needed)",
                        f.desc
                    ),
                    location: None,
                }));
            }
        };
        scope = b.frame_scope(element, &f).await?;
    }
    Ok(scope)
}

#[cfg(test)]
#[path = "walk_tests.rs"]
mod tests;
