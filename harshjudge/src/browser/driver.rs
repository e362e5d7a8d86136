//! The local chromedriver process and its watchdog.
//!
//! The browser lives exactly as long as the test process, however that ends,
//! by [`crate::process`]'s mechanism (shared with the app under test):
//!
//! - chromedriver runs in a process group of its own, and every Chromium process
//!   it starts stays in that group (Chromium's crashpad handlers leave it but exit
//!   with their browser);
//! - a [`Watchdog`] of this process kills the whole group and removes the folder
//!   of the sessions' profiles when this process exits (normally, by a signal,
//!   or SIGKILL) or the driver is stopped;
//! - chromedriver also gets PR_SET_PDEATHSIG, which covers the moment between its
//!   start and the watchdog's (no browser runs yet then);
//! - a chromedriver found dead is stopped the same way before a new one starts:
//!   the browsers it left behind go with it.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::config::BrowserConfig;
use super::error::BrowserError;
use crate::process::{Watch, Watchdog, spawn_from_keeper};

pub(super) struct Driver {
    url: String,
    child: Child,
    /// Kills chromedriver's process group and removes `profiles` when this
    /// process ends or the driver stops.
    watchdog: Watchdog,
    /// The folder of the sessions' profiles (`harshjudge-browser-*` in the
    /// temporary folder).
    profiles: PathBuf,
}

pub(super) static DRIVER: Mutex<Option<Driver>> = Mutex::new(None);

impl Driver {
    /// Stops chromedriver and every browser it started, and removes the
    /// profiles. `graceful`: ask chromedriver to quit its browsers first.
    pub(super) fn stop(mut self, graceful: bool) {
        if graceful {
            self.shutdown_request();
            let deadline = Instant::now() + Duration::from_secs(3);
            while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        // The whole group, not only chromedriver: browsers of a driver that
        // died are orphans in it.
        let _ = rustix::process::kill_process_group(
            rustix::process::Pid::from_child(&self.child),
            rustix::process::Signal::KILL,
        );
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The watchdog does the rest: kill anything left in the group and
        // remove the profiles.
        if !self.watchdog.release(Duration::from_secs(3)) {
            let _ = std::fs::remove_dir_all(&self.profiles);
        }
    }

    /// chromedriver's `/shutdown` endpoint, which quits every browser it started.
    fn shutdown_request(&self) {
        let Some(addr) = self.url.strip_prefix("http://") else {
            return;
        };
        let Ok(mut stream) = std::net::TcpStream::connect(addr) else {
            return;
        };
        use std::io::{Read, Write};
        let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
        let request =
            format!("GET /shutdown HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        // Wait for the answer: chromedriver quits its browsers before replying,
        // and may drop the request if the connection closes first.
        if stream.write_all(request.as_bytes()).is_ok() {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = stream.read(&mut [0u8; 256]);
        }
    }
}

/// The port a chromedriver started with `--port=0` announces on its stdout
/// ("ChromeDriver was started successfully on port 41234."), sent once; the
/// thread then drains the pipe until every holder of it (chromedriver and its
/// browsers) has closed it, so that no writer ever blocks on a full pipe.
fn announced_port(stdout: std::process::ChildStdout) -> std::sync::mpsc::Receiver<u16> {
    let (tx, rx) = std::sync::mpsc::channel();
    let _ = std::thread::Builder::new()
        .name("harshjudge-driver-out".into())
        .spawn(move || {
            use std::io::BufRead;
            let mut lines = std::io::BufReader::new(stdout);
            let mut line = String::new();
            let mut sent = false;
            while matches!(lines.read_line(&mut line), Ok(n) if n > 0) {
                if !sent && let Some(port) = port_in_announcement(&line) {
                    let _ = tx.send(port);
                    sent = true;
                }
                line.clear();
            }
        });
    rx
}

/// `Some(41234)` for chromedriver's "… started successfully on port 41234."
fn port_in_announcement(line: &str) -> Option<u16> {
    let rest = line.split("started successfully on port ").nth(1)?;
    rest.trim()
        .trim_end_matches('.')
        .parse()
        .ok()
        .filter(|p| *p != 0)
}

/// The WebDriver URL and the folder for sessions' profiles (none for a remote
/// WebDriver): the remote one, or a local chromedriver started (once per
/// process, again if it died) on a free loopback port.
pub(super) fn driver_url(
    config: &BrowserConfig,
) -> Result<(String, Option<PathBuf>), BrowserError> {
    if let Some(url) = &config.webdriver_url {
        return Ok((url.clone(), None));
    }
    let mut guard = DRIVER.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(d) = guard.as_mut() {
        // Alive: not exited, and still listening (a process being killed can
        // still be unreaped while its port is already closed).
        let listening = || {
            d.url
                .strip_prefix("http://")
                .and_then(|a| a.parse::<std::net::SocketAddr>().ok())
                .is_some_and(|a| {
                    std::net::TcpStream::connect_timeout(&a, Duration::from_secs(2)).is_ok()
                })
        };
        if matches!(d.child.try_wait(), Ok(None)) && listening() {
            return Ok((d.url.clone(), Some(d.profiles.clone())));
        }
        // chromedriver died (or is dying): its browsers must not outlive it.
        if let Some(dead) = guard.take() {
            dead.stop(false);
        }
    }
    let binary = config.chromedriver_binary()?;
    config.chromium_binary()?;
    let mut last = String::new();
    for _ in 0..3 {
        let profiles = tempfile::Builder::new()
            .prefix("harshjudge-browser-")
            .tempdir()
            .map_err(|e| BrowserError::DriverStart(format!("profiles folder: {e}")))?
            .keep();
        let mut cmd = Command::new(&binary);
        // Port 0: chromedriver binds a free port itself and says which on its
        // stdout. A port picked here and handed over could be taken meanwhile
        // (by another test process's driver), and a connect to it would then
        // reach that other driver.
        cmd.arg("--port=0")
            .arg("--allowed-ips=127.0.0.1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A process group of its own: its browsers inherit it, and the
        // watchdog kills it as a whole. chromedriver dies with this process,
        // even on SIGKILL, until the watchdog runs.
        crate::process::own_group(&mut cmd);
        crate::process::die_with_this_process(&mut cmd);
        let mut child = match spawn_from_keeper(cmd) {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&profiles);
                return Err(BrowserError::DriverStart(format!(
                    "{}: {e}",
                    binary.display()
                )));
            }
        };
        let watchdog = match Watchdog::spawn(child.id(), Some(&profiles), Watch::ThisProcess) {
            Ok(w) => w,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = std::fs::remove_dir_all(&profiles);
                return Err(BrowserError::DriverStart(format!(
                    "the watchdog that stops the browser with this process (/bin/sh) could not start: {e}"
                )));
            }
        };
        let announced = child.stdout.take().map(announced_port);
        let mut port = None;
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut ready = false;
        while Instant::now() < deadline {
            if port.is_none() {
                port = announced.as_ref().and_then(|rx| rx.try_recv().ok());
            }
            if let Ok(Some(status)) = child.try_wait() {
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    use std::io::Read;
                    let _ = e.read_to_string(&mut err);
                }
                last = format!("exited with {status}: {}", err.trim());
                break;
            }
            if let Some(port) = port
                && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
            {
                ready = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let url = format!("http://127.0.0.1:{}", port.unwrap_or(0));
        let driver = Driver {
            url: url.clone(),
            child,
            watchdog,
            profiles: profiles.clone(),
        };
        if ready {
            *guard = Some(driver);
            return Ok((url, Some(profiles)));
        }
        driver.stop(false);
        if last.is_empty() {
            last = match port {
                Some(port) => format!("port {port} did not open within 10 s"),
                None => "it did not say which port it listens on within 10 s".into(),
            };
        }
    }
    Err(BrowserError::DriverStart(last))
}

/// The pid and URL of the chromedriver this process started, if running.
pub fn local_driver() -> Option<(u32, String)> {
    DRIVER
        .lock()
        .expect("driver lock")
        .as_ref()
        .map(|d| (d.child.id(), d.url.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_port_chromedriver_announces_is_read_from_its_line() {
        assert_eq!(
            port_in_announcement("ChromeDriver was started successfully on port 41234.\n"),
            Some(41234)
        );
        assert_eq!(
            port_in_announcement("Starting ChromeDriver 156.0 on port 0\n"),
            None
        );
        assert_eq!(
            port_in_announcement("Only local connections are allowed.\n"),
            None
        );
        assert_eq!(
            port_in_announcement("… started successfully on port 0.\n"),
            None
        );
    }
}
