//! The WebDriver BiDi client the BiDi backend (`backend/bidi/`) speaks
//! through: a session opened with `webSocketUrl: true` returns the URL of
//! its BiDi socket, and [`Bidi`] connects to it, subscribes to the log,
//! network and browsing-context events and feeds what they say, in the
//! protocol-neutral vocabulary (`adapt.rs`), to the step's log (`steplog.rs`:
//! console and network as they happen, no command per step, and the waiters
//! of `wait_for_request`/`wait_for_response`), the navigations' lifecycle
//! (`lifecycle.rs`), the page's routes (`route.rs`: the intercepts, the
//! handlers' verdicts carried out) and dialogs (`dialog.rs`).
//!
//! One reader task owns the socket's incoming half: a command's answer goes to
//! the caller waiting for it, an event to the shared state. A remote end that
//! offers no BiDi (no `webSocketUrl` in its capabilities) gets the classic
//! backend (chromedriver's `devtools` log); [`announce_fallback`] says so once.
//!
//! A BiDi page sends nothing but BiDi once its session exists, so a route's
//! answer is never queued behind a classic command's load wait (chromedriver
//! serves a session's BiDi commands only between its classic ones): the
//! navigation (`Bidi::navigate`, `Bidi::traverse`, watched by
//! `Bidi::watch_navigation` in `interrupted.rs`), the engine's calls
//! (`Bidi::call_function`: a call ends as a navigation when its document
//! goes; the engine comes as a preload script, `Bidi::ensure_preload`), input
//! (`Bidi::perform_actions`, `Bidi::set_files`) and reads after
//! `Bidi::settle` has seen a navigation under way reach its document.
//!
//! A route is listed before its intercept exists (`Routes::add`), and no
//! lock is held, so a route's handler may use the page.

mod action_wait;
mod adapt;
mod auth;
mod bodies;
mod dialog;
mod interrupted;
pub(crate) mod protocol;
pub(crate) mod protocol_emulation;
pub(crate) mod protocol_events;
pub(crate) mod route;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

use super::error::BrowserError;
use super::lifecycle::Lifecycle;
use super::routes::Routes;
use super::steplog::StepLog;
#[cfg(test)]
pub(crate) use adapt::feed_step_log;
use protocol::{
    AddPreloadScript, Argument, BoxClip, CallFunction, CaptureScreenshot, Command, ContextTarget,
    Evaluate, GetTree, LocalValue, Navigate, Origin, Ownership, PerformActions, Readiness, Reload,
    RemoteValue, Screenshot, ScriptResult, SetFiles, SharedReference, Subscribe, TraverseHistory,
    Tree,
};
use protocol_events::BidiEvent;

/// The events a session subscribes to.
const EVENTS: [&str; 11] = [
    "log.entryAdded",
    "network.beforeRequestSent",
    "network.responseStarted",
    "network.responseCompleted",
    "network.fetchError",
    "browsingContext.contextCreated",
    "browsingContext.contextDestroyed",
    "browsingContext.navigationStarted",
    "browsingContext.domContentLoaded",
    "browsingContext.load",
    "browsingContext.userPromptOpened",
];

/// The events that end a navigation without a new document (or with the same
/// one), and its commit, subscribed to with [`EVENTS`], or one by one when the
/// remote end refuses one of them ([`Bidi::settle`] then waits at most its
/// limit for a navigation that ends so; a `goto` is then judged without the
/// commit).
const NAVIGATION_ENDS: [&str; 5] = [
    "browsingContext.navigationAborted",
    "browsingContext.navigationFailed",
    "browsingContext.fragmentNavigated",
    "browsingContext.downloadWillBegin",
    "browsingContext.navigationCommitted",
];

/// How long a read of the page waits for a navigation under way to reach its
/// document ([`Bidi::settle`]).
const SETTLE_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

type Reply = oneshot::Sender<Result<Value, BrowserError>>;

/// How long a history traversal may take to load its document: classic
/// WebDriver's default page-load limit.
const TRAVERSAL_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// Nanoseconds of the clock, for a token no page can guess.
fn now_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// One BiDi connection (one per WebDriver session).
pub(crate) struct Bidi {
    out: mpsc::UnboundedSender<Message>,
    next: AtomicU64,
    waiting: Arc<Mutex<HashMap<u64, Reply>>>,
    /// What the events said: the step's console and network, the waiters.
    pub(crate) log: Arc<StepLog>,
    /// The page's routes.
    pub(crate) routes: Arc<Routes>,
    /// The intercepts that feed them.
    intercepts: route::Intercepts,
    /// The page's HTTP credentials, and whether the session's
    /// `authRequired` intercept is there (`auth.rs`).
    pub(crate) auth: crate::credentials::Auth,
    auth_intercept: tokio::sync::Mutex<bool>,
    /// The top-level browsing context of the session's window.
    pub(crate) context: Mutex<Option<String>>,
    /// The page's dialog handler and the scenario its dialogs are evidence of.
    pub(crate) dialogs: Arc<super::dialogs::Dialogs>,
    /// Navigations, loads and closings of every context, as they come.
    lifecycle: tokio::sync::broadcast::Sender<Lifecycle>,
    /// The navigation each context has started and not yet loaded.
    navigating: Mutex<HashMap<String, String>>,
    /// Whether the injected engine is a preload script of the session.
    preloaded: tokio::sync::OnceCell<()>,
    /// The events of another shape said on stderr (once each per connection).
    malformed: Mutex<HashSet<String>>,
    /// The contexts this side opened for itself (a storage state's read):
    /// their console and network stay out of the step's log; each goes with
    /// its `contextDestroyed`.
    unlogged: Mutex<HashSet<String>>,
    /// The session's data collector of response bodies, once asked for
    /// (`bodies.rs`).
    collector: tokio::sync::OnceCell<bodies::Collector>,
}

impl std::fmt::Debug for Bidi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bidi").finish_non_exhaustive()
    }
}

/// A BiDi failure as a [`BrowserError`].
fn bidi_err(action: &str, message: impl std::fmt::Display) -> BrowserError {
    BrowserError::Command {
        action: format!("{action} (WebDriver BiDi)"),
        message: message.to_string(),
    }
}

/// A failed command's error saying what was being done (`during`).
fn renamed(e: BrowserError, during: &str) -> BrowserError {
    match e {
        BrowserError::Command { message, .. } => BrowserError::Command {
            action: during.to_string(),
            message,
        },
        other => other,
    }
}

/// The BiDi URL a new session returned, if it offers BiDi.
pub(crate) fn socket_url(client: &fantoccini::Client) -> Option<String> {
    client
        .capabilities()?
        .get("webSocketUrl")?
        .as_str()
        .filter(|u| u.starts_with("ws://") || u.starts_with("wss://"))
        .map(String::from)
}

/// Says once per process that a remote end offers no BiDi; whether this
/// call said it.
pub(crate) fn announce_fallback(remote: &str) -> bool {
    static SAID: std::sync::Once = std::sync::Once::new();
    let mut said_now = false;
    SAID.call_once(|| {
        eprintln!("{}", fallback_notice(remote));
        said_now = true;
    });
    said_now
}

/// What [`announce_fallback`] says.
fn fallback_notice(remote: &str) -> String {
    format!(
        "harshjudge: the WebDriver at {remote} offers no WebDriver BiDi (no webSocketUrl in its capabilities): console and network come from chromedriver's devtools log, read at each step boundary; routes and wait_for_request/wait_for_response need BiDi"
    )
}

impl Bidi {
    /// Connects to `url`, subscribes to [`EVENTS`] and finds the window's context.
    pub(crate) async fn connect(url: &str) -> Result<Arc<Bidi>, BrowserError> {
        let (socket, _) = tokio_tungstenite::connect_async(url)
            .await
            .map_err(|e| bidi_err(&format!("connecting to {url}"), e))?;
        let (mut sink, mut stream) = socket.split();
        let (out, mut outgoing) = mpsc::unbounded_channel::<Message>();
        tokio::spawn(async move {
            while let Some(m) = outgoing.recv().await {
                if sink.send(m).await.is_err() {
                    break;
                }
            }
            let _ = sink.close().await;
        });
        let waiting: Arc<Mutex<HashMap<u64, Reply>>> = Arc::default();
        let bidi = Arc::new(Bidi {
            out,
            next: AtomicU64::new(1),
            waiting: waiting.clone(),
            log: Arc::new(StepLog::default()),
            routes: Arc::new(Routes::default()),
            intercepts: route::Intercepts::default(),
            auth: Default::default(),
            auth_intercept: Default::default(),
            context: Mutex::new(None),
            dialogs: Arc::default(),
            lifecycle: tokio::sync::broadcast::channel(64).0,
            navigating: Mutex::default(),
            preloaded: tokio::sync::OnceCell::new(),
            malformed: Mutex::default(),
            unlogged: Mutex::default(),
            collector: tokio::sync::OnceCell::new(),
        });
        let weak = Arc::downgrade(&bidi);
        tokio::spawn(async move {
            while let Some(Ok(m)) = stream.next().await {
                let Message::Text(text) = m else { continue };
                let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
                    continue;
                };
                if let Some(id) = v["id"].as_u64() {
                    let reply = waiting.lock().expect("bidi lock").remove(&id);
                    if let Some(reply) = reply {
                        let _ = reply.send(if v["type"] == "error" {
                            Err(bidi_err(
                                "a command",
                                format!(
                                    "{}: {}",
                                    v["error"].as_str().unwrap_or("error"),
                                    v["message"].as_str().unwrap_or_default()
                                ),
                            ))
                        } else {
                            Ok(v["result"].clone())
                        });
                    }
                } else if v["type"] == "event" {
                    let Some(bidi) = weak.upgrade() else { break };
                    bidi.event(BidiEvent::parse(&v));
                }
            }
            // The socket closed: every caller still waiting learns it.
            for (_, reply) in waiting.lock().expect("bidi lock").drain() {
                let _ = reply.send(Err(BrowserError::Lost {
                    cause: "the WebDriver BiDi connection closed".into(),
                    during: "waiting for a BiDi answer".into(),
                    detail: String::new(),
                    location: None,
                }));
            }
        });
        // Both at once: neither waits on the other's answer.
        let every: Vec<&str> = EVENTS.iter().chain(&NAVIGATION_ENDS).copied().collect();
        let (subscribed, tree) = futures_util::future::join(
            bidi.command(&Subscribe { events: &every }),
            bidi.command(&GetTree {
                root: None,
                max_depth: 0,
            }),
        )
        .await;
        if subscribed.is_err() {
            // A remote end that does not know one of the ends of a
            // navigation: the events needed, then each end on its own.
            bidi.command(&Subscribe { events: &EVENTS }).await?;
            for end in NAVIGATION_ENDS {
                let _ = bidi.command(&Subscribe { events: &[end] }).await;
            }
        }
        *bidi.context.lock().expect("bidi lock") =
            tree?.contexts.into_iter().next().map(|c| c.context);
        Ok(bidi)
    }

    /// Sends a command and waits for its answer, both as JSON: only
    /// [`Bidi::command`] calls it, with the typed parameters of `protocol.rs`.
    async fn send(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        self.waiting.lock().expect("bidi lock").insert(id, tx);
        let msg = json!({"id": id, "method": method, "params": params}).to_string();
        if self.out.send(Message::text(msg)).is_err() {
            self.waiting.lock().expect("bidi lock").remove(&id);
            return Err(bidi_err(method, "the BiDi connection is closed"));
        }
        match rx.await {
            Ok(r) => r.map_err(|e| match e {
                BrowserError::Command { message, .. } => bidi_err(method, message),
                other => other,
            }),
            Err(_) => Err(bidi_err(method, "the BiDi connection closed")),
        }
    }

    /// Sends a typed command and reads its typed answer.
    pub(crate) async fn command<C: Command>(&self, params: &C) -> Result<C::Returns, BrowserError> {
        let method = C::METHOD;
        let params = serde_json::to_value(params)
            .map_err(|e| bidi_err(method, format!("encoding the parameters: {e}")))?;
        let answer = self.send(method, params).await?;
        serde_json::from_value(answer)
            .map_err(|e| bidi_err(method, format!("an answer of another shape: {e}")))
    }

    /// Navigates `context` (a top-level browsing context: the main window's
    /// or a popup's; WebDriver's window handles are BiDi's context ids) to
    /// `url`, or reloads it when `url` is `None`, and waits for its load
    /// event, as classic WebDriver's Navigate To and Refresh do.
    ///
    /// A blocked request of the document (the document itself, or a script
    /// or stylesheet that holds its load event) is settled by a BiDi command
    /// too: both go through this connection, which the reader task serves
    /// while the navigation waits.
    pub(crate) async fn navigate(
        &self,
        context: &str,
        url: Option<&str>,
        during: &str,
    ) -> Result<(), BrowserError> {
        let sent = match url {
            Some(url) => {
                let wait = Readiness::Complete;
                self.command(&Navigate { context, url, wait }).await
            }
            None => {
                let wait = Readiness::Complete;
                self.command(&Reload { context, wait }).await
            }
        };
        sent.map(|_| ()).map_err(|e| renamed(e, during))
    }

    /// Goes `delta` entries through `context`'s history (-1: back, 1:
    /// forward) and waits until that entry's document has loaded, as classic
    /// WebDriver's Back and Forward do; at either end of the history it does
    /// nothing, as they do.
    ///
    /// BiDi's `traverseHistory` does not wait for the load, so the document
    /// is marked first (a token in its window) and the traversal is over
    /// once a document without that token, or at another URL (an entry of
    /// the same document), is complete.
    pub(crate) async fn traverse(
        &self,
        context: &str,
        delta: i64,
        during: &str,
    ) -> Result<(), BrowserError> {
        let fail = |e: BrowserError| renamed(e, during);
        let token = format!("{:x}", self.next.load(Ordering::Relaxed) ^ now_nanos());
        let before = self
            .evaluate(
                context,
                &format!("(window.__hjTraversal = {token:?}, location.href)"),
            )
            .await
            .map_err(fail)?;
        match self.command(&TraverseHistory { context, delta }).await {
            Ok(_) => {}
            Err(BrowserError::Command { message, .. })
                if message.contains("no such history entry") =>
            {
                return Ok(());
            }
            Err(e) => return Err(fail(e)),
        }
        let done = format!(
            "(window.__hjTraversal !== {token:?} || location.href !== {before:?}) ? document.readyState : ''"
        );
        if self.until_complete(context, &done).await {
            return Ok(());
        }
        Err(BrowserError::Command {
            action: during.to_string(),
            message: format!(
                "the document did not finish loading in {} s",
                TRAVERSAL_LIMIT.as_secs()
            ),
        })
    }

    /// Whether `expression` in `context`'s document gives "complete" within
    /// [`TRAVERSAL_LIMIT`] (asked every 25 ms; an error is a context between
    /// two documents, asked again).
    pub(crate) async fn until_complete(&self, context: &str, expression: &str) -> bool {
        let deadline = tokio::time::Instant::now() + TRAVERSAL_LIMIT;
        while tokio::time::Instant::now() < deadline && self.is_open() {
            if let Ok(state) = self.evaluate(context, expression).await
                && state == "complete"
            {
                return true;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        false
    }

    /// `expression`'s value in `context`'s document, as a string (empty for
    /// a value that is not one).
    pub(crate) async fn evaluate(
        &self,
        context: &str,
        expression: &str,
    ) -> Result<String, BrowserError> {
        let r: ScriptResult = self
            .command(&Evaluate {
                expression,
                target: ContextTarget { context },
                await_promise: false,
                result_ownership: Ownership::None,
            })
            .await?;
        match r {
            ScriptResult::Success {
                result: RemoteValue::String { value },
            } => Ok(value),
            ScriptResult::Success { .. } => Ok(String::new()),
            ScriptResult::Exception { exception_details } => Err(bidi_err(
                "script.evaluate",
                if exception_details.text.is_empty() {
                    "the script threw".to_string()
                } else {
                    exception_details.text
                },
            )),
        }
    }

    /// `expression`'s value (a string) in `context`'s document, failing as
    /// what was being done (`during`).
    pub(crate) async fn read(
        &self,
        context: &str,
        expression: &str,
        during: &str,
    ) -> Result<String, BrowserError> {
        self.evaluate(context, expression)
            .await
            .map_err(|e| renamed(e, during))
    }

    /// One round trip through `context`'s renderer, bounded at a second: the
    /// events its document sent before it have arrived when it returns.
    pub(crate) async fn flush(&self, context: &str) {
        let _ = tokio::time::timeout(
            std::time::Duration::from_secs(1),
            self.evaluate(context, "0"),
        )
        .await;
    }

    /// The navigation of `context` under way (started, its document not yet
    /// loaded), if any.
    fn under_way(&self, context: &str) -> Option<String> {
        self.navigating
            .lock()
            .expect("bidi lock")
            .get(context)
            .cloned()
    }

    /// Waits, up to [`SETTLE_LIMIT`], until a navigation of `context` under
    /// way has reached its new document (DOMContentLoaded), or ended without
    /// one (aborted, failed, a download, a fetch error of its document, a
    /// fragment navigation, the context closed): a read of the page after it
    /// reads the document the navigation brings, not the one it leaves.
    ///
    /// Nothing is held meanwhile: a route's answer to the document's requests
    /// is given by the reader task, which keeps serving the socket. A
    /// navigation that never told its end is forgotten after the limit, so
    /// it holds one read, not every one.
    pub(crate) async fn settle(&self, context: &str) {
        self.settle_within(context, SETTLE_LIMIT).await;
    }

    /// [`Bidi::settle`] waiting at most `limit`.
    async fn settle_within(&self, context: &str, limit: std::time::Duration) {
        let mut news = self.lifecycle.subscribe();
        // The events the page sent before this read (a click's navigation
        // start) come first.
        self.flush(context).await;
        let deadline = tokio::time::Instant::now() + limit;
        while let Some(navigation) = self.under_way(context) {
            if !self.is_open() {
                return;
            }
            use tokio::sync::broadcast::error::RecvError;
            match tokio::time::timeout_at(deadline, news.recv()).await {
                Ok(Ok(_) | Err(RecvError::Lagged(_))) => {}
                Ok(Err(RecvError::Closed)) => return,
                Err(_) => {
                    let mut navigating = self.navigating.lock().expect("bidi lock");
                    if navigating.get(context) == Some(&navigation) {
                        navigating.remove(context);
                    }
                    return;
                }
            }
        }
    }

    /// The URL of `context`'s current document, as classic Get Current URL
    /// gives it: the document's own `document.URL`. The context's URL in
    /// `browsingContext.getTree` can lag behind: Chromium's mapper learns it
    /// from a later event, so right after a form's submission to a routed
    /// document it still named the form's page while the new document's title
    /// was already read. getTree answers where the document runs no script.
    pub(crate) async fn url(&self, context: &str, during: &str) -> Result<String, BrowserError> {
        if let Ok(url) = self.evaluate(context, "document.URL").await {
            return Ok(url);
        }
        let tree: Tree = self
            .command(&GetTree {
                root: Some(context),
                max_depth: 0,
            })
            .await
            .map_err(|e| renamed(e, during))?;
        tree.contexts
            .into_iter()
            .find(|c| c.context == context)
            .map(|c| c.url)
            .ok_or_else(|| BrowserError::Command {
                action: during.to_string(),
                message: format!("no browsing context {context}"),
            })
    }

    /// A PNG of `context`'s viewport or whole document, or of `clip` of it
    /// (`browsingContext.captureScreenshot`).
    pub(crate) async fn capture(
        &self,
        context: &str,
        origin: Origin,
        clip: Option<BoxClip>,
        during: &str,
    ) -> Result<Vec<u8>, BrowserError> {
        use base64::Engine as _;
        let shot: Screenshot = self
            .command(&CaptureScreenshot {
                context,
                origin,
                clip,
            })
            .await
            .map_err(|e| renamed(e, during))?;
        base64::engine::general_purpose::STANDARD
            .decode(shot.data)
            .map_err(|e| BrowserError::Command {
                action: during.to_string(),
                message: format!("decoding the screenshot: {e}"),
            })
    }

    /// Calls `function` (a JavaScript function declaration) with the string
    /// `arg` in `context`'s document, awaiting the promise it returns, for up
    /// to `limit`. The answer: the JSON text the function returns, parsed;
    /// `{"window": id}` for a window it returns (an iframe's
    /// `contentWindow`: `id` is that frame's browsing context); null for
    /// null or undefined.
    ///
    /// A call must not outlive its document: a driver may never answer for
    /// a script whose document went away (geckodriver lost the callback of
    /// classic async scripts under load, answering only at the script
    /// timeout). So the call ends at once as a navigation (in
    /// [`super::wire::is_navigation`]'s words) when a navigation of the
    /// context that was under way when it was sent, or that started after,
    /// reaches DOMContentLoaded (the call's document is then gone), and when
    /// the context closes.
    pub(crate) async fn call_function(
        &self,
        context: &str,
        function: &str,
        arg: &str,
        limit: std::time::Duration,
        during: &str,
    ) -> Result<Value, BrowserError> {
        let mut news = self.lifecycle.subscribe();
        let mut under_way: Vec<String> = self
            .navigating
            .lock()
            .expect("bidi lock")
            .get(context)
            .cloned()
            .into_iter()
            .collect();
        let fail = |message: String| BrowserError::Command {
            action: during.to_string(),
            message,
        };
        let params = CallFunction {
            function_declaration: function,
            arguments: vec![Argument::Value(LocalValue::String { value: arg })],
            target: ContextTarget { context },
            await_promise: true,
            result_ownership: Ownership::None,
        };
        let call = self.command(&params);
        let gone = async {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                match news.recv().await {
                    Ok(Lifecycle::Started {
                        context: c,
                        navigation: n,
                        ..
                    }) if c == context => under_way.push(n),
                    Ok(Lifecycle::Loaded {
                        context: c,
                        navigation: n,
                        ..
                    }) if c == context && under_way.contains(&n) => {
                        return "a new document loaded";
                    }
                    Ok(Lifecycle::Destroyed(c)) if c == context => {
                        return "the browsing context was closed";
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => std::future::pending::<()>().await,
                }
            }
        };
        let r = tokio::select! {
            biased;
            r = call => r,
            why = gone => {
                return Err(fail(format!("document unloaded while waiting for result ({why})")));
            }
            _ = tokio::time::sleep(limit) => {
                return Err(fail(format!(
                    "the page did not answer in {} s",
                    limit.as_secs()
                )));
            }
        };
        let r = r.map_err(|e| match e {
            BrowserError::Command { message, .. } => fail(message),
            other => other,
        })?;
        let result = match r {
            ScriptResult::Success { result } => result,
            ScriptResult::Exception { exception_details } => {
                return Err(fail(format!(
                    "javascript error: {}",
                    if exception_details.text.is_empty() {
                        "the script threw"
                    } else {
                        &exception_details.text
                    }
                )));
            }
        };
        match result {
            RemoteValue::String { value } => serde_json::from_str(&value)
                .map_err(|e| fail(format!("the page answered no JSON ({e}): {value}"))),
            RemoteValue::Window { value } => Ok(json!({"window": value.context})),
            RemoteValue::Node { shared_id } => Ok(json!({"node": shared_id})),
            RemoteValue::Null | RemoteValue::Undefined => Ok(Value::Null),
            RemoteValue::Number { .. } | RemoteValue::Array { .. } | RemoteValue::Other => Err(
                fail("the page answered a value other than JSON text".to_string()),
            ),
        }
    }

    /// Makes `source` (the injected engine's installer) a preload script of
    /// the session, once: every new document, frames included, then has the
    /// engine before its own scripts run, and a call needs no second trip to
    /// install it. A refusal is left alone: each call installs it if missing.
    pub(crate) async fn ensure_preload(&self, source: &str) {
        self.preloaded
            .get_or_init(|| async {
                let script = AddPreloadScript {
                    function_declaration: format!("function () {{\n{source}\n}}"),
                    contexts: None,
                    user_contexts: None,
                };
                let _ = self.command(&script).await;
            })
            .await;
    }

    /// Performs input actions (WebDriver's action sequences: a `key`,
    /// `pointer` or `wheel` source) in `context`, as classic Perform Actions
    /// does, without waiting for a navigation they start.
    pub(crate) async fn perform_actions(
        &self,
        context: &str,
        actions: Value,
        during: &str,
    ) -> Result<(), BrowserError> {
        let actions = PerformActions {
            context,
            actions: &actions,
        };
        self.command(&actions)
            .await
            .map(|_| ())
            .map_err(|e| renamed(e, during))
    }

    /// Sets the files of the `<input type=file>` `element` (a node's shared
    /// id) in `context`, as classic Element Send Keys does: `input` and
    /// `change` fire on it.
    pub(crate) async fn set_files(
        &self,
        context: &str,
        element: &str,
        files: &[String],
        during: &str,
    ) -> Result<(), BrowserError> {
        let params = SetFiles {
            context,
            element: SharedReference { shared_id: element },
            files,
        };
        self.command(&params)
            .await
            .map(|_| ())
            .map_err(|e| renamed(e, during))
    }

    /// `function` of `arguments` called in `context`'s document, its value
    /// serialised and no handle kept (a throw is the result's exception).
    async fn call_value(
        &self,
        context: &str,
        function: &str,
        arguments: Vec<Argument<'_>>,
        during: &str,
    ) -> Result<ScriptResult, BrowserError> {
        let params = CallFunction {
            function_declaration: function,
            arguments,
            target: ContextTarget { context },
            await_promise: false,
            result_ownership: Ownership::None,
        };
        self.command(&params).await.map_err(|e| renamed(e, during))
    }

    /// The browsing context of the document the frame element `element` (a
    /// node's shared id in `context`) holds; `None` when it holds none (no
    /// `<iframe>` or `<frame>`).
    pub(crate) async fn content_context(
        &self,
        context: &str,
        element: &str,
        during: &str,
    ) -> Result<Option<String>, BrowserError> {
        let function = "function (el) { return el && el.contentWindow || null; }";
        let node = vec![Argument::Node(SharedReference { shared_id: element })];
        Ok(
            match self.call_value(context, function, node, during).await? {
                ScriptResult::Success {
                    result: RemoteValue::Window { value },
                } => Some(value.context),
                _ => None,
            },
        )
    }

    /// What `function` (of `arguments`) answers in `context`: a frame's
    /// window and the offset of its viewport in `context`'s (`[window, x,
    /// y]`), or anything else for none. Used to find the out-of-process
    /// frame input goes to (`backend/bidi/input.rs`).
    pub(crate) async fn frame_at(
        &self,
        context: &str,
        function: &str,
        arguments: Vec<Argument<'_>>,
        during: &str,
    ) -> Result<Option<(String, f64, f64)>, BrowserError> {
        let r = self
            .call_value(context, function, arguments, during)
            .await?;
        let ScriptResult::Success {
            result: RemoteValue::Array { value },
        } = r
        else {
            return Ok(None);
        };
        Ok(match value.as_slice() {
            [
                RemoteValue::Window { value: window },
                RemoteValue::Number { value: x },
                RemoteValue::Number { value: y },
            ] => Some((
                window.context.clone(),
                x.as_f64().unwrap_or(0.0),
                y.as_f64().unwrap_or(0.0),
            )),
            _ => None,
        })
    }

    /// Whether the connection is still open.
    pub(crate) fn is_open(&self) -> bool {
        !self.out.is_closed()
    }

    /// Back to a clean state for the next scenario: no routes, no route's
    /// intercept, no credentials, nothing logged.
    pub(crate) async fn reset(&self) {
        self.clear_routes().await;
        let _ = self.set_credentials(None).await;
        self.log.clear();
        self.dialogs.clear();
    }
}

#[cfg(test)]
mod fallback_tests {
    /// A remote end without BiDi is announced once per process, however many
    /// sessions fall back (each scenario's session used to be a candidate),
    /// and the notice names the remote end and what is lost.
    #[test]
    fn the_fallback_is_said_once_per_process() {
        assert!(super::announce_fallback("http://grid:4444"));
        assert!(!super::announce_fallback("http://grid:4444"));
        assert!(!super::announce_fallback("http://other:4444"));
        let notice = super::fallback_notice("http://grid:4444");
        for want in ["http://grid:4444", "devtools log", "routes"] {
            assert!(notice.contains(want), "{want} in {notice}");
        }
    }
}

#[cfg(test)]
mod call_tests;

#[cfg(test)]
mod protocol_tests;
