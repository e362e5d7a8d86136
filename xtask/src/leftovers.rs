//! The tests' own temporary folder: `cargo xtask test` runs the tests with
//! `TMPDIR` set to a fresh folder of the system's, and after them names what
//! they left in it and fails. A test that keeps a `TempDir` where it is never
//! dropped (a `static`), or a process that outlives its test, is found the day
//! it is written, instead of filling the machine's `/tmp` run after run.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the folder may take to empty after the tests: the watchdogs of a
/// nextest run's shared browser and report remove their folders once the
/// run's last process is gone, a moment after nextest exits.
pub const SETTLE: Duration = Duration::from_secs(30);

/// At most this many leftovers are named (the rest counted).
const NAMED: usize = 20;

/// A fresh folder in the system's temporary folder, for the tests' `TMPDIR`.
/// Its name is short (`hjt-<pid>`): Chromium puts its singleton socket under
/// its `TMPDIR` (harshjudge gives each browser a folder in it), and a Unix
/// socket's path is at most 107 bytes.
pub struct TestTmp {
    pub dir: PathBuf,
}

impl TestTmp {
    pub fn create(parent: &Path) -> std::io::Result<TestTmp> {
        sweep(parent);
        let dir = parent.join(format!("hjt-{}", std::process::id()));
        if dir.exists() {
            // A folder of an earlier xtask whose pid this one reuses.
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir(&dir)?;
        Ok(TestTmp { dir })
    }

    /// What is left in the folder once it has had `settle` to empty, each
    /// entry named by its path and what it holds, the folder then removed.
    /// Empty when the tests left nothing.
    pub fn finish(self, settle: Duration) -> Vec<String> {
        let until = Instant::now() + settle;
        let mut left = entries(&self.dir);
        while !left.is_empty() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(250));
            left = entries(&self.dir);
        }
        let named = left
            .iter()
            .take(NAMED)
            .map(|p| describe(p))
            .chain((left.len() > NAMED).then(|| format!("… and {} more", left.len() - NAMED)))
            .collect();
        let _ = std::fs::remove_dir_all(&self.dir);
        named
    }
}

/// Removes the folders of earlier xtasks that were stopped before they
/// could (Ctrl-C, a kill): `hjt-<pid>` whose process is gone. A folder whose
/// pid runs (another xtask, or a process that took its number) stays.
fn sweep(parent: &Path) {
    let Ok(read) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in read.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("hjt-"))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        // This xtask's own pid runs: its folder is never swept here.
        if is_dir && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    all.sort();
    all
}

/// `path` and, for a folder, its first entries (what says which test made it).
fn describe(path: &Path) -> String {
    let inside: Vec<String> = std::fs::read_dir(path)
        .map(|rd| {
            let mut names: Vec<String> = rd
                .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect();
            names.sort();
            names
        })
        .unwrap_or_default();
    if path.is_dir() {
        format!(
            "{}/ ({})",
            path.display(),
            inside
                .iter()
                .take(6)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else {
        path.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent(name: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("xtask-leftovers-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    #[test]
    fn a_stopped_xtasks_folder_goes_at_the_next_start_and_a_running_ones_stays() {
        let p = parent("sweep");
        let mut ended = std::process::Command::new("true").spawn().unwrap();
        ended.wait().unwrap();
        let stopped = p.join(format!("hjt-{}", ended.id()));
        std::fs::create_dir_all(stopped.join(".tmpAbC")).unwrap();
        let running = p.join("hjt-1");
        let other = p.join("hjt-notes");
        for d in [&running, &other] {
            std::fs::create_dir_all(d).unwrap();
        }
        let t = TestTmp::create(&p).unwrap();
        assert!(!stopped.exists(), "the folder of a pid that ended stays");
        assert!(running.exists() && other.exists());
        assert!(t.finish(Duration::ZERO).is_empty());
        std::fs::remove_dir_all(p).unwrap();
    }

    #[test]
    fn nothing_left_is_nothing_named_and_the_folder_goes() {
        let p = parent("none");
        let t = TestTmp::create(&p).unwrap();
        let dir = t.dir.clone();
        assert!(
            dir.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("hjt-")
        );
        assert!(t.finish(Duration::ZERO).is_empty());
        assert!(!dir.exists());
        std::fs::remove_dir_all(p).unwrap();
    }

    #[test]
    fn a_left_folder_is_named_with_what_it_holds_and_removed() {
        let p = parent("left");
        let t = TestTmp::create(&p).unwrap();
        let dir = t.dir.clone();
        std::fs::create_dir_all(dir.join(".tmpAbC/hj/scenarios")).unwrap();
        std::fs::write(dir.join("stray.txt"), "x").unwrap();
        let left = t.finish(Duration::from_millis(300));
        assert_eq!(left.len(), 2, "{left:?}");
        assert!(left[0].ends_with(".tmpAbC/ (hj)"), "{left:?}");
        assert!(left[1].ends_with("stray.txt"), "{left:?}");
        assert!(!dir.exists());
        std::fs::remove_dir_all(p).unwrap();
    }

    #[test]
    fn a_folder_emptied_while_it_settles_is_not_a_leftover() {
        let p = parent("settles");
        let t = TestTmp::create(&p).unwrap();
        let run = t.dir.join("harshjudge-reports-run");
        std::fs::create_dir(&run).unwrap();
        let remover = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(400));
            std::fs::remove_dir_all(run).unwrap();
        });
        assert!(t.finish(Duration::from_secs(10)).is_empty());
        remover.join().unwrap();
        std::fs::remove_dir_all(p).unwrap();
    }
}
