//! README.md and the guide (docs/src, an mdBook): every ```rust block
//! compiles (issue 20.3), against this workspace's harshjudge, with rustc
//! itself: what a user pastes must build. Their links reach files and
//! headings that exist, every chapter is in SUMMARY.md, and README.md stays
//! short (issue 43).
//!
//! How a block is compiled, the one rule a block follows:
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

/// The most lines README.md may have (issue 43: the rest is the guide's).
const README_LINES: usize = 300;

/// The guide's chapters, relative to the workspace.
const GUIDE: &str = "docs/src";

/// A ```rust block of a file: the file (relative to the workspace, as
/// messages name it) and the block.
struct Located {
    file: String,
    block: Block,
}

/// README.md and every `.md` file under docs/src, relative to the
/// workspace, with their text; in a fixed order.
fn documents() -> Vec<(String, String)> {
    let ws = support::workspace();
    let mut files = vec!["README.md".to_string()];
    let mut stack = vec![ws.join(GUIDE)];
    let mut guide = vec![];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = path.strip_prefix(&ws).unwrap();
                guide.push(rel.display().to_string());
            }
        }
    }
    guide.sort();
    assert!(!guide.is_empty(), "{GUIDE} has no chapters");
    files.extend(guide);
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(ws.join(&f)).unwrap();
            (f, text)
        })
        .collect()
}

/// The ```rust blocks of `file`; a block cannot opt out of being compiled.
fn rust_blocks(file: &str, text: &str) -> Vec<Located> {
    let blocks: Vec<Block> = code_blocks(text)
        .into_iter()
        .filter(|b| b.lang() == "rust")
        .collect();
    for b in &blocks {
        assert_eq!(
            b.info,
            "rust",
            "{file}:{}: a Rust block is compiled as it is; drop `{}`",
            b.fence,
            &b.info[4..]
        );
    }
    blocks
        .into_iter()
        .map(|block| Located {
            file: file.to_string(),
            block,
        })
        .collect()
}

/// The source rustc compiles for `block`: its lines at their line numbers in
/// its file, so that rustc's `<name>-<fence>.rs:LINE` is the file's LINE.
fn source(located: &Located) -> String {
    let block = &located.block;
    let (head, tail) =
        if block.code.contains("harshjudge::main!") || block.code.contains("fn main(") {
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
        "{}:{}: the block is too close to the top",
        located.file,
        block.fence
    );
    format!(
        "{head}{}{}{tail}",
        "\n".repeat(block.fence - head_lines),
        block.code
    )
}

/// The name of the file rustc compiles for a block: its file's path, `/` as
/// `_`, and the line of its fence (`docs_src_clock.md-12.rs`).
fn rs_name(located: &Located) -> String {
    format!(
        "{}-{}.rs",
        located.file.replace('/', "_"),
        located.block.fence
    )
}

/// The rlibs of harshjudge, harshjudge-browser, demo_app and tokio as the
/// workspace's tests build them
/// (this test's own build: found fresh), and their deps folder.
fn externs() -> &'static (Vec<(String, PathBuf)>, PathBuf) {
    static BUILT: OnceLock<(Vec<(String, PathBuf)>, PathBuf)> = OnceLock::new();
    BUILT.get_or_init(|| {
        support::rlibs(
            "rules",
            &["harshjudge", "harshjudge_browser", "demo_app", "tokio"],
        )
    })
}

/// Type-checks each block (`--emit=metadata`: every error rustc reports
/// before code generation), all at once; the failures, with rustc's words,
/// each at `FILE:LINE` of its fence.
fn check(blocks: &[Located], dir: &Path) -> Vec<String> {
    let (externs, deps) = externs();
    let children: Vec<_> = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let file = rs_name(b);
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
                .arg(format!("block_{i}"))
                .arg("-L")
                .arg(format!("dependency={}", deps.display()));
            for (name, rlib) in externs {
                cmd.arg("--extern")
                    .arg(format!("{name}={}", rlib.display()));
            }
            cmd.arg(&file).arg("-o").arg(format!("block_{i}.rmeta"));
            let child = cmd
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("rustc starts");
            (b, file, child)
        })
        .collect();
    children
        .into_iter()
        .filter_map(|(b, rs, out)| {
            let out = out.wait_with_output().expect("rustc runs");
            (!out.status.success()).then(|| {
                format!(
                    "{}:{}: this ```rust block does not compile (rustc's \
                     {rs}:LINE is {}:LINE):\n{}",
                    b.file,
                    b.block.fence,
                    b.file,
                    String::from_utf8_lossy(&out.stderr)
                )
            })
        })
        .collect()
}

#[test]
fn every_rust_block_of_the_readme_and_the_guide_compiles() {
    let docs = documents();
    let blocks: Vec<Located> = docs
        .iter()
        .flat_map(|(file, text)| rust_blocks(file, text))
        .collect();
    let in_readme = blocks.iter().filter(|b| b.file == "README.md").count();
    assert!(in_readme >= 1, "README.md has {in_readme} Rust blocks");
    // The README's 27 blocks before issue 43 moved them into the guide.
    assert!(
        blocks.len() - in_readme >= 27,
        "the guide has {} Rust blocks",
        blocks.len() - in_readme
    );
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let failures = check(&blocks, dir.path());
    eprintln!(
        "{} blocks of {} files checked in {:.1?}",
        blocks.len(),
        docs.len(),
        started.elapsed()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The checker itself: a block that does not compile is reported at its line.
#[test]
fn a_block_that_does_not_compile_is_reported_at_its_readme_line() {
    let readme = "# t\n\ntext\n\n```rust\nlet n: u32 = \"not a number\";\n```\n";
    let blocks = rust_blocks("README.md", readme);
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

/// A chapter's block that does not compile is reported at its chapter and
/// line, beside a block of another chapter at the same line that compiles
/// (the files rustc compiles are named apart).
#[test]
fn a_guide_block_that_does_not_compile_is_reported_at_its_file_and_line() {
    let good = "# A\n\ntext\n\n\n\n\n\n```rust\nlet n: u32 = 1;\nlet _ = n;\n```\n";
    let bad = "# B\n\nOne.\n\nTwo.\n\nThree.\n\n```rust\nlet _ = 1;\nlet n: u32 = \"not a number\";\n```\n";
    let mut blocks = rust_blocks("docs/src/good.md", good);
    blocks.extend(rust_blocks("docs/src/sub/bad.md", bad));
    assert_eq!(blocks.len(), 2);
    let dir = tempfile::tempdir().unwrap();
    let failures = check(&blocks, dir.path());
    assert_eq!(failures.len(), 1, "{failures:?}");
    let f = &failures[0];
    assert!(f.starts_with("docs/src/sub/bad.md:9:"), "{f}");
    assert!(f.contains("docs_src_sub_bad.md-9.rs:11:"), "{f}");
    assert!(f.contains("is docs/src/sub/bad.md:LINE"), "{f}");
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

/// The nextest partitions README.md and the guide show use the names
/// cargo-nextest keeps: `slice:` (which replaced the deprecated `count:`) or
/// `hash:` (issue 37.11).
#[test]
fn the_nextest_partitions_shown_are_not_deprecated() {
    let mut found = 0;
    for (file, text) in documents() {
        for (i, line) in text.lines().enumerate() {
            for (at, _) in line.match_indices("--partition ") {
                found += 1;
                let value = &line[at + "--partition ".len()..];
                assert!(
                    value.starts_with("slice:") || value.starts_with("hash:"),
                    "{file}:{}: `--partition {}`: use nextest's `slice:M/N` (or `hash:M/N`); \
                     `count:` is deprecated",
                    i + 1,
                    value.split([' ', '`']).next().unwrap_or("")
                );
            }
        }
    }
    assert!(
        found >= 2,
        "the guide shows nextest's partitions ({found} found)"
    );
}

#[test]
fn the_readme_is_at_most_300_lines() {
    let readme = std::fs::read_to_string(support::workspace().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= README_LINES,
        "README.md has {lines} lines; at most {README_LINES}: move the rest into the guide ({GUIDE})"
    );
}

/// The broken relative links of `docs` (file, text): a target file that does
/// not exist, or a `#anchor` that is no heading of its Markdown file; each as
/// `FILE:LINE: …`. `read` gives the text of a file by its workspace path
/// (`None`: no such file).
fn broken_links(docs: &[(String, String)], read: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut broken = vec![];
    for (file, text) in docs {
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        for link in markdown::links(text) {
            let t = &link.target;
            if t.contains("://") || t.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match t.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (t.as_str(), None),
            };
            let target = if path.is_empty() {
                file.clone()
            } else {
                normalise(&dir.join(path))
            };
            let Some(body) = read(&target) else {
                broken.push(format!(
                    "{file}:{}: `{t}`: {target} does not exist",
                    link.line
                ));
                continue;
            };
            if let Some(anchor) = anchor
                && target.ends_with(".md")
                && !markdown::heading_ids(&body).iter().any(|id| id == anchor)
            {
                broken.push(format!(
                    "{file}:{}: `{t}`: {target} has no heading #{anchor} (its headings: {})",
                    link.line,
                    markdown::heading_ids(&body).join(", ")
                ));
            }
        }
    }
    broken
}

/// `a/b/../c` as `a/c` (a link's path joined to its file's folder).
fn normalise(path: &Path) -> String {
    let mut parts: Vec<&str> = vec![];
    for p in path.iter().filter_map(|p| p.to_str()) {
        match p {
            "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

#[test]
fn every_relative_link_reaches_a_file_and_a_heading() {
    let ws = support::workspace();
    let docs = documents();
    let read = |f: &str| {
        let p = ws.join(f);
        if p.is_dir() {
            return Some(String::new());
        }
        std::fs::read_to_string(p).ok()
    };
    let links: usize = docs.iter().map(|(_, t)| markdown::links(t).len()).sum();
    assert!(links >= 100, "{links} links in README.md and the guide");
    let broken = broken_links(&docs, &read);
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    // README.md leads into the guide and to docs.rs.
    let readme = &docs[0].1;
    let into_guide = markdown::links(readme)
        .iter()
        .filter(|l| l.target.starts_with("docs/src/"))
        .count();
    assert!(into_guide >= 10, "README.md links {into_guide} chapters");
    assert!(
        readme.contains("https://docs.rs/harshjudge"),
        "README.md links docs.rs"
    );
}

/// The link checker itself: a missing file and a missing heading are
/// reported at their file and line; links in code are not links.
#[test]
fn a_broken_link_is_reported_at_its_file_and_line() {
    let docs = vec![
        (
            "README.md".to_string(),
            "# R\n\nSee [the clock](docs/src/clock.md#the-clock) and\n[gone](docs/src/gone.md).\n\
             `[code](nowhere.md)`\n\n```text\n[block](nowhere.md)\n```\n"
                .to_string(),
        ),
        (
            "docs/src/clock.md".to_string(),
            "# Clock\n\n## The `clock()`\n\nBack to [the top](../../README.md#r), \
             [here](#the-clock), [wrong](#the-clock-1).\n"
                .to_string(),
        ),
    ];
    let read = |f: &str| docs.iter().find(|(n, _)| n == f).map(|(_, t)| t.clone());
    let broken = broken_links(&docs, &read);
    assert_eq!(
        broken,
        [
            "README.md:4: `docs/src/gone.md`: docs/src/gone.md does not exist",
            "docs/src/clock.md:5: `#the-clock-1`: docs/src/clock.md has no heading #the-clock-1 \
             (its headings: clock, the-clock)",
        ]
    );
}

#[test]
fn every_chapter_is_in_the_summary() {
    let ws = support::workspace();
    let summary = std::fs::read_to_string(ws.join(GUIDE).join("SUMMARY.md")).unwrap();
    let listed: Vec<String> = markdown::links(&summary)
        .into_iter()
        .map(|l| l.target)
        .collect();
    let chapters: Vec<String> = documents()
        .into_iter()
        .filter_map(|(f, _)| f.strip_prefix(&format!("{GUIDE}/")).map(String::from))
        .filter(|f| f != "SUMMARY.md")
        .collect();
    let missing: Vec<&String> = chapters.iter().filter(|c| !listed.contains(c)).collect();
    assert!(
        missing.is_empty(),
        "{GUIDE}/SUMMARY.md does not list {missing:?} (mdBook would not build them)"
    );
    let twice: Vec<&String> = listed
        .iter()
        .filter(|l| listed.iter().filter(|m| m == l).count() > 1)
        .collect();
    assert!(twice.is_empty(), "listed twice: {twice:?}");
}

/// README.md's install block, first scenario and its `--list` are the guide's
/// first chapter's, word for word (tests/rules/package.rs builds README.md's).
#[test]
fn the_readmes_first_scenario_is_the_guides() {
    let ws = support::workspace();
    let readme = std::fs::read_to_string(ws.join("README.md")).unwrap();
    let chapter = std::fs::read_to_string(ws.join(GUIDE).join("first-scenario.md")).unwrap();
    let r = code_blocks(&readme);
    let c = code_blocks(&chapter);
    for (marker, lang, in_chapter) in [
        ("## Writing a scenario", "toml", "## Install"),
        ("## Writing a scenario", "rust", "## The scenario"),
        (
            "cargo test --test shop -- --list",
            "text",
            "cargo test --test shop -- --list",
        ),
    ] {
        let ours = markdown::block_after(&r, &readme, marker, lang);
        let theirs = markdown::block_after(&c, &chapter, in_chapter, lang);
        assert_eq!(
            ours.code, theirs.code,
            "README.md:{} and {GUIDE}/first-scenario.md:{} differ",
            ours.fence, theirs.fence
        );
    }
}
