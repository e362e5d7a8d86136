//! The small web application that the harshjudge example suites test.
//!
//! It serves a handful of HTML pages (every interactive element carries a
//! `data-testid`), a JSON API and a tiny CLI (`src/main.rs`). It only ever
//! listens on `127.0.0.1`, needs no network beyond loopback and inlines all of
//! its HTML, CSS and JavaScript.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let app = demo_app::DemoApp::start().await?;
//! println!("serving on {}", app.base_url());
//! app.stop().await;
//! # Ok(())
//! # }
//! ```

mod api;
pub mod cli;
pub mod client;
mod pages;
mod session;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::routing::{delete, get, post};
use serde::Serialize;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How long [`DemoApp::stop`] waits for in-flight requests before it aborts the server.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// The environment variable that serves a changed page, for healing tests:
/// `renamed-button`, `changed-label` or `changed-text` (unset or empty: the
/// pages as written).
pub const VARIANT_VAR: &str = "DEMO_APP_VARIANT";

/// A change to the pages under a suite written for them ([`VARIANT_VAR`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Variant {
    /// The pages as written.
    #[default]
    AsWritten,
    /// The login page's "Sign in" button reads "Log in".
    RenamedButton,
    /// The login page's "Email" field is labelled "E-mail".
    ChangedLabel,
    /// The dashboard greets "Hello, NAME", not "Welcome, NAME" (a change of
    /// content: an assertion on it must fail, never be healed).
    ChangedText,
}

impl Variant {
    /// The names [`VARIANT_VAR`] takes.
    pub const NAMES: [&'static str; 3] = ["renamed-button", "changed-label", "changed-text"];

    /// Reads [`VARIANT_VAR`]; an unknown value is an error naming it.
    pub fn from_env() -> std::io::Result<Variant> {
        let value = std::env::var(VARIANT_VAR).unwrap_or_default();
        Variant::parse(&value)
    }

    /// A variant by name ("" is [`Variant::AsWritten`]).
    pub fn parse(value: &str) -> std::io::Result<Variant> {
        match value.trim() {
            "" => Ok(Variant::AsWritten),
            "renamed-button" => Ok(Variant::RenamedButton),
            "changed-label" => Ok(Variant::ChangedLabel),
            "changed-text" => Ok(Variant::ChangedText),
            other => Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{VARIANT_VAR}={other:?} is not a variant: give one of {}, or leave it unset",
                    Variant::NAMES.join(", ")
                ),
            )),
        }
    }
}

/// One entry of the to-do style item list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Item {
    pub id: u64,
    pub text: String,
    pub category: String,
    pub urgent: bool,
}

/// The in-memory state of one [`DemoApp`] instance.
#[derive(Debug)]
pub(crate) struct Store {
    pub items: Vec<Item>,
    pub next_id: u64,
    /// Live sessions: token → index into the users of `/api/login`.
    pub sessions: std::collections::HashMap<String, usize>,
    /// The change served ([`VARIANT_VAR`]).
    pub variant: Variant,
}

impl Store {
    fn new() -> Store {
        let item = |id: u64, text: &str| Item {
            id,
            text: text.to_owned(),
            category: "fruit".to_owned(),
            urgent: false,
        };
        Store {
            items: vec![item(1, "apple"), item(2, "pear")],
            next_id: 3,
            sessions: Default::default(),
            variant: Variant::AsWritten,
        }
    }
}

/// Shared handle on the state, cloned into every handler.
#[derive(Clone)]
pub(crate) struct AppState(Arc<Mutex<Store>>);

impl AppState {
    fn new() -> AppState {
        AppState(Arc::new(Mutex::new(Store::new())))
    }

    /// Locks the store; a poisoned lock is still usable (the data is plain values).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Store> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Builds the router with a fresh state serving `variant`.
fn router(variant: Variant) -> Router {
    let state = AppState::new();
    state.lock().variant = variant;
    Router::new()
        .route("/", get(pages::home))
        .route("/login", get(pages::login))
        .route("/dashboard", get(pages::dashboard))
        .route("/items", get(pages::items))
        .route("/console", get(pages::console))
        .route("/slow", get(pages::slow))
        .route("/todos/", get(pages::todos))
        .route("/play", get(pages::play))
        .route("/device", get(pages::device))
        .route("/favicon.ico", get(pages::favicon))
        .route("/api/login", post(api::login))
        .route("/api/items", get(api::list_items).post(api::add_item))
        .route("/api/items/{id}", delete(api::delete_item))
        .route("/api/data", get(api::data))
        .route("/api/slow", get(api::slow))
        .route("/api/health", get(api::health))
        .route("/account", get(session::account))
        .route("/api/me", get(session::me))
        .route("/logout", post(session::logout))
        .fallback(pages::not_found)
        .with_state(state)
}

/// A running instance of the demo app, serving on `127.0.0.1`.
///
/// Each instance has its own in-memory state, starting with the items
/// "apple" and "pear". Dropping it without calling [`DemoApp::stop`] still
/// asks the server to shut down (without waiting for it).
#[derive(Debug)]
pub struct DemoApp {
    addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl DemoApp {
    /// Binds `127.0.0.1` on a free port and serves in a background task on the
    /// current tokio runtime.
    pub async fn start() -> std::io::Result<DemoApp> {
        DemoApp::start_on(0).await
    }

    /// Binds `127.0.0.1:port` (`0` picks a free port) and serves in a
    /// background task on the current tokio runtime; the pages of the
    /// [`Variant`] `DEMO_APP_VARIANT` names (an unknown one is an error).
    pub async fn start_on(port: u16) -> std::io::Result<DemoApp> {
        let variant = Variant::from_env()?;
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
        let addr = listener.local_addr()?;
        let (tx, rx) = oneshot::channel::<()>();
        let server = axum::serve(listener, router(variant)).with_graceful_shutdown(async move {
            // Either an explicit stop or the handle being dropped.
            let _ = rx.await;
        });
        let task = tokio::spawn(async move {
            if let Err(err) = server.await {
                eprintln!("demo-app: server error: {err}");
            }
        });
        Ok(DemoApp {
            addr,
            shutdown: Some(tx),
            task: Some(task),
        })
    }

    /// The base URL, `http://127.0.0.1:PORT` (no trailing slash).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address (always `127.0.0.1:PORT`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Shuts the server down gracefully: it stops accepting connections and
    /// lets in-flight requests finish (for at most 5 seconds, then aborts).
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(STOP_GRACE, &mut task).await.is_err()
        {
            task.abort();
        }
    }
}

impl Drop for DemoApp {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Starts the app on a dedicated background thread with its own tokio
/// runtime and returns its base URL (`http://127.0.0.1:PORT`).
///
/// For callers that are not inside tokio, or whose runtime may be
/// short-lived. The app lives until the process exits; every call starts a
/// new instance with its own state.
pub fn start_in_background() -> std::io::Result<String> {
    let (tx, rx) = std::sync::mpsc::channel::<std::io::Result<String>>();
    std::thread::Builder::new()
        .name("demo-app".to_owned())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("demo-app-worker")
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(err) => {
                    let _ = tx.send(Err(err));
                    return;
                }
            };
            runtime.block_on(async move {
                match DemoApp::start().await {
                    Ok(app) => {
                        let _ = tx.send(Ok(app.base_url()));
                        // Keep `app` (and so the server) alive for the life of the process.
                        std::future::pending::<()>().await;
                        drop(app);
                    }
                    Err(err) => {
                        let _ = tx.send(Err(err));
                    }
                }
            });
        })?;
    rx.recv().unwrap_or_else(|_| {
        Err(std::io::Error::other(
            "demo-app background thread ended before binding",
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::Variant;

    #[test]
    fn a_variant_is_read_by_name_and_an_unknown_one_is_named() {
        assert_eq!(Variant::parse("").unwrap(), Variant::AsWritten);
        assert_eq!(
            Variant::parse("renamed-button").unwrap(),
            Variant::RenamedButton
        );
        assert_eq!(
            Variant::parse(" changed-label ").unwrap(),
            Variant::ChangedLabel
        );
        assert_eq!(
            Variant::parse("changed-text").unwrap(),
            Variant::ChangedText
        );
        let e = Variant::parse("renamed").unwrap_err().to_string();
        assert!(
            e.contains("DEMO_APP_VARIANT=\"renamed\"")
                && e.contains("renamed-button, changed-label, changed-text"),
            "{e}"
        );
    }
}
