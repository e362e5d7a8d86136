//! Visual baselines in real Chromium: `to_have_screenshot` runs of
//! tests/fixtures/visual.rs (pages served on 127.0.0.1 by the suite itself).
//! A missing baseline fails and leaves the screenshot; `--update-snapshots` and
//! `HARSHJUDGE_UPDATE_SNAPSHOTS=1` write it; a mismatch fails with expected,
//! actual and diff images and the numbers; masks, disabled animations, element
//! screenshots and refused names.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use harshjudge_browser::visual::Image;
use support::{Run, json, runs, test_binary};

const SUITE: &str = "visual_suite";

struct Dirs {
    _tmp: tempfile::TempDir,
    hj: PathBuf,
    snaps: PathBuf,
}

fn dirs() -> Dirs {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let snaps = tmp.path().join("snaps");
    Dirs {
        hj,
        snaps,
        _tmp: tmp,
    }
}

/// Runs the suite binary with `args`, evidence in `d.hj`, baselines under `d.snaps`.
fn run(d: &Dirs, args: &[&str], envs: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(test_binary(SUITE));
    cmd.current_dir(support::workspace())
        .args(args)
        .env("HARSHJUDGE_DIR", &d.hj)
        .env("HARSHJUDGE_SNAPSHOT_DIR", &d.snaps)
        .env_remove("HARSHJUDGE_UPDATE_SNAPSHOTS")
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    Run::from(cmd.output().expect("the suite runs"))
}

/// `{snaps}/visual_suite/{slug}/{name}.png`.
fn baseline(d: &Dirs, slug: &str, name: &str) -> PathBuf {
    d.snaps.join(SUITE).join(slug).join(format!("{name}.png"))
}

/// The evidence folder of step `step` of the latest run of `slug`.
fn evidence(d: &Dirs, slug: &str, step: &str) -> PathBuf {
    let last = runs(&d.hj, slug).pop().expect("a run");
    last.join(format!("step-{step}")).join("evidence")
}

fn image(path: &Path) -> Image {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Image::decode_png(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn size(path: &Path) -> (u32, u32) {
    let s = image(path).size();
    (s.width, s.height)
}

/// Every file under `dir` (none when it does not exist).
fn files(dir: &Path) -> Vec<String> {
    if dir.exists() {
        support::tree(dir)
    } else {
        vec![]
    }
}

#[test]
fn a_baseline_is_created_updated_passed_and_failed_with_a_diff() {
    let d = dirs();
    let home = baseline(&d, "plain-page", "home");

    // Missing: the step fails, the screenshot is in the evidence, no baseline is written.
    let r = run(&d, &["plain_page::"], &[]);
    assert_eq!(r.code, 101, "a missing baseline fails: {r:?}");
    assert!(
        r.stdout.contains("no baseline at") && r.stdout.contains("home-actual.png"),
        "{r:?}"
    );
    assert!(r.stdout.contains("--update-snapshots"), "{r:?}");
    let ev = evidence(&d, "plain-page", "02");
    assert_eq!(size(&ev.join("home-actual.png")), (1280, 720));
    assert!(
        ev.join("home-actual.meta.json").exists(),
        "a sidecar like every evidence file"
    );
    assert!(
        !home.exists(),
        "without --update-snapshots nothing is written"
    );

    // --update-snapshots writes it and passes; the next run passes against it.
    let r = run(&d, &["plain_page::", "--update-snapshots"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(size(&home), (1280, 720));
    // It says so, with the path, and the step's evidence records it.
    let said = format!("harshjudge: baseline written (new): {}", home.display());
    assert!(r.stderr.contains(&said), "{said} in {r:?}");
    let ev = evidence(&d, "plain-page", "02");
    let note = json(ev.join("home-baseline.json"));
    assert_eq!(note["written"], "new", "{note}");
    assert_eq!(note["baseline"], home.display().to_string(), "{note}");
    assert_eq!(
        std::fs::read(ev.join("home-baseline.png")).unwrap(),
        std::fs::read(&home).unwrap(),
        "the evidence holds the image written"
    );
    assert_eq!(
        files(&d.snaps),
        vec!["visual_suite/plain-page/home.png"],
        "one file per scenario and name, no temporary file left"
    );
    let written = std::fs::read(&home).unwrap();
    let r = run(&d, &["plain_page::"], &[]);
    assert_eq!(r.code, 0, "the same page matches its baseline: {r:?}");
    assert!(
        !evidence(&d, "plain-page", "02")
            .join("home-actual.png")
            .exists(),
        "a pass leaves no comparison images"
    );

    // A mismatch: expected, actual and diff in the evidence, the numbers in the message.
    let r = run(&d, &["plain_page::"], &[("VISUAL_VARIANT", "b")]);
    assert_eq!(r.code, 101, "another colour fails: {r:?}");
    // The box is 300x120 CSS pixels: every pixel of it differs.
    assert!(
        r.stdout
            .contains("36000 pixels (ratio 0.0391 of 1280x720) differ, 0 allowed"),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains("limits: max_diff_pixels none, max_diff_pixel_ratio none, threshold 0.2"),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains("evidence: home-expected.png, home-actual.png, home-diff.png"),
        "{r:?}"
    );
    let ev = evidence(&d, "plain-page", "02");
    assert_eq!(
        std::fs::read(ev.join("home-expected.png")).unwrap(),
        written,
        "the expected image is the baseline"
    );
    let diff = image(&ev.join("home-diff.png"));
    let red = diff
        .rgba()
        .chunks(4)
        .filter(|p| p == &[255, 0, 0, 255])
        .count();
    assert_eq!(red, 36000, "the diff image marks the differing pixels red");
    let result = json(runs(&d.hj, "plain-page").pop().unwrap().join("result.json"));
    let listed = result["steps"][1]["evidenceFiles"].to_string();
    for f in ["home-expected.png", "home-actual.png", "home-diff.png"] {
        assert!(listed.contains(f), "{f} in result.json: {listed}");
    }
    assert_eq!(
        std::fs::read(&home).unwrap(),
        written,
        "a failure never touches the baseline"
    );

    // The HTML report lists the three images as a visual comparison of the step.
    let data: String = files(&d.hj.join("report"))
        .iter()
        .filter(|f| f.ends_with(".js"))
        .map(|f| std::fs::read_to_string(d.hj.join("report").join(f)).unwrap())
        .collect();
    assert!(
        data.contains("\"visuals\":[{\"name\":\"home\",\"expected\":")
            && data.contains("home-diff.png"),
        "the report's data has the visual comparison"
    );

    // HARSHJUDGE_UPDATE_SNAPSHOTS=1 accepts the new look; then it passes.
    let r = run(
        &d,
        &["plain_page::"],
        &[
            ("VISUAL_VARIANT", "b"),
            ("HARSHJUDGE_UPDATE_SNAPSHOTS", "1"),
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_ne!(
        std::fs::read(&home).unwrap(),
        written,
        "the baseline was updated"
    );
    let said = format!(
        "harshjudge: baseline written (replaced): {}",
        home.display()
    );
    assert!(r.stderr.contains(&said), "{said} in {r:?}");
    let note = json(evidence(&d, "plain-page", "02").join("home-baseline.json"));
    assert_eq!(note["written"], "replaced", "{note}");
    let r = run(&d, &["plain_page::"], &[("VISUAL_VARIANT", "b")]);
    assert_eq!(r.code, 0, "{r:?}");
}

#[test]
fn a_mask_makes_a_changing_region_pass() {
    let d = dirs();
    let r = run(&d, &["masked_clock::", "--update-snapshots"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let shot = image(&baseline(&d, "masked-clock", "dashboard"));
    // The clock's box (20, 80)+(600x48) is painted magenta in the baseline.
    let px = |x: usize, y: usize| {
        let i = (y * shot.size().width as usize + x) * 4;
        shot.rgba()[i..i + 4].to_vec()
    };
    assert_eq!(px(30, 100), vec![255, 0, 255, 255], "the mask is painted");
    assert_eq!(
        px(700, 100),
        vec![255, 255, 255, 255],
        "outside the mask: the page"
    );

    let r = run(&d, &["masked_clock::"], &[]);
    assert_eq!(r.code, 0, "the clock changed, but it is masked: {r:?}");

    let r = run(&d, &["masked_clock::"], &[("VISUAL_MASK", "0")]);
    assert_eq!(r.code, 101, "unmasked, the clock differs: {r:?}");
    assert!(r.stdout.contains("differ, 0 allowed"), "{r:?}");
}

#[test]
fn a_style_keeps_a_growing_masked_element_stable() {
    let d = dirs();
    let r = run(&d, &["growing_notice::", "--update-snapshots"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let grown = [("VISUAL_NOTICE_LINES", "3")];
    let r = run(&d, &["growing_notice::"], &grown);
    assert_eq!(r.code, 101, "masked, but what is below it moved: {r:?}");
    assert!(r.stdout.contains("differ, 0 allowed"), "{r:?}");

    // With the same height forced by `style`, for the baseline and the check.
    let styled = [("VISUAL_STYLE", "1")];
    let r = run(&d, &["growing_notice::", "--update-snapshots"], &styled);
    assert_eq!(r.code, 0, "{r:?}");
    let r = run(
        &d,
        &["growing_notice::"],
        &[("VISUAL_STYLE", "1"), ("VISUAL_NOTICE_LINES", "3")],
    );
    // The scenario also checks that the page has its own height again afterwards.
    assert_eq!(r.code, 0, "the style fixes the notice's box: {r:?}");
    let shot = image(&baseline(&d, "growing-notice", "orders"));
    assert_eq!(shot.size().height, 720, "a viewport screenshot");
}

#[test]
fn disabled_animations_make_an_animated_page_stable() {
    let d = dirs();
    let r = run(&d, &["animated_page::", "--update-snapshots"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    for _ in 0..2 {
        let r = run(&d, &["animated_page::"], &[]);
        assert_eq!(
            r.code, 0,
            "animations finished or cancelled, the caret hidden: {r:?}"
        );
    }
    // With animations running, the page never settles. Its limit leaves
    // room for the two screenshots that make a `previous` even when each
    // takes a second (a run beside two builds took one in 1.5 s).
    let r = run(
        &d,
        &["animated_page::"],
        &[
            ("VISUAL_ANIMATIONS", "allow"),
            ("VISUAL_TIMEOUT_MS", "6000"),
        ],
    );
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stdout.contains("the page did not settle")
            && r.stdout
                .contains("animated-previous.png, animated-actual.png, animated-expected.png"),
        "{r:?}"
    );
}

#[test]
fn a_locator_screenshot_is_the_elements_box() {
    let d = dirs();
    let r = run(&d, &["badge_locator::"], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    assert_eq!(
        size(&evidence(&d, "badge-locator", "02").join("badge-actual.png")),
        (120, 40)
    );
    let r = run(&d, &["badge_locator::", "--update-snapshots"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(size(&baseline(&d, "badge-locator", "badge")), (120, 40));
    let r = run(&d, &["badge_locator::"], &[]);
    assert_eq!(r.code, 0, "{r:?}");
}

#[test]
fn names_that_are_paths_are_refused() {
    let d = dirs();
    let r = run(&d, &["bad_names::", "--update-snapshots"], &[]);
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stdout.contains(
            "expect(page).to_have_screenshot(\"../../escape\"): invalid screenshot name \"../../escape\""
        ) && r.stdout.contains("never a path"),
        "{r:?}"
    );
    let refused =
        std::fs::read_to_string(evidence(&d, "bad-names", "02").join("refused.txt")).unwrap();
    assert_eq!(refused.lines().count(), 7, "{refused}");
    assert!(
        refused
            .lines()
            .all(|l| l.contains("invalid screenshot name")),
        "{refused}"
    );
    assert_eq!(files(&d.snaps), Vec::<String>::new(), "nothing written");
    assert!(!d.snaps.parent().unwrap().join("escape.png").exists());
}
