//! [`CookieJar`]: the cookies an [`ApiRequestContext`](super::ApiRequestContext)
//! sends, from a Playwright storage state file and from the responses'
//! `Set-Cookie`; and the one jar a scenario's requests and pages share: its
//! open pages' cookies while any is open, before that a jar of its own
//! ([`Host::cookie_jar`](super::Host::cookie_jar)) that
//! [`scenario_cookies`] hands to the page it opens.

use std::path::Path;
use std::sync::{Arc, Mutex};

use super::ApiError;
use harshjudge_browser::{BrowserError, Cookie, Page};

/// Every cookie of the open `pages`' browsers (a later page's cookie of the
/// same name, domain and path wins).
pub(crate) async fn pages_cookies(pages: &[Page]) -> Result<Vec<Cookie>, BrowserError> {
    let jar = CookieJar::new();
    for page in pages {
        for c in page.all_cookies().await? {
            jar.add(c);
        }
    }
    Ok(jar.cookies())
}

/// The cookies a scenario has now, which a page it opens starts with: those
/// of its open `pages` (what they set and deleted), or, with none open, those
/// of its `jar` (its saved storage state's, and what its requests' responses
/// set). So its requests and pages share one jar whichever comes first.
pub(crate) async fn scenario_cookies(
    pages: &[Page],
    jar: &CookieJar,
) -> Result<Vec<Cookie>, BrowserError> {
    if pages.is_empty() {
        Ok(jar.cookies())
    } else {
        pages_cookies(pages).await
    }
}

/// A `Set-Cookie` header of a response to `url`, as a cookie (`None` when it
/// does not parse).
pub(crate) fn parse_set_cookie(header: &str, url: &url::Url) -> Option<Cookie> {
    let mut parts = header.split(';');
    let (name, value) = parts.next()?.trim().split_once('=')?;
    let mut cookie = Cookie {
        name: name.trim().to_string(),
        value: value.trim().trim_matches('"').to_string(),
        domain: url.host_str()?.to_string(),
        path: default_path(url),
        expires: -1.0,
        http_only: false,
        secure: false,
        same_site: "Lax".into(),
    };
    if cookie.name.is_empty() {
        return None;
    }
    for attr in parts {
        let (k, v) = attr.trim().split_once('=').unwrap_or((attr.trim(), ""));
        match k.to_ascii_lowercase().as_str() {
            "domain" if !v.is_empty() => cookie.domain = format!(".{}", v.trim_start_matches('.')),
            "path" if v.starts_with('/') => cookie.path = v.to_string(),
            "max-age" => {
                if let Ok(secs) = v.parse::<i64>() {
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_secs_f64())
                        .unwrap_or(0.0);
                    cookie.expires = if secs <= 0 { 0.0 } else { now + secs as f64 };
                }
            }
            "expires" => {
                if let Ok(t) = chrono::DateTime::parse_from_rfc2822(&v.replace('-', " "))
                    && cookie.expires < 0.0
                {
                    cookie.expires = t.timestamp() as f64;
                }
            }
            "httponly" => cookie.http_only = true,
            "secure" => cookie.secure = true,
            "samesite" => cookie.same_site = v.to_string(),
            _ => {}
        }
    }
    Some(cookie)
}

/// The default cookie path of a response to `url` (RFC 6265 5.1.4).
fn default_path(url: &url::Url) -> String {
    let path = url.path();
    match path.rfind('/') {
        Some(0) | None => "/".into(),
        Some(i) => path[..i].to_string(),
    }
}

/// The cookies an [`ApiRequestContext`](super::ApiRequestContext) sends:
/// started from a saved storage state ([`CookieJar::from_storage_state`]) or
/// a list, and kept up to date from the responses' `Set-Cookie`. Cheap to
/// clone; clones share the cookies.
#[derive(Clone, Debug, Default)]
pub struct CookieJar {
    cookies: Arc<Mutex<Vec<Cookie>>>,
}

impl CookieJar {
    /// An empty jar.
    pub fn new() -> CookieJar {
        CookieJar::default()
    }

    /// A jar holding `cookies`.
    pub fn from_cookies(cookies: impl IntoIterator<Item = Cookie>) -> CookieJar {
        let jar = CookieJar::new();
        for c in cookies {
            jar.add(c);
        }
        jar
    }

    /// The cookies of a Playwright storage state file
    /// (`.harshJudge/.auth/<name>.json`: `{"cookies": […], "origins": […]}`).
    pub fn from_storage_state(path: impl AsRef<Path>) -> Result<CookieJar, ApiError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| ApiError::StorageStateRead {
            path: path.to_path_buf(),
            source,
        })?;
        let state: harshjudge_browser::StorageState =
            serde_json::from_slice(&bytes).map_err(|source| ApiError::StorageStateParse {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(CookieJar::from_cookies(state.cookies))
    }

    /// Adds `cookie`, replacing one of the same name, domain and path (an
    /// expired cookie removes it).
    pub fn add(&self, cookie: Cookie) {
        let mut all = self.cookies.lock().unwrap_or_else(|p| p.into_inner());
        all.retain(|c| {
            !(c.name == cookie.name && c.domain == cookie.domain && c.path == cookie.path)
        });
        if !cookie.expired() {
            all.push(cookie);
        }
    }

    /// Every cookie held (expired ones left out).
    pub fn cookies(&self) -> Vec<Cookie> {
        let all = self.cookies.lock().unwrap_or_else(|p| p.into_inner());
        all.iter().filter(|c| !c.expired()).cloned().collect()
    }

    /// The cookies that go with a request to `url`, longest path first.
    pub fn for_url(&self, url: &url::Url) -> Vec<Cookie> {
        Cookie::for_url(self.cookies(), url)
    }
}
