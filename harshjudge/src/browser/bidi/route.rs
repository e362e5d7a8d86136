//! Network control: a page's routes (`page.route(pattern, handler)`) run on
//! the requests BiDi blocks for them (`network.addIntercept`, phase
//! `beforeRequestSent`). The newest route whose pattern matches gets the
//! request as a [`Route`] and fulfills it ([`Response`]), aborts it,
//! continues it (optionally with headers changed) or falls back to the next
//! route; a request no route settles continues as it was.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use base64::Engine as _;

use super::Bidi;
use super::protocol::{
    AddIntercept, BytesValue, ContinueRequest, FailRequest, Header, Intercept, InterceptPhase,
    ProvideResponse, RemoveIntercept,
};
use super::protocol_events::RequestData;
use crate::browser::error::BrowserError;
use crate::browser::glob::{Matcher, UrlPattern};
use crate::browser::logs::ConsoleEntry;
use crate::browser::routes::Request;
use serde::de::IgnoredAny;

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

/// A boxed route handler.
type Handler = Arc<
    dyn Fn(Route) -> Pin<Box<dyn Future<Output = Result<(), BrowserError>> + Send>> + Send + Sync,
>;

struct Entry {
    pattern: UrlPattern,
    matcher: Matcher,
    handler: Handler,
    /// The BiDi intercept that blocks its requests, once BiDi has named it.
    intercept: Mutex<Option<String>>,
}

impl Entry {
    fn intercept(&self) -> Option<String> {
        self.intercept.lock().expect("route lock").clone()
    }
}

/// A page's routes, newest last, each with the intercept that feeds it.
#[derive(Default)]
pub(crate) struct Routes {
    list: Mutex<Vec<Arc<Entry>>>,
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
    bidi: Arc<Bidi>,
    request: Request,
    settled: Arc<Mutex<Settled>>,
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
        self.bidi.log.mark(&self.request.id, how);
        Ok(())
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
        let provide = ProvideResponse {
            request: &self.request.id,
            status_code: response.status,
            reason_phrase: reason,
            headers: bidi_headers(&headers),
            body: BytesValue::Base64 {
                value: base64::engine::general_purpose::STANDARD.encode(&response.body),
            },
        };
        self.bidi
            .command::<_, IgnoredAny>("network.provideResponse", &provide)
            .await
            .map(|_| ())
    }

    /// Fails the request as a network error would.
    pub async fn abort(&self) -> Result<(), BrowserError> {
        self.settle("aborted")?;
        let fail = FailRequest {
            request: &self.request.id,
        };
        self.bidi
            .command::<_, IgnoredAny>("network.failRequest", &fail)
            .await
            .map(|_| ())
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
            let mut params = ContinueRequest {
                request: &route.request.id,
                headers: None,
            };
            if !headers.is_empty() {
                let mut all = route.request.headers.clone();
                for (k, v) in headers {
                    all.retain(|(n, _)| !n.eq_ignore_ascii_case(&k));
                    all.push((k, v));
                }
                params.headers = Some(bidi_headers(&all));
            }
            route
                .bidi
                .command::<_, IgnoredAny>("network.continueRequest", &params)
                .await
                .map(|_| ())
        })
    }
}

/// Pairs as BiDi headers.
fn bidi_headers(h: &[(String, String)]) -> Vec<Header> {
    h.iter()
        .map(|(k, v)| Header {
            name: k.clone(),
            value: BytesValue::String { value: v.clone() },
        })
        .collect()
}

impl Routes {
    /// Whether the page has no route (so no request of it is ever blocked).
    pub(crate) fn is_empty(&self) -> bool {
        self.list.lock().expect("routes lock").is_empty()
    }

    /// Whether a route of the page matches `url`.
    pub(crate) fn matches(&self, url: &str) -> bool {
        self.list
            .lock()
            .expect("routes lock")
            .iter()
            .any(|e| e.matcher.is_match(url))
    }

    /// Adds a route (the newest is asked first) with its intercept: only the
    /// URLs its pattern can match when BiDi can say which, else every request
    /// of the page's context.
    pub(crate) async fn add<F, Fut>(
        &self,
        bidi: &Bidi,
        pattern: UrlPattern,
        base: &str,
        handler: F,
    ) -> Result<(), BrowserError>
    where
        F: Fn(Route) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), BrowserError>> + Send + 'static,
    {
        let handler: Handler = Arc::new(move |r| Box::pin(handler(r)));
        let context = bidi.context.lock().expect("bidi lock").clone();
        let params = AddIntercept {
            phases: vec![InterceptPhase::BeforeRequestSent],
            contexts: context.map(|c| vec![c]),
            url_patterns: pattern.literal(base).map(|p| vec![p.into()]),
        };
        // In the list before its intercept exists: a request the intercept
        // blocks as soon as BiDi has added it (before this task runs again)
        // finds its route, rather than none and going through unrouted.
        let entry = Arc::new(Entry {
            matcher: pattern.matcher(base),
            pattern,
            handler,
            intercept: Mutex::new(None),
        });
        self.list.lock().expect("routes lock").push(entry.clone());
        match bidi
            .command::<_, Intercept>("network.addIntercept", &params)
            .await
        {
            Ok(Intercept { intercept: id }) => {
                *entry.intercept.lock().expect("route lock") = Some(id.clone());
                // Unrouted (or cleared) while its intercept was being added:
                // the intercept goes too.
                let listed =
                    (self.list.lock().expect("routes lock").iter()).any(|e| Arc::ptr_eq(e, &entry));
                if !listed {
                    remove_intercept(bidi, &id).await?;
                }
                Ok(())
            }
            Err(e) => {
                self.list
                    .lock()
                    .expect("routes lock")
                    .retain(|e| !Arc::ptr_eq(e, &entry));
                Err(e)
            }
        }
    }

    /// Removes the routes of `pattern` (written the same) and their intercepts.
    /// Returns how many were removed.
    pub(crate) async fn remove(
        &self,
        bidi: &Bidi,
        pattern: &UrlPattern,
    ) -> Result<usize, BrowserError> {
        let removed: Vec<Arc<Entry>> = {
            let mut list = self.list.lock().expect("routes lock");
            let (gone, kept) = list.drain(..).partition(|e| e.pattern.same(pattern));
            *list = kept;
            gone
        };
        for e in &removed {
            if let Some(id) = e.intercept() {
                remove_intercept(bidi, &id).await?;
            }
        }
        Ok(removed.len())
    }

    /// Removes every route and its intercept.
    pub(crate) async fn clear(&self, bidi: &Bidi) {
        let all: Vec<Arc<Entry>> = self.list.lock().expect("routes lock").drain(..).collect();
        for e in all {
            if let Some(id) = e.intercept() {
                let _ = remove_intercept(bidi, &id).await;
            }
        }
    }
}

/// Runs the routes on one blocked request (of a `network.beforeRequestSent`
/// event with `isBlocked`): newest first, until one settles it; a request no
/// route settles continues unchanged. A handler's error is logged to the
/// step's console (level `error`, naming the route) and the request continues.
pub(crate) async fn handle(bidi: &Arc<Bidi>, blocked: &RequestData) {
    let request = Request::from(blocked);
    let routes: Vec<Arc<Entry>> = bidi
        .routes
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
            bidi: bidi.clone(),
            request: request.clone(),
            settled: settled.clone(),
        };
        let outcome = (entry.handler)(route).await;
        let state = *settled.lock().expect("route lock");
        if let Err(e) = outcome {
            bidi.log.console(ConsoleEntry {
                level: "error".into(),
                text: format!("route {} on {}: {e}", entry.pattern, request.url),
                source: "console-api".into(),
                url: None,
                line: None,
                timestamp: now_ms(),
            });
            // Never leave a request blocked: if the handler's own command
            // failed, let it through as it was (an error if it is gone).
            let _ = continue_unchanged(bidi, &request.id).await;
            return;
        }
        if state == Settled::Done {
            return;
        }
    }
    let _ = continue_unchanged(bidi, &request.id).await;
}

/// `network.removeIntercept` of the intercept `id`.
async fn remove_intercept(bidi: &Bidi, id: &str) -> Result<(), BrowserError> {
    bidi.command::<_, IgnoredAny>(
        "network.removeIntercept",
        &RemoveIntercept { intercept: id },
    )
    .await
    .map(|_| ())
}

/// Lets the blocked request `id` through as it was.
async fn continue_unchanged(bidi: &Bidi, id: &str) -> Result<(), BrowserError> {
    let params = ContinueRequest {
        request: id,
        headers: None,
    };
    bidi.command::<_, IgnoredAny>("network.continueRequest", &params)
        .await
        .map(|_| ())
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
    use std::time::Duration;

    use futures_util::{SinkExt, StreamExt};
    use serde_json::{Value, json};
    use tokio_tungstenite::tungstenite::Message;

    use super::super::Bidi;
    use super::{Response, UrlPattern};

    /// A remote end that answers as chromedriver's BiDi does, except that it
    /// blocks a request of the new intercept (its `beforeRequestSent` event)
    /// before it answers `network.addIntercept`, as a browser may when the
    /// page fetches at that moment. Returns its URL and the methods of the
    /// commands it got after the intercept.
    async fn remote_end() -> (String, tokio::sync::mpsc::UnboundedReceiver<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
            while let Some(Ok(Message::Text(text))) = ws.next().await {
                let v: Value = serde_json::from_str(text.as_str()).unwrap();
                let method = v["method"].as_str().unwrap().to_string();
                let result = match method.as_str() {
                    "session.subscribe" => json!({}),
                    "browsingContext.getTree" => json!({"contexts": [{"context": "top"}]}),
                    "network.addIntercept" => {
                        let blocked = json!({"type": "event", "method": "network.beforeRequestSent",
                            "params": {"context": "top", "isBlocked": true, "timestamp": 1,
                                "redirectCount": 0, "intercepts": ["i1"],
                                "request": {"request": "r1", "url": "http://app.test/api/items",
                                    "method": "GET", "headers": []}}});
                        ws.send(Message::text(blocked.to_string())).await.unwrap();
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        json!({"intercept": "i1"})
                    }
                    other => {
                        let _ = tx.send(other.to_string());
                        json!({})
                    }
                };
                let reply = json!({"type": "success", "id": v["id"], "result": result});
                ws.send(Message::text(reply.to_string())).await.unwrap();
            }
        });
        (url, rx)
    }

    /// A request blocked by a route's intercept before `page.route` has
    /// returned goes to that route. (Its entry used to join the list only
    /// after BiDi answered, so such a request found no route and went
    /// through to the server unrouted: `continueRequest`, not `provideResponse`.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_request_blocked_before_route_returns_goes_to_the_route() {
        let (url, mut commands) = remote_end().await;
        let bidi = Bidi::connect(&url).await.unwrap();
        bidi.routes
            .add(
                &bidi,
                UrlPattern::from("**/api/items"),
                "http://app.test",
                |route| async move { route.fulfill(Response::new().json(&["stubbed"])).await },
            )
            .await
            .unwrap();
        let first = tokio::time::timeout(Duration::from_secs(5), commands.recv())
            .await
            .expect("the blocked request is settled")
            .unwrap();
        assert_eq!(first, "network.provideResponse");
    }

    /// A remote end whose `network.addIntercept` answers no intercept id.
    async fn nameless_intercept_end() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
            while let Some(Ok(Message::Text(text))) = ws.next().await {
                let v: Value = serde_json::from_str(text.as_str()).unwrap();
                let result = match v["method"].as_str().unwrap() {
                    "browsingContext.getTree" => json!({"contexts": [{"context": "top"}]}),
                    _ => json!({}),
                };
                let reply = json!({"type": "success", "id": v["id"], "result": result});
                ws.send(Message::text(reply.to_string())).await.unwrap();
            }
        });
        url
    }

    /// An intercept the remote end does not name could never be removed
    /// (its requests would stay blocked after `unroute`): `page.route`
    /// fails, naming the command and the missing field, and lists no route.
    /// (The answer was indexed for `intercept` and its absence ignored: the
    /// route was added without an intercept to remove.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_intercept_without_an_id_fails_the_route() {
        let bidi = Bidi::connect(&nameless_intercept_end().await)
            .await
            .unwrap();
        let e = bidi
            .routes
            .add(
                &bidi,
                UrlPattern::from("**/api/items"),
                "http://app.test",
                |route| async move { route.abort().await },
            )
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("network.addIntercept") && e.contains("intercept"),
            "{e}"
        );
        assert!(bidi.routes.is_empty());
    }
}
