//! What `--only-changed` follows besides a scenario's own file, as
//! Playwright follows a test file's imports: Rust's `mod` declarations.
//!
//! - A module the scenario's file declares (`mod helpers;`, `#[path = "…"]
//!   mod x;`), and the modules those declare, one by one: the file reaches
//!   them, and a change to any of them runs its scenarios.
//! - A module the crate's root declares (`tests/suite/main.rs`'s `mod
//!   support;`, found beside the file or in a folder above it up to the
//!   package root), when the scenario's file names it (`support::…`, in a
//!   `use` or a path): a change below it runs its scenarios.
//! - A changed `Cargo.toml` or `build.rs` of the package runs everything.
//!
//! Only the declarations are read (a line `mod name;`, with its `#[path]`
//! line above): a module reached by a macro, or named through a re-export
//! under another name, is not followed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How deep `mod` declarations are followed.
const DEPTH: usize = 16;

/// Whether `file` is a module root whose `mod x;` live beside it
/// (`main.rs`, `lib.rs`, `mod.rs`, or a crate root such as `tests/a.rs`).
fn is_dir_owner(file: &Path, crate_root: bool) -> bool {
    crate_root
        || matches!(
            file.file_name().and_then(|n| n.to_str()),
            Some("main.rs" | "lib.rs" | "mod.rs")
        )
}

/// The modules `file` declares: each one's name and file (those found).
fn declared(file: &Path, crate_root: bool) -> Vec<(String, PathBuf)> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return Vec::new();
    };
    let Some(here) = file.parent() else {
        return Vec::new();
    };
    let children = if is_dir_owner(file, crate_root) {
        here.to_path_buf()
    } else {
        here.join(file.file_stem().unwrap_or_default())
    };
    let mut path_attr: Option<String> = None;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("#[path") {
            path_attr = rest
                .split('"')
                .nth(1)
                .map(String::from)
                .filter(|_| rest.trim_start().starts_with('='));
            continue;
        }
        if line.starts_with("#[") || line.starts_with("//") {
            continue;
        }
        let decl = line
            .strip_prefix("pub(crate) ")
            .or_else(|| line.strip_prefix("pub(super) "))
            .or_else(|| line.strip_prefix("pub "))
            .unwrap_or(line);
        let name = decl
            .strip_prefix("mod ")
            .and_then(|r| r.strip_suffix(';'))
            .map(str::trim)
            .filter(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            let found = match path_attr.take() {
                Some(p) => Some(here.join(p)),
                None => [
                    children.join(format!("{name}.rs")),
                    children.join(name).join("mod.rs"),
                ]
                .into_iter()
                .find(|p| p.is_file()),
            };
            if let Some(f) = found {
                out.push((name.to_string(), f));
            }
        }
        path_attr = None;
    }
    out
}

/// Every module file below `file` (itself included), each with the name
/// of the module of `file` it is under (`file` itself: `None`).
fn tree(file: &Path, crate_root: bool) -> HashMap<PathBuf, Option<String>> {
    let mut seen: HashMap<PathBuf, Option<String>> = HashMap::new();
    seen.insert(normal(file), None);
    let mut next: Vec<(PathBuf, bool, Option<String>)> =
        vec![(file.to_path_buf(), crate_root, None)];
    for _ in 0..DEPTH {
        let mut below = Vec::new();
        for (f, root, top) in next {
            for (name, child) in declared(&f, root) {
                let top = top.clone().or(Some(name));
                if seen.insert(normal(&child), top.clone()).is_none() {
                    below.push((child, false, top));
                }
            }
        }
        if below.is_empty() {
            break;
        }
        next = below;
    }
    seen
}

/// `path` without `.` and `..` (the files' `#[path]`s have them).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether the scenario file `scenario` (absolute, under `package`)
/// depends on one of `changed` (absolute) through `mod` declarations: one
/// it reaches, or one its crate's root declares that it names.
pub(super) fn reaches(scenario: &Path, package: &Path, changed: &[&Path]) -> bool {
    let changed: Vec<PathBuf> = changed.iter().map(|c| normal(c)).collect();
    let is = |tree: &HashMap<PathBuf, Option<String>>| {
        changed
            .iter()
            .filter_map(|c| tree.get(c).map(|top| (c, top)))
            .filter(|(c, _)| *c != &normal(scenario))
            .map(|(_, top)| top.clone())
            .collect::<Vec<_>>()
    };
    let crate_root = scenario
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| matches!(d.to_str(), Some("tests" | "examples" | "benches" | "bin")));
    if !is(&tree(scenario, crate_root)).is_empty() {
        return true;
    }
    let text = std::fs::read_to_string(scenario).unwrap_or_default();
    let mut dir = scenario.parent();
    while let Some(d) = dir.filter(|d| d.starts_with(package)) {
        for root in ["main.rs", "lib.rs"].map(|n| d.join(n)) {
            if root == scenario || !root.is_file() {
                continue;
            }
            let crate_tree = tree(&root, true);
            if !crate_tree.contains_key(&normal(scenario)) {
                continue;
            }
            let names = is(&crate_tree);
            if names
                .iter()
                .flatten()
                .any(|n| text.contains(&format!("{n}::")))
            {
                return true;
            }
        }
        dir = d.parent();
    }
    false
}

/// Whether a change to `file` (absolute) runs everything of the package at
/// `package`: its manifest or build script.
pub(super) fn runs_everything(file: &Path, package: &Path) -> bool {
    file == package.join("Cargo.toml") || file == package.join("build.rs")
}
