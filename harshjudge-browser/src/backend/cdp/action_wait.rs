//! An action's navigations, waited to their commit (as Playwright's actions
//! did by default until `noWaitAfter` was deprecated): a click on a link, a press that sends a form, asks the renderer
//! for a navigation of a frame before the action's last command returns
//! (`Page.frameRequestedNavigation`), and the action ends once each such
//! frame has committed its next document, or that navigation ended without
//! one (its request failed, the frame stopped loading, it stayed within
//! the document), or the page closed. Chromium holds most commands to a
//! frame whose navigation is under way until the commit, so a read right
//! after the action usually waited anyway; but not one sent before the
//! browser had taken the navigation up, nor one to another frame than the
//! one navigating (a link whose target is an iframe): then the read saw the
//! document the action left. The judge is pure, fed the page's
//! [`Lifecycle`] (unit-tested in `action_wait_tests.rs`).

use std::time::Duration;

use tokio::sync::broadcast::{self, error::RecvError};

use super::load_wait::Lifecycle;
use super::page::CdpPage;
use super::protocol::Evaluate;
use crate::backend::LastAnswer;
use crate::lifecycle::drain;

/// The navigations an action asked for, until each commits or ends.
#[derive(Debug, Default)]
pub(crate) struct ActionNavigations {
    /// Frames with a navigation asked for and not yet committed, with the
    /// loader of its request once sent.
    pending: Vec<(String, Option<String>)>,
}

impl ActionNavigations {
    /// One event of the page, in the order it came.
    pub(crate) fn step(&mut self, event: &Lifecycle) {
        match event {
            Lifecycle::NavigationRequested { frame } => {
                if !self.pending.iter().any(|(f, _)| f == frame) {
                    self.pending.push((frame.clone(), None));
                }
            }
            Lifecycle::DocumentRequested { frame, loader, .. } => {
                if let Some(p) = self.pending.iter_mut().find(|(f, _)| f == frame) {
                    p.1 = Some(loader.clone());
                }
            }
            Lifecycle::Committed { frame, .. } | Lifecycle::WithinDocument { frame, .. } => {
                self.pending.retain(|(f, _)| f != frame);
            }
            Lifecycle::DocumentFailed { loader, .. } => {
                self.pending.retain(|(_, l)| l.as_ref() != Some(loader));
            }
            // Once its request went out (before, the frame may still be
            // ending the load of the document the action left).
            Lifecycle::StoppedLoading { frame } => {
                self.pending.retain(|(f, l)| f != frame || l.is_none());
            }
            Lifecycle::Closed => self.pending.clear(),
            Lifecycle::Event { .. } => {}
        }
    }

    /// Whether no navigation the action asked for is still under way.
    pub(crate) fn settled(&self) -> bool {
        self.pending.is_empty()
    }
}

/// The page's navigations seen from before an action on
/// ([`CdpPage::watch_action`]).
#[derive(Debug)]
pub(crate) struct ActionWatch {
    events: broadcast::Receiver<Lifecycle>,
}

impl CdpPage {
    /// Starts watching for the navigations the action about to be performed
    /// asks for: call before its first command.
    pub(crate) fn watch_action(&self) -> ActionWatch {
        ActionWatch {
            events: self.lifecycle(),
        }
    }

    /// Once the action's commands have returned (the last answered by
    /// `last`): waits, at most `limit`, for each navigation it asked for to
    /// commit or end. The events the renderer sent during the action are
    /// read before the judging, so a navigation asked for then is never
    /// missed: an input command's answer comes by another way than the
    /// renderer's events, so after one, a round trip through the renderer
    /// brings them first.
    pub(crate) async fn after_action(&self, watch: ActionWatch, last: LastAnswer, limit: Duration) {
        let ActionWatch { mut events } = watch;
        let deadline = tokio::time::Instant::now() + limit;
        if last == LastAnswer::Input {
            let through = Evaluate {
                expression: "0",
                await_promise: false,
                return_by_value: true,
                context_id: None,
            };
            let round_trip = self.connection.send(Some(&self.session), &through);
            if tokio::time::timeout_at(deadline, round_trip).await.is_err() {
                return;
            }
        }
        let sent = self.connection.events_sent(&self.session);
        let mut read = self.shared.read.subscribe();
        if tokio::time::timeout_at(deadline, read.wait_for(|n| *n >= sent))
            .await
            .is_err()
        {
            return;
        }
        let mut asked = ActionNavigations::default();
        drain(&mut events, |e| asked.step(&e));
        while !asked.settled() {
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Ok(Ok(e)) => asked.step(&e),
                Ok(Err(RecvError::Lagged(_))) => {}
                Ok(Err(RecvError::Closed)) | Err(_) => return,
            }
        }
    }
}

#[cfg(test)]
#[path = "action_wait_tests.rs"]
mod tests;
