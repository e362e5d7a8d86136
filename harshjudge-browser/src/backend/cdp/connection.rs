//! One DevTools-protocol connection to a browser, as Playwright's
//! `crConnection.ts`: one writer task owns the [`Outgoing`] half, one reader
//! task the [`Incoming`] half. A command goes out as
//! `{id, method, params, sessionId?}`; its answer `{id, result | error}`
//! comes back to the caller waiting on that id (answers may come in any
//! order). Events `{method, params, sessionId?}` go to the channel of their
//! session (flatten mode: every target's traffic on this one connection,
//! tagged with its session), the browser's own to the root channel.
//!
//! Answers are parsed with [`RawValue`]: the reader task only finds the id,
//! and the caller deserialises the typed result it asked for.
//!
//! When the browser goes (the transport closes), every waiter gets
//! [`CdpError::Lost`] "the browser exited" with what it last wrote to
//! stderr, and so does every later command; when a page crashes
//! (`Inspector.targetCrashed`), the waiters of its session get "the page
//! crashed"; when its session detaches, "the page closed".

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};

use super::protocol::{
    AttachedToTarget, Command, DetachedFromTarget, Event, SessionId, TargetCrashed,
};
use super::transport::{Incoming, Outgoing, TransportError};
use crate::error::BrowserError;

/// What went away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gone {
    /// The browser process (or its connection).
    BrowserExited,
    /// The page's renderer.
    PageCrashed,
    /// The page's target (its session detached).
    PageClosed,
}

impl std::fmt::Display for Gone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Gone::BrowserExited => "the browser exited",
            Gone::PageCrashed => "the page crashed",
            Gone::PageClosed => "the page closed",
        })
    }
}

/// Why a command got no answer it could use.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum CdpError {
    /// The browser, the page's renderer or the page went away.
    #[error("{gone} while waiting for {method}: {detail}")]
    Lost {
        gone: Gone,
        method: &'static str,
        /// What the browser last said on stderr, or what said it went.
        detail: String,
    },
    /// The document the command ran in went (a navigation replaced it).
    #[error("{method}: the page navigated before it ended ({message})")]
    Navigated {
        method: &'static str,
        message: String,
    },
    /// The browser answered with an error.
    #[error("{method} failed: {message} (DevTools error {code})")]
    Protocol {
        method: &'static str,
        code: i64,
        message: String,
    },
    /// The command's params could not be written as JSON.
    #[error("{method}: its params cannot be written as JSON: {error}")]
    Params {
        method: &'static str,
        #[source]
        error: serde_json::Error,
    },
    /// The answer did not have the shape this side reads.
    #[error("{method}: its answer was not understood: {error}")]
    Answer {
        method: &'static str,
        #[source]
        error: serde_json::Error,
    },
}

impl From<CdpError> for BrowserError {
    fn from(e: CdpError) -> Self {
        match e {
            CdpError::Lost {
                gone,
                method,
                detail,
            } => BrowserError::Lost {
                cause: gone.to_string(),
                during: format!("waiting for {method}"),
                detail,
                location: None,
            },
            other => BrowserError::Command {
                action: "a DevTools command".into(),
                message: other.to_string(),
            },
        }
    }
}

/// An error answer as the browser sends it.
#[derive(Debug, Deserialize)]
struct WireError {
    code: i64,
    message: String,
    #[serde(default)]
    data: Option<String>,
}

/// The typed failure of an error answer to `method`: a command whose
/// document went is [`CdpError::Navigated`] (the caller may retry in the new
/// one), a session that no longer exists [`CdpError::Lost`].
fn classify(method: &'static str, error: WireError) -> CdpError {
    const NAVIGATED: [&str; 3] = [
        "Execution context was destroyed",
        "Cannot find context with specified id",
        "Inspected target navigated or closed",
    ];
    const CLOSED: [&str; 3] = [
        "Session with given id not found",
        "No session with given id",
        "Target closed",
    ];
    let mut message = error.message;
    if let Some(data) = error.data.filter(|d| !d.is_empty()) {
        message = format!("{message}: {data}");
    }
    if NAVIGATED.iter().any(|n| message.contains(n)) {
        CdpError::Navigated { method, message }
    } else if CLOSED.iter().any(|n| message.contains(n)) {
        CdpError::Lost {
            gone: Gone::PageClosed,
            method,
            detail: message,
        }
    } else {
        CdpError::Protocol {
            method,
            code: error.code,
            message,
        }
    }
}

/// An event as it came: its method and its params, parsed when asked.
#[derive(Debug)]
pub(crate) struct Received {
    pub(crate) method: String,
    pub(crate) params: Box<RawValue>,
}

impl Received {
    /// The params as `E`, if this is an `E`.
    pub(crate) fn parse<E: Event>(&self) -> Option<Result<E, serde_json::Error>> {
        (self.method == E::METHOD).then(|| serde_json::from_str(self.params.get()))
    }
}

type Answer = Result<Box<RawValue>, CdpError>;

/// A caller waiting for the answer to its command.
struct Waiter {
    method: &'static str,
    session: Option<SessionId>,
    reply: oneshot::Sender<Answer>,
}

/// Where one session's events go.
struct Route {
    events: mpsc::UnboundedSender<Received>,
    /// How many events were sent to `events`.
    sent: u64,
    /// The receiving end, until someone takes it ([`Connection::events`]).
    unclaimed: Option<mpsc::UnboundedReceiver<Received>>,
    /// Set once its page crashed: commands fail at once.
    crashed: bool,
}

impl Route {
    fn new() -> Route {
        let (events, unclaimed) = mpsc::unbounded_channel();
        Route {
            events,
            sent: 0,
            unclaimed: Some(unclaimed),
            crashed: false,
        }
    }
}

#[derive(Default)]
struct State {
    waiting: HashMap<u64, Waiter>,
    /// The browser's own events (no session id); `None` once closed.
    root: Option<Route>,
    sessions: HashMap<SessionId, Route>,
    /// Set once the transport closed: why (for the errors of later commands).
    closed: Option<String>,
}

impl State {
    /// Fails the waiters of `session` with `gone`.
    fn fail_session(&mut self, session: &SessionId, gone: Gone, detail: &str) {
        let failing = self
            .waiting
            .extract_if(|_, w| w.session.as_ref() == Some(session));
        for (_, w) in failing {
            let _ = w.reply.send(Err(CdpError::Lost {
                gone,
                method: w.method,
                detail: detail.to_string(),
            }));
        }
    }
}

/// What the reader task and the callers share.
struct Shared {
    state: Mutex<State>,
    /// The browser's stderr, its last 4 KiB (none for a browser not started here).
    said: Option<Arc<Mutex<String>>>,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One connection to a browser (see the module's doc).
pub(crate) struct Connection {
    out: mpsc::UnboundedSender<String>,
    next: AtomicU64,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").finish_non_exhaustive()
    }
}

/// A command as it goes out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Request<'a, P> {
    id: u64,
    method: &'a str,
    params: &'a P,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a SessionId>,
}

/// A message as it comes in: an answer (`id`) or an event (`method`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Message<'a> {
    #[serde(default)]
    id: Option<u64>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<WireError>,
    #[serde(default)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(default)]
    session_id: Option<SessionId>,
}

/// Removes its waiter if the caller stops waiting (its future dropped).
struct Pending<'a> {
    shared: &'a Shared,
    id: u64,
    method: &'static str,
    armed: bool,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.shared.state().waiting.remove(&self.id);
        }
    }
}

impl Connection {
    /// Starts the writer and reader tasks on `out` and `incoming` (in a
    /// tokio runtime). `said`: the browser's stderr tail, for the error of
    /// a browser that exits.
    pub(crate) fn open(
        mut out: Outgoing,
        incoming: Incoming,
        said: Option<Arc<Mutex<String>>>,
    ) -> Connection {
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(text) = rx.recv().await {
                if out.send(text).await.is_err() {
                    break;
                }
            }
            out.close().await;
        });
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                root: Some(Route::new()),
                ..State::default()
            }),
            said,
        });
        tokio::spawn(read(incoming, shared.clone()));
        Connection {
            out: tx,
            next: AtomicU64::new(1),
            shared,
        }
    }

    /// Sends `command` (to `session`'s target, or to the browser) at once,
    /// in the order of the calls, and returns the wait for its answer, which
    /// borrows neither `session` nor `command`: several can be sent, then
    /// awaited together.
    pub(crate) fn send<'c, C: Command>(
        &'c self,
        session: Option<&SessionId>,
        command: &C,
    ) -> impl Future<Output = Result<C::Returns, CdpError>> + Send + use<'c, C> {
        let issued = self.issue(session, command);
        async move {
            let (mut pending, answer) = issued?;
            let answer = answer.await;
            pending.armed = false;
            let raw = answer.map_err(|_| self.lost(pending.method))??;
            serde_json::from_str(raw.get()).map_err(|error| CdpError::Answer {
                method: pending.method,
                error,
            })
        }
    }

    /// Sends `method` with `params` as they are, its answer as JSON: the
    /// escape hatch of `page.cdp` only (every other command is a typed
    /// [`Command`]). Its errors name it `page.cdp`.
    pub(crate) async fn send_raw(
        &self,
        session: Option<&SessionId>,
        method: &str,
        params: &Value,
    ) -> Result<Value, CdpError> {
        let (mut pending, answer) = self.issue_as("page.cdp", method, session, params)?;
        let answer = answer.await;
        pending.armed = false;
        let raw = answer.map_err(|_| self.lost(pending.method))??;
        serde_json::from_str(raw.get()).map_err(|error| CdpError::Answer {
            method: pending.method,
            error,
        })
    }

    /// Writes `command` out and registers its waiter.
    fn issue<C: Command>(
        &self,
        session: Option<&SessionId>,
        command: &C,
    ) -> Result<(Pending<'_>, oneshot::Receiver<Answer>), CdpError> {
        self.issue_as(C::METHOD, C::METHOD, session, command)
    }

    /// Writes `wire` with `params` out and registers its waiter, which
    /// names it `method`.
    fn issue_as<P: Serialize>(
        &self,
        method: &'static str,
        wire: &str,
        session: Option<&SessionId>,
        params: &P,
    ) -> Result<(Pending<'_>, oneshot::Receiver<Answer>), CdpError> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let text = serde_json::to_string(&Request {
            id,
            method: wire,
            params,
            session_id: session,
        })
        .map_err(|error| CdpError::Params { method, error })?;
        let (reply, answer) = oneshot::channel();
        {
            let mut state = self.shared.state();
            if let Some(detail) = &state.closed {
                return Err(CdpError::Lost {
                    gone: Gone::BrowserExited,
                    method,
                    detail: detail.clone(),
                });
            }
            if let Some(s) = session
                && state.sessions.get(s).is_some_and(|r| r.crashed)
            {
                return Err(CdpError::Lost {
                    gone: Gone::PageCrashed,
                    method,
                    detail: "Inspector.targetCrashed came before".into(),
                });
            }
            state.waiting.insert(
                id,
                Waiter {
                    method,
                    session: session.cloned(),
                    reply,
                },
            );
        }
        let pending = Pending {
            shared: &self.shared,
            id,
            method,
            armed: true,
        };
        if self.out.send(text).is_err() {
            return Err(self.lost(method));
        }
        Ok((pending, answer))
    }

    /// Takes the receiver of `session`'s events (the browser's own for
    /// `None`): `None` if it was taken already, or the session is gone.
    /// A session's events are kept from its `Target.attachedToTarget` on.
    pub(crate) fn events(
        &self,
        session: Option<&SessionId>,
    ) -> Option<mpsc::UnboundedReceiver<Received>> {
        let mut state = self.shared.state();
        if state.closed.is_some() {
            return None;
        }
        match session {
            None => state.root.as_mut()?.unclaimed.take(),
            Some(s) => state
                .sessions
                .entry(s.clone())
                .or_insert_with(Route::new)
                .unclaimed
                .take(),
        }
    }

    /// How many events of `session` were sent to its receiver so far: those
    /// the browser sent before every answer read until now.
    pub(crate) fn events_sent(&self, session: &SessionId) -> u64 {
        self.shared
            .state()
            .sessions
            .get(session)
            .map_or(0, |r| r.sent)
    }

    /// Whether the browser's side is gone.
    pub(crate) fn is_closed(&self) -> bool {
        self.shared.state().closed.is_some()
    }

    /// The error of a command to a browser that went.
    fn lost(&self, method: &'static str) -> CdpError {
        let detail = self
            .shared
            .state()
            .closed
            .clone()
            .unwrap_or_else(|| exit_detail(&self.shared.said, None));
        CdpError::Lost {
            gone: Gone::BrowserExited,
            method,
            detail,
        }
    }
}

/// What is known of a browser's exit: its last words on stderr, and the
/// transport's failure if that is how it ended.
fn exit_detail(said: &Option<Arc<Mutex<String>>>, error: Option<&TransportError>) -> String {
    let said = crate::process::tail_text(said);
    let said = if said.is_empty() {
        "it wrote nothing to stderr".to_string()
    } else {
        format!("it said: {said}")
    };
    match error {
        Some(e) => format!("{e}; {said}"),
        None => format!("its DevTools connection closed; {said}"),
    }
}

/// The reader task: hands out answers and events until the transport
/// closes, then fails every waiter. A message it cannot read is skipped.
async fn read(mut incoming: Incoming, shared: Arc<Shared>) {
    let error = loop {
        match incoming.next().await {
            None => break None,
            Some(Err(e)) => break Some(e),
            Some(Ok(frame)) => {
                // An object only: serde would also read an array as the
                // struct's fields in order (`[1, {}]` as an answer to 1).
                if frame.first() == Some(&b'{')
                    && let Ok(message) = serde_json::from_slice::<Message<'_>>(&frame)
                {
                    dispatch(&shared, message);
                }
            }
        }
    };
    if shared.said.is_some() {
        // The browser's last words may still be on their way through its
        // stderr, which closes with the transport (read on another thread):
        // a moment for them, as `driver.rs` gives a driver that exited.
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let detail = exit_detail(&shared.said, error.as_ref());
    let mut state = shared.state();
    state.closed = Some(detail.clone());
    // Their senders dropped: every events receiver ends.
    state.root = None;
    state.sessions.clear();
    for (_, w) in state.waiting.drain() {
        let _ = w.reply.send(Err(CdpError::Lost {
            gone: Gone::BrowserExited,
            method: w.method,
            detail: detail.clone(),
        }));
    }
}

/// One message read: an answer to its waiter, an event to its session.
fn dispatch(shared: &Shared, message: Message<'_>) {
    let Message {
        id,
        result,
        error,
        method,
        params,
        session_id,
    } = message;
    let mut state = shared.state();
    if let Some(id) = id {
        let Some(waiter) = state.waiting.remove(&id) else {
            return;
        };
        drop(state);
        let answer = match (error, result) {
            (Some(e), _) => Err(classify(waiter.method, e)),
            (None, Some(raw)) => Ok(raw.to_owned()),
            (None, None) => Ok(empty()),
        };
        let _ = waiter.reply.send(answer);
        return;
    }
    let Some(method) = method else { return };
    let params = params.map_or_else(empty, RawValue::to_owned);
    let received = Received {
        method: method.into_owned(),
        params,
    };
    if let Some(Ok(attached)) = received.parse::<AttachedToTarget>() {
        // Routed from now on: its first events may come before anyone asks.
        state
            .sessions
            .entry(attached.session_id)
            .or_insert_with(Route::new);
    } else if let Some(Ok(detached)) = received.parse::<DetachedFromTarget>() {
        state.sessions.remove(&detached.session_id);
        state.fail_session(
            &detached.session_id,
            Gone::PageClosed,
            "its target was closed (Target.detachedFromTarget)",
        );
    } else if let (Some(Ok(TargetCrashed {})), Some(s)) =
        (received.parse::<TargetCrashed>(), &session_id)
    {
        if let Some(route) = state.sessions.get_mut(s) {
            route.crashed = true;
        }
        state.fail_session(s, Gone::PageCrashed, "Inspector.targetCrashed");
    }
    let route = match &session_id {
        None => state.root.as_mut(),
        Some(s) => state.sessions.get_mut(s),
    };
    if let Some(route) = route {
        route.sent += 1;
        let _ = route.events.send(received);
    }
}

/// `{}`.
fn empty() -> Box<RawValue> {
    RawValue::from_string("{}".into()).expect("{} is JSON")
}
