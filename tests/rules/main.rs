//! The workspace's own rules, read from its files: the import graph (imports), errors as types
//! (errors), lockfile, lints, sizes and the code map (workspace), the Rust blocks of README.md and
//! of the guide (docs/src) compiled, their links, README.md's length (readme), the published
//! crates packaged and built alone (package), their API documentation without a warning
//! (rustdoc). No browser.

#[path = "../support/mod.rs"]
mod support;

mod errors;
mod imports;
mod package;
mod readme;
mod rustdoc;
mod workspace;
