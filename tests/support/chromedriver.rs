//! A chromedriver process of a test's own (tests that drive WebDriver
//! directly, or stand in for a remote end). Included with `#[path]`.
//!
//! It is started with `--port=0` and the port it announces on stdout is used:
//! a port picked by the test and handed over could be taken meanwhile by a
//! parallel test's driver, whose listener the readiness check would then reach.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `binary --port=0 ARGS…` (stderr discarded) and waits until it says
/// which port it listens on. Panics with the reason when it does not within
/// 20 s or exits first.
///
/// `tmp` is its temporary folder (`TMPDIR`), a folder of the test's own that
/// goes with the test: chromedriver makes each session's profile there, and
/// Chromium its singleton folder, and a driver killed by the test, or a
/// browser it quits without waiting, leaves them behind (two to four
/// `org.chromium.Chromium.*` folders in `/tmp` per run of the suite before).
pub fn spawn(binary: &std::path::Path, args: &[String], tmp: &std::path::Path) -> (Child, u16) {
    let mut child = Command::new(binary)
        .arg("--port=0")
        .args(args)
        .env("TMPDIR", tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "start {}: {e} (apt-get install chromium-driver)",
                binary.display()
            )
        });
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    // Reads the announcement, then drains the pipe so chromedriver never blocks on it.
    std::thread::spawn(move || {
        let mut reader = std::io::BufReader::new(stdout);
        let mut line = String::new();
        while matches!(reader.read_line(&mut line), Ok(n) if n > 0) {
            if let Some(port) = line
                .split("started successfully on port ")
                .nth(1)
                .and_then(|r| r.trim().trim_end_matches('.').parse::<u16>().ok())
            {
                let _ = tx.send(port);
            }
            line.clear();
        }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(port) = rx.recv_timeout(Duration::from_millis(50)) {
            return (child, port);
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{} exited with {status} before listening", binary.display());
        }
        assert!(
            Instant::now() < deadline,
            "{} did not say which port it listens on within 20 s",
            binary.display()
        );
    }
}
