//! What a model reads of a result in the server's lean shape (the default;
//! `--output-schemas` gives every result as JSON text and structured content,
//! unchanged): a browser action as one line naming the locator it resolved
//! to (and the evidence it left), a snapshot as its aria-snapshot lines (the
//! tool's `snapshot`: the whole tree, or what changed since the last snapshot
//! of the same page unless `full`), a step's trace as its lines
//! (`getStepTrace`'s `text`). Every other result stays its compact JSON.

use serde_json::Value;

use crate::context::Context;

/// The lean text of `tool`'s successful result `value`, or `None` to send
/// the compact JSON.
pub fn text(ctx: &Context, tool: &str, value: &Value) -> Option<String> {
    if tool == "browser_snapshot" {
        return value["snapshot"].as_str().map(String::from);
    }
    if tool == "getStepTrace" {
        return value["text"].as_str().map(String::from);
    }
    if matches!(tool, "run_steps" | "record_replay") {
        return steps_text(tool, value);
    }
    let mut line = line(tool, value)?;
    let s = |k: &str| value[k].as_str();
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

/// What a browser action's successful result `value` did, in one line
/// (`clicked get_by_role("button").name("Save")`), or `None` for other tools
/// and for snapshots.
pub fn line(tool: &str, value: &Value) -> Option<String> {
    let s = |k: &str| value[k].as_str();
    Some(match tool {
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
    })
}

/// A brief `run_steps` or `record_replay` result as lines: the counts, then
/// one line per call (`3 ok clicked …`, `4 FAILED browser_click: CODE: …`)
/// with its evidence and page, a snapshot's lines under its call's; `None`
/// for a detailed one (sent as JSON).
fn steps_text(tool: &str, value: &Value) -> Option<String> {
    let steps = value["steps"].as_array()?;
    // A detailed step has its timing (`meta`): sent as JSON.
    if steps.iter().any(|st| st.get("meta").is_some()) {
        return None;
    }
    let sum = &value["summary"];
    let n = |k: &str| sum[k].as_u64().unwrap_or(0);
    let mut out = format!(
        "{tool}: {} ok, {} failed of {}",
        n("succeeded"),
        n("failed"),
        n("total")
    );
    if n("skipped") > 0 {
        out.push_str(&format!(", {} skipped", n("skipped")));
    }
    if tool == "record_replay" && n("ran") < n("total") {
        out.push_str(&format!(", {} not run", n("total") - n("ran")));
    }
    if let Some(run) = value["runId"].as_str() {
        out.push_str(&format!(
            "; run {run}: {}",
            value["runStatus"].as_str().unwrap_or("unfinished")
        ));
    }
    out.push('\n');
    for st in steps {
        let what = st["did"]
            .as_str()
            .map(String::from)
            .or_else(|| {
                st["error"]
                    .as_str()
                    .map(|e| format!("{}: {e}", st["tool"].as_str().unwrap_or("")))
            })
            .unwrap_or_else(|| st["tool"].as_str().unwrap_or("").to_string());
        let status = if st["ok"] == true { "ok" } else { "FAILED" };
        out.push_str(&format!("{} {status} {what}", st["index"]));
        if let Some(url) = st["observation"]["url"].as_str() {
            out.push_str(&format!(" [url={url}]"));
        }
        if let Some(files) = st["evidence"].as_array().filter(|a| !a.is_empty()) {
            let files: Vec<&str> = files.iter().filter_map(Value::as_str).collect();
            out.push_str(&format!(" (evidence: {})", files.join(", ")));
        }
        out.push('\n');
        // A snapshot's lines, as the tool alone gives them.
        if let Some(snapshot) = st["snapshot"].as_str() {
            out.push_str(snapshot);
        }
    }
    Some(out)
}
