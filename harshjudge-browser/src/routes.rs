//! A page's routes, in no protocol's words: the routes
//! (`page.route(pattern, handler)`) run on the requests a backend blocks for
//! them. The newest route whose pattern matches gets the request as a
//! [`Route`] and fulfills it ([`Response`]), aborts it, continues it
//! (optionally with headers changed) or falls back to the next route; a
//! request no route settles continues as it was.
//!
//! A route holds no connection: its handler's decision goes to the backend
//! as a [`Decision`] ([`Verdict`] + a `oneshot` for the outcome) through the
//! channel [`Routes::run`] is given, and the backend carries it out in its
//! protocol (BiDi: `bidi/route.rs`, which also keeps the intercepts). A
//! handler that fails or panics is logged to the step's console and its
//! request continues; a decision the backend no longer takes fails the
//! handler's call with an error saying so, never a wait.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::FutureExt;
use tokio::sync::{mpsc, oneshot};

use super::error::BrowserError;
use super::glob::{Matcher, UrlPattern};
use super::logs::ConsoleEntry;
use super::request::Request;
use super::steplog::StepLog;

/// A response a route answers with instead of the server:
/// `Response::new().status(200).json(&value)`.
#[derive(Clone, Debug)]
pub struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    error: Option<String>,
}

impl Default for Response {
    fn default() -> Self {
        Response::new()
    }
}

impl Response {
    /// A 200 with no body.
    pub fn new() -> Response {
        Response {
            status: 200,
            headers: Vec::new(),
            body: Vec::new(),
            error: None,
        }
    }

    /// The HTTP status.
    pub fn status(mut self, status: u16) -> Response {
        self.status = status;
        self
    }

    /// A header (replacing one of the same name).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Response {
        let name = name.into();
        self.headers.retain(|(k, _)| !k.eq_ignore_ascii_case(&name));
        self.headers.push((name, value.into()));
        self
    }

    /// The `Content-Type` header.
    pub fn content_type(self, value: impl Into<String>) -> Response {
        self.header("Content-Type", value)
    }

    /// The body, as it is.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Response {
        self.body = body.into();
        self
    }

    /// `value` as a JSON body, with `Content-Type: application/json`.
    pub fn json<T: serde::Serialize + ?Sized>(mut self, value: &T) -> Response {
        match serde_json::to_vec(value) {
            Ok(b) => self.body = b,
            Err(e) => self.error = Some(format!("the JSON body could not be serialised: {e}")),
        }
        self.content_type("application/json")
    }
}

/// What a route's handler decided for its request, for the backend to carry
/// out in its protocol.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Answer with this response; the server is not asked (`Content-Length`
    /// is among the headers).
    Fulfill {
        status: u16,
        /// The status's canonical reason phrase ("" for an unknown status).
        reason: String,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Fail the request as a network error would.
    Abort,
    /// Send it on to the server, with all its headers replaced when given.
    Continue {
        headers: Option<Vec<(String, String)>>,
    },
}

/// A [`Verdict`] on the request `request` (its id), and where the backend
/// says how carrying it out went.
#[derive(Debug)]
pub(crate) struct Decision {
    pub(crate) request: String,
    pub(crate) verdict: Verdict,
    pub(crate) done: oneshot::Sender<Result<(), BrowserError>>,
}

/// A boxed route handler.
type Handler = Arc<
    dyn Fn(Route) -> Pin<Box<dyn Future<Output = Result<(), BrowserError>> + Send>> + Send + Sync,
>;

/// The id of one route of a page (a backend keeps its intercept under it).
pub(crate) type RouteId = u64;

struct Entry {
    id: RouteId,
    pattern: UrlPattern,
    matcher: Matcher,
    handler: Handler,
}

/// A page's routes, newest last.
#[derive(Default)]
pub(crate) struct Routes {
    list: Mutex<Vec<Arc<Entry>>>,
    next: AtomicU64,
}

/// What a handler did with its route.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Settled {
    Open,
    Fallback,
    Done,
}

/// One intercepted request, handed to a route's handler: settle it with
/// [`fulfill`](Route::fulfill), [`abort`](Route::abort),
/// [`continue_`](Route::continue_) or pass it on with [`fallback`](Route::fallback).
/// A handler that does none of these falls back too.
#[derive(Clone)]
pub struct Route {
    request: Request,
    settled: Arc<Mutex<Settled>>,
    log: Arc<StepLog>,
    verdicts: mpsc::UnboundedSender<Decision>,
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Route")
            .field("request", &self.request)
            .finish()
    }
}

impl Route {
    /// The request intercepted.
    pub fn request(&self) -> &Request {
        &self.request
    }

    fn settle(&self, how: &'static str) -> Result<(), BrowserError> {
        let mut s = self.settled.lock().expect("route lock");
        if *s == Settled::Done {
            return Err(BrowserError::Invalid {
                message: format!(
                    "the route of {} was already settled: fulfill, abort or continue it once",
                    self.request.url
                ),
                location: None,
            });
        }
        *s = Settled::Done;
        drop(s);
        self.log.mark(&self.request.id, how);
        Ok(())
    }

    /// Hands `verdict` to the backend and waits until it has carried it out.
    async fn decide(&self, verdict: Verdict) -> Result<(), BrowserError> {
        let (done, outcome) = oneshot::channel();
        let decision = Decision {
            request: self.request.id.clone(),
            verdict,
            done,
        };
        let gone = || {
            BrowserError::Lost {
            cause: "the browser's side of the route no longer answers (the page closed, or the request was already let through: settle a route before its handler returns)".into(),
            during: format!("settling the route of {}", self.request.url),
            detail: String::new(),
            location: None,
        }
        };
        self.verdicts.send(decision).map_err(|_| gone())?;
        outcome.await.map_err(|_| gone())?
    }

    /// Answers the request with `response`; the server is not asked.
    pub async fn fulfill(&self, response: Response) -> Result<(), BrowserError> {
        if let Some(e) = response.error {
            return Err(BrowserError::Invalid {
                message: format!("fulfilling {}: {e}", self.request.url),
                location: None,
            });
        }
        self.settle("fulfilled")?;
        let reason = http::StatusCode::from_u16(response.status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("");
        let mut headers = response.headers;
        if !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        {
            headers.push(("Content-Length".into(), response.body.len().to_string()));
        }
        self.decide(Verdict::Fulfill {
            status: response.status,
            reason: reason.to_string(),
            headers,
            body: response.body,
        })
        .await
    }

    /// Fails the request as a network error would.
    pub async fn abort(&self) -> Result<(), BrowserError> {
        self.settle("aborted")?;
        self.decide(Verdict::Abort).await
    }

    /// Sends the request on to the server; `.header(k, v)` changes it first.
    /// Await the returned [`Continue`].
    pub fn continue_(&self) -> Continue {
        Continue {
            route: self.clone(),
            headers: Vec::new(),
        }
    }

    /// Leaves the request to the next matching route (older), or to the server
    /// when there is none.
    pub async fn fallback(&self) -> Result<(), BrowserError> {
        let mut s = self.settled.lock().expect("route lock");
        if *s == Settled::Open {
            *s = Settled::Fallback;
        }
        Ok(())
    }
}

/// A request being continued ([`Route::continue_`]), with its changes.
#[derive(Debug)]
#[must_use = "a Continue does nothing until awaited"]
pub struct Continue {
    route: Route,
    headers: Vec<(String, String)>,
}

impl Continue {
    /// Sets a header of the request (replacing one of the same name).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Continue {
        self.headers.push((name.into(), value.into()));
        self
    }
}

impl IntoFuture for Continue {
    type Output = Result<(), BrowserError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let Continue { route, headers } = self;
            route.settle("continued")?;
            let headers = (!headers.is_empty()).then(|| {
                let mut all = route.request.headers.clone();
                for (k, v) in headers {
                    all.retain(|(n, _)| !n.eq_ignore_ascii_case(&k));
                    all.push((k, v));
                }
                all
            });
            route.decide(Verdict::Continue { headers }).await
        })
    }
}

impl Routes {
    /// Whether the page has no route (so no request of it is ever blocked).
    pub(crate) fn is_empty(&self) -> bool {
        self.list.lock().expect("routes lock").is_empty()
    }

    /// Lists a route (the newest is asked first), before the backend's
    /// intercept for it exists: a request the intercept blocks as soon as it
    /// is added then finds its route, rather than none.
    pub(crate) fn add<F, Fut>(&self, pattern: UrlPattern, base: &str, handler: F) -> RouteId
    where
        F: Fn(Route) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), BrowserError>> + Send + 'static,
    {
        let handler: Handler = Arc::new(move |r| Box::pin(handler(r)));
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let entry = Arc::new(Entry {
            id,
            matcher: pattern.matcher(base),
            pattern,
            handler,
        });
        self.list.lock().expect("routes lock").push(entry);
        id
    }

    /// Whether the route `id` is still listed.
    pub(crate) fn is_listed(&self, id: RouteId) -> bool {
        (self.list.lock().expect("routes lock").iter()).any(|e| e.id == id)
    }

    /// Takes the route `id` off the list (its intercept could not be added).
    pub(crate) fn withdraw(&self, id: RouteId) {
        self.list
            .lock()
            .expect("routes lock")
            .retain(|e| e.id != id);
    }

    /// Removes the routes of `pattern` (written the same); their ids.
    pub(crate) fn remove(&self, pattern: &UrlPattern) -> Vec<RouteId> {
        let mut list = self.list.lock().expect("routes lock");
        let (gone, kept): (Vec<_>, Vec<_>) = list.drain(..).partition(|e| e.pattern.same(pattern));
        *list = kept;
        gone.iter().map(|e| e.id).collect()
    }

    /// Removes every route; their ids.
    pub(crate) fn clear(&self) -> Vec<RouteId> {
        let all = self
            .list
            .lock()
            .expect("routes lock")
            .drain(..)
            .collect::<Vec<_>>();
        all.iter().map(|e| e.id).collect()
    }

    /// Runs the routes on one blocked request: newest first, until one
    /// settles it; each handler's verdict goes to `verdicts`. A request no
    /// route settles continues unchanged (a last `Continue` verdict). A
    /// handler's error or panic is logged to the step's console (level
    /// `error`, naming the route) and the request continues as it was.
    pub(crate) async fn run(
        &self,
        request: Request,
        log: &Arc<StepLog>,
        verdicts: mpsc::UnboundedSender<Decision>,
    ) {
        let routes: Vec<Arc<Entry>> = self
            .list
            .lock()
            .expect("routes lock")
            .iter()
            .rev()
            .filter(|e| e.matcher.is_match(&request.url))
            .cloned()
            .collect();
        for entry in routes {
            let settled = Arc::new(Mutex::new(Settled::Open));
            let route = Route {
                request: request.clone(),
                settled: settled.clone(),
                log: log.clone(),
                verdicts: verdicts.clone(),
            };
            let handler = entry.handler.clone();
            let outcome = std::panic::AssertUnwindSafe(async move { handler(route).await })
                .catch_unwind()
                .await;
            let state = *settled.lock().expect("route lock");
            let failure = match outcome {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e.to_string()),
                Err(panic) => Some(format!("the handler panicked: {}", panic_text(&*panic))),
            };
            if let Some(e) = failure {
                log.console(ConsoleEntry {
                    level: "error".into(),
                    text: format!("route {} on {}: {e}", entry.pattern, request.url),
                    source: "console-api".into(),
                    url: None,
                    line: None,
                    timestamp: now_ms(),
                });
                // Never leave a request blocked: if the handler's own command
                // failed, let it through as it was (an error if it is gone).
                break;
            }
            if state == Settled::Done {
                return;
            }
        }
        let (done, _) = oneshot::channel();
        let _ = verdicts.send(Decision {
            request: request.id.clone(),
            verdict: Verdict::Continue { headers: None },
            done,
        });
    }
}

/// The message of a panic's payload.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "(no message)".to_string(),
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use super::*;

    fn request() -> Request {
        Request {
            id: "r1".into(),
            url: "http://app.test/api/items".into(),
            method: "GET".into(),
            headers: vec![("Accept".into(), "*/*".into())],
        }
    }

    /// Runs `routes` on [`request`] against a backend that answers each
    /// verdict with `answer` (as `bidi/route.rs::handle` carries them out),
    /// within 5 s (a hang fails): the verdicts it got, in order.
    async fn drive(
        routes: &Routes,
        log: &Arc<StepLog>,
        answer: impl Fn(&Verdict) -> Result<(), BrowserError>,
    ) -> Vec<Verdict> {
        let (tx, mut rx) = mpsc::unbounded_channel::<Decision>();
        let mut got = Vec::new();
        let run = routes.run(request(), log, tx);
        tokio::pin!(run);
        let backend = async {
            loop {
                tokio::select! {
                    biased;
                    Some(d) = rx.recv() => {
                        assert_eq!(d.request, "r1");
                        let _ = d.done.send(answer(&d.verdict));
                        got.push(d.verdict);
                    }
                    () = &mut run => break,
                }
            }
            while let Ok(d) = rx.try_recv() {
                got.push(d.verdict);
            }
        };
        tokio::time::timeout(Duration::from_secs(5), backend)
            .await
            .expect("the routes finished (no hang)");
        got
    }

    fn errors(log: &StepLog) -> Vec<String> {
        let (console, _) = log.peek(true);
        console.into_iter().map(|c| c.text).collect()
    }

    /// A handler's fulfill reaches the backend as a verdict with the status,
    /// its reason, the headers (Content-Length added) and the body, and the
    /// backend's outcome reaches the handler; the request is marked.
    #[tokio::test]
    async fn a_handlers_verdict_reaches_the_backend_and_its_outcome_the_handler() {
        let routes = Routes::default();
        let saw_ok = Arc::new(AtomicBool::new(false));
        let saw = saw_ok.clone();
        routes.add("**/api/items".into(), "http://app.test", move |route| {
            let saw = saw.clone();
            async move {
                let r = route
                    .fulfill(Response::new().status(201).json(&["x"]))
                    .await;
                saw.store(r.is_ok(), Ordering::SeqCst);
                r
            }
        });
        let log = Arc::new(StepLog::default());
        let got = drive(&routes, &log, |_| Ok(())).await;
        assert_eq!(
            got,
            [Verdict::Fulfill {
                status: 201,
                reason: "Created".into(),
                headers: vec![
                    ("Content-Type".into(), "application/json".into()),
                    ("Content-Length".into(), "5".into()),
                ],
                body: b"[\"x\"]".to_vec(),
            }]
        );
        assert!(saw_ok.load(Ordering::SeqCst), "the handler got Ok");
        assert!(errors(&log).is_empty());
    }

    /// The backend's failure comes back to the handler as its error, which
    /// is logged, and the request is then let through as it was.
    #[tokio::test]
    async fn a_verdict_the_backend_fails_fails_the_handler_and_the_request_continues() {
        let routes = Routes::default();
        routes.add("**/api/*".into(), "http://app.test", |route| async move {
            route.abort().await
        });
        let log = Arc::new(StepLog::default());
        let got = drive(&routes, &log, |v| match v {
            Verdict::Abort => Err(BrowserError::Command {
                action: "network.failRequest".into(),
                message: "no such request".into(),
            }),
            _ => Ok(()),
        })
        .await;
        assert_eq!(got, [Verdict::Abort, Verdict::Continue { headers: None }]);
        let errors = errors(&log);
        assert!(
            errors.len() == 1
                && errors[0].contains("route \"**/api/*\" on http://app.test/api/items")
                && errors[0].contains("no such request"),
            "{errors:?}"
        );
    }

    /// A handler that panics is logged, naming the route and the panic, and
    /// its request continues unchanged; the routes do not hang on it.
    #[tokio::test]
    async fn a_panicking_handler_is_logged_and_its_request_continues() {
        let routes = Routes::default();
        routes.add(
            "**/api/items".into(),
            "http://app.test",
            |_route| async move {
                if true {
                    panic!("boom");
                }
                Ok(())
            },
        );
        let log = Arc::new(StepLog::default());
        let got = drive(&routes, &log, |_| Ok(())).await;
        assert_eq!(got, [Verdict::Continue { headers: None }]);
        let errors = errors(&log);
        assert!(
            errors.len() == 1 && errors[0].contains("the handler panicked: boom"),
            "{errors:?}"
        );
    }

    /// A verdict the backend no longer takes (its side gone, or the request
    /// already let through), or takes and never answers, fails the
    /// handler's call at once with an error saying so, never a wait.
    #[tokio::test]
    async fn a_verdict_nobody_carries_out_fails_the_call_at_once() {
        let log = Arc::new(StepLog::default());
        let (tx, rx) = mpsc::unbounded_channel::<Decision>();
        let route = Route {
            request: request(),
            settled: Arc::new(Mutex::new(Settled::Open)),
            log: log.clone(),
            verdicts: tx,
        };
        drop(rx);
        let e = tokio::time::timeout(Duration::from_secs(5), route.abort())
            .await
            .expect("no hang")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no longer answers") && e.contains("http://app.test/api/items"),
            "{e}"
        );
        // Taken, then dropped unanswered.
        let (tx, mut rx) = mpsc::unbounded_channel::<Decision>();
        let route = Route {
            request: request(),
            settled: Arc::new(Mutex::new(Settled::Open)),
            log,
            verdicts: tx,
        };
        tokio::spawn(async move { drop(rx.recv().await) });
        let e = tokio::time::timeout(Duration::from_secs(5), route.continue_().into_future())
            .await
            .expect("no hang")
            .unwrap_err();
        assert!(matches!(e, BrowserError::Lost { .. }), "{e}");
    }

    /// The newest route falls back, the older continues the request with a
    /// header changed: one verdict, the request's headers with the change.
    #[tokio::test]
    async fn a_fallback_goes_to_the_older_route() {
        let routes = Routes::default();
        routes.add("**/api/*".into(), "http://app.test", |route| async move {
            route.continue_().header("accept", "text/plain").await
        });
        routes.add("**/items".into(), "http://app.test", |route| async move {
            route.fallback().await
        });
        let log = Arc::new(StepLog::default());
        let got = drive(&routes, &log, |_| Ok(())).await;
        assert_eq!(
            got,
            [Verdict::Continue {
                headers: Some(vec![("accept".into(), "text/plain".into())])
            }]
        );
    }
}
