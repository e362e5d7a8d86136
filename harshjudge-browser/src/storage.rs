//! [`StorageState`]: a page's cookies and the localStorage of every origin it
//! visited, in Playwright's `storageState` format, saved by
//! [`Page::save_storage_state`] to `.harshJudge/.auth/{name}.json` and given
//! back to a scenario's page by `#[scenario(storage_state = "name")]`. What it
//! holds is secret: it never lands in evidence.

use serde::{Deserialize, Serialize};

use super::backend::PageBackend;
pub use super::cookies::Cookie;
use super::cookies::STATE_PAGE;
use super::error::BrowserError;
use super::page::{Page, origin_of};
pub use super::state_name::StateName;

/// The document's localStorage, `[[key, value], …]`.
const LOCAL_STORAGE: &str = "Object.keys(localStorage).map(k => [k, localStorage.getItem(k)])";

/// Cookies and localStorage, as Playwright's `context.storageState()` writes them:
/// `{"cookies": [...], "origins": [{"origin", "localStorage": [{name, value}]}]}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageState {
    /// Every cookie of the browser.
    pub cookies: Vec<Cookie>,
    /// The localStorage of each origin the page visited (origins without any left out).
    #[serde(default)]
    pub origins: Vec<OriginState>,
}

/// The localStorage of one origin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OriginState {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// Its entries.
    pub local_storage: Vec<NameValue>,
}

/// A localStorage entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NameValue {
    /// Key.
    pub name: String,
    /// Value.
    pub value: String,
}

fn storage_error(name: &str, source: impl std::fmt::Display) -> BrowserError {
    BrowserError::Invalid {
        message: format!("storage state {name:?}: {source}"),
        location: None,
    }
}

impl Page {
    /// Every cookie the browser holds (WebKit: those of the current document).
    #[doc(hidden)]
    pub async fn all_cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        self.backend().cookies().await
    }

    /// The cookies a request to `url` would carry (domain, path, `Secure` and
    /// expiry matched), as the browser holds them.
    pub async fn cookies_for(&self, url: &url::Url) -> Result<Vec<Cookie>, BrowserError> {
        Ok(Cookie::for_url(self.all_cookies().await?, url))
    }

    /// Sets `cookies` in the browser. WebKit sets a cookie through the page's
    /// document, so the page is taken to the base URL when its host is the
    /// cookie's (a cookie of another host is refused by name).
    pub(crate) async fn set_cookies(&self, cookies: &[Cookie]) -> Result<(), BrowserError> {
        if cookies.is_empty() {
            return Ok(());
        }
        self.backend().set_cookies(cookies, self.base_url()).await
    }

    /// Gives the browser cookies a response's `Set-Cookie` headers carried
    /// (what a scenario's `s.request()` got while this page is open): each
    /// set, or, expired (`Max-Age=0`, a past `Expires`), deleted by name,
    /// domain and path, as the browser itself would on that response. WebKit
    /// sets and deletes through the page's document: while it shows a page of
    /// the cookie's host, there; on `about:blank`, through a page of the base
    /// URL's host and back; on another host's page, an error naming it.
    #[doc(hidden)]
    pub async fn store_cookies(&self, cookies: &[Cookie]) -> Result<(), BrowserError> {
        self.backend().store_cookies(cookies, self.base_url()).await
    }

    /// The cookies of the browser and the localStorage of every origin the
    /// page visited, as Playwright's `context.storageState()` gives them.
    pub async fn storage_state(&self) -> Result<StorageState, BrowserError> {
        let current = self.url().await.ok().and_then(|u| origin_of(&u));
        if let Some(origin) = &current {
            self.visited(origin);
        }
        let cookies = self.all_cookies().await?;
        let mut origins = Vec::new();
        for origin in self.visited_origins() {
            let entries = if current.as_deref() == Some(origin.as_str()) {
                self.evaluate::<Vec<(String, String)>, _>(&format!("() => {LOCAL_STORAGE}"), ())
                    .await?
            } else {
                self.left_origin_storage(&origin).await
            };
            if !entries.is_empty() {
                origins.push(OriginState {
                    origin,
                    local_storage: entries
                        .into_iter()
                        .map(|(name, value)| NameValue { name, value })
                        .collect(),
                });
            }
        }
        Ok(StorageState { cookies, origins })
    }

    /// The localStorage of `origin`, an origin the page left: read on its
    /// state page in a page of the context of its own, as Playwright's
    /// storageState reads it. An origin that answers no more has none to
    /// give (as the restore skips it): said on stderr.
    async fn left_origin_storage(&self, origin: &str) -> Vec<(String, String)> {
        let url = format!("{origin}{STATE_PAGE}");
        let expression = format!("JSON.stringify({LOCAL_STORAGE})");
        match self.backend().evaluate_aside(&url, &expression).await {
            Ok(json) => serde_json::from_str(&json).unwrap_or_default(),
            Err(e) => {
                eprintln!("harshjudge: the storage state has no localStorage of {origin}: {e}");
                Vec::new()
            }
        }
    }

    /// Saves [`storage_state`](Page::storage_state) as `name`, to
    /// `.harshJudge/.auth/{name}.json` (atomically, mode 0600, ignored by git),
    /// for scenarios declared `#[scenario(storage_state = "name")]`. The name is
    /// letters, digits, `_`, `-` and `.`. Needs a page opened by a scenario
    /// (`s.page()`); nothing of the state goes into evidence. Returns the file.
    pub async fn save_storage_state(&self, name: &str) -> Result<std::path::PathBuf, BrowserError> {
        let state_name = StateName::new(name)?;
        let Some(owner) = self.owner() else {
            return Err(BrowserError::Invalid {
                message: format!(
                    "save_storage_state({name:?}) needs a page opened by a scenario (`s.page().await?`): it saves into that scenario's .harshJudge/"
                ),
                location: None,
            });
        };
        let state = self.storage_state().await?;
        let bytes = serde_json::to_vec_pretty(&state).expect("a storage state serialises");
        owner
            .save_storage_state(&state_name, &bytes)
            .map_err(|source| storage_error(name, source))
    }

    /// Starts the page with `state`: every cookie set, then each origin's
    /// localStorage written while a page of that origin is open (one that
    /// runs none of the app's scripts: a path under `/.harshjudge/` the app
    /// answers 404 to), then back to `about:blank`. So the app's first page
    /// finds the state before any of its scripts runs.
    pub async fn restore_storage_state(&self, state: &StorageState) -> Result<(), BrowserError> {
        self.set_cookies(&state.cookies).await?;
        for origin in &state.origins {
            if origin.local_storage.is_empty() {
                continue;
            }
            let url = format!("{}{STATE_PAGE}", origin.origin);
            let opened = self
                .backend()
                .open_url(&url, &format!("opening {url} to restore its localStorage"))
                .await;
            if opened.is_err() {
                // An origin that answers no more (an app started on another
                // port since): its localStorage has nowhere to go.
                continue;
            }
            let entries: Vec<(&str, &str)> = origin
                .local_storage
                .iter()
                .map(|e| (e.name.as_str(), e.value.as_str()))
                .collect();
            // On the browser's own error page (the origin did not answer) there
            // is no localStorage of that origin to write: skipped the same way.
            let written = self
                .evaluate::<bool, _>(
                    "(entries) => { if (location.protocol.indexOf('http') !== 0) return false; \
                     for (const [k, v] of entries) localStorage.setItem(k, v); return true; }",
                    entries,
                )
                .await;
            if written.unwrap_or(false) {
                self.visited(&origin.origin);
            }
        }
        if !state.origins.is_empty() {
            self.backend()
                .open_url("about:blank", "opening about:blank")
                .await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cookie(name: &str, domain: &str, path: &str, secure: bool) -> Cookie {
        Cookie {
            name: name.into(),
            value: "v".into(),
            domain: domain.into(),
            path: path.into(),
            expires: -1.0,
            http_only: true,
            secure,
            same_site: "Lax".into(),
        }
    }

    #[test]
    fn playwright_format() {
        let state = StorageState {
            cookies: vec![cookie("sid", "127.0.0.1", "/", false)],
            origins: vec![OriginState {
                origin: "http://127.0.0.1:8000".into(),
                local_storage: vec![NameValue {
                    name: "k".into(),
                    value: "v".into(),
                }],
            }],
        };
        let v = serde_json::to_value(&state).unwrap();
        assert_eq!(
            v,
            json!({"cookies": [{"name": "sid", "value": "v", "domain": "127.0.0.1", "path": "/",
                "expires": -1.0, "httpOnly": true, "secure": false, "sameSite": "Lax"}],
                "origins": [{"origin": "http://127.0.0.1:8000", "localStorage": [{"name": "k", "value": "v"}]}]})
        );
        assert_eq!(serde_json::from_value::<StorageState>(v).unwrap(), state);
    }

    #[test]
    fn a_cookie_matches_its_domain_path_and_scheme() {
        let names = |url: &str| {
            let url = url::Url::parse(url).unwrap();
            [
                cookie("a", "127.0.0.1", "/", false),
                cookie("b", "127.0.0.1", "/admin", false),
                cookie("c", "127.0.0.1", "/", true),
                cookie("d", ".example.com", "/", false),
            ]
            .iter()
            .filter(|c| c.matches(&url))
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(",")
        };
        assert_eq!(names("http://127.0.0.1:9/x"), "a");
        assert_eq!(names("http://127.0.0.1:9/admin/users"), "a,b");
        assert_eq!(names("http://127.0.0.1:9/admin"), "a,b");
        assert_eq!(names("http://127.0.0.1:9/administrator"), "a");
        assert_eq!(names("https://127.0.0.1:9/"), "a,c");
        assert_eq!(names("http://api.EXAMPLE.com/"), "d");
        assert_eq!(names("http://example.com/"), "d");
        assert_eq!(names("http://badexample.com/"), "");
        assert_eq!(names("http://localhost/"), "");
    }

    #[test]
    fn an_expired_cookie_matches_nothing_and_a_sparse_one_reads() {
        let mut c = cookie("a", "127.0.0.1", "/", false);
        c.expires = 1.0;
        assert!(!c.matches(&url::Url::parse("http://127.0.0.1/").unwrap()));
        let c: Cookie =
            serde_json::from_value(json!({"name": "sid", "value": "1", "domain": "h"})).unwrap();
        assert_eq!(
            (c.path.as_str(), c.expires, c.same_site.as_str()),
            ("/", -1.0, "Lax")
        );
        let s: StorageState = serde_json::from_value(json!({"cookies": []})).unwrap();
        assert!(s.origins.is_empty());
    }
}
