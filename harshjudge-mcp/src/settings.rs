//! The settings of the `harshjudge-mcp` binary: its `HARSHJUDGE_*`
//! variables, read through the one reader of them
//! ([`harshjudge_browser::settings::env`]) and listed with every other in
//! `harshjudge_browser::settings::VARIABLES`. Its flags win over them.

use std::path::PathBuf;

use harshjudge_browser::settings::{
    BASE_URL_EXPECTED, SettingError, check_log_filter, env, is_http_url, parse_bool,
};

/// The settings of the `harshjudge-mcp` binary (server and CLI), read here
/// like every other `HARSHJUDGE_*` variable: its flags win over them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct McpSettings {
    /// `HARSHJUDGE_PROJECT`: the project folder (the one holding `.harshJudge/`).
    pub project: Option<PathBuf>,
    /// `HARSHJUDGE_MAX_EVIDENCE_BYTES`: the largest evidence accepted.
    pub max_evidence_bytes: Option<u64>,
    /// `HARSHJUDGE_ALLOWED_ROOTS`: more folders evidence may be copied from (`:`-separated).
    pub allowed_roots: Vec<PathBuf>,
    /// `HARSHJUDGE_DASHBOARD`: whether `initProject` starts the dashboard
    /// (the one boolean vocabulary: `on`/`off`, `1`/`0`, …).
    pub dashboard: Option<bool>,
    /// `HARSHJUDGE_LOG`: the log filter (`info`, `debug`, `harshjudge_mcp=trace`, …).
    pub log: Option<String>,
    /// `HARSHJUDGE_MCP_TOOLS`: whether the server's `tools/list` gives every
    /// tool at first (`all`: `Some(true)`) or the start set (`start`).
    pub all_tools: Option<bool>,
}

impl McpSettings {
    /// Reads the environment; a bad value is an error naming the variable.
    pub fn from_env() -> Result<McpSettings, SettingError> {
        let max_evidence_bytes = match env("HARSHJUDGE_MAX_EVIDENCE_BYTES")? {
            None => None,
            Some(v) => Some(v.trim().parse::<u64>().map_err(|_| SettingError {
                name: "HARSHJUDGE_MAX_EVIDENCE_BYTES",
                value: v.clone(),
                expected: "a whole number of bytes, e.g. 26214400 for 25 MB".into(),
            })?),
        };
        let allowed_roots = env("HARSHJUDGE_ALLOWED_ROOTS")?
            .map(|v| {
                v.split(':')
                    .filter(|p| !p.trim().is_empty())
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default();
        Ok(McpSettings {
            project: env("HARSHJUDGE_PROJECT")?.map(PathBuf::from),
            max_evidence_bytes,
            allowed_roots,
            dashboard: env("HARSHJUDGE_DASHBOARD")?
                .map(|v| parse_bool("HARSHJUDGE_DASHBOARD", &v))
                .transpose()?,
            log: match env("HARSHJUDGE_LOG")? {
                Some(v) => {
                    check_log_filter(&v)?;
                    Some(v)
                }
                None => None,
            },
            all_tools: match env("HARSHJUDGE_MCP_TOOLS")? {
                None => None,
                Some(v) => match v.trim().to_ascii_lowercase().as_str() {
                    "all" => Some(true),
                    "start" => Some(false),
                    _ => {
                        return Err(SettingError {
                            name: "HARSHJUDGE_MCP_TOOLS",
                            value: v,
                            expected: "all (tools/list gives every tool, as the original HarshJudge did) or start (the start set; enable_tools lists more)".into(),
                        });
                    }
                },
            },
        })
    }
}

/// `HARSHJUDGE_BASE_URL` alone, checked as the suites check it (`harshjudge-mcp
/// heal`'s live check reads it; the server does not, so a bad value never
/// stops it): unset or empty is `None`.
pub fn base_url_from_env() -> Result<Option<String>, SettingError> {
    match env("HARSHJUDGE_BASE_URL")?.filter(|u| !u.is_empty()) {
        Some(u) if !is_http_url(&u) => Err(SettingError {
            name: "HARSHJUDGE_BASE_URL",
            value: u,
            expected: BASE_URL_EXPECTED.into(),
        }),
        u => Ok(u),
    }
}

/// `HARSHJUDGE_MCP_BIN`: the `harshjudge-mcp` program to start (the dashboard,
/// the tests), when set.
pub fn mcp_bin() -> Result<Option<PathBuf>, SettingError> {
    Ok(env("HARSHJUDGE_MCP_BIN")?.map(PathBuf::from))
}
