//! [`Locator`]: a lazy description of elements, resolved inside the page at each
//! use by the injected engine; actions and reads that wait for actionability.

use std::future::Future;
use std::panic::Location;
use std::time::Duration;

use serde_json::{Value, json};

use super::page::Page;
use super::{BrowserError, wire};

/// How text is matched: a `&str` matches case-insensitively as a substring
/// after whitespace normalisation (Playwright's rule); [`TextMatch::exact`] or a
/// [`regex::Regex`] for the rest. Regexes run in the browser's JavaScript engine
/// (leading inline flags such as `(?i)` become JavaScript flags).
#[derive(Clone, Debug)]
pub enum TextMatch {
    /// A substring, case-insensitive, whitespace normalised.
    Substring(String),
    /// The whole text, case-sensitive, whitespace normalised.
    Exact(String),
    /// A regular expression.
    Regex(regex::Regex),
}

impl TextMatch {
    /// The whole text, case-sensitive (whitespace still normalised).
    pub fn exact(s: impl Into<String>) -> Self {
        TextMatch::Exact(s.into())
    }

    /// As the engine reads it in locators: `{s, exact}` or `{re, flags}`.
    pub(crate) fn locator_json(&self) -> Value {
        match self {
            TextMatch::Substring(s) => json!({"s": s, "exact": false}),
            TextMatch::Exact(s) => json!({"s": s, "exact": true}),
            TextMatch::Regex(r) => regex_json(r),
        }
    }

    /// As the engine reads it in assertions: strings match the whole text
    /// (`to_have_*`) or a part (`to_contain_*`), case-sensitive.
    pub(crate) fn expect_json(&self, ignore_case: bool) -> Value {
        match self {
            TextMatch::Substring(s) | TextMatch::Exact(s) => {
                json!({"s": s, "ignoreCase": ignore_case})
            }
            TextMatch::Regex(r) => regex_json(r),
        }
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            TextMatch::Substring(s) => format!("{s:?}"),
            TextMatch::Exact(s) => format!("TextMatch::exact({s:?})"),
            TextMatch::Regex(r) => format!("Regex::new({:?})", r.as_str()),
        }
    }
}

/// A Rust regex as a JavaScript one: leading inline flags become flags.
fn regex_json(r: &regex::Regex) -> Value {
    let mut src = r.as_str();
    let mut flags = String::new();
    if let Some(rest) = src.strip_prefix("(?")
        && let Some(end) = rest.find(')')
        && rest[..end].chars().all(|c| "ism".contains(c))
        && end > 0
    {
        flags = rest[..end].to_string();
        src = &rest[end + 1..];
    }
    json!({"re": src, "flags": flags})
}

impl From<&str> for TextMatch {
    fn from(s: &str) -> Self {
        TextMatch::Substring(s.to_string())
    }
}
impl From<String> for TextMatch {
    fn from(s: String) -> Self {
        TextMatch::Substring(s)
    }
}
impl From<&String> for TextMatch {
    fn from(s: &String) -> Self {
        TextMatch::Substring(s.clone())
    }
}
impl From<regex::Regex> for TextMatch {
    fn from(r: regex::Regex) -> Self {
        TextMatch::Regex(r)
    }
}
impl From<&regex::Regex> for TextMatch {
    fn from(r: &regex::Regex) -> Self {
        TextMatch::Regex(r.clone())
    }
}

/// The position and size of an element, in CSS pixels relative to the viewport.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
pub struct BoundingBox {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// What [`Locator::wait_for`] waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitState {
    /// In the DOM.
    Attached,
    /// Not in the DOM.
    Detached,
    /// In the DOM and visible.
    Visible,
    /// Not in the DOM, or not visible.
    Hidden,
}

/// Elements of a page, described lazily: nothing is looked up until an action,
/// a read or an assertion uses it, and then inside the page (by the injected
/// engine), again at each use. Cheap to clone; `Send`.
///
/// Created from a [`Page`] (`page.get_by_role("button").name("Save")`) and chained
/// from another locator (`list.get_by_text("milk")`, `.nth(1)`, `.filter_has_text(…)`).
/// Actions and single-element reads are **strict**: on a locator matching several
/// elements they fail at once, naming the count and the first matches.
#[derive(Clone)]
pub struct Locator {
    pub(crate) page: Page,
    pub(crate) chain: Vec<Value>,
    pub(crate) desc: String,
    pub(crate) misuse: Option<String>,
}

impl std::fmt::Debug for Locator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.desc)
    }
}

impl std::fmt::Display for Locator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.desc)
    }
}

/// A string selector as a chain step: CSS by default; `testid=x`, `text=Sign in`
/// (the innermost element whose whole text is that), `xpath=…`, `//…`, `(//…`,
/// `css=…`.
pub(crate) fn selector_step(s: &str) -> Value {
    if let Some(id) = s.strip_prefix("testid=") {
        json!({"kind": "attr", "name": "data-testid", "m": {"s": id, "exact": true}})
    } else if let Some(text) = s.strip_prefix("text=") {
        json!({"kind": "text", "m": {"s": text, "exact": true}})
    } else if let Some(x) = s.strip_prefix("xpath=") {
        json!({"kind": "xpath", "sel": x})
    } else if s.starts_with("//") || s.starts_with("(//") {
        json!({"kind": "xpath", "sel": s})
    } else {
        json!({"kind": "css", "sel": s.strip_prefix("css=").unwrap_or(s)})
    }
}

macro_rules! constructors {
    ($prefix:literal) => {
        /// Elements matching a selector: CSS by default; also `testid=x`,
        /// `text=Sign in` (the innermost element whose whole text is that),
        /// `xpath=…` / `//…`, `css=…`.
        pub fn locator(&self, selector: &str) -> Locator {
            self.push(
                selector_step(selector),
                format!(concat!($prefix, "locator({:?})"), selector),
            )
        }

        /// Elements by ARIA role (`"button"`, `"checkbox"`, `"listitem"`, …),
        /// hidden ones excluded; refine with [`Locator::name`], [`Locator::level`],
        /// [`Locator::checked`], [`Locator::include_hidden`], [`Locator::exact`].
        pub fn get_by_role(&self, role: &str) -> Locator {
            self.push(
                json!({"kind": "role", "role": role}),
                format!(concat!($prefix, "get_by_role({:?})"), role),
            )
        }

        /// The innermost elements whose text matches (input buttons by their value).
        pub fn get_by_text(&self, text: impl Into<TextMatch>) -> Locator {
            let m: TextMatch = text.into();
            self.push(
                json!({"kind": "text", "m": m.locator_json()}),
                format!(concat!($prefix, "get_by_text({})"), m.describe()),
            )
        }

        /// Form controls by their `<label>` (by `for` or nesting), `aria-labelledby`
        /// or `aria-label`.
        pub fn get_by_label(&self, text: impl Into<TextMatch>) -> Locator {
            let m: TextMatch = text.into();
            self.push(
                json!({"kind": "label", "m": m.locator_json()}),
                format!(concat!($prefix, "get_by_label({})"), m.describe()),
            )
        }

        /// Elements by their `placeholder`.
        pub fn get_by_placeholder(&self, text: impl Into<TextMatch>) -> Locator {
            self.attr("placeholder", "get_by_placeholder", text.into())
        }

        /// Elements (images, areas, image inputs) by their `alt` text.
        pub fn get_by_alt_text(&self, text: impl Into<TextMatch>) -> Locator {
            self.attr("alt", "get_by_alt_text", text.into())
        }

        /// Elements by their `title`.
        pub fn get_by_title(&self, text: impl Into<TextMatch>) -> Locator {
            self.attr("title", "get_by_title", text.into())
        }

        /// Elements by their `data-testid` (the whole value, case-sensitive).
        pub fn get_by_test_id(&self, id: &str) -> Locator {
            self.push(
                json!({"kind": "attr", "name": "data-testid", "m": {"s": id, "exact": true}}),
                format!(concat!($prefix, "get_by_test_id({:?})"), id),
            )
        }

        fn attr(&self, name: &str, method: &str, m: TextMatch) -> Locator {
            self.push(
                json!({"kind": "attr", "name": name, "m": m.locator_json()}),
                format!("{}{method}({})", $prefix, m.describe()),
            )
        }
    };
}

impl Page {
    fn push(&self, step: Value, desc: String) -> Locator {
        Locator {
            page: self.clone(),
            chain: vec![step],
            desc,
            misuse: None,
        }
    }

    constructors!("page.");
}

impl Locator {
    fn push(&self, step: Value, desc: String) -> Locator {
        let mut l = self.clone();
        l.chain.push(step);
        l.desc = format!("{}.{desc}", self.desc);
        l
    }

    fn refine(&self, key: &str, value: Value, desc: String) -> Locator {
        let mut l = self.clone();
        match l.chain.last_mut() {
            Some(step) if step["kind"] == "role" => {
                step[key] = value;
                l.desc.push_str(&desc);
            }
            _ => {
                l.misuse = Some(format!(
                    "{desc} refines get_by_role(…) only, not {}",
                    self.desc
                ))
            }
        }
        l
    }

    constructors!("");

    /// The accessible name of a [`get_by_role`](Locator::get_by_role) locator.
    pub fn name(&self, name: impl Into<TextMatch>) -> Locator {
        let m: TextMatch = name.into();
        self.refine("name", m.locator_json(), format!(".name({})", m.describe()))
    }

    /// The heading level of a `get_by_role("heading")` locator.
    pub fn level(&self, level: u32) -> Locator {
        self.refine("level", json!(level), format!(".level({level})"))
    }

    /// Only checked (`true`) or unchecked (`false`) elements of a role locator.
    pub fn checked(&self, checked: bool) -> Locator {
        self.refine("checked", json!(checked), format!(".checked({checked})"))
    }

    /// Only pressed (or not pressed) elements of a role locator.
    pub fn pressed(&self, pressed: bool) -> Locator {
        self.refine("pressed", json!(pressed), format!(".pressed({pressed})"))
    }

    /// Only expanded (or collapsed) elements of a role locator.
    pub fn expanded(&self, expanded: bool) -> Locator {
        self.refine(
            "expanded",
            json!(expanded),
            format!(".expanded({expanded})"),
        )
    }

    /// Only selected (or unselected) elements of a role locator.
    pub fn selected(&self, selected: bool) -> Locator {
        self.refine(
            "selected",
            json!(selected),
            format!(".selected({selected})"),
        )
    }

    /// Only disabled (or enabled) elements of a role locator.
    pub fn disabled(&self, disabled: bool) -> Locator {
        self.refine(
            "disabled",
            json!(disabled),
            format!(".disabled({disabled})"),
        )
    }

    /// Whether a role locator also matches elements hidden from the accessibility tree.
    pub fn include_hidden(&self, include: bool) -> Locator {
        self.refine(
            "includeHidden",
            json!(include),
            format!(".include_hidden({include})"),
        )
    }

    /// Makes the text of the last step match exactly (whole text, case-sensitive).
    pub fn exact(&self) -> Locator {
        let mut l = self.clone();
        if let Some(step) = l.chain.last_mut() {
            for key in ["m", "name"] {
                if step[key].get("s").is_some() {
                    step[key]["exact"] = json!(true);
                }
            }
        }
        l.desc.push_str(".exact()");
        l
    }

    /// The n-th match (from 0; negative counts from the end).
    pub fn nth(&self, index: i64) -> Locator {
        self.push(json!({"kind": "nth", "i": index}), format!("nth({index})"))
    }

    /// The first match.
    pub fn first(&self) -> Locator {
        self.push(json!({"kind": "nth", "i": 0}), "first()".into())
    }

    /// The last match.
    pub fn last(&self) -> Locator {
        self.push(json!({"kind": "nth", "i": -1}), "last()".into())
    }

    /// Only matches whose text contains `text` (somewhere inside them).
    pub fn filter_has_text(&self, text: impl Into<TextMatch>) -> Locator {
        let m: TextMatch = text.into();
        self.push(
            json!({"kind": "hasText", "m": m.locator_json()}),
            format!("filter_has_text({})", m.describe()),
        )
    }

    /// Only matches whose text does not contain `text`.
    pub fn filter_has_not_text(&self, text: impl Into<TextMatch>) -> Locator {
        let m: TextMatch = text.into();
        self.push(
            json!({"kind": "hasText", "m": m.locator_json(), "not": true}),
            format!("filter_has_not_text({})", m.describe()),
        )
    }

    /// Only matches that contain an element matching `inner` (resolved inside each match).
    pub fn filter_has(&self, inner: &Locator) -> Locator {
        self.push(
            json!({"kind": "has", "chain": inner.chain}),
            format!("filter_has({})", inner.desc),
        )
    }

    /// Only matches that contain no element matching `inner`.
    pub fn filter_has_not(&self, inner: &Locator) -> Locator {
        self.push(
            json!({"kind": "has", "chain": inner.chain, "not": true}),
            format!("filter_has_not({})", inner.desc),
        )
    }

    /// Only visible matches.
    pub fn filter_visible(&self) -> Locator {
        self.push(
            json!({"kind": "visible", "v": true}),
            "filter_visible()".into(),
        )
    }

    /// Elements matching both this locator and `other`.
    pub fn and(&self, other: &Locator) -> Locator {
        self.push(
            json!({"kind": "and", "chain": other.chain}),
            format!("and({})", other.desc),
        )
    }

    /// Elements matching this locator or `other` (in document order).
    pub fn or(&self, other: &Locator) -> Locator {
        self.push(
            json!({"kind": "or", "chain": other.chain}),
            format!("or({})", other.desc),
        )
    }

    /// The page this locator belongs to.
    pub fn page(&self) -> &Page {
        &self.page
    }

    // ---- the engine ---------------------------------------------------------------

    fn request(&self, op: &str, timeout: Duration) -> Value {
        json!({
            "op": op,
            "chain": self.chain,
            "describe": self.desc,
            "timeout": timeout.as_millis() as u64,
        })
    }

    /// Runs a request; a failed wait becomes a located error naming the locator.
    pub(crate) async fn run(
        &self,
        mut req: Value,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        if let Some(m) = &self.misuse {
            return Err(BrowserError::Invalid {
                message: m.clone(),
                location: Some(at),
            });
        }
        if req.get("timeout").is_none() {
            req["timeout"] = json!(self.page.wait().as_millis() as u64);
        }
        let start = std::time::Instant::now();
        let during = format!("waiting for {} to {what}", self.desc);
        let answer = self
            .page
            .engine(req, &during)
            .await
            .map_err(|e| e.located(at))?;
        engine_result(answer, &self.desc, what, start.elapsed(), at)
    }

    async fn act(
        &self,
        action: &str,
        extra: Value,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        let mut req = self.request("act", self.page.wait());
        req["action"] = json!(action);
        if let Value::Object(m) = extra {
            for (k, v) in m {
                req[k] = v;
            }
        }
        self.run(req, what, at).await
    }

    /// A pointer action, Playwright style: waits in the page until the element is
    /// actionable and receives the pointer at its point, performs `op` there with
    /// WebDriver's mouse, then asks the page whether the action's first event
    /// reached the element. Stability is judged in the page but the mouse comes
    /// in another command, so the element may have moved, or something may have
    /// covered it, in between: the page then stopped the event where it landed
    /// (the element in the way is not clicked) and this retries the whole, until
    /// the timeout, the call log saying "retrying click action, attempt N" and
    /// naming the element that received it. Returns the engine's answer when it
    /// had nothing to do (no `point`: already checked, an HTML5 drag done).
    async fn pointer_action(
        &self,
        action: &str,
        extra: Value,
        what: &str,
        op: PointerOp,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        if let Some(m) = &self.misuse {
            return Err(BrowserError::Invalid {
                message: m.clone(),
                location: Some(at),
            });
        }
        let start = std::time::Instant::now();
        let deadline = start + self.page.wait();
        let during = format!("waiting for {} to {what}", self.desc);
        let mut earlier: Vec<Value> = Vec::new();
        let mut missed = String::new();
        for attempt in 1u32.. {
            let mut req = self.request(
                "act",
                deadline.saturating_duration_since(std::time::Instant::now()),
            );
            req["action"] = json!(action);
            req["verify"] = json!(op.events());
            if let Value::Object(m) = &extra {
                for (k, v) in m {
                    req[k] = v.clone();
                }
            }
            let mut answer = self
                .page
                .engine(req, &during)
                .await
                .map_err(|e| e.located(at))?;
            if !earlier.is_empty() {
                let mut log = earlier.clone();
                log.extend(answer["log"].as_array().cloned().unwrap_or_default());
                answer["log"] = Value::Array(log);
            }
            let log = answer["log"].clone();
            let v = match engine_result(answer, &self.desc, what, start.elapsed(), at) {
                Ok(v) => v,
                // Timed out after a miss: the element in the way leads the message.
                Err(BrowserError::Timeout {
                    locator,
                    expected,
                    found,
                    waited,
                    location,
                }) if !missed.is_empty() => {
                    return Err(BrowserError::Timeout {
                        locator,
                        expected,
                        found: format!("{missed}; then {found}"),
                        waited,
                        location,
                    });
                }
                Err(e) => return Err(e),
            };
            let Some((x, y)) = v["point"]["x"].as_f64().zip(v["point"]["y"].as_f64()) else {
                return Ok(v);
            };
            let mouse = self.page.mouse();
            match op {
                PointerOp::Click(n) => mouse.click_at(x, y, n).await,
                PointerOp::Hover => mouse.move_to(x, y).await,
                PointerOp::Press => mouse.press_at(x, y).await,
            }
            .map_err(|e| e.located(at))?;
            // (a timeout lets the engine call ride out a navigation the click started)
            let hit = match self
                .page
                .engine(
                    json!({"op": "hitResult", "keep": matches!(op, PointerOp::Press), "timeout": 3000}),
                    &format!("checking that the {} reached {}", op.verb(), self.desc),
                )
                .await
            {
                Ok(hit) => hit,
                // The document went away under the check: the action started a
                // navigation, so it reached the page; nothing is left to verify.
                Err(e @ BrowserError::Command { .. })
                    if wire::is_navigation(&e)
                        || matches!(&e, BrowserError::Command { message, .. } if message.contains("script timeout")) =>
                {
                    return Ok(v);
                }
                Err(e) => return Err(e.located(at)),
            };
            let Some(who) = hit["value"]["hit"].as_str() else {
                return Ok(v);
            };
            if matches!(op, PointerOp::Press) {
                // Release the button the page never saw pressed (still stopped there).
                mouse.up().await.map_err(|e| e.located(at))?;
            }
            let event = hit["value"]["event"].as_str().unwrap_or("event");
            missed = format!(
                "{who} intercepts pointer events: it received the {event} of attempt {attempt}"
            );
            earlier = log.as_array().cloned().unwrap_or_default();
            earlier.push(json!(format!(
                "{who} received the {event} instead: it intercepts pointer events"
            )));
            let now = std::time::Instant::now();
            if now >= deadline {
                return Err(BrowserError::Timeout {
                    locator: self.desc.clone(),
                    expected: what.to_string(),
                    found: format!("{missed}{}", call_log(&Value::Array(earlier))),
                    waited: start.elapsed(),
                    location: Some(at),
                });
            }
            earlier.push(json!(format!(
                "retrying {} action, attempt {}",
                op.verb(),
                attempt + 1
            )));
            // Playwright's backoff between retries of an action.
            let pause = [0u64, 20, 100, 100, 500][(attempt as usize - 1).min(4)];
            tokio::time::sleep(Duration::from_millis(pause).min(deadline - now)).await;
        }
        unreachable!("the retry loop returns")
    }

    async fn pointer(
        &self,
        action: &str,
        what: &str,
        op: PointerOp,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        self.pointer_action(action, json!({}), what, op, at)
            .await
            .map(|_| ())
    }

    async fn query(
        &self,
        read: &str,
        extra: Value,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        let mut req = self.request("query", self.page.wait());
        req["read"] = json!(read);
        if let Value::Object(m) = extra {
            for (k, v) in m {
                req[k] = v;
            }
        }
        self.run(req, "be attached", at).await
    }

    // ---- actions ------------------------------------------------------------------

    /// Clicks the element at its centre, once it is visible, stable, enabled and
    /// receives the pointer there (else waits, naming the element in the way).
    #[track_caller]
    pub fn click(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            self.pointer(
                "click",
                "be clicked (visible, enabled, stable, receiving pointer events)",
                PointerOp::Click(1),
                at,
            )
            .await
        }
    }

    /// Double-clicks the element (as [`click`](Locator::click)).
    #[track_caller]
    pub fn dblclick(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            self.pointer(
                "dblclick",
                "be double-clicked (visible, enabled, stable, receiving pointer events)",
                PointerOp::Click(2),
                at,
            )
            .await
        }
    }

    /// Moves the mouse over the element's centre.
    #[track_caller]
    pub fn hover(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            self.pointer(
                "hover",
                "be hovered (visible, stable, receiving pointer events)",
                PointerOp::Hover,
                at,
            )
            .await
        }
    }

    /// Replaces the field's value with `value` without blurring it: focus,
    /// select all, insert the text (an `input` event; `change` comes when the
    /// field loses focus, as with typing).
    #[track_caller]
    pub fn fill<'a>(
        &'a self,
        value: &'a str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            self.act(
                "fill",
                json!({"value": value}),
                "be filled (visible, enabled, editable)",
                at,
            )
            .await
            .map(|_| ())
        }
    }

    /// Empties the field (as `fill("")`).
    #[track_caller]
    pub fn clear(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            self.act(
                "fill",
                json!({"value": ""}),
                "be cleared (visible, enabled, editable)",
                at,
            )
            .await
            .map(|_| ())
        }
    }

    /// Focuses the element and presses a key or chord: `"Enter"`, `"Escape"`,
    /// `"Control+a"`, `"Shift+Tab"`, `"a"`, … (see [`Keyboard::press`](super::Keyboard::press)).
    #[track_caller]
    pub fn press<'a>(
        &'a self,
        key: &'a str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            let keys = super::keyboard::chord(key).map_err(|m| BrowserError::Invalid {
                message: m,
                location: Some(at),
            })?;
            self.act("press", json!({}), "be focused", at).await?;
            self.page
                .keyboard()
                .send(keys, &format!("pressing {key} in {}", self.desc))
                .await
                .map_err(|e| e.located(at))
        }
    }

    /// Focuses the element and types `text` one key at a time.
    #[track_caller]
    pub fn press_sequentially<'a>(
        &'a self,
        text: &'a str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            self.act("press", json!({}), "be focused", at).await?;
            self.page
                .keyboard()
                .type_text(text)
                .await
                .map_err(|e| e.located(at))
        }
    }

    /// Checks a checkbox or radio button (clicking it unless it is checked), then
    /// verifies that it is.
    #[track_caller]
    pub fn check(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move { self.set_checked_at(true, at).await }
    }

    /// Unchecks a checkbox (clicking it unless it is unchecked), then verifies that it is.
    #[track_caller]
    pub fn uncheck(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move { self.set_checked_at(false, at).await }
    }

    /// [`check`](Locator::check) or [`uncheck`](Locator::uncheck).
    #[track_caller]
    pub fn set_checked(
        &self,
        checked: bool,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move { self.set_checked_at(checked, at).await }
    }

    async fn set_checked_at(
        &self,
        checked: bool,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let verb = if checked {
            "be checked"
        } else {
            "be unchecked"
        };
        let v = self
            .pointer_action(
                "check",
                json!({"checked": checked}),
                &format!("{verb} (visible, enabled, stable, receiving pointer events)"),
                PointerOp::Click(1),
                at,
            )
            .await?;
        if v["done"] == true {
            return Ok(());
        }
        let now = self
            .page
            .engine(
                json!({"op": "checked", "chain": self.chain}),
                &format!("reading the state of {}", self.desc),
            )
            .await?;
        if now["value"] != json!(checked) {
            return Err(BrowserError::Assertion {
                message: format!(
                    "{}: clicking did not change the state (it is {}): the page handles the click itself",
                    self.desc,
                    if checked {
                        "still unchecked"
                    } else {
                        "still checked"
                    }
                ),
                location: Some(at),
            });
        }
        Ok(())
    }

    /// Selects options of a `<select>` by value or label (several for `multiple`);
    /// returns the selected values.
    #[track_caller]
    pub fn select_option<'a, I, S>(
        &'a self,
        values: I,
    ) -> impl Future<Output = Result<Vec<String>, BrowserError>> + Send + 'a
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let at = Location::caller();
        let options: Vec<Value> = values
            .into_iter()
            .map(|v| json!({"any": v.as_ref()}))
            .collect();
        async move {
            let v = self
                .act(
                    "selectOption",
                    json!({"options": options}),
                    "have an option selected (visible, enabled)",
                    at,
                )
                .await?;
            Ok(serde_json::from_value(v).unwrap_or_default())
        }
    }

    /// Focuses the element.
    #[track_caller]
    pub fn focus(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            self.act("focus", json!({}), "be focused", at)
                .await
                .map(|_| ())
        }
    }

    /// Removes focus from the element.
    #[track_caller]
    pub fn blur(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            self.act("blur", json!({}), "be blurred", at)
                .await
                .map(|_| ())
        }
    }

    /// Dispatches a DOM event of `event_type` (`"click"`, `"input"`, …) on the element.
    #[track_caller]
    pub fn dispatch_event<'a>(
        &'a self,
        event_type: &'a str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            self.act(
                "dispatchEvent",
                json!({"type": event_type}),
                &format!("receive a {event_type} event"),
                at,
            )
            .await
            .map(|_| ())
        }
    }

    /// Scrolls the element into view unless it is visible there already.
    #[track_caller]
    pub fn scroll_into_view_if_needed(
        &self,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            self.act(
                "scrollIntoView",
                json!({}),
                "be scrolled into view (visible, stable)",
                at,
            )
            .await
            .map(|_| ())
        }
    }

    /// Sets the files of an `<input type=file>` (absolute paths).
    #[track_caller]
    pub fn set_input_files<'a, I, P>(
        &'a self,
        files: I,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a
    where
        I: IntoIterator<Item = P>,
        P: AsRef<std::path::Path>,
    {
        let at = Location::caller();
        let paths: Vec<String> = files
            .into_iter()
            .map(|p| p.as_ref().display().to_string())
            .collect();
        async move {
            let v = self
                .act("setInputFiles", json!({}), "be attached", at)
                .await?;
            let id = element_id(&v["element"]).ok_or_else(|| BrowserError::Invalid {
                message: format!("{}: no element reference came back", self.desc),
                location: Some(at),
            })?;
            wire::post(
                self.page.client(),
                format!("element/{id}/value"),
                json!({"text": paths.join("\n")}),
                &format!("setting the files of {}", self.desc),
            )
            .await
            .map(|_| ())
        }
    }

    /// Drags this element onto `target`. A source that is natively draggable
    /// (itself or an ancestor with `draggable="true"`) gets HTML5 drag and drop,
    /// as Chromium gives it under Playwright: `dragstart` and `drag` on the
    /// source, `dragenter`/`dragover` on the element under the drop point,
    /// `drop` there when a `dragover` handler accepted it, `dragend` on the
    /// source, one `DataTransfer` from start to drop (these events are
    /// dispatched by the page's engine: WebDriver's mouse starts no native drag).
    /// Any other source is dragged with the mouse: press on it, move in steps
    /// onto the target, release.
    #[track_caller]
    pub fn drag_to<'a>(
        &'a self,
        target: &'a Locator,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            if let Some(m) = &target.misuse {
                return Err(BrowserError::Invalid {
                    message: m.clone(),
                    location: Some(at),
                });
            }
            // As a user would: press on the source, then find the target (which
            // may scroll it into view) and release there.
            let v = self
                .pointer_action(
                    "drag",
                    json!({"target": target.chain, "targetDescribe": target.desc}),
                    "be dragged (visible, stable, receiving pointer events)",
                    PointerOp::Press,
                    at,
                )
                .await?;
            if v["html5"] == true {
                return Ok(());
            }
            let (x0, y0) = (
                v["point"]["x"].as_f64().unwrap_or(0.0),
                v["point"]["y"].as_f64().unwrap_or(0.0),
            );
            let t = target
                .act("hover", json!({}), "be dropped on (visible, stable)", at)
                .await?;
            let (x1, y1) = (
                t["point"]["x"].as_f64().unwrap_or(0.0),
                t["point"]["y"].as_f64().unwrap_or(0.0),
            );
            self.page
                .mouse()
                .release_at(x0, y0, x1, y1)
                .await
                .map_err(|e| e.located(at))
        }
    }

    // ---- reads --------------------------------------------------------------------

    /// How many elements match now (no waiting).
    #[track_caller]
    pub fn count(&self) -> impl Future<Output = Result<usize, BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            let v = self.query("count", json!({}), at).await?;
            Ok(v.as_u64().unwrap_or(0) as usize)
        }
    }

    /// One locator per element matching now (`nth(0)`, `nth(1)`, …).
    #[track_caller]
    pub fn all(&self) -> impl Future<Output = Result<Vec<Locator>, BrowserError>> + Send + '_ {
        let n = self.count();
        async move { Ok((0..n.await?).map(|i| self.nth(i as i64)).collect()) }
    }

    /// The element's `textContent` (waits until it is attached).
    #[track_caller]
    pub fn text_content(&self) -> impl Future<Output = Result<String, BrowserError>> + Send + '_ {
        self.read_string("textContent", Location::caller())
    }

    /// The element's rendered text (`innerText`).
    #[track_caller]
    pub fn inner_text(&self) -> impl Future<Output = Result<String, BrowserError>> + Send + '_ {
        self.read_string("innerText", Location::caller())
    }

    /// The value of an `<input>`, `<textarea>` or `<select>`.
    #[track_caller]
    pub fn input_value(&self) -> impl Future<Output = Result<String, BrowserError>> + Send + '_ {
        self.read_string("inputValue", Location::caller())
    }

    /// The accessible snapshot (YAML) of the element's subtree.
    #[track_caller]
    pub fn aria_snapshot(&self) -> impl Future<Output = Result<String, BrowserError>> + Send + '_ {
        self.read_string("ariaSnapshot", Location::caller())
    }

    async fn read_string(
        &self,
        what: &'static str,
        at: &'static Location<'static>,
    ) -> Result<String, BrowserError> {
        let v = self.query(what, json!({}), at).await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// The `innerText` of every match.
    #[track_caller]
    pub fn all_inner_texts(
        &self,
    ) -> impl Future<Output = Result<Vec<String>, BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            let v = self.query("innerText", json!({"all": true}), at).await?;
            Ok(serde_json::from_value(v).unwrap_or_default())
        }
    }

    /// The `textContent` of every match.
    #[track_caller]
    pub fn all_text_contents(
        &self,
    ) -> impl Future<Output = Result<Vec<String>, BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            let v = self.query("textContent", json!({"all": true}), at).await?;
            Ok(serde_json::from_value(v).unwrap_or_default())
        }
    }

    /// An attribute of the element (`None` when it has none).
    #[track_caller]
    pub fn get_attribute<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Option<String>, BrowserError>> + Send + 'a {
        let at = Location::caller();
        async move {
            let v = self.query("attribute", json!({"name": name}), at).await?;
            Ok(v.as_str().map(str::to_string))
        }
    }

    /// Whether the element is visible now (no waiting; false when nothing matches).
    #[track_caller]
    pub fn is_visible(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        self.read_bool("isVisible", Location::caller())
    }

    /// Whether the element is hidden or absent now (no waiting).
    #[track_caller]
    pub fn is_hidden(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        self.read_bool("isHidden", Location::caller())
    }

    /// Whether the checkbox or radio button is checked.
    #[track_caller]
    pub fn is_checked(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        self.read_bool("isChecked", Location::caller())
    }

    /// Whether the element is enabled.
    #[track_caller]
    pub fn is_enabled(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        self.read_bool("isEnabled", Location::caller())
    }

    /// Whether the element is disabled.
    #[track_caller]
    pub fn is_disabled(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        let f = self.read_bool("isEnabled", Location::caller());
        async move { f.await.map(|e| !e) }
    }

    /// Whether the element can be filled (enabled, not readonly, a text field).
    #[track_caller]
    pub fn is_editable(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        self.read_bool("isEditable", Location::caller())
    }

    async fn read_bool(
        &self,
        what: &'static str,
        at: &'static Location<'static>,
    ) -> Result<bool, BrowserError> {
        let v = self.query(what, json!({}), at).await?;
        Ok(v.as_bool().unwrap_or(false))
    }

    /// The element's box in the viewport (`None` when it is not visible).
    #[track_caller]
    pub fn bounding_box(
        &self,
    ) -> impl Future<Output = Result<Option<BoundingBox>, BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            let v = self.query("boundingBox", json!({}), at).await?;
            Ok(serde_json::from_value(v).ok())
        }
    }

    /// Waits until the element is attached, detached, visible or hidden.
    #[track_caller]
    pub fn wait_for(
        &self,
        state: WaitState,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            let (name, what) = match state {
                WaitState::Attached => ("attached", "be attached"),
                WaitState::Detached => ("detached", "be detached"),
                WaitState::Visible => ("visible", "be visible"),
                WaitState::Hidden => ("hidden", "be hidden"),
            };
            let mut req = self.request("waitFor", self.page.wait());
            req["state"] = json!(name);
            self.run(req, what, at).await.map(|_| ())
        }
    }

    /// The element's box in document coordinates, once it is visible and stable
    /// (scrolled into view): the clip of its screenshot.
    pub(crate) async fn clip_for_screenshot(
        &self,
        at: &'static Location<'static>,
    ) -> Result<Value, BrowserError> {
        self.act("screenshot", json!({}), "be visible and stable", at)
            .await
    }

    /// A PNG of the element (scrolled into view).
    #[track_caller]
    pub fn screenshot(&self) -> impl Future<Output = Result<Vec<u8>, BrowserError>> + Send + '_ {
        let at = Location::caller();
        async move {
            let b = self
                .act("screenshot", json!({}), "be visible and stable", at)
                .await?;
            self.page.capture_clip(&b).await.map_err(|e| e.located(at))
        }
    }
}

/// What a pointer action does at the element's point.
#[derive(Clone, Copy)]
enum PointerOp {
    /// Clicks (1) or double-clicks (2).
    Click(u32),
    /// Moves the mouse there.
    Hover,
    /// Moves there and presses the button (the start of a drag).
    Press,
}

impl PointerOp {
    /// The events the page checks (its `HJE_HIT_EVENTS`).
    fn events(self) -> &'static str {
        match self {
            PointerOp::Hover => "hover",
            _ => "mouse",
        }
    }

    fn verb(self) -> &'static str {
        match self {
            PointerOp::Click(2) => "double-click",
            PointerOp::Click(_) => "click",
            PointerOp::Hover => "hover",
            PointerOp::Press => "drag",
        }
    }
}

/// The id of a WebDriver element reference.
fn element_id(v: &Value) -> Option<String> {
    v.get("element-6066-11e4-a52e-4f735466cecf")
        .or_else(|| v.get("ELEMENT"))
        .and_then(|id| id.as_str())
        .map(str::to_string)
}

/// Turns the engine's answer into a value or a located error.
pub(crate) fn engine_result(
    answer: Value,
    locator: &str,
    what: &str,
    waited: Duration,
    at: &'static Location<'static>,
) -> Result<Value, BrowserError> {
    if answer["ok"] == true {
        return Ok(answer["value"].clone());
    }
    let err = &answer["error"];
    let log = call_log(&answer["log"]);
    match err["kind"].as_str().unwrap_or_default() {
        "strict" => Err(BrowserError::Strict {
            locator: locator.to_string(),
            count: err["count"].as_u64().unwrap_or(0) as usize,
            matches: err["matches"]
                .as_array()
                .map(|m| {
                    m.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            location: Some(at),
        }),
        "timeout" => {
            let problem = err["problem"].as_str().unwrap_or_default();
            Err(BrowserError::Timeout {
                locator: locator.to_string(),
                expected: what.to_string(),
                found: format!(
                    "{}{log}",
                    if problem.is_empty() {
                        "nothing"
                    } else {
                        problem
                    }
                ),
                waited,
                location: Some(at),
            })
        }
        _ => Err(BrowserError::Invalid {
            message: format!(
                "{locator}: {}",
                err["message"].as_str().unwrap_or("the page script failed")
            ),
            location: Some(at),
        }),
    }
}

/// The engine's call log as the indented list a failure shows.
pub(crate) fn call_log(log: &Value) -> String {
    let lines: Vec<&str> = log
        .as_array()
        .map(|l| l.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    if lines.is_empty() {
        return String::new();
    }
    let mut s = String::from("\nCall log:");
    for l in lines {
        s.push_str("\n  - ");
        s.push_str(l);
    }
    s
}
