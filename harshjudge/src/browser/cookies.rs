//! The browser's cookies, on every engine: Chromium through DevTools (every
//! cookie of the browser), Firefox through WebDriver BiDi's `storage` module
//! (every cookie of the page's user context), WebKit through classic WebDriver (the cookies of the
//! page's current document: WebKitGTK has no other way). What a saved storage
//! state and a scenario's `s.request()` read and write.

use serde_json::{Value, json};

use super::bidi::Bidi;
use super::config::BrowserKind;
use super::error::BrowserError;
use super::page::Page;
use super::storage::{Cookie, STATE_PAGE};
use super::wire::{self, cdp};

impl Page {
    /// Every cookie the browser holds (WebKit: those of the current document).
    pub(crate) async fn all_cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        if self.browser() == BrowserKind::Chromium {
            let answer = match cdp(self.client(), "Storage.getCookies", json!({})).await {
                Ok(v) => v,
                Err(_) => cdp(self.client(), "Network.getAllCookies", json!({})).await?,
            };
            return Ok(list(&answer["cookies"], cdp_cookie));
        }
        if let Some(bidi) = self.bidi() {
            let params = match user_context_key(bidi).await? {
                Some(partition) => json!({ "partition": partition }),
                None => json!({}),
            };
            let answer = bidi.send("storage.getCookies", params).await?;
            return Ok(list(&answer["cookies"], bidi_cookie));
        }
        let answer = wire::get(self.client(), "cookie", "reading the page's cookies").await?;
        Ok(list(&answer, classic_cookie))
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
        if self.browser() == BrowserKind::Chromium {
            let cookies: Vec<Value> = cookies.iter().map(to_cdp).collect();
            cdp(
                self.client(),
                "Network.setCookies",
                json!({ "cookies": cookies }),
            )
            .await?;
            return Ok(());
        }
        if let Some(bidi) = self.bidi() {
            let partition = user_context_key(bidi).await?;
            for c in cookies {
                let mut params = json!({ "cookie": to_bidi(c) });
                if let Some(p) = &partition {
                    params["partition"] = p.clone();
                }
                bidi.send("storage.setCookie", params).await?;
            }
            return Ok(());
        }
        let base = url::Url::parse(self.base_url()).ok();
        let host = base.as_ref().and_then(|u| u.host_str().map(str::to_string));
        let mut opened = false;
        for c in cookies {
            if host.as_deref() != Some(c.domain.trim_start_matches('.')) {
                return Err(BrowserError::Invalid {
                    message: format!(
                        "the cookie {:?} of {} cannot be set in {}: its driver sets cookies through a page of their host, and the base URL ({}) is another",
                        c.name,
                        c.domain,
                        self.browser(),
                        self.base_url()
                    ),
                    location: None,
                });
            }
            if !opened {
                let url = format!("{}{STATE_PAGE}", self.base_url().trim_end_matches('/'));
                wire::post(
                    self.client(),
                    "url",
                    json!({ "url": url }),
                    "opening the app's origin to set its cookies",
                )
                .await?;
                opened = true;
            }
            wire::post(
                self.client(),
                "cookie",
                json!({ "cookie": to_classic(c) }),
                &format!("setting the cookie {:?}", c.name),
            )
            .await?;
        }
        Ok(())
    }
}

/// The BiDi storage partition of the user context the page's tab lives in (a
/// pooled Firefox session gives each scenario one of its own): BiDi's
/// `storage` commands default to the browser's default user context.
async fn user_context_key(bidi: &Bidi) -> Result<Option<Value>, BrowserError> {
    let Some(context) = bidi.context.lock().expect("bidi lock").clone() else {
        return Ok(None);
    };
    let tree = bidi
        .send("browsingContext.getTree", json!({"maxDepth": 0}))
        .await?;
    Ok(tree["contexts"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["context"] == context.as_str())
        .and_then(|c| c["userContext"].as_str())
        .map(|u| json!({"type": "storageKey", "userContext": u})))
}

fn list(v: &Value, one: fn(&Value) -> Option<Cookie>) -> Vec<Cookie> {
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

/// A DevTools cookie (`expires` in seconds, `session: true` for a session cookie).
fn cdp_cookie(c: &Value) -> Option<Cookie> {
    let expires = if c["session"] == true {
        -1.0
    } else {
        c["expires"].as_f64().unwrap_or(-1.0)
    };
    cookie(c, c["value"].as_str(), expires)
}

/// A BiDi `network.Cookie` (`value` a `{type: "string", value}`, `expiry` in seconds).
fn bidi_cookie(c: &Value) -> Option<Cookie> {
    cookie(
        c,
        c["value"]["value"].as_str(),
        c["expiry"].as_f64().unwrap_or(-1.0),
    )
}

/// A classic WebDriver cookie (`expiry` in whole seconds).
fn classic_cookie(c: &Value) -> Option<Cookie> {
    cookie(c, c["value"].as_str(), c["expiry"].as_f64().unwrap_or(-1.0))
}

fn to_cdp(c: &Cookie) -> Value {
    let mut v = json!({
        "name": c.name, "value": c.value, "domain": c.domain, "path": c.path,
        "httpOnly": c.http_only, "secure": c.secure, "sameSite": c.same_site,
    });
    if c.expires > 0.0 {
        v["expires"] = json!(c.expires);
    }
    v
}

fn to_bidi(c: &Cookie) -> Value {
    let mut v = json!({
        "name": c.name, "value": {"type": "string", "value": c.value},
        "domain": c.domain, "path": c.path,
        "httpOnly": c.http_only, "secure": c.secure,
        "sameSite": c.same_site.to_ascii_lowercase(),
    });
    if c.expires > 0.0 {
        v["expiry"] = json!(c.expires as u64);
    }
    v
}

fn to_classic(c: &Cookie) -> Value {
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
        let bidi = bidi_cookie(&json!({"name": "s", "value": {"type": "string", "value": "1"}, "domain": "h", "path": "/", "httpOnly": true, "secure": false, "sameSite": "lax", "size": 2})).unwrap();
        let classic = classic_cookie(&json!({"name": "s", "value": "1", "domain": "h", "path": "/", "httpOnly": true, "secure": false, "sameSite": "Lax"})).unwrap();
        assert_eq!(cdp, bidi);
        assert_eq!(bidi, classic);
        assert_eq!(
            to_bidi(&bidi)["value"],
            json!({"type": "string", "value": "1"})
        );
        assert_eq!(to_bidi(&bidi)["sameSite"], "lax");
    }
}
