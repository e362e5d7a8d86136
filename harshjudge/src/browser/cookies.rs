//! The browser's cookies, on every engine: through WebDriver BiDi's `storage`
//! module on Firefox and on a Chromium page with routes (every cookie of the
//! page's user context), Chromium's other pages through DevTools (every
//! cookie of the browser), WebKit through classic WebDriver (the cookies of
//! the page's current document: WebKitGTK has no other way). What a saved
//! storage state and a scenario's `s.request()` read and write.

use serde_json::{Value, json};

use super::bidi::Bidi;
use super::bidi::protocol::{
    BytesValue, Cookies, Empty, GetCookies, GetTree, NetworkCookie, PartialCookie, Partition,
    SetCookie, UserTree,
};
use super::config::BrowserKind;
use super::error::BrowserError;
use super::page::Page;
use super::storage::{Cookie, STATE_PAGE};
use super::wire::{self, cdp};

impl Page {
    /// The BiDi connection the cookies go through: Firefox's, and a Chromium
    /// page's while it has routes (as its calls, `Engine::bidi_calls`):
    /// chromedriver holds a CDP command sent while a routed document loads
    /// until that load, which the route's BiDi answer it holds back would end.
    fn cookie_bidi(&self) -> Option<&Bidi> {
        match self.browser() {
            BrowserKind::Chromium => self.engine().bidi_calls().map(|(b, _)| &**b),
            _ => self.bidi().map(|b| &**b),
        }
    }

    /// Every cookie the browser holds (WebKit: those of the current document).
    pub(crate) async fn all_cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        if let Some(bidi) = self.cookie_bidi() {
            let params = GetCookies {
                partition: user_context_key(bidi).await?,
            };
            let answer: Cookies = bidi.command("storage.getCookies", &params).await?;
            let chromium = self.browser() == BrowserKind::Chromium;
            return Ok(answer
                .cookies
                .iter()
                .filter_map(|c| bidi_cookie(c, chromium))
                .collect());
        }
        if self.browser() == BrowserKind::Chromium {
            let answer = match cdp(self.client(), "Storage.getCookies", json!({})).await {
                Ok(v) => v,
                Err(_) => cdp(self.client(), "Network.getAllCookies", json!({})).await?,
            };
            return Ok(list(&answer["cookies"], cdp_cookie));
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
        if let Some(bidi) = self.cookie_bidi() {
            let partition = user_context_key(bidi).await?;
            for c in cookies {
                let params = SetCookie {
                    cookie: to_bidi(c),
                    partition: partition.clone(),
                };
                bidi.command::<_, Empty>("storage.setCookie", &params)
                    .await?;
            }
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
            self.set_classic_cookie(c).await?;
        }
        Ok(())
    }

    /// Add Cookie: one cookie for the current document's host (WebKit's way).
    async fn set_classic_cookie(&self, c: &Cookie) -> Result<(), BrowserError> {
        wire::post(
            self.client(),
            "cookie",
            json!({ "cookie": to_classic(c) }),
            &format!("setting the cookie {:?}", c.name),
        )
        .await?;
        Ok(())
    }
}

impl Page {
    /// Gives the browser cookies a response's `Set-Cookie` headers carried
    /// (what a scenario's `s.request()` got while this page is open): each
    /// set, or, expired (`Max-Age=0`, a past `Expires`), deleted by name,
    /// domain and path, as the browser itself would on that response. WebKit
    /// sets and deletes through the page's document: while it shows a page of
    /// the cookie's host, there; on `about:blank`, through a page of the base
    /// URL's host and back; on another host's page, an error naming it.
    pub(crate) async fn store_cookies(&self, cookies: &[Cookie]) -> Result<(), BrowserError> {
        let (gone, kept): (Vec<&Cookie>, Vec<&Cookie>) = cookies.iter().partition(|c| c.expired());
        if let Some(bidi) = self.cookie_bidi() {
            let partition = user_context_key(bidi).await?;
            for c in gone {
                let mut params = json!({
                    "filter": { "name": c.name, "domain": c.domain, "path": c.path },
                });
                if let Some(p) = &partition {
                    params["partition"] = serde_json::to_value(p).expect("a partition serialises");
                }
                bidi.command::<_, Value>("storage.deleteCookies", &params)
                    .await?;
            }
            let kept: Vec<Cookie> = kept.into_iter().cloned().collect();
            return self.set_cookies(&kept).await;
        }
        if self.browser() == BrowserKind::Chromium {
            for c in gone {
                cdp(
                    self.client(),
                    "Network.deleteCookies",
                    json!({ "name": c.name, "domain": c.domain, "path": c.path }),
                )
                .await?;
            }
            let kept: Vec<Cookie> = kept.into_iter().cloned().collect();
            return self.set_cookies(&kept).await;
        }
        self.store_cookies_classic(cookies).await
    }

    /// [`store_cookies`](Page::store_cookies) through classic WebDriver
    /// (WebKit): the cookies of the current document only.
    async fn store_cookies_classic(&self, cookies: &[Cookie]) -> Result<(), BrowserError> {
        let current = self.url().await.ok().and_then(|u| url::Url::parse(&u).ok());
        let host = current
            .as_ref()
            .filter(|u| u.scheme().starts_with("http"))
            .and_then(|u| u.host_str().map(str::to_ascii_lowercase));
        let Some(host) = host else {
            // Nothing of the app's on the page: set through a page of its host, and back.
            let kept: Vec<Cookie> = cookies.iter().filter(|c| !c.expired()).cloned().collect();
            if kept.is_empty() {
                return Ok(());
            }
            self.set_cookies(&kept).await?;
            wire::post(
                self.client(),
                "url",
                json!({"url": "about:blank"}),
                "opening about:blank",
            )
            .await?;
            return Ok(());
        };
        for c in cookies {
            let domain = c.domain.trim_start_matches('.').to_ascii_lowercase();
            if host != domain && !host.ends_with(&format!(".{domain}")) {
                return Err(BrowserError::Invalid {
                    message: format!(
                        "the cookie {:?} of {} a response set cannot reach the {} page while it shows {}: its driver sets cookies through a page of their host; open a page of {} first",
                        c.name,
                        c.domain,
                        self.browser(),
                        current.as_ref().map_or("", |u| u.as_str()),
                        c.domain.trim_start_matches('.'),
                    ),
                    location: None,
                });
            }
            if c.expired() {
                self.client().delete_cookie(&c.name).await.map_err(|e| {
                    super::error::cmd_err(format!("deleting the cookie {:?}", c.name), e)
                })?;
            } else {
                self.set_classic_cookie(c).await?;
            }
        }
        Ok(())
    }
}

/// The BiDi storage partition of the user context the page's tab lives in (a
/// pooled Firefox session gives each scenario one of its own): BiDi's
/// `storage` commands default to the browser's default user context.
async fn user_context_key(bidi: &Bidi) -> Result<Option<Partition>, BrowserError> {
    let Some(context) = bidi.context.lock().expect("bidi lock").clone() else {
        return Ok(None);
    };
    let tree: UserTree = bidi
        .command(
            "browsingContext.getTree",
            &GetTree {
                root: None,
                max_depth: 0,
            },
        )
        .await?;
    Ok(tree
        .contexts
        .into_iter()
        .find(|c| c.context == context)
        .and_then(|c| c.user_context)
        .map(|user_context| Partition::StorageKey { user_context }))
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
fn bidi_cookie(c: &NetworkCookie, chromium: bool) -> Option<Cookie> {
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
fn classic_cookie(c: &Value) -> Option<Cookie> {
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

fn to_bidi(c: &Cookie) -> PartialCookie<'_> {
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
