//! The run's video (`HARSHJUDGE_VIDEO`, issue 39 point 5) through real `cargo
//! test` runs of `tests/fixtures/video.rs` against the demo app: on Chromium
//! (over the DevTools protocol) `on` leaves `video.webm` at the run's root,
//! VP8 that `ffprobe` reads, about as long as the run, and `video.vtt` with
//! the video's start on the trace's clock and a cue per step and per call
//! of it as written, in order; `retain-on-failure` keeps only a failed run's;
//! Firefox (WebDriver BiDi) films nothing and says so once; an ffmpeg that
//! cannot start is said once and changes no result. The video is no step's
//! evidence.

use std::path::Path;
use std::process::Command;

use crate::support;
use crate::support::page::until;

/// `video_suite` run with `envs`, only the steps whose names contain `filter`
/// (`filmed::` is one scenario's, `filmed` also `filmed_too`'s), one scenario at a time.
fn run(hj: &Path, filter: &str, envs: &[(&str, &str)]) -> support::Run {
    run_threads(hj, filter, envs, "1")
}

fn run_threads(hj: &Path, filter: &str, envs: &[(&str, &str)], threads: &str) -> support::Run {
    support::run_suite(
        "video_suite",
        hj,
        &["--test-threads", threads, filter],
        envs,
    )
}

/// The files at the root of a run's folder.
fn root_files(run: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(run)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `ffprobe`'s codec and duration (seconds) of a video.
fn probe(video: &Path) -> (String, f64) {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0"])
        .args(["-show_entries", "stream=codec_name:format=duration"])
        .args(["-of", "default=noprint_wrappers=1"])
        .arg(video)
        .output()
        .expect("ffprobe runs (Debian's ffmpeg, installed by `cargo xtask test`)");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "ffprobe: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let field = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("no {k} in {text}"))
            .to_string()
    };
    (field("codec_name"), field("duration").parse().unwrap())
}

/// `HH:MM:SS.mmm` as seconds.
fn seconds(t: &str) -> f64 {
    let parts: Vec<f64> = t.split(':').map(|p| p.parse().unwrap()).collect();
    parts[0] * 3600.0 + parts[1] * 60.0 + parts[2]
}

/// The HTML report's run view, opened from `file://` in Chromium, plays the
/// run's video with its cues as a track.
fn report_plays(hj: &Path, run_dir: &Path, duration: f64) {
    let id = run_dir.file_name().unwrap().to_string_lossy();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let fragment = format!("#/run/filmed/{id}");
        let (browsers, page) = crate::support::page::open_report(hj, &fragment).await;
        until(
            &page,
            "the video's metadata",
            "const v = document.querySelector('#video video'); return !!v && v.readyState >= 1 && v.duration > 0",
        )
        .await;
        let shown = page
            .eval("const v = document.querySelector('#video video'); return [v.getAttribute('src'), v.duration]")
            .await
            .unwrap();
        assert_eq!(shown[0], format!("../scenarios/filmed/runs/{id}/video.webm"));
        let played = shown[1].as_f64().unwrap();
        assert!((played - duration).abs() < 0.5, "{played} s in the page, {duration} s by ffprobe");
        until(
            &page,
            "the cues",
            "const t = document.querySelector('#video track').track; t.mode = 'hidden'; \
             return !!t.cues && t.cues.length === 6 && t.cues[2].text === '02 Enter the email'",
        )
        .await;
        browsers.shutdown().await;
    });
}

#[test]
fn chromium_films_a_run_with_its_steps_as_cues_and_the_rest_film_nothing() {
    let tmp = tempfile::tempdir().unwrap();

    // `on`, Chromium: the video and its cues at the run's root; two
    // scenarios at once, each page its own screencast.
    let hj = tmp.path().join("on");
    let r = run_threads(&hj, "filmed", &[("HARSHJUDGE_VIDEO", "on")], "2");
    assert_eq!(r.code, 0, "{r:?}");
    let run_dir = support::only_run(&hj, "filmed");
    assert_eq!(
        root_files(&run_dir),
        [
            "replay.sh",
            "result.json",
            "skill-state.yaml",
            "video.vtt",
            "video.webm"
        ],
        "{r:?}"
    );
    let result = support::json(run_dir.join("result.json"));
    let step_s = |i: usize| result["steps"][i]["duration"].as_f64().unwrap() / 1000.0;
    let (codec, duration) = probe(&run_dir.join("video.webm"));
    assert_eq!(codec, "vp8");
    // From the page's opening (in step 1, after the browser's start) to the
    // run's end (its last evidence): steps 2 and 3 whole, at most the run.
    let (whole, all) = (step_s(1) + step_s(2), step_s(0) + step_s(1) + step_s(2));
    assert!(
        duration >= whole - 0.1 && duration <= all + 3.0,
        "video {duration} s; steps 2-3 {whole} s, all {all} s"
    );
    let vtt = std::fs::read_to_string(run_dir.join("video.vtt")).unwrap();
    // First the video's time 0 on the trace's clock (ms since the Unix
    // epoch), a comment players skip: within the run.
    let note = vtt
        .strip_prefix("WEBVTT\n\nNOTE startedAt=")
        .unwrap_or_else(|| panic!("no start: {vtt}"));
    let started_at: f64 = note[..note.find('\n').unwrap()].parse().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0;
    assert!(
        started_at < now && started_at > now - 600_000.0,
        "{started_at}: {vtt}"
    );
    let cues: Vec<(f64, f64, &str)> = vtt
        .split("\n\n")
        .skip(2)
        .map(|cue| {
            let lines: Vec<&str> = cue.lines().collect();
            let (start, end) = lines[1].split_once(" --> ").unwrap();
            (seconds(start), seconds(end), lines[2])
        })
        .collect();
    // A cue per step, and one per call of it as written, each step's
    // before its calls (WebVTT's order: by start).
    let texts: Vec<&str> = cues.iter().map(|c| c.2).collect();
    assert_eq!(
        texts,
        [
            "01 Open the login page",
            "page.goto(\"/login\")",
            "02 Enter the email",
            "page.get_by_label(\"Email\").fill(\"ada@example.com\")",
            "03 The email is there",
            "expect(page.get_by_label(\"Email\")).to_have_value(\"ada@example.com\")"
        ],
        "{vtt}"
    );
    let (steps, calls): (Vec<&(f64, f64, &str)>, Vec<_>) =
        cues.iter().partition(|c| c.2.starts_with('0'));
    for w in steps.windows(2) {
        assert!(w[0].0 <= w[0].1 && w[0].1 <= w[1].0 + 0.01, "{vtt}");
    }
    for (call, step) in calls.iter().zip(&steps) {
        assert!(
            step.0 <= call.0 + 0.01 && call.0 <= call.1 && call.1 <= step.1 + 0.01,
            "{} within {}: {vtt}",
            call.2,
            step.2
        );
    }
    assert!(steps[1].1 - steps[1].0 >= 0.5, "step 2 waits 500 ms: {vtt}");
    assert!(
        steps[2].1 <= duration + 0.5,
        "the cues within the video: {vtt}"
    );
    // No step's evidence names it.
    for step in 1..=3 {
        let evidence = run_dir.join(format!("step-{step:02}/evidence"));
        for e in std::fs::read_dir(&evidence).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(!name.contains("video"), "{name} in {}", evidence.display());
        }
    }

    report_plays(&hj, &run_dir, duration);
    let too = support::only_run(&hj, "filmed-too");
    assert_eq!(probe(&too.join("video.webm")).0, "vp8");
    let vtt = std::fs::read_to_string(too.join("video.vtt")).unwrap();
    assert!(
        vtt.ends_with("\n01 Open the login page\n\n2\n")
            || vtt.contains("\n01 Open the login page\n\n2\n"),
        "{vtt}"
    );
    assert!(vtt.ends_with("\npage.goto(\"/login\")\n"), "{vtt}");

    // `retain-on-failure`: a passing run keeps none (nor its temporary
    // file); a failing one keeps its video, its failed step's cue says so.
    let hj = tmp.path().join("retain");
    let envs = [("HARSHJUDGE_VIDEO", "retain-on-failure")];
    let r = run(&hj, "filmed::", &envs);
    assert_eq!(r.code, 0, "{r:?}");
    let passed = support::only_run(&hj, "filmed");
    assert_eq!(
        root_files(&passed),
        ["replay.sh", "result.json", "skill-state.yaml"],
        "{r:?}"
    );
    let r = run(&hj, "fails::", &envs);
    assert_ne!(r.code, 0, "{r:?}");
    let failed = support::only_run(&hj, "fails");
    assert_eq!(probe(&failed.join("video.webm")).0, "vp8");
    let vtt = std::fs::read_to_string(failed.join("video.vtt")).unwrap();
    assert!(
        vtt.contains("\n02 Find what is not there — failed\n"),
        "{vtt}"
    );

    // Firefox: no frame stream, said once for two runs, no video, results as ever.
    let hj = tmp.path().join("firefox");
    let r = run(
        &hj,
        "filmed",
        &[
            ("HARSHJUDGE_VIDEO", "on"),
            ("HARSHJUDGE_BROWSER", "firefox"),
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let said = "harshjudge: HARSHJUDGE_VIDEO=on: no video of firefox over webdriver-bidi pages: \
                only Chromium over the DevTools protocol streams frames";
    assert_eq!(r.stderr.matches(said).count(), 1, "{r:?}");
    for slug in ["filmed", "filmed-too"] {
        let run_dir = support::only_run(&hj, slug);
        assert!(!run_dir.join("video.webm").exists(), "{slug}");
    }

    // An ffmpeg that cannot start: said once, the runs pass, no video.
    let hj = tmp.path().join("no-ffmpeg");
    let r = run(
        &hj,
        "filmed",
        &[
            ("HARSHJUDGE_VIDEO", "on"),
            ("HARSHJUDGE_FFMPEG", "/nonexistent/ffmpeg"),
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let said = "harshjudge: HARSHJUDGE_VIDEO=on: no video: ffmpeg could not be started (/nonexistent/ffmpeg: ";
    assert_eq!(r.stderr.matches(said).count(), 1, "{r:?}");
    for slug in ["filmed", "filmed-too"] {
        let run_dir = support::only_run(&hj, slug);
        assert_eq!(support::json(run_dir.join("result.json"))["status"], "pass");
        assert_eq!(
            root_files(&run_dir),
            ["replay.sh", "result.json", "skill-state.yaml"],
            "{slug}"
        );
    }

    // A bad value stops the suite before anything runs, naming the words.
    let r = run(
        &tmp.path().join("bad"),
        "filmed::",
        &[("HARSHJUDGE_VIDEO", "sometimes")],
    );
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains(
            "HARSHJUDGE_VIDEO=\"sometimes\" is invalid: one of off, on, retain-on-failure"
        ),
        "{r:?}"
    );
}
