//! `--only-changed[=REF]`: the files git says changed since a ref (tracked
//! files that differ from it in the working tree, and untracked files not
//! ignored, as Playwright's `--only-changed`), and whether a scenario's
//! source file is one of them or depends on one (`changed_deps.rs`: the
//! modules it reaches by `mod` declarations, those of its crate's root it
//! names, and the package's `Cargo.toml` and `build.rs`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "changed_deps.rs"]
mod deps;

/// Why the changed files could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum ChangedError {
    /// `git` could not be started.
    #[error(
        "--only-changed: git could not be started ({source}): install git, or run without --only-changed"
    )]
    NoGit {
        /// What starting it said.
        source: std::io::Error,
    },
    /// The package is not inside a git work tree.
    #[error(
        "--only-changed: {dir} is not inside a git work tree (git said: {said}): run it in a git checkout, or without --only-changed"
    )]
    NotAWorkTree {
        /// The package root.
        dir: PathBuf,
        /// What git said.
        said: String,
    },
    /// The ref does not name a commit git knows.
    #[error(
        "--only-changed={reference}: git knows no commit by that name (git said: {said}); expected a branch, tag or commit such as HEAD, main, origin/main or HEAD~3{shallow}"
    )]
    UnknownRef {
        /// The ref given.
        reference: String,
        /// What git said.
        said: String,
        /// A hint when the clone is shallow.
        shallow: &'static str,
    },
    /// A git command failed otherwise.
    #[error("--only-changed: `git {command}` failed: {said}")]
    Git {
        /// The command's arguments.
        command: String,
        /// What git said.
        said: String,
    },
}

/// The files that changed since a ref, as absolute paths under the work tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ChangedFiles {
    /// The ref compared with (`HEAD` by default).
    pub reference: String,
    /// The work tree's top folder.
    pub top: PathBuf,
    /// The package root, which scenarios' `file!()` paths are taken from.
    pub root: PathBuf,
    /// Every changed file, absolute (the top joined with git's path).
    pub files: HashSet<PathBuf>,
}

/// What one git command answered.
struct GitAnswer {
    /// Whether it succeeded.
    ok: bool,
    /// Its standard output.
    out: String,
    /// The first line of its standard error (at most 300 characters).
    said: String,
}

/// Runs `git -C dir args…`.
fn git(dir: &Path, args: &[&str]) -> Result<GitAnswer, ChangedError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|source| ChangedError::NoGit { source })?;
    let said = String::from_utf8_lossy(&out.stderr);
    let said = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    Ok(GitAnswer {
        ok: out.status.success(),
        out: String::from_utf8_lossy(&out.stdout).into_owned(),
        said: said.trim().chars().take(300).collect(),
    })
}

fn lines(out: &str) -> impl Iterator<Item = &str> {
    out.lines().filter(|l| !l.is_empty())
}

impl ChangedFiles {
    /// Asks git, in the work tree holding `root` (the package root), which
    /// files changed since `reference`.
    pub fn read(root: &Path, reference: &str) -> Result<ChangedFiles, ChangedError> {
        let top = git(root, &["rev-parse", "--show-toplevel"])?;
        if !top.ok {
            return Err(ChangedError::NotAWorkTree {
                dir: root.to_path_buf(),
                said: top.said,
            });
        }
        let top = PathBuf::from(top.out.trim());
        let verify = format!("{reference}^{{commit}}");
        if reference.starts_with('-')
            || !git(&top, &["rev-parse", "--verify", "--quiet", &verify])?.ok
        {
            let shallow = git(&top, &["rev-parse", "--is-shallow-repository"])?;
            let shallow = shallow.ok && shallow.out.trim() == "true";
            return Err(ChangedError::UnknownRef {
                reference: reference.to_string(),
                said: format!("no commit named {reference:?}"),
                shallow: if shallow {
                    " (this clone is shallow: fetch more history, e.g. `git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout)"
                } else {
                    ""
                },
            });
        }
        let run = |args: &[&str]| {
            let answer = git(&top, args)?;
            match answer.ok {
                true => Ok(answer.out),
                false => Err(ChangedError::Git {
                    command: args.join(" "),
                    said: answer.said,
                }),
            }
        };
        let tracked = run(&["diff", "--name-only", "--no-renames", reference, "--"])?;
        let untracked = run(&["ls-files", "--others", "--exclude-standard", "--full-name"])?;
        let files = lines(&tracked)
            .chain(lines(&untracked))
            .map(|f| top.join(f))
            .collect();
        Ok(ChangedFiles {
            reference: reference.to_string(),
            top,
            root: root.to_path_buf(),
            files,
        })
    }

    /// Whether the source file `file` (a scenario's `file!()`) changed, or
    /// a file it depends on (`changed_deps.rs`). `file!()` is relative to
    /// the workspace the crate was built in (or absolute): it is taken from
    /// the package root and each folder above it up to the work tree's top.
    pub fn contains(&self, file: &str) -> bool {
        let candidates = self.candidates(file);
        if candidates.iter().any(|p| self.files.contains(p)) {
            return true;
        }
        let package = self.package();
        if self
            .files
            .iter()
            .any(|f| deps::runs_everything(f, &package))
        {
            return true;
        }
        let changed: Vec<&Path> = self
            .files
            .iter()
            .filter(|f| f.starts_with(&package) && f.extension().is_some_and(|e| e == "rs"))
            .map(PathBuf::as_path)
            .collect();
        !changed.is_empty()
            && candidates
                .iter()
                .find(|p| p.is_file())
                .is_some_and(|s| deps::reaches(s, &package, &changed))
    }

    /// The package root as the changed files name it (under the top).
    fn package(&self) -> PathBuf {
        let root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        let top = std::fs::canonicalize(&self.top).unwrap_or_else(|_| self.top.clone());
        match root.strip_prefix(&top) {
            Ok(p) => self.top.join(p),
            Err(_) => self.root.clone(),
        }
    }

    /// The absolute paths `file` (a `file!()`) may be, as the changed files
    /// name them.
    fn candidates(&self, file: &str) -> Vec<PathBuf> {
        let file = Path::new(file);
        if file.is_absolute() {
            return vec![file.to_path_buf()];
        }
        let root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        let top = std::fs::canonicalize(&self.top).unwrap_or_else(|_| self.top.clone());
        root.ancestors()
            .take_while(|d| d.starts_with(&top))
            .filter_map(|d| {
                d.join(file)
                    .strip_prefix(&top)
                    .ok()
                    .map(|p| self.top.join(p))
            })
            .collect()
    }

    /// The note printed before the tests run.
    pub fn note(&self, selected: usize, of: usize) -> String {
        let against = if self.reference == "HEAD" {
            "uncommitted changes".to_string()
        } else {
            format!("changes since {}", self.reference)
        };
        format!(
            "--only-changed: {selected} of {of} scenario(s) in files with {against} ({} changed file(s))",
            self.files.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_ok(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    #[test]
    fn git_lists_modified_and_untracked_files_and_names_a_bad_ref() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path();
        git_ok(top, &["init", "-q"]);
        std::fs::create_dir_all(top.join("suite/tests")).unwrap();
        std::fs::write(top.join("suite/tests/a.rs"), "a").unwrap();
        std::fs::write(top.join("suite/tests/b.rs"), "b").unwrap();
        git_ok(top, &["add", "."]);
        git_ok(top, &["commit", "-q", "-m", "one"]);
        let root = top.join("suite");
        let none = ChangedFiles::read(&root, "HEAD").unwrap();
        assert!(none.files.is_empty(), "{none:?}");
        std::fs::write(top.join("suite/tests/b.rs"), "b2").unwrap();
        std::fs::write(top.join("suite/tests/c.rs"), "c").unwrap();
        let changed = ChangedFiles::read(&root, "HEAD").unwrap();
        assert_eq!(changed.files.len(), 2, "{changed:?}");
        // `file!()` relative to the package (its own workspace) or to a
        // workspace above it: both are found.
        assert!(changed.contains("tests/b.rs"));
        assert!(changed.contains("suite/tests/c.rs"));
        assert!(!changed.contains("tests/a.rs"));
        // Committed: nothing against HEAD, b.rs and c.rs against the first commit.
        git_ok(top, &["add", "."]);
        git_ok(top, &["commit", "-q", "-m", "two"]);
        assert!(ChangedFiles::read(&root, "HEAD").unwrap().files.is_empty());
        let since = ChangedFiles::read(&root, "HEAD~1").unwrap();
        assert!(since.contains("tests/b.rs") && !since.contains("tests/a.rs"));
        let e = ChangedFiles::read(&root, "no-such-branch").unwrap_err();
        assert!(
            matches!(&e, ChangedError::UnknownRef { reference, .. } if reference == "no-such-branch"),
            "{e:?}"
        );
        assert!(
            e.to_string().contains("expected a branch, tag or commit"),
            "{e}"
        );
        // Imports: a shared module the crate's root declares, named by one
        // scenario file; a helper another declares; the manifest.
        let t = |p: &str, s: &str| {
            std::fs::create_dir_all(top.join(p).parent().unwrap()).unwrap();
            std::fs::write(top.join(p), s).unwrap();
        };
        t(
            "suite/tests/e2e/main.rs",
            "#[path = \"../shared/mod.rs\"]\nmod shared;\nmod uses;\nmod plain;\nmod own;\n",
        );
        t("suite/tests/shared/mod.rs", "pub fn x() {}\n");
        t("suite/tests/e2e/uses.rs", "use crate::shared::x;\n");
        t("suite/tests/e2e/plain.rs", "fn y() {}\n");
        t("suite/tests/e2e/own.rs", "mod helpers;\n");
        t("suite/tests/e2e/own/helpers.rs", "pub fn h() {}\n");
        t("suite/Cargo.toml", "[package]\n");
        git_ok(top, &["add", "."]);
        git_ok(top, &["commit", "-q", "-m", "three"]);
        t("suite/tests/shared/mod.rs", "pub fn x() { }\n");
        let shared = ChangedFiles::read(&root, "HEAD").unwrap();
        assert!(shared.contains("tests/e2e/uses.rs"), "{shared:?}");
        assert!(!shared.contains("tests/e2e/plain.rs"));
        assert!(!shared.contains("tests/e2e/own.rs"));
        git_ok(top, &["commit", "-q", "-a", "-m", "four"]);
        t("suite/tests/e2e/own/helpers.rs", "pub fn h() { }\n");
        let helper = ChangedFiles::read(&root, "HEAD").unwrap();
        assert!(helper.contains("tests/e2e/own.rs"));
        assert!(!helper.contains("tests/e2e/uses.rs"));
        git_ok(top, &["commit", "-q", "-a", "-m", "five"]);
        t("suite/Cargo.toml", "[package]\nname = \"s\"\n");
        let manifest = ChangedFiles::read(&root, "HEAD").unwrap();
        assert!(manifest.contains("tests/e2e/plain.rs"));
        let outside = tempfile::tempdir().unwrap();
        let e = ChangedFiles::read(outside.path(), "HEAD").unwrap_err();
        assert!(matches!(e, ChangedError::NotAWorkTree { .. }), "{e:?}");
        assert!(
            e.to_string().contains("is not inside a git work tree"),
            "{e}"
        );
    }
}
