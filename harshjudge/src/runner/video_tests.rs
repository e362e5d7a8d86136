//! The video's clock and cues, and its setting's words.

use std::time::{Duration, Instant};

use super::*;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Frame k of the video shows the page as it was k/25 s after the start:
/// the first frame also covers the time before it, each frame stays until
/// the next, and the last until the end.
#[test]
fn the_pacer_repeats_each_frame_until_the_next() {
    let t0 = Instant::now();
    let mut p = Pacer::new(t0);
    // The first frame at 100 ms: nothing written yet (it covers 0..100 ms once the next comes).
    let (w, n) = p.frame(b"a".to_vec(), t0 + ms(100));
    assert_eq!((w.is_none(), n), (true, 0));
    // The second at 500 ms: `a` was on screen for frames 0..12 (0, 40, …, 480 ms).
    let (w, n) = p.frame(b"b".to_vec(), t0 + ms(500));
    assert_eq!((&*w.unwrap(), n), (&b"a"[..], 12));
    // Two frames within one frame time: the first of them written zero times.
    let (w, n) = p.frame(b"c".to_vec(), t0 + ms(510));
    assert_eq!((&*w.unwrap(), n), (&b"b"[..], 0));
    // Nothing new until 1 s: `c` fills frames 12..25.
    let (w, n) = p.until(t0 + ms(1000));
    assert_eq!((&*w.unwrap(), n), (&b"c"[..], 13));
    assert_eq!(p.written, 25);
}

#[test]
fn the_cues_are_webvtt_in_order() {
    let cues = [
        Cue {
            start: ms(0),
            end: ms(1200),
            text: "01 Open the login page".into(),
        },
        Cue {
            start: ms(1200),
            end: ms(62_050),
            text: "02 Sign in --> dashboard\n — failed".into(),
        },
    ];
    // The video's time 0 on the trace's clock first, as a comment players skip.
    assert_eq!(
        vtt(1_764_500_000_123.5, &cues),
        "WEBVTT\n\nNOTE startedAt=1764500000123.5\n\n\
         1\n00:00:00.000 --> 00:00:01.200\n01 Open the login page\n\n\
         2\n00:00:01.200 --> 00:01:02.050\n02 Sign in --&gt; dashboard  — failed\n"
    );
    assert_eq!(timestamp(Duration::from_secs(3723) + ms(4)), "01:02:03.004");
}

/// A step's cue is told at its end, after its calls': the file has them by
/// their start (WebVTT's order), the step's before its calls.
#[test]
fn a_steps_cue_told_after_its_calls_is_written_before_them() {
    let cue = |start: u64, end: u64, text: &str| Cue {
        start: ms(start),
        end: ms(end),
        text: text.into(),
    };
    let told = [
        cue(
            960,
            990,
            "page.get_by_label(\"Note\").fill(\"<b>a & b</b>\")",
        ),
        cue(100, 400, "page.goto(\"/login\")"),
        cue(450, 900, "page.get_by_label(\"Email\").fill(\"ada\")"),
        cue(100, 950, "01 Open and fill"),
    ];
    let file = vtt(0.0, &told);
    let texts: Vec<&str> = file
        .split("\n\n")
        .skip(2)
        .map(|c| c.lines().nth(2).unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "01 Open and fill",
            "page.goto(\"/login\")",
            "page.get_by_label(\"Email\").fill(\"ada\")",
            "page.get_by_label(\"Note\").fill(\"&lt;b&gt;a &amp; b&lt;/b&gt;\")"
        ],
        "{file}"
    );
}

/// Before a page opens there is no recording: a step leaves no cue; with
/// the video off there is never one.
#[test]
fn without_a_page_nothing_is_recorded() {
    let video = Video::new(VideoMode::On);
    // Without a recording (no page yet) a step leaves nothing.
    video.step_ended(1, "Open", Instant::now(), ms(5), StepStatus::Pass);
    assert!(matches!(*video.state(), State::Waiting));
    assert!(matches!(*Video::new(VideoMode::Off).state(), State::Done));
}

#[test]
fn the_setting_has_three_words() {
    assert_eq!(VideoMode::parse(None).unwrap(), VideoMode::Off);
    for mode in [VideoMode::Off, VideoMode::On, VideoMode::RetainOnFailure] {
        assert_eq!(VideoMode::parse(Some(mode.name())).unwrap(), mode);
    }
    let e = VideoMode::parse(Some("sometimes")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "setting HARSHJUDGE_VIDEO=\"sometimes\" is invalid: one of off, on, retain-on-failure"
    );
}

/// An encoder that goes on writing is waited for past the stall limit (a
/// busy machine's ffmpeg took over a minute to finish a 10 s video, and a
/// fixed limit lost the video); one that writes nothing for the limit is
/// killed, and says so.
#[test]
fn a_slow_encoder_is_waited_for_while_it_writes_and_a_stuck_one_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.webm");
    // Writes a byte every 100 ms for 1.2 s: longer than the 400 ms limit.
    let mut slow = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do printf x >> '{}'; sleep 0.1; done",
            out.display()
        ))
        .spawn()
        .unwrap();
    let t = Instant::now();
    let status = finish(&mut slow, &out, ms(400)).unwrap();
    assert!(
        status.success() && t.elapsed() >= ms(1000),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(std::fs::read(&out).unwrap().len(), 12);
    // Writes nothing: killed once the limit has passed, not when it would end.
    let mut stuck = Command::new("sleep").arg("30").spawn().unwrap();
    let t = Instant::now();
    let e = finish(&mut stuck, &out, ms(400)).unwrap_err();
    assert!(t.elapsed() >= ms(400) && t.elapsed() < Duration::from_secs(10));
    assert!(
        matches!(stuck.try_wait(), Ok(Some(_))),
        "the stuck encoder was reaped"
    );
    assert_eq!(
        e.to_string(),
        "the run's video could not be encoded: ffmpeg wrote nothing for 400ms and did not finish (killed)"
    );
}
