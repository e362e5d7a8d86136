//! An action's navigations over BiDi, waited for as the DevTools backend's
//! are (`backend/cdp/action_wait.rs`): the navigations a context started
//! during the action (`browsingContext.navigationStarted`, the page's top
//! context or any of its frames) are each waited for until their document
//! arrived or they ended ([`Bidi::settle_within`]).

use std::collections::HashMap;
use std::time::Duration;

use super::Bidi;
use crate::backend::LastAnswer;

impl Bidi {
    /// The navigation each context has under way now (before an action).
    pub(crate) fn navigations_under_way(&self) -> HashMap<String, String> {
        self.navigating.lock().expect("bidi lock").clone()
    }

    /// After an action in the top context `top` whose last command `last`
    /// answered: brings the events the page sent before now (one round
    /// trip, unless the renderer answered last), then waits, at most
    /// `limit` in all, for each navigation started since `before`.
    pub(crate) async fn after_action(
        &self,
        top: &str,
        before: HashMap<String, String>,
        last: LastAnswer,
        limit: Duration,
    ) {
        let deadline = tokio::time::Instant::now() + limit;
        if last == LastAnswer::Input
            && tokio::time::timeout_at(deadline, self.flush(top))
                .await
                .is_err()
        {
            return;
        }
        let started: Vec<String> = self
            .navigating
            .lock()
            .expect("bidi lock")
            .iter()
            .filter(|(context, navigation)| before.get(*context) != Some(*navigation))
            .map(|(context, _)| context.clone())
            .collect();
        for context in started {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            self.settle_within(&context, left).await;
        }
    }
}
