//! [`CookieJar`]: the cookies an [`ApiRequestContext`](super::ApiRequestContext)
//! sends, from a Playwright storage state file and from the responses' `Set-Cookie`.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::ApiError;

/// A cookie as Playwright's storage state stores it
/// (`{"cookies": [{name, value, domain, path, expires, httpOnly, secure, sameSite}]}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredCookie {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// The host it belongs to; a leading `.` also matches its subdomains.
    pub domain: String,
    /// The path prefix it is sent under.
    #[serde(default = "root_path")]
    pub path: String,
    /// When it expires, in seconds since the Unix epoch; `-1` for a session cookie.
    #[serde(default = "session")]
    pub expires: f64,
    /// Hidden from page scripts.
    #[serde(default)]
    pub http_only: bool,
    /// Sent over HTTPS only.
    #[serde(default)]
    pub secure: bool,
    /// `Strict`, `Lax` or `None`.
    #[serde(default = "lax")]
    pub same_site: String,
}

fn root_path() -> String {
    "/".into()
}
fn session() -> f64 {
    -1.0
}
fn lax() -> String {
    "Lax".into()
}

impl From<crate::browser::Cookie> for StoredCookie {
    /// A cookie of a saved storage state (`page.save_storage_state`).
    fn from(c: crate::browser::Cookie) -> StoredCookie {
        StoredCookie {
            name: c.name,
            value: c.value,
            domain: c.domain,
            path: c.path,
            expires: c.expires,
            http_only: c.http_only,
            secure: c.secure,
            same_site: c.same_site,
        }
    }
}

impl StoredCookie {
    /// Whether it goes with a request to `url` now.
    pub fn matches(&self, url: &url::Url) -> bool {
        let Some(host) = url.host_str() else {
            return false;
        };
        let domain = self.domain.trim_start_matches('.');
        let host_ok = host.eq_ignore_ascii_case(domain)
            || (self.domain.starts_with('.')
                && host
                    .to_ascii_lowercase()
                    .ends_with(&format!(".{}", domain.to_ascii_lowercase())));
        let path = url.path();
        let path_ok = path == self.path
            || (path.starts_with(&self.path)
                && (self.path.ends_with('/') || path[self.path.len()..].starts_with('/')));
        let secure_ok = !self.secure || url.scheme() == "https";
        host_ok && path_ok && secure_ok && !self.expired()
    }

    fn expired(&self) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        self.expires >= 0.0 && self.expires <= now
    }

    /// A `Set-Cookie` header of a response to `url`, as a cookie (`None` when
    /// it does not parse).
    pub(crate) fn from_set_cookie(header: &str, url: &url::Url) -> Option<StoredCookie> {
        let mut parts = header.split(';');
        let (name, value) = parts.next()?.trim().split_once('=')?;
        let mut cookie = StoredCookie {
            name: name.trim().to_string(),
            value: value.trim().trim_matches('"').to_string(),
            domain: url.host_str()?.to_string(),
            path: default_path(url),
            expires: -1.0,
            http_only: false,
            secure: false,
            same_site: lax(),
        };
        if cookie.name.is_empty() {
            return None;
        }
        for attr in parts {
            let (k, v) = attr.trim().split_once('=').unwrap_or((attr.trim(), ""));
            match k.to_ascii_lowercase().as_str() {
                "domain" if !v.is_empty() => {
                    cookie.domain = format!(".{}", v.trim_start_matches('.'))
                }
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
}

/// The default cookie path of a response to `url` (RFC 6265 5.1.4).
fn default_path(url: &url::Url) -> String {
    let path = url.path();
    match path.rfind('/') {
        Some(0) | None => "/".into(),
        Some(i) => path[..i].to_string(),
    }
}

#[derive(Deserialize)]
struct StorageState {
    cookies: Vec<StoredCookie>,
}

/// The cookies an [`ApiRequestContext`](super::ApiRequestContext) sends:
/// started from a saved storage state ([`CookieJar::from_storage_state`]) or
/// a list, and kept up to date from the responses' `Set-Cookie`. Cheap to
/// clone; clones share the cookies.
#[derive(Clone, Debug, Default)]
pub struct CookieJar {
    cookies: Arc<Mutex<Vec<StoredCookie>>>,
}

impl CookieJar {
    /// An empty jar.
    pub fn new() -> CookieJar {
        CookieJar::default()
    }

    /// A jar holding `cookies`.
    pub fn from_cookies(cookies: impl IntoIterator<Item = StoredCookie>) -> CookieJar {
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
        let state: StorageState =
            serde_json::from_slice(&bytes).map_err(|source| ApiError::StorageStateParse {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(CookieJar::from_cookies(state.cookies))
    }

    /// Adds `cookie`, replacing one of the same name, domain and path (an
    /// expired cookie removes it).
    pub fn add(&self, cookie: StoredCookie) {
        let mut all = self.cookies.lock().unwrap_or_else(|p| p.into_inner());
        all.retain(|c| {
            !(c.name == cookie.name && c.domain == cookie.domain && c.path == cookie.path)
        });
        if !cookie.expired() {
            all.push(cookie);
        }
    }

    /// Every cookie held (expired ones left out).
    pub fn cookies(&self) -> Vec<StoredCookie> {
        let all = self.cookies.lock().unwrap_or_else(|p| p.into_inner());
        all.iter().filter(|c| !c.expired()).cloned().collect()
    }

    /// The cookies that go with a request to `url`, longest path first.
    pub fn for_url(&self, url: &url::Url) -> Vec<StoredCookie> {
        let mut found: Vec<StoredCookie> = self
            .cookies()
            .into_iter()
            .filter(|c| c.matches(url))
            .collect();
        found.sort_by_key(|c| std::cmp::Reverse(c.path.len()));
        found
    }
}
