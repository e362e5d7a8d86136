//! The dashboard's HTTP server (`harshjudge-mcp dashboard serve`): the HTML
//! report built live from the store, the original's JSON API for this one
//! project, and the files of `.harshJudge/` (evidence links of the report).
//! Bound to 127.0.0.1 only; GET and HEAD only; no CORS headers (same origin).
//! SIGTERM or SIGINT stop it gracefully (at most 2 s).

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use harshjudge_store::store::{Store, StoreError};
use serde::Deserialize;
use serde_json::{Value, json};

use super::DashboardError;
use super::api::{self, ApiError};

/// What every handler reads.
struct App {
    root: PathBuf,
    store_dir: PathBuf,
    port: u16,
    started_at: String,
    /// Turns `true` when the server is asked to stop: a held `/api/stamp`
    /// answers at once instead of holding the shutdown.
    stopping: tokio::sync::watch::Receiver<bool>,
    /// The `.harshJudge/` folder it serves (in `/api/health`, so that `open`
    /// reuses only a dashboard of this very folder).
    identity: super::StoreIdentity,
}

type Shared = Arc<App>;

/// How often the server looks whether its `.harshJudge/` is still there.
pub const WATCH_EVERY: Duration = Duration::from_millis(500);

/// Serves the dashboard of the project at `root` on 127.0.0.1:`port` until
/// SIGTERM or SIGINT, or until the project's `.harshJudge/` is removed or
/// replaced (a dashboard never outlives its project). An error (no
/// `.harshJudge/`, the port is taken, no runtime) is returned for the caller
/// to print.
pub fn run(root: &Path, port: u16) -> Result<(), DashboardError> {
    let store_dir = Store::for_project(root).dir().to_path_buf();
    let Some(identity) = super::StoreIdentity::of(&store_dir) else {
        return Err(DashboardError::NoStore { dir: store_dir });
    };
    let listen = |source| DashboardError::Listen { port, source };
    let listener =
        std::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, port)).map_err(listen)?;
    listener.set_nonblocking(true).map_err(listen)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(8)
        .enable_all()
        .build()
        .map_err(|source| DashboardError::Runtime { source })?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let app = Arc::new(App {
        root: root.to_path_buf(),
        store_dir: store_dir.clone(),
        port,
        started_at: harshjudge_store::store::now_iso(),
        stopping: stop_rx.clone(),
        identity,
    });
    tracing::info!(
        project = %root.display(),
        pid = std::process::id(),
        "dashboard listening on http://127.0.0.1:{port}/"
    );
    let store = Store::new(&app.store_dir);
    let state_file = store.dashboard_state_path();
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).map_err(listen)?;
        let shutdown = async move {
            tokio::select! {
                () = stop_signal() => tracing::info!("stopping"),
                () = store_gone(store_dir.clone(), identity) => tracing::info!(
                    "stopping: {} was removed or replaced",
                    store_dir.display()
                ),
            }
            let _ = stop_tx.send(true);
        };
        let server = axum::serve(listener, router(app)).with_graceful_shutdown(shutdown);
        // Open connections get 2 s to finish once a stop is asked for.
        let deadline = async move {
            let mut rx = stop_rx;
            let _ = rx.wait_for(|stop| *stop).await;
            tokio::time::sleep(Duration::from_secs(2)).await;
        };
        tokio::select! {
            r = server => r.map_err(|source| DashboardError::Serve { source })?,
            () = deadline => tracing::warn!("connections still open after 2 s; stopping anyway"),
        }
        Ok::<(), DashboardError>(())
    })?;
    // The state file describes this process: it goes with it.
    if let Ok(bytes) = store.read_file(&state_file)
        && let Ok(s) = serde_json::from_slice::<super::State>(&bytes)
        && s.pid == std::process::id()
    {
        let _ = store.remove_file(&state_file);
    }
    tracing::info!("stopped");
    Ok(())
}

/// Returns once `dir` is no longer the folder the server started with (it
/// was removed, or removed and created again).
async fn store_gone(dir: PathBuf, identity: super::StoreIdentity) {
    let mut tick = tokio::time::interval(WATCH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let d = dir.clone();
        let now = tokio::task::spawn_blocking(move || super::StoreIdentity::of(&d))
            .await
            .unwrap_or(Some(identity));
        if now != Some(identity) {
            return;
        }
    }
}

async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut term), Ok(mut int)) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
        _ => {
            tracing::error!(
                "error: cannot listen for SIGTERM/SIGINT; stop the dashboard with SIGKILL"
            );
            std::future::pending::<()>().await;
        }
    }
}

fn router(app: Shared) -> Router {
    Router::new()
        .route("/", get(|| async { redirect("/report/") }))
        .route("/report", get(|| async { redirect("/report/") }))
        .route("/report/", get(index))
        .route("/report/index.html", get(index))
        .route("/report/data/overview.js", get(overview))
        .route("/report/data/runs/{slug}/{file}", get(run_script))
        .route("/report/data/traces/{slug}/{run}/{file}", get(trace_script))
        .route("/api/health", get(health))
        .route("/api/stamp", get(stamp))
        .route("/api/projects", get(projects))
        .route("/api/projects/{p}/scenarios", get(scenarios))
        .route("/api/projects/{p}/scenarios/{slug}", get(scenario))
        .route("/api/projects/{p}/scenarios/{slug}/runs", get(runs))
        .route(
            "/api/projects/{p}/scenarios/{slug}/runs/{run}",
            get(run_detail),
        )
        .route("/api/file", get(file))
        .route("/api", get(api_not_found))
        .route("/api/", get(api_not_found))
        .route("/api/{*rest}", get(api_not_found))
        .fallback(static_file)
        .layer(middleware::from_fn(guard))
        .with_state(app)
}

/// Hosts a page of this machine may use: a DNS name that resolves to
/// 127.0.0.1 (rebinding) is refused, any port is fine (port forwarding).
fn local_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    matches!(
        name.to_ascii_lowercase().as_str(),
        "127.0.0.1" | "localhost" | "::1"
    )
}

/// GET and HEAD only, from a local Host; every answer `no-cache`, `nosniff`.
async fn guard(req: Request, next: Next) -> Response {
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        let mut r = (StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed").into_response();
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    if let Some(host) = req.headers().get(header::HOST)
        && !host.to_str().is_ok_and(local_host)
    {
        return (
            StatusCode::FORBIDDEN,
            "Forbidden: the dashboard answers only to 127.0.0.1 or localhost",
        )
            .into_response();
    }
    let mut r = next.run(req).await;
    let h = r.headers_mut();
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-cache"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

fn redirect(to: &'static str) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, to)]).into_response()
}

fn body(content_type: &'static str, bytes: impl Into<Body>) -> Response {
    let mut r = Response::new(bytes.into());
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

fn json_response(status: u16, v: &Value) -> Response {
    let mut r = body("application/json; charset=utf-8", v.to_string());
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r
}

fn error(status: u16, message: &str) -> Response {
    json_response(status, &json!({"error": message}))
}

/// Runs store reads off the async threads; a panic becomes a 500.
async fn blocking(f: impl FnOnce() -> Response + Send + 'static) -> Response {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => {
            tracing::error!("error: a request failed: {e}");
            error(500, &format!("the dashboard failed on this request: {e}"))
        }
    }
}

fn api(r: Result<Value, ApiError>) -> Response {
    match r {
        Ok(v) => json_response(200, &v),
        Err(e) => error(e.status, &e.message),
    }
}

fn store_error(e: &StoreError) -> Response {
    let status = match e {
        StoreError::InvalidId { .. } => 400,
        StoreError::NotFound { .. } => 404,
        _ => 500,
    };
    error(status, &e.to_string())
}

async fn index() -> Response {
    blocking(|| {
        body(
            "text/html; charset=utf-8",
            harshjudge_store::report::html::index_html(),
        )
    })
    .await
}

async fn overview(State(app): State<Shared>) -> Response {
    blocking(
        move || match harshjudge_store::report::html::overview_js(&app.store_dir) {
            Ok(js) => body("application/javascript; charset=utf-8", js),
            Err(e) => store_error(&e),
        },
    )
    .await
}

async fn run_script(
    State(app): State<Shared>,
    UrlPath((slug, file)): UrlPath<(String, String)>,
) -> Response {
    let Some(run) = file.strip_suffix(".js").map(str::to_string) else {
        return error(
            404,
            "Not found: run scripts are data/runs/{slug}/{runId}.js",
        );
    };
    blocking(
        move || match harshjudge_store::report::html::run_js(&app.store_dir, &slug, &run) {
            Ok(Some(js)) => body("application/javascript; charset=utf-8", js),
            Ok(None) => error(404, &format!("Run not found: {run} in scenario {slug}")),
            Err(e) => store_error(&e),
        },
    )
    .await
}

/// `data/traces/{slug}/{runId}/{step}.js`: a traced step's trace, as the
/// static report writes it.
async fn trace_script(
    State(app): State<Shared>,
    UrlPath((slug, run, file)): UrlPath<(String, String, String)>,
) -> Response {
    let Some(step) = file.strip_suffix(".js").map(str::to_string) else {
        return error(
            404,
            "Not found: trace scripts are data/traces/{slug}/{runId}/{step}.js",
        );
    };
    blocking(move || {
        match harshjudge_store::report::html::trace_js(&app.store_dir, &slug, &run, &step) {
            Ok(Some(js)) => body("application/javascript; charset=utf-8", js),
            Ok(None) => error(
                404,
                &format!("No trace: step {step} of run {run} in scenario {slug}"),
            ),
            Err(e) => store_error(&e),
        }
    })
    .await
}

async fn health(State(app): State<Shared>) -> Response {
    json_response(
        200,
        &json!({
            "service": "harshjudge-dashboard",
            "pid": std::process::id(),
            "port": app.port,
            "projectPath": app.root.to_string_lossy(),
            "startedAt": app.started_at,
            "store": app.identity.to_string(),
            "version": env!("CARGO_PKG_VERSION"),
        }),
    )
}

/// `GET /api/stamp?since=S`: the store's stamp, held (a long poll) while it is
/// still `S`, for at most [`STAMP_HOLD`]: the live page learns of a change
/// within [`STAMP_CHECK_EVERY`] instead of at its next poll (it polled every
/// second, so two changes in a row, a failed step then its run's end, took
/// two polls and two reloads: 2.8 s on a loaded machine). Without `since` it
/// answers at once.
async fn stamp(State(app): State<Shared>, Query(q): Query<StampQuery>) -> Response {
    let started = tokio::time::Instant::now();
    let mut stopping = app.stopping.clone();
    loop {
        let dir = app.store_dir.clone();
        let now =
            match tokio::task::spawn_blocking(move || harshjudge_store::report::html::stamp(&dir))
                .await
            {
                Ok(Ok(s)) => s,
                Ok(Err(e)) => return store_error(&e),
                Err(e) => {
                    tracing::error!("error: a request failed: {e}");
                    return error(500, &format!("the dashboard failed on this request: {e}"));
                }
            };
        if q.since.as_deref() != Some(now.as_str())
            || started.elapsed() >= STAMP_HOLD
            || *stopping.borrow()
        {
            return json_response(200, &json!({ "stamp": now }));
        }
        tokio::select! {
            () = tokio::time::sleep(STAMP_CHECK_EVERY) => {}
            _ = stopping.changed() => {}
        }
    }
}

/// How long `/api/stamp?since=` holds an unchanged stamp.
pub const STAMP_HOLD: Duration = Duration::from_secs(20);

/// How often a held `/api/stamp?since=` looks at the store again.
pub const STAMP_CHECK_EVERY: Duration = Duration::from_millis(100);

#[derive(Deserialize)]
struct StampQuery {
    since: Option<String>,
}

async fn projects(State(app): State<Shared>) -> Response {
    blocking(move || json_response(200, &api::projects(&app.root, &Store::new(&app.store_dir))))
        .await
}

async fn scenarios(State(app): State<Shared>, UrlPath(p): UrlPath<String>) -> Response {
    blocking(move || {
        api(api::check_project(&app.root, &p)
            .and_then(|()| api::scenarios(&Store::new(&app.store_dir))))
    })
    .await
}

async fn scenario(
    State(app): State<Shared>,
    UrlPath((p, slug)): UrlPath<(String, String)>,
) -> Response {
    blocking(move || {
        api(api::check_project(&app.root, &p)
            .and_then(|()| api::scenario(&Store::new(&app.store_dir), &slug)))
    })
    .await
}

async fn runs(
    State(app): State<Shared>,
    UrlPath((p, slug)): UrlPath<(String, String)>,
) -> Response {
    blocking(move || {
        api(api::check_project(&app.root, &p)
            .and_then(|()| api::runs(&Store::new(&app.store_dir), &slug)))
    })
    .await
}

async fn run_detail(
    State(app): State<Shared>,
    UrlPath((p, slug, run)): UrlPath<(String, String, String)>,
) -> Response {
    blocking(move || {
        api(api::check_project(&app.root, &p)
            .and_then(|()| api::run(&Store::new(&app.store_dir), &slug, &run)))
    })
    .await
}

async fn api_not_found() -> Response {
    error(404, "API endpoint not found")
}

#[derive(Deserialize)]
struct FileQuery {
    path: Option<String>,
}

/// `GET /api/file?path=`: a file of this project's `.harshJudge/` (absolute,
/// or relative to the project root).
async fn file(State(app): State<Shared>, Query(q): Query<FileQuery>) -> Response {
    let Some(path) = q.path.filter(|p| !p.is_empty()) else {
        return error(400, "Missing path parameter");
    };
    blocking(move || {
        let p = Path::new(&path);
        if p.components().any(|c| c == Component::ParentDir) {
            return error(403, "Access denied: path traversal not allowed");
        }
        let full = if p.is_absolute() {
            p.to_path_buf()
        } else {
            app.root.join(p)
        };
        serve_inside(&app.store_dir, &full, false).unwrap_or_else(|| {
            error(
                403,
                "Access denied: can only serve HarshJudge evidence files (files of this project's .harshJudge/)",
            )
        })
    })
    .await
}

/// Any other GET: a file of `.harshJudge/`, so the report's relative evidence
/// links (`/scenarios/{slug}/runs/{id}/step-01/evidence/before.png`) work.
async fn static_file(State(app): State<Shared>, req: Request) -> Response {
    let raw = req.uri().path().to_string();
    blocking(move || {
        let mut full = app.store_dir.clone();
        for seg in raw.split('/').filter(|s| !s.is_empty()) {
            let decoded = percent_encoding::percent_decode_str(seg).collect::<Vec<u8>>();
            let Ok(decoded) = String::from_utf8(decoded) else {
                return text(404, "Not Found");
            };
            if decoded == ".."
                || decoded.contains(['/', '\\', '\0'])
                || decoded.split(['/', '\\']).any(|s| s == "..")
            {
                return text(403, "Forbidden");
            }
            if decoded != "." {
                full.push(decoded);
            }
        }
        serve_inside(&app.store_dir, &full, true).unwrap_or_else(|| text(403, "Forbidden"))
    })
    .await
}

fn text(status: u16, msg: &'static str) -> Response {
    let mut r = body("text/plain; charset=utf-8", msg);
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r
}

/// The file at `full` when its real path lies inside the real `store_dir`;
/// `None` (→ 403) when it leads outside. A missing file is a 404 only when it
/// would have been inside (no probing for files elsewhere).
fn serve_inside(store_dir: &Path, full: &Path, plain: bool) -> Option<Response> {
    let not_found = || {
        if plain {
            text(404, "Not Found")
        } else {
            error(404, "File not found")
        }
    };
    let real_base = std::fs::canonicalize(store_dir).ok()?;
    let real = match std::fs::canonicalize(full) {
        Ok(r) => r,
        Err(_) if full.starts_with(store_dir) || full.starts_with(&real_base) => {
            return Some(not_found());
        }
        Err(_) => return None,
    };
    if !real.starts_with(&real_base) {
        return None;
    }
    if !real.is_file() {
        return Some(not_found());
    }
    let bytes = match std::fs::read(&real) {
        Ok(b) => b,
        Err(e) => return Some(error(500, &format!("cannot read the file: {e}"))),
    };
    let ext = real
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let mut r = body(mime(&ext), bytes);
    // A captured page or SVG runs no script in the dashboard's origin.
    if matches!(ext.as_str(), "html" | "htm" | "svg" | "xml") {
        r.headers_mut().insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("sandbox"),
        );
    }
    Some(r)
}

/// The MIME type of a file extension (lower case).
pub fn mime(ext: &str) -> &'static str {
    match ext {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "application/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json; charset=utf-8",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "eot" => "application/vnd.ms-fontobject",
        "txt" | "log" | "md" | "yaml" | "yml" | "sh" | "csv" => "text/plain; charset=utf-8",
        "xml" => "application/xml; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_hosts_only() {
        for ok in [
            "127.0.0.1:7002",
            "localhost:7002",
            "LOCALHOST",
            "[::1]:8080",
            "127.0.0.1",
        ] {
            assert!(local_host(ok), "{ok}");
        }
        for bad in [
            "evil.example:7002",
            "127.0.0.1.evil.example",
            "localhost.evil:7002",
            "[::2]:7002",
            "",
        ] {
            assert!(!local_host(bad), "{bad}");
        }
    }

    #[test]
    fn mime_types() {
        assert_eq!(mime("png"), "image/png");
        assert_eq!(mime("txt"), "text/plain; charset=utf-8");
        assert_eq!(mime("json"), "application/json; charset=utf-8");
        assert_eq!(mime("bin"), "application/octet-stream");
    }
}
