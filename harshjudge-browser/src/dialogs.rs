//! Dialogs (`alert`, `confirm`, `prompt`, `beforeunload`), in no protocol's
//! words: a backend that sees one open hands it to [`Dialogs::decide`], which
//! asks the page's handler (`Page::on_dialog`; none: dismiss) and gives the
//! [`Verdict`] to answer with (BiDi: `browsingContext.handleUserPrompt`, in
//! `bidi/dialog.rs`) and the record, which [`Dialogs::record`] writes as
//! evidence of the step running (`dialog-N.json`: type, message, default
//! value, the answer). A handler that panics dismisses the dialog.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;

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
    /// The kind a protocol names (`alert` for one not known).
    pub(crate) fn parse(s: &str) -> DialogType {
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
/// [`Page::on_dialog`](crate::Page::on_dialog),
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
    /// A dialog that opened, not answered yet.
    pub(crate) fn new(kind: DialogType, message: String, default_value: Option<String>) -> Dialog {
        Dialog {
            kind,
            message,
            default_value,
            answer: Mutex::new(None),
        }
    }

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

/// How a dialog is to be answered, for the backend to carry out.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// OK; a prompt's answer when given (none: its default value).
    Accept { text: Option<String> },
    /// Cancel.
    Dismiss,
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

impl std::fmt::Debug for Dialogs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dialogs")
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
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

    /// Decides the answer of `dialog` (the page's handler, else dismiss):
    /// the verdict to answer with, and the dialog's record for
    /// [`Dialogs::record`] once answered.
    pub(crate) fn decide(&self, dialog: Dialog) -> (Verdict, DialogRecord) {
        let (answer, handled) = self.choose(&dialog);
        let prompt = dialog.kind == DialogType::Prompt;
        let verdict = match &answer {
            Answer::Accept(text) => Verdict::Accept {
                text: text.clone().filter(|_| prompt),
            },
            Answer::Dismiss => Verdict::Dismiss,
        };
        let prompt_text = match answer {
            Answer::Accept(text) if prompt => text.or_else(|| dialog.default_value.clone()),
            _ => None,
        };
        let record = DialogRecord {
            kind: dialog.kind,
            message: dialog.message,
            default_value: dialog.default_value,
            answer: match verdict {
                Verdict::Accept { .. } => "accepted",
                Verdict::Dismiss => "dismissed",
            },
            prompt_text,
            handled,
        };
        (verdict, record)
    }

    /// The answer of one dialog, and whether a handler chose it.
    fn choose(&self, dialog: &Dialog) -> (Answer, bool) {
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
    pub(crate) fn record(&self, record: &DialogRecord) {
        let recorder = self.recorder.lock().expect("dialogs lock").clone();
        let Some(recorder) = recorder else { return };
        let n = self.count.fetch_add(1, Ordering::SeqCst) + 1;
        if let Ok(bytes) = serde_json::to_vec_pretty(record) {
            recorder(&format!("dialog-{n}"), &bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt() -> Dialog {
        Dialog::new(DialogType::Prompt, "Name?".into(), Some("Ann".into()))
    }

    /// Without a handler a dialog is dismissed, not handled; a prompt
    /// accepted with a text is answered with it, one accepted without with
    /// its default value (recorded, not sent); a confirm's text is not sent.
    #[test]
    fn the_handlers_answer_becomes_the_verdict_and_the_record() {
        let dialogs = Dialogs::default();
        let (verdict, record) = dialogs.decide(prompt());
        assert_eq!(
            (verdict, record.answer, record.handled),
            (Verdict::Dismiss, "dismissed", false)
        );
        dialogs.set_handler(Arc::new(|d: &Dialog| d.accept(Some("Bo"))));
        let (verdict, record) = dialogs.decide(prompt());
        assert_eq!(
            verdict,
            Verdict::Accept {
                text: Some("Bo".into())
            }
        );
        assert_eq!(
            serde_json::to_value(&record).unwrap(),
            serde_json::json!({"type": "prompt", "message": "Name?", "defaultValue": "Ann",
                "answer": "accepted", "promptText": "Bo", "handled": true})
        );
        let (verdict, record) =
            dialogs.decide(Dialog::new(DialogType::Confirm, "Sure?".into(), None));
        assert_eq!(verdict, Verdict::Accept { text: None });
        assert_eq!(record.prompt_text, None);
        dialogs.set_handler(Arc::new(|d: &Dialog| d.accept(None)));
        let (verdict, record) = dialogs.decide(prompt());
        assert_eq!(verdict, Verdict::Accept { text: None });
        assert_eq!(record.prompt_text.as_deref(), Some("Ann"));
    }

    /// A handler that panics (after choosing, even) dismisses the dialog.
    #[test]
    fn a_panicking_handler_dismisses() {
        let dialogs = Dialogs::default();
        dialogs.set_handler(Arc::new(|d: &Dialog| {
            d.accept(None);
            panic!("a handler's bug");
        }));
        let (verdict, record) = dialogs.decide(prompt());
        assert_eq!((verdict, record.handled), (Verdict::Dismiss, true));
    }

    /// Records go to the recorder as `dialog-1`, `dialog-2`, … in order.
    #[test]
    fn records_are_numbered_evidence() {
        let dialogs = Dialogs::default();
        let names = Arc::new(Mutex::new(Vec::new()));
        let seen = names.clone();
        dialogs.set_recorder(Arc::new(move |name: &str, _: &[u8]| {
            seen.lock().unwrap().push(name.to_string());
        }));
        for _ in 0..2 {
            let (_, record) = dialogs.decide(prompt());
            dialogs.record(&record);
        }
        assert_eq!(*names.lock().unwrap(), ["dialog-1", "dialog-2"]);
    }
}
