//! A page's dialogs (`dialogs.rs`) over the DevTools protocol:
//! `Page.javascriptDialogOpening` (the page waits) has the page's
//! [`Dialogs`] decide (its handler; none: dismiss, as the BiDi path does),
//! is answered with `Page.handleJavaScriptDialog{accept, promptText}` and
//! recorded. A `beforeunload` dismissed keeps the page where it is: the
//! navigation that asked ends (`page.rs` tells it as interrupted).

use super::connection::Connection;
use super::protocol::{HandleJavaScriptDialog, JavascriptDialogOpening, SessionId};
use crate::dialogs::{Dialog, DialogType, Dialogs, Verdict};

/// One dialog opening: decide, answer, record.
pub(super) async fn handle(
    connection: &Connection,
    session: &SessionId,
    dialogs: &Dialogs,
    opening: JavascriptDialogOpening,
) {
    let kind = DialogType::parse(&opening.kind);
    let default = opening
        .default_prompt
        .filter(|_| kind == DialogType::Prompt);
    let (verdict, record) = dialogs.decide(Dialog::new(kind, opening.message, default));
    let answer = HandleJavaScriptDialog {
        accept: matches!(verdict, Verdict::Accept { .. }),
        // A prompt accepted without a text answers its default value.
        prompt_text: record.prompt_text.as_deref(),
    };
    let _ = connection.send(Some(session), &answer).await;
    dialogs.record(&record);
}

#[cfg(test)]
#[path = "dialog_tests.rs"]
mod tests;
