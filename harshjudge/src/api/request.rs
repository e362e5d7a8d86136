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
use harshjudge_browser::Cookie;

/// The default time a request may take, response body included.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// HTTP requests from a scenario, each recorded as evidence of its step (see
/// [`crate::api`]). Relative URLs join the base URL. A scenario's requests and
/// its pages share one cookie jar both ways, as Playwright's `page.request`
/// shares its browser context's: while a page is open, the requests carry the
/// cookies the browser holds now (what the page set or deleted) and a
/// response's `Set-Cookie` goes into the browser; before any page opens, they
/// keep a jar of the scenario's (seeded from its saved storage state, shared
/// by every `s.request()`), handed to its page as it opens.
/// [`with_cookies`](ApiRequestContext::with_cookies) gives a context a jar of
/// its own instead. Defaults for every request:
/// [`extra_http_headers`](ApiRequestContext::extra_http_headers),
/// [`authorization`](ApiRequestContext::authorization). Cheap to clone;
/// clones share the cookies.
#[derive(Clone)]
pub struct ApiRequestContext {
    host: Arc<dyn Host>,
    jar: Jar,
    /// Headers every request carries unless it sets its own of that name
    /// (Playwright's `extraHTTPHeaders`).
    headers: Vec<(String, String)>,
}

/// Where a context's cookies live.
#[derive(Clone)]
enum Jar {
    /// The scenario's: its open pages' (the browser's own), or, with none
    /// open, the jar its requests share ([`Host::cookie_jar`]).
    Scenario,
    /// [`ApiRequestContext::with_cookies`]'s: this jar alone.
    Own(CookieJar),
}

impl std::fmt::Debug for ApiRequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Header names only: their values may be secrets.
        let names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("ApiRequestContext")
            .field("base_url", &self.host.base_url())
            .field(
                "cookies",
                &match &self.jar {
                    Jar::Scenario => "the scenario's".to_string(),
                    Jar::Own(jar) => format!("its own jar of {}", jar.cookies().len()),
                },
            )
            .field("extra_http_headers", &names)
            .finish()
    }
}

impl ApiRequestContext {
    pub(crate) fn new(host: Arc<dyn Host>) -> ApiRequestContext {
        ApiRequestContext {
            host,
            jar: Jar::Scenario,
            headers: Vec::new(),
        }
    }

    /// The same context sending the cookies of `jar` only (and keeping the
    /// ones responses set there), not the scenario's (its pages', its saved
    /// state's): `s.request().with_cookies(CookieJar::from_storage_state(path)?)`,
    /// or `CookieJar::new()` for an anonymous client.
    pub fn with_cookies(mut self, jar: CookieJar) -> ApiRequestContext {
        self.jar = Jar::Own(jar);
        self
    }

    /// The same context with `headers` on every request (Playwright's
    /// `extraHTTPHeaders`): `s.request().extra_http_headers([("x-api-key", key)])`.
    /// A request's own header of the same name (any case) replaces one of these;
    /// calling it again adds to them. Values of secret headers (`Authorization`,
    /// `Cookie`, …) are masked in the evidence as a request's own are.
    pub fn extra_http_headers<K, V>(mut self, headers: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        self.headers
            .extend(headers.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    /// The same context with `Authorization: {value}` on every request, the
    /// value whole, its scheme yours: `.authorization(format!("Bearer {token}"))`,
    /// `.authorization("Token abc")`, `.authorization(format!("Basic {b64}"))`.
    /// It replaces an earlier one; a request's own `authorization` or
    /// `bearer` replaces it for that request. Masked in the evidence.
    pub fn authorization(mut self, value: impl Into<String>) -> Self {
        self.headers
            .retain(|(k, _)| !k.eq_ignore_ascii_case("authorization"));
        self.headers.push(("authorization".into(), value.into()));
        self
    }

    /// The same context with `Authorization: Bearer {token}` on every
    /// request (as [`authorization`](ApiRequestContext::authorization)).
    pub fn bearer(self, token: impl std::fmt::Display) -> Self {
        self.authorization(format!("Bearer {token}"))
    }

    /// Every cookie this context's requests choose from now (Playwright's
    /// `context.cookies()`): the open pages' as the browser holds them, or,
    /// with none open, the scenario's jar's (or the one `with_cookies` gave).
    pub async fn cookies(&self) -> Result<Vec<Cookie>, ApiError> {
        match &self.jar {
            Jar::Own(jar) => Ok(jar.cookies()),
            Jar::Scenario => {
                let pages = self.host.pages();
                if pages.is_empty() {
                    return Ok(self.scenario_jar()?.cookies());
                }
                super::cookies::pages_cookies(&pages)
                    .await
                    .map_err(|source| ApiError::PageCookies {
                        url: self.host.base_url(),
                        source,
                    })
            }
        }
    }

    /// A request with `method` to `url` (any string: `&str`, `String`,
    /// `format!(…)`).
    pub fn fetch(&self, method: Method, url: impl AsRef<str>) -> RequestBuilder {
        RequestBuilder {
            ctx: self.clone(),
            method,
            url: url.as_ref().to_string(),
            headers: Vec::new(),
            query: Vec::new(),
            body: Body::None,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// A `GET` of `url` (relative URLs join the base URL).
    pub fn get(&self, url: impl AsRef<str>) -> RequestBuilder {
        self.fetch(Method::GET, url)
    }
    /// A `POST` to `url`.
    pub fn post(&self, url: impl AsRef<str>) -> RequestBuilder {
        self.fetch(Method::POST, url)
    }
    /// A `PUT` to `url`.
    pub fn put(&self, url: impl AsRef<str>) -> RequestBuilder {
        self.fetch(Method::PUT, url)
    }
    /// A `PATCH` to `url`.
    pub fn patch(&self, url: impl AsRef<str>) -> RequestBuilder {
        self.fetch(Method::PATCH, url)
    }
    /// A `DELETE` of `url`.
    pub fn delete(&self, url: impl AsRef<str>) -> RequestBuilder {
        self.fetch(Method::DELETE, url)
    }
    /// A `HEAD` of `url`.
    pub fn head(&self, url: impl AsRef<str>) -> RequestBuilder {
        self.fetch(Method::HEAD, url)
    }

    /// The scenario's jar; an error when its saved storage state cannot be read.
    fn scenario_jar(&self) -> Result<CookieJar, ApiError> {
        self.host.cookie_jar()
    }

    /// The cookies for `url`: the open pages' (a later page's cookie of a
    /// name wins), or, with none open, the jar's.
    async fn cookies_for(&self, url: &url::Url) -> Result<Vec<Cookie>, ApiError> {
        let pages = match &self.jar {
            Jar::Own(jar) => return Ok(jar.for_url(url)),
            Jar::Scenario => self.host.pages(),
        };
        if pages.is_empty() {
            return Ok(self.scenario_jar()?.for_url(url));
        }
        let mut found: Vec<Cookie> = Vec::new();
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
        Ok(Cookie::for_url(found, url))
    }

    /// Keeps the cookies a response to `url` set where the next request (and
    /// the page) reads them: in every open page's browser, or, with none
    /// open, in the jar.
    async fn keep(&self, url: &url::Url, cookies: Vec<Cookie>) -> Result<(), ApiError> {
        if cookies.is_empty() {
            return Ok(());
        }
        let pages = match &self.jar {
            Jar::Own(jar) => {
                cookies.into_iter().for_each(|c| jar.add(c));
                return Ok(());
            }
            Jar::Scenario => self.host.pages(),
        };
        if pages.is_empty() {
            let jar = self.scenario_jar()?;
            cookies.into_iter().for_each(|c| jar.add(c));
            return Ok(());
        }
        for page in pages {
            page.store_cookies(&cookies)
                .await
                .map_err(|source| ApiError::StoreCookies {
                    url: url.to_string(),
                    source,
                })?;
        }
        Ok(())
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
    /// Adds a header (several with the same name are all sent; they replace
    /// the context's [`extra_http_headers`](ApiRequestContext::extra_http_headers)
    /// of that name).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// `Authorization: Bearer {token}` (masked in the evidence).
    pub fn bearer(self, token: impl std::fmt::Display) -> Self {
        self.authorization(format!("Bearer {token}"))
    }

    /// `Authorization: {value}`, the value whole, its scheme yours (masked in
    /// the evidence): for this request, in place of the context's
    /// [`authorization`](ApiRequestContext::authorization).
    pub fn authorization(mut self, value: impl Into<String>) -> Self {
        self.headers
            .retain(|(k, _)| !k.eq_ignore_ascii_case("authorization"));
        self.header("authorization", value)
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

    /// A raw body (bytes or text).
    pub fn body(mut self, bytes: impl AsRef<[u8]>) -> Self {
        self.body = Body::Bytes(bytes.as_ref().to_vec());
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
        let parse = |(name, value): &(String, String)| {
            let n = HeaderName::from_bytes(name.as_bytes()).map_err(|e| bad(name, e.into()))?;
            let v = HeaderValue::from_str(value).map_err(|e| bad(name, e.into()))?;
            Ok::<_, ApiError>((n, v))
        };
        let own = self
            .headers
            .iter()
            .map(parse)
            .collect::<Result<Vec<_>, _>>()?;
        // The context's defaults first, less those the request sets itself.
        for default in &self.ctx.headers {
            let (n, v) = parse(default)?;
            if !own.iter().any(|(o, _)| *o == n) {
                headers.append(n, v);
            }
        }
        for (n, v) in own {
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
                let set: Vec<Cookie> = res
                    .headers()
                    .get_all(http::header::SET_COOKIE)
                    .iter()
                    .filter_map(|v| parse_set_cookie(v.to_str().ok()?, &url))
                    .collect();
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
                self.ctx.keep(&url, set).await?;
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
        super::json::read(&self.body, |source, body| ApiError::JsonResponse {
            method: self.method.clone(),
            url: self.url.clone(),
            status: self.status,
            body,
            source,
        })
    }
    /// `GET http://… → 404`, as failures name it.
    pub(crate) fn describe(&self) -> String {
        format!("{} {} → {}", self.method, self.url, self.status)
    }
}
