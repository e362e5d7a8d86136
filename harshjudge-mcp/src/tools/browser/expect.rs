//! `browser_expect`: its arguments, their check into an [`Assertion`], and
//! running it with `harshjudge_browser::expect`.

use std::time::{Duration, Instant};

use harshjudge_browser::{BrowserError, Page, TextMatch};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::error::ToolError;

use super::evidence::{Acted, act};
use super::targets::{KINDS, Resolved, Target, locator_name};
use super::timeout_of;

/// A text an assertion expects: the exact string, or `{"regex": "…"}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ExpectedText {
    /// The whole text (whitespace normalised).
    Exact(String),
    /// A regular expression (Rust `regex` syntax) the text must match.
    Regex {
        /// The pattern.
        regex: String,
    },
}

impl ExpectedText {
    fn text_match(&self) -> Result<TextMatch, ToolError> {
        match self {
            ExpectedText::Exact(s) => Ok(TextMatch::exact(s.clone())),
            ExpectedText::Regex { regex } => harshjudge_browser::regex::Regex::new(regex)
                .map(TextMatch::Regex)
                .map_err(|e| {
                    ToolError::invalid(format!(
                        "expected.regex {regex:?} is not a valid regular expression: {e}"
                    ))
                }),
        }
    }

    /// How it is written in an exported scenario.
    pub fn rust(&self) -> String {
        match self {
            ExpectedText::Exact(s) => crate::tools::export::lit(s),
            ExpectedText::Regex { regex } => format!(
                "harshjudge::regex::Regex::new({})?",
                crate::tools::export::lit(regex)
            ),
        }
    }
}

/// What `browser_expect` expects: a text (exact or regex), a count, or one
/// text per element, in order.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ExpectedValue {
    /// A count (for to_have_count).
    Count(u64),
    /// One text.
    Text(ExpectedText),
    /// One text per matching element, in order (to_have_text, to_contain_text, to_have_class).
    List(Vec<ExpectedText>),
}

/// The assertions of `browser_expect`: page ones (no target) and locator ones.
pub const ASSERTIONS: &[&str] = &[
    "to_have_url",
    "to_have_title",
    "to_be_visible",
    "to_be_hidden",
    "to_be_attached",
    "to_be_enabled",
    "to_be_disabled",
    "to_be_checked",
    "to_be_focused",
    "to_be_editable",
    "to_be_empty",
    "to_be_in_viewport",
    "to_have_text",
    "to_contain_text",
    "to_have_count",
    "to_have_value",
    "to_have_values",
    "to_have_attribute",
    "to_have_class",
    "to_contain_class",
    "to_have_css",
    "to_have_id",
    "to_have_role",
    "to_have_accessible_name",
    "to_match_aria_snapshot",
    "to_have_request",
    "to_have_no_errors",
    "to_have_message",
];

/// The assertions on what the page fetched and logged (no target), read from
/// the session's requests and console since the last `browser_network` /
/// `browser_console` call (which these leave in place), as Playwright's
/// `expect(&s.network())` / `expect(&s.console())` read a step's.
pub const OBSERVATIONS: &[&str] = &["to_have_request", "to_have_no_errors", "to_have_message"];

with_target! {
    /// Arguments of `browser_expect`: a web-first assertion that retries until
    /// it holds or `timeoutMs` runs out.
    pub struct Expect {
        /// Visible text of the element (a case-insensitive substring unless `exact`).
        #[serde(default)]
        pub text: Option<String>,
        /// to_have_url, to_have_title (no target), or a locator assertion: to_be_visible,
        /// to_be_hidden, to_be_attached, to_be_enabled, to_be_disabled, to_be_checked,
        /// to_be_focused, to_be_editable, to_be_empty, to_be_in_viewport, to_have_text,
        /// to_contain_text, to_have_count, to_have_value, to_have_values (the selected
        /// values of a `<select multiple>`, a list), to_have_attribute, to_have_class,
        /// to_contain_class, to_have_css, to_have_id, to_have_role,
        /// to_have_accessible_name, to_match_aria_snapshot (a YAML template such as
        /// "- heading \"Todos\" [level=1]").
        pub assertion: String,
        /// A string (exact), {"regex": "…"}, a count, or a list (one per element).
        #[serde(default)]
        #[schemars(schema_with = "crate::tools::browser::any_of_kinds")]
        pub expected: Option<ExpectedValue>,
        /// The attribute (to_have_attribute) or CSS property (to_have_css).
        #[serde(default)]
        pub attribute: Option<String>,
        /// Invert the assertion (Playwright's `.not`).
        #[serde(default)]
        pub not: bool,
        /// In ms (default 5000, at most 60000).
        #[serde(default)]
        pub timeout_ms: Option<u64>,
        /// With to_have_request: the request's method (GET, POST, …).
        #[serde(default)]
        pub method: Option<String>,
        /// With to_have_request: the response's status.
        #[serde(default)]
        pub status: Option<u16>,
    }
    text: |s: &Expect| s.text.clone()
}

/// A checked `browser_expect` call, ready to run (and to export).
#[derive(Clone, Debug)]
pub struct Assertion {
    /// The target (none for page assertions).
    pub target: Option<Resolved>,
    /// The assertion's name.
    pub assertion: String,
    /// What is expected.
    pub expected: Option<ExpectedValue>,
    /// The attribute of to_have_attribute.
    pub attribute: Option<String>,
    /// Inverted.
    pub not: bool,
    /// to_have_request's method.
    pub method: Option<String>,
    /// to_have_request's status.
    pub status: Option<u16>,
}

impl Expect {
    /// Checks the arguments: a known assertion, a target exactly for locator
    /// assertions, and an `expected` of the kind the assertion takes.
    pub fn check(&self) -> Result<Assertion, ToolError> {
        let a = self.assertion.as_str();
        if !ASSERTIONS.contains(&a) {
            return Err(ToolError::invalid(format!(
                "assertion {a:?} is not known: give one of {}",
                ASSERTIONS.join(", ")
            )));
        }
        let page_level = matches!(a, "to_have_url" | "to_have_title") || OBSERVATIONS.contains(&a);
        if (self.method.is_some() || self.status.is_some()) && a != "to_have_request" {
            return Err(ToolError::invalid(format!(
                "method and status refine to_have_request, not {a}: drop them"
            )));
        }
        if let Some(m) = &self.method
            && (m.is_empty() || !m.bytes().all(|b| b.is_ascii_alphabetic()))
        {
            return Err(ToolError::invalid(format!(
                "method {:?} is not an HTTP method: give GET, POST, PUT, PATCH, DELETE, …",
                m.chars().take(40).collect::<String>()
            )));
        }
        if a == "to_have_no_errors" && matches!(self.expected, Some(ExpectedValue::Count(_))) {
            return Err(ToolError::invalid(
                "to_have_no_errors takes the errors to allow as expected: a string, {\"regex\": \"…\"} or a list of them (or nothing)",
            ));
        }
        let target = self.target().resolve(!page_level)?;
        if page_level && target.is_some() {
            return Err(ToolError::invalid(format!(
                "{a} asserts on the page: drop the target ({KINDS})"
            )));
        }
        let takes = match a {
            "to_have_count" => "count",
            "to_have_text" | "to_contain_text" | "to_have_class" | "to_contain_class" => "texts",
            "to_have_values" => "list",
            "to_match_aria_snapshot" | "to_have_role" => "string",
            "to_have_no_errors" => "allow",
            a if a.starts_with("to_be_") => "nothing",
            _ => "text",
        };
        let bad = |what: &str| ToolError::invalid(format!("{a} expects {what} as expected"));
        match (takes, &self.expected) {
            ("nothing", Some(_)) => {
                return Err(ToolError::invalid(format!(
                    "{a} takes no expected value: drop expected (use not: true to invert)"
                )));
            }
            ("nothing", None) | ("allow", None) => {}
            ("allow", Some(ExpectedValue::List(l))) => {
                for t in l {
                    t.text_match()?;
                }
            }
            (_, None) => {
                return Err(bad(match takes {
                    "count" => "a count (e.g. 2)",
                    "texts" => "a string, {\"regex\": \"…\"} or a list of them",
                    "list" => "a list of the selected values, in order (e.g. [\"red\", \"blue\"])",
                    "string" if a == "to_have_role" => "a role name string (e.g. \"button\")",
                    "string" => "a YAML template string (e.g. \"- heading \\\"Todos\\\"\")",
                    _ => "a string or {\"regex\": \"…\"}",
                }));
            }
            ("count", Some(ExpectedValue::Count(_))) => {}
            ("count", Some(_)) => return Err(bad("a count (e.g. 2)")),
            ("list", Some(ExpectedValue::List(l))) => {
                for t in l {
                    t.text_match()?;
                }
            }
            ("list", Some(_)) => {
                return Err(bad(
                    "a list of the selected values, in order (e.g. [\"red\", \"blue\"])",
                ));
            }
            ("string", Some(ExpectedValue::Text(ExpectedText::Exact(_)))) => {}
            ("string", Some(_)) => {
                return Err(bad(if a == "to_have_role" {
                    "a role name string (e.g. \"button\")"
                } else {
                    "a YAML template string (e.g. \"- heading \\\"Todos\\\" [level=1]\")"
                }));
            }
            ("texts", Some(ExpectedValue::Text(t))) => {
                t.text_match()?;
            }
            ("texts", Some(ExpectedValue::List(l))) => {
                for t in l {
                    t.text_match()?;
                }
            }
            ("texts", Some(ExpectedValue::Count(_))) => {
                return Err(bad("a string, {\"regex\": \"…\"} or a list of them"));
            }
            (_, Some(ExpectedValue::Text(t))) => {
                t.text_match()?;
            }
            (_, Some(_)) => return Err(bad("a string or {\"regex\": \"…\"}")),
        }
        match (a, &self.attribute) {
            ("to_have_attribute", None) => {
                return Err(ToolError::invalid(
                    "to_have_attribute needs attribute (the attribute's name, e.g. \"href\")",
                ));
            }
            ("to_have_css", None) => {
                return Err(ToolError::invalid(
                    "to_have_css needs attribute (the CSS property's name, e.g. \"color\")",
                ));
            }
            ("to_have_attribute" | "to_have_css", Some(n)) if n.trim().is_empty() => {
                return Err(ToolError::invalid(format!(
                    "attribute is empty: give the {} name",
                    if a == "to_have_css" {
                        "CSS property's"
                    } else {
                        "attribute's"
                    }
                )));
            }
            ("to_have_attribute" | "to_have_css", Some(_)) | (_, None) => {}
            (_, Some(_)) => {
                return Err(ToolError::invalid(format!(
                    "attribute only goes with to_have_attribute and to_have_css, not {a}: drop it"
                )));
            }
        }
        Ok(Assertion {
            target,
            assertion: a.to_string(),
            expected: self.expected.clone(),
            attribute: self.attribute.clone(),
            not: self.not,
            method: self.method.clone(),
            status: self.status,
        })
    }
}

impl Assertion {
    fn one(&self) -> TextMatch {
        match &self.expected {
            Some(ExpectedValue::Text(t)) => t.text_match().expect("checked"),
            _ => TextMatch::exact(""),
        }
    }

    fn many(&self) -> harshjudge_browser::Expected {
        match &self.expected {
            Some(ExpectedValue::List(l)) => harshjudge_browser::Expected::List(
                l.iter().map(|t| t.text_match().expect("checked")).collect(),
            ),
            _ => harshjudge_browser::Expected::One(self.one()),
        }
    }

    /// Runs the assertion on `page`.
    async fn run(&self, page: &Page, timeout: Duration) -> Result<(), BrowserError> {
        let Some(t) = &self.target else {
            let mut e = harshjudge_browser::expect(page).timeout(timeout);
            if self.not {
                e = e.not();
            }
            return match self.assertion.as_str() {
                "to_have_url" => e.to_have_url(self.one()).await,
                _ => e.to_have_title(self.one()).await,
            };
        };
        let mut e = harshjudge_browser::expect(&t.locator(page)).timeout(timeout);
        if self.not {
            e = e.not();
        }
        match self.assertion.as_str() {
            "to_be_visible" => e.to_be_visible().await,
            "to_be_hidden" => e.to_be_hidden().await,
            "to_be_attached" => e.to_be_attached().await,
            "to_be_in_viewport" => e.to_be_in_viewport().await,
            "to_contain_class" => e.to_contain_class(self.many()).await,
            "to_have_css" => {
                e.to_have_css(self.attribute.as_deref().unwrap_or(""), self.one())
                    .await
            }
            "to_have_values" => {
                let list: Vec<TextMatch> = match &self.expected {
                    Some(ExpectedValue::List(l)) => {
                        l.iter().map(|t| t.text_match().expect("checked")).collect()
                    }
                    _ => Vec::new(),
                };
                e.to_have_values(list).await
            }
            "to_match_aria_snapshot" => {
                let template = match &self.expected {
                    Some(ExpectedValue::Text(ExpectedText::Exact(t))) => t.clone(),
                    _ => String::new(),
                };
                e.to_match_aria_snapshot(&template).await
            }
            "to_be_enabled" => e.to_be_enabled().await,
            "to_be_disabled" => e.to_be_disabled().await,
            "to_be_checked" => e.to_be_checked().await,
            "to_be_focused" => e.to_be_focused().await,
            "to_be_editable" => e.to_be_editable().await,
            "to_be_empty" => e.to_be_empty().await,
            "to_have_text" => e.to_have_text(self.many()).await,
            "to_contain_text" => e.to_contain_text(self.many()).await,
            "to_have_class" => e.to_have_class(self.many()).await,
            "to_have_count" => {
                let n = match self.expected {
                    Some(ExpectedValue::Count(n)) => n as usize,
                    _ => 0,
                };
                e.to_have_count(n).await
            }
            "to_have_value" => e.to_have_value(self.one()).await,
            "to_have_attribute" => {
                e.to_have_attribute(self.attribute.as_deref().unwrap_or(""), self.one())
                    .await
            }
            "to_have_id" => e.to_have_id(self.one()).await,
            "to_have_role" => {
                let role = match &self.expected {
                    Some(ExpectedValue::Text(ExpectedText::Exact(r))) => r.clone(),
                    _ => String::new(),
                };
                e.to_have_role(&role).await
            }
            _ => e.to_have_accessible_name(self.one()).await,
        }
    }
}

/// What `browser_expect` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Expected {
    /// Always true.
    pub success: bool,
    /// The assertion that held.
    pub assertion: String,
    /// It was inverted.
    pub not: bool,
    /// The target, as given, or "page".
    pub target: String,
    /// A stable locator of the element (null for the page).
    pub locator: Option<String>,
    /// Milliseconds until it held.
    pub waited_ms: u64,
}

/// A web-first assertion on the page or an element (Playwright's `expect`).
pub fn expect(ctx: &Context, a: Expect) -> Result<Acted<Expected>, ToolError> {
    let timeout = timeout_of(a.timeout_ms)?;
    let check = a.check()?;
    if OBSERVATIONS.contains(&check.assertion.as_str()) {
        let started = Instant::now();
        observed(ctx, &check, timeout)?;
        return Ok(Acted {
            result: Expected {
                success: true,
                assertion: check.assertion.clone(),
                not: check.not,
                target: "page".into(),
                locator: None,
                waited_ms: started.elapsed().as_millis() as u64,
            },
            evidence: Vec::new(),
        });
    }
    act(ctx, "expect", move |page| async move {
        let started = Instant::now();
        check.run(&page, timeout).await?;
        let waited = started.elapsed().as_millis() as u64;
        let (target, locator) = match &check.target {
            Some(t) => (t.describe(), Some(locator_name(&page, t).await)),
            None => ("page".to_string(), None),
        };
        Ok(Expected {
            success: true,
            assertion: check.assertion.clone(),
            not: check.not,
            target,
            locator,
            waited_ms: waited,
        })
    })
}

/// Whether a text matches as the library's console assertions match it: a
/// string as a case-insensitive substring, a regex anywhere.
fn text_matches(t: &ExpectedText, text: &str) -> bool {
    match t {
        ExpectedText::Exact(s) => text.to_lowercase().contains(&s.to_lowercase()),
        ExpectedText::Regex { regex } => {
            harshjudge_browser::regex::Regex::new(regex).is_ok_and(|r| r.is_match(text))
        }
    }
}

/// Runs a network or console assertion on what the session saw since the
/// last `browser_network` / `browser_console` call: to_have_request and
/// to_have_message wait up to `timeout` for it (their `not` form holds when
/// nothing matched at the end of the wait); to_have_no_errors looks once.
fn observed(ctx: &Context, check: &Assertion, timeout: Duration) -> Result<(), ToolError> {
    let fail = |m: String| ToolError::new(crate::error::Code::AssertionFailed, m);
    let start = Instant::now();
    let a = check.assertion.clone();
    let texts: Vec<ExpectedText> = match &check.expected {
        Some(ExpectedValue::Text(t)) => vec![t.clone()],
        Some(ExpectedValue::List(l)) => l.clone(),
        _ => Vec::new(),
    };
    if a == "to_have_no_errors" {
        let allow = texts.clone();
        let errors = super::observe::with_logs(ctx, move |s| {
            s.console
                .iter()
                .filter(|c| c.level == "error")
                .filter(|c| !allow.iter().any(|t| text_matches(t, &c.text)))
                .map(|c| c.text.chars().take(200).collect::<String>())
                .collect::<Vec<_>>()
        })?;
        return match (errors.is_empty(), check.not) {
            (true, false) | (false, true) => Ok(()),
            (false, false) => Err(fail(format!(
                "expected no console errors, but the page logged {}: {}",
                errors.len(),
                errors.join(" | ")
            ))),
            (true, true) => Err(fail(
                "expected console errors (not), but the page logged none".into(),
            )),
        };
    }
    let pattern_ = texts.first().cloned();
    let (method_, status) = (check.method.clone(), check.status);
    loop {
        let (pattern, method) = (pattern_.clone(), method_.clone());
        let a2 = a.clone();
        let (found, seen) = super::observe::with_logs(ctx, move |s| {
            if a2 == "to_have_request" {
                let base = s.base_url.clone();
                let glob = match &pattern {
                    Some(ExpectedText::Exact(g)) => {
                        harshjudge_browser::UrlPattern::from(g.as_str())
                    }
                    Some(ExpectedText::Regex { regex }) => {
                        match harshjudge_browser::regex::Regex::new(regex) {
                            Ok(r) => harshjudge_browser::UrlPattern::from(r),
                            Err(_) => return (false, Vec::new()),
                        }
                    }
                    None => return (false, Vec::new()),
                };
                let found = s.network.iter().any(|n| {
                    glob.matches(&base, &n.url)
                        && method
                            .as_ref()
                            .is_none_or(|m| n.method.eq_ignore_ascii_case(m))
                        && status.is_none_or(|st| n.status == Some(u64::from(st)))
                });
                let seen = s
                    .network
                    .iter()
                    .rev()
                    .take(10)
                    .map(|n| {
                        format!(
                            "{} {} {}",
                            n.method,
                            n.url,
                            n.status
                                .map_or("(no status)".to_string(), |s| s.to_string())
                        )
                    })
                    .collect();
                (found, seen)
            } else {
                let found = pattern
                    .as_ref()
                    .is_some_and(|p| s.console.iter().any(|c| text_matches(p, &c.text)));
                let seen = s
                    .console
                    .iter()
                    .rev()
                    .take(10)
                    .map(|c| {
                        format!(
                            "{}: {}",
                            c.level,
                            c.text.chars().take(120).collect::<String>()
                        )
                    })
                    .collect();
                (found, seen)
            }
        })?;
        if found && !check.not {
            return Ok(());
        }
        if found && check.not {
            return Err(fail(format!(
                "expected no {} matching {}, but there was one; seen: {}",
                if a == "to_have_request" {
                    "request"
                } else {
                    "console message"
                },
                describe_pattern(&pattern_, &method_, status),
                seen.join(" | ")
            )));
        }
        if start.elapsed() >= timeout {
            if check.not {
                return Ok(());
            }
            return Err(fail(format!(
                "expected a {} matching {}; waited {:.1} s; seen (newest first): {}",
                if a == "to_have_request" {
                    "request"
                } else {
                    "console message"
                },
                describe_pattern(&pattern_, &method_, status),
                start.elapsed().as_secs_f64(),
                if seen.is_empty() {
                    "nothing".to_string()
                } else {
                    seen.join(" | ")
                }
            )));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn describe_pattern(
    p: &Option<ExpectedText>,
    method: &Option<String>,
    status: Option<u16>,
) -> String {
    let mut s = match p {
        Some(ExpectedText::Exact(g)) => format!("{g:?}"),
        Some(ExpectedText::Regex { regex }) => format!("/{regex}/"),
        None => "anything".into(),
    };
    if let Some(m) = method {
        s.push_str(&format!(" method {m}"));
    }
    if let Some(st) = status {
        s.push_str(&format!(" status {st}"));
    }
    s
}
