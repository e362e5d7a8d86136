//! The execution contexts of one page session, by frame: a frame's default
//! context (its main world, where the injected engine runs) is announced by
//! `Runtime.executionContextCreated` with `auxData {frameId, isDefault}`,
//! goes with `Runtime.executionContextDestroyed` (the frame navigated or was
//! removed) and all at once with `Runtime.executionContextsCleared` (the top
//! document navigated). [`Contexts`] follows them and answers "the default
//! context of frame F", waiting for it until a deadline (a frame that just
//! navigated has none for a moment). [`frame_of`] tells the frame an iframe
//! element holds (`DOM.describeNode`).
//!
//! An out-of-process iframe (a cross-site one, under site isolation) is a
//! target of its own, attached to the page's session (`page.rs`,
//! `Target.setAutoAttach{flatten}`) with a session of its own: its events
//! come in through [`Contexts::event_in`] with that session, and a frame's
//! context is had with the session it lives in ([`Context`]).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::connection::{CdpError, Connection, Received};
use super::protocol::{
    DescribeNode, ExecutionContextCreated, ExecutionContextDestroyed, ExecutionContextsCleared,
    SessionId,
};
use crate::error::BrowserError;

/// Why a frame's context could not be had.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum FrameError {
    /// No default context came for the frame in time.
    #[error("frame {frame} has no document to run in after {} ms (it is navigating, or was removed)", waited.as_millis())]
    NoContext { frame: String, waited: Duration },
    /// The element holds no frame.
    #[error("the element is a <{node_name}>, not an iframe: it holds no frame")]
    NotAFrame { node_name: String },
    /// The command failed.
    #[error(transparent)]
    Cdp(#[from] CdpError),
}

impl From<FrameError> for BrowserError {
    fn from(e: FrameError) -> Self {
        match e {
            FrameError::Cdp(e) => e.into(),
            e @ FrameError::NotAFrame { .. } => BrowserError::Invalid {
                message: e.to_string(),
                location: None,
            },
            e => BrowserError::Command {
                action: "entering a frame".into(),
                message: e.to_string(),
            },
        }
    }
}

/// A frame's default context: its id in the session it lives in (none:
/// the page's own session; else an out-of-process iframe's).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Context {
    pub(crate) session: Option<SessionId>,
    pub(crate) id: i64,
}

#[derive(Debug, Default)]
struct State {
    /// Frame id → its default context.
    default_of: HashMap<String, Context>,
    /// Context → its frame, for the contexts in `default_of`.
    frame_of: HashMap<Context, String>,
}

/// The default contexts of one page session's frames (see the module's doc).
#[derive(Debug, Default)]
pub(crate) struct Contexts {
    state: Mutex<State>,
    changed: Notify,
}

impl Contexts {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Folds in one event of the page's own session; whether it was a
    /// context event.
    pub(crate) fn event(&self, event: &Received) -> bool {
        self.event_in(None, event)
    }

    /// Folds in one event of `session` (none: the page's own; else an
    /// out-of-process iframe's); whether it was a context event.
    pub(crate) fn event_in(&self, session: Option<&SessionId>, event: &Received) -> bool {
        if let Some(created) = event.parse::<ExecutionContextCreated>() {
            let Ok(ExecutionContextCreated { context }) = created else {
                return true;
            };
            let Some(aux) = context.aux_data.filter(|a| a.is_default) else {
                return true;
            };
            let Some(frame) = aux.frame_id else {
                return true;
            };
            let context = Context {
                session: session.cloned(),
                id: context.id,
            };
            let mut state = self.state();
            if let Some(old) = state.default_of.insert(frame.clone(), context.clone()) {
                state.frame_of.remove(&old);
            }
            state.frame_of.insert(context, frame);
        } else if let Some(destroyed) = event.parse::<ExecutionContextDestroyed>() {
            let Ok(ExecutionContextDestroyed {
                execution_context_id: id,
            }) = destroyed
            else {
                return true;
            };
            let context = Context {
                session: session.cloned(),
                id,
            };
            let mut state = self.state();
            if let Some(frame) = state.frame_of.remove(&context)
                && state.default_of.get(&frame) == Some(&context)
            {
                state.default_of.remove(&frame);
            }
        } else if event.parse::<ExecutionContextsCleared>().is_some() {
            self.clear_session(session);
            return true;
        } else {
            return false;
        }
        self.changed.notify_waiters();
        true
    }

    /// Forgets the contexts of `session` (none: the page's own): its
    /// documents were cleared, or (an iframe's) it detached.
    pub(crate) fn clear_session(&self, session: Option<&SessionId>) {
        let mut state = self.state();
        state.frame_of.retain(|c, _| c.session.as_ref() != session);
        state
            .default_of
            .retain(|_, c| c.session.as_ref() != session);
        drop(state);
        self.changed.notify_waiters();
    }

    /// The default context of `frame`, if it has one now.
    pub(crate) fn default_of(&self, frame: &str) -> Option<Context> {
        self.state().default_of.get(frame).cloned()
    }

    /// The default context of `frame`, waiting for it until `deadline`.
    pub(crate) async fn wait_default_of(
        &self,
        frame: &str,
        deadline: Instant,
    ) -> Result<Context, FrameError> {
        let start = Instant::now();
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            // Registered before the look: a change between the two wakes it.
            changed.as_mut().enable();
            if let Some(context) = self.default_of(frame) {
                return Ok(context);
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return Err(FrameError::NoContext {
                    frame: frame.to_string(),
                    waited: start.elapsed(),
                });
            }
        }
    }
}

/// The frame an iframe element holds, by the element's object id.
pub(crate) async fn frame_of(
    connection: &Connection,
    session: &SessionId,
    object_id: &str,
) -> Result<String, FrameError> {
    let described = connection
        .send(Some(session), &DescribeNode { object_id })
        .await?;
    described
        .node
        .frame_id
        .ok_or_else(|| FrameError::NotAFrame {
            node_name: described.node.node_name.to_lowercase(),
        })
}

#[cfg(test)]
#[path = "frames_tests.rs"]
mod tests;
