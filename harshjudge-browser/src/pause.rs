//! Stopping to look at a scenario's browser: [`Page::pause`] and
//! `HARSHJUDGE_PAUSE=on-failure` (the runner, where a step failed).
//!
//! A pause prints how to reach the browser (a DevTools URL on Chromium, the
//! window when headed, the run's folder with its evidence and trace so far)
//! and waits, the step's timer stopped, until Enter is read on standard input
//! or `HARSHJUDGE_PAUSE_TIMEOUT` (30 min) passes. It never waits under CI
//! (`CI` set) nor when standard input is no terminal, unless
//! `HARSHJUDGE_PAUSE_INPUT=stdin` says to read it anyway.
//!
//! Standard input is read by one thread of its own, started by the first
//! pause that waits (a blocking read never holds the async runtime); each
//! line it reads bumps a count that pauses wait on, so a line typed before a
//! pause began does not end it.

use std::path::PathBuf;
use std::sync::OnceLock;

use super::backend::PageBackend;
use super::inspect::{Wait, decide, devtools_urls};
use super::page::Page;

/// Standard input as read so far: the lines, and whether it ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Input {
    lines: u64,
    ended: bool,
}

/// What standard input's reader has read so far.
fn lines() -> &'static tokio::sync::watch::Sender<Input> {
    static LINES: OnceLock<tokio::sync::watch::Sender<Input>> = OnceLock::new();
    LINES.get_or_init(|| {
        let (tx, _) = tokio::sync::watch::channel(Input::default());
        let sender = tx.clone();
        let spawned = std::thread::Builder::new()
            .name("harshjudge-pause-stdin".into())
            .spawn(move || {
                let mut line = String::new();
                loop {
                    line.clear();
                    match std::io::stdin().read_line(&mut line) {
                        Ok(0) | Err(_) => {
                            sender.send_modify(|i| i.ended = true);
                            return;
                        }
                        Ok(_) => {
                            sender.send_modify(|i| i.lines = i.lines.saturating_add(1));
                        }
                    }
                }
            });
        if spawned.is_err() {
            tx.send_modify(|i| i.ended = true);
        }
        tx
    })
}

/// How a pause ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resumed {
    /// It did not wait (why: `Wait::Never`).
    NoWait,
    /// Enter was pressed.
    Enter,
    /// Standard input ended.
    InputClosed,
    /// The limit passed.
    Limit,
}

/// What a pause says of where it is.
pub struct PauseAt {
    /// `page.pause() at tests/e2e.rs:12` or `step 2 failed`.
    pub what: String,
    /// The scenario's run folder, when known.
    pub run_dir: Option<PathBuf>,
}

/// Prints how to reach the browser of `pages` and waits as `decide` says.
pub async fn pause(pages: &[Page], at: PauseAt) -> Resumed {
    let wait = decide();
    let (headed, _) = super::watch::watch_settings().unwrap_or_default();
    let mut out = vec![format!("harshjudge: paused: {}", at.what)];
    let on_chromium = pages
        .iter()
        .any(|p| p.backend().kind() == super::kind::BrowserKind::Chromium);
    if on_chromium {
        let urls = devtools_urls();
        if urls.is_empty() {
            out.push("harshjudge:   DevTools: none (Chromium listens on a DevTools port only when a pause can wait)".into());
        }
        for url in urls {
            out.push(format!(
                "harshjudge:   DevTools: {url} (the pages, each with its devtoolsFrontendUrl; or chrome://inspect)"
            ));
        }
    }
    if headed {
        let display = super::watch::display().unwrap_or_default();
        out.push(format!(
            "harshjudge:   the browser's window is open on display {display}"
        ));
    }
    if let Some(dir) = &at.run_dir {
        out.push(format!(
            "harshjudge:   evidence and trace so far: {}",
            dir.display()
        ));
    }
    let limit = match wait {
        Wait::Never(why) => {
            out.push(format!("harshjudge:   not waiting: {why}"));
            eprintln!("{}", out.join("\n"));
            return Resumed::NoWait;
        }
        Wait::Enter(limit) => limit,
    };
    out.push(format!(
        "harshjudge:   press Enter to continue (the step's timer is stopped; it goes on by itself after {})",
        crate::settings::format_duration(limit)
    ));
    eprintln!("{}", out.join("\n"));
    let mut rx = lines().subscribe();
    let before = *rx.borrow_and_update();
    if before.ended {
        eprintln!("harshjudge: standard input has ended: going on");
        return Resumed::InputClosed;
    }
    // A line read since the pause began ends it (one typed before does not).
    let read = async {
        loop {
            let now = match rx.changed().await {
                Ok(()) => *rx.borrow_and_update(),
                Err(_) => return Resumed::InputClosed,
            };
            if now.lines > before.lines {
                return Resumed::Enter;
            }
            if now.ended {
                return Resumed::InputClosed;
            }
        }
    };
    let resumed = tokio::select! {
        r = read => r,
        () = tokio::time::sleep(limit) => Resumed::Limit,
    };
    eprintln!(
        "harshjudge: going on ({})",
        match resumed {
            Resumed::Enter => "Enter pressed",
            Resumed::InputClosed => "standard input ended",
            _ => "HARSHJUDGE_PAUSE_TIMEOUT passed",
        }
    );
    resumed
}

impl Page {
    /// Stops the scenario here for a person to look at its browser, as
    /// Playwright's `page.pause()`: prints how to reach it (a DevTools URL on
    /// Chromium, the window when headed, the run's folder with the evidence
    /// and trace so far) and waits until Enter is pressed in the terminal
    /// (or `HARSHJUDGE_PAUSE_TIMEOUT`, 30 min), the step's timer stopped
    /// meanwhile. Under CI (`CI` set), or when standard input is no
    /// terminal, it prints and goes on at once: a pause left in a scenario
    /// never holds a pipeline.
    #[track_caller]
    pub fn pause(&self) -> impl Future<Output = ()> + Send + '_ {
        let at = std::panic::Location::caller();
        Box::pin(async move {
            let owner = self.owner();
            let hold = owner.clone().map(|o| o.hold_clock());
            let what = match &owner {
                Some(o) => format!(
                    "page.pause() at {}:{} (scenario {}{})",
                    at.file(),
                    at.line(),
                    o.slug(),
                    o.step_label().map(|s| format!(", {s}")).unwrap_or_default()
                ),
                None => format!("page.pause() at {}:{}", at.file(), at.line()),
            };
            let run_dir = owner.as_ref().and_then(|o| o.run_folder());
            pause(std::slice::from_ref(self), PauseAt { what, run_dir }).await;
            drop(hold);
        })
    }
}
