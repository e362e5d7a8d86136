//! One Chromium per cargo-nextest run, as the `WebServer` is shared
//! (`server/nextest.rs`): nextest runs every scenario in a process of its
//! own, and a browser start per scenario costs more than the scenario.
//!
//! - The run's folder `hj-chromium-{key}` in the temporary folder
//!   ([`RunFolder::lock_short`]; `key`: the run's id, the Chromium binary and
//!   its whole command line, so the app's host in its resolver rules, the
//!   window and headless: processes launching the same browser share it;
//!   short, as it is the browser's `TMPDIR`, where its singleton socket must
//!   have a path of at most 107 bytes) holds the lock,
//!   the browser's state (`browser.json`, [`State`]), its profile
//!   (`profile-{generation}`) and its output (`browser.log`).
//! - Under the lock, a process reads the state: none yet → it launches
//!   Chromium detached (`launch.rs::launch_detached`: a WebSocket on a free
//!   loopback port, a process group of its own, no parent-death signal, a
//!   watchdog that kills the group and removes the folder when nextest's
//!   runner ends: `process::shared::nextest_runner`) and publishes it; a launch that
//!   failed is published as its `error`, which every process of the run then
//!   reports (no retry per process); a browser that does not answer any more
//!   (killed) is killed with its group and launched again, `generation` + 1;
//!   a connection refused while its process runs is tried again first, as
//!   killing it ends every other process's pages.
//! - Every process connects a WebSocket of its own
//!   ([`CdpBrowser::connect`]) and makes its own browser contexts, which the
//!   browser disposes when that connection closes (`disposeOnDetach`: a
//!   SIGKILLed scenario leaves no context behind). The targets of other
//!   processes' contexts, which root auto-attach shows to every connection,
//!   are let run and detached at once (`context.rs`).
//!
//! The browser listens on a loopback port for the run's duration, as
//! chromedriver's port does; a browser of one process's own uses the pipe.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::context::CdpBrowser;
use super::launch::{Detached, launch_detached};
use super::page::PageOptions;
use crate::config::BrowserConfig;
use crate::error::BrowserError;
use crate::process::shared::RunFolder;

/// How many times a connection the running browser refused is tried again
/// before the browser is taken for gone.
const REFUSALS: u32 = 4;
/// The pause before the first of those tries (the next ones: twice, …).
const REFUSED_PAUSE: std::time::Duration = std::time::Duration::from_millis(150);

/// The name of the run's folder's kind (`hj-chromium-…`).
const WHAT: &str = "chromium";
/// The state's file in the run's folder.
const STATE: &str = "browser.json";

/// What `browser.json` holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct State {
    /// Its browser WebSocket (`ws://127.0.0.1:PORT/devtools/browser/…`).
    pub(crate) ws: String,
    /// Its process group.
    pub(crate) group: u32,
    /// Its pid.
    pub(crate) pid: u32,
    /// 1 for the first launch, + 1 for each launch after the browser went.
    pub(crate) generation: u32,
    /// Why it could not start (then no browser runs).
    pub(crate) error: Option<String>,
}

/// What a process does, given what is published.
#[derive(Debug, PartialEq, Eq)]
enum Next {
    /// Connect to the browser published.
    Connect(State),
    /// Report the launch failure published.
    Report(String),
    /// Launch generation `generation`, after killing group `kill` (the
    /// browser of the generation before, which did not answer).
    Launch { generation: u32, kill: Option<u32> },
}

/// What to do with the published state `published`, when connecting to the
/// browser of generation `unreachable` failed already.
fn next(published: Option<State>, unreachable: Option<u32>) -> Next {
    match published {
        None => Next::Launch {
            generation: 1,
            kill: None,
        },
        Some(State {
            error: Some(error), ..
        }) => Next::Report(error),
        Some(state) if Some(state.generation) == unreachable => Next::Launch {
            generation: state.generation + 1,
            kill: Some(state.group),
        },
        Some(state) => Next::Connect(state),
    }
}

/// The parts of the run's folder's key: what must be equal for two
/// processes to share one browser.
fn key_parts(binary: &Path, args: &[String]) -> Vec<Vec<u8>> {
    let mut parts = vec![binary.as_os_str().as_encoded_bytes().to_vec()];
    parts.extend(args.iter().map(|a| a.as_bytes().to_vec()));
    parts
}

fn as_slices(parts: &[Vec<u8>]) -> Vec<&[u8]> {
    parts.iter().map(Vec::as_slice).collect()
}

/// The shared Chromium of a nextest run (see the module's doc).
pub(crate) struct SharedChromium;

impl SharedChromium {
    /// A connection of this process's own to the Chromium of nextest run
    /// `run` (`process::shared::run_id()`) launched with `config` for
    /// `app_host`: launched here if no process of the run did yet, or
    /// again if it went. Its contexts are this process's.
    pub(crate) async fn open(
        run: &str,
        config: &BrowserConfig,
        app_host: Option<&str>,
    ) -> Result<CdpBrowser, BrowserError> {
        let runner = crate::process::shared::nextest_runner()
            .ok_or_else(|| shared_error("nextest's runner", "this process has no parent"))?;
        let (browser, state) = Self::open_for(run, runner, config, app_host).await?;
        // A pause (`page.pause()`) names its DevTools port.
        crate::inspect::register_devtools(crate::inspect::DevTools::WebSocket(state.ws.clone()));
        Ok(browser)
    }

    /// The run's folder of the browser [`SharedChromium::open`] opens.
    pub(crate) fn folder(
        run: &str,
        config: &BrowserConfig,
        app_host: Option<&str>,
    ) -> Result<PathBuf, BrowserError> {
        let parts = key_parts(
            &config.chromium_binary()?,
            &config.chromium_args(None, app_host),
        );
        Ok(RunFolder::short_path(WHAT, run, &as_slices(&parts)))
    }

    /// [`SharedChromium::open`] with the process whose end ends the browser
    /// (`runner`), and the state connected to.
    pub(crate) async fn open_for(
        run: &str,
        runner: u32,
        config: &BrowserConfig,
        app_host: Option<&str>,
    ) -> Result<(CdpBrowser, State), BrowserError> {
        let parts = key_parts(
            &config.chromium_binary()?,
            &config.chromium_args(None, app_host),
        );
        let run_owned = run.to_string();
        let folder = tokio::task::spawn_blocking(move || {
            RunFolder::lock_short(WHAT, &run_owned, &as_slices(&parts))
        })
        .await
        .map_err(|e| shared_error("the run's folder", &e.to_string()))?
        .map_err(|e| shared_error(e.what(), &e.into_io().to_string()))?;
        let options = PageOptions {
            viewport: config.viewport,
            ..PageOptions::default()
        };
        let mut unreachable = None;
        let mut refused = 0;
        loop {
            let published = folder
                .read(STATE)
                .and_then(|bytes| serde_json::from_slice::<State>(&bytes).ok());
            match next(published, unreachable) {
                Next::Report(error) => return Err(failed(run, folder.path(), &error)),
                // A browser that does not answer within the launch's time
                // (killed, or hung) is replaced. One whose process runs and
                // refused this connection is asked again (read anew) a few
                // times first: killing it would end every other process's
                // pages in it.
                Next::Connect(state) => {
                    let connecting = CdpBrowser::connect(&state.ws, options.clone());
                    match tokio::time::timeout(config.launch_timeout, connecting).await {
                        Ok(Ok(browser)) => return Ok((browser, state)),
                        Ok(Err(_)) if refused < REFUSALS && crate::process::alive(state.pid) => {
                            refused += 1;
                            tokio::time::sleep(REFUSED_PAUSE * refused).await;
                        }
                        _ => unreachable = Some(state.generation),
                    }
                }
                Next::Launch { generation, kill } => {
                    let state = relaunch(&folder, runner, config, app_host, generation, kill).await;
                    if let Some(error) = &state.error {
                        return Err(failed(run, folder.path(), error));
                    }
                    let browser = CdpBrowser::connect(&state.ws, options).await?;
                    return Ok((browser, state));
                }
            }
        }
    }
}

/// Launches generation `generation` in `folder` (after killing group `kill`
/// and removing its profile) and publishes its state, its error if it did
/// not start.
async fn relaunch(
    folder: &RunFolder,
    runner: u32,
    config: &BrowserConfig,
    app_host: Option<&str>,
    generation: u32,
    kill: Option<u32>,
) -> State {
    let dir = folder.path();
    if let Some(group) = kill {
        crate::process::kill_group(group);
        let _ = tokio::task::spawn_blocking(move || {
            crate::process::group_gone(group, std::time::Duration::from_secs(3))
        })
        .await;
        let _ = std::fs::remove_dir_all(profile(dir, generation - 1));
    }
    let log = dir.join("browser.log");
    let launched = launch_detached(
        config,
        app_host,
        dir,
        &profile(dir, generation),
        &log,
        runner,
    )
    .await;
    let state = match launched {
        Ok(Detached { ws_url, pid }) => State {
            ws: ws_url,
            group: pid,
            pid,
            generation,
            error: None,
        },
        Err(e) => State {
            ws: String::new(),
            group: 0,
            pid: 0,
            generation,
            error: Some(crate::secrets::mask(&e.to_string()).into_owned()),
        },
    };
    if let Err(e) = folder.publish(STATE, &serde_json::to_vec(&state).unwrap_or_default()) {
        return State {
            error: Some(e.to_string()),
            ..state
        };
    }
    state
}

/// The profile of generation `generation`.
fn profile(dir: &Path, generation: u32) -> PathBuf {
    dir.join(format!("profile-{generation}"))
}

/// The run's browser did not start (`error`, as published).
fn failed(run: &str, dir: &Path, error: &str) -> BrowserError {
    BrowserError::Session {
        url: format!(
            "the Chromium shared by nextest run {run} (its output: {})",
            dir.join("browser.log").display()
        ),
        message: error.to_string(),
    }
}

/// The run's browser could not be had.
fn shared_error(what: &str, message: &str) -> BrowserError {
    BrowserError::Session {
        url: format!("{what} of this nextest run"),
        message: message.to_string(),
    }
}

#[cfg(test)]
#[path = "shared_tests.rs"]
mod tests;
