//! Scenarios registered by `#[scenario]` (through `inventory`).

use std::time::Duration;

use std::future::Future;
use std::pin::Pin;

use crate::scenario::Scenario;

/// The boxed future a registered scenario returns.
pub type ScenarioFuture = Pin<Box<dyn Future<Output = crate::error::Result> + Send + 'static>>;

/// One scenario as the `#[scenario]` macro declares it.
#[derive(Clone, Debug)]
pub struct ScenarioDef {
    /// The function's name, the first part of every test name; for a case of
    /// a parameterized scenario, with the case's name (`sign_in::admin`).
    pub fn_name: &'static str,
    /// The scenario's slug under `.harshJudge/scenarios/`.
    pub slug: &'static str,
    /// Human title (attribute, else the doc comment's first paragraph, else the name).
    pub title: &'static str,
    /// Tags, in declaration order.
    pub tags: &'static [&'static str],
    /// Limit for the whole scenario.
    pub timeout: Option<Duration>,
    /// Default limit for each step.
    pub step_timeout: Option<Duration>,
    /// `#[scenario(retries = N)]`: attempts after a failure.
    pub retries: Option<u32>,
    /// `#[scenario(trace = "on")]`: when its steps' traces are written (over
    /// `--trace` and `HARSHJUDGE_TRACE`).
    pub trace: Option<harshjudge_browser::settings::TraceMode>,
    /// `file!()` of the function.
    pub file: &'static str,
    /// `line!()` of the function.
    pub line: u32,
    /// `module_path!()` of the function.
    pub module_path: &'static str,
    /// The steps, in order.
    pub steps: &'static [StepDef],
    /// Calls the function (with the case's values, for a case).
    pub run: fn(Scenario) -> ScenarioFuture,
    /// `#[case::name(…)]`: the name of this case of a parameterized scenario
    /// (`admin`; `case_1`, … for unnamed cases); `None` without cases.
    pub case: Option<&'static str>,
    /// `#[scenario(skip = "why")]` or `#[scenario(fixme = "why")]`: listed,
    /// reported as skipped with the reason, never run.
    pub skip: Option<Skip>,
    /// `#[scenario(storage_state = "admin")]`: the saved storage state
    /// (`.harshJudge/.auth/admin.json`) its pages start with.
    pub storage_state: Option<&'static str>,
    /// `#[scenario(setup)]`: a setup scenario, run once per invocation before
    /// the scenarios that depend on it.
    pub setup: bool,
    /// `#[scenario(depends_on = [signed_in_as_admin])]`: the setup scenarios it
    /// needs, by function name.
    pub depends_on: &'static [&'static str],
    /// `#[scenario(before = h)]`: runs at the start of the first step.
    pub before: Option<Hook>,
    /// `#[scenario(after = k)]`: runs when the scenario ends, passed or failed.
    pub after: Option<Hook>,
    /// The browser its pages open in: `None` (what the macro registers) for
    /// the one `HARSHJUDGE_BROWSER` names; the harness's copies for
    /// `--browser` name theirs.
    pub browser: Option<harshjudge_browser::BrowserKind>,
    /// Whether it opens a page, as far as the macro sees (its body calls
    /// `.page(…)`, or it has a `storage_state`): the harness then starts the
    /// browser while it prepares the run (`browser::warm_up`).
    pub opens_page: bool,
    /// `#[scenario(locale = "de-DE", device = "iPhone 15", …)]`: the device,
    /// place and time its pages open with (`Scenario::page_with` gives a
    /// page its own).
    pub emulation: Option<fn() -> harshjudge_browser::Emulation>,
    /// The fixtures its parameters ask for (`#[fixture]`), by key
    /// (`module::name`), in order: set up before its first step's code.
    pub fixtures: &'static [&'static str],
}

/// The future a hook returns, borrowing the scenario handle.
pub type HookFuture<'a> = Pin<Box<dyn Future<Output = crate::error::Result> + Send + 'a>>;

/// A `before`/`after` hook of a scenario: `async fn h(s: &Scenario) -> harshjudge::Result`.
#[derive(Clone, Copy, Debug)]
pub struct Hook {
    /// The hook's path as written in the attribute.
    pub name: &'static str,
    /// `file!()` of the attribute that names it.
    pub file: &'static str,
    /// `line!()` of the attribute that names it.
    pub line: u32,
    /// Calls the hook.
    pub run: for<'a> fn(&'a Scenario) -> HookFuture<'a>,
}

/// Implemented by the marker type `#[scenario(setup)]` generates beside a
/// setup scenario's function (same name), so that
/// `#[scenario(depends_on = [f])]` and `main!(setup = [f])` fail to compile
/// when `f` is not one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a setup scenario",
    label = "`depends_on` and `main!(setup = …)` name setup scenarios only",
    note = "mark it `#[scenario(setup)]`, or remove it from `depends_on` or `main!(setup = …)`"
)]
pub trait Setup {
    /// The setup scenario's function name.
    const FN_NAME: &'static str;
}

/// Why a scenario is never run, as its attribute says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// `#[scenario(skip = "why")]`.
    Skip(&'static str),
    /// `#[scenario(fixme = "why")]`: known broken, to be fixed.
    Fixme(&'static str),
}

impl std::fmt::Display for Skip {
    /// `skipped: why` or `fixme: why`, as the summary and the reports say it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skip::Skip(why) => write!(f, "skipped: {why}"),
            Skip::Fixme(why) => write!(f, "fixme: {why}"),
        }
    }
}

/// One `step!` as declared in code.
#[derive(Debug)]
pub struct StepDef {
    /// The step title (the string literal).
    pub title: &'static str,
    /// `line!()` of the `step!` invocation.
    pub line: u32,
    /// The step's source text, as written.
    pub source: &'static str,
    /// Per-step limit (`step!("…", timeout = "5s", {…})`), overriding the scenario's.
    pub timeout: Option<Duration>,
    /// `step!("…", expect = "…", {…})`: what a judge must see in the step's
    /// evidence, in words (stored in the step's `.md` and in `result.json`).
    pub expect: Option<&'static str>,
}

inventory::collect!(ScenarioDef);

/// Every registered scenario, sorted by function name then module.
pub(crate) fn all() -> Vec<&'static ScenarioDef> {
    let mut v: Vec<&'static ScenarioDef> = inventory::iter::<ScenarioDef>.into_iter().collect();
    v.sort_by(|a, b| (a.fn_name, a.module_path).cmp(&(b.fn_name, b.module_path)));
    v
}
