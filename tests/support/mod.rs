//! Running the fixture and example suites: built once per test process by
//! cargo, then run as `cargo test` runs them (`run_suite`), or by a real
//! `cargo test` or `cargo nextest run` where the command is the point.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub mod cross_site;
pub mod engines;
pub mod markdown;
pub mod mcp_calls;
pub mod page;
pub mod play;
mod png;
#[allow(unused_imports)] // the areas whose apps serve images
pub use png::png;
pub mod sources;
#[path = "../../benches/support/wdcount.rs"]
pub mod wdcount;
// The chromedriver of tests/support/chromedriver.rs, which wdcount (shared
// with the benches) loads.
#[allow(unused_imports)] // not every area starts a chromedriver of its own
pub use wdcount::chromedriver;

/// The Python that drives the third-party clients (MCP SDK, JUnit readers):
/// `HARSHJUDGE_TEST_PYTHON` (`cargo xtask test` sets it to `target/py-venv`'s),
/// else `python3` on PATH.
pub fn python() -> String {
    std::env::var("HARSHJUDGE_TEST_PYTHON")
        .ok()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| "python3".into())
}

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The target directory this test binary was built in (`target/`, or
/// `CARGO_TARGET_DIR`'s). The fixture suites build there too: a nested cargo
/// command finds the library already built by the tests' own build and
/// compiles only the suite. The outer `cargo test` releases its lock on the
/// directory while the tests run (cargo-nextest has exited by then), and
/// cargo's lock makes nested builds of parallel test binaries wait for each
/// other instead of racing.
pub fn target_dir() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).to_path_buf()
}

/// The package selection of every nested cargo command: the whole workspace,
/// as `cargo xtask test` builds the tests. Cargo unifies the features of the
/// dependencies over the packages selected; with `-p harshjudge-workspace`
/// alone they differ (rmcp's client, regex-automata's, …), which built the
/// library and half its dependencies a second time.
pub const WORKSPACE: &str = "--workspace";

/// `cargo ARGS` for a nested command: in the workspace, into [`target_dir`],
/// without the variables of the outer run that would change what the inner
/// one does (cargo's and nextest's for a test process: `rlibs::fresh_env`;
/// the suite's base URL and timeouts).
pub fn cargo(args: &[&str]) -> Command {
    let mut cmd = nested(env!("CARGO"));
    cmd.args(args).env("CARGO_TARGET_DIR", target_dir());
    cmd
}

/// `program` started by a test for a nested run: in the workspace, without
/// the variables of the outer run ([`cargo`] says which).
fn nested(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    rlibs::fresh_env(&mut cmd);
    cmd.current_dir(workspace())
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("HARSHJUDGE_STEP_TIMEOUT")
        .env_remove("HARSHJUDGE_TIMEOUT");
    cmd
}

/// `cargo nextest run --workspace --test NAME` (see [`WORKSPACE`]), evidence
/// written under `hj_dir`; the caller adds its flags, filter and environment.
pub fn nextest(test: &str, hj_dir: &Path) -> Command {
    let mut cmd = cargo(&["nextest", "run", WORKSPACE, "--test", test]);
    cmd.env("HARSHJUDGE_DIR", hj_dir);
    cmd
}

/// A real `cargo test --workspace --test NAME -- ARGS` (see [`WORKSPACE`]),
/// evidence written under `hj_dir`: for what is about cargo's own command
/// (the README's sample). Other tests use [`run_suite`].
pub fn cargo_test(test: &str, hj_dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Run {
    let mut cmd = cargo(&["test", "--quiet", WORKSPACE, "--test", test, "--"]);
    cmd.args(args).env("HARSHJUDGE_DIR", hj_dir);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    Run::from(cmd.output().expect("cargo runs"))
}

/// What `cargo test --workspace --test NAME -- ARGS` runs once the target is
/// built: its test binary ([`test_binary`]), started as cargo starts it (in
/// the package's folder, with `CARGO_MANIFEST_DIR`, without the outer run's
/// variables), evidence written under `hj_dir`. Not through cargo itself:
/// a nested `cargo test` cost 130 ms of CPU for its look at the workspace's
/// fingerprints, with 400 of them in a run of the suite and browser tests.
/// The exit code is the harness's own (`0`, `101` when a test failed, `2`
/// when the run stopped before its tests), as `cargo test` passes it on; a
/// binary killed by a signal gives `-1` here, where cargo says `101`.
pub fn run_suite(test: &str, hj_dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Run {
    let mut cmd = suite_command(test);
    cmd.args(args).env("HARSHJUDGE_DIR", hj_dir);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    Run::from(cmd.output().expect("the suite runs"))
}

/// The test binary of target `test`, set up as `cargo test` starts it: in
/// the workspace's folder, `CARGO_MANIFEST_DIR` set to it, without the
/// variables of the outer run (as [`cargo`]).
pub fn suite_command(test: &str) -> Command {
    let mut cmd = nested(test_binary(test));
    cmd.env("CARGO_MANIFEST_DIR", workspace());
    cmd
}

/// The path of a test target's binary, built (once per test process) into
/// [`target_dir`]: the library is there already from the tests' own build,
/// so only the suite compiles, if anything. Run directly, a signal sent to it
/// reaches the harness, not cargo.
pub fn test_binary(test: &str) -> PathBuf {
    static FOUND: OnceLock<std::sync::Mutex<std::collections::HashMap<String, PathBuf>>> =
        OnceLock::new();
    let found = FOUND.get_or_init(Default::default);
    // A test that panicked while looking (a failed build) leaves nothing
    // half done in the map: the next one asks cargo again.
    let mut found = found.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = found.get(test) {
        return p.clone();
    }
    let out = cargo(&[
        "test",
        "--quiet",
        "--no-run",
        "--message-format=json",
        WORKSPACE,
        "--test",
        test,
    ])
    .output()
    .expect("cargo runs");
    assert!(
        out.status.success(),
        "building {test} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["target"]["name"] == test
            && let Some(exe) = v["executable"].as_str()
        {
            let exe = PathBuf::from(exe);
            found.insert(test.to_string(), exe.clone());
            return exe;
        }
    }
    panic!(
        "no executable for test target {test}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A process of the test's own, killed and reaped when it is dropped: gone
/// however the test ends, a failed assertion included.
pub struct KillOnDrop(pub std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Self {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

pub fn json(path: impl AsRef<Path>) -> serde_json::Value {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        !text.ends_with('\n'),
        "{}: JSON is written without a trailing newline",
        path.display()
    );
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn yaml(path: impl AsRef<Path>) -> serde_json::Value {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The run folders of a scenario, oldest first.
/// The one run of `slug` (a test that ran it once), its folder.
pub fn only_run(hj: &Path, slug: &str) -> PathBuf {
    let mut all = runs(hj, slug);
    assert_eq!(
        all.len(),
        1,
        "one run of {slug} in {}: {all:?}",
        hj.display()
    );
    all.pop().unwrap()
}

pub fn runs(hj: &Path, slug: &str) -> Vec<PathBuf> {
    let dir = hj.join("scenarios").join(slug).join("runs");
    let mut v: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .map(|e| e.unwrap().path())
            // `.{runId}.{pid}-{n}.tmp`: a run being created, not a run yet.
            .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
            .collect(),
        Err(_) => vec![],
    };
    v.sort();
    v
}

/// Every file under `dir`, relative, sorted.
pub fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let mut out = vec![];
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Every `.json` and `.yaml` file under `dir` parses.
pub fn all_files_parse(dir: &Path) {
    // `.{name}.{pid}-{n}.tmp`: being written (or left by a killed process), not a file of the store.
    let temporary = |f: &str| {
        f.split('/')
            .any(|c| c.starts_with('.') && c.ends_with(".tmp"))
    };
    for f in tree(dir).into_iter().filter(|f| !temporary(f)) {
        let p = dir.join(&f);
        if f.ends_with(".json") {
            let text = std::fs::read_to_string(&p).unwrap();
            serde_json::from_str::<serde_json::Value>(&text)
                .unwrap_or_else(|e| panic!("{f} does not parse: {e}\n{text}"));
        } else if f.ends_with(".yaml") {
            let text = std::fs::read_to_string(&p).unwrap();
            serde_saphyr::from_str::<serde_json::Value>(&text)
                .unwrap_or_else(|e| panic!("{f} does not parse: {e}\n{text}"));
        }
    }
}

/// Builds the `harshjudge-mcp` binary and returns its path: built as the
/// workspace's tests build it (for harshjudge-mcp's own `tests/cli.rs`, into
/// [`target_dir`]), so that it is there already. A `cargo build` would
/// unify features without the dev-dependencies and compile the library again.
pub fn mcp_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let out = cargo(&["test", "--quiet", "--no-run", WORKSPACE, "--test", "cli"])
                .output()
                .expect("cargo runs");
            assert!(
                out.status.success(),
                "building harshjudge-mcp failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            target_dir().join("debug").join("harshjudge-mcp")
        })
        .clone()
}

/// This test binary's browsers: its tests share one chromedriver, as a
/// suite's scenarios do (the harness's run owns one `Browsers`). Not the
/// nextest run's one Chromium, as the harness's are: one per test process
/// measured no more CPU than that (the browser binary: 424 CPU-s against
/// 436), and a test's own browser is one a test can kill or count.
pub fn browsers() -> &'static harshjudge::browser::Browsers {
    static BROWSERS: std::sync::LazyLock<harshjudge::browser::Browsers> =
        std::sync::LazyLock::new(harshjudge::browser::Browsers::new);
    &BROWSERS
}

pub mod rlibs;
#[allow(unused_imports)]
pub use rlibs::rustc;

/// The rlibs of the libraries `names` as test target `test`'s own build made
/// them, and their deps folder (see tests/support/rlibs.rs).
pub fn rlibs(test: &str, names: &[&str]) -> (Vec<(String, PathBuf)>, PathBuf) {
    rlibs::rlibs(&workspace(), &target_dir(), test, names)
}

mod dashboards;
pub use dashboards::dashboards_of;

/// Waits up to `secs` for the dashboards of `root` to end; returns those left.
pub fn dashboards_left(root: &Path, secs: u64) -> Vec<u32> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        let left = dashboards_of(root);
        if left.is_empty() || std::time::Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The demo app served by its binary (`demo-cli serve`), with the pages of a
/// `DEMO_APP_VARIANT` ("" = as written); killed when dropped.
pub struct ServedDemo {
    child: std::process::Child,
    /// Its base URL, `http://127.0.0.1:PORT`.
    pub url: String,
}

impl Drop for ServedDemo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `demo-cli serve` on a free port with `DEMO_APP_VARIANT=variant`.
pub fn serve_demo(variant: &str) -> ServedDemo {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_demo-cli"))
        .args(["serve", "--port", "0"])
        .env("DEMO_APP_VARIANT", variant)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("demo-cli serve");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    ServedDemo { child, url }
}

/// The variable a test sets on a suite it starts, which every process the
/// suite starts inherits: [`started_for`] finds them by it.
pub const PROCESS_MARK: &str = "HARSHJUDGE_TEST_PROCESS_MARK";

/// Waits until the newest run of scenario `slug` under `root` is at step
/// `step` (its `skill-state.yaml`), while `child` (the run) goes on; fails
/// when `child` ends first or after `within`.
pub fn wait_until_at_step(
    root: &Path,
    slug: &str,
    step: u32,
    child: &mut std::process::Child,
    within: std::time::Duration,
) {
    let start = std::time::Instant::now();
    let at = format!("currentStep: {step}");
    while !runs(&root.join(".harshJudge"), slug)
        .first()
        .is_some_and(|r| {
            std::fs::read_to_string(r.join("skill-state.yaml")).is_ok_and(|s| s.contains(&at))
        })
    {
        assert!(start.elapsed() < within, "{slug} never reached step {step}");
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// What is left under `root` once a run ended: processes started for it
/// (waited for up to 10 s, then killed) and the library's temporary folders
/// in `root/t` (its `browser_marker`).
pub fn left_behind(root: &Path) -> (Vec<(u32, String)>, Vec<PathBuf>) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut left = started_for(root);
    while !left.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
        left = started_for(root);
    }
    for (pid, _) in &left {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    let folders = std::fs::read_dir(root.join("t"))
        .unwrap()
        .flatten()
        .filter(|e| is_library_folder(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect();
    (left, folders)
}

/// Live processes started for `root` (marked by [`PROCESS_MARK`]`=root`, or
/// naming `root` on their command line), zombies aside: (pid, command line).
pub fn started_for(root: &Path) -> Vec<(u32, String)> {
    let root_s = root.display().to_string();
    let mark = format!("{PROCESS_MARK}={root_s}\0");
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let zombie = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next())
            == Some("Z");
        if zombie {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        if environ.windows(mark.len()).any(|w| w == mark.as_bytes()) || cmdline.contains(&root_s) {
            out.push((pid, cmdline));
        }
    }
    out
}

/// Processes descended from `root` (including it).
pub fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of = std::collections::HashMap::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            && let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..])
            && let Some(ppid) = rest
                .split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u32>().ok())
        {
            parent_of.insert(pid, ppid);
        }
    }
    let mut out = vec![root];
    let mut changed = true;
    while changed {
        changed = false;
        for (pid, ppid) in &parent_of {
            if out.contains(ppid) && !out.contains(pid) {
                out.push(*pid);
                changed = true;
            }
        }
    }
    out
}

/// Whether `pid` is a live process (not gone, not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().next().map(str::to_string));
            state.as_deref() != Some("Z")
        }
        Err(_) => false,
    }
}

/// The right to run this binary's own scenarios in this process and to set
/// the `HARSHJUDGE_*` variables they read ([`in_process`]); while it is held,
/// no other test of the binary does either.
pub struct InProcess {
    _alone: std::sync::MutexGuard<'static, ()>,
    saved: Vec<(std::ffi::OsString, std::ffi::OsString)>,
}

/// Waits until no other test of this binary runs scenarios in process, then
/// holds that right until dropped; the drop puts the `HARSHJUDGE_*`
/// variables back as they were. Under `cargo nextest run` each test has a
/// process of its own; under `cargo test` the modules of `tests/in_process`
/// share one, and their runs and environments must not mix.
pub fn in_process() -> InProcess {
    static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A test that panicked while holding it left nothing half done that the
    // next one relies on: the variables are put back by the drop.
    let alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    InProcess {
        _alone: alone,
        saved: harshjudge_vars(),
    }
}

fn harshjudge_vars() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    std::env::vars_os()
        .filter(|(k, _)| k.as_encoded_bytes().starts_with(b"HARSHJUDGE_"))
        .collect()
}

impl Drop for InProcess {
    fn drop(&mut self) {
        // SAFETY: the lock is still held: no test of this binary runs
        // scenarios or reads these variables meanwhile.
        unsafe {
            for (k, _) in harshjudge_vars() {
                std::env::remove_var(k);
            }
            for (k, v) in &self.saved {
                std::env::set_var(k, v);
            }
        }
    }
}

/// `harness::run_with` (the `main!` path without a new process) of this
/// test binary's own scenarios as suite `name` with the flags and filters
/// `args`, its flags read from `args` alone; its exit code. Call it while
/// holding [`in_process`].
pub fn run_line(name: &'static str, args: &[&str]) -> i32 {
    let line = std::iter::once(name).chain(args.iter().copied());
    let (rest, flags) =
        harshjudge::harness::flags::SuiteFlags::split(line.map(str::to_string)).unwrap();
    let args = harshjudge::harness::Arguments::from_iter(rest);
    let pkg = harshjudge::harness::Package::new(name, env!("CARGO_MANIFEST_DIR"));
    harshjudge::harness::run_with(pkg, &args, &flags)
}

/// One `--browser BROWSER FILTER...` run of this test binary's own
/// scenarios in this process ([`run_line`]): the scenarios any of `filters`
/// selects (libtest's filters), one thread, one browser for them all,
/// evidence under `hj`; its exit code. Callers run these one after the other
/// while holding [`in_process`] (see `in_process_env`).
pub fn run_in_process(name: &'static str, hj: &Path, browser: &str, filters: &[&str]) -> i32 {
    // SAFETY: the runs are sequential, under the caller's `in_process`: no
    // other test of the binary reads the environment meanwhile.
    unsafe {
        std::env::set_var("HARSHJUDGE_DIR", hj);
    }
    let started = std::time::Instant::now();
    let mut args = vec!["--quiet", "--test-threads", "1", "--browser", browser];
    args.extend_from_slice(filters);
    let code = run_line(name, &args);
    // Where a test's minutes go (issue 40): shown by nextest with its output.
    eprintln!(
        "in-process run of {} on {browser}: exit {code} in {:.1?}",
        filters.join(" "),
        started.elapsed()
    );
    code
}

/// A panic's message (empty when it is not text).
pub fn panic_text(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Runs the scenarios `filter` selects of the test binary `name` in process
/// on every engine (Chromium over the DevTools protocol, Firefox over
/// WebDriver BiDi, WebKit over classic WebDriver) against `base`, each into
/// `dir/{browser}`, and checks each run with `check(browser, its store
/// folder, the exit code)`. Every engine runs and is checked even after one
/// failed; the test fails naming each engine's failure.
pub fn on_every_engine(
    name: &'static str,
    base: &str,
    dir: &Path,
    filter: &str,
    check: impl Fn(&str, &Path, i32),
) {
    let mut failed = Vec::new();
    {
        let _alone = in_process();
        in_process_env(base);
        for browser in ["chromium", "firefox", "webkit"] {
            let hj = dir.join(browser);
            let code = run_in_process(name, &hj, browser, &[filter]);
            let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check(browser, &hj, code)
            }));
            if let Err(e) = checked {
                failed.push(format!("- {browser}: {}", panic_text(&*e)));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Whether `name`, in a suite's temporary folder, is one of harshjudge's
/// folders: a browser's or a driver's (`harshjudge-…`), or a nextest run's
/// shared Chromium (`hj-chromium-…`).
pub fn is_library_folder(name: &str) -> bool {
    name.starts_with("harshjudge-") || name.starts_with("hj-")
}

/// A folder made in `dir` for a suite's `TMPDIR`, to mark the browsers it
/// starts (their folders and command lines carry it). Asserted short enough
/// that harshjudge makes the browsers' folders in it: under a longer one it
/// makes them in `/tmp` (Chromium's socket under the longest of them, the
/// run's shared `hj-chromium-{16 hex}`, would pass 107 bytes:
/// `process::browser_temp_dir`), and a test looking for them in the marker
/// would find nothing, passing for nothing.
pub fn browser_marker(dir: &Path, name: &str) -> PathBuf {
    let marker = dir.join(name);
    std::fs::create_dir_all(&marker).unwrap();
    let longest = marker.as_os_str().len()
        + "/hj-chromium-0123456789abcdef".len()
        + "/org.chromium.Chromium.XXXXXX/SingletonSocket".len();
    assert!(
        longest <= 107,
        "{} is too long a TMPDIR for the browsers' folders to be made in it ({longest} bytes to Chromium's socket)",
        marker.display()
    );
    marker
}

thread_local! {
    /// The folders `shared_tempdir` made on this thread (a test's thread).
    static SHARED_TEMPDIRS: std::cell::RefCell<Vec<PathBuf>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A temporary folder for the run that one test's facts share. That run is
/// kept in a `static` (made once, by the first fact that reads it), and a
/// static is never dropped: a `TempDir` there would stay in the system's
/// temporary folder after every test run. The folder is removed by `facts`
/// when the test that made it (on its thread) has checked its facts, passed
/// or failed.
pub fn shared_tempdir() -> PathBuf {
    let dir = tempfile::tempdir().unwrap().keep();
    SHARED_TEMPDIRS.with(|dirs| dirs.borrow_mut().push(dir.clone()));
    dir
}

/// Checks the facts of one expensive shared run (browser runs in process, a
/// nested suite run) in one test: under `cargo nextest run` every test is a
/// process of its own, so facts checked by tests of their own would each
/// make the run again. Every fact is checked even after one failed; the test
/// fails naming each failed fact with its message. The folders the shared
/// run made with `shared_tempdir` are removed once every fact is checked.
pub fn facts(list: &[(&str, fn())]) {
    let mut failed = Vec::new();
    for (name, check) in list {
        if let Err(e) = std::panic::catch_unwind(check) {
            failed.push(format!("- {name}: {}", panic_text(&*e)));
        }
    }
    SHARED_TEMPDIRS.with(|dirs| {
        for dir in dirs.borrow_mut().drain(..) {
            let _ = std::fs::remove_dir_all(dir);
        }
    });
    assert!(
        failed.is_empty(),
        "{} of {} facts failed:\n{}",
        failed.len(),
        list.len(),
        failed.join("\n")
    );
}

/// The `run_in_process` runs of a test binary's own scenarios, one per
/// (browser, filters) entry, one after the other, their evidence under one
/// folder, against the app at `base` (`in_process_env`). The scenarios of
/// one entry share its run and its browser, as a suite's do; a scenario whose
/// run must exit apart (one that fails on purpose) gets an entry of its own.
/// Made once: callers keep it in a `OnceLock` that their test's facts read;
/// its folder is a `shared_tempdir`.
pub struct InProcessRuns {
    /// The `.harshJudge` folder of every run.
    pub hj: PathBuf,
    codes: Vec<(&'static str, &'static [&'static str], i32)>,
}

/// One entry of [`InProcessRuns::run`]: a browser and the filters its run
/// selects scenarios by.
pub type InProcessRun = (&'static str, &'static [&'static str]);

impl InProcessRuns {
    pub fn run(name: &'static str, base: &str, list: &[InProcessRun]) -> Self {
        let hj = shared_tempdir().join("hj");
        let _alone = in_process();
        in_process_env(base);
        let codes = list
            .iter()
            .map(|&(browser, filters)| {
                (
                    browser,
                    filters,
                    run_in_process(name, &hj, browser, filters),
                )
            })
            .collect();
        InProcessRuns { hj, codes }
    }

    /// The run on `browser` whose filters hold `filter`: its filters and its
    /// exit code. Exactly one run may hold it.
    fn run_of(&self, browser: &str, filter: &str) -> (&'static [&'static str], i32) {
        let mut runs = self
            .codes
            .iter()
            .filter(|(b, f, _)| *b == browser && f.contains(&filter));
        let (_, filters, code) = runs
            .next()
            .unwrap_or_else(|| panic!("no run of {filter} on {browser}"));
        assert!(
            runs.next().is_none(),
            "{filter} is in more than one run on {browser}"
        );
        (filters, *code)
    }

    /// The exit code of the run on `browser` whose filters hold `filter`.
    pub fn code(&self, browser: &str, filter: &str) -> i32 {
        self.run_of(browser, filter).1
    }

    /// The run folder of scenario `slug`, which must have passed, in a run
    /// (the one on `browser` whose filters hold `filter`) that exited 0: a
    /// scenario of that run that failed fails this too, naming the run.
    pub fn passed(&self, slug: &str, browser: &str, filter: &str) -> PathBuf {
        let run = only_run(&self.hj, slug);
        let result = json(run.join("result.json"));
        assert_eq!(result["status"], "pass", "{slug}: {result}");
        let (filters, code) = self.run_of(browser, filter);
        assert_eq!(
            code,
            0,
            "{slug}: its run on {browser} ({}) exited {code}",
            filters.join(" ")
        );
        run
    }
}

/// Whether step `step` of `run` recorded a request to `path` that a route
/// fulfilled (its `network.json`).
pub fn fulfilled(run: &Path, step: usize, path: &str) -> bool {
    fulfilled_count(run, step, path) > 0
}

/// How many requests to `path` step `step` of `run` recorded as fulfilled by
/// a route (its `network.json`).
pub fn fulfilled_count(run: &Path, step: usize, path: &str) -> usize {
    let net = json(run.join(format!("step-{step:02}/evidence/network.json")));
    net.as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["url"].as_str().is_some_and(|u| u.contains(path)) && e["intercepted"] == "fulfilled"
        })
        .count()
}

/// The environment of `run_in_process` runs against the app at `base`: every
/// evidence kept, this machine's own drivers (no WebDriver URL, no browser
/// chosen by the environment: `--browser` chooses), console errors not failing
/// a step unless a scenario says so, and a hang failing in 30 s, not in the
/// default five minutes.
pub fn in_process_env(base: &str) {
    // SAFETY: called under the caller's `in_process`, before its runs: no
    // other test of the binary reads the environment meanwhile.
    unsafe {
        std::env::set_var("HARSHJUDGE_BASE_URL", base);
        std::env::set_var("HARSHJUDGE_EVIDENCE", "all");
        std::env::remove_var("HARSHJUDGE_WEBDRIVER_URL");
        std::env::remove_var("HARSHJUDGE_BROWSER");
        std::env::remove_var("HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS");
        std::env::set_var("HARSHJUDGE_STEP_TIMEOUT", "30s");
    }
}

/// The path of the next request on a kept-alive connection (its headers read
/// and dropped); `None` once the client closed it.
pub fn next_request_path(r: &mut impl std::io::BufRead) -> std::io::Result<Option<String>> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    loop {
        let mut h = String::new();
        r.read_line(&mut h)?;
        if h.trim_end().is_empty() {
            break;
        }
    }
    Ok(Some(
        line.split_whitespace().nth(1).unwrap_or("/").to_string(),
    ))
}

/// Writes one kept-alive HTTP answer: `status` (`200 OK`), its content type
/// and body, never cached.
pub fn respond(
    out: &mut impl std::io::Write,
    status: &str,
    kind: &str,
    body: &str,
) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\r\n{body}",
        body.len()
    )
}

/// A loopback HTTP server answering each connection on a thread of its own
/// with `answer`; its base URL (`http://127.0.0.1:PORT`).
/// Answers the requests of `stream` from `pages` (path, HTML), each page
/// `200 OK` and never cached; `/favicon.ico` is `204`, any other path `404`:
/// a test's small site, as `serve_with(|s| answer_pages(s, &[...]))` serves it.
#[allow(dead_code)]
pub fn answer_pages(stream: std::net::TcpStream, pages: &[(&str, &str)]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = stream.try_clone()?;
    let mut r = std::io::BufReader::new(stream);
    while let Some(path) = next_request_path(&mut r)? {
        let (status, body) = match pages.iter().find(|(p, _)| *p == path) {
            Some((_, html)) => ("200 OK", *html),
            None if path == "/favicon.ico" => ("204 No Content", ""),
            None => ("404 Not Found", "no"),
        };
        write!(
            out,
            "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\r\n{body}",
            body.len()
        )?;
    }
    Ok(())
}

pub fn serve_with(answer: fn(std::net::TcpStream) -> std::io::Result<()>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let _ = answer(stream);
            });
        }
    });
    base
}
