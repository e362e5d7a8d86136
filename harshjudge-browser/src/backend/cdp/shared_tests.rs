//! The shared Chromium of a nextest run: what a process does with what is
//! published, and against a real Chromium: one browser for the processes of
//! a run (child processes of this test binary under a `/bin/sh` standing for
//! nextest's runner), isolated contexts, a killed participant's contexts
//! gone, a killed browser launched again, a launch failure reported by all,
//! nothing left when the runner ends; and a page of one connection neither
//! held nor initialised by another connection's root auto-attach.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::super::context::CdpBrowser;
use super::super::page::PageOptions;
use super::super::protocol::{BrowserContextId, Command as CdpCommand};
use super::*;
use crate::cookies::Cookie;

#[test]
fn the_first_launches_the_others_connect_or_report_and_a_dead_browser_is_replaced_once() {
    let state = |generation, error: Option<&str>| State {
        ws: "ws://127.0.0.1:1/devtools/browser/x".into(),
        group: 40 + generation,
        pid: 40 + generation,
        generation,
        error: error.map(str::to_string),
    };
    assert_eq!(
        next(None, None),
        Next::Launch {
            generation: 1,
            kill: None
        }
    );
    assert_eq!(
        next(Some(state(1, None)), None),
        Next::Connect(state(1, None))
    );
    assert_eq!(
        next(Some(state(1, Some("no display"))), None),
        Next::Report("no display".into())
    );
    assert_eq!(
        next(Some(state(2, None)), Some(2)),
        Next::Launch {
            generation: 3,
            kill: Some(42)
        }
    );
    // Another process launched generation 3 meanwhile: connect to it.
    assert_eq!(
        next(Some(state(3, None)), Some(2)),
        Next::Connect(state(3, None))
    );
}

#[test]
fn processes_share_only_a_browser_launched_the_same_way() {
    let config = BrowserConfig::from_env().expect("config");
    let binary = Path::new("/usr/bin/chromium");
    let key = |config: &BrowserConfig, host| key_parts(binary, &config.chromium_args(None, host));
    assert_eq!(key(&config, None), key(&config, None));
    assert_ne!(key(&config, None), key(&config, Some("app.test")));
    let mut wider = config.clone();
    wider.window = (config.window.0 + 1, config.window.1);
    assert_ne!(key(&config, None), key(&wider, None));
    assert_ne!(
        key(&config, None),
        key_parts(Path::new("/opt/chrome"), &config.chromium_args(None, None))
    );
}

/// `Target.getBrowserContexts`: the contexts of every connection.
#[derive(Serialize)]
struct GetBrowserContexts {}
impl CdpCommand for GetBrowserContexts {
    const METHOD: &'static str = "Target.getBrowserContexts";
    type Returns = BrowserContexts;
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BrowserContexts {
    browser_context_ids: Vec<BrowserContextId>,
}

async fn contexts_of(browser: &CdpBrowser) -> Vec<BrowserContextId> {
    browser
        .connection()
        .send(None, &GetBrowserContexts {})
        .await
        .expect("contexts")
        .browser_context_ids
}

/// A process standing for nextest's runner: the browser lives as long as it.
struct Runner(Child);

impl Runner {
    fn sleeping() -> Runner {
        Runner(Command::new("sleep").arg("600").spawn().expect("sleep"))
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }

    fn end(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        self.end();
    }
}

/// A run id of this test alone.
fn fresh_run(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time")
        .subsec_nanos();
    format!("test-{}-{nanos}-{tag}", std::process::id())
}

/// The run's folder of the browser launched with `config`.
fn run_folder(run: &str) -> PathBuf {
    let config = BrowserConfig::from_env().expect("config");
    SharedChromium::folder(run, &config, None).expect("its folder")
}

fn published(folder: &Path) -> State {
    serde_json::from_slice(&std::fs::read(folder.join(STATE)).expect(STATE)).expect("a state")
}

/// Process `pid`'s (parent, group).
fn parent_and_group(pid: u32) -> Option<(u32, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut rest = stat.rsplit_once(')')?.1.split_whitespace().skip(1);
    Some((rest.next()?.parse().ok()?, rest.next()?.parse().ok()?))
}

/// Waits up to `within` for `done`.
async fn until(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    while !done() {
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    true
}

/// The live processes whose command line carries `needle`.
fn processes_carrying(needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(needle) && crate::process::alive(pid) {
            out.push(pid);
        }
    }
    out
}

/// Nothing of the run's folder is left within 5 s: no process carries it
/// nor is of the browsers' `groups` (the headless shell's helpers name no
/// folder), the folder is removed.
async fn nothing_left(folder: &Path, groups: &[u32]) {
    let needle = folder.display().to_string();
    let left = || {
        let mut left = processes_carrying(&needle);
        left.extend(
            groups
                .iter()
                .flat_map(|g| crate::process::processes_of_group(*g).expect("/proc")),
        );
        left
    };
    let gone = until(Duration::from_secs(5), || {
        left().is_empty() && !folder.exists()
    })
    .await;
    assert!(
        gone,
        "left: processes {:?}, folder exists: {}",
        left(),
        folder.exists()
    );
}

fn cookie(name: &str) -> Cookie {
    Cookie {
        name: name.into(),
        value: "1".into(),
        domain: "app.test".into(),
        path: "/".into(),
        expires: -1.0,
        http_only: false,
        secure: false,
        same_site: "Lax".into(),
    }
}

/// Three connections to the run's browser, each its own contexts (a cookie
/// of one is not another's); a page of one and its popup load although the
/// roots of the others auto-attach them paused (`waitForDebuggerOnStart`),
/// and neither is initialised by another (which would give it that
/// connection's viewport). Before the others let them go, `Page.navigate`
/// was never answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_one_connection_is_neither_held_nor_touched_by_another() {
    use super::super::testing::{click_at, serve_pages};
    let base = serve_pages(&[
        (
            "/",
            "",
            "<a href='/popped' target='_blank' style='position:absolute;left:0;top:0;width:100px;height:40px;display:block'>open</a>",
        ),
        ("/popped", "", "<title>Popped</title><h1>popup</h1>"),
    ])
    .await;
    let mut runner = Runner::sleeping();
    let run = fresh_run("foreign");
    let config = BrowserConfig::from_env().expect("config");
    let (a, state) = SharedChromium::open_for(&run, runner.pid(), &config, None)
        .await
        .expect("the run's browser");
    let (_b, again) = SharedChromium::open_for(&run, runner.pid(), &config, None)
        .await
        .expect("the same browser");
    assert_eq!(state, again);
    let narrow = PageOptions {
        viewport: (500, 400),
        ..PageOptions::default()
    };
    let c = CdpBrowser::connect(&state.ws, narrow).await.expect("c");
    let c_context = c.new_context().await.expect("c's context");
    let context = a.new_context().await.expect("a's context");
    context.set_cookies(&[cookie("of_a")]).await.expect("set");
    let names = |cookies: Vec<Cookie>| cookies.into_iter().map(|c| c.name).collect::<Vec<_>>();
    assert_eq!(names(context.cookies().await.expect("a's")), ["of_a"]);
    assert!(names(c_context.cookies().await.expect("c's")).is_empty());

    let page = context.new_page().await.expect("a page");
    page.navigate(&format!("{base}/")).await.expect("loaded");
    let mut watch = page.watch_popups();
    page.perform(&click_at(20, 20)).await.expect("clicked");
    let popup = watch.next(Duration::from_secs(10)).await.expect("a popup");
    let mut title = String::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while title != "Popped" && Instant::now() < deadline {
        title = popup.title().await.unwrap_or_default();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(title, "Popped", "the popup loaded");
    // Let a late initialisation by another connection land, then look.
    tokio::time::sleep(Duration::from_millis(300)).await;
    for p in [&page, &popup] {
        let width = p.evaluate("window.innerWidth").await.expect("width");
        assert_eq!(width, json!(config.viewport.0), "a's viewport, not c's");
    }
    let folder = run_folder(&run);
    runner.end();
    nothing_left(&folder, &[state.group]).await;
}

/// A browser killed mid-run is launched again by the next process to
/// connect, one generation later, in a fresh profile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_browser_is_launched_again_one_generation_later() {
    let mut runner = Runner::sleeping();
    let run = fresh_run("relaunch");
    let config = BrowserConfig::from_env().expect("config");
    let (first, one) = SharedChromium::open_for(&run, runner.pid(), &config, None)
        .await
        .expect("launched");
    assert_eq!((one.generation, one.error.as_deref()), (1, None));
    let folder = run_folder(&run);
    assert_eq!(published(&folder), one);
    crate::process::kill_group(one.group);
    assert!(crate::process::group_gone(
        one.group,
        Duration::from_secs(5)
    ));
    assert!(
        first.new_context().await.is_err(),
        "the first browser is gone"
    );

    let (second, two) = SharedChromium::open_for(&run, runner.pid(), &config, None)
        .await
        .expect("launched again");
    assert_eq!(two.generation, 2);
    assert_ne!(two.ws, one.ws);
    assert_eq!(published(&folder), two);
    assert!(!folder.join("profile-1").exists(), "the old profile went");
    let page = second
        .new_context()
        .await
        .expect("context")
        .new_page()
        .await
        .expect("page");
    assert_eq!(page.evaluate("6 * 7").await.expect("evaluated"), json!(42));
    runner.end();
    nothing_left(&folder, &[one.group, two.group]).await;
}

/// A connection the running browser refuses (here: a wrong address
/// published a moment) is tried again, not taken for the browser's death:
/// the browser, and the pages other processes hold in it, live on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_connection_to_a_running_browser_does_not_replace_it() {
    let mut runner = Runner::sleeping();
    let run = fresh_run("refused");
    let config = BrowserConfig::from_env().expect("config");
    let (first, one) = SharedChromium::open_for(&run, runner.pid(), &config, None)
        .await
        .expect("launched");
    let page = first
        .new_context()
        .await
        .expect("context")
        .new_page()
        .await
        .expect("page");
    let folder = run_folder(&run);
    let state = folder.join("browser.json");
    // A port nobody listens on: the connection is refused.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    let wrong = State {
        ws: format!("ws://127.0.0.1:{port}/devtools/browser/refused"),
        ..one.clone()
    };
    // Each state replaces the file whole, as `publish` does (never a
    // half-written file read).
    let put = |state: &Path, s: &State| {
        let temp = state.with_extension("test-tmp");
        std::fs::write(&temp, serde_json::to_vec(s).unwrap()).unwrap();
        std::fs::rename(&temp, state).unwrap();
    };
    put(&state, &wrong);
    let restore = {
        let (state, right) = (state.clone(), one.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            put(&state, &right);
        })
    };
    let (_second, two) = SharedChromium::open_for(&run, runner.pid(), &config, None)
        .await
        .expect("connected");
    restore.join().unwrap();
    assert_eq!(two, one, "the same browser, not a new generation");
    assert_eq!(
        page.evaluate("6 * 7")
            .await
            .expect("the first page lives on"),
        json!(42)
    );
    runner.end();
    nothing_left(&folder, &[one.group]).await;
}

/// A "browser" that counts its starts in `starts`, says why it cannot
/// start and exits.
fn failing_browser(folder: &Path, starts: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = folder.join("chromium");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho start >> '{}'\necho 'cannot open display :99' >&2\nexit 3\n",
            starts.display()
        ),
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    script
}

#[tokio::test]
async fn a_launch_failure_is_published_once_and_reported_by_every_process() {
    let tmp = tempfile::tempdir().expect("tmp");
    let starts = tmp.path().join("starts");
    let mut config = BrowserConfig::from_env().expect("config");
    config.chromium = Some(failing_browser(tmp.path(), &starts));
    let mut runner = Runner::sleeping();
    let run = fresh_run("fails");
    let mut errors = Vec::new();
    for _ in 0..2 {
        let e = SharedChromium::open_for(&run, runner.pid(), &config, None)
            .await
            .expect_err("it cannot start");
        errors.push(e.to_string());
    }
    let folder = SharedChromium::folder(&run, &config, None).expect("its folder");
    for e in &errors {
        assert!(e.contains("cannot open display :99"), "{e}");
        assert!(e.contains(&run) && e.contains("browser.log"), "{e}");
    }
    assert_eq!(errors[0], errors[1]);
    assert_eq!(std::fs::read_to_string(&starts).expect("starts"), "start\n");
    assert!(published(&folder).error.is_some());
    runner.end();
    nothing_left(&folder, &[]).await;
}

/// The environment variable that makes [`processes_of_a_run_share_one_chromium_and_a_killed_one_leaves_no_context`]
/// a participant (its value: the folder to report in).
const PARTICIPANT: &str = "SHARED_CHROMIUM_TEST_PARTICIPANT";

/// A participant of the run: opens the run's browser, a context and a page,
/// reports `{context, ws}` in `<folder>/<pid>.json`, and waits for
/// `<folder>/<pid>.stop` (or its kill).
async fn participate(folder: &Path) {
    let run = crate::process::shared::run_id().expect("NEXTEST_RUN_ID");
    let config = BrowserConfig::from_env().expect("config");
    let browser = SharedChromium::open(&run, &config, None)
        .await
        .expect("the run's browser");
    let context = browser.new_context().await.expect("a context");
    let page = context.new_page().await.expect("a page");
    assert_eq!(page.evaluate("1 + 1").await.expect("evaluated"), json!(2));
    let state = published(&SharedChromium::folder(&run, &config, None).expect("folder"));
    let me = std::process::id();
    let report = json!({ "context": context.id().0, "ws": state.ws });
    let tmp = folder.join(format!("{me}.tmp"));
    std::fs::write(&tmp, report.to_string()).expect("report");
    std::fs::rename(&tmp, folder.join(format!("{me}.json"))).expect("report");
    let stop = folder.join(format!("{me}.stop"));
    // Until told to, or until the test (the runner, its parent) is gone.
    let parent = rustix::process::getppid();
    let told = until(Duration::from_secs(120), || {
        stop.exists() || rustix::process::getppid() != parent
    })
    .await;
    assert!(told, "told to stop");
}

/// Two processes of a run (children of a `/bin/sh` standing for nextest's
/// runner) share one Chromium process group, each with a context of its
/// own; the one that launched it is SIGKILLed: the browser stays, its
/// context goes, the other's stays and a newcomer works; when the runner
/// ends, no process and no folder of the run is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_of_a_run_share_one_chromium_and_a_killed_one_leaves_no_context() {
    if let Some(folder) = std::env::var_os("SHARED_CHROMIUM_TEST_PARTICIPANT") {
        return participate(Path::new(&folder)).await;
    }
    let reports = tempfile::tempdir().expect("reports");
    let run = fresh_run("processes");
    let folder = run_folder(&run);
    let exe = std::env::current_exe().expect("this test binary");
    let name = "backend::cdp::shared::tests::processes_of_a_run_share_one_chromium_and_a_killed_one_leaves_no_context";
    let mut runner = Runner(
        Command::new("/bin/sh")
            .arg("-c")
            // As nextest does, the run's id is in its children's
            // environment, not its own: its runner is what they outlive.
            .arg(r#"NEXTEST_RUN_ID="$HJ_TEST_RUN" "$0" "$@" & NEXTEST_RUN_ID="$HJ_TEST_RUN" "$0" "$@" & wait"#)
            .arg(&exe)
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(PARTICIPANT, reports.path())
            .stdout(std::process::Stdio::null())
            .env("HJ_TEST_RUN", &run)
            .env_remove("NEXTEST_RUN_ID")
            .spawn()
            .expect("the runner"),
    );
    let reported = || -> Vec<(u32, serde_json::Value)> {
        let mut out: Vec<_> = std::fs::read_dir(reports.path())
            .expect("reports")
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let pid = name.strip_suffix(".json")?.parse().ok()?;
                let text = std::fs::read(e.path()).ok()?;
                Some((pid, serde_json::from_slice(&text).ok()?))
            })
            .collect();
        out.sort_by_key(|(pid, _)| *pid);
        out
    };
    let both = until(Duration::from_secs(90), || reported().len() == 2).await;
    assert!(both, "both participants reported: {:?}", reported());
    let participants = reported();
    let state = published(&folder);
    assert_eq!(state.generation, 1);
    for (_, report) in &participants {
        assert_eq!(report["ws"], json!(state.ws), "one browser");
    }
    // The browser (its profile there) and its helpers, of its group.
    let profile = folder.join("profile-1").display().to_string();
    let browser_processes = processes_carrying(&profile);
    assert!(!browser_processes.is_empty(), "the browser runs");
    let group = crate::process::processes_of_group(state.group)
        .expect("/proc")
        .collect::<Vec<_>>();
    assert!(group.len() > 1, "its helpers run: {group:?}");
    for pid in &browser_processes {
        let group = parent_and_group(*pid).map(|(_, g)| g);
        assert_eq!(
            group,
            Some(state.group),
            "process {pid} is of the browser's group"
        );
    }

    // Kill the participant that launched the browser (its parent).
    let launcher = parent_and_group(state.pid).expect("the browser runs").0;
    let (killed, kept) = match participants.iter().position(|(pid, _)| *pid == launcher) {
        Some(0) => (&participants[0], &participants[1]),
        Some(_) => (&participants[1], &participants[0]),
        None => panic!("the browser's parent {launcher} is no participant: {participants:?}"),
    };
    let context_of =
        |r: &serde_json::Value| BrowserContextId(r["context"].as_str().expect("id").into());
    let probe = CdpBrowser::connect(&state.ws, PageOptions::default())
        .await
        .expect("a probe");
    let before = contexts_of(&probe).await;
    assert!(before.contains(&context_of(&killed.1)) && before.contains(&context_of(&kept.1)));
    let pid = rustix::process::Pid::from_raw(killed.0 as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::KILL).expect("SIGKILL");
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut now = contexts_of(&probe).await;
    while now.contains(&context_of(&killed.1)) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        now = contexts_of(&probe).await;
    }
    assert!(
        !now.contains(&context_of(&killed.1)),
        "the killed one's context went"
    );
    assert!(now.contains(&context_of(&kept.1)), "the other's stays");
    assert!(
        crate::process::alive(state.pid),
        "the browser outlives its launcher"
    );
    let page = probe
        .new_context()
        .await
        .expect("context")
        .new_page()
        .await
        .expect("page");
    assert_eq!(
        page.evaluate("'still'").await.expect("works"),
        json!("still")
    );

    std::fs::write(reports.path().join(format!("{}.stop", kept.0)), b"").expect("stop");
    let ended = until(Duration::from_secs(20), || {
        matches!(runner.0.try_wait(), Ok(Some(_)))
    })
    .await;
    assert!(ended, "the runner ended with its last participant");
    nothing_left(&folder, &[state.group]).await;
}

/// Issue 41: a headed Chromium is another browser than a headless one: the
/// run's folder (the key processes share a browser by) differs.
#[test]
fn a_headed_chromium_is_not_shared_with_a_headless_one() {
    let headless = BrowserConfig {
        headed: false,
        ..BrowserConfig::from_env().expect("config")
    };
    let headed = BrowserConfig {
        headed: true,
        ..headless.clone()
    };
    let run = fresh_run("headed");
    let a = SharedChromium::folder(&run, &headless, None).expect("its folder");
    let b = SharedChromium::folder(&run, &headed, None).expect("its folder");
    assert_ne!(a, b);
}
