//! Command line: the original CLI's commands, each mapped onto the same tool
//! as the MCP server. Success prints compact JSON on stdout (exit 0), except
//! `trace`, which prints the lines `getStepTrace` gives a model (or with
//! `--action` one entry's page as an ARIA snapshot); a failure
//! prints `{"error", "code"}` on stderr (exit 1).

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use serde_json::{Map, Value, json};

use harshjudge_browser::settings::SettingError;

use crate::context::{Context, ContextError, DEFAULT_MAX_EVIDENCE_BYTES};
use crate::error::Code;

/// MCP server and CLI of HarshJudge: record end-to-end test runs as evidence in .harshJudge/.
///
/// With no command it serves MCP over stdio (stdout carries only the protocol;
/// logs go to stderr).
#[derive(Debug, Parser)]
#[command(name = "harshjudge-mcp", version, about, long_about = None)]
pub struct Cli {
    /// Project folder (the one holding .harshJudge/); default: $HARSHJUDGE_PROJECT, else the current folder.
    #[arg(long, global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Largest evidence accepted, in bytes [default: $HARSHJUDGE_MAX_EVIDENCE_BYTES, else 26214400].
    #[arg(long, global = true, value_name = "BYTES")]
    pub max_evidence_bytes: Option<u64>,
    /// Another folder evidence files may be copied from (repeatable; the project
    /// and the system's temporary folder always are). $HARSHJUDGE_ALLOWED_ROOTS
    /// adds a ':'-separated list.
    #[arg(long = "allow-root", global = true, value_name = "DIR")]
    pub allow_roots: Vec<PathBuf>,
    /// Whether initProject / init starts the dashboard, as the original does
    /// [default: $HARSHJUDGE_DASHBOARD, else on].
    #[arg(long, global = true, value_name = "on|off", value_parser = ["on", "off"])]
    pub dashboard: Option<String>,
    /// Serve MCP with each tool's outputSchema in tools/list and each result
    /// also as structuredContent (for clients that validate results); by
    /// default a model's context gets one compact copy of each result.
    #[arg(long, global = true)]
    pub output_schemas: bool,
    /// Which tools tools/list gives at first: start (7 tools; enable_tools
    /// lists more) or all (every tool, as the original HarshJudge listed them:
    /// for a client or skill written for it) [default: $HARSHJUDGE_MCP_TOOLS,
    /// else start; all with --output-schemas].
    #[arg(long, global = true, value_name = "all|start", value_parser = ["all", "start"])]
    pub tools: Option<String>,
    /// What to do (default: serve MCP over stdio).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve MCP over stdio (the default).
    Serve,
    /// Initialize a project: .harshJudge/ with config.yaml, prd.md, .gitignore.
    Init {
        /// Project name.
        name: String,
        /// Base URL of the application under test.
        #[arg(long)]
        base_url: Option<String>,
    },
    /// Create or update a scenario.
    Create {
        /// Scenario slug (lowercase letters, digits, hyphens).
        slug: String,
        /// Title.
        #[arg(long)]
        title: String,
        /// Steps as JSON: [{"title","actions","expectedOutcome",…}].
        #[arg(
            long,
            required_unless_present = "steps_file",
            conflicts_with = "steps_file"
        )]
        steps: Option<String>,
        /// A file holding the steps' JSON.
        #[arg(long, value_name = "FILE")]
        steps_file: Option<PathBuf>,
        /// Comma-separated tags.
        #[arg(long)]
        tags: Option<String>,
        /// Expected duration in seconds.
        #[arg(long)]
        estimated_duration: Option<f64>,
        /// Star the scenario.
        #[arg(long)]
        starred: bool,
    },
    /// Star or unstar a scenario; with neither flag, toggle it.
    Star {
        /// Scenario slug.
        slug: String,
        /// Star it.
        #[arg(long, conflicts_with_all = ["off", "unstar"])]
        on: bool,
        /// Unstar it.
        #[arg(long, conflicts_with = "unstar")]
        off: bool,
        /// Unstar it (same as --off).
        #[arg(long)]
        unstar: bool,
    },
    /// Project status, or one scenario's detail.
    Status {
        /// Scenario slug.
        slug: Option<String>,
        /// Only starred scenarios.
        #[arg(long)]
        starred_only: bool,
    },
    /// Remove the oldest runs of each scenario beyond the newest --keep
    /// (default HARSHJUDGE_KEEP_RUNS, else 20); never a running run nor the
    /// newest failed one; statistics are unchanged.
    Prune {
        /// Only this scenario.
        slug: Option<String>,
        /// Runs to keep per scenario.
        #[arg(long)]
        keep: Option<usize>,
    },
    /// Start a run of a scenario.
    Start {
        /// Scenario slug.
        slug: String,
    },
    /// Record evidence for a step of a run.
    Evidence {
        /// Run id.
        run_id: String,
        /// Step number (1, 2, … or 01, 02, …).
        #[arg(long)]
        step: String,
        /// screenshot, db_snapshot, console_log, network_log, html_snapshot, custom, api_response, api_headers, stdout, stderr, exit_code.
        #[arg(long = "type")]
        kind: String,
        /// Name (file name without extension).
        #[arg(long)]
        name: String,
        /// The content; for a screenshot an absolute file path (copied) or base64;
        /// with `--source file`, an absolute path to copy.
        #[arg(long)]
        data: String,
        /// Metadata as a JSON object.
        #[arg(long)]
        metadata: Option<String>,
        /// auto, file or content.
        #[arg(long)]
        source: Option<String>,
    },
    /// Record a step's result.
    CompleteStep {
        /// Run id.
        run_id: String,
        /// Step id (01, 02, …; 1, 2, … are accepted).
        #[arg(long)]
        step: String,
        /// pass, fail or skipped.
        #[arg(long)]
        status: String,
        /// Milliseconds.
        #[arg(long)]
        duration: f64,
        /// Why it failed.
        #[arg(long)]
        error: Option<String>,
        /// One line on what happened.
        #[arg(long)]
        summary: Option<String>,
    },
    /// Finish a run.
    CompleteRun {
        /// Run id.
        run_id: String,
        /// pass or fail (the steps decide when there are any).
        #[arg(long)]
        status: Option<String>,
        /// Milliseconds (default: measured from the run's start).
        #[arg(long)]
        duration: Option<f64>,
        /// The failed step.
        #[arg(long)]
        failed_step: Option<String>,
        /// The failure message.
        #[arg(long)]
        error: Option<String>,
        /// Steps as JSON: [{"id","status","duration","error"}].
        #[arg(long)]
        steps: Option<String>,
    },
    /// Where a run stands (to resume it).
    RunState {
        /// Run id; omitted: the newest run of --scenario.
        run_id: Option<String>,
        /// Scenario slug.
        #[arg(long)]
        scenario: Option<String>,
    },
    /// What happened inside a step: its trace.json as lines, one per action,
    /// assertion, read and navigation (getStepTrace; printed as text).
    Trace {
        /// Scenario slug (its newest run unless --run).
        #[arg(required_unless_present = "run")]
        slug: Option<String>,
        /// The step's number (3 or 03).
        #[arg(long)]
        step: String,
        /// Run id.
        #[arg(long, value_name = "RUN_ID")]
        run: Option<String>,
        /// An entry's number (#n of the lines): its page as an ARIA snapshot
        /// instead (launches a headless browser for it).
        #[arg(long, value_name = "N")]
        action: Option<u64>,
        /// With --action: which of its snapshots [default: after, else the one it has].
        #[arg(long, requires = "action", value_parser = ["before", "after", "at"])]
        moment: Option<String>,
    },
    /// Steps waiting for a verdict (an expectation and no verdict), with their evidence (getPendingJudgments).
    PendingJudgments {
        /// Only this scenario's runs.
        #[arg(long)]
        scenario: Option<String>,
        /// Only this run.
        #[arg(long)]
        run: Option<String>,
        /// Most steps to list (default 20, at most 100).
        #[arg(long)]
        limit: Option<u64>,
    },
    /// Record a verdict on a step as its judge (recordVerdict).
    RecordVerdict {
        /// Run id.
        run_id: String,
        /// Step id (01, 02, …; 1, 2, … are accepted).
        #[arg(long)]
        step: String,
        /// pass, fail or uncertain.
        #[arg(long)]
        verdict: String,
        /// Why: what in the evidence shows or contradicts the expectation.
        #[arg(long)]
        reasoning: String,
        /// The judge's name (default "agent").
        #[arg(long)]
        judge: Option<String>,
    },
    /// Look through .harshJudge/.
    Discover {
        /// tree or search.
        #[command(subcommand)]
        what: Discover,
    },
    /// The live dashboard: the HTML report of this project on http://127.0.0.1, refreshed as runs change.
    Dashboard {
        /// open, close or status.
        #[command(subcommand)]
        what: Dashboard,
    },
    /// Write the HTML report to .harshJudge/report/ (open report/index.html in a browser).
    Report,
    /// Merge .harshJudge/ trees (shards, other machines) into one, with its HTML report and JUnit.
    Merge {
        /// The trees to merge: .harshJudge folders, or project folders holding one.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// The merged tree (created when missing; merging again changes nothing).
        #[arg(long, value_name = "DIR")]
        into: PathBuf,
    },
    /// Rerun a run of `cargo test` exactly (its replay.sh), or replay a recorded
    /// sequence (record_replay) given its id.
    Replay {
        /// A run id (runs/{id}/replay.sh) or a sequence id (.harshJudge/sequences/{id}.json).
        id: String,
        /// A sequence's {{variable}} value, as name=value (repeatable).
        #[arg(long = "var", value_name = "NAME=VALUE")]
        vars: Vec<String>,
        /// Go on after a failed call (sequences).
        #[arg(long)]
        continue_on_error: bool,
        /// Record the sequence's replay as a run of this scenario.
        #[arg(long, value_name = "SLUG")]
        scenario: Option<String>,
        /// Print every call's full result (sequences; default: one small
        /// object per call and the counts).
        #[arg(long)]
        detail: bool,
    },
    /// Write the skill for coding agents (SKILL.md and its references, under
    /// .claude/skills/harshjudge/) and the MCP server's entry in .mcp.json.
    InitAgent {
        /// The skills folder, relative to the project.
        #[arg(long, value_name = "DIR", default_value = crate::skill::DEFAULT_SKILLS_DIR)]
        dir: PathBuf,
        /// The command .mcp.json starts the server with.
        #[arg(long, value_name = "PATH", default_value = "harshjudge-mcp")]
        command: String,
        /// Replace skill files that differ from the skill's text.
        #[arg(long)]
        force: bool,
    },
    /// Write a recorded sequence as a Rust `#[scenario]` (.harshJudge/exports/{function}.rs).
    Export {
        /// The sequence's id (record_list).
        sequence_id: String,
        /// The scenario function's name (default: from the sequence's name).
        #[arg(long = "function", value_name = "NAME")]
        function_name: Option<String>,
        /// A {{variable}} value, as name=value (repeatable).
        #[arg(long = "var", value_name = "NAME=VALUE")]
        vars: Vec<String>,
    },
    /// Run the configured judge (HARSHJUDGE_JUDGE_*) over labelled steps and
    /// print its precision, recall and agreement; exit 1 under a threshold.
    /// Nothing is written into the runs.
    JudgeCalibrate {
        /// The labels: one `RUN STEP VERDICT` per line (blanks or commas between).
        labels: PathBuf,
        /// Fail when the precision (share of failing verdicts that were right) is lower.
        #[arg(long, value_name = "0..1", value_parser = fraction)]
        min_precision: Option<f64>,
        /// Fail when the recall (share of labelled failures caught) is lower.
        #[arg(long, value_name = "0..1", value_parser = fraction)]
        min_recall: Option<f64>,
        /// Fail when the agreement (share of verdicts equal to the label) is lower.
        #[arg(long, value_name = "0..1", value_parser = fraction)]
        min_agreement: Option<f64>,
    },
    /// Propose a replacement for the locator that broke a scenario's latest
    /// failed run (matched nothing or too many), as a unified diff of its
    /// Rust source; never an assertion, an expectation or a verdict.
    Heal {
        /// The scenario's slug.
        scenario: String,
        /// Heal from this run (default: the scenario's latest failed run).
        #[arg(long, value_name = "RUN_ID")]
        run: Option<String>,
        /// The folder the failure's source locations are relative to (default: the project folder).
        #[arg(long, value_name = "DIR")]
        source_root: Option<PathBuf>,
        /// Write the change to the source and record it in the run's folder (heal.json).
        #[arg(long)]
        apply: bool,
        /// Check the replacement on the live page (exactly one element) at the
        /// app's URL: --base-url, else HARSHJUDGE_BASE_URL, else config.yaml's
        /// baseUrl. On by default when --base-url or HARSHJUDGE_BASE_URL is given.
        #[arg(long)]
        live: bool,
        /// The app's URL for the live check (implies --live).
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
    },
}

/// A `judge-calibrate` threshold that is not a number from 0 to 1.
#[derive(Debug, thiserror::Error)]
#[error("{given:?} is not a number from 0 to 1 (e.g. 0.9)")]
pub struct NotAFraction {
    /// The value given.
    pub given: String,
}

/// A threshold from 0 to 1.
fn fraction(text: &str) -> Result<f64, NotAFraction> {
    match text.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(NotAFraction {
            given: text.to_string(),
        }),
    }
}

/// `name=value` pairs.
fn vars_of(vars: &[String]) -> Result<Value, CliError> {
    let mut m = Map::new();
    for v in vars {
        let (k, val) = v
            .split_once('=')
            .ok_or_else(|| CliError::Var { given: v.clone() })?;
        m.insert(k.to_string(), json!(val));
    }
    Ok(Value::Object(m))
}

/// `dashboard` subcommands.
#[derive(Debug, Subcommand)]
pub enum Dashboard {
    /// Start the dashboard in the background and print its url, port and pid.
    Open {
        /// Port on 127.0.0.1 (default 7002; when taken, the next free one up to 9 higher).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1024..))]
        port: Option<u16>,
        /// Do not open a browser.
        #[arg(long)]
        no_browser: bool,
    },
    /// Stop the dashboard.
    Close,
    /// Whether the dashboard runs, and where.
    Status,
    /// Run the dashboard's HTTP server in this process (what `open` starts).
    #[command(hide = true)]
    Serve {
        /// Port on 127.0.0.1.
        #[arg(long, default_value_t = crate::dashboard::DEFAULT_PORT)]
        port: u16,
    },
}

/// `discover` subcommands.
#[derive(Debug, Subcommand)]
pub enum Discover {
    /// The folder as a tree.
    Tree {
        /// A folder relative to .harshJudge/.
        path: Option<String>,
    },
    /// Case-insensitive search of .yaml, .yml, .json and .md files.
    Search {
        /// Text to find.
        pattern: String,
        /// A folder relative to .harshJudge/.
        #[arg(long)]
        path: Option<String>,
    },
}

/// A CLI failure before any tool runs: what was wrong, with the flag or the
/// value concerned. Printed as `{"error", "code"}` ([`CliError::to_json`]).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The command line does not parse: clap's message, on one line.
    #[error("{message} (see harshjudge-mcp --help)")]
    Usage {
        /// clap's message, without its usage block.
        message: String,
    },
    /// A bad `HARSHJUDGE_*` variable (it names the variable).
    #[error(transparent)]
    Setting(#[from] SettingError),
    /// A secret `HARSHJUDGE_SECRETS` names that cannot be masked (too short,
    /// a bad name).
    #[error(transparent)]
    Secret(#[from] harshjudge_browser::secrets::SecretError),
    /// No `--cwd` nor `HARSHJUDGE_PROJECT`, and the current folder is unreadable.
    #[error("no current folder: {source}")]
    CurrentDir {
        /// The cause.
        source: std::io::Error,
    },
    /// The project folder or an `--allow-root` cannot be used.
    #[error(transparent)]
    Context(#[from] ContextError),
    /// A flag's JSON does not parse.
    #[error("{flag} is not valid JSON: {source}")]
    Json {
        /// The flag (`--steps`, `--metadata`).
        flag: &'static str,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// `--steps-file` cannot be read.
    #[error("--steps-file {}: {source}", path.display())]
    StepsFile {
        /// The file given.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `create` without `--steps` or `--steps-file`.
    #[error("give the steps with --steps or --steps-file")]
    NoSteps,
    /// A `--var` that is not `NAME=VALUE`.
    #[error("--var {given:?} is not NAME=VALUE (e.g. --var password=secret)")]
    Var {
        /// The value given.
        given: String,
    },
    /// `dashboard serve`, `report` and `merge` run in the CLI, not as a tool.
    #[error("this command runs in the CLI itself, not as a tool (see harshjudge-mcp --help)")]
    NotATool,
}

impl CliError {
    /// The stable code: every CLI failure is bad input.
    pub fn code(&self) -> Code {
        Code::InvalidInput
    }

    /// What the CLI prints on stderr: `{"error": message, "code": code}`.
    pub fn to_json(&self) -> Value {
        json!({"error": self.to_string(), "code": self.code().as_str()})
    }
}

fn parse_json(flag: &'static str, text: &str) -> Result<Value, CliError> {
    serde_json::from_str(text).map_err(|source| CliError::Json { flag, source })
}

/// `1` → `"01"`; anything else unchanged (validated by the tool).
fn pad_step(s: &str) -> String {
    match s.parse::<u32>() {
        Ok(n) if s.len() < 2 => format!("{n:02}"),
        _ => s.to_string(),
    }
}

/// A tool's arguments, built by name; an absent value (`null`) is left out.
#[derive(Default)]
struct Args(Map<String, Value>);

impl Args {
    fn put(&mut self, key: &str, value: impl serde::Serialize) {
        let v = json!(value);
        if !v.is_null() {
            self.0.insert(key.into(), v);
        }
    }
}

/// `create`'s steps: the text of `--steps`, else of `--steps-file`, as JSON.
fn steps_of(steps: Option<&str>, file: Option<&std::path::Path>) -> Result<Value, CliError> {
    let text = match (steps, file) {
        (Some(s), _) => s.to_string(),
        (None, Some(f)) => std::fs::read_to_string(f).map_err(|source| CliError::StepsFile {
            path: f.to_path_buf(),
            source,
        })?,
        (None, None) => return Err(CliError::NoSteps),
    };
    parse_json("--steps", &text)
}

/// The tool and arguments a command maps to (`None` for `serve`); the commands
/// the CLI runs itself (`dashboard serve`, `report`, `merge`) are
/// [`CliError::NotATool`].
pub fn to_call(cmd: &Command) -> Result<Option<(&'static str, Value)>, CliError> {
    let mut a = Args::default();
    let name = match cmd {
        Command::Serve => return Ok(None),
        Command::Dashboard {
            what: Dashboard::Serve { .. },
        }
        | Command::Report
        | Command::InitAgent { .. }
        | Command::JudgeCalibrate { .. }
        | Command::Heal { .. }
        | Command::Merge { .. } => return Err(CliError::NotATool),
        Command::Init { name, base_url } => {
            a.put("projectName", name);
            a.put("baseUrl", base_url);
            "initProject"
        }
        Command::Create {
            slug,
            title,
            steps,
            steps_file,
            tags,
            estimated_duration,
            starred,
        } => {
            let steps = steps_of(steps.as_deref(), steps_file.as_deref())?;
            a.put("slug", slug);
            a.put("title", title);
            a.put("steps", steps);
            if let Some(t) = tags.as_deref().filter(|t| !t.trim().is_empty()) {
                let list: Vec<&str> = t
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect();
                a.put("tags", list);
            }
            a.put("estimatedDuration", estimated_duration);
            if *starred {
                a.put("starred", true);
            }
            "createScenario"
        }
        Command::Star {
            slug,
            on,
            off,
            unstar,
        } => {
            a.put("scenarioSlug", slug);
            if *on {
                a.put("starred", true);
            } else if *off || *unstar {
                a.put("starred", false);
            }
            "toggleStar"
        }
        Command::Status { slug, starred_only } => {
            a.put("scenarioSlug", slug);
            if *starred_only {
                a.put("starredOnly", true);
            }
            "getStatus"
        }
        Command::Prune { slug, keep } => {
            a.put("scenarioSlug", slug);
            a.put("keep", keep);
            "pruneRuns"
        }
        Command::Start { slug } => {
            a.put("scenarioSlug", slug);
            "startRun"
        }
        Command::Evidence {
            run_id,
            step,
            kind,
            name,
            data,
            metadata,
            source,
        } => {
            a.put("runId", run_id);
            match step.parse::<u64>() {
                Ok(n) => a.put("step", n),
                Err(_) => a.put("stepId", step),
            }
            a.put("type", kind);
            a.put("name", name);
            a.put("data", data);
            if let Some(m) = metadata {
                a.put("metadata", parse_json("--metadata", m)?);
            }
            a.put("source", source);
            "recordEvidence"
        }
        Command::CompleteStep {
            run_id,
            step,
            status,
            duration,
            error,
            summary,
        } => {
            a.put("runId", run_id);
            a.put("stepId", pad_step(step));
            a.put("status", status);
            a.put("duration", duration);
            a.put("error", error);
            a.put("summary", summary);
            "completeStep"
        }
        Command::CompleteRun {
            run_id,
            status,
            duration,
            failed_step,
            error,
            steps,
        } => {
            a.put("runId", run_id);
            a.put("status", status);
            a.put("duration", duration);
            a.put("failedStep", failed_step.as_deref().map(pad_step));
            a.put("errorMessage", error);
            if let Some(s) = steps {
                a.put("steps", parse_json("--steps", s)?);
            }
            "completeRun"
        }
        Command::RunState { run_id, scenario } => {
            a.put("runId", run_id);
            a.put("scenarioSlug", scenario);
            "getRunState"
        }
        Command::Trace { .. } => {
            trace_args(cmd, &mut a);
            "getStepTrace"
        }
        Command::PendingJudgments {
            scenario,
            run,
            limit,
        } => {
            a.put("scenarioSlug", scenario);
            a.put("runId", run);
            a.put("limit", limit);
            "getPendingJudgments"
        }
        Command::RecordVerdict {
            run_id,
            step,
            verdict,
            reasoning,
            judge,
        } => {
            a.put("runId", run_id);
            a.put("stepId", pad_step(step));
            a.put("verdict", verdict);
            a.put("reasoning", reasoning);
            a.put("judge", judge);
            "recordVerdict"
        }
        Command::Discover {
            what: Discover::Tree { path },
        } => {
            a.put("path", path);
            "discoverTree"
        }
        Command::Discover {
            what: Discover::Search { pattern, path },
        } => {
            a.put("pattern", pattern);
            a.put("path", path);
            "discoverSearch"
        }
        Command::Dashboard {
            what: Dashboard::Open { port, no_browser },
        } => {
            a.put("port", port);
            a.put("openBrowser", !no_browser);
            "openDashboard"
        }
        Command::Dashboard {
            what: Dashboard::Close,
        } => "closeDashboard",
        Command::Dashboard {
            what: Dashboard::Status,
        } => "getDashboardStatus",
        Command::Export {
            sequence_id,
            function_name,
            vars,
        } => {
            a.put("sequenceId", sequence_id);
            a.put("functionName", function_name);
            a.put("variables", vars_of(vars)?);
            "record_export"
        }
        Command::Replay {
            id,
            vars,
            continue_on_error,
            scenario,
            detail,
        } => {
            a.put("sequenceId", id);
            a.put("variables", vars_of(vars)?);
            a.put("continueOnError", continue_on_error);
            a.put("scenarioSlug", scenario);
            a.put("detail", detail);
            "record_replay"
        }
    };
    Ok(Some((name, Value::Object(a.0))))
}

/// `trace`'s arguments of `getStepTrace` (`step` a number when it is one).
fn trace_args(cmd: &Command, a: &mut Args) {
    if let Command::Trace {
        slug,
        step,
        run,
        action,
        moment,
    } = cmd
    {
        a.put("scenarioSlug", slug);
        a.put("runId", run);
        a.put("action", action);
        a.put("moment", moment);
        a.put(
            "step",
            step.parse::<u64>().map_or(json!(step), |n| json!(n)),
        );
    }
}

/// The context the flags describe.
///
/// Each flag wins over its `HARSHJUDGE_*` variable, read through
/// [`crate::settings::McpSettings`] (a bad value is an error naming it).
pub fn context(cli: &Cli) -> Result<Context, CliError> {
    let env = crate::settings::McpSettings::from_env()?;
    let root = match cli.cwd.clone().or(env.project) {
        Some(d) => d,
        None => std::env::current_dir().map_err(|source| CliError::CurrentDir { source })?,
    };
    // The secrets HARSHJUDGE_SECRETS names: masked in every file the server
    // or a command writes (evidence, traces), as the harness masks them (its
    // replies are not: the agent reads what the page shows).
    for (name, value) in harshjudge_browser::settings::secrets(&[])? {
        harshjudge_browser::secrets::declare(&name, value.as_deref())?;
    }
    let mut ctx = Context::new(root)?;
    ctx.max_evidence_bytes = cli
        .max_evidence_bytes
        .or(env.max_evidence_bytes)
        .unwrap_or(DEFAULT_MAX_EVIDENCE_BYTES);
    ctx.dashboard_on_init = match cli.dashboard.as_deref() {
        Some(flag) => flag == "on",
        None => env.dashboard.unwrap_or(true),
    };
    for r in cli.allow_roots.iter().chain(&env.allowed_roots) {
        if !r.as_os_str().is_empty() {
            ctx.allow_root(r)?;
        }
    }
    Ok(ctx)
}

/// What the server lists at first: `--tools`, else `HARSHJUDGE_MCP_TOOLS`,
/// else every tool with `--output-schemas` and the start set without.
pub fn tools(cli: &Cli) -> Result<crate::server::Tools, CliError> {
    use crate::server::Tools;
    if let Some(t) = cli.tools.as_deref().and_then(Tools::parse) {
        return Ok(t);
    }
    let env = crate::settings::McpSettings::from_env()?;
    Ok(match env.all_tools {
        Some(true) => Tools::All,
        Some(false) => Tools::Start,
        None if cli.output_schemas => Tools::All,
        None => Tools::Start,
    })
}

/// `report`: writes the HTML report; `{index, scenarios, runs}` (the index
/// path absolute, to open it), or `{error, code}`.
pub fn report(ctx: &Context) -> (Value, bool) {
    let store = match ctx.require_init() {
        Ok(s) => s,
        Err(e) => return (json!({"error": e.message, "code": e.code.as_str()}), false),
    };
    match harshjudge_store::report::html::write(store.dir()) {
        Ok(r) => (
            json!({
                "index": r.index.to_string_lossy(),
                "scenarios": r.scenarios,
                "runs": r.runs,
            }),
            true,
        ),
        Err(e) => {
            let e = crate::error::ToolError::from(e);
            (
                json!({"error": format!("cannot write the report: {}", e.message), "code": e.code.as_str()}),
                false,
            )
        }
    }
}

/// `init-agent`: the skill folder and `.mcp.json` ([`crate::skill::init_agent`]),
/// what was written; or `{error, code}` and nothing written.
pub fn init_agent(
    ctx: &Context,
    dir: &std::path::Path,
    command: &str,
    force: bool,
) -> (Value, bool) {
    let opts = crate::skill::InitAgent {
        skills_dir: dir.to_path_buf(),
        command: command.to_string(),
        force,
    };
    match crate::skill::init_agent(ctx.root(), &opts) {
        Ok(v) => (v, true),
        Err(e) => (
            json!({"error": e.to_string(), "code": e.code().as_str()}),
            false,
        ),
    }
}

/// `merge DIR... --into DIR` ([`harshjudge_store::report::merge::merge`]): what was copied,
/// renumbered, skipped, and where the reports are; or `{error, code}`.
pub fn merge(dirs: &[PathBuf], into: &std::path::Path) -> (Value, bool) {
    match harshjudge_store::report::merge::merge(dirs, into) {
        Ok(m) => {
            let o = &m.outcome;
            let show = |v: &[PathBuf]| {
                v.iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
            };
            (
                json!({
                    "into": m.into.to_string_lossy(),
                    "copiedRuns": o.copied.len(),
                    "alreadyPresent": o.already_present,
                    "renumbered": o.renumbered.iter().map(|(s, r, old, new)| json!({"scenario": s, "runId": r, "from": old, "to": new})).collect::<Vec<_>>(),
                    "unfinishedRuns": show(&o.unfinished),
                    "skippedLinks": show(&o.skipped_links),
                    "scenarios": o.scenarios,
                    "changed": o.changed,
                    "junit": m.junit.to_string_lossy(),
                    "report": m.report.to_string_lossy(),
                }),
                true,
            )
        }
        Err(e) => {
            let e = crate::error::ToolError::from(e);
            (
                json!({"error": format!("merge failed: {}", e.message), "code": e.code.as_str()}),
                false,
            )
        }
    }
}

/// `replay <runId>`: runs the run's `replay.sh` (its output goes to stderr) and
/// reports the new run; `None` when `id` is not a run (then it is a sequence).
pub fn replay_run(ctx: &Context, id: &str, extra_args: bool) -> Option<(Value, bool)> {
    let run = harshjudge_store::store::RunId::new(id).ok()?;
    let store = ctx.store();
    let slug = store.find_run(&run).ok()??;
    let script = store.scenario(&slug).run(&run).replay_script();
    if !script.is_file() {
        return Some((
            json!({
                "error": format!("run {run} has no replay.sh: only runs recorded by `cargo test` can be replayed this way (an agent's run can be replayed from a recorded sequence: record_replay)"),
                "code": "NOT_FOUND",
            }),
            false,
        ));
    }
    if extra_args {
        return Some((
            json!({"error": "--var, --continue-on-error and --scenario apply to sequences, not to runs", "code": "INVALID_INPUT"}),
            false,
        ));
    }
    let before: std::collections::BTreeSet<_> = store
        .scenario(&slug)
        .runs()
        .unwrap_or_default()
        .into_iter()
        .collect();
    let status = std::process::Command::new(&script)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::from(std::io::stderr()))
        .status();
    let status = match status {
        Ok(s) => s,
        Err(e) => {
            return Some((
                json!({"error": format!("{}: {e}", script.display()), "code": "INTERNAL"}),
                false,
            ));
        }
    };
    let new_run = store
        .scenario(&slug)
        .runs()
        .unwrap_or_default()
        .into_iter()
        .find(|r| !before.contains(r));
    let result = new_run
        .as_ref()
        .and_then(|r| store.scenario(&slug).run(r).result().ok().flatten());
    let ok = status.success();
    Some((
        json!({
            "replayed": run.as_str(),
            "scenarioSlug": slug.as_str(),
            "runId": new_run.map(|r| r.to_string()),
            "status": result.map(|r| r.status.as_str()),
            "exitCode": status.code(),
        }),
        ok,
    ))
}

/// Runs one CLI command: the JSON to print and whether it succeeded.
pub fn run_command(ctx: &Context, name: &str, args: Value) -> (Value, bool) {
    let out = crate::call(ctx, name, Some(args));
    let ok = !out.is_error();
    (out.value, ok)
}

/// Whether a command prints its tool's text as a model reads it (the lean
/// shape, [`crate::tools::lean::text`]) rather than JSON: `trace`, whose
/// answer is lines.
pub fn prints_text(cmd: &Command) -> bool {
    matches!(cmd, Command::Trace { .. })
}

/// Runs one CLI command that prints text ([`prints_text`]): the tool's lean
/// text on success, else the `{"error", "code"}` JSON.
pub fn run_text_command(ctx: &Context, name: &str, args: Value) -> Result<String, Value> {
    let browser = !args["action"].is_null();
    let out = crate::call(ctx, name, Some(args));
    if browser {
        // `trace --action`'s browser was launched for this command only.
        let agent = ctx.agent();
        let mine = agent.clone();
        let _ = agent.block_on(async move { mine.browsers.shutdown().await });
    }
    if out.is_error() {
        return Err(out.value);
    }
    Ok(crate::tools::lean::text(ctx, name, &out.value).unwrap_or_else(|| out.value.to_string()))
}

/// The thresholds of `judge-calibrate`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Thresholds {
    /// `--min-precision`.
    pub precision: Option<f64>,
    /// `--min-recall`.
    pub recall: Option<f64>,
    /// `--min-agreement`.
    pub agreement: Option<f64>,
}

/// `judge-calibrate LABELS`: the configured judge over the labelled steps
/// ([`harshjudge_store::judge::calibrate`]), its scores and every verdict; failed
/// (exit 1) when a score is under its threshold, or on bad input.
pub fn judge_calibrate(ctx: &Context, labels: &std::path::Path, min: Thresholds) -> (Value, bool) {
    let err =
        |message: String, code: Code| (json!({"error": message, "code": code.as_str()}), false);
    let labels_path = if labels.is_absolute() {
        labels.to_path_buf()
    } else {
        ctx.root().join(labels)
    };
    let labels = match harshjudge_store::judge::read_labels(&labels_path) {
        Ok(l) => l,
        Err(e) => return err(e.to_string(), Code::InvalidInput),
    };
    let settings = match harshjudge_store::judge::JudgeSettings::from_env() {
        Ok(s) => s,
        Err(e) => return err(e.to_string(), Code::InvalidInput),
    };
    let Some(judge) = settings.judge else {
        return err(
            "no judge is configured: set HARSHJUDGE_JUDGE_CMD, or HARSHJUDGE_JUDGE_URL and HARSHJUDGE_JUDGE_MODEL, to the judge to calibrate".into(),
            Code::InvalidInput,
        );
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return err(format!("cannot start the runtime: {e}"), Code::InvalidInput),
    };
    let store = ctx.store();
    let scores = match rt.block_on(harshjudge_store::judge::calibrate(
        store,
        &labels,
        judge.as_ref(),
        settings.uncertain_passes,
    )) {
        Ok(c) => c,
        Err(e) => return err(e.to_string(), Code::NotFound),
    };
    let mut under = Vec::new();
    for (name, got, min) in [
        ("precision", scores.precision, min.precision),
        ("recall", scores.recall, min.recall),
        ("agreement", scores.agreement, min.agreement),
    ] {
        if let Some(min) = min
            && got < min
        {
            under.push(format!("{name} {got:.3} is under --min-{name} {min}"));
        }
    }
    let mut value = serde_json::to_value(&scores).unwrap_or(Value::Null);
    if under.is_empty() {
        (value, true)
    } else {
        if let Value::Object(m) = &mut value {
            m.insert("error".into(), json!(under.join("; ")));
            m.insert("code".into(), json!("BELOW_THRESHOLD"));
        }
        (value, false)
    }
}

/// `heal <scenario>` ([`crate::heal::heal`]): the proposed change (its diff)
/// and, with `--apply`, where it was recorded; or `{error, code}` and nothing written.
pub fn heal(
    ctx: &Context,
    scenario: &str,
    run: Option<&str>,
    source_root: Option<&std::path::Path>,
    apply: bool,
    live: bool,
    base_url: Option<&str>,
) -> (Value, bool) {
    let env_url = match crate::settings::base_url_from_env() {
        Ok(url) => url,
        Err(e) => {
            return (
                json!({"error": e.to_string(), "code": Code::InvalidInput.as_str()}),
                false,
            );
        }
    };
    let live = match base_url.map(String::from).or(env_url) {
        Some(url) => Some(url),
        None if live => match ctx
            .store()
            .read_config()
            .ok()
            .map(|c| c.base_url)
            .filter(|u| !u.is_empty())
        {
            Some(url) => Some(url),
            None => {
                return (
                    json!({"error": "--live needs the app's URL: give --base-url URL, set HARSHJUDGE_BASE_URL, or baseUrl in .harshJudge/config.yaml", "code": Code::InvalidInput.as_str()}),
                    false,
                );
            }
        },
        None => None,
    };
    let root = match source_root {
        Some(r) if r.is_absolute() => r.to_path_buf(),
        Some(r) => ctx.root().join(r),
        None => ctx.root().to_path_buf(),
    };
    let req = crate::heal::HealRequest {
        scenario: scenario.to_string(),
        run: run.map(str::to_string),
        source_root: root,
        apply,
        live,
    };
    match crate::heal::heal(ctx.store(), &req) {
        Ok(h) => (serde_json::to_value(&h).unwrap_or(Value::Null), true),
        Err(e) => {
            let code = match &e {
                crate::heal::HealError::UnknownScenario { .. } => Code::NotFound,
                _ => Code::InvalidInput,
            };
            (
                json!({"error": e.to_string(), "code": code.as_str()}),
                false,
            )
        }
    }
}
