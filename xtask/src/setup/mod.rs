//! What `cargo xtask` needs on the machine, what it finds, and what it would run.
//!
//! [`TOOLS`] is the one table of everything the demo, the tests and the guide need. [`plan`]
//! is a pure function of that table and a [`Probe`] (the facts gathered about the
//! machine), so what the set-up detects and runs is unit-tested without a fresh
//! machine; `main.rs` gathers the facts and runs the plan.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

mod tools;

pub use tools::TOOLS;

/// The commands: the README's two, and the guide's build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// `cargo xtask demo`: the demo suite (`cargo test --test demo`).
    Demo,
    /// `cargo xtask test`: the whole test suite (`cargo nextest run --workspace`,
    /// then the doctests: `cargo test --doc --workspace`).
    Test,
    /// `cargo xtask docs`: the guide, `mdbook build docs` (into `target/book`).
    Docs,
}

/// Which commands need a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// `cargo xtask demo` and `cargo xtask test`.
    DemoAndTests,
    /// `cargo xtask test` alone.
    Tests,
    /// `cargo xtask docs` alone: CI (`cargo xtask test`) never installs it; the
    /// tests compile the guide's Rust blocks with rustc instead.
    Docs,
}

impl Need {
    /// Whether `task` needs a tool of this need.
    pub fn of(self, task: Task) -> bool {
        match self {
            Need::DemoAndTests => task != Task::Docs,
            Need::Tests => task == Task::Test,
            Need::Docs => task == Task::Docs,
        }
    }
}

/// Where a tool comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A Debian/Ubuntu package providing one of `commands`.
    Apt {
        /// The package.
        package: &'static str,
        /// Any of these on PATH means it is there.
        commands: &'static [&'static str],
    },
    /// `cargo install --locked {krate}`, providing `command`.
    Cargo {
        /// The crate, `name` or pinned, `name@version`.
        krate: &'static str,
        /// The binary it installs.
        command: &'static str,
    },
    /// A pinned Python package (`name==version`), installed into the project's
    /// virtual environment (`target/py-venv`).
    Pip {
        /// `name==version`.
        requirement: &'static str,
    },
    /// A pinned npm package (`name@version`) installed under `target/npm-tools`,
    /// providing the file `provides` (its `node_modules/.bin` is put on PATH).
    Npm {
        /// `name@version`.
        package: &'static str,
        /// The file that shows it is installed, relative to
        /// `target/npm-tools/node_modules`: a command (`.bin/NAME`) or a file the
        /// package carries.
        provides: &'static str,
    },
    /// Jenkins' `junit-10.xsd`, taken from pytest's sdist on PyPI into
    /// `target/junit-xsd/` (sha256-checked).
    PytestXsd,
}

/// One thing the demo, the tests or the guide need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tool {
    /// Where it comes from.
    pub source: Source,
    /// Which commands need it.
    pub need: Need,
    /// Who uses it.
    pub why: &'static str,
}

/// The pytest release whose sdist carries `junit-10.xsd`.
pub const PYTEST_SDIST: &str = "pytest==9.2.0";
/// The sha256 of that `junit-10.xsd`.
pub const XSD_SHA256: &str = "a1a816f58d1bf95ebabf371994df0b9246dee66ea9572fbec4f9296f1b2c0ff6";

/// Where things go, under the workspace root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The workspace root.
    pub root: PathBuf,
    /// The root package's fixture suites: its `[[test]]` targets with
    /// `test = false`, which tests build with a nested `cargo test --no-run`
    /// and then run
    /// ([`fixture_suites`] reads them from the manifest).
    pub fixture_suites: Vec<String>,
    /// cargo's bin folder, where `cargo install` puts a tool (on PATH or not).
    pub cargo_bin: Option<PathBuf>,
}

impl Layout {
    /// The project's own Python virtual environment.
    pub fn venv(&self) -> PathBuf {
        self.root.join("target").join("py-venv")
    }
    /// Its interpreter.
    pub fn venv_python(&self) -> PathBuf {
        self.venv().join("bin").join("python")
    }
    /// Where npm tools are installed.
    pub fn npm_prefix(&self) -> PathBuf {
        self.root.join("target").join("npm-tools")
    }
    /// The npm tools' packages.
    pub fn npm_modules(&self) -> PathBuf {
        self.npm_prefix().join("node_modules")
    }
    /// The commands of the npm tools.
    pub fn npm_bin(&self) -> PathBuf {
        self.npm_modules().join(".bin")
    }
    /// The built guide's first page (`build-dir` of `docs/book.toml`).
    pub fn book_index(&self) -> PathBuf {
        self.root.join("target").join("book").join("index.html")
    }
    /// `junit-10.xsd`.
    pub fn xsd(&self) -> PathBuf {
        self.root
            .join("target")
            .join("junit-xsd")
            .join("junit-10.xsd")
    }
}

/// The facts about the machine the plan depends on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// Running as root.
    pub root: bool,
    /// `sudo -n true` works (passwordless sudo).
    pub sudo: bool,
    /// `apt-get` is there (Debian, Ubuntu).
    pub apt: bool,
    /// The commands found (on PATH, or in cargo's bin folder for cargo tools).
    pub commands: BTreeSet<String>,
    /// `python3` can create a virtual environment (its `venv` and `ensurepip`
    /// modules are there: Debian ships them in `python3-venv`).
    pub python_venv: bool,
    /// The project's virtual environment: `None` when absent, else the Python
    /// distributions installed in it (name -> version).
    pub venv: Option<BTreeMap<String, String>>,
    /// `junit-10.xsd` is in place.
    pub xsd: bool,
}

/// One command of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// What it is for.
    pub why: String,
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Variables set for it.
    pub env: Vec<(String, String)>,
    /// Folders put in front of PATH for it.
    pub path_prepend: Vec<PathBuf>,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if !self.path_prepend.is_empty() {
            let dirs: Vec<String> = self
                .path_prepend
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            parts.push(format!("PATH={}:$PATH", dirs.join(":")));
        }
        for (k, v) in &self.env {
            parts.push(format!("{k}={}", quote(v)));
        }
        for (i, a) in self.argv.iter().enumerate() {
            // A script passed with -c is shown by its purpose, not its text.
            if i > 0 && self.argv[i - 1] == "-c" && a.contains('\n') {
                parts.push("'<script>'".into());
            } else {
                parts.push(quote(a));
            }
        }
        f.write_str(&parts.join(" "))
    }
}

fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@+,".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// What `cargo xtask` will do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Each needed tool and whether it was found.
    pub found: Vec<(String, bool)>,
    /// The commands to run, in order; the last [`Plan::tasks`] of them are the
    /// task itself.
    pub steps: Vec<Step>,
    /// How many of the last steps are the task (the tests or the demo): they
    /// run within the time limit, each even when one before failed.
    pub tasks: usize,
    /// Why nothing can run (root needed, no apt-get), with the exact command to
    /// run instead.
    pub blocked: Option<String>,
}

fn s(v: &str) -> String {
    v.to_string()
}

fn dist(requirement: &str) -> (&str, &str) {
    requirement.split_once("==").unwrap_or((requirement, ""))
}

fn label(source: &Source) -> String {
    match source {
        Source::Apt { package, commands } => format!("{} (apt: {package})", commands[0]),
        Source::Cargo { krate, .. } => format!("{krate} (cargo install)"),
        Source::Pip { requirement } => format!("{requirement} (pip, target/py-venv)"),
        Source::Npm { package, .. } => format!("{package} (npm, target/npm-tools)"),
        Source::PytestXsd => format!("junit-10.xsd ({PYTEST_SDIST} sdist, target/junit-xsd)"),
    }
}

/// Decides what to install and run for `task` on the machine `probe` describes.
/// `extra` is passed on to the test runner (after its own arguments and `--`).
pub fn plan(
    task: Task,
    tools: &[Tool],
    probe: &Probe,
    layout: &Layout,
    cargo: &str,
    extra: &[String],
) -> Plan {
    let mut missing = survey(task, tools, probe);
    let needs_venv = missing.add_prerequisites(probe);
    let Missing {
        found,
        apt,
        cargo_crates,
        pip,
        npm,
        xsd,
        wants_python,
        wants_npm,
    } = missing;

    let mut steps = Vec::new();
    let mut blocked = None;
    if !apt.is_empty() {
        match apt_steps(&apt, probe) {
            Ok(apt_steps) => steps.extend(apt_steps),
            Err(why) => blocked = Some(why),
        }
    }
    for krate in &cargo_crates {
        steps.push(Step {
            why: format!("install {krate}"),
            argv: vec![s(cargo), s("install"), s("--locked"), s(krate)],
            env: vec![],
            path_prepend: vec![],
        });
    }
    let py = layout.venv_python().display().to_string();
    steps.extend(python_and_npm_steps(
        layout, &py, needs_venv, &pip, xsd, &npm,
    ));
    let tasks = task_steps(task, layout, cargo, extra, &py, wants_python, wants_npm);
    let tasks_len = tasks.len();
    steps.extend(tasks);
    if blocked.is_some() {
        steps.clear();
    }
    Plan {
        found,
        tasks: if blocked.is_some() { 0 } else { tasks_len },
        steps,
        blocked,
    }
}

/// What [`survey`] found missing for a task, by where it comes from.
struct Missing<'t> {
    /// Each needed tool and whether it was found.
    found: Vec<(String, bool)>,
    apt: Vec<&'t str>,
    cargo_crates: Vec<&'t str>,
    pip: Vec<&'t str>,
    npm: Vec<&'t str>,
    xsd: bool,
    /// A Python tool is needed (whether or not it is there).
    wants_python: bool,
    /// An npm tool is needed (whether or not it is there).
    wants_npm: bool,
}

/// Which of the tools `task` needs are on the machine, and what is missing.
fn survey<'t>(task: Task, tools: &'t [Tool], probe: &Probe) -> Missing<'t> {
    let needed: Vec<&Tool> = tools.iter().filter(|t| t.need.of(task)).collect();
    let has = |c: &str| probe.commands.contains(c);
    let installed = |req: &str| {
        let (name, version) = dist(req);
        probe
            .venv
            .as_ref()
            .and_then(|v| v.get(&name.to_lowercase()))
            .is_some_and(|v| v == version)
    };
    let npm_tool_there = |file: &str| has(&format!("npm-tools/{file}"));
    let mut found = Vec::new();
    let mut apt: Vec<&str> = Vec::new();
    let mut cargo_crates: Vec<&str> = Vec::new();
    let mut pip: Vec<&str> = Vec::new();
    let mut npm: Vec<&str> = Vec::new();
    let mut xsd = false;
    let mut wants_python = false;
    let mut wants_npm = false;
    for t in &needed {
        let present = match t.source {
            Source::Apt { commands, .. } => commands.iter().any(|c| has(c)),
            Source::Cargo { command, .. } => has(command),
            Source::Pip { requirement } => {
                wants_python = true;
                installed(requirement)
            }
            Source::Npm { provides, .. } => {
                wants_npm = true;
                npm_tool_there(provides)
            }
            Source::PytestXsd => {
                wants_python = true;
                probe.xsd
            }
        };
        found.push((label(&t.source), present));
        if present {
            continue;
        }
        match t.source {
            Source::Apt { package, .. } => apt.push(package),
            Source::Cargo { krate, .. } => cargo_crates.push(krate),
            Source::Pip { requirement } => pip.push(requirement),
            Source::Npm { package, .. } => npm.push(package),
            Source::PytestXsd => xsd = true,
        }
    }
    Missing {
        found,
        apt,
        cargo_crates,
        pip,
        npm,
        xsd,
        wants_python,
        wants_npm,
    }
}

impl Missing<'_> {
    /// Adds the packages the Python and npm tools need first; returns whether
    /// the project's virtual environment must be created.
    fn add_prerequisites(&mut self, probe: &Probe) -> bool {
        let has = |c: &str| probe.commands.contains(c);
        let needs_venv = (!self.pip.is_empty() || self.xsd) && probe.venv.is_none();
        if needs_venv && !has("python3") {
            self.apt.push("python3");
        }
        if needs_venv && !probe.python_venv {
            self.apt.push("python3-venv");
        }
        if !self.npm.is_empty() && !has("npm") {
            self.apt.extend(["nodejs", "npm"]);
        }
        needs_venv
    }
}

/// The `apt-get update` and `apt-get install` of the missing packages `apt`
/// (not empty), or why they cannot run here, with the command to run instead.
fn apt_steps(apt: &[&str], probe: &Probe) -> Result<Vec<Step>, String> {
    let list = apt.join(" ");
    if !probe.apt {
        return Err(format!(
            "missing: {list} (Debian/Ubuntu package names), and there is no apt-get here: install them with your system's package manager, then rerun this command"
        ));
    }
    if !probe.root && !probe.sudo {
        return Err(format!(
            "missing: {list}; installing them needs root (or passwordless sudo). Run:\n  sudo apt-get update && sudo apt-get install -y {list}\nthen rerun this command"
        ));
    }
    let prefix: Vec<String> = if probe.root {
        vec![]
    } else {
        vec![s("sudo"), s("-n")]
    };
    let with = |args: &[&str]| -> Vec<String> {
        let mut v = prefix.clone();
        if !probe.root {
            v.extend([s("env"), s("DEBIAN_FRONTEND=noninteractive")]);
        }
        v.extend(args.iter().map(|a| s(a)));
        v
    };
    let env = if probe.root {
        vec![(s("DEBIAN_FRONTEND"), s("noninteractive"))]
    } else {
        vec![]
    };
    let mut steps = Vec::new();
    steps.push(Step {
        why: s("refresh the package lists"),
        argv: with(&["apt-get", "update", "-q"]),
        env: env.clone(),
        path_prepend: vec![],
    });
    let mut install = vec!["apt-get", "install", "-y", "-q"];
    install.extend(apt);
    steps.push(Step {
        why: format!("install {list} from the distribution's packages"),
        argv: with(&install),
        env,
        path_prepend: vec![],
    });
    Ok(steps)
}

/// The steps that create the virtual environment, install the Python clients
/// `pip`, fetch the XSD and install the npm tools `npm`, as needed. `py` is the
/// virtual environment's Python.
fn python_and_npm_steps(
    layout: &Layout,
    py: &str,
    needs_venv: bool,
    pip: &[&str],
    xsd: bool,
    npm: &[&str],
) -> Vec<Step> {
    let mut steps = Vec::new();
    if needs_venv {
        steps.push(Step {
            why: s("create the project's Python virtual environment"),
            argv: vec![
                s("python3"),
                s("-m"),
                s("venv"),
                layout.venv().display().to_string(),
            ],
            env: vec![],
            path_prepend: vec![],
        });
    }
    if !pip.is_empty() {
        let mut argv = vec![
            s(py),
            s("-m"),
            s("pip"),
            s("install"),
            s("--quiet"),
            s("--disable-pip-version-check"),
        ];
        argv.extend(pip.iter().map(|r| s(r)));
        steps.push(Step {
            why: s("install the Python clients the tests drive into target/py-venv"),
            argv,
            env: vec![],
            path_prepend: vec![],
        });
    }
    if xsd {
        steps.push(Step {
            why: format!(
                "take junit-10.xsd out of {PYTEST_SDIST}'s sdist (PyPI) into target/junit-xsd/"
            ),
            argv: vec![
                s(py),
                s("-c"),
                xsd_script(),
                layout.xsd().display().to_string(),
            ],
            env: vec![],
            path_prepend: vec![],
        });
    }
    if !npm.is_empty() {
        let mut argv = vec![
            s("npm"),
            s("install"),
            s("--no-audit"),
            s("--no-fund"),
            s("--prefix"),
            layout.npm_prefix().display().to_string(),
        ];
        argv.extend(npm.iter().map(|p| s(p)));
        steps.push(Step {
            why: s("install the npm tools the tests drive into target/npm-tools"),
            argv,
            env: vec![],
            path_prepend: vec![],
        });
    }
    steps
}

/// The last steps, the task itself, with the tools' environment: for the
/// demo `cargo test --test demo`; for the tests `cargo nextest run
/// --workspace` (each test a process of its own, several at a time, grouped
/// by `.config/nextest.toml`), then the doctests, which nextest does not run;
/// for the guide `mdbook build docs`, cargo's bin folder on its PATH. `extra`
/// follows `--` on the first (mdbook takes it as its own arguments).
fn task_steps(
    task: Task,
    layout: &Layout,
    cargo: &str,
    extra: &[String],
    py: &str,
    wants_python: bool,
    wants_npm: bool,
) -> Vec<Step> {
    let mut env = vec![];
    let mut path_prepend = vec![];
    if task == Task::Test {
        if wants_python {
            env.push((s("HARSHJUDGE_TEST_PYTHON"), s(py)));
            path_prepend.push(layout.venv().join("bin"));
        }
        if wants_npm {
            path_prepend.push(layout.npm_bin());
        }
    }
    let step = |why: &str, args: &[&str], extra: &[String]| {
        let mut argv = vec![s(cargo)];
        argv.extend(args.iter().map(|a| s(a)));
        if !extra.is_empty() {
            argv.push(s("--"));
            argv.extend(extra.iter().cloned());
        }
        Step {
            why: s(why),
            argv,
            env: env.clone(),
            path_prepend: path_prepend.clone(),
        }
    };
    match task {
        Task::Docs => {
            let mut argv = vec![s("mdbook"), s("build"), s("docs")];
            argv.extend(extra.iter().cloned());
            vec![Step {
                why: s("build the guide into target/book"),
                argv,
                env: vec![],
                path_prepend: layout.cargo_bin.iter().cloned().collect(),
            }]
        }
        Task::Demo => vec![step(
            "run the demo suite",
            &["test", "--test", "demo"],
            extra,
        )],
        Task::Test => {
            let mut steps = vec![];
            if !layout.fixture_suites.is_empty() {
                // Built here, all at once (cargo builds them side by side),
                // each test's nested `cargo test --no-run` then finds its
                // suite fresh: built inside the tests, one after another
                // behind cargo's lock, they held the tests' slots meanwhile.
                // In the same command as every target nextest's own build
                // (`cargo test --no-run --workspace`) makes, which then finds
                // them fresh: one build, whose compilations and links overlap,
                // instead of two in a row (each ending on one core, linking).
                let mut args = vec![
                    "test",
                    "--no-run",
                    "--workspace",
                    "--lib",
                    "--bins",
                    "--tests",
                    "--examples",
                ];
                for suite in &layout.fixture_suites {
                    args.extend(["--test", suite.as_str()]);
                }
                steps.push(step(
                    "build the tests and the fixture suites they run (once, before them)",
                    &args,
                    &[],
                ));
            }
            steps.push(step(
                "run the whole test suite, a process per test (cargo-nextest)",
                &["nextest", "run", "--workspace"],
                extra,
            ));
            steps.push(step(
                "run the doctests (nextest runs none)",
                &["test", "--doc", "--workspace"],
                &[],
            ));
            steps
        }
    }
}

/// Whether `key` is one of the variables cargo sets for the xtask process
/// itself (`cargo xtask` runs it with `cargo run`: `CARGO_PKG_NAME=xtask`,
/// its manifest folder, …), which the steps must not inherit. ring's build
/// script reruns when they change; the tests' nested cargo commands run
/// without them (`tests/support/rlibs.rs`, `fresh_env`), so a step's build
/// made with them was out of date for the first nested command, which
/// rebuilt ring and relinked every binary above it in place, while other
/// tests ran them (28 tests failed with "No such file" in a fresh-clone run).
pub fn set_for_xtask(key: &str) -> bool {
    key.starts_with("CARGO_PKG_")
        || key.starts_with("CARGO_MANIFEST_")
        || key.starts_with("CARGO_CRATE_")
        || key.starts_with("CARGO_BIN_")
        || ["CARGO_PRIMARY_PACKAGE", "CARGO_RUSTC_CURRENT_DIR"].contains(&key)
}

/// Fixture suites whose source a test writes before it builds them (the
/// demo's healed scenarios, `target/heal-demo/web.rs`): not built ahead.
const BUILT_BY_THEIR_TESTS: &[&str] = &["heal_demo_suite"];

/// The names of the `[[test]]` targets of `manifest` (a Cargo.toml's text)
/// that say `test = false`, in their order: the fixture suites whose test
/// binaries tests run, but those in [`BUILT_BY_THEIR_TESTS`]. Read line by line (xtask has no TOML parser): a
/// table starts at a line `[…]`, keys are `key = value` lines.
pub fn fixture_suites(manifest: &str) -> Vec<String> {
    let mut found = vec![];
    let (mut in_test, mut name, mut not_a_test) = (false, None::<String>, false);
    let mut end = |in_test: bool, name: &mut Option<String>, not_a_test: bool| {
        if let Some(n) = name.take()
            && in_test
            && not_a_test
            && !BUILT_BY_THEIR_TESTS.contains(&n.as_str())
        {
            found.push(n);
        }
    };
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.starts_with('[') {
            end(in_test, &mut name, not_a_test);
            in_test = line == "[[test]]";
            not_a_test = false;
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        match (key.trim(), value.trim()) {
            ("name", v) => name = Some(v.trim_matches('"').to_string()),
            ("test", "false") => not_a_test = true,
            _ => {}
        }
    }
    end(in_test, &mut name, not_a_test);
    found
}

/// The Python script that fetches `junit-10.xsd` (argument: where to put it):
/// pytest's sdist from PyPI through pip, the file read out of it, its sha256
/// checked, written atomically.
pub fn xsd_script() -> String {
    format!(
        r#"import hashlib, os, subprocess, sys, tarfile, tempfile
dest = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                    "--no-binary", ":all:", "--no-deps", "{PYTEST_SDIST}", "-d", tmp], check=True)
    sdist = [f for f in os.listdir(tmp) if f.endswith(".tar.gz")][0]
    with tarfile.open(os.path.join(tmp, sdist)) as t:
        name = [n for n in t.getnames() if n.endswith("/testing/example_scripts/junit-10.xsd")][0]
        data = t.extractfile(name).read()
digest = hashlib.sha256(data).hexdigest()
if digest != "{XSD_SHA256}":
    sys.exit("junit-10.xsd from {PYTEST_SDIST} has sha256 " + digest + ", expected {XSD_SHA256}")
os.makedirs(os.path.dirname(dest), exist_ok=True)
with open(dest + ".tmp", "wb") as f:
    f.write(data)
os.replace(dest + ".tmp", dest)
"#
    )
}

/// The Python distributions of the table (to ask the virtual environment about).
pub fn pip_dists(tools: &[Tool]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|t| match t.source {
            Source::Pip { requirement } => Some(dist(requirement).0.to_lowercase()),
            _ => None,
        })
        .collect()
}

/// The commands of the tools `cargo install` installs (looked for in cargo's
/// bin folder too).
pub fn cargo_commands(tools: &[Tool]) -> Vec<&'static str> {
    tools
        .iter()
        .filter_map(|t| match t.source {
            Source::Cargo { command, .. } => Some(command),
            _ => None,
        })
        .collect()
}

/// The commands worth looking for on this machine for `tools`: theirs, plus
/// python3 and npm (what the Python and npm tools need).
pub fn commands_to_look_for(tools: &[Tool]) -> Vec<&'static str> {
    let mut out = vec!["python3", "npm"];
    for t in tools {
        match t.source {
            Source::Apt { commands, .. } => out.extend(commands),
            Source::Cargo { command, .. } => out.push(command),
            _ => {}
        }
    }
    out
}

/// The files that show the npm tools are installed (looked for in
/// [`Layout::npm_modules`]; the probe records them as `npm-tools/{file}`).
pub fn npm_files(tools: &[Tool]) -> Vec<&'static str> {
    tools
        .iter()
        .filter_map(|t| match t.source {
            Source::Npm { provides, .. } => Some(provides),
            _ => None,
        })
        .collect()
}

/// Where `cargo xtask demo` leaves its output (for the closing note).
pub fn demo_outputs(store: &Path) -> String {
    format!(
        "evidence:    {}\nHTML report: {}\nJUnit XML:   {}",
        store.join("scenarios").display(),
        store.join("report").join("index.html").display(),
        store.join("report").join("junit.xml").display()
    )
}

#[cfg(test)]
mod tests;
