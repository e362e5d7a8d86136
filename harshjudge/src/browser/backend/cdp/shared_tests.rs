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
use crate::browser::storage::Cookie;

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

/// Nothing of the run's folder is left within 5 s: no process carries it,
/// the folder is removed.
async fn nothing_left(folder: &Path) {
    let needle = folder.display().to_string();
    let gone = until(Duration::from_secs(5), || {
        processes_carrying(&needle).is_empty() && !folder.exists()
    })
    .await;
    assert!(
        gone,
        "left: processes {:?}, folder exists: {}",
        processes_carrying(&needle),
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
    nothing_left(&folder).await;
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
    nothing_left(&folder).await;
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
    nothing_left(&folder).await;
}
