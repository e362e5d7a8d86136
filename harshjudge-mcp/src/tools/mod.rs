//! The tools, grouped by domain. Each is a few lines on top of
//! [`crate::dispatch`] and of `harshjudge`'s store and run lifecycle.

pub mod dashboard;
pub mod discover;
pub mod project;
pub mod run;
pub mod scenario;

use crate::dispatch::ToolDef;
use crate::error::ToolError;
use crate::tool;

/// Every tool, in the order `tools/list` gives them.
pub fn all() -> Vec<ToolDef> {
    vec![
        tool!(
            "initProject",
            project::InitProject,
            project::init_project,
            "Initialize a HarshJudge project in the server's working folder: .harshJudge/ with config.yaml, prd.md (fill it in), .gitignore and scenarios/."
        ),
        tool!(
            "createScenario",
            scenario::CreateScenario,
            scenario::create_scenario,
            "Create or update a scenario: meta.yaml and one markdown file per step. Updating keeps statistics, and keeps starred and tags unless given; step files no longer listed are removed."
        ),
        tool!(
            "toggleStar",
            scenario::ToggleStar,
            scenario::toggle_star,
            "Star or unstar a scenario. Without `starred` the current value is toggled."
        ),
        tool!(
            "startRun",
            run::StartRun,
            run::start_run,
            "Start a run of a scenario. Returns the runId, its number, and the steps to execute in order (ids \"01\", \"02\", …). The run shows as running at once."
        ),
        tool!(
            "recordEvidence",
            run::RecordEvidence,
            run::record_evidence,
            "Record one piece of evidence for a step of a running run. `data` is an absolute path to a file (copied; screenshots must be PNG or JPEG) or the content itself (a screenshot may be base64 PNG). Types: screenshot, db_snapshot, console_log, network_log, html_snapshot, custom, api_response, api_headers, stdout, stderr, exit_code."
        ),
        tool!(
            "completeStep",
            run::CompleteStep,
            run::complete_step,
            "Record a step's result (pass, fail or skipped) with its duration; lists the step's evidence. Returns nextStepId (null after a failure or the last step)."
        ),
        tool!(
            "completeRun",
            run::CompleteRun,
            run::complete_run,
            "Finish a run. The status, failedStep and errorMessage are derived from the steps (a contradicting `status` gives a warning); updates the scenario's statistics. A run can be completed once."
        ),
        tool!(
            "getStatus",
            scenario::GetStatus,
            scenario::get_status,
            "Project status (every scenario with its last result and pass rate), or with scenarioSlug one scenario's detail: steps, meta and the 10 most recent runs."
        ),
        tool!(
            "getRunState",
            run::GetRunState,
            run::get_run_state,
            "Where a run stands, to resume it after an interruption: steps completed with their status, the next step to run, the last action and the error."
        ),
        tool!(
            "discoverTree",
            discover::DiscoverTree,
            discover::discover_tree,
            "The .harshJudge/ folder (or a sub-folder of it) as a tree, with key facts of meta.yaml, config.yaml and result.json files."
        ),
        tool!(
            "discoverSearch",
            discover::DiscoverSearch,
            discover::discover_search,
            "Case-insensitive search of the .yaml, .yml, .json and .md files under .harshJudge/ (or a sub-folder of it): one match per line."
        ),
        tool!(
            "openDashboard",
            dashboard::OpenDashboard,
            dashboard::open_dashboard,
            "Start the live dashboard of the project (the HTML report, refreshed as runs change, plus a JSON API) on http://127.0.0.1:{port} (default 7002, or the next free port up to 9 higher) as a background process, and open it in a browser unless openBrowser is false. If it already runs, returns it with alreadyRunning: true."
        ),
        tool!(
            "closeDashboard",
            dashboard::DashboardProject,
            dashboard::close_dashboard,
            "Stop the project's dashboard (SIGTERM, then SIGKILL) and remove .harshJudge/.dashboard-state.json; a stale state file is cleaned up."
        ),
        tool!(
            "getDashboardStatus",
            dashboard::DashboardProject,
            dashboard::get_dashboard_status,
            "Whether the project's dashboard runs (its process lives and answers on its port), with its url, port, pid and start time; stale: true when a state file has no dashboard behind it."
        ),
    ]
}

/// Checks a string's length in characters.
pub(crate) fn check_len(field: &str, value: &str, min: usize, max: usize) -> Result<(), ToolError> {
    let n = value.chars().count();
    if n < min || n > max {
        return Err(ToolError::invalid(if min > 0 && n == 0 {
            format!("{field} must not be empty")
        } else {
            format!("{field} must be {min} to {max} characters (got {n})")
        }));
    }
    Ok(())
}
