//! The JSON API under `/api`.

use std::collections::HashMap;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{AppState, Item};

/// The longest `/api/slow` waits, in milliseconds.
pub(crate) const SLOW_API_CAP_MS: u64 = 10_000;
/// What `/api/slow` waits without `?ms=`.
pub(crate) const SLOW_API_DEFAULT_MS: u64 = 1_500;

/// The accounts `/api/login` accepts: email, password, display name, token.
pub(crate) const USERS: &[(&str, &str, &str, &str)] = &[
    ("ada@example.com", "secret", "Ada", "t-ada"),
    ("grace@example.com", "hopper", "Grace", "t-grace"),
];

/// A JSON response with the given status.
fn json_status(status: StatusCode, body: Value) -> Response {
    (status, Json(body)).into_response()
}

/// The 400 answer to a body that is not the expected JSON.
fn bad_json(err: serde_json::Error) -> Response {
    json_status(
        StatusCode::BAD_REQUEST,
        json!({ "ok": false, "error": format!("invalid JSON body: {err}") }),
    )
}

#[derive(Deserialize)]
pub(crate) struct LoginRequest {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
}

/// `POST /api/login` `{email,password}`.
/// A success sets the `session` cookie ([`crate::session`]).
pub(crate) async fn login(State(state): State<AppState>, body: Bytes) -> Response {
    let request: LoginRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(err) => return bad_json(err),
    };
    match USERS.iter().position(|(email, password, _, _)| {
        *email == request.email && *password == request.password
    }) {
        Some(user) => {
            let (_, _, name, token) = USERS[user];
            let cookie = crate::session::start(&state, user);
            (
                [(axum::http::header::SET_COOKIE, cookie)],
                json_status(
                    StatusCode::OK,
                    json!({ "ok": true, "name": name, "token": token }),
                ),
            )
                .into_response()
        }
        None => json_status(
            StatusCode::UNAUTHORIZED,
            json!({ "ok": false, "error": "invalid credentials" }),
        ),
    }
}

/// `GET /api/items`.
pub(crate) async fn list_items(State(state): State<AppState>) -> Json<Vec<Item>> {
    Json(state.lock().items.clone())
}

#[derive(Deserialize)]
pub(crate) struct NewItem {
    #[serde(default)]
    text: String,
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    urgent: Option<bool>,
}

/// `POST /api/items` `{text, category?, urgent?}`: 201 with the new item.
pub(crate) async fn add_item(State(state): State<AppState>, body: Bytes) -> Response {
    let new: NewItem = match serde_json::from_slice(&body) {
        Ok(new) => new,
        Err(err) => return bad_json(err),
    };
    let text = new.text.trim();
    if text.is_empty() {
        return json_status(
            StatusCode::BAD_REQUEST,
            json!({ "error": "text must not be empty" }),
        );
    }
    let category = match new.category.as_deref().map(str::trim) {
        Some(category) if !category.is_empty() => category.to_owned(),
        _ => "general".to_owned(),
    };
    let mut store = state.lock();
    let item = Item {
        id: store.next_id,
        text: text.to_owned(),
        category,
        urgent: new.urgent.unwrap_or(false),
    };
    store.next_id += 1;
    store.items.push(item.clone());
    (StatusCode::CREATED, Json(item)).into_response()
}

/// `DELETE /api/items/{id}`: 204, or 404 `{"error":"no item 7"}`.
pub(crate) async fn delete_item(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    let mut store = state.lock();
    let position = id
        .parse::<u64>()
        .ok()
        .and_then(|id| store.items.iter().position(|item| item.id == id));
    match position {
        Some(index) => {
            store.items.remove(index);
            StatusCode::NO_CONTENT.into_response()
        }
        None => json_status(
            StatusCode::NOT_FOUND,
            json!({ "error": format!("no item {id}") }),
        ),
    }
}

/// `GET /api/data`.
pub(crate) async fn data(State(state): State<AppState>) -> Json<Value> {
    let count = state.lock().items.len();
    Json(json!({ "message": "Hello from the API", "items": count }))
}

/// `GET /api/slow?ms=N`: waits N ms (at most 10 000), then `{"waited":N}`.
pub(crate) async fn slow(Query(query): Query<HashMap<String, String>>) -> Json<Value> {
    let ms = slow_ms(query.get("ms").map(String::as_str));
    tokio::time::sleep(Duration::from_millis(ms)).await;
    Json(json!({ "waited": ms }))
}

/// The wait of `/api/slow`: `?ms=` if it is a number, capped at 10 000.
fn slow_ms(ms: Option<&str>) -> u64 {
    ms.and_then(|ms| ms.trim().parse::<u64>().ok())
        .unwrap_or(SLOW_API_DEFAULT_MS)
        .min(SLOW_API_CAP_MS)
}

/// `GET /api/health`.
pub(crate) async fn health() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

/// Unknown `/api/...` paths answer JSON rather than the HTML 404 page.
pub(crate) fn not_found(path: &str) -> Response {
    json_status(
        StatusCode::NOT_FOUND,
        json!({ "error": format!("not found: {path}") }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_ms_defaults_and_caps() {
        assert_eq!(slow_ms(None), SLOW_API_DEFAULT_MS);
        assert_eq!(slow_ms(Some("abc")), SLOW_API_DEFAULT_MS);
        assert_eq!(slow_ms(Some("-5")), SLOW_API_DEFAULT_MS);
        assert_eq!(slow_ms(Some("250")), 250);
        assert_eq!(slow_ms(Some("10000")), 10_000);
        assert_eq!(slow_ms(Some("99999")), 10_000);
    }
}
