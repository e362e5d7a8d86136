//! One request paused by `Fetch` (`fetch.rs` turns the pausing on and off):
//! the page's routes run on it ([`Routes::run`]) and each verdict becomes
//! `Fetch.fulfillRequest`, `Fetch.failRequest` or `Fetch.continueRequest`.
//! Apart from `fetch.rs` so that the page's event reader (`page.rs`) needs
//! no file that needs the page.

use std::sync::Arc;

use base64::Engine as _;
use tokio::sync::mpsc;

use super::connection::Connection;
use super::protocol::{
    ContinueRequest, FailRequest, FulfillRequest, RequestPaused, SessionId, header_entries,
    header_pairs,
};
use crate::browser::error::BrowserError;
use crate::browser::request::Request;
use crate::browser::routes::{Decision, Routes, Verdict};
use crate::browser::steplog::StepLog;

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
