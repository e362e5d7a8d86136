//! The call as written, read back from the request a locator sends: what the
//! shared paths (`Locator::run`, `pointer_action_within`) name when no
//! public method opened the span itself.

use super::{CallText, Kind, arg};
use crate::protocol::{Action, Read, Request, State};

/// The entry kind and the call of a locator request.
pub(crate) fn of_request(desc: &str, request: &Request) -> (Kind, CallText) {
    let call = |method, args: String| CallText::locator(desc, method, args);
    match request {
        Request::Act { action, .. } => (Kind::Action, of_action(desc, action)),
        Request::Query {
            read, all, name, ..
        } => {
            let method = match (read, all) {
                (Read::Count, _) => "count",
                (Read::TextContent, true) => "all_text_contents",
                (Read::InnerText, true) => "all_inner_texts",
                (Read::TextContent, _) => "text_content",
                (Read::InnerText, _) => "inner_text",
                (Read::InputValue, _) => "input_value",
                (Read::Attribute, _) => "get_attribute",
                (Read::IsVisible, _) => "is_visible",
                (Read::IsHidden, _) => "is_hidden",
                (Read::IsChecked, _) => "is_checked",
                (Read::IsEnabled, _) => "is_enabled",
                (Read::IsEditable, _) => "is_editable",
                (Read::BoundingBox, _) => "bounding_box",
                (Read::AriaSnapshot, _) => "aria_snapshot",
            };
            let args = name.as_deref().map(arg).unwrap_or_default();
            (Kind::Read, call(method, args))
        }
        Request::WaitFor { state, .. } => {
            let state = match state {
                State::Attached => "WaitState::Attached",
                State::Detached => "WaitState::Detached",
                State::Visible => "WaitState::Visible",
                State::Hidden => "WaitState::Hidden",
            };
            (Kind::Read, call("wait_for", state.into()))
        }
        Request::Checked { .. } => (Kind::Read, call("is_checked", String::new())),
        _ => (Kind::Read, call("evaluate", String::new())),
    }
}

/// The locator method an action comes from.
pub(crate) fn of_action(desc: &str, action: &Action) -> CallText {
    let (method, args) = match action {
        Action::Click { .. } => ("click", String::new()),
        Action::Dblclick { .. } => ("dblclick", String::new()),
        Action::Hover => ("hover", String::new()),
        Action::Check { checked: true } => ("check", String::new()),
        Action::Check { checked: false } => ("uncheck", String::new()),
        Action::Fill { value } => ("fill", arg(value)),
        Action::SelectOption { options } => {
            let values: Vec<String> = options.iter().map(|o| arg(&o.any)).collect();
            ("select_option", format!("[{}]", values.join(", ")))
        }
        Action::Focus | Action::Press => ("focus", String::new()),
        Action::Blur => ("blur", String::new()),
        Action::DispatchEvent { r#type } => ("dispatch_event", arg(r#type)),
        Action::ScrollIntoView => ("scroll_into_view_if_needed", String::new()),
        Action::Screenshot => ("screenshot", String::new()),
        Action::SetInputFiles => ("set_input_files", String::new()),
        Action::Drag {
            target_describe, ..
        } => ("drag_to", format!("&{target_describe}")),
    };
    CallText::locator(desc, method, args)
}
