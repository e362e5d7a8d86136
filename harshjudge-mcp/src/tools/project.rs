//! `initProject`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

/// What `initProject` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectInitialized {
    /// Always true.
    pub success: bool,
    /// `.harshJudge/`, relative to the project.
    pub project_path: String,
    /// Its config.yaml.
    pub config_path: String,
    /// Its prd.md.
    pub prd_path: String,
    /// Its scenarios/ folder.
    pub scenarios_path: String,
    /// The dashboard's URL, when it was started with the project.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dashboard_url: Option<String>,
    /// What was done and what to do next.
    pub message: String,
}

crate::plain_output!(ProjectInitialized);

/// Creates `.harshJudge/` in the project folder.
pub fn init_project(ctx: &Context, a: InitProject) -> Result<ProjectInitialized, ToolError> {
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
        harshjudge_store::store::StoreError::AlreadyExists { .. } => ToolError::new(
            Code::AlreadyExists,
            format!(
                "Project already initialized: {} exists. Use it as it is, or remove the .harshJudge folder to start afresh.",
                ctx.rel(&store.config_path())
            ),
        ),
        other => other.into(),
    })?;
    // As the original: the dashboard starts with the project; failing to start
    // it does not fail the call.
    let next = "Fill in .harshJudge/prd.md, then create scenarios with createScenario.";
    let started = if ctx.dashboard_on_init {
        match crate::dashboard::Dashboard::new(ctx.root()).open(None, false) {
            Ok(d) => Some((d.url, d.pid)),
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
    let message = match &started {
        Some((url, pid)) => format!(
            "HarshJudge initialized successfully. Dashboard running at {url} (PID: {pid}). {next}"
        ),
        None if ctx.dashboard_on_init => format!(
            "HarshJudge initialized successfully. Dashboard could not be started automatically - use openDashboard tool to start it. {next}"
        ),
        None => format!("HarshJudge initialized successfully. {next}"),
    };
    Ok(ProjectInitialized {
        success: true,
        project_path: ctx.rel(store.dir()),
        config_path: ctx.rel(&store.config_path()),
        prd_path: ctx.rel(&store.prd_path()),
        scenarios_path: ctx.rel(&store.scenarios_dir()),
        dashboard_url: started.map(|(url, _)| url),
        message,
    })
}
