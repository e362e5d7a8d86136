//! Downloads of a browser context, as Playwright's `crBrowser.ts`:
//! `Browser.setDownloadBehavior{behavior: allowAndName, browserContextId,
//! downloadPath, eventsEnabled}` saves each download as
//! `<downloadPath>/<guid>`; the root session then tells
//! `Browser.downloadWillBegin{frameId, guid, url, suggestedFilename}` and
//! `Browser.downloadProgress{guid, state}` (`completed`, `canceled`). Neither
//! names its context: the frame's page does (the pages register here). The
//! page's step log learns that its load became a download; a
//! [`DownloadWatch`] of the context gets each download once it ended.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::mpsc;

use super::connection::{CdpError, Connection, Received};
use super::protocol::{
    BrowserContextId, DownloadProgress, DownloadWillBegin, SetDownloadBehavior, TargetId,
};
use crate::error::BrowserError;
use crate::steplog::{NetEvent, StepLog};

/// How a download ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DownloadState {
    Completed,
    Canceled,
}

/// A download that ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CdpDownload {
    pub(crate) guid: String,
    pub(crate) url: String,
    /// The name the browser gave it (not checked here: `download.rs` checks it).
    pub(crate) suggested_filename: String,
    /// `<downloadPath>/<guid>` (none there when canceled).
    pub(crate) path: PathBuf,
    pub(crate) state: DownloadState,
}

/// Why no download came.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum DownloadError {
    #[error("no download ended within {} ms", waited.as_millis())]
    Timeout { waited: Duration },
    #[error(transparent)]
    Cdp(#[from] CdpError),
}

impl From<DownloadError> for BrowserError {
    fn from(e: DownloadError) -> Self {
        match e {
            DownloadError::Cdp(e) => e.into(),
            e => BrowserError::Command {
                action: "waiting for a download".into(),
                message: e.to_string(),
            },
        }
    }
}

/// What the downloads need of a page: whether a frame is one of its, and
/// its step log (a trait, so that this file needs not `page.rs`).
pub(crate) trait FramesOf: Send + Sync {
    /// Whether `frame` is one of the page's (besides its main frame).
    fn has_frame(&self, frame: &str) -> bool;
    /// The page's step log.
    fn log(&self) -> &StepLog;
}

/// A page, for telling which context a frame is of.
struct PageOf {
    target: TargetId,
    context: BrowserContextId,
    shared: Weak<dyn FramesOf>,
}

impl std::fmt::Debug for PageOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageOf")
            .field("target", &self.target)
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

/// A download begun, of a watched context.
#[derive(Debug)]
struct Begun {
    context: BrowserContextId,
    url: String,
    name: String,
}

#[derive(Debug, Default)]
struct State {
    pages: Vec<PageOf>,
    /// Context → its watch (id, the folder, where its downloads go).
    watches: HashMap<BrowserContextId, (u64, PathBuf, mpsc::UnboundedSender<CdpDownload>)>,
    begun: HashMap<String, Begun>,
    next: u64,
}

/// The browser's downloads (see the module's doc).
#[derive(Debug, Default)]
pub(crate) struct Downloads {
    state: Mutex<State>,
}

impl Downloads {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A page of `context`: its frames' downloads are the context's.
    pub(super) fn page(
        &self,
        target: &TargetId,
        context: &BrowserContextId,
        shared: &Arc<dyn FramesOf>,
    ) {
        let mut state = self.state();
        state.pages.retain(|p| p.shared.strong_count() > 0);
        state.pages.push(PageOf {
            target: target.clone(),
            context: context.clone(),
            shared: Arc::downgrade(shared),
        });
    }

    /// One root event; whether it was a download's.
    pub(super) fn event(&self, event: &Received) -> bool {
        if let Some(began) = event.parse::<DownloadWillBegin>() {
            if let Ok(b) = began {
                self.began(b);
            }
            true
        } else if let Some(progress) = event.parse::<DownloadProgress>() {
            if let Ok(p) = progress {
                self.progress(p);
            }
            true
        } else {
            false
        }
    }

    fn began(&self, b: DownloadWillBegin) {
        let mut state = self.state();
        let page = state.pages.iter().find_map(|p| {
            let shared = p.shared.upgrade()?;
            let mine = p.target.0 == b.frame_id || shared.has_frame(&b.frame_id);
            mine.then(|| (p.context.clone(), shared))
        });
        let Some((context, shared)) = page else {
            return;
        };
        shared.log().net(NetEvent::Download {
            context: b.frame_id.clone(),
            navigation: None,
            url: b.url.clone(),
            name: b.suggested_filename.clone(),
        });
        if state.watches.contains_key(&context) {
            state.begun.insert(
                b.guid,
                Begun {
                    context,
                    url: b.url,
                    name: b.suggested_filename,
                },
            );
        }
    }

    fn progress(&self, p: DownloadProgress) {
        let state = match p.state.as_str() {
            "completed" => DownloadState::Completed,
            "canceled" => DownloadState::Canceled,
            _ => return,
        };
        let mut s = self.state();
        let Some(begun) = s.begun.remove(&p.guid) else {
            return;
        };
        if let Some((_, folder, tx)) = s.watches.get(&begun.context) {
            let _ = tx.send(CdpDownload {
                path: folder.join(&p.guid),
                guid: p.guid,
                url: begun.url,
                suggested_filename: begun.name,
                state,
            });
        }
    }

    /// Points `context`'s downloads at `folder` and watches them (a watch
    /// armed before replaces the one before).
    pub(super) async fn watch(
        self: &Arc<Self>,
        connection: &Connection,
        context: &BrowserContextId,
        folder: &Path,
    ) -> Result<DownloadWatch, CdpError> {
        let path = folder.to_string_lossy();
        let behave = SetDownloadBehavior {
            behavior: "allowAndName",
            browser_context_id: Some(context),
            download_path: Some(&path),
            events_enabled: true,
        };
        connection.send(None, &behave).await?;
        let (tx, rx) = mpsc::unbounded_channel();
        let mut state = self.state();
        state.next += 1;
        let id = state.next;
        state
            .watches
            .insert(context.clone(), (id, folder.to_path_buf(), tx));
        Ok(DownloadWatch {
            rx,
            id,
            context: context.clone(),
            downloads: self.clone(),
        })
    }
}

impl Downloads {
    /// Points `context`'s downloads back at the browser's default (the
    /// folder of the watch that ended goes with its download) unless
    /// another watch of the context is armed.
    pub(super) async fn end(
        &self,
        connection: &Connection,
        context: &BrowserContextId,
    ) -> Result<(), CdpError> {
        if self.state().watches.contains_key(context) {
            return Ok(());
        }
        let behave = SetDownloadBehavior {
            behavior: "default",
            browser_context_id: Some(context),
            download_path: None,
            events_enabled: true,
        };
        connection.send(None, &behave).await.map(drop)
    }
}

/// The downloads of a context that end, from its arming on.
#[derive(Debug)]
pub(crate) struct DownloadWatch {
    rx: mpsc::UnboundedReceiver<CdpDownload>,
    id: u64,
    context: BrowserContextId,
    downloads: Arc<Downloads>,
}

impl DownloadWatch {
    /// The next download that ended (completed or canceled), within `wait`.
    pub(crate) async fn next(&mut self, wait: Duration) -> Result<CdpDownload, DownloadError> {
        match tokio::time::timeout(wait, self.rx.recv()).await {
            Ok(Some(d)) => Ok(d),
            _ => Err(DownloadError::Timeout { waited: wait }),
        }
    }
}

impl Drop for DownloadWatch {
    fn drop(&mut self) {
        let mut state = self.downloads.state();
        if state
            .watches
            .get(&self.context)
            .is_some_and(|w| w.0 == self.id)
        {
            state.watches.remove(&self.context);
        }
    }
}

#[cfg(test)]
#[path = "downloads_tests.rs"]
mod tests;
