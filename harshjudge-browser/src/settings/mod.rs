//! The `HARSHJUDGE_*` environment variables: [`VARIABLES`], every variable
//! of the workspace (the browser's, the harness's, the store's and the MCP
//! server's), and [`env`](fn@env), the one reader of them. A bad value is an error
//! that names the setting and says what is expected. The harness's settings
//! that also read `.harshJudge/config.yaml` are harshjudge's (`run_settings`).

use std::time::Duration;

mod trace_mode;
mod unknown;
mod video_mode;
pub mod watch;
pub use trace_mode::{TRACE_MODES, TraceMode, trace_screenshots};
pub use unknown::{NOT_SETTINGS, TEST_PREFIX, unknown_variables};
#[cfg(test)]
use unknown::{edit_distance, unknown_variable};
pub use video_mode::VideoMode;

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

/// One `HARSHJUDGE_*` variable: what the settings table of the guide
/// (`docs/src/settings.md`) says of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variable {
    /// The variable's name.
    pub name: &'static str,
    /// What its value is (Markdown, as in the guide's table).
    pub kind: &'static str,
    /// Its default (Markdown).
    pub default: &'static str,
    /// The values accepted (Markdown; `—` when any value of the type is).
    pub bounds: &'static str,
}

/// Every `HARSHJUDGE_*` variable read anywhere in the workspace (library,
/// harness, browser, `harshjudge-mcp`), in the order of the guide's settings
/// table (`docs/src/settings.md`). A test checks this list against that table
/// and against the variable
/// names written in the sources, both ways.
pub const VARIABLES: &[Variable] = &[
    Variable {
        name: "HARSHJUDGE_DIR",
        kind: "path",
        default: "`<package root>/.harshJudge`",
        bounds: "relative to the package root",
    },
    Variable {
        name: "HARSHJUDGE_BASE_URL",
        kind: "URL",
        default: "the suite's own app (`main!(web_server = …)` or `main!(base_url = …)`), else `baseUrl` of `.harshJudge/config.yaml`, else empty",
        bounds: "`http://` or `https://` with a host",
    },
    Variable {
        name: "HARSHJUDGE_STEP_TIMEOUT",
        kind: "duration or `none`",
        default: "`5m`",
        bounds: "`1ms`–`24h`",
    },
    Variable {
        name: "HARSHJUDGE_TIMEOUT",
        kind: "duration or `none`",
        default: "none",
        bounds: "`1ms`–`24h`",
    },
    Variable {
        name: "HARSHJUDGE_JUNIT",
        kind: "path or `off`",
        default: "`<HARSHJUDGE_DIR>/report/junit.xml`",
        bounds: "relative to the package root",
    },
    Variable {
        name: "HARSHJUDGE_REPORT",
        kind: "on/off",
        default: "on",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_KEEP_RUNS",
        kind: "count or `all`",
        default: "`20`",
        bounds: "1–1000000",
    },
    Variable {
        name: "HARSHJUDGE_RETRIES",
        kind: "count",
        default: "`0`",
        bounds: "0–10",
    },
    Variable {
        name: "HARSHJUDGE_FLAKY",
        kind: "`pass` or `fail`",
        default: "`pass`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_RESUME",
        kind: "on/off",
        default: "off",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_LAST_FAILED",
        kind: "on/off",
        default: "off",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_ONLY_CHANGED",
        kind: "on/off or a git ref",
        default: "off",
        bounds: "a ref git knows",
    },
    Variable {
        name: "HARSHJUDGE_HEADED",
        kind: "on/off",
        default: "off",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_SLOW_MO",
        kind: "milliseconds",
        default: "`0`",
        bounds: "0–60000",
    },
    Variable {
        name: "HARSHJUDGE_PAUSE",
        kind: "`off` or `on-failure`",
        default: "`off`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_PAUSE_TIMEOUT",
        kind: "duration",
        default: "`30m`",
        bounds: "`1ms`–`24h`",
    },
    Variable {
        name: "HARSHJUDGE_PAUSE_INPUT",
        kind: "`terminal` or `stdin`",
        default: "`terminal`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_TAGS",
        kind: "tag expression",
        default: "none",
        bounds: "`and`, `or`, `not`, parentheses; `@` optional",
    },
    Variable {
        name: "HARSHJUDGE_REPEAT_EACH",
        kind: "count",
        default: "`1`",
        bounds: "1–1000",
    },
    Variable {
        name: "HARSHJUDGE_MAX_FAILURES",
        kind: "count",
        default: "none",
        bounds: "1–1000000",
    },
    Variable {
        name: "HARSHJUDGE_UPDATE_SNAPSHOTS",
        kind: "on/off",
        default: "off",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_SNAPSHOT_DIR",
        kind: "path",
        default: "`<package root>/__snapshots__`",
        bounds: "relative to the package root",
    },
    Variable {
        name: "HARSHJUDGE_VERBOSE",
        kind: "on/off",
        default: "off",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_EVIDENCE",
        kind: "`all`, `on-failure` or `off`",
        default: "`all`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_FULL_PAGE",
        kind: "on/off",
        default: "off",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_TRACE",
        kind: "`off`, `on`, `retain-on-failure` or `on-first-retry`",
        default: "`retain-on-failure`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_TRACE_SCREENSHOTS",
        kind: "`off` or `on`",
        default: "`off`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_WAIT",
        kind: "duration",
        default: "`5s`",
        bounds: "`1ms`–`24h`",
    },
    Variable {
        name: "HARSHJUDGE_EXPECT_TIMEOUT",
        kind: "duration",
        default: "`main!(expect_timeout = …)`, else `HARSHJUDGE_WAIT`'s",
        bounds: "`1ms`–`24h`",
    },
    Variable {
        name: "HARSHJUDGE_LAUNCH_TIMEOUT",
        kind: "duration",
        default: "`60s`",
        bounds: "`1ms`–`24h`",
    },
    Variable {
        name: "HARSHJUDGE_WINDOW",
        kind: "`WIDTHxHEIGHT`",
        default: "`1280x800`",
        bounds: "100–10000 each",
    },
    Variable {
        name: "HARSHJUDGE_VIEWPORT",
        kind: "`WIDTHxHEIGHT`",
        default: "`1280x720`",
        bounds: "100–10000 each",
    },
    Variable {
        name: "HARSHJUDGE_CHROMEDRIVER",
        kind: "path",
        default: "`chromedriver` on PATH",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_CHROMIUM",
        kind: "path",
        default: "headless over CDP: `chromium-headless-shell` or `chrome-headless-shell` on PATH, else the next; headed or through chromedriver: `chromium`, `chromium-browser` or `google-chrome` on PATH",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_CHROMIUM_PROTOCOL",
        kind: "`cdp` or `webdriver`",
        default: "`cdp`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_BROWSER",
        kind: "`chromium`, `firefox` or `webkit`",
        default: "`chromium`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_GECKODRIVER",
        kind: "path",
        default: "`geckodriver` on PATH or in cargo's bin folder",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_FIREFOX",
        kind: "path",
        default: "`firefox-esr` or `firefox` on PATH",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_WEBKIT_DRIVER",
        kind: "path",
        default: "`WebKitWebDriver` on PATH",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_MINIBROWSER",
        kind: "path",
        default: "Debian's `/usr/lib/<triplet>/webkit2gtk-4.1/MiniBrowser`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_WEBDRIVER_URL",
        kind: "URL",
        default: "none",
        bounds: "`http://` or `https://` with a host",
    },
    Variable {
        name: "HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS",
        kind: "on/off",
        default: "off",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_CONSOLE_ALLOW",
        kind: "regex",
        default: "none",
        bounds: "a valid regular expression",
    },
    Variable {
        name: "HARSHJUDGE_VIDEO",
        kind: "`off`, `on` or `retain-on-failure`",
        default: "`off`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_FFMPEG",
        kind: "path",
        default: "`ffmpeg` on PATH",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_SECRETS",
        kind: "names, `,`-separated",
        default: "none",
        bounds: "environment variables' names",
    },
    Variable {
        name: "HARSHJUDGE_PROJECT",
        kind: "path",
        default: "current folder",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_MAX_EVIDENCE_BYTES",
        kind: "bytes",
        default: "`26214400` (25 MB)",
        bounds: "0–2^64−1",
    },
    Variable {
        name: "HARSHJUDGE_ALLOWED_ROOTS",
        kind: "paths, `:`-separated",
        default: "none",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_LOG",
        kind: "log filter",
        default: "`info`",
        bounds: "levels, `TARGET=LEVEL` directives",
    },
    Variable {
        name: "HARSHJUDGE_DASHBOARD",
        kind: "on/off",
        default: "`on`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_MCP_TOOLS",
        kind: "`all`/`start`",
        default: "`start`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_TOOL_TIMEOUT",
        kind: "duration",
        default: "`2m`",
        bounds: "`1ms`–`24h`",
    },
    Variable {
        name: "HARSHJUDGE_MCP_BIN",
        kind: "path",
        default: "the running `harshjudge-mcp`",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_JUDGE_CMD",
        kind: "command line",
        default: "none",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_JUDGE_URL",
        kind: "URL",
        default: "none",
        bounds: "`http://` or `https://`",
    },
    Variable {
        name: "HARSHJUDGE_JUDGE_MODEL",
        kind: "text",
        default: "none",
        bounds: "required with `HARSHJUDGE_JUDGE_URL`",
    },
    Variable {
        name: "HARSHJUDGE_JUDGE_API_KEY",
        kind: "text",
        default: "none",
        bounds: "—",
    },
    Variable {
        name: "HARSHJUDGE_JUDGE_TIMEOUT",
        kind: "duration",
        default: "`2m`",
        bounds: "`1ms`–`24h`",
    },
    Variable {
        name: "HARSHJUDGE_JUDGE_RETRIES",
        kind: "count",
        default: "`1`",
        bounds: "0–10",
    },
    Variable {
        name: "HARSHJUDGE_JUDGE_VOTES",
        kind: "count",
        default: "`1`",
        bounds: "1–9",
    },
    Variable {
        name: "HARSHJUDGE_UNCERTAIN",
        kind: "`pass` or `fail`",
        default: "`fail`",
        bounds: "—",
    },
];

/// The longest duration any setting accepts (24 h): a limit beyond it is a
/// typo, and bounded limits keep every deadline computation in range.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 3600);

/// The one reader of `HARSHJUDGE_*` variables: `None` when unset or blank, an
/// error naming the variable when its value is not UTF-8 (never treated as unset).
pub fn env(name: &'static str) -> Result<Option<String>, SettingError> {
    match std::env::var(name) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(raw)) => Err(SettingError {
            name,
            value: format!("{raw:?}").trim_matches('"').to_string(),
            expected: "UTF-8 text (the value has bytes that are not UTF-8)".into(),
        }),
    }
}

/// The one boolean vocabulary of the settings: `1`, `true`, `on`, `yes` and
/// `0`, `false`, `off`, `no` (any case).
pub fn parse_bool(name: &'static str, value: &str) -> Result<bool, SettingError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Ok(true),
        "0" | "false" | "off" | "no" => Ok(false),
        _ => Err(SettingError {
            name,
            value: value.into(),
            expected: "1, true, on or yes; or 0, false, off or no".into(),
        }),
    }
}

/// The variables `HARSHJUDGE_SECRETS` names (comma-separated), each with its
/// value (`None`: unset): the suite's secrets besides `main!(secrets = …)`'s.
pub fn secrets(
    declared: &[&str],
) -> Result<Vec<(String, Option<std::ffi::OsString>)>, SettingError> {
    let listed = env("HARSHJUDGE_SECRETS")?.unwrap_or_default();
    let names = declared.iter().copied().chain(listed.split(','));
    let names = names.map(str::trim).filter(|n| !n.is_empty());
    Ok(names
        .map(|n| (n.to_string(), std::env::var_os(n).filter(|v| !v.is_empty())))
        .collect())
}

/// A boolean variable ([`parse_bool`]); `default` when unset.
pub fn env_bool(name: &'static str, default: bool) -> Result<bool, SettingError> {
    env(name)?.map_or(Ok(default), |v| parse_bool(name, &v))
}

/// A duration variable ([`parse_duration`]); `default` when unset.
pub fn env_duration(name: &'static str, default: Duration) -> Result<Duration, SettingError> {
    match env(name)? {
        None => Ok(default),
        Some(v) => parse_duration(&v).map_err(|e| SettingError {
            name,
            value: v,
            expected: e.to_string(),
        }),
    }
}

/// `HARSHJUDGE_WEBDRIVER_URL`: a running WebDriver (`http://` or `https://`
/// with a host), checked with the other settings before anything runs.
pub fn webdriver_url() -> Result<Option<String>, SettingError> {
    match env("HARSHJUDGE_WEBDRIVER_URL")? {
        Some(u) if !is_http_url(&u) => Err(SettingError {
            name: "HARSHJUDGE_WEBDRIVER_URL",
            value: u,
            expected: "the http:// or https:// URL of a running WebDriver server, e.g. http://127.0.0.1:4444 (or unset it to let harshjudge start the driver)".into(),
        }),
        u => Ok(u),
    }
}

/// What a `HARSHJUDGE_LOG` filter must look like.
const LOG_FILTER_EXPECTED: &str = "a log filter: a level (off, error, warn, info, debug, trace), or comma-separated directives TARGET=LEVEL such as `info,harshjudge_mcp=debug` (a bare target must be one of ours: harshjudge…)";

/// Checks a `HARSHJUDGE_LOG` filter (tracing's `EnvFilter` syntax, stricter):
/// each comma-separated directive is a level, `TARGET=LEVEL` (TARGET may carry
/// a `[span{field}]` part) or a bare target of ours (`harshjudge…`). A bare
/// word that is neither (`HARSHJUDGE_LOG=loud`) would parse as a target no log
/// line has, silencing every log: it is refused here.
pub fn check_log_filter(value: &str) -> Result<(), SettingError> {
    const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];
    let level = |l: &str| LEVELS.contains(&l.trim().to_ascii_lowercase().as_str());
    let target = |t: &str| {
        let name = t.split('[').next().unwrap_or("");
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '-')
            && (!t.contains('[') || t.ends_with(']'))
    };
    let ok = value
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .all(|d| match d.rsplit_once('=') {
            Some((t, l)) if !t.contains('{') || t.contains('}') => target(t.trim()) && level(l),
            _ => level(d) || (target(d) && d.starts_with("harshjudge")),
        });
    if ok && !value.trim().is_empty() {
        Ok(())
    } else {
        Err(SettingError {
            name: "HARSHJUDGE_LOG",
            value: value.into(),
            expected: LOG_FILTER_EXPECTED.into(),
        })
    }
}

/// A duration that [`parse_duration`] refuses; its `Display` says what is
/// accepted (a [`SettingError`]'s `expected`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// Not a whole number with a unit.
    #[error("a duration such as 500ms, 30s, 2m or 1h (a whole number and a unit)")]
    NotADuration,
    /// Zero: a limit of nothing.
    #[error("a duration greater than zero (use `none` for no limit)")]
    Zero,
    /// Over [`MAX_DURATION`] (or too large to count).
    #[error("a duration of at most 24h (e.g. 30s, 5m or 2h)")]
    TooLong,
}

/// Parses `500ms`, `30s`, `2m`, `1h` or a bare number of seconds: greater than
/// zero and at most [`MAX_DURATION`], in checked arithmetic (an overflowing
/// number is an error, never a panic). The one duration parser of the settings.
pub fn parse_duration(s: &str) -> Result<Duration, DurationError> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let per_unit: u64 = match unit.trim() {
        "ms" => 1,
        "" | "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(DurationError::NotADuration),
    };
    if num.is_empty() {
        return Err(DurationError::NotADuration);
    }
    // Only digits here: a parse error is an overflow.
    let n: u64 = num.parse().map_err(|_| DurationError::TooLong)?;
    let ms = n.checked_mul(per_unit).ok_or(DurationError::TooLong)?;
    let d = Duration::from_millis(ms);
    if d.is_zero() {
        return Err(DurationError::Zero);
    }
    if d > MAX_DURATION {
        return Err(DurationError::TooLong);
    }
    Ok(d)
}

/// What a base URL must look like.
pub const BASE_URL_EXPECTED: &str = "an http:// or https:// URL, e.g. http://127.0.0.1:3000";

/// Whether `url` is an `http://` or `https://` URL with a host.
pub fn is_http_url(url: &str) -> bool {
    url::Url::parse(url)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// The source folders of the crates that read `HARSHJUDGE_*` variables.
    const SOURCES: [&str; 4] = [
        "harshjudge/src",
        "harshjudge-browser/src",
        "harshjudge-store/src",
        "harshjudge-mcp/src",
    ];

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("7"), Ok(Duration::from_secs(7)));
        assert!(parse_duration("abc").is_err());
        assert!(parse_duration("3 weeks").is_err());
        assert!(parse_duration("0s").is_err());
        assert_eq!(parse_duration("24h"), Ok(MAX_DURATION));
        assert_eq!(parse_duration("86400000ms"), Ok(MAX_DURATION));
        assert_eq!(format_duration(Duration::from_secs(120)), "2m");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
    }

    #[test]
    fn overflowing_durations_are_errors_not_panics() {
        for text in [
            "999999999999999999h",
            "18446744073709551615s",
            "18446744073709551615",
            "18446744073709551616ms",
            "99999999999999999999999999h",
            "307445734561825861m",
            "25h",
            "1441m",
            "86401s",
            "86400001ms",
        ] {
            let e = parse_duration(text).unwrap_err().to_string();
            assert!(e.contains("at most 24h"), "{text}: {e}");
        }
        for text in ["", "h", "-1s", "1.5s", "1d", "s5"] {
            let e = parse_duration(text).unwrap_err().to_string();
            assert!(e.contains("such as 500ms"), "{text:?}: {e}");
        }
    }

    #[test]
    fn one_boolean_vocabulary() {
        for yes in ["1", "true", "on", "yes", "TRUE", " On "] {
            assert!(parse_bool("X", yes).unwrap(), "{yes}");
        }
        for no in ["0", "false", "off", "no", "False"] {
            assert!(!parse_bool("X", no).unwrap(), "{no}");
        }
        let e = parse_bool("HARSHJUDGE_FULL_PAGE", "maybe")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("HARSHJUDGE_FULL_PAGE=\"maybe\"") && e.contains("1, true, on or yes"),
            "{e}"
        );
    }

    #[test]
    fn base_urls() {
        assert!(is_http_url("http://127.0.0.1:3000"));
        assert!(is_http_url("https://example.test/app/"));
        for bad in [
            "ftp://x",
            "x",
            "http://",
            "file:///etc/passwd",
            "localhost:3000",
        ] {
            assert!(!is_http_url(bad), "{bad}");
        }
    }

    /// The guide's settings table (`docs/src/settings.md`), `VARIABLES` and
    /// the `"HARSHJUDGE_…"` names in the sources of harshjudge and
    /// harshjudge-mcp agree.
    #[test]
    fn the_guides_table_is_every_variable_the_code_reads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let chapter = std::fs::read_to_string(root.join(unknown::SETTINGS_CHAPTER)).unwrap();
        let table = chapter
            .split("| variable | type | default | bounds | meaning |")
            .nth(1)
            .expect("the settings chapter has the settings table");
        let mut rows = vec![];
        for line in table.lines().skip(2) {
            if !line.starts_with('|') {
                break;
            }
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            rows.push((
                cells[0].trim_matches('`').to_string(),
                cells[1..4].join(" | "),
            ));
        }
        let listed: Vec<(String, String)> = VARIABLES
            .iter()
            .map(|v| {
                (
                    v.name.to_string(),
                    format!("{} | {} | {}", v.kind, v.default, v.bounds),
                )
            })
            .collect();
        assert_eq!(
            rows,
            listed,
            "the settings table of {} vs settings::VARIABLES",
            unknown::SETTINGS_CHAPTER
        );

        let literal = regex::Regex::new(r#""(HARSHJUDGE_[A-Z_]+)""#).unwrap();
        let mut in_sources = std::collections::BTreeSet::new();
        let mut stack: Vec<PathBuf> = SOURCES.iter().map(|s| root.join(s)).collect();
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    // Unit tests name unknown variables on purpose.
                    let code = text.split("\n#[cfg(test)]\nmod tests").next().unwrap_or("");
                    for c in literal.captures_iter(code) {
                        if !NOT_SETTINGS.contains(&&c[1]) && !c[1].starts_with(TEST_PREFIX) {
                            in_sources.insert(c[1].to_string());
                        }
                    }
                }
            }
        }
        let named: std::collections::BTreeSet<String> =
            VARIABLES.iter().map(|v| v.name.to_string()).collect();
        assert_eq!(named.len(), VARIABLES.len(), "a variable is listed twice");
        assert_eq!(
            in_sources, named,
            "variables read in the sources vs settings::VARIABLES"
        );
    }

    /// Names the tests set on purpose to see them warned about.
    const TYPOS: &[&str] = &[
        "HARSHJUDGE_BASEURL",
        "HARSHJUDGE_STEP_TIMOUT",
        "HARSHJUDGE_SOMETHING_ELSE_ENTIRELY",
    ];

    #[test]
    fn unknown_variables_name_the_closest_known_one() {
        let w = unknown_variable("HARSHJUDGE_BASEURL").unwrap();
        assert!(w.contains("did you mean HARSHJUDGE_BASE_URL?"), "{w}");
        let w = unknown_variable("HARSHJUDGE_STEP_TIMOUT").unwrap();
        assert!(w.contains("did you mean HARSHJUDGE_STEP_TIMEOUT?"), "{w}");
        let w = unknown_variable("HARSHJUDGE_SOMETHING_ELSE_ENTIRELY").unwrap();
        assert!(
            w.contains(
                "the settings are listed in the guide's Settings chapter \
                 (docs/src/settings.md in harshjudge's repository)"
            ),
            "{w}"
        );
        for known in [
            "HARSHJUDGE_BASE_URL",
            "HARSHJUDGE_DEMO_FAIL",
            "HARSHJUDGE_TEST_PYTHON",
        ] {
            assert_eq!(unknown_variable(known), None, "{known}");
        }
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
    }

    /// Every `HARSHJUDGE_*` name written anywhere in the workspace (sources,
    /// tests, examples, the build script, xtask, CI) is a setting, one of
    /// [`NOT_SETTINGS`], or a test's ([`TEST_PREFIX`]): none is warned about
    /// when set for what reads it.
    #[test]
    fn every_variable_of_the_workspace_is_known() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let name = regex::Regex::new(r"HARSHJUDGE_[A-Z0-9_]*[A-Z0-9]").unwrap();
        let mut unknown = std::collections::BTreeSet::new();
        let mut stack: Vec<PathBuf> = [
            "harshjudge",
            "harshjudge-browser",
            "harshjudge-store",
            "harshjudge-mcp",
            "harshjudge-macros",
            "tests",
            "examples",
            "xtask",
            ".ci",
        ]
        .iter()
        .map(|d| root.join(d))
        .collect();
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    if !path.ends_with("target") {
                        stack.push(path);
                    }
                } else if let Ok(text) = std::fs::read_to_string(&path) {
                    for m in name.find_iter(&text) {
                        // `HARSHJUDGE_JUDGE_*`, `HARSHJUDGE_TEST_`: a family,
                        // not a name; and the typos tests make on purpose.
                        if text[m.end()..].starts_with('_') || TYPOS.contains(&m.as_str()) {
                            continue;
                        }
                        if unknown_variable(m.as_str()).is_some() {
                            unknown.insert(format!("{} ({})", m.as_str(), path.display()));
                        }
                    }
                }
            }
        }
        assert!(
            unknown.is_empty(),
            "add them to VARIABLES or NOT_SETTINGS: {unknown:#?}"
        );
    }

    #[test]
    fn log_filters_that_would_silence_every_log_are_refused() {
        for good in [
            "info",
            "WARN",
            "off",
            "info,harshjudge_mcp=debug",
            "harshjudge_mcp",
            "rmcp=warn",
            "harshjudge::store=trace",
            "my_crate[span{x}]=debug",
        ] {
            assert!(check_log_filter(good).is_ok(), "{good}");
        }
        for bad in [
            "loud",
            "verbose",
            "info,loud",
            "harshjudge_mcp=loud",
            "=info",
            "a b=info",
        ] {
            let e = check_log_filter(bad).unwrap_err().to_string();
            assert!(
                e.contains("HARSHJUDGE_LOG") && e.contains("TARGET=LEVEL"),
                "{bad}: {e}"
            );
        }
    }

    /// Only this module reads `HARSHJUDGE_*` variables: elsewhere the process
    /// environment is read only for the variables other tools own (cargo's,
    /// nextest's, GitHub's, `PATH`), by name, and clap never reads one
    /// (`env = "…"`), so every variable follows the same rules.
    #[test]
    fn no_other_module_reads_a_harshjudge_variable() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let read = regex::Regex::new(
            r#"env::var(?:_os)?\(([^)]*)\)|try_from_env\(([^)]*)\)|\benv\s*=\s*"([^"]*)""#,
        )
        .unwrap();
        let foreign = [
            "\"CARGO_MANIFEST_DIR\"",
            "\"PATH\"",
            "\"NEXTEST\"",
            "\"NEXTEST_RUN_ID\"",
            "\"GITHUB_STEP_SUMMARY\"",
            "\"LAYOUT_CHECK_ROOT\"",
            "\"CARGO_HOME\"",
            "\"HOME\"",
            // A test's own switch: its child process is a participant
            // (`browser/backend/cdp/shared_tests.rs`).
            "\"SHARED_CHROMIUM_TEST_PARTICIPANT\"",
            // The same for the reports' announcer (`server/nextest.rs`).
            "\"HJ_ANNOUNCE_TEST_STORES\"",
            // The read `record_export` writes into an exported scenario (the
            // user's code, not ours): harshjudge-mcp's `browser/emulation.rs`.
            "\"HTTP_CREDENTIALS_PASSWORD\"",
            "\\\"HTTP_CREDENTIALS_PASSWORD\\\"",
            // Where windows open (`--headed`) and whether CI runs us (a pause never waits).
            "\"DISPLAY\"",
            "\"WAYLAND_DISPLAY\"",
            "\"CI\"",
        ];
        let mut found = vec![];
        let mut stack: Vec<PathBuf> = SOURCES.iter().map(|s| root.join(s)).collect();
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && !path.ends_with("harshjudge-browser/src/settings/mod.rs")
                {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for c in read.captures_iter(&text) {
                        let arg = c.iter().skip(1).flatten().next().map_or("", |m| m.as_str());
                        if !foreign.contains(&arg.trim()) {
                            found.push(format!("{}: {}", path.display(), &c[0]));
                        }
                    }
                }
            }
        }
        assert!(
            found.is_empty(),
            "read these through harshjudge_browser::settings instead:\n{}",
            found.join("\n")
        );
    }
}
