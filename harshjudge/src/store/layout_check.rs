//! Issue 13, point 1: the store is the only code that knows the `.harshJudge/`
//! layout. This test reads every source file of the workspace's crates
//! (`harshjudge`, `harshjudge-mcp`, `harshjudge-macros`) outside
//! `harshjudge/src/store/` and fails, naming each `file:line`, when code (not
//! a comment, not a test module) names a layout path from
//! [`LAYOUT_NAMES`](super::LAYOUT_NAMES):
//! - a string literal that is a layout file name (`"meta.yaml"`), ends with a
//!   hidden one (`"{name}.meta.json"`), or is the step folder prefix
//!   (`"step-"`, `"step-{id}"`);
//! - a literal that is a layout folder name passed to `join`, `push`,
//!   `Path::new` or `PathBuf::from` (`.join("runs")`);
//! - a literal path with a layout segment (`"{dir}/evidence"`,
//!   `"../scenarios/{}/runs/{}"`).
//!
//! Literals with a space (messages for people), `/api/…` literals and axum
//! `.route(` lines (URLs of the original dashboard's API) are not paths. Set
//! `LAYOUT_CHECK_ROOT` to scan another checkout (e.g. an old commit, to count).

use std::path::{Path, PathBuf};

use super::LAYOUT_NAMES;

/// Files allowed to name a layout path, each with the reason. Each entry must
/// still offend (a stale entry fails the test).
const ALLOWED: &[(&str, &str)] = &[];

/// One offending line.
#[derive(Debug)]
struct Hit {
    file: String,
    line: usize,
    literal: String,
}

fn workspace() -> PathBuf {
    std::env::var_os("LAYOUT_CHECK_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The string literals of one line of code (comments dropped).
fn literals(line: &str) -> Vec<String> {
    let b: Vec<char> = line.chars().collect();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            '/' if b.get(i + 1) == Some(&'/') => break,
            '\'' => {
                // A char literal ('"', '\'') or a lifetime: skip the char literal.
                if b.get(i + 2) == Some(&'\'') {
                    i += 3;
                    continue;
                }
                if b.get(i + 1) == Some(&'\\') && b.get(i + 3) == Some(&'\'') {
                    i += 4;
                    continue;
                }
                i += 1;
            }
            'r' if (b.get(i + 1) == Some(&'#') || b.get(i + 1) == Some(&'"'))
                && (i == 0 || !b[i - 1].is_alphanumeric() && b[i - 1] != '_') =>
            {
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&'"') {
                    i += 1;
                    continue;
                }
                let start = j + 1;
                let close: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let rest: String = b[start..].iter().collect();
                match rest.find(&close) {
                    Some(end) => {
                        out.push(rest[..end].to_string());
                        i = start + rest[..end].chars().count() + close.chars().count();
                    }
                    None => break,
                }
            }
            '"' => {
                let mut s = String::new();
                let mut j = i + 1;
                while j < b.len() && b[j] != '"' {
                    if b[j] == '\\' {
                        j += 1;
                    }
                    if let Some(c) = b.get(j) {
                        s.push(*c);
                    }
                    j += 1;
                }
                out.push(s);
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// Whether `lit`, found on `line`, names a layout path.
fn names_layout(line: &str, lit: &str) -> bool {
    // A space or a backtick: text for people (a message, Markdown), not a path.
    if lit.contains(' ') || lit.contains('`') || lit.is_empty() || lit.starts_with("/api/") {
        return false;
    }
    let files = LAYOUT_NAMES.iter().filter(|n| n.contains('.'));
    let folders: Vec<&str> = LAYOUT_NAMES
        .iter()
        .copied()
        .filter(|n| !n.contains('.') && *n != "step-")
        .collect();
    for seg in lit.split('/') {
        if seg.starts_with("step-") {
            return true;
        }
        if files
            .clone()
            .any(|n| seg == *n || (n.starts_with('.') && seg.ends_with(n)))
        {
            return true;
        }
        if lit.contains('/') && folders.contains(&seg) {
            return true;
        }
    }
    if folders.contains(&lit) {
        let quoted = format!("\"{lit}\"");
        let mut rest = line;
        while let Some(at) = rest.find(&quoted) {
            let before = rest[..at].trim_end();
            if ["join(", "push(", "Path::new(", "PathBuf::from("]
                .iter()
                .any(|c| before.ends_with(c))
            {
                return true;
            }
            rest = &rest[at + quoted.len()..];
        }
    }
    false
}

fn scan(root: &Path) -> Vec<Hit> {
    let mut files = vec![];
    for krate in ["harshjudge", "harshjudge-mcp", "harshjudge-macros"] {
        sources(&root.join(krate).join("src"), &mut files);
    }
    files.sort();
    let mut hits = vec![];
    for path in files {
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let rel = rel.trim_start_matches("./").to_string();
        if rel.starts_with("harshjudge/src/store/")
            || rel.ends_with("/tests.rs")
            || rel.ends_with("_tests.rs")
            || rel.contains("/tests/")
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let code = line.trim_start();
            if code.starts_with("#[cfg(test)]")
                && lines[n + 1..]
                    .iter()
                    .find(|l| !l.trim().is_empty())
                    .is_some_and(|l| l.trim_start().starts_with("mod "))
            {
                break; // the unit tests at the end of the file
            }
            if code.starts_with("//") || code.contains(".route(") {
                continue;
            }
            for lit in literals(line) {
                if names_layout(line, &lit) {
                    hits.push(Hit {
                        file: rel.clone(),
                        line: n + 1,
                        literal: lit,
                    });
                }
            }
        }
    }
    hits
}

#[test]
fn the_literal_scanner_sees_paths_and_not_keys_or_messages() {
    let lits = literals(r#"a.join("runs").join(format!("step-{id}")); // "evidence""#);
    assert_eq!(lits, ["runs", "step-{id}"]);
    assert_eq!(literals(r##"x(r#"a"b"#, '"', "c\"d")"##), ["a\"b", "c\"d"]);
    let flagged = |line: &str| literals(line).iter().any(|l| names_layout(line, l));
    assert!(flagged(r#"dir.join("runs")"#));
    assert!(flagged(r#"format!("{dir}/evidence")"#));
    assert!(flagged(r#"format!("{name}.meta.json")"#));
    assert!(flagged(r#"match n { "meta.yaml" => 1 }"#));
    assert!(flagged(r#"n.strip_prefix("step-")"#));
    assert!(!flagged(r#"json!({"runs": runs, "steps": steps})"#));
    assert!(!flagged(r#"o.insert("evidence".into(), v)"#));
    assert!(!flagged(
        r#"err("no .harshJudge/config.yaml in this folder")"#
    ));
}

#[test]
fn only_the_store_names_layout_paths() {
    let root = workspace();
    let hits = scan(&root);
    let mut offending: Vec<&str> = hits.iter().map(|h| h.file.as_str()).collect();
    offending.dedup();
    eprintln!(
        "layout_check: {} file(s) outside store/ name a layout path ({} allowed until merged), {} line(s)",
        offending.len(),
        offending
            .iter()
            .filter(|f| ALLOWED.iter().any(|(a, _)| a == *f))
            .count(),
        hits.len()
    );
    let listing = |hits: &[&Hit]| {
        hits.iter()
            .map(|h| format!("  {}:{}: \"{}\"", h.file, h.line, h.literal))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let all: Vec<&Hit> = hits.iter().collect();
    eprintln!("{}", listing(&all));
    if std::env::var_os("LAYOUT_CHECK_ROOT").is_some() {
        return; // counting another checkout
    }
    let bad: Vec<&Hit> = hits
        .iter()
        .filter(|h| !ALLOWED.iter().any(|(a, _)| *a == h.file))
        .collect();
    assert!(
        bad.is_empty(),
        "these lines name a .harshJudge/ layout path outside harshjudge/src/store/ (ask the store: Store::run_dir, result_path, report_dir, run_evidence, …; add the path to the store if it lacks it):\n{}",
        listing(&bad)
    );
    let stale: Vec<&str> = ALLOWED
        .iter()
        .filter(|(a, _)| !offending.contains(a))
        .map(|(a, _)| *a)
        .collect();
    assert!(
        stale.is_empty(),
        "these allow-list entries of store/layout_check.rs no longer name a layout path: delete them from ALLOWED: {stale:?}"
    );
}
