//! Counting WebDriver commands: a chromedriver of our own that logs every
//! command it receives (`--log-path`, `--log-level=INFO`), and the split of
//! that log into steps at the evidence screenshots.
//!
//! Shared by `benches/browser_steps.rs`, `benches/evidence_suite.rs` and
//! `tests/step_commands.rs` (`#[path]` module).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

// Public: tests/support re-exports it (one copy of the file per crate).
#[path = "../../tests/support/chromedriver.rs"]
pub mod chromedriver;

/// A chromedriver on a free loopback port, logging every command to a file.
pub struct CountingDriver {
    child: std::process::Child,
    /// Its URL, for `HARSHJUDGE_WEBDRIVER_URL`.
    pub url: String,
    /// Its log.
    pub log: PathBuf,
}

impl CountingDriver {
    /// Starts one logging to `dir/chromedriver.log`, its temporary files
    /// (profiles) in `dir/tmp`.
    pub fn start(dir: &Path) -> CountingDriver {
        std::fs::create_dir_all(dir).unwrap();
        let log = dir.join("chromedriver.log");
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let (child, port) = chromedriver::spawn(
            std::path::Path::new("chromedriver"),
            &[
                format!("--log-path={}", log.display()),
                "--log-level=INFO".into(),
                "--allowed-ips=127.0.0.1".into(),
            ],
            &tmp,
        );
        CountingDriver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            log,
        }
    }

    /// The commands received so far, in order: (session id, command name).
    pub fn commands(&self) -> Vec<(String, String)> {
        commands(&std::fs::read_to_string(&self.log).unwrap_or_default())
    }
}

impl Drop for CountingDriver {
    fn drop(&mut self) {
        // Its /shutdown quits the browsers it started; then the process.
        if let Ok(mut s) = std::net::TcpStream::connect(self.url.trim_start_matches("http://")) {
            use std::io::{Read, Write};
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = s.write_all(b"GET /shutdown HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            let _ = s.read(&mut [0u8; 256]);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The commands of a chromedriver INFO log: `[time][INFO]: [session] COMMAND Name {`.
/// A WebDriver BiDi command (`ForwardBidiCommand`, its JSON on the lines
/// after) is named by its method (`browsingContext.captureScreenshot`).
pub fn commands(log: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = log.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let (head, rest) = l.split_once("] COMMAND ")?;
            let session = head
                .rsplit_once('[')
                .map(|(_, s)| s)
                .unwrap_or("")
                .to_string();
            let mut name = rest.split_whitespace().next().unwrap_or("").to_string();
            if name == "ForwardBidiCommand" {
                let method = lines[i + 1..]
                    .iter()
                    .take(8)
                    .find_map(|m| m.trim().strip_prefix("\"method\": \""))
                    .and_then(|m| m.split('"').next());
                if let Some(m) = method {
                    name = m.to_string();
                }
            }
            Some((session, name))
        })
        .collect()
}

/// Whether a command is an evidence screenshot (a step boundary): classic
/// WebDriver's or BiDi's.
pub fn is_screenshot(name: &str) -> bool {
    name == "Screenshot" || name == "TakeScreenshot" || name == "browsingContext.captureScreenshot"
}

/// Commands per interval between boundary screenshots, per session in order:
/// each interval is one step's commands (its actions, the boundary's log read
/// and its screenshot); a scenario's first interval is its page open (and the
/// reset of the session's previous scenario) up to the first `before`.
pub fn intervals(commands: &[(String, String)]) -> Vec<Vec<String>> {
    let mut out = vec![];
    let mut current: Vec<String> = vec![];
    for (_, name) in commands {
        current.push(name.clone());
        if is_screenshot(name) {
            out.push(std::mem::take(&mut current));
        }
    }
    out
}

/// Splits intervals into (page opens, steps) for scenarios of `steps` steps
/// each, run one after another: every `steps + 1` intervals are one scenario.
pub fn steps_of(intervals: &[Vec<String>], steps: usize) -> (Vec<usize>, Vec<usize>) {
    let (mut opens, mut per_step) = (vec![], vec![]);
    for (i, iv) in intervals.iter().enumerate() {
        if i % (steps + 1) == 0 {
            opens.push(iv.len());
        } else {
            per_step.push(iv.len());
        }
    }
    (opens, per_step)
}

/// The median of counts (the upper one of an even number).
pub fn median(v: &[usize]) -> usize {
    let mut v = v.to_vec();
    v.sort();
    v[v.len() / 2]
}

/// Commands by name, most frequent first.
pub fn by_name(commands: &[(String, String)]) -> Vec<(String, usize)> {
    let mut m = std::collections::BTreeMap::<String, usize>::new();
    for (_, n) in commands {
        *m.entry(n.clone()).or_default() += 1;
    }
    let mut v: Vec<(String, usize)> = m.into_iter().collect();
    v.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    v
}
