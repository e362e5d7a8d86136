//! The BiDi side of a page's routes (`routes.rs`): the intercepts that block
//! their requests (`network.addIntercept`, phase `beforeRequestSent`; which
//! route each is for), and the verdicts of their handlers carried out as
//! `network.provideResponse`, `failRequest` or `continueRequest`.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use tokio::sync::mpsc;

use super::Bidi;
use super::protocol::{
    AddIntercept, BytesValue, ContinueRequest, FailRequest, Header, Intercept, InterceptPhase,
    ProvideResponse, RemoveIntercept,
};
use super::protocol_events::RequestData;
use crate::error::BrowserError;
use crate::glob::UrlPattern;
use crate::request::Request;
use crate::routes::{Decision, Route, RouteId, Verdict};

/// The intercepts of a page's routes: route → its intercept, once BiDi has
/// named it.
#[derive(Default)]
pub(crate) struct Intercepts(Mutex<HashMap<RouteId, String>>);

impl Intercepts {
    fn take(&self, route: RouteId) -> Option<String> {
        self.0.lock().expect("intercepts lock").remove(&route)
    }
}

impl Bidi {
    /// Adds a route (the newest is asked first) with its intercept: only the
    /// URLs its pattern can match when BiDi can say which, else every request
    /// of the page's context.
    pub(crate) async fn route<F, Fut>(
        &self,
        pattern: UrlPattern,
        base: &str,
        handler: F,
    ) -> Result<(), BrowserError>
    where
        F: Fn(Route) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), BrowserError>> + Send + 'static,
    {
        let context = self.context.lock().expect("bidi lock").clone();
        let params = AddIntercept {
            phases: vec![InterceptPhase::BeforeRequestSent],
            contexts: context.map(|c| vec![c]),
            url_patterns: pattern.literal(base).map(|p| vec![p.into()]),
        };
        // Listed before its intercept exists (see `Routes::add`).
        let route = self.routes.add(pattern, base, handler);
        match self.command(&params).await {
            Ok(Intercept { intercept: id }) => {
                // Unrouted (or cleared) while its intercept was being added:
                // the intercept goes too.
                if !self.routes.is_listed(route) {
                    return remove_intercept(self, &id).await;
                }
                (self.intercepts.0.lock().expect("intercepts lock")).insert(route, id);
                Ok(())
            }
            Err(e) => {
                self.routes.withdraw(route);
                Err(e)
            }
        }
    }

    /// Removes the routes of `pattern` (written the same) and their
    /// intercepts. Returns how many were removed.
    pub(crate) async fn unroute(&self, pattern: &UrlPattern) -> Result<usize, BrowserError> {
        let removed = self.routes.remove(pattern);
        for route in &removed {
            if let Some(id) = self.intercepts.take(*route) {
                remove_intercept(self, &id).await?;
            }
        }
        Ok(removed.len())
    }

    /// Removes every route and its intercept.
    pub(crate) async fn clear_routes(&self) {
        for route in self.routes.clear() {
            if let Some(id) = self.intercepts.take(route) {
                let _ = remove_intercept(self, &id).await;
            }
        }
    }
}

/// Runs the routes on one blocked request (of a `network.beforeRequestSent`
/// event with `isBlocked`), carrying out each verdict as it comes; once the
/// routes are done, verdicts already sent are carried out and later ones
/// fail their handler's call (the request went on).
pub(crate) async fn handle(bidi: &Arc<Bidi>, blocked: &RequestData) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let run = bidi.routes.run(Request::from(blocked), &bidi.log, tx);
    tokio::pin!(run);
    loop {
        tokio::select! {
            biased;
            Some(d) = rx.recv() => carry_out(bidi, d).await,
            () = &mut run => break,
        }
    }
    while let Ok(d) = rx.try_recv() {
        carry_out(bidi, d).await;
    }
}

/// One verdict as its BiDi command; its outcome to the handler waiting.
async fn carry_out(bidi: &Bidi, d: Decision) {
    let request = d.request.as_str();
    let sent = match d.verdict {
        Verdict::Fulfill {
            status,
            reason,
            headers,
            body,
        } => {
            let provide = ProvideResponse {
                request,
                status_code: status,
                reason_phrase: &reason,
                headers: bidi_headers(&headers),
                body: BytesValue::Base64 {
                    value: base64::engine::general_purpose::STANDARD.encode(&body),
                },
            };
            bidi.command(&provide).await
        }
        Verdict::Abort => bidi.command(&FailRequest { request }).await,
        Verdict::Continue { headers } => {
            let params = ContinueRequest {
                request,
                headers: headers.as_deref().map(bidi_headers),
            };
            bidi.command(&params).await
        }
    };
    let _ = d.done.send(sent.map(|_| ()));
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

/// `network.removeIntercept` of the intercept `id`.
async fn remove_intercept(bidi: &Bidi, id: &str) -> Result<(), BrowserError> {
    bidi.command(&RemoveIntercept { intercept: id })
        .await
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::super::Bidi;
    use super::super::call_tests::{Out, fake_remote_end, top_tree};
    use super::UrlPattern;
    use crate::routes::Response;

    /// A remote end that answers as chromedriver's BiDi does, except that it
    /// blocks a request of the new intercept (its `beforeRequestSent` event)
    /// before it answers `network.addIntercept`, as a browser may when the
    /// page fetches at that moment. Returns its URL and the methods of the
    /// commands it got after the intercept.
    async fn remote_end() -> (String, tokio::sync::mpsc::UnboundedReceiver<String>) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let url = fake_remote_end(move |method, _| match method {
            "session.subscribe" => vec![Out::Answer(json!({}))],
            "browsingContext.getTree" => top_tree(),
            "network.addIntercept" => vec![
                Out::Event(
                    json!({"type": "event", "method": "network.beforeRequestSent",
                    "params": {"context": "top", "isBlocked": true, "timestamp": 1,
                        "redirectCount": 0, "intercepts": ["i1"],
                        "request": {"request": "r1", "url": "http://app.test/api/items",
                            "method": "GET", "headers": []}}}),
                ),
                Out::Pause(Duration::from_millis(100)),
                Out::Answer(json!({"intercept": "i1"})),
            ],
            other => {
                let _ = tx.send(other.to_string());
                vec![Out::Answer(json!({}))]
            }
        })
        .await;
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
        bidi.route(
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

    /// A route whose handler panics lets its request through
    /// (`continueRequest`) rather than leave it blocked. (The handler ran in
    /// the task of the event, which the panic ended: no command was sent,
    /// and the page's request waited until the page was closed.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_request_whose_handler_panics_is_continued() {
        let (url, mut commands) = remote_end().await;
        let bidi = Bidi::connect(&url).await.unwrap();
        bidi.route(
            UrlPattern::from("**/api/items"),
            "http://app.test",
            |_route| async move {
                if true {
                    panic!("a handler's bug");
                }
                Ok(())
            },
        )
        .await
        .unwrap();
        let first = tokio::time::timeout(Duration::from_secs(5), commands.recv())
            .await
            .expect("the blocked request is settled")
            .unwrap();
        assert_eq!(first, "network.continueRequest");
        let (console, _) = bidi.log.peek(true);
        assert!(
            console[0]
                .text
                .contains("the handler panicked: a handler's bug"),
            "{console:?}"
        );
    }

    /// A remote end whose `network.addIntercept` answers no intercept id.
    async fn nameless_intercept_end() -> String {
        fake_remote_end(|method, _| match method {
            "browsingContext.getTree" => top_tree(),
            _ => vec![Out::Answer(json!({}))],
        })
        .await
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
            .route(
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
