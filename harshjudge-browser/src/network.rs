//! The page's network control, Playwright's names: [`Page::route`],
//! [`Page::unroute`], [`Page::wait_for_request`], [`Page::wait_for_response`].
//! The page's backend runs them: over WebDriver they need BiDi (every local
//! chromedriver has it; on a remote end without it they fail, saying so).

use std::future::Future;
use std::panic::Location;

use super::backend::PageBackend;
use super::error::BrowserError;
use super::glob::UrlPattern;
use super::page::Page;
use super::request::{Request, ResponseInfo};
use super::routes::Route;
use super::steplog::Seen;

impl Page {
    /// Routes the page's requests whose URL matches `pattern` (a Playwright
    /// glob such as `"**/api/items"` or `"/api/*"`, joined to the base URL, or
    /// a [`Regex`](regex::Regex)) to `handler`, which settles each with
    /// [`Route::fulfill`], [`Route::abort`], [`Route::continue_`] or passes it
    /// on with [`Route::fallback`]. The newest matching route is asked first.
    /// Settled requests are marked in the step's `network.json`
    /// (`"intercepted": "fulfilled"`, `"aborted"`, `"continued"`).
    ///
    /// ```no_run
    /// # async fn f(page: harshjudge_browser::Page) -> Result<(), harshjudge_browser::BrowserError> {
    /// use harshjudge_browser::Response;
    /// page.route("**/api/items", |route| async move {
    ///     route.fulfill(Response::new().status(200).json(&["stubbed"])).await
    /// }).await?;
    /// # Ok(()) }
    /// ```
    #[track_caller]
    pub fn route<F, Fut>(
        &self,
        pattern: impl Into<UrlPattern>,
        handler: F,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_
    where
        F: Fn(Route) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), BrowserError>> + Send + 'static,
    {
        let at = Location::caller();
        let pattern = pattern.into();
        Box::pin(async move {
            self.backend()
                .route(pattern, self.base_url(), handler, at)
                .await
                .map_err(|e| e.located(at))
        })
    }

    /// Removes the routes added with `pattern` (written the same way).
    #[track_caller]
    pub fn unroute(
        &self,
        pattern: impl Into<UrlPattern>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let pattern = pattern.into();
        Box::pin(async move {
            self.backend()
                .unroute(&pattern, at)
                .await
                .map_err(|e| e.located(at))
        })
    }

    /// Waits (up to the page's wait limit) for the next request whose URL
    /// matches `pattern` and returns it. Start waiting before the action that
    /// makes the request: `tokio::join!(page.wait_for_request("**/api/login"), button.click())`.
    #[track_caller]
    pub fn wait_for_request(
        &self,
        pattern: impl Into<UrlPattern>,
    ) -> impl Future<Output = Result<Request, BrowserError>> + Send + '_ {
        let at = Location::caller();
        let pattern = pattern.into();

        // Registered now, before the first poll: a request made right after
        // this call is not missed.
        let rx = self.backend().network_waiter(
            pattern.matcher(self.base_url()),
            false,
            "page.wait_for_request",
            at,
        );
        Box::pin(async move {
            let rx = rx?;
            match tokio::time::timeout(self.wait(), rx).await {
                Ok(Ok(Seen::Request(r))) => Ok(r),
                _ => Err(self.no_event("a request", &pattern, at)),
            }
        })
    }

    /// Waits (up to the page's wait limit) for the next response whose URL
    /// matches `pattern` and returns it (status and headers; its request too).
    #[track_caller]
    pub fn wait_for_response(
        &self,
        pattern: impl Into<UrlPattern>,
    ) -> impl Future<Output = Result<ResponseInfo, BrowserError>> + Send + '_ {
        let at = Location::caller();
        let pattern = pattern.into();

        let rx = self.backend().network_waiter(
            pattern.matcher(self.base_url()),
            true,
            "page.wait_for_response",
            at,
        );
        Box::pin(async move {
            let rx = rx?;
            match tokio::time::timeout(self.wait(), rx).await {
                Ok(Ok(Seen::Response(r))) => Ok(r),
                _ => Err(self.no_event("a response", &pattern, at)),
            }
        })
    }

    fn no_event(
        &self,
        what: &str,
        pattern: &UrlPattern,
        at: &'static Location<'static>,
    ) -> BrowserError {
        BrowserError::Assertion {
            message: format!(
                "no {what} matching {pattern} within {:.1} s (only what happens after the call counts: start waiting before the action, e.g. with tokio::join!)",
                self.wait().as_secs_f64()
            )
            .replacen("no a ", "no ", 1),
            location: Some(at),
        }
    }
}
