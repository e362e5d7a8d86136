//! The run's video (`HARSHJUDGE_VIDEO=off|on|retain-on-failure`, issue 39
//! point 5, `docs/design/trace.md` D17): the scenario's first page filmed
//! from the moment it opens to the end of the run, where its backend streams
//! frames (Chromium over the DevTools protocol; WebDriver pages have no frame
//! stream: said once per process, no video). Frames are paced to 25 per
//! second (Chromium sends one only when the page changed: the last one is
//! repeated) and piped to `ffmpeg` (`HARSHJUDGE_FFMPEG`, else `ffmpeg` on
//! PATH; Debian's, installed by `cargo xtask test`), which writes VP8 WebM
//! under a temporary name of this process in the run's folder. At the end the
//! video is kept as `runs/{id}/video.webm` with `video.vtt` (WebVTT cues: one
//! per step, its number, title and outcome, and, when the step is traced, one
//! per call of it, as written: `page.get_by_label("Email").fill(…)`) when the mode is `on`, or
//! `retain-on-failure` and a step failed; else removed. The video is the
//! run's, at its root, not a step's evidence: the original HarshJudge's
//! readers (step folders, `evidence/`, `result.json`) never see it.
//!
//! A video that cannot be made (no ffmpeg, an encoder that fails, a folder
//! that cannot be written) is said once on stderr and changes no result.
//!
//! The video's time 0 is written in `video.vtt` as a WebVTT comment,
//! `NOTE startedAt=<ms>` (ms since the Unix epoch, the clock of the trace's
//! entries): the report seeks the video to a timeline row's start and
//! follows the video's time on the timeline by it.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use harshjudge_browser::settings::VideoMode;
use harshjudge_browser::{BrowserError, Page, Screencast, ScreencastFrame};
use harshjudge_store::store::{RunDir, StepStatus, StoreError};

/// Frames per second of the video.
const FPS: u32 = 25;
/// How long the encoder may go without writing, once the frames ended,
/// before it is taken for stuck: a slow one (a busy machine encodes a
/// minute's video for minutes) is waited for as long as its file grows.
const ENCODER_STALL: Duration = Duration::from_secs(60);

/// Why a run has no video, said once on stderr (no result depends on it).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum VideoError {
    /// Its file cannot be made in the run's folder.
    #[error("no video: {0}")]
    Folder(#[from] StoreError),
    /// ffmpeg did not start.
    #[error(
        "no video: ffmpeg could not be started ({}: {source}); install Debian's ffmpeg \
         (`cargo xtask test` does) or set HARSHJUDGE_FFMPEG to one",
        path.display()
    )]
    Ffmpeg {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The page's protocol has no frame stream.
    #[error(
        "no video of {page} pages: only Chromium over the DevTools protocol streams frames \
         (WebDriver has no frame stream)"
    )]
    NoStream { page: String },
    /// The browser refused the screencast.
    #[error("no video: the screencast did not start: {0}")]
    Screencast(#[from] BrowserError),
    /// No thread for the encoder.
    #[error("no video: the encoder's thread did not start: {0}")]
    Thread(std::io::Error),
    /// ffmpeg failed, or did not take its input.
    #[error("the run's video could not be encoded: ffmpeg {status}{said}")]
    Encoder { status: String, said: String },
    /// ffmpeg stopped writing and did not finish.
    #[error(
        "the run's video could not be encoded: ffmpeg wrote nothing for {:?} and did not finish (killed)",
        .0
    )]
    Stalled(Duration),
    /// The video could not be kept under its name.
    #[error("the run's video was not kept: {0}")]
    NotKept(StoreError),
}

/// The video of one run (a field of the runner's `Shared`).
pub(crate) struct Video {
    mode: VideoMode,
    state: Mutex<State>,
}

enum State {
    /// No page filmed yet.
    Waiting,
    /// Filming the first page.
    Recording(Recording),
    /// Over, or never to be (video off, no frame stream, no ffmpeg).
    Done,
}

struct Recording {
    cast: Screencast,
    encoder: std::thread::JoinHandle<Result<(), VideoError>>,
    /// Where ffmpeg writes.
    temp: PathBuf,
    started: Instant,
    /// `started` on the wall clock, in ms since the Unix epoch (the trace's clock).
    started_at: f64,
    cues: Vec<Cue>,
    failed: bool,
}

/// One WebVTT cue, times from the start of the video.
#[derive(Clone, Debug, PartialEq)]
struct Cue {
    start: Duration,
    end: Duration,
    text: String,
}

impl Video {
    /// The video of a run under `HARSHJUDGE_VIDEO` (checked with the other
    /// settings before anything ran: a bad value cannot come here).
    pub(crate) fn from_env() -> Video {
        Video::new(VideoMode::from_env().unwrap_or(VideoMode::Off))
    }

    /// The video of a run under `mode`.
    pub(crate) fn new(mode: VideoMode) -> Video {
        let state = match mode {
            VideoMode::Off => State::Done,
            _ => State::Waiting,
        };
        Video {
            mode,
            state: Mutex::new(state),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A page the scenario opened: the first is filmed into `run`'s folder
    /// (when the mode asks for a video, its backend streams frames and
    /// ffmpeg starts); the others are not (popups neither).
    pub(crate) async fn page_opened(&self, page: &Page, run: RunDir<'_>) {
        {
            // One look and one change: of two pages opened at once, one is filmed.
            let mut state = self.state();
            if !matches!(*state, State::Waiting) {
                return;
            }
            *state = State::Done;
        }
        let recording = match self.start(page, run).await {
            Ok(r) => r,
            Err(why) => return self.say_once(&NO_VIDEO, why),
        };
        *self.state() = State::Recording(recording);
    }

    async fn start(&self, page: &Page, run: RunDir<'_>) -> Result<Recording, VideoError> {
        let viewport = page.known_viewport().unwrap_or((1280, 720));
        let temp = run.video_temp_path()?;
        let path = ffmpeg_path();
        // ffmpeg first: a missing one is said before the browser is asked anything.
        let child = spawn_encoder(&path, &temp, viewport)
            .map_err(|source| VideoError::Ffmpeg { path, source })?;
        // The trace's clock: the report maps an entry's start to the video's time.
        let (started, started_at) = (Instant::now(), harshjudge_browser::now_ms());
        let mut cast = match page.screencast().await {
            Ok(Some(cast)) => cast,
            Ok(None) => {
                stop_encoder(child, &temp);
                let page = page.engine_and_protocol();
                return Err(VideoError::NoStream { page });
            }
            Err(e) => {
                stop_encoder(child, &temp);
                return Err(e.into());
            }
        };
        let frames = cast.take_frames().expect("a new screencast's frames");
        let encoder = std::thread::Builder::new()
            .name("harshjudge-video".into())
            .spawn({
                let temp = temp.clone();
                move || encode(child, frames, started, &temp)
            })
            .map_err(VideoError::Thread)?;
        Ok(Recording {
            cast,
            encoder,
            temp,
            started,
            started_at,
            cues: vec![],
            failed: false,
        })
    }

    /// Says `error` on stderr, naming the setting: once per process for each `once`.
    fn say_once(&self, once: &std::sync::Once, error: VideoError) {
        let mode = self.mode.name();
        once.call_once(|| eprintln!("harshjudge: HARSHJUDGE_VIDEO={mode}: {error}"));
    }

    /// A step ended (started at `started`, for `duration`): its cue.
    pub(crate) fn step_ended(
        &self,
        n: usize,
        title: &str,
        started: Instant,
        duration: Duration,
        status: StepStatus,
    ) {
        if let State::Recording(r) = &mut *self.state() {
            if status == StepStatus::Skipped {
                return;
            }
            r.failed |= status == StepStatus::Fail;
            let start = started.saturating_duration_since(r.started);
            let outcome = if status == StepStatus::Fail {
                " — failed"
            } else {
                ""
            };
            r.cues.push(Cue {
                start,
                end: (started + duration).saturating_duration_since(r.started),
                text: format!("{n:02} {title}{outcome}"),
            });
        }
    }

    /// Whether a video is being made (then the steps' calls are wanted).
    pub(crate) fn is_recording(&self) -> bool {
        matches!(*self.state(), State::Recording(_))
    }

    /// The calls of the step ending (`Tracer::calls`: each as written, its
    /// start and end in ms since the Unix epoch): a cue each, over the step's.
    pub(crate) fn actions(&self, calls: &[(String, f64, f64)]) {
        if let State::Recording(r) = &mut *self.state() {
            let since = |ms: f64| Duration::from_secs_f64((ms - r.started_at).max(0.0) / 1000.0);
            for (call, start, end) in calls {
                r.cues.push(Cue {
                    start: since(*start),
                    end: since(*end),
                    text: call.clone(),
                });
            }
        }
    }

    /// The run ended: the screencast stops, the encoder finishes, and the
    /// video is kept (`on`, or `retain-on-failure` with a failed step) or
    /// removed. Before the run's pages are released.
    pub(crate) async fn end(&self, run: RunDir<'_>) {
        let recording = match std::mem::replace(&mut *self.state(), State::Done) {
            State::Recording(r) => r,
            _ => return,
        };
        recording.cast.stop().await;
        let Recording {
            encoder,
            temp,
            cues,
            failed,
            started_at,
            ..
        } = recording;
        let joined = tokio::task::spawn_blocking(move || encoder.join()).await;
        let encoded = match joined {
            Ok(Ok(result)) => result,
            _ => Err(VideoError::Encoder {
                status: "(its thread panicked)".into(),
                said: String::new(),
            }),
        };
        let keep = self.mode == VideoMode::On || failed;
        let kept = match encoded {
            Ok(()) if keep => run
                .keep_video(&temp, &vtt(started_at, &cues))
                .map_err(VideoError::NotKept),
            Ok(()) => Ok(()),
            Err(e) => Err(e),
        };
        if !keep || kept.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        if let Err(e) = kept {
            self.say_once(&NOT_KEPT, e);
        }
    }
}

impl super::Shared {
    /// The run's folder.
    pub(super) fn run_dir(&self) -> RunDir<'_> {
        self.store
            .scenario(self.stream.slug())
            .run(self.stream.run_id())
    }
}

static NO_VIDEO: std::sync::Once = std::sync::Once::new();
static NOT_KEPT: std::sync::Once = std::sync::Once::new();

/// `HARSHJUDGE_FFMPEG`, else `ffmpeg` (on PATH).
fn ffmpeg_path() -> PathBuf {
    match harshjudge_browser::settings::env("HARSHJUDGE_FFMPEG") {
        Ok(Some(path)) => PathBuf::from(path),
        _ => PathBuf::from("ffmpeg"),
    }
}

/// ffmpeg reading JPEGs on its stdin at [`FPS`], writing VP8 WebM to `out`
/// at `size` (even sides; a frame of another size is scaled to it), in a
/// process group of its own that dies with this process.
fn spawn_encoder(
    ffmpeg: &Path,
    out: &Path,
    size: (u32, u32),
) -> std::io::Result<std::process::Child> {
    let (w, h) = (size.0.max(2) & !1, size.1.max(2) & !1);
    let mut cmd = Command::new(ffmpeg);
    cmd.args(["-hide_banner", "-loglevel", "error", "-f", "image2pipe"])
        .args(["-framerate", &FPS.to_string(), "-c:v", "mjpeg", "-i", "-"])
        .args(["-vf", &format!("scale={w}:{h},format=yuv420p")])
        .args(["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8"])
        .args(["-b:v", "1M", "-f", "webm", "-y"])
        .arg(out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    harshjudge_browser::process::own_group(&mut cmd);
    harshjudge_browser::process::die_with_this_process(&mut cmd);
    harshjudge_browser::process::spawn_from_keeper(cmd)
}

/// Waits for an encoder whose input ended to finish writing `out`, for as
/// long as `out` keeps growing; one that writes nothing for `stall` is
/// killed.
fn finish(
    child: &mut std::process::Child,
    out: &Path,
    stall: Duration,
) -> Result<std::process::ExitStatus, VideoError> {
    let size = || std::fs::metadata(out).map(|m| m.len()).ok();
    let (mut written, mut since) = (size(), Instant::now());
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {
                std::thread::sleep(Duration::from_millis(50));
                let now = size();
                if now != written {
                    (written, since) = (now, Instant::now());
                } else if since.elapsed() >= stall {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(VideoError::Stalled(stall));
                }
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(VideoError::Stalled(stall));
            }
        }
    }
}

/// Ends an encoder that got no frame, and what it began to write.
fn stop_encoder(mut child: std::process::Child, temp: &Path) {
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_file(temp);
}

/// The encoder thread: each frame written as many times as the video's
/// clock needs (the last one repeated until the next comes), up to the end
/// of the stream; then ffmpeg finishes the file.
fn encode(
    mut child: std::process::Child,
    frames: Receiver<ScreencastFrame>,
    started: Instant,
    out: &Path,
) -> Result<(), VideoError> {
    let stderr = child
        .stderr
        .take()
        .map(harshjudge_browser::process::drain_tail);
    let mut stdin = child.stdin.take().expect("ffmpeg's stdin is piped");
    let mut pacer = Pacer::new(started);
    let mut broken = None;
    loop {
        let next = frames.recv_timeout(Duration::from_millis(200));
        let now = Instant::now();
        let (jpeg, due) = match next {
            Ok(frame) => pacer.frame(frame.jpeg, frame.at),
            Err(RecvTimeoutError::Timeout) => pacer.until(now),
            Err(RecvTimeoutError::Disconnected) => break,
        };
        if broken.is_none()
            && let Some(jpeg) = jpeg
        {
            for _ in 0..due {
                if let Err(e) = stdin.write_all(&jpeg) {
                    broken = Some(e);
                    break;
                }
            }
        }
    }
    // The end: the last frame once more, up to now.
    if broken.is_none()
        && let (Some(jpeg), due) = pacer.until(Instant::now())
    {
        for _ in 0..due.max(1) {
            if stdin.write_all(&jpeg).is_err() {
                break;
            }
        }
    }
    drop(stdin);
    let status = finish(&mut child, out, ENCODER_STALL)?;
    if status.success() && broken.is_none() {
        return Ok(());
    }
    let said = harshjudge_browser::process::tail_text(&stderr);
    let input = broken.map(|e| format!(" (writing its input: {e})"));
    let said = if said.is_empty() {
        said
    } else {
        format!(": {said}")
    };
    Err(VideoError::Encoder {
        status: status.to_string(),
        said: input.unwrap_or_default() + &said,
    })
}

/// The video's clock: how many times each frame is written so that frame
/// `k` of the video shows the page at `k / FPS` seconds after the start.
struct Pacer {
    started: Instant,
    /// Frames written so far.
    written: u64,
    /// The frame on screen now, not yet written up to now.
    last: Option<std::sync::Arc<[u8]>>,
}

impl Pacer {
    fn new(started: Instant) -> Pacer {
        Pacer {
            started,
            written: 0,
            last: None,
        }
    }

    /// The frames due by `at` (the video's frames whose time has come).
    fn due(&mut self, at: Instant) -> u64 {
        let elapsed = at.saturating_duration_since(self.started);
        let total = (elapsed.as_secs_f64() * f64::from(FPS)).floor() as u64;
        let due = total.saturating_sub(self.written);
        self.written += due;
        due
    }

    /// A frame that came at `at`: the previous one is written up to then
    /// (the first one also covers the time before it: the page as first
    /// painted); returns what to write and how many times.
    fn frame(&mut self, jpeg: Vec<u8>, at: Instant) -> (Option<std::sync::Arc<[u8]>>, u64) {
        let previous = self.last.replace(jpeg.into());
        let due = self.due(at);
        match previous {
            Some(p) => (Some(p), due),
            None => {
                // Before the first frame nothing was on screen: it covers that time.
                self.written -= due;
                (None, 0)
            }
        }
    }

    /// The frame on screen, written up to `now`.
    fn until(&mut self, now: Instant) -> (Option<std::sync::Arc<[u8]>>, u64) {
        match &self.last {
            Some(l) => {
                let l = l.clone();
                (Some(l), self.due(now))
            }
            None => (None, 0),
        }
    }
}

/// The cues as a WebVTT file, after a comment giving the video's time 0 on
/// the trace's clock (`started_at`, ms since the Unix epoch; players skip
/// `NOTE` blocks, the report reads it: `report/html/model.rs`).
fn vtt(started_at: f64, cues: &[Cue]) -> String {
    let mut out = String::from("WEBVTT\n");
    out.push_str(&format!("\nNOTE startedAt={started_at:.1}\n"));
    // By their start, as WebVTT wants them (a step's cue is told at its end,
    // after its calls'); at one start, the longer (the step enclosing its
    // first call) first.
    let mut cues = cues.to_vec();
    cues.sort_by_key(|c| (c.start, std::cmp::Reverse(c.end)));
    for (i, c) in cues.iter().enumerate() {
        let end = c.end.max(c.start + Duration::from_millis(1));
        out.push_str(&format!(
            "\n{}\n{} --> {}\n{}\n",
            i + 1,
            timestamp(c.start),
            timestamp(end),
            cue_text(&c.text)
        ));
    }
    out
}

/// A cue's text as WebVTT wants it: on one line, markup characters escaped
/// (a call's arguments may hold `<b>` or `&`; so no `-->` is left either).
fn cue_text(text: &str) -> String {
    text.replace('\n', " ")
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `HH:MM:SS.mmm`.
fn timestamp(d: Duration) -> String {
    let ms = d.as_millis();
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

#[cfg(test)]
#[path = "video_tests.rs"]
mod tests;
