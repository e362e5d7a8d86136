//! Authentication challenges over WebDriver BiDi: from the session's start
//! (`pool.rs`), an intercept of phase `authRequired` blocks every challenge
//! of the session (the session's one scenario; no other request is
//! blocked) and each `network.authRequired` is answered as the page's
//! [`crate::credentials::Auth`] says, by `network.continueWithAuth`
//! (`provideCredentials`, else `cancel`: the server's 401 shown). Left to
//! the browser, a challenge opens a login prompt no scenario can answer
//! (Firefox's navigation never ends) or fails the navigation
//! (chromedriver's headless Chromium: `net::ERR_INVALID_AUTH_CREDENTIALS`).
//! The routes' intercepts (`route.rs`) are apart: a request both routed and
//! challenged meets each in its phase.

use std::sync::Arc;

use super::Bidi;
use super::protocol::{AddIntercept, Intercept, InterceptPhase, Subscribe};
use super::protocol_emulation::{AuthCredentials, ContinueWithAuth};
use super::protocol_events::AuthRequired;
use crate::credentials::AuthAnswer;
use crate::emulation::HttpCredentials;
use crate::error::BrowserError;

impl Bidi {
    /// Blocks every authentication challenge of the session from now on,
    /// each answered by [`handle`]: the intercept added once per session.
    pub(crate) async fn answer_challenges(&self) -> Result<(), BrowserError> {
        let mut added = self.auth_intercept.lock().await;
        if *added {
            return Ok(());
        }
        let subscribe = Subscribe {
            events: &["network.authRequired"],
        };
        self.command(&subscribe).await?;
        let add = AddIntercept {
            phases: vec![InterceptPhase::AuthRequired],
            contexts: None,
            url_patterns: None,
        };
        let _: Intercept = self.command(&add).await?;
        *added = true;
        Ok(())
    }

    /// The page's credentials from now on (none: each challenge cancelled,
    /// the server's 401 shown), its challenges blocked if they were not.
    pub(crate) async fn set_credentials(
        &self,
        credentials: Option<HttpCredentials>,
    ) -> Result<(), BrowserError> {
        self.auth.set(credentials);
        self.answer_challenges().await
    }
}

/// The origin of `url` (`http://127.0.0.1:8001` of `http://127.0.0.1:8001/a`).
fn origin_of(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
            format!("{scheme}://{host}")
        }
        None => url.to_string(),
    }
}

/// Answers one blocked challenge; a request gone meanwhile has nothing to
/// answer.
pub(super) async fn handle(bidi: Arc<Bidi>, challenge: AuthRequired) {
    let request = &challenge.request.request;
    let answer = bidi
        .auth
        .answer(request, &origin_of(&challenge.request.url));
    let go_on = match &answer {
        AuthAnswer::Cancel => ContinueWithAuth {
            request,
            action: "cancel",
            credentials: None,
        },
        AuthAnswer::Provide { username, password } => ContinueWithAuth {
            request,
            action: "provideCredentials",
            credentials: Some(AuthCredentials::Password { username, password }),
        },
    };
    let _ = bidi.command(&go_on).await;
}
