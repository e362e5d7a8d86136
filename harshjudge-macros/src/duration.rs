//! Durations of `timeout = "…"` and `step_timeout = "…"`: an integer and a unit.

use std::fmt;

use syn::{Expr, Lit};

/// How the accepted forms are described in every duration error.
const EXPECTED: &str =
    "write an integer followed by a unit (ms, s, m or h), e.g. \"500ms\", \"30s\", \"2m\", \"1h\"";

/// A duration literal that [`parse_duration`] refuses: the text and what is
/// wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DurationError {
    /// The literal's text.
    pub text: String,
    /// What is wrong.
    pub problem: Problem,
}

/// What is wrong with a duration literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// It does not start with an integer.
    NoNumber,
    /// `1.5s`.
    Fraction,
    /// `30`.
    NoUnit,
    /// `30 s`.
    SpaceBeforeUnit,
    /// `30sec`: the unit given.
    UnknownUnit(String),
    /// `0s`.
    Zero,
    /// Over 24 h (or too large to count).
    TooLarge,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NoNumber => f.write_str("it must start with an integer"),
            Problem::Fraction => {
                f.write_str("fractions are not supported, use a smaller unit (\"1500ms\" for 1.5s)")
            }
            Problem::NoUnit => f.write_str("the unit is missing"),
            Problem::SpaceBeforeUnit => {
                f.write_str("remove the space between the number and the unit")
            }
            Problem::UnknownUnit(unit) => write!(f, "unknown unit `{unit}`"),
            Problem::Zero => f.write_str("a limit must be greater than zero"),
            Problem::TooLarge => f.write_str("the number is too large: a limit is at most 24h"),
        }
    }
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid duration \"{}\": {}; {EXPECTED}",
            self.text, self.problem
        )
    }
}

impl std::error::Error for DurationError {}

/// Parses `"500ms"`, `"30s"`, `"2m"` or `"1h"` into milliseconds (> 0).
pub(crate) fn parse_duration(text: &str) -> Result<u64, DurationError> {
    let invalid = |problem: Problem| DurationError {
        text: text.into(),
        problem,
    };
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(digits_end);
    if digits.is_empty() {
        return Err(invalid(Problem::NoNumber));
    }
    if unit.starts_with('.') {
        return Err(invalid(Problem::Fraction));
    }
    let factor = |unit: &str| match unit {
        "ms" => Some(1),
        "s" => Some(1_000),
        "m" => Some(60_000),
        "h" => Some(3_600_000),
        _ => None,
    };
    let factor: u64 = match (factor(unit), unit.trim()) {
        (Some(factor), _) => factor,
        (None, "") => return Err(invalid(Problem::NoUnit)),
        (None, trimmed) if factor(trimmed).is_some() => {
            return Err(invalid(Problem::SpaceBeforeUnit));
        }
        (None, trimmed) => return Err(invalid(Problem::UnknownUnit(trimmed.into()))),
    };
    let too_large = || invalid(Problem::TooLarge);
    let value: u64 = digits.parse().map_err(|_| too_large())?;
    let millis = value.checked_mul(factor).ok_or_else(too_large)?;
    if millis == 0 {
        return Err(invalid(Problem::Zero));
    }
    if millis > MAX_MILLIS {
        return Err(too_large());
    }
    Ok(millis)
}

/// The longest limit (24 h), the same bound as the `HARSHJUDGE_*` duration settings.
const MAX_MILLIS: u64 = 24 * 3_600_000;

/// Reads a duration argument: a string with a unit, or an integer number of seconds.
/// `name` is the argument's name, used in the messages.
pub(crate) fn duration_arg(name: &str, value: &Expr) -> syn::Result<u64> {
    match value {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Str(s) => parse_duration(&s.value()).map_err(|e| syn::Error::new(s.span(), e)),
            Lit::Int(i) => {
                let secs: u64 = i.base10_parse().map_err(|_| {
                    syn::Error::new(
                        i.span(),
                        format!(
                            "`{name}` must be a whole number of seconds, or a string like \"30s\""
                        ),
                    )
                })?;
                if !i.suffix().is_empty() {
                    return Err(syn::Error::new(
                        i.span(),
                        format!(
                            "`{name}` takes a plain integer (seconds) without a type suffix, e.g. `{name} = 30`"
                        ),
                    ));
                }
                match secs.checked_mul(1_000) {
                    Some(0) => Err(syn::Error::new(
                        i.span(),
                        format!("`{name}` must be greater than zero"),
                    )),
                    Some(millis) if millis <= MAX_MILLIS => Ok(millis),
                    _ => Err(syn::Error::new(
                        i.span(),
                        format!("`{name}` is too large: a limit is at most 24h (86400 seconds)"),
                    )),
                }
            }
            _ => Err(not_a_duration(name, value)),
        },
        Expr::Group(group) => duration_arg(name, &group.expr),
        _ => Err(not_a_duration(name, value)),
    }
}

fn not_a_duration(name: &str, value: &Expr) -> syn::Error {
    syn::Error::new_spanned(
        value,
        format!(
            "`{name}` must be a duration literal such as `{name} = \"30s\"` (units ms, s, m, h) or an integer number of seconds such as `{name} = 30`"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse_duration("500ms"), Ok(500));
        assert_eq!(parse_duration("30s"), Ok(30_000));
        assert_eq!(parse_duration("2m"), Ok(120_000));
        assert_eq!(parse_duration("1h"), Ok(3_600_000));
        assert_eq!(parse_duration("007s"), Ok(7_000));
    }

    #[test]
    fn rejects() {
        for (text, reason) in [
            ("", "start with an integer"),
            ("s", "start with an integer"),
            ("-1s", "start with an integer"),
            (" 30s", "start with an integer"),
            ("30", "unit is missing"),
            ("30 s", "remove the space between the number and the unit"),
            ("2 minutes", "unknown unit `minutes`"),
            ("30sec", "unknown unit `sec`"),
            ("1.5s", "fractions are not supported"),
            ("0s", "greater than zero"),
            ("0ms", "greater than zero"),
            ("99999999999999999999s", "too large"),
            ("9999999999999999h", "too large"),
            ("999999999999999999h", "at most 24h"),
            ("18446744073709551615s", "at most 24h"),
            ("18446744073709551616ms", "at most 24h"),
            ("25h", "at most 24h"),
            ("86400001ms", "at most 24h"),
        ] {
            let err = parse_duration(text).unwrap_err().to_string();
            assert!(err.contains(reason), "{text:?}: {err}");
            assert!(
                err.starts_with(&format!("invalid duration \"{text}\"")),
                "{err}"
            );
            assert!(err.contains("e.g. \"500ms\""), "{err}");
        }
    }

    #[test]
    fn a_caller_matches_on_the_problem() {
        assert_eq!(
            parse_duration("30sec"),
            Err(DurationError {
                text: "30sec".into(),
                problem: Problem::UnknownUnit("sec".into()),
            })
        );
        assert_eq!(
            parse_duration("25h").map_err(|e| e.problem),
            Err(Problem::TooLarge)
        );
    }

    #[test]
    fn args() {
        let arg = |tokens: &str| duration_arg("timeout", &syn::parse_str(tokens).unwrap());
        assert_eq!(arg("\"5s\"").unwrap(), 5_000);
        assert_eq!(arg("30").unwrap(), 30_000);
        assert_eq!(arg("\"24h\"").unwrap(), 86_400_000);
        assert_eq!(arg("86400").unwrap(), 86_400_000);
        for big in ["86401", "18446744073709551615", "\"1441m\""] {
            assert!(
                arg(big).unwrap_err().to_string().contains("at most 24h"),
                "{big}"
            );
        }
        assert!(
            arg("0")
                .unwrap_err()
                .to_string()
                .contains("greater than zero")
        );
        assert!(
            arg("30u64")
                .unwrap_err()
                .to_string()
                .contains("without a type suffix")
        );
        assert!(
            arg("1.5")
                .unwrap_err()
                .to_string()
                .contains("must be a duration literal")
        );
        assert!(
            arg("secs(5)")
                .unwrap_err()
                .to_string()
                .contains("must be a duration literal")
        );
        assert!(
            arg("\"5\"")
                .unwrap_err()
                .to_string()
                .contains("unit is missing")
        );
    }
}
