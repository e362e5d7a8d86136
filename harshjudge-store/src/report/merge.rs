//! `harshjudge-mcp merge DIR... --into DIR`: the `.harshJudge/` trees of the
//! shards of a suite (or of machines that ran it at different times) merged
//! into one, with one HTML report and one JUnit for the merged tree.
//!
//! The tree merge is the store's ([`Store::merge_from`]); this module resolves
//! the folders and writes the reports of the result.

use std::path::{Path, PathBuf};

use crate::report::junit::RunRef;
use crate::store::{MergeOutcome, RunResult, RunStatus, Store, StoreError};

/// What [`merge`] did.
#[derive(Clone, Debug)]
pub struct Merged {
    /// The merged `.harshJudge/` folder.
    pub into: PathBuf,
    /// What the tree merge did.
    pub outcome: MergeOutcome,
    /// `report/junit.xml` of the merged tree.
    pub junit: PathBuf,
    /// `report/index.html` of the merged tree.
    pub report: PathBuf,
}

/// The `.harshJudge` folder a command-line folder names: the folder itself
/// when it holds `config.yaml` or is called `.harshJudge`, else its
/// `.harshJudge/` (a project folder).
pub fn store_dir(dir: &Path) -> PathBuf {
    Store::resolve_dir(dir)
}

/// Merges `sources` into `into` ([`Store::merge_from`]), then writes the
/// merged tree's HTML report (`report/`) and JUnit (`report/junit.xml`: the
/// latest run of each scenario, its earlier attempts linked by `firstRunId`).
/// A merge that changed nothing leaves the reports as they are (when present),
/// so merging the same trees again leaves the tree byte for byte the same.
pub fn merge(sources: &[PathBuf], into: &Path) -> Result<Merged, StoreError> {
    let into = store_dir(into);
    let target = Store::new(&into);
    let mut stores = vec![];
    for s in sources {
        let dir = store_dir(s);
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if same(&dir, &into) {
            return Err(StoreError::AlreadyExists {
                what: "the merge target among the sources (a tree cannot be merged into itself)",
                path: dir,
            });
        }
        stores.push(Store::new(dir));
    }
    let outcome = target.merge_from(&stores)?;
    let junit = target.junit_path();
    let index = target.report_index();
    if outcome.changed || !junit.is_file() || !index.is_file() {
        let (runs, wall_ms) = latest_runs(&target)?;
        crate::report::junit::write(&target, &runs, wall_ms, &junit)?;
        crate::report::html::write(&into)?;
    }
    Ok(Merged {
        into,
        outcome,
        junit,
        report: index,
    })
}

/// The latest finished run of each scenario with its earlier attempts (same
/// `firstRunId`), and the wall time from the first start to the last end.
fn latest_runs(store: &Store) -> Result<(Vec<RunRef>, u64), StoreError> {
    let mut refs = vec![];
    let (mut first, mut last) = (None::<i64>, None::<i64>);
    let ms = |s: &str| {
        chrono::DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|t| t.timestamp_millis())
    };
    for slug in store.list_scenarios()? {
        let mut results: Vec<RunResult> = vec![];
        let mut dirs = std::collections::HashMap::new();
        for run in store.scenario(&slug).runs()? {
            if let Ok(Some(r)) = store.scenario(&slug).run(&run).result()
                && r.status != RunStatus::Running
            {
                dirs.insert(r.run_id.clone(), store.scenario(&slug).run(&run).path());
                results.push(r);
            }
        }
        let Some(latest) = results
            .iter()
            .max_by(|a, b| (&a.started_at, &a.run_id).cmp(&(&b.started_at, &b.run_id)))
        else {
            continue;
        };
        // The folder of a run read above (its `runId`, as the other runs name it).
        let run_dir = |id: &str| dirs[id].clone();
        let earlier = match (&latest.first_run_id, latest.attempt) {
            (Some(f), Some(n)) if n > 1 => {
                let mut e: Vec<&RunResult> = results
                    .iter()
                    .filter(|r| {
                        r.run_id != latest.run_id
                            && (r.run_id == *f || r.first_run_id.as_deref() == Some(f))
                            && r.attempt.unwrap_or(1) < n
                    })
                    .collect();
                e.sort_by_key(|r| r.attempt.unwrap_or(1));
                e.into_iter().map(|r| run_dir(&r.run_id)).collect()
            }
            _ => vec![],
        };
        if let Some(s) = ms(&latest.started_at) {
            first = Some(first.map_or(s, |f| f.min(s)));
        }
        if let Some(e) = latest.completed_at.as_deref().and_then(ms) {
            last = Some(last.map_or(e, |l| l.max(e)));
        }
        refs.push(RunRef {
            dir: run_dir(&latest.run_id),
            earlier,
        });
    }
    let wall = match (first, last) {
        (Some(f), Some(l)) if l > f => (l - f) as u64,
        _ => 0,
    };
    Ok((refs, wall))
}
