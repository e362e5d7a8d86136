//! The tools, grouped by domain. Each is a few lines on top of
//! [`crate::dispatch`] and of `harshjudge`'s store and run lifecycle.

pub mod batch;
pub mod browser;
pub mod dashboard;
pub mod discover;
pub mod export;
pub mod judge;
pub mod knowledge;
pub mod lean;
pub mod output;
pub mod project;
pub mod record;
pub mod run;
pub mod scenario;
pub mod trace;

use crate::dispatch::ToolDef;

/// A scenario slug, as `tools/list` declares it (the store's rule).
pub const SLUG_PATTERN: &str = harshjudge_store::store::Slug::PATTERN;
/// A step id: two digits, "01" to "99".
pub const STEP_ID_PATTERN: &str = harshjudge_store::store::StepId::PATTERN;
/// A run id (and a sequence id): 1 to 64 letters, digits, '_' or '-'.
pub const RUN_ID_PATTERN: &str = harshjudge_store::store::RunId::PATTERN;
/// An evidence name: 1 to 100 letters, digits, '.', '_' or '-', not starting with '.'.
pub const EVIDENCE_NAME_PATTERN: &str = "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$";
use crate::error::ToolError;
use crate::tool;

/// Every tool, in the order `tools/list` gives them.
pub fn all() -> Vec<ToolDef> {
    let mut all = project_tools();
    all.extend(browser_tools());
    all.extend(agent_tools());
    all
}

/// The original's tools: project, scenarios, runs, discovery, dashboard.
fn project_tools() -> Vec<ToolDef> {
    vec![
        tool!(
            Project,
            "initProject",
            project::InitProject,
            project::init_project,
            "Initialize a HarshJudge project in the server's working folder: .harshJudge/ with config.yaml, prd.md (fill it in), .gitignore and scenarios/."
        ),
        tool!(
            Project,
            "createScenario",
            scenario::CreateScenario,
            scenario::create_scenario,
            "Create or update a scenario: meta.yaml and one markdown file per step. Updating keeps statistics, and keeps starred and tags unless given; step files no longer listed are removed."
        ),
        tool!(
            Project,
            "saveScenario",
            scenario::SaveScenario,
            scenario::save_scenario,
            "Deprecated (kept for agents written for the original): save a scenario as one markdown file, scenario.md, with a meta.yaml without steps. A taken slug gives {slug}-2, -3, …. Use createScenario instead."
        ),
        tool!(
            Project,
            "toggleStar",
            scenario::ToggleStar,
            scenario::toggle_star,
            "Star or unstar a scenario. Without `starred` the current value is toggled."
        ),
        tool!(
            Project,
            "startRun",
            run::StartRun => run::RunStarted,
            run::start_run,
            "Start a run of a scenario. Returns the runId, its number, and the steps to execute in order (ids \"01\", \"02\", …). The run shows as running at once."
        ),
        tool!(
            Project,
            "recordEvidence",
            run::RecordEvidence,
            run::record_evidence,
            "Record one piece of evidence for a step of a running run. `data` is the content itself (text types are never read as a path, even when they look like one); for a screenshot, an absolute path to a PNG or JPEG file (copied) or base64 PNG; source: \"file\" copies any type from an absolute path. Types: screenshot, db_snapshot, console_log, network_log, html_snapshot, custom, api_response, api_headers, stdout, stderr, exit_code."
        ),
        tool!(
            Project,
            "completeStep",
            run::CompleteStep,
            run::complete_step,
            "Record a step's result (pass, fail or skipped) with its duration; lists the step's evidence. Returns nextStepId (null after a failure or the last step)."
        ),
        tool!(
            Project,
            "completeRun",
            run::CompleteRun => run::RunCompleted,
            run::complete_run,
            "Finish a run. The status, failedStep and errorMessage are derived from the steps (a contradicting `status` gives a warning); updates the scenario's statistics. A run can be completed once."
        ),
        tool!(
            Project,
            "getStatus",
            scenario::GetStatus,
            scenario::get_status,
            "Project status (every scenario with its last result and pass rate), or with scenarioSlug one scenario's detail: steps, meta and the 10 most recent runs."
        ),
        tool!(
            Project,
            "getRunState",
            run::GetRunState,
            run::get_run_state,
            "Where a run stands, to resume it after an interruption: steps completed with their status, the next step to run, the last action and the error."
        ),
        tool!(
            Project,
            "getStepTrace",
            trace::GetStepTrace,
            trace::get_step_trace,
            "What happened inside a step of a run (cargo test's step-NN/evidence/trace.json): one line per action, assertion, read and navigation — #n, start offset, duration, the call as written, ok or FAILED with the failure, failed requests and console errors, file:line, request and console counts. runId, or scenarioSlug for its newest run; step: its number. A step without a trace is NOT_FOUND saying why (e.g. it passed under retain-on-failure). With action (an entry's #n) and moment (before|after|at; default after, else the one it has): that entry's page at that moment as an ARIA snapshot (YAML), rebuilt from the step's trace-dom.json."
        ),
        tool!(
            Project,
            "getPendingJudgments",
            judge::GetPendingJudgments => judge::PendingJudgments,
            judge::get_pending_judgments,
            "Steps that wait for your verdict as the judge: a step with an expectation in words (result.json's, or for runs recorded through MCP the scenario's Expected Outcome) and no verdict yet, in completed runs, newest first (limit default 20, at most 100; leftOut counts the rest). Each has the expectation, the code's outcome, its evidence files (absolute paths: open the screenshots and logs) and the inputsHash the verdict is recorded against. Then call recordVerdict."
        ),
        tool!(
            Project,
            "recordVerdict",
            judge::RecordVerdict => judge::VerdictRecorded,
            judge::record_verdict,
            "Record your verdict on a step as the judge: pass (the evidence shows what the expectation says), fail (it contradicts it) or uncertain (it does not tell; fails the step unless HARSHJUDGE_UNCERTAIN=pass), with your reasoning. Kept in the run's judge/result.json; a completed run's status and its scenario's pass/fail counts follow at once (a failing verdict fails the step even though its code passed); a running run's at completeRun. Recording again replaces the verdict."
        ),
        tool!(Project, "heal", judge::HealArgs => crate::heal::Heal, judge::heal, "Propose a fix for a scenario whose latest failed run broke on a locator that matched nothing or too many: a replacement from that step's recorded aria.yml/page.html, as a unified diff of the scenario's Rust source. Never changes an assertion, an expectation or a verdict (those failures are 'not a locator failure: not healed'). apply: true writes it and records runs/{id}/heal.json."),
        tool!(
            Project,
            "pruneRuns",
            run::PruneRuns,
            run::prune_runs,
            "Retention: remove the oldest runs of each scenario (or of scenarioSlug) beyond the newest `keep` (default HARSHJUDGE_KEEP_RUNS, else 20). A running run and the newest failed run are never removed; the statistics in meta.yaml do not change."
        ),
        tool!(
            Project,
            "discoverTree",
            discover::DiscoverTree,
            discover::discover_tree,
            "The .harshJudge/ folder (or a sub-folder of it) as a tree, with key facts of meta.yaml, config.yaml and result.json files."
        ),
        tool!(
            Project,
            "discoverSearch",
            discover::DiscoverSearch,
            discover::discover_search,
            "Case-insensitive search of the .yaml, .yml, .json and .md files under .harshJudge/ (or a sub-folder of it): one match per line."
        ),
        tool!(
            Project,
            "openDashboard",
            dashboard::OpenDashboard,
            dashboard::open_dashboard,
            "Start the live dashboard of the project (the HTML report, refreshed as runs change, plus a JSON API) on http://127.0.0.1:{port} (default 7002, or the next free port up to 9 higher) as a background process, and open it in a browser unless openBrowser is false. If it already runs, returns it with alreadyRunning: true."
        ),
        tool!(
            Project,
            "closeDashboard",
            dashboard::DashboardProject,
            dashboard::close_dashboard,
            "Stop the project's dashboard (SIGTERM, then SIGKILL) and remove .harshJudge/.dashboard-state.json; a stale state file is cleaned up."
        ),
        tool!(
            Project,
            "getDashboardStatus",
            dashboard::DashboardProject,
            dashboard::get_dashboard_status,
            "Whether the project's dashboard runs (its process lives and answers on its port), with its url, port, pid and start time; stale: true when a state file has no dashboard behind it."
        ),
    ]
}

/// The browser tools.
fn browser_tools() -> Vec<ToolDef> {
    vec![
        tool!(
            Browser,
            "browser_launch",
            browser::Launch,
            browser::launch,
            "Open headless Chromium for the app at baseUrl (default: baseUrl of config.yaml). Needed before any other browser_* tool. Emulate a device, place and time with Playwright's option names: device (\"iPhone 15\", \"Pixel 7\", …), locale, timezoneId, geolocation + permissions, colorScheme, reducedMotion, offline, userAgent, extraHTTPHeaders, httpCredentials (never recorded), javaScriptEnabled. While a run is active (startRun … completeRun), every browser action records before/after screenshots, console and network into the current step by itself."
        ),
        tool!(
            Browser,
            "browser_navigate",
            browser::Navigate,
            browser::navigate,
            "Open a URL: a path joined to the base URL (/login) or an absolute URL; opens headless Chromium first when none is open (browser_launch for options). Returns the final url and title."
        ),
        tool!(
            Browser,
            "browser_click",
            browser::Target,
            browser::click,
            "Click an element once visible, stable, enabled and hit. Target: one of role (+ name, exact), label, placeholder, text, altText, title, testId, selector (CSS), ref (from browser_snapshot); nth picks one of several matches (else STRICT_MODE names them). Returns the locator a person would write for it."
        ),
        tool!(
            Browser,
            "browser_type",
            browser::Type,
            browser::type_text,
            "Type text into a field (its value replaced); submit: true presses Enter after. Target as browser_click's, without text."
        ),
        tool!(
            Browser,
            "browser_press",
            browser::Press,
            browser::press,
            "Press a key or chord (Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp/Down/Left/Right, Home, End, one character, Control+a, Shift+Tab) in an element or the page. Target: one of role (+ name, exact), label, placeholder, text, altText, title, testId, selector (CSS), ref (from browser_snapshot); nth picks one of several matches."
        ),
        tool!(
            Browser,
            "browser_wait_for",
            browser::WaitFor,
            browser::wait_for,
            "Wait until an element is visible, or until text appears (in the element, or anywhere with text alone). timeoutMs default 5000."
        ),
        tool!(
            Browser,
            "browser_expect",
            browser::Expect,
            browser::expect,
            "Assert, retrying until it holds or timeoutMs (default 5000) runs out, as Playwright's expect: to_have_url, to_have_title (no target); on what the page fetched and logged since the last browser_network/browser_console call (no target): to_have_request (expected: a URL glob or {regex}; method, status), to_have_no_errors (expected: errors to allow), to_have_message (expected: a text); or on a target (role + name, label, placeholder, text, altText, title, testId, selector, ref, nth): to_be_visible, to_be_hidden, to_be_attached, to_be_enabled, to_be_disabled, to_be_checked, to_be_focused, to_be_editable, to_be_empty, to_be_in_viewport, to_have_text, to_contain_text, to_have_count, to_have_value, to_have_values (a list), to_have_attribute (with attribute), to_have_class, to_contain_class, to_have_css (with attribute: the CSS property), to_have_id, to_have_role, to_have_accessible_name, to_match_aria_snapshot (a YAML template). expected: a string (exact), {regex}, a count, or a list (one per element); not: true inverts. Fails with ASSERTION_FAILED, its message giving expected, received and the call log."
        ),
        tool!(
            Browser,
            "browser_screenshot",
            browser::Screenshot,
            browser::screenshot,
            "Save a screenshot as a file (into the current step's evidence while a run is active) and return its path; inline: true also returns the image."
        ),
        tool!(
            Browser,
            "browser_snapshot",
            browser::Snapshot,
            browser::snapshot,
            "The page's accessibility tree as aria-snapshot lines: each node with its ref (for `ref` in actions), test id and text, its children indented under it. On the same page, only what changed since the last snapshot, each line under the nodes it is in, unless full. The same lines in a run_steps answer."
        ),
        tool!(
            Browser,
            "browser_console",
            browser::Console,
            browser::console,
            "Console messages since the last call (level filter; peek keeps them)."
        ),
        tool!(
            Browser,
            "browser_network",
            browser::Network,
            browser::network,
            "Requests since the last call: method, url, status, type, timing, failure (failedOnly for errors; peek keeps them)."
        ),
        tool!(
            Browser,
            "browser_route",
            browser::Route,
            browser::route,
            "Answer the page's requests matching pattern (a URL glob such as **/api/items, or /regex/) without the server (action fulfill: status, json or body, headers), fail them (abort), send them on with headers added (continue), or drop the pattern's routes (remove). Routed requests are marked intercepted in browser_network and the step's network.json."
        ),
        tool!(
            Browser,
            "browser_handle_dialog",
            browser::HandleDialog,
            browser::handle_dialog,
            "Answer the dialogs (alert, confirm, prompt) the page opens from now on: accept (a prompt with promptText) or dismiss; by default they are dismissed. Each dialog is evidence of its step (dialog-N.json)."
        ),
        tool!(
            Browser,
            "browser_close",
            browser::Close,
            browser::close,
            "Close the browser (and the chromedriver it started)."
        ),
    ]
}

/// Batches, the knowledge store, recording and replay.
fn agent_tools() -> Vec<ToolDef> {
    vec![
        tool!(
            nested Batch,
            "run_steps",
            batch::RunSteps,
            batch::run_steps,
            "Run 1 to 50 tool calls in order in one round trip: per step {index, tool, ok, did (what it did), error (code: first line), evidence} and the counts; detail: true gives each result in full with its timing. stopOnError (default false); includeObservations none|failures|all (page url and title after a step; default failures, all with detail). Unknown tools and invalid arguments fail their step, not the batch."
        ),
        tool!(
            Knowledge,
            "knowledge_search",
            knowledge::KnowledgeSearch,
            knowledge::search,
            "Search the steps agents took before (every tool call is kept with the page it left): by words, test ids, tool names, URL paths or error codes; scope session|all; filters tool, outcome (ok|error), url. Each hit has a confidence from 0 to 1 (1: every word matched the tool or its arguments) and what matched."
        ),
        tool!(
            Knowledge,
            "knowledge_similar",
            knowledge::KnowledgeSimilar,
            knowledge::similar,
            "Steps taken before on pages like the current one (the open browser page, or the url, title and testIds given): confidence 1.0 means the same page."
        ),
        tool!(
            Recording,
            "record_start",
            record::RecordStart,
            record::record_start,
            "Start recording the tool calls that follow as a named sequence (browser actions and HarshJudge tools), to replay or export later."
        ),
        tool!(
            Recording,
            "record_stop",
            record::RecordStop,
            record::record_stop,
            "Stop recording; save the sequence to .harshJudge/sequences/ (save: false discards it). Lists the {{variables}} its arguments use."
        ),
        tool!(
            Recording,
            "record_list",
            record::RecordList,
            record::record_list,
            "The saved sequences, newest first."
        ),
        tool!(
            Recording,
            "record_get",
            record::SequenceRef,
            record::record_get,
            "A saved sequence with every call."
        ),
        tool!(
            Recording,
            "record_delete",
            record::SequenceRef,
            record::record_delete,
            "Delete a saved sequence."
        ),
        tool!(
            nested Recording,
            "record_replay",
            record::RecordReplay,
            record::record_replay,
            "Run a saved sequence again without an LLM: {{variable}} placeholders filled from `variables`; stops at the first failure unless continueOnError; with scenarioSlug the replay is recorded as a run (one step per call, with evidence). Per call {index, tool, ok, did, error, evidence} and the counts; detail: true gives each result in full."
        ),
        tool!(
            Recording,
            "record_export",
            export::RecordExport,
            export::record_export,
            "Write a saved sequence as a Rust #[scenario] using harshjudge's page API (one step per action) to .harshJudge/exports/{functionName}.rs, ready to drop into tests/."
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
