//! Locator generation: [`generate_locator`] asks the page (the injected
//! `generate.js`) for the locator a person would write for one element (role
//! and accessible name, label, placeholder, alt text, text, title or test id,
//! narrowed by a unique ancestor with `filter_has_text`, `nth` only when
//! nothing else tells it apart), checked for strictness against the live page
//! with the engine's own resolver. The result is a typed
//! [`GeneratedLocator`]: its Rust source ([`GeneratedLocator::rust`]) and its
//! [`Locator`] ([`GeneratedLocator::locator`]).

use serde::{Deserialize, Serialize};

use super::backend::PageBackend;
use super::error::BrowserError;
use super::locator::{Locator, TextMatch};
use super::page::Page;
use super::wire;

/// One call of a generated locator chain, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum LocatorPart {
    /// `get_by_test_id(value)`.
    TestId {
        /// The `data-testid`.
        value: String,
    },
    /// `get_by_role(value)`, with `.name(name)` when named.
    Role {
        /// The ARIA role.
        value: String,
        /// The accessible name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// The name matched whole and case-sensitively (`.exact()`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exact: bool,
    },
    /// `get_by_label(value)`.
    Label {
        /// The label's text.
        value: String,
        /// Matched whole (`.exact()`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exact: bool,
    },
    /// `get_by_placeholder(value)`.
    Placeholder {
        /// The placeholder.
        value: String,
        /// Matched whole (`.exact()`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exact: bool,
    },
    /// `get_by_alt_text(value)`.
    AltText {
        /// The alt text.
        value: String,
        /// Matched whole (`.exact()`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exact: bool,
    },
    /// `get_by_text(value)`.
    Text {
        /// The text.
        value: String,
        /// Matched whole (`.exact()`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exact: bool,
    },
    /// `get_by_title(value)`.
    Title {
        /// The title.
        value: String,
        /// Matched whole (`.exact()`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exact: bool,
    },
    /// `filter_has_text(value)`.
    HasText {
        /// The text the match contains.
        value: String,
        /// Matched whole (`.exact()`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exact: bool,
    },
    /// `nth(value)`.
    Nth {
        /// From 0.
        value: i64,
    },
    /// `locator(value)`: a CSS path, the last resort.
    Css {
        /// The selector.
        value: String,
    },
}

/// A locator generated for one element of the live page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratedLocator {
    /// The chain's calls, in order (never empty).
    pub parts: Vec<LocatorPart>,
    /// Whether it matched that element alone when generated (false only for a
    /// CSS path that could not be made unique).
    pub unique: bool,
}

impl GeneratedLocator {
    /// The chain as Rust after `page.`, string literals written by `lit`
    /// (`get_by_role("listitem").filter_has_text("feed the cat").get_by_label("Toggle Todo")`).
    pub fn rust_with(&self, lit: impl Fn(&str) -> String) -> String {
        let mut out = String::new();
        for (i, p) in self.parts.iter().enumerate() {
            if i > 0 {
                out.push('.');
            }
            let (call, exact) = match p {
                LocatorPart::TestId { value } => (format!("get_by_test_id({})", lit(value)), false),
                LocatorPart::Role { value, name, exact } => (
                    match name {
                        Some(n) => format!("get_by_role({}).name({})", lit(value), lit(n)),
                        None => format!("get_by_role({})", lit(value)),
                    },
                    *exact,
                ),
                LocatorPart::Label { value, exact } => {
                    (format!("get_by_label({})", lit(value)), *exact)
                }
                LocatorPart::Placeholder { value, exact } => {
                    (format!("get_by_placeholder({})", lit(value)), *exact)
                }
                LocatorPart::AltText { value, exact } => {
                    (format!("get_by_alt_text({})", lit(value)), *exact)
                }
                LocatorPart::Text { value, exact } => {
                    (format!("get_by_text({})", lit(value)), *exact)
                }
                LocatorPart::Title { value, exact } => {
                    (format!("get_by_title({})", lit(value)), *exact)
                }
                LocatorPart::HasText { value, exact } => {
                    (format!("filter_has_text({})", lit(value)), *exact)
                }
                LocatorPart::Nth { value } => (format!("nth({value})"), false),
                LocatorPart::Css { value } => (format!("locator({})", lit(value)), false),
            };
            out.push_str(&call);
            if exact {
                out.push_str(".exact()");
            }
        }
        out
    }

    /// The chain as Rust after `page.`, literals as Rust's `{:?}` writes them.
    pub fn rust(&self) -> String {
        self.rust_with(|s| format!("{s:?}"))
    }

    /// The [`Locator`] of this chain on `page`.
    pub fn locator(&self, page: &Page) -> Locator {
        let mut loc: Option<Locator> = None;
        macro_rules! on {
            ($m:ident ( $($a:expr),* )) => {
                match &loc {
                    Some(l) => l.$m($($a),*),
                    None => page.$m($($a),*),
                }
            };
        }
        for p in &self.parts {
            let m = |v: &str, exact: bool| -> TextMatch {
                if exact { TextMatch::exact(v) } else { v.into() }
            };
            let next = match p {
                LocatorPart::TestId { value } => on!(get_by_test_id(value)),
                LocatorPart::Role { value, name, exact } => {
                    let l = on!(get_by_role(value));
                    match name {
                        Some(n) => l.name(m(n, *exact)),
                        None => l,
                    }
                }
                LocatorPart::Label { value, exact } => on!(get_by_label(m(value, *exact))),
                LocatorPart::Placeholder { value, exact } => {
                    on!(get_by_placeholder(m(value, *exact)))
                }
                LocatorPart::AltText { value, exact } => on!(get_by_alt_text(m(value, *exact))),
                LocatorPart::Text { value, exact } => on!(get_by_text(m(value, *exact))),
                LocatorPart::Title { value, exact } => on!(get_by_title(m(value, *exact))),
                LocatorPart::Css { value } => on!(locator(&format!("css={value}"))),
                LocatorPart::HasText { value, exact } => match &loc {
                    Some(l) => l.filter_has_text(m(value, *exact)),
                    None => page.locator("css=*").filter_has_text(m(value, *exact)),
                },
                LocatorPart::Nth { value } => match &loc {
                    Some(l) => l.nth(*value),
                    None => page.locator("css=*").nth(*value),
                },
            };
            loc = Some(next);
        }
        loc.unwrap_or_else(|| page.locator("css=*"))
    }
}

impl std::fmt::Display for GeneratedLocator {
    /// The chain after `page.`, string literals in JSON's quoting (which
    /// [`GeneratedLocator::parse`] reads back).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.rust_with(|s| serde_json::to_string(s).unwrap_or_default()))
    }
}

/// A generated locator's text that does not read back.
#[derive(Debug, thiserror::Error)]
#[error(
    "{text:?} is not a generated locator ({problem}): expected calls such as get_by_role(\"button\").name(\"Save\") joined by dots"
)]
pub struct LocatorParseError {
    /// The text (cut to 200 characters).
    pub text: String,
    /// What was wrong.
    pub problem: String,
}

impl GeneratedLocator {
    /// Reads back the text [`Display`](std::fmt::Display) writes. The result
    /// is `unique` (it was when written).
    pub fn parse(text: &str) -> Result<GeneratedLocator, LocatorParseError> {
        let err = |problem: String| LocatorParseError {
            text: text.chars().take(200).collect(),
            problem,
        };
        let mut parts: Vec<LocatorPart> = Vec::new();
        let mut rest = text.trim();
        while !rest.is_empty() {
            let open = rest
                .find('(')
                .ok_or_else(|| err(format!("no argument list after {rest:?}")))?;
            let method = &rest[..open];
            rest = &rest[open + 1..];
            // The arguments: JSON string literals or an integer, up to ')'.
            let mut args: Vec<serde_json::Value> = Vec::new();
            loop {
                rest = rest.trim_start();
                if let Some(r) = rest.strip_prefix(')') {
                    rest = r;
                    break;
                }
                if let Some(r) = rest.strip_prefix(',') {
                    rest = r;
                    continue;
                }
                let end = if rest.starts_with('"') {
                    let mut escaped = false;
                    rest.char_indices()
                        .skip(1)
                        .find(|&(_, c)| {
                            let close = !escaped && c == '"';
                            escaped = !escaped && c == '\\';
                            close
                        })
                        .map(|(i, _)| i + 1)
                        .ok_or_else(|| err("a string is not closed".into()))?
                } else {
                    rest.find([',', ')'])
                        .ok_or_else(|| err("an argument list is not closed".into()))?
                };
                let v: serde_json::Value = serde_json::from_str(&rest[..end])
                    .map_err(|e| err(format!("argument {:?}: {e}", &rest[..end])))?;
                args.push(v);
                rest = &rest[end..];
            }
            rest = rest.trim_start();
            rest = rest.strip_prefix('.').unwrap_or(rest);
            let s = |i: usize| -> Result<String, LocatorParseError> {
                args.get(i)
                    .and_then(|v| v.as_str())
                    .map(String::from)
                    .ok_or_else(|| err(format!("{method} needs a string argument")))
            };
            let part = match method {
                "get_by_test_id" => LocatorPart::TestId { value: s(0)? },
                "get_by_role" => LocatorPart::Role {
                    value: s(0)?,
                    name: None,
                    exact: false,
                },
                "get_by_label" => LocatorPart::Label {
                    value: s(0)?,
                    exact: false,
                },
                "get_by_placeholder" => LocatorPart::Placeholder {
                    value: s(0)?,
                    exact: false,
                },
                "get_by_alt_text" => LocatorPart::AltText {
                    value: s(0)?,
                    exact: false,
                },
                "get_by_text" => LocatorPart::Text {
                    value: s(0)?,
                    exact: false,
                },
                "get_by_title" => LocatorPart::Title {
                    value: s(0)?,
                    exact: false,
                },
                "filter_has_text" => LocatorPart::HasText {
                    value: s(0)?,
                    exact: false,
                },
                "locator" => LocatorPart::Css { value: s(0)? },
                "nth" => LocatorPart::Nth {
                    value: args
                        .first()
                        .and_then(|v| v.as_i64())
                        .ok_or_else(|| err("nth needs an integer".into()))?,
                },
                "name" => {
                    let n = s(0)?;
                    match parts.last_mut() {
                        Some(LocatorPart::Role { name, .. }) if name.is_none() => *name = Some(n),
                        _ => return Err(err("name(…) follows get_by_role(…) only".into())),
                    }
                    continue;
                }
                "exact" => {
                    match parts.last_mut() {
                        Some(
                            LocatorPart::Role {
                                exact,
                                name: Some(_),
                                ..
                            }
                            | LocatorPart::Label { exact, .. }
                            | LocatorPart::Placeholder { exact, .. }
                            | LocatorPart::AltText { exact, .. }
                            | LocatorPart::Text { exact, .. }
                            | LocatorPart::Title { exact, .. }
                            | LocatorPart::HasText { exact, .. },
                        ) => *exact = true,
                        _ => return Err(err("exact() follows a text match only".into())),
                    }
                    continue;
                }
                other => return Err(err(format!("unknown call {other:?}"))),
            };
            parts.push(part);
        }
        if parts.is_empty() {
            return Err(err("it is empty".into()));
        }
        Ok(GeneratedLocator {
            parts,
            unique: true,
        })
    }
}

/// The injected engine's source: a tool that runs its own script in a page
/// puts it first to have `window.__harshjudgeEngine` (installed only where
/// missing), e.g. its `describe(element)` → `{role, name}`, the ARIA role and
/// accessible name that locators and aria snapshots use.
pub fn engine_source() -> &'static str {
    wire::install_source()
}

/// Goes down `arguments[1]` (iframe selectors) from the top window, installs
/// the engine (`arguments[2]`) in the last frame's window when it has none,
/// and generates the locator of `arguments[0]` there; `{frame, crossOrigin}`
/// names a frame it could not enter.
const FRAME_WALK: &str = "let win = window;
for (const sel of __hjArgs[1]) {
  const f = win.document.querySelector(sel);
  if (!f || !f.contentWindow) return {frame: sel, found: 0};
  let doc = null;
  try { doc = f.contentDocument; } catch (e) { doc = null; }
  if (!doc) return {frame: sel, crossOrigin: true, found: 0};
  win = f.contentWindow;
}
if (!win.__harshjudgeEngine) win.eval(__hjArgs[2]);
return win.__harshjudgeEngine.generateLocator(__hjArgs[0]);";

/// What the page answered.
#[derive(Deserialize)]
struct Answer {
    found: usize,
    #[serde(default)]
    locator: Option<GeneratedLocator>,
}

/// The locator a person would write for the one element the CSS `selector`
/// matches on `page`, checked for strictness against the page as it is.
/// A selector matching no element, or several, is an error naming it.
pub async fn generate_locator(
    page: &Page,
    selector: &str,
) -> Result<GeneratedLocator, BrowserError> {
    generate_locator_in(page, &[], selector).await
}

/// [`generate_locator`] inside a frame: `frames` are the CSS selectors of the
/// iframes to go through, each in the document of the one before (the first
/// in the page's), and the locator is generated in the last frame's document
/// (what `page.frame_locator(frames[0])…` followed by it finds). A frame
/// that matches nothing, or whose document cannot be read (another origin),
/// is an error naming it.
pub async fn generate_locator_in(
    page: &Page,
    frames: &[&str],
    selector: &str,
) -> Result<GeneratedLocator, BrowserError> {
    // The top document's engine comes with the script itself (a page's CSP
    // does not apply to it); a frame's is evaluated in the frame's window.
    let args = serde_json::json!([
        selector,
        frames,
        // Only a frame's window needs the engine sent this way.
        if frames.is_empty() {
            ""
        } else {
            wire::install_source()
        },
    ]);
    let script = format!(
        "var __hjArgs = {args};\n{}\n{FRAME_WALK}",
        if frames.is_empty() {
            wire::install_source()
        } else {
            ""
        }
    );
    let v = page.backend().eval(&script).await?;
    if let Some(frame) = v.get("frame").and_then(|f| f.as_str()) {
        let why = if v["crossOrigin"] == true {
            "its document is of another origin and cannot be read"
        } else {
            "it matches no iframe"
        };
        return Err(BrowserError::Invalid {
            message: format!("generating a locator in frame {frame:?}: {why}"),
            location: None,
        });
    }
    let a: Answer = serde_json::from_value(v.clone()).map_err(|e| BrowserError::Command {
        action: "reading the generated locator".into(),
        message: format!(
            "{e} (the page answered {v}): the injected generator and this library disagree"
        ),
    })?;
    match a.locator {
        Some(l) if a.found == 1 && !l.parts.is_empty() => Ok(l),
        _ => Err(BrowserError::Invalid {
            message: format!(
                "generating a locator for {selector:?}: the selector matches {} elements, not one; give a selector of exactly one element",
                a.found
            ),
            location: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_locator_reads_back_from_its_text() {
        let l = GeneratedLocator {
            parts: vec![
                LocatorPart::Role {
                    value: "listitem".into(),
                    name: None,
                    exact: false,
                },
                LocatorPart::HasText {
                    value: "feed \"the\" cat, \\ ok)".into(),
                    exact: false,
                },
                LocatorPart::Label {
                    value: "Toggle Todo".into(),
                    exact: true,
                },
                LocatorPart::Role {
                    value: "button".into(),
                    name: Some("Save".into()),
                    exact: true,
                },
                LocatorPart::Nth { value: -1 },
            ],
            unique: true,
        };
        let text = l.to_string();
        assert_eq!(
            text,
            r#"get_by_role("listitem").filter_has_text("feed \"the\" cat, \\ ok)").get_by_label("Toggle Todo").exact().get_by_role("button").name("Save").exact().nth(-1)"#
        );
        assert_eq!(GeneratedLocator::parse(&text).unwrap(), l);
        assert_eq!(
            l.rust(),
            r#"get_by_role("listitem").filter_has_text("feed \"the\" cat, \\ ok)").get_by_label("Toggle Todo").exact().get_by_role("button").name("Save").exact().nth(-1)"#
        );
    }

    #[test]
    fn bad_locator_text_names_what_is_wrong() {
        for (text, problem) in [
            ("", "empty"),
            ("get_by_role(\"x\"", "not closed"),
            ("frobnicate(\"x\")", "unknown call"),
            ("name(\"x\")", "follows get_by_role"),
            ("get_by_test_id(\"a\").exact()", "exact() follows"),
            ("nth(\"a\")", "integer"),
        ] {
            let e = GeneratedLocator::parse(text).unwrap_err().to_string();
            assert!(e.contains(problem), "{text}: {e}");
        }
    }
}
