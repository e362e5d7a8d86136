//! Healing on real failures: tests/fixtures/heal.rs (the `heal_suite`
//! target) run in headless Chromium against its order form, whose page is
//! changed under it (`HEAL_PAGE`): a renamed button, a changed label, two
//! buttons where there was one, and a changed text that must not be healed.
//! Then `harshjudge-mcp heal order` proposes (and with `--apply` writes) the
//! change to a copy of the scenario's source.

use crate::support;

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use support::{Run, runs, test_binary};

const SOURCE: &str = "tests/fixtures/heal.rs";

struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    hj: PathBuf,
    /// The copy of the scenario's source that heal reads and writes.
    source: PathBuf,
}

fn project() -> Project {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let source = root.join("src-root").join(SOURCE);
    std::fs::create_dir_all(source.parent().unwrap()).unwrap();
    std::fs::copy(support::workspace().join(SOURCE), &source).unwrap();
    Project {
        hj: root.join(".harshJudge"),
        root,
        source,
        _tmp: tmp,
    }
}

/// Runs the order scenario against the page variant `page` ("" = as written).
fn run(p: &Project, page: &str) -> Run {
    let mut cmd = Command::new(test_binary("heal_suite"));
    cmd.current_dir(support::workspace())
        .env("HARSHJUDGE_DIR", &p.hj)
        .env("HARSHJUDGE_REPORT", "off")
        .env("HARSHJUDGE_JUNIT", "off")
        .env("HARSHJUDGE_WAIT", "1s")
        .env("HEAL_PAGE", page)
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("NEXTEST")
        .env_remove("NEXTEST_RUN_ID");
    Run::from(cmd.output().expect("the suite runs"))
}

/// `harshjudge-mcp heal order ARGS…`: (exit code, its JSON).
fn heal(p: &Project, args: &[&str]) -> (i32, Value) {
    let out = Command::new(support::mcp_binary())
        .arg("--cwd")
        .arg(&p.root)
        .args(["--dashboard", "off", "heal"])
        .args(args)
        .args(["--source-root", "src-root"])
        .env_remove("HARSHJUDGE_BASE_URL")
        .output()
        .unwrap();
    let text = if out.status.success() {
        out.stdout
    } else {
        out.stderr
    };
    let text = String::from_utf8_lossy(&text).into_owned();
    let v = serde_json::from_str(text.trim()).unwrap_or_else(|_| Value::from(text));
    (out.status.code().unwrap_or(-1), v)
}

fn source(p: &Project) -> String {
    std::fs::read_to_string(&p.source).unwrap()
}

fn last_run(p: &Project) -> PathBuf {
    runs(&p.hj, "order").pop().expect("a run")
}

/// The diff applies to the scenario's source as written (`patch -p1`).
fn patch_applies(diff: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join(SOURCE);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::copy(support::workspace().join(SOURCE), &file).unwrap();
    let mut child = Command::new("patch")
        .args(["-p1", "--dry-run", "--quiet"])
        .current_dir(tmp.path())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), diff.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success(), "patch refuses:\n{diff}");
}

fn error(v: &Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("an error: {v:#}"))
}

#[test]
fn a_renamed_button_is_healed_as_a_diff_written_only_with_apply() {
    let p = project();
    let original = source(&p);
    // A passing run: nothing to heal.
    let r = run(&p, "");
    assert_eq!(r.code, 0, "{r:?}");
    let (code, v) = heal(&p, &["order"]);
    assert_eq!(code, 1);
    assert!(
        error(&v).contains("scenario order has no failed run: nothing to heal"),
        "{v:#}"
    );
    let passed = last_run(&p);
    // The button is renamed: the click's locator matches nothing.
    let r = run(&p, "renamed");
    assert_ne!(r.code, 0, "{r:?}");
    let failed = last_run(&p);
    let (code, v) = heal(&p, &["order"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["failure"]["kind"], "noMatch");
    assert_eq!(v["stepId"], "02");
    assert_eq!(v["before"], ".name(\"Submit order\")");
    assert_eq!(v["after"], ".name(\"Place order\")");
    let diff = v["diff"].as_str().unwrap();
    assert!(
        diff.contains(
            "-            .name(\"Submit order\")\n+            .name(\"Place order\")\n"
        ),
        "{diff}"
    );
    assert!(
        diff.starts_with(&format!("--- a/{SOURCE}\n+++ b/{SOURCE}\n@@ ")),
        "{diff}"
    );
    patch_applies(diff);
    assert_eq!(v["applied"], false);
    assert_eq!(source(&p), original, "nothing written without --apply");
    assert!(!failed.join("heal.json").exists());
    // A run named that did not fail is refused.
    let passed_id = passed.file_name().unwrap().to_str().unwrap();
    let (code, v) = heal(&p, &["order", "--run", passed_id]);
    assert_eq!(code, 1);
    assert!(error(&v).contains("did not fail"), "{v:#}");
    // --apply writes the change and records it in the run's folder.
    let (code, v) = heal(&p, &["order", "--apply"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["applied"], true);
    let healed = source(&p);
    assert_eq!(
        healed,
        original.replacen(".name(\"Submit order\")", ".name(\"Place order\")", 1)
    );
    let record = support::json(failed.join("heal.json"));
    assert_eq!(record["after"], ".name(\"Place order\")");
    assert_eq!(record["diff"], v["diff"]);
    assert!(record["appliedAt"].is_string());
    // The assertion's expected text is untouched.
    assert!(healed.contains(".to_have_text(\"Order placed\")"));
}

#[test]
fn a_changed_label_is_healed_a_changed_text_is_not_and_bad_input_changes_nothing() {
    let p = project();
    let original = source(&p);
    // The field's label changed: the fill's locator matches nothing.
    let r = run(&p, "relabelled");
    assert_ne!(r.code, 0, "{r:?}");
    let (code, v) = heal(&p, &["order"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["before"], "get_by_label(\"Full name\")");
    assert_eq!(v["after"], "get_by_label(\"Your name\")");
    patch_applies(v["diff"].as_str().unwrap());
    // Two buttons now match the name: the one named exactly is kept.
    let r = run(&p, "doubled");
    assert_ne!(r.code, 0, "{r:?}");
    let (code, v) = heal(&p, &["order"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["failure"]["kind"], "tooMany");
    assert_eq!(v["failure"]["count"], 2);
    assert_eq!(v["after"], ".name(\"Submit order\").exact()");
    // The confirmation's text changed: an assertion on content fails. Never healed.
    let r = run(&p, "retexted");
    assert_ne!(r.code, 0, "{r:?}");
    let retexted = last_run(&p);
    for args in [&["order"][..], &["order", "--apply"]] {
        let (code, v) = heal(&p, args);
        assert_eq!(code, 1, "{v:#}");
        let e = error(&v);
        assert!(e.starts_with("not a locator failure: not healed"), "{e}");
        assert!(e.contains("to_have_text(\"Order placed\")"), "{e}");
    }
    assert!(!retexted.join("heal.json").exists());
    // Unknown scenario.
    let (code, v) = heal(&p, &["checkout"]);
    assert_eq!(code, 1);
    assert!(error(&v).contains("unknown scenario \"checkout\""), "{v:#}");
    assert!(error(&v).contains("known: order"), "{v:#}");
    // A locator failure without its aria.yml.
    let r = run(&p, "renamed");
    assert_ne!(r.code, 0, "{r:?}");
    let renamed = last_run(&p);
    std::fs::remove_file(renamed.join("step-02/evidence/aria.yml")).unwrap();
    let (code, v) = heal(&p, &["order", "--apply"]);
    assert_eq!(code, 1);
    assert!(error(&v).contains("recorded no aria.yml"), "{v:#}");
    assert!(!renamed.join("heal.json").exists());
    assert_eq!(source(&p), original, "no error wrote anything");
}
