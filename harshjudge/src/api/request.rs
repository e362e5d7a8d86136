//! [`ApiRequestContext`]: HTTP requests from a scenario (Playwright's
//! `APIRequestContext`), each recorded as `request-NN.json` in its step.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::cookies::{CookieJar, parse_set_cookie};
use super::mask::{self, Secrets};
use super::{ApiError, Host};
use crate::browser::Cookie;

/// The default time a request may take, response body included.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// HTTP requests from a scenario, each recorded as evidence of its step (see
/// [`crate::api`]). Relative URLs join the base URL; the requests carry the
/// cookies of the scenario's open pages, of its jar (a saved storage state,
/// [`with_cookies`](ApiRequestContext::with_cookies)) and of the responses'
/// `Set-Cookie`. Cheap to clone; clones share the cookies.
#[derive(Clone)]
pub struct ApiRequestContext {
    host: Arc<dyn Host>,
    jar: CookieJar,
    /// Why the scenario's saved storage state could not be read: every
    /// request fails with it, unless `with_cookies` gives other cookies.
    state_error: Option<String>,
    /// Whether the open pages' cookies go along too (not after `with_cookies`).
    page_cookies: bool,
}

impl std::fmt::Debug for ApiRequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiRequestContext")
            .field("base_url", &self.host.base_url())
            .field("cookies", &self.jar.cookies().len())
            .finish()
    }
}

impl ApiRequestContext {
    pub(crate) fn new(host: Arc<dyn Host>) -> ApiRequestContext {
        let (jar, state_error) = match host.cookies() {
            Ok(jar) => (jar.unwrap_or_default(), None),
            Err(e) => (CookieJar::default(), Some(e.message())),
        };
        ApiRequestContext {
            host,
            jar,
            state_error,
            page_cookies: true,
        }
    }

    /// The same context sending the cookies of `jar` only (and keeping the
    /// ones responses set there), not the open pages' nor the saved state's:
    /// `s.request().with_cookies(CookieJar::from_storage_state(path)?)`, or
    /// `CookieJar::new()` for an anonymous client.
    pub fn with_cookies(mut self, jar: CookieJar) -> ApiRequestContext {
        self.jar = jar;
        self.state_error = None;
        self.page_cookies = false;
        self
    }

    /// The cookies this context holds.
    pub fn cookie_jar(&self) -> &CookieJar {
        &self.jar
    }

    /// A request with `method` to `url`.
    pub fn fetch(&self, method: Method, url: &str) -> RequestBuilder {
        RequestBuilder {
            ctx: self.clone(),
            method,
            url: url.to_string(),
            headers: Vec::new(),
            query: Vec::new(),
            body: Body::None,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// A `GET` of `url` (relative URLs join the base URL).
    pub fn get(&self, url: &str) -> RequestBuilder {
        self.fetch(Method::GET, url)
    }
    /// A `POST` to `url`.
    pub fn post(&self, url: &str) -> RequestBuilder {
        self.fetch(Method::POST, url)
    }
    /// A `PUT` to `url`.
    pub fn put(&self, url: &str) -> RequestBuilder {
        self.fetch(Method::PUT, url)
    }
    /// A `PATCH` to `url`.
    pub fn patch(&self, url: &str) -> RequestBuilder {
        self.fetch(Method::PATCH, url)
    }
    /// A `DELETE` of `url`.
    pub fn delete(&self, url: &str) -> RequestBuilder {
        self.fetch(Method::DELETE, url)
    }
    /// A `HEAD` of `url`.
    pub fn head(&self, url: &str) -> RequestBuilder {
        self.fetch(Method::HEAD, url)
    }
}

enum Body {
    None,
    Bytes(Vec<u8>),
    Json(Result<Vec<u8>, serde_json::Error>),
    Form(String),
}

/// One request being built: headers, query, body, time limit; then
/// [`send`](RequestBuilder::send).
#[must_use = "a request does nothing until it is sent: `.send().await?`"]
pub struct RequestBuilder {
    ctx: ApiRequestContext,
    method: Method,
    url: String,
    headers: Vec<(String, String)>,
    query: Vec<(String, String)>,
    body: Body,
    timeout: Duration,
}

impl std::fmt::Debug for RequestBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestBuilder")
            .field("method", &self.method)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl RequestBuilder {
    /// Adds a header (several with the same name are all sent).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// `Authorization: Bearer {token}` (masked in the evidence).
    pub fn bearer(self, token: impl std::fmt::Display) -> Self {
        self.header("authorization", format!("Bearer {token}"))
    }

    /// Appends `pairs` to the URL's query, percent-encoded.
    pub fn query<K: AsRef<str>, V: AsRef<str>>(mut self, pairs: &[(K, V)]) -> Self {
        self.query.extend(
            pairs
                .iter()
                .map(|(k, v)| (k.as_ref().to_string(), v.as_ref().to_string())),
        );
        self
    }

    /// A JSON body (`content-type: application/json` unless a header says otherwise).
    pub fn json<T: Serialize + ?Sized>(mut self, value: &T) -> Self {
        self.body = Body::Json(serde_json::to_vec(value));
        self
    }

    /// A form body, `application/x-www-form-urlencoded`.
    pub fn form<K: AsRef<str>, V: AsRef<str>>(mut self, pairs: &[(K, V)]) -> Self {
        let text = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs.iter().map(|(k, v)| (k.as_ref(), v.as_ref())))
            .finish();
        self.body = Body::Form(text);
        self
    }

    /// A raw body.
    pub fn body(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.body = Body::Bytes(bytes.into());
        self
    }

    /// How long the request may take, the whole body read (30 s by default).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
        self
    }

    /// The absolute URL, query appended.
    fn resolve(&self) -> Result<url::Url, ApiError> {
        let raw = if self.url.starts_with("http://") || self.url.starts_with("https://") {
            self.url.clone()
        } else {
            let base = self.ctx.host.base_url();
            if base.is_empty() {
                return Err(ApiError::NoBaseUrl {
                    path: self.url.clone(),
                });
            }
            join(&base, &self.url)
        };
        let mut url =
            url::Url::parse(&raw).map_err(|source| ApiError::BadUrl { url: raw, source })?;
        if !self.query.is_empty() {
            url.query_pairs_mut().extend_pairs(&self.query);
        }
        Ok(url)
    }

    /// Sends the request and reads the whole response. The exchange (or the
    /// failure) is recorded in the step's evidence before this returns. An
    /// HTTP error status is a response like any other: assert on it with
    /// [`expect`](crate::expect).
    pub async fn send(self) -> Result<ApiResponse, ApiError> {
        if let Some(reason) = &self.ctx.state_error {
            return Err(ApiError::StorageState {
                reason: reason.clone(),
            });
        }
        let url = self.resolve()?;
        let method = self.method.to_string();
        let started_at = chrono::Utc::now();
        let (body, content_type) = match self.body {
            Body::None => (Vec::new(), None),
            Body::Bytes(b) => (b, None),
            Body::Json(Ok(b)) => (b, Some("application/json")),
            Body::Json(Err(source)) => {
                return Err(ApiError::JsonBody {
                    method,
                    url: url.to_string(),
                    source,
                });
            }
            Body::Form(t) => (t.into_bytes(), Some("application/x-www-form-urlencoded")),
        };
        let mut headers = HeaderMap::new();
        let bad = |what: &str, source: http::Error| ApiError::BadRequest {
            method: method.clone(),
            url: url.to_string(),
            what: what.to_string(),
            source,
        };
        for (name, value) in &self.headers {
            let n = HeaderName::from_bytes(name.as_bytes()).map_err(|e| bad(name, e.into()))?;
            let v = HeaderValue::from_str(value).map_err(|e| bad(name, e.into()))?;
            headers.append(n, v);
        }
        if let Some(ct) = content_type
            && !headers.contains_key(http::header::CONTENT_TYPE)
        {
            headers.insert(http::header::CONTENT_TYPE, HeaderValue::from_static(ct));
        }
        if !headers.contains_key(http::header::COOKIE) {
            let cookies = self.ctx.cookies_for(&url).await?;
            if !cookies.is_empty() {
                let line = cookies
                    .iter()
                    .map(|c| format!("{}={}", c.name, c.value))
                    .collect::<Vec<_>>()
                    .join("; ");
                let v = HeaderValue::from_str(&line).map_err(|e| bad("cookie", e.into()))?;
                headers.insert(http::header::COOKIE, v);
            }
        }
        let mut builder = hyper::Request::builder()
            .method(self.method.clone())
            .uri(url.as_str());
        if let Some(h) = builder.headers_mut() {
            h.extend(headers.clone());
        }
        let request = builder
            .body(http_body_util::Full::new(Bytes::from(body.clone())))
            .map_err(|e| bad("URL", e))?;
        let clock = Instant::now();
        let sent = crate::evidence::http::send(request, self.timeout).await;
        let elapsed = clock.elapsed();
        let exchange = Exchange {
            method: &method,
            url: &url,
            started_at,
            elapsed,
            headers: &headers,
            body: &body,
        };
        match sent {
            Ok(res) => {
                for v in res.headers().get_all(http::header::SET_COOKIE) {
                    if let Ok(v) = v.to_str()
                        && let Some(c) = parse_set_cookie(v, &url)
                    {
                        self.ctx.jar.add(c);
                    }
                }
                let response = ApiResponse {
                    method: method.clone(),
                    url: url.to_string(),
                    status: res.status().as_u16(),
                    headers: res.headers().clone(),
                    body: res.into_body(),
                    elapsed,
                };
                let record = exchange.evidence(Some(&response), None);
                super::record(
                    &self.ctx.host,
                    "request",
                    &[("", "json", "api_response", &record)],
                )?;
                Ok(response)
            }
            Err(source) => {
                let record = exchange.evidence(None, Some(&source.to_string()));
                super::record(
                    &self.ctx.host,
                    "request",
                    &[("", "json", "api_response", &record)],
                )?;
                Err(ApiError::Send {
                    method,
                    url: url.to_string(),
                    source,
                })
            }
        }
    }
}

impl ApiRequestContext {
    /// The cookies for `url`: the jar's, then the open pages' (a page's
    /// cookie of the same name wins) unless `with_cookies` chose the jar alone.
    async fn cookies_for(&self, url: &url::Url) -> Result<Vec<Cookie>, ApiError> {
        let mut found = self.jar.for_url(url);
        let pages = if self.page_cookies {
            self.host.pages()
        } else {
            Vec::new()
        };
        for page in pages {
            let cookies = page
                .cookies_for(url)
                .await
                .map_err(|source| ApiError::PageCookies {
                    url: url.to_string(),
                    source,
                })?;
            for c in cookies {
                found.retain(|f| f.name != c.name);
                found.push(c);
            }
        }
        Ok(found)
    }
}

/// `path` joined onto `base` as [`Scenario::url`](crate::Scenario::url) does.
fn join(base: &str, path: &str) -> String {
    let base = base.trim_end_matches('/');
    if path.is_empty() {
        base.to_string()
    } else if path.starts_with('/') || path.starts_with('?') {
        format!("{base}{path}")
    } else {
        format!("{base}/{path}")
    }
}

/// One request and its answer, as they are recorded.
struct Exchange<'a> {
    method: &'a str,
    url: &'a url::Url,
    started_at: chrono::DateTime<chrono::Utc>,
    elapsed: Duration,
    headers: &'a HeaderMap,
    body: &'a [u8],
}

fn header_list(secrets: &mut Secrets, headers: &HeaderMap) -> Value {
    headers
        .iter()
        .map(|(k, v)| {
            let v = String::from_utf8_lossy(v.as_bytes());
            json!({ "name": k.as_str(), "value": secrets.header(k.as_str(), &v) })
        })
        .collect()
}

impl Exchange<'_> {
    /// `request-NN.json`: secrets masked, bodies bounded.
    fn evidence(&self, response: Option<&ApiResponse>, error: Option<&str>) -> Vec<u8> {
        let mut secrets = Secrets::default();
        let content_type = |h: &HeaderMap| {
            h.get(http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let req_headers = header_list(&mut secrets, self.headers);
        let req_body = mask::body(
            &mut secrets,
            self.body,
            content_type(self.headers).as_deref(),
        );
        let url = secrets.url(self.url);
        let mut value = json!({
            "method": self.method,
            "url": url,
            "startedAt": self.started_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "durationMs": self.elapsed.as_millis() as u64,
            "request": { "headers": req_headers, "body": req_body },
        });
        if let Some(r) = response {
            let headers = header_list(&mut secrets, &r.headers);
            let body = mask::body(&mut secrets, &r.body, content_type(&r.headers).as_deref());
            value["response"] = json!({
                "status": r.status,
                "statusText": http::StatusCode::from_u16(r.status).ok().and_then(|s| s.canonical_reason()).unwrap_or(""),
                "headers": headers,
                "body": body,
            });
        }
        if let Some(e) = error {
            value["error"] = e.into();
        }
        secrets.scrub(&mut value);
        serde_json::to_vec_pretty(&value).expect("JSON serializes")
    }
}

/// A whole HTTP response: status, headers, body.
#[derive(Clone, Debug)]
pub struct ApiResponse {
    pub(crate) method: String,
    pub(crate) url: String,
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
    pub(crate) elapsed: Duration,
}

impl ApiResponse {
    /// The status code.
    pub fn status(&self) -> u16 {
        self.status
    }
    /// Whether the status is 200–299.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
    /// The headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }
    /// One header's value (the first, when there are several; `None` when it
    /// is missing or not text).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    /// The URL requested (query included).
    pub fn url(&self) -> &str {
        &self.url
    }
    /// How long the exchange took.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }
    /// The body's bytes.
    pub fn body(&self) -> &[u8] {
        &self.body
    }
    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    /// The body parsed as JSON into `T`.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        serde_json::from_slice(&self.body).map_err(|source| ApiError::JsonResponse {
            method: self.method.clone(),
            url: self.url.clone(),
            status: self.status,
            body: self.text().chars().take(200).collect(),
            source,
        })
    }
    /// `GET http://… → 404`, as failures name it.
    pub(crate) fn describe(&self) -> String {
        format!("{} {} → {}", self.method, self.url, self.status)
    }
}
