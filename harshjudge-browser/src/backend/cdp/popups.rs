//! Popups: a page opened by a page of ours (`window.open`, a
//! `target=_blank` link) arrives through the root's auto-attach as
//! `Target.attachedToTarget` with `targetInfo.openerId`, paused. The root
//! reader (`context.rs`) hands it to the [`PopupWatch`] of its opener armed
//! before (the oldest one), and inits it as a page (`CdpPage`) of the same
//! context (as Playwright inits every popup); one nobody watched is still
//! initialised and kept, so that it runs and its dialogs are answered.
//! A popup's dialogs are its opener's (handler, recorder, numbering), as
//! one WebDriver session's windows share theirs: each page of ours
//! registers its [`Dialogs`] here as an opener. A popup starts with its
//! opener's init scripts (`add_init_script`, the clock), sent before it runs.
//! Generic over the page type `P`, so that this file needs not `page.rs`
//! (which arms the watches).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::mpsc;

use super::connection::CdpError;
use super::protocol::TargetId;
use crate::dialogs::Dialogs;
use crate::error::BrowserError;

/// Why no popup came.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum PopupError {
    /// None opened in time.
    #[error("no popup opened within {} ms (window.open, a target=_blank link)", waited.as_millis())]
    Timeout { waited: Duration },
    /// One opened and could not be initialised.
    #[error(transparent)]
    Cdp(#[from] CdpError),
}

impl From<PopupError> for BrowserError {
    fn from(e: PopupError) -> Self {
        match e {
            PopupError::Cdp(e) => e.into(),
            e => BrowserError::Command {
                action: "waiting for a popup".into(),
                message: e.to_string(),
            },
        }
    }
}

type Delivery<P> = mpsc::UnboundedSender<Result<P, CdpError>>;

/// A page's init scripts, in order (`readers.rs`'s `Shared`).
pub(crate) type InitScripts = Mutex<Vec<Arc<str>>>;

/// The watches armed and the popups nobody watched (see the module's doc).
#[derive(Debug)]
pub(crate) struct Popups<P> {
    watches: Mutex<HashMap<TargetId, Vec<Delivery<P>>>>,
    unwatched: Mutex<Vec<P>>,
    /// Each page's dialogs, by its target, for its popups.
    dialogs: Mutex<HashMap<TargetId, Weak<Dialogs>>>,
    /// Each page's init scripts, by its target, for its popups.
    scripts: Mutex<HashMap<TargetId, Weak<InitScripts>>>,
}

impl<P> Default for Popups<P> {
    fn default() -> Self {
        Popups {
            watches: Mutex::default(),
            unwatched: Mutex::default(),
            dialogs: Mutex::default(),
            scripts: Mutex::default(),
        }
    }
}

impl<P> Popups<P> {
    /// A page of ours, `target`, whose popups share its `dialogs` and
    /// start with its `scripts` as they are then.
    pub(super) fn opener(
        &self,
        target: &TargetId,
        dialogs: &Arc<Dialogs>,
        scripts: &Arc<InitScripts>,
    ) {
        let mut all = self.dialogs.lock().unwrap_or_else(|p| p.into_inner());
        all.retain(|_, d| d.strong_count() > 0);
        all.insert(target.clone(), Arc::downgrade(dialogs));
        let mut all = self.scripts.lock().unwrap_or_else(|p| p.into_inner());
        all.retain(|_, s| s.strong_count() > 0);
        all.insert(target.clone(), Arc::downgrade(scripts));
    }

    /// The init scripts a popup of `opener` starts with: its opener's now
    /// (none for an opener not ours, or gone).
    pub(super) fn scripts_of(&self, opener: &TargetId) -> Vec<Arc<str>> {
        let all = self.scripts.lock().unwrap_or_else(|p| p.into_inner());
        let Some(scripts) = all.get(opener).and_then(Weak::upgrade) else {
            return Vec::new();
        };
        scripts.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The dialogs of a popup of `opener`: its opener's (new ones for an
    /// opener not ours, or gone).
    pub(super) fn dialogs_of(&self, opener: &TargetId) -> Arc<Dialogs> {
        let all = self.dialogs.lock().unwrap_or_else(|p| p.into_inner());
        all.get(opener).and_then(Weak::upgrade).unwrap_or_default()
    }

    /// Arms a watch of `opener`'s popups.
    pub(super) fn watch(&self, opener: &TargetId) -> PopupWatch<P> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut watches = self.watches.lock().unwrap_or_else(|p| p.into_inner());
        watches.entry(opener.clone()).or_default().push(tx);
        PopupWatch { rx }
    }

    /// Where a popup of `opener` goes: the oldest watch still waiting.
    pub(super) fn watcher(&self, opener: &TargetId) -> Option<Delivery<P>> {
        let mut watches = self.watches.lock().unwrap_or_else(|p| p.into_inner());
        let list = watches.get_mut(opener)?;
        list.retain(|tx| !tx.is_closed());
        let first = list.first().cloned();
        if list.is_empty() {
            watches.remove(opener);
        }
        first
    }

    /// Delivers an initialised popup (or why it could not be) to `to`, else
    /// keeps it running.
    pub(super) fn deliver(&self, to: Option<Delivery<P>>, page: Result<P, CdpError>) {
        let undelivered = match to {
            Some(tx) => tx.send(page).err().map(|e| e.0),
            None => Some(page),
        };
        if let Some(Ok(page)) = undelivered {
            (self.unwatched.lock().unwrap_or_else(|p| p.into_inner())).push(page);
        }
    }
}

/// A wait for the next popup of a page, armed before the action that opens it.
#[derive(Debug)]
pub(crate) struct PopupWatch<P> {
    rx: mpsc::UnboundedReceiver<Result<P, CdpError>>,
}

impl<P> PopupWatch<P> {
    /// The next popup, its init done, within `wait`.
    pub(crate) async fn next(&mut self, wait: Duration) -> Result<P, PopupError> {
        match tokio::time::timeout(wait, self.rx.recv()).await {
            Ok(Some(page)) => Ok(page?),
            _ => Err(PopupError::Timeout { waited: wait }),
        }
    }
}

#[cfg(test)]
#[path = "popups_tests.rs"]
mod tests;
