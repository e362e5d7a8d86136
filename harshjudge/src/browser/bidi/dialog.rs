//! Dialogs (`alert`, `confirm`, `prompt`, `beforeunload`): WebDriver BiDi's
//! `browsingContext.userPromptOpened` event reaches [`handle`], which asks the
//! page's handler (`Page::on_dialog`; none: dismiss), answers with
//! `browsingContext.handleUserPrompt` and records the dialog as evidence of the
//! step running (`dialog-N.json`: type, message, default value, the answer).
//! The session's classic `unhandledPromptBehavior` is `ignore`, so that
//! chromedriver leaves every prompt to this answer instead of dismissing it first.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde::de::IgnoredAny;

use super::Bidi;
use super::protocol::HandleUserPrompt;
use super::protocol_events::UserPromptOpened;

/// The kind of a [`Dialog`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DialogType {
    /// `alert(message)`.
    Alert,
    /// `confirm(message)`.
    Confirm,
    /// `prompt(message, default)`.
    Prompt,
    /// Leaving a page whose `beforeunload` handler asks.
    BeforeUnload,
}

impl DialogType {
    fn parse(s: &str) -> DialogType {
        match s {
            "confirm" => DialogType::Confirm,
            "prompt" => DialogType::Prompt,
            "beforeunload" => DialogType::BeforeUnload,
            _ => DialogType::Alert,
        }
    }
}

impl std::fmt::Display for DialogType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DialogType::Alert => "alert",
            DialogType::Confirm => "confirm",
            DialogType::Prompt => "prompt",
            DialogType::BeforeUnload => "beforeunload",
        })
    }
}

/// A dialog the page opened, given to the handler of
/// [`Page::on_dialog`](crate::browser::Page::on_dialog),
/// which answers it with [`accept`](Dialog::accept) or
/// [`dismiss`](Dialog::dismiss) (a handler that does neither dismisses it).
#[derive(Debug)]
pub struct Dialog {
    kind: DialogType,
    message: String,
    default_value: Option<String>,
    answer: Mutex<Option<Answer>>,
}

#[derive(Clone, Debug)]
enum Answer {
    Accept(Option<String>),
    Dismiss,
}

impl Dialog {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    pub fn kind(&self) -> DialogType {
        self.kind
    }

    /// The dialog's message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// A prompt's default value (none for other dialogs).
    pub fn default_value(&self) -> Option<&str> {
        self.default_value.as_deref()
    }

    /// Accepts the dialog (OK); a prompt gets `text` as its answer (none: its
    /// default value).
    pub fn accept(&self, text: Option<&str>) {
        *self.answer.lock().expect("dialog lock") = Some(Answer::Accept(text.map(String::from)));
    }

    /// Dismisses the dialog (Cancel).
    pub fn dismiss(&self) {
        *self.answer.lock().expect("dialog lock") = Some(Answer::Dismiss);
    }
}

/// A handler of `Page::on_dialog`.
pub(crate) type Handler = dyn Fn(&Dialog) + Send + Sync;

/// Where a dialog's record goes: `(evidence name, JSON bytes)`, into the
/// evidence of the step running (set by the page for its scenario).
pub(crate) type Recorder = dyn Fn(&str, &[u8]) + Send + Sync;

/// A dialog as its evidence records it (`dialog-N.json`).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DialogRecord {
    /// `alert`, `confirm`, `prompt`, `beforeunload`.
    #[serde(rename = "type")]
    pub(crate) kind: DialogType,
    /// Its message.
    pub(crate) message: String,
    /// A prompt's default value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default_value: Option<String>,
    /// `accepted` or `dismissed`.
    pub(crate) answer: &'static str,
    /// The text a prompt was answered with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) prompt_text: Option<String>,
    /// Whether a handler of `on_dialog` chose the answer (else the default, dismiss).
    pub(crate) handled: bool,
}

/// The dialog handling of one session: the page's handler and the scenario
/// its dialogs are evidence of.
#[derive(Default)]
pub(crate) struct Dialogs {
    handler: Mutex<Option<Arc<Handler>>>,
    recorder: Mutex<Option<Arc<Recorder>>>,
    count: AtomicUsize,
}

impl Dialogs {
    /// Where the dialogs' records go (the scenario that opened the page).
    pub(crate) fn set_recorder(&self, recorder: Arc<Recorder>) {
        *self.recorder.lock().expect("dialogs lock") = Some(recorder);
    }

    /// Answers the page's dialogs with `handler` from now on.
    pub(crate) fn set_handler(&self, handler: Arc<Handler>) {
        *self.handler.lock().expect("dialogs lock") = Some(handler);
    }

    /// Back to the default (dismiss, nobody's evidence) for the next scenario.
    pub(crate) fn clear(&self) {
        *self.handler.lock().expect("dialogs lock") = None;
        *self.recorder.lock().expect("dialogs lock") = None;
        self.count.store(0, Ordering::SeqCst);
    }

    /// Decides the answer of one dialog.
    fn decide(&self, dialog: &Dialog) -> (Answer, bool) {
        let handler = self.handler.lock().expect("dialogs lock").clone();
        let Some(handler) = handler else {
            return (Answer::Dismiss, false);
        };
        // A handler that panics must not take the reader down: the dialog is dismissed.
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(dialog)));
        let chosen = dialog.answer.lock().expect("dialog lock").clone();
        match (ran, chosen) {
            (Ok(()), Some(a)) => (a, true),
            _ => (Answer::Dismiss, true),
        }
    }

    /// Writes the record into the evidence of the step running.
    fn record(&self, record: &DialogRecord) {
        let recorder = self.recorder.lock().expect("dialogs lock").clone();
        let Some(recorder) = recorder else { return };
        let n = self.count.fetch_add(1, Ordering::SeqCst) + 1;
        if let Ok(bytes) = serde_json::to_vec_pretty(record) {
            recorder(&format!("dialog-{n}"), &bytes);
        }
    }
}

/// One `browsingContext.userPromptOpened` event: decide, answer, record.
pub(crate) async fn handle(bidi: Arc<Bidi>, prompt: UserPromptOpened) {
    let dialog = Dialog {
        kind: DialogType::parse(&prompt.kind),
        message: prompt.message,
        default_value: prompt.default_value,
        answer: Mutex::new(None),
    };
    let (answer, handled) = bidi.dialogs.decide(&dialog);
    let command = HandleUserPrompt {
        context: &prompt.context,
        accept: matches!(answer, Answer::Accept(_)),
        user_text: match &answer {
            Answer::Accept(Some(text)) if dialog.kind == DialogType::Prompt => Some(text.as_str()),
            _ => None,
        },
    };
    let _ = bidi
        .command::<_, IgnoredAny>("browsingContext.handleUserPrompt", &command)
        .await;
    let prompt_text = match &answer {
        Answer::Accept(text) if dialog.kind == DialogType::Prompt => {
            text.clone().or_else(|| dialog.default_value.clone())
        }
        _ => None,
    };
    bidi.dialogs.record(&DialogRecord {
        kind: dialog.kind,
        message: dialog.message,
        default_value: dialog.default_value,
        answer: match answer {
            Answer::Accept(_) => "accepted",
            Answer::Dismiss => "dismissed",
        },
        prompt_text,
        handled,
    });
}
