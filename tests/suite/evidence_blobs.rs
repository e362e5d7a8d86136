//! Issue 20, point 7: evidence is stored once per content. Real runs of the
//! demo suite's browser scenario (run as `cargo test` runs it, headless Chromium): a
//! step's `after.png` and the next step's `before.png` are one file (hard links
//! to one blob in `.harshJudge/.blobs/`), and the store holds little more than
//! the distinct contents.

use crate::support;

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use support::{run_suite, runs};

/// Every regular file under `dir`, with its metadata.
fn files(dir: &Path) -> Vec<(PathBuf, std::fs::Metadata)> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else if m.is_file() {
                out.push((e.path(), m));
            }
        }
    }
    out
}

#[test]
fn a_steps_after_png_and_the_next_steps_before_png_are_one_file() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    for _ in 0..2 {
        let r = run_suite("demo", &hj, &["web_login"], &[]);
        assert_eq!(r.code, 0, "{r:?}");
    }
    let runs = runs(&hj, "web-login");
    assert_eq!(runs.len(), 2, "{runs:?}");
    let blobs: BTreeMap<u64, PathBuf> = files(&hj.join(".blobs"))
        .into_iter()
        .map(|(p, m)| (m.ino(), p))
        .collect();
    let shot = |run: &Path, step: u32, name: &str| {
        run.join(format!("step-{step:02}"))
            .join("evidence")
            .join(format!("{name}.png"))
    };
    for run in &runs {
        for step in 1..3 {
            let after = std::fs::symlink_metadata(shot(run, step, "after")).unwrap();
            let before = std::fs::symlink_metadata(shot(run, step + 1, "before")).unwrap();
            assert_eq!(
                after.ino(),
                before.ino(),
                "{}: step {step}'s after.png and step {}'s before.png",
                run.display(),
                step + 1
            );
            assert!(after.nlink() >= 3, "two layout paths and the blob");
            assert!(
                blobs.contains_key(&after.ino()),
                "the blob of {} is in .blobs/",
                shot(run, step, "after").display()
            );
        }
    }
    // Every screenshot is a link to a blob; the store's bytes (each inode
    // once, like `du -sb`) stay close to the distinct contents.
    let all = files(&hj);
    let mut distinct: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
    let (mut listed, mut stored) = (0u64, BTreeMap::new());
    for (p, m) in &all {
        if p.extension().is_some_and(|e| e == "png") {
            assert!(blobs.contains_key(&m.ino()), "{} is a blob", p.display());
        }
        if !p.starts_with(hj.join(".blobs")) {
            listed += m.len();
        }
        stored.insert(m.ino(), m.len());
        distinct.insert(std::fs::read(p).unwrap(), m.len());
    }
    let stored: u64 = stored.values().sum();
    let distinct: u64 = distinct.values().sum();
    eprintln!("files {listed} bytes, stored {stored}, distinct contents {distinct}");
    assert!(
        stored <= 2 * distinct,
        "stored {stored} bytes for {distinct} distinct"
    );
}
