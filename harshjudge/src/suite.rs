//! What one harness invocation adds to libtest's command line (`--retries`,
//! `--resume`, `--last-failed`, `--fail-on-flaky`, `--shard`, `--rejudge`,
//! `--rejudge-run`), the suite checkpoint that makes `--resume` and
//! `--last-failed` possible, and Ctrl-C / SIGTERM.
//!
//! The checkpoint is `.harshJudge/.suite/{test binary}.json`, rewritten
//! atomically whenever a scenario starts or ends and once its judgment is
//! known: which scenarios passed, failed, were flaky, or were still pending or
//! running when the process stopped, and for each finished one its execution
//! (`executed`: the code's own outcome) and its judgment (`judged`: the
//! verdicts of its steps with an expectation) apart.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

use serde::{Deserialize, Serialize};

use crate::settings::{env, env_bool};
use crate::store::{
    RunId, RunResult, RunStatus, Slug, StepStatus, Store, StoreError, VerdictState, now_iso,
};

/// Flags of ours, taken out of the command line before libtest parses the rest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SuiteFlags {
    /// `--retries N` (else `HARSHJUDGE_RETRIES`): attempts after a failure, for
    /// scenarios that set no `retries` of their own.
    pub retries: Option<u32>,
    /// `--resume` (else `HARSHJUDGE_RESUME=1`): rerun only the scenarios the last
    /// invocation did not finish; reuse the others' results.
    pub resume: bool,
    /// `--last-failed` (else `HARSHJUDGE_LAST_FAILED=1`): run only the scenarios
    /// that failed (or were interrupted) last time.
    pub last_failed: bool,
    /// `--fail-on-flaky` (else `HARSHJUDGE_FLAKY=fail`): a scenario that passes
    /// only on a retry fails the suite.
    pub fail_on_flaky: bool,
    /// `--shard i/n`: run only the `i`-th of `n` shards of the scenarios
    /// ([`crate::shard`]). Under cargo-nextest, use `--partition` instead.
    pub shard: Option<crate::shard::Shard>,
    /// `--update-snapshots` (else `HARSHJUDGE_UPDATE_SNAPSHOTS=1`): `to_have_screenshot`
    /// writes the baselines that are missing or differ, and passes.
    pub update_snapshots: bool,
    /// `--rejudge`: re-make the verdicts of each selected scenario's latest
    /// finished run from its recorded evidence; nothing runs.
    pub rejudge: bool,
    /// `--rejudge-run RUN_ID`: re-make every verdict of that one run (never
    /// reused), as `judge/replay.sh` does; nothing runs.
    pub rejudge_run: Option<String>,
    /// libtest's positional filters after the first (libtest-mimic's
    /// `Arguments` takes one): as in libtest, a test runs when it matches any
    /// of them.
    pub extra_filters: Vec<String>,
}

/// libtest's options that take a value (`--skip X`): that value is not a filter.
const LIBTEST_VALUED: [&str; 6] = [
    "--test-threads",
    "--logfile",
    "--skip",
    "--color",
    "--format",
    "-Z",
];

/// A bad flag or variable.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct FlagError(pub String);

impl From<crate::settings::SettingError> for FlagError {
    fn from(e: crate::settings::SettingError) -> Self {
        FlagError(e.to_string())
    }
}

fn parse_retries(v: &str, from: &str) -> Result<u32, FlagError> {
    match v.trim().parse::<u32>() {
        Ok(n) if n <= 10 => Ok(n),
        _ => Err(FlagError(format!(
            "{from} {v:?} is invalid: expected a number of retries from 0 to 10"
        ))),
    }
}

fn parse_run_id(v: &str) -> Result<String, FlagError> {
    RunId::new(v.trim()).map(|r| r.to_string()).map_err(|e| {
        FlagError(format!(
            "--rejudge-run {v:?} is invalid ({e}): expected a run id, the name of a folder in .harshJudge/scenarios/*/runs/"
        ))
    })
}

impl SuiteFlags {
    /// Splits `args` (program name first) into libtest's arguments and ours.
    /// The environment gives the defaults; flags win.
    pub fn split(
        args: impl IntoIterator<Item = String>,
    ) -> Result<(Vec<String>, SuiteFlags), FlagError> {
        let mut flags = SuiteFlags::from_env()?;
        let mut it = args.into_iter();
        // The program name, then the arguments.
        let mut rest: Vec<String> = it.next().into_iter().collect();
        let mut has_filter = false;
        let mut only_filters = false;
        while let Some(a) = it.next() {
            let positional = only_filters || a == "-" || !a.starts_with('-');
            if positional {
                // libtest-mimic parses the first; the others are ours.
                if has_filter {
                    flags.extra_filters.push(a);
                } else {
                    has_filter = true;
                    rest.push(a);
                }
                continue;
            }
            match a.as_str() {
                "--" => {
                    only_filters = true;
                    rest.push(a);
                }
                _ if LIBTEST_VALUED.contains(&a.as_str()) => {
                    rest.push(a);
                    rest.extend(it.next());
                }
                "--resume" => flags.resume = true,
                "--last-failed" => flags.last_failed = true,
                "--fail-on-flaky" => flags.fail_on_flaky = true,
                "--update-snapshots" => flags.update_snapshots = true,
                "--retries" => {
                    let v = it.next().ok_or_else(|| {
                        FlagError("--retries needs a number, e.g. --retries 2".into())
                    })?;
                    flags.retries = Some(parse_retries(&v, "--retries")?);
                }
                _ if a.starts_with("--retries=") => {
                    flags.retries = Some(parse_retries(&a["--retries=".len()..], "--retries")?);
                }
                "--shard" => {
                    let v = it.next().ok_or_else(|| {
                        FlagError(
                            "--shard needs a value i/n (the i-th of n shards), e.g. --shard 2/3"
                                .into(),
                        )
                    })?;
                    flags.shard =
                        Some(crate::shard::Shard::parse(&v, "--shard").map_err(FlagError)?);
                }
                "--rejudge" => flags.rejudge = true,
                "--rejudge-run" => {
                    let v = it.next().ok_or_else(|| {
                        FlagError(
                            "--rejudge-run needs a run id, e.g. --rejudge-run 20261123T101500123Z-a1b2c3 (the name of a folder in .harshJudge/scenarios/*/runs/)"
                                .into(),
                        )
                    })?;
                    flags.rejudge_run = Some(parse_run_id(&v)?);
                }
                _ if a.starts_with("--rejudge-run=") => {
                    flags.rejudge_run = Some(parse_run_id(&a["--rejudge-run=".len()..])?);
                }
                _ if a.starts_with("--shard=") => {
                    flags.shard = Some(
                        crate::shard::Shard::parse(&a["--shard=".len()..], "--shard")
                            .map_err(FlagError)?,
                    );
                }
                _ => rest.push(a),
            }
        }
        if flags.resume && flags.last_failed {
            return Err(FlagError(
                "--resume and --last-failed cannot be combined: --resume continues an interrupted invocation, --last-failed reruns what failed".into(),
            ));
        }
        if flags.rejudge && flags.rejudge_run.is_some() {
            return Err(FlagError(
                "--rejudge and --rejudge-run cannot be combined: --rejudge re-judges the latest run of each selected scenario, --rejudge-run one run; use one of them".into(),
            ));
        }
        if flags.rejudging() && flags.resume {
            return Err(FlagError(
                "--rejudge and --resume cannot be combined: --rejudge runs nothing (it re-makes verdicts from recorded evidence), --resume continues an interrupted invocation (and re-judges what it left unjudged); use one of them".into(),
            ));
        }
        Ok((rest, flags))
    }

    /// Whether this invocation re-judges instead of running (`--rejudge` or `--rejudge-run`).
    pub fn rejudging(&self) -> bool {
        self.rejudge || self.rejudge_run.is_some()
    }

    /// The defaults from `HARSHJUDGE_RETRIES`, `HARSHJUDGE_RESUME`,
    /// `HARSHJUDGE_LAST_FAILED` and `HARSHJUDGE_FLAKY`.
    pub fn from_env() -> Result<SuiteFlags, FlagError> {
        Ok(SuiteFlags {
            retries: env("HARSHJUDGE_RETRIES")?
                .map(|v| parse_retries(&v, "setting HARSHJUDGE_RETRIES ="))
                .transpose()?,
            resume: env_bool("HARSHJUDGE_RESUME", false)?,
            last_failed: env_bool("HARSHJUDGE_LAST_FAILED", false)?,
            fail_on_flaky: match env("HARSHJUDGE_FLAKY")?.as_deref() {
                None | Some("pass") => false,
                Some("fail") => true,
                Some(other) => {
                    return Err(FlagError(format!(
                        "setting HARSHJUDGE_FLAKY={other:?} is invalid: expected pass (flaky scenarios pass, the default) or fail"
                    )));
                }
            },
            shard: None,
            update_snapshots: env_bool("HARSHJUDGE_UPDATE_SNAPSHOTS", false)?,
            rejudge: false,
            rejudge_run: None,
            extra_filters: Vec::new(),
        })
    }
}

/// Where a scenario stands in the checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScenarioState {
    /// Selected, not started yet.
    Pending,
    /// Started, not finished.
    Running,
    /// Passed.
    Pass,
    /// Failed.
    Fail,
    /// Passed after a failed attempt.
    Flaky,
    /// Stopped by Ctrl-C or SIGTERM.
    Interrupted,
}

impl ScenarioState {
    /// Whether the scenario ended with a result (reusable by `--resume`).
    pub fn finished(self) -> bool {
        matches!(self, Self::Pass | Self::Fail | Self::Flaky)
    }
    /// Whether `--last-failed` reruns it.
    pub fn failed(self) -> bool {
        matches!(self, Self::Fail | Self::Interrupted | Self::Running)
    }
}

/// One scenario in the checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioEntry {
    /// Where it stands.
    pub state: ScenarioState,
    /// Its (last attempt's) run.
    #[serde(default)]
    pub run_id: Option<String>,
    /// Attempts made.
    #[serde(default)]
    pub attempts: u32,
    /// Its result was taken over from an earlier invocation (`--resume`).
    #[serde(default)]
    pub reused: bool,
    /// How its run's code ended, verdicts aside (`pass` / `fail`); absent
    /// while it has not ended, after an interruption, and in checkpoints
    /// written before this field existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executed: Option<Executed>,
    /// Where its run's judgment stands (`pass` / `fail` / `pending`); absent
    /// when no executed step has an expectation (nothing to judge), when
    /// `executed` is absent, and in older checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged: Option<Judged>,
}

impl ScenarioEntry {
    /// A new entry (not reused), without execution or judgment yet.
    pub fn new(state: ScenarioState, run_id: Option<String>, attempts: u32) -> ScenarioEntry {
        ScenarioEntry {
            state,
            run_id,
            attempts,
            reused: false,
            executed: None,
            judged: None,
        }
    }

    /// Sets `executed` and `judged` from the run's `result.json` ([`Executed::of`],
    /// [`Judged::of`]), and the combined `state` when the run ended (pass ↔
    /// fail as its `status` now says; a flaky pass stays flaky, and a flaky
    /// pass counted as failed by `--fail-on-flaky` stays failed).
    pub fn note_result(&mut self, result: &RunResult) {
        let pending = self.judged == Some(Judged::Pending);
        self.executed = Executed::of(result);
        // A `pending` noted from the code's expectations stands while
        // `result.json` knows of no verdict.
        self.judged = self
            .executed
            .and_then(|_| Judged::of(result).or(pending.then_some(Judged::Pending)));
        if self.executed.is_none() {
            return;
        }
        self.state = match (result.status, self.state) {
            (RunStatus::Fail, _) => ScenarioState::Fail,
            (RunStatus::Pass, ScenarioState::Flaky) => ScenarioState::Flaky,
            (RunStatus::Pass, ScenarioState::Fail) if result.flaky => ScenarioState::Fail,
            (RunStatus::Pass, _) if result.flaky => ScenarioState::Flaky,
            (RunStatus::Pass, _) => ScenarioState::Pass,
            (RunStatus::Running, state) => state,
        };
    }
}

/// How a run's code ended, verdicts aside (the checkpoint's `executed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Executed {
    /// Every executed step's code passed.
    Pass,
    /// A step's code failed.
    Fail,
}

impl Executed {
    /// The execution of a run that ended (`executedStatus`, else `status`);
    /// `None` while it runs or when it was interrupted (it has no outcome).
    pub fn of(result: &RunResult) -> Option<Executed> {
        if result.interrupted || result.status == RunStatus::Running {
            return None;
        }
        Some(match result.executed() {
            RunStatus::Pass => Executed::Pass,
            _ => Executed::Fail,
        })
    }
}

/// Where a run's judgment stands (the checkpoint's `judged`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Judged {
    /// Every executed step with an expectation has a verdict, none failing.
    Pass,
    /// Every such step has a verdict, and one fails it (`fail`, or
    /// `uncertain` when that does not pass).
    Fail,
    /// A step with an expectation has no verdict yet (`pending`), or its judge
    /// gave none (`error`): `--resume` and `--rejudge` complete it.
    Pending,
}

impl Judged {
    /// The judgment of a run from its steps' `verdict`: pending when one is
    /// pending or an error (or a step with an expectation has no verdict
    /// state), else fail when one is `fail` (or `uncertain` and its step did
    /// not pass), else pass; `None` when no executed step has an expectation.
    pub fn of(result: &RunResult) -> Option<Judged> {
        let mut judged = None;
        for step in &result.steps {
            let Some(state) = step.verdict else {
                if step.expectation.is_some() && step.status != StepStatus::Skipped {
                    return Some(Judged::Pending);
                }
                continue;
            };
            let passed = match state {
                VerdictState::Skipped => continue,
                VerdictState::Pending | VerdictState::Error => return Some(Judged::Pending),
                VerdictState::Pass => true,
                VerdictState::Fail => false,
                // Whether it passes is `HARSHJUDGE_UNCERTAIN`'s: the combined status says.
                VerdictState::Uncertain => step.status == StepStatus::Pass,
            };
            if !passed {
                judged = Some(Judged::Fail);
            } else if judged.is_none() {
                judged = Some(Judged::Pass);
            }
        }
        judged
    }

    /// Whether the judgment is incomplete (`--resume` re-judges it).
    pub fn pending(self) -> bool {
        self == Judged::Pending
    }
}

/// `.harshJudge/.suite/{binary}.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    /// The test binary (without cargo's hash).
    pub binary: String,
    /// The process of the invocation.
    pub pid: u32,
    /// ISO start.
    pub started_at: String,
    /// ISO end; `None` while running or when the process stopped early.
    pub finished_at: Option<String>,
    /// Stopped by Ctrl-C or SIGTERM.
    #[serde(default)]
    pub interrupted: bool,
    /// Every scenario this binary ran, here or in an earlier invocation.
    pub scenarios: BTreeMap<String, ScenarioEntry>,
    /// Every scenario the binary has (its registry, whatever the filter or
    /// shard selected) at this invocation; empty in checkpoints written before
    /// this field existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suite: Vec<String>,
    /// The scenarios this binary had in an earlier invocation and no longer
    /// has (removed from the code), each with when its absence was first seen
    /// (ISO 8601). Their runs stay; the report marks them removed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub removed: BTreeMap<String, String>,
}

/// A scenario that is in no test binary any more ([`removed_scenarios`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removed {
    /// The test binary that had it.
    pub binary: String,
    /// When its binary was first run without it (ISO 8601).
    pub since: String,
}

/// What this binary no longer has: the scenarios of its previous checkpoint
/// (its registry, the scenarios it ran, and those already removed) that are
/// not in `suite`, each with when that was first seen (`now` for a new one).
/// A filtered or sharded invocation still has its whole registry in `suite`,
/// so it removes nothing it did not select.
fn removed_since(
    previous: Option<&Checkpoint>,
    suite: &[&str],
    now: &str,
) -> BTreeMap<String, String> {
    let Some(p) = previous else {
        return BTreeMap::new();
    };
    let known = (p.suite.iter())
        .chain(p.scenarios.keys())
        .chain(p.removed.keys());
    known
        .filter(|slug| !suite.contains(&slug.as_str()))
        .map(|slug| {
            let since = p.removed.get(slug).cloned();
            (slug.clone(), since.unwrap_or_else(|| now.to_string()))
        })
        .collect()
}

/// The scenarios that some test binary's latest invocation no longer has and
/// no binary has now, from every checkpoint in `.suite/` (an unreadable one
/// is left out). A scenario moved to another binary is not removed.
pub fn removed_scenarios(store: &Store) -> BTreeMap<String, Removed> {
    let checkpoints: Vec<Checkpoint> = (store.suite_checkpoints().iter())
        .filter_map(|path| store.read_file(path).ok())
        .filter_map(|bytes| serde_json::from_slice(&bytes).ok())
        .collect();
    let present: BTreeSet<&str> = checkpoints
        .iter()
        .flat_map(|c| c.suite.iter().map(String::as_str))
        .collect();
    let mut out: BTreeMap<String, Removed> = BTreeMap::new();
    for c in &checkpoints {
        for (slug, since) in &c.removed {
            if present.contains(slug.as_str()) {
                continue;
            }
            let newer = out.get(slug).is_none_or(|r| r.since < *since);
            if newer {
                let binary = c.binary.clone();
                let since = since.clone();
                out.insert(slug.clone(), Removed { binary, since });
            }
        }
    }
    out
}

/// The test binary's name without cargo's `-{hash}` suffix.
pub fn binary_name() -> String {
    let exe = std::env::current_exe().ok();
    let stem = exe
        .as_deref()
        .and_then(Path::file_stem)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "suite".into());
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            name.to_string()
        }
        _ => stem,
    }
}

/// The checkpoint of this invocation, written through on every change.
pub struct SuiteLog {
    /// Where the checkpoint is written (never through a link).
    store: Store,
    path: PathBuf,
    state: Mutex<Checkpoint>,
    /// The scenarios whose entry this invocation wrote.
    touched: Mutex<BTreeSet<String>>,
}

/// The `result.json` of `slug`'s run `run`, when both ids are valid and it is readable.
fn read_run(store: &Store, slug: &str, run: &str) -> Option<RunResult> {
    let slug = Slug::new(slug).ok()?;
    let run = RunId::new(run).ok()?;
    store.read_result(&slug, &run).ok().flatten()
}

impl SuiteLog {
    /// The checkpoint file of `binary` in `store`.
    pub fn path(store: &Store, binary: &str) -> PathBuf {
        store.suite_checkpoint(binary)
    }

    /// The previous invocation's checkpoint, if any (an unreadable one is
    /// reported and treated as absent).
    pub fn previous(store: &Store, binary: &str) -> Result<Option<Checkpoint>, StoreError> {
        let path = Self::path(store, binary);
        store.confine(&path)?;
        match store.read_file(&path) {
            Ok(b) => serde_json::from_slice(&b)
                .map(Some)
                .map_err(|e| StoreError::Corrupt {
                    path,
                    problem: format!("not a valid suite checkpoint: {e}"),
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(StoreError::Io { path, source }),
        }
    }

    /// Updates the entries of the latest checkpoint of `binary` in place (its
    /// start, end and other entries kept): what `--rejudge` changes, the
    /// judgment of runs an earlier invocation executed. No checkpoint, nothing
    /// to update.
    pub fn update_previous(
        store: &Store,
        binary: &str,
        update: impl FnOnce(&mut BTreeMap<String, ScenarioEntry>),
    ) -> Result<(), StoreError> {
        let Some(mut checkpoint) = Self::previous(store, binary)? else {
            return Ok(());
        };
        update(&mut checkpoint.scenarios);
        let text = serde_json::to_string_pretty(&checkpoint).expect("checkpoint serializes");
        store.write_file(&Self::path(store, binary), text.as_bytes())
    }

    /// Starts this invocation's checkpoint: entries of earlier invocations carry
    /// over; `selected` scenarios start `pending`; `suite` is every scenario the
    /// binary has (its registry), and what the previous checkpoint knew of and
    /// `suite` lacks is recorded as removed.
    pub fn begin(
        store: &Store,
        binary: &str,
        suite: &[&str],
        previous: Option<&Checkpoint>,
        selected: &[&str],
        reused: &BTreeMap<String, ScenarioEntry>,
    ) -> Result<SuiteLog, StoreError> {
        let mut scenarios = previous.map(|p| p.scenarios.clone()).unwrap_or_default();
        for slug in selected {
            scenarios.insert(
                slug.to_string(),
                ScenarioEntry::new(ScenarioState::Pending, None, 0),
            );
        }
        for (slug, e) in reused {
            let mut e = e.clone();
            e.reused = true;
            scenarios.insert(slug.clone(), e);
        }
        let started_at = now_iso();
        // What the binary had last time, whether or not its entries carry over
        // (they do for `--resume` and `--last-failed` only).
        let on_disk = match previous {
            Some(_) => None,
            None => Self::previous(store, binary).ok().flatten(),
        };
        let removed = removed_since(previous.or(on_disk.as_ref()), suite, &started_at);
        let log = SuiteLog {
            store: store.clone(),
            path: Self::path(store, binary),
            state: Mutex::new(Checkpoint {
                binary: binary.into(),
                pid: std::process::id(),
                started_at,
                finished_at: None,
                interrupted: false,
                scenarios,
                suite: suite.iter().map(|s| s.to_string()).collect(),
                removed,
            }),
            touched: Mutex::new(BTreeSet::new()),
        };
        log.save()?;
        Ok(log)
    }

    fn save(&self) -> Result<(), StoreError> {
        let text = {
            let state = self.state.lock().expect("checkpoint lock");
            serde_json::to_string_pretty(&*state).expect("checkpoint serializes")
        };
        self.store.write_file(&self.path, text.as_bytes())
    }

    /// Records where `slug` stands now.
    pub fn set(&self, slug: &str, state: ScenarioState, run_id: Option<String>, attempts: u32) {
        self.set_entry(slug, ScenarioEntry::new(state, run_id, attempts));
    }

    /// Records where `slug` stands now, with its execution and judgment when
    /// its run's `result.json` is known ([`ScenarioEntry::note_result`]).
    pub fn set_entry(&self, slug: &str, entry: ScenarioEntry) {
        {
            let mut s = self.state.lock().expect("checkpoint lock");
            s.scenarios.insert(slug.to_string(), entry);
        }
        self.touched
            .lock()
            .expect("touched")
            .insert(slug.to_string());
        if let Err(e) = self.save() {
            eprintln!("harshjudge: the suite checkpoint could not be written: {e}");
        }
    }

    /// Ends the invocation (`interrupted` when a signal stopped it). The
    /// execution and judgment of every scenario this invocation ran are read
    /// again from their runs' `result.json` first: verdicts may have been
    /// recorded after the scenario's entry was last written.
    pub fn finish(&self, interrupted: bool) {
        let touched: Vec<String> = self
            .touched
            .lock()
            .expect("touched")
            .iter()
            .cloned()
            .collect();
        let mut fresh = Vec::new();
        for slug in touched {
            let run = {
                let s = self.state.lock().expect("checkpoint lock");
                s.scenarios.get(&slug).and_then(|e| e.run_id.clone())
            };
            if let Some(result) = run.and_then(|run| read_run(&self.store, &slug, &run)) {
                fresh.push((slug, result));
            }
        }
        {
            let mut s = self.state.lock().expect("checkpoint lock");
            for (slug, result) in &fresh {
                if let Some(e) = s.scenarios.get_mut(slug)
                    && e.state.finished()
                {
                    e.note_result(result);
                }
            }
            s.interrupted = interrupted;
            if interrupted {
                for e in s.scenarios.values_mut() {
                    if matches!(e.state, ScenarioState::Pending | ScenarioState::Running) {
                        e.state = ScenarioState::Interrupted;
                    }
                }
            } else {
                s.finished_at = Some(now_iso());
            }
        }
        if let Err(e) = self.save() {
            eprintln!("harshjudge: the suite checkpoint could not be written: {e}");
        }
    }
}

/// Quotes `s` for a POSIX shell.
pub(crate) fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// What `replay.sh` needs to rerun a scenario exactly.
#[derive(Clone, Debug)]
pub struct ReplayInfo {
    /// `CARGO_PKG_NAME`.
    pub package: String,
    /// The package root, as resolved at run time ([`crate::harness::package_root`]).
    pub package_root: PathBuf,
    /// The `.harshJudge/` folder (absolute).
    pub store_dir: PathBuf,
    /// `HARSHJUDGE_*` settings to pin (name, value).
    pub env: Vec<(String, String)>,
}

impl ReplayInfo {
    /// The settings of this process worth pinning: the base URL only when the
    /// user gave it (a suite's own app gets a new port each time), the
    /// evidence mode and the limits.
    pub fn from_env(package: &str, package_root: &Path, store_dir: &Path) -> ReplayInfo {
        let env = [
            "HARSHJUDGE_BASE_URL",
            "HARSHJUDGE_EVIDENCE",
            "HARSHJUDGE_FULL_PAGE",
            "HARSHJUDGE_STEP_TIMEOUT",
            "HARSHJUDGE_TIMEOUT",
            "HARSHJUDGE_WEBDRIVER_URL",
            "HARSHJUDGE_CHROMEDRIVER",
        ]
        .iter()
        .filter_map(|k| env(k).ok().flatten().map(|v| (k.to_string(), v)))
        .collect();
        let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        ReplayInfo {
            package: package.into(),
            package_root: abs(package_root),
            store_dir: abs(store_dir),
            env,
        }
    }

    /// Writes `run_dir/replay.sh`, which reruns the scenario whose last selected
    /// step is the test `test_name` (the steps before it run too).
    pub fn write(
        &self,
        run_dir: &Path,
        slug: &str,
        run_id: &str,
        test_name: &str,
    ) -> Result<(), StoreError> {
        let exe = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let mut s = String::new();
        s.push_str("#!/bin/sh\n");
        s.push_str(&format!(
            "# Reruns scenario \"{slug}\" as run {run_id} ran it: the same test binary,\n# the same exact filter, base URL and evidence mode. The new run is recorded\n# next to this one. Arguments are passed on to the test binary (e.g. --nocapture).\nset -e\ncd {}\n",
            sh_quote(&self.package_root.display().to_string())
        ));
        // The package root the run used, whatever the caller's environment says.
        s.push_str(&format!(
            "export CARGO_MANIFEST_DIR={}\n",
            sh_quote(&self.package_root.display().to_string())
        ));
        s.push_str(&format!(
            "export HARSHJUDGE_DIR={}\n",
            sh_quote(&self.store_dir.display().to_string())
        ));
        if !self.env.iter().any(|(k, _)| k == "HARSHJUDGE_BASE_URL") {
            s.push_str(
                "# No HARSHJUDGE_BASE_URL: the suite starts its own app (or reads config.yaml).\n",
            );
            s.push_str("unset HARSHJUDGE_BASE_URL\n");
        }
        for (k, v) in &self.env {
            s.push_str(&format!("export {k}={}\n", sh_quote(v)));
        }
        s.push_str(&format!(
            "bin={}\nif [ -x \"$bin\" ]; then\n  exec \"$bin\" --exact {} \"$@\"\nfi\necho \"replay.sh: $bin is gone (rebuilt or cleaned): running through cargo\" >&2\nexec cargo test -p {} --test {} -- --exact {} \"$@\"\n",
            sh_quote(&exe),
            sh_quote(test_name),
            sh_quote(&self.package),
            sh_quote(&binary_name()),
            sh_quote(test_name),
        ));
        let path = Store::replay_script(run_dir);
        Store::new(&self.store_dir).write_file(&path, s.as_bytes())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(|source| StoreError::Io { path, source })?;
        }
        Ok(())
    }
}

/// The signal that stopped the run (its exit code: 130 for SIGINT, 143 for
/// SIGTERM), 0 when none.
static SIGNALLED: AtomicI32 = AtomicI32::new(0);

/// The exit code a signal asks for, if one arrived.
pub fn signal_exit_code() -> Option<i32> {
    match SIGNALLED.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n),
    }
}

/// Listens for Ctrl-C and SIGTERM on the harness's runtime. The first stops
/// every running scenario (each marks its run interrupted, its files written,
/// its browser released) and lets the harness finish normally; a second one
/// stops chromedriver and exits at once.
pub(crate) fn listen_for_signals(rt: &tokio::runtime::Runtime) {
    rt.spawn(async {
        let Ok(mut term) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        else {
            return;
        };
        let (name, code) = tokio::select! {
            _ = tokio::signal::ctrl_c() => ("SIGINT (Ctrl-C)", 130),
            _ = term.recv() => ("SIGTERM", 143),
        };
        SIGNALLED.store(code, Ordering::SeqCst);
        eprintln!(
            "\nharshjudge: {name}: stopping the running scenarios and marking their runs interrupted (send it again to stop at once)"
        );
        crate::runner::interrupt_all(format!(
            "interrupted by {name} before the run ended; rerun with --resume to continue the suite"
        ));
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {},
            _ = term.recv() => {},
        }
        eprintln!("harshjudge: stopping at once");
        let _ = crate::store::flush_writes();
        crate::browser::stop_driver_now();
        std::process::exit(code);
    });
}

#[cfg(test)]
mod tests;
