//! `getStepTrace` with `action` (and the CLI's `trace --action N`): one
//! entry's DOM snapshot, from the step's `trace-dom.json`, as an ARIA
//! snapshot (`docs/design/trace.md`, D18). The snapshot is rebuilt by the
//! report's renderer in a page of the agent's own browsers
//! ([`harshjudge_browser::trace_aria_snapshot`]); the CLI's process
//! launches one for this call only.

use std::fmt::Write as _;
use std::time::Duration;

use harshjudge_browser::BrowserConfig;
use harshjudge_browser::trace::{TraceEntry, TraceFile};
use harshjudge_store::report::html::SNAPSHOT_RENDERER;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Cuts, Moment, StepTrace, Where, cut, entry_line, first_line};
use crate::context::Context;
use crate::error::{Code, ToolError};

/// The step's DOM snapshots, beside its `trace.json`.
const DOM_FILE: &str = "trace-dom.json";
/// The version of `trace-dom.json` this reads.
const DOM_VERSION: u64 = 1;
/// Lines of the ARIA snapshot given; past them it is cut.
const MAX_ARIA_LINES: usize = 400;
/// Characters of the ARIA snapshot given; past them it is cut.
const MAX_ARIA_CHARS: usize = 32_000;

/// `trace-dom.json` as read here: each snapshot kept as its JSON text.
#[derive(Deserialize)]
struct DomFile {
    version: Option<u64>,
    snapshots: Option<Vec<Box<RawValue>>>,
}

/// What is read of the snapshot shown, before it is rebuilt.
#[derive(Deserialize)]
struct Shown {
    url: Option<String>,
    omitted: Option<Box<RawValue>>,
    error: Option<Box<RawValue>>,
}

/// The moments an entry has, in the order they happened.
fn moments(e: &TraceEntry) -> Vec<(Moment, u32)> {
    let Some(s) = e.snapshots else {
        return Vec::new();
    };
    [
        (Moment::Before, s.before),
        (Moment::At, s.at),
        (Moment::After, s.after),
    ]
    .into_iter()
    .filter_map(|(m, i)| i.map(|i| (m, i)))
    .collect()
}

/// `before, after`: the names of `moments`.
fn names(moments: &[(Moment, u32)]) -> String {
    let names: Vec<&str> = moments.iter().map(|(m, _)| m.as_str()).collect();
    names.join(", ")
}

/// The ARIA snapshot of entry `n`'s page at `moment` (default: after, else
/// the one it has); `NOT_FOUND` naming what exists when there is none.
pub(super) fn action_snapshot(
    ctx: &Context,
    file: &TraceFile,
    at: &Where<'_>,
    n: u64,
    moment: Option<Moment>,
) -> Result<StepTrace, ToolError> {
    let store = ctx.require_init()?;
    let step_of = format!("step {} of run {} ({})", at.step, at.id, at.slug);
    let Some(entry) = file.entries.iter().find(|e| u64::from(e.n) == n) else {
        let has = match (file.entries.first(), file.entries.last()) {
            (Some(a), Some(b)) if a.n == b.n => format!("its only entry is #{}", a.n),
            (Some(a), Some(b)) => format!("its entries are #{} to #{}", a.n, b.n),
            _ => "it has no entries".into(),
        };
        return Err(ToolError::not_found(format!(
            "{step_of} has no entry #{n}: {has}"
        )));
    };
    let has = moments(entry);
    if has.is_empty() {
        return Err(ToolError::not_found(format!(
            "entry #{n} of {step_of} has no DOM snapshot: {}",
            match entry.kind.as_str() {
                "read" | "script" => format!("a {} has none (actions, assertions, navigations and inputs have)", entry.kind),
                _ => "its trace was written without snapshots (an older harshjudge, or its snapshots could not be taken: see the trace's errors)".into(),
            }
        )));
    }
    let chosen = match moment {
        Some(m) => has.iter().find(|(h, _)| *h == m).copied().ok_or_else(|| {
            let why = if m == Moment::After && file.mode == "retain-on-failure" {
                " (under retain-on-failure an action's after is not taken; HARSHJUDGE_TRACE=on takes it)"
            } else {
                ""
            };
            ToolError::not_found(format!(
                "entry #{n} of {step_of} has no {} snapshot{why}: it has {}",
                m.as_str(),
                names(&has)
            ))
        })?,
        None => [Moment::After, Moment::At, Moment::Before]
            .iter()
            .find_map(|m| has.iter().find(|(h, _)| h == m))
            .copied()
            .unwrap_or(has[0]),
    };
    let dom_path = store
        .scenario(at.slug)
        .run(at.id)
        .step(at.step)
        .evidence()
        .join(DOM_FILE);
    let rel = ctx.rel(&dom_path);
    let Some(bytes) = store.read_if_present(&dom_path)? else {
        return Err(ToolError::not_found(format!(
            "{step_of} has no {DOM_FILE}, though its trace.json names snapshots (entry #{n}: {}); the file was removed or not copied",
            names(&has)
        )));
    };
    let corrupt = |why: String| ToolError::new(Code::Corrupt, format!("{rel}: {why}"));
    // Each snapshot as its JSON text: a document's tree may nest deeper
    // than a parsed `Value` may (serde_json's 128 levels; a snapshot's
    // tree goes to 256 elements, each an array and an object).
    let dom: DomFile = serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
    drop(bytes);
    let version = dom.version.unwrap_or(0);
    if version > DOM_VERSION {
        return Err(corrupt(format!(
            "{DOM_FILE} version {version} is newer than this harshjudge (reads {DOM_VERSION})"
        )));
    }
    let list = dom
        .snapshots
        .ok_or_else(|| corrupt("no \"snapshots\" list".into()))?;
    let index = chosen.1 as usize;
    let Some(snapshot) = list.get(index) else {
        return Err(corrupt(format!(
            "entry #{n}'s {} snapshot is number {index}, and the file has {}",
            chosen.0.as_str(),
            list.len()
        )));
    };
    let snapshot: Shown = serde_json::from_str(snapshot.get())
        .map_err(|e| corrupt(format!("snapshot {index}: {e}")))?;
    for (why, says) in [
        (&snapshot.omitted, "was not kept"),
        (&snapshot.error, "could not be taken"),
    ] {
        if let Some(why) = why {
            let why =
                serde_json::from_str::<String>(why.get()).unwrap_or_else(|_| why.get().to_string());
            return Err(ToolError::not_found(format!(
                "entry #{n}'s {} snapshot of {step_of} {says}: {} (it has {})",
                chosen.0.as_str(),
                cut(first_line(&why), 300),
                names(&has)
            )));
        }
    }
    let url = snapshot.url.unwrap_or_default();
    let yaml = render_in_browser(ctx, list, index)?;
    let mut cuts = Cuts::default();
    let line = entry_line(file, entry, &mut cuts);
    let (aria, said) = bounded(&yaml);
    let mut text = format!(
        "{step_of}: the page {} entry #{n} (it has {}), as an ARIA snapshot\n{line}\n",
        match chosen.0 {
            Moment::Before => "before",
            Moment::After => "after",
            Moment::At => "at the last check of",
        },
        names(&has)
    );
    if !url.is_empty() {
        let _ = writeln!(text, "url: {}", cut(&url, 300));
    }
    text.push_str(&aria);
    if !aria.ends_with('\n') {
        text.push('\n');
    }
    if let Some(said) = said {
        let _ = writeln!(text, "cut: {said}");
    }
    let _ = write!(text, "file: {rel} (snapshot {index})");
    Ok(StepTrace {
        scenario_slug: at.slug.to_string(),
        run_id: at.id.to_string(),
        step: at.step.to_string(),
        attempt: file.attempt,
        mode: file.mode.clone(),
        path: rel,
        text,
        entries: vec![entry.clone()],
        left_out: 0,
        moment: Some(chosen.0),
        aria: Some(aria),
    })
}

/// `yaml` within [`MAX_ARIA_LINES`] lines and [`MAX_ARIA_CHARS`]
/// characters, and what was cut.
fn bounded(yaml: &str) -> (String, Option<String>) {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut out = String::new();
    let mut kept = 0;
    for l in &lines {
        if kept == MAX_ARIA_LINES || out.len() + l.len() + 1 > MAX_ARIA_CHARS {
            break;
        }
        out.push_str(l);
        out.push('\n');
        kept += 1;
    }
    let said = (kept < lines.len()).then(|| {
        format!(
            "the ARIA snapshot's first {kept} of {} lines (at most {MAX_ARIA_LINES} lines, {MAX_ARIA_CHARS} characters)",
            lines.len()
        )
    });
    (out, said)
}

/// Snapshot `index` of `list` as ARIA YAML, rebuilt in a page of the
/// agent's browsers (launched on first use; the page goes back to their pool).
fn render_in_browser(
    ctx: &Context,
    list: Vec<Box<RawValue>>,
    index: usize,
) -> Result<String, ToolError> {
    let config = BrowserConfig::from_env().map_err(|e| ToolError::invalid(e.to_string()))?;
    let limit =
        crate::agent::tool_timeout()?.max(config.launch_timeout * 2 + Duration::from_secs(30));
    let agent = ctx.agent();
    let mine = agent.clone();
    agent
        .block_within(limit, "HARSHJUDGE_TOOL_TIMEOUT", async move {
            let page = mine.browsers.open_page_with(&config, "about:blank").await?;
            let yaml =
                harshjudge_browser::trace_aria_snapshot(&page, SNAPSHOT_RENDERER, &list, index)
                    .await;
            mine.browsers.release(page).await;
            yaml
        })?
        .map_err(crate::tools::browser::classify)
}
