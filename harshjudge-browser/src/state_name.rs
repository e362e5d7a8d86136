//! [`StateName`]: the name a storage state is saved under, validated before
//! it becomes a path.

use super::error::BrowserError;

/// The name of a saved storage state (`page.save_storage_state("admin")`):
/// letters, digits, `_`, `-` and `.`, 1 to 64 characters, starting with a
/// letter or a digit. Validated before it becomes a path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StateName(String);

impl StateName {
    /// Validates `value`; the error names the value and the rule.
    pub fn new(value: impl Into<String>) -> Result<StateName, BrowserError> {
        let value = value.into();
        let ok = (1..=64).contains(&value.len())
            && value.as_bytes()[0].is_ascii_alphanumeric()
            && value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if ok {
            Ok(StateName(value))
        } else {
            Err(BrowserError::Invalid {
                message: format!(
                    "storage state {value:?}: invalid storage state name {value:?}: letters, digits, `_`, `-` and `.`, 1 to 64 characters, starting with a letter or a digit (e.g. \"admin\")"
                ),
                location: None,
            })
        }
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for StateName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
