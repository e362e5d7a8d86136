//! One request paused by `Fetch` (`fetch.rs` decides when the pausing is on):
//! the page's routes run on it ([`Routes::run`]) and each verdict becomes
//! `Fetch.fulfillRequest`, `Fetch.failRequest` or `Fetch.continueRequest`;
//! and [`pause_requests`], the pausing turned on or off in one session (the
//! page's, or one of its out-of-process iframes'). Apart from `fetch.rs` so
//! that the page's event readers (`page.rs`) need no file that needs the page.

use std::future::Future;
use std::sync::Arc;

use base64::Engine as _;
use futures_util::future::Either;
use tokio::sync::mpsc;

use super::connection::{CdpError, Connection};
use super::protocol::{
    ContinueRequest, FailRequest, FetchDisable, FetchEnable, FulfillRequest, RequestPattern,
    RequestPaused, SessionId, SetCacheDisabled, header_entries, header_pairs,
};
use crate::browser::error::BrowserError;
use crate::browser::request::Request;
use crate::browser::routes::{Decision, Routes, Verdict};
use crate::browser::steplog::StepLog;

/// Every request, before it is sent.
const EVERY: &[RequestPattern] = &[RequestPattern {
    url_pattern: "*",
    request_stage: "Request",
}];

/// Turns the pausing of `session`'s requests on (`Fetch.enable` for every
/// request, before it is sent, navigations too; the cache off, so that each
/// request reaches the routes) or off again. Both commands go out at once,
/// when called (as `Connection::send`'s), before any sent after this call;
/// the future waits for their answers.
pub(super) fn pause_requests<'c>(
    connection: &'c Connection,
    session: &SessionId,
    on: bool,
) -> impl Future<Output = Result<(), CdpError>> + Send + use<'c> {
    let s = Some(session);
    let cache = connection.send(s, &SetCacheDisabled { cache_disabled: on });
    let fetch = if on {
        // Challenges too: the page's `http_credentials` answer them
        // (`emulate.rs`), else the browser's default.
        let enable = FetchEnable {
            patterns: EVERY,
            handle_auth_requests: true,
        };
        Either::Left(connection.send(s, &enable))
    } else {
        Either::Right(connection.send(s, &FetchDisable {}))
    };
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
