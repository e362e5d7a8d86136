//! Layout the run lifecycle (`run`) and the harness ask the store for, so that
//! no module outside `store` spells a path of `.harshJudge/` itself.

use std::path::PathBuf;

use super::{RunId, Slug, StepId, Store};

/// `checklistStatus` key of `skill-state.yaml` for the evidence phase.
pub const CHECKLIST_EVIDENCE: &str = "evidence";
/// `checklistStatus` key of `skill-state.yaml` for what precedes the run.
pub const CHECKLIST_PRE_RUN: &str = "pre-run";

impl Store {
    /// `step-{NN}/evidence`, relative to the run folder (what `skill-state.yaml`
    /// names, so that it stays true when the run folder moves).
    pub fn evidence_dir_in_run(step: &StepId) -> String {
        format!("step-{step}/evidence")
    }

    /// Whether the run has a `result.json` (of any content; a link counts
    /// without being followed).
    pub fn has_result(&self, slug: &Slug, run: &RunId) -> bool {
        std::fs::symlink_metadata(self.run_dir(slug, run).join("result.json")).is_ok()
    }

    /// `scenarios/*/runs/{runId}`: where a run of unknown scenario is looked
    /// for, as a not-found error names it.
    pub fn run_dir_pattern(&self, run: &RunId) -> PathBuf {
        self.dir()
            .join("scenarios")
            .join("*")
            .join("runs")
            .join(run.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paths_the_run_lifecycle_asks_for() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join(".harshJudge"));
        let (slug, run) = (
            Slug::new("checkout").unwrap(),
            RunId::new("20260101T000000000Z-abcdef").unwrap(),
        );
        let step = StepId::from_index(3).unwrap();
        assert_eq!(Store::evidence_dir_in_run(&step), "step-03/evidence");
        assert_eq!(
            store
                .run_dir(&slug, &run)
                .join(Store::evidence_dir_in_run(&step)),
            store.evidence_dir(&slug, &run, &step)
        );
        assert_eq!(
            store.run_dir_pattern(&run),
            dir.path()
                .join(".harshJudge/scenarios/*/runs/20260101T000000000Z-abcdef")
        );
        assert!(!store.has_result(&slug, &run));
        std::fs::create_dir_all(store.run_dir(&slug, &run)).unwrap();
        std::fs::write(store.run_dir(&slug, &run).join("result.json"), "").unwrap();
        assert!(store.has_result(&slug, &run));
    }
}
