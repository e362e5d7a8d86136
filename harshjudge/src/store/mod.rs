//! The `.harshJudge/` store: the only code that knows paths and file shapes.
//!
//! Layout (compatible with the original HarshJudge):
//! ```text
//! .harshJudge/
//! ├── config.yaml
//! ├── .gitignore
//! └── scenarios/{slug}/
//!     ├── meta.yaml
//!     ├── steps/{NN}-{step-slug}.md
//!     └── runs/{runId}/
//!         ├── result.json
//!         ├── skill-state.yaml
//!         ├── evidence/                      (empty; the original's v1 folder)
//!         └── step-{NN}/evidence/{name}.{ext} + {name}.meta.json
//! ```
//! Every write is atomic (temporary file + rename); every read-modify-write of
//! `meta.yaml` holds an exclusive lock on `scenarios/{slug}/.meta.yaml.lock`;
//! every id is validated ([`ids`]) before it becomes part of a path.

pub mod exec_paths;
mod fsio;
pub mod ids;
pub mod judge;
mod layout;
#[cfg(test)]
mod layout_check;
mod merge;
mod paths;
mod types;
pub mod yaml;

pub use ids::{EvidenceName, RunId, Slug, StepId, slugify, step_file_name};
pub use merge::MergeOutcome;
pub use paths::{EvidenceFile, LAYOUT_NAMES, RunEvidence, STORE_DIR};
pub use types::*;

use std::path::{Path, PathBuf};
use yaml::{Mapping, Value};

use fsio::{LockGuard, io_err, write_atomic};

/// The exact `.gitignore` the original writes.
pub const GITIGNORE: &str = "# HarshJudge\n# Ignore large evidence files in CI (per-step structure)\nscenarios/*/runs/*/step-*/evidence/*.png\nscenarios/*/runs/*/step-*/evidence/*.html\n# Dashboard state (local only)\n.dashboard-state.json\n# harshjudge: dashboard log, runs in progress, suite checkpoints (local only)\n.dashboard.log\n.running/\n.suite/\n";

/// The `prd.md` template `initProject` writes: the sections the original's
/// agents fill in (application type, ports, main scenarios, authentication,
/// tech stack, notes).
pub const PRD_TEMPLATE: &str = "# Project PRD\n\n## Application Type\n<!-- backend | fullstack | frontend | cli | other -->\n{app_type}\n\n## Ports\n<!-- where each service listens while tests run -->\n| Service | Port |\n|---------|------|\n| Frontend | {frontend_port} |\n| Backend | {backend_port} |\n| Database | {database_port} |\n\n## Main Scenarios\n<!-- the flows that matter most -->\n- {scenario_1}\n- {scenario_2}\n- {scenario_3}\n\n## Authentication\n<!-- how a test signs in -->\n- **Login URL:** {login_url}\n- **Test Credentials:**\n  - Username: {test_username}\n  - Password: {test_password}\n\n## Tech Stack\n<!-- what the app is made of -->\n- Frontend: {frontend_stack}\n- Backend: {backend_stack}\n- Testing: {testing_tools}\n\n## Notes\n<!-- anything an agent should know -->\n- {note_1}\n- {note_2}\n";

/// Errors of the store. Each names the file or id involved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An id is not valid.
    #[error("invalid {kind} {value:?}: {rule}")]
    InvalidId {
        /// Which kind of id.
        kind: &'static str,
        /// The value given.
        value: String,
        /// The rule it breaks.
        rule: &'static str,
    },
    /// A file exists but cannot be understood.
    #[error("{}: {problem} (fix the file by hand, or delete it to start it afresh)", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// `.harshJudge/` does not exist.
    #[error("no HarshJudge project at {}: initialise it first (harshjudge-mcp init <name>, or run a scenario suite)", path.display())]
    NotInitialized {
        /// The `.harshJudge/` path looked for.
        path: PathBuf,
    },
    /// Something that must not exist yet does.
    #[error("{what} already exists at {}", path.display())]
    AlreadyExists {
        /// What.
        what: &'static str,
        /// Where.
        path: PathBuf,
    },
    /// The run is final; nothing more can be recorded in it.
    #[error("run \"{run}\" is already completed; start a new run to record more")]
    RunCompleted {
        /// The run's id.
        run: String,
    },
    /// A path the store was about to read or write goes through a symbolic
    /// link inside `.harshJudge/`, which could lead outside the project.
    #[error("{}: a symbolic link inside .harshJudge/ (at {}); links there are never followed, since they could lead outside the project: replace it with a real folder or file", path.display(), link.display())]
    Link {
        /// The path that was refused.
        path: PathBuf,
        /// The link on the way to it.
        link: PathBuf,
    },
    /// Two trees being merged hold the same run id with different content
    /// ([`Store::merge_from`]); a merge never overwrites a run.
    #[error("run {run} differs between {} and {}: the same run id with different content; a merge never overwrites a run — compare the two folders and remove the wrong one from its tree, then merge again", path.display(), other.display())]
    Conflict {
        /// The run id.
        run: String,
        /// The run folder in the tree being merged.
        path: PathBuf,
        /// The run folder already there (in the target or an earlier source).
        other: PathBuf,
    },
    /// A scenario, run or file that was named does not exist.
    #[error("{what} not found: {}", path.display())]
    NotFound {
        /// What.
        what: String,
        /// Where it was looked for.
        path: PathBuf,
    },
}

/// Current time as the original writes it: UTC, milliseconds, `Z`.
pub fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// What [`Store::upsert_scenario`] sets. `None` keeps the stored value (or the default).
#[derive(Clone, Debug, Default)]
pub struct ScenarioSpec {
    /// Title.
    pub title: String,
    /// Step titles, in order (ids `01`… are given by position).
    pub steps: Vec<String>,
    /// Tags; `None` keeps the stored ones.
    pub tags: Option<Vec<String>>,
    /// Starred; `None` keeps the stored value.
    pub starred: Option<bool>,
    /// Seconds; `None` keeps the stored value (default 60).
    pub estimated_duration: Option<f64>,
}

/// A step file's content.
#[derive(Clone, Debug, Default)]
pub struct StepDoc {
    /// Description section.
    pub description: String,
    /// Preconditions section.
    pub preconditions: String,
    /// Actions section.
    pub actions: String,
    /// Code of the step and its language (`rust`); empty: the original's Playwright placeholder.
    pub code: Option<(String, String)>,
    /// Expected outcome section.
    pub expected_outcome: String,
}

/// Statistics of a scenario after a completed run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    /// Completed runs.
    pub total_runs: u64,
    /// Passed runs.
    pub pass_count: u64,
    /// Failed runs.
    pub fail_count: u64,
    /// Mean duration in ms.
    pub avg_duration: u64,
}
use serde::Serialize;

/// A written evidence file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenEvidence {
    /// Absolute path of the file.
    pub path: PathBuf,
    /// Its file name (`{name}.{ext}`).
    pub file_name: String,
    /// Bytes written.
    pub size: u64,
}

/// The `.harshJudge/` folder of one project.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store at `dir` (the `.harshJudge` folder itself). Does no I/O.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Store { dir: dir.into() }
    }

    /// The `.harshJudge` folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Checks that `path` stays inside `.harshJudge/` without following a
    /// link: it must lie under the folder, and no part of it below the folder
    /// (the file itself included) may be a symbolic link. Parts that do not
    /// exist yet are fine (they will be created as real folders). Every path
    /// the store reads or writes goes through this check; other writers
    /// under `.harshJudge/` (reports, checkpoints) may call it too.
    pub fn confine(&self, path: &Path) -> Result<(), StoreError> {
        let outside = || StoreError::Link {
            path: path.to_path_buf(),
            link: path.to_path_buf(),
        };
        let rel = path.strip_prefix(&self.dir).map_err(|_| outside())?;
        let mut at = self.dir.clone();
        for c in rel.components() {
            match c {
                std::path::Component::Normal(part) => at.push(part),
                std::path::Component::CurDir => continue,
                _ => return Err(outside()),
            }
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(StoreError::Link {
                        path: path.to_path_buf(),
                        link: at,
                    });
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(io_err(&at, e)),
            }
        }
        Ok(())
    }

    /// `config.yaml`.
    pub fn config_path(&self) -> PathBuf {
        self.dir.join("config.yaml")
    }

    /// `scenarios/{slug}`.
    pub fn scenario_dir(&self, slug: &Slug) -> PathBuf {
        self.dir.join("scenarios").join(slug.as_str())
    }

    /// `scenarios/{slug}/meta.yaml`.
    pub fn meta_path(&self, slug: &Slug) -> PathBuf {
        self.scenario_dir(slug).join("meta.yaml")
    }

    /// `scenarios/{slug}/runs/{runId}`.
    pub fn run_dir(&self, slug: &Slug, run: &RunId) -> PathBuf {
        self.scenario_dir(slug).join("runs").join(run.as_str())
    }

    /// `scenarios/{slug}/runs/{runId}/step-{NN}/evidence`.
    pub fn evidence_dir(&self, slug: &Slug, run: &RunId, step: &StepId) -> PathBuf {
        self.run_dir(slug, run)
            .join(format!("step-{step}"))
            .join("evidence")
    }

    /// Whether `.harshJudge/config.yaml` exists.
    pub fn is_initialized(&self) -> bool {
        self.config_path().is_file()
    }

    /// Creates `config.yaml` (if missing) and `.gitignore` (if missing). Safe to
    /// call from several processes at once: the first writer wins.
    pub fn ensure_initialized(&self, project_name: &str, base_url: &str) -> Result<(), StoreError> {
        if self.is_initialized() {
            return Ok(());
        }
        self.confine(&self.config_path())?;
        self.confine(&self.dir.join(".gitignore"))?;
        self.confine(&self.dir.join("scenarios"))?;
        fsio::create_dir_all(&self.dir.join("scenarios"))?;
        let config = Config {
            project_name: project_name.into(),
            base_url: base_url.into(),
            version: "1.0".into(),
            created_at: now_iso(),
        };
        fsio::write_new(&self.config_path(), to_yaml(&config).as_bytes())?;
        fsio::write_new(&self.dir.join(".gitignore"), GITIGNORE.as_bytes())?;
        Ok(())
    }

    /// Initialises a project for agents: `config.yaml`, `.gitignore`, `prd.md`
    /// (a template the agent fills in) and `scenarios/`. Fails with
    /// [`StoreError::AlreadyExists`] when `config.yaml` exists; a folder left
    /// half-made (no `config.yaml`) is completed.
    pub fn init_project(&self, project_name: &str, base_url: &str) -> Result<(), StoreError> {
        if self.is_initialized() {
            return Err(StoreError::AlreadyExists {
                what: "a HarshJudge project",
                path: self.config_path(),
            });
        }
        self.confine(&self.dir.join("scenarios"))?;
        self.confine(&self.dir.join("prd.md"))?;
        fsio::create_dir_all(&self.dir.join("scenarios"))?;
        fsio::write_new(&self.dir.join("prd.md"), PRD_TEMPLATE.as_bytes())?;
        self.ensure_initialized(project_name, base_url)?;
        Ok(())
    }

    /// Reads `config.yaml`.
    pub fn read_config(&self) -> Result<Config, StoreError> {
        let path = self.config_path();
        self.confine(&path)?;
        match std::fs::read_to_string(&path) {
            Ok(text) => parse_yaml(&path, &text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(StoreError::NotInitialized {
                path: self.dir.clone(),
            }),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    /// Reads `meta.yaml`, or `None` when the scenario has none.
    pub fn read_meta(&self, slug: &Slug) -> Result<Option<ScenarioMeta>, StoreError> {
        let path = self.meta_path(slug);
        self.confine(&path)?;
        match read_meta_doc(&path)? {
            None => Ok(None),
            Some(doc) => typed_meta(&path, doc).map(Some),
        }
    }

    /// Locked read-modify-write of `meta.yaml`: `f` gets the document as an ordered
    /// map (unknown keys and their order survive) and the typed view of it.
    pub fn update_meta<R>(
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
    pub fn try_update_meta<R>(
        &self,
        slug: &Slug,
        f: impl FnOnce(&mut MetaDoc, &ScenarioMeta) -> Result<R, StoreError>,
    ) -> Result<(R, ScenarioMeta), StoreError> {
        let path = self.meta_path(slug);
        let lock = self.scenario_dir(slug).join(".meta.yaml.lock");
        self.confine(&path)?;
        self.confine(&lock)?;
        let _lock = LockGuard::acquire(&lock)?;
        let mut doc = MetaDoc(read_meta_doc(&path)?.unwrap_or_default());
        let before = typed_meta(&path, doc.0.clone())?;
        let r = f(&mut doc, &before)?;
        let after = typed_meta(&path, doc.0.clone())?;
        write_atomic(&path, yaml::to_string(&Value::Object(doc.0)).as_bytes())?;
        Ok((r, after))
    }

    /// Creates or updates a scenario: `meta.yaml` (keeping statistics, and
    /// `starred`/`tags` unless given) and one `steps/NN-slug.md` per step; step
    /// files no longer listed are removed. `docs[i]` fills the i-th step file.
    pub fn upsert_scenario(
        &self,
        slug: &Slug,
        spec: &ScenarioSpec,
        docs: &[StepDoc],
    ) -> Result<ScenarioMeta, StoreError> {
        if spec.steps.len() > 99 {
            return Err(StoreError::Corrupt {
                path: self.meta_path(slug),
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
        let steps_dir = self.scenario_dir(slug).join("steps");
        self.confine(&steps_dir)?;
        fsio::create_dir_all(&steps_dir)?;
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
            self.confine(&path)?;
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                write_atomic(&path, text.as_bytes())?;
            }
        }
        let keep: Vec<&str> = refs.iter().map(|r| r.file.as_str()).collect();
        for entry in std::fs::read_dir(&steps_dir).map_err(|e| io_err(&steps_dir, e))? {
            let entry = entry.map_err(|e| io_err(&steps_dir, e))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".md") && !keep.contains(&name.as_ref()) {
                std::fs::remove_file(entry.path()).map_err(|e| io_err(&entry.path(), e))?;
            }
        }
        Ok(meta)
    }

    /// Starts a run: allocates its number (stored in `meta.yaml`), creates
    /// `runs/{runId}/evidence/` and writes `result.json` as `running`, all at
    /// once ([`create_run`](Self::create_run)).
    pub fn start_run(
        &self,
        slug: &Slug,
        run: &RunId,
        started_at: &str,
    ) -> Result<RunResult, StoreError> {
        self.create_run(slug, run, started_at, None, false)
    }

    /// Creates a run so that it appears whole: the folder is built under a
    /// temporary name carrying this process's id (`runs/.{runId}.{pid}-{n}.tmp`)
    /// with `evidence/`, `result.json` (`running`, with its number) and
    /// `skill-state.yaml` (when given), then renamed to `runs/{runId}`. A
    /// process killed meanwhile leaves only the temporary folder, which
    /// [`clean_temporary_files`](Self::clean_temporary_files) removes at the
    /// next start; nobody ever sees a run without its `result.json`. With
    /// `mark_running` the run is marked as executed by this process
    /// ([`mark_running`](Self::mark_running)) before it appears, so a run of
    /// a process that dies is always found by [`orphaned_runs`](Self::orphaned_runs).
    pub fn create_run(
        &self,
        slug: &Slug,
        run: &RunId,
        started_at: &str,
        state: Option<&SkillState>,
        mark_running: bool,
    ) -> Result<RunResult, StoreError> {
        let dir = self.run_dir(slug, run);
        self.confine(&dir)?;
        let (number, _) = self.update_meta(slug, |doc, old| {
            let n = old.last_run_number.max(self.count_run_dirs(slug)) + 1;
            doc.set("lastRunNumber", n);
            n
        })?;
        if dir.exists() {
            return Err(StoreError::AlreadyExists {
                what: "run",
                path: dir,
            });
        }
        let result = RunResult {
            run_id: run.to_string(),
            scenario_slug: slug.to_string(),
            status: RunStatus::Running,
            started_at: started_at.into(),
            completed_at: None,
            duration: 0,
            steps: vec![],
            failed_step: None,
            error_message: None,
            run_number: Some(number),
            interrupted: false,
            attempt: None,
            first_run_id: None,
            flaky: false,
        };
        if mark_running {
            self.mark_running(slug, run)?;
        }
        let tmp = fsio::tmp_path(&dir);
        let build = || -> Result<(), StoreError> {
            fsio::create_dir_all(&tmp.join("evidence"))?;
            let file = tmp.join("result.json");
            std::fs::write(&file, result_bytes(&result)).map_err(|e| io_err(&file, e))?;
            if let Some(state) = state {
                let file = tmp.join("skill-state.yaml");
                std::fs::write(&file, to_yaml(state)).map_err(|e| io_err(&file, e))?;
            }
            std::fs::rename(&tmp, &dir).map_err(|e| io_err(&dir, e))
        };
        if let Err(e) = build() {
            let _ = std::fs::remove_dir_all(&tmp);
            if mark_running {
                self.clear_running(slug, run);
            }
            return Err(e);
        }
        Ok(result)
    }

    /// Run folders of a scenario, in progress or not (temporary ones excluded).
    fn count_run_dirs(&self, slug: &Slug) -> u64 {
        let dir = self.scenario_dir(slug).join("runs");
        if self.confine(&dir).is_err() {
            return 0;
        }
        std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .count() as u64
            })
            .unwrap_or(0)
    }

    /// Writes `result.json` (pretty JSON, no trailing newline, like the original).
    pub fn write_result(
        &self,
        slug: &Slug,
        run: &RunId,
        result: &RunResult,
    ) -> Result<(), StoreError> {
        self.put_result(slug, run, result, Durability::Now)
    }

    /// Writes `result.json` now, or hands it to the background writer.
    pub fn put_result(
        &self,
        slug: &Slug,
        run: &RunId,
        result: &RunResult,
        when: Durability,
    ) -> Result<(), StoreError> {
        let result = result.clone();
        let render = Box::new(move || result_bytes(&result));
        self.put(self.run_dir(slug, run).join("result.json"), render, when)
    }

    /// Writes `skill-state.yaml` now, or hands it to the background writer.
    pub fn put_skill_state(
        &self,
        slug: &Slug,
        run: &RunId,
        state: &SkillState,
        when: Durability,
    ) -> Result<(), StoreError> {
        let state = state.clone();
        let render = Box::new(move || to_yaml(&state).into_bytes());
        self.put(
            self.run_dir(slug, run).join("skill-state.yaml"),
            render,
            when,
        )
    }

    fn put(&self, path: PathBuf, render: fsio::Render, when: Durability) -> Result<(), StoreError> {
        self.confine(&path)?;
        let writer = fsio::BackgroundWriter::global();
        // Now-writes go through the writer too, so that a queued older version
        // can never land after them.
        match when {
            Durability::Background => {
                writer.submit(path, render);
                Ok(())
            }
            Durability::Now => writer.write_now(path, render),
        }
    }

    /// Reads `result.json`, or `None` when the run has none yet.
    pub fn read_result(&self, slug: &Slug, run: &RunId) -> Result<Option<RunResult>, StoreError> {
        let path = self.run_dir(slug, run).join("result.json");
        self.confine(&path)?;
        match std::fs::read(&path) {
            Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => Err(StoreError::Corrupt {
                path,
                problem: "the file is empty (truncated: its process was probably killed while writing it)".into(),
            }),
            Ok(bytes) => {
                serde_json::from_slice(&bytes)
                    .map(Some)
                    .map_err(|e| StoreError::Corrupt {
                        path,
                        problem: format!("not a valid result.json: {e}"),
                    })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    /// Writes `skill-state.yaml`.
    pub fn write_skill_state(
        &self,
        slug: &Slug,
        run: &RunId,
        state: &SkillState,
    ) -> Result<(), StoreError> {
        self.put_skill_state(slug, run, state, Durability::Now)
    }

    /// Reads `skill-state.yaml`, or `None`.
    pub fn read_skill_state(
        &self,
        slug: &Slug,
        run: &RunId,
    ) -> Result<Option<SkillState>, StoreError> {
        let path = self.run_dir(slug, run).join("skill-state.yaml");
        self.confine(&path)?;
        match std::fs::read_to_string(&path) {
            Ok(text) => parse_yaml(&path, &text).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    /// Writes an evidence file `{name}.{ext}` and its `{name}.meta.json` sidecar
    /// into `step-{NN}/evidence/`. An existing file of that name is replaced.
    #[allow(clippy::too_many_arguments)]
    pub fn write_evidence(
        &self,
        slug: &Slug,
        run: &RunId,
        step: &StepId,
        name: &EvidenceName,
        ext: &str,
        kind: &str,
        bytes: &[u8],
        metadata: serde_json::Map<String, serde_json::Value>,
    ) -> Result<WrittenEvidence, StoreError> {
        let ext_ok =
            !ext.is_empty() && ext.len() <= 10 && ext.bytes().all(|b| b.is_ascii_alphanumeric());
        if !ext_ok {
            return Err(StoreError::InvalidId {
                kind: "file extension",
                value: ext.into(),
                rule: "must be 1 to 10 letters or digits",
            });
        }
        let dir = self.evidence_dir(slug, run, step);
        let file_name = format!("{name}.{ext}");
        let path = dir.join(&file_name);
        let sidecar_path = dir.join(format!("{name}.meta.json"));
        self.confine(&path)?;
        self.confine(&sidecar_path)?;
        let sidecar = EvidenceMeta {
            run_id: run.to_string(),
            step_id: step.to_string(),
            kind: kind.into(),
            name: name.to_string(),
            captured_at: now_iso(),
            file_size: bytes.len() as u64,
            metadata,
        };
        let text = serde_json::to_string_pretty(&sidecar).expect("sidecar serializes");
        // The sidecar lands first and the file last, each atomically: an
        // evidence file is never seen without its sidecar. A process killed
        // between the two leaves a sidecar alone, which no reader lists and
        // the next start removes ([`Store::clean_temporary_files`]).
        write_atomic(&sidecar_path, text.as_bytes())?;
        write_atomic(&path, bytes)?;
        Ok(WrittenEvidence {
            path,
            file_name,
            size: bytes.len() as u64,
        })
    }

    /// Evidence file names of a step (sidecars and hidden files excluded), sorted byte-wise.
    pub fn list_evidence(
        &self,
        slug: &Slug,
        run: &RunId,
        step: &StepId,
    ) -> Result<Vec<String>, StoreError> {
        let dir = self.evidence_dir(slug, run, step);
        self.confine(&dir)?;
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(io_err(&dir, e)),
        };
        let mut names: Vec<String> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".meta.json") && !n.starts_with('.'))
            .collect();
        names.sort();
        Ok(names)
    }

    /// Records a completed run in `meta.yaml`: counts, `lastRun`, `lastResult`,
    /// and the rounded mean duration.
    pub fn record_completion(
        &self,
        slug: &Slug,
        status: RunStatus,
        duration_ms: u64,
    ) -> Result<Stats, StoreError> {
        let (stats, _) = self.update_meta(slug, |doc, old| {
            count_completion(doc, old, status, duration_ms)
        })?;
        Ok(stats)
    }

    /// Writes a run's final `result.json` and counts it in `meta.yaml` (and
    /// `flakyCount` for a flaky run) under the `meta.yaml` lock, so that a
    /// recount ([`recount_stats`](Self::recount_stats)) sees either both or
    /// neither: a completion racing a recount is never lost nor counted twice.
    pub fn complete_run(
        &self,
        slug: &Slug,
        run: &RunId,
        result: &RunResult,
    ) -> Result<Stats, StoreError> {
        let (stats, _) = self.try_update_meta(slug, |doc, old| {
            self.write_result(slug, run, result)?;
            let stats = count_completion(doc, old, result.status, result.duration);
            if result.flaky {
                let n = doc.0.get("flakyCount").and_then(Value::as_u64).unwrap_or(0);
                doc.set("flakyCount", n + 1);
            }
            Ok(stats)
        })?;
        Ok(stats)
    }

    /// Recomputes a scenario's statistics in `meta.yaml` from its runs: every
    /// run with a final `result.json` that was not interrupted counts, plus the
    /// runs pruned earlier (`prunedRuns`). Used after a process died between
    /// writing a run's result and counting it. The runs are read under the
    /// `meta.yaml` lock, which every completion holds while it writes its
    /// result and its count ([`complete_run`](Self::complete_run)), so a
    /// recount racing live writers loses none of their runs.
    pub fn recount_stats(&self, slug: &Slug) -> Result<Stats, StoreError> {
        let (stats, _) = self.try_update_meta(slug, |doc, _| {
            let mut done: Vec<RunResult> = vec![];
            for run in self.list_runs(slug)? {
                if let Ok(Some(r)) = self.read_result(slug, &run)
                    && r.status != RunStatus::Running
                    && !r.interrupted
                {
                    done.push(r);
                }
            }
            done.sort_by(|a, b| a.completed_at.cmp(&b.completed_at));
            let base = PrunedRuns::read(doc);
            let total = base.total_runs + done.len() as u64;
            let pass = base.pass_count
                + done.iter().filter(|r| r.status == RunStatus::Pass).count() as u64;
            let flaky = base.flaky_count + done.iter().filter(|r| r.flaky).count() as u64;
            let sum: u64 = base.duration_sum + done.iter().map(|r| r.duration).sum::<u64>();
            let avg = if total == 0 {
                0
            } else {
                (sum as f64 / total as f64 + 0.5).floor() as u64
            };
            if let Some(last) = done.last() {
                if let Some(at) = &last.completed_at {
                    doc.set("lastRun", at.clone());
                }
                doc.set("lastResult", last.status.as_str());
            }
            doc.set("totalRuns", total);
            doc.set("passCount", pass);
            doc.set("failCount", total - pass);
            doc.set("avgDuration", avg);
            if flaky > 0 || doc.0.contains_key("flakyCount") {
                doc.set("flakyCount", flaky);
            }
            Ok(Stats {
                total_runs: total,
                pass_count: pass,
                fail_count: total - pass,
                avg_duration: avg,
            })
        })?;
        Ok(stats)
    }

    /// Counts a flaky run (passed on a retry) in `meta.yaml` (`flakyCount`, a
    /// harshjudge addition; the original's counts are left as they are).
    pub fn record_flaky(&self, slug: &Slug) -> Result<(), StoreError> {
        self.update_meta(slug, |doc, _| {
            let n = doc.0.get("flakyCount").and_then(Value::as_u64).unwrap_or(0);
            doc.set("flakyCount", n + 1);
        })?;
        Ok(())
    }

    /// Takes the exclusive lock of one run (`runs/{id}/.run.lock`), held until the
    /// guard drops: front ends that change a run (an MCP call, a CLI command)
    /// take turns, whatever process they run in.
    pub fn lock_run(&self, slug: &Slug, run: &RunId) -> Result<RunLock, StoreError> {
        let path = self.run_dir(slug, run).join(".run.lock");
        self.confine(&path)?;
        LockGuard::acquire(&path).map(RunLock)
    }

    /// The `step-NN` folders of a run, sorted.
    pub fn step_dirs(&self, slug: &Slug, run: &RunId) -> Result<Vec<StepId>, StoreError> {
        let dir = self.run_dir(slug, run);
        self.confine(&dir)?;
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(io_err(&dir, e)),
        };
        let mut ids: Vec<StepId> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let id = name.strip_prefix("step-")?;
                (id.len() == 2 && id.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| StepId::new(id).ok())
                    .flatten()
            })
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// The runs of a scenario (folder names that are valid run ids), sorted.
    pub fn list_runs(&self, slug: &Slug) -> Result<Vec<RunId>, StoreError> {
        let dir = self.scenario_dir(slug).join("runs");
        self.confine(&dir)?;
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(io_err(&dir, e)),
        };
        let mut runs: Vec<RunId> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| RunId::new(e.file_name().to_string_lossy().into_owned()).ok())
            .collect();
        runs.sort();
        Ok(runs)
    }

    /// The scenarios of the project (folder names that are valid slugs), sorted byte-wise.
    pub fn list_scenarios(&self) -> Result<Vec<Slug>, StoreError> {
        let dir = self.dir.join("scenarios");
        self.confine(&dir)?;
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(io_err(&dir, e)),
        };
        let mut slugs: Vec<Slug> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| Slug::new(e.file_name().to_string_lossy().into_owned()).ok())
            .collect();
        slugs.sort();
        Ok(slugs)
    }

    /// Finds the scenario a run belongs to.
    pub fn find_run(&self, run: &RunId) -> Result<Option<Slug>, StoreError> {
        let scenarios = self.dir.join("scenarios");
        self.confine(&scenarios)?;
        let rd = match std::fs::read_dir(&scenarios) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(&scenarios, e)),
        };
        let mut slugs: Vec<String> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        slugs.sort();
        for s in slugs {
            if let Ok(slug) = Slug::new(s)
                && std::fs::symlink_metadata(self.run_dir(&slug, run))
                    .is_ok_and(|m| m.file_type().is_dir())
            {
                return Ok(Some(slug));
            }
        }
        Ok(None)
    }
}

/// Runs a `cargo test` process is executing are marked in `.running/` (one small
/// file per run: the process id and its start time), so that a run left
/// `running` by a process that died (kill -9, crash) is found at the next start
/// without reading every `result.json`.
impl Store {
    fn running_marker(&self, slug: &Slug, run: &RunId) -> PathBuf {
        self.dir.join(".running").join(format!("{slug}~{run}"))
    }

    /// Marks `run` as executed by this process.
    pub fn mark_running(&self, slug: &Slug, run: &RunId) -> Result<(), StoreError> {
        let me = std::process::id();
        let text = format!("{me} {}\n", process_start_time(me).unwrap_or(0));
        let path = self.running_marker(slug, run);
        self.confine(&path)?;
        write_atomic(&path, text.as_bytes())
    }

    /// Removes the marker of a run that ended (or was marked interrupted).
    pub fn clear_running(&self, slug: &Slug, run: &RunId) {
        let _ = std::fs::remove_file(self.running_marker(slug, run));
    }

    /// Runs marked running whose process is gone: (scenario, run, pid).
    pub fn orphaned_runs(&self) -> Vec<(Slug, RunId, u32)> {
        let dir = self.dir.join(".running");
        if self.confine(&dir).is_err() {
            return vec![];
        }
        let Ok(rd) = std::fs::read_dir(dir) else {
            return vec![];
        };
        let mut out = vec![];
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some((slug, run)) = name.split_once('~') else {
                continue;
            };
            let (Ok(slug), Ok(run)) = (Slug::new(slug), RunId::new(run)) else {
                continue;
            };
            if !e.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            let mut parts = text.split_whitespace();
            let pid: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
            let started: u64 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
            if pid == 0 || !process_alive(pid, started) {
                out.push((slug, run, pid));
            }
        }
        out.sort();
        out
    }
}

/// Retention: how many runs per scenario `.harshJudge/` keeps.
impl Store {
    /// Default of `HARSHJUDGE_KEEP_RUNS`: the newest 20 runs of each scenario.
    /// Everything that shows history shows less (the report's history row 12
    /// runs, `getStatus` 10), so 20 keeps all of it plus room to compare a
    /// regression with the passes before it, while a scenario with browser
    /// evidence stays at a few MB however long the project lives.
    pub const DEFAULT_KEEP_RUNS: usize = 20;

    /// Removes the oldest runs of `slug` beyond the newest `keep` (by run id,
    /// which sorts by start time). Never removed: a run still `running` (or
    /// without a readable `result.json`: it may be in progress, or need a
    /// person to look at it), the newest failed run (not interrupted), and
    /// — since `keep` is at least 1 — the newest run. The statistics in
    /// `meta.yaml` do not change: what each removed run counted is added to
    /// `prunedRuns`, which [`recount_stats`](Self::recount_stats) adds back.
    /// Each run is taken under its lock, then the `meta.yaml` lock, renamed to
    /// a temporary name of this process (removed at the next start if it dies
    /// here) and deleted. Returns the runs removed.
    pub fn prune_runs(&self, slug: &Slug, keep: usize) -> Result<Vec<RunId>, StoreError> {
        let keep = keep.max(1);
        let runs = self.list_runs(slug)?;
        if runs.len() <= keep {
            return Ok(vec![]);
        }
        let results: Vec<Option<RunResult>> = runs
            .iter()
            .map(|r| self.read_result(slug, r).ok().flatten())
            .collect();
        let newest_failed = runs
            .iter()
            .zip(&results)
            .rev()
            .find(|(_, r)| {
                r.as_ref()
                    .is_some_and(|r| r.status == RunStatus::Fail && !r.interrupted)
            })
            .map(|(id, _)| id.clone());
        let mut removed = vec![];
        let candidates = runs.len() - keep;
        for (run, result) in runs.iter().zip(&results).take(candidates) {
            let final_run = result
                .as_ref()
                .is_some_and(|r| r.status != RunStatus::Running);
            if !final_run || newest_failed.as_ref() == Some(run) {
                continue;
            }
            let _run_lock = self.lock_run(slug, run)?;
            // Read again under the lock: what counts is the state now.
            let Ok(Some(r)) = self.read_result(slug, run) else {
                continue;
            };
            if r.status == RunStatus::Running {
                continue;
            }
            let dir = self.run_dir(slug, run);
            let trash = fsio::tmp_path(&dir);
            self.try_update_meta(slug, |doc, _| {
                std::fs::rename(&dir, &trash).map_err(|e| io_err(&dir, e))?;
                if !r.interrupted {
                    let mut base = PrunedRuns::read(doc);
                    base.total_runs += 1;
                    base.pass_count += u64::from(r.status == RunStatus::Pass);
                    base.flaky_count += u64::from(r.flaky);
                    base.duration_sum += r.duration;
                    base.write(doc);
                }
                Ok(())
            })?;
            drop(_run_lock);
            std::fs::remove_dir_all(&trash).map_err(|e| io_err(&trash, e))?;
            removed.push(run.clone());
        }
        Ok(removed)
    }
}

/// Leftovers of processes that died while writing (kill -9, a crash), removed
/// at the next start.
impl Store {
    /// Removes what processes that are gone left half-written under
    /// `.harshJudge/`: temporary files and folders (`.{name}.{pid}-{n}.tmp`,
    /// made by atomic writes and run creation) whose process no longer runs,
    /// and evidence sidecars without their file in runs that are final (a
    /// kill between the sidecar and the file). Links are never followed.
    /// Returns the paths removed.
    pub fn clean_temporary_files(&self) -> Vec<PathBuf> {
        let mut removed = vec![];
        let me = std::process::id();
        let mut stack = vec![(self.dir.clone(), 0usize)];
        while let Some((dir, depth)) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in rd.flatten() {
                let Ok(kind) = e.file_type() else { continue };
                let name = e.file_name();
                let name = name.to_string_lossy();
                if let Some(pid) = fsio::tmp_owner(&name) {
                    if pid != me && !process_alive(pid, 0) {
                        let path = e.path();
                        let gone = if kind.is_dir() {
                            std::fs::remove_dir_all(&path)
                        } else {
                            std::fs::remove_file(&path)
                        };
                        if gone.is_ok() {
                            removed.push(path);
                        }
                    }
                } else if kind.is_dir() && depth < 8 {
                    stack.push((e.path(), depth + 1));
                }
            }
        }
        for slug in self.list_scenarios().unwrap_or_default() {
            for run in self.list_runs(&slug).unwrap_or_default() {
                removed.extend(self.remove_lone_sidecars(&slug, &run));
            }
        }
        removed.sort();
        removed
    }

    /// Sidecars without their evidence file, in a run that is final.
    fn remove_lone_sidecars(&self, slug: &Slug, run: &RunId) -> Vec<PathBuf> {
        let mut lone = vec![];
        for step in self.step_dirs(slug, run).unwrap_or_default() {
            let dir = self.evidence_dir(slug, run, &step);
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            let names: Vec<String> = rd
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            for n in &names {
                if let Some(stem) = n.strip_suffix(".meta.json")
                    && !names.iter().any(|f| {
                        !f.ends_with(".meta.json")
                            && f.strip_prefix(stem)
                                .is_some_and(|ext| ext.starts_with('.') && !ext[1..].contains('.'))
                    })
                {
                    lone.push(dir.join(n));
                }
            }
        }
        if lone.is_empty() {
            return lone;
        }
        // Only in a final run: in a running one the file may be on its way.
        match self.read_result(slug, run) {
            Ok(Some(r)) if r.status != RunStatus::Running => {}
            _ => return vec![],
        }
        lone.retain(|p| std::fs::remove_file(p).is_ok());
        lone
    }
}

/// Whether process `pid` runs and is the one that started at `started` (clock
/// ticks since boot, from /proc; 0 when unknown): a recycled pid is not alive.
pub fn process_alive(pid: u32, started: u64) -> bool {
    let Some(p) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    // Signal 0 only checks that the process exists (EPERM: it does, not ours).
    let exists = rustix::process::test_kill_process(p)
        .map_or_else(|e| e == rustix::io::Errno::PERM, |()| true);
    if !exists {
        return false;
    }
    match (started, process_start_time(pid)) {
        (0, _) | (_, None) => true,
        (a, Some(b)) => a == b,
    }
}

/// Start time of a process in clock ticks since boot (Linux `/proc/{pid}/stat`,
/// field 22); `None` elsewhere.
pub fn process_start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: skip past its end.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Writes a file atomically (temporary file + rename), creating its folder.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_atomic(path, bytes)
}

impl Store {
    /// Writes a file under `.harshJudge/` atomically, creating its folder,
    /// after checking that no symbolic link below `.harshJudge/` is on the
    /// way ([`confine`](Self::confine)). For writers outside the store
    /// (reports, checkpoints, agent files).
    pub fn write_file(&self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        self.confine(path)?;
        write_atomic(path, bytes)
    }

    /// [`confine`](Self::confine) as an `io::Error` (kind `Other`, the
    /// message names the path and the link), for the I/O primitives below.
    fn confine_io(&self, path: &Path) -> std::io::Result<()> {
        self.confine(path).map_err(std::io::Error::other)
    }

    /// Opens a file under `.harshJudge/` for reading, refusing a path that
    /// leaves the folder or passes a symbolic link ([`confine`](Self::confine)).
    pub fn open_file(&self, path: &Path) -> std::io::Result<std::fs::File> {
        self.confine_io(path)?;
        no_follow(std::fs::OpenOptions::new().read(true)).open(path)
    }

    /// Reads a whole file under `.harshJudge/` (confined, see [`open_file`](Self::open_file)).
    pub fn read_file(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        use std::io::Read;
        let mut bytes = Vec::new();
        self.open_file(path)?.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Reads a UTF-8 file under `.harshJudge/` (confined).
    pub fn read_to_string(&self, path: &Path) -> std::io::Result<String> {
        String::from_utf8(self.read_file(path)?).map_err(std::io::Error::other)
    }

    /// Opens (creating it and its folder, confined) a file under
    /// `.harshJudge/` to read and append.
    pub fn append_file(&self, path: &Path) -> std::io::Result<std::fs::File> {
        if let Some(parent) = path.parent() {
            self.create_dir_all(parent)?;
        }
        self.confine_io(path)?;
        no_follow(
            std::fs::OpenOptions::new()
                .read(true)
                .append(true)
                .create(true),
        )
        .open(path)
    }

    /// Lists a folder under `.harshJudge/` (confined). The entries are not
    /// checked: read them through the store, which refuses links.
    pub fn read_dir(&self, path: &Path) -> std::io::Result<std::fs::ReadDir> {
        self.confine_io(path)?;
        std::fs::read_dir(path)
    }

    /// The metadata of a file or folder under `.harshJudge/` (confined; a
    /// link is refused, never followed).
    pub fn metadata(&self, path: &Path) -> std::io::Result<std::fs::Metadata> {
        self.confine_io(path)?;
        std::fs::symlink_metadata(path)
    }

    /// Creates a folder under `.harshJudge/` and its parents (confined).
    pub fn create_dir_all(&self, path: &Path) -> std::io::Result<()> {
        self.confine_io(path)?;
        std::fs::create_dir_all(path)?;
        // A link put in the way while the folders were made.
        self.confine_io(path)
    }

    /// Removes a file under `.harshJudge/` (confined; a link found on the
    /// way is refused, a link that is the file itself is refused too).
    pub fn remove_file(&self, path: &Path) -> std::io::Result<()> {
        self.confine_io(path)?;
        std::fs::remove_file(path)
    }
}

/// Adds `O_NOFOLLOW` on Unix: the last part of the path must not be a link
/// even if one appeared after [`Store::confine`] looked.
fn no_follow(o: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    o
}

/// Writes every file still queued in the background writer and reports the
/// first failure since the last call.
pub fn flush_writes() -> Result<(), StoreError> {
    fsio::BackgroundWriter::global().flush()
}

/// The exclusive lock of one run ([`Store::lock_run`]); released on drop.
pub struct RunLock(#[allow(dead_code)] LockGuard);

impl std::fmt::Debug for RunLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RunLock")
    }
}

/// When a rewritten file must be on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// Before the call returns (each MCP call; the final state of a run).
    Now,
    /// Soon, by the background writer, which keeps only the newest pending
    /// version of each file (the harness between steps). Still atomic.
    Background,
}

/// Adds one completed run to the counts of `meta.yaml`.
fn count_completion(
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
struct PrunedRuns {
    total_runs: u64,
    pass_count: u64,
    flaky_count: u64,
    duration_sum: u64,
}

impl PrunedRuns {
    const KEY: &'static str = "prunedRuns";

    fn read(doc: &MetaDoc) -> Self {
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

    fn write(&self, doc: &mut MetaDoc) {
        let mut m = Mapping::new();
        m.insert("totalRuns".into(), self.total_runs.into());
        m.insert("passCount".into(), self.pass_count.into());
        m.insert("flakyCount".into(), self.flaky_count.into());
        m.insert("durationSum".into(), self.duration_sum.into());
        doc.set(Self::KEY, Value::Object(m));
    }
}

fn result_bytes(result: &RunResult) -> Vec<u8> {
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

fn read_meta_doc(path: &Path) -> Result<Option<Mapping>, StoreError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(path, e)),
    };
    if text.trim().is_empty() {
        return Err(StoreError::Corrupt {
            path: path.into(),
            problem: "the file is empty".into(),
        });
    }
    match yaml::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(Some(m)),
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

/// Renders a store type as YAML in the original's style.
pub fn to_yaml<T: Serialize>(v: &T) -> String {
    yaml::to_string(&to_value(v))
}

fn parse_yaml<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, StoreError> {
    yaml::from_str(text).map_err(|e| StoreError::Corrupt {
        path: path.into(),
        problem: format!("{e}"),
    })
}

#[cfg(test)]
mod tests;
