//! `record_export`: a recorded [`Sequence`] as a Rust `#[scenario]` on
//! harshjudge's page API, every string through one escaping function, written
//! to `.harshJudge/exports/{function}.rs`.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::record::{Sequence, describe, load, substitute};
use crate::agent::RecordedCall;
use crate::context::Context;
use crate::error::ToolError;

/// What `record_export` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Exported {
    /// Always true.
    pub success: bool,
    /// The Rust file, relative to the project.
    pub path: String,
    /// The scenario function's name.
    pub function: String,
    /// Steps exported.
    pub steps: usize,
}

crate::plain_output!(Exported);

/// Arguments of `record_export`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordExport {
    /// The sequence to export.
    #[schemars(regex(pattern = crate::tools::RUN_ID_PATTERN))]
    pub sequence_id: String,
    /// The scenario function's name (snake_case; default from the sequence's name).
    #[serde(default)]
    pub function_name: Option<String>,
    /// Values for `{{variable}}` placeholders (others stay as written).
    #[serde(default)]
    pub variables: BTreeMap<String, String>,
}

/// Writes a Rust `#[scenario]` replaying the sequence with the page API, into
/// `.harshJudge/exports/{function}.rs`, ready to drop into `tests/`.
pub fn record_export(ctx: &Context, a: RecordExport) -> Result<Exported, ToolError> {
    let seq = load(ctx, &a.sequence_id)?;
    let fn_name = match a.function_name {
        Some(f) => f,
        None => harshjudge_store::store::slugify(&seq.name).replace('-', "_"),
    };
    let valid = !fn_name.is_empty()
        && fn_name.len() <= 64
        && fn_name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !fn_name.as_bytes()[0].is_ascii_digit();
    if !valid {
        return Err(ToolError::invalid(format!(
            "functionName {fn_name:?} is not a Rust function name: use lowercase letters, digits and _ (not starting with a digit)"
        )));
    }
    let source = export_source(&seq, &fn_name, &a.variables);
    let path = ctx.store().export_path(&fn_name)?;
    ctx.store().write_file(&path, source.as_bytes())?;
    Ok(Exported {
        success: true,
        path: ctx.rel(&path),
        steps: source.matches("step!(").count(),
        function: fn_name,
    })
}

/// The one escaping function for every string that reaches generated Rust
/// (string literals and comments alike): printable ASCII stays as it is
/// (`\\` and `"` escaped), `\n` `\r` `\t` become their escapes, and every
/// other character becomes `\u{…}`. The result is pure printable ASCII with no
/// line break, so it can end neither a literal nor a comment (`*/`, `"#` and
/// raw-string delimiters are inert inside an ordinary literal or a line
/// comment), and no bidi control or look-alike character reaches the file.
pub fn escape_rust(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            other => out.push_str(&format!("\\u{{{:x}}}", other as u32)),
        }
    }
    out
}

/// A Rust string literal of `s` (through [`escape_rust`]).
pub fn lit(s: &str) -> String {
    format!("\"{}\"", escape_rust(s))
}

/// A string selector as the page API's `locator(…)` argument: plain CSS when it
/// cannot be mistaken for another engine, else with its `css=` prefix.
fn css_lit(sel: &str) -> String {
    let engine = ["css=", "testid=", "text=", "xpath=", "//", "(//"]
        .iter()
        .any(|p| sel.starts_with(p));
    if engine {
        lit(&format!("css={sel}"))
    } else {
        lit(sel)
    }
}

/// The Rust locator expression of a recorded call's target
/// (`page.get_by_role("button").name("Save")`): from its arguments, or for a
/// snapshot ref, from the stable locator it resolved to. `text` is a target
/// only where the tool takes it as one.
fn target_rust(c: &RecordedCall, args: &Value) -> Option<String> {
    let text_is_target = !matches!(c.tool.as_str(), "browser_type" | "browser_wait_for");
    let exact = args["exact"].as_bool() == Some(true);
    let exact_suffix = if exact { ".exact()" } else { "" };
    let s = |k: &str| args[k].as_str();
    // A ref inside iframes was recorded as `frame_locator("…").` calls
    // before the locator generated in the last frame.
    let (frames, recorded) = match c.locator.as_deref() {
        Some(l) => {
            let (frames, rest) = split_frames(l);
            (frames, Some(rest))
        }
        None => (Vec::new(), None),
    };
    let generated = || recorded.and_then(|l| harshjudge_browser::GeneratedLocator::parse(l).ok());
    let from_page = generated().is_some()
        || c.locator
            .as_deref()
            .is_some_and(|l| l.starts_with("testid="));
    let mut out = if s("ref").is_some() || (s("selector").is_some() && from_page) {
        let l = c.locator.as_deref()?;
        if let Some(g) = generated() {
            // The locator generated from the live page: already narrowed.
            let frames: String = (frames.iter())
                .map(|f| format!("frame_locator({}).", lit(f)))
                .collect();
            return Some(in_frame(args, format!("page.{frames}{}", g.rust_with(lit))));
        } else if let Some(t) = l.strip_prefix("testid=") {
            format!("page.get_by_test_id({})", lit(t))
        } else if let Some(css) = l.strip_prefix("css=") {
            format!("page.locator({})", css_lit(css))
        } else {
            format!("page.locator({})", lit(l))
        }
    } else if let Some(role) = s("role") {
        match s("name") {
            Some(n) => format!(
                "page.get_by_role({}).name({}){exact_suffix}",
                lit(role),
                lit(n)
            ),
            None => format!("page.get_by_role({})", lit(role)),
        }
    } else if let Some(t) = s("testId") {
        format!("page.get_by_test_id({})", lit(t))
    } else if let Some(sel) = s("selector") {
        format!("page.locator({})", css_lit(sel))
    } else {
        let (method, v) = [
            ("get_by_label", s("label")),
            ("get_by_placeholder", s("placeholder")),
            ("get_by_alt_text", s("altText")),
            ("get_by_title", s("title")),
            ("get_by_text", s("text").filter(|_| text_is_target)),
        ]
        .into_iter()
        .find_map(|(m, v)| v.map(|v| (m, v)))?;
        format!("page.{method}({}){exact_suffix}", lit(v))
    };
    if let Some(n) = args["nth"].as_i64() {
        out.push_str(&format!(".nth({n})"));
    }
    Some(in_frame(args, out))
}

/// The iframe selectors a recorded locator starts with
/// (`frame_locator("iframe#pay").get_by_role(…)`), and the rest of it.
fn split_frames(mut l: &str) -> (Vec<String>, &str) {
    let mut frames = Vec::new();
    while let Some(rest) = l.strip_prefix("frame_locator(") {
        let mut strings = serde_json::Deserializer::from_str(rest).into_iter::<String>();
        let Some(Ok(selector)) = strings.next() else {
            break;
        };
        let Some(after) = rest[strings.byte_offset()..].strip_prefix(").") else {
            break;
        };
        frames.push(selector);
        l = after;
    }
    (frames, l)
}

/// A locator expression moved into the target's frame, when the call named
/// one: `page.get_by_role(…)` → `page.frame_locator("iframe#pay").get_by_role(…)`.
fn in_frame(args: &Value, locator: String) -> String {
    match (args["frame"].as_str(), locator.strip_prefix("page.")) {
        (Some(f), Some(rest)) => format!("page.frame_locator({}).{rest}", lit(f)),
        _ => locator,
    }
}

/// The Rust argument of a `browser_expect` expectation.
fn expected_rust(v: &Value) -> Result<String, ()> {
    use crate::tools::browser::{ExpectedText, ExpectedValue};
    let e: ExpectedValue = serde_json::from_value(v.clone()).map_err(|_| ())?;
    Ok(match e {
        ExpectedValue::Count(n) => n.to_string(),
        ExpectedValue::Text(t) => t.rust(),
        // `[]` leaves the item type to infer: the matchers are generic over it.
        ExpectedValue::List(l) if l.is_empty() => "Vec::<&str>::new()".to_string(),
        ExpectedValue::List(l) if l.iter().all(|t| matches!(t, ExpectedText::Exact(_))) => {
            format!(
                "[{}]",
                l.iter()
                    .map(ExpectedText::rust)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        ExpectedValue::List(l) => format!(
            "vec![{}]",
            l.iter()
                .map(|t| format!("harshjudge::browser::TextMatch::from({})", t.rust()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

/// The exported statement of a `browser_expect` call.
fn expect_rust(c: &RecordedCall, args: &Value) -> Option<String> {
    let assertion = args["assertion"].as_str()?;
    if !crate::tools::browser::ASSERTIONS.contains(&assertion) {
        return None;
    }
    if crate::tools::browser::OBSERVATIONS.contains(&assertion) {
        return observation_rust(assertion, args);
    }
    let subject = if matches!(assertion, "to_have_url" | "to_have_title") {
        "page".to_string()
    } else {
        target_rust(c, args)?
    };
    let mut call = format!("expect(&{subject})");
    if args["not"].as_bool() == Some(true) {
        call.push_str(".not()");
    }
    if let Some(ms) = args["timeoutMs"].as_u64() {
        call.push_str(&format!(".timeout(std::time::Duration::from_millis({ms}))"));
    }
    let mut params = vec![];
    if let Some(a) = args["attribute"].as_str() {
        params.push(lit(a));
    }
    if let Some(v) = args.get("expected").filter(|v| !v.is_null()) {
        params.push(expected_rust(v).ok()?);
    }
    Some(format!("{call}.{assertion}({}).await?;", params.join(", ")))
}

/// The exported statement of a `browser_route` call: `page.route(…)` with a
/// handler that settles the request as the call did, or `page.unroute(…)`.
fn route_rust(args: &Value) -> Option<String> {
    let pattern = args["pattern"].as_str()?;
    let pat = if pattern.len() > 2 && pattern.starts_with('/') && pattern.ends_with('/') {
        format!(
            "harshjudge::regex::Regex::new({})?",
            lit(&pattern[1..pattern.len() - 1])
        )
    } else {
        lit(pattern)
    };
    let headers: Vec<(String, String)> = args["headers"]
        .as_object()
        .map(|o| {
            o.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    let with_headers: String = headers
        .iter()
        .map(|(k, v)| format!(".header({}, {})", lit(k), lit(v)))
        .collect();
    let settle = match args["action"].as_str()? {
        "remove" => return Some(format!("page.unroute({pat}).await?;")),
        "abort" => "route.abort().await".to_string(),
        "continue" => format!("route.continue_(){with_headers}.await"),
        "fulfill" => {
            let mut resp = format!(
                "harshjudge::Response::new().status({})",
                args["status"].as_u64().unwrap_or(200)
            );
            if let Some(j) = args.get("json").filter(|j| !j.is_null()) {
                resp.push_str(&format!(
                    ".content_type(\"application/json\").body({})",
                    lit(&j.to_string())
                ));
            } else if let Some(b) = args["body"].as_str() {
                resp.push_str(&format!(".body({})", lit(b)));
            }
            resp.push_str(&with_headers);
            format!("route.fulfill({resp}).await")
        }
        _ => return None,
    };
    Some(format!(
        "page.route({pat}, |route| async move {{ {settle} }}).await?;"
    ))
}

/// The exported statement of a network or console `browser_expect` call:
/// the step's `s.network()` / `s.console()`.
fn observation_rust(assertion: &str, args: &Value) -> Option<String> {
    use crate::tools::browser::{ExpectedText, ExpectedValue};
    let texts: Vec<ExpectedText> = match args.get("expected").filter(|v| !v.is_null()) {
        None => Vec::new(),
        Some(v) => match serde_json::from_value::<ExpectedValue>(v.clone()).ok()? {
            ExpectedValue::Text(t) => vec![t],
            ExpectedValue::List(l) => l,
            ExpectedValue::Count(_) => return None,
        },
    };
    let not = if args["not"].as_bool() == Some(true) {
        ".not()"
    } else {
        ""
    };
    Some(match assertion {
        "to_have_request" => {
            let mut call = format!(
                "expect(&s.network()){not}.to_have_request({})",
                texts.first()?.rust()
            );
            if let Some(m) = args["method"].as_str() {
                call.push_str(&format!(".method({})", lit(m)));
            }
            if let Some(st) = args["status"].as_u64() {
                call.push_str(&format!(".status({st})"));
            }
            format!("{call}.await?;")
        }
        // The console's assertions have no `not` in the library.
        _ if !not.is_empty() => return None,
        "to_have_message" => format!(
            "expect(&s.console()).to_have_message({}).await?;",
            texts.first()?.rust()
        ),
        _ => {
            let allow: String = texts
                .iter()
                .map(|t| format!(".allow({})", t.rust()))
                .collect();
            format!("expect(&s.console()){allow}.to_have_no_errors().await?;")
        }
    })
}

/// One generated statement (`a.b(…).c(…).await?;`) laid out as rustfmt lays
/// out a method chain, so an export is `cargo fmt` clean: on one line when the
/// chain is at most 60 characters (rustfmt's `chain_width`), else one `.call`
/// per line, indented once more (a root of at most 4 characters, like `page`,
/// keeps its first call). Splits only at dots outside parentheses and string
/// literals (which [`escape_rust`] made single-line).
fn fmt_chain(stmt: &str, indent: usize) -> String {
    let chain = stmt.trim().trim_end_matches(';');
    if chain.len() <= 60 {
        return stmt.trim().to_string();
    }
    let mut parts = vec![];
    let (mut depth, mut in_str, mut escaped, mut start) = (0i32, false, false, 0);
    for (i, c) in chain.char_indices() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '.' if depth == 0 && i > start => {
                parts.push(&chain[start..i]);
                start = i;
            }
            _ => {}
        }
    }
    parts.push(&chain[start..]);
    if parts.len() < 2 {
        return stmt.trim().to_string();
    }
    let mut first = parts[0].to_string();
    let mut rest = &parts[1..];
    if first.len() <= 4 && rest.len() > 1 {
        first.push_str(rest[0]);
        rest = &rest[1..];
    }
    let pad = " ".repeat(indent + 4);
    let mut out = first;
    for p in rest {
        out.push('\n');
        out.push_str(&pad);
        out.push_str(p);
    }
    out.push(';');
    out
}

/// The exported file's text.
pub fn export_source(seq: &Sequence, fn_name: &str, vars: &BTreeMap<String, String>) -> String {
    let mut body = String::new();
    let mut skipped = vec![];
    let mut uses_page = false;
    let mut titles = BTreeSet::new();
    for c in seq.calls.iter().filter(|c| c.ok) {
        let args = substitute(&c.args, vars);
        let loc = target_rust(c, &args);
        let code = match c.tool.as_str() {
            "browser_navigate" => args["url"]
                .as_str()
                .map(|u| format!("page.goto({}).await?;", lit(u))),
            "browser_click" => loc.map(|l| format!("{l}.click().await?;")),
            "browser_type" => loc.map(|l| {
                let mut s = format!(
                    "{l}.fill({}).await?;",
                    lit(args["text"].as_str().unwrap_or(""))
                );
                if args["submit"].as_bool() == Some(true) {
                    s.push_str(&format!("\n        {l}.press(\"Enter\").await?;"));
                }
                s
            }),
            "browser_press" => {
                let key = lit(args["key"].as_str().unwrap_or("Enter"));
                Some(match loc {
                    Some(l) => format!("{l}.press({key}).await?;"),
                    None => format!("page.keyboard().press({key}).await?;"),
                })
            }
            "browser_wait_for" => match (loc, args["text"].as_str()) {
                (Some(l), Some(t)) => {
                    Some(format!("expect(&{l}).to_contain_text({}).await?;", lit(t)))
                }
                (Some(l), None) => Some(format!("expect(&{l}).to_be_visible().await?;")),
                (None, Some(t)) => Some(format!(
                    "expect(&page.get_by_text({}).first()).to_be_visible().await?;",
                    lit(t)
                )),
                (None, None) => None,
            },
            "browser_expect" => expect_rust(c, &args),
            "browser_route" => route_rust(&args),
            "browser_handle_dialog" => Some(
                match (args["accept"].as_bool(), args["promptText"].as_str()) {
                    (Some(true), Some(t)) => {
                        format!("page.on_dialog(|d| d.accept(Some({})))?;", lit(t))
                    }
                    (Some(true), None) => "page.on_dialog(|d| d.accept(None))?;".to_string(),
                    _ => "page.on_dialog(|d| d.dismiss())?;".to_string(),
                },
            ),
            "browser_launch" | "browser_screenshot" | "browser_snapshot" | "browser_console"
            | "browser_network" | "browser_close" => None,
            other => {
                skipped.push(other.to_string());
                None
            }
        };
        let Some(code) = code else { continue };
        uses_page = true;
        // Step titles must be unique within a scenario.
        let base = describe(c).replace('"', "'");
        let mut title = base.clone();
        let mut n = 2;
        while !titles.insert(title.clone()) {
            title = format!("{base} ({n})");
            n += 1;
        }
        let code = code
            .lines()
            .map(|l| fmt_chain(l, 8))
            .collect::<Vec<_>>()
            .join("\n");
        body.push_str(&format!(
            "    step!({}, {{\n        {code}\n    }});\n",
            lit(&title)
        ));
    }
    let mut out = String::new();
    out.push_str(&format!(
        "//! Exported by harshjudge-mcp from the recorded sequence {} ({}).\n//! Put it in `tests/` and register it from a suite (`mod ...;` next to\n//! `harshjudge::main!(...)`), or add `harshjudge::main!();` below.\n",
        escape_rust(&seq.id),
        lit(&seq.name)
    ));
    if !skipped.is_empty() {
        out.push_str(&format!(
            "//! Not exported (no page API equivalent): {}.\n",
            escape_rust(&skipped.join(", "))
        ));
    }
    if body.contains("expect(&") {
        out.push_str("\nuse harshjudge::{Scenario, expect, scenario, step};\n\n");
    } else {
        out.push_str("\nuse harshjudge::{Scenario, scenario, step};\n\n");
    }
    let doc = seq.description.clone().unwrap_or_else(|| seq.name.clone());
    out.push_str(&format!(
        "/// {}\n",
        escape_rust(doc.lines().next().unwrap_or("").trim())
    ));
    // The device, place and time the recording's browser was launched with.
    let emulation = seq
        .calls
        .iter()
        .find(|c| c.ok && c.tool == "browser_launch")
        .map(|c| super::browser::emulation::scenario_arguments(&c.args))
        .unwrap_or_default();
    out.push_str(&format!(
        "#[scenario(tags = [\"recorded\"]{emulation})]\npub async fn {fn_name}(s: Scenario) -> harshjudge::Result {{\n"
    ));
    if uses_page {
        out.push_str("    let page = s.page().await?;\n");
    } else {
        out.push_str("    let _ = &s;\n    step!(\"Nothing to replay\", {});\n");
    }
    out.push_str(&body);
    out.push_str("    Ok(())\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::split_frames;

    #[test]
    fn a_recorded_locator_gives_up_its_frames_then_the_rest() {
        assert_eq!(
            split_frames(
                r#"frame_locator("iframe[title=\"Pay\"]").frame_locator("iframe").get_by_role("button")"#
            ),
            (
                vec![r#"iframe[title="Pay"]"#.to_string(), "iframe".to_string()],
                r#"get_by_role("button")"#
            )
        );
        assert_eq!(
            split_frames("get_by_text(\"x\")"),
            (vec![], "get_by_text(\"x\")")
        );
        // Not a string, or not followed by a call: left as it is.
        assert_eq!(
            split_frames("frame_locator(3).x"),
            (vec![], "frame_locator(3).x")
        );
        assert_eq!(
            split_frames(r#"frame_locator("a")"#),
            (vec![], r#"frame_locator("a")"#)
        );
    }
}
