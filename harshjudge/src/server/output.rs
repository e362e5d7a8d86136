//! The server's output: the last lines, kept in a bounded ring (a server this
//! process started and reads through pipes) or read from the tail of its log
//! file (a server shared by a cargo-nextest run, started detached).

use std::collections::VecDeque;
use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// How many lines are kept.
pub const KEPT_LINES: usize = 200;
/// How many characters of one line are kept.
const LINE_CHARS: usize = 2000;
/// How much of the end of a log file is read for its last lines.
const LOG_TAIL_BYTES: u64 = 256 * 1024;

/// The last [`KEPT_LINES`] lines of a server's stdout and stderr.
#[derive(Default)]
pub struct Ring {
    lines: Mutex<VecDeque<String>>,
    /// A line matched the readiness pattern (`ready_output`).
    matched: AtomicBool,
}

impl Ring {
    fn push(&self, line: &str, ready: Option<&regex::Regex>) {
        let line = line.trim_end_matches(['\n', '\r']);
        if ready.is_some_and(|r| r.is_match(line)) {
            self.matched.store(true, Ordering::SeqCst);
        }
        let mut kept: String = line.chars().take(LINE_CHARS).collect();
        if kept.len() < line.len() {
            kept.push('…');
        }
        let mut lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == KEPT_LINES {
            lines.pop_front();
        }
        lines.push_back(kept);
    }

    /// Reads `from` line by line into the ring until end of file (a thread).
    pub fn drain(self: &Arc<Self>, from: impl Read + Send + 'static, ready: Option<regex::Regex>) {
        let ring = self.clone();
        let _ = std::thread::Builder::new()
            .name("harshjudge-server-out".into())
            .spawn(move || {
                let mut reader = std::io::BufReader::new(from);
                let mut buf = Vec::new();
                while matches!(reader.read_until(b'\n', &mut buf), Ok(n) if n > 0) {
                    ring.push(&String::from_utf8_lossy(&buf), ready.as_ref());
                    buf.clear();
                }
            });
    }

    /// The lines kept, oldest first.
    pub fn lines(&self) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        lines.iter().cloned().collect()
    }
}

/// Where a server's output is.
#[derive(Clone)]
pub enum Output {
    /// Read by this process into a ring.
    Ring(Arc<Ring>),
    /// Written to a log file (a detached server).
    File(PathBuf),
}

impl Output {
    /// The last `n` lines (at most [`KEPT_LINES`]).
    pub fn last_lines(&self, n: usize) -> Vec<String> {
        let all = match self {
            Output::Ring(ring) => ring.lines(),
            Output::File(path) => file_tail(path),
        };
        let skip = all.len().saturating_sub(n.min(KEPT_LINES));
        all.into_iter().skip(skip).collect()
    }

    /// Whether a line matched `ready` so far.
    pub fn matched(&self, ready: &regex::Regex) -> bool {
        match self {
            Output::Ring(ring) => ring.matched.load(Ordering::SeqCst),
            Output::File(path) => std::fs::read(path)
                .map(|b| {
                    String::from_utf8_lossy(&b)
                        .lines()
                        .any(|l| ready.is_match(l))
                })
                .unwrap_or(false),
        }
    }
}

/// The last lines of a log file (of its last [`LOG_TAIL_BYTES`]).
fn file_tail(path: &PathBuf) -> Vec<String> {
    let Ok(mut file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(LOG_TAIL_BYTES);
    if file.seek(SeekFrom::Start(start)).is_err() {
        return Vec::new();
    }
    let mut bytes = Vec::new();
    let _ = file.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if start > 0 && !lines.is_empty() {
        // The first line read is probably cut.
        lines.remove(0);
    }
    let skip = lines.len().saturating_sub(KEPT_LINES);
    lines.into_iter().skip(skip).collect()
}

/// `lines` as an indented block for an error message ("(no output)" if none).
pub fn block(lines: &[String]) -> String {
    if lines.is_empty() {
        return "    (no output)".into();
    }
    lines
        .iter()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_the_last_lines_and_sees_the_ready_line() {
        let ring = Ring::default();
        let ready = regex::Regex::new("listening on \\d+").unwrap();
        ring.push("listening on 8000\n", Some(&ready));
        for i in 0..KEPT_LINES + 5 {
            ring.push(&format!("line {i}\n"), Some(&ready));
        }
        let out = Output::Ring(Arc::new(ring));
        let last = out.last_lines(3);
        assert_eq!(
            last,
            [
                format!("line {}", KEPT_LINES + 2),
                format!("line {}", KEPT_LINES + 3),
                format!("line {}", KEPT_LINES + 4)
            ]
        );
        assert_eq!(out.last_lines(10_000).len(), KEPT_LINES);
        assert!(out.matched(&ready));
        assert!(!Output::Ring(Arc::default()).matched(&ready));
    }

    #[test]
    fn a_log_file_gives_its_last_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.log");
        let text: String = (0..500).map(|i| format!("l{i}\n")).collect();
        std::fs::write(&path, text).unwrap();
        let out = Output::File(path);
        assert_eq!(out.last_lines(2), ["l498", "l499"]);
        assert!(out.matched(&regex::Regex::new("^l42$").unwrap()));
        assert_eq!(block(&[]), "    (no output)");
    }
}
