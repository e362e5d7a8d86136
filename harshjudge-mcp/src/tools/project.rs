//! `initProject`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::context::Context;
use crate::error::{Code, ToolError};

/// Arguments of `initProject`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InitProject {
    /// Name of the project (1 to 100 characters).
    pub project_name: String,
    /// Base URL of the application under test (http or https), e.g. http://localhost:3000.
    #[serde(default)]
    pub base_url: Option<String>,
}

/// Creates `.harshJudge/` in the project folder.
pub fn init_project(ctx: &Context, a: InitProject) -> Result<Value, ToolError> {
    super::check_len("projectName", &a.project_name, 1, 100)?;
    let base_url = match a.base_url.as_deref() {
        None => String::new(),
        Some(u) => {
            let parsed = url::Url::parse(u).map_err(|e| {
                ToolError::invalid(format!(
                    "baseUrl {u:?} is not a valid URL ({e}); give a full URL such as http://localhost:3000"
                ))
            })?;
            if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
                return Err(ToolError::invalid(format!(
                    "baseUrl {u:?} must be an http:// or https:// URL with a host, such as http://localhost:3000"
                )));
            }
            u.to_string()
        }
    };
    let store = ctx.store();
    store.init_project(&a.project_name, &base_url).map_err(|e| match e {
        harshjudge::store::StoreError::AlreadyExists { .. } => ToolError::new(
            Code::AlreadyExists,
            format!(
                "Project already initialized: {} exists. Use it as it is, or remove the .harshJudge folder to start afresh.",
                ctx.rel(&store.config_path())
            ),
        ),
        other => other.into(),
    })?;
    let mut out = json!({
        "success": true,
        "projectPath": ctx.rel(store.dir()),
        "configPath": ctx.rel(&store.config_path()),
        "prdPath": ctx.rel(&store.prd_path()),
        "scenariosPath": ctx.rel(&store.scenarios_dir()),
    });
    // As the original: the dashboard starts with the project; failing to start
    // it does not fail the call.
    let next = "Fill in .harshJudge/prd.md, then create scenarios with createScenario.";
    let started = if ctx.dashboard_on_init {
        match crate::dashboard::Dashboard::new(ctx.root()).open(None, false) {
            Ok(d) => d["url"].as_str().map(|u| (u.to_string(), d["pid"].clone())),
            Err(e) => {
                tracing::warn!(
                    "initProject: the dashboard could not be started: {}",
                    e.message
                );
                None
            }
        }
    } else {
        None
    };
    out["message"] = match started {
        Some((url, pid)) => {
            let msg = format!("HarshJudge initialized successfully. Dashboard running at {url} (PID: {pid}). {next}");
            out["dashboardUrl"] = url.into();
            msg
        }
        None if ctx.dashboard_on_init => format!("HarshJudge initialized successfully. Dashboard could not be started automatically - use openDashboard tool to start it. {next}"),
        None => format!("HarshJudge initialized successfully. {next}"),
    }
    .into();
    Ok(out)
}
