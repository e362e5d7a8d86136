//! Element targets: the [`Target`] every browser tool takes, checked into a
//! [`Resolved`] that becomes a `harshjudge` locator, and how results name it.

use harshjudge_browser::{Locator, LocatorPart, Page, TextMatch};
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
    /// For a ref inside iframes (`f1e3`): the iframes it goes through, as the
    /// snapshot marked them.
    ref_frames: Vec<String>,
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
        let mut l = match (&self.frame, self.ref_frames.split_first()) {
            (_, Some((first, rest))) => {
                let inner =
                    (rest.iter()).fold(page.frame_locator(first), |f, s| f.frame_locator(s));
                build!(inner)
            }
            (Some(f), None) => build!(page.frame_locator(f)),
            (None, None) => build!(page),
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
        let frames = match &self.reference {
            Some(r) => match SnapshotRef::parse(r) {
                Some(parsed) => parsed.frame_selectors(),
                None => {
                    return Err(ToolError::invalid(format!(
                        "ref {r:?} is not a ref from browser_snapshot (they look like \"e12\", or \"f1e3\" inside an iframe); take a snapshot and use one of its refs"
                    )));
                }
            },
            None => Vec::new(),
        };
        if let (Some(r), Some(f), false) = (&self.reference, &self.frame, frames.is_empty()) {
            return Err(ToolError::invalid(format!(
                "ref {r:?} already names the iframe it is in, and frame {f:?} names another: drop frame"
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
            ref_frames: frames,
        }))
    }
}

/// A ref from `browser_snapshot`: `e12` in the page, `f1e3` in its iframe
/// `f1`, `f1f4e2` in iframe `f4` inside `f1`.
#[derive(Debug, PartialEq)]
struct SnapshotRef {
    frames: Vec<u64>,
    element: u64,
}

impl SnapshotRef {
    fn parse(text: &str) -> Option<SnapshotRef> {
        let number = |s: &str| -> Option<u64> {
            (!s.is_empty() && s.len() <= 12 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        let (path, element) = text.rsplit_once('e')?;
        let element = number(element)?;
        let frames = match path {
            "" => Vec::new(),
            p => {
                let mut parts = p.split('f');
                // The path starts with its first `f`.
                if parts.next() != Some("") {
                    return None;
                }
                parts.map(number).collect::<Option<Vec<_>>>()?
            }
        };
        (frames.len() <= 4).then_some(SnapshotRef { frames, element })
    }

    /// The iframes to go through, each as marked by the snapshot.
    fn frame_selectors(&self) -> Vec<String> {
        (self.frames.iter())
            .map(|n| format!("[data-hj-frame=\"f{n}\"]"))
            .collect()
    }
}

/// The locator string a ref target stands for (until the next snapshot), in
/// the document of its frame.
fn ref_css(r: &Resolved) -> String {
    let element = r.value.rsplit_once('e').map_or("", |(_, n)| n);
    format!("[data-hj-ref=\"e{element}\"]")
}

/// The selectors a person would write for the iframes a ref goes through
/// (`iframe#pay`), read from the live page.
const FRAME_CSS_CHAIN: &str = concat!(
    include_str!("frame_css.js"),
    "let doc = document; const out = [];
for (const sel of arguments[0]) {
  const f = doc.querySelector(sel);
  if (!f) return null;
  out.push(hjFrameCss(f));
  let inner = null;
  try { inner = f.contentDocument; } catch (err) { inner = null; }
  if (!inner) return null;
  doc = inner;
}
return out;"
);

/// The `frame_locator("…")` calls a recorded locator of a ref inside iframes
/// starts with, from the live page: `frame_locator("iframe#pay").`
async fn frame_prefix(page: &Page, r: &Resolved) -> Option<String> {
    // The script reads `arguments`: called as a function with them.
    let js = format!("(args) => (function () {{\n{FRAME_CSS_CHAIN}\n}}).apply(null, args)");
    let read = page.evaluate(&js, serde_json::json!([r.ref_frames]));
    let v: serde_json::Value = harshjudge_browser::untraced(read).await.ok()?;
    let chain: Vec<String> = serde_json::from_value(v).ok()?;
    Some(
        chain
            .iter()
            .map(|c| format!("frame_locator({}).", serde_json::Value::from(c.as_str())))
            .collect(),
    )
}

/// What a result names as the target's `locator` (and a recording keeps): for
/// a snapshot ref or a CSS selector of one element, the locator a person
/// would write, generated from the live page and checked to match that
/// element alone (`get_by_role("listitem").filter_has_text("feed the cat")
/// .get_by_label("Toggle Todo")`, see [`harshjudge_browser::generate_locator`]);
/// a test id alone stays `testid=…` as before (the selector form agents
/// written for earlier versions read); for the other kinds, the target as
/// described.
pub(super) async fn locator_name(page: &Page, r: &Resolved) -> String {
    if r.frame.is_some() {
        // Generated locators are of the top document.
        return r.describe();
    }
    if !r.ref_frames.is_empty() {
        // A ref inside iframes: the frames as a person would name them, then
        // the locator generated in the last one's document.
        let frames: Vec<&str> = r.ref_frames.iter().map(String::as_str).collect();
        let generated = harshjudge_browser::generate_locator_in(page, &frames, &ref_css(r)).await;
        return match (frame_prefix(page, r).await, generated) {
            (Some(prefix), Ok(l)) => format!("{prefix}{l}"),
            _ => r.describe(),
        };
    }
    let css = match r.kind {
        "ref" => ref_css(r),
        "selector" if r.nth.is_none() => r.value.clone(),
        "testId" if r.nth.is_none() => return format!("testid={}", r.value),
        _ => return r.describe(),
    };
    match harshjudge_browser::generate_locator(page, &css).await {
        Ok(l) => match l.parts.as_slice() {
            [LocatorPart::TestId { value }] => format!("testid={value}"),
            _ => l.to_string(),
        },
        Err(_) if r.kind == "selector" => format!("css={css}"),
        Err(_) => r.describe(),
    }
}

#[cfg(test)]
mod tests {
    use super::SnapshotRef;

    #[test]
    fn refs_name_their_frames_and_element() {
        let r = |frames: &[u64], element| {
            Some(SnapshotRef {
                frames: frames.to_vec(),
                element,
            })
        };
        assert_eq!(SnapshotRef::parse("e12"), r(&[], 12));
        assert_eq!(SnapshotRef::parse("f1e3"), r(&[1], 3));
        assert_eq!(SnapshotRef::parse("f2f13e7"), r(&[2, 13], 7));
        assert_eq!(
            SnapshotRef::parse("f2f13e7").unwrap().frame_selectors(),
            ["[data-hj-frame=\"f2\"]", "[data-hj-frame=\"f13\"]"]
        );
        for bad in [
            "",
            "e",
            "f1",
            "fe3",
            "f1e",
            "e1f2",
            "f1e3x",
            "ef1",
            "f1ee3",
            "f-1e3",
            "e1 ",
            "é1",
            "f1f2f3f4f5e1",
            "f99999999999999e1",
            "e9999999999999",
        ] {
            assert_eq!(SnapshotRef::parse(bad), None, "{bad:?}");
        }
    }
}
