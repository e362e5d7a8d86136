//! A Chromium spoken to directly ([`CdpBrowser`]) and its browser contexts
//! ([`CdpContext`]), as Playwright's `crBrowser.ts`: the root session
//! auto-attaches every new target, paused until its init is sent
//! (`Target.setAutoAttach{autoAttach, waitForDebuggerOnStart, flatten}`);
//! a context is `Target.createBrowserContext{disposeOnDetach}` (cookies and
//! storage of its own), a page of it `Target.createTarget` whose
//! `Target.attachedToTarget` the root reader hands to [`CdpContext::new_page`].
//!
//! A page opened by one of ours (a popup: its `openerId`) is initialised
//! by the root reader and handed to its opener's watch (`popups.rs`); one
//! that is no page (a service worker) is let run at once. The root reader
//! also follows the downloads (`downloads.rs`).
//!
//! Root auto-attach shows every connection the targets of every context,
//! other connections' too (a nextest run's shared browser, `shared.rs`), and
//! a target waits until every connection that auto-attached it lets it run:
//! a page of another connection's context is let run and detached at once,
//! never initialised here.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::connection::{CdpError, Connection};
use super::downloads::{DownloadWatch, Downloads};
use super::launch::{Chromium, Endpoint, Launched, launch};
use super::page::{CdpPage, PageOptions};
use super::popups::Popups;
use super::protocol::{
    AttachedToTarget, BrowserContextId, CreateBrowserContext, CreateTarget, DetachedFromTarget,
    DisposeBrowserContext, GetCookies, GetVersion, RunIfWaitingForDebugger, SessionId,
    SetAutoAttach, SetCookies, TargetId,
};
use crate::config::BrowserConfig;
use crate::cookies::{Cookie, cdp_cookie, to_cdp};
use crate::emulation::Emulation;
use crate::error::BrowserError;

/// Why a context or its page could not be had.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ContextError {
    /// A command failed.
    #[error(transparent)]
    Cdp(#[from] CdpError),
    /// The new page's target was not attached in time.
    #[error("the new page's target {target} was not attached after {} ms", waited.as_millis())]
    NotAttached { target: TargetId, waited: Duration },
}

impl From<ContextError> for BrowserError {
    fn from(e: ContextError) -> Self {
        match e {
            ContextError::Cdp(e) => e.into(),
            e => BrowserError::Command {
                action: "opening a page".into(),
                message: e.to_string(),
            },
        }
    }
}

/// What the root reader keeps for the pages: the targets attached and not
/// yet claimed (by target id), the popups' watches, the downloads.
#[derive(Debug, Default)]
pub(crate) struct Attached {
    targets: Mutex<HashMap<TargetId, AttachedToTarget>>,
    /// The contexts made over this connection.
    own: Mutex<HashSet<BrowserContextId>>,
    arrived: Notify,
    pub(super) popups: Arc<Popups<CdpPage>>,
    pub(super) downloads: Arc<Downloads>,
    /// Each context's emulation, for its popups (applied before they run).
    emulations: Mutex<HashMap<BrowserContextId, Weak<Mutex<Emulation>>>>,
}

impl Attached {
    fn targets(&self) -> std::sync::MutexGuard<'_, HashMap<TargetId, AttachedToTarget>> {
        self.targets.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether `context` was made over this connection.
    fn owns(&self, context: &BrowserContextId) -> bool {
        self.own
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(context)
    }

    /// The emulation of `context`'s pages (none: the browser's own).
    fn emulation_of(&self, context: &BrowserContextId) -> Emulation {
        let all = self.emulations.lock().unwrap_or_else(|p| p.into_inner());
        all.get(context)
            .and_then(Weak::upgrade)
            .map(|e| e.lock().unwrap_or_else(|p| p.into_inner()).clone())
            .unwrap_or_default()
    }

    /// Takes `target`'s attachment, waiting for it until `deadline`.
    async fn claim(&self, target: &TargetId, deadline: Instant) -> Option<AttachedToTarget> {
        loop {
            let arrived = self.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            if let Some(a) = self.targets().remove(target) {
                return Some(a);
            }
            tokio::time::timeout_at(deadline, arrived).await.ok()?;
        }
    }
}

/// A Chromium and its one connection (see the module's doc).
#[derive(Debug)]
pub(crate) struct CdpBrowser {
    chromium: Option<Chromium>,
    connection: Arc<Connection>,
    attached: Arc<Attached>,
    reader: JoinHandle<()>,
    options: PageOptions,
}

impl CdpBrowser {
    /// Launches Chromium over the pipe (see `launch.rs`) and sets the root's
    /// auto-attach.
    pub(crate) async fn launch(
        config: &BrowserConfig,
        app_host: Option<&str>,
    ) -> Result<CdpBrowser, BrowserError> {
        let Launched {
            chromium,
            connection,
            ..
        } = launch(config, Endpoint::Pipe, app_host).await?;
        let options = PageOptions {
            viewport: config.viewport,
            ..PageOptions::default()
        };
        Ok(CdpBrowser::over(Some(chromium), connection, options).await?)
    }

    /// A browser others started (a nextest run's, `shared.rs`), over its
    /// WebSocket `ws_url`: a connection of this process's own, whose browser
    /// contexts go when it closes.
    pub(crate) async fn connect(
        ws_url: &str,
        options: PageOptions,
    ) -> Result<CdpBrowser, BrowserError> {
        let (out, incoming) = super::transport::connect_socket(ws_url)
            .await
            .map_err(|e| BrowserError::Session {
                url: ws_url.to_string(),
                message: format!("connecting to the browser: {e}"),
            })?;
        let connection = Connection::open(out, incoming, None);
        connection.send(None, &GetVersion {}).await?;
        Ok(CdpBrowser::over(None, connection, options).await?)
    }

    /// The browser of `connection` (its process `chromium`, if started
    /// here), its root auto-attaching new targets.
    pub(crate) async fn over(
        chromium: Option<Chromium>,
        connection: Connection,
        options: PageOptions,
    ) -> Result<CdpBrowser, CdpError> {
        let connection = Arc::new(connection);
        let attached = Arc::new(Attached::default());
        let events = connection.events(None);
        let reader = tokio::spawn(read_root(
            connection.clone(),
            attached.clone(),
            events,
            options.clone(),
        ));
        connection
            .send(
                None,
                &SetAutoAttach {
                    auto_attach: true,
                    wait_for_debugger_on_start: true,
                    flatten: true,
                },
            )
            .await?;
        Ok(CdpBrowser {
            chromium,
            connection,
            attached,
            reader,
            options,
        })
    }

    /// A new browser context: cookies and storage of its own, gone when
    /// disposed (or when this connection goes).
    pub(crate) async fn new_context(&self) -> Result<CdpContext, CdpError> {
        let id = self
            .connection
            .send(
                None,
                &CreateBrowserContext {
                    dispose_on_detach: Some(true),
                },
            )
            .await?
            .browser_context_id;
        self.attached
            .own
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone());
        let emulation = Arc::new(Mutex::new(Emulation::default()));
        let mut all = (self.attached.emulations.lock()).unwrap_or_else(|p| p.into_inner());
        all.retain(|_, e| e.strong_count() > 0);
        all.insert(id.clone(), Arc::downgrade(&emulation));
        drop(all);
        Ok(CdpContext {
            connection: self.connection.clone(),
            attached: self.attached.clone(),
            id,
            options: self.options.clone(),
            emulation,
        })
    }

    /// The process id of the browser, if started here.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.chromium.as_ref().map(Chromium::pid)
    }

    /// The connection (for what this module has no method for yet).
    pub(crate) fn connection(&self) -> &Connection {
        &self.connection
    }

    /// Kills the browser (if started here).
    pub(crate) async fn close(mut self) {
        self.reader.abort();
        if let Some(chromium) = self.chromium.take() {
            let _ = tokio::task::spawn_blocking(move || chromium.kill()).await;
        }
    }
}

impl Drop for CdpBrowser {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// The root session's events: attached targets kept for their claimer (a
/// target that is no page let run at once), detached ones forgotten.
async fn read_root(
    connection: Arc<Connection>,
    attached: Arc<Attached>,
    events: Option<tokio::sync::mpsc::UnboundedReceiver<super::connection::Received>>,
    options: PageOptions,
) {
    let Some(mut events) = events else { return };
    while let Some(event) = events.recv().await {
        if attached.downloads.event(&event) {
            continue;
        }
        if let Some(Ok(a)) = event.parse::<AttachedToTarget>() {
            if let Some(context) = &a.target_info.browser_context_id
                && !attached.owns(context)
            {
                tokio::spawn(let_go(connection.clone(), a.session_id));
                continue;
            }
            if a.target_info.kind == "page"
                && let Some(opener) = a.target_info.opener_id.clone()
            {
                // A popup: to the watch of its opener armed by now, once its init is done.
                let to = attached.popups.watcher(&opener);
                let dialogs = attached.popups.dialogs_of(&opener);
                let scripts = attached.popups.scripts_of(&opener);
                let (connection, root, mut options) =
                    (connection.clone(), attached.clone(), options.clone());
                if let Some(context) = &a.target_info.browser_context_id {
                    options.emulation = attached.emulation_of(context);
                }
                tokio::spawn(async move {
                    let page = CdpPage::attach_with(connection, a, options, dialogs, scripts).await;
                    let page = page.map(|p| p.rooted(root.popups.clone(), root.downloads.clone()));
                    root.popups.deliver(to, page);
                });
                continue;
            }
            if a.target_info.kind != "page" {
                if a.waiting_for_debugger {
                    let (connection, session) = (connection.clone(), a.session_id);
                    tokio::spawn(async move {
                        let run = RunIfWaitingForDebugger {};
                        let _ = connection.send(Some(&session), &run).await;
                    });
                }
                continue;
            }
            attached
                .targets()
                .insert(a.target_info.target_id.clone(), a);
            attached.arrived.notify_waiters();
        } else if let Some(Ok(d)) = event.parse::<DetachedFromTarget>()
            && let Some(target) = d.target_id
        {
            attached.targets().remove(&target);
        }
    }
}

/// Lets the target of `session` (another connection's) run and detaches
/// from it, both sent at once.
async fn let_go(connection: Arc<Connection>, session: SessionId) {
    let run = connection.send(Some(&session), &RunIfWaitingForDebugger {});
    let detach = connection.send(
        None,
        &DetachFromTarget {
            session_id: &session,
        },
    );
    let _ = tokio::join!(run, detach);
}

/// `Target.detachFromTarget`.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct DetachFromTarget<'a> {
    session_id: &'a SessionId,
}
impl super::protocol::Command for DetachFromTarget<'_> {
    const METHOD: &'static str = "Target.detachFromTarget";
    type Returns = super::protocol::Empty;
}

/// One browser context (one scenario's isolation unit).
#[derive(Debug)]
pub(crate) struct CdpContext {
    connection: Arc<Connection>,
    attached: Arc<Attached>,
    id: BrowserContextId,
    options: PageOptions,
    /// What its pages emulate (its popups get it as they open).
    emulation: Arc<Mutex<Emulation>>,
}

impl CdpContext {
    /// Its id.
    pub(crate) fn id(&self) -> &BrowserContextId {
        &self.id
    }

    /// What its pages emulate.
    pub(crate) fn emulation(&self) -> Emulation {
        self.emulation
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// What its pages emulate from now on (its next popups' too).
    pub(crate) fn set_emulation(&self, emulation: Emulation) {
        *self.emulation.lock().unwrap_or_else(|p| p.into_inner()) = emulation;
    }

    /// A new page of the context, its init done (see `page.rs`).
    pub(crate) async fn new_page(&self) -> Result<CdpPage, ContextError> {
        let target = self
            .connection
            .send(
                None,
                &CreateTarget {
                    url: "about:blank",
                    browser_context_id: Some(&self.id),
                },
            )
            .await?
            .target_id;
        let wait = Duration::from_secs(10);
        let Some(attached) = self.attached.claim(&target, Instant::now() + wait).await else {
            return Err(ContextError::NotAttached {
                target,
                waited: wait,
            });
        };
        let page = CdpPage::attach(self.connection.clone(), attached, self.options.clone()).await?;
        Ok(page.rooted(
            self.attached.popups.clone(),
            self.attached.downloads.clone(),
        ))
    }

    /// Saves the context's downloads in `folder` (as `<folder>/<guid>`) and
    /// watches them from now on (replacing a watch armed before).
    pub(crate) async fn watch_downloads(&self, folder: &Path) -> Result<DownloadWatch, CdpError> {
        let downloads = &self.attached.downloads;
        downloads.watch(&self.connection, &self.id, folder).await
    }

    /// The context's cookies, every site's.
    pub(crate) async fn cookies(&self) -> Result<Vec<Cookie>, CdpError> {
        let list = self
            .connection
            .send(
                None,
                &GetCookies {
                    browser_context_id: &self.id,
                },
            )
            .await?;
        Ok(list.cookies.iter().filter_map(cdp_cookie).collect())
    }

    /// Adds (or replaces) `cookies` in the context.
    pub(crate) async fn set_cookies(&self, cookies: &[Cookie]) -> Result<(), CdpError> {
        let cookies: Vec<_> = cookies.iter().map(to_cdp).collect();
        self.connection
            .send(
                None,
                &SetCookies {
                    cookies: &cookies,
                    browser_context_id: &self.id,
                },
            )
            .await
            .map(drop)
    }

    /// Closes the context with its pages (popups too).
    pub(crate) async fn dispose(self) -> Result<(), CdpError> {
        self.connection
            .send(
                None,
                &DisposeBrowserContext {
                    browser_context_id: &self.id,
                },
            )
            .await
            .map(drop)
    }
}
