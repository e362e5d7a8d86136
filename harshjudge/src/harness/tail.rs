//! The report tail, once every trial has its outcome: the files handed to the
//! background writer flushed, retention applied, the summary printed, and the
//! JUnit, HTML and GitHub step-summary reports published from the summary's
//! runs; then the exit code.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use libtest_mimic::{Conclusion, FormatSetting};

use crate::run_settings::Settings;
use harshjudge_store::store::Store;
use harshjudge_store::store::checkpoint::SuiteLog;

use super::consumers::HarnessSink;
use super::{EXIT_FAILED, EXIT_OK};

/// What the tail needs to know of the invocation.
pub(super) struct Tail<'a> {
    /// The run's browsers, killed as it ended: their profiles go before the process.
    pub exiting: harshjudge_browser::Exiting,
    pub store: &'a Store,
    pub settings: &'a Settings,
    pub sink: &'a HarnessSink,
    pub log: Option<Arc<SuiteLog>>,
    /// When the invocation started (the JUnit root's time).
    pub started: SystemTime,
    pub nextest: bool,
    pub verbose: bool,
    /// libtest prints JSON on stdout (`--format json`): our lines go to stderr.
    pub json: bool,
    /// Each scenario by slug (its title, tags and steps: the reports of those that did not run).
    pub scenarios_of:
        std::collections::HashMap<&'static str, &'static crate::registry::ScenarioDef>,
}

/// Finishes the invocation and returns its exit code: [`EXIT_FAILED`] when any
/// executed step failed (selected or not), 130/143 after Ctrl-C/SIGTERM.
pub(super) fn finish(t: Tail<'_>, conclusion: &Conclusion) -> i32 {
    // Every file handed to the background writer is on disk before we exit.
    if let Err(e) = harshjudge_store::store::flush_writes() {
        eprintln!("harshjudge: a file could not be written: {e}");
    }
    let summary = t.sink.summary.lock().expect("summary");
    // Retention (HARSHJUDGE_KEEP_RUNS): the scenarios that ran keep their newest runs.
    if let Some(keep) = t.settings.keep_runs {
        let ran: Vec<String> = summary.runs.iter().map(|r| r.slug.clone()).collect();
        for e in harshjudge_store::recorder::prune(t.store, &ran, keep).errors {
            eprintln!("harshjudge: {e}");
        }
    }
    let any_failure = !summary.failures.is_empty();
    let mut text = summary.render(t.store.dir(), t.verbose);
    let runs: Vec<harshjudge_store::report::junit::RunRef> = (summary.runs.iter())
        .filter(|r| !r.retried)
        .filter_map(|r| {
            r.run_dir
                .clone()
                .map(|dir| harshjudge_store::report::junit::RunRef {
                    dir,
                    earlier: r.earlier.clone(),
                })
        })
        .collect();
    let not_run: Vec<harshjudge_store::report::junit::NotRunRef> = (summary.not_run.iter())
        .map(|(slug, reason)| {
            let def = t.scenarios_of.get(slug.as_str());
            harshjudge_store::report::junit::NotRunRef {
                slug: slug.clone(),
                steps: def
                    .map(|d| d.steps.iter().map(|s| s.title.to_string()).collect())
                    .unwrap_or_default(),
                reason: reason.clone(),
                title: def.map(|d| d.title.to_string()).unwrap_or_default(),
                tags: def
                    .map(|d| d.tags.iter().map(|t| t.to_string()).collect())
                    .unwrap_or_default(),
            }
        })
        .collect();
    let binary = harshjudge_browser::process::binary_name();
    let errors: Vec<harshjudge_store::report::junit::InvocationError> =
        (summary.invocation_errors.iter())
            .map(
                |(stage, message)| harshjudge_store::report::junit::InvocationError {
                    binary: binary.clone(),
                    stage: stage.clone(),
                    message: message.clone(),
                    at: harshjudge_store::store::now_iso(),
                },
            )
            .collect();
    drop(summary);
    if !runs.is_empty() || !not_run.is_empty() || !errors.is_empty() {
        let publish = harshjudge_store::report::invocation::Publish {
            runs,
            started: t.started,
            junit: t.settings.junit.clone(),
            html: t.settings.html_report,
            step_summary: std::env::var_os("GITHUB_STEP_SUMMARY")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            invocation: harshjudge_store::report::invocation::invocation_id(t.nextest),
            not_run,
            errors,
        };
        let finished = std::mem::take(&mut *t.sink.finished.lock().expect("finished"));
        let lines = harshjudge_store::report::invocation::publish_with(t.store, &publish, finished);
        // nextest shows nothing a passing process prints: the lines are
        // printed once, after its summary.
        if t.nextest
            && let Err(e) = crate::server::announce_reports(t.store.dir(), &lines)
        {
            text.push_str(&format!(
                "harshjudge: the reports cannot be named after nextest's summary ({e})\n"
            ));
        }
        for line in lines {
            text.push_str(&line);
            text.push('\n');
        }
    }
    if !text.is_empty() {
        if t.json {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }
    // The browsers were killed at the end of the run; their profiles are gone
    // before the process is.
    t.exiting.wait();
    let signal = super::signals::signal_exit_code();
    if let Some(log) = &t.log {
        log.finish(signal.is_some());
    }
    if let Some(code) = signal {
        eprintln!(
            "harshjudge: the suite was interrupted; `-- --resume` reruns only what did not finish"
        );
        return code;
    }
    // Any failed step of an executed run fails the invocation, whether or not
    // its own trial was selected.
    if conclusion.has_failed() || any_failure {
        EXIT_FAILED
    } else {
        EXIT_OK
    }
}

/// Whether libtest prints JSON (`--format json`).
pub(super) fn json_format(args: &libtest_mimic::Arguments) -> bool {
    matches!(args.format, Some(FormatSetting::Json))
}
