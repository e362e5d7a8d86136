//! libtest-mimic glue: one trial per step (one per scenario under
//! cargo-nextest), libtest's command line, and the exit code. It schedules
//! scenarios and waits for their outcomes; executing steps is the runner's job.
//!
//! An invocation is three parts: `plan.rs` (pure: what to list and run, from the
//! arguments and what earlier runs recorded), `exec` (prepare, repair, run
//! the jobs while libtest runs the trials) and `tail` (summary, reports, exit
//! code). `consumers` holds the harness's event consumers (trial slots,
//! summary, the retry buffer).
//!
//! Exit codes: [`EXIT_OK`], [`EXIT_FAILED`] (a step failed, as libtest),
//! [`EXIT_USAGE`] (bad settings or an invalid suite).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use libtest_mimic::Arguments;

use crate::harness::flags::SuiteFlags;
use crate::registry::{self, ScenarioDef};
use crate::run_settings::Settings;
use harshjudge_browser::settings::SettingError;
use harshjudge_store::store::{Slug, Store};

mod changed;
mod consumers;
mod error;
pub(crate) mod exec;
#[doc(hidden)]
pub mod flags;
mod outcomes;
pub(crate) mod plan;
mod rejudge;
mod setups;
pub(crate) mod shard;
mod signals;
pub(crate) mod tags;
mod tail;

pub(crate) use error::{HarnessError, Location, Site};

/// Every test passed.
pub const EXIT_OK: i32 = 0;
/// A step failed (libtest's code).
pub const EXIT_FAILED: i32 = 101;
/// Bad settings or an invalid suite (nothing ran).
pub const EXIT_USAGE: i32 = 2;

/// The future of a suite-level hook (`main!(before_all = f)`).
pub type HookFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = crate::error::Result> + Send>>;

/// A suite-level hook, `main!(before_all = f, after_all = g)` with
/// `async fn f() -> harshjudge::Result`: where it is and how to call it.
#[derive(Clone, Copy, Debug)]
pub struct SuiteHook {
    /// `before_all` or `after_all`.
    pub kind: &'static str,
    /// The function's path as written in `main!`.
    pub function: &'static str,
    /// The file of `main!`.
    pub file: &'static str,
    /// The line of `main!`.
    pub line: u32,
    /// Calls the function.
    pub run: fn() -> HookFuture,
}

impl SuiteHook {
    /// `before_all \`setup\` (tests/e2e.rs:40)`: how its failure names it.
    pub fn describe(&self) -> String {
        format!(
            "{} `{}` ({}:{})",
            self.kind, self.function, self.file, self.line
        )
    }
}

/// The package a test binary belongs to (given by [`crate::main!`]).
#[derive(Clone, Copy, Debug)]
pub struct Package {
    /// `CARGO_PKG_NAME`.
    pub name: &'static str,
    /// `CARGO_MANIFEST_DIR` when the binary was compiled. Only a hint: the
    /// package root is resolved at run time by `package_root` (a binary may run
    /// from a copied checkout or a restored CI cache).
    pub manifest_dir: &'static str,
    /// Starts the app under test and returns its base URL (`main!(base_url = …)`);
    /// not called when `HARSHJUDGE_BASE_URL` is set.
    pub base_url: Option<fn() -> crate::error::Result<String>>,
    /// The app under test, started by the suite (`main!(web_server = …)`); not
    /// started when `HARSHJUDGE_BASE_URL` is set.
    pub web_server: Option<fn() -> crate::server::WebServer>,
    /// Runs once before the first scenario (`main!(before_all = …)`).
    pub before_all: Option<SuiteHook>,
    /// Runs once after the last scenario, whatever its outcome
    /// (`main!(after_all = …)`).
    pub after_all: Option<SuiteHook>,
    /// The environment variables holding the suite's secrets
    /// (`main!(secrets = […])`): masked everywhere ([`harshjudge_browser::secrets`]).
    pub secrets: &'static [&'static str],
    /// How long web-first assertions retry by default
    /// (`main!(expect_timeout = …)`; `HARSHJUDGE_EXPECT_TIMEOUT` wins).
    pub expect_timeout: Option<std::time::Duration>,
    /// Setup scenarios every other scenario depends on, by function name
    /// (`main!(setup = [fixture_database])`).
    pub setup: &'static [&'static str],
}

impl Package {
    /// A package with neither app nor hooks.
    pub const fn new(name: &'static str, manifest_dir: &'static str) -> Self {
        Package {
            name,
            manifest_dir,
            base_url: None,
            web_server: None,
            before_all: None,
            after_all: None,
            secrets: &[],
            expect_timeout: None,
            setup: &[],
        }
    }
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
pub(crate) fn package_root(pkg: &Package) -> Result<PathBuf, HarnessError> {
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        return if dir.is_dir() {
            Ok(std::path::absolute(&dir).unwrap_or(dir))
        } else {
            Err(HarnessError::ManifestDir { dir })
        };
    }
    let cwd = std::env::current_dir().map_err(|source| HarnessError::CurrentDir { source })?;
    if let Some(found) = cwd.ancestors().find(|d| declares_package(d, pkg.name)) {
        return Ok(found.to_path_buf());
    }
    if crate::run_settings::store_dir_is_set().unwrap_or(true) {
        return Ok(cwd);
    }
    Err(HarnessError::PackageNotFound {
        package: pkg.name,
        cwd,
    })
}

/// Whether this process runs under cargo-nextest, which runs every test in its
/// own process: then each scenario is one test, so no step runs twice.
/// nextest ≥ 0.9.138 sets `NEXTEST_RUN_ID` in both its list and run phases.
pub(crate) fn under_nextest() -> bool {
    std::env::var_os("NEXTEST_RUN_ID").is_some()
        || std::env::var_os("NEXTEST").is_some_and(|v| v == "1")
}

/// The name of the test of step `n` (1-based): `{fn}::{NN}_{snake title}`.
pub(crate) fn step_test_name(fn_name: &str, n: usize, title: &str) -> String {
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

/// Where a registered scenario is defined.
fn site(def: &ScenarioDef) -> Site {
    Site {
        fn_name: def.fn_name,
        at: Location {
            file: def.file,
            line: def.line,
        },
    }
}

fn validate(scenarios: &[&'static ScenarioDef]) -> Result<(), HarnessError> {
    let mut slugs: HashMap<&str, &ScenarioDef> = HashMap::new();
    let mut names: HashMap<&str, &ScenarioDef> = HashMap::new();
    for s in scenarios {
        if let Some(other) = slugs.insert(s.slug, s) {
            return Err(HarnessError::DuplicateSlug {
                slug: s.slug,
                first: site(other),
                second: site(s),
            });
        }
        if let Some(other) = names.insert(s.fn_name, s) {
            return Err(HarnessError::DuplicateName {
                name: s.fn_name,
                first: site(other),
                second: site(s),
            });
        }
        Slug::new(s.slug).map_err(|source| HarnessError::InvalidSlug {
            scenario: s.fn_name,
            source,
        })?;
    }
    Ok(())
}

/// `HARSHJUDGE_VERBOSE`: `1` lists every run (passing ones too) with its
/// folder in the end-of-run summary; by default only the runs that did not pass.
fn verbose_setting() -> Result<bool, SettingError> {
    harshjudge_browser::settings::env_bool("HARSHJUDGE_VERBOSE", false)
}

/// Declares the suite's secrets (`main!(secrets = …)`, `HARSHJUDGE_SECRETS`):
/// masked from then on in every file written and line printed.
fn declare_secrets(pkg: &Package) -> Result<(), HarnessError> {
    for (name, value) in harshjudge_browser::settings::secrets(pkg.secrets)? {
        harshjudge_browser::secrets::declare(&name, value.as_deref())?;
    }
    Ok(())
}

/// The harness entry point used by [`crate::main!`]: parses libtest's command
/// line, runs, and exits with [`EXIT_OK`], [`EXIT_FAILED`] or [`EXIT_USAGE`].
pub fn main(pkg: Package) -> ! {
    // Started again by itself to tear an invocation fixture down once a
    // nextest run ended (`runner/fixtures_shared.rs`).
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(crate::runner::fixtures_shared::TEARDOWN_ARG) {
        // Its output has nowhere to go, but what it records is masked.
        let _ = declare_secrets(&pkg);
        std::process::exit(crate::runner::fixtures_shared::tear_down_after_run(
            &args[1..],
        ));
    }
    let started = std::time::SystemTime::now();
    // Secrets first: from here on every line printed is masked.
    if let Err(e) = declare_secrets(&pkg) {
        std::process::exit(stopped(&pkg, started, false, &e.to_string()));
    }
    let tty = harshjudge_browser::secrets::stdio::enable();
    let (libtest_args, flags) = match SuiteFlags::split(std::env::args()) {
        Ok(v) => v,
        Err(e) => {
            let listing = std::env::args().any(|a| a == "--list");
            harshjudge_browser::secrets::stdio::exit(stopped(
                &pkg,
                started,
                listing,
                &e.to_string(),
            ));
        }
    };
    // libtest's own flags, parsed as libtest-mimic does, but an unknown one
    // ends the invocation here, where its reports say so (issue 37.4).
    let mut args = match <Arguments as clap::Parser>::try_parse_from(libtest_args) {
        Ok(args) => args,
        Err(e) if !e.use_stderr() => e.exit(), // --help
        Err(e) => {
            let listing = std::env::args().any(|a| a == "--list");
            let message = e.to_string();
            let first = message
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("error: ");
            harshjudge_browser::secrets::stdio::exit(stopped(&pkg, started, listing, first));
        }
    };
    // Masked, stdout is a pipe: libtest keeps the colours of the terminal.
    if tty && harshjudge_browser::secrets::any() && args.color.is_none() {
        args.color = Some(libtest_mimic::ColorSetting::Always);
    }
    harshjudge_browser::secrets::stdio::exit(run_with(pkg, &args, &flags))
}

/// Lists or runs every registered scenario as `args` say, printing like libtest,
/// and returns the exit code. Settings come from the environment (see the guide's
/// docs/src/settings.md).
pub fn run(pkg: Package, args: &Arguments) -> i32 {
    match SuiteFlags::from_env() {
        Ok(flags) => run_with(pkg, args, &flags),
        Err(e) => stopped(
            &pkg,
            std::time::SystemTime::now(),
            args.list,
            &e.to_string(),
        ),
    }
}

/// Lists or runs the registered scenarios with our flags as well as libtest's.
#[doc(hidden)]
pub fn run_with(pkg: Package, args: &Arguments, flags: &SuiteFlags) -> i32 {
    let started = std::time::SystemTime::now();
    if let Err(e) = declare_secrets(&pkg) {
        return stopped(&pkg, started, args.list, &e.to_string());
    }
    match invoke(pkg, args, flags, started) {
        Ok(code) => code,
        Err(e) => stopped(&pkg, started, args.list, &e.to_string()),
    }
}

/// The one end of an invocation stopped before any scenario (a bad flag or
/// setting, an invalid suite, an app under test that did not start): prints
/// `error: {message}` and, unless it was listing, writes its JUnit XML and
/// HTML report saying that this invocation failed and why, so neither keeps
/// the previous invocation's results alone. Returns [`EXIT_USAGE`].
fn stopped(pkg: &Package, started: std::time::SystemTime, listing: bool, message: &str) -> i32 {
    eprintln!("error: {message}");
    if listing {
        return EXIT_USAGE;
    }
    let error = harshjudge_store::report::junit::InvocationError {
        binary: harshjudge_browser::process::binary_name(),
        stage: "start".into(),
        message: message.to_string(),
        at: harshjudge_store::store::now_iso(),
    };
    for line in publish_error(pkg, started, error) {
        eprintln!("{line}");
    }
    EXIT_USAGE
}

/// Writes the reports of an invocation error where the settings put them
/// (read leniently: [`crate::run_settings::ReportPlaces`]); returns the lines to
/// print (`junit: …`, `report: …`, or why they could not be written).
fn publish_error(
    pkg: &Package,
    started: std::time::SystemTime,
    error: harshjudge_store::report::junit::InvocationError,
) -> Vec<String> {
    let root = match package_root(pkg) {
        Ok(root) => root,
        Err(e) => return vec![format!("harshjudge: no report written: {e}")],
    };
    let places = crate::run_settings::ReportPlaces::from_env(&root);
    let Some(dir) = places.dir else {
        return vec![
            "harshjudge: no report written: HARSHJUDGE_DIR cannot be read, so where the reports go is unknown".into(),
        ];
    };
    let store = Store::new(dir);
    let nextest = under_nextest();
    let mut lines = harshjudge_store::report::invocation::publish_error(
        &store,
        places.junit,
        places.html,
        nextest,
        started,
        error,
    );
    if nextest && let Err(e) = crate::server::announce_reports(store.dir(), &lines) {
        lines.push(format!(
            "harshjudge: the reports cannot be named after nextest's summary ({e})"
        ));
    }
    lines
}

/// [`run_with`], with a usage error (exit code 2) as `Err`.
fn invoke(
    pkg: Package,
    args: &Arguments,
    flags: &SuiteFlags,
    started: std::time::SystemTime,
) -> Result<i32, HarnessError> {
    let scenarios = setups::for_the_suite(registry::all(), pkg.setup)?;
    let scenarios = plan::per_browser(scenarios, &flags.browsers);
    validate(&scenarios)?;
    setups::validate(&scenarios)?;
    crate::runner::fixtures::validate_registered()?;
    // Every scenario the binary has, whatever is selected: what it no longer
    // has is marked removed in the report.
    let suite: Vec<&'static str> = scenarios.iter().map(|d| d.slug).collect();
    let nextest = under_nextest();
    // Settings and the previous invocation's checkpoint decide what runs
    // (`--resume`, `--last-failed`); listing needs neither.
    let (package_root, settings) = if args.list {
        (PathBuf::from(pkg.manifest_dir), None)
    } else {
        let root = package_root(&pkg)?;
        for warning in harshjudge_browser::settings::unknown_variables() {
            eprintln!("harshjudge: {warning}");
        }
        // Each layer reads its own variables; all are checked before anything runs.
        let settings = Settings::from_env(&root)?;
        let judge = harshjudge_store::judge::JudgeSettings::from_env()?;
        harshjudge_browser::set_suite_expect_timeout(pkg.expect_timeout)?;
        // `--headed` and `--slow-mo` for every browser of the invocation.
        harshjudge_browser::set_suite_watch(flags.headed, flags.slow_mo)?;
        harshjudge_browser::check_settings()?;
        harshjudge_browser::settings::VideoMode::from_env()?;
        harshjudge_browser::settings::watch::PauseMode::from_env()?;
        harshjudge_browser::settings::watch::PauseInput::from_env()?;
        harshjudge_browser::settings::watch::pause_timeout()?;
        (root, Some((settings, judge)))
    };
    let verbose = verbose_setting()?;
    let store = settings.as_ref().map(|(s, _)| Store::new(&s.dir));
    let binary = harshjudge_browser::process::binary_name();
    harshjudge_browser::configure_snapshots(&package_root, &binary, flags.update_snapshots);
    // Listing reads no settings otherwise: `--shard`'s durations' folder here.
    let listing_store = (flags.shard.is_some() && store.is_none())
        .then(|| self::package_root(&pkg).unwrap_or_else(|_| pkg.manifest_dir.into()))
        .and_then(|root: PathBuf| Settings::from_env(&root).ok())
        .map(|s| Store::new(&s.dir));
    // `--rejudge-run RUN_ID`: only the scenario that run belongs to.
    let scenarios = match (&flags.rejudge_run, &store) {
        (Some(run), Some(store)) => rejudge::owner(store, scenarios, run)?,
        _ => scenarios,
    };
    let recorded = plan::Recorded::read(
        store.as_ref(),
        store.as_ref().or(listing_store.as_ref()),
        &scenarios,
        flags,
        &binary,
    );
    let mut recorded = recorded;
    if let Some(reference) = &flags.only_changed {
        let root = match args.list {
            true => self::package_root(&pkg).unwrap_or_else(|_| package_root.clone()),
            false => package_root.clone(),
        };
        recorded.changed = Some(changed::ChangedFiles::read(&root, reference)?);
    }
    let mut plan = plan::plan(scenarios, args, flags, nextest, recorded, store.as_ref());
    // libtest-mimic takes one filter: from here on it filters as the plan selected.
    let args = &plan.libtest_args(args);
    let (trials, slots) = exec::trials(&plan);
    if args.list {
        let _ = libtest_mimic::run(args, trials);
        return Ok(EXIT_OK);
    }
    let (mut settings, judge) = settings.expect("settings are read unless listing");
    let store = store.expect("the store is known unless listing");
    let mut notes = plan.notes.clone();
    // Runs every reader passes over (a plain run, --resume, --last-failed,
    // the report): named once, with what is done with them.
    notes.extend(store.empty_results().iter().map(ToString::to_string));
    if flags.rejudging() {
        // Nothing runs: no app, no browser, no new run.
        let cx = rejudge::Context {
            store: &store,
            settings: &settings,
            judge: &judge,
            plan: &plan,
            flags,
            binary: &binary,
            notes,
            started,
            nextest,
            verbose,
        };
        return rejudge::run(cx, args, trials, slots);
    }
    if flags.resume {
        rejudge::complete_judgments(&store, &judge, &mut plan, args, &mut notes);
    }
    let log = if plan.any_selected() {
        let run = !plan.work().is_empty();
        exec::resolve_base_url(&pkg, &package_root, &store, &mut settings, run)?;
        notes.extend(exec::repair(&store));
        exec::checkpoint(&store, &binary, &suite, &plan, &mut notes)
    } else {
        None
    };
    let sink = exec::sink(&plan, slots, &store);
    let execution = exec::Execution {
        pkg: &pkg,
        package_root: &package_root,
        flags,
        plan: &plan,
        store: &store,
        settings: &settings,
        judge: &judge,
        sink: &sink,
        log: &log,
        notes: &notes,
    };
    let (conclusion, exiting) = exec::execute(execution, args, trials);
    let tail = tail::Tail {
        exiting,
        store: &store,
        settings: &settings,
        sink: &sink,
        log,
        started,
        nextest,
        verbose,
        json: tail::json_format(args),
        scenarios_of: (plan.scenarios.iter()).map(|d| (d.slug, *d)).collect(),
    };
    Ok(tail::finish(tail, &conclusion))
}

#[cfg(test)]
mod tests {
    use super::exec::dedent;
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

    #[test]
    fn an_invalid_suite_is_an_error_a_caller_can_match() {
        use crate::testing::{fake_def, fake_scenario};
        let a = fake_def("a", &["Open"]);
        let b = fake_scenario("b", &["Open"], a.run, |d| {
            d.slug = "a";
            d.line = 42;
        });
        match validate(&[a, b]) {
            Err(HarnessError::DuplicateSlug {
                slug,
                first,
                second,
            }) => {
                assert_eq!(slug, "a");
                assert_eq!((first.fn_name, second.fn_name), ("a", "b"));
                assert_eq!(second.at.line, 42);
            }
            other => panic!("{other:?}"),
        }
        let c = fake_scenario("c", &["Open"], a.run, |d| d.slug = "Not A Slug");
        let e = validate(&[c]).unwrap_err();
        assert!(
            matches!(&e, HarnessError::InvalidSlug { scenario: "c", .. }),
            "{e:?}"
        );
        assert!(e.to_string().starts_with("scenario `c`: "), "{e}");
        assert!(std::error::Error::source(&e).is_some());
    }
}
