//! Repairs after processes that died, and retention.

use std::collections::BTreeMap;

use crate::store::{Slug, Store};

use super::RunHandle;

/// Repairs what processes that died (kill -9, a crash) left at the next
/// start: removes their temporary files and folders and lone evidence
/// sidecars ([`Store::clean_temporary_files`]), and marks interrupted any run
/// folder without `result.json` (left by an older version killed while it
/// created the run, or by the original HarshJudge's `startRun`) unless its
/// `skill-state.yaml` names a process that still runs. Returns one note per
/// repair, for the caller to show.
pub fn repair_leftovers(store: &Store) -> Vec<String> {
    let mut notes = vec![];
    let removed = store.clean_temporary_files();
    if !removed.is_empty() {
        notes.push(format!(
            "removed {} temporary file(s) left by processes that are gone",
            removed.len()
        ));
    }
    for slug in store.list_scenarios().unwrap_or_default() {
        for run in store.scenario(&slug).runs().unwrap_or_default() {
            if store.scenario(&slug).run(&run).has_result() {
                continue;
            }
            let pid = store
                .scenario(&slug)
                .run(&run)
                .skill_state()
                .ok()
                .flatten()
                .map_or(0, |s| s.pid);
            if pid != 0 && crate::store::process_alive(pid, 0) {
                continue;
            }
            let reason = "interrupted: the run never recorded a result (its process was killed or crashed while starting it)";
            match RunHandle::open_in(store, &slug, &run).and_then(|mut h| h.interrupt(reason)) {
                Ok(()) => notes.push(format!(
                    "run {slug}/{run} had no result.json: marked interrupted"
                )),
                Err(e) => notes.push(format!(
                    "run {slug}/{run} has no result.json and could not be marked interrupted: {e}"
                )),
            }
        }
    }
    notes
}

/// What [`prune`] did.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Pruned {
    /// Runs kept per scenario.
    pub keep: usize,
    /// Runs removed, per scenario (only scenarios that lost runs).
    pub removed: BTreeMap<String, Vec<String>>,
    /// Scenarios that could not be pruned, with why.
    pub errors: Vec<String>,
}

/// Applies retention ([`ScenarioDir::prune`](crate::store::ScenarioDir::prune)) to the scenarios `slugs` (each
/// once): keeps the newest `keep` runs of each.
pub fn prune(store: &Store, slugs: &[String], keep: usize) -> Pruned {
    let mut slugs: Vec<&String> = slugs.iter().collect();
    slugs.sort();
    slugs.dedup();
    let mut out = Pruned {
        keep,
        ..Pruned::default()
    };
    for s in slugs {
        let Ok(slug) = Slug::new(s.clone()) else {
            continue;
        };
        match store.scenario(&slug).prune(keep) {
            Ok(removed) if removed.is_empty() => {}
            Ok(removed) => {
                out.removed.insert(
                    slug.to_string(),
                    removed.iter().map(ToString::to_string).collect(),
                );
            }
            Err(e) => out
                .errors
                .push(format!("{slug}: old runs could not be removed: {e}")),
        }
    }
    out
}
