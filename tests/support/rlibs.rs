//! The libraries as the workspace's tests build them, for tests that compile
//! code of their own with rustc against them (README.md's and the guide's blocks, exported
//! scenarios, the `#[scenario]` compile tests) instead of a cargo build of
//! their own, which compiled the library and its dependencies once more.
//! Shared by `#[path]`: tests/support/mod.rs, harshjudge-mcp/tests/hostile.rs,
//! harshjudge-macros/tests/ui.rs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use harshjudge::serde_json::{self, Value};

/// `cmd` (a nested cargo command of a test) without the variables cargo and
/// nextest set for the test process. Cargo compares some with what a build
/// script saw (ring's asks to rerun when `CARGO_PKG_NAME` or
/// `CARGO_MANIFEST_DIR` change): inherited, they made every nested build
/// compile ring again, in place in the shared target directory, and so
/// everything above it, on the next build of the tests too (and a rustc
/// reading ring's rlib meanwhile found none). `NEXTEST_RUN_ID` would make a
/// suite listed or run by the nested command take itself for part of the
/// outer nextest run.
pub fn fresh_env(cmd: &mut Command) -> &mut Command {
    let of_the_test = |k: &str| {
        k.starts_with("CARGO_PKG_")
            || k.starts_with("CARGO_MANIFEST_")
            || k.starts_with("CARGO_CRATE_")
            || k.starts_with("CARGO_BIN_")
            || k.starts_with("NEXTEST")
            || [
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "CARGO_RUSTC_CURRENT_DIR",
            ]
            .contains(&k)
    };
    for (k, _) in std::env::vars_os() {
        if k.to_str().is_some_and(of_the_test) {
            cmd.env_remove(k);
        }
    }
    cmd
}

/// The rlibs of the libraries `names` (crate names: `demo_app`) and their
/// deps folder, as `cargo test --workspace --no-run --test TEST` reports
/// them: test target `test`'s own build, found fresh in the target directory
/// `target_dir` (`--workspace`: the package selection of `cargo xtask test`,
/// on which the features cargo unifies, and so the library built, depend).
pub fn rlibs(
    workspace: &Path,
    target_dir: &Path,
    test: &str,
    names: &[&str],
) -> (Vec<(String, PathBuf)>, PathBuf) {
    let out = fresh_env(&mut Command::new(env!("CARGO")))
        .current_dir(workspace)
        .args(["test", "--no-run", "--quiet", "--workspace", "--test", test])
        .arg("--message-format=json")
        .env("CARGO_TARGET_DIR", target_dir)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "building {test} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut found = vec![];
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        // A lib target's name is its crate name (`demo_app`).
        let name = msg["target"]["name"].as_str().unwrap_or_default();
        let lib = msg["target"]["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "lib"));
        if msg["reason"] != "compiler-artifact" || !lib || !names.contains(&name) {
            continue;
        }
        let files = msg["filenames"].as_array().cloned().unwrap_or_default();
        if let Some(rlib) = files
            .iter()
            .filter_map(Value::as_str)
            .find(|f| f.ends_with(".rlib"))
        {
            found.push((name.to_string(), PathBuf::from(rlib)));
        }
    }
    assert_eq!(found.len(), names.len(), "rlibs of {names:?}: {found:?}");
    let deps = found[0].1.parent().expect("a deps folder").to_path_buf();
    (found, deps)
}

/// The rustc of the toolchain that runs this test (next to its cargo).
pub fn rustc() -> PathBuf {
    let sibling = Path::new(env!("CARGO")).with_file_name("rustc");
    if sibling.is_file() {
        sibling
    } else {
        PathBuf::from("rustc")
    }
}

/// Type-checks the binary crate whose root is `main_rs` against `externs`
/// (`rustc --emit=metadata`: every error rustc reports before code
/// generation), as a user's crate depending on them; rustc's output.
pub fn check_bin(main_rs: &Path, externs: &(Vec<(String, PathBuf)>, PathBuf)) -> Output {
    let (libs, deps) = externs;
    let dir = main_rs.parent().expect("a folder");
    let mut cmd = Command::new(rustc());
    cmd.current_dir(dir)
        .args([
            "--edition",
            "2024",
            "--crate-type",
            "bin",
            "--emit=metadata",
        ])
        .args(["--crate-name", "export_check", "--color", "never"])
        .arg("-L")
        .arg(format!("dependency={}", deps.display()));
    for (name, rlib) in libs {
        cmd.arg("--extern")
            .arg(format!("{name}={}", rlib.display()));
    }
    cmd.arg(main_rs)
        .arg("-o")
        .arg(dir.join("export_check.rmeta"))
        .output()
        .expect("rustc runs")
}
