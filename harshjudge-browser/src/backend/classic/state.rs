//! A classic page's cookies and other origins' storage: Chromium (a remote
//! chromedriver without BiDi) through DevTools (every cookie of the
//! browser), the others through classic WebDriver (the cookies of the page's
//! current document: WebKitGTK has no other way).

use serde_json::{Value, json};

use super::ClassicPage;
use crate::config::BrowserKind;
use crate::cookies::{Cookie, STATE_PAGE, cdp_cookie, classic_cookie, list, to_cdp, to_classic};
use crate::error::BrowserError;
use crate::wire::{self, cdp};

impl ClassicPage {
    /// Every cookie the browser holds (WebKit: those of the current document).
    pub(super) async fn cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
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
                    crate::error::cmd_err(format!("deleting the cookie {:?}", c.name), e)
                })?;
            } else {
                self.set_classic_cookie(c).await?;
            }
        }
        Ok(())
    }

    /// See [`crate::backend::PageBackend::evaluate_aside`]: in a new tab of
    /// the session.
    pub(super) async fn evaluate_aside(
        &self,
        url: &str,
        expression: &str,
    ) -> Result<String, BrowserError> {
        let read = self.engine.in_new_tab(async {
            self.open_url(url, &format!("opening {url} aside")).await?;
            self.client
                .execute(&format!("return {expression}"), Vec::new())
                .await
                .map_err(|e| wire::fail(&format!("evaluating on {url}"), e))
        });
        Ok(read.await?.as_str().unwrap_or_default().to_string())
    }

    /// Navigates straight to `url` (no load judgement: the storage state's pages).
    pub(super) async fn open_url(&self, url: &str, during: &str) -> Result<(), BrowserError> {
        wire::post(&self.client, "url", json!({ "url": url }), during)
            .await
            .map(|_| ())
    }
}
