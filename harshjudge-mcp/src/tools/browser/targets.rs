//! Element targets: the [`Target`] every browser tool takes, checked into a
//! [`Resolved`] that becomes a `harshjudge` locator, and how results name it.

use harshjudge::browser::{Locator, LocatorPart, Page, TextMatch};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::ToolError;

with_target! {
    /// What an action aims at: exactly one kind of target (the arguments of
    /// `browser_click`), optionally narrowed by `nth`.
    pub struct Target {
        /// Visible text of the element (a case-insensitive substring unless `exact`).
        #[serde(default)]
        pub text: Option<String>,
    }
    text: |s: &Target| s.text.clone()
}

/// A target checked and ready to become a locator on a page.
#[derive(Clone, Debug)]
pub struct Resolved {
    kind: &'static str,
    value: String,
    name: Option<String>,
    exact: bool,
    nth: Option<i64>,
    /// The CSS selector of the iframe the target is in.
    frame: Option<String>,
}

impl Resolved {
    /// The `harshjudge` locator of this target on `page`: the one place a tool
    /// target becomes a [`Locator`].
    pub fn locator(&self, page: &Page) -> Locator {
        let m = |s: &str| -> TextMatch {
            if self.exact {
                TextMatch::exact(s)
            } else {
                s.into()
            }
        };
        let v = self.value.as_str();
        // The same constructors on the page or on a frame of it.
        macro_rules! build {
            ($root:expr) => {
                match self.kind {
                    "role" => {
                        let l = $root.get_by_role(v);
                        match &self.name {
                            Some(n) => l.name(m(n)),
                            None => l,
                        }
                    }
                    "label" => $root.get_by_label(m(v)),
                    "placeholder" => $root.get_by_placeholder(m(v)),
                    "text" => $root.get_by_text(m(v)),
                    "altText" => $root.get_by_alt_text(m(v)),
                    "title" => $root.get_by_title(m(v)),
                    "testId" => $root.get_by_test_id(v),
                    "ref" => $root.locator(&format!("css={}", ref_css(self))),
                    _ => $root.locator(&format!("css={v}")),
                }
            };
        }
        let mut l = match &self.frame {
            Some(f) => build!(page.frame_locator(f)),
            None => build!(page),
        };
        if let Some(n) = self.nth {
            l = l.nth(n);
        }
        l
    }

    /// How the target is named in results (`role:button "Save"`, `testId:x`).
    pub fn describe(&self) -> String {
        let mut s = format!("{}:{}", self.kind, self.value);
        if let Some(n) = &self.name {
            s.push_str(&format!(" {n:?}"));
        }
        if let Some(n) = self.nth {
            s.push_str(&format!(" nth={n}"));
        }
        if let Some(f) = &self.frame {
            s.push_str(&format!(" in frame {f:?}"));
        }
        s
    }
}

/// The target kinds, in the order error messages name them.
pub(super) const KINDS: &str =
    "role, label, placeholder, text, altText, title, testId, selector or ref";

impl Target {
    /// Checks the target: exactly one kind (or none when not `required`),
    /// non-empty, `name` only with `role`, `exact` only with a text kind.
    pub fn resolve(&self, required: bool) -> Result<Option<Resolved>, ToolError> {
        let given: Vec<(&'static str, &String)> = [
            ("role", &self.role),
            ("label", &self.label),
            ("placeholder", &self.placeholder),
            ("text", &self.text),
            ("altText", &self.alt_text),
            ("title", &self.title),
            ("testId", &self.test_id),
            ("selector", &self.selector),
            ("ref", &self.reference),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
        .collect();
        for (k, v) in &given {
            if v.trim().is_empty() {
                return Err(ToolError::invalid(format!(
                    "the target {k} is empty: give a non-empty {k} (or another of {KINDS})"
                )));
            }
        }
        if let Some(r) = &self.reference
            && !(r.len() > 1 && r.starts_with('e') && r[1..].bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(ToolError::invalid(format!(
                "ref {r:?} is not a ref from browser_snapshot (they look like \"e12\"); take a snapshot and use one of its refs"
            )));
        }
        let (kind, value) = match given.as_slice() {
            [] => {
                if self.name.is_some() {
                    return Err(ToolError::invalid(
                        "name without role: name is the accessible name of a role target; give role too (e.g. role: \"button\", name: \"Save\")",
                    ));
                }
                if self.nth.is_some() || self.exact.is_some() || self.frame.is_some() {
                    return Err(ToolError::invalid(format!(
                        "nth, exact and frame refine a target but none was given: give one of {KINDS}"
                    )));
                }
                if required {
                    return Err(ToolError::invalid(format!(
                        "no target: give one of {KINDS} (ref from browser_snapshot)"
                    )));
                }
                return Ok(None);
            }
            [(k, v)] => (*k, (*v).clone()),
            many => {
                return Err(ToolError::invalid(format!(
                    "more than one target ({}): give exactly one of {KINDS}, and narrow with nth if it matches several",
                    many.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
                )));
            }
        };
        if self.name.is_some() && kind != "role" {
            return Err(ToolError::invalid(format!(
                "name refines a role target, not {kind}: give role with name, or drop name"
            )));
        }
        if self.name.as_ref().is_some_and(|n| n.trim().is_empty()) {
            return Err(ToolError::invalid(
                "name is empty: give the accessible name of the element, or drop name",
            ));
        }
        if self.exact.is_some() && matches!(kind, "testId" | "selector" | "ref") {
            return Err(ToolError::invalid(format!(
                "exact applies to role names, label, placeholder, text, altText and title, not to {kind}: drop exact"
            )));
        }
        if kind == "role" && (value.contains(char::is_whitespace) || value != value.to_lowercase())
        {
            return Err(ToolError::invalid(format!(
                "role {value:?} is not an ARIA role name: give one lowercase word such as button, link, checkbox, textbox, heading"
            )));
        }
        if self.frame.as_ref().is_some_and(|f| f.trim().is_empty()) {
            return Err(ToolError::invalid(
                "frame is empty: give the CSS selector of the iframe the target is in (e.g. \"iframe#pay\"), or drop frame",
            ));
        }
        Ok(Some(Resolved {
            kind,
            value,
            name: self.name.clone(),
            exact: self.exact == Some(true),
            nth: self.nth,
            frame: self.frame.clone(),
        }))
    }
}

/// The locator string a ref target stands for (until the next snapshot).
fn ref_css(r: &Resolved) -> String {
    format!("[data-hj-ref=\"{}\"]", r.value.replace('"', ""))
}

/// What a result names as the target's `locator` (and a recording keeps): for
/// a snapshot ref or a CSS selector of one element, the locator a person
/// would write, generated from the live page and checked to match that
/// element alone (`get_by_role("listitem").filter_has_text("feed the cat")
/// .get_by_label("Toggle Todo")`, see [`harshjudge::browser::generate_locator`]);
/// a test id alone stays `testid=…` as before (the selector form agents
/// written for earlier versions read); for the other kinds, the target as
/// described.
pub(super) async fn locator_name(page: &Page, r: &Resolved) -> String {
    if r.frame.is_some() {
        // Generated locators are of the top document.
        return r.describe();
    }
    let css = match r.kind {
        "ref" => ref_css(r),
        "selector" if r.nth.is_none() => r.value.clone(),
        "testId" if r.nth.is_none() => return format!("testid={}", r.value),
        _ => return r.describe(),
    };
    match harshjudge::browser::generate_locator(page, &css).await {
        Ok(l) => match l.parts.as_slice() {
            [LocatorPart::TestId { value }] => format!("testid={value}"),
            _ => l.to_string(),
        },
        Err(_) if r.kind == "selector" => format!("css={css}"),
        Err(_) => r.describe(),
    }
}
