//! Paths and readers of `.harshJudge/` that the MCP server's tools need
//! beyond the run lifecycle: project files, a run's `result.json` and
//! `replay.sh`, a step's folder and evidence sidecar, the knowledge store,
//! recorded sequences and exports, and the key facts of a store file. With
//! these, no code outside the store joins a layout name.

use super::names;
use std::path::{Path, PathBuf};

use super::{RunId, Store, StoreError};

impl Store {
    /// `prd.md`, the project's requirements for agents.
    pub fn prd_path(&self) -> PathBuf {
        self.dir.join(names::PRD)
    }

    /// `knowledge/`, the MCP server's knowledge store.
    pub fn knowledge_dir(&self) -> PathBuf {
        self.dir.join(names::KNOWLEDGE)
    }

    /// `steps/` inside a knowledge folder: one record file per recorded step.
    pub fn knowledge_steps_dir(knowledge_dir: &Path) -> PathBuf {
        knowledge_dir.join(names::STEPS)
    }

    /// `sequences/`, the tool-call sequences agents recorded.
    pub fn sequences_dir(&self) -> PathBuf {
        self.dir.join(names::SEQUENCES)
    }

    /// `sequences/{id}.json`.
    pub fn sequence_path(&self, id: &RunId) -> PathBuf {
        self.sequences_dir().join(format!("{id}.json"))
    }

    /// `exports/{function}.rs`, a sequence exported as a Rust scenario.
    /// `function` must be a Rust identifier of lowercase letters, digits and
    /// `_` (1 to 64 characters, not starting with a digit).
    pub fn export_path(&self, function: &str) -> Result<PathBuf, StoreError> {
        let ok = !function.is_empty()
            && function.len() <= 64
            && function
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            && !function.as_bytes()[0].is_ascii_digit();
        if !ok {
            return Err(StoreError::InvalidId {
                kind: "function name",
                value: function.into(),
                rule: "must be lowercase letters, digits and _ (not starting with a digit)",
            });
        }
        Ok(self.dir.join(names::EXPORTS).join(format!("{function}.rs")))
    }

    /// The key facts of a store file, by what it is: a `meta.yaml` (title,
    /// slug, starred, tags, statistics), `config.yaml` (project name, base URL,
    /// version, creation time) or `result.json` (status, duration, run id);
    /// `None` for any other file. A file that cannot be read or parsed gives
    /// `{}`. Reads through the store's confined I/O.
    pub fn file_facts(&self, path: &Path) -> Option<serde_json::Value> {
        let name = path.file_name()?.to_str()?;
        let keys: &[&str] = match name {
            names::META => &[
                "title",
                "slug",
                "starred",
                "tags",
                "totalRuns",
                "passCount",
                "failCount",
                "lastRun",
                "lastResult",
                "avgDuration",
            ],
            "config.yaml" => &["projectName", "baseUrl", "version", "createdAt"],
            names::RESULT => &["status", "duration", "runId"],
            _ => return None,
        };
        let doc = if name == names::RESULT {
            self.read_file(path)
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        } else {
            self.read_to_string(path)
                .ok()
                .and_then(|t| super::yaml::from_str::<serde_json::Value>(&t).ok())
        };
        let mut m = serde_json::Map::new();
        if let Some(doc) = doc {
            for k in keys {
                if let Some(x) = doc.get(*k) {
                    m.insert((*k).into(), x.clone());
                }
            }
        }
        Some(serde_json::Value::Object(m))
    }
}
