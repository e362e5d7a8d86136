//! The demo app's command line.

use std::process::Command;

use harshjudge::evidence::CommandProbe;
use harshjudge::{Scenario, scenario, step};

/// Runs the demo CLI and attaches its stdout, stderr and exit code.
fn run(s: &Scenario, name: &str, args: &[&str]) -> harshjudge::Result<(i32, String, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_demo-cli"))
        .args(args)
        .output()?;
    let (code, stdout, stderr) = (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    s.attach_text(&format!("{name}-stdout"), &stdout)?;
    s.attach_text(&format!("{name}-stderr"), &stderr)?;
    s.attach_json(
        &format!("{name}-exit"),
        &serde_json::json!({"args": args, "exitCode": code}),
    )?;
    Ok((code, stdout, stderr))
}

/// The greeting command.
#[scenario(tags = ["cli"])]
async fn cli_greet(s: Scenario) -> harshjudge::Result {
    // The CLI's version before and after every step, as evidence.
    s.probe(CommandProbe::new(
        "version",
        env!("CARGO_BIN_EXE_demo-cli"),
        ["--version"],
    ))
    .await;
    step!("Greet Ada", {
        let (code, out, _) = run(&s, "greet", &["greet", "Ada"])?;
        harshjudge::ensure!(
            code == 0 && out.trim() == "Hello, Ada!",
            "got exit {code}: {out:?}"
        );
    });
    step!("A missing name is a usage error", {
        let (code, _, err) = run(&s, "greet-nameless", &["greet"])?;
        harshjudge::ensure!(
            code == 2 && err.contains("greet needs a NAME"),
            "got exit {code}: {err:?}"
        );
    });
    Ok(())
}
