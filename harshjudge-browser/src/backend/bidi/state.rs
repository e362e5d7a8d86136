//! The BiDi page's cookies (`storage.*` in its user context), other
//! origins' storage, downloads, popups (new top-level contexts), `close`
//! and `page.cdp` (chromedriver's `goog:cdp.*` BiDi commands).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::BidiPage;
use crate::backend::cdp::protocol as devtools;
use crate::backend::page_backend::{self, PopupArm};
use crate::bidi::protocol::{
    Close, CookieFilter, Create, CreateType, DeleteCookies, DownloadBehavior, GetCookies, GetTree,
    Partition, SetCookie, SetDownloadBehavior, command,
};
use crate::config::BrowserKind;
use crate::cookies::{Cookie, bidi_cookie, to_bidi};
use crate::engines;
use crate::error::BrowserError;

/// `goog:cdp.getSession`'s answer.
#[derive(Deserialize)]
struct CdpSession {
    session: Option<String>,
}

/// `goog:cdp.getSession`: the DevTools session of a browsing context.
#[derive(Serialize)]
struct GetCdpSession<'a> {
    context: &'a str,
}
command!(GetCdpSession<'a>, "goog:cdp.getSession", CdpSession);

/// `goog:cdp.sendCommand`'s parameters: a DevTools command as the caller
/// wrote it (`page.cdp`), on `session` (none: the browser's).
#[derive(Serialize)]
struct SendCdpCommand<'a> {
    method: &'a str,
    params: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<String>,
}
command!(SendCdpCommand<'a>, "goog:cdp.sendCommand", CdpResult);

/// `goog:cdp.sendCommand`'s answer.
#[derive(Deserialize)]
struct CdpResult {
    #[serde(default)]
    result: Value,
}

impl BidiPage {
    /// The storage partition of the user context the page's tab lives in
    /// (a pooled session gives each scenario one of its own): BiDi's
    /// `storage` commands default to the browser's default user context.
    async fn partition(&self) -> Result<Option<Partition>, BrowserError> {
        Ok(self
            .tab_user_context()
            .await?
            .map(|user_context| Partition::StorageKey { user_context }))
    }

    /// The user context the page's tab lives in, as the browser tells it
    /// (none: it names none).
    pub(super) async fn tab_user_context(&self) -> Result<Option<String>, BrowserError> {
        let every = GetTree {
            root: None,
            max_depth: 0,
        };
        let tree = self.bidi.command(&every).await?;
        Ok(tree
            .contexts
            .into_iter()
            .find(|c| c.context == self.context)
            .and_then(|c| c.user_context))
    }

    /// Every cookie of the page's user context.
    pub(super) async fn cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        let params = GetCookies {
            partition: self.partition().await?,
        };
        let answer = self.bidi.command(&params).await?;
        let chromium = self.browser == BrowserKind::Chromium;
        Ok(answer
            .cookies
            .iter()
            .filter_map(|c| bidi_cookie(c, chromium))
            .collect())
    }

    /// Sets `cookies` in the page's user context.
    pub(super) async fn set_cookies(&self, cookies: &[Cookie]) -> Result<(), BrowserError> {
        if cookies.is_empty() {
            return Ok(());
        }
        let partition = self.partition().await?;
        for c in cookies {
            let params = SetCookie {
                cookie: to_bidi(c),
                partition: partition.clone(),
            };
            self.bidi.command(&params).await?;
        }
        Ok(())
    }

    /// Gives the browser cookies a response's `Set-Cookie` headers carried:
    /// each set, or, expired, deleted by name, domain and path.
    pub(super) async fn store_cookies(&self, cookies: &[Cookie]) -> Result<(), BrowserError> {
        let (gone, kept): (Vec<&Cookie>, Vec<&Cookie>) = cookies.iter().partition(|c| c.expired());
        let partition = self.partition().await?;
        for c in gone {
            let params = DeleteCookies {
                filter: CookieFilter {
                    name: &c.name,
                    domain: &c.domain,
                    path: &c.path,
                },
                partition: partition.clone(),
            };
            self.bidi.command(&params).await?;
        }
        let kept: Vec<Cookie> = kept.into_iter().cloned().collect();
        self.set_cookies(&kept).await
    }

    /// See [`crate::backend::PageBackend::evaluate_aside`]: in a background
    /// tab of the page's user context, whose console and network are not the
    /// step's.
    pub(super) async fn evaluate_aside(
        &self,
        url: &str,
        expression: &str,
    ) -> Result<String, BrowserError> {
        let user_context = self.tab_user_context().await?;
        let tab = Create {
            kind: CreateType::Tab,
            user_context: user_context.as_deref(),
            background: true,
        };
        let aside = self.bidi.command(&tab).await?.context;
        self.bidi.unlog(&aside);
        let during = format!("opening {url} aside");
        let read = match self.bidi.navigate(&aside, Some(url), &during).await {
            Ok(()) => self.bidi.evaluate(&aside, expression).await,
            Err(e) => Err(e),
        };
        let close = Close {
            context: &aside,
            prompt_unload: false,
        };
        let _ = self.bidi.command(&close).await;
        read
    }

    /// A typed DevTools command on the page's target, through `goog:cdp`.
    async fn devtools<C: devtools::Command>(
        &self,
        command: &C,
    ) -> Result<C::Returns, BrowserError> {
        let params = serde_json::to_value(command).map_err(|e| BrowserError::Command {
            action: format!("encoding {}", C::METHOD),
            message: e.to_string(),
        })?;
        let answer = self.goog_cdp(C::METHOD, params).await?;
        serde_json::from_value(answer).map_err(|e| BrowserError::Command {
            action: C::METHOD.to_string(),
            message: format!("an answer of another shape: {e}"),
        })
    }

    /// A DevTools command on the page's target, through chromedriver's
    /// `goog:cdp.sendCommand` (Chromium only).
    pub(super) async fn goog_cdp(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value, BrowserError> {
        if self.browser != BrowserKind::Chromium {
            return Err(engines::no_cdp(self.browser, method));
        }
        let get = GetCdpSession {
            context: &self.context,
        };
        let session = self.bidi.command(&get).await?;
        let send = SendCdpCommand {
            method,
            params,
            session: session.session,
        };
        let answer = self.bidi.command(&send).await?;
        Ok(answer.result)
    }

    /// Where the browser saves downloads (`None`: its default again):
    /// BiDi's `browser.setDownloadBehavior`, or on a Chromium whose mapper
    /// lacks it, DevTools' `Browser.setDownloadBehavior` through `goog:cdp`.
    pub(super) async fn downloads_to(&self, folder: Option<&str>) -> Result<(), BrowserError> {
        let set = SetDownloadBehavior {
            download_behavior: folder.map(|dir| DownloadBehavior::Allowed {
                destination_folder: dir.to_string(),
            }),
        };
        let sent = self.bidi.command(&set).await.map(drop);
        let sent = match sent {
            Err(_) if self.browser == BrowserKind::Chromium => {
                let set = devtools::SetDownloadBehavior {
                    behavior: if folder.is_some() { "allow" } else { "default" },
                    browser_context_id: None,
                    download_path: folder,
                    events_enabled: false,
                };
                self.devtools(&set).await.map(drop)
            }
            sent => sent,
        };
        match folder {
            Some(_) => sent,
            None => Ok(()),
        }
    }

    /// The session's top-level browsing contexts (its tabs and popups).
    pub(super) async fn top_contexts(&self) -> Result<Vec<String>, BrowserError> {
        let every = GetTree {
            root: None,
            max_depth: 0,
        };
        let tree = self.bidi.command(&every).await?;
        Ok(tree.contexts.into_iter().map(|c| c.context).collect())
    }

    /// The context of the next popup `arm` did not know, within `wait`.
    pub(super) async fn next_popup_context(
        &self,
        arm: &mut PopupArm,
        wait: Duration,
    ) -> Result<String, BrowserError> {
        let PopupArm::Windows(before) = arm else {
            return Err(page_backend::foreign_arm());
        };
        let start = Instant::now();
        loop {
            let now = self.top_contexts().await?;
            if let Some(new) = now.into_iter().find(|c| !before.contains(c)) {
                before.push(new.clone());
                return Ok(new);
            }
            if start.elapsed() >= wait {
                let found = format!(
                    "no new browsing context; the session has {} top-level one(s)",
                    before.len()
                );
                return Err(page_backend::no_popup(found, start.elapsed()));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Closes a popup's context; the main page's is an error naming the
    /// popup rule.
    pub(super) async fn close_popup(&self) -> Result<(), BrowserError> {
        if !self.popup {
            return Err(BrowserError::Invalid {
                message: "page.close() closes a popup's page (from wait_for_popup); the scenario's own page closes when the scenario ends".into(),
                location: None,
            });
        }
        let close = Close {
            context: &self.context,
            prompt_unload: false,
        };
        self.bidi.command(&close).await.map(drop)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn goog_cdp_parameters_are_what_chromedriver_reads() {
        let get = GetCdpSession { context: "ctx-1" };
        assert_eq!(
            serde_json::to_value(&get).unwrap(),
            json!({"context": "ctx-1"})
        );
        let on = SendCdpCommand {
            method: "DOM.enable",
            params: json!({"a": 1}),
            session: Some("s-1".into()),
        };
        assert_eq!(
            serde_json::to_value(&on).unwrap(),
            json!({"method": "DOM.enable", "params": {"a": 1}, "session": "s-1"})
        );
        let browser_wide = SendCdpCommand {
            method: "Browser.getVersion",
            params: json!({}),
            session: None,
        };
        assert_eq!(
            serde_json::to_value(&browser_wide).unwrap(),
            json!({"method": "Browser.getVersion", "params": {}})
        );
    }
}
