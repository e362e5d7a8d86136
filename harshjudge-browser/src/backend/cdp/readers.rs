//! A DevTools page's event readers: one task for the page's session and
//! one for each of its out-of-process iframes' (flat sessions of the same
//! connection), each reading its events into what the page and its methods
//! share ([`Shared`]): each frame's default world ([`Contexts`]), the
//! generic [`StepLog`] (console and network, through [`NetLog`]), the
//! [`Lifecycle`] broadcast (navigations, the page's session only); a paused
//! request to the page's [`Routes`] (`intercept.rs`), a dialog to its
//! [`Dialogs`] (`dialog.rs`). Apart from `page.rs` (the page's commands),
//! which starts the page's reader.

use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use super::connection::{Connection, Received};
use super::dialog;
use super::downloads::FramesOf;
use super::events::NetLog;
use super::frames::Contexts;
use super::intercept;
use super::load_wait::Lifecycle;
use super::protocol::{
    AddScriptToEvaluateOnNewDocument, AttachedToTarget, AuthRequired, FrameNavigated,
    FrameRequestedNavigation, FrameStoppedLoading, JavascriptDialogOpening, LifecycleEvent,
    LoadingFailed, LogEnable, NavigatedWithinDocument, NetworkEnable, PageEnable, RequestPaused,
    RequestWillBeSent, RunIfWaitingForDebugger, RuntimeEnable, SessionId, SetAutoAttach,
};
use crate::dialogs::Dialogs;
use crate::routes::Routes;
use crate::steplog::StepLog;
use crate::wire;

/// What the page's reader task and its methods share.
pub(super) struct Shared {
    pub(super) contexts: Contexts,
    /// The step's console and network.
    pub(super) log: Arc<StepLog>,
    /// The requests under way, between their events.
    net: Mutex<NetLog>,
    pub(super) routes: Arc<Routes>,
    pub(super) dialogs: Arc<Dialogs>,
    pub(super) lifecycle: broadcast::Sender<Lifecycle>,
    /// How many of its session's events the reader task has read (and
    /// broadcast): [`super::connection::Connection::events_sent`] counts
    /// those sent to it; `u64::MAX` once the session ended.
    pub(super) read: tokio::sync::watch::Sender<u64>,
    /// The sessions of its out-of-process iframes attached now (their
    /// requests paused with the page's while it has a route: `fetch.rs`).
    children: Mutex<Vec<SessionId>>,
    /// The page's init scripts (`add_init_script`), in order, for its
    /// out-of-process iframes attached later.
    pub(super) init_scripts: Arc<super::popups::InitScripts>,
    /// Where its screencast's frames go (`screencast.rs`).
    pub(super) screencast: Arc<super::screencast::Frames>,
    /// The URL of the main frame's last committed document (a `goto`'s
    /// document left: `load_wait.rs`), set before the commit is broadcast.
    document: Mutex<Option<String>>,
    /// The answer to authentication challenges (`emulate.rs` sets the
    /// credentials; `Fetch` hands every challenge over, `intercept.rs`).
    pub(super) auth: crate::credentials::Auth,
}

impl FramesOf for Shared {
    fn has_frame(&self, frame: &str) -> bool {
        self.contexts.default_of(frame).is_some()
    }

    fn log(&self) -> &StepLog {
        &self.log
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("contexts", &self.contexts)
            .field("net", &self.net)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// A new page's: nothing read yet, no route, its dialogs `dialogs`.
    pub(super) fn new(dialogs: Arc<Dialogs>) -> Shared {
        let (lifecycle, _) = broadcast::channel(256);
        Shared {
            contexts: Contexts::default(),
            log: Arc::new(StepLog::default()),
            net: Mutex::new(NetLog::default()),
            routes: Arc::new(Routes::default()),
            dialogs,
            lifecycle,
            read: tokio::sync::watch::Sender::new(0),
            children: Mutex::default(),
            init_scripts: Arc::default(),
            screencast: Arc::default(),
            document: Mutex::default(),
            auth: crate::credentials::Auth::default(),
        }
    }

    /// Whether `Fetch` pauses the page's requests: while it has a route
    /// (its challenges are handled always, `intercept.rs`).
    pub(super) fn wants_fetch(&self) -> bool {
        !self.routes.is_empty()
    }

    fn net(&self) -> std::sync::MutexGuard<'_, NetLog> {
        self.net.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn children(&self) -> std::sync::MutexGuard<'_, Vec<SessionId>> {
        self.children.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds an init script of the page; the sessions of its out-of-process
    /// iframes attached now, which are to get it too.
    pub(super) fn add_init_script(&self, source: &str) -> Vec<SessionId> {
        let mut scripts = self.init_scripts.lock().unwrap_or_else(|p| p.into_inner());
        scripts.push(Arc::from(source));
        self.children().clone()
    }

    /// The page's init scripts, in order.
    pub(super) fn init_scripts(&self) -> Vec<Arc<str>> {
        self.init_scripts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The URL of the main frame's last committed document, if one committed.
    pub(super) fn document(&self) -> Option<String> {
        self.document
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The out-of-process iframes' sessions attached now.
    pub(super) fn child_sessions(&self) -> Vec<SessionId> {
        self.children().clone()
    }
}

/// The page's reader task: its session's events into its contexts, its log
/// and its lifecycle, until the session ends.
pub(super) async fn read_page(
    events: Option<tokio::sync::mpsc::UnboundedReceiver<Received>>,
    shared: Arc<Shared>,
    connection: Arc<Connection>,
    session: SessionId,
) {
    if let Some(mut events) = events {
        while let Some(event) = events.recv().await {
            read_event(&event, &shared, &connection, &session);
            shared.read.send_modify(|n| *n += 1);
        }
    }
    let _ = shared.lifecycle.send(Lifecycle::Closed);
    shared.read.send_modify(|n| *n = u64::MAX);
}

/// One event of the page's session, to where it goes.
fn read_event(
    event: &Received,
    shared: &Arc<Shared>,
    connection: &Arc<Connection>,
    session: &SessionId,
) {
    // A document's request (and its failure) is also a step of its
    // frame's navigation.
    if let Some(step) = document_step(event) {
        let _ = shared.lifecycle.send(step);
    }
    if shared.contexts.event(event)
        || shared.net().event(event, &shared.log)
        || shared.screencast.event(event, connection, session)
        || answered(connection, session, shared, event)
    {
        return;
    }
    if let Some(Ok(child)) = event.parse::<AttachedToTarget>() {
        attach_child(connection, shared, child);
    } else if let Some(step) = lifecycle_of(event, shared) {
        let _ = shared.lifecycle.send(step);
    }
}

/// A request paused in `session` (the page's or an iframe's) to the page's
/// routes, a dialog opening there to its dialogs, each in a task of its
/// own; whether `event` was one of them.
fn answered(
    connection: &Arc<Connection>,
    session: &SessionId,
    shared: &Shared,
    event: &Received,
) -> bool {
    if let Some(Ok(paused)) = event.parse::<RequestPaused>() {
        let (c, s, r, l) = (
            connection.clone(),
            session.clone(),
            shared.routes.clone(),
            shared.log.clone(),
        );
        tokio::spawn(async move { intercept::handle(&c, &s, &r, &l, paused).await });
        true
    } else if let Some(Ok(challenge)) = event.parse::<AuthRequired>() {
        let (c, s, answer) = (
            connection.clone(),
            session.clone(),
            shared
                .auth
                .answer(&challenge.request_id, &challenge.auth_challenge.origin),
        );
        tokio::spawn(
            async move { super::auth::continue_with_auth(&c, &s, challenge, answer).await },
        );
        true
    } else if let Some(Ok(opening)) = event.parse::<JavascriptDialogOpening>() {
        let (c, s, d) = (connection.clone(), session.clone(), shared.dialogs.clone());
        tokio::spawn(async move { dialog::handle(&c, &s, &d, opening).await });
        true
    } else {
        false
    }
}

/// The auto-attach of a page's (or an iframe's) session: its out-of-process
/// iframes (and workers), each paused until let run, over the same
/// connection (flat sessions).
pub(super) const CHILDREN: SetAutoAttach = SetAutoAttach {
    auto_attach: true,
    wait_for_debugger_on_start: true,
    flatten: true,
};

/// A target the page's session (or one of its iframes') auto-attached,
/// paused: an out-of-process iframe gets the engine for every document,
/// its own auto-attach (its cross-site iframes) and its events read into
/// the page's (its contexts by frame, console, network, dialogs) until it
/// detaches; anything else (a worker) is let run.
fn attach_child(connection: &Arc<Connection>, shared: &Arc<Shared>, child: AttachedToTarget) {
    let session = child.session_id;
    let c = connection.clone();
    if child.target_info.kind != "iframe" {
        tokio::spawn(async move {
            let _ = c.send(Some(&session), &RunIfWaitingForDebugger {}).await;
        });
        return;
    }
    // Taken now: its events are kept from its attachment on (`connection.rs`).
    let events = connection.events(Some(&session));
    let shared = shared.clone();
    tokio::spawn(async move {
        let s = Some(&session);
        let engine = AddScriptToEvaluateOnNewDocument {
            source: wire::install_source(),
            run_immediately: Some(true),
        };
        // Listed before the routes are looked at: a route added meanwhile
        // pauses this session's requests too (`fetch.rs`), and one there
        // already pauses them before the iframe runs.
        shared.children().push(session.clone());
        let routed = shared.wants_fetch();
        // Each goes out when called, in this order (the pausing before the
        // frame runs); awaited together (a frame gone in the meantime fails
        // them all: nothing to do).
        let (page, runtime) = (c.send(s, &PageEnable {}), c.send(s, &RuntimeEnable {}));
        let (log, network) = (
            c.send(s, &LogEnable {}),
            c.send(s, &NetworkEnable::default()),
        );
        let (engine, children) = (c.send(s, &engine), c.send(s, &CHILDREN));
        // The page's init scripts, after the engine, in their order.
        let scripts = shared.init_scripts();
        let inits = futures_util::future::join_all(scripts.iter().map(|source| {
            let add = AddScriptToEvaluateOnNewDocument {
                source,
                run_immediately: None,
            };
            c.send(s, &add)
        }));
        // Paused for the routes, or for the challenges alone.
        let pause = intercept::pause_requests(&c, &session, routed);
        let run = c.send(s, &RunIfWaitingForDebugger {});
        let paused = async {
            let _ = pause.await;
        };
        let _ = tokio::join!(
            page, runtime, log, network, engine, children, inits, paused, run
        );
        if let Some(mut events) = events {
            while let Some(event) = events.recv().await {
                if shared.contexts.event_in(s, &event) || shared.net().event(&event, &shared.log) {
                    continue;
                }
                if answered(&c, &session, &shared, &event) {
                    continue;
                }
                if let Some(Ok(grandchild)) = event.parse::<AttachedToTarget>() {
                    attach_child(&c, &shared, grandchild);
                }
            }
        }
        shared.children().retain(|c| c != &session);
        shared.contexts.clear_session(s);
    });
}

/// The lifecycle step an event is, if any; a commit of the main frame
/// first keeps its URL in `shared`.
fn lifecycle_of(event: &Received, shared: &Shared) -> Option<Lifecycle> {
    if let Some(Ok(e)) = event.parse::<LifecycleEvent>() {
        return Some(Lifecycle::Event {
            frame: e.frame_id,
            loader: e.loader_id,
            name: e.name,
        });
    }
    if let Some(Ok(FrameNavigated { frame })) = event.parse::<FrameNavigated>() {
        if frame.parent_id.is_none() {
            *shared.document.lock().unwrap_or_else(|p| p.into_inner()) = Some(frame.url.clone());
        }
        return Some(Lifecycle::Committed {
            frame: frame.id,
            loader: frame.loader_id,
            url: frame.url,
        });
    }
    if let Some(Ok(e)) = event.parse::<FrameRequestedNavigation>() {
        // A `javascript:` URL runs in the document and commits nothing; a
        // new tab or a download leaves the frame as it is.
        let document = !e.url.starts_with("javascript:");
        return (e.disposition == "currentTab" && document)
            .then_some(Lifecycle::NavigationRequested { frame: e.frame_id });
    }
    if let Some(Ok(e)) = event.parse::<FrameStoppedLoading>() {
        return Some(Lifecycle::StoppedLoading { frame: e.frame_id });
    }
    if let Some(Ok(e)) = event.parse::<NavigatedWithinDocument>() {
        return Some(Lifecycle::WithinDocument {
            frame: e.frame_id,
            url: e.url,
        });
    }
    None
}

/// The step of a frame's navigation a `Network.requestWillBeSent` or
/// `Network.loadingFailed` of a `Document` is (the network log reads the
/// same event as a request's).
fn document_step(event: &Received) -> Option<Lifecycle> {
    if let Some(failed) = event.parse::<LoadingFailed>() {
        let failed = failed.ok()?;
        return (failed.kind.as_deref() == Some("Document")).then_some(Lifecycle::DocumentFailed {
            loader: failed.request_id,
            error: failed.error_text,
        });
    }
    let e = event.parse::<RequestWillBeSent>()?.ok()?;
    let frame = e
        .frame_id
        .filter(|_| e.kind.as_deref() == Some("Document"))?;
    let by = e
        .initiator
        .as_ref()
        .and_then(|i| i.script_url())
        .map(String::from);
    Some(Lifecycle::DocumentRequested {
        frame,
        loader: e.loader_id,
        by,
    })
}
