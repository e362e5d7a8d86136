//! Watching a scenario: `HARSHJUDGE_HEADED`, `HARSHJUDGE_SLOW_MO`, and
//! stopping to look at it: `HARSHJUDGE_PAUSE`, `HARSHJUDGE_PAUSE_TIMEOUT`,
//! `HARSHJUDGE_PAUSE_INPUT`.

use std::time::Duration;

use super::{SettingError, env, env_bool};

/// What `--slow-mo` and `HARSHJUDGE_SLOW_MO` accept.
pub const SLOW_MO_EXPECTED: &str =
    "a number of milliseconds from 0 to 60000, e.g. --slow-mo 200 (HARSHJUDGE_SLOW_MO=200)";

/// The most `--slow-mo` waits before an action: a minute.
const SLOW_MO_MAX_MS: u64 = 60_000;

/// `--slow-mo`'s value: whole milliseconds from 0 to 60000 (`0`: none).
pub fn parse_slow_mo(v: &str) -> Option<Duration> {
    let v = v.trim();
    let v = v.strip_suffix("ms").unwrap_or(v).trim();
    v.parse::<u64>()
        .ok()
        .filter(|ms| *ms <= SLOW_MO_MAX_MS)
        .map(Duration::from_millis)
}

/// `HARSHJUDGE_SLOW_MO`: how long pages wait before each action (none when unset).
pub fn slow_mo() -> Result<Option<Duration>, SettingError> {
    env("HARSHJUDGE_SLOW_MO")?
        .map(|v| {
            parse_slow_mo(&v).ok_or_else(|| SettingError {
                name: "HARSHJUDGE_SLOW_MO",
                expected: format!("expected {SLOW_MO_EXPECTED}"),
                value: v,
            })
        })
        .transpose()
}

/// `HARSHJUDGE_HEADED`: browsers open real windows (default off).
pub fn headed() -> Result<bool, SettingError> {
    env_bool("HARSHJUDGE_HEADED", false)
}

/// When a scenario stops for a person to look at its browser.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PauseMode {
    /// Only at `page.pause()` (the default).
    #[default]
    Off,
    /// At `page.pause()`, and where a step failed, before its page closes.
    OnFailure,
}

/// What `HARSHJUDGE_PAUSE` accepts.
const PAUSE_EXPECTED: &str = "expected off (stop only at page.pause(), the default) or on-failure (also stop where a step fails)";

impl PauseMode {
    /// `HARSHJUDGE_PAUSE`.
    pub fn from_env() -> Result<PauseMode, SettingError> {
        match env("HARSHJUDGE_PAUSE")?.as_deref().map(str::trim) {
            None | Some("off") => Ok(PauseMode::Off),
            Some("on-failure") => Ok(PauseMode::OnFailure),
            Some(other) => Err(SettingError {
                name: "HARSHJUDGE_PAUSE",
                value: other.into(),
                expected: PAUSE_EXPECTED.into(),
            }),
        }
    }
}

/// Default of `HARSHJUDGE_PAUSE_TIMEOUT`: how long a pause waits for Enter.
pub const DEFAULT_PAUSE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// `HARSHJUDGE_PAUSE_TIMEOUT`: how long a pause waits for Enter before the
/// scenario goes on (default 30 min).
pub fn pause_timeout() -> Result<Duration, SettingError> {
    super::env_duration("HARSHJUDGE_PAUSE_TIMEOUT", DEFAULT_PAUSE_TIMEOUT)
}

/// Where a pause reads the Enter that ends it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PauseInput {
    /// Standard input when it is a terminal; otherwise a pause does not
    /// wait (the default).
    #[default]
    Terminal,
    /// Standard input whatever it is (a pipe too): for scripts driving a
    /// suite, and for tests of the pause.
    Stdin,
}

impl PauseInput {
    /// `HARSHJUDGE_PAUSE_INPUT`: `terminal` (default) or `stdin`.
    pub fn from_env() -> Result<PauseInput, SettingError> {
        match env("HARSHJUDGE_PAUSE_INPUT")?.as_deref().map(str::trim) {
            None | Some("terminal") => Ok(PauseInput::Terminal),
            Some("stdin") => Ok(PauseInput::Stdin),
            Some(other) => Err(SettingError {
                name: "HARSHJUDGE_PAUSE_INPUT",
                value: other.into(),
                expected: "expected terminal (wait for Enter only when standard input is a terminal, the default) or stdin (read standard input whatever it is)".into(),
            }),
        }
    }
}

/// Whether `CI` says this is a continuous-integration run (set and not
/// `0`/`false`): then a pause never waits.
pub fn under_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// `HARSHJUDGE_ONLY_CHANGED`: `on` (against `HEAD`), `off`, or a git ref;
/// as `--only-changed[=REF]`.
pub fn only_changed() -> Result<Option<String>, SettingError> {
    let Some(v) = env("HARSHJUDGE_ONLY_CHANGED")? else {
        return Ok(None);
    };
    let v = v.trim();
    Ok(match v.to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Some("HEAD".into()),
        "0" | "false" | "off" | "no" => None,
        _ => Some(v.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_mo_takes_milliseconds_up_to_a_minute() {
        assert_eq!(parse_slow_mo("200"), Some(Duration::from_millis(200)));
        assert_eq!(parse_slow_mo(" 50ms"), Some(Duration::from_millis(50)));
        assert_eq!(parse_slow_mo("0"), Some(Duration::ZERO));
        for bad in ["abc", "", "-1", "60001", "2s", "1.5"] {
            assert_eq!(parse_slow_mo(bad), None, "{bad}");
        }
    }
}
