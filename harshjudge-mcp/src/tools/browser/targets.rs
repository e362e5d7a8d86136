//! Element targets: the [`Target`] every browser tool takes, checked into a
//! [`Resolved`] that becomes a `harshjudge` locator, and how results name it.

use harshjudge::browser::{Locator, Page, TextMatch};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

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
        let mut l = match self.kind {
            "role" => {
                let l = page.get_by_role(v);
                match &self.name {
                    Some(n) => l.name(m(n)),
                    None => l,
                }
            }
            "label" => page.get_by_label(m(v)),
            "placeholder" => page.get_by_placeholder(m(v)),
            "text" => page.get_by_text(m(v)),
            "altText" => page.get_by_alt_text(m(v)),
            "title" => page.get_by_title(m(v)),
            "testId" => page.get_by_test_id(v),
            "ref" => page.locator(&format!("css=[data-hj-ref=\"{v}\"]")),
            _ => page.locator(&format!("css={v}")),
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
                if self.nth.is_some() || self.exact.is_some() {
                    return Err(ToolError::invalid(format!(
                        "nth and exact refine a target but none was given: give one of {KINDS}"
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
        Ok(Some(Resolved {
            kind,
            value,
            name: self.name.clone(),
            exact: self.exact == Some(true),
            nth: self.nth,
        }))
    }
}

/// The locator string a ref target stands for (until the next snapshot).
fn ref_css(r: &Resolved) -> String {
    format!("css=[data-hj-ref=\"{}\"]", r.value.replace('"', ""))
}

/// What a result names as the target's `locator` (and a recording keeps): for
/// a snapshot ref, a locator that survives a reload (its test id, id, name,
/// short text or CSS path); for a test id or a selector, `testid=…` / `css=…`;
/// for the other kinds, the target as described.
pub(super) async fn locator_name(page: &Page, r: &Resolved) -> String {
    match r.kind {
        "ref" => stable_locator(page, &ref_css(r)).await,
        "testId" if r.nth.is_none() => format!("testid={}", r.value),
        "selector" if r.nth.is_none() => format!("css={}", r.value),
        _ => r.describe(),
    }
}

/// A locator for the element `loc` points at that survives the page being
/// reloaded (for recordings and exports): a snapshot ref becomes its test id,
/// id, name, short text, or CSS path. Other locators are returned as they are.
async fn stable_locator(page: &Page, loc: &str) -> String {
    let Some(r) = loc
        .strip_prefix("css=[data-hj-ref=\"")
        .and_then(|r| r.strip_suffix("\"]"))
    else {
        return loc.to_string();
    };
    let js = format!(
        r#"const el = document.querySelector('[data-hj-ref="{r}"]');
if (!el) return null;
const t = el.getAttribute('data-testid'); if (t) return 'testid=' + t;
if (el.id) return 'css=#' + CSS.escape(el.id);
const nm = el.getAttribute('name'); if (nm) return 'css=' + el.tagName.toLowerCase() + '[name="' + nm + '"]';
const txt = (el.innerText || '').trim();
if (txt && txt.length < 60 && (el.tagName === 'BUTTON' || el.tagName === 'A')) return 'text=' + txt;
const path = []; let e = el;
while (e && e.nodeType === 1 && e !== document.body) {{
  let i = 1, s = e; while ((s = s.previousElementSibling)) if (s.tagName === e.tagName) i++;
  path.unshift(e.tagName.toLowerCase() + ':nth-of-type(' + i + ')'); e = e.parentElement;
}}
return 'css=body > ' + path.join(' > ');"#
    );
    match page.eval(&js).await {
        Ok(Value::String(s)) => s,
        _ => loc.to_string(),
    }
}
