//! Every ```rust block of README.md compiles (issue 20.3), against this
//! workspace's harshjudge, with rustc itself: what a user pastes must build.
//!
//! How a block is compiled, the one rule a README block follows:
//! - a block that calls `harshjudge::main!` is a whole test target
//!   (`tests/NAME.rs` of a user's crate, `harness = false`) and is compiled as
//!   it is;
//! - any other block is a piece of a scenario's body, compiled inside
//!   `#[scenario] async fn readme_block(s: Scenario) -> harshjudge::Result`,
//!   with `expect`, `scenario`, `step` and `Scenario` imported and `page`
//!   (`s.page().await?`) in scope.
//!
//! A block may use the crates a user's test has: harshjudge and, as the app
//! under test, this repository's `demo_app`. Warnings are errors, and a block
//! cannot opt out (`ignore`, `no_run`, `compile_fail` are refused).

use crate::support;
use crate::support::markdown;

use markdown::{Block, code_blocks};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The ```rust blocks; a block cannot opt out of being compiled.
fn rust_blocks(readme: &str) -> Vec<Block> {
    let blocks: Vec<Block> = code_blocks(readme)
        .into_iter()
        .filter(|b| b.lang() == "rust")
        .collect();
    for b in &blocks {
        assert_eq!(
            b.info,
            "rust",
            "README.md:{}: a Rust block is compiled as it is; drop `{}`",
            b.fence,
            &b.info[4..]
        );
    }
    blocks
}

/// The source rustc compiles for `block`: its lines at their README line
/// numbers, so that rustc's `README.md-<fence>.rs:LINE` is README.md's LINE.
fn source(block: &Block) -> String {
    let (head, tail) = if block.code.contains("harshjudge::main!") {
        (String::new(), String::new())
    } else {
        (
            "#[allow(unused_imports)] use harshjudge::{expect, scenario, step, Scenario};\n\
             #[harshjudge::scenario]\n\
             async fn readme_block(s: Scenario) -> harshjudge::Result {\n\
             #[allow(unused_variables)] let page = s.page().await?;\n"
                .to_string(),
            "step!(\"The block ran\", {});\nOk(())\n}\nharshjudge::main!();\n".to_string(),
        )
    };
    let head_lines = head.lines().count();
    assert!(
        head_lines < block.fence,
        "README.md:{}: the block is too close to the top",
        block.fence
    );
    format!(
        "{head}{}{}{tail}",
        "\n".repeat(block.fence - head_lines),
        block.code
    )
}

/// The rlibs of harshjudge and demo_app as the workspace's tests build them
/// (this test's own build: found fresh), and their deps folder.
fn externs() -> &'static (Vec<(String, PathBuf)>, PathBuf) {
    static BUILT: OnceLock<(Vec<(String, PathBuf)>, PathBuf)> = OnceLock::new();
    BUILT.get_or_init(|| support::rlibs("rules", &["harshjudge", "demo_app"]))
}

/// Type-checks each block (`--emit=metadata`: every error rustc reports
/// before code generation), all at once; the failures, with rustc's words.
fn check(blocks: &[Block], dir: &Path) -> Vec<String> {
    let (externs, deps) = externs();
    let children: Vec<_> = blocks
        .iter()
        .map(|b| {
            let file = format!("README.md-{}.rs", b.fence);
            std::fs::write(dir.join(&file), source(b)).unwrap();
            let mut cmd = Command::new(support::rustc());
            cmd.current_dir(dir)
                .args([
                    "--edition",
                    "2024",
                    "--crate-type",
                    "bin",
                    "--emit=metadata",
                ])
                .args(["-D", "warnings", "--crate-name"])
                .arg(format!("readme_{}", b.fence))
                .arg("-L")
                .arg(format!("dependency={}", deps.display()));
            for (name, rlib) in externs {
                cmd.arg("--extern")
                    .arg(format!("{name}={}", rlib.display()));
            }
            cmd.arg(&file)
                .arg("-o")
                .arg(format!("readme_{}.rmeta", b.fence));
            let child = cmd
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("rustc starts");
            (b.fence, child)
        })
        .collect();
    children
        .into_iter()
        .filter_map(|(fence, out)| {
            let out = out.wait_with_output().expect("rustc runs");
            (!out.status.success()).then(|| {
                format!(
                    "README.md:{fence}: this ```rust block does not compile (rustc's \
                     README.md-{fence}.rs:LINE is README.md:LINE):\n{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            })
        })
        .collect()
}

#[test]
fn every_rust_block_of_the_readme_compiles() {
    let readme = std::fs::read_to_string(support::workspace().join("README.md")).unwrap();
    let blocks = rust_blocks(&readme);
    assert!(
        blocks.len() >= 5,
        "README.md has {} Rust blocks",
        blocks.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let failures = check(&blocks, dir.path());
    eprintln!(
        "{} README blocks checked in {:.1?}",
        blocks.len(),
        started.elapsed()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The checker itself: a block that does not compile is reported at its line.
#[test]
fn a_block_that_does_not_compile_is_reported_at_its_readme_line() {
    let readme = "# t\n\ntext\n\n```rust\nlet n: u32 = \"not a number\";\n```\n";
    let blocks = rust_blocks(readme);
    assert_eq!(blocks.len(), 1);
    assert!(
        source(&blocks[0])
            .lines()
            .nth(5)
            .unwrap()
            .contains("not a number")
    );
    let dir = tempfile::tempdir().unwrap();
    let failures = check(&blocks, dir.path());
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].starts_with("README.md:5:"), "{}", failures[0]);
    assert!(failures[0].contains("README.md-5.rs:6:"), "{}", failures[0]);
}

/// The sample at the top of README.md is what the fixture suite prints
/// (issue 20.3): its command run for real, the lines compared in order, `…`
/// standing for lines left out; run ids, durations and the store's absolute
/// folder (the sample shows `.harshJudge`) normalised.
#[test]
fn the_sample_at_the_top_is_what_the_suite_prints() {
    let readme = std::fs::read_to_string(support::workspace().join("README.md")).unwrap();
    let sample = code_blocks(&readme)
        .into_iter()
        .next()
        .filter(|b| b.lang() == "text")
        .expect("README.md starts with a ```text sample");
    let mut expected = sample.code.lines();
    let command = expected.next().unwrap();
    let args = command
        .strip_prefix("$ cargo test --test fixture_suite -- ")
        .unwrap_or_else(|| panic!("README.md:{}: {command:?}", sample.fence + 1));
    let args: Vec<&str> = args.split_whitespace().collect();
    let hj = tempfile::tempdir().unwrap();
    let run = support::cargo_test("fixture_suite", hj.path(), &args, &[]);
    assert_eq!(run.code, 101, "{run:?}");
    let ids = harshjudge::regex::Regex::new(r"\d{8}T\d{9}Z-[a-z0-9]{6}").unwrap();
    let secs = harshjudge::regex::Regex::new(r"finished in \d+\.\d+s").unwrap();
    // The other fixture scenarios (how many, the longest name) are not the sample's.
    let filtered = harshjudge::regex::Regex::new(r"\d+ filtered out").unwrap();
    let normal = |l: &str| {
        let l = l.replace(&hj.path().display().to_string(), ".harshJudge");
        let l = ids.replace_all(&l, "RUN-ID");
        let l = secs.replace_all(&l, "finished in Ns");
        let l = filtered.replace_all(&l, "N filtered out");
        l.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let actual: Vec<String> = format!("{}{}", run.stdout, run.stderr)
        .lines()
        .map(normal)
        .filter(|l| !l.is_empty())
        .collect();
    let mut at = 0;
    let mut skipping = false;
    for (n, line) in expected.enumerate() {
        let readme_line = sample.fence + 2 + n;
        if line.trim().is_empty() {
            continue;
        }
        if line.trim() == "…" {
            skipping = true;
            continue;
        }
        let want = normal(line);
        let found = if skipping {
            actual[at..].iter().position(|a| *a == want).map(|i| at + i)
        } else {
            (actual.get(at) == Some(&want)).then_some(at)
        };
        let Some(i) = found else {
            panic!(
                "README.md:{readme_line}: {line:?} is not what the suite prints after line {at} \
                 of its output (blank lines and spacing aside):\n{}",
                actual.join("\n")
            );
        };
        at = i + 1;
        skipping = false;
    }
}

/// The README's nextest partitions use the names cargo-nextest keeps:
/// `slice:` (which replaced the deprecated `count:`) or `hash:` (issue 37.11).
#[test]
fn the_readmes_nextest_partitions_are_not_deprecated() {
    let readme = std::fs::read_to_string(support::workspace().join("README.md")).unwrap();
    let mut found = 0;
    for (i, line) in readme.lines().enumerate() {
        for (at, _) in line.match_indices("--partition ") {
            found += 1;
            let value = &line[at + "--partition ".len()..];
            assert!(
                value.starts_with("slice:") || value.starts_with("hash:"),
                "README.md:{}: `--partition {}`: use nextest's `slice:M/N` (or `hash:M/N`); \
                 `count:` is deprecated",
                i + 1,
                value.split([' ', '`']).next().unwrap_or("")
            );
        }
    }
    assert!(
        found >= 2,
        "the README shows nextest's partitions ({found} found)"
    );
}
