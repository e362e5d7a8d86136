//! Identifiers that become parts of paths: validated before any path is built.

use super::StoreError;
use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $kind:literal, $check:path) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            /// Validates `value`; the error names the value and the rule.
            pub fn new(value: impl Into<String>) -> Result<Self, StoreError> {
                let value = value.into();
                match $check(&value) {
                    Ok(()) => Ok(Self(value)),
                    Err(rule) => Err(StoreError::InvalidId { kind: $kind, value, rule }),
                }
            }
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

id_type!(
    /// A scenario slug: `^[a-z0-9-]+$`, at most 100 characters.
    Slug, "scenario slug", check_slug
);
id_type!(
    /// A step id: two digits, `01` to `99`.
    StepId, "step id", check_step_id
);
id_type!(
    /// A run id: letters, digits, `_` and `-`, 1 to 64 characters.
    /// Ids we generate are time-sortable and never start with `-`; ids written by
    /// the original HarshJudge (nanoid) may, and are still accepted.
    RunId, "run id", check_run_id
);

/// Ids that arrive as text from outside (an MCP call's arguments, a file) and
/// deserialise straight into their type, validated: a bad value is refused
/// with `{value:?} {INVALID}`, the rule and how to fix it; a value of the
/// wrong JSON type keeps serde's message. With the `schemars` feature each
/// declares itself as a string of its [`PATTERN`](Slug::PATTERN).
macro_rules! text_id {
    ($name:ident, $pattern:literal, $invalid:literal) => {
        impl $name {
            /// The rule as a JSON Schema `pattern`.
            pub const PATTERN: &'static str = $pattern;
            /// What follows the value in the message that refuses it.
            pub const INVALID: &'static str = $invalid;
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                match $name::new(s) {
                    Ok(id) => Ok(id),
                    Err(StoreError::InvalidId { value, .. }) => Err(serde::de::Error::custom(
                        format!("{value:?} {}", $name::INVALID),
                    )),
                    Err(e) => Err(serde::de::Error::custom(e)),
                }
            }
        }

        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "pattern": $name::PATTERN })
            }
        }
    };
}

text_id!(
    Slug,
    "^[a-z0-9-]{1,100}$",
    "is not a valid scenario slug: use 1 to 100 lowercase letters, digits and hyphens, e.g. \"user-login\""
);
text_id!(
    StepId,
    "^(0[1-9]|[1-9][0-9])$",
    "is not a step id: it must be zero-padded two digits from \"01\" to \"99\" (e.g. \"01\", \"02\")"
);
text_id!(
    RunId,
    "^[A-Za-z0-9_-]{1,64}$",
    "is not a valid run id: 1 to 64 letters, digits, '_' or '-' (use the runId startRun returned)"
);

/// Whether `message` is the refusal of an id by its `Deserialize`
/// (`{value:?} {INVALID}` of [`Slug`], [`RunId`] or [`StepId`]), which a
/// caller that knows where the value stood (an argument's path) may prefix
/// with that place.
pub fn is_invalid_id(message: &str) -> bool {
    message.starts_with('"')
        && [Slug::INVALID, RunId::INVALID, StepId::INVALID]
            .iter()
            .any(|rule| message.ends_with(rule))
}
id_type!(
    /// An evidence name: letters, digits, `.`, `_`, `-`; 1 to 100 characters; no
    /// leading `.`; never a path.
    EvidenceName, "evidence name", check_evidence_name
);

fn check_slug(s: &str) -> Result<(), &'static str> {
    if s.is_empty() || s.len() > 100 {
        return Err("must be 1 to 100 characters of lowercase letters, digits and hyphens");
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err("must be lowercase alphanumeric with hyphens (^[a-z0-9-]+$)");
    }
    Ok(())
}

fn check_step_id(s: &str) -> Result<(), &'static str> {
    if s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit()) && s != "00" {
        Ok(())
    } else {
        Err("must be zero-padded two digits from 01 to 99 (e.g. \"01\", \"02\")")
    }
}

fn check_run_id(s: &str) -> Result<(), &'static str> {
    if s.is_empty() || s.len() > 64 {
        return Err("must be 1 to 64 characters");
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err("may contain only letters, digits, '_' and '-'");
    }
    Ok(())
}

fn check_evidence_name(s: &str) -> Result<(), &'static str> {
    if s.is_empty() || s.len() > 100 {
        return Err("must be 1 to 100 characters");
    }
    if s.starts_with('.') {
        return Err("must not start with '.'");
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    {
        return Err("may contain only letters, digits, '.', '_' and '-' (no '/' or spaces)");
    }
    if s.ends_with(".meta.json") || s.ends_with(".meta") {
        return Err("must not end with '.meta' (reserved for sidecar files)");
    }
    Ok(())
}

impl StepId {
    /// The id of the `n`th step (1-based).
    pub fn from_index(n: usize) -> Result<Self, StoreError> {
        Self::new(format!("{n:02}"))
    }
    /// The 1-based step number.
    pub fn number(&self) -> usize {
        self.0.parse().unwrap_or(0)
    }
}

impl RunId {
    /// A new run id: UTC time to the millisecond then 6 random characters,
    /// e.g. `20261122T113212345Z-k3x9qa`. Sorts by start time, safe in paths and
    /// on command lines (starts with a digit).
    pub fn generate() -> Self {
        use rand::Rng;
        const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
        let mut rng = rand::rng();
        let suffix: String = (0..6)
            .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
            .collect();
        let now = chrono::Utc::now();
        RunId(format!("{}-{suffix}", now.format("%Y%m%dT%H%M%S%3fZ")))
    }
}

/// The original HarshJudge's `slugify`: lower-case, trim, drop what is not an
/// ASCII word character, space or hyphen, collapse runs of space/underscore/
/// hyphen into one hyphen, strip hyphens at both ends.
pub fn slugify(title: &str) -> String {
    let lowered = title.to_lowercase();
    let kept: String = lowered
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-' || c.is_whitespace())
        .collect();
    let mut out = String::new();
    let mut pending_sep = false;
    for c in kept.chars() {
        if c.is_whitespace() || c == '_' || c == '-' {
            pending_sep = true;
        } else {
            if pending_sep && !out.is_empty() {
                out.push('-');
            }
            pending_sep = false;
            out.push(c);
        }
    }
    out
}

/// The step file name of the original: `{id}-{slugify(title)}.md`.
pub fn step_file_name(id: &StepId, title: &str) -> String {
    format!("{}-{}.md", id, slugify(title))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugify_matches_the_original() {
        assert_eq!(slugify("Navigate to login"), "navigate-to-login");
        assert_eq!(
            slugify("Login with Email & Password!"),
            "login-with-email-password"
        );
        assert_eq!(slugify("Step   with   spaces"), "step-with-spaces");
        assert_eq!(
            slugify("Enter User's Email & Password!"),
            "enter-users-email-password"
        );
        assert_eq!(slugify("  -Trim_me-  "), "trim-me");
        assert_eq!(slugify("Café au lait"), "caf-au-lait");
        assert_eq!(slugify("!!!"), "");
    }

    #[test]
    fn ids_reject_traversal_and_bad_shapes() {
        for bad in ["", "..", "a/b", "A", "a b", "../x"] {
            assert!(Slug::new(bad).is_err(), "{bad}");
        }
        for bad in ["", "1", "001", "00", "ab", "1a", "../"] {
            assert!(StepId::new(bad).is_err(), "{bad}");
        }
        for bad in ["", "..", "a/b", "a.b", &"x".repeat(65)] {
            assert!(RunId::new(bad).is_err(), "{bad}");
        }
        for bad in ["", ".hidden", "../x", "a/b", "x.meta.json", "a b"] {
            assert!(EvidenceName::new(bad).is_err(), "{bad}");
        }
        assert!(
            RunId::new("-Qw1r6J3Nc").is_ok(),
            "original nanoid ids stay readable"
        );
        let err = Slug::new("Bad Slug").unwrap_err().to_string();
        assert!(
            err.contains("Bad Slug") && err.contains("lowercase"),
            "{err}"
        );
    }

    #[test]
    fn ids_deserialise_validated_and_say_why_not() {
        let slug: Slug = serde_json::from_str("\"user-login\"").unwrap();
        assert_eq!(slug.as_str(), "user-login");
        assert_eq!(serde_json::to_string(&slug).unwrap(), "\"user-login\"");
        let err = serde_json::from_str::<Slug>("\"Bad Slug\"").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("\"Bad Slug\" is not a valid scenario slug: use 1 to 100"),
            "{msg}"
        );
        assert!(is_invalid_id(
            &msg[..msg.find(" at line").unwrap_or(msg.len())]
        ));
        let err = serde_json::from_str::<StepId>("\"1\"")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("\"1\" is not a step id"), "{err}");
        let err = serde_json::from_str::<RunId>("\"a/b\"")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("\"a/b\" is not a valid run id"), "{err}");
        // The wrong JSON type is serde's own error, not an id's refusal.
        let err = serde_json::from_str::<Slug>("3").unwrap_err().to_string();
        assert!(err.starts_with("invalid type"), "{err}");
        assert!(!is_invalid_id(&err));
        // The patterns agree with the rules.
        for (pattern, good, bad) in [
            (Slug::PATTERN, "a-1", "A"),
            (StepId::PATTERN, "01", "00"),
            (RunId::PATTERN, "r_1-x", "a.b"),
        ] {
            let re = regex::Regex::new(pattern).unwrap();
            assert!(re.is_match(good) && !re.is_match(bad), "{pattern}");
        }
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn ids_declare_their_json_schema() {
        let schema = schemars::schema_for!(Option<Slug>);
        let v = serde_json::to_value(&schema).unwrap();
        assert_eq!(v["pattern"], Slug::PATTERN, "{v}");
        assert_eq!(v["type"], serde_json::json!(["string", "null"]), "{v}");
    }

    #[test]
    fn generated_run_ids_sort_by_time_and_are_safe() {
        let a = RunId::generate();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = RunId::generate();
        assert!(a < b);
        assert!(RunId::new(a.as_str()).is_ok());
        assert!(a.as_str().as_bytes()[0].is_ascii_digit());
    }
}
