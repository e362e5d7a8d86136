//! Whether a person can inspect the browser now, and where: a pause waits
//! only outside CI with a terminal (or `HARSHJUDGE_PAUSE_INPUT=stdin`), and
//! the Chromiums of this process that listen on a DevTools port are
//! recorded here for a pause to name (`pause.rs`). Apart from `pause.rs` so
//! that the launch (`backend/cdp/launch.rs`) asks it without reaching `Page`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use crate::settings::watch::{self, PauseInput};

/// Whether a pause waits, and how long at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    /// It does not wait: why.
    Never(&'static str),
    /// It waits for Enter, at most this long.
    Enter(Duration),
}

/// Whether a pause would wait now (`CI`, standard input, the settings).
pub(crate) fn decide() -> Wait {
    if watch::under_ci() {
        return Wait::Never("CI is set, so no one is there to press Enter");
    }
    let input = PauseInput::from_env().unwrap_or_default();
    if input == PauseInput::Terminal && !std::io::stdin().is_terminal() {
        return Wait::Never(
            "standard input is not a terminal (HARSHJUDGE_PAUSE_INPUT=stdin reads it anyway)",
        );
    }
    Wait::Enter(watch::pause_timeout().unwrap_or(watch::DEFAULT_PAUSE_TIMEOUT))
}

/// Whether a pause could wait in this process: then a Chromium launched
/// here listens on a DevTools port too, for the pause to name.
pub(crate) fn may_wait() -> bool {
    matches!(decide(), Wait::Enter(_))
}

/// Where a browser's DevTools can be reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DevTools {
    /// A Chromium's profile folder, whose `DevToolsActivePort` names its port.
    Profile(PathBuf),
    /// A Chromium's browser WebSocket (`ws://127.0.0.1:PORT/devtools/browser/…`).
    WebSocket(String),
}

/// The browsers of this process a pause names (the latest few).
static DEVTOOLS: Mutex<Vec<DevTools>> = Mutex::new(Vec::new());

/// Records where a Chromium of this process can be inspected.
pub(crate) fn register_devtools(d: DevTools) {
    let mut all = DEVTOOLS.lock().unwrap_or_else(|p| p.into_inner());
    all.retain(|x| *x != d);
    all.push(d);
    if all.len() > 4 {
        all.remove(0);
    }
}

/// The DevTools URLs of the Chromiums this process uses: their page list
/// (`http://127.0.0.1:PORT/json`, each page with its `devtoolsFrontendUrl`).
pub(crate) fn devtools_urls() -> Vec<String> {
    let all = DEVTOOLS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    all.iter()
        .filter_map(|d| match d {
            DevTools::Profile(profile) => {
                let text = std::fs::read_to_string(profile.join("DevToolsActivePort")).ok()?;
                let port: u16 = text.lines().next()?.trim().parse().ok()?;
                Some(port)
            }
            DevTools::WebSocket(ws) => {
                let rest = ws.strip_prefix("ws://")?;
                let host = rest.split('/').next()?;
                host.rsplit_once(':')?.1.parse().ok()
            }
        })
        .map(|port| format!("http://127.0.0.1:{port}/json"))
        .collect()
}
