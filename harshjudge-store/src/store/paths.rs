//! The project-level paths of `.harshJudge/` (a scenario's, a run's and a
//! step's are their handles', `dirs.rs`), so that no module outside `store`
//! joins a layout name: the project's store folder, the agents' files
//! (`prd.md`, the knowledge store, recorded sequences and exports, the key
//! facts of a store file), the report folder and its files, the suite
//! checkpoints and invocation records (`.suite/`), the dashboard's state and
//! log, run folders named by path (a run folder back to
//! its ids, links to runs and evidence relative to the store), the one evidence
//! lister and the readers of a run's and a scenario's files as stored.
//!
//! The names themselves are in `names.rs`, private to `store`.

use super::names;
use std::path::{Component, Path, PathBuf};

use super::fsio::io_err;
use super::{RunId, RunResult, Slug, Store, StoreError};

/// The store's folder in a project: `{project}/.harshJudge`.
pub const STORE_DIR: &str = names::STORE_DIR;

/// What a run holds as evidence, listed once for every reader (the HTML
/// report, JUnit, the dashboard's API).
#[derive(Clone, Debug, Default)]
pub struct RunEvidence {
    /// The run's `step-NN` folders, sorted.
    pub step_dirs: Vec<String>,
    /// The files, per step folder in order then the flat (v1) `evidence/`
    /// folder, each folder sorted by name.
    pub files: Vec<EvidenceFile>,
}

/// One evidence file (never a sidecar, a hidden file or a link).
#[derive(Clone, Debug)]
pub struct EvidenceFile {
    /// The step it belongs to (`NN`): its folder's, or for a flat v1 file
    /// named `step-NN-{name}`, that number; `None` for other flat files.
    pub step: Option<String>,
    /// The name to show: the file name, without the `step-NN-` prefix of a v1 file.
    pub name: String,
    /// Whether it lies in the flat (v1) `evidence/` folder of the run.
    pub flat: bool,
    /// The file's path.
    pub path: PathBuf,
    /// The path relative to the store folder, `/`-separated, the file name
    /// percent-encoded (the ids never need it): a link from the report.
    pub link: String,
    /// Its size in bytes.
    pub size: u64,
}

/// A run's evidence listed once (at its completion): the files as
/// [`RunEvidence`] has them, and what each step folder's `evidence/` holds
/// by name, as [`RunDir::list_evidence`](super::RunDir::list_evidence) lists it.
#[derive(Clone, Debug, Default)]
pub(crate) struct EvidenceListing {
    /// The run's evidence files.
    pub(crate) evidence: RunEvidence,
    /// By step (`NN`), the names in its folder; only the folders that could
    /// be listed.
    names: std::collections::HashMap<String, Vec<String>>,
}

impl EvidenceListing {
    /// The names in step `step`'s `evidence/` folder (sidecars and hidden
    /// files excluded, sorted), or `None` when the listing has no such folder
    /// or could not read it: then [`RunDir::list_evidence`](super::RunDir::list_evidence)
    /// must say what is there (or what is wrong).
    pub(crate) fn names_of(&self, step: &str) -> Option<&[String]> {
        self.names.get(step).map(Vec::as_slice)
    }
}

impl RunEvidence {
    /// The files of the step folders, or, when the run has none, those of the
    /// flat (v1) folder.
    pub fn step_files_or_flat(&self) -> impl Iterator<Item = &EvidenceFile> {
        let flat = self.step_dirs.is_empty();
        self.files.iter().filter(move |f| f.flat == flat)
    }

    /// The files of step `step` (its folder's and its v1 flat files).
    pub fn of_step<'a>(&'a self, step: &'a str) -> impl Iterator<Item = &'a EvidenceFile> {
        self.files
            .iter()
            .filter(move |f| f.step.as_deref() == Some(step))
    }
}

/// Files of a folder by name, with their sizes.
type Files = Vec<(String, u64)>;

impl Store {
    /// The store of the project at `root`: `{root}/.harshJudge`.
    pub fn for_project(root: &Path) -> Store {
        Store::new(root.join(STORE_DIR))
    }

    /// The store folder a command-line folder names: the folder itself when it
    /// holds `config.yaml` or is called `.harshJudge`, else its `.harshJudge/`
    /// when there is one (a project folder), else the folder as given.
    pub fn resolve_dir(dir: &Path) -> PathBuf {
        if Store::new(dir).config_path().is_file()
            || dir.file_name().is_some_and(|n| n == STORE_DIR)
        {
            dir.to_path_buf()
        } else if dir.join(STORE_DIR).is_dir() {
            dir.join(STORE_DIR)
        } else {
            dir.to_path_buf()
        }
    }

    /// `report/`: the HTML report and the default JUnit file.
    pub fn report_dir(&self) -> PathBuf {
        self.dir.join(names::REPORT)
    }

    /// `report/junit.xml`.
    pub fn junit_path(&self) -> PathBuf {
        self.report_dir().join(names::JUNIT)
    }

    /// `report/index.html`.
    pub fn report_index(&self) -> PathBuf {
        self.report_dir().join(names::REPORT_INDEX)
    }

    /// `report/data/overview.js`.
    pub fn report_overview_script(&self) -> PathBuf {
        self.report_dir()
            .join(names::REPORT_DATA)
            .join(names::REPORT_OVERVIEW)
    }

    /// `report/data/runs`: the run scripts' folder.
    pub fn report_run_scripts(&self) -> PathBuf {
        self.report_dir().join(names::REPORT_DATA).join(names::RUNS)
    }

    /// `report/data/runs/{slug}/{runId}.js`.
    pub fn report_run_script(&self, slug: &Slug, run: &RunId) -> PathBuf {
        self.report_run_scripts()
            .join(slug.as_str())
            .join(format!("{run}.js"))
    }

    /// `.suite/`: suite checkpoints and invocation records (local only).
    pub fn suite_dir(&self) -> PathBuf {
        self.dir.join(names::SUITE)
    }

    /// `.suite/{binary}.json`: the checkpoint of a test binary's last invocation.
    pub fn suite_checkpoint(&self, binary: &str) -> PathBuf {
        self.suite_dir().join(format!("{binary}.json"))
    }

    /// `.suite/.publish.lock`: held while an invocation's reports are written.
    pub fn publish_lock_path(&self) -> PathBuf {
        self.suite_dir().join(names::PUBLISH_LOCK)
    }

    /// `.suite/invocation-{id}.json`: the runs of one invocation (all the
    /// processes of one `cargo nextest run`). An id that is not a plain token
    /// (a nextest run id is a UUID) is hashed.
    pub fn invocation_record(&self, id: &str) -> PathBuf {
        let plain = !id.is_empty()
            && id.len() <= 64
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        let name = if plain {
            format!("{INVOCATION_PREFIX}{id}.json")
        } else {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for b in id.bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            format!("{INVOCATION_PREFIX}{h:016x}.json")
        };
        self.suite_dir().join(name)
    }

    /// The invocation records in `.suite/` (whatever their age).
    pub fn invocation_records(&self) -> Vec<PathBuf> {
        let Ok(entries) = self.read_dir(&self.suite_dir()) else {
            return vec![];
        };
        entries
            .flatten()
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with(INVOCATION_PREFIX) && name.ends_with(".json")
            })
            .map(|e| e.path())
            .collect()
    }

    /// The suite checkpoints in `.suite/` (`{binary}.json`: not the invocation
    /// records, hidden files or links), sorted by name.
    pub fn suite_checkpoints(&self) -> Vec<PathBuf> {
        let Ok(entries) = self.read_dir(&self.suite_dir()) else {
            return vec![];
        };
        let mut out: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.ends_with(".json")
                    && !name.starts_with('.')
                    && !name.starts_with(INVOCATION_PREFIX)
                    && e.file_type().is_ok_and(|t| t.is_file())
            })
            .map(|e| e.path())
            .collect();
        out.sort();
        out
    }

    /// `.blobs/`: evidence stored once per content, which the layout's
    /// evidence files are hard links to (`blobs.rs`).
    pub fn blobs_dir(&self) -> PathBuf {
        self.dir.join(names::BLOBS)
    }

    /// `.blobs/{first 2 hex}/{sha256 hex}`: the blob of one content.
    pub(crate) fn blob_path(&self, hash: &harshjudge_browser::trace::ContentHash) -> PathBuf {
        let h = hash.as_str();
        self.blobs_dir().join(&h[..2]).join(h)
    }

    /// `.dashboard-state.json`: the running dashboard (pid, port, url).
    pub fn dashboard_state_path(&self) -> PathBuf {
        self.dir.join(names::DASHBOARD_STATE)
    }

    /// `.dashboard.log`: the dashboard process's output.
    pub fn dashboard_log_path(&self) -> PathBuf {
        self.dir.join(names::DASHBOARD_LOG)
    }

    /// A run's folder relative to the store folder, `/`-separated
    /// (`scenarios/{slug}/runs/{runId}`): the link to it from the report
    /// (the ids never need percent-encoding).
    pub fn run_link(slug: &Slug, run: &RunId) -> String {
        format!("scenarios/{slug}/runs/{run}")
    }

    /// The evidence folder of step `step` (as a run's `result.json` names it)
    /// in the run folder `run_dir`: `{run_dir}/step-{step}/evidence`.
    pub fn step_evidence_dir(run_dir: &Path, step: &str) -> PathBuf {
        run_dir.join(format!("step-{step}")).join(names::EVIDENCE)
    }

    /// `{run_dir}/replay.sh`: the command that runs the run's scenario again.
    pub fn replay_script(run_dir: &Path) -> PathBuf {
        run_dir.join(names::REPLAY)
    }

    /// The ids of the run folder `run_dir` (`…/scenarios/{slug}/runs/{runId}`),
    /// or `None` when it is not shaped like one or an id is invalid.
    pub fn run_of_dir(run_dir: &Path) -> Option<(Slug, RunId)> {
        let mut parts = run_dir.components().rev().map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        });
        let run = parts.next()??;
        let runs = parts.next()??;
        let slug = parts.next()??;
        let scenarios = parts.next()??;
        (runs == names::RUNS && scenarios == names::SCENARIOS).then_some(())?;
        Some((Slug::new(slug).ok()?, RunId::new(run).ok()?))
    }

    /// The ids of a run folder of this store (confined: an error when the
    /// folder is not inside `.harshJudge/` or is not a run folder).
    pub fn run_at(&self, run_dir: &Path) -> Result<(Slug, RunId), StoreError> {
        self.confine(run_dir)?;
        Store::run_of_dir(run_dir).ok_or_else(|| StoreError::Corrupt {
            path: run_dir.to_path_buf(),
            problem: "not a run folder (scenarios/{slug}/runs/{runId})".into(),
        })
    }

    /// The run whose folder is `run_dir` ([`RunDir::result`](crate::store::RunDir::result)): `None`
    /// when it has no `result.json` yet.
    pub fn read_result_at(
        &self,
        run_dir: &Path,
    ) -> Result<Option<(Slug, RunId, RunResult)>, StoreError> {
        let (slug, run) = self.run_at(run_dir)?;
        Ok(self
            .scenario(&slug)
            .run(&run)
            .result()?
            .map(|r| (slug, run, r)))
    }

    /// `result.json` of a run as stored (every key, ours and unknown ones),
    /// or `None` when it is missing or not JSON.
    pub(super) fn read_result_json(&self, slug: &Slug, run: &RunId) -> Option<serde_json::Value> {
        let bytes = self
            .read_file(&self.scenario(slug).run(run).result_path())
            .ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// `meta.yaml` of a scenario as stored, as JSON (every key), or `None`
    /// when it is missing or not a mapping.
    pub(super) fn read_meta_json(&self, slug: &Slug) -> Option<serde_json::Value> {
        let path = self.scenario(slug).meta_path();
        self.confine(&path).ok()?;
        let doc = super::read_meta_doc(&path).ok()??;
        serde_json::to_value(doc).ok().filter(|v| v.is_object())
    }

    /// Every evidence file of a run: the files of each `step-NN/evidence/`
    /// folder, then those of the flat v1 `evidence/` folder (a file named
    /// `step-NN-{name}` belongs to step `NN`). Read through the store: no link
    /// is followed out of `.harshJudge/`.
    pub(super) fn run_evidence(&self, slug: &Slug, run: &RunId) -> Result<RunEvidence, StoreError> {
        Ok(self.list_run_evidence(slug, run, false)?.evidence)
    }

    /// [`run_evidence`](Self::run_evidence), and with `names` each step
    /// folder's names as [`list_evidence`](Self::list_evidence) gives them,
    /// from the same listing of each folder.
    pub(super) fn list_run_evidence(
        &self,
        slug: &Slug,
        run: &RunId,
        names: bool,
    ) -> Result<EvidenceListing, StoreError> {
        let run_dir = self.scenario(slug).run(run).path();
        let link = Store::run_link(slug, run);
        let mut out = EvidenceListing::default();
        for step in self.scenario(slug).run(run).steps()? {
            let step = step.to_string();
            let dir = Store::step_evidence_dir(&run_dir, &step);
            let (files, all) = match self.entries_of(&dir, names) {
                Some((files, all)) => (files, Some(all)),
                None => (vec![], None),
            };
            for (name, size) in files {
                out.evidence.files.push(EvidenceFile {
                    step: Some(step.clone()),
                    link: format!("{link}/step-{step}/evidence/{}", percent(&name)),
                    path: dir.join(&name),
                    name,
                    flat: false,
                    size,
                });
            }
            if let Some(all) = all.filter(|_| names) {
                out.names.insert(step.clone(), all);
            }
            out.evidence.step_dirs.push(step);
        }
        let flat = run_dir.join(names::EVIDENCE);
        for (name, size) in self.files_of(&flat) {
            let v1 = v1_name(&name);
            out.evidence.files.push(EvidenceFile {
                step: v1.as_ref().map(|(id, _)| id.clone()),
                link: format!("{link}/evidence/{}", percent(&name)),
                path: flat.join(&name),
                name: v1.map_or_else(|| name.clone(), |(_, rest)| rest),
                flat: true,
                size,
            });
        }
        Ok(out)
    }

    /// Files of a folder (not sidecars, not hidden, not links), sorted, with sizes.
    fn files_of(&self, dir: &Path) -> Vec<(String, u64)> {
        self.entries_of(dir, false)
            .map_or(vec![], |(files, _)| files)
    }

    /// [`files_of`](Self::files_of), and with `names` every name but the
    /// sidecars and hidden files (links and folders too), sorted; `None`
    /// when the folder cannot be listed.
    fn entries_of(&self, dir: &Path, names: bool) -> Option<(Files, Vec<String>)> {
        // Confined, then opened with no link at its last part (one put there
        // after the check), listed through that descriptor.
        self.confine(dir).ok()?;
        let fd = rustix::fs::open(
            dir,
            rustix::fs::OFlags::RDONLY
                | rustix::fs::OFlags::DIRECTORY
                | rustix::fs::OFlags::NOFOLLOW
                | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .ok()?;
        entries_in(fd, names)
    }

    /// Reads the file at `path` inside the store, `None` when it does not
    /// exist; other failures name the path.
    pub fn read_if_present(&self, path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
        self.confine(path)?;
        match self.read_file(path) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(path, e)),
        }
    }

    // Files of the MCP server's agents: the project's requirements, the
    // knowledge store, recorded sequences and their exports.
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

const INVOCATION_PREFIX: &str = "invocation-";

/// `step-03-login.png` → (`03`, `login.png`).
fn v1_name(name: &str) -> Option<(String, String)> {
    let rest = name.strip_prefix("step-")?;
    let (num, rest) = rest.split_once('-')?;
    let n: u32 = num.parse().ok()?;
    (n > 0 && n < 100 && !rest.is_empty()).then(|| (format!("{n:02}"), rest.to_string()))
}

/// Percent-encodes one path segment (names we write never need it; files of
/// other writers may).
/// Everything but RFC 3986's unreserved characters is escaped in a link.
const LINK_ESCAPED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn percent(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, LINK_ESCAPED).to_string()
}

/// [`Store::entries_of`] on a folder already open (`fd`, confined): the
/// same entries, each file's size asked of the folder by its name, no link
/// followed (as `DirEntry::metadata` does).
fn entries_in(fd: rustix::fd::OwnedFd, names: bool) -> Option<(Files, Vec<String>)> {
    use rustix::fs::{AtFlags, FileType, statat};
    let at = rustix::io::fcntl_dupfd_cloexec(&fd, 0).ok()?;
    let mut files: Vec<(String, u64)> = vec![];
    let mut all: Vec<String> = vec![];
    for e in rustix::fs::Dir::new(fd).ok()?.flatten() {
        let raw = e.file_name();
        let bytes = raw.to_bytes();
        if bytes == b"." || bytes == b".." {
            continue;
        }
        let name = String::from_utf8_lossy(bytes).into_owned();
        // By name first: a sidecar or a hidden file costs no `statx`.
        if name.starts_with('.') || name.ends_with(".meta.json") {
            continue;
        }
        if let Ok(st) = statat(&at, raw, AtFlags::SYMLINK_NOFOLLOW)
            && FileType::from_raw_mode(st.st_mode) == FileType::RegularFile
        {
            files.push((name.clone(), st.st_size as u64));
        }
        if names {
            all.push(name);
        }
    }
    files.sort();
    all.sort();
    Some((files, all))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_folder_names_its_ids() {
        let (s, r) = Store::run_of_dir(Path::new("/x/.harshJudge/scenarios/log-in/runs/abc-1"))
            .expect("a run folder");
        assert_eq!((s.as_str(), r.as_str()), ("log-in", "abc-1"));
        assert!(Store::run_of_dir(Path::new("/x/scenarios/log-in/other/abc")).is_none());
        assert!(Store::run_of_dir(Path::new("/x/scenarios/Bad Slug/runs/abc")).is_none());
        assert!(Store::run_of_dir(Path::new("runs/abc")).is_none());
    }

    #[test]
    fn the_evidence_lister_sees_step_folders_and_v1_files() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let slug = Slug::new("s").unwrap();
        let run = RunId::new("r1").unwrap();
        let dir = store.scenario(&slug).run(&run).path();
        let put = |p: PathBuf| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"x").unwrap();
        };
        put(Store::step_evidence_dir(&dir, "01").join("b.png"));
        put(Store::step_evidence_dir(&dir, "01").join("a b.txt"));
        put(Store::step_evidence_dir(&dir, "01").join("a.txt.meta.json"));
        put(Store::step_evidence_dir(&dir, "01").join(".hidden"));
        put(dir.join("evidence").join("step-02-shot.png"));
        put(dir.join("evidence").join("loose.txt"));
        let ev = store.scenario(&slug).run(&run).evidence().unwrap();
        assert_eq!(ev.step_dirs, ["01"]);
        let names: Vec<(&str, Option<&str>, bool)> = ev
            .files
            .iter()
            .map(|f| (f.name.as_str(), f.step.as_deref(), f.flat))
            .collect();
        assert_eq!(
            names,
            [
                ("a b.txt", Some("01"), false),
                ("b.png", Some("01"), false),
                ("loose.txt", None, true),
                ("shot.png", Some("02"), true),
            ]
        );
        assert_eq!(
            ev.files[0].link,
            "scenarios/s/runs/r1/step-01/evidence/a%20b.txt"
        );
        assert_eq!(ev.step_files_or_flat().count(), 2);
        assert_eq!(ev.of_step("02").count(), 1);
    }
}
