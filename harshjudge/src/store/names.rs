//! Every folder and file name of the `.harshJudge/` layout, in one place.
//! They are private to `store`: code outside reaches a file through a typed
//! handle ([`ScenarioDir`](super::ScenarioDir), [`RunDir`](super::RunDir),
//! [`StepDir`](super::StepDir)) or a path method of [`Store`](super::Store),
//! never by joining a name (which the compiler now refuses, and the
//! `layout_check` test still looks for as a string).

/// The store's folder in a project.
pub(super) const STORE_DIR: &str = ".harshJudge";
/// `config.yaml`.
pub(super) const CONFIG: &str = "config.yaml";
/// `prd.md`.
pub(super) const PRD: &str = "prd.md";
/// `scenarios/`.
pub(super) const SCENARIOS: &str = "scenarios";
/// `scenarios/{slug}/meta.yaml`.
pub(super) const META: &str = "meta.yaml";
/// `scenarios/{slug}/scenario.md` (v1).
pub(super) const SCENARIO_MD: &str = "scenario.md";
/// `scenarios/{slug}/steps/`.
pub(super) const STEPS: &str = "steps";
/// `scenarios/{slug}/runs/`.
pub(super) const RUNS: &str = "runs";
/// `runs/{runId}/result.json` (and `judge/result.json`).
pub(super) const RESULT: &str = "result.json";
/// `runs/{runId}/skill-state.yaml`.
pub(super) const SKILL_STATE: &str = "skill-state.yaml";
/// `runs/{runId}/replay.sh` (and `judge/replay.sh`).
pub(super) const REPLAY: &str = "replay.sh";
/// `runs/{runId}/judge/`.
pub(super) const JUDGE: &str = "judge";
/// `runs/{runId}/evidence/` (flat, v1) and `step-{NN}/evidence/`.
pub(super) const EVIDENCE: &str = "evidence";
/// The prefix of a step folder, `step-{NN}`.
pub(super) const STEP_PREFIX: &str = "step-";
/// The suffix of an evidence file's sidecar.
pub(super) const SIDECAR_SUFFIX: &str = ".meta.json";
