//! A page's HTTP credentials (`Emulation::http_credentials`) and what each
//! authentication challenge is answered ([`Auth`]), whatever the protocol
//! that tells of it (DevTools' `Fetch.authRequired`, `backend/cdp/auth.rs`;
//! BiDi's `network.authRequired`, `bidi/auth.rs`): the credentials once per
//! request and only to their origin, else the server's 401 (cancelled:
//! the browser's own answer is a login prompt, or in Chromium's headless
//! mode a failed navigation, `net::ERR_INVALID_AUTH_CREDENTIALS`).

use std::collections::VecDeque;
use std::sync::Mutex;

use super::emulation::HttpCredentials;

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
    /// No credentials, not for this origin, or tried already: the
    /// server's 401 shown.
    Cancel,
    /// The credentials.
    Provide { username: String, password: String },
}

impl Auth {
    /// The page's credentials from now on.
    pub(crate) fn set(&self, credentials: Option<HttpCredentials>) {
        *self.credentials.lock().unwrap_or_else(|p| p.into_inner()) = credentials;
    }

    /// What the challenge of request `request_id` by `origin` is answered.
    pub(crate) fn answer(&self, request_id: &str, origin: &str) -> AuthAnswer {
        let credentials = self.credentials.lock().unwrap_or_else(|p| p.into_inner());
        let Some(c) = credentials.as_ref() else {
            return AuthAnswer::Cancel;
        };
        if let Some(o) = &c.origin
            && !o.eq_ignore_ascii_case(origin)
        {
            return AuthAnswer::Cancel;
        }
        let mut tried = self.tried.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = tried.iter().position(|r| r == request_id) {
            tried.remove(i);
            return AuthAnswer::Cancel;
        }
        if tried.len() == TRIED {
            tried.pop_front();
        }
        tried.push_back(request_id.to_string());
        AuthAnswer::Provide {
            username: c.username.clone(),
            password: c.password.clone(),
        }
    }
}

#[cfg(test)]
#[path = "credentials_tests.rs"]
mod tests;
