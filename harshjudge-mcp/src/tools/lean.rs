//! What a model reads of a result in the server's lean shape (the default;
//! `--output-schemas` gives every result as JSON text and structured content,
//! unchanged): a browser action as one line naming the locator it resolved
//! to (and the evidence it left), a snapshot as aria-snapshot lines with refs,
//! only what changed since the last snapshot of the same page unless `full`.
//! Every other result stays its compact JSON.

use serde_json::Value;

use crate::context::Context;
use crate::tools::browser::PageOutline;

/// The lean text of `tool`'s successful result `value` (called with `args`),
/// or `None` to send the compact JSON.
pub fn text(ctx: &Context, tool: &str, args: Option<&Value>, value: &Value) -> Option<String> {
    let s = |k: &str| value[k].as_str();
    let mut line = match tool {
        "browser_snapshot" => {
            let outline: PageOutline = serde_json::from_value(value.clone()).ok()?;
            let full = args.is_some_and(|a| a["full"].as_bool() == Some(true));
            return Some(snapshot_text(ctx, &outline, full));
        }
        "browser_navigate" => format!("- page {} [url={}]", Value::from(s("title")?), s("url")?),
        "browser_click" => format!("clicked {}", s("locator")?),
        "browser_type" => format!(
            "typed {} chars into {}{}",
            value["length"].as_u64()?,
            s("locator")?,
            if value["submitted"] == true {
                ", then Enter"
            } else {
                ""
            }
        ),
        "browser_press" => format!("pressed {} in {}", s("pressed")?, s("locator")?),
        "browser_wait_for" => format!("found {} after {} ms", s("locator")?, value["waitedMs"]),
        "browser_expect" => format!(
            "passed: expect({}){}.{}",
            s("locator").unwrap_or("page"),
            if value["not"] == true { ".not()" } else { "" },
            s("assertion")?
        ),
        "browser_close" => "closed".to_string(),
        _ => return None,
    };
    if let Some(url) = s("url").filter(|_| tool == "browser_click")
        && let Ok(mut last) = ctx.agent().last_snapshot.lock()
        && last.as_ref().is_some_and(|(u, _)| u != url)
    {
        // The click went to another page: say where, and forget the snapshot.
        line.push_str(&format!(" → {url}"));
        *last = None;
    }
    if let Some(files) = value["evidence"].as_array().filter(|a| !a.is_empty()) {
        let files: Vec<&str> = files.iter().filter_map(Value::as_str).collect();
        line.push_str(&format!("\nevidence: {}", files.join(", ")));
    }
    Some(line)
}

/// A snapshot as aria-snapshot lines: the whole outline the first time, after
/// a navigation or with `full`; else the page line, the lines that are new or
/// changed since the last snapshot, and the refs that are gone.
pub fn snapshot_text(ctx: &Context, outline: &PageOutline, full: bool) -> String {
    let lines = outline.aria_lines();
    let previous = ctx
        .agent()
        .last_snapshot
        .lock()
        .ok()
        .and_then(|mut l| l.replace((outline.url.clone(), lines.clone())));
    let Some((_, before)) = previous.filter(|(u, _)| !full && *u == outline.url) else {
        return lines.concat();
    };
    let mut out = outline.aria_page_line();
    let changed: Vec<&String> = lines[1..].iter().filter(|l| !before.contains(l)).collect();
    let refs = |ls: &[String]| -> Vec<String> {
        ls.iter()
            .filter_map(|l| l.split("[ref=").nth(1)?.split(']').next().map(String::from))
            .collect()
    };
    let now = refs(&lines);
    let gone: Vec<String> = refs(&before)
        .into_iter()
        .filter(|r| !now.contains(r))
        .collect();
    if changed.is_empty() && gone.is_empty() {
        out.push_str("- note: nothing changed (full: true for all)\n");
        return out;
    }
    out.push_str("- note: changes only (full: true for all)\n");
    for l in changed {
        out.push_str(l);
    }
    if !gone.is_empty() {
        out.push_str(&format!("- gone: {}\n", gone.join(", ")));
    }
    out
}
