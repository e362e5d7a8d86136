//! Healing that cannot hide a regression: `harshjudge-mcp heal <scenario>`
//! and the `heal` tool.
//!
//! Only a locator failure is healed: an action or a read whose locator matched
//! nothing (`no element matches`) or too many (strict mode). The replacement
//! comes from that step's recorded page (`aria.yml`, `page.html`): the same
//! role with the closest name, the label's new text, the closest test id or
//! placeholder. It is proposed as a unified diff of the scenario's Rust
//! source, found at the failure's recorded location. A failed assertion
//! (`expect(…)`), a verdict, a `step!(…, expect = …)` is never a locator
//! failure and is never changed: "not a locator failure: not healed". Nothing
//! is written unless asked (`--apply`); an applied heal is recorded in the
//! run's folder (`heal.json`, written atomically).

pub mod live;
pub mod page;
pub mod source;

use std::path::PathBuf;

use harshjudge_browser::regex::Regex;
use harshjudge_store::store::{
    RunId, RunResult, RunStatus, Slug, StepId, StepStatus, Store, StoreError,
};
use serde::{Deserialize, Serialize};

use page::{AriaNode, aria_nodes, attribute_values, label_texts, similarity};

/// The least [`similarity`] a replacement name must have with the old one.
pub const MIN_SIMILARITY: f64 = 0.3;
/// How many lines above the failure's location the locator is looked for.
pub const SEARCH_WINDOW: usize = 20;
/// The record of an applied heal, in the run's folder.
pub const HEAL_RECORD: &str = "heal.json";

/// The roles `get_by_label` can find (form controls).
const LABELLED_ROLES: [&str; 10] = [
    "textbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "searchbox",
    "spinbutton",
    "slider",
    "switch",
    "button",
];

/// A step's failure, as far as healing is concerned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Failure {
    /// An action or read whose locator matched no element until its timeout.
    #[serde(rename_all = "camelCase")]
    NoMatch {
        /// The locator, as the error names it.
        locator: String,
    },
    /// An action or single-element read whose locator matched several elements.
    #[serde(rename_all = "camelCase")]
    TooMany {
        /// The locator.
        locator: String,
        /// How many elements it matched.
        count: usize,
    },
    /// Anything else: an assertion on content, a verdict, an element that was
    /// there but not ready, a server down… Never healed.
    Other,
}

impl Failure {
    /// Reads a recorded step error ([`harshjudge_browser::BrowserError`]'s
    /// message): `strict mode violation: L resolved to N elements` or
    /// `timed out after … waiting for L to …; found: no element matches`.
    pub fn of_error(error: &str) -> Failure {
        let strict = Regex::new(r"(?m)^strict mode violation: (.+?) resolved to (\d+) elements")
            .expect("regex");
        let missing = Regex::new(
            r"(?m)^timed out after [0-9.]+ s waiting for (.+?\)) to [^\n]*?; found: no element matches",
        )
        .expect("regex");
        if let Some(c) = strict.captures(error) {
            return Failure::TooMany {
                locator: c[1].to_string(),
                count: c[2].parse().unwrap_or(0),
            };
        }
        if let Some(c) = missing.captures(error) {
            return Failure::NoMatch {
                locator: c[1].to_string(),
            };
        }
        Failure::Other
    }
}

/// What a locator's last part finds elements by.
#[derive(Clone, Debug, PartialEq, Eq)]
enum By {
    /// `get_by_role(role).name(name)`.
    RoleName(String),
    /// `get_by_label`, `get_by_test_id`, `get_by_placeholder`, `get_by_text`.
    Method(&'static str),
}

/// The last part of a locator: what it finds by, the text, and that part as
/// it is written in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Part {
    by: By,
    value: String,
    exact: bool,
}

impl Part {
    fn parse(locator: &str) -> Option<Part> {
        let lit = r#""((?:[^"\\]|\\.)*)""#;
        let role = Regex::new(&format!(
            r#"get_by_role\({lit}\)\.name\({lit}\)(\.exact\(\))?$"#
        ))
        .expect("regex");
        if let Some(c) = role.captures(locator) {
            return Some(Part {
                by: By::RoleName(c[1].to_string()),
                value: unescape(&c[2]),
                exact: c.get(3).is_some(),
            });
        }
        let method = Regex::new(&format!(
            r#"(get_by_label|get_by_test_id|get_by_placeholder|get_by_text)\({lit}\)(\.exact\(\))?$"#
        ))
        .expect("regex");
        let c = method.captures(locator)?;
        let name = match &c[1] {
            "get_by_label" => "get_by_label",
            "get_by_test_id" => "get_by_test_id",
            "get_by_placeholder" => "get_by_placeholder",
            _ => "get_by_text",
        };
        Some(Part {
            by: By::Method(name),
            value: unescape(&c[2]),
            exact: c.get(3).is_some(),
        })
    }

    /// This part with `value`, as Rust source.
    fn code(&self, value: &str) -> String {
        match &self.by {
            By::RoleName(_) => format!(".name({value:?})"),
            By::Method(m) => format!("{m}({value:?})"),
        }
    }
}

fn unescape(s: &str) -> String {
    s.replace("\\\"", "\"").replace("\\\\", "\\")
}

/// Why a scenario could not be healed. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum HealError {
    /// The store failed, or an id is not valid.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No scenario of that slug.
    #[error("unknown scenario {slug:?}: no .harshJudge/scenarios/{slug}/ (known: {known})")]
    UnknownScenario {
        /// The slug given.
        slug: String,
        /// The scenarios there are.
        known: String,
    },
    /// The scenario has no failed run (or the run named did not fail).
    #[error("{0}: nothing to heal")]
    NotFailed(String),
    /// The failure is not a locator that matched nothing or too many.
    #[error(
        "not a locator failure: not healed (run {run}, step {step}: {error}); healing changes only a locator that matched nothing or too many, never an assertion, an expectation or a verdict"
    )]
    NotLocator {
        /// The run.
        run: String,
        /// The step.
        step: String,
        /// The start of its error.
        error: String,
    },
    /// The step recorded no ARIA snapshot to heal from.
    #[error(
        "run {run}, step {step} recorded no aria.yml (the page's ARIA snapshot at the failure): nothing to propose a locator from; rerun the scenario with a browser page"
    )]
    NoAria {
        /// The run.
        run: String,
        /// The step.
        step: String,
    },
    /// A locator of a form healing does not handle.
    #[error(
        "the locator {locator} is not healed automatically: only get_by_role(…).name(…), get_by_label, get_by_test_id, get_by_placeholder and get_by_text are"
    )]
    Unsupported {
        /// The locator.
        locator: String,
    },
    /// The recorded page still has what the locator looks for.
    #[error(
        "the page recorded at the failure still has {what}: the locator is not what changed (is the page slow, or the element hidden?): not healed"
    )]
    StillThere {
        /// What was found.
        what: String,
    },
    /// No replacement close enough, or several as close.
    #[error("no replacement for {locator} on the recorded page: {why}")]
    NoCandidate {
        /// The locator.
        locator: String,
        /// Why, with the closest names seen.
        why: String,
    },
    /// The failure has no recorded source location.
    #[error(
        "run {run}, step {step} recorded no source location of its failure: cannot find the call to heal"
    )]
    NoLocation {
        /// The run.
        run: String,
        /// The step.
        step: String,
    },
    /// The scenario's source cannot be read or written.
    #[error("{}: {source}; give the folder the paths are relative to with --source-root", path.display())]
    Source {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The locator's text is not in the source near the failure.
    #[error("{text} is not in {}, at or above line {line}: the source changed since the run; rerun it", path.display())]
    NotInSource {
        /// The file.
        path: PathBuf,
        /// The failure's line.
        line: usize,
        /// What was looked for.
        text: String,
    },
    /// The live check could not be made.
    #[error(transparent)]
    Live(#[from] live::LiveError),
    /// The replacement does not match exactly one element of the live page.
    #[error(
        "the replacement {locator} matches {count} elements on the live page {url}, not exactly one: not proposed (is the app at that URL the changed one?)"
    )]
    LiveMismatch {
        /// The replacement, whole.
        locator: String,
        /// The page.
        url: String,
        /// How many it matched.
        count: usize,
    },
    /// The locator is written inside an assertion or a step's header.
    #[error("{}:{line} is an assertion or a step's header ({code}): never changed by healing", path.display())]
    InAssertion {
        /// The file.
        path: PathBuf,
        /// The line.
        line: usize,
        /// The line's code.
        code: String,
    },
}

/// What `heal` proposes (and, applied, did).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Heal {
    /// The scenario.
    pub scenario: String,
    /// The failed run healed from.
    pub run_id: String,
    /// The failed step.
    pub step_id: String,
    /// Its failure.
    pub failure: Failure,
    /// The source file, as the failure's location names it.
    pub file: String,
    /// The line changed.
    pub line: usize,
    /// The locator's part as written.
    pub before: String,
    /// Its replacement.
    pub after: String,
    /// Why this replacement (the recorded page's node, its similarity).
    pub reason: String,
    /// The change, as a unified diff of the source.
    pub diff: String,
    /// Whether it was written (`--apply`).
    pub applied: bool,
    /// Where the applied heal is recorded (`runs/{id}/heal.json`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
    /// What the replacement was checked against: the live page (exactly one
    /// element) or only the page recorded at the failure.
    pub note: String,
    /// The live check, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<live::LiveCheck>,
}

/// What to heal and how.
#[derive(Clone, Debug)]
pub struct HealRequest {
    /// The scenario's slug.
    pub scenario: String,
    /// A run to heal from (default: the latest failed run).
    pub run: Option<String>,
    /// The folder the failure's source locations are relative to.
    pub source_root: PathBuf,
    /// Write the change and record it.
    pub apply: bool,
    /// The app's base URL to check the replacement on, live (`None`: only
    /// against the page recorded at the failure).
    pub live: Option<String>,
}

/// Proposes (and with `apply`, makes) the heal of a scenario's latest failed
/// run. Every error leaves everything as it was.
pub fn heal(store: &Store, req: &HealRequest) -> Result<Heal, HealError> {
    heal_with(store, req, &mut live::check_alone)
}

/// [`heal`] whose live check (`req.live`) is `check(url, locator)`: the MCP
/// server's makes it in its own process, with its agent's browsers.
pub fn heal_with(
    store: &Store,
    req: &HealRequest,
    check: &mut dyn FnMut(&str, &str) -> Result<live::LiveCheck, live::LiveError>,
) -> Result<Heal, HealError> {
    let slug = Slug::new(&req.scenario)?;
    if !store.scenario(&slug).path().is_dir() {
        let known = std::fs::read_dir(store.scenarios_dir())
            .map(|rd| {
                let mut v: Vec<String> = rd
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                v.sort();
                v.join(", ")
            })
            .unwrap_or_default();
        return Err(HealError::UnknownScenario {
            slug: req.scenario.clone(),
            known: if known.is_empty() {
                "none".into()
            } else {
                known
            },
        });
    }
    let (run, result) = failed_run(store, &slug, req.run.as_deref())?;
    let step = result
        .steps
        .iter()
        .find(|s| s.executed() == StepStatus::Fail)
        .ok_or_else(|| {
            HealError::NotFailed(format!(
                "run {run} of {slug} failed, but no step's code failed (a verdict or the run itself)"
            ))
        })?;
    let error = step.error.clone().unwrap_or_default();
    let not_locator = || HealError::NotLocator {
        run: run.to_string(),
        step: step.id.clone(),
        error: error
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(300)
            .collect(),
    };
    let failure = Failure::of_error(&error);
    let locator = match &failure {
        Failure::NoMatch { locator } | Failure::TooMany { locator, .. } => locator.clone(),
        Failure::Other => return Err(not_locator()),
    };
    let step_id = StepId::new(step.id.clone())?;
    let evidence = store.scenario(&slug).run(&run).step(&step_id).evidence();
    let read = |name: &str| -> Option<String> {
        store
            .read_file(&evidence.join(name))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let aria = read("aria.yml").ok_or_else(|| HealError::NoAria {
        run: run.to_string(),
        step: step.id.clone(),
    })?;
    let html = read("page.html").unwrap_or_default();
    let part = Part::parse(&locator).ok_or_else(|| HealError::Unsupported {
        locator: locator.clone(),
    })?;
    let (after, reason) = propose(&failure, &part, &locator, &aria_nodes(&aria), &html)?;
    let before = part.code(&part.value);
    let location = step
        .error_location
        .clone()
        .ok_or_else(|| HealError::NoLocation {
            run: run.to_string(),
            step: step.id.clone(),
        })?;
    let (file, line) = split_location(&location).ok_or_else(|| HealError::NoLocation {
        run: run.to_string(),
        step: step.id.clone(),
    })?;
    let path = req.source_root.join(&file);
    let text = std::fs::read_to_string(&path).map_err(|source| HealError::Source {
        path: path.clone(),
        source,
    })?;
    let code_at = text.lines().nth(line.saturating_sub(1)).unwrap_or("");
    if source::in_assertion(code_at) {
        return Err(HealError::InAssertion {
            path,
            line,
            code: code_at.trim().to_string(),
        });
    }
    let found = source::find_segment(&text, line, &before, SEARCH_WINDOW).ok_or_else(|| {
        HealError::NotInSource {
            path: path.clone(),
            line,
            text: before.clone(),
        }
    })?;
    let found_code = text.lines().nth(found.line - 1).unwrap_or("");
    if source::in_assertion(found_code) {
        return Err(HealError::InAssertion {
            path,
            line: found.line,
            code: found_code.trim().to_string(),
        });
    }
    let whole = locator
        .rfind(&before)
        .map(|i| format!("{}{after}", &locator[..i]))
        .unwrap_or_else(|| after.clone());
    // The chain after `page.`, as the live check reads it.
    let whole = whole.strip_prefix("page.").unwrap_or(&whole).to_string();
    let (note, live) = match &req.live {
        None => (
            format!(
                "checked against the page recorded at the failure only (no app URL: give --live with HARSHJUDGE_BASE_URL or --base-url to check {whole} on the live page)"
            ),
            None,
        ),
        Some(base) => {
            let mut documents = Vec::new();
            for s in result.steps.iter().take_while(|s| s.id <= step.id) {
                if let Ok(id) = StepId::new(s.id.clone())
                    && let Some(text) = read_in(store, &slug, &run, &id, "network.json")
                {
                    documents.extend(live::documents(&text));
                }
            }
            let url = live::page_url(base, &documents)?;
            let checked = check(&url, &whole)?;
            if checked.count != 1 {
                return Err(HealError::LiveMismatch {
                    locator: whole,
                    url,
                    count: checked.count,
                });
            }
            (
                format!("checked live: {whole} matches exactly one element on {url}"),
                Some(checked),
            )
        }
    };
    let changed = source::replace(&text, &found, &before, &after);
    let diff = source::unified_diff(&file, &text, &changed);
    let mut heal = Heal {
        scenario: slug.to_string(),
        run_id: run.to_string(),
        step_id: step.id.clone(),
        failure,
        file: file.clone(),
        line: found.line,
        before,
        after,
        reason,
        diff,
        applied: false,
        record: None,
        note,
        live,
    };
    if req.apply {
        harshjudge_store::store::write_file(&path, changed.as_bytes()).map_err(|e| {
            HealError::Source {
                path: path.clone(),
                source: std::io::Error::other(e.to_string()),
            }
        })?;
        heal.applied = true;
        let record = store.scenario(&slug).run(&run).path().join(HEAL_RECORD);
        heal.record = Some(record.to_string_lossy().into_owned());
        let mut doc = serde_json::to_value(&heal).expect("a heal serializes");
        doc["appliedAt"] = serde_json::Value::from(harshjudge_store::store::now_iso());
        let bytes = serde_json::to_vec_pretty(&doc).expect("JSON");
        store.write_file(&record, &bytes)?;
    }
    Ok(heal)
}

/// A file of a step's evidence, as text.
fn read_in(store: &Store, slug: &Slug, run: &RunId, step: &StepId, name: &str) -> Option<String> {
    let path = store
        .scenario(slug)
        .run(run)
        .step(step)
        .evidence()
        .join(name);
    store
        .read_file(&path)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// `file:line:col` → (file, line).
fn split_location(location: &str) -> Option<(String, usize)> {
    let mut parts = location.rsplitn(3, ':');
    let _col = parts.next()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next()?.to_string();
    Some((file, line))
}

/// The run to heal from: the one named (which must have failed), else the
/// latest failed run.
fn failed_run(
    store: &Store,
    slug: &Slug,
    named: Option<&str>,
) -> Result<(RunId, RunResult), HealError> {
    if let Some(id) = named {
        let run = RunId::new(id)?;
        let result = store.scenario(slug).run(&run).result()?.ok_or_else(|| {
            HealError::NotFailed(format!("run {run} of {slug} has no result.json"))
        })?;
        if result.status != RunStatus::Fail {
            return Err(HealError::NotFailed(format!(
                "run {run} of {slug} did not fail (its status is {})",
                result.status.as_str()
            )));
        }
        return Ok((run, result));
    }
    let mut runs = store.scenario(slug).runs()?;
    runs.reverse();
    for run in runs {
        if let Some(result) = store.scenario(slug).run(&run).result()?
            && result.status == RunStatus::Fail
        {
            return Ok((run, result));
        }
    }
    Err(HealError::NotFailed(format!(
        "scenario {slug} has no failed run"
    )))
}

/// The replacement for `part` from the recorded page, and why.
fn propose(
    failure: &Failure,
    part: &Part,
    locator: &str,
    nodes: &[AriaNode],
    html: &str,
) -> Result<(String, String), HealError> {
    let candidates: Vec<String> = match &part.by {
        By::RoleName(role) => nodes
            .iter()
            .filter(|n| &n.role == role)
            .map(|n| n.name.clone())
            .collect(),
        By::Method("get_by_label") => nodes
            .iter()
            .filter(|n| LABELLED_ROLES.contains(&n.role.as_str()) && n.role != "button")
            .map(|n| n.name.clone())
            .chain(label_texts(html))
            .collect(),
        By::Method("get_by_test_id") => attribute_values(html, "data-testid"),
        By::Method("get_by_placeholder") => attribute_values(html, "placeholder"),
        By::Method(_) => nodes.iter().map(|n| n.name.clone()).collect(),
    };
    let mut candidates: Vec<String> = candidates.into_iter().filter(|c| !c.is_empty()).collect();
    candidates.sort();
    candidates.dedup();
    let what = |v: &str| match &part.by {
        By::RoleName(role) => format!("a {role} named {v:?}"),
        By::Method(m) => format!("{m}({v:?})"),
    };
    let substring_or_equal = |c: &str| {
        let test_id = part.by == By::Method("get_by_test_id");
        if part.exact || test_id {
            c == part.value
        } else {
            c.to_lowercase().contains(&part.value.to_lowercase())
        }
    };
    if let Failure::TooMany { count, .. } = failure {
        // Several match: only the one whose name is exactly the old one is kept.
        if let By::RoleName(_) = part.by
            && !part.exact
        {
            let equal: Vec<&String> = candidates.iter().filter(|c| **c == part.value).collect();
            if equal.len() == 1 {
                return Ok((
                    format!("{}.exact()", part.code(&part.value)),
                    format!(
                        "{count} elements matched; one is {} exactly",
                        what(&part.value)
                    ),
                ));
            }
        }
        return Err(HealError::NoCandidate {
            locator: locator.to_string(),
            why: format!(
                "it matched {count} elements and none is {} exactly; narrow it by hand (.filter_has_text(…), .nth(…))",
                what(&part.value)
            ),
        });
    }
    if let Some(there) = candidates.iter().find(|c| substring_or_equal(c)) {
        return Err(HealError::StillThere { what: what(there) });
    }
    let mut scored: Vec<(f64, &String)> = candidates
        .iter()
        .map(|c| (similarity(&part.value, c), c))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let seen = || {
        scored
            .iter()
            .take(5)
            .map(|(s, c)| format!("{c:?} ({s:.2})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(&(best, name)) = scored.first() else {
        return Err(HealError::NoCandidate {
            locator: locator.to_string(),
            why: "the recorded page has nothing of that kind".into(),
        });
    };
    if best < MIN_SIMILARITY {
        return Err(HealError::NoCandidate {
            locator: locator.to_string(),
            why: format!(
                "nothing is close enough (at least {MIN_SIMILARITY}); closest: {}",
                seen()
            ),
        });
    }
    if let Some(&(second, _)) = scored.get(1)
        && best - second < 0.05
    {
        return Err(HealError::NoCandidate {
            locator: locator.to_string(),
            why: format!("several are as close: {}", seen()),
        });
    }
    // The new locator must find one element of the recorded page.
    let matching = candidates
        .iter()
        .filter(|c| c.to_lowercase().contains(&name.to_lowercase()))
        .count();
    let mut code = part.code(name);
    if matching > 1 || part.exact {
        code.push_str(".exact()");
    }
    Ok((
        code,
        format!(
            "the recorded page has {} (similarity {best:.2} to {:?}) and nothing matching {:?}",
            what(name),
            part.value,
            part.value
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_locators_that_matched_nothing_or_too_many_are_locator_failures() {
        let e = "timed out after 5.0 s waiting for get_by_role(\"button\").name(\"Submit order\") to be visible, enabled and stable; found: no element matches\n  call log";
        assert_eq!(
            Failure::of_error(e),
            Failure::NoMatch {
                locator: "get_by_role(\"button\").name(\"Submit order\")".into()
            }
        );
        let e = "timed out after 5.0 s waiting for get_by_label(\"Add to cart\") to be editable; found: no element matches";
        assert_eq!(
            Failure::of_error(e),
            Failure::NoMatch {
                locator: "get_by_label(\"Add to cart\")".into()
            }
        );
        let e = "strict mode violation: get_by_role(\"button\").name(\"Save\") resolved to 2 elements:\n  1) <button>";
        assert!(matches!(
            Failure::of_error(e),
            Failure::TooMany { count: 2, .. }
        ));
        for other in [
            "timed out after 5.0 s waiting for get_by_role(\"button\") to be enabled; found: element is not enabled",
            "expect(get_by_test_id(\"status\")).to_have_text(\"Order placed\") failed: unexpected value \"Order received\"; found: no element matches",
            "the http judge's verdict is fail: no receipt",
        ] {
            assert_eq!(Failure::of_error(other), Failure::Other, "{other}");
        }
    }
}
