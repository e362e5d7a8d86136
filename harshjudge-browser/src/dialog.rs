//! [`Page::on_dialog`]: how the page answers its dialogs. The dialogs
//! themselves (the decision, the `dialog-N.json` evidence) are `dialogs.rs`'s,
//! the BiDi event and answer `bidi/dialog.rs`'s.

use std::sync::Arc;

use super::backend::PageBackend;
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
        self.backend()
            .set_dialog_handler(Arc::new(handler), std::panic::Location::caller())
    }
}
