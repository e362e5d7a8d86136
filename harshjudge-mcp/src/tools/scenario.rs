//! `createScenario`, `toggleStar`, `getStatus`.

use harshjudge_store::store::{ScenarioSpec, Slug, StepDoc, StepRef, Store};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::Context;
use crate::error::ToolError;

/// One step of `createScenario`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StepInput {
    /// Step title (1 to 200 characters).
    pub title: String,
    /// What the step is about.
    #[serde(default)]
    pub description: String,
    /// What must hold before it.
    #[serde(default)]
    pub preconditions: String,
    /// What to do.
    pub actions: String,
    /// What must be seen afterwards.
    pub expected_outcome: String,
}

/// Arguments of `createScenario`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateScenario {
    /// Scenario id: lowercase letters, digits and hyphens, e.g. "user-login".
    #[schemars(regex(pattern = crate::tools::SLUG_PATTERN))]
    pub slug: String,
    /// Human-readable title (1 to 200 characters).
    pub title: String,
    /// The steps, in order (1 to 99).
    pub steps: Vec<StepInput>,
    /// Tags; kept as they are when omitted on an update.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Expected duration in seconds (default 60).
    #[serde(default)]
    pub estimated_duration: Option<f64>,
    /// Starred; kept as it is when omitted on an update.
    #[serde(default)]
    pub starred: Option<bool>,
}

pub(crate) fn slug(field: &str, s: &str) -> Result<Slug, ToolError> {
    Slug::new(s).map_err(|_| {
        ToolError::invalid(format!(
            "{field} {s:?} is not a valid scenario slug: use 1 to 100 lowercase letters, digits and hyphens, e.g. \"user-login\""
        ))
    })
}

/// The scenario's `meta.yaml`, or `NOT_FOUND` naming what is missing.
pub(crate) fn existing(
    store: &Store,
    slug: &Slug,
) -> Result<harshjudge_store::store::ScenarioMeta, ToolError> {
    if !store.scenario(slug).path().is_dir() {
        return Err(ToolError::not_found(format!(
            "Scenario \"{slug}\" does not exist. Create it with createScenario, or list scenarios with getStatus."
        )));
    }
    store.scenario(slug).meta()?.ok_or_else(|| {
        ToolError::not_found(format!(
            "Scenario \"{slug}\" has no meta.yaml. Recreate it with createScenario."
        ))
    })
}

/// What `createScenario` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioCreated {
    /// Always true.
    pub success: bool,
    /// The scenario's slug.
    pub slug: String,
    /// Its folder, relative to the project.
    pub scenario_path: String,
    /// Its meta.yaml.
    pub meta_path: String,
    /// Its steps/ folder.
    pub steps_path: String,
    /// One markdown file per step, in order.
    pub step_files: Vec<String>,
    /// Whether the scenario was created (false: updated).
    pub is_new: bool,
}

/// What `saveScenario` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioSaved {
    /// Always true.
    pub success: bool,
    /// The slug used (the given one, or `{slug}-2`, …).
    pub slug: String,
    /// Its scenario.md, relative to the project.
    pub scenario_path: String,
    /// Its meta.yaml.
    pub meta_path: String,
    /// Always true.
    pub is_new: bool,
    /// That the tool is deprecated (and unknown argument keys ignored).
    pub warnings: Vec<String>,
}

/// What `toggleStar` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StarToggled {
    /// Always true.
    pub success: bool,
    /// The scenario.
    pub slug: String,
    /// Its new value.
    pub starred: bool,
}

/// What `getStatus` returns: the project's status, or with `scenarioSlug`
/// one scenario's detail.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Status {
    /// Every scenario with its last result.
    Project(ProjectStatus),
    /// One scenario.
    Scenario(ScenarioDetail),
}

/// The project's status.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectStatus {
    /// From config.yaml.
    pub project_name: String,
    /// Scenarios listed.
    pub scenario_count: usize,
    /// Scenarios whose last run passed.
    pub passing: usize,
    /// Scenarios whose last run failed.
    pub failing: usize,
    /// Scenarios never run.
    pub never_run: usize,
    /// Each scenario.
    pub scenarios: Vec<ScenarioSummary>,
}

/// One scenario in [`ProjectStatus`].
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioSummary {
    /// Its slug.
    pub slug: String,
    /// Its title ("Untitled" when it has none).
    pub title: String,
    /// Starred.
    pub starred: bool,
    /// Tags.
    pub tags: Vec<String>,
    /// Steps declared.
    pub step_count: usize,
    /// pass or fail, of the last completed run.
    pub last_result: Option<String>,
    /// When the last run completed, ISO 8601.
    pub last_run: Option<String>,
    /// Completed runs.
    pub total_runs: u64,
    /// Percent of runs that passed, rounded.
    pub pass_rate: u64,
    /// Why its meta.yaml could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One scenario's detail.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioDetail {
    /// Its slug.
    pub slug: String,
    /// Its title.
    pub title: String,
    /// Starred.
    pub starred: bool,
    /// Tags.
    pub tags: Vec<String>,
    /// Steps declared.
    pub step_count: usize,
    /// The steps.
    pub steps: Vec<StepRef>,
    /// The markdown of a scenario saved by saveScenario ("" otherwise).
    pub content: String,
    /// meta.yaml as it is on disk (open: every key it holds), null when unreadable.
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub meta: Value,
    /// The 10 most recent runs, newest first.
    pub recent_runs: Vec<RecentRun>,
}

/// One run in [`ScenarioDetail`].
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecentRun {
    /// The run's id.
    pub id: String,
    /// Its number.
    pub run_number: Option<u64>,
    /// running, pass, fail, or corrupt (result.json unreadable).
    pub status: String,
    /// Milliseconds.
    pub duration: u64,
    /// ISO 8601.
    pub started_at: String,
    /// ISO 8601, once final.
    pub completed_at: Option<String>,
    /// The first failed step.
    pub failed_step: Option<String>,
    /// Its error (for a corrupt run: what is wrong).
    pub error_message: Option<String>,
    /// A corrupt run's result.json.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

crate::plain_output!(ScenarioCreated, ScenarioSaved, StarToggled, Status);

/// Creates or updates a scenario.
pub fn create_scenario(ctx: &Context, a: CreateScenario) -> Result<ScenarioCreated, ToolError> {
    let slug = slug("slug", &a.slug)?;
    super::check_len("title", &a.title, 1, 200)?;
    if a.steps.is_empty() || a.steps.len() > 99 {
        return Err(ToolError::invalid(format!(
            "steps must list 1 to 99 steps (got {})",
            a.steps.len()
        )));
    }
    for (i, s) in a.steps.iter().enumerate() {
        let n = i + 1;
        super::check_len(&format!("steps[{i}].title (step {n})"), &s.title, 1, 200)?;
        super::check_len(
            &format!("steps[{i}].actions (step {n})"),
            &s.actions,
            1,
            100_000,
        )?;
        super::check_len(
            &format!("steps[{i}].expectedOutcome (step {n})"),
            &s.expected_outcome,
            1,
            100_000,
        )?;
    }
    if let Some(d) = a.estimated_duration
        && !(d.is_finite() && d > 0.0)
    {
        return Err(ToolError::invalid(format!(
            "estimatedDuration must be a positive number of seconds (got {d})"
        )));
    }
    if let Some(tags) = &a.tags {
        for t in tags {
            super::check_len("each tag", t, 1, 100)?;
        }
    }
    let store = ctx.require_init()?;
    let is_new = !store.scenario(&slug).path().exists();
    let spec = ScenarioSpec {
        title: a.title.clone(),
        steps: a.steps.iter().map(|s| s.title.clone()).collect(),
        tags: a.tags,
        starred: a.starred,
        estimated_duration: a.estimated_duration,
    };
    let docs: Vec<StepDoc> = a
        .steps
        .into_iter()
        .map(|s| StepDoc {
            description: s.description,
            preconditions: s.preconditions,
            actions: s.actions,
            code: None,
            expected_outcome: s.expected_outcome,
        })
        .collect();
    let meta = store.scenario(&slug).upsert(&spec, &docs)?;
    let dir = ctx.rel(&store.scenario(&slug).path());
    Ok(ScenarioCreated {
        success: true,
        slug: slug.to_string(),
        scenario_path: dir,
        meta_path: ctx.rel(&store.scenario(&slug).meta_path()),
        steps_path: ctx.rel(&store.scenario(&slug).steps_dir()),
        step_files: meta
            .steps
            .iter()
            .map(|s| ctx.rel(&store.scenario(&slug).steps_dir().join(&s.file)))
            .collect(),
        is_new,
    })
}

/// Arguments of `saveScenario` (deprecated).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SaveScenario {
    /// Wanted slug: lowercase letters, digits and hyphens; `{slug}-2`, `-3`, …
    /// is used when it is taken.
    #[schemars(regex(pattern = crate::tools::SLUG_PATTERN))]
    pub slug: String,
    /// Human-readable title (1 to 200 characters).
    pub title: String,
    /// The scenario as markdown (its steps, in prose).
    pub content: String,
    /// Tags.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Expected duration in seconds (default 60).
    #[serde(default)]
    pub estimated_duration: Option<f64>,
}

/// The original's deprecated single-file scenario: `scenario.md` (front matter
/// and the markdown) and a `meta.yaml` without steps, under a new slug — the
/// given one, or `{slug}-2`, `{slug}-3`, … when it is taken.
pub fn save_scenario(ctx: &Context, a: SaveScenario) -> Result<ScenarioSaved, ToolError> {
    let wanted = slug("slug", &a.slug)?;
    super::check_len("title", &a.title, 1, 200)?;
    if a.content.is_empty() {
        return Err(ToolError::invalid("content must not be empty"));
    }
    let tags = a.tags.unwrap_or_default();
    for t in &tags {
        super::check_len("each tag", t, 1, 100)?;
    }
    let estimated = a.estimated_duration.unwrap_or(60.0);
    if !(estimated.is_finite() && estimated > 0.0) {
        return Err(ToolError::invalid(format!(
            "estimatedDuration must be a positive number of seconds (got {estimated})"
        )));
    }
    let store = ctx.require_init()?;
    tracing::warn!("saveScenario is deprecated: use createScenario");
    // The first free slug, claimed by creating its folder (never an existing one).
    let mut chosen = None;
    for n in 1..=1000u32 {
        let candidate = if n == 1 {
            wanted.clone()
        } else {
            match Slug::new(format!("{wanted}-{n}")) {
                Ok(s) => s,
                Err(_) => break,
            }
        };
        store.confine(&store.scenario(&candidate).path())?;
        match std::fs::create_dir(store.scenario(&candidate).path()) {
            Ok(()) => {
                chosen = Some(candidate);
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(ToolError::new(
                    crate::error::Code::Internal,
                    format!("{}: {e}", ctx.rel(&store.scenario(&candidate).path())),
                ));
            }
        }
    }
    let slug = chosen.ok_or_else(|| {
        ToolError::new(
            crate::error::Code::AlreadyExists,
            format!("Could not find unique slug for \"{wanted}\" after 1000 attempts"),
        )
    })?;
    let spec = ScenarioSpec {
        title: a.title.clone(),
        steps: vec![],
        tags: Some(tags.clone()),
        starred: Some(false),
        estimated_duration: Some(estimated),
    };
    store.scenario(&slug).upsert(&spec, &[])?;
    let quoted_tags: Vec<String> = tags
        .iter()
        .map(|t| harshjudge_store::store::to_yaml(t).trim_end().to_string())
        .collect();
    let md = format!(
        "---\nid: {slug}\ntitle: {}\ntags: [{}]\nestimatedDuration: {}\n---\n\n{}",
        harshjudge_store::store::to_yaml(&a.title).trim_end(),
        quoted_tags.join(", "),
        // As JavaScript prints numbers: 60, not 60.0.
        if estimated.fract() == 0.0 && estimated < 1e15 {
            format!("{}", estimated as u64)
        } else {
            format!("{estimated}")
        },
        a.content
    );
    let md_path = store.scenario(&slug).v1_scenario_md();
    store.write_file(&md_path, md.as_bytes())?;
    Ok(ScenarioSaved {
        success: true,
        slug: slug.to_string(),
        scenario_path: ctx.rel(&md_path),
        meta_path: ctx.rel(&store.scenario(&slug).meta_path()),
        is_new: true,
        warnings: vec![
            "saveScenario is deprecated: use createScenario, which writes one file per step".into(),
        ],
    })
}

/// The markdown of a scenario saved by the deprecated `saveScenario` (the body
/// of its `scenario.md`, front matter removed), or "".
fn scenario_md(store: &Store, slug: &Slug) -> String {
    let Ok(text) = store.read_to_string(&store.scenario(slug).v1_scenario_md()) else {
        return String::new();
    };
    text.strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map_or(text.as_str(), |(_, body)| body)
        .trim_start_matches('\n')
        .to_string()
}

/// Arguments of `toggleStar`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToggleStar {
    /// The scenario's slug.
    pub scenario_slug: Slug,
    /// The new value; omitted: toggle.
    #[serde(default)]
    pub starred: Option<bool>,
}

/// Stars, unstars or toggles.
pub fn toggle_star(ctx: &Context, a: ToggleStar) -> Result<StarToggled, ToolError> {
    let slug = a.scenario_slug;
    let store = ctx.require_init()?;
    existing(store, &slug)?;
    let (starred, _) = store.scenario(&slug).update_meta(|doc, old| {
        let v = a.starred.unwrap_or(!old.starred);
        doc.set("starred", v);
        v
    })?;
    Ok(StarToggled {
        success: true,
        slug: slug.to_string(),
        starred,
    })
}

/// Arguments of `getStatus`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetStatus {
    /// One scenario's detail instead of the project's status.
    #[serde(default)]
    pub scenario_slug: Option<Slug>,
    /// Only starred scenarios (project status).
    #[serde(default)]
    pub starred_only: bool,
}

/// The project's status, or one scenario's detail.
pub fn get_status(ctx: &Context, a: GetStatus) -> Result<Status, ToolError> {
    let store = ctx.require_init()?;
    Ok(match a.scenario_slug {
        Some(s) => Status::Scenario(scenario_detail(store, &s)?),
        None => Status::Project(project_status(store, a.starred_only)?),
    })
}

fn project_status(store: &Store, starred_only: bool) -> Result<ProjectStatus, ToolError> {
    let config = store.read_config()?;
    let mut scenarios = vec![];
    let (mut passing, mut failing, mut never) = (0, 0, 0);
    for slug in store.list_scenarios()? {
        let (meta, error) = match store.scenario(&slug).meta() {
            Ok(m) => (m, None),
            Err(e) => (None, Some(e.to_string())),
        };
        let meta_ok = meta.is_some();
        let m = meta.unwrap_or_default();
        if starred_only && !m.starred {
            continue;
        }
        if m.total_runs == 0 {
            never += 1;
        } else if m.last_result.as_deref() == Some("pass") {
            passing += 1;
        } else {
            failing += 1;
        }
        let pass_rate = if m.total_runs > 0 {
            ((m.pass_count as f64 / m.total_runs as f64) * 100.0 + 0.5).floor() as u64
        } else {
            0
        };
        scenarios.push(ScenarioSummary {
            slug: slug.to_string(),
            title: if m.title.is_empty() {
                "Untitled".to_string()
            } else {
                m.title.clone()
            },
            starred: m.starred,
            step_count: m.steps.len(),
            tags: m.tags,
            last_result: m.last_result,
            last_run: m.last_run,
            total_runs: m.total_runs,
            pass_rate,
            error: error.or_else(|| (!meta_ok).then(|| "no meta.yaml".to_string())),
        });
    }
    Ok(ProjectStatus {
        project_name: config.project_name,
        scenario_count: scenarios.len(),
        passing,
        failing,
        never_run: never,
        scenarios,
    })
}

fn scenario_detail(store: &Store, slug: &Slug) -> Result<ScenarioDetail, ToolError> {
    let meta = existing(store, slug)?;
    let raw = store.scenario(slug).meta_json().unwrap_or(Value::Null);
    let mut runs = vec![];
    for run in store.scenario(slug).runs()? {
        // A result.json that cannot be read shows as `corrupt`, naming the
        // file and what is wrong, never as a run still in progress.
        let (result, corrupt) = match store.scenario(slug).run(&run).result() {
            Ok(r) => (r, None),
            Err(e) => (None, Some(e.to_string())),
        };
        let state = store.scenario(slug).run(&run).skill_state().ok().flatten();
        let started_at = result
            .as_ref()
            .map(|r| r.started_at.clone())
            .filter(|s| !s.is_empty())
            .or_else(|| state.as_ref().map(|s| s.started_at.clone()))
            .unwrap_or_default();
        let mut entry = RecentRun {
            id: run.to_string(),
            run_number: result.as_ref().and_then(|r| r.run_number),
            status: result
                .as_ref()
                .map_or("running", |r| r.status.as_str())
                .to_string(),
            duration: result.as_ref().map_or(0, |r| r.duration),
            started_at: started_at.clone(),
            completed_at: result.as_ref().and_then(|r| r.completed_at.clone()),
            failed_step: result.as_ref().and_then(|r| r.failed_step.clone()),
            error_message: result.as_ref().and_then(|r| r.error_message.clone()),
            path: None,
        };
        if let Some(e) = corrupt {
            entry.status = "corrupt".into();
            entry.path = Some(
                store
                    .scenario(slug)
                    .run(&run)
                    .result_path()
                    .display()
                    .to_string(),
            );
            entry.error_message = Some(e);
        }
        runs.push((started_at, run.to_string(), entry));
    }
    runs.sort_by(|a, b| (&b.0, &b.1).cmp(&(&a.0, &a.1)));
    let recent_runs: Vec<RecentRun> = runs.into_iter().take(10).map(|r| r.2).collect();
    Ok(ScenarioDetail {
        slug: slug.to_string(),
        title: meta.title,
        starred: meta.starred,
        tags: meta.tags,
        step_count: meta.steps.len(),
        steps: meta.steps,
        content: scenario_md(store, slug),
        meta: raw,
        recent_runs,
    })
}
