//! The `.harshJudge/` store: the only code that knows paths and file shapes.
//!
//! Layout (compatible with the original HarshJudge):
//! ```text
//! .harshJudge/
//! ├── config.yaml
//! ├── .gitignore
//! ├── .blobs/{2 hex}/{sha256}               (each evidence content once; the
//! │                                          evidence files are hard links to it)
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

pub mod auth;
mod blobs;
pub mod checkpoint;
mod dirs;
mod fsio;
pub mod ids;
mod io;
pub mod judge;
mod merge;
mod meta;
mod names;
mod paths;
mod runs;
mod types;
pub mod yaml;
mod yaml_ser;

pub use blobs::BLOB_MIN_SIZE;
pub use dirs::{RunDir, ScenarioDir, StepDir};
pub use ids::{EvidenceName, RunId, Slug, StepId, slugify, step_file_name};
pub use merge::MergeOutcome;
pub use paths::{EvidenceFile, RunEvidence, STORE_DIR};
pub use runs::{EmptyResult, keep_runs};
pub use types::*;

#[cfg(test)]
pub(crate) use fsio::REWRITE_INTERVAL;
pub use io::{flush_writes, process_alive, process_start_time, write_file};
pub use meta::{MetaDoc, to_yaml};
use meta::{PrunedRuns, parse_yaml, read_meta_doc, result_bytes};

use std::path::{Path, PathBuf};

use fsio::{LockGuard, io_err};

/// The exact `.gitignore` the original writes.
pub const GITIGNORE: &str = "# HarshJudge\n# Ignore large evidence files in CI (per-step structure)\nscenarios/*/runs/*/step-*/evidence/*.png\nscenarios/*/runs/*/step-*/evidence/*.html\n# Dashboard state (local only)\n.dashboard-state.json\n# harshjudge: evidence blobs, dashboard log, runs in progress, suite checkpoints (local only)\n.blobs/\n.dashboard.log\n.running/\n.suite/\n# harshjudge: saved logins (page.save_storage_state)\n.auth/\n";

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

/// What [`ScenarioDir::upsert`] sets. `None` keeps the stored value (or the default).
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
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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

/// A piece of evidence to write: `{name}.{ext}`, its type (`kind`, as the
/// sidecar names it: `screenshot`, `console_log`, `custom`, …) and its bytes.
/// The one shape evidence has on its way from a producer (a probe, an
/// attachment, an MCP tool) through the event stream to the store.
#[derive(Clone, Copy, Debug)]
pub struct NewEvidence<'a> {
    /// Base name.
    pub name: &'a EvidenceName,
    /// File extension (1 to 10 letters or digits).
    pub ext: &'a str,
    /// Evidence type in the sidecar.
    pub kind: &'a str,
    /// The content.
    pub bytes: &'a [u8],
}

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
        let rel = under(path, &self.dir).ok_or_else(outside)?;
        // One walk by the kernel when it can (Linux: openat2 refusing every
        // link on the way): a path whose parts all exist and are no links, or
        // whose first missing part comes before any link, passes at once. Any
        // other answer (a link, a file in the middle, no openat2) takes the
        // walk below, part by part, which names what it found.
        if rel.components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        }) && walks_without_links(path)
        {
            return Ok(());
        }
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
        self.dir.join(names::CONFIG)
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
        self.confine(&self.dir.join(names::SCENARIOS))?;
        fsio::create_dir_all(&self.dir.join(names::SCENARIOS))?;
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
        self.confine(&self.dir.join(names::SCENARIOS))?;
        self.confine(&self.dir.join(names::PRD))?;
        fsio::create_dir_all(&self.dir.join(names::SCENARIOS))?;
        fsio::write_new(&self.dir.join(names::PRD), PRD_TEMPLATE.as_bytes())?;
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
}

/// The exclusive lock of one run ([`RunDir::lock`](crate::store::RunDir::lock)); released on drop.
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

#[cfg(test)]
mod tests;

/// `path` below `dir` (what [`Path::strip_prefix`] answers), found by comparing
/// bytes when `path` spells `dir` out followed by one separator, as the
/// store's own paths do (its joins), else by comparing parts.
fn under<'a>(path: &'a Path, dir: &Path) -> Option<&'a Path> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let (p, d) = (path.as_os_str().as_bytes(), dir.as_os_str().as_bytes());
        if let Some(rest) = p.strip_prefix(d).and_then(|r| r.strip_prefix(b"/"))
            && !d.is_empty()
            && !d.ends_with(b"/")
            && !rest.is_empty()
            && !rest.starts_with(b"/")
        {
            return Some(Path::new(std::ffi::OsStr::from_bytes(rest)));
        }
    }
    path.strip_prefix(dir).ok()
}

/// Set once `openat2` turned out to be missing (an old kernel, a sandbox).
#[cfg(target_os = "linux")]
static OPENAT2_MISSING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
fn openat2_works() -> bool {
    !OPENAT2_MISSING.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether the kernel walked `path` without meeting a symbolic link, up to its
/// end or to its first part that does not exist (`openat2` with
/// `RESOLVE_NO_SYMLINKS`, Linux 5.6 and later). `false` means "look part by
/// part": a link was met, or something else stopped the walk, or the call is
/// not there (then it is not tried again).
#[cfg(target_os = "linux")]
fn walks_without_links(path: &Path) -> bool {
    use rustix::fs::{Mode, OFlags, ResolveFlags, openat2};
    if !openat2_works() {
        return false;
    }
    match openat2(
        rustix::fs::CWD,
        path,
        OFlags::PATH | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::NO_SYMLINKS,
    ) {
        Ok(_fd) => true,
        Err(rustix::io::Errno::NOENT) => true,
        Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
            OPENAT2_MISSING.store(true, std::sync::atomic::Ordering::Relaxed);
            false
        }
        Err(_) => false,
    }
}

/// Without `openat2`: always the walk part by part.
#[cfg(not(target_os = "linux"))]
fn walks_without_links(_path: &Path) -> bool {
    false
}
