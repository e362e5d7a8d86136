//! Reuse across scenarios on the engines whose driver serves one session at a
//! time (geckodriver, WebKitWebDriver), with each scenario isolated from the
//! one before:
//!
//! - **Firefox**, and every session with BiDi (chromedriver's): the session
//!   is pooled, and each scenario gets a WebDriver BiDi **user context** of
//!   its own ([`fresh_user_context`]), as Playwright's browser contexts do: a
//!   separate cookie jar, storage (local, session, IndexedDB, cache storage),
//!   HTTP cache and permissions. Its one tab is created at `about:blank`, the
//!   page's BiDi context becomes it, and the previous scenario's user
//!   context goes with every tab and popup in it.
//! - **WebKit** (WebKitGTK has no BiDi): no command clears every origin's
//!   cookies and storage or the HTTP cache (its Delete All Cookies is the
//!   current document's host's), so a session is not reused. Its driver and
//!   X server are (kept idle by their [`crate::Browsers`]): each scenario
//!   gets a new session, that is a new MiniBrowser with an ephemeral data
//!   store of its own, from a driver already running.

use super::session::Session;
use crate::bidi::protocol::{
    Close, Create, CreateType, CreateUserContext, GetTree, GetUserContexts, RemoveUserContext,
};
use crate::config::BrowserKind;
use crate::error::{BrowserError, cmd_err};
use fantoccini::wd::WindowHandle;

/// Whether a session goes back to the pool when its page is released: one
/// with BiDi (isolated by user contexts), or Chromium's without (cleared
/// through CDP); not WebKit's.
pub(crate) fn pools_sessions(session: &Session) -> bool {
    session.bidi.is_some() || session.browser == BrowserKind::Chromium
}

/// A session with BiDi: its next scenario in a user context of its own.
/// Creates the user context and its tab (at `about:blank`), points a local
/// driver's classic side at it, then closes every other top-level context
/// but a remote session's first tab (`home`): the default user context's tabs
/// and every other user context (`browser.removeUserContext`, which closes
/// their tabs and popups and drops their cookies and storage). The session's
/// BiDi context (routes' intercepts, screenshots, the viewport) becomes the
/// new tab; its viewport is to be set again.
pub(super) async fn fresh_user_context(session: &mut Session) -> Result<(), BrowserError> {
    let Some(bidi) = session.bidi.clone() else {
        return Err(cmd_err(
            "isolating a pooled session",
            "it has no WebDriver BiDi connection",
        ));
    };
    let user_context = bidi.command(&CreateUserContext {}).await?.user_context;
    let tab = Create {
        kind: CreateType::Tab,
        user_context: Some(&user_context),
        background: false,
    };
    let context = bidi.command(&tab).await?.context;
    let first = bidi.context.lock().expect("bidi lock").clone();
    if session.driver.is_some() {
        // A local driver: its classic side (`Page::client()`) follows the
        // scenario's tab (window handles are BiDi's context ids), between
        // scenarios, while nothing of the page is under way.
        let handle = WindowHandle::try_from(context.clone())
            .map_err(|e| cmd_err("naming the scenario's tab", e))?;
        session
            .client
            .switch_to_window(handle)
            .await
            .map_err(|e| cmd_err("switching to the scenario's tab", e))?;
    } else if session.home.is_none() {
        // A remote end: no classic command at all. Its first tab (the first
        // scenario's, in the default user context), where its classic side
        // rests, stays at `about:blank`: a remote chromedriver with its
        // `devtools` log on aborted when that window was closed.
        session.home = first.clone();
        if let Some(home) = &first {
            bidi.navigate(
                home,
                Some("about:blank"),
                "leaving the first scenario's page",
            )
            .await?;
        }
    }
    *bidi.context.lock().expect("bidi lock") = Some(context.clone());
    let every = GetTree {
        root: None,
        max_depth: 0,
    };
    let tree = bidi.command(&every).await?;
    for c in tree.contexts {
        let home = session.home.as_deref() == Some(c.context.as_str());
        if c.user_context.as_deref() == Some("default") && c.context != context && !home {
            let close = Close {
                context: &c.context,
                prompt_unload: false,
            };
            bidi.command(&close).await?;
        }
    }
    let contexts = bidi.command(&GetUserContexts {}).await?;
    for u in contexts.user_contexts {
        let id = u.user_context;
        if id != "default" && id != user_context {
            let remove = RemoveUserContext { user_context: &id };
            bidi.command(&remove).await?;
        }
    }
    session.user_context = Some(user_context);
    session.viewport = None;
    Ok(())
}
