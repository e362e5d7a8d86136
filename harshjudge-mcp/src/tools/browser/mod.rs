//! Browser tools on `harshjudge`'s browser module: launch, navigate, click,
//! type, press, wait, screenshot, snapshot, console, network, close.
//!
//! Every tool that takes an element takes the same [`Target`]: `role` (+ `name`,
//! `exact`), `label`, `placeholder`, `text`, `altText`, `title`, `testId`, a CSS
//! `selector`, or a `ref` from the last `browser_snapshot`, narrowed by `nth`;
//! [`Resolved::locator`] turns it into a `harshjudge`
//! [`Locator`](harshjudge_browser::Locator). `browser_expect` runs the
//! web-first assertions of `harshjudge_browser::expect`. Nothing large goes inline:
//! screenshots are files, returned as paths (an image block only with `inline: true`). While a run is
//! active (after `startRun`, until `completeRun`), every action records its
//! before/after screenshots, console and network into the current step.
//!
//! The files: `targets.rs` (the [`Target`] and [`Resolved`]), `evidence.rs`
//! (each action run with its evidence), `actions.rs`, `expect.rs`, `observe.rs`.

use std::time::Duration;

use harshjudge_browser::{BrowserError, Page};

use crate::context::Context;
use crate::error::{Code, ToolError};

/// Declares an argument struct with the element target fields of every browser
/// tool (`role` + `name` + `exact`, `label`, `placeholder`, `altText`, `title`,
/// `testId`, `selector`, `ref`, `nth`) plus its own fields; its `target()` gives
/// the one [`Target`] all of them are turned into a locator through.
macro_rules! with_target {
    (
        $(#[$m:meta])*
        pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty,)* }
        text: $text:expr
    ) => {
        $(#[$m])*
        #[derive(Debug, Default, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct $name {
            /// An ARIA role (button, link, checkbox, textbox, heading, listitem, …),
            /// as Playwright's getByRole; refine with `name`.
            #[serde(default)]
            pub role: Option<String>,
            /// With `role`: the accessible name (a case-insensitive substring unless `exact`).
            #[serde(default)]
            pub name: Option<String>,
            /// Match `name`, `label`, `placeholder`, `text`, `altText` or `title` as the
            /// whole text, case-sensitive (default: case-insensitive substring).
            #[serde(default)]
            pub exact: Option<bool>,
            /// A form control by its label (`<label>`, aria-labelledby, aria-label).
            #[serde(default)]
            pub label: Option<String>,
            /// An input by its placeholder.
            #[serde(default)]
            pub placeholder: Option<String>,
            /// An image (or area, image input) by its alt text.
            #[serde(default)]
            pub alt_text: Option<String>,
            /// An element by its title attribute.
            #[serde(default)]
            pub title: Option<String>,
            /// A `data-testid` value.
            #[serde(default)]
            pub test_id: Option<String>,
            /// A CSS selector.
            #[serde(default)]
            pub selector: Option<String>,
            /// An element ref from the last `browser_snapshot` (e.g. "e12"; "f1e3" inside an iframe).
            #[serde(default, rename = "ref")]
            pub reference: Option<String>,
            /// Which match to take when the target matches several (from 0; -1 is the last).
            #[serde(default)]
            pub nth: Option<i64>,
            /// A CSS selector of the same-origin iframe the target is in (e.g. "iframe#pay").
            #[serde(default)]
            pub frame: Option<String>,
            $($(#[$fm])* pub $f: $t,)*
        }

        impl $name {
            /// The element target of these arguments.
            #[allow(clippy::redundant_closure_call)]
            pub fn target(&self) -> Target {
                Target {
                    role: self.role.clone(),
                    name: self.name.clone(),
                    exact: self.exact,
                    label: self.label.clone(),
                    placeholder: self.placeholder.clone(),
                    text: ($text)(self),
                    alt_text: self.alt_text.clone(),
                    title: self.title.clone(),
                    test_id: self.test_id.clone(),
                    selector: self.selector.clone(),
                    reference: self.reference.clone(),
                    nth: self.nth,
                    frame: self.frame.clone(),
                }
            }
        }
    };
}

mod actions;
mod dialog;
pub(crate) mod emulation;
mod evidence;
pub(crate) use evidence::{end_step_trace, end_trace_in};
mod expect;
mod observe;
mod route;
mod targets;

pub use actions::{
    Close, Launch, Navigate, Press, Type, WaitFor, click, close, launch, navigate, press,
    type_text, wait_for,
};
pub use dialog::{DialogAnswer, HandleDialog, handle_dialog};
pub use expect::{
    ASSERTIONS, Assertion, Expect, ExpectedText, ExpectedValue, OBSERVATIONS, expect,
};
pub use observe::{
    Console, Network, OutlineFrame, PageOutline, Screenshot, Snapshot, console, is_action, network,
    observe, observed_after, page_line, page_state, screenshot, snapshot, snapshot_text,
};
pub use route::{Route, Routed, route};
pub use targets::{Resolved, Target};

/// Classifies a browser error into a stable code.
pub fn classify(e: BrowserError) -> ToolError {
    let msg = e.to_string();
    let code = match &e {
        BrowserError::Timeout { found, .. } if found.contains("no element matches") => {
            Code::TargetNotFound
        }
        BrowserError::Strict { .. } => Code::StrictMode,
        BrowserError::Assertion { .. } => Code::AssertionFailed,
        BrowserError::Timeout { .. } => Code::WaitTimeout,
        BrowserError::DriverNotFound(_)
        | BrowserError::BrowserNotFound(_)
        | BrowserError::DriverStart(_)
        | BrowserError::Session { .. }
        | BrowserError::LaunchTimeout { .. } => Code::BrowserUnavailable,
        BrowserError::Command { action, .. } if action.starts_with("opening") => {
            Code::NavigationFailed
        }
        BrowserError::NavigationInterrupted { .. } => Code::NavigationFailed,
        _ => Code::ActionFailed,
    };
    ToolError::new(code, msg)
}

fn no_session() -> ToolError {
    ToolError::new(
        Code::NoSession,
        "no browser session: call browser_launch first (it opens headless Chromium)",
    )
}

/// The page of the session, or `NO_SESSION`; what the call does on it
/// belongs to the active run's current step's trace.
fn page(ctx: &Context) -> Result<Page, ToolError> {
    let agent = ctx.agent();
    let step = evidence::trace_target(ctx);
    agent
        .block_on({
            let agent = agent.clone();
            async move {
                let mut guard = agent.browser.lock().await;
                let session = guard.as_mut()?;
                session.trace_call_in(step);
                Some(session.page.clone())
            }
        })?
        .ok_or_else(no_session)
}

/// Checks a `timeoutMs` argument (default 5000, 1 to 60000).
fn timeout_of(ms: Option<u64>) -> Result<Duration, ToolError> {
    let timeout = ms.unwrap_or(5000);
    if timeout == 0 || timeout > 60_000 {
        return Err(ToolError::invalid(format!(
            "timeoutMs {timeout} is out of range: give 1 to 60000"
        )));
    }
    Ok(Duration::from_millis(timeout))
}

/// The schema of a value that takes several JSON kinds (`expected` of
/// `browser_expect`: a string, `{"regex": …}`, a count or a list): typed by
/// its kinds, short enough for the lean `tools/list`.
pub(crate) fn any_of_kinds(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"anyOf": [
        {"type": "string"}, {"type": "number"}, {"type": "object"}, {"type": "array"}
    ]})
}

/// The schema of any JSON value (a route's `json` body), typed by every kind.
pub(crate) fn any_json(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": ["object", "array", "string", "number", "boolean", "null"]})
}
