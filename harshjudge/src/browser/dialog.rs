//! [`Page::on_dialog`]: how the page answers its dialogs. The dialogs
//! themselves (the decision, the `dialog-N.json` evidence) are `dialogs.rs`'s,
//! the BiDi event and answer `bidi/dialog.rs`'s.

use std::sync::Arc;

use super::dialogs::Dialog;
use super::error::BrowserError;
use super::page::Page;

impl Page {
    /// Answers the page's dialogs with `handler` from now on:
    /// `page.on_dialog(|d| d.accept(Some("text")))?`, `page.on_dialog(|d| d.dismiss())?`.
    /// Without a handler (and when it answers neither way) a dialog is
    /// dismissed. Either way each dialog is evidence of its step
    /// (`dialog-N.json`: type, message, default value, the answer). Needs
    /// WebDriver BiDi (an error naming it without).
    #[track_caller]
    pub fn on_dialog<F>(&self, handler: F) -> Result<(), BrowserError>
    where
        F: Fn(&Dialog) + Send + Sync + 'static,
    {
        if self.bidi().is_none() && self.browser() == super::config::BrowserKind::Webkit {
            return Err(BrowserError::Unsupported {
                browser: self.browser(),
                what: "page.on_dialog".into(),
                why: "dialogs reach a handler through WebDriver BiDi, and WebKitWebDriver offers none: they are dismissed (and not recorded); run this scenario with --browser chromium or --browser firefox".into(),
            });
        }
        let bidi = self.bidi().ok_or_else(|| BrowserError::Invalid {
            message: "page.on_dialog needs WebDriver BiDi, and this WebDriver offers none (its new session returned no webSocketUrl): dialogs are dismissed by the classic default there; use a chromedriver of version 115 or later, or a Grid node that passes BiDi through".into(),
            location: Some(std::panic::Location::caller()),
        })?;
        bidi.dialogs.set_handler(Arc::new(handler));
        Ok(())
    }
}
