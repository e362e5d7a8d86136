//! JUnit XML for CI: a `testsuite` per run (one scenario), a `testcase` per
//! step, failures with message, location and evidence (the
//! `[[ATTACHMENT|path]]` convention CI systems pick up), skipped steps with the
//! reason. Built from the files on disk, so runs recorded by `cargo test`, by
//! agents through MCP and by the original HarshJudge render alike.
//!
//! A step with an expectation in words (`step!(…, expect = "…")`) shows its
//! judgment next to its evidence: its verdict (`pass`, `fail`, `uncertain`,
//! `pending`, `error`), the judge, the reasoning and the expectation, as suite
//! properties named `{slug}.{stepId}.verdict` … and as the first lines of the
//! testcase's `system-out`. A step failed by its verdict (its code passed) is
//! a `<failure type="VerdictFailed">` whose message names the verdict and
//! whose text has the reasoning and the expectation; a pending verdict is
//! shown but fails nothing. Not testcase `<properties>`: junit-10.xsd has none
//! (pytest refuses `record_property` under `xunit2` for the same reason).
//!
//! Read through the store: a run's `result.json` by [`Store::read_result_at`],
//! its judgment by [`RunDir::judgment`](crate::store::RunDir::judgment), its evidence by
//! [`RunDir::evidence`](crate::store::RunDir::evidence) (the lister the HTML report and the dashboard use).
//!
//! Written with quick-xml's [`Writer`]: every element is an event, quick-xml
//! escapes text and attributes, and no XML is built by string formatting (we
//! only drop the characters XML 1.0 cannot carry, which quick-xml would pass
//! through). Not with `quick-junit` (nextest's model and writer, itself on
//! quick-xml): its newest release, 0.8.0, still writes `skipped` on
//! `<testsuites>` unconditionally (`serialize_report_impl`), an attribute
//! Jenkins' `junit-10.xsd` does not allow, with no option to leave it out
//! (0.6 wrote `disabled` instead of a suite's `skipped`); and it would add
//! chrono's, uuid's and indexmap's models for a document we fill from
//! `result.json` anyway.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};

use super::reads::Reads;
use crate::store::judge::{RunJudgment, StepJudgment};
use crate::store::{RunEvidence, RunResult, RunStatus, StepResult, StepStatus, Store, StoreError};

/// A selected scenario that did not run, to report as skipped: `skip`,
/// `fixme`, or not started after `--max-failures`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotRunRef {
    /// The scenario's slug.
    pub slug: String,
    /// Its steps' titles, in order.
    pub steps: Vec<String>,
    /// Why it did not run (`skipped: …`, `fixme: …`, `not run: …`).
    pub reason: String,
    /// Its title (the doc comment's first paragraph; empty when unknown).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Its tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// What ended a test binary's invocation early or failed it outside any
/// scenario: a bad flag or setting, an app under test that did not start, a
/// suite hook that failed. Reported as an `<error>` testcase of a testsuite
/// named after the binary, and at the top of the HTML report.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvocationError {
    /// The test binary (test target).
    pub binary: String,
    /// Where it failed: `start` (before any scenario), `before_all`, `after_all`.
    pub stage: String,
    /// Why, as printed (`could not start the app under test …`).
    pub message: String,
    /// When (ISO 8601, UTC).
    pub at: String,
}

/// One run to report: its folder ([`RunDir::path`](crate::store::RunDir::path)).
#[derive(Clone, Debug)]
pub struct RunRef {
    /// The run's folder.
    pub dir: PathBuf,
    /// Earlier attempts of the same scenario (retries), oldest first: their
    /// failures become `flakyFailure` (the step passed in the end) or
    /// `rerunFailure` (it failed every time) elements.
    pub earlier: Vec<PathBuf>,
}

/// Whether XML 1.0 can carry `c` (most control characters it cannot).
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= '\u{20}' && c != '\u{fffe}' && c != '\u{ffff}')
}

/// `s` without the characters XML 1.0 cannot carry.
fn clean(s: &str) -> Cow<'_, str> {
    if s.chars().all(xml_char) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(s.chars().filter(|c| xml_char(*c)).collect())
    }
}

/// Escapes text for XML content and attribute values (quick-xml's escaping),
/// dropping characters XML 1.0 cannot carry (most control characters).
pub fn escape(s: &str) -> String {
    quick_xml::escape::escape(clean(s)).into_owned()
}

/// The document being written: quick-xml's indenting writer into memory.
struct Xml(Writer<Vec<u8>>);

impl Xml {
    fn new() -> Xml {
        let mut xml = Xml(Writer::new_with_indent(Vec::new(), b' ', 2));
        xml.event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
        xml
    }

    fn event(&mut self, e: Event<'_>) {
        // Writing into a Vec<u8> cannot fail.
        self.0.write_event(e).expect("XML is written into memory");
    }

    fn start<'a>(name: &'a str, attrs: &[(&str, &str)]) -> BytesStart<'a> {
        let mut tag = BytesStart::new(name);
        for (k, v) in attrs {
            tag.push_attribute((*k, clean(v).as_ref()));
        }
        tag
    }

    /// `<name attrs>`.
    fn open(&mut self, name: &str, attrs: &[(&str, &str)]) {
        self.event(Event::Start(Xml::start(name, attrs)));
    }

    /// `<name attrs/>`.
    fn empty(&mut self, name: &str, attrs: &[(&str, &str)]) {
        self.event(Event::Empty(Xml::start(name, attrs)));
    }

    /// `</name>`.
    fn close(&mut self, name: &str) {
        self.event(Event::End(BytesEnd::new(name)));
    }

    /// `<name attrs>text</name>`.
    fn leaf(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) {
        self.open(name, attrs);
        self.event(Event::Text(BytesText::new(&clean(text))));
        self.close(name);
    }

    fn finish(mut self) -> String {
        self.0.get_mut().push(b'\n');
        String::from_utf8(self.0.into_inner()).expect("quick-xml writes the UTF-8 it is given")
    }
}

fn secs(ms: u64) -> String {
    format!("{:.3}", ms as f64 / 1000.0)
}

struct Suite {
    slug: String,
    result: Rc<RunResult>,
    dir: PathBuf,
    titles: Vec<(String, String)>,
    earlier: Vec<(PathBuf, Rc<RunResult>)>,
    evidence: Rc<RunEvidence>,
    judgment: Option<Rc<RunJudgment>>,
}

fn load(reads: &Reads<'_>, run: &RunRef) -> Result<Option<Suite>, StoreError> {
    let Some((slug, id, result)) = reads.result_at(&run.dir)? else {
        return Ok(None);
    };
    // A missing or unreadable meta.yaml is read as the default, which has no steps.
    let titles = (reads.meta(&slug).steps.iter())
        .map(|s| (s.id.clone(), s.title.clone()))
        .collect();
    let earlier = run
        .earlier
        .iter()
        .filter_map(|d| {
            let (_, _, r) = reads.result_at(d).ok()??;
            Some((d.clone(), r))
        })
        .collect();
    Ok(Some(Suite {
        slug: if result.scenario_slug.is_empty() {
            slug.to_string()
        } else {
            result.scenario_slug.clone()
        },
        evidence: reads.evidence(&slug, &id)?,
        judgment: reads.judgment(&slug, &id)?,
        result,
        dir: run.dir.clone(),
        titles,
        earlier,
    }))
}

/// Where the judgment of a step with an expectation stands.
struct StepVerdict<'a> {
    /// `pass`, `fail`, `uncertain`, `pending`, `error`, `skipped`.
    state: &'static str,
    expectation: &'a str,
    judged: Option<&'a StepJudgment>,
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

    /// The judgment of `step`, when it has an expectation (`None` otherwise).
    fn verdict<'a>(&'a self, step: &'a StepResult) -> Option<StepVerdict<'a>> {
        let judged = self.judgment.as_ref().and_then(|j| j.step(&step.id));
        let expectation = step
            .expectation
            .as_deref()
            .or(judged.map(|j| j.expectation.as_str()))?;
        let state = match (step.verdict, judged) {
            (Some(v), _) => v.as_str(),
            (None, Some(j)) => j.verdict.map_or("error", |v| v.as_str()),
            (None, None) => "pending",
        };
        Some(StepVerdict {
            state,
            expectation,
            judged,
        })
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
    render_with(store, runs, &[], wall_ms)
}

/// [`render`], with the scenarios that did not run as suites of skipped
/// testcases, each saying why (a scenario that has a run is not repeated).
pub fn render_with(
    store: &Store,
    runs: &[RunRef],
    not_run: &[NotRunRef],
    wall_ms: u64,
) -> Result<String, StoreError> {
    render_from(&Reads::new(store), runs, not_run, &[], wall_ms)
}

/// [`render_with`], reading through `reads`, with what ended or failed
/// processes of the invocation outside any scenario (`errors`).
fn render_from(
    reads: &Reads<'_>,
    runs: &[RunRef],
    not_run: &[NotRunRef],
    errors: &[InvocationError],
    wall_ms: u64,
) -> Result<String, StoreError> {
    let mut suites = vec![];
    for r in runs {
        if let Some(s) = load(reads, r)? {
            suites.push(s);
        }
    }
    suites.sort_by(|a, b| a.slug.cmp(&b.slug));
    let count = |status: StepStatus| {
        suites
            .iter()
            .flat_map(|s| &s.result.steps)
            .filter(|x| x.status == status)
            .count()
    };
    let mut not_run: Vec<&NotRunRef> = (not_run.iter())
        .filter(|n| !suites.iter().any(|s| s.slug == n.slug))
        .collect();
    not_run.sort_by(|a, b| a.slug.cmp(&b.slug));
    not_run.dedup_by(|a, b| a.slug == b.slug);
    let tests: usize = suites.iter().map(|s| s.result.steps.len()).sum::<usize>()
        + not_run.iter().map(|n| n.steps.len()).sum::<usize>()
        + errors.len();
    let mut xml = Xml::new();
    xml.open(
        "testsuites",
        &[
            ("name", "harshjudge"),
            ("tests", &tests.to_string()),
            ("failures", &count(StepStatus::Fail).to_string()),
            ("errors", &errors.len().to_string()),
            ("time", &secs(wall_ms)),
        ],
    );
    render_errors(&mut xml, errors);
    for s in &suites {
        render_suite(&mut xml, s);
    }
    for n in not_run {
        render_not_run(&mut xml, n);
    }
    xml.close("testsuites");
    Ok(xml.finish())
}

/// Writes a `testsuite` per test binary with invocation errors: a testcase
/// per stage (`start`, `before_all`, `after_all`) holding an
/// `<error type="InvocationFailed">` with the message, which is also the
/// suite's `{binary}.{stage}.error` property.
fn render_errors(xml: &mut Xml, errors: &[InvocationError]) {
    let mut binaries: Vec<&str> = errors.iter().map(|e| e.binary.as_str()).collect();
    binaries.sort();
    binaries.dedup();
    for binary in binaries {
        let mine: Vec<&InvocationError> = errors.iter().filter(|e| e.binary == binary).collect();
        let count = mine.len().to_string();
        let timestamp = timestamp(&mine[0].at);
        xml.open(
            "testsuite",
            &[
                ("name", binary),
                ("tests", &count),
                ("failures", "0"),
                ("errors", &count),
                ("skipped", "0"),
                ("time", "0.000"),
                ("timestamp", timestamp),
            ],
        );
        xml.open("properties", &[]);
        for e in &mine {
            xml.empty(
                "property",
                &[
                    ("name", &format!("{binary}.{}.error", e.stage)),
                    ("value", &e.message),
                ],
            );
        }
        xml.close("properties");
        for e in &mine {
            let name = format!("invocation {}", e.stage);
            xml.open(
                "testcase",
                &[("name", &name), ("classname", binary), ("time", "0.000")],
            );
            let first = e.message.lines().next().unwrap_or("failed");
            xml.leaf(
                "error",
                &[("message", first), ("type", "InvocationFailed")],
                &e.message,
            );
            xml.close("testcase");
        }
        xml.close("testsuite");
    }
}

/// Writes the `testsuite` of a scenario that did not run: every step skipped
/// with the reason, which is also its `{slug}.notRun` property.
fn render_not_run(xml: &mut Xml, n: &NotRunRef) {
    let count = n.steps.len().to_string();
    xml.open(
        "testsuite",
        &[
            ("name", &n.slug),
            ("tests", &count),
            ("failures", "0"),
            ("errors", "0"),
            ("skipped", &count),
            ("time", "0.000"),
        ],
    );
    xml.open("properties", &[]);
    xml.empty(
        "property",
        &[
            ("name", &format!("{}.notRun", n.slug)),
            ("value", &n.reason),
        ],
    );
    xml.close("properties");
    for (i, title) in n.steps.iter().enumerate() {
        let name = format!("{:02} {title}", i + 1);
        xml.open(
            "testcase",
            &[("name", &name), ("classname", &n.slug), ("time", "0.000")],
        );
        xml.empty("skipped", &[("message", &n.reason)]);
        xml.close("testcase");
    }
    xml.close("testsuite");
}

/// JUnit's `timestamp` (xs:dateTime without a zone or fractions) of one of
/// our ISO 8601 times.
fn timestamp(iso: &str) -> &str {
    iso.trim_end_matches('Z').split('.').next().unwrap_or("")
}

/// Writes one `testsuite` (a run).
fn render_suite(xml: &mut Xml, s: &Suite) {
    let steps = &s.result.steps;
    let count = |status: StepStatus| steps.iter().filter(|x| x.status == status).count();
    let timestamp = timestamp(&s.result.started_at);
    xml.open(
        "testsuite",
        &[
            ("name", &s.slug),
            ("tests", &steps.len().to_string()),
            ("failures", &count(StepStatus::Fail).to_string()),
            ("errors", "0"),
            ("skipped", &count(StepStatus::Skipped).to_string()),
            ("time", &secs(s.result.duration)),
            ("timestamp", timestamp),
        ],
    );
    render_properties(xml, s);
    for step in steps {
        render_testcase(xml, s, step);
    }
    // Fixtures are no test cases: a teardown's failure (the scenario's own
    // failure stays in its step's) and a set-up's are the suite's `system-err`.
    let failed: Vec<String> = (s.result.fixtures.iter())
        .filter_map(|f| {
            let error = f.error.as_deref()?;
            Some(format!(
                "fixture {} ({}, {}): {error}",
                f.name,
                f.scope,
                f.outcome.as_str()
            ))
        })
        .collect();
    // What they printed (`log!`) is the suite's `system-out`, before that.
    let printed: Vec<String> = (s.result.fixtures.iter())
        .flat_map(|f| {
            [
                ("set-up", &f.set_up_output),
                ("teardown", &f.teardown_output),
            ]
            .into_iter()
            .filter_map(move |(when, text)| {
                let text = text.as_deref()?;
                Some(format!(
                    "fixture {} {when} printed:\n{}",
                    f.name,
                    text.trim_end()
                ))
            })
        })
        .collect();
    if !printed.is_empty() {
        xml.leaf("system-out", &[], &printed.join("\n"));
    }
    if !failed.is_empty() {
        xml.leaf("system-err", &[], &failed.join("\n"));
    }
    xml.close("testsuite");
}

/// Writes a suite's `properties` (names prefixed by the slug): the run's, then
/// the judgment of each step with an expectation (`{slug}.{stepId}.verdict` …).
fn render_properties(xml: &mut Xml, s: &Suite) {
    let mut props: Vec<(String, String)> = [
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
    .chain(
        s.result
            .executed_status
            .map(|e| ("executedStatus", e.as_str().to_string())),
    )
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    for step in &s.result.steps {
        let Some(v) = s.verdict(step) else {
            continue;
        };
        let mut add = |k: &str, v: &str| props.push((format!("{}.{k}", step.id), v.to_string()));
        add("expectation", v.expectation);
        add("verdict", v.state);
        if let Some(e) = step.executed_status {
            add("executedStatus", e.as_str());
        }
        if let Some(j) = v.judged {
            add("judge", &j.judge);
            add("judgeIdentity", &j.identity);
            if !j.reasoning.is_empty() {
                add("reasoning", &j.reasoning);
            }
            if let Some(e) = &j.error {
                add("judgeError", e);
            }
        }
    }
    xml.open("properties", &[]);
    for (k, v) in props {
        xml.empty(
            "property",
            &[("name", &format!("{}.{k}", s.slug)), ("value", &v)],
        );
    }
    xml.close("properties");
}

/// The judgment of a step in words, for its `system-out`.
fn verdict_lines(v: &StepVerdict<'_>) -> String {
    let mut out = format!("verdict: {}", v.state);
    match v.judged {
        Some(j) => {
            let _ = write!(
                out,
                " (the {} judge, {}, in {} ms)",
                j.judge, j.identity, j.duration_ms
            );
        }
        None if v.state == "pending" => out.push_str(" (not judged yet)"),
        None => {}
    }
    let _ = write!(out, "\nexpected: {}", v.expectation);
    if let Some(j) = v.judged {
        if !j.reasoning.is_empty() {
            let _ = write!(out, "\nreasoning: {}", j.reasoning);
        }
        if let Some(e) = &j.error {
            let _ = write!(out, "\njudge error: {e}");
        }
    }
    out.push('\n');
    out
}

/// Writes the `testcase` of one step: its failure or skip, the failures of
/// earlier attempts, its judgment and evidence files.
fn render_testcase(xml: &mut Xml, s: &Suite, step: &StepResult) {
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
    let verdict = s.verdict(step);
    let mut out = verdict.as_ref().map(verdict_lines).unwrap_or_default();
    for f in s.evidence.of_step(&step.id) {
        let _ = writeln!(out, "[[ATTACHMENT|{}]]", f.path.display());
    }
    let earlier = earlier_failures(s, step);
    let time = secs(step.duration);
    let mut attrs = vec![
        ("name", name.as_str()),
        ("classname", s.slug.as_str()),
        ("time", time.as_str()),
    ];
    let location = step.error_location.as_deref().and_then(split_location);
    let line = location.map(|(_, l)| l.to_string());
    if let (Some((file, _)), Some(line)) = (location, &line) {
        attrs.extend([("file", file), ("line", line.as_str())]);
    }
    if step.status == StepStatus::Pass && earlier.is_empty() && out.is_empty() {
        xml.empty("testcase", &attrs);
        return;
    }
    xml.open("testcase", &attrs);
    match step.status {
        StepStatus::Fail => {
            let by_verdict = step.executed_status == Some(StepStatus::Pass);
            let msg = step.error.clone().unwrap_or_else(|| "failed".into());
            let first = msg.lines().next().unwrap_or("failed");
            let mut text = msg.clone();
            if by_verdict && let Some(v) = &verdict {
                if let Some(j) = v.judged
                    && !j.reasoning.is_empty()
                    && !text.contains(&j.reasoning)
                {
                    let _ = write!(text, "\n  reasoning: {}", j.reasoning);
                }
                if !text.contains(v.expectation) {
                    let _ = write!(text, "\n  expected: {}", v.expectation);
                }
            }
            if let Some(loc) = &step.error_location {
                let _ = write!(text, "\n  at {loc}");
            }
            let _ = write!(text, "\n  evidence: {}", evidence_dir.display());
            let kind = if by_verdict {
                "VerdictFailed"
            } else {
                "StepFailed"
            };
            xml.leaf("failure", &[("message", first), ("type", kind)], &text);
        }
        StepStatus::Skipped => {
            let why = step
                .summary
                .clone()
                .or_else(|| step.error.clone())
                .unwrap_or_else(|| "skipped".into());
            xml.empty("skipped", &[("message", &why)]);
        }
        StepStatus::Pass => {}
    }
    for e in earlier {
        xml.open(
            e.element,
            &[("message", &e.message), ("type", "StepFailed")],
        );
        xml.leaf("stackTrace", &[], &e.text);
        xml.leaf(
            "system-out",
            &[],
            &format!("[[ATTACHMENT|{}]]", e.evidence.display()),
        );
        xml.close(e.element);
    }
    if !out.is_empty() {
        xml.leaf("system-out", &[], &out);
    }
    xml.close("testcase");
}

/// A failure of a step in an earlier attempt.
struct Earlier {
    /// `rerunFailure` when the step failed again, `flakyFailure` when it passed in the end.
    element: &'static str,
    message: String,
    text: String,
    evidence: PathBuf,
}

/// The failures of `step` in earlier attempts.
fn earlier_failures(s: &Suite, step: &StepResult) -> Vec<Earlier> {
    let element = if step.status == StepStatus::Fail {
        "rerunFailure"
    } else {
        "flakyFailure"
    };
    s.earlier
        .iter()
        .filter_map(|(dir, r)| {
            let e = r
                .steps
                .iter()
                .find(|e| e.id == step.id && e.status == StepStatus::Fail)?;
            let msg = e.error.clone().unwrap_or_else(|| "failed".into());
            let at = e
                .error_location
                .as_ref()
                .map(|l| format!("\n  at {l}"))
                .unwrap_or_default();
            Some(Earlier {
                element,
                message: msg.lines().next().unwrap_or("failed").to_string(),
                text: format!(
                    "attempt {} (run {}): {msg}{at}",
                    r.attempt.unwrap_or(1),
                    r.run_id
                ),
                evidence: Store::step_evidence_dir(dir, &step.id),
            })
        })
        .collect()
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
    write_with(store, runs, &[], wall_ms, path)
}

/// [`write`](fn@write), with the scenarios that did not run ([`render_with`]).
pub fn write_with(
    store: &Store,
    runs: &[RunRef],
    not_run: &[NotRunRef],
    wall_ms: u64,
    path: &Path,
) -> Result<(), StoreError> {
    write_from(&Reads::new(store), runs, not_run, &[], wall_ms, path)
}

/// [`write_with`], reading through `reads`, with the invocation's errors.
pub(crate) fn write_from(
    reads: &Reads<'_>,
    runs: &[RunRef],
    not_run: &[NotRunRef],
    errors: &[InvocationError],
    wall_ms: u64,
    path: &Path,
) -> Result<(), StoreError> {
    let store = reads.store();
    let xml = render_from(reads, runs, not_run, errors, wall_ms)?;
    if path.starts_with(store.dir()) {
        store.write_file(path, xml.as_bytes())
    } else {
        crate::store::write_file(path, xml.as_bytes())
    }
}

/// A short Markdown summary (for `GITHUB_STEP_SUMMARY`).
pub fn markdown(store: &Store, runs: &[RunRef]) -> Result<String, StoreError> {
    markdown_from(&Reads::new(store), runs)
}

/// [`markdown`], reading through `reads`.
pub(crate) fn markdown_from(reads: &Reads<'_>, runs: &[RunRef]) -> Result<String, StoreError> {
    let mut suites = vec![];
    for r in runs {
        if let Some(s) = load(reads, r)? {
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
            } else if s.result.executed_status == Some(RunStatus::Pass) {
                "❌ fail (judged; executed: pass)"
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
