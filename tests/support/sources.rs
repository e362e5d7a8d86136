//! The source files of the workspace's crates, for the tests that read code
//! as text (tests/imports.rs, tests/errors.rs).

use std::path::{Path, PathBuf};

/// The source folders of the five crates.
pub const CRATES: &[&str] = &[
    "harshjudge/src",
    "harshjudge-browser/src",
    "harshjudge-store/src",
    "harshjudge-macros/src",
    "harshjudge-mcp/src",
];

/// The workspace's root.
pub fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file below `dir`, sorted by path.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
