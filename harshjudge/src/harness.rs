//! libtest-mimic glue: one trial per step (one per scenario under
//! cargo-nextest), libtest's command line, filtering, and the exit code.
//! It schedules scenarios and waits for their outcomes; executing steps is the
//! runner's job.
//!
//! Exit codes: [`EXIT_OK`], [`EXIT_FAILED`] (a step failed, as libtest),
//! [`EXIT_USAGE`] (bad settings or an invalid suite).

use std::collections::HashMap;
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
use crate::store::{ScenarioSpec, Slug, StepDoc, StepStatus, Store};

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
    /// `CARGO_MANIFEST_DIR`.
    pub manifest_dir: &'static str,
    /// Starts the app under test and returns its base URL (`main!(base_url = …)`);
    /// not called when `HARSHJUDGE_BASE_URL` is set.
    pub base_url: Option<fn() -> crate::Result<String>>,
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
}

impl EventSink for HarnessSink {
    fn on_event(&self, event: &Event<'_>) {
        match event {
            Event::StepFinished { slug, outcome } => {
                if let Some(slot) = self.slots.get(slug).and_then(|s| s.get(outcome.index - 1)) {
                    slot.fill((*outcome).clone());
                }
                if outcome.status == StepStatus::Fail {
                    let fn_name = self.fn_names.get(slug).copied().unwrap_or(slug);
                    let test = step_test_name(fn_name, outcome.index, &outcome.title);
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
                    status: result.map(|r| r.status.as_str().to_string()),
                    run_dir: run_dir.map(Path::to_path_buf),
                    store_error: store_error.map(str::to_string),
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
    RunHandle::start(store, &slug, spec.steps)
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

/// The harness entry point used by [`crate::main!`]: parses libtest's command
/// line, runs, and exits with [`EXIT_OK`], [`EXIT_FAILED`] or [`EXIT_USAGE`].
pub fn main(pkg: Package) -> ! {
    let args = Arguments::from_args();
    std::process::exit(run(pkg, &args))
}

/// Lists or runs every registered scenario as `args` say, printing like libtest,
/// and returns the exit code. Settings come from the environment (see the README).
pub fn run(pkg: Package, args: &Arguments) -> i32 {
    let scenarios = registry::all();
    if let Err(msg) = validate(&scenarios) {
        eprintln!("error: {msg}");
        return EXIT_USAGE;
    }
    let nextest = under_nextest();

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

    let package_root = PathBuf::from(pkg.manifest_dir);
    let mut settings = match Settings::from_env(&package_root, pkg.name) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let store = Store::new(&settings.dir);
    let any_selected = stop_after.iter().any(|n| *n > 0);
    if any_selected {
        // The base URL: HARSHJUDGE_BASE_URL, else the suite's own app
        // (main!(base_url = …)), else config.yaml. Only the variable's value is
        // written into a new config.yaml: a started app's port is not a setting.
        let init = store.ensure_initialized(pkg.name, &settings.base_url);
        if let Err(e) = init {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
        if settings.base_url.is_empty() {
            let resolved = match pkg.base_url {
                Some(start) => start().map_err(|e| {
                    format!("could not start the app under test (main!(base_url = …)): {e}")
                }),
                None => store
                    .read_config()
                    .map(|c| c.base_url)
                    .map_err(|e| e.to_string()),
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

    let fn_names = scenarios.iter().map(|d| (d.slug, d.fn_name)).collect();
    let sink = Arc::new(HarnessSink {
        slots,
        fn_names,
        summary: Mutex::new(Summary::default()),
    });
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
    let dispatcher = {
        let sink = sink.clone();
        let store = store.clone();
        let base_url = settings.base_url.clone();
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
                let run = match prepare(&store, def) {
                    Ok(run) => run,
                    Err(e) => {
                        fail_unstarted(&sink, &store, def, &e);
                        continue;
                    }
                };
                let shared = Shared::new(
                    def,
                    run,
                    base_url.clone(),
                    sink.clone(),
                    last,
                    limits.clone(),
                );
                let sink = sink.clone();
                let store = store.clone();
                tasks.push(tokio::spawn(async move {
                    let joined = tokio::spawn(runner::execute(shared)).await;
                    if let Err(e) = joined {
                        // A bug in the runner: never leave a trial waiting.
                        let msg = format!("internal error in the harshjudge runner: {e}");
                        fail_unstarted(&sink, &store, def, &msg);
                    }
                    drop(permit);
                }));
            }
            for t in tasks {
                let _ = t.await;
            }
        })
    };

    let conclusion = libtest_mimic::run(args, trials);
    let _ = rt.block_on(dispatcher);
    // No chromedriver or browser outlives the run.
    rt.block_on(crate::browser::shutdown());
    drop(rt);
    // Every file handed to the background writer is on disk before we exit.
    if let Err(e) = crate::store::flush_writes() {
        eprintln!("harshjudge: a file could not be written: {e}");
    }

    let summary = sink.summary.lock().expect("summary");
    let mut text = summary.render(store.dir());
    let runs: Vec<crate::report::junit::RunRef> = summary
        .runs
        .iter()
        .filter_map(|r| r.run_dir.clone())
        .map(|dir| crate::report::junit::RunRef { dir })
        .collect();
    if !runs.is_empty() {
        if let Some(path) = &settings.junit {
            match crate::report::junit::write(&store, &runs, path) {
                Ok(()) => text.push_str(&format!("junit: {}\n", path.display())),
                Err(e) => text.push_str(&format!("junit: could not be written: {e}\n")),
            }
        }
        if settings.html_report {
            match crate::report::html::write(store.dir()) {
                Ok(r) => text.push_str(&format!("report: {}\n", r.index.display())),
                Err(e) => text.push_str(&format!("report: could not be written: {e}\n")),
            }
        }
        if let Some(gh) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|v| !v.is_empty())
            && let Ok(md) = crate::report::junit::markdown(&store, &runs)
        {
            use std::io::Write;
            let appended = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&gh)
                .and_then(|mut f| f.write_all(md.as_bytes()));
            if let Err(e) = appended {
                text.push_str(&format!(
                    "GITHUB_STEP_SUMMARY ({}) could not be written: {e}\n",
                    std::path::Path::new(&gh).display()
                ));
            }
        }
    }
    if !text.is_empty() {
        if matches!(args.format, Some(FormatSetting::Json)) {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }
    if conclusion.has_failed() {
        EXIT_FAILED
    } else {
        EXIT_OK
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
