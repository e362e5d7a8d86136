//! Signed-in sessions, so that suites have a login worth saving: a successful
//! `POST /api/login` sets an HttpOnly `session` cookie (a fresh token each
//! time, held by the server); `GET /account` and `GET /api/me` need it (or
//! `Authorization: Bearer <token>` for the API); `POST /logout` ends it.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde_json::json;

use crate::AppState;
use crate::api::USERS;
use crate::pages::{escape, layout};

/// The cookie's name.
pub(crate) const COOKIE: &str = "session";

/// A token no one can guess from the ones before it.
fn new_token() -> String {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let a = h.finish();
    let b = RandomState::new().build_hasher().finish();
    format!("{a:016x}{b:016x}")
}

/// Starts a session for the user at `user` (an index into [`USERS`]) and
/// returns its `Set-Cookie` header value.
pub(crate) fn start(state: &AppState, user: usize) -> String {
    let token = new_token();
    state.lock().sessions.insert(token.clone(), user);
    format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax")
}

/// The session token the request carries: its `session` cookie, else a bearer token.
fn token_of(headers: &HeaderMap) -> Option<String> {
    let from_cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_string());
    from_cookie.or_else(|| {
        headers
            .get(header::AUTHORIZATION)?
            .to_str()
            .ok()?
            .strip_prefix("Bearer ")
            .map(str::to_string)
    })
}

/// The signed-in user's index into [`USERS`], if the request has a live session.
fn user_of(state: &AppState, headers: &HeaderMap) -> Option<usize> {
    let token = token_of(headers)?;
    state.lock().sessions.get(&token).copied()
}

/// `GET /account`: who is signed in; without a session, a redirect to the login.
pub(crate) async fn account(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let Some(user) = user_of(&state, &headers) else {
        return Redirect::to("/login?next=/account").into_response();
    };
    let (email, _, name, _) = USERS[user];
    let body = format!(
        r#"<h1>Your account</h1>
<p data-testid="signed-in-as">Signed in as {name} ({email})</p>
<form method="post" action="/logout"><button type="submit">Sign out</button></form>"#,
        name = escape(name),
        email = escape(email),
    );
    Html(layout("Account", &body, "")).into_response()
}

/// `GET /api/me`: `{name, email}` of the session's user, 401 without one.
pub(crate) async fn me(State(state): State<AppState>, headers: HeaderMap) -> Response {
    match user_of(&state, &headers) {
        Some(user) => {
            let (email, _, name, _) = USERS[user];
            Json(json!({ "name": name, "email": email })).into_response()
        }
        None => (
            StatusCode::UNAUTHORIZED,
            Json(json!({ "error": "not signed in" })),
        )
            .into_response(),
    }
}

/// `POST /logout`: ends the session and clears the cookie.
pub(crate) async fn logout(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(token) = token_of(&headers) {
        state.lock().sessions.remove(&token);
    }
    (
        [(header::SET_COOKIE, format!("{COOKIE}=; Path=/; Max-Age=0"))],
        Redirect::to("/login"),
    )
        .into_response()
}
