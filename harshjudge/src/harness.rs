//! libtest-mimic glue: one trial per step (one per scenario under
//! cargo-nextest), libtest's command line, filtering, and the exit code.
//! It schedules scenarios and waits for their outcomes; executing steps is the
//! runner's job.
//!
//! Exit codes: [`EXIT_OK`], [`EXIT_FAILED`] (a step failed, as libtest),
//! [`EXIT_USAGE`] (bad settings or an invalid suite).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

pub use libtest_mimic::Arguments;
use libtest_mimic::{Completion, Failed, FormatSetting, Trial};

use crate::event::{Event, EventSink, StepOutcome};
use crate::registry::{self, ScenarioDef};
use crate::report::{RunLine, Summary};
use crate::run::RunHandle;
use crate::runner::{self, Limits, Shared};
use crate::settings::Settings;
use crate::store::{RunId, RunStatus, ScenarioSpec, Slug, StepDoc, StepStatus, Store};
use crate::suite::{ScenarioEntry, ScenarioState, SuiteFlags, SuiteLog};

/// Every test passed.
pub const EXIT_OK: i32 = 0;
/// A step failed (libtest's code).
pub const EXIT_FAILED: i32 = 101;
/// Bad settings or an invalid suite (nothing ran).
pub const EXIT_USAGE: i32 = 2;

/// The package a test binary belongs to (given by [`crate::main!`]).
#[derive(Clone, Copy, Debug)]
pub struct Package {
    /// `CARGO_PKG_NAME`.
    pub name: &'static str,
    /// `CARGO_MANIFEST_DIR` when the binary was compiled. Only a hint: the
    /// package root is resolved at run time by [`package_root`] (a binary may run
    /// from a copied checkout or a restored CI cache).
    pub manifest_dir: &'static str,
    /// Starts the app under test and returns its base URL (`main!(base_url = …)`);
    /// not called when `HARSHJUDGE_BASE_URL` is set.
    pub base_url: Option<fn() -> crate::Result<String>>,
}

/// Whether `dir/Cargo.toml` declares the package `name` (`name = "…"` in its
/// `[package]` table).
fn declares_package(dir: &Path, name: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
        return false;
    };
    let mut in_package = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package
            && let Some((key, value)) = line.split_once('=')
            && key.trim() == "name"
        {
            return value.trim().trim_matches(|c| c == '"' || c == '\'') == name;
        }
    }
    false
}

/// The root of the package the test binary belongs to, resolved at run time:
/// `CARGO_MANIFEST_DIR` as cargo (and cargo-nextest) set it for the test
/// process; else, for a binary started by hand, the nearest folder at or above
/// the current one whose `Cargo.toml` declares the package; else, when
/// `HARSHJUDGE_DIR` says where to write, the current folder. The folder the
/// binary was compiled in ([`Package::manifest_dir`]) is never used: a copied
/// checkout or a restored CI cache would write into the original.
pub fn package_root(pkg: &Package) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        return if dir.is_dir() {
            Ok(std::path::absolute(&dir).unwrap_or(dir))
        } else {
            Err(format!(
                "CARGO_MANIFEST_DIR={} is not a folder: run the suite through cargo test from the package, or unset CARGO_MANIFEST_DIR",
                dir.display()
            ))
        };
    }
    let cwd =
        std::env::current_dir().map_err(|e| format!("the current folder cannot be read ({e})"))?;
    if let Some(found) = cwd.ancestors().find(|d| declares_package(d, pkg.name)) {
        return Ok(found.to_path_buf());
    }
    if std::env::var_os("HARSHJUDGE_DIR").is_some_and(|d| !d.is_empty()) {
        return Ok(cwd);
    }
    Err(format!(
        "cannot tell where package `{}` is: the test binary was not started by cargo (CARGO_MANIFEST_DIR is not set) and no folder at or above {} has a Cargo.toml of package `{}`. Run it through `cargo test`, start it from the package's folder, or set HARSHJUDGE_DIR",
        pkg.name,
        cwd.display(),
        pkg.name
    ))
}

/// Whether this process runs under cargo-nextest, which runs every test in its
/// own process: then each scenario is one test, so no step runs twice.
/// nextest ≥ 0.9.138 sets `NEXTEST_RUN_ID` in both its list and run phases.
pub fn under_nextest() -> bool {
    std::env::var_os("NEXTEST_RUN_ID").is_some()
        || std::env::var_os("NEXTEST").is_some_and(|v| v == "1")
}

/// The name of the test of step `n` (1-based): `{fn}::{NN}_{snake title}`.
pub fn step_test_name(fn_name: &str, n: usize, title: &str) -> String {
    let mut snake = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            snake.push(c);
        } else if !snake.ends_with('_') {
            snake.push('_');
        }
    }
    let snake = snake.trim_matches('_');
    let snake = if snake.is_empty() { "step" } else { snake };
    format!("{fn_name}::{n:02}_{snake}")
}

/// Outcome slot of one step, filled once by the runner, awaited by its trial.
#[derive(Default)]
struct Slot {
    value: Mutex<Option<StepOutcome>>,
    ready: Condvar,
}

impl Slot {
    fn fill(&self, outcome: StepOutcome) {
        let mut v = self.value.lock().expect("slot lock");
        if v.is_none() {
            *v = Some(outcome);
            self.ready.notify_all();
        }
    }
    fn wait(&self) -> StepOutcome {
        let mut v = self.value.lock().expect("slot lock");
        loop {
            if let Some(o) = v.as_ref() {
                return o.clone();
            }
            v = self.ready.wait(v).expect("slot lock");
        }
    }
}

/// Routes runner events to the trials and to the end-of-run summary.
struct HarnessSink {
    slots: HashMap<&'static str, Vec<Arc<Slot>>>,
    fn_names: HashMap<&'static str, &'static str>,
    summary: Mutex<Summary>,
    /// Per scenario, whether each step's trial was selected by the filter (a
    /// step that is not selected still runs when a later one is).
    selected: HashMap<&'static str, Vec<bool>>,
    /// A failure of a step whose trial was not selected, per scenario: it is
    /// reported by the next selected trial of that scenario, so that libtest
    /// counts it (FAILED, exit code 101) instead of ignoring that trial.
    carried: Mutex<HashMap<String, (String, StepOutcome)>>,
}

impl HarnessSink {
    fn is_selected(&self, slug: &str, index: usize) -> bool {
        self.selected
            .get(slug)
            .and_then(|s| s.get(index - 1))
            .copied()
            .unwrap_or(true)
    }

    /// What the trial of `outcome` reports: the outcome itself, or, for a
    /// selected step skipped because an unselected earlier step failed, that
    /// failure.
    fn shown(&self, slug: &str, test: &str, outcome: &StepOutcome) -> StepOutcome {
        let mut carried = self.carried.lock().expect("carried");
        if !self.is_selected(slug, outcome.index) {
            if outcome.status == StepStatus::Fail {
                carried.insert(slug.to_string(), (test.to_string(), outcome.clone()));
            }
            return outcome.clone();
        }
        match carried.remove(slug) {
            Some((failed_test, f)) if outcome.status != StepStatus::Fail => StepOutcome {
                status: StepStatus::Fail,
                error: Some(format!(
                    "step {} \"{}\" failed before this step could run: {}\n  (step {} ran because this later step was selected; its own test `{failed_test}` was not selected by the filter)",
                    f.id,
                    f.title,
                    f.error.as_deref().unwrap_or("failed"),
                    f.id,
                )),
                location: f.location.clone(),
                reason: None,
                evidence_dir: f.evidence_dir.clone(),
                ..outcome.clone()
            },
            _ => outcome.clone(),
        }
    }
}

impl EventSink for HarnessSink {
    fn on_event(&self, event: &Event<'_>) {
        match event {
            Event::StepFinished { slug, outcome } => {
                let fn_name = self.fn_names.get(slug).copied().unwrap_or(slug);
                let test = step_test_name(fn_name, outcome.index, &outcome.title);
                let shown = self.shown(slug, &test, outcome);
                if let Some(slot) = self.slots.get(slug).and_then(|s| s.get(outcome.index - 1)) {
                    slot.fill(shown);
                }
                if outcome.status == StepStatus::Fail {
                    self.summary
                        .lock()
                        .expect("summary")
                        .failures
                        .push((test, (*outcome).clone()));
                }
            }
            Event::RunFinished {
                slug,
                result,
                run_dir,
                store_error,
            } => {
                self.summary.lock().expect("summary").runs.push(RunLine {
                    slug: slug.to_string(),
                    status: result
                        .map(|r| if r.flaky { "flaky" } else { r.status.as_str() }.to_string()),
                    run_dir: run_dir.map(Path::to_path_buf),
                    store_error: store_error.map(str::to_string),
                    note: result
                        .filter(|r| r.interrupted)
                        .map(|_| "interrupted".to_string()),
                    earlier: vec![],
                    retried: false,
                });
            }
            _ => {}
        }
    }
}

fn trial_result(o: &StepOutcome) -> Result<Completion, Failed> {
    match o.status {
        StepStatus::Pass => Ok(Completion::Completed),
        StepStatus::Skipped => Ok(Completion::ignored_with(
            o.reason.clone().unwrap_or_default(),
        )),
        StepStatus::Fail => Err(crate::report::failure_message(o).into()),
    }
}

fn validate(scenarios: &[&'static ScenarioDef]) -> Result<(), String> {
    let mut slugs: HashMap<&str, &ScenarioDef> = HashMap::new();
    let mut names: HashMap<&str, &ScenarioDef> = HashMap::new();
    for s in scenarios {
        if let Some(other) = slugs.insert(s.slug, s) {
            return Err(format!(
                "two scenarios have the slug \"{}\": {} ({}:{}) and {} ({}:{}); give one of them #[scenario(slug = \"…\")]",
                s.slug, other.fn_name, other.file, other.line, s.fn_name, s.file, s.line
            ));
        }
        if let Some(other) = names.insert(s.fn_name, s) {
            return Err(format!(
                "two scenarios are named `{}` ({}:{} and {}:{}); test names must be unique in one test binary: rename one",
                s.fn_name, other.file, other.line, s.file, s.line
            ));
        }
        Slug::new(s.slug).map_err(|e| format!("scenario `{}`: {e}", s.fn_name))?;
    }
    Ok(())
}

fn dedent(source: &str) -> String {
    let mut lines = source.lines();
    let first = lines.next().unwrap_or("").to_string();
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = first;
    for l in rest {
        out.push('\n');
        out.push_str(l.get(indent..).unwrap_or(l.trim_start()));
    }
    out
}

fn scenario_spec(def: &ScenarioDef) -> (ScenarioSpec, Vec<StepDoc>) {
    let spec = ScenarioSpec {
        title: def.title.to_string(),
        steps: def.steps.iter().map(|s| s.title.to_string()).collect(),
        tags: Some(def.tags.iter().map(|t| t.to_string()).collect()),
        starred: None,
        estimated_duration: None,
    };
    let docs = def
        .steps
        .iter()
        .map(|s| StepDoc {
            description: format!(
                "Defined in `{}` at {}:{} (scenario `{}`).",
                def.module_path, def.file, s.line, def.fn_name
            ),
            preconditions: "The previous steps of this scenario passed.".into(),
            actions: "Runs the step's code:".into(),
            code: Some(("rust".into(), dedent(s.source))),
            expected_outcome: "The step's code completes without an error or a panic.".into(),
        })
        .collect();
    (spec, docs)
}

/// Creates the run of a scenario on disk, ready to execute.
fn prepare(store: &Store, def: &'static ScenarioDef) -> Result<RunHandle, String> {
    let slug = Slug::new(def.slug).map_err(|e| e.to_string())?;
    let (spec, docs) = scenario_spec(def);
    store
        .upsert_scenario(&slug, &spec, &docs)
        .map_err(|e| e.to_string())?;
    RunHandle::start_marked(store, &slug, spec.steps)
        .map(RunHandle::with_background_writes)
        .map_err(|e| e.to_string())
}

/// Fails every step of a scenario that could not start.
fn fail_unstarted(sink: &HarnessSink, store: &Store, def: &ScenarioDef, error: &str) {
    for (i, step) in def.steps.iter().enumerate() {
        let first = i == 0;
        let outcome = StepOutcome {
            index: i + 1,
            id: crate::store::StepId::from_index(i + 1).expect("≤ 99 steps"),
            title: step.title.to_string(),
            status: if first {
                StepStatus::Fail
            } else {
                StepStatus::Skipped
            },
            duration: Default::default(),
            error: first.then(|| format!("the run could not be recorded: {error}")),
            location: None,
            reason: (!first).then(|| "the run could not be recorded".to_string()),
            evidence_dir: store.dir().to_path_buf(),
        };
        sink.on_event(&Event::StepFinished {
            slug: def.slug,
            outcome: &outcome,
        });
    }
    sink.on_event(&Event::RunFinished {
        slug: def.slug,
        result: None,
        run_dir: None,
        store_error: Some(error),
    });
}

/// `HARSHJUDGE_VERBOSE`: `1` lists every run (passing ones too) with its
/// folder in the end-of-run summary; by default only the runs that did not pass.
fn verbose_setting() -> Result<bool, String> {
    crate::settings::env_bool("HARSHJUDGE_VERBOSE", false).map_err(|e| e.to_string())
}

/// The harness entry point used by [`crate::main!`]: parses libtest's command
/// line, runs, and exits with [`EXIT_OK`], [`EXIT_FAILED`] or [`EXIT_USAGE`].
pub fn main(pkg: Package) -> ! {
    let (libtest_args, flags) = match SuiteFlags::split(std::env::args()) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(EXIT_USAGE);
        }
    };
    let args = Arguments::from_iter(libtest_args);
    std::process::exit(run_with(pkg, &args, &flags))
}

/// Lists or runs every registered scenario as `args` say, printing like libtest,
/// and returns the exit code. Settings come from the environment (see the README).
pub fn run(pkg: Package, args: &Arguments) -> i32 {
    match SuiteFlags::from_env() {
        Ok(flags) => run_with(pkg, args, &flags),
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_USAGE
        }
    }
}

/// What `--resume` reuses of a scenario the earlier invocation ran: its entry
/// and its steps as recorded, read from the run's `result.json` (once). A run
/// that ended counts as finished even if the checkpoint did not hear of it (the
/// process died just after); a running or interrupted one is not reusable.
fn reusable(
    store: &Store,
    def: &ScenarioDef,
    entry: &ScenarioEntry,
) -> Option<(ScenarioEntry, Vec<StepOutcome>)> {
    let slug = Slug::new(def.slug).ok()?;
    let run = RunId::new(entry.run_id.as_deref()?).ok()?;
    let result = store.read_result(&slug, &run).ok()??;
    if result.status == RunStatus::Running || result.interrupted {
        return None;
    }
    let state = if entry.state.finished() {
        entry.state
    } else {
        match (result.status, result.flaky) {
            (RunStatus::Pass, true) => ScenarioState::Flaky,
            (RunStatus::Pass, false) => ScenarioState::Pass,
            _ => ScenarioState::Fail,
        }
    };
    let mut out = Vec::new();
    for (i, step) in def.steps.iter().enumerate() {
        let id = crate::store::StepId::from_index(i + 1).ok()?;
        let done = result.steps.iter().find(|s| s.id == id.as_str());
        let status = done.map_or(StepStatus::Skipped, |s| s.status);
        out.push(StepOutcome {
            index: i + 1,
            title: step.title.to_string(),
            status,
            duration: std::time::Duration::from_millis(done.map_or(0, |s| s.duration)),
            error: done
                .and_then(|s| s.error.clone())
                .filter(|_| status == StepStatus::Fail)
                .map(|e| format!("{e}\n  (reused by --resume from run {run})")),
            location: done.and_then(|s| s.error_location.clone()),
            reason: (status == StepStatus::Skipped)
                .then(|| format!("reused by --resume from run {run}, where it was skipped")),
            evidence_dir: store.evidence_dir(&slug, &run, &id),
            id,
        });
    }
    Some((
        ScenarioEntry {
            state,
            ..entry.clone()
        },
        out,
    ))
}

/// Lists or runs the registered scenarios with our flags as well as libtest's.
pub fn run_with(pkg: Package, args: &Arguments, flags: &SuiteFlags) -> i32 {
    let started = std::time::SystemTime::now();
    let scenarios = registry::all();
    if let Err(msg) = validate(&scenarios) {
        eprintln!("error: {msg}");
        return EXIT_USAGE;
    }
    let nextest = under_nextest();

    // Settings and the previous invocation's checkpoint decide what runs
    // (`--resume`, `--last-failed`); listing needs neither.
    let package_root = if args.list {
        PathBuf::from(pkg.manifest_dir)
    } else {
        match package_root(&pkg) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_USAGE;
            }
        }
    };
    let settings = if args.list {
        None
    } else {
        match Settings::from_env(&package_root, pkg.name) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_USAGE;
            }
        }
    };
    let verbose = match verbose_setting() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let store = settings.as_ref().map(|s| Store::new(&s.dir));
    let binary = crate::suite::binary_name();
    crate::browser::configure_snapshots(&package_root, &binary, flags.update_snapshots);
    let mut notes: Vec<String> = Vec::new();
    // --shard i/n: only this shard's scenarios (before --last-failed and --resume).
    let scenarios = match flags.shard {
        None => scenarios,
        Some(shard) => {
            // Listing reads no settings otherwise: the durations' folder here.
            let listing_store = store
                .is_none()
                .then(|| self::package_root(&pkg).unwrap_or_else(|_| pkg.manifest_dir.into()))
                .and_then(|root: PathBuf| Settings::from_env(&root, pkg.name).ok())
                .map(|s| Store::new(&s.dir));
            let input = crate::shard::durations(
                store.as_ref().or(listing_store.as_ref()),
                scenarios.iter().map(|d| d.slug),
            );
            let mine = crate::shard::select(&input, shard);
            notes.push(crate::shard::note(shard, &input, &mine));
            scenarios
                .into_iter()
                .filter(|d| mine.contains(&d.slug))
                .collect()
        }
    };
    let previous = if let Some(store) = store.as_ref().filter(|_| flags.resume || flags.last_failed)
    {
        match SuiteLog::previous(store, &binary) {
            Ok(p) => p,
            Err(e) => {
                notes.push(format!(
                    "the previous checkpoint is unreadable ({e}): running everything"
                ));
                None
            }
        }
    } else {
        None
    };
    // --last-failed: only what failed (or was interrupted) last time.
    let mut excluded: std::collections::HashSet<&str> = Default::default();
    if flags.last_failed {
        let failed: Vec<&str> = scenarios
            .iter()
            .filter(|d| {
                previous
                    .as_ref()
                    .and_then(|p| p.scenarios.get(d.slug))
                    .is_some_and(|e| e.state.failed())
            })
            .map(|d| d.slug)
            .collect();
        if failed.is_empty() {
            notes.push(match &previous {
                None => "--last-failed: no earlier run of this suite recorded: running everything"
                    .into(),
                Some(_) => "--last-failed: nothing failed last time: running everything".into(),
            });
        } else {
            excluded = scenarios
                .iter()
                .map(|d| d.slug)
                .filter(|s| !failed.contains(s))
                .collect();
            notes.push(format!(
                "--last-failed: running {} scenario(s) that failed last time: {}",
                failed.len(),
                failed.join(", ")
            ));
        }
    }
    // --resume: reuse what the last invocation finished.
    let mut reused: BTreeMap<String, (ScenarioEntry, Vec<StepOutcome>)> = BTreeMap::new();
    if flags.resume {
        match &previous {
            None => notes
                .push("--resume: no earlier run of this suite recorded: running everything".into()),
            Some(p) => {
                for def in &scenarios {
                    let found = p
                        .scenarios
                        .get(def.slug)
                        .zip(store.as_ref())
                        .and_then(|(e, st)| reusable(st, def, e));
                    if let Some(r) = found {
                        reused.insert(def.slug.to_string(), r);
                    }
                }
            }
        }
    }
    let scenarios: Vec<&'static ScenarioDef> = scenarios
        .into_iter()
        .filter(|d| !excluded.contains(d.slug))
        .collect();

    let mut slots: HashMap<&'static str, Vec<Arc<Slot>>> = HashMap::new();
    let mut trials = Vec::new();
    // For each scenario, the trial indexes of its steps (or its single trial).
    let mut owners: Vec<(usize, usize)> = Vec::new(); // (scenario index, last step the trial needs)
    for (si, def) in scenarios.iter().enumerate() {
        let steps: Vec<Arc<Slot>> = def
            .steps
            .iter()
            .map(|_| Arc::new(Slot::default()))
            .collect();
        if nextest {
            let all = steps.clone();
            trials.push(Trial::test(def.fn_name, move || {
                let outcomes: Vec<StepOutcome> = all.iter().map(|s| s.wait()).collect();
                let failed: Vec<String> = outcomes
                    .iter()
                    .filter(|o| o.status == StepStatus::Fail)
                    .map(|o| {
                        format!(
                            "step {} \"{}\" failed: {}",
                            o.id,
                            o.title,
                            crate::report::failure_message(o)
                        )
                    })
                    .collect();
                if failed.is_empty() {
                    Ok(())
                } else {
                    Err(failed.join("\n").into())
                }
            }));
            owners.push((si, def.steps.len()));
        } else {
            for (i, step) in def.steps.iter().enumerate() {
                let slot = steps[i].clone();
                trials.push(Trial::ignorable_test(
                    step_test_name(def.fn_name, i + 1, step.title),
                    move || trial_result(&slot.wait()),
                ));
                owners.push((si, i + 1));
            }
        }
        slots.insert(def.slug, steps);
    }

    if args.list {
        let _ = libtest_mimic::run(args, trials);
        return EXIT_OK;
    }

    // Which steps must run: up to the last selected step of each scenario.
    let mut stop_after = vec![0usize; scenarios.len()];
    for (trial, (si, last)) in trials.iter().zip(&owners) {
        if !args.is_filtered_out(trial) && !args.is_ignored(trial) {
            stop_after[*si] = stop_after[*si].max(*last);
        }
    }
    // Which step trials were selected (under nextest a scenario is one trial:
    // all its steps count as selected).
    let mut selected: HashMap<&'static str, Vec<bool>> = scenarios
        .iter()
        .map(|d| (d.slug, vec![nextest; d.steps.len()]))
        .collect();
    if !nextest {
        for (trial, (si, last)) in trials.iter().zip(&owners) {
            if !args.is_filtered_out(trial)
                && !args.is_ignored(trial)
                && let Some(s) = selected.get_mut(scenarios[*si].slug)
            {
                s[*last - 1] = true;
            }
        }
    }

    let mut settings = settings.expect("settings are read unless listing");
    let store = store.expect("the store is known unless listing");
    // Reused scenarios are not run: their trials get the recorded outcomes.
    let mut reused_selected: Vec<(&'static ScenarioDef, ScenarioEntry, Vec<StepOutcome>)> = vec![];
    for (si, def) in scenarios.iter().enumerate() {
        if stop_after[si] > 0
            && let Some((e, outcomes)) = reused.remove(def.slug)
        {
            stop_after[si] = 0;
            reused_selected.push((def, e, outcomes));
        }
    }
    let any_selected = stop_after.iter().any(|n| *n > 0) || !reused_selected.is_empty();
    if any_selected {
        // The base URL: HARSHJUDGE_BASE_URL, else the suite's own app
        // (main!(base_url = …)), else config.yaml. Only the variable's value is
        // written into a new config.yaml: a started app's port is not a setting.
        let init = store.ensure_initialized(pkg.name, &settings.base_url);
        if let Err(e) = init {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
        let config = match crate::settings::read_config(&store) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_USAGE;
            }
        };
        if settings.base_url.is_empty() {
            let resolved = match pkg.base_url {
                Some(start) => start().map_err(|e| {
                    format!("could not start the app under test (main!(base_url = …)): {e}")
                }),
                None => Ok(config.base_url),
            };
            match resolved {
                Ok(url) => settings.base_url = url,
                Err(e) => {
                    eprintln!("error: {e}");
                    return EXIT_USAGE;
                }
            }
        }
    }

    if any_selected {
        // Runs left `running` by a process that is gone (kill -9, a crash).
        for (slug, run, pid) in store.orphaned_runs() {
            let reason = format!(
                "interrupted: the process that ran it (pid {pid}) is gone (killed or crashed) and the run never ended"
            );
            let outcome =
                RunHandle::open_in(&store, &slug, &run).and_then(|mut h| h.interrupt(&reason));
            match outcome {
                Ok(()) => notes.push(format!(
                    "run {slug}/{run} was left running by a process that is gone (pid {pid}): marked interrupted"
                )),
                // It ended, but its process died before counting it or clearing its mark.
                Err(crate::store::StoreError::RunCompleted { .. }) => store.clear_running(&slug, &run),
                Err(crate::store::StoreError::NotFound { .. }) => store.clear_running(&slug, &run),
                Err(e) => notes.push(format!(
                    "run {slug}/{run} was left running by a process that is gone, but could not be marked interrupted: {e}"
                )),
            }
            // The process may have died between a run's result and its count.
            if let Err(e) = store.recount_stats(&slug) {
                notes.push(format!(
                    "the statistics of {slug} could not be recounted: {e}"
                ));
            }
        }
        notes.extend(crate::run::repair_leftovers(&store));
    }
    let log = if any_selected {
        let selected: Vec<&str> = scenarios
            .iter()
            .zip(&stop_after)
            .filter(|(_, n)| **n > 0)
            .map(|(d, _)| d.slug)
            .collect();
        let reused_entries: BTreeMap<String, ScenarioEntry> = reused_selected
            .iter()
            .map(|(d, e, _)| (d.slug.to_string(), e.clone()))
            .collect();
        match SuiteLog::begin(
            &store,
            &binary,
            previous.as_ref(),
            &selected,
            &reused_entries,
        ) {
            Ok(l) => Some(Arc::new(l)),
            Err(e) => {
                notes.push(format!("the suite checkpoint could not be written ({e}): --resume will not know about this run"));
                None
            }
        }
    } else {
        None
    };
    let fn_names = scenarios.iter().map(|d| (d.slug, d.fn_name)).collect();
    let sink = Arc::new(HarnessSink {
        slots,
        fn_names,
        summary: Mutex::new(Summary::default()),
        selected,
        carried: Mutex::new(HashMap::new()),
    });
    for (def, entry, outcomes) in &reused_selected {
        for o in outcomes {
            sink.on_event(&Event::StepFinished {
                slug: def.slug,
                outcome: o,
            });
        }
        let slug = Slug::new(def.slug).expect("validated");
        let run_dir = entry
            .run_id
            .as_deref()
            .and_then(|r| RunId::new(r).ok())
            .map(|r| store.run_dir(&slug, &r));
        sink.summary.lock().expect("summary").runs.push(RunLine {
            slug: def.slug.to_string(),
            status: Some(
                match entry.state {
                    ScenarioState::Pass => "pass",
                    ScenarioState::Flaky => "flaky",
                    _ => "fail",
                }
                .to_string(),
            ),
            run_dir,
            store_error: None,
            note: Some("reused by --resume".into()),
            earlier: vec![],
            retried: false,
        });
    }
    let threads = args
        .test_threads
        .or_else(|| std::thread::available_parallelism().ok().map(Into::into))
        .unwrap_or(1)
        .max(1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.clamp(2, 16))
        .thread_name("harshjudge-scenario")
        .enable_all()
        .build()
        .expect("tokio runtime");
    let limits = Limits {
        step_default: settings.step_timeout,
        scenario_default: settings.scenario_timeout,
        evidence: settings.evidence,
        full_page: settings.full_page,
    };
    crate::suite::listen_for_signals(&rt);
    let dispatcher = {
        let sink = sink.clone();
        let store = store.clone();
        let base_url = settings.base_url.clone();
        let log = log.clone();
        let flags = flags.clone();
        let replay = Arc::new(crate::suite::ReplayInfo::from_env(
            pkg.name,
            &package_root,
            &settings.dir,
        ));
        let work: Vec<(&'static ScenarioDef, usize)> = scenarios
            .iter()
            .zip(&stop_after)
            .filter(|(_, n)| **n > 0)
            .map(|(d, n)| (*d, *n))
            .collect();
        rt.spawn(async move {
            let permits = Arc::new(tokio::sync::Semaphore::new(threads));
            let mut tasks = Vec::new();
            for (def, last) in work {
                let permit = permits
                    .clone()
                    .acquire_owned()
                    .await
                    .expect("semaphore open");
                let job = Job {
                    def,
                    last,
                    store: store.clone(),
                    sink: sink.clone(),
                    base_url: base_url.clone(),
                    limits: limits.clone(),
                    log: log.clone(),
                    replay: replay.clone(),
                    attempts: 1 + def.retries.or(flags.retries).unwrap_or(0),
                    fail_on_flaky: flags.fail_on_flaky,
                };
                tasks.push(tokio::spawn(async move {
                    job.run().await;
                    drop(permit);
                }));
            }
            for t in tasks {
                let _ = t.await;
            }
        })
    };

    for n in &notes {
        eprintln!("harshjudge: {n}");
    }
    let conclusion = libtest_mimic::run(args, trials);
    let _ = rt.block_on(dispatcher);
    // No chromedriver or browser outlives the run.
    rt.block_on(crate::browser::shutdown());
    drop(rt);
    // Every file handed to the background writer is on disk before we exit.
    if let Err(e) = crate::store::flush_writes() {
        eprintln!("harshjudge: a file could not be written: {e}");
    }
    // Retention (HARSHJUDGE_KEEP_RUNS): the scenarios that ran keep their newest runs.
    if let Some(keep) = settings.keep_runs {
        let ran: Vec<String> = (sink.summary.lock().expect("summary").runs.iter())
            .map(|r| r.slug.clone())
            .collect();
        for e in crate::run::prune(&store, &ran, keep).errors {
            eprintln!("harshjudge: {e}");
        }
    }

    let summary = sink.summary.lock().expect("summary");
    let any_failure = !summary.failures.is_empty();
    let mut text = summary.render(store.dir(), verbose);
    let runs: Vec<crate::report::junit::RunRef> = summary
        .runs
        .iter()
        .filter(|r| !r.retried)
        .filter_map(|r| {
            r.run_dir.clone().map(|dir| crate::report::junit::RunRef {
                dir,
                earlier: r.earlier.clone(),
            })
        })
        .collect();
    if !runs.is_empty() {
        let publish = crate::report::invocation::Publish {
            runs,
            started,
            junit: settings.junit.clone(),
            html: settings.html_report,
            step_summary: std::env::var_os("GITHUB_STEP_SUMMARY")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            invocation: if nextest {
                std::env::var("NEXTEST_RUN_ID")
                    .ok()
                    .filter(|v| !v.is_empty())
            } else {
                None
            },
        };
        for line in crate::report::invocation::publish(&store, &publish) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    if !text.is_empty() {
        if matches!(args.format, Some(FormatSetting::Json)) {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }
    let signal = crate::suite::signal_exit_code();
    if let Some(log) = &log {
        log.finish(signal.is_some());
    }
    if let Some(code) = signal {
        eprintln!(
            "harshjudge: the suite was interrupted; `-- --resume` reruns only what did not finish"
        );
        return code;
    }
    // Any failed step of an executed run fails the invocation, whether or not
    // its own trial was selected.
    if conclusion.has_failed() || any_failure {
        EXIT_FAILED
    } else {
        EXIT_OK
    }
}

/// One scenario to execute, with its retries.
struct Job {
    def: &'static ScenarioDef,
    last: usize,
    store: Store,
    sink: Arc<HarnessSink>,
    base_url: String,
    limits: Limits,
    log: Option<Arc<SuiteLog>>,
    replay: Arc<crate::suite::ReplayInfo>,
    /// 1 + retries.
    attempts: u32,
    fail_on_flaky: bool,
}

impl Job {
    fn checkpoint(&self, state: ScenarioState, run: Option<String>, attempt: u32) {
        if let Some(log) = &self.log {
            log.set(self.def.slug, state, run, attempt);
        }
    }

    async fn run(self) {
        let def = self.def;
        let mut first_run: Option<String> = None;
        // Earlier attempts: run folder and step outcomes.
        let mut earlier: Vec<(PathBuf, Vec<StepOutcome>)> = Vec::new();
        for attempt in 1..=self.attempts {
            if let Some(reason) = runner::interrupted() {
                not_run(&self.sink, &self.store, def, &reason);
                self.checkpoint(ScenarioState::Interrupted, None, attempt - 1);
                return;
            }
            let mut run = match prepare(&self.store, def) {
                Ok(run) => run,
                Err(e) => {
                    fail_unstarted(&self.sink, &self.store, def, &e);
                    self.checkpoint(ScenarioState::Fail, None, attempt);
                    return;
                }
            };
            let run_id = run.id().to_string();
            if self.attempts > 1
                && let Err(e) = run.set_attempt(attempt, first_run.clone())
            {
                eprintln!(
                    "harshjudge: {}: the attempt number could not be recorded: {e}",
                    def.slug
                );
            }
            first_run.get_or_insert_with(|| run_id.clone());
            let last_test = step_test_name(def.fn_name, self.last, def.steps[self.last - 1].title);
            if let Err(e) = self.replay.write(&run.dir(), def.slug, &run_id, &last_test) {
                eprintln!(
                    "harshjudge: {}: replay.sh could not be written: {e}",
                    def.slug
                );
            }
            self.checkpoint(ScenarioState::Running, Some(run_id.clone()), attempt);
            // With retries, outcomes wait until the attempt is known to be the last.
            let buffer = Arc::new(Buffer::default());
            let sink: Arc<dyn EventSink> = if self.attempts > 1 {
                buffer.clone()
            } else {
                self.sink.clone()
            };
            let shared = Shared::new(
                def,
                run,
                self.base_url.clone(),
                sink,
                self.last,
                self.limits.clone(),
            );
            let handle = shared.clone();
            if let Err(e) = tokio::spawn(runner::execute(shared)).await {
                // A bug in the runner: never leave a trial waiting.
                let msg = format!("internal error in the harshjudge runner: {e}");
                fail_unstarted(&self.sink, &self.store, def, &msg);
                self.checkpoint(ScenarioState::Fail, Some(run_id), attempt);
                return;
            }
            let (status, interrupted, dir) = {
                let r = handle.run.lock().expect("run lock");
                (r.result().status, r.result().interrupted, r.dir())
            };
            let passed = status == RunStatus::Pass;
            if self.attempts > 1 && !passed && !interrupted && attempt < self.attempts {
                self.sink
                    .summary
                    .lock()
                    .expect("summary")
                    .runs
                    .push(RunLine {
                        slug: def.slug.to_string(),
                        status: Some("fail".into()),
                        run_dir: Some(dir.clone()),
                        store_error: None,
                        note: Some(format!("attempt {attempt} of {}: retried", self.attempts)),
                        earlier: vec![],
                        retried: true,
                    });
                earlier.push((dir, buffer.outcomes()));
                continue;
            }
            if self.attempts > 1 {
                buffer.forward(&*self.sink, def.slug, attempt, &earlier, self.fail_on_flaky);
                let mut summary = self.sink.summary.lock().expect("summary");
                if let Some(line) = summary.runs.iter_mut().rev().find(|l| l.slug == def.slug) {
                    line.earlier = earlier.iter().map(|(d, _)| d.clone()).collect();
                    if attempt > 1 {
                        line.note = Some(format!(
                            "attempt {attempt} of {}{}",
                            self.attempts,
                            if passed {
                                ": flaky, an earlier attempt failed"
                            } else {
                                ""
                            }
                        ));
                    }
                }
            }
            let state = match (interrupted, passed, attempt > 1) {
                (true, _, _) => ScenarioState::Interrupted,
                // Counted as a failure: --last-failed reruns it.
                (false, true, true) if self.fail_on_flaky => ScenarioState::Fail,
                (false, true, true) => ScenarioState::Flaky,
                (false, true, false) => ScenarioState::Pass,
                (false, false, _) => ScenarioState::Fail,
            };
            self.checkpoint(state, Some(run_id), attempt);
            return;
        }
    }
}

/// A buffered `RunFinished`: result, run folder, store error.
type Finished = (
    Option<crate::store::RunResult>,
    Option<PathBuf>,
    Option<String>,
);

/// Holds one attempt's events until it is known whether it is the last.
#[derive(Default)]
struct Buffer {
    steps: Mutex<Vec<StepOutcome>>,
    finished: Mutex<Option<Finished>>,
}

impl EventSink for Buffer {
    fn on_event(&self, event: &Event<'_>) {
        match event {
            Event::StepFinished { outcome, .. } => {
                self.steps.lock().expect("buffer").push((*outcome).clone());
            }
            Event::RunFinished {
                result,
                run_dir,
                store_error,
                ..
            } => {
                *self.finished.lock().expect("buffer") = Some((
                    result.cloned(),
                    run_dir.map(Path::to_path_buf),
                    store_error.map(str::to_string),
                ));
            }
            _ => {}
        }
    }
}

impl Buffer {
    fn outcomes(&self) -> Vec<StepOutcome> {
        self.steps.lock().expect("buffer").clone()
    }

    /// Sends the last attempt's events on. A step that failed in an earlier
    /// attempt and passed now is flaky; with `fail_on_flaky` it fails, saying so.
    fn forward(
        &self,
        sink: &dyn EventSink,
        slug: &str,
        attempt: u32,
        earlier: &[(PathBuf, Vec<StepOutcome>)],
        fail_on_flaky: bool,
    ) {
        for mut o in self.outcomes() {
            let failed_before = earlier.iter().enumerate().find_map(|(i, (_, steps))| {
                steps
                    .iter()
                    .find(|e| e.index == o.index && e.status == StepStatus::Fail)
                    .map(|e| (i + 1, e.error.clone().unwrap_or_default()))
            });
            match (o.status, failed_before) {
                (StepStatus::Pass, Some((n, err))) if fail_on_flaky => {
                    o.status = StepStatus::Fail;
                    o.error = Some(format!(
                        "flaky: failed on attempt {n} ({err}), passed on attempt {attempt}; --fail-on-flaky (HARSHJUDGE_FLAKY=fail) counts that as a failure"
                    ));
                }
                (StepStatus::Fail, Some(_)) => {
                    if let Some(e) = &mut o.error {
                        e.push_str(&format!(
                            "\n  (attempt {attempt}; all {attempt} attempts failed)"
                        ));
                    }
                }
                _ => {}
            }
            sink.on_event(&Event::StepFinished { slug, outcome: &o });
        }
        if let Some((result, dir, err)) = self.finished.lock().expect("buffer").take() {
            sink.on_event(&Event::RunFinished {
                slug,
                result: result.as_ref(),
                run_dir: dir.as_deref(),
                store_error: err.as_deref(),
            });
        }
    }
}

/// Skips every step of a scenario that never started because the suite was interrupted.
fn not_run(sink: &HarnessSink, store: &Store, def: &ScenarioDef, reason: &str) {
    for (i, step) in def.steps.iter().enumerate() {
        let outcome = StepOutcome {
            index: i + 1,
            id: crate::store::StepId::from_index(i + 1).expect("≤ 99 steps"),
            title: step.title.to_string(),
            status: StepStatus::Skipped,
            duration: Default::default(),
            error: None,
            location: None,
            reason: Some(format!("not run: {reason}")),
            evidence_dir: store.dir().to_path_buf(),
        };
        sink.on_event(&Event::StepFinished {
            slug: def.slug,
            outcome: &outcome,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_names() {
        assert_eq!(
            step_test_name("checkout", 1, "Add two items to the cart"),
            "checkout::01_add_two_items_to_the_cart"
        );
        assert_eq!(step_test_name("a", 12, "Pay — with €!"), "a::12_pay_with");
        assert_eq!(step_test_name("a", 3, "!!!"), "a::03_step");
    }

    #[test]
    fn dedent_keeps_relative_indentation() {
        assert_eq!(
            dedent("{\n        let x = 1;\n            y();\n    }"),
            "{\n    let x = 1;\n        y();\n}"
        );
    }
}
