//! Compile tests of `#[scenario]`: what expands and runs (`tests/ui/pass`:
//! each compiles and its `main` exits 0) and the compile errors
//! (`tests/ui/fail`: each fails to compile with exactly its `.stderr`).
//!
//! Each case is compiled by rustc against the harshjudge that the workspace's
//! test build made (`cargo test --workspace --no-run` finds it fresh in the
//! same target directory), so the library is not compiled a second time, as
//! trybuild did in a target directory and with flags of its own (195 s of a
//! 2-core CI run). Regenerate the expected errors with
//! `HARSHJUDGE_TEST_UI=overwrite cargo test -p harshjudge-macros --test ui`, then
//! read them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "../../tests/support/rlibs.rs"]
mod rlibs;

/// The workspace's root (this crate's parent folder).
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harshjudge-macros is in the workspace")
        .to_path_buf()
}

/// The target directory this test was built in.
fn target_dir() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).to_path_buf()
}

/// The `.rs` files of `dir` (relative to this crate), sorted.
fn cases(dir: &str) -> Vec<String> {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<String> = std::fs::read_dir(&full)
        .unwrap_or_else(|e| panic!("{}: {e}", full.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rs"))
        .map(|n| format!("{dir}/{n}"))
        .collect();
    v.sort();
    v
}

/// rustc's diagnostics without the closing summary lines that name counts
/// and `--explain` (as trybuild wrote the `.stderr` files), trailing spaces
/// trimmed.
fn normalize(stderr: &str) -> String {
    let kept: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            !(l.starts_with("error: aborting due to ")
                || l.starts_with("For more information about this error, try `rustc --explain")
                || l.starts_with("Some errors have detailed explanations:")
                || l.starts_with("For more information about an error, try `rustc --explain")
                || (l.starts_with("warning: ")
                    && (l.ends_with(" warning emitted") || l.ends_with(" warnings emitted"))))
        })
        .map(str::trim_end)
        .collect();
    let text = kept.join("\n");
    format!("{}\n", text.trim_end())
}

/// What one case came to: `None` when it went as expected, else why not.
fn check(case: &str, pass: bool, rlib: &Path, deps: &Path, out_dir: &Path) -> Option<String> {
    let name = Path::new(case)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let exe = out_dir.join(&name);
    let mut cmd = Command::new(rlibs::rustc());
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--edition", "2024", "--crate-type", "bin", "--crate-name"])
        .arg(&name)
        // trybuild's flags, with which the `.stderr` files were written.
        .args([
            "--color",
            "never",
            "--diagnostic-width=140",
            "--verbose",
            "-A",
            "dead_code",
        ])
        .arg(if pass {
            "--emit=link"
        } else {
            "--emit=metadata"
        })
        .arg("-L")
        .arg(format!("dependency={}", deps.display()))
        .arg("--extern")
        .arg(format!("harshjudge={}", rlib.display()))
        .arg(case)
        .arg("-o")
        .arg(&exe);
    let out = cmd.output().expect("rustc runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if pass {
        if !out.status.success() {
            return Some(format!("{case} does not compile:\n{stderr}"));
        }
        // Run as `cargo test` would run it alone: a case started by a test
        // of a nextest run must not take itself for one of that run's
        // processes (one scenario each, a suite setup run once per run).
        let run = Command::new(&exe)
            .env_remove("NEXTEST_RUN_ID")
            .env_remove("NEXTEST")
            .output()
            .expect("the case runs");
        return (!run.status.success()).then(|| {
            format!(
                "{case} compiles but its main fails ({}):\n{}{}",
                run.status,
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr)
            )
        });
    }
    if out.status.success() {
        return Some(format!("{case} compiles; it must not"));
    }
    let got = normalize(&stderr);
    let expected_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(case.replace(".rs", ".stderr"));
    if std::env::var("HARSHJUDGE_TEST_UI").as_deref() == Ok("overwrite") {
        std::fs::write(&expected_path, &got).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    (got != expected).then(|| {
        format!(
            "{case}: the errors differ from {} (HARSHJUDGE_TEST_UI=overwrite rewrites it):\n--- expected\n{expected}--- got\n{got}",
            expected_path.display()
        )
    })
}

#[test]
fn ui() {
    let (libs, deps) = rlibs::rlibs(&workspace(), &target_dir(), "ui", &["harshjudge"]);
    let rlib = libs[0].1.clone();
    let out_dir = tempfile_dir();
    let mut all: Vec<(String, bool)> = cases("tests/ui/pass")
        .into_iter()
        .map(|c| (c, true))
        .collect();
    all.extend(cases("tests/ui/fail").into_iter().map(|c| (c, false)));
    assert!(all.len() > 50, "the cases were found: {all:?}");
    // A few rustc at a time: each loads the library's metadata.
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut failed = vec![];
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((case, pass)) = all.get(i) else {
                            return failed;
                        };
                        failed.extend(check(case, *pass, &rlib, &deps, &out_dir));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(
        failures.is_empty(),
        "{} of {} cases went wrong:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}

/// A folder of this test's own for the compiled cases.
fn tempfile_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ui-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
