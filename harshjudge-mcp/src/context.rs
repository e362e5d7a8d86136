//! What every tool call runs against: the project root, its store, and the
//! limits on evidence (size, readable roots).

use std::path::{Path, PathBuf};

use harshjudge_store::store::{RunId, Slug, Store};

use crate::error::{Code, ToolError};

/// Default evidence size limit: 25 MB.
pub const DEFAULT_MAX_EVIDENCE_BYTES: u64 = 25 * 1024 * 1024;

/// A project folder or an allowed root that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// The project folder cannot be resolved (it does not exist, say).
    #[error("project folder {} cannot be used: {source} (pass an existing folder with --cwd)", path.display())]
    Project {
        /// The folder given.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The project folder is a file.
    #[error("project folder {} is not a folder (pass one with --cwd)", path.display())]
    NotAFolder {
        /// The path given, resolved.
        path: PathBuf,
    },
    /// A folder evidence files may be copied from cannot be resolved.
    #[error("allowed root {} cannot be used: {source} (give an existing folder)", path.display())]
    AllowedRoot {
        /// The folder given.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// The project a server or CLI command works on.
#[derive(Clone, Debug)]
pub struct Context {
    root: PathBuf,
    store: Store,
    /// Largest evidence accepted, in bytes.
    pub max_evidence_bytes: u64,
    /// Folders evidence files may be copied from (canonical paths).
    pub allowed_roots: Vec<PathBuf>,
    /// Whether `initProject` starts the dashboard, as the original does (the
    /// binary turns it on unless `HARSHJUDGE_DASHBOARD=off`; off by default in
    /// a library context).
    pub dashboard_on_init: bool,
    /// The scenario each run seen so far belongs to (runs never move).
    run_slugs: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<RunId, Slug>>>,
    /// The agent's session: browser, active run, recording.
    agent: std::sync::Arc<crate::agent::Agent>,
    /// The MCP client's name (its `initialize`'s `clientInfo.name`), once known.
    client_name: std::sync::Arc<std::sync::Mutex<Option<String>>>,
}

impl Context {
    /// The project at `root` (its `.harshJudge/` folder need not exist yet), with
    /// the default limits: 25 MB, evidence files from the project and the
    /// system's temporary folder.
    pub fn new(root: impl Into<PathBuf>) -> Result<Self, ContextError> {
        let path: PathBuf = root.into();
        let root = match std::fs::canonicalize(&path) {
            Ok(root) => root,
            Err(source) => return Err(ContextError::Project { path, source }),
        };
        if !root.is_dir() {
            return Err(ContextError::NotAFolder { path: root });
        }
        let mut allowed = vec![root.clone()];
        if let Ok(tmp) = std::fs::canonicalize(std::env::temp_dir())
            && !allowed.contains(&tmp)
        {
            allowed.push(tmp);
        }
        Ok(Context {
            store: Store::new(root.join(harshjudge_store::store::STORE_DIR)),
            root,
            max_evidence_bytes: DEFAULT_MAX_EVIDENCE_BYTES,
            allowed_roots: allowed,
            dashboard_on_init: false,
            run_slugs: Default::default(),
            agent: Default::default(),
            client_name: Default::default(),
        })
    }

    /// Adds a folder evidence files may be copied from.
    pub fn allow_root(&mut self, dir: &Path) -> Result<(), ContextError> {
        let dir = std::fs::canonicalize(dir).map_err(|source| ContextError::AllowedRoot {
            path: dir.to_path_buf(),
            source,
        })?;
        if !self.allowed_roots.contains(&dir) {
            self.allowed_roots.push(dir);
        }
        Ok(())
    }

    /// The project root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The scenario of a run seen before, if any.
    pub fn known_slug(&self, run: &RunId) -> Option<Slug> {
        self.run_slugs.lock().ok()?.get(run).cloned()
    }

    /// Remembers the scenario of a run (`None` forgets it).
    pub fn remember_slug(&self, run: &RunId, slug: Option<&Slug>) {
        if let Ok(mut m) = self.run_slugs.lock() {
            match slug {
                Some(s) => {
                    if m.len() > 10_000 {
                        m.clear();
                    }
                    m.insert(run.clone(), s.clone());
                }
                None => {
                    m.remove(run);
                }
            }
        }
    }

    /// The agent's session state (shared by the clones of this context).
    pub fn agent(&self) -> std::sync::Arc<crate::agent::Agent> {
        self.agent.clone()
    }

    /// The MCP client's name, when the server knows it (`recordVerdict`'s
    /// default judge name).
    pub fn client_name(&self) -> Option<String> {
        self.client_name.lock().ok()?.clone()
    }

    /// Sets the MCP client's name (from its `initialize`).
    pub fn set_client_name(&self, name: &str) {
        if let Ok(mut n) = self.client_name.lock()
            && n.as_deref() != Some(name)
        {
            *n = Some(name.to_string());
        }
    }

    /// The project's store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Fails with `NOT_INITIALIZED` unless `.harshJudge/config.yaml` exists.
    pub fn require_init(&self) -> Result<&Store, ToolError> {
        if self.store.is_initialized() {
            Ok(&self.store)
        } else {
            Err(ToolError::new(
                Code::NotInitialized,
                format!(
                    "Project not initialized: no .harshJudge/config.yaml in {}. Run initProject first (CLI: harshjudge-mcp init <name>).",
                    self.root.display()
                ),
            ))
        }
    }

    /// `path` relative to the project root, with `/` separators (as the
    /// original reports paths).
    pub fn rel(&self, path: &Path) -> String {
        let p = path.strip_prefix(&self.root).unwrap_or(path);
        p.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }
}
