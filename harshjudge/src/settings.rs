//! Settings of a harness run: `HARSHJUDGE_*` environment variables, then
//! `.harshJudge/config.yaml`, then defaults. A bad value is an error that names
//! the setting and says what is expected.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Default for `HARSHJUDGE_STEP_TIMEOUT`.
pub const DEFAULT_STEP_TIMEOUT: Duration = Duration::from_secs(300);

/// Resolved settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The `.harshJudge` folder (`HARSHJUDGE_DIR`, default `<package root>/.harshJudge`).
    pub dir: PathBuf,
    /// The app under test (`HARSHJUDGE_BASE_URL`, else `config.yaml` `baseUrl`).
    pub base_url: String,
    /// Project name written to a new `config.yaml` (the package name).
    pub project_name: String,
    /// Per-step limit for steps that set none (`HARSHJUDGE_STEP_TIMEOUT`, default 5m; `none` disables).
    pub step_timeout: Option<Duration>,
    /// Per-scenario limit for scenarios that set none (`HARSHJUDGE_TIMEOUT`, default none).
    pub scenario_timeout: Option<Duration>,
    /// Which probe evidence is captured (`HARSHJUDGE_EVIDENCE`, default `all`).
    pub evidence: EvidenceMode,
    /// Browser screenshots of the whole page, not just the viewport (`HARSHJUDGE_FULL_PAGE=1`).
    pub full_page: bool,
    /// Where the harness writes JUnit XML (`HARSHJUDGE_JUNIT`, default
    /// `<dir>/report/junit.xml`; `off`: not written).
    pub junit: Option<PathBuf>,
    /// Whether the harness writes the HTML report to `<dir>/report/`
    /// (`HARSHJUDGE_REPORT`, default on; `off`: not written).
    pub html_report: bool,
    /// Runs kept per scenario after a harness run (`HARSHJUDGE_KEEP_RUNS`,
    /// default [`Store::DEFAULT_KEEP_RUNS`](crate::store::Store::DEFAULT_KEEP_RUNS);
    /// `all`: never prune).
    pub keep_runs: Option<usize>,
}

/// `HARSHJUDGE_EVIDENCE`: which evidence probes (browser, HTTP, command) capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvidenceMode {
    /// Before/after every step, and more on failure (default).
    All,
    /// Only when a step fails.
    OnFailure,
    /// Nothing from probes (attachments are still written).
    Off,
}

/// A setting with a bad value.
#[derive(Debug, thiserror::Error)]
#[error("setting {name}={value:?} is invalid: {expected}")]
pub struct SettingError {
    /// The variable.
    pub name: &'static str,
    /// Its value.
    pub value: String,
    /// What is expected.
    pub expected: String,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl Settings {
    /// Reads the environment. Does not touch the disk.
    pub fn from_env(package_root: &Path, project_name: &str) -> Result<Settings, SettingError> {
        let dir = match env("HARSHJUDGE_DIR") {
            Some(d) => package_root.join(d),
            None => package_root.join(".harshJudge"),
        };
        let base_url = env("HARSHJUDGE_BASE_URL").unwrap_or_default();
        let looks_like_url = base_url.starts_with("http://") || base_url.starts_with("https://");
        if !base_url.is_empty() && !looks_like_url {
            return Err(SettingError {
                name: "HARSHJUDGE_BASE_URL",
                value: base_url,
                expected: "an http:// or https:// URL, e.g. http://127.0.0.1:3000".into(),
            });
        }
        let junit = match env("HARSHJUDGE_JUNIT").as_deref() {
            Some("off") | Some("0") => None,
            Some(p) => Some(package_root.join(p)),
            None => Some(dir.join("report").join("junit.xml")),
        };
        let html_report = match env("HARSHJUDGE_REPORT").as_deref() {
            None | Some("on") | Some("1") => true,
            Some("off") | Some("0") => false,
            Some(other) => {
                return Err(SettingError {
                    name: "HARSHJUDGE_REPORT",
                    value: other.into(),
                    expected: "on or off".into(),
                });
            }
        };
        Ok(Settings {
            junit,
            html_report,
            keep_runs: keep_runs()?,
            dir,
            base_url,
            project_name: project_name.into(),
            step_timeout: timeout_var("HARSHJUDGE_STEP_TIMEOUT", Some(DEFAULT_STEP_TIMEOUT))?,
            scenario_timeout: timeout_var("HARSHJUDGE_TIMEOUT", None)?,
            full_page: match env("HARSHJUDGE_FULL_PAGE").as_deref() {
                None | Some("0") | Some("false") => false,
                Some("1") | Some("true") => true,
                Some(other) => {
                    return Err(SettingError {
                        name: "HARSHJUDGE_FULL_PAGE",
                        value: other.into(),
                        expected: "1 or 0".into(),
                    });
                }
            },
            evidence: match env("HARSHJUDGE_EVIDENCE").as_deref() {
                None | Some("all") => EvidenceMode::All,
                Some("on-failure") => EvidenceMode::OnFailure,
                Some("off") => EvidenceMode::Off,
                Some(other) => {
                    return Err(SettingError {
                        name: "HARSHJUDGE_EVIDENCE",
                        value: other.into(),
                        expected: "one of all, on-failure, off".into(),
                    });
                }
            },
        })
    }
}

fn timeout_var(
    name: &'static str,
    default: Option<Duration>,
) -> Result<Option<Duration>, SettingError> {
    match env(name) {
        None => Ok(default),
        Some(v) if v == "none" || v == "0" => Ok(None),
        Some(v) => parse_duration(&v)
            .map(Some)
            .map_err(|expected| SettingError {
                name,
                value: v,
                expected,
            }),
    }
}

/// Parses `500ms`, `30s`, `2m`, `1h` or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let expected =
        || "a duration such as 500ms, 30s, 2m or 1h (a whole number and a unit)".to_string();
    let n: u64 = num.parse().map_err(|_| expected())?;
    let d = match unit.trim() {
        "ms" => Duration::from_millis(n),
        "" | "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n * 60),
        "h" => Duration::from_secs(n * 3600),
        _ => return Err(expected()),
    };
    if d.is_zero() {
        return Err("a duration greater than zero (use `none` for no limit)".into());
    }
    Ok(d)
}

/// Renders a duration the way it is written in settings (`30s`, `2m`, `1500ms`).
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(3_600_000) {
        format!("{}h", ms / 3_600_000)
    } else if ms.is_multiple_of(60_000) {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// `HARSHJUDGE_KEEP_RUNS`: how many runs of each scenario to keep (the newest;
/// never a running one nor the newest failed one). A number ≥ 1, or `all` to
/// keep every run (`None`); default [`Store::DEFAULT_KEEP_RUNS`](crate::store::Store::DEFAULT_KEEP_RUNS).
pub fn keep_runs() -> Result<Option<usize>, SettingError> {
    let Some(value) = env("HARSHJUDGE_KEEP_RUNS") else {
        return Ok(Some(crate::store::Store::DEFAULT_KEEP_RUNS));
    };
    let v = value.trim();
    if v.eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    match v.parse::<usize>() {
        Ok(n) if (1..=1_000_000).contains(&n) => Ok(Some(n)),
        _ => Err(SettingError {
            name: "HARSHJUDGE_KEEP_RUNS",
            value,
            expected: "a number of runs per scenario from 1 to 1000000, or all".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("7"), Ok(Duration::from_secs(7)));
        assert!(parse_duration("abc").is_err());
        assert!(parse_duration("3 weeks").is_err());
        assert!(parse_duration("0s").is_err());
        assert_eq!(format_duration(Duration::from_secs(120)), "2m");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
    }
}
