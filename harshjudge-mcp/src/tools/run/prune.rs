//! `pruneRuns`: retention of a project's runs, over `harshjudge_store::recorder::prune`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::context::Context;
use crate::error::ToolError;
use crate::tools::scenario::{existing, slug};

/// Arguments of `pruneRuns`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PruneRuns {
    /// Runs to keep per scenario (the newest); default HARSHJUDGE_KEEP_RUNS,
    /// else 20.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub keep: Option<usize>,
    /// Only this scenario; omitted: every scenario.
    #[serde(default)]
    pub scenario_slug: Option<String>,
}

/// Retention: removes the oldest runs of each scenario beyond the newest
/// `keep`, never a running run nor the newest failed one; statistics in
/// `meta.yaml` are unchanged.
pub fn prune_runs(ctx: &Context, a: PruneRuns) -> Result<RunsPruned, ToolError> {
    let store = ctx.require_init()?;
    let keep = match a.keep {
        Some(0) => return Err(ToolError::invalid("keep must be at least 1")),
        Some(n) => Some(n),
        None => {
            harshjudge_store::store::keep_runs().map_err(|e| ToolError::invalid(e.to_string()))?
        }
    };
    let Some(keep) = keep else {
        return Ok(RunsPruned::KeepAll {
            keep: None,
            removed_count: 0,
            removed: Map::new(),
            errors: vec![],
            note: "HARSHJUDGE_KEEP_RUNS=all: every run is kept".into(),
        });
    };
    let slugs: Vec<String> = match &a.scenario_slug {
        Some(s) => {
            let s = slug("scenarioSlug", s)?;
            existing(store, &s)?;
            vec![s.to_string()]
        }
        None => store
            .list_scenarios()?
            .iter()
            .map(ToString::to_string)
            .collect(),
    };
    let pruned = harshjudge_store::recorder::prune(store, &slugs, keep);
    let count: usize = pruned.removed.values().map(Vec::len).sum();
    Ok(RunsPruned::Pruned {
        pruned,
        removed_count: count,
    })
}

/// What `pruneRuns` returns.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RunsPruned {
    /// Runs were pruned (or none needed to be).
    Pruned {
        /// What was removed.
        #[serde(flatten)]
        pruned: harshjudge_store::recorder::Pruned,
        /// How many runs were removed.
        #[serde(rename = "removedCount")]
        removed_count: usize,
    },
    /// `HARSHJUDGE_KEEP_RUNS=all`: nothing is pruned.
    KeepAll {
        /// Always null: no limit.
        keep: Option<usize>,
        /// Always 0.
        #[serde(rename = "removedCount")]
        removed_count: usize,
        /// Always empty.
        removed: Map<String, Value>,
        /// Always empty.
        errors: Vec<String>,
        /// Why nothing was removed.
        note: String,
    },
}

crate::plain_output!(RunsPruned);
