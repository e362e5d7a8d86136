//! A WebDriver page's cookies and other origins' storage (moved from
//! `cookies.rs` and `storage.rs`): through WebDriver BiDi's `storage` module
//! on Firefox and on a Chromium page with routes (every cookie of the page's
//! user context), Chromium's other pages through DevTools (every cookie of
//! the browser), WebKit through classic WebDriver (the cookies of the page's
//! current document: WebKitGTK has no other way).

use serde_json::{Value, json};

use super::WebDriverPage;
use crate::browser::bidi::Bidi;
use crate::browser::bidi::protocol::{
    Cookies, Empty, GetCookies, GetTree, Partition, SetCookie, UserTree,
};
use crate::browser::config::BrowserKind;
use crate::browser::cookies::{
    Cookie, STATE_PAGE, bidi_cookie, cdp_cookie, classic_cookie, list, to_bidi, to_cdp, to_classic,
};
use crate::browser::error::BrowserError;
use crate::browser::wire::{self, cdp};

impl WebDriverPage {
    /// The BiDi connection the cookies go through: Firefox's, and a Chromium
    /// page's while it has routes (as its calls, `Engine::bidi_calls`):
    /// chromedriver holds a CDP command sent while a routed document loads
    /// until that load, which the route's BiDi answer it holds back would end.
    fn cookie_bidi(&self) -> Option<&Bidi> {
        match self.browser() {
            BrowserKind::Chromium => self.engine.bidi_calls().map(|(b, _)| &**b),
            _ => self.bidi().map(|b| &**b),
        }
    }

    /// Every cookie the browser holds (WebKit: those of the current document).
    pub(super) async fn cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
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
            let answer = match cdp(&self.client, "Storage.getCookies", json!({})).await {
                Ok(v) => v,
                Err(_) => cdp(&self.client, "Network.getAllCookies", json!({})).await?,
            };
            return Ok(list(&answer["cookies"], cdp_cookie));
        }
        let answer = wire::get(&self.client, "cookie", "reading the page's cookies").await?;
        Ok(list(&answer, classic_cookie))
    }

    /// Sets `cookies` in the browser. WebKit sets a cookie through the page's
    /// document, so the page is taken to the base URL when its host is the
    /// cookie's (a cookie of another host is refused by name).
    pub(super) async fn set_cookies(
        &self,
        cookies: &[Cookie],
        base_url: &str,
    ) -> Result<(), BrowserError> {
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
                &self.client,
                "Network.setCookies",
                json!({ "cookies": cookies }),
            )
            .await?;
            return Ok(());
        }
        let base = url::Url::parse(base_url).ok();
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
                        base_url
                    ),
                    location: None,
                });
            }
            if !opened {
                let url = format!("{}{STATE_PAGE}", base_url.trim_end_matches('/'));
                wire::post(
                    &self.client,
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
            &self.client,
            "cookie",
            json!({ "cookie": to_classic(c) }),
            &format!("setting the cookie {:?}", c.name),
        )
        .await?;
        Ok(())
    }

    /// Gives the browser cookies a response's `Set-Cookie` headers carried
    /// (what a scenario's `s.request()` got while this page is open): each
    /// set, or, expired (`Max-Age=0`, a past `Expires`), deleted by name,
    /// domain and path, as the browser itself would on that response. WebKit
    /// sets and deletes through the page's document: while it shows a page of
    /// the cookie's host, there; on `about:blank`, through a page of the base
    /// URL's host and back; on another host's page, an error naming it.
    pub(super) async fn store_cookies(
        &self,
        cookies: &[Cookie],
        base_url: &str,
    ) -> Result<(), BrowserError> {
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
            return self.set_cookies(&kept, base_url).await;
        }
        if self.browser() == BrowserKind::Chromium {
            for c in gone {
                cdp(
                    &self.client,
                    "Network.deleteCookies",
                    json!({ "name": c.name, "domain": c.domain, "path": c.path }),
                )
                .await?;
            }
            let kept: Vec<Cookie> = kept.into_iter().cloned().collect();
            return self.set_cookies(&kept, base_url).await;
        }
        self.store_cookies_classic(cookies, base_url).await
    }

    /// [`store_cookies`](Page::store_cookies) through classic WebDriver
    /// (WebKit): the cookies of the current document only.
    async fn store_cookies_classic(
        &self,
        cookies: &[Cookie],
        base_url: &str,
    ) -> Result<(), BrowserError> {
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
            self.set_cookies(&kept, base_url).await?;
            wire::post(
                &self.client,
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
                self.client.delete_cookie(&c.name).await.map_err(|e| {
                    crate::browser::error::cmd_err(format!("deleting the cookie {:?}", c.name), e)
                })?;
            } else {
                self.set_classic_cookie(c).await?;
            }
        }
        Ok(())
    }

    /// The localStorage of an origin the page is not on, through DevTools
    /// (empty when the browser does not say).
    pub(super) async fn other_origin_storage(&self, origin: &str) -> Vec<(String, String)> {
        let _ = cdp(&self.client, "DOMStorage.enable", json!({})).await;
        let Ok(answer) = cdp(
            &self.client,
            "DOMStorage.getDOMStorageItems",
            json!({"storageId": {"securityOrigin": origin, "isLocalStorage": true}}),
        )
        .await
        else {
            return Vec::new();
        };
        answer["entries"]
            .as_array()
            .map(|entries| {
                entries
                    .iter()
                    .filter_map(|e| Some((e[0].as_str()?.to_string(), e[1].as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Navigates straight to `url` (no load judgement: the storage state's pages).
    pub(super) async fn open_url(&self, url: &str, during: &str) -> Result<(), BrowserError> {
        wire::post(&self.client, "url", json!({ "url": url }), during)
            .await
            .map(|_| ())
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
