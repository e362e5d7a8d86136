//! Cookies, one shape for every protocol: [`Cookie`] (Playwright's), read
//! from and written as each protocol's own (DevTools, WebDriver BiDi's
//! `storage`, classic WebDriver). The page's cookie methods are
//! `storage.rs`'s; each backend reads and writes them its way.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::bidi::protocol::{BytesValue, NetworkCookie, PartialCookie};

/// The page of an app's origin the state is written through: a path the app
/// answers 404 to, so none of its scripts runs there.
pub(crate) const STATE_PAGE: &str = "/.harshjudge/storage-state";

/// One cookie, as Playwright writes it: what a saved storage state holds, what
/// a scenario's page starts with and what its `s.request()` sends. Reading is
/// lenient as Playwright's is: `path` defaults to `/`, `expires` to `-1`,
/// `sameSite` to `Lax`, the flags to `false`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cookie {
    /// Name.
    pub name: String,
    /// Value.
    pub value: String,
    /// Domain (`.example.com` for a domain cookie, which its subdomains share).
    pub domain: String,
    /// The path prefix it is sent under.
    #[serde(default = "root_path")]
    pub path: String,
    /// Expiry in Unix seconds; `-1` for a session cookie.
    #[serde(default = "session")]
    pub expires: f64,
    /// `HttpOnly`.
    #[serde(default)]
    pub http_only: bool,
    /// `Secure`: sent over HTTPS only.
    #[serde(default)]
    pub secure: bool,
    /// `SameSite`: `"Strict"`, `"Lax"` or `"None"`.
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

impl Cookie {
    /// Whether it goes with a request to `url` now: its domain (a leading `.`
    /// also matches subdomains), its path (RFC 6265 path-match), `Secure`
    /// over HTTPS only, and not expired.
    pub fn matches(&self, url: &url::Url) -> bool {
        let Some(host) = url.host_str() else {
            return false;
        };
        let host = host.to_ascii_lowercase();
        let domain = self.domain.to_ascii_lowercase();
        let host_ok = match domain.strip_prefix('.') {
            Some(d) => host == d || host.ends_with(&format!(".{d}")),
            None => host == domain,
        };
        let path = url.path();
        let path_ok = path.starts_with(&self.path)
            && (self.path.ends_with('/')
                || path.len() == self.path.len()
                || path.as_bytes().get(self.path.len()) == Some(&b'/'));
        host_ok && path_ok && (!self.secure || url.scheme() == "https") && !self.expired()
    }

    /// Those of `cookies` that go with a request to `url`, longest path first
    /// (the order a browser sends them in).
    pub fn for_url(cookies: impl IntoIterator<Item = Cookie>, url: &url::Url) -> Vec<Cookie> {
        let mut found: Vec<Cookie> = cookies.into_iter().filter(|c| c.matches(url)).collect();
        found.sort_by_key(|c| std::cmp::Reverse(c.path.len()));
        found
    }

    /// Whether its expiry has passed (a session cookie never expires here).
    pub fn expired(&self) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        self.expires >= 0.0 && self.expires <= now
    }
}

pub(crate) fn list(v: &Value, one: fn(&Value) -> Option<Cookie>) -> Vec<Cookie> {
    v.as_array()
        .map(|all| all.iter().filter_map(one).collect())
        .unwrap_or_default()
}

/// `Strict`, `Lax` or `None`, whatever the case the protocol wrote it in.
fn same_site(v: &Value) -> String {
    match v.as_str().map(str::to_ascii_lowercase).as_deref() {
        Some("strict") => "Strict".into(),
        Some("none") => "None".into(),
        _ => "Lax".into(),
    }
}

/// The fields every protocol writes alike, with the two each writes its own way.
fn cookie(c: &Value, value: Option<&str>, expires: f64) -> Option<Cookie> {
    Some(Cookie {
        name: c["name"].as_str()?.to_string(),
        value: value?.to_string(),
        domain: c["domain"].as_str()?.to_string(),
        path: c["path"].as_str().unwrap_or("/").to_string(),
        expires,
        http_only: c["httpOnly"] == true,
        secure: c["secure"] == true,
        same_site: same_site(&c["sameSite"]),
    })
}

/// A DevTools cookie (`expires` in seconds, `session: true` for a session
/// cookie), its expiry rounded to whole seconds as BiDi's and classic
/// WebDriver's are (Chromium's BiDi rounds the same DevTools value).
pub(crate) fn cdp_cookie(c: &Value) -> Option<Cookie> {
    let expires = if c["session"] == true {
        -1.0
    } else {
        c["expires"].as_f64().map_or(-1.0, f64::round)
    };
    cookie(c, c["value"].as_str(), expires)
}

/// A BiDi `network.Cookie` (`expiry` in seconds; a text value: a cookie
/// whose value is bytes in base64 is no text cookie, and is left out).
/// Chromium's BiDi writes `none` for a cookie set without `SameSite` (which
/// DevTools leaves out, and Chromium treats as `Lax`); as Chromium refuses
/// `SameSite=None` without `Secure`, its `none` on a cookie that is not
/// `Secure` is read as DevTools gives it, `Lax`.
pub(crate) fn bidi_cookie(c: &NetworkCookie, chromium: bool) -> Option<Cookie> {
    let BytesValue::String { value } = &c.value else {
        return None;
    };
    let unset = chromium && !c.secure && c.same_site.as_deref() == Some("none");
    Some(Cookie {
        name: c.name.clone(),
        value: value.clone(),
        domain: c.domain.clone(),
        path: c.path.clone().unwrap_or_else(|| "/".into()),
        expires: c.expiry.map_or(-1.0, f64::round),
        http_only: c.http_only,
        secure: c.secure,
        same_site: if unset {
            "Lax".into()
        } else {
            same_site(&json!(c.same_site))
        },
    })
}

/// A classic WebDriver cookie (`expiry` in whole seconds).
pub(crate) fn classic_cookie(c: &Value) -> Option<Cookie> {
    cookie(c, c["value"].as_str(), c["expiry"].as_f64().unwrap_or(-1.0))
}

pub(crate) fn to_cdp(c: &Cookie) -> Value {
    let mut v = json!({
        "name": c.name, "value": c.value, "domain": c.domain, "path": c.path,
        "httpOnly": c.http_only, "secure": c.secure, "sameSite": c.same_site,
    });
    if c.expires > 0.0 {
        v["expires"] = json!(c.expires);
    }
    v
}

pub(crate) fn to_bidi(c: &Cookie) -> PartialCookie<'_> {
    PartialCookie {
        name: &c.name,
        value: BytesValue::String {
            value: c.value.clone(),
        },
        domain: &c.domain,
        path: &c.path,
        http_only: c.http_only,
        secure: c.secure,
        same_site: match c.same_site.to_ascii_lowercase().as_str() {
            "strict" => "strict",
            "none" => "none",
            _ => "lax",
        },
        expiry: (c.expires > 0.0).then_some(c.expires as u64),
    }
}

pub(crate) fn to_classic(c: &Cookie) -> Value {
    let mut v = json!({
        "name": c.name, "value": c.value, "path": c.path,
        "httpOnly": c.http_only, "secure": c.secure, "sameSite": c.same_site,
    });
    if c.expires > 0.0 {
        v["expiry"] = json!(c.expires as u64);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_protocol_s_cookie_reads_as_one() {
        let cdp = cdp_cookie(&json!({"name": "s", "value": "1", "domain": "h", "path": "/", "expires": -1, "session": true, "httpOnly": true, "secure": false, "sameSite": "Lax"})).unwrap();
        let bidi = bidi_cookie(&serde_json::from_value(json!({"name": "s", "value": {"type": "string", "value": "1"}, "domain": "h", "path": "/", "httpOnly": true, "secure": false, "sameSite": "lax", "size": 2})).unwrap(), false).unwrap();
        let classic = classic_cookie(&json!({"name": "s", "value": "1", "domain": "h", "path": "/", "httpOnly": true, "secure": false, "sameSite": "Lax"})).unwrap();
        assert_eq!(cdp, bidi);
        assert_eq!(bidi, classic);
        let sent = serde_json::to_value(to_bidi(&bidi)).unwrap();
        assert_eq!(sent["value"], json!({"type": "string", "value": "1"}));
        assert_eq!(sent["sameSite"], "lax");
        assert!(sent.get("expiry").is_none(), "{sent}");
    }

    /// Chromium's BiDi and DevTools read one cookie alike: an unset
    /// `SameSite` (BiDi's `none` without `Secure`) and a fractional expiry.
    #[test]
    fn chromium_s_bidi_cookie_reads_as_its_devtools_one() {
        let cdp = cdp_cookie(
            &json!({"name": "c", "value": "3", "domain": "h", "path": "/",
            "expires": 1795750231.011271, "session": false, "httpOnly": false, "secure": false}),
        )
        .unwrap();
        let wire = json!({"name": "c", "value": {"type": "string", "value": "3"}, "domain": "h",
            "path": "/", "httpOnly": false, "secure": false, "sameSite": "none", "expiry": 1795750231});
        let bidi = bidi_cookie(&serde_json::from_value(wire.clone()).unwrap(), true).unwrap();
        assert_eq!(cdp, bidi);
        assert_eq!(
            (bidi.expires, bidi.same_site.as_str()),
            (1795750231.0, "Lax")
        );
        // Firefox's `none` is its own None; a Secure one is Chromium's too.
        let firefox = bidi_cookie(&serde_json::from_value(wire.clone()).unwrap(), false).unwrap();
        assert_eq!(firefox.same_site, "None");
        let mut secure = wire;
        secure["secure"] = json!(true);
        let secure = bidi_cookie(&serde_json::from_value(secure).unwrap(), true).unwrap();
        assert_eq!(secure.same_site, "None");
    }
}
