//! `browser_handle_dialog` (Playwright MCP's name): how the open page answers
//! its dialogs (alert, confirm, prompt, beforeunload) from now on, accepted
//! (a prompt with `promptText`) or dismissed, as `harshjudge`'s
//! `page.on_dialog`. Without it dialogs are dismissed. Each dialog is evidence
//! of its step (`dialog-N.json`); the call is recorded and exported as
//! `page.on_dialog(|d| d.accept(Some("…")))?` or `page.on_dialog(|d| d.dismiss())?`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::error::ToolError;

use super::{classify, page};

/// Arguments of `browser_handle_dialog`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HandleDialog {
    /// Accept (true) or dismiss (false) the dialogs the page opens from now on.
    pub accept: bool,
    /// With accept: the text a prompt is answered with.
    #[serde(default)]
    pub prompt_text: Option<String>,
}

/// What `browser_handle_dialog` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DialogAnswer {
    /// Always true.
    pub success: bool,
    /// Whether dialogs are accepted.
    pub accept: bool,
    /// The text prompts get, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}

crate::plain_output!(DialogAnswer);

/// Sets how the open page answers its dialogs.
pub fn handle_dialog(ctx: &Context, a: HandleDialog) -> Result<DialogAnswer, ToolError> {
    if !a.accept && a.prompt_text.is_some() {
        return Err(ToolError::invalid(
            "promptText answers a prompt that is accepted: give accept: true, or drop promptText",
        ));
    }
    if a.prompt_text.as_ref().is_some_and(|t| t.len() > 10_000) {
        return Err(ToolError::invalid(
            "promptText is longer than 10000 bytes: give a shorter answer",
        ));
    }
    let page = page(ctx)?;
    let (accept, text) = (a.accept, a.prompt_text.clone());
    page.on_dialog(move |d| {
        if accept {
            d.accept(text.as_deref());
        } else {
            d.dismiss();
        }
    })
    .map_err(classify)?;
    Ok(DialogAnswer {
        success: true,
        accept: a.accept,
        prompt_text: a.prompt_text,
    })
}
