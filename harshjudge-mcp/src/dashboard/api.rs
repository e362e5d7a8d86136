//! The original dashboard's JSON API (its routes and shapes), answered from
//! the store on every request, for this one project only. Its bugs are fixed:
//! a scenario or run that does not exist is a 404 (not `null`), `runNumber` is
//! the number stored in `result.json` when there is one, ids are validated.

use std::path::Path;

use harshjudge_store::store::{RunId, ScenarioMeta, Slug, Store, StoreError};
use serde_json::{Value, json};

/// An answer that is not 200: the HTTP status and `{"error": message}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: u16,
    /// What was wrong.
    pub message: String,
}

impl ApiError {
    /// An error with `status`.
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        let status = match &e {
            StoreError::InvalidId { .. } => 400,
            StoreError::NotFound { .. } => 404,
            _ => 500,
        };
        ApiError::new(status, e.to_string())
    }
}

/// At most this many runs in `…/runs`.
pub const MAX_RUNS: usize = 100;
/// At most this many runs in a scenario's `recentRuns`.
pub const RECENT_RUNS: usize = 10;

/// Whether the `{p}` segment of a route names this project (its absolute root,
/// URL-decoded): the dashboard serves nothing else.
pub fn check_project(root: &Path, p: &str) -> Result<(), ApiError> {
    let same = Path::new(p) == root
        || std::fs::canonicalize(p).is_ok_and(|c| c == root)
        || Path::new(p)
            .strip_prefix(root)
            .is_ok_and(|rest| rest.as_os_str().is_empty());
    if same {
        Ok(())
    } else {
        Err(ApiError::new(
            403,
            format!(
                "Access denied: this dashboard serves only the project {}",
                root.display()
            ),
        ))
    }
}

/// `GET /api/projects`: `[{path, name, scenarioCount, overallStatus}]`, or `[]`
/// when the project is not initialized.
pub fn projects(root: &Path, store: &Store) -> Value {
    let Ok(config) = store.read_config() else {
        return json!([]);
    };
    let metas: Vec<Option<ScenarioMeta>> = store
        .list_scenarios()
        .unwrap_or_default()
        .iter()
        .map(|s| store.scenario(s).meta().ok().flatten())
        .collect();
    let result = |r: &str| {
        metas
            .iter()
            .flatten()
            .any(|m| m.last_result.as_deref() == Some(r))
    };
    let overall = if metas.is_empty() {
        "never_run"
    } else if result("fail") {
        "fail"
    } else if result("pass") {
        "pass"
    } else {
        "never_run"
    };
    json!([{
        "path": root.to_string_lossy(),
        "name": config.project_name,
        "scenarioCount": metas.len(),
        "overallStatus": overall,
    }])
}

fn slug(s: &str) -> Result<Slug, ApiError> {
    Slug::new(s).map_err(ApiError::from)
}

fn run_id(s: &str) -> Result<RunId, ApiError> {
    RunId::new(s).map_err(ApiError::from)
}

/// Title and tags from the front matter of a v1 `scenario.md`.
fn v1_front_matter(text: &str) -> (Option<String>, Vec<String>) {
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some("---") {
        return (None, vec![]);
    }
    let front: Vec<&str> = lines.take_while(|l| l.trim() != "---").collect();
    let v: harshjudge_store::store::yaml::Value =
        harshjudge_store::store::yaml::from_str(&front.join("\n"))
            .unwrap_or(harshjudge_store::store::yaml::Value::Null);
    let title = v.get("title").and_then(|t| t.as_str()).map(str::to_string);
    let tags = v
        .get("tags")
        .and_then(|t| t.as_array())
        .map(|s| {
            s.iter()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    (title, tags)
}

fn scenario_md(store: &Store, slug: &Slug) -> Option<String> {
    store
        .read_to_string(&store.scenario(slug).v1_scenario_md())
        .ok()
}

/// `GET /api/projects/{p}/scenarios`: `ScenarioSummary[]`, the most recently
/// run first, never-run last. A scenario whose `meta.yaml` cannot be read is
/// listed with an `error`.
pub fn scenarios(store: &Store) -> Result<Value, ApiError> {
    let mut out: Vec<(Option<String>, String, Value)> = vec![];
    for slug in store.list_scenarios()? {
        let (meta, error) = match store.scenario(&slug).meta() {
            Ok(Some(m)) => (m, None),
            Ok(None) => {
                let Some(text) = scenario_md(store, &slug) else {
                    continue;
                };
                let (title, tags) = v1_front_matter(&text);
                let m = ScenarioMeta {
                    title: title.unwrap_or_default(),
                    tags,
                    ..Default::default()
                };
                (m, None)
            }
            Err(e) => (ScenarioMeta::default(), Some(e.to_string())),
        };
        let pass_rate = if meta.total_runs > 0 {
            meta.pass_count as f64 / meta.total_runs as f64 * 100.0
        } else {
            0.0
        };
        let mut v = json!({
            "slug": slug.as_str(),
            "title": if meta.title.is_empty() { slug.to_string() } else { meta.title.clone() },
            "starred": meta.starred,
            "tags": meta.tags,
            "stepCount": meta.steps.len(),
            "lastResult": meta.last_result,
            "lastRun": meta.last_run,
            "totalRuns": meta.total_runs,
            "passRate": pass_rate,
        });
        if let Some(e) = error {
            v["error"] = e.into();
        }
        out.push((meta.last_run.clone(), slug.to_string(), v));
    }
    // lastRun descending (never-run, None, last), then slug.
    out.sort_by(|a, b| (&b.0, &a.1).cmp(&(&a.0, &b.1)));
    Ok(Value::Array(out.into_iter().map(|(_, _, v)| v).collect()))
}

/// `RunSummary[]` of a scenario, newest first (runs with a `result.json` only).
fn run_summaries(store: &Store, slug: &Slug, limit: usize) -> Result<Vec<Value>, ApiError> {
    let mut runs = vec![];
    let mut position = 0u64;
    for run in store.scenario(slug).runs()? {
        let Ok(Some(r)) = store.scenario(slug).run(&run).result() else {
            continue;
        };
        position += 1;
        let key = if r.started_at.is_empty() {
            r.completed_at.clone().unwrap_or_default()
        } else {
            r.started_at.clone()
        };
        let mut v = json!({
            "id": run.as_str(),
            "runNumber": r.run_number.unwrap_or(position),
            "status": r.status.as_str(),
            "duration": r.duration,
            "startedAt": r.started_at,
        });
        if let Some(c) = &r.completed_at {
            v["completedAt"] = c.clone().into();
        }
        v["errorMessage"] = r.error_message.clone().into();
        v["failedStep"] = r.failed_step.clone().into();
        if let Some(e) = r.executed_status {
            // The code's own outcome, when verdicts take part in `status` (issue 15).
            v["executedStatus"] = e.as_str().into();
        }
        runs.push((key, run.to_string(), v));
    }
    runs.sort_by(|a, b| (&b.0, &b.1).cmp(&(&a.0, &a.1)));
    Ok(runs.into_iter().take(limit).map(|(_, _, v)| v).collect())
}

fn existing_scenario(store: &Store, s: &str) -> Result<Slug, ApiError> {
    let slug = slug(s)?;
    if !store.scenario(&slug).path().is_dir() {
        return Err(ApiError::new(404, format!("Scenario not found: {slug}")));
    }
    Ok(slug)
}

/// `GET /api/projects/{p}/scenarios/{slug}`: `{slug, title, starred, tags,
/// stepCount, steps, content, meta, recentRuns}`.
pub fn scenario(store: &Store, s: &str) -> Result<Value, ApiError> {
    let slug = existing_scenario(store, s)?;
    let content = scenario_md(store, &slug).unwrap_or_default();
    let meta = match store.scenario(&slug).meta()? {
        Some(m) => m,
        None => {
            let (title, tags) = v1_front_matter(&content);
            ScenarioMeta {
                title: title.unwrap_or_default(),
                tags,
                ..Default::default()
            }
        }
    };
    let raw = store.scenario(&slug).meta_json().unwrap_or_else(
        || json!({"totalRuns": 0, "passCount": 0, "failCount": 0, "avgDuration": 0}),
    );
    let steps: Vec<Value> = meta
        .steps
        .iter()
        .map(|s| json!({"id": s.id, "title": s.title}))
        .collect();
    Ok(json!({
        "slug": slug.as_str(),
        "title": if meta.title.is_empty() { slug.to_string() } else { meta.title.clone() },
        "starred": meta.starred,
        "tags": meta.tags,
        "stepCount": meta.steps.len(),
        "steps": steps,
        "content": content,
        "meta": raw,
        "recentRuns": run_summaries(store, &slug, RECENT_RUNS)?,
    }))
}

/// `GET /api/projects/{p}/scenarios/{slug}/runs`: up to 100 `RunSummary`,
/// newest first: `{id, runNumber, status, duration, startedAt, completedAt?,
/// errorMessage, failedStep, executedStatus?}` (`executedStatus`: the code's
/// own outcome when verdicts take part in `status`).
pub fn runs(store: &Store, s: &str) -> Result<Value, ApiError> {
    let slug = existing_scenario(store, s)?;
    Ok(Value::Array(run_summaries(store, &slug, MAX_RUNS)?))
}

/// `GET /api/projects/{p}/scenarios/{slug}/runs/{runId}`: `{runId,
/// scenarioSlug, result (result.json as stored, or null), evidencePaths,
/// judgment}`: `judgment` is `judge/result.json` (per step: verdict, judge,
/// reasoning, expectation), or null when the run was never judged.
pub fn run(store: &Store, s: &str, r: &str) -> Result<Value, ApiError> {
    let slug = existing_scenario(store, s)?;
    let run = run_id(r)?;
    if !store
        .metadata(&store.scenario(&slug).run(&run).path())
        .is_ok_and(|m| m.is_dir())
    {
        return Err(ApiError::new(
            404,
            format!("Run not found: {run} in scenario {slug}"),
        ));
    }
    let result = store
        .scenario(&slug)
        .run(&run)
        .result_json()
        .unwrap_or(Value::Null);
    // Every evidence file (absolute): those of the step folders, or of the v1
    // flat `evidence/` folder when the run has no step folders.
    let paths: Vec<String> = store
        .scenario(&slug)
        .run(&run)
        .evidence()?
        .step_files_or_flat()
        .map(|f| f.path.to_string_lossy().into_owned())
        .collect();
    let judgment = store
        .scenario(&slug)
        .run(&run)
        .judgment()?
        .map(|j| serde_json::to_value(j).unwrap_or(Value::Null))
        .unwrap_or(Value::Null);
    Ok(json!({
        "runId": run.as_str(),
        "scenarioSlug": slug.as_str(),
        "result": result,
        "evidencePaths": paths,
        "judgment": judgment,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use harshjudge_store::judge::Verdict;
    use harshjudge_store::store::judge::StepJudgment;

    /// Issue 15: a judged run's summary carries the code's own status, and the
    /// run's detail its judgment (verdict, judge, reasoning per step).
    #[test]
    fn runs_carry_their_executed_status_and_judgment() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().join(".harshJudge"));
        store.init_project("p", "http://127.0.0.1").unwrap();
        let slug = Slug::new("checkout").unwrap();
        let run = RunId::new("r1").unwrap();
        let result: harshjudge_store::store::RunResult = serde_json::from_value(json!({
            "runId": "r1", "scenarioSlug": "checkout", "status": "pass",
            "startedAt": "2026-11-23T00:00:00.000Z", "completedAt": "2026-11-23T00:00:01.000Z",
            "duration": 1000, "failedStep": null, "errorMessage": null,
            "steps": [{"id": "01", "status": "pass", "duration": 5, "error": null,
                       "evidenceFiles": [], "summary": null, "expectation": "a receipt"}],
        }))
        .unwrap();
        std::fs::create_dir_all(store.scenario(&slug).run(&run).path()).unwrap();
        store
            .scenario(&slug)
            .run(&run)
            .write_result(&result)
            .unwrap();
        let one = super::run(&store, "checkout", "r1").unwrap();
        assert_eq!(one["judgment"], Value::Null, "never judged");
        store
            .scenario(&slug)
            .run(&run)
            .record_judgment(
                StepJudgment {
                    step_id: "01".into(),
                    expectation: "a receipt".into(),
                    verdict: Some(Verdict::Fail),
                    reasoning: "an error page".into(),
                    judge: "command".into(),
                    identity: "command:./judge.sh".into(),
                    inputs_hash: "sha256:00".into(),
                    duration_ms: 3,
                    attempts: 1,
                    judged_at: "2026-11-23T00:00:02.000Z".into(),
                    error: None,
                    answer: harshjudge_store::store::judge::AnswerInfo::default(),
                },
                None,
                None,
            )
            .unwrap();
        store
            .scenario(&slug)
            .run(&run)
            .apply_judgment(|r, j| harshjudge_store::judge::combine_verdicts(r, j, false))
            .unwrap();
        let list = runs(&store, "checkout").unwrap();
        assert_eq!(list[0]["status"], "fail");
        assert_eq!(list[0]["executedStatus"], "pass");
        let one = super::run(&store, "checkout", "r1").unwrap();
        assert_eq!(one["result"]["steps"][0]["verdict"], "fail");
        let step = &one["judgment"]["steps"][0];
        assert_eq!(step["verdict"], "fail");
        assert_eq!(step["reasoning"], "an error page");
        assert_eq!(step["judge"], "command");
        assert_eq!(step["expectation"], "a receipt");
    }
}
