//! The words of the skill and of the prompts: one text per workflow.
//!
//! Conventions the drift test (`tests/skill.rs`) reads: a tool call is written
//! in inline code as `toolName(argument, argument=value)`, a tool or an
//! argument alone as `toolName`, and a file of the layout as a path starting
//! with `.harshJudge/` (`{…}` for a name, `NN` for a step number). Each of
//! them must exist in `tools/list` and in the layout.

/// What the server is for and where to start, before what it lists.
macro_rules! instructions_head {
    () => {
        "HarshJudge runs end-to-end tests whose evidence (steps, \
screenshots, logs, verdicts) lands in .harshJudge/scenarios/{slug}/runs/{runId}/. Explore an app \
with browser_navigate, browser_snapshot and actions by ref, record it and export a Rust #[scenario] for cargo test; run, judge and \
heal scenarios. Start from the prompt that fits: hj-setup (initProject, once), hj-write-scenario, \
hj-run, hj-judge, hj-heal (locators only, never expectations), hj-status (getStatus). "
    };
}

/// What the server is for and where to start (MCP `instructions`), as the
/// server listing the start set (`--tools start`, the default) gives them.
pub const INSTRUCTIONS: &str = concat!(
    instructions_head!(),
    "Only the tools to start are listed: enable_tools(sets) lists project, run, scenario, judge, \
browser, record, knowledge, dashboard or all. Read evidence files rather than asking for large results."
);

/// The `instructions` of a server that lists every tool (`--tools all`).
pub const INSTRUCTIONS_ALL_TOOLS: &str = concat!(
    instructions_head!(),
    "Every tool is listed. Read evidence files rather than asking for large results."
);

/// The `instructions` of a server listing every tool (`all`) or the start set.
pub fn instructions(all: bool) -> &'static str {
    if all {
        INSTRUCTIONS_ALL_TOOLS
    } else {
        INSTRUCTIONS
    }
}

/// The skill's front matter description (when an agent should load it).
pub const SKILL_DESCRIPTION: &str = "End-to-end testing with evidence: explore a web app in a \
headless browser, turn the exploration into a Rust #[scenario] for cargo test, run scenarios \
and read their evidence in .harshJudge/, judge steps whose expectation is in words, heal a \
failing scenario without hiding a regression, and report status. Use for any task about E2E \
tests, test evidence, or a failing end-to-end scenario.";

/// The skill's overview, above the table of workflows.
pub const SKILL_INTRO: &str = "\
# HarshJudge: evidence-first end-to-end tests

HarshJudge writes every run of an end-to-end scenario to `.harshJudge/` as evidence: \
what each step did, screenshots, console and network logs, and a verdict. Scenarios are \
Rust `#[scenario]` functions that `cargo test` runs; the `harshjudge` MCP server lets you \
explore the app in a headless browser, record what you did, export it as such a scenario, \
and record or judge runs.

## Principles

1. **Evidence first.** A step passes because its evidence shows it: read the files under \
`.harshJudge/scenarios/{slug}/runs/{runId}/` rather than guessing.
2. **Small context.** Ask for a page snapshot only where you must find your next target; \
act by `ref` from it; large outputs are files, open them only when needed.
3. **Complete what you start.** A run started with `startRun` ends with `completeRun`, \
even after a failure; a recording started with `record_start` ends with `record_stop`.
4. **Never hide a regression.** Healing changes how an element is found, never what is \
expected of it: an `expect` value, a `step!` expectation or a verdict is not yours to change \
to make a test pass.

## Tools

At first the server lists only the tools to start with (the browser basics: \
`browser_navigate` opens the browser). `enable_tools(sets)` lists more: `project` \
(initProject, getStatus), `run` (startRun, completeStep, …), `scenario`, `judge`, `browser` \
(launch, press, wait, screenshot, console, network, run_steps), \
`record`, `knowledge`, `dashboard`, or `all`. Every tool can be called even before it is \
listed.

## Layout

```text
.harshJudge/
  config.yaml                      project name, baseUrl
  prd.md                           what the product does (fill it in)
  scenarios/{slug}/meta.yaml       the scenario and its statistics
  scenarios/{slug}/steps/          one markdown file per step
  scenarios/{slug}/runs/{runId}/   result.json, step-NN/evidence/, judge/
  sequences/{sequenceId}.json      recorded tool calls
  exports/{functionName}.rs        a recording as a Rust #[scenario]
```
";

/// `hj-setup`: set up a project.
pub const SETUP: &str = "\
Set up HarshJudge in this project.

1. Call `initProject(projectName, baseUrl)` once: it writes `.harshJudge/config.yaml`, \
`.harshJudge/prd.md` and `.harshJudge/.gitignore`. The base URL is where the app under \
test listens (for example `http://127.0.0.1:3000`).
2. Fill in `.harshJudge/prd.md`: what the product does, its main pages, test accounts. \
Later sessions read it before exploring.
3. For scenarios in Rust, add `harshjudge` to the crate's `[dev-dependencies]` and a test \
target with `harness = false` whose `main` is `harshjudge::main!()`; scenarios are \
`#[scenario]` async functions in that file (see hj-write-scenario).
4. Check with `getStatus()`: it lists the scenarios (none yet) and their last result.
";

/// `hj-write-scenario`: turn an exploration into a Rust scenario.
pub const WRITE_SCENARIO: &str = "\
Write an end-to-end scenario in Rust from an exploration of the app.

1. Read `.harshJudge/prd.md` and `getStatus()` to know the product and what is covered.
2. `enable_tools(sets)` with `record`, then `record_start(name)` with a short name for what you will do, then \
`browser_launch(baseUrl)` (default: the project's base URL).
3. Explore: `browser_navigate(url)`, then `browser_snapshot()` only where you need to find \
your next target; act by the refs it gives, `browser_click(ref)`, \
`browser_type(ref, text, submit)`, `browser_press(key)`. Prefer role and name, label, \
placeholder or test id over CSS: `browser_click(role, name)`.
4. Check each outcome with a web-first assertion, `browser_expect(assertion, role, name, \
expected)` (for example `to_have_text`, `to_be_checked`, `to_have_count`, `to_have_url`): \
these become the scenario's assertions.
5. `record_stop()` saves the sequence as `.harshJudge/sequences/{sequenceId}.json`; \
`record_export(sequenceId, functionName)` writes it as a Rust `#[scenario]` to \
`.harshJudge/exports/{functionName}.rs`.
6. Move the function into the project's harshjudge test target, give each step a title \
that says what the user does, and run it with `cargo test --test <target>` (hj-run). \
`browser_close()` when done.
";

/// `hj-run`: run a scenario and read its evidence.
pub const RUN: &str = "\
Run a scenario and read its evidence.

- A Rust scenario: `cargo test --test <target> -- <scenario>` runs it; each step is a test \
case and the run lands in `.harshJudge/scenarios/{slug}/runs/{runId}/`.
- A scenario driven by you through MCP (`enable_tools(sets)` with `run` lists its tools): \
`startRun(scenarioSlug)` returns the `runId` and \
the steps. For each step do its actions (browser actions record before and after \
screenshots, console and network into the current step by themselves), add other evidence \
with `recordEvidence(runId, stepId, type, name, data)`, then \
`completeStep(runId, stepId, status, duration)`; it returns `nextStepId`. Always finish with \
`completeRun(runId)`, also after a failure.

Read the result: `.harshJudge/scenarios/{slug}/runs/{runId}/result.json` has each step's \
status, duration, error and evidence files; the files are in \
`.harshJudge/scenarios/{slug}/runs/{runId}/step-NN/evidence/`. `getRunState(runId)` says \
where an interrupted run stands, to resume it instead of starting again.
";

/// `hj-judge`: judge steps whose expectation is in words.
pub const JUDGE: &str = "\
Judge the steps that wait for a verdict.

1. `enable_tools(sets)` with `judge`; `getPendingJudgments(scenarioSlug, limit)` lists steps of completed runs whose \
expectation is in words and that have no verdict yet, with their evidence files (absolute \
paths) and an `inputsHash`.
2. For each: open the evidence (screenshots, logs, responses) and compare it with the \
expectation. Judge only what the evidence shows.
3. `recordVerdict(runId, stepId, verdict, reasoning)`: `pass` when the evidence shows what \
the expectation says, `fail` when it contradicts it, `uncertain` when it does not tell \
(that fails the step). Say in the reasoning what in the evidence decided it.

The verdict is kept in `.harshJudge/scenarios/{slug}/runs/{runId}/judge/result.json`; the \
run's status and the scenario's counts follow at once.
";

/// `hj-heal`: repair a failing scenario without hiding a regression.
pub const HEAL: &str = "\
Heal a failing scenario without hiding a regression.

1. `getStatus(scenarioSlug)` gives the newest runs; `getRunState(scenarioSlug)` the failed \
step and its error (`enable_tools(sets)` with `run` lists it). Read `.harshJudge/scenarios/{slug}/runs/{runId}/result.json` and the \
failed step's files in `.harshJudge/scenarios/{slug}/runs/{runId}/step-NN/evidence/`; `getStepTrace(scenarioSlug, step)` gives what happened inside the failed step, one line per action with its outcome, failed requests and console errors (when the run kept its trace).
2. Classify the failure:
   - **A locator failure**: the target matched nothing (`TARGET_NOT_FOUND`, a timeout \
waiting for it) or too much (`STRICT_MODE`). The app changed how the element is found, not \
what it does.
   - **An assertion on content**: an `expect` got another value, a verdict failed. This is \
a possible regression: report it, do not heal it.
3. For a locator failure only: `heal(scenarioSlug)` (`enable_tools(sets)` with `judge` \
lists it; the CLI is `harshjudge-mcp heal <slug>`) proposes a replacement from the failed \
step's recorded `aria.yml` and `page.html` as a diff of the Rust source, and refuses an \
assertion (\"not a locator failure: not healed\"); `heal(scenarioSlug, apply)` writes it. \
With the app running, the CLI's `--base-url URL` (or HARSHJUDGE_BASE_URL) also checks the \
replacement on the live page (exactly one element); the answer's `note` says which check was made. \
Without a proposal, open the app where the step failed (`browser_navigate(url)`, \
`browser_snapshot()`), find the same element by role and name, label, placeholder or test \
id, and change only that locator. Never change an `expect` matcher's expected value, a \
`step!` expectation or a verdict.
4. Run the scenario again (hj-run) and report the change as a diff, with the evidence that \
shows the element is the same one.
";

/// `hj-status`: where the project stands.
pub const STATUS: &str = "\
Report where the end-to-end tests stand.

1. `getStatus()`: every scenario with its last result and pass rate; \
`getStatus(scenarioSlug)` one scenario's steps and newest runs.
2. For a failed run, `getRunState(runId)` names the failed step and its error; its evidence \
is in `.harshJudge/scenarios/{slug}/runs/{runId}/step-NN/evidence/`, and \
`getStepTrace(runId, step)` lists what happened inside the step, one line per action.
3. `getPendingJudgments()` counts steps still waiting for a verdict (hj-judge).
4. `discoverTree(path)` shows what is in `.harshJudge/`; `openDashboard()` serves the live \
HTML report.
Say per scenario: last result, pass rate, and for each failure the step and its error.
";
