//! JUnit XML for CI: a `testsuite` per run (one scenario), a `testcase` per
//! step, failures with message, location and evidence (the
//! `[[ATTACHMENT|path]]` convention CI systems pick up), skipped steps with the
//! reason. Built from the files on disk, so runs recorded by `cargo test`, by
//! agents through MCP and by the original HarshJudge render alike.
//!
//! Read through the store: a run's `result.json` by [`Store::read_result_at`],
//! its evidence by [`Store::run_evidence`] (the lister the HTML report and the
//! dashboard use). Written by hand rather than with `quick-junit` (nextest's
//! writer): quick-junit 0.7 always writes `skipped` on `<testsuites>`, which
//! Jenkins' `junit-10.xsd` does not allow (the file validates today except our
//! `file`/`line`), and 0.6 writes `disabled` instead of a suite's `skipped`.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::store::{RunEvidence, RunResult, RunStatus, StepResult, StepStatus, Store, StoreError};

/// One run to report: its folder ([`Store::run_dir`]).
#[derive(Clone, Debug)]
pub struct RunRef {
    /// The run's folder.
    pub dir: PathBuf,
    /// Earlier attempts of the same scenario (retries), oldest first: their
    /// failures become `flakyFailure` (the step passed in the end) or
    /// `rerunFailure` (it failed every time) elements.
    pub earlier: Vec<PathBuf>,
}

/// Escapes text for XML content and attribute values, dropping characters
/// XML 1.0 cannot carry (most control characters).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

fn secs(ms: u64) -> String {
    format!("{:.3}", ms as f64 / 1000.0)
}

struct Suite {
    slug: String,
    result: RunResult,
    dir: PathBuf,
    titles: Vec<(String, String)>,
    earlier: Vec<(PathBuf, RunResult)>,
    evidence: RunEvidence,
}

fn load(store: &Store, run: &RunRef) -> Result<Option<Suite>, StoreError> {
    let Some((slug, id, result)) = store.read_result_at(&run.dir)? else {
        return Ok(None);
    };
    let titles = store
        .read_meta(&slug)
        .ok()
        .flatten()
        .map(|m| m.steps.into_iter().map(|s| (s.id, s.title)).collect())
        .unwrap_or_default();
    let earlier = run
        .earlier
        .iter()
        .filter_map(|d| {
            let (_, _, r) = store.read_result_at(d).ok()??;
            Some((d.clone(), r))
        })
        .collect();
    Ok(Some(Suite {
        slug: if result.scenario_slug.is_empty() {
            slug.to_string()
        } else {
            result.scenario_slug.clone()
        },
        evidence: store.run_evidence(&slug, &id)?,
        result,
        dir: run.dir.clone(),
        titles,
        earlier,
    }))
}

impl Suite {
    /// Passed after an earlier attempt of the same invocation failed (a retry
    /// of the harness, or of cargo-nextest).
    fn flaky(&self) -> bool {
        self.result.flaky
            || (self.result.status == RunStatus::Pass
                && self
                    .earlier
                    .iter()
                    .any(|(_, r)| r.status == RunStatus::Fail))
    }
}

/// The JUnit document for `runs` (runs without `result.json` are left out).
/// `wall_ms` is the wall time of the whole invocation, the root's `time` (the
/// suites of a parallel run overlap, so their sum says nothing).
///
/// The document follows Jenkins' `junit-10.xsd` except for the `file` and
/// `line` attributes of a failed `testcase` (where the step failed), which CI
/// annotators read. Property names carry the scenario's slug
/// (`{slug}.runId`), so that they are unique in the document: some readers
/// (xunitparser) collect the properties of every suite into one map.
pub fn render(store: &Store, runs: &[RunRef], wall_ms: u64) -> Result<String, StoreError> {
    let mut suites = vec![];
    for r in runs {
        if let Some(s) = load(store, r)? {
            suites.push(s);
        }
    }
    suites.sort_by(|a, b| a.slug.cmp(&b.slug));
    let (mut tests, mut failures) = (0, 0);
    let mut body = String::new();
    for s in &suites {
        let (t, f) = render_suite(&mut body, s);
        tests += t;
        failures += f;
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"harshjudge\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" time=\"{}\">",
        secs(wall_ms)
    );
    out.push_str(&body);
    out.push_str("</testsuites>\n");
    Ok(out)
}

/// Writes one `testsuite` (a run) into `body`; returns its test and failure counts.
fn render_suite(body: &mut String, s: &Suite) -> (usize, usize) {
    let steps = &s.result.steps;
    let f = steps
        .iter()
        .filter(|x| x.status == StepStatus::Fail)
        .count();
    let k = steps
        .iter()
        .filter(|x| x.status == StepStatus::Skipped)
        .count();
    let _ = writeln!(
        body,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"0\" skipped=\"{k}\" time=\"{}\" timestamp=\"{}\">",
        escape(&s.slug),
        steps.len(),
        secs(s.result.duration),
        escape(
            s.result
                .started_at
                .trim_end_matches('Z')
                .split('.')
                .next()
                .unwrap_or("")
        ),
    );
    render_properties(body, s);
    for step in steps {
        render_testcase(body, s, step);
    }
    let _ = writeln!(body, "  </testsuite>");
    (steps.len(), f)
}

/// Writes a suite's `properties` (names prefixed by the slug).
fn render_properties(body: &mut String, s: &Suite) {
    let _ = writeln!(body, "    <properties>");
    for (k, v) in [
        ("runId", s.result.run_id.clone()),
        ("status", s.result.status.as_str().to_string()),
        ("runDir", s.dir.display().to_string()),
    ]
    .into_iter()
    .chain(
        s.result
            .attempt
            .or((!s.earlier.is_empty()).then(|| s.earlier.len() as u32 + 1))
            .map(|a| ("attempt", a.to_string())),
    )
    .chain(s.flaky().then(|| ("flaky", "true".to_string())))
    {
        let _ = writeln!(
            body,
            "      <property name=\"{}.{k}\" value=\"{}\"/>",
            escape(&s.slug),
            escape(&v)
        );
    }
    let _ = writeln!(body, "    </properties>");
}

/// Writes the `testcase` of one step: its failure or skip, the failures of
/// earlier attempts, its evidence files.
fn render_testcase(body: &mut String, s: &Suite, step: &StepResult) {
    let title = step
        .title
        .clone()
        .or_else(|| {
            s.titles
                .iter()
                .find(|(id, _)| *id == step.id)
                .map(|(_, t)| t.clone())
        })
        .unwrap_or_default();
    let name = if title.is_empty() {
        step.id.clone()
    } else {
        format!("{} {title}", step.id)
    };
    let evidence_dir = Store::step_evidence_dir(&s.dir, &step.id);
    let _ = write!(
        body,
        "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
        escape(&name),
        escape(&s.slug),
        secs(step.duration)
    );
    if let Some(loc) = &step.error_location
        && let Some((file, line)) = split_location(loc)
    {
        let _ = write!(body, " file=\"{}\" line=\"{line}\"", escape(file));
    }
    let _ = writeln!(body, ">");
    match step.status {
        StepStatus::Fail => {
            let msg = step.error.clone().unwrap_or_else(|| "failed".into());
            let first = msg.lines().next().unwrap_or("failed");
            let mut text = msg.clone();
            if let Some(loc) = &step.error_location {
                let _ = write!(text, "\n  at {loc}");
            }
            let _ = write!(text, "\n  evidence: {}", evidence_dir.display());
            let _ = writeln!(
                body,
                "      <failure message=\"{}\" type=\"StepFailed\">{}</failure>",
                escape(first),
                escape(&text)
            );
        }
        StepStatus::Skipped => {
            let why = step
                .summary
                .clone()
                .or_else(|| step.error.clone())
                .unwrap_or_else(|| "skipped".into());
            let _ = writeln!(body, "      <skipped message=\"{}\"/>", escape(&why));
        }
        StepStatus::Pass => {}
    }
    render_earlier_failures(body, s, step);
    let mut files = s.evidence.of_step(&step.id).peekable();
    if files.peek().is_some() {
        let _ = write!(body, "      <system-out>");
        for f in files {
            let _ = writeln!(
                body,
                "[[ATTACHMENT|{}]]",
                escape(&f.path.display().to_string())
            );
        }
        let _ = writeln!(body, "</system-out>");
    }
    let _ = writeln!(body, "    </testcase>");
}

/// Writes the failures of `step` in earlier attempts (`rerunFailure` when
/// it failed again, `flakyFailure` when it passed in the end).
fn render_earlier_failures(body: &mut String, s: &Suite, step: &StepResult) {
    let element = if step.status == StepStatus::Fail {
        "rerunFailure"
    } else {
        "flakyFailure"
    };
    for (dir, r) in &s.earlier {
        if let Some(e) = r
            .steps
            .iter()
            .find(|e| e.id == step.id && e.status == StepStatus::Fail)
        {
            let msg = e.error.clone().unwrap_or_else(|| "failed".into());
            let first = msg.lines().next().unwrap_or("failed");
            let _ = writeln!(
                body,
                "      <{element} message=\"{}\" type=\"StepFailed\"><stackTrace>{}</stackTrace><system-out>[[ATTACHMENT|{}]]</system-out></{element}>",
                escape(first),
                escape(&format!(
                    "attempt {} (run {}): {msg}{}",
                    r.attempt.unwrap_or(1),
                    r.run_id,
                    e.error_location
                        .as_ref()
                        .map(|l| format!("\n  at {l}"))
                        .unwrap_or_default()
                )),
                escape(
                    &Store::step_evidence_dir(dir, &step.id)
                        .display()
                        .to_string()
                )
            );
        }
    }
}

fn split_location(loc: &str) -> Option<(&str, u64)> {
    let mut parts = loc.rsplitn(3, ':');
    let last = parts.next()?;
    let mid = parts.next()?;
    match parts.next() {
        // file:line:col
        Some(file) => Some((file, mid.parse().ok()?)),
        // file:line
        None => Some((mid, last.parse().ok()?)),
    }
}

/// Writes the document atomically to `path` (its folder is created). Inside
/// `.harshJudge/` no link is followed ([`Store::write_file`]); a path the user
/// chose outside it is written as given.
pub fn write(store: &Store, runs: &[RunRef], wall_ms: u64, path: &Path) -> Result<(), StoreError> {
    let xml = render(store, runs, wall_ms)?;
    if path.starts_with(store.dir()) {
        store.write_file(path, xml.as_bytes())
    } else {
        crate::store::write_file(path, xml.as_bytes())
    }
}

/// A short Markdown summary (for `GITHUB_STEP_SUMMARY`).
pub fn markdown(store: &Store, runs: &[RunRef]) -> Result<String, StoreError> {
    let mut suites = vec![];
    for r in runs {
        if let Some(s) = load(store, r)? {
            suites.push(s);
        }
    }
    suites.sort_by(|a, b| a.slug.cmp(&b.slug));
    let passed = suites
        .iter()
        .filter(|s| s.result.status == RunStatus::Pass)
        .count();
    let flaky = suites.iter().filter(|s| s.flaky()).count();
    let mut out = format!(
        "### harshjudge: {passed} of {} scenario(s) passed, {} failed{}\n\n| scenario | status | steps | failed step | evidence |\n| --- | --- | --- | --- | --- |\n",
        suites.len(),
        suites.len() - passed,
        if flaky > 0 {
            format!(", {flaky} flaky (passed after a failed attempt)")
        } else {
            String::new()
        }
    );
    for s in &suites {
        let failed = s
            .result
            .failed_step
            .as_ref()
            .map(|id| {
                let err = s.result.error_message.clone().unwrap_or_default();
                format!(
                    "{id}: {}",
                    err.lines().next().unwrap_or("").replace('|', "\\|")
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | `{}` |",
            s.slug,
            if s.flaky() {
                "⚠️ flaky"
            } else if s.result.status == RunStatus::Pass {
                "✅ pass"
            } else {
                "❌ fail"
            },
            s.result.steps.len(),
            failed,
            s.dir.display()
        );
    }
    Ok(out)
}
