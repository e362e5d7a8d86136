//! `cargo xtask demo` and `cargo xtask test`: the README's two commands; and
//! `cargo xtask docs`, the guide (docs/) built with mdBook.
//!
//! Each looks at the machine, installs what is missing (Chromium and chromedriver
//! from the distribution's packages; for the tests also cargo-nextest, the
//! Python clients in `target/py-venv`, Java and the npm tools in
//! `target/npm-tools`: the MCP Inspector and the Selenium Grid server), then runs `cargo test --test demo` or
//! `cargo nextest run --workspace` and `cargo test --doc --workspace`. `--dry-run` prints what it found
//! and would run. `docs` installs mdbook when missing (never `test`: the
//! tests compile the guide's Rust blocks with rustc) and runs `mdbook build
//! docs` into target/book. The tests run with a temporary folder of their own as `TMPDIR`
//! ([`leftovers`]): what they leave in it fails the task, named.
//! The decisions are [`setup::plan`], a pure function unit-tested in setup/tests.rs.

mod guard;
mod leftovers;
mod setup;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use setup::{Layout, Probe, TOOLS, Task};

const USAGE: &str = "usage: cargo xtask <demo|test|docs> [--dry-run] [-- ARGS...]
  demo     install Chromium + chromedriver if missing, run the demo suite (cargo test --test demo)
  test     install everything the tests need if missing, run cargo nextest run --workspace,
           then cargo test --doc --workspace
  docs     install mdbook if missing, build the guide (mdbook build docs) into target/book
  --dry-run  print what was found and what would run; change nothing
  ARGS     demo: passed to the demo suite (e.g. -- --shard 1/2);
           test: passed to cargo nextest run after `--` (test filters, e.g. -- harness::);
           docs: passed to mdbook build (e.g. -- --open)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (ours, extra) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], args[i + 1..].to_vec()),
        None => (&args[..], vec![]),
    };
    let mut task = None;
    let mut dry_run = false;
    for a in ours {
        match a.as_str() {
            "demo" if task.is_none() => task = Some(Task::Demo),
            "test" if task.is_none() => task = Some(Task::Test),
            "docs" if task.is_none() => task = Some(Task::Docs),
            "--dry-run" => dry_run = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("error: unexpected argument {other:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(task) = task else {
        eprintln!("error: say which command: demo, test or docs\n{USAGE}");
        return ExitCode::from(2);
    };
    let root = workspace_root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    let layout = Layout {
        fixture_suites: setup::fixture_suites(&manifest),
        root,
        cargo_bin: cargo_bin(),
    };
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let probe = probe(&layout);
    let plan = setup::plan(task, TOOLS, &probe, &layout, &cargo, &extra);

    let name = match task {
        Task::Demo => "demo",
        Task::Test => "test",
        Task::Docs => "docs",
    };
    println!(
        "xtask {name}: root: {}, passwordless sudo: {}, apt-get: {}",
        yes(probe.root),
        yes(probe.sudo),
        yes(probe.apt)
    );
    for (what, ok) in &plan.found {
        println!("  {} {what}", if *ok { "found  " } else { "missing" });
    }
    if let Some(why) = &plan.blocked {
        eprintln!("xtask {name}: cannot set up this machine: {why}");
        return ExitCode::from(1);
    }
    if dry_run {
        println!("would run (in {}):", layout.root.display());
        for (i, step) in plan.steps.iter().enumerate() {
            println!("  {}. {step}\n     # {}", i + 1, step.why);
        }
        return ExitCode::SUCCESS;
    }
    let first_task = plan.steps.len() - plan.tasks;
    for step in &plan.steps[..first_task] {
        println!("xtask {name}: {}\n  $ {step}", step.why);
        let code = run(step, &layout.root, None, None);
        if code != 0 {
            eprintln!(
                "xtask {name}: `{step}` failed (exit {code}); fix that and rerun `cargo xtask {name}`"
            );
            return ExitCode::from(1);
        }
    }
    // The task's steps (the tests, then the doctests; or the demo) within one
    // limit for them all; each runs even when one before failed, and the
    // first failure's exit code is the command's.
    let started = std::time::Instant::now();
    let mut code = 0;
    let tmp = match task {
        Task::Test => match leftovers::TestTmp::create(&std::env::temp_dir()) {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!(
                    "xtask test: could not make the tests' temporary folder in {}: {e}",
                    std::env::temp_dir().display()
                );
                return ExitCode::from(1);
            }
        },
        Task::Demo | Task::Docs => None,
    };
    for step in &plan.steps[first_task..] {
        println!("xtask {name}: {}\n  $ {step}", step.why);
        let left = TEST_LIMIT.saturating_sub(started.elapsed());
        let this = run(
            step,
            &layout.root,
            Some(left),
            tmp.as_ref().map(|t| t.dir.as_path()),
        );
        if code == 0 {
            code = this;
        }
    }
    if let Some(tmp) = tmp {
        let dir = tmp.dir.clone();
        let left = tmp.finish(leftovers::SETTLE);
        if !left.is_empty() {
            eprintln!(
                "xtask test: the tests left {} entries in their temporary folder ({}, now removed), {} s after they ended; a test that keeps a TempDir in a static (never dropped) or a process that outlives its test:\n  {}",
                left.len(),
                dir.display(),
                leftovers::SETTLE.as_secs(),
                left.join("\n  ")
            );
            if code == 0 {
                code = 1;
            }
        }
    }
    if task == Task::Demo {
        let store = match std::env::var("HARSHJUDGE_DIR") {
            Ok(d) if !d.trim().is_empty() => layout.root.join(d),
            _ => layout.root.join(".harshJudge"),
        };
        println!(
            "xtask demo: {}",
            setup::demo_outputs(&store).replace('\n', "\n  ")
        );
    }
    if task == Task::Docs && code == 0 {
        println!("xtask docs: the guide: {}", layout.book_index().display());
    }
    println!(
        "xtask {name}: {} in {:.0?} (exit {code})",
        if code == 0 { "done" } else { "failed" },
        started.elapsed()
    );
    ExitCode::from(code.clamp(0, 255) as u8)
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The workspace root (xtask/ is one of its members).
fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// How long the task's steps together may run (the tests and the doctests, or
/// the demo): the tests once took 20-25 minutes under `cargo test` on 2 cores,
/// build included, and 45 on a machine loaded by release builds beside it;
/// CI gives up at 90. Past the limit a test is hanging: what runs is listed
/// and killed ([`guard`]), before CI ends it saying nothing.
const TEST_LIMIT: std::time::Duration = std::time::Duration::from_secs(75 * 60);

/// Runs `step` in `root` with inherited stdio, within `limit` when given and
/// with `tmpdir` as its `TMPDIR` when given; its exit code (1 when it could
/// not start or ran past its limit).
fn run(
    step: &setup::Step,
    root: &Path,
    limit: Option<std::time::Duration>,
    tmpdir: Option<&Path>,
) -> i32 {
    let mut cmd = Command::new(&step.argv[0]);
    cmd.args(&step.argv[1..]).current_dir(root);
    if let Some(dir) = tmpdir {
        cmd.env("TMPDIR", dir);
    }
    // Not cargo's variables for this xtask process (`cargo xtask` is a
    // `cargo run`): see `setup::set_for_xtask`.
    for (k, _) in std::env::vars_os() {
        if k.to_str().is_some_and(setup::set_for_xtask) {
            cmd.env_remove(k);
        }
    }
    for (k, v) in &step.env {
        cmd.env(k, v);
    }
    if !step.path_prepend.is_empty() {
        let old = std::env::var_os("PATH").unwrap_or_default();
        let paths = step
            .path_prepend
            .iter()
            .cloned()
            .chain(std::env::split_paths(&old));
        if let Ok(p) = std::env::join_paths(paths) {
            cmd.env("PATH", p);
        }
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("could not start {}: {e}", step.argv[0]);
            return 1;
        }
    };
    let waited = match limit {
        Some(limit) => guard::wait_bounded(&mut child, limit),
        None => child.wait().map(guard::Waited::Exited),
    };
    match waited {
        Ok(guard::Waited::Exited(s)) => s.code().unwrap_or(1),
        Ok(guard::Waited::Hung(running)) => {
            eprintln!(
                "`{step}` ran past the task's limit ({} min for its steps together): a test hangs. What ran under it (pid, time running, command), killed now:\n{}",
                TEST_LIMIT.as_secs() / 60,
                running.join("\n")
            );
            1
        }
        Err(e) => {
            eprintln!("waiting for {}: {e}", step.argv[0]);
            1
        }
    }
}

/// Whether `cmd` runs and exits 0 (its output discarded).
fn succeeds(cmd: &mut Command) -> bool {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| is_executable(&d.join(name))))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// cargo's own bin folder (where `cargo install` puts things; cargo finds its
/// subcommands there even when it is not on PATH).
fn cargo_bin() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|h| h.join("bin"))
}

/// Gathers the facts [`setup::plan`] decides on.
fn probe(layout: &Layout) -> Probe {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let sudo = !root && on_path("sudo") && succeeds(Command::new("sudo").args(["-n", "true"]));
    let mut commands = BTreeSet::new();
    let installed_by_cargo = setup::cargo_commands(TOOLS);
    for c in setup::commands_to_look_for(TOOLS) {
        let in_cargo_bin = layout
            .cargo_bin
            .as_ref()
            .is_some_and(|b| is_executable(&b.join(c)));
        // cargo finds its subcommands there, the library looks there for
        // geckodriver, and `cargo xtask docs` runs mdbook with it on PATH.
        if on_path(c) || (installed_by_cargo.contains(&c) && in_cargo_bin) {
            commands.insert(c.to_string());
        }
    }
    for file in setup::npm_files(TOOLS) {
        if layout.npm_modules().join(file).is_file() {
            commands.insert(format!("npm-tools/{file}"));
        }
    }
    let python_venv = on_path("python3")
        && succeeds(Command::new("python3").args(["-c", "import venv, ensurepip"]));
    let py = layout.venv_python();
    let venv = is_executable(&py).then(|| {
        let script = "import importlib.metadata as m, sys\nfor d in sys.argv[1:]:\n    try:\n        print(d, m.version(d))\n    except Exception:\n        pass\n";
        let mut out = BTreeMap::new();
        if let Ok(o) = Command::new(&py)
            .arg("-c")
            .arg(script)
            .args(setup::pip_dists(TOOLS))
            .output()
        {
            for line in String::from_utf8_lossy(&o.stdout).lines() {
                if let Some((n, v)) = line.split_once(' ') {
                    out.insert(n.to_lowercase(), v.trim().to_string());
                }
            }
        }
        out
    });
    Probe {
        root,
        sudo,
        apt: on_path("apt-get"),
        commands,
        python_venv,
        venv,
        xsd: layout.xsd().is_file(),
    }
}
