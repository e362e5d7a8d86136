//! The BiDi side of dialogs (`dialogs.rs`): `browsingContext.userPromptOpened`
//! reaches [`handle`], which has the page's [`Dialogs`] decide, answers with
//! `browsingContext.handleUserPrompt` and has the dialog recorded. The
//! session's classic `unhandledPromptBehavior` is `ignore`, so that
//! chromedriver leaves every prompt to this answer instead of dismissing it first.

use std::sync::Arc;

use super::Bidi;
use super::protocol::HandleUserPrompt;
use super::protocol_events::UserPromptOpened;
use crate::dialogs::{Dialog, DialogType, Dialogs, Verdict};

/// One `browsingContext.userPromptOpened` event: decide, answer, record.
pub(crate) async fn handle(bidi: Arc<Bidi>, prompt: UserPromptOpened) {
    let dialog = Dialog::new(
        DialogType::parse(&prompt.kind),
        prompt.message,
        prompt.default_value,
    );
    let dialogs: &Dialogs = &bidi.dialogs;
    let (verdict, record) = dialogs.decide(dialog);
    let command = HandleUserPrompt {
        context: &prompt.context,
        accept: matches!(verdict, Verdict::Accept { .. }),
        user_text: match &verdict {
            Verdict::Accept { text } => text.as_deref(),
            Verdict::Dismiss => None,
        },
    };
    let _ = bidi.command(&command).await;
    dialogs.record(&record);
}
