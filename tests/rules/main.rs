//! The workspace's own rules, read from its files: the import graph (imports), errors as types
//! (errors), lockfile, lints, sizes and the code map (workspace), README.md's Rust blocks compiled
//! (readme), the published crates packaged and built alone (package). No browser.

#[path = "../support/mod.rs"]
mod support;

mod errors;
mod imports;
mod package;
mod readme;
mod workspace;
