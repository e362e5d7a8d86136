//! [`Locator`]: a lazy description of elements, resolved inside the page at each
//! use by the injected engine; actions and reads that wait for actionability.

use serde_json::{Value, json};

use super::page::Page;

mod actions;
mod engine;
mod reads;

pub(crate) use engine::{call_log, engine_result};

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
}
