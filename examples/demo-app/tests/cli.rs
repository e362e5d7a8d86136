//! The `demo-app` binary: its subcommands' output and exit codes.

mod common;
use common::JsonBody;

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, SocketAddr};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_demo-app");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run demo-app")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn greet() {
    let out = run(&["greet", "Ada"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "Hello, Ada!\n");
    assert_eq!(stderr(&out), "");
}

#[test]
fn greet_without_a_name_is_a_usage_error() {
    let out = run(&["greet"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    assert_eq!(stderr(&out), "error: greet needs a NAME\n");
}

#[test]
fn count_lines() {
    let dir = std::env::temp_dir().join(format!("demo-app-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, content, lines) in [
        ("three.txt", "a\nb\nc\n", "3"),
        ("unterminated.txt", "a\nb", "2"),
        ("empty.txt", "", "0"),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, content).unwrap();
        let out = run(&["count", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert_eq!(stdout(&out), format!("{lines}\n"), "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn count_missing_file_fails_naming_it() {
    let out = run(&["count", "no-such-file.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("no-such-file.txt"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn count_without_a_file_is_a_usage_error() {
    let out = run(&["count"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("error: "));
}

#[test]
fn help_and_version() {
    for flag in ["--help", "-h", "help"] {
        let out = run(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{flag}");
        let text = stdout(&out);
        for needle in ["Usage:", "serve", "greet", "count"] {
            assert!(text.contains(needle), "{flag}: no {needle:?}");
        }
    }
    let out = run(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        format!("demo-app {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn no_arguments_or_unknown_command_is_a_usage_error() {
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("Usage:"));
    let out = run(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown command 'frobnicate'"));
    let out = run(&["serve", "--port", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("invalid port 'nope'"));
}

/// Kills the child even if the test panics.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn serve_prints_its_url_and_serves() {
    let mut child = Killed(
        Command::new(BIN)
            .args(["serve", "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn demo-app serve"),
    );
    let stdout = child.0.stdout.take().unwrap();
    let line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        line
    })
    .await
    .unwrap();
    let url = line
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("not a 127.0.0.1 url: {url}"))
        .parse()
        .unwrap();
    assert_ne!(port, 0);
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let res = common::get(addr, "/api/health").await;
    assert_eq!(res.status, 200);
    assert_eq!(res.json(), serde_json::json!({"status": "ok"}));
}

#[cfg(unix)]
#[tokio::test]
async fn serve_stops_cleanly_on_sigterm() {
    let mut child = Command::new(BIN)
        .args(["serve"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn demo-app serve");
    let stdout = child.stdout.take().unwrap();
    let line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        line
    })
    .await
    .unwrap();
    assert!(
        line.starts_with("listening on http://127.0.0.1:"),
        "{line:?}"
    );
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("shutting down"));
}
