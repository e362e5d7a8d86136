//! The reports of one invocation: JUnit XML, the GitHub step summary and the
//! HTML report, written once a harness process has finished its runs.
//!
//! An invocation may be several processes ([`invocation_id`]): under
//! cargo-nextest every process of one `cargo nextest run` (they share
//! `NEXTEST_RUN_ID`), each running one scenario; under `cargo test` (and
//! `cargo test --workspace`) every test binary that one cargo process runs, one
//! after the other (on Linux they share their parent, cargo: its pid and start
//! time name the invocation). Each process adds its runs to the invocation's
//! record (`.harshJudge/.suite/invocation-{id}.json`) and rewrites the reports
//! from the whole record. All of it happens under one lock
//! (`.harshJudge/.suite/.publish.lock`), so the last process leaves files that
//! hold every scenario of the invocation (the JUnit XML of `cargo test
//! --no-fail-fast` holds every target's), and no process overwrites a newer
//! report with an older one. A record belongs to one store: the packages of a
//! workspace each write their own `.harshJudge/` unless `HARSHJUDGE_DIR` names
//! one absolute folder for all.
//!
//! Elsewhere (not Linux, or a binary not started by cargo: by hand, by a
//! script, by `replay.sh`) a process is an invocation of its own, as before.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::junit::{InvocationError, NotRunRef, RunRef};
use super::reads::{Finished, Reads};
use crate::store::{Store, StoreError};

/// The invocation this process belongs to: `NEXTEST_RUN_ID` under
/// cargo-nextest; else, when the parent process is cargo, `cargo-{pid}-{start}`
/// of that parent (so every test binary of one `cargo test` shares it; Linux,
/// from `/proc/{ppid}/stat`); else `None` (this process alone).
pub fn invocation_id(nextest: bool) -> Option<String> {
    if nextest {
        return std::env::var("NEXTEST_RUN_ID")
            .ok()
            .filter(|v| !v.is_empty());
    }
    let parent = std::os::unix::process::parent_id();
    let stat = std::fs::read_to_string(format!("/proc/{parent}/stat")).ok()?;
    cargo_parent(parent, &stat)
}

/// `cargo-{pid}-{start time}` when `stat` (the parent's `/proc/{pid}/stat`)
/// is cargo's; its start time (field 22, clock ticks since boot) tells a
/// recycled pid apart.
fn cargo_parent(pid: u32, stat: &str) -> Option<String> {
    let (head, rest) = stat.rsplit_once(')')?;
    let (_, comm) = head.split_once('(')?;
    if comm != "cargo" {
        return None;
    }
    let start: u64 = rest.split_whitespace().nth(19)?.parse().ok()?;
    Some(format!("cargo-{pid}-{start}"))
}

/// Invocation records older than this are removed when a new one is written.
const RECORD_MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// What to publish, and where.
#[derive(Clone, Debug)]
pub struct Publish {
    /// This process's runs (last attempts, each with its earlier attempts).
    pub runs: Vec<RunRef>,
    /// When this process started.
    pub started: SystemTime,
    /// Where JUnit XML goes (`None`: not written).
    pub junit: Option<PathBuf>,
    /// Whether the HTML report is written.
    pub html: bool,
    /// `GITHUB_STEP_SUMMARY`, when set.
    pub step_summary: Option<PathBuf>,
    /// The invocation shared by several processes ([`invocation_id`]), if any.
    pub invocation: Option<String>,
    /// This process's selected scenarios that did not run, with why.
    pub not_run: Vec<NotRunRef>,
    /// What ended or failed this process outside any scenario (a bad flag or
    /// setting, an app that did not start, a suite hook that failed).
    pub errors: Vec<InvocationError>,
}

/// One run in the record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    dir: PathBuf,
    #[serde(default)]
    earlier: Vec<PathBuf>,
}

/// What this invocation wrote into `GITHUB_STEP_SUMMARY`: where its table
/// starts, and the table, so that the next process replaces it rather than
/// adding a second one (only while it is still the end of the file).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SummaryMark {
    path: PathBuf,
    offset: u64,
    text: String,
}

/// `.suite/invocation-{id}.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    /// The earliest start of a process of the invocation (ms since the epoch).
    started_ms: u64,
    runs: Vec<Entry>,
    #[serde(default)]
    step_summary: Option<SummaryMark>,
    /// Selected scenarios that did not run, with why (newest per scenario).
    #[serde(default)]
    not_run: Vec<NotRunRef>,
    /// What ended or failed processes outside any scenario (newest per binary and stage).
    #[serde(default)]
    errors: Vec<InvocationError>,
}

fn epoch_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The scenario of a run folder ([`Store::run_of_dir`]).
fn scenario_of(run_dir: &Path) -> Option<crate::store::Slug> {
    Store::run_of_dir(run_dir).map(|(slug, _)| slug)
}

impl Record {
    /// Adds this process's runs. A scenario already in the record (nextest ran
    /// it again: a retry) keeps only its newest run, the older ones becoming
    /// its earlier attempts.
    fn merge(&mut self, runs: &[RunRef]) {
        for r in runs {
            let mut entry = Entry {
                dir: r.dir.clone(),
                earlier: r.earlier.clone(),
            };
            if let Some(i) = self
                .runs
                .iter()
                .position(|e| scenario_of(&e.dir) == scenario_of(&r.dir))
            {
                let old = self.runs.remove(i);
                if old.dir != entry.dir {
                    let mut earlier = old.earlier;
                    earlier.push(old.dir);
                    earlier.extend(entry.earlier);
                    earlier.dedup();
                    entry.earlier = earlier;
                }
            }
            self.runs.push(entry);
        }
    }
}

/// An exclusive lock on a file, released on drop.
struct Lock(std::fs::File);

impl Lock {
    fn acquire(store: &Store, path: &Path) -> Result<Lock, StoreError> {
        let io = |source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        };
        store.confine(path)?;
        let file = store.append_file(path).map_err(io)?;
        file.lock().map_err(io)?;
        Ok(Lock(file))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

fn read_record(store: &Store, path: &Path) -> Result<Option<Record>, StoreError> {
    store.confine(path)?;
    match store.read_file(path) {
        Ok(b) => serde_json::from_slice(&b)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                path: path.to_path_buf(),
                problem: format!("not a valid invocation record: {e}"),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(StoreError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Removes the records of invocations that ended long ago.
fn remove_old_records(store: &Store, keep: &Path) {
    for path in store.invocation_records() {
        if path == keep {
            continue;
        }
        let old = store
            .metadata(&path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > RECORD_MAX_AGE);
        if old {
            let _ = store.remove_file(&path);
        }
    }
}

/// Writes `text` as this invocation's table in the step summary: in place of
/// the table an earlier process of the invocation wrote, when that table is
/// still the end of the file, else appended.
fn write_step_summary(
    path: &Path,
    text: &str,
    previous: Option<&SummaryMark>,
) -> std::io::Result<SummaryMark> {
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    let len = f.metadata()?.len();
    let mut offset = len;
    if let Some(prev) = previous.filter(|p| p.path == path)
        && prev.offset + prev.text.len() as u64 == len
    {
        let mut tail = String::new();
        f.seek(SeekFrom::Start(prev.offset))?;
        f.read_to_string(&mut tail)?;
        if tail == prev.text {
            offset = prev.offset;
        }
    }
    f.set_len(offset)?;
    f.seek(SeekFrom::Start(offset))?;
    f.write_all(text.as_bytes())?;
    Ok(SummaryMark {
        path: path.to_path_buf(),
        offset,
        text: text.to_string(),
    })
}

/// Writes the reports of the invocation and returns the lines to print
/// (`junit: …`, `report: …`, or what could not be written).
pub fn publish(store: &Store, p: &Publish) -> Vec<String> {
    publish_with(store, p, Finished::new())
}

/// [`publish`], from the final results this process holds (`finished`, by run
/// folder) rather than their `result.json` read back: the same reports.
/// Everything else (other processes' runs, meta.yaml, evidence, judgments)
/// is read from the store, once for all the reports.
pub fn publish_with(store: &Store, p: &Publish, finished: Finished) -> Vec<String> {
    let mut lines = Vec::new();
    let _lock = match Lock::acquire(store, &store.publish_lock_path()) {
        Ok(l) => Some(l),
        Err(e) => {
            lines.push(format!(
                "harshjudge: the report lock could not be taken ({e}): writing the reports without it"
            ));
            None
        }
    };
    // Under the lock: a run removed by another process's retention is seen gone.
    let reads = Reads::with_finished(store, finished);
    let started_ms = epoch_ms(p.started);
    let mut record = Record {
        started_ms,
        runs: vec![],
        step_summary: None,
        not_run: vec![],
        errors: vec![],
    };
    let record_path = p
        .invocation
        .as_deref()
        .map(|id| store.invocation_record(id));
    if let Some(path) = &record_path {
        match read_record(store, path) {
            Ok(Some(r)) => record = r,
            Ok(None) => remove_old_records(store, path),
            Err(e) => lines.push(format!(
                "harshjudge: {e}: the reports start afresh from this process's runs"
            )),
        }
        record.started_ms = record.started_ms.min(started_ms);
    }
    record.merge(&p.runs);
    for n in &p.not_run {
        record.not_run.retain(|o| o.slug != n.slug);
        record.not_run.push(n.clone());
    }
    for e in &p.errors {
        record
            .errors
            .retain(|o| (&o.binary, &o.stage) != (&e.binary, &e.stage));
        record.errors.push(e.clone());
    }
    let runs: Vec<RunRef> = record
        .runs
        .iter()
        .map(|e| RunRef {
            dir: e.dir.clone(),
            earlier: e.earlier.clone(),
        })
        .collect();
    let wall_ms = epoch_ms(SystemTime::now()).saturating_sub(record.started_ms);

    if let Some(path) = &p.junit {
        match super::junit::write_from(
            &reads,
            &runs,
            &record.not_run,
            &record.errors,
            wall_ms,
            path,
        ) {
            Ok(()) => lines.push(format!("junit: {}", path.display())),
            Err(e) => lines.push(format!("junit: could not be written: {e}")),
        }
    }
    if p.html {
        match super::html::write_from(&reads, &record.not_run, &record.errors) {
            Ok(r) => lines.push(format!("report: {}", r.index.display())),
            Err(e) => lines.push(format!("report: could not be written: {e}")),
        }
    }
    if let Some(gh) = &p.step_summary {
        let written = super::junit::markdown_from(&reads, &runs)
            .map(|md| errors_markdown(&record.errors) + &md)
            .map_err(|e| e.to_string())
            .and_then(|md| {
                write_step_summary(
                    gh,
                    &harshjudge_browser::secrets::mask(&md),
                    record.step_summary.as_ref(),
                )
                .map_err(|e| e.to_string())
            });
        match written {
            Ok(mark) => record.step_summary = Some(mark),
            Err(e) => lines.push(format!(
                "GITHUB_STEP_SUMMARY ({}) could not be written: {e}",
                gh.display()
            )),
        }
    }
    if let Some(path) = &record_path {
        let text = serde_json::to_string_pretty(&record).expect("the record serializes");
        if let Err(e) = store.write_file(path, text.as_bytes()) {
            lines.push(format!(
                "harshjudge: the invocation record could not be written ({e}): the next process's reports will miss this one's runs"
            ));
        }
    }
    lines
}

/// The invocation's errors as Markdown lines, before the step summary's table.
fn errors_markdown(errors: &[InvocationError]) -> String {
    let mut out = String::new();
    for e in errors {
        let first = e.message.lines().next().unwrap_or("failed");
        out.push_str(&format!(
            "**harshjudge: `{}` failed ({})**: {first}\n\n",
            e.binary, e.stage
        ));
    }
    out
}

/// Publishes the reports of a process that ended early or failed outside any
/// scenario, with nothing else to report: its JUnit XML and HTML report say
/// the invocation failed and why (never the previous invocation's results
/// alone). Where the settings cannot say (`HARSHJUDGE_DIR` itself is
/// unreadable), nothing is written and the returned lines say why.
pub fn publish_error(
    store: &Store,
    junit: Option<PathBuf>,
    html: bool,
    nextest: bool,
    started: SystemTime,
    error: InvocationError,
) -> Vec<String> {
    let what = Publish {
        runs: vec![],
        started,
        junit,
        html,
        step_summary: std::env::var_os("GITHUB_STEP_SUMMARY")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        invocation: invocation_id(nextest),
        not_run: vec![],
        errors: vec![error],
    };
    publish(store, &what)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(slug: &str, id: &str) -> RunRef {
        RunRef {
            dir: PathBuf::from(format!("/hj/scenarios/{slug}/runs/{id}")),
            earlier: vec![],
        }
    }

    #[test]
    fn a_scenario_run_again_keeps_its_newest_run_and_the_others_as_earlier_attempts() {
        let mut r = Record::default();
        r.merge(&[run("a", "1"), run("b", "2")]);
        r.merge(&[run("a", "3")]);
        assert_eq!(r.runs.len(), 2);
        let a = r.runs.iter().find(|e| e.dir.ends_with("a/runs/3")).unwrap();
        assert_eq!(a.earlier, [PathBuf::from("/hj/scenarios/a/runs/1")]);
    }

    #[test]
    fn the_invocation_of_a_cargo_child_is_its_parent_cargo() {
        // /proc/{pid}/stat of cargo, and of a shell (a binary run by hand).
        let cargo = "4242 (cargo) S 4100 4242 4100 34816 4242 4194560 25307 0 0 0 \
                     30 12 0 0 20 0 9 0 8812345 1200000 8000 18446744073709551615";
        assert_eq!(
            cargo_parent(4242, cargo).as_deref(),
            Some("cargo-4242-8812345")
        );
        let bash = cargo.replace("(cargo)", "(bash)");
        assert_eq!(cargo_parent(4242, &bash), None);
        // A name with spaces and parentheses is read up to its last `)`.
        let odd = cargo.replace("(cargo)", "(my (cargo) x)");
        assert_eq!(cargo_parent(4242, &odd), None);
        assert_eq!(cargo_parent(4242, "garbage"), None);
        // This test process is not cargo's child under nextest, is under cargo test:
        // either way the id, when there is one, names cargo.
        if let Some(id) = invocation_id(false) {
            assert!(id.starts_with("cargo-"), "{id}");
        }
    }

    #[test]
    fn record_names_are_safe_file_names() {
        let store = Store::new("/hj");
        let record_name = |id: &str| {
            let path = store.invocation_record(id);
            assert_eq!(path.parent(), Some(store.suite_dir().as_path()));
            path.file_name().unwrap().to_string_lossy().into_owned()
        };
        assert_eq!(
            record_name("0c7a1c1e-0000-0000-0000-000000000000"),
            "invocation-0c7a1c1e-0000-0000-0000-000000000000.json"
        );
        let n = record_name("../../etc/passwd");
        assert!(n.starts_with("invocation-") && !n.contains('/'), "{n}");
    }

    #[test]
    fn the_step_summary_table_is_replaced_while_it_is_the_end_of_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("summary.md");
        std::fs::write(&path, "# before\n").unwrap();
        let m1 = write_step_summary(&path, "table 1\n", None).unwrap();
        let m2 = write_step_summary(&path, "table 1 and 2\n", Some(&m1)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "# before\ntable 1 and 2\n"
        );
        // Someone else wrote after our table: ours is appended anew.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"other\n")
            .unwrap();
        write_step_summary(&path, "table 3\n", Some(&m2)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "# before\ntable 1 and 2\nother\ntable 3\n"
        );
    }
}
