//! Checks of the workspace itself: dependencies and lints every crate shares.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `unsafe-libyaml` is unmaintained (RUSTSEC-2024-0449): no crate of the
/// workspace may pull it in, for any target (Cargo.lock lists them all).
#[test]
fn no_unmaintained_yaml_parser_in_the_lockfile() {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    for name in ["unsafe-libyaml", "serde_yaml", "serde_yaml_ng", "serde_yml"] {
        assert!(
            !lock.contains(&format!("name = \"{name}\"\n")),
            "Cargo.lock holds {name}: read YAML through harshjudge_browser::yaml::from_str (serde-saphyr)"
        );
    }
    // nor raw libc as a direct dependency: rustix and std cover our calls.
    for manifest in manifests() {
        let text = std::fs::read_to_string(&manifest).unwrap();
        assert!(
            !text.lines().any(|l| l.starts_with("libc ")),
            "{}: use rustix (or std) instead of libc",
            manifest.display()
        );
    }
}

fn manifests() -> Vec<std::path::PathBuf> {
    [
        "",
        "harshjudge",
        "harshjudge-browser",
        "harshjudge-store",
        "harshjudge-macros",
        "harshjudge-mcp",
        "examples/demo-app",
        "xtask",
    ]
    .iter()
    .map(|d| root().join(d).join("Cargo.toml"))
    .collect()
}

/// Every crate takes `[workspace.lints]` (missing_docs, clippy's set).
#[test]
fn every_crate_uses_the_workspace_lints() {
    let root_manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(root_manifest.contains("[workspace.lints.rust]\nmissing_docs = "));
    assert!(root_manifest.contains("undocumented_unsafe_blocks = \"warn\""));
    let members = root_manifest
        .split("members = [")
        .nth(1)
        .and_then(|m| m.split(']').next())
        .unwrap()
        .split(',')
        .count();
    assert_eq!(
        manifests().len(),
        members,
        "a member is missing from this test"
    );
    for manifest in manifests() {
        let text = std::fs::read_to_string(&manifest).unwrap();
        assert!(
            text.contains("\n[lints]\nworkspace = true\n"),
            "{}: add `[lints] workspace = true`",
            manifest.display()
        );
    }
}

/// The crates' own sources (not their tests), with the in-page scripts and the
/// report page.
fn sources() -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    let mut stack: Vec<_> = [
        "harshjudge/src",
        "harshjudge-mcp/src",
        "harshjudge-macros/src",
        "xtask/src",
    ]
    .iter()
    .map(|d| root().join(d))
    .collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push(path);
            } else if (name.ends_with(".rs") || name.ends_with(".js") || name.ends_with(".html"))
                && name != "tests.rs"
                && !name.ends_with("_tests.rs")
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// No giant rooms (issue 13): a source file over ~850 lines or a function over
/// ~150 is named as a warning (split it where a concept begins, not where a
/// count ends: issue 21 keeps these caps as warnings); one over half as much
/// again (1,275 lines, a 225-line function) fails. A function is measured from
/// its `fn` line to the closing brace at the same indentation (rustfmt's layout).
#[test]
fn no_source_file_or_function_is_a_giant_room() {
    const WARN_FILE: usize = 850;
    const WARN_FN: usize = 150;
    const MAX_FILE: usize = WARN_FILE * 3 / 2;
    const MAX_FN: usize = WARN_FN * 3 / 2;
    let fn_line = fn_start();
    let (mut warnings, mut problems) = (vec![], vec![]);
    for path in sources() {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let shown = path.strip_prefix(root()).unwrap().display().to_string();
        let n = lines.len();
        if n > WARN_FILE {
            let line = format!("{shown}: {n} lines (warn over {WARN_FILE}, fail over {MAX_FILE})");
            if n > MAX_FILE {
                problems.push(line)
            } else {
                warnings.push(line)
            }
        }
        if !shown.ends_with(".rs") {
            continue;
        }
        for (i, line) in lines.iter().enumerate() {
            let Some((indent, name)) = fn_line(line) else {
                continue;
            };
            if line.trim_end().ends_with(';') || line.trim_end().ends_with('}') {
                continue;
            }
            let close = format!("{indent}}}");
            if let Some(end) = lines[i..].iter().position(|l| *l == close)
                && end + 1 > WARN_FN
            {
                let line = format!(
                    "{shown}:{}: fn {name} is {} lines (warn over {WARN_FN}, fail over {MAX_FN})",
                    i + 1,
                    end + 1
                );
                if end + 1 > MAX_FN {
                    problems.push(line)
                } else {
                    warnings.push(line)
                }
            }
        }
    }
    for w in &warnings {
        eprintln!("warning: large room: {w}");
    }
    assert!(problems.is_empty(), "split these:\n{}", problems.join("\n"));
}

/// Recognises the first line of a function item: its indentation and name.
fn fn_start() -> impl Fn(&str) -> Option<(String, String)> {
    |line: &str| {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let mut rest = trimmed;
        for prefix in [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "const ",
            "async ",
            "unsafe ",
        ] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        let rest = rest.strip_prefix("async ").unwrap_or(rest);
        let name = rest.strip_prefix("fn ")?;
        let name: String = name
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        (!name.is_empty()).then(|| (indent.to_string(), name))
    }
}

/// Nothing of one machine is committed (issue 20.4: a symbolic link `sudo`
/// pointing into a `mktemp -d` folder sat at the root). No tracked file is a
/// symbolic link (git mode 120000), and no tracked text file names a path
/// inside a generated temporary folder: below one of `TEMP_ROOTS`, a folder
/// named `tmp` or `tmp.` followed by random characters (mktemp, Python's
/// tempfile) or `.tmp` and random characters (Rust's tempfile); and anything
/// below macOS's per-user temporary folders (`MACOS_ROOTS`). Allowed: a root
/// alone, a folder of a fixed name, and a template of `X`s (what `mktemp`
/// takes). Runs on a clone: it asks git. This file spells none of those paths
/// whole: its examples are assembled at run time.
#[test]
fn no_tracked_symlink_or_temporary_path() {
    let out = std::process::Command::new("git")
        .current_dir(root())
        .args(["ls-files", "-s", "-z"])
        .output()
        .expect("git runs (this test reads the index of a clone)");
    assert!(
        out.status.success(),
        "git ls-files failed (this test needs a git clone): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut problems = vec![];
    for entry in out.stdout.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let entry = String::from_utf8_lossy(entry);
        // `<mode> <object> <stage>\t<path>`
        let (meta, path) = entry.split_once('\t').expect("git ls-files -s format");
        if meta.starts_with("120000 ") {
            problems.push(format!(
                "{path}: a symbolic link is tracked (`git rm {path}`)"
            ));
            continue;
        }
        let Ok(bytes) = std::fs::read(root().join(path)) else {
            continue; // deleted in the work tree, not yet in the index
        };
        if bytes.contains(&0) {
            continue; // binary
        }
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            if let Some(found) = temporary_path(line) {
                problems.push(format!(
                    "{path}:{}: {found:?} is a path inside a temporary folder of one machine",
                    n + 1
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The roots below which generated temporary folders are made.
const TEMP_ROOTS: [&str; 4] = ["/tmp/", "/var/tmp/", "/dev/shm/", "/private/tmp/"];

/// macOS's per-user temporary roots, in two halves (see above).
const MACOS_ROOTS: [[&str; 2]; 2] = [["/var/", "folders/"], ["/private/var/", "folders/"]];

/// The first path of `line` inside a generated temporary folder (see
/// [`no_tracked_symlink_or_temporary_path`]).
fn temporary_path(line: &str) -> Option<String> {
    let roots = TEMP_ROOTS;
    let macos = MACOS_ROOTS.map(|[a, b]| [a, b].concat());
    let is_path_char = |c: char| c.is_alphanumeric() || "._-/".contains(c);
    let path_at = |at: usize| -> String {
        line[at..]
            .chars()
            .take_while(|c| is_path_char(*c))
            .collect()
    };
    for root in &macos {
        if let Some(at) = line.find(root.as_str())
            && line[at + root.len()..].starts_with(|c: char| c.is_alphanumeric())
        {
            return Some(path_at(at));
        }
    }
    for root in roots {
        let mut from = 0;
        while let Some(i) = line[from..].find(root) {
            let at = from + i;
            from = at + root.len();
            // `/var/tmp/` is also found as `/tmp/`: judge the longest root only.
            if root == "/tmp/" && (line[..at].ends_with("/var") || line[..at].ends_with("/private"))
            {
                continue;
            }
            let name: String = line[from..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '.' || *c == '_')
                .collect();
            let Some(random) = name
                .strip_prefix("tmp")
                .map(|r| r.trim_start_matches('.'))
                .or_else(|| name.strip_prefix(".tmp"))
            else {
                continue;
            };
            let template = random.chars().all(|c| c == 'X');
            if random.len() >= 3 && !template {
                return Some(path_at(at));
            }
        }
    }
    None
}

#[test]
fn temporary_paths_are_told_from_legitimate_ones() {
    // Assembled here so that this file names no such path itself.
    let (tmp, folders) = (["/tmp/", "tmp"].concat(), ["/var/", "folders/"].concat());
    for bad in [
        format!("{tmp}.Qw81zKm4Lp/sudo"),
        format!("see /tmp/.{}AbC123/Cargo.toml", "tmp"),
        format!("{tmp}k3j_9q2/x"),
        format!("/var{tmp}.abcdef"),
        format!("/dev/shm/.{}4f5g6h", "tmp"),
        format!("/private{folders}xy/abc/T/x"),
        format!("{folders}xy/abc/T/x"),
    ] {
        assert!(temporary_path(&bad).is_some(), "{bad}");
    }
    for good in [
        "ext4 (`/tmp`)".to_string(),
        "TMPDIR=/dev/shm".into(),
        "--user-data-dir=/tmp/p".into(),
        "mktemp -d /tmp/hj-compare.XXXXXX".into(),
        format!("mktemp makes {tmp}.XXXXXXXXXX"),
        "'/tmp/hj-playwright-results'".into(),
        format!("{tmp}l"), // too short to be generated
        format!("macOS's `{folders}`"),
    ] {
        assert_eq!(temporary_path(&good), None, "{good}");
    }
}

/// The longest line ARCHITECTURE.md may have (issue 37.13).
const MAP_LINE_MAX: usize = 300;

/// ARCHITECTURE.md is a map, not an essay (issue 37.13: one bullet had grown
/// to 6,461 characters about chromedriver's internals): no line is longer than
/// [`MAP_LINE_MAX`] characters. A mechanism's story goes into the doc comment
/// of the file or item it describes (`//!`, `///`), and the map points there.
#[test]
fn architecture_md_is_a_map_of_short_lines() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let long = long_lines(&text, MAP_LINE_MAX);
    assert!(
        long.is_empty(),
        "ARCHITECTURE.md is a map: keep each line to {MAP_LINE_MAX} characters (the file, the key \
         item, what always holds, where to look) and move the mechanism's story into the doc \
         comment of the code it describes:\n{}",
        long.join("\n")
    );
}

/// Each line of `text` longer than `max` characters: its number (from 1), its
/// length and its start.
fn long_lines(text: &str, max: usize) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let n = line.chars().count();
            let start: String = line.chars().take(80).collect();
            (n > max).then(|| format!("line {}: {n} characters: {start}…", i + 1))
        })
        .collect()
}

#[test]
fn long_lines_are_named_by_number_and_start() {
    let text = format!("short\n{}\nshort again\n", "x".repeat(MAP_LINE_MAX + 1));
    let found = long_lines(&text, MAP_LINE_MAX);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(&format!("line 2: {} characters: xxx", MAP_LINE_MAX + 1)),
        "{found:?}"
    );
    assert!(long_lines(&"é".repeat(MAP_LINE_MAX), MAP_LINE_MAX).is_empty());
}

/// Every source file ARCHITECTURE.md names (a path ending in `.rs` or `.js`,
/// such as `bidi/mod.rs` or `tests/imports.rs`) is a file of the workspace: a
/// map must not point at a file that moved or went. A name is read relative
/// to its section, so it matches any file whose path ends with it.
#[test]
fn architecture_md_names_files_that_exist() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let files = workspace_files();
    let missing: Vec<String> = named_sources(&text)
        .into_iter()
        .filter(|name| {
            !files
                .iter()
                .any(|f| f == name || f.ends_with(&format!("/{name}")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names source files that do not exist (moved? renamed?): {missing:?}"
    );
}

/// The source paths (`….rs`, `….js`) a text names; patterns with braces
/// (`targets_{api,web}.rs`) are left out.
fn named_sources(text: &str) -> Vec<String> {
    let path_char = |c: char| c.is_alphanumeric() || "_./-{}".contains(c);
    let mut names: Vec<String> = text
        .split(|c: char| !path_char(c))
        .map(|t| t.trim_start_matches("./").trim_end_matches('.'))
        .filter(|t| {
            let stem = t.trim_end_matches(".rs").trim_end_matches(".js");
            (t.ends_with(".rs") || t.ends_with(".js"))
                && !stem.is_empty()
                && !stem.ends_with('/')
                && !t.contains(['{', '}'])
        })
        .map(String::from)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Every file of the workspace (paths from the root, `/`-separated), but
/// build output and hidden folders.
fn workspace_files() -> Vec<String> {
    let mut out = vec![];
    let mut stack = vec![root().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    stack.push(path);
                }
            } else {
                let rel = path.strip_prefix(root()).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out
}

#[test]
fn named_sources_are_read_from_the_map() {
    let text = "- `bidi/mod.rs::Bidi::navigate`, `tests/imports.rs`; (`targets_{api,web}.rs`) \
                `injected/engine.js`: `hjeRun`; see main.rs. A `.rs` file.";
    assert_eq!(
        named_sources(text),
        [
            "bidi/mod.rs",
            "injected/engine.js",
            "main.rs",
            "tests/imports.rs"
        ]
    );
}
