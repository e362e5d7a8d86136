//! The one YAML reader of the workspace (`serde-saphyr`, a maintained
//! pure-Rust YAML 1.2 reader without `unsafe`): the store's files, aria
//! snapshot templates and the MCP server's front matter are read through
//! [`from_str`]. The store writes its YAML with its own emitter
//! (`store::yaml`), byte for byte as the original's js-yaml does.

/// YAML that could not be read: the reader's error, whose message names the
/// line and column.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct ParseError(#[from] serde_saphyr::Error);

/// Parses YAML text into `T`: the one YAML reader of the workspace.
///
/// YAML 1.2 core schema (`'01'` is a string, `01` a number, `yes` a string),
/// duplicate keys are an error, anchors and aliases are bounded (no "billion
/// laughs"). Errors are one line (no source snippet).
pub fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ParseError> {
    let mut options = serde_saphyr::Options::default();
    options.with_snippet = false;
    serde_saphyr::from_str_with_options(text, options).map_err(ParseError)
}
