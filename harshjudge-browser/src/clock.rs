//! `page.clock()` ([`Clock`]), Playwright's clock: a fake clock in the page
//! (`injected/clock.js`) that owns `Date`, `performance.now`, the timers,
//! `requestAnimationFrame` and `requestIdleCallback`, so that a scenario
//! checks "the session expires after 30 minutes" in milliseconds.
//!
//! Each operation is a [`ClockOp`] (serialised, never written into script
//! text by hand) done twice: evaluated in the document there now (and its
//! same-origin frames), and, once it succeeded there, added as an init
//! script of the page (`PageBackend::add_init_script`), so that every new
//! document replays the operations done so far, each at the real time it
//! was done, before its own scripts run. `install` adds the clock's source
//! first. Where a page cannot run a script before a document's own (classic
//! WebDriver: WebKitGTK) every method is [`BrowserError::Unsupported`].

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::str::FromStr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::backend::PageBackend;
use super::error::{BrowserError, cmd_err};
use super::page::Page;
use super::trace::{self, Kind};

/// The fake clock's source (`hjClock`, `hjClockRun`).
const CLOCK_JS: &str = include_str!("injected/clock.js");

/// The largest time `Date` holds, in milliseconds either side of the epoch.
const MAX_DATE_MS: f64 = 8.64e15;

/// A moment for the page's clock: milliseconds since the Unix epoch (UTC),
/// as JavaScript's `Date` counts them. From a [`SystemTime`], a number of
/// milliseconds (`i64`, `u64`), or parsed from an ISO-8601 / RFC 3339 text
/// (`"2024-02-02T08:00:00Z"`, `"2024-02-02T08:00:00+01:00"`, or a date
/// alone, `"2024-02-02"`, midnight UTC, as `Date.parse` reads it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockTime {
    ms: f64,
}

impl ClockTime {
    /// `ms` milliseconds since the epoch.
    pub fn from_millis(ms: i64) -> ClockTime {
        ClockTime { ms: ms as f64 }
    }

    /// Milliseconds since the epoch.
    pub fn millis(&self) -> i64 {
        self.ms as i64
    }

    /// The time as the page takes it, or why `Date` cannot hold it.
    fn checked(self, what: &str) -> Result<f64, BrowserError> {
        if self.ms.is_finite() && self.ms.abs() <= MAX_DATE_MS {
            Ok(self.ms)
        } else {
            Err(BrowserError::Invalid {
                message: format!(
                    "{what}: {} ms since the epoch is beyond what a JavaScript Date holds (±8.64e15 ms, about ±273,790 years)",
                    self.ms
                ),
                location: None,
            })
        }
    }
}

impl From<SystemTime> for ClockTime {
    fn from(t: SystemTime) -> ClockTime {
        let ms = match t.duration_since(UNIX_EPOCH) {
            Ok(after) => after.as_secs_f64() * 1000.0,
            Err(before) => -(before.duration().as_secs_f64() * 1000.0),
        };
        ClockTime { ms: ms.floor() }
    }
}

impl From<i64> for ClockTime {
    fn from(ms: i64) -> ClockTime {
        ClockTime::from_millis(ms)
    }
}

impl From<u64> for ClockTime {
    fn from(ms: u64) -> ClockTime {
        ClockTime { ms: ms as f64 }
    }
}

/// A text that is no ISO-8601 time [`ClockTime`] reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{text:?} is not a time page.clock() reads ({reason}): write an RFC 3339 time with its offset, like \"2024-02-02T08:00:00Z\" or \"2024-02-02T08:00:00+01:00\", or a date, \"2024-02-02\""
)]
pub struct ClockTimeError {
    /// The text.
    pub text: String,
    /// What the parser said.
    pub reason: String,
}

impl FromStr for ClockTime {
    type Err = ClockTimeError;

    fn from_str(text: &str) -> Result<ClockTime, ClockTimeError> {
        let t = text.trim();
        let parsed = chrono::DateTime::parse_from_rfc3339(t)
            .map(|d| d.timestamp_millis())
            .or_else(|e| {
                chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d")
                    .map(|d| {
                        d.and_time(chrono::NaiveTime::MIN)
                            .and_utc()
                            .timestamp_millis()
                    })
                    .map_err(|_| e)
            });
        parsed
            .map(ClockTime::from_millis)
            .map_err(|e| ClockTimeError {
                text: text.to_string(),
                reason: e.to_string(),
            })
    }
}

impl fmt::Display for ClockTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match chrono::DateTime::from_timestamp_millis(self.millis()) {
            Some(d) => write!(f, "{}", d.format("%Y-%m-%dT%H:%M:%S%.3fZ")),
            None => write!(f, "{} ms", self.ms),
        }
    }
}

/// One operation of the page's clock, as `clock.js` switches on it (`op`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum ClockOp {
    /// The fake clock in place; `Date` at `time` (none: the real time).
    Install { time: Option<f64> },
    /// Ticks `ms` on at once; each timer due by then fires at most once.
    FastForward { ms: f64 },
    /// Ticks `ms` on, firing every timer due in the span, in order.
    RunFor { ms: f64 },
    /// Jumps to `time` (firing due timers once) and stops time there.
    PauseAt { time: f64 },
    /// Lets time flow again.
    Resume,
    /// `Date` always `time`; the timers run on.
    SetFixedTime { time: f64 },
    /// `Date` from `time` on; no timer fires.
    SetSystemTime { time: f64 },
}

/// An operation and the real time it was done at (ms since the epoch): the
/// moment a new document's replay takes it at; `seq` orders it, so that a
/// window a new document keeps (an iframe's first `about:blank`, replaced
/// by a same-origin document) replays nothing twice.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Logged {
    #[serde(flatten)]
    pub(crate) op: ClockOp,
    pub(crate) real: f64,
    pub(crate) seq: u64,
}

impl Logged {
    /// `op`, done now.
    pub(crate) fn now(op: ClockOp) -> Logged {
        static SEQ: AtomicU64 = AtomicU64::new(1);
        let real = ClockTime::from(SystemTime::now()).ms;
        let seq = SEQ.fetch_add(1, Ordering::Relaxed);
        Logged { op, real, seq }
    }
}

/// The page's answer to an operation (`hjClockRun`'s).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(crate) enum ClockReply {
    /// Done; `Date.now()` after it.
    Done { now: f64 },
    /// No clock in the document.
    NotInstalled,
    /// A clock is there already (`install` twice).
    Installed,
    /// `pause_at` a time before the clock's (`now`).
    Past { now: f64 },
    /// Stopped after firing `fired` timers (a timer rescheduling itself).
    Runaway { fired: u64 },
    /// An operation the page does not know (a bug).
    Unknown { op: String },
}

/// The live evaluation: `op` in the document there now and its
/// same-origin frames.
fn live_source() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| {
        format!("(op) => {{\n'use strict';\n{CLOCK_JS}\nreturn hjClockRun(window, op, false);\n}}")
    })
}

/// The init script of an operation: the clock's source with the install, a
/// replay of the clock there for the others.
pub(crate) fn init_source(logged: &Logged) -> Result<String, BrowserError> {
    let json =
        serde_json::to_string(logged).map_err(|e| cmd_err("serialising a clock operation", e))?;
    Ok(match logged.op {
        ClockOp::Install { .. } => format!(
            "(function () {{\n'use strict';\n{CLOCK_JS}\nhjClockRun(window, {json}, true);\n}})();"
        ),
        _ => format!(
            "(function () {{ var c = window.__harshjudgeClock; if (c) c.run({json}, true); }})();"
        ),
    })
}

/// A time as the trace writes the call's argument: its RFC 3339 text.
fn time_arg(time: ClockTime) -> String {
    trace::arg(&time.to_string())
}

/// A duration as the trace writes the call's argument.
fn duration_arg(by: Duration) -> String {
    if by.subsec_nanos() == 0 {
        format!("Duration::from_secs({})", by.as_secs())
    } else {
        format!("Duration::from_millis({})", by.as_millis())
    }
}

/// Milliseconds of a duration, as the page counts them.
fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `page.clock()`: the page's fake clock, as Playwright's `page.clock`.
///
/// ```no_run
/// # async fn f(page: harshjudge_browser::Page) -> Result<(), harshjudge_browser::BrowserError> {
/// use std::time::Duration;
/// page.clock().install().await?;
/// page.goto("/account").await?;
/// page.clock().run_for(Duration::from_secs(30 * 60)).await?;
/// # Ok(()) }
/// ```
///
/// After [`install`](Clock::install), `Date`, `Date.now()`,
/// `performance.now()`, `setTimeout` / `setInterval` (and their `clear…`),
/// `requestAnimationFrame` / `cancelAnimationFrame` and
/// `requestIdleCallback` are the fake clock's, in the document there and in
/// every new one of the page (installed before the document's scripts run).
/// Time flows with the real clock until [`pause_at`](Clock::pause_at).
/// Chromium and Firefox; on WebKitGTK (classic WebDriver, no way to run a
/// script before a document's own) every method is
/// [`BrowserError::Unsupported`].
#[derive(Clone, Debug)]
pub struct Clock {
    page: Page,
}

impl Page {
    /// The page's clock ([`Clock`]): install a fake one, then move it.
    pub fn clock(&self) -> Clock {
        Clock { page: self.clone() }
    }
}

impl Clock {
    /// Installs the fake clock, `Date` at the real time; time flows on.
    /// A second install in the same document is an error.
    #[track_caller]
    pub fn install(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        self.traced("clock().install", String::new(), at, async move {
            self.install_op(None, "page.clock().install", at).await
        })
    }

    /// Installs the fake clock with `Date` at `time`; time flows on from it.
    #[track_caller]
    pub fn install_at(
        &self,
        time: impl Into<ClockTime>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let time = time.into();
        self.traced("clock().install_at", time_arg(time), at, async move {
            let what = "page.clock().install_at";
            self.install_op(Some(time.checked(what)?), what, at).await
        })
    }

    /// Jumps `by` forward: every timer due by then fires at most once (an
    /// interval is rescheduled from the new time), as when a laptop wakes.
    #[track_caller]
    pub fn fast_forward(
        &self,
        by: Duration,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let op = ClockOp::FastForward { ms: millis(by) };
        self.op(
            "clock().fast_forward",
            duration_arg(by),
            op,
            Location::caller(),
        )
    }

    /// Moves time `by` forward, firing every timer due in the span, in
    /// order, each at its time (an interval as many times as it falls due).
    #[track_caller]
    pub fn run_for(
        &self,
        by: Duration,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let op = ClockOp::RunFor { ms: millis(by) };
        self.op("clock().run_for", duration_arg(by), op, Location::caller())
    }

    /// Jumps forward to `time` (each timer due by then fires at most once)
    /// and stops time there: no timer fires until `run_for`,
    /// `fast_forward`, `pause_at` or `resume`. A time before the clock's is
    /// an error.
    #[track_caller]
    pub fn pause_at(
        &self,
        time: impl Into<ClockTime>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let time = time.into();
        let op = time
            .checked("page.clock().pause_at")
            .map(|time| ClockOp::PauseAt { time });
        self.op_checked("clock().pause_at", time_arg(time), op, at)
    }

    /// Lets time flow again after [`pause_at`](Clock::pause_at).
    #[track_caller]
    pub fn resume(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        self.op(
            "clock().resume",
            String::new(),
            ClockOp::Resume,
            Location::caller(),
        )
    }

    /// Makes `Date` (and `Date.now()`) always `time`; the timers run on.
    /// Installs the clock first if it is not there.
    #[track_caller]
    pub fn set_fixed_time(
        &self,
        time: impl Into<ClockTime>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let time = time.into();
        let op = time
            .checked("page.clock().set_fixed_time")
            .map(|time| ClockOp::SetFixedTime { time });
        self.implicit("clock().set_fixed_time", time_arg(time), op, at)
    }

    /// Sets `Date` to `time`, flowing on from there, without firing any
    /// timer (a change of the system's clock). Installs the clock first if
    /// it is not there.
    #[track_caller]
    pub fn set_system_time(
        &self,
        time: impl Into<ClockTime>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let time = time.into();
        let op = time
            .checked("page.clock().set_system_time")
            .map(|time| ClockOp::SetSystemTime { time });
        self.implicit("clock().set_system_time", time_arg(time), op, at)
    }

    // ---- the way to the page ----

    /// `body` as one entry of the step's trace (`page.clock().run_for(…)`).
    fn traced<'a>(
        &'a self,
        method: &'static str,
        args: String,
        at: &'static Location<'static>,
        body: impl Future<Output = Result<(), BrowserError>> + Send + 'a,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        // Boxed: every clock call's future, as the page API's others.
        Box::pin(trace::page_span(
            self.page.tracer(),
            self.page.slow_mo(),
            Kind::Script,
            method,
            move || args,
            at,
            body,
        ))
    }

    fn op(
        &self,
        method: &'static str,
        args: String,
        op: ClockOp,
        at: &'static Location<'static>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        self.op_checked(method, args, Ok(op), at)
    }

    fn op_checked(
        &self,
        method: &'static str,
        args: String,
        op: Result<ClockOp, BrowserError>,
        at: &'static Location<'static>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        self.traced(method, args, at, async move {
            let what = format!("page.{method}");
            self.page.backend().init_scripts(&what, at)?;
            self.send(op?, &what, at).await
        })
    }

    /// An operation that installs the clock first when it is not there.
    fn implicit(
        &self,
        method: &'static str,
        args: String,
        op: Result<ClockOp, BrowserError>,
        at: &'static Location<'static>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        self.traced(method, args, at, async move {
            let what = format!("page.{method}");
            self.page.backend().init_scripts(&what, at)?;
            let op = op?;
            if !self.installed().await? {
                self.install_op(None, &what, at).await?;
            }
            self.send(op, &what, at).await
        })
    }

    /// Whether the document there now has the clock.
    async fn installed(&self) -> Result<bool, BrowserError> {
        let v = self
            .page
            .backend()
            .evaluate("() => !!window.__harshjudgeClock", Value::Null)
            .await?;
        Ok(v["ok"] == true && v["v"] == true)
    }

    /// The install: refused where a clock is there already; else the init
    /// script first (a page that cannot have one is left as it was), then
    /// the document there now.
    async fn install_op(
        &self,
        time: Option<f64>,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let backend = self.page.backend();
        backend.init_scripts(what, at)?;
        if self.installed().await? {
            return Err(invalid(
                what,
                "the page's clock is installed already (install it once, before or after goto; then move it with run_for, fast_forward, pause_at, set_system_time …)".into(),
                at,
            ));
        }
        let logged = Logged::now(ClockOp::Install { time });
        backend
            .add_init_script(&init_source(&logged)?, what, at)
            .await?;
        self.live(&logged, what, at).await
    }

    /// `op` in the document there now, then (done) an init script of the
    /// page, so that new documents replay it.
    async fn send(
        &self,
        op: ClockOp,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let logged = Logged::now(op);
        self.live(&logged, what, at).await?;
        self.page
            .backend()
            .add_init_script(&init_source(&logged)?, what, at)
            .await
    }

    /// `logged` evaluated in the document there now; its answer as a result.
    async fn live(
        &self,
        logged: &Logged,
        what: &str,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let arg = serde_json::to_value(logged)
            .map_err(|e| cmd_err("serialising a clock operation", e))?;
        let v = self.page.backend().evaluate(live_source(), arg).await?;
        if v["ok"] != true {
            return Err(invalid(
                what,
                format!(
                    "the page's clock threw: {}",
                    v["e"].as_str().unwrap_or("an error")
                ),
                at,
            ));
        }
        let reply: ClockReply = serde_json::from_value(v["v"].clone())
            .map_err(|e| cmd_err(what, format!("the page's clock answered {} ({e})", v["v"])))?;
        reply_result(reply, what, at)
    }
}

/// The page's answer as a result.
fn reply_result(
    reply: ClockReply,
    what: &str,
    at: &'static Location<'static>,
) -> Result<(), BrowserError> {
    let why = match reply {
        ClockReply::Done { .. } => return Ok(()),
        ClockReply::NotInstalled => "the page has no fake clock: call page.clock().install() (or install_at) first; set_fixed_time and set_system_time install it themselves".to_string(),
        ClockReply::Installed => "the page's clock is installed already".to_string(),
        ClockReply::Past { now } => format!(
            "the time is before the clock's ({}): the clock only moves forward (set_system_time moves Date back)",
            ClockTime { ms: now }
        ),
        ClockReply::Runaway { fired } => format!(
            "stopped after firing {fired} timers: a timer keeps rescheduling itself within the span (a setTimeout(…, 0) loop, a 1 ms setInterval?)"
        ),
        ClockReply::Unknown { op } => {
            return Err(cmd_err(
                what,
                format!("the page's clock does not know the operation {op:?} (the injected clock and this library disagree)"),
            ));
        }
    };
    Err(invalid(what, why, at))
}

fn invalid(what: &str, why: String, at: &'static Location<'static>) -> BrowserError {
    BrowserError::Invalid {
        message: format!("{what}: {why}"),
        location: Some(at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times_from_system_time_millis_and_text() {
        let t = UNIX_EPOCH + Duration::from_millis(1_706_860_800_123);
        assert_eq!(ClockTime::from(t).millis(), 1_706_860_800_123);
        let before = UNIX_EPOCH - Duration::from_millis(1500);
        assert_eq!(ClockTime::from(before).millis(), -1500);
        assert_eq!(ClockTime::from(42_u64).millis(), 42);
        assert_eq!(ClockTime::from(-42_i64).millis(), -42);
        let parsed: ClockTime = "2024-02-02T08:00:00Z".parse().unwrap();
        assert_eq!(parsed.millis(), 1_706_860_800_000);
        let offset: ClockTime = "2024-02-02T09:00:00+01:00".parse().unwrap();
        assert_eq!(offset, parsed);
        let date: ClockTime = "2024-02-02".parse().unwrap();
        assert_eq!(date.millis(), 1_706_832_000_000);
        assert_eq!(parsed.to_string(), "2024-02-02T08:00:00.000Z");
    }

    #[test]
    fn operations_are_numbered_in_order() {
        let a = Logged::now(ClockOp::Resume);
        let b = Logged::now(ClockOp::Resume);
        assert!(b.seq > a.seq);
        assert!(CLOCK_JS.contains("op.seq <= s.seq"));
    }

    #[test]
    fn calls_are_traced_as_written() {
        assert_eq!(
            duration_arg(Duration::from_secs(1800)),
            "Duration::from_secs(1800)"
        );
        assert_eq!(
            duration_arg(Duration::from_millis(1500)),
            "Duration::from_millis(1500)"
        );
        let t = ClockTime::from_millis(1_706_860_800_000);
        assert_eq!(time_arg(t), "\"2024-02-02T08:00:00.000Z\"");
    }

    #[test]
    fn a_text_that_is_no_time_is_named() {
        let e = "next tuesday".parse::<ClockTime>().unwrap_err();
        assert_eq!(e.text, "next tuesday");
        let text = e.to_string();
        assert!(text.contains("\"next tuesday\""), "{text}");
        assert!(text.contains("2024-02-02T08:00:00Z"), "{text}");
        // A time without its offset is ambiguous (the page's zone or UTC?).
        assert!("2024-02-02T08:00:00".parse::<ClockTime>().is_err());
    }

    #[test]
    fn a_time_beyond_date_is_refused() {
        let t = ClockTime::from(u64::MAX);
        let e = t.checked("page.clock().pause_at").unwrap_err().to_string();
        assert!(e.contains("page.clock().pause_at"), "{e}");
        assert!(e.contains("8.64e15"), "{e}");
        assert_eq!(ClockTime::from(0_i64).checked("x").unwrap(), 0.0);
    }

    #[test]
    fn operations_are_the_json_the_clock_reads() {
        let cases = [
            (
                ClockOp::Install { time: None },
                json!({"op": "install", "time": null}),
            ),
            (
                ClockOp::Install { time: Some(5.0) },
                json!({"op": "install", "time": 5.0}),
            ),
            (
                ClockOp::FastForward { ms: 1000.0 },
                json!({"op": "fast_forward", "ms": 1000.0}),
            ),
            (
                ClockOp::RunFor { ms: 1800000.0 },
                json!({"op": "run_for", "ms": 1800000.0}),
            ),
            (
                ClockOp::PauseAt { time: 7.0 },
                json!({"op": "pause_at", "time": 7.0}),
            ),
            (ClockOp::Resume, json!({"op": "resume"})),
            (
                ClockOp::SetFixedTime { time: 8.0 },
                json!({"op": "set_fixed_time", "time": 8.0}),
            ),
            (
                ClockOp::SetSystemTime { time: 9.0 },
                json!({"op": "set_system_time", "time": 9.0}),
            ),
        ];
        let js = CLOCK_JS;
        for (op, expected) in cases {
            let logged = Logged {
                op: op.clone(),
                real: 3.0,
                seq: 4,
            };
            let mut with_real = expected.clone();
            with_real["real"] = json!(3.0);
            with_real["seq"] = json!(4);
            assert_eq!(serde_json::to_value(&logged).unwrap(), with_real);
            // Every operation is a case of the page's clock.
            let name = expected["op"].as_str().unwrap();
            assert!(js.contains(&format!("case '{name}':")), "{name}");
        }
    }

    #[test]
    fn replies_are_read_and_explained() {
        let read = |v: Value| serde_json::from_value::<ClockReply>(v).unwrap();
        assert_eq!(
            read(json!({"status": "done", "now": 5.0})),
            ClockReply::Done { now: 5.0 }
        );
        assert_eq!(
            read(json!({"status": "not_installed"})),
            ClockReply::NotInstalled
        );
        assert_eq!(read(json!({"status": "installed"})), ClockReply::Installed);
        assert_eq!(
            read(json!({"status": "runaway", "fired": 100000})),
            ClockReply::Runaway { fired: 100000 }
        );
        let at = Location::caller();
        let e = reply_result(ClockReply::NotInstalled, "page.clock().run_for", at)
            .unwrap_err()
            .to_string();
        assert!(e.contains("page.clock().run_for"), "{e}");
        assert!(e.contains("page.clock().install()"), "{e}");
        let e = reply_result(
            ClockReply::Past {
                now: 1_706_860_800_000.0,
            },
            "page.clock().pause_at",
            at,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("2024-02-02T08:00:00.000Z"), "{e}");
        for status in ["not_installed", "installed", "past", "runaway", "done"] {
            assert!(
                CLOCK_JS.contains(&format!("status: '{status}'")),
                "{status}"
            );
        }
    }

    #[test]
    fn init_scripts_carry_the_operation_as_json() {
        let install = Logged {
            op: ClockOp::Install { time: Some(1.0) },
            real: 2.0,
            seq: 1,
        };
        let src = init_source(&install).unwrap();
        assert!(src.contains("function hjClock(win)"));
        assert!(src.contains(
            r#"hjClockRun(window, {"op":"install","time":1.0,"real":2.0,"seq":1}, true);"#
        ));
        let run = Logged {
            op: ClockOp::RunFor { ms: 10.0 },
            real: 2.0,
            seq: 2,
        };
        let src = init_source(&run).unwrap();
        assert!(!src.contains("function hjClock(win)"));
        assert!(src.contains(r#"c.run({"op":"run_for","ms":10.0,"real":2.0,"seq":2}, true)"#));
    }
}
