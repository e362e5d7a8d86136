//! One request paused by `Fetch` (`fetch.rs` decides when the pausing is on):
//! the page's routes run on it ([`Routes::run`]) and each verdict becomes
//! `Fetch.fulfillRequest`, `Fetch.failRequest` or `Fetch.continueRequest`;
//! and [`pause_requests`], the pausing turned on or off in one session (the
//! page's, or one of its out-of-process iframes'). Off, `Fetch` still
//! pauses documents and scripts' requests, for their authentication
//! challenges ([`CHALLENGES_ONLY`]): with no one to answer it, Chromium's
//! (new) headless mode fails a challenged navigation with
//! `net::ERR_INVALID_AUTH_CREDENTIALS` instead of showing the server's 401
//! page, and leaves a challenged `fetch` waiting for ever (a headed one
//! opens a login prompt no scenario can answer); the page's `Auth`
//! (`credentials.rs`) answers each (`auth.rs`), cancelling it (the 401
//! shown) when the page has no credentials for it. Chromium hands over only
//! the challenges of requests it pauses before they are sent
//! (`Fetch.authRequired` needs a matching pattern of stage `Request`), so
//! those are paused (each continued at once); images, styles, scripts and
//! fonts are not (a challenge to one of those stays Chromium's). Apart from `fetch.rs` so that the page's event
//! readers (`page.rs`) need no file that needs the page.

use std::future::Future;
use std::sync::Arc;

use base64::Engine as _;
use tokio::sync::mpsc;

use super::connection::{CdpError, Connection};
use super::protocol::{
    ContinueRequest, FailRequest, FetchEnable, FulfillRequest, RequestPattern, RequestPaused,
    SessionId, SetCacheDisabled, header_entries, header_pairs,
};
use crate::error::BrowserError;
use crate::request::Request;
use crate::routes::{Decision, Routes, Verdict};
use crate::steplog::StepLog;

/// Every request, before it is sent.
const EVERY: &[RequestPattern] = &[RequestPattern {
    url_pattern: "*",
    resource_type: None,
    request_stage: "Request",
}];

/// Every document (a frame's navigation) and every script's request
/// (`fetch`, `XMLHttpRequest`, `EventSource`), before it is sent: those a
/// login prompt would otherwise take (a navigation failed, a script's
/// request left waiting).
const CHALLENGEABLE: &[RequestPattern] = &[
    RequestPattern {
        url_pattern: "*",
        resource_type: Some("Document"),
        request_stage: "Request",
    },
    RequestPattern {
        url_pattern: "*",
        resource_type: Some("XHR"),
        request_stage: "Request",
    },
    RequestPattern {
        url_pattern: "*",
        resource_type: Some("Fetch"),
        request_stage: "Request",
    },
    RequestPattern {
        url_pattern: "*",
        resource_type: Some("EventSource"),
        request_stage: "Request",
    },
];

/// `Fetch.enable` for the challenges: the documents and the scripts'
/// requests pause (no route: each continues at once) and their
/// challenges come as `Fetch.authRequired`.
pub(super) const CHALLENGES_ONLY: FetchEnable<'static> = FetchEnable {
    patterns: CHALLENGEABLE,
    handle_auth_requests: true,
};

/// Turns the pausing of `session`'s requests on (`Fetch.enable` for every
/// request, before it is sent, navigations too; the cache off, so that each
/// request reaches the routes) or off again (the challenges alone,
/// [`CHALLENGES_ONLY`], and the cache on). Both commands go out at once,
/// when called (as `Connection::send`'s), before any sent after this call;
/// the future waits for their answers.
pub(super) fn pause_requests<'c>(
    connection: &'c Connection,
    session: &SessionId,
    on: bool,
) -> impl Future<Output = Result<(), CdpError>> + Send + use<'c> {
    let s = Some(session);
    let cache = connection.send(s, &SetCacheDisabled { cache_disabled: on });
    // Challenges too, as when off.
    let enable = FetchEnable {
        patterns: if on { EVERY } else { CHALLENGEABLE },
        handle_auth_requests: true,
    };
    let fetch = connection.send(s, &enable);
    async move {
        let (cache, fetch) = tokio::join!(cache, fetch);
        cache.and(fetch).map(drop)
    }
}

/// Runs the routes on one paused request, carrying out each verdict as it
/// comes; once the routes are done, verdicts already sent are carried out
/// and later ones fail their handler's call (the request went on).
pub(super) async fn handle(
    connection: &Connection,
    session: &SessionId,
    routes: &Routes,
    log: &Arc<StepLog>,
    paused: RequestPaused,
) {
    let fetch_id = paused.request_id.as_str();
    // Named by its network id, as its `Network` events (and so its entry
    // and a route's mark on it) name it.
    let request = Request {
        id: paused.network_id.clone().unwrap_or_else(|| fetch_id.into()),
        url: paused.request.url.clone(),
        method: paused.request.method.clone(),
        headers: header_pairs(&paused.request.headers),
    };
    let (tx, mut rx) = mpsc::unbounded_channel();
    let run = routes.run(request, log, tx);
    tokio::pin!(run);
    loop {
        tokio::select! {
            biased;
            Some(d) = rx.recv() => carry_out(connection, session, fetch_id, d).await,
            () = &mut run => break,
        }
    }
    while let Ok(d) = rx.try_recv() {
        carry_out(connection, session, fetch_id, d).await;
    }
}

/// One verdict as its `Fetch` command; its outcome to the handler waiting.
async fn carry_out(connection: &Connection, session: &SessionId, request_id: &str, d: Decision) {
    let s = Some(session);
    let sent = match &d.verdict {
        Verdict::Fulfill {
            status,
            reason,
            headers,
            body,
        } => {
            let fulfill = FulfillRequest {
                request_id,
                response_code: *status,
                response_headers: header_entries(headers),
                body: base64::engine::general_purpose::STANDARD.encode(body),
                response_phrase: Some(reason.as_str()).filter(|r| !r.is_empty()),
            };
            connection.send(s, &fulfill).await
        }
        Verdict::Abort => {
            let fail = FailRequest {
                request_id,
                error_reason: "Failed",
            };
            connection.send(s, &fail).await
        }
        Verdict::Continue { headers } => {
            let go_on = ContinueRequest {
                request_id,
                headers: headers.as_deref().map(header_entries),
            };
            connection.send(s, &go_on).await
        }
    };
    let _ = d.done.send(sent.map(drop).map_err(BrowserError::from));
}
