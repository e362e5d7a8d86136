//! `meta.yaml`: reading, locked updates, scenario upserts, counts and the
//! YAML/JSON helpers of the store's files.

use std::path::Path;

use serde::Serialize;

use super::fsio::{self, LockGuard, io_err, write_atomic};
use super::ids::{Slug, StepId, step_file_name};
use super::types::{RunResult, RunStatus, ScenarioMeta, StepRef};
use super::yaml::{self, Mapping, Value};
use super::{ScenarioSpec, Stats, StepDoc, Store, StoreError, names, now_iso};

impl Store {
    /// Reads `meta.yaml`, or `None` when the scenario has none.
    pub(super) fn read_meta(&self, slug: &Slug) -> Result<Option<ScenarioMeta>, StoreError> {
        let path = self.scenario(slug).meta_path();
        self.confine(&path)?;
        match read_meta_parsed(&path)? {
            None => Ok(None),
            Some(parsed) => parsed.typed(&path).map(Some),
        }
    }

    /// Locked read-modify-write of `meta.yaml`: `f` gets the document as an ordered
    /// map (unknown keys and their order survive) and the typed view of it.
    pub(super) fn update_meta<R>(
        &self,
        slug: &Slug,
        f: impl FnOnce(&mut MetaDoc, &ScenarioMeta) -> R,
    ) -> Result<(R, ScenarioMeta), StoreError> {
        self.try_update_meta(slug, |doc, old| Ok(f(doc, old)))
    }

    /// [`update_meta`](Self::update_meta) whose change may fail: then
    /// `meta.yaml` is left as it was. Whatever `f` does happens under the
    /// lock, so other files it reads or writes change in step with the
    /// statistics (a run's final `result.json` and its count).
    pub(super) fn try_update_meta<R>(
        &self,
        slug: &Slug,
        f: impl FnOnce(&mut MetaDoc, &ScenarioMeta) -> Result<R, StoreError>,
    ) -> Result<(R, ScenarioMeta), StoreError> {
        let path = self.scenario(slug).meta_path();
        let lock = self.scenario(slug).path().join(names::META_LOCK);
        self.confine(&path)?;
        self.confine(&lock)?;
        let _lock = LockGuard::acquire(&lock)?;
        let (mut doc, before) = match read_meta_parsed(&path)? {
            Some(parsed) => (MetaDoc(parsed.doc.clone()), parsed.typed(&path)?),
            None => (MetaDoc::default(), typed_meta(&path, Mapping::new())?),
        };
        let r = f(&mut doc, &before)?;
        let after = typed_meta(&path, doc.0.clone())?;
        let doc = Value::Object(doc.0);
        let text = yaml::to_string(&doc);
        write_atomic(&path, text.as_bytes())?;
        let Value::Object(doc) = doc else {
            unreachable!("built as a mapping")
        };
        // The next read of this file (the run's completion, the report) finds
        // these very bytes: it takes this parse instead of parsing them again.
        PARSED_META.remember(
            &path,
            text,
            ParsedMeta {
                doc,
                typed: Ok(after.clone()),
            },
        );
        Ok((r, after))
    }

    /// Creates or updates a scenario: `meta.yaml` (keeping statistics, and
    /// `starred`/`tags` unless given) and one `steps/NN-slug.md` per step; step
    /// files no longer listed are removed. `docs[i]` fills the i-th step file.
    pub(super) fn upsert_scenario(
        &self,
        slug: &Slug,
        spec: &ScenarioSpec,
        docs: &[StepDoc],
    ) -> Result<ScenarioMeta, StoreError> {
        if spec.steps.len() > 99 {
            return Err(StoreError::Corrupt {
                path: self.scenario(slug).meta_path(),
                problem: format!("{} steps given; at most 99 are supported", spec.steps.len()),
            });
        }
        let mut refs = Vec::with_capacity(spec.steps.len());
        for (i, title) in spec.steps.iter().enumerate() {
            let id = StepId::from_index(i + 1)?;
            refs.push(StepRef {
                file: step_file_name(&id, title),
                id: id.to_string(),
                title: title.clone(),
            });
        }
        let (_, meta) = self.update_meta(slug, |doc, old| {
            doc.set("title", spec.title.as_str());
            doc.set("slug", slug.as_str());
            doc.set("starred", spec.starred.unwrap_or(old.starred));
            let tags = spec.tags.clone().unwrap_or_else(|| old.tags.clone());
            doc.set("tags", to_value(&tags));
            let est = spec
                .estimated_duration
                .unwrap_or(if old.estimated_duration > 0.0 {
                    old.estimated_duration
                } else {
                    60.0
                });
            doc.set("estimatedDuration", number(est));
            doc.set("steps", to_value(&refs));
            doc.set_default("totalRuns", 0u64);
            doc.set_default("passCount", 0u64);
            doc.set_default("failCount", 0u64);
            doc.set_default("lastRun", Value::Null);
            doc.set_default("lastResult", Value::Null);
            doc.set_default("avgDuration", 0u64);
        })?;
        let steps_dir = self.scenario(slug).path().join(names::STEPS);
        self.confine(&steps_dir)?;
        fsio::create_dir_all(&steps_dir)?;
        // What the folder holds, listed once: a step file that is not there
        // is written without being read first, and the files no step names
        // any more are removed from the same list.
        // The folder opened once, no link followed from `.harshJudge/` on:
        // the step files are written by their names in it.
        let steps = self.open_folder(
            &[names::SCENARIOS, slug.as_str(), names::STEPS],
            &steps_dir,
            false,
        )?;
        let mut present: std::collections::HashMap<std::ffi::OsString, bool> =
            std::collections::HashMap::new();
        for entry in std::fs::read_dir(&steps_dir).map_err(|e| io_err(&steps_dir, e))? {
            let entry = entry.map_err(|e| io_err(&steps_dir, e))?;
            let plain = entry.file_type().is_ok_and(|t| t.is_file());
            present.insert(entry.file_name(), plain);
        }
        for (i, r) in refs.iter().enumerate() {
            let doc = docs.get(i).cloned().unwrap_or_default();
            let code = match &doc.code {
                Some((lang, code)) => format!("**Code ({lang}):**\n```{lang}\n{code}\n```"),
                None => {
                    "**Playwright:**\n```javascript\n// Add Playwright code here\n```".to_string()
                }
            };
            let text = format!(
                "# Step {}: {}\n\n## Description\n{}\n\n## Preconditions\n{}\n\n## Actions\n{}\n\n{code}\n\n## Expected Outcome\n{}\n",
                r.id,
                r.title,
                doc.description,
                doc.preconditions,
                doc.actions,
                doc.expected_outcome
            );
            let path = steps_dir.join(&r.file);
            match present.get(std::ffi::OsStr::new(&r.file)) {
                // Not there: nothing to compare, and nothing to follow (the
                // folder itself is confined, the name is one plain part).
                None => steps.write_atomic(&r.file, text.as_bytes())?,
                // A file of that name: rewritten only when it differs. A link
                // or anything else is refused by `confine`, as always.
                Some(plain) => {
                    if !plain {
                        self.confine(&path)?;
                    }
                    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                        steps.write_atomic(&r.file, text.as_bytes())?;
                    }
                }
            }
        }
        let keep: std::collections::HashSet<&str> = refs.iter().map(|r| r.file.as_str()).collect();
        for file in present.keys() {
            let name = file.to_string_lossy();
            if name.ends_with(".md") && !keep.contains(name.as_ref()) {
                let path = steps_dir.join(file);
                std::fs::remove_file(&path).map_err(|e| io_err(&path, e))?;
            }
        }
        Ok(meta)
    }
}

/// Adds one completed run to the counts of `meta.yaml`.
pub(super) fn count_completion(
    doc: &mut MetaDoc,
    old: &ScenarioMeta,
    status: RunStatus,
    duration_ms: u64,
) -> Stats {
    let total = old.total_runs + 1;
    let pass = old.pass_count + u64::from(status == RunStatus::Pass);
    let fail = old.fail_count + u64::from(status == RunStatus::Fail);
    // JS Math.round of the running mean: halves round up.
    let avg = ((old.avg_duration as f64 * old.total_runs as f64 + duration_ms as f64)
        / total as f64
        + 0.5)
        .floor() as u64;
    doc.set("totalRuns", total);
    doc.set("passCount", pass);
    doc.set("failCount", fail);
    doc.set("lastRun", now_iso());
    doc.set("lastResult", status.as_str());
    doc.set("avgDuration", avg);
    Stats {
        total_runs: total,
        pass_count: pass,
        fail_count: fail,
        avg_duration: avg,
    }
}

/// What runs removed by retention ([`Store::prune_runs`]) had contributed to
/// the statistics (`prunedRuns` in `meta.yaml`, a harshjudge addition), so a
/// recount from the remaining runs gives the same totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct PrunedRuns {
    pub(super) total_runs: u64,
    pub(super) pass_count: u64,
    pub(super) flaky_count: u64,
    pub(super) duration_sum: u64,
}

impl PrunedRuns {
    pub(super) const KEY: &'static str = "prunedRuns";

    pub(super) fn read(doc: &MetaDoc) -> Self {
        let Some(Value::Object(m)) = doc.0.get(Self::KEY) else {
            return Self::default();
        };
        let get = |k: &str| m.get(k).and_then(Value::as_u64).unwrap_or(0);
        PrunedRuns {
            total_runs: get("totalRuns"),
            pass_count: get("passCount"),
            flaky_count: get("flakyCount"),
            duration_sum: get("durationSum"),
        }
    }

    pub(super) fn write(&self, doc: &mut MetaDoc) {
        let mut m = Mapping::new();
        m.insert("totalRuns".into(), self.total_runs.into());
        m.insert("passCount".into(), self.pass_count.into());
        m.insert("flakyCount".into(), self.flaky_count.into());
        m.insert("durationSum".into(), self.duration_sum.into());
        doc.set(Self::KEY, Value::Object(m));
    }
}

pub(super) fn result_bytes(result: &RunResult) -> Vec<u8> {
    serde_json::to_vec_pretty(result).expect("result serializes")
}

/// `meta.yaml` as an ordered map; setters keep each key's position.
#[derive(Clone, Debug, Default)]
pub struct MetaDoc(pub Mapping);

impl MetaDoc {
    /// Sets `key`, keeping its position, or appending it.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.0.insert(key.into(), value.into());
    }
    /// Sets `key` only if absent.
    pub fn set_default(&mut self, key: &str, value: impl Into<Value>) {
        if !self.0.contains_key(key) {
            self.0.insert(key.into(), value.into());
        }
    }
}

pub(super) fn read_meta_doc(path: &Path) -> Result<Option<Mapping>, StoreError> {
    Ok(read_meta_parsed(path)?.map(|parsed| parsed.doc.clone()))
}

/// A `meta.yaml` as parsed: the document and its typed view (or what was
/// wrong with it).
struct ParsedMeta {
    doc: Mapping,
    typed: Result<ScenarioMeta, String>,
}

/// The last parse of each `meta.yaml` (a harness run reads each scenario's file
/// when it starts and completes a run, and three times for the reports).
static PARSED_META: super::fsio::ParseCache<ParsedMeta> = super::fsio::ParseCache::new(1024);

impl ParsedMeta {
    fn typed(&self, path: &Path) -> Result<ScenarioMeta, StoreError> {
        self.typed.clone().map_err(|problem| StoreError::Corrupt {
            path: path.into(),
            problem,
        })
    }
}

/// Reads and parses `meta.yaml` (`None` when there is none), taking the
/// parse of identical text from [`PARSED_META`].
fn read_meta_parsed(path: &Path) -> Result<Option<std::sync::Arc<ParsedMeta>>, StoreError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(path, e)),
    };
    if let Some(parsed) = PARSED_META.get(path, &text) {
        return Ok(Some(parsed));
    }
    let doc = parse_meta_doc(path, &text)?;
    let typed = typed_meta(path, doc.clone()).map_err(|e| match e {
        StoreError::Corrupt { problem, .. } => problem,
        other => other.to_string(),
    });
    Ok(Some(PARSED_META.remember(
        path,
        text,
        ParsedMeta { doc, typed },
    )))
}

fn parse_meta_doc(path: &Path, text: &str) -> Result<Mapping, StoreError> {
    if text.trim().is_empty() {
        return Err(StoreError::Corrupt {
            path: path.into(),
            problem: "the file is empty".into(),
        });
    }
    match yaml::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(StoreError::Corrupt {
            path: path.into(),
            problem: format!(
                "expected a mapping of keys (title, slug, steps, …), found {}",
                kind_of(&other)
            ),
        }),
        Err(e) => Err(StoreError::Corrupt {
            path: path.into(),
            problem: format!("not valid YAML: {e}"),
        }),
    }
}

fn typed_meta(path: &Path, doc: Mapping) -> Result<ScenarioMeta, StoreError> {
    serde_json::from_value(Value::Object(doc)).map_err(|e| StoreError::Corrupt {
        path: path.into(),
        problem: format!("unexpected content: {e}"),
    })
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn number(f: f64) -> Value {
    if f.fract() == 0.0 && (0.0..1e15).contains(&f) {
        Value::Number((f as u64).into())
    } else {
        Value::from(f)
    }
}

fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("store types serialize")
}

/// Renders a store type as YAML in the original's style: straight from the
/// typed value (`yaml_ser`), or, for what that path leaves
/// (a key that is not a string or an integer, a key given twice), through
/// `serde_json::Value`; both give the same text.
pub fn to_yaml<T: Serialize>(v: &T) -> String {
    super::yaml_ser::to_string(v).unwrap_or_else(|_| to_yaml_via_value(v))
}

/// [`to_yaml`] through `serde_json::Value`: the tree emitter of `yaml.rs`.
pub(super) fn to_yaml_via_value<T: Serialize>(v: &T) -> String {
    yaml::to_string(&to_value(v))
}

pub(super) fn parse_yaml<T: serde::de::DeserializeOwned>(
    path: &Path,
    text: &str,
) -> Result<T, StoreError> {
    yaml::from_str(text).map_err(|e| StoreError::Corrupt {
        path: path.into(),
        problem: format!("{e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parses() -> usize {
        yaml::PARSES.with(|n| n.get())
    }

    /// The harness reads a scenario's `meta.yaml` when it starts a run, when
    /// it completes it and three times for the reports; in a debug build each
    /// parse of a 99-step file costs more than a step. A file this process
    /// wrote or read is parsed once; a file changed by anyone else is
    /// parsed again and its new content seen.
    #[test]
    fn meta_yaml_is_parsed_again_only_when_its_text_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().join(".harshJudge"));
        let slug = Slug::new("cached").unwrap();
        let spec = ScenarioSpec {
            title: "Cached".into(),
            steps: vec!["One".into(), "Two".into()],
            tags: None,
            starred: None,
            estimated_duration: None,
        };
        store.scenario(&slug).upsert(&spec, &[]).unwrap();
        let start = parses();
        // Written by this process: read, updated, read again, without a parse.
        assert_eq!(
            store.scenario(&slug).meta().unwrap().unwrap().steps.len(),
            2
        );
        store
            .update_meta(&slug, |doc, old| doc.set("totalRuns", old.total_runs + 5))
            .unwrap();
        assert_eq!(store.scenario(&slug).meta().unwrap().unwrap().total_runs, 5);
        assert_eq!(parses(), start, "meta.yaml was parsed again unchanged");
        // Changed by another process (or a person): parsed, the change seen.
        let path = store.scenario(&slug).meta_path();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("totalRuns: 5", "totalRuns: 7")).unwrap();
        assert_eq!(store.scenario(&slug).meta().unwrap().unwrap().total_runs, 7);
        assert_eq!(parses(), start + 1);
        let (_, after) = store
            .update_meta(&slug, |doc, old| doc.set("totalRuns", old.total_runs + 1))
            .unwrap();
        assert_eq!(after.total_runs, 8);
        assert_eq!(parses(), start + 1);
        // Broken by hand: the error is reported on every read, not hidden.
        std::fs::write(&path, "title: [").unwrap();
        for _ in 0..2 {
            let err = store.scenario(&slug).meta().unwrap_err().to_string();
            assert!(err.contains("not valid YAML"), "{err}");
        }
        std::fs::write(&path, "steps: 3\n").unwrap();
        for _ in 0..2 {
            let err = store.scenario(&slug).meta().unwrap_err().to_string();
            assert!(err.contains("unexpected content"), "{err}");
        }
    }

    /// Every MCP call on a run reopens it and reads its `skill-state.yaml`:
    /// what this process wrote is not parsed again; another writer's change is.
    #[test]
    fn skill_state_is_parsed_again_only_when_its_text_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().join(".harshJudge"));
        let slug = Slug::new("states").unwrap();
        let run = crate::recorder::RunHandle::start(&store, &slug, vec!["One".into()]).unwrap();
        let id = run.id().clone();
        drop(run);
        let start = parses();
        let mut handle = crate::recorder::RunHandle::open_in(&store, &slug, &id).unwrap();
        handle.begin_step(&StepId::from_index(1).unwrap()).unwrap();
        drop(handle);
        let state = store
            .scenario(&slug)
            .run(&id)
            .skill_state()
            .unwrap()
            .unwrap();
        assert_eq!(state.current_step, 1);
        assert_eq!(
            parses(),
            start,
            "skill-state.yaml was parsed again unchanged"
        );
        let path = store
            .scenario(&slug)
            .run(&id)
            .path()
            .join("skill-state.yaml");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("currentStep: 1", "currentStep: 0")).unwrap();
        let state = store
            .scenario(&slug)
            .run(&id)
            .skill_state()
            .unwrap()
            .unwrap();
        assert_eq!(state.current_step, 0);
        assert_eq!(parses(), start + 1);
        std::fs::write(&path, "currentStep: [").unwrap();
        assert!(store.scenario(&slug).run(&id).skill_state().is_err());
    }
}
