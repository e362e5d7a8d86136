//! Engine calls in an execution context (a frame's default world) whose
//! answer may be an element, kept in the page by its object id: the input
//! of `set_input_files` (`DOM.setFileInputFiles{objectId}`, see
//! [`CdpPage::set_files`]) and the iframe a frame's scope is entered
//! through ([`CdpPage::frame_scope`]: `DOM.describeNode{objectId}` →
//! `frameId` → its default context).

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::frames::{FrameError, frame_of};
use super::page::{CallError, CdpPage};
use super::protocol::{CallArgument, CallFunctionOn};
use crate::wire::{self, BidiReturns};

/// What an engine call that may find an element answers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Called {
    /// The engine's answer (`Answer::decode` reads it): it found no
    /// element in time, or failed.
    Answer(Value),
    /// The element it found, by its object id in the page.
    Element(String),
}

impl CdpPage {
    /// The engine's answer to `request` in `scope` (an execution context
    /// id; none: the top document's default world), or (with `element`)
    /// the element it found. The engine is installed first in a document
    /// that lacks it.
    pub(crate) async fn call_in(
        &self,
        scope: Option<i64>,
        request: &str,
        element: bool,
        wait: Duration,
    ) -> Result<Called, CallError> {
        let deadline = Instant::now() + wait;
        let called = self
            .run_in(scope, request, element, false, deadline)
            .await?;
        match called {
            Called::Answer(a) if a["missing"] == true => {
                self.run_in(scope, request, element, true, deadline).await
            }
            called => Ok(called),
        }
    }

    /// One round trip of [`CdpPage::call_in`].
    async fn run_in(
        &self,
        scope: Option<i64>,
        request: &str,
        element: bool,
        full: bool,
        deadline: Instant,
    ) -> Result<Called, CallError> {
        let context = match scope {
            Some(c) => c,
            None => {
                (self.shared.contexts)
                    .wait_default_of(&self.main_frame, deadline)
                    .await?
                    .id
            }
        };
        let returns = if element {
            BidiReturns::Element
        } else {
            BidiReturns::Answer
        };
        let arg = Value::String(request.to_string());
        let call = CallFunctionOn {
            function_declaration: wire::bidi_function(full, returns),
            object_id: None,
            execution_context_id: Some(context),
            arguments: &[CallArgument::Value(&arg)],
            await_promise: true,
            return_by_value: !element,
        };
        let evaluated = self.connection.send(Some(&self.session), &call).await?;
        if let Some(e) = &evaluated.exception_details {
            return Err(CallError::Thrown {
                message: e.message().to_string(),
            });
        }
        let result = evaluated.result;
        if let (Some("node"), Some(id)) = (result.subtype.as_deref(), &result.object_id) {
            return Ok(Called::Element(id.clone()));
        }
        match result.value {
            Some(Value::String(text)) => serde_json::from_str(&text)
                .map(Called::Answer)
                .map_err(|_| CallError::Answer { answer: text }),
            other => Err(CallError::Answer {
                answer: other
                    .or_else(|| result.description.map(Value::String))
                    .map_or_else(|| "undefined".into(), |v| v.to_string()),
            }),
        }
    }

    /// The scope (default execution context) of the frame the iframe
    /// element `iframe` (an object id) holds, waiting up to `wait` for the
    /// frame to have a document.
    pub(crate) async fn frame_scope(
        &self,
        iframe: &str,
        wait: Duration,
    ) -> Result<i64, FrameError> {
        let deadline = Instant::now() + wait;
        let frame = frame_of(&self.connection, &self.session, iframe).await?;
        let context = self.shared.contexts.wait_default_of(&frame, deadline);
        Ok(context.await?.id)
    }
}

#[cfg(test)]
#[path = "elements_tests.rs"]
mod tests;
