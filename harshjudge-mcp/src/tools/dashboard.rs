//! `openDashboard`, `closeDashboard` and `getDashboardStatus`: the live
//! dashboard's lifecycle (see [`crate::dashboard`]), with the original's
//! result fields and messages.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::Context;
use crate::dashboard::{Dashboard, DashboardClosed, DashboardOpened, DashboardStatus};
use crate::error::{Code, ToolError};

fn yes() -> bool {
    true
}

/// Arguments of `openDashboard`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenDashboard {
    /// Port on 127.0.0.1 (1024 to 65535; default 7002). When it is taken, the
    /// next free one up to 9 higher is used: read the port from the result.
    #[serde(default)]
    #[schemars(range(min = 1024, max = 65535))]
    pub port: Option<i64>,
    /// Open the dashboard in the desktop's browser (default true; never fails the call).
    #[serde(default = "yes")]
    pub open_browser: bool,
    /// The project folder (default: the server's project). Must be the
    /// server's project or inside an allowed root.
    #[serde(default)]
    pub project_path: Option<String>,
}

/// Arguments of `closeDashboard` and `getDashboardStatus`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DashboardProject {
    /// The project folder (default: the server's project). Must be the
    /// server's project or inside an allowed root.
    #[serde(default)]
    pub project_path: Option<String>,
}

/// The project a dashboard tool works on: the server's project, or a folder
/// inside one of the allowed roots (never anywhere else).
fn project(ctx: &Context, path: Option<&str>) -> Result<Dashboard, ToolError> {
    let Some(p) = path else {
        return Ok(Dashboard::new(ctx.root()));
    };
    if p.trim().is_empty() {
        return Err(ToolError::invalid(
            "projectPath must not be empty (omit it for the server's project)",
        ));
    }
    let given = PathBuf::from(p);
    let full = if given.is_absolute() {
        given
    } else {
        ctx.root().join(given)
    };
    let real = std::fs::canonicalize(&full).map_err(|e| {
        ToolError::not_found(format!(
            "projectPath {p:?} cannot be used: {e} (give an existing project folder, or omit projectPath)"
        ))
    })?;
    if !real.is_dir() {
        return Err(ToolError::invalid(format!(
            "projectPath {p:?} is not a folder (give the folder that holds .harshJudge/)"
        )));
    }
    if real != ctx.root() && !ctx.allowed_roots.iter().any(|r| real.starts_with(r)) {
        return Err(ToolError::new(
            Code::AccessDenied,
            format!(
                "projectPath {p:?} is outside this server's project ({}) and its allowed roots; omit projectPath, or start harshjudge-mcp with --cwd or --allow-root for that folder",
                ctx.root().display()
            ),
        ));
    }
    Ok(Dashboard::new(&real))
}

/// Starts the dashboard, or reports the one already running.
pub fn open_dashboard(ctx: &Context, a: OpenDashboard) -> Result<DashboardOpened, ToolError> {
    let port = match a.port {
        None => None,
        Some(p) => Some(
            u16::try_from(p)
                .ok()
                .filter(|p| *p >= 1024)
                .ok_or_else(|| {
                    ToolError::invalid(format!(
                        "port must be 1024 to 65535 (got {p}); omit it for 7002"
                    ))
                })?,
        ),
    };
    project(ctx, a.project_path.as_deref())?.open(port, a.open_browser)
}

/// Stops the dashboard (or cleans up a stale state file).
pub fn close_dashboard(ctx: &Context, a: DashboardProject) -> Result<DashboardClosed, ToolError> {
    project(ctx, a.project_path.as_deref())?.close()
}

/// Whether the dashboard runs, where, and since when.
pub fn get_dashboard_status(
    ctx: &Context,
    a: DashboardProject,
) -> Result<DashboardStatus, ToolError> {
    Ok(project(ctx, a.project_path.as_deref())?.status_reply())
}
