//! The settings of a suite's run that depend on the store: the `Settings`
//! the harness resolves (`HARSHJUDGE_*` variables, then
//! `.harshJudge/config.yaml`, then defaults), where its reports go, and how
//! many runs are kept. The variables' reader and the browser's settings are
//! in [`settings`](harshjudge_browser::settings), below the store.

use std::path::{Path, PathBuf};
use std::time::Duration;

use harshjudge_browser::settings::{
    BASE_URL_EXPECTED, SettingError, env, env_bool, is_http_url, parse_bool, parse_duration,
};

/// Default for `HARSHJUDGE_STEP_TIMEOUT`.
pub const DEFAULT_STEP_TIMEOUT: Duration = Duration::from_secs(300);

/// Resolved settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The `.harshJudge` folder (`HARSHJUDGE_DIR`, default `<package root>/.harshJudge`).
    pub dir: PathBuf,
    /// The app under test (`HARSHJUDGE_BASE_URL`, else `config.yaml` `baseUrl`).
    pub base_url: String,
    /// Per-step limit for steps that set none (`HARSHJUDGE_STEP_TIMEOUT`, default 5m; `none` disables).
    pub step_timeout: Option<Duration>,
    /// Per-scenario limit for scenarios that set none (`HARSHJUDGE_TIMEOUT`, default none).
    pub scenario_timeout: Option<Duration>,
    /// Which probe evidence is captured (`HARSHJUDGE_EVIDENCE`, default `all`).
    pub evidence: EvidenceMode,
    /// Browser screenshots of the whole page, not just the viewport (`HARSHJUDGE_FULL_PAGE=1`).
    pub full_page: bool,
    /// A viewport PNG after each traced action (`HARSHJUDGE_TRACE_SCREENSHOTS=on`).
    pub trace_screenshots: bool,
    /// Where the harness writes JUnit XML (`HARSHJUDGE_JUNIT`, default
    /// `<dir>/report/junit.xml`; `off`: not written).
    pub junit: Option<PathBuf>,
    /// Whether the harness writes the HTML report to `<dir>/report/`
    /// (`HARSHJUDGE_REPORT`, default on; `off`: not written).
    pub html_report: bool,
    /// Runs kept per scenario after a harness run (`HARSHJUDGE_KEEP_RUNS`,
    /// default [`Store::DEFAULT_KEEP_RUNS`](harshjudge_store::store::Store::DEFAULT_KEEP_RUNS);
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

impl Settings {
    /// Reads the environment. Does not touch the disk. The browser's variables
    /// are read by the browser ([`harshjudge_browser::check_settings`]).
    pub fn from_env(package_root: &Path) -> Result<Settings, SettingError> {
        let dir = match env("HARSHJUDGE_DIR")? {
            Some(d) => package_root.join(d),
            None => package_root.join(harshjudge_store::store::STORE_DIR),
        };
        let base_url = env("HARSHJUDGE_BASE_URL")?.unwrap_or_default();
        if !base_url.is_empty() && !is_http_url(&base_url) {
            return Err(SettingError {
                name: "HARSHJUDGE_BASE_URL",
                value: base_url,
                expected: BASE_URL_EXPECTED.into(),
            });
        }
        let junit = junit_path(package_root, &dir)?;
        let html_report = env_bool("HARSHJUDGE_REPORT", true)?;
        Ok(Settings {
            junit,
            html_report,
            keep_runs: harshjudge_store::store::keep_runs()?,
            dir,
            base_url,
            step_timeout: timeout_var("HARSHJUDGE_STEP_TIMEOUT", Some(DEFAULT_STEP_TIMEOUT))?,
            scenario_timeout: timeout_var("HARSHJUDGE_TIMEOUT", None)?,
            full_page: env_bool("HARSHJUDGE_FULL_PAGE", false)?,
            trace_screenshots: harshjudge_browser::settings::trace_screenshots()?,
            evidence: match env("HARSHJUDGE_EVIDENCE")?.as_deref() {
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

/// `HARSHJUDGE_JUNIT`: `<dir>/report/junit.xml` when unset, `None` for `off`
/// (or any false word), else the path (relative to the package root).
fn junit_path(package_root: &Path, dir: &Path) -> Result<Option<PathBuf>, SettingError> {
    Ok(match env("HARSHJUDGE_JUNIT")? {
        None => Some(harshjudge_store::store::Store::new(dir).junit_path()),
        Some(p) => match parse_bool("HARSHJUDGE_JUNIT", &p) {
            Ok(false) => None,
            _ => Some(package_root.join(p)),
        },
    })
}

/// Where the reports of an invocation go, read leniently: for an invocation
/// that stopped early (maybe for a bad setting), which must still say so in
/// its JUnit XML and HTML report. Each variable that cannot be read falls
/// back on its default, except `HARSHJUDGE_DIR` and `HARSHJUDGE_JUNIT`, whose
/// place cannot be guessed: then that report is not written (`None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportPlaces {
    /// The `.harshJudge` folder (the HTML report is written in it).
    pub dir: Option<PathBuf>,
    /// The JUnit XML file.
    pub junit: Option<PathBuf>,
    /// Whether the HTML report is written.
    pub html: bool,
}

impl ReportPlaces {
    /// Reads `HARSHJUDGE_DIR`, `HARSHJUDGE_JUNIT` and `HARSHJUDGE_REPORT`.
    pub fn from_env(package_root: &Path) -> ReportPlaces {
        let dir = match env("HARSHJUDGE_DIR") {
            Ok(Some(d)) => Some(package_root.join(d)),
            Ok(None) => Some(package_root.join(harshjudge_store::store::STORE_DIR)),
            Err(_) => None,
        };
        let junit = dir
            .as_ref()
            .and_then(|d| junit_path(package_root, d).ok().flatten());
        ReportPlaces {
            html: dir.is_some() && env_bool("HARSHJUDGE_REPORT", true).unwrap_or(true),
            dir,
            junit,
        }
    }
}

/// A limit: a duration, or `none` (also `0`, `off`) for no limit.
fn timeout_var(
    name: &'static str,
    default: Option<Duration>,
) -> Result<Option<Duration>, SettingError> {
    match env(name)? {
        None => Ok(default),
        Some(v) if matches!(v.trim(), "none" | "0" | "off") => Ok(None),
        Some(v) => parse_duration(&v).map(Some).map_err(|e| SettingError {
            name,
            value: v,
            expected: e.to_string(),
        }),
    }
}

/// `.harshJudge/config.yaml` that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {problem}", path = .path.display())]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong and how to fix it.
    pub problem: String,
}

/// Reads and checks `config.yaml` of `store`: an empty file or a `baseUrl` that
/// is not an http(s) URL is an error naming the file (never silently a default).
pub fn read_config(
    store: &harshjudge_store::store::Store,
) -> Result<harshjudge_store::store::Config, ConfigError> {
    let path = store.config_path();
    let problem = |problem: String| ConfigError {
        path: path.clone(),
        problem,
    };
    match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().is_empty() => {
            return Err(problem(
                "the file is empty: it should hold projectName and baseUrl (e.g. `baseUrl: http://127.0.0.1:3000`); delete it to have it written afresh".into(),
            ));
        }
        Ok(_) => {}
        Err(e) => return Err(problem(format!("cannot be read: {e}"))),
    }
    let config = store.read_config().map_err(|e| problem(e.to_string()))?;
    if !config.base_url.is_empty() && !is_http_url(&config.base_url) {
        return Err(problem(format!(
            "baseUrl {:?} is invalid: expected {BASE_URL_EXPECTED} (or '' and HARSHJUDGE_BASE_URL)",
            config.base_url
        )));
    }
    Ok(config)
}

/// Whether `HARSHJUDGE_DIR` is set (to something other than blanks).
pub fn store_dir_is_set() -> Result<bool, SettingError> {
    Ok(env("HARSHJUDGE_DIR")?.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_yaml_is_checked() {
        let tmp = tempfile::tempdir().unwrap();
        let store = harshjudge_store::store::Store::new(tmp.path());
        let config = store.config_path();
        std::fs::write(&config, "").unwrap();
        let e = read_config(&store).unwrap_err().to_string();
        assert!(
            e.starts_with(&config.display().to_string()) && e.contains("the file is empty"),
            "{e}"
        );
        std::fs::write(&config, "  \n\n").unwrap();
        assert!(read_config(&store).is_err());
        std::fs::write(&config, "projectName: p\nbaseUrl: ftp://x\n").unwrap();
        let e = read_config(&store).unwrap_err().to_string();
        assert!(
            e.starts_with(&config.display().to_string())
                && e.contains("baseUrl \"ftp://x\" is invalid"),
            "{e}"
        );
        std::fs::write(&config, "projectName: p\nbaseUrl: ''\n").unwrap();
        assert_eq!(read_config(&store).unwrap().base_url, "");
        std::fs::write(&config, "projectName: p\nbaseUrl: http://127.0.0.1:1\n").unwrap();
        assert_eq!(read_config(&store).unwrap().base_url, "http://127.0.0.1:1");
    }
}
