//! HTTP credentials over the DevTools protocol: a page's [`Auth`] (its
//! `http_credentials`, `emulate.rs` sets them) answers each
//! `Fetch.authRequired` its reader (`readers.rs`) hands over, by
//! `Fetch.continueWithAuth`: the credentials once per request and only to
//! their origin, else the server's 401. Apart from `emulate.rs` so that the
//! readers need no file that needs them.

use std::collections::VecDeque;
use std::sync::Mutex;

use super::connection::Connection;
use super::protocol::{AuthChallengeResponse, AuthRequired, ContinueWithAuth, SessionId};
use crate::browser::emulation::HttpCredentials;

/// How many challenged requests [`Auth`] remembers having answered.
const TRIED: usize = 256;

/// A page's HTTP credentials and the requests they were given to (a
/// second challenge of one is cancelled: wrong credentials end in the
/// server's 401, not in a loop).
#[derive(Debug, Default)]
pub(crate) struct Auth {
    credentials: Mutex<Option<HttpCredentials>>,
    tried: Mutex<VecDeque<String>>,
}

/// The answer to one challenge.
#[derive(Debug, PartialEq)]
pub(crate) enum AuthAnswer {
    /// No credentials: what the browser does (the 401 shown).
    Default,
    /// Not for this origin, or tried already: the 401 shown.
    Cancel,
    /// The credentials.
    Provide { username: String, password: String },
}

impl Auth {
    /// Whether the page has credentials.
    pub(crate) fn is_set(&self) -> bool {
        self.credentials
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// The page's credentials from now on.
    pub(crate) fn set(&self, credentials: Option<HttpCredentials>) {
        *self.credentials.lock().unwrap_or_else(|p| p.into_inner()) = credentials;
    }

    /// What `challenge` is answered.
    pub(crate) fn answer(&self, challenge: &AuthRequired) -> AuthAnswer {
        let credentials = self.credentials.lock().unwrap_or_else(|p| p.into_inner());
        let Some(c) = credentials.as_ref() else {
            return AuthAnswer::Default;
        };
        if let Some(origin) = &c.origin
            && !origin.eq_ignore_ascii_case(&challenge.auth_challenge.origin)
        {
            return AuthAnswer::Cancel;
        }
        let mut tried = self.tried.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = tried.iter().position(|r| *r == challenge.request_id) {
            tried.remove(i);
            return AuthAnswer::Cancel;
        }
        if tried.len() == TRIED {
            tried.pop_front();
        }
        tried.push_back(challenge.request_id.clone());
        AuthAnswer::Provide {
            username: c.username.clone(),
            password: c.password.clone(),
        }
    }
}

/// Answers a challenge (`Fetch.continueWithAuth`); a request gone
/// meanwhile has nothing to answer.
pub(crate) async fn continue_with_auth(
    connection: &Connection,
    session: &SessionId,
    challenge: AuthRequired,
    answer: AuthAnswer,
) {
    let response = match &answer {
        AuthAnswer::Default => AuthChallengeResponse {
            response: "Default",
            username: None,
            password: None,
        },
        AuthAnswer::Cancel => AuthChallengeResponse {
            response: "CancelAuth",
            username: None,
            password: None,
        },
        AuthAnswer::Provide { username, password } => AuthChallengeResponse {
            response: "ProvideCredentials",
            username: Some(username),
            password: Some(password),
        },
    };
    let go_on = ContinueWithAuth {
        request_id: &challenge.request_id,
        auth_challenge_response: response,
    };
    let _ = connection.send(Some(session), &go_on).await;
}

#[cfg(test)]
#[path = "auth_tests.rs"]
mod tests;
