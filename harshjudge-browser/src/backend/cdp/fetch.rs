//! A page's routes (`routes.rs`) over the `Fetch` domain, as Playwright's
//! `crNetworkManager.ts`: while the page has a route, `Fetch.enable` pauses
//! every request of its session before it is sent (navigations too) and the
//! cache is off (so each request reaches the routes); with none, `Fetch`
//! handles the authentication challenges alone again (`intercept.rs`). The same holds in each out-of-process iframe's session (a
//! target of its own): those attached when the routes change are changed
//! with the page, and one attached later starts paused when the page has a
//! route (`page.rs`, `attach_child`). Each `Fetch.requestPaused` runs the routes ([`Routes::run`])
//! and their handlers' verdicts become `Fetch.fulfillRequest` (status,
//! headers, the body in base64), `Fetch.failRequest` or
//! `Fetch.continueRequest` (headers changed when given); a request no route
//! settles continues. A verdict that comes after the routes are done (its
//! request went on) fails its handler's call, saying so.

use std::future::Future;
use std::sync::Arc;

use super::connection::CdpError;
use super::intercept;
use super::page::CdpPage;
use crate::error::BrowserError;
use crate::glob::UrlPattern;
use crate::routes::{Route, Routes};

impl CdpPage {
    /// The page's routes; [`CdpPage::sync_routes`] after changing them.
    pub(crate) fn routes(&self) -> &Arc<Routes> {
        &self.shared.routes
    }

    /// Keeps `Fetch` in step with the routes: every request paused while
    /// there is a route, the challenges alone when there is none.
    pub(crate) async fn sync_routes(&self) -> Result<(), CdpError> {
        let mut on = self.fetch_on.lock().await;
        let want = self.shared.wants_fetch();
        if *on == want {
            return Ok(());
        }
        intercept::pause_requests(&self.connection, &self.session, want).await?;
        // An iframe's session that went meanwhile fails its commands: it
        // has no requests left to pause.
        let children = self.shared.child_sessions();
        let each = children
            .iter()
            .map(|child| intercept::pause_requests(&self.connection, child, want));
        futures_util::future::join_all(each).await;
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

#[cfg(test)]
#[path = "fetch_tests.rs"]
mod tests;
