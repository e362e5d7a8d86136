//! `HARSHJUDGE_TRACE`, `-- --trace MODE` and `#[scenario(trace = "…")]`: when a
//! step's trace (`step-NN/evidence/trace.json`) is kept, with Playwright's names.

use super::SettingError;

/// When a step's trace is written (Playwright's trace modes). The harness
/// turns it into what each attempt records (on, off, or kept only for the
/// steps that fail), once per attempt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TraceMode {
    /// No trace is recorded.
    Off,
    /// Every executed step's trace is written.
    On,
    /// Recorded in memory; written for the steps that fail (the default).
    #[default]
    RetainOnFailure,
    /// Only a retry's steps are traced: the second attempt of a scenario
    /// (`retries` ≥ 1), every step of it.
    OnFirstRetry,
}

/// What a trace mode's value may be, for messages.
pub const TRACE_MODES: &str = "off, on, retain-on-failure or on-first-retry";

impl TraceMode {
    /// Every mode, in the order messages list them.
    pub const ALL: [TraceMode; 4] = [
        TraceMode::Off,
        TraceMode::On,
        TraceMode::RetainOnFailure,
        TraceMode::OnFirstRetry,
    ];

    /// Its name: `off`, `on`, `retain-on-failure`, `on-first-retry`.
    pub fn as_str(self) -> &'static str {
        match self {
            TraceMode::Off => "off",
            TraceMode::On => "on",
            TraceMode::RetainOnFailure => "retain-on-failure",
            TraceMode::OnFirstRetry => "on-first-retry",
        }
    }

    /// The mode of that name (exactly, as Playwright spells it), if any.
    pub fn parse(value: &str) -> Option<TraceMode> {
        let value = value.trim();
        TraceMode::ALL.into_iter().find(|m| m.as_str() == value)
    }

    /// `HARSHJUDGE_TRACE`: the mode it names (default `retain-on-failure`), or
    /// an error naming the four.
    pub fn from_env() -> Result<TraceMode, SettingError> {
        TraceMode::from_variable(super::env("HARSHJUDGE_TRACE")?)
    }

    /// The mode `HARSHJUDGE_TRACE`'s value names (`None`: unset).
    fn from_variable(value: Option<String>) -> Result<TraceMode, SettingError> {
        match value {
            None => Ok(TraceMode::default()),
            Some(v) => TraceMode::parse(&v).ok_or_else(|| SettingError {
                name: "HARSHJUDGE_TRACE",
                value: v,
                expected: format!("expected {TRACE_MODES}"),
            }),
        }
    }
}

/// `HARSHJUDGE_TRACE_SCREENSHOTS=off|on` (default `off`): whether a traced
/// step keeps a viewport PNG after each action (`trace-NN.png`), or an error
/// naming the two values.
pub fn trace_screenshots() -> Result<bool, SettingError> {
    screenshots_from_variable(super::env("HARSHJUDGE_TRACE_SCREENSHOTS")?)
}

fn screenshots_from_variable(value: Option<String>) -> Result<bool, SettingError> {
    match value.as_deref().map(str::trim) {
        None | Some("off") => Ok(false),
        Some("on") => Ok(true),
        Some(_) => Err(SettingError {
            name: "HARSHJUDGE_TRACE_SCREENSHOTS",
            value: value.unwrap_or_default(),
            expected: "expected off or on".into(),
        }),
    }
}

impl std::fmt::Display for TraceMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_names_parse_and_print_back() {
        for m in TraceMode::ALL {
            assert_eq!(TraceMode::parse(m.as_str()), Some(m));
            assert!(TRACE_MODES.contains(m.as_str()), "{m}");
        }
        assert_eq!(TraceMode::default(), TraceMode::RetainOnFailure);
        assert_eq!(TraceMode::parse(" on "), Some(TraceMode::On));
        for bad in ["", "ON", "true", "retain_on_failure", "sometimes"] {
            assert_eq!(TraceMode::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn screenshots_are_off_or_on_and_a_bad_value_names_both() {
        assert!(!screenshots_from_variable(None).unwrap());
        assert!(!screenshots_from_variable(Some("off".into())).unwrap());
        assert!(screenshots_from_variable(Some(" on".into())).unwrap());
        for bad in ["1", "true", "ON", "yes"] {
            let e = screenshots_from_variable(Some(bad.into()))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("HARSHJUDGE_TRACE_SCREENSHOTS={bad:?}"))
                    && e.contains("off or on"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_bad_variable_names_the_four() {
        assert_eq!(
            TraceMode::from_variable(None).unwrap(),
            TraceMode::RetainOnFailure
        );
        assert_eq!(
            TraceMode::from_variable(Some("on-first-retry".into())).unwrap(),
            TraceMode::OnFirstRetry
        );
        let e = TraceMode::from_variable(Some("sometimes".into()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("HARSHJUDGE_TRACE=\"sometimes\"")
                && e.contains("off, on, retain-on-failure or on-first-retry"),
            "{e}"
        );
    }
}
