//! The typed protocol between Rust and the engine injected into the page
//! (`injected/*.js`): a [`Request`] goes in (one `execute async script`), an
//! [`Answer`] comes back, with an [`EngineError`] when the page says no. Each
//! enum is serde-tagged with the name the page switches on (`op`, `kind`,
//! `action`, `read`, `matcher`), so that one `match` on each side covers them:
//! a name the other side does not know is an error naming it, never a silent
//! default.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::aria_template::AriaTemplateNode;

/// Text as a locator step matches it: a string (case-insensitive substring
/// unless `exact`, whitespace normalised) or a JavaScript regex.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum TextPattern {
    /// `{s, exact}`.
    Text {
        /// The text.
        s: String,
        /// Whole text, case-sensitive.
        exact: bool,
    },
    /// `{re, flags}`.
    Regex {
        /// The source.
        re: String,
        /// JavaScript flags.
        flags: String,
    },
}

/// Text as an assertion matches it: a string (the whole text or a part, as the
/// matcher says; case-sensitive unless `ignoreCase`) or a JavaScript regex.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum ExpectPattern {
    /// `{s, ignoreCase}`.
    Text {
        /// The text.
        s: String,
        /// Case-insensitive.
        #[serde(rename = "ignoreCase")]
        ignore_case: bool,
    },
    /// `{re, flags}`.
    Regex {
        /// The source.
        re: String,
        /// JavaScript flags.
        flags: String,
    },
}

/// One step of a locator chain (`hjeResolve` in engine.js).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub(crate) enum Step {
    /// A CSS selector (piercing open shadow roots).
    Css { sel: String },
    /// An XPath expression.
    Xpath { sel: String },
    /// The innermost elements whose text matches.
    Text { m: TextPattern },
    /// Elements by ARIA role and its refinements.
    Role {
        role: String,
        name: Option<TextPattern>,
        level: Option<u32>,
        checked: Option<bool>,
        pressed: Option<bool>,
        expanded: Option<bool>,
        selected: Option<bool>,
        disabled: Option<bool>,
        #[serde(rename = "includeHidden")]
        include_hidden: bool,
    },
    /// Form controls by their label.
    Label { m: TextPattern },
    /// Elements by an attribute's value.
    Attr { name: String, m: TextPattern },
    /// The n-th match (negative from the end).
    Nth { i: i64 },
    /// Matches whose text matches (or not).
    HasText { m: TextPattern, not: bool },
    /// Matches containing a match of `chain` (or not).
    Has { chain: Vec<Step>, not: bool },
    /// Visible (or hidden) matches.
    Visible { v: bool },
    /// Matches also matching `chain`.
    And { chain: Vec<Step> },
    /// Matches, or matches of `chain`, in document order.
    Or { chain: Vec<Step> },
}

impl Step {
    /// A role step with no refinement.
    pub(crate) fn role(role: &str) -> Step {
        Step::Role {
            role: role.to_string(),
            name: None,
            level: None,
            checked: None,
            pressed: None,
            expanded: None,
            selected: None,
            disabled: None,
            include_hidden: false,
        }
    }
}

/// A locator chain and how a failure names it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Target {
    /// The chain.
    pub(crate) chain: Vec<Step>,
    /// The locator as the user wrote it (`page.get_by_role("button")…`).
    pub(crate) describe: String,
    /// The frame the chain is resolved in (none: the top document); the
    /// engine switches there around the call, the page never sees it.
    #[serde(skip)]
    pub(crate) frame: Option<std::sync::Arc<FrameScope>>,
    /// A trace is recorded: the answer names the element the call resolved
    /// ([`Traced`]), an action's, a read's, a wait's or a single-element
    /// assertion's. Set by [`Request::traced`], inside the call's span.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) trace: bool,
}

/// One frame of a locator's scope: the iframe's chain, resolved in the scope
/// of `parent` (none: the page's top document), and how a failure names it.
#[derive(Clone, Debug)]
pub(crate) struct FrameScope {
    /// The frame this one is nested in.
    pub(crate) parent: Option<std::sync::Arc<FrameScope>>,
    /// The iframe element's chain, in the parent's document.
    pub(crate) chain: Vec<Step>,
    /// The frame as the user wrote it (`page.frame_locator("iframe#pay")`).
    pub(crate) desc: String,
}

impl FrameScope {
    /// The frames from the outermost to this one.
    pub(crate) fn path(self: &std::sync::Arc<Self>) -> Vec<std::sync::Arc<FrameScope>> {
        let mut path = vec![self.clone()];
        while let Some(p) = path.last().and_then(|f| f.parent.clone()) {
            path.push(p);
        }
        path.reverse();
        path
    }
}

/// An option of `select_option`.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct SelectOption {
    /// A value or a label.
    pub(crate) any: String,
}

/// What an action does once its element is actionable (`hjeAct` in actions.js).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub(crate) enum Action {
    /// A click (and a double click): at `position` from the top left of the
    /// element's padding box (else where it receives the pointer); `force`:
    /// no actionability check.
    Click {
        #[serde(skip_serializing_if = "Option::is_none")]
        position: Option<Point>,
        force: bool,
    },
    Dblclick {
        #[serde(skip_serializing_if = "Option::is_none")]
        position: Option<Point>,
        force: bool,
    },
    Hover,
    Check {
        checked: bool,
    },
    Fill {
        value: String,
    },
    SelectOption {
        options: Vec<SelectOption>,
    },
    Focus,
    Blur,
    Press,
    DispatchEvent {
        r#type: String,
    },
    ScrollIntoView,
    Screenshot,
    SetInputFiles,
    Drag {
        target: Vec<Step>,
        #[serde(rename = "targetDescribe")]
        target_describe: String,
    },
}

/// Which events a pointer action's check listens for (`HJE_HIT_EVENTS`).
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum HitEvents {
    /// Presses, releases and clicks.
    Mouse,
    /// Moves.
    Hover,
}

/// What a read returns (`hjeRead` in actions.js).
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Read {
    Count,
    TextContent,
    InnerText,
    InputValue,
    Attribute,
    IsVisible,
    IsHidden,
    IsChecked,
    IsEnabled,
    IsEditable,
    BoundingBox,
    AriaSnapshot,
}

/// The state `wait_for` waits for.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum State {
    Attached,
    Detached,
    Visible,
    Hidden,
}

/// What a web-first assertion checks (`hjeCheckOnce` in assertions.js); the
/// page's `url` and `title` need no locator.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "matcher", rename_all = "camelCase")]
pub(crate) enum Matcher {
    Visible,
    Hidden,
    Attached,
    Enabled,
    Disabled,
    Editable,
    Focused,
    Empty,
    Checked {
        expected: bool,
    },
    InViewport {
        expected: f64,
    },
    Count {
        expected: usize,
    },
    Text {
        expected: ExpectPattern,
    },
    ContainText {
        expected: ExpectPattern,
    },
    Texts {
        expected: Vec<ExpectPattern>,
    },
    ContainTexts {
        expected: Vec<ExpectPattern>,
    },
    Class {
        expected: ExpectPattern,
    },
    ContainClass {
        expected: ExpectPattern,
    },
    Classes {
        expected: Vec<ExpectPattern>,
    },
    ContainClasses {
        expected: Vec<ExpectPattern>,
    },
    Value {
        expected: ExpectPattern,
    },
    ValuesList {
        expected: Vec<ExpectPattern>,
    },
    /// `expected: None`: the attribute is present, whatever its value.
    Attribute {
        name: String,
        expected: Option<ExpectPattern>,
    },
    Css {
        name: String,
        expected: ExpectPattern,
    },
    Id {
        expected: ExpectPattern,
    },
    Role {
        expected: String,
    },
    AccessibleName {
        expected: ExpectPattern,
    },
    AriaSnapshot {
        expected: AriaTemplateNode,
    },
    Url {
        expected: ExpectPattern,
    },
    Title {
        expected: ExpectPattern,
    },
}

/// One call of the engine (`__harshjudgeEngine.run` in assertions.js).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub(crate) enum Request {
    /// An action on the single element of a chain, once actionable; with
    /// `verify`, the page then listens for the pointer action's first event.
    Act {
        #[serde(flatten)]
        target: Target,
        #[serde(flatten)]
        action: Action,
        verify: Option<HitEvents>,
    },
    /// Whether the pointer action's first event reached the element.
    HitResult { keep: bool },
    /// The checked state of the single element now (`null` when not one).
    Checked {
        #[serde(flatten)]
        target: Target,
    },
    /// A read of the single element (or of every match with `all`).
    Query {
        #[serde(flatten)]
        target: Target,
        read: Read,
        all: bool,
        /// The attribute of [`Read::Attribute`].
        name: Option<String>,
    },
    /// Waits for a state of the single element.
    WaitFor {
        #[serde(flatten)]
        target: Target,
        state: State,
    },
    /// A web-first assertion; `chain` is empty for the page's own matchers.
    Expect {
        #[serde(flatten)]
        target: Target,
        #[serde(flatten)]
        matcher: Matcher,
        not: bool,
        /// The matcher as the user wrote it, for the call log.
        what: String,
    },
    /// The ARIA snapshot of the whole page.
    AriaSnapshot,
    /// The generated locator of each element of `ids` (a [`Traced`]'s id),
    /// `null` for one no longer attached, in the document of `frame`.
    TraceTargets {
        ids: Vec<String>,
        #[serde(skip)]
        frame: Option<std::sync::Arc<FrameScope>>,
    },
    /// The DOM snapshot of the document of `frame` ([`Snapshotted`]; D8 of
    /// docs/design/trace.md): `target` (a [`Traced`]'s id) is marked where
    /// this document holds it; the document whose token is `skip` answers
    /// without its snapshot (taken already).
    Snapshot {
        #[serde(skip_serializing_if = "Option::is_none")]
        target: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skip: Option<String>,
        #[serde(skip)]
        frame: Option<std::sync::Arc<FrameScope>>,
    },
}

impl Request {
    /// The frame the request's chain is resolved in, if any.
    pub(crate) fn frame(&self) -> Option<&std::sync::Arc<FrameScope>> {
        match self {
            Request::Act { target, .. }
            | Request::Checked { target }
            | Request::Query { target, .. }
            | Request::WaitFor { target, .. }
            | Request::Expect { target, .. } => target.frame.as_ref(),
            Request::TraceTargets { frame, .. } | Request::Snapshot { frame, .. } => frame.as_ref(),
            Request::HitResult { .. } | Request::AriaSnapshot => None,
        }
    }

    /// The request, asking the page to name the element it resolves when
    /// `on` (a trace is recorded: [`crate::trace::is_open`]).
    pub(crate) fn traced(mut self, on: bool) -> Request {
        match &mut self {
            Request::Act { target, .. }
            | Request::Checked { target }
            | Request::Query { target, .. }
            | Request::WaitFor { target, .. }
            | Request::Expect { target, .. } => target.trace = on,
            Request::TraceTargets { .. }
            | Request::Snapshot { .. }
            | Request::HitResult { .. }
            | Request::AriaSnapshot => {}
        }
        self
    }
}

/// A request with the time it may wait in the page (ms).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Call {
    #[serde(flatten)]
    pub(crate) request: Request,
    pub(crate) timeout: u64,
}

/// Why the page said no.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub(crate) enum EngineError {
    /// A single-element call on a chain matching several (`hjeStrict`).
    Strict {
        count: usize,
        /// The first matches, previewed.
        matches: Vec<String>,
    },
    /// The wait ran out; `problem` is the last thing in the way.
    Timeout { problem: String },
    /// A call that cannot work as made (not a checkbox, no such option, …).
    Usage { message: String },
    /// The page's script threw.
    Js { message: String },
}

/// A point in the viewport (or in an element's box), in CSS pixels.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize)]
pub(crate) struct Point {
    pub(crate) x: f64,
    pub(crate) y: f64,
}

/// An element's box in document coordinates: the clip of its screenshot.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub(crate) struct Clip {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
}

/// What the page answers to [`Request::Act`] (`hjeAct` in actions.js): one
/// shape per outcome, told apart by its fields.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub(crate) enum Acted {
    /// The element is actionable and receives the pointer there: Rust sends
    /// the trusted pointer events (click, hover, press, check, a mouse drag).
    Point { point: Point },
    /// An HTML5 drag and drop the page dispatched itself; `dropped` when a
    /// `dragover` handler accepted it.
    Html5 { html5: bool, dropped: bool },
    /// The element, for WebDriver's own command (`set_input_files`).
    Element { element: Value },
    /// The element's box (`screenshot`).
    Clip(Clip),
    /// The values of the options now selected (`select_option`).
    Selected(Vec<String>),
    /// Done in the page, or nothing was left to do (already checked);
    /// `password`: the element filled or focused to type into is a password
    /// field (a trace writes what is typed there as dots).
    Done {
        done: bool,
        #[serde(default)]
        password: bool,
    },
}

/// What the page answers to [`Request::HitResult`]: whether the pointer
/// action's first event reached the element.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub(crate) enum HitReport {
    /// Another element received it (`hit`, previewed) and stopped it there.
    Missed { hit: String, event: String },
    /// The element is in a frame whose document no event of the press or
    /// click reached: the page around the frame took them.
    Unreached { unreached: bool },
    /// The element received it, or no event of the action came (nothing to judge).
    Reached { done: bool },
}

/// The element a call resolved (an action's, or the one it last waited
/// for), as the answer to a request whose target asks (`Target.trace`)
/// names it: what the trace's entry records.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Traced {
    /// The page keeps the element under this id (weakly) for
    /// [`Request::TraceTargets`].
    pub(crate) id: String,
    /// Its box in the top page's viewport (CSS pixels), as `bounding_box`.
    #[serde(rename = "box")]
    pub(crate) bbox: Clip,
    /// What of its computed style tells whether it could be acted on.
    #[serde(default)]
    pub(crate) style: Option<crate::trace::format::TraceStyle>,
}

/// One document's DOM snapshot as the page answered it (`hjsSnapshot` in
/// snapshot.js): the answer to [`Request::Snapshot`], and the `snapshot` of
/// a traced `act` (taken before it acted) or `expect` (at its last check).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Snapshotted {
    /// The snapshot as JSON text, held unparsed: `{url, viewport, scroll,
    /// doctype, html}`, `{omitted}` past the 4 MiB limit, `{error}`; none
    /// when the request's `skip` named this document.
    pub(crate) json: Option<String>,
    /// How many frames the document has (`__hj_frame` 0 to `frames - 1`).
    pub(crate) frames: u32,
    /// The document's token (the one `skip` names).
    pub(crate) doc: String,
}

/// The page's answer: a value, or an error; and the call log either way.
#[derive(Debug)]
pub(crate) struct Answer {
    /// The value, or why not.
    pub(crate) result: Result<Value, EngineError>,
    /// What the engine did, line by line.
    pub(crate) log: Vec<String>,
    /// The element the call resolved, when the request asked (`trace`).
    pub(crate) traced: Option<Traced>,
    /// The document's snapshot a traced `act` or `expect` took.
    pub(crate) snapshot: Option<Snapshotted>,
}

/// An answer as it comes over the wire: `{ok: true, value, log}` or
/// `{ok: false, error: {kind, …}, log}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    ok: bool,
    #[serde(default)]
    value: Value,
    error: Option<EngineError>,
    #[serde(default)]
    log: Vec<String>,
    #[serde(default)]
    traced: Option<Traced>,
    #[serde(default)]
    snapshot: Option<Snapshotted>,
}

impl Answer {
    /// Decodes the page's answer; a shape or kind this side does not know is
    /// an error naming it.
    pub(crate) fn decode(v: Value) -> Result<Answer, serde_json::Error> {
        let w: Wire = serde_json::from_value(v)?;
        let result = match (w.ok, w.error) {
            (true, _) => Ok(w.value),
            (false, Some(e)) => Err(e),
            (false, None) => {
                return Err(serde::de::Error::custom(
                    "an answer with ok: false and no error",
                ));
            }
        };
        Ok(Answer {
            result,
            log: w.log,
            traced: w.traced,
            snapshot: w.snapshot,
        })
    }
}

/// The id of a WebDriver element reference.
pub(crate) fn element_id(v: &Value) -> Option<String> {
    v.get("element-6066-11e4-a52e-4f735466cecf")
        .or_else(|| v.get("ELEMENT"))
        .and_then(|id| id.as_str())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_error_kind_the_rust_side_does_not_know_is_a_decode_error_naming_it() {
        let e = Answer::decode(
            json!({"ok": false, "error": {"kind": "stricter", "message": "x"}, "log": []}),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("stricter"), "{e}");
        let e = Answer::decode(json!({"ok": false, "log": []}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no error"), "{e}");
        let a = Answer::decode(json!({"ok": false, "error": {"kind": "strict", "count": 2, "matches": ["<a>", "<b>"]}, "log": ["l"]}))
            .unwrap();
        assert_eq!(
            a.result,
            Err(EngineError::Strict {
                count: 2,
                matches: vec!["<a>".into(), "<b>".into()]
            })
        );
        assert_eq!(a.log, ["l"]);
    }

    /// The names the page switches on, from the injected sources: every name a
    /// Rust enum sends has its `case` there (and so a renamed variant, or a
    /// string kind coming back on the Rust side, fails here).
    #[test]
    fn every_name_rust_sends_is_a_case_of_the_page() {
        let js = [
            include_str!("injected/engine.js"),
            include_str!("injected/actions.js"),
            include_str!("injected/assertions.js"),
            include_str!("injected/snapshot.js"),
        ]
        .concat();
        let name = |v: Value, tag: &str| v[tag].as_str().unwrap().to_string();
        let p = || ExpectPattern::Text {
            s: "x".into(),
            ignore_case: false,
        };
        let t = || TextPattern::Text {
            s: "x".into(),
            exact: false,
        };
        let target = || Target {
            chain: vec![],
            describe: String::new(),
            frame: None,
            trace: false,
        };
        let mut names: Vec<String> = Vec::new();
        for m in [
            Matcher::Visible,
            Matcher::Hidden,
            Matcher::Attached,
            Matcher::Enabled,
            Matcher::Disabled,
            Matcher::Editable,
            Matcher::Focused,
            Matcher::Empty,
            Matcher::Checked { expected: true },
            Matcher::InViewport { expected: 0.0 },
            Matcher::Count { expected: 0 },
            Matcher::Text { expected: p() },
            Matcher::ContainText { expected: p() },
            Matcher::Texts { expected: vec![] },
            Matcher::ContainTexts { expected: vec![] },
            Matcher::Class { expected: p() },
            Matcher::ContainClass { expected: p() },
            Matcher::Classes { expected: vec![] },
            Matcher::ContainClasses { expected: vec![] },
            Matcher::Value { expected: p() },
            Matcher::ValuesList { expected: vec![] },
            Matcher::Attribute {
                name: "a".into(),
                expected: None,
            },
            Matcher::Css {
                name: "a".into(),
                expected: p(),
            },
            Matcher::Id { expected: p() },
            Matcher::Role {
                expected: "x".into(),
            },
            Matcher::AccessibleName { expected: p() },
            Matcher::AriaSnapshot {
                expected: super::super::aria_template::parse("- button").unwrap(),
            },
            Matcher::Url { expected: p() },
            Matcher::Title { expected: p() },
        ] {
            names.push(name(serde_json::to_value(m).unwrap(), "matcher"));
        }
        for s in [
            Step::Css { sel: "a".into() },
            Step::Xpath { sel: "a".into() },
            Step::Text { m: t() },
            Step::role("button"),
            Step::Label { m: t() },
            Step::Attr {
                name: "a".into(),
                m: t(),
            },
            Step::Nth { i: 0 },
            Step::HasText { m: t(), not: false },
            Step::Has {
                chain: vec![],
                not: false,
            },
            Step::Visible { v: true },
            Step::And { chain: vec![] },
            Step::Or { chain: vec![] },
        ] {
            names.push(name(serde_json::to_value(s).unwrap(), "kind"));
        }
        for a in [
            Action::Click {
                position: None,
                force: false,
            },
            Action::Dblclick {
                position: None,
                force: false,
            },
            Action::Hover,
            Action::Check { checked: true },
            Action::Fill { value: "".into() },
            Action::SelectOption { options: vec![] },
            Action::Focus,
            Action::Blur,
            Action::Press,
            Action::DispatchEvent {
                r#type: "click".into(),
            },
            Action::ScrollIntoView,
            Action::Screenshot,
            Action::SetInputFiles,
            Action::Drag {
                target: vec![],
                target_describe: String::new(),
            },
        ] {
            let v = serde_json::to_value(Request::Act {
                target: target(),
                action: a,
                verify: Some(HitEvents::Mouse),
            })
            .unwrap();
            names.push(name(v, "action"));
        }
        for r in [
            Read::Count,
            Read::TextContent,
            Read::InnerText,
            Read::InputValue,
            Read::Attribute,
            Read::IsVisible,
            Read::IsHidden,
            Read::IsChecked,
            Read::IsEnabled,
            Read::IsEditable,
            Read::BoundingBox,
            Read::AriaSnapshot,
        ] {
            names.push(serde_json::to_value(r).unwrap().as_str().unwrap().into());
        }
        for s in [
            State::Attached,
            State::Detached,
            State::Visible,
            State::Hidden,
        ] {
            names.push(serde_json::to_value(s).unwrap().as_str().unwrap().into());
        }
        for r in [
            Request::Act {
                target: target(),
                action: Action::Click {
                    position: Some(Point { x: 1.0, y: 2.0 }),
                    force: true,
                },
                verify: None,
            },
            Request::HitResult { keep: false },
            Request::Checked { target: target() },
            Request::Query {
                target: target(),
                read: Read::Count,
                all: false,
                name: None,
            },
            Request::WaitFor {
                target: target(),
                state: State::Visible,
            },
            Request::Expect {
                target: target(),
                matcher: Matcher::Visible,
                not: false,
                what: String::new(),
            },
            Request::AriaSnapshot,
            Request::TraceTargets {
                ids: vec![],
                frame: None,
            },
            Request::Snapshot {
                target: None,
                skip: None,
                frame: None,
            },
        ] {
            names.push(name(serde_json::to_value(r).unwrap(), "op"));
        }
        for n in &names {
            assert!(
                js.contains(&format!("case '{n}':")),
                "the page has no `case '{n}':` for a name Rust sends"
            );
        }
        // And the kinds the page sends back are the ones Rust decodes.
        for kind in ["strict", "timeout", "usage", "js"] {
            assert!(
                js.contains(&format!("hjeError('{kind}'")),
                "the page never sends the error kind {kind:?}"
            );
        }
    }

    /// An answer naming the element acted on (`traced`, D4 of
    /// docs/design/trace.md) is read with it; a request asks for it only
    /// while a trace is recorded (`trace` is left out otherwise).
    #[test]
    fn an_answer_s_traced_element_is_read_and_asked_only_when_traced() {
        let a = Answer::decode(
            json!({"ok": true, "value": {"point": {"x": 1, "y": 2}}, "log": [],
            "traced": {"id": "k3:7", "box": {"x": 10.5, "y": 20, "width": 30, "height": 4}}}),
        )
        .unwrap();
        assert_eq!(
            a.traced,
            Some(Traced {
                id: "k3:7".into(),
                bbox: Clip {
                    x: 10.5,
                    y: 20.0,
                    width: 30.0,
                    height: 4.0
                },
                style: None,
            })
        );
        let a = Answer::decode(json!({"ok": true, "value": null, "log": []})).unwrap();
        assert_eq!(a.traced, None);
        assert!(Answer::decode(json!({"ok": true, "traced": {"id": "x"}})).is_err());
        let target = || Target {
            chain: vec![],
            describe: String::new(),
            frame: None,
            trace: false,
        };
        let act = Request::Act {
            target: target(),
            action: Action::Hover,
            verify: None,
        };
        let query = Request::Query {
            target: target(),
            read: Read::TextContent,
            all: false,
            name: None,
        };
        let expect = Request::Expect {
            target: target(),
            matcher: Matcher::Visible,
            not: false,
            what: String::new(),
        };
        // Every request of a locator asks when traced: an action, a read,
        // an assertion.
        for r in [act, query, expect] {
            let on = serde_json::to_value(r.clone().traced(true)).unwrap();
            assert_eq!(on["trace"], json!(true), "{on}");
            let off = serde_json::to_value(r.traced(false)).unwrap();
            assert!(off.get("trace").is_none(), "{off}");
        }
    }

    /// A traced `act` or `expect` answers its document's snapshot beside its
    /// value (`snapshot`, D7 of docs/design/trace.md), a failed one too; a
    /// `snapshot` request's value is the same shape, its `json` none when
    /// it named the document to skip; another shape is refused.
    #[test]
    fn an_answer_s_snapshot_is_read_as_json_text_and_its_frames() {
        let json = r#"{"url":"http://x/","html":["HTML",{},["BODY",{"__hj_target":""},"hi"]]}"#;
        let a = Answer::decode(
            json!({"ok": false, "error": {"kind": "timeout", "problem": "p"},
            "log": [], "snapshot": {"json": json, "frames": 2, "doc": "k3"}}),
        )
        .unwrap();
        assert_eq!(
            a.snapshot,
            Some(Snapshotted {
                json: Some(json.to_string()),
                frames: 2,
                doc: "k3".into()
            })
        );
        let a = Answer::decode(json!({"ok": true, "value": null, "log": []})).unwrap();
        assert_eq!(a.snapshot, None);
        let skipped: Snapshotted =
            serde_json::from_value(json!({"json": null, "frames": 0, "doc": "k3"})).unwrap();
        assert_eq!(skipped.json, None);
        assert!(
            Answer::decode(json!({"ok": true, "log": [], "snapshot": {"json": "{}", "frames": 1}}))
                .is_err(),
            "a snapshot without its document's token"
        );
        assert!(
            serde_json::from_value::<Snapshotted>(
                json!({"json": {"url": "x"}, "frames": 0, "doc": "d"})
            )
            .is_err(),
            "the snapshot is text, not parsed JSON"
        );
        let r = serde_json::to_value(Request::Snapshot {
            target: Some("k3:1".into()),
            skip: None,
            frame: None,
        })
        .unwrap();
        assert_eq!(r, json!({"op": "snapshot", "target": "k3:1"}));
    }

    /// Each shape `hjeAct` and `hjeHitResult` answer with (actions.js) is
    /// read as its own case, and a shape this side does not know is refused.
    #[test]
    fn every_answer_of_an_action_is_read_as_its_case() {
        let acted = |v: Value| serde_json::from_value::<Acted>(v);
        let point = Point { x: 10.5, y: 20.0 };
        assert_eq!(
            acted(json!({"point": {"x": 10.5, "y": 20}})).unwrap(),
            Acted::Point { point }
        );
        assert_eq!(
            acted(json!({"done": true})).unwrap(),
            Acted::Done {
                done: true,
                password: false
            }
        );
        assert_eq!(
            acted(json!({"done": true, "password": true})).unwrap(),
            Acted::Done {
                done: true,
                password: true
            }
        );
        assert_eq!(
            acted(json!({"html5": true, "dropped": false})).unwrap(),
            Acted::Html5 {
                html5: true,
                dropped: false
            }
        );
        assert_eq!(
            acted(json!(["a", "b"])).unwrap(),
            Acted::Selected(vec!["a".into(), "b".into()])
        );
        let clip = Clip {
            x: 1.0,
            y: 2.0,
            width: 3.0,
            height: 4.0,
        };
        assert_eq!(
            acted(json!({"x": 1, "y": 2, "width": 3, "height": 4})).unwrap(),
            Acted::Clip(clip)
        );
        let element = json!({"element-6066-11e4-a52e-4f735466cecf": "e1"});
        assert_eq!(
            acted(json!({ "element": element })).unwrap(),
            Acted::Element { element }
        );
        assert!(acted(json!({"clicked": true})).is_err());
        assert!(acted(json!({"point": {"x": "left"}})).is_err());
        let hit = |v: Value| serde_json::from_value::<HitReport>(v).unwrap();
        assert_eq!(
            hit(json!({"hit": "<div#cover>", "event": "mousedown"})),
            HitReport::Missed {
                hit: "<div#cover>".into(),
                event: "mousedown".into()
            }
        );
        assert_eq!(
            hit(json!({"done": true, "none": true})),
            HitReport::Reached { done: true }
        );
        assert_eq!(
            hit(json!({"unreached": true})),
            HitReport::Unreached { unreached: true }
        );
    }
}
