//! Why a harness invocation stops before it runs (exit code 2), and why a
//! recorded run cannot be re-judged: enums a caller can match, each variant
//! with the cause and the values the message names.

use std::fmt;
use std::path::PathBuf;

use crate::run_settings::ConfigError;
use harshjudge_browser::settings::SettingError;
use harshjudge_store::store::{RunId, Slug, StoreError};

/// A usage error of one invocation: bad settings, an invalid suite, a package
/// that cannot be found, an app that does not start, or nothing to re-judge
/// with. Printed as `error: {self}` with exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// A bad `HARSHJUDGE_*` variable (it names the variable).
    #[error(transparent)]
    Setting(#[from] SettingError),
    /// `--only-changed`: git could not say what changed (a ref it does not
    /// know, no work tree).
    #[error(transparent)]
    OnlyChanged(#[from] super::changed::ChangedError),
    /// `--headed` where there is no display.
    #[error(transparent)]
    NoDisplay(#[from] harshjudge_browser::NoDisplay),
    /// `.harshJudge/config.yaml` cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A declared secret that cannot be masked.
    #[error(transparent)]
    Secret(#[from] harshjudge_browser::secrets::SecretError),
    /// The store could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `CARGO_MANIFEST_DIR` names something that is not a folder.
    #[error(
        "CARGO_MANIFEST_DIR={} is not a folder: run the suite through cargo test from the package, or unset CARGO_MANIFEST_DIR",
        dir.display()
    )]
    ManifestDir {
        /// The value of `CARGO_MANIFEST_DIR`.
        dir: PathBuf,
    },
    /// The current folder cannot be read.
    #[error("the current folder cannot be read ({source})")]
    CurrentDir {
        /// The cause.
        source: std::io::Error,
    },
    /// Neither cargo nor a `Cargo.toml` above the current folder says where the
    /// package is, and `HARSHJUDGE_DIR` is not set.
    #[error(
        "cannot tell where package `{package}` is: the test binary was not started by cargo (CARGO_MANIFEST_DIR is not set) and no folder at or above {} has a Cargo.toml of package `{package}`. Run it through `cargo test`, start it from the package's folder, or set HARSHJUDGE_DIR",
        cwd.display()
    )]
    PackageNotFound {
        /// The package's name.
        package: &'static str,
        /// The folder searched from.
        cwd: PathBuf,
    },
    /// Two scenarios of the binary have the same slug.
    #[error(
        "two scenarios have the slug \"{slug}\": {} ({}) and {} ({}); give one of them #[scenario(slug = \"…\")]",
        first.fn_name, first.at, second.fn_name, second.at
    )]
    DuplicateSlug {
        /// The slug.
        slug: &'static str,
        /// The scenario registered first.
        first: Site,
        /// The other.
        second: Site,
    },
    /// Two scenarios of the binary have the same function name.
    #[error(
        "two scenarios are named `{name}` ({} and {}); test names must be unique in one test binary: rename one",
        first.at, second.at
    )]
    DuplicateName {
        /// The function name.
        name: &'static str,
        /// The scenario registered first.
        first: Site,
        /// The other.
        second: Site,
    },
    /// A scenario's slug is not a valid slug.
    #[error("scenario `{scenario}`: {source}")]
    InvalidSlug {
        /// The scenario function.
        scenario: &'static str,
        /// What the slug breaks.
        source: StoreError,
    },
    /// `main!(base_url = …)`'s function failed.
    #[error("could not start the app under test (main!(base_url = …)): {cause}")]
    AppStart {
        /// What the function returned.
        cause: crate::error::Error,
    },
    /// `main!(web_server = …)`'s server could not be started or is not ready.
    #[error("could not start the app under test (main!(web_server = …)): {0}")]
    WebServer(#[from] crate::server::ServerError),
    /// `main!` was given both `base_url` and `web_server`.
    #[error(
        "main!(base_url = …, web_server = …): give one of them; web_server starts the app and sets the base URL itself"
    )]
    TwoApps,
    /// `--rejudge-run`, `--rejudge`: nothing to re-judge with.
    #[error(transparent)]
    Rejudge(Box<RejudgeError>),
    /// `#[scenario(depends_on = [name])]` names no setup scenario of the binary.
    #[error(
        "scenario `{}` ({}) depends on `{name}`, which is not a setup scenario of this test binary ({}): mark it `#[scenario(setup)]` or remove it from `depends_on`",
        scenario.fn_name, scenario.at, if setups.is_empty() { "it has none".to_string() } else { format!("its setups: {}", setups.join(", ")) }
    )]
    UnknownSetup {
        /// The scenario that names it.
        scenario: Site,
        /// The name in `depends_on`.
        name: &'static str,
        /// The setup scenarios the binary has.
        setups: Vec<&'static str>,
    },
    /// The suite's fixtures: a circle, an invocation fixture using a scenario
    /// one, two teardowns of one fixture.
    #[error(transparent)]
    Fixtures(#[from] crate::runner::fixtures::FixtureError),
    /// Setup scenarios that depend on each other in a circle (or on themselves).
    #[error(
        "setup scenarios depend on each other in a circle: {}; remove one of these `depends_on`",
        cycle.join(" → ")
    )]
    SetupCycle {
        /// The functions around the circle, the first one again at the end.
        cycle: Vec<&'static str>,
    },
    /// `main!(setup = [name])` names no setup scenario of the binary.
    #[error(
        "main!(setup = [{name}]) names `{name}`, which is not a setup scenario of this test binary ({}): mark it `#[scenario(setup)]` or remove it from `main!(setup = …)`",
        if setups.is_empty() { "it has none".to_string() } else { format!("its setups: {}", setups.join(", ")) }
    )]
    UnknownSuiteSetup {
        /// The name in `main!(setup = …)`.
        name: &'static str,
        /// The setup scenarios the binary has.
        setups: Vec<&'static str>,
    },
}

impl From<RejudgeError> for HarnessError {
    fn from(e: RejudgeError) -> Self {
        HarnessError::Rejudge(Box::new(e))
    }
}

/// Where a scenario is defined: its function and `file:line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The scenario function.
    pub fn_name: &'static str,
    /// `file:line`.
    pub at: Location,
}

/// `file:line` of a definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// The source file.
    pub file: &'static str,
    /// The line.
    pub line: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Why a recorded run cannot be re-judged (`--rejudge`, `--rejudge-run`,
/// `--resume` completing a judgment).
#[derive(Debug, thiserror::Error)]
pub enum RejudgeError {
    /// The store could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `--rejudge-run` with something that is not a run id.
    #[error("--rejudge-run {value:?}: {source}")]
    RunId {
        /// The value given.
        value: String,
        /// Why it is not a run id.
        source: StoreError,
    },
    /// The run could not be looked for.
    #[error("--rejudge-run {run}: {source}")]
    FindRun {
        /// The run.
        run: RunId,
        /// The cause.
        source: StoreError,
    },
    /// No scenario of the store has the run.
    #[error(
        "--rejudge-run {run}: there is no such run in {} (run ids are the folder names in scenarios/*/runs/)",
        store.display()
    )]
    NoSuchRun {
        /// The run.
        run: RunId,
        /// The `.harshJudge/` folder searched.
        store: PathBuf,
    },
    /// The run belongs to a scenario another test binary defines.
    #[error(
        "--rejudge-run {run}: the run belongs to scenario \"{slug}\", which test binary `{binary}` does not define: run the test target that defines it with --rejudge-run"
    )]
    OtherBinary {
        /// The run.
        run: RunId,
        /// Its scenario.
        slug: Slug,
        /// This test binary.
        binary: String,
    },
    /// The run's `result.json` cannot be read.
    #[error("run {run} of \"{slug}\" cannot be read: {source}")]
    Unreadable {
        /// The scenario.
        slug: Slug,
        /// The run.
        run: RunId,
        /// The cause.
        source: StoreError,
    },
    /// The run has no `result.json`.
    #[error(
        "run {run} of \"{slug}\" has no result.json: it never started properly, so there is nothing to re-judge"
    )]
    NoResult {
        /// The scenario.
        slug: Slug,
        /// The run.
        run: RunId,
    },
    /// The run has not ended.
    #[error(
        "run {run} of \"{slug}\" is still running (or its process died: the next `cargo test` marks it interrupted): re-judge it once it ended"
    )]
    StillRunning {
        /// The scenario.
        slug: Slug,
        /// The run.
        run: RunId,
    },
    /// The scenario has no run that ended.
    #[error(
        "no finished run of scenario \"{slug}\" is recorded in {}{}: run it first (`cargo test --test {binary}`), then re-judge",
        store.display(),
        unfinished_note(unfinished)
    )]
    NoFinishedRun {
        /// The scenario.
        slug: Slug,
        /// The `.harshJudge/` folder.
        store: PathBuf,
        /// This test binary.
        binary: String,
        /// Its runs that are still running or never ended, newest first.
        unfinished: Vec<RunId>,
    },
    /// The run's evidence or judgment cannot be read.
    #[error("run {run} of \"{slug}\" cannot be re-judged: {source}")]
    Unjudgeable {
        /// The scenario.
        slug: Slug,
        /// The run.
        run: RunId,
        /// The cause.
        source: StoreError,
    },
    /// Steps need a verdict made and no judge is configured.
    #[error(
        "{flag}: no judge is configured, and {} step(s) need a verdict made: {}. To judge them, {}",
        steps.len(),
        first_steps(steps),
        NO_JUDGE
    )]
    NoJudge {
        /// `--rejudge` or `--rejudge-run`.
        flag: &'static str,
        /// The steps.
        steps: Vec<PendingVerdict>,
    },
}

/// What to say when no judge is configured but one is needed.
pub(super) const NO_JUDGE: &str = "set HARSHJUDGE_JUDGE_CMD (a command that reads one JSON document on stdin and prints {\"verdict\": \"pass\" | \"fail\" | \"uncertain\", \"reasoning\": \"…\"}) or HARSHJUDGE_JUDGE_URL with HARSHJUDGE_JUDGE_MODEL (an OpenAI-compatible chat-completions API), or let an agent record the verdicts through MCP (recordVerdict)";

/// A step that needs a verdict made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingVerdict {
    /// The scenario.
    pub slug: Slug,
    /// The run.
    pub run: RunId,
    /// The step's id.
    pub step: String,
    /// Why its recorded verdict (if any) does not stand.
    pub why: &'static str,
}

impl fmt::Display for PendingVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} run {} step {} ({})",
            self.slug, self.run, self.step, self.why
        )
    }
}

fn unfinished_note(runs: &[RunId]) -> String {
    if runs.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = runs.iter().map(RunId::as_str).collect();
    format!(
        " (still running or never ended: {}; the next `cargo test` marks those of dead processes interrupted)",
        names.join(", ")
    )
}

/// The first five steps, then how many more.
fn first_steps(steps: &[PendingVerdict]) -> String {
    let shown: Vec<String> = steps.iter().take(5).map(ToString::to_string).collect();
    let mut s = shown.join("; ");
    if steps.len() > shown.len() {
        s.push_str(&format!(" and {} more", steps.len() - shown.len()));
    }
    s
}
