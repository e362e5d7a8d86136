//! `harshjudge-mcp`: with no command, an MCP server over stdio; otherwise one
//! CLI command. stdout carries only the protocol or the command's JSON; logs
//! go to stderr.

use std::process::ExitCode;

use clap::Parser;
use harshjudge_mcp::cli::{self, Cli, CliError};

fn fail(e: CliError) -> ExitCode {
    eprintln!("{}", e.to_json());
    ExitCode::from(1)
}

/// A command's JSON: on stdout when it succeeded (exit 0), else on stderr (exit 1).
fn emit((value, ok): (serde_json::Value, bool)) -> ExitCode {
    if ok {
        println!("{value}");
        ExitCode::SUCCESS
    } else {
        eprintln!("{value}");
        ExitCode::from(1)
    }
}

fn main() -> ExitCode {
    let parsed = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            let text = e.render().to_string();
            // The message without the usage block, on one line.
            let first = text
                .split("\nUsage:")
                .next()
                .unwrap_or("invalid arguments")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let first = first.trim_start_matches("error: ");
            return fail(CliError::Usage {
                message: first.to_string(),
            });
        }
    };
    let ctx = match cli::context(&parsed) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    match &parsed.command {
        Some(cli::Command::Dashboard {
            what: cli::Dashboard::Serve { port },
        }) => return dashboard_serve(&ctx, *port),
        Some(cli::Command::Replay {
            id,
            vars,
            continue_on_error,
            scenario,
            detail,
        }) => {
            let extra = !vars.is_empty() || *continue_on_error || scenario.is_some() || *detail;
            if let Some(out) = cli::replay_run(&ctx, id, extra) {
                return emit(out);
            }
        }
        Some(cli::Command::Report) => return emit(cli::report(&ctx)),
        Some(cli::Command::InitAgent {
            dir,
            command,
            force,
        }) => return emit(cli::init_agent(&ctx, dir, command, *force)),
        Some(cli::Command::Merge { dirs, into }) => return emit(cli::merge(dirs, into)),
        Some(cli::Command::JudgeCalibrate {
            labels,
            min_precision,
            min_recall,
            min_agreement,
        }) => {
            let min = cli::Thresholds {
                precision: *min_precision,
                recall: *min_recall,
                agreement: *min_agreement,
            };
            return emit(cli::judge_calibrate(&ctx, labels, min));
        }
        Some(cli::Command::Heal {
            scenario,
            run,
            source_root,
            apply,
            live,
            base_url,
        }) => {
            return emit(cli::heal(
                &ctx,
                scenario,
                run.as_deref(),
                source_root.as_deref(),
                *apply,
                *live,
                base_url.as_deref(),
            ));
        }
        _ => {}
    }
    let call = match parsed.command.as_ref().map(cli::to_call).transpose() {
        Ok(c) => c.flatten(),
        Err(e) => return fail(e),
    };
    match call {
        Some((name, args)) if parsed.command.as_ref().is_some_and(cli::prints_text) => {
            match cli::run_text_command(&ctx, name, args) {
                Ok(text) => {
                    println!("{text}");
                    ExitCode::SUCCESS
                }
                Err(e) => emit((e, false)),
            }
        }
        Some((name, args)) => emit(cli::run_command(&ctx, name, args)),
        None => match cli::tools(&parsed) {
            Ok(tools) => serve(ctx, parsed.output_schemas, tools),
            Err(e) => fail(e),
        },
    }
}

/// Logs to stderr, filtered by `HARSHJUDGE_LOG` (read through the settings;
/// default `info`). A filter that does not parse is said once on stderr and
/// `info` is used, so a typo never silences the server.
fn init_logs() {
    let (filter, problem) = match harshjudge_mcp::settings::McpSettings::from_env().map(|s| s.log) {
        Ok(None) => (tracing_subscriber::EnvFilter::new("info"), None),
        Ok(Some(v)) => match tracing_subscriber::EnvFilter::try_new(&v) {
            Ok(f) => (f, None),
            Err(e) => (
                tracing_subscriber::EnvFilter::new("info"),
                Some(format!(
                    "HARSHJUDGE_LOG={v:?} is not a log filter ({e}); expected a level (error, warn, info, debug, trace) or directives like harshjudge_mcp=debug; using info"
                )),
            ),
        },
        Err(e) => (
            tracing_subscriber::EnvFilter::new("info"),
            Some(format!("{e}; using info")),
        ),
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false)
        .with_env_filter(filter)
        .init();
    if let Some(problem) = problem {
        tracing::warn!("{problem}");
    }
}

/// `dashboard serve`: the dashboard's HTTP server, in this process (`dashboard
/// open` starts it detached, its output going to .harshJudge/.dashboard.log).
fn dashboard_serve(ctx: &harshjudge_mcp::Context, port: u16) -> ExitCode {
    init_logs();
    match harshjudge_mcp::dashboard::server::run(ctx.root(), port) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::from(1)
        }
    }
}

fn serve(
    ctx: harshjudge_mcp::Context,
    output_schemas: bool,
    tools: harshjudge_mcp::server::Tools,
) -> ExitCode {
    init_logs();
    tracing::info!(project = %ctx.root().display(), "starting harshjudge MCP server");
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!(
                "{}",
                serde_json::json!({"error": format!("cannot start the async runtime: {e}"), "code": "INTERNAL"})
            );
            return ExitCode::from(1);
        }
    };
    let shape = if output_schemas {
        harshjudge_mcp::server::Shape::OutputSchemas
    } else {
        harshjudge_mcp::server::Shape::Lean
    };
    let server = harshjudge_mcp::server::Server::with_shape(ctx, shape).with_tools(tools);
    match rt.block_on(server.serve_stdio()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::from(1)
        }
    }
}
