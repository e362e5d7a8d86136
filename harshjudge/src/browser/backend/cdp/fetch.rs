//! A page's routes (`routes.rs`) over the `Fetch` domain, as Playwright's
//! `crNetworkManager.ts`: while the page has a route, `Fetch.enable` pauses
//! every request of its session before it is sent (navigations too) and the
//! cache is off (so each request reaches the routes); with none, `Fetch` is
//! off again. Each `Fetch.requestPaused` runs the routes ([`Routes::run`])
//! and their handlers' verdicts become `Fetch.fulfillRequest` (status,
//! headers, the body in base64), `Fetch.failRequest` or
//! `Fetch.continueRequest` (headers changed when given); a request no route
//! settles continues. A verdict that comes after the routes are done (its
//! request went on) fails its handler's call, saying so.

use std::future::Future;
use std::sync::Arc;

use base64::Engine as _;
use tokio::sync::mpsc;

use super::connection::{CdpError, Connection};
use super::page::CdpPage;
use super::protocol::{
    ContinueRequest, FailRequest, FetchDisable, FetchEnable, FulfillRequest, RequestPattern,
    RequestPaused, SessionId, SetCacheDisabled, header_entries, header_pairs,
};
use crate::browser::error::BrowserError;
use crate::browser::glob::UrlPattern;
use crate::browser::request::Request;
use crate::browser::routes::{Decision, Route, Routes, Verdict};
use crate::browser::steplog::StepLog;

impl CdpPage {
    /// The page's routes; [`CdpPage::sync_routes`] after changing them.
    pub(crate) fn routes(&self) -> &Arc<Routes> {
        &self.shared.routes
    }

    /// Keeps `Fetch` in step with the routes: on while there is one, off
    /// when there is none.
    pub(crate) async fn sync_routes(&self) -> Result<(), CdpError> {
        let mut on = self.fetch_on.lock().await;
        let want = !self.shared.routes.is_empty();
        if *on == want {
            return Ok(());
        }
        let (c, s) = (&self.connection, Some(&self.session));
        let patterns = [RequestPattern {
            url_pattern: "*",
            request_stage: "Request",
        }];
        let cache = c.send(
            s,
            &SetCacheDisabled {
                cache_disabled: want,
            },
        );
        let fetch = async {
            if want {
                c.send(
                    s,
                    &FetchEnable {
                        patterns: &patterns,
                    },
                )
                .await
            } else {
                c.send(s, &FetchDisable {}).await
            }
        };
        let (cache, fetch) = tokio::join!(cache, fetch);
        cache.and(fetch)?;
        *on = want;
        Ok(())
    }

    /// Adds a route (the newest is asked first) and turns `Fetch` on.
    pub(crate) async fn route<F, Fut>(
        &self,
        pattern: UrlPattern,
        base: &str,
        handler: F,
    ) -> Result<(), CdpError>
    where
        F: Fn(Route) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), BrowserError>> + Send + 'static,
    {
        // Listed before `Fetch` pauses anything (see `Routes::add`).
        let id = self.shared.routes.add(pattern, base, handler);
        if let Err(e) = self.sync_routes().await {
            self.shared.routes.withdraw(id);
            return Err(e);
        }
        Ok(())
    }

    /// Removes the routes of `pattern` (written the same); how many. `Fetch`
    /// goes off with the last.
    pub(crate) async fn unroute(&self, pattern: &UrlPattern) -> Result<usize, CdpError> {
        let removed = self.shared.routes.remove(pattern).len();
        self.sync_routes().await?;
        Ok(removed)
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

#[cfg(test)]
#[path = "fetch_tests.rs"]
mod tests;
