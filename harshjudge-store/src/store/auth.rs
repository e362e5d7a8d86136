//! Saved logins and setup scenarios' records: `.auth/{name}.json` (a
//! storage state, Playwright's format, mode 0600, ignored by git), and under
//! cargo-nextest `.suite/setup-{fn}.lock` with `.suite/setup-{fn}-{run}.json`,
//! the outcome of a setup scenario in one nextest run.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::fsio::{self, LockGuard, io_err};
use super::{Store, StoreError, names};
use harshjudge_browser::{BrowserError, StateName, StorageState};

/// What one setup scenario did in one nextest run: run once, read by every
/// process of that run that needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupRecord {
    /// The setup's run id, when it was recorded.
    pub run_id: Option<String>,
    /// Whether it passed.
    pub passed: bool,
    /// Its failure, when it failed.
    pub error: Option<String>,
}

impl Store {
    /// The storage state saved as `name`, `Ok(None)` when it never was. A
    /// bad name or an unreadable file is an error naming it.
    pub fn load_storage_state(&self, name: &str) -> Result<Option<StorageState>, BrowserError> {
        let state = StateName::new(name)?;
        let Some(bytes) =
            self.read_storage_state(&state)
                .map_err(|source| BrowserError::Invalid {
                    message: format!("storage state {name:?}: {source}"),
                    location: None,
                })?
        else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes).map(Some).map_err(|e| BrowserError::Invalid {
            message: format!(
                "the storage state {name:?} ({}) is not a storage state: {e}; save it again with page.save_storage_state({name:?})",
                self.storage_state_path(&state).display()
            ),
            location: None,
        })
    }

    /// `.auth/{name}.json`: where the storage state `name` is saved.
    pub fn storage_state_path(&self, name: &StateName) -> PathBuf {
        self.dir
            .join(names::AUTH)
            .join(format!("{}.json", name.as_str()))
    }

    /// Writes the storage state `name` atomically, readable by its owner only
    /// (mode 0600, the folder 0700), with a `.gitignore` in `.auth/` that
    /// ignores everything there. Returns the file's path.
    pub fn write_storage_state(
        &self,
        name: &StateName,
        bytes: &[u8],
    ) -> Result<PathBuf, StoreError> {
        let dir = self.dir.join(names::AUTH);
        let path = self.storage_state_path(name);
        self.confine(&path)?;
        fsio::create_dir_all(&dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| io_err(&dir, e))?;
        }
        let ignore = dir.join(names::GITIGNORE_FILE);
        self.confine(&ignore)?;
        fsio::write_new(
            &ignore,
            b"# harshjudge: saved logins (cookies, tokens) never go to git\n*\n",
        )?;
        fsio::write_private(&path, bytes)?;
        Ok(path)
    }

    /// The storage state `name` as saved, or `None` when it never was.
    pub fn read_storage_state(&self, name: &StateName) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.storage_state_path(name);
        self.confine(&path)?;
        match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    /// Holds the lock of the setup scenario `fn_name` across the processes of
    /// a nextest run, until the guard is dropped.
    pub fn lock_setup(&self, fn_name: &str) -> Result<SetupLock, StoreError> {
        let path = self
            .dir
            .join(names::SUITE)
            .join(format!(".setup-{}.lock", safe(fn_name)));
        self.confine(&path)?;
        LockGuard::acquire(&path).map(|guard| SetupLock { _guard: guard })
    }

    fn setup_record_path(&self, fn_name: &str, run: &str) -> PathBuf {
        self.dir
            .join(names::SUITE)
            .join(format!("setup-{}-{}.json", safe(fn_name), safe(run)))
    }

    /// What the setup `fn_name` did in the nextest run `run`, if it ran.
    pub fn setup_record(&self, fn_name: &str, run: &str) -> Option<SetupRecord> {
        let path = self.setup_record_path(fn_name, run);
        self.confine(&path).ok()?;
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    }

    /// Records what the setup `fn_name` did in the nextest run `run`.
    pub fn put_setup_record(
        &self,
        fn_name: &str,
        run: &str,
        record: &SetupRecord,
    ) -> Result<(), StoreError> {
        let path = self.setup_record_path(fn_name, run);
        self.confine(&path)?;
        let bytes = serde_json::to_vec(record).expect("a setup record serialises");
        fsio::write_atomic(&path, &bytes)
    }
}

/// A setup scenario's lock across processes ([`Store::lock_setup`]).
pub struct SetupLock {
    _guard: LockGuard,
}

impl std::fmt::Debug for SetupLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SetupLock")
    }
}

/// A name made of path-safe characters only (`_` for any other).
fn safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_validated_before_they_become_paths() {
        for bad in ["", "../x", "a/b", ".hidden", "a b", &"x".repeat(65)] {
            let e = StateName::new(bad).unwrap_err();
            assert!(e.to_string().contains("storage state name"), "{e}");
        }
        assert_eq!(StateName::new("admin.v2").unwrap().as_str(), "admin.v2");
    }

    #[test]
    fn a_state_is_written_private_and_ignored_by_git() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().join(".harshJudge"));
        let name = StateName::new("admin").unwrap();
        assert!(store.read_storage_state(&name).unwrap().is_none());
        let path = store.write_storage_state(&name, b"{}").unwrap();
        assert_eq!(store.read_storage_state(&name).unwrap().unwrap(), b"{}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
            let dir = std::fs::metadata(path.parent().unwrap()).unwrap();
            assert_eq!(dir.permissions().mode() & 0o777, 0o700);
        }
        let ignore = std::fs::read_to_string(path.parent().unwrap().join(".gitignore")).unwrap();
        assert!(ignore.lines().any(|l| l == "*"));
        assert!(crate::store::GITIGNORE.lines().any(|l| l == ".auth/"));
    }
}
