//! HTTP credentials over WebDriver BiDi: while a page has them, an intercept
//! of phase `authRequired` blocks every challenge of the session (the
//! session's one scenario) and each `network.authRequired` is answered as
//! the page's [`crate::browser::credentials::Auth`] says, by
//! `network.continueWithAuth` (`provideCredentials`, else `cancel`: the
//! server's 401). The routes' intercepts (`route.rs`) are apart: a request
//! both routed and challenged meets each in its phase.

use std::sync::Arc;

use serde::de::IgnoredAny;

use super::Bidi;
use super::protocol::{AddIntercept, Intercept, InterceptPhase, RemoveIntercept, Subscribe};
use super::protocol_emulation::{AuthCredentials, ContinueWithAuth};
use super::protocol_events::AuthRequired;
use crate::browser::credentials::AuthAnswer;
use crate::browser::emulation::HttpCredentials;
use crate::browser::error::BrowserError;

impl Bidi {
    /// The page's credentials from now on (none: challenges are the
    /// browser's again): the intercept added with the first, removed with
    /// the last.
    pub(crate) async fn set_credentials(
        &self,
        credentials: Option<HttpCredentials>,
    ) -> Result<(), BrowserError> {
        let mut intercept = self.auth_intercept.lock().await;
        let wanted = credentials.is_some();
        self.auth.set(credentials);
        match (wanted, intercept.as_ref()) {
            (true, None) => {
                let subscribe = Subscribe {
                    events: &["network.authRequired"],
                };
                self.command::<_, IgnoredAny>("session.subscribe", &subscribe)
                    .await?;
                let add = AddIntercept {
                    phases: vec![InterceptPhase::AuthRequired],
                    contexts: None,
                    url_patterns: None,
                };
                let added: Intercept = self.command("network.addIntercept", &add).await?;
                *intercept = Some(added.intercept);
            }
            (false, Some(id)) => {
                let remove = RemoveIntercept { intercept: id };
                self.command::<_, IgnoredAny>("network.removeIntercept", &remove)
                    .await?;
                *intercept = None;
            }
            _ => {}
        }
        Ok(())
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
        AuthAnswer::Default => ContinueWithAuth {
            request,
            action: "default",
            credentials: None,
        },
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
    let _ = bidi
        .command::<_, IgnoredAny>("network.continueWithAuth", &go_on)
        .await;
}
