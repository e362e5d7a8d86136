//! Issue 38, step 0: an engine call's round trip over each protocol local
//! Chromium could speak, side by side in one run (docs/design/backends.md §3,
//! §5). Every candidate is started before any is timed, against one page of
//! the demo app (its home page, whose `<h1>` is "Demo App"), with the request
//! `page.locator("h1").text_content()` sends to the injected engine:
//!
//! - `hj …`: the library's public API with its default for local Chromium
//!   (`HARSHJUDGE_CHROMIUM_PROTOCOL`, the DevTools protocol over a pipe since
//!   issue 38): `text_content()`, `evaluate("() => 1")`: against `cdp-pipe`,
//!   what the library adds to the raw round trip;
//! - `bidi …`: chromedriver, BiDi only after the session's creation
//!   (`pageLoadStrategy: "none"`): `script.callFunction` as the library sends
//!   it, and `script.evaluate`;
//! - `cdp-pipe …` / `cdp-ws …`: Chromium with no driver, the DevTools protocol
//!   over `--remote-debugging-pipe` / a WebSocket on `--remote-debugging-port=0`:
//!   `Runtime.evaluate` (no context id) and `Runtime.callFunctionOn` (an
//!   execution context id);
//! - `… one`: the `() => 1` equivalents;
//! - `pw …`: Playwright (playwright-core on the same Chromium,
//!   `benches/playwright/text_content.js` as a child process), skipped with
//!   the reason when node or playwright-core is missing.
//!
//! Each round runs every candidate in turn (the order rotated per round):
//! warm-up calls, then timed calls, one at a time; per round and candidate
//! the mean, median and p90, then the mean of the medians. Start-up (spawn to
//! the first engine call answered on the loaded page) is timed per protocol.
//! The load average is printed at the start and the end.
//!
//! `cargo bench --bench protocols`; settings by environment:
//! `PROTOCOLS_ROUNDS` (5), `PROTOCOLS_WARMUP` (50), `PROTOCOLS_CALLS` (300),
//! `PROTOCOLS_STARTUPS` (5), `PROTOCOLS_RUNTIME` (`multi`: tokio's
//! multi-thread runtime, as the harness runs; `current`: one thread),
//! `PROTOCOLS_ONLY` (comma-separated parts of candidate names),
//! `PROTOCOLS_PW_CORE` (a playwright-core folder).

#[path = "support/pw_child.rs"]
mod pw_child;
#[path = "support/raw_bidi.rs"]
mod raw_bidi;
#[path = "support/raw_cdp.rs"]
mod raw_cdp;
#[path = "support/raw_conn.rs"]
mod raw_conn;
#[path = "support/raw_engine.rs"]
mod raw_engine;

use std::time::Instant;

use serde_json::Value;

use raw_cdp::{CdpPage, Chromium, Transport};
use raw_engine::H1;

/// The goal of issue 38 for an engine call on local Chromium (median, ms).
const GOAL_MS: f64 = 0.3;

struct Settings {
    rounds: usize,
    warmup: usize,
    calls: usize,
    startups: usize,
    current_thread: bool,
    only: Vec<String>,
}

fn env_number(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| {
            eprintln!("protocols bench: {name}={v} is not a number; using {default}");
            default
        }),
        Err(_) => default,
    }
}

impl Settings {
    fn from_env() -> Settings {
        Settings {
            rounds: env_number("PROTOCOLS_ROUNDS", 5).max(1),
            warmup: env_number("PROTOCOLS_WARMUP", 50),
            calls: env_number("PROTOCOLS_CALLS", 300).max(1),
            startups: env_number("PROTOCOLS_STARTUPS", 5),
            current_thread: std::env::var("PROTOCOLS_RUNTIME").is_ok_and(|v| v == "current"),
            only: std::env::var("PROTOCOLS_ONLY")
                .map(|v| {
                    v.split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    fn wants(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| name.contains(o.as_str()))
    }
}

/// The candidates, in their first round's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cand {
    HjText,
    HjOne,
    BidiCallText,
    BidiEvalText,
    BidiCallOne,
    BidiEvalOne,
    PipeEvalText,
    PipeCallText,
    PipeEvalOne,
    PipeCallOne,
    WsEvalText,
    WsCallText,
    WsEvalOne,
    WsCallOne,
    PwText,
    PwOne,
}

const ALL: [Cand; 16] = [
    Cand::HjText,
    Cand::HjOne,
    Cand::BidiCallText,
    Cand::BidiEvalText,
    Cand::BidiCallOne,
    Cand::BidiEvalOne,
    Cand::PipeEvalText,
    Cand::PipeCallText,
    Cand::PipeEvalOne,
    Cand::PipeCallOne,
    Cand::WsEvalText,
    Cand::WsCallText,
    Cand::WsEvalOne,
    Cand::WsCallOne,
    Cand::PwText,
    Cand::PwOne,
];

impl Cand {
    fn name(self) -> &'static str {
        match self {
            Cand::HjText => "hj text_content (library)",
            Cand::HjOne => "hj evaluate one (library)",
            Cand::BidiCallText => "bidi callFunction text",
            Cand::BidiEvalText => "bidi evaluate text",
            Cand::BidiCallOne => "bidi callFunction one",
            Cand::BidiEvalOne => "bidi evaluate one",
            Cand::PipeEvalText => "cdp-pipe evaluate text",
            Cand::PipeCallText => "cdp-pipe callFunctionOn text",
            Cand::PipeEvalOne => "cdp-pipe evaluate one",
            Cand::PipeCallOne => "cdp-pipe callFunctionOn one",
            Cand::WsEvalText => "cdp-ws evaluate text",
            Cand::WsCallText => "cdp-ws callFunctionOn text",
            Cand::WsEvalOne => "cdp-ws evaluate one",
            Cand::WsCallOne => "cdp-ws callFunctionOn one",
            Cand::PwText => "pw text_content",
            Cand::PwOne => "pw evaluate one",
        }
    }

    fn family(self) -> Family {
        match self {
            Cand::HjText | Cand::HjOne => Family::Hj,
            Cand::BidiCallText | Cand::BidiEvalText | Cand::BidiCallOne | Cand::BidiEvalOne => {
                Family::Bidi
            }
            Cand::PipeEvalText | Cand::PipeCallText | Cand::PipeEvalOne | Cand::PipeCallOne => {
                Family::Pipe
            }
            Cand::WsEvalText | Cand::WsCallText | Cand::WsEvalOne | Cand::WsCallOne => Family::Ws,
            Cand::PwText | Cand::PwOne => Family::Pw,
        }
    }
}

/// A browser (and the way to it) the candidates share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Hj,
    Bidi,
    Pipe,
    Ws,
    Pw,
}

const FAMILIES: [Family; 5] = [
    Family::Hj,
    Family::Bidi,
    Family::Pipe,
    Family::Ws,
    Family::Pw,
];

impl Family {
    fn name(self) -> &'static str {
        match self {
            Family::Hj => "hj (the library's default)",
            Family::Bidi => "bidi (chromedriver, BiDi only)",
            Family::Pipe => "cdp-pipe",
            Family::Ws => "cdp-ws",
            Family::Pw => "pw (playwright-core)",
        }
    }
}

/// What the candidates send, made once.
struct Requests {
    /// `text_content()`'s request as JSON text (BiDi's string argument).
    text: String,
    /// The same as a value (CDP's argument by value).
    value: Value,
    /// `Runtime.evaluate`'s expression of the engine call.
    cdp_expression: String,
    /// `script.evaluate`'s expression of the engine call (answer as JSON text).
    bidi_expression: String,
}

impl Requests {
    fn new() -> Requests {
        let text = raw_engine::text_content_request();
        Requests {
            value: serde_json::from_str(&text).expect("the request is JSON"),
            cdp_expression: format!("window.__harshjudgeEngine.run({text})"),
            bidi_expression: format!(
                "window.__harshjudgeEngine.run({text}).then((a) => JSON.stringify(a))"
            ),
            text,
        }
    }
}

/// Every candidate's browser, opened before any call is timed.
#[derive(Default)]
struct Open {
    /// The library's own browsers, with its default protocol.
    browsers: harshjudge::browser::Browsers,
    hj: Option<harshjudge::browser::Page>,
    bidi: Option<raw_bidi::BidiPage>,
    pipe: Option<(Chromium, CdpPage)>,
    ws: Option<(Chromium, CdpPage)>,
    pw: Option<pw_child::Pw>,
}

/// An engine answer's value as read from a JSON text (BiDi's way).
fn answer_text(v: &Value) -> Result<(), String> {
    let text = v.as_str().ok_or_else(|| format!("not a string: {v}"))?;
    let answer: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    check_answer(&answer)
}

fn check_answer(answer: &Value) -> Result<(), String> {
    if answer["ok"] == true && answer["value"] == H1 {
        Ok(())
    } else {
        Err(format!("the engine answered {answer}"))
    }
}

fn check_one(v: &Value) -> Result<(), String> {
    if v == 1 {
        Ok(())
    } else {
        Err(format!("() => 1 gave {v}"))
    }
}

fn missing(what: &str) -> String {
    format!("{what} is not open")
}

impl Open {
    /// One untimed call of `c`.
    async fn once(&self, c: Cand, r: &Requests) -> Result<(), String> {
        let bidi = || {
            self.bidi
                .as_ref()
                .ok_or_else(|| missing("the BiDi session"))
        };
        let pipe = || {
            self.pipe
                .as_ref()
                .map(|p| &p.1)
                .ok_or_else(|| missing("cdp-pipe"))
        };
        let ws = || {
            self.ws
                .as_ref()
                .map(|p| &p.1)
                .ok_or_else(|| missing("cdp-ws"))
        };
        match c {
            Cand::HjText => {
                let page = self.hj.as_ref().ok_or_else(|| missing("the hj page"))?;
                let text = page
                    .locator("h1")
                    .text_content()
                    .await
                    .map_err(|e| e.to_string())?;
                if text == H1 {
                    Ok(())
                } else {
                    Err(format!("text_content() gave {text:?}"))
                }
            }
            Cand::HjOne => {
                let page = self.hj.as_ref().ok_or_else(|| missing("the hj page"))?;
                let v: i64 = page
                    .evaluate("() => 1", ())
                    .await
                    .map_err(|e| e.to_string())?;
                check_one(&v.into())
            }
            Cand::BidiCallText => answer_text(
                &bidi()?
                    .call_function(raw_engine::BIDI_FUNCTION, &[&r.text])
                    .await?,
            ),
            Cand::BidiEvalText => answer_text(&bidi()?.evaluate(&r.bidi_expression).await?),
            Cand::BidiCallOne => check_one(&bidi()?.call_function("() => 1", &[]).await?),
            Cand::BidiEvalOne => check_one(&bidi()?.evaluate("(() => 1)()").await?),
            Cand::PipeEvalText => check_answer(&pipe()?.evaluate(&r.cdp_expression).await?),
            Cand::PipeCallText => check_answer(
                &pipe()?
                    .call_function(raw_engine::CDP_FUNCTION, std::slice::from_ref(&r.value))
                    .await?,
            ),
            Cand::PipeEvalOne => check_one(&pipe()?.evaluate("(() => 1)()").await?),
            Cand::PipeCallOne => check_one(&pipe()?.call_function("() => 1", &[]).await?),
            Cand::WsEvalText => check_answer(&ws()?.evaluate(&r.cdp_expression).await?),
            Cand::WsCallText => check_answer(
                &ws()?
                    .call_function(raw_engine::CDP_FUNCTION, std::slice::from_ref(&r.value))
                    .await?,
            ),
            Cand::WsEvalOne => check_one(&ws()?.evaluate("(() => 1)()").await?),
            Cand::WsCallOne => check_one(&ws()?.call_function("() => 1", &[]).await?),
            Cand::PwText | Cand::PwOne => Err("Playwright runs in batches".into()),
        }
    }

    /// `warm` untimed calls of `c`, then the times of `n` calls (ms).
    async fn run(
        &mut self,
        c: Cand,
        r: &Requests,
        warm: usize,
        n: usize,
    ) -> Result<Vec<f64>, String> {
        if let Cand::PwText | Cand::PwOne = c {
            let pw = self.pw.as_mut().ok_or_else(|| missing("Playwright"))?;
            let op = if c == Cand::PwText {
                "text_content"
            } else {
                "evaluate"
            };
            return pw.times(op, warm, n).await;
        }
        for _ in 0..warm {
            self.once(c, r).await?;
        }
        let mut ms = Vec::with_capacity(n);
        for _ in 0..n {
            let t = Instant::now();
            self.once(c, r).await?;
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        Ok(ms)
    }

    /// Opens `family`'s page (its browser started), loaded at `url`.
    async fn open(&mut self, family: Family, base: &str, url: &str) -> Result<(), String> {
        match family {
            Family::Hj => {
                let page = self
                    .browsers
                    .open_page(base)
                    .await
                    .map_err(|e| e.to_string())?;
                page.goto("/").await.map_err(|e| e.to_string())?;
                self.hj = Some(page);
            }
            Family::Bidi => self.bidi = Some(raw_bidi::BidiPage::open(url).await?),
            Family::Pipe | Family::Ws => {
                let transport = if family == Family::Pipe {
                    Transport::Pipe
                } else {
                    Transport::Ws
                };
                let chromium = raw_cdp::launch(transport).await?;
                let page = CdpPage::open(&chromium.conn, url).await?;
                let slot = if family == Family::Pipe {
                    &mut self.pipe
                } else {
                    &mut self.ws
                };
                *slot = Some((chromium, page));
            }
            Family::Pw => return Err("Playwright opens its page itself".into()),
        }
        Ok(())
    }

    /// Closes `family`'s page and browser.
    async fn close(&mut self, family: Family) {
        match family {
            Family::Hj => {
                if let Some(page) = self.hj.take() {
                    self.browsers.release(page).await;
                }
                self.browsers.shutdown().await;
            }
            Family::Bidi => self.bidi = None,
            Family::Pipe | Family::Ws => {
                let slot = if family == Family::Pipe {
                    &mut self.pipe
                } else {
                    &mut self.ws
                };
                if let Some((chromium, page)) = slot.take() {
                    page.close().await;
                    drop(chromium);
                }
            }
            Family::Pw => {
                if let Some(pw) = self.pw.take() {
                    pw.quit().await;
                }
            }
        }
    }

    /// The first call of `family`, for start-up (its text read).
    async fn first_call(&self, family: Family, r: &Requests) -> Result<(), String> {
        let c = match family {
            Family::Hj => Cand::HjText,
            Family::Bidi => Cand::BidiCallText,
            Family::Pipe => Cand::PipeEvalText,
            Family::Ws => Cand::WsEvalText,
            Family::Pw => return Ok(()),
        };
        self.once(c, r).await
    }
}

/// Mean, median and p90 of `ms`.
fn stats(ms: &[f64]) -> (f64, f64, f64) {
    let mut s = ms.to_vec();
    s.sort_by(f64::total_cmp);
    let mean = s.iter().sum::<f64>() / s.len() as f64;
    let at = |q: f64| s[((s.len() as f64 - 1.0) * q).round() as usize];
    (mean, at(0.5), at(0.9))
}

/// The 1-minute load average, and the whole line of /proc/loadavg.
fn load() -> (f64, String) {
    let line = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let first = line
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN);
    (first, line.trim().to_string())
}

fn say_load(when: &str) -> f64 {
    let (one, line) = load();
    println!("load average at {when}: {line}");
    if one > 1.0 {
        println!(
            "WARNING: load average {one:.2} > 1.0 at {when}: the machine is busy, the figures are not a quiet machine's"
        );
    }
    one
}

/// How long an idle vCPU of a KVM guest polls before it halts
/// (`cpuidle-haltpoll`), when the kernel says: at 0 every wake-up of an idle
/// vCPU is a VM exit, which dominates a round trip on a 2-vCPU VM (docs/design/backends.md §3.3).
fn say_halt_poll() {
    let knob = "/sys/module/haltpoll/parameters/guest_halt_poll_ns";
    if let Ok(v) = std::fs::read_to_string(knob) {
        let v = v.trim();
        println!("idle vCPUs poll {v} ns before halting ({knob})");
        if v == "0" {
            println!(
                "NOTE: idle vCPUs halt at once: each cross-process wake-up to an idle vCPU pays a VM exit"
            );
        }
    }
}

fn main() {
    let s = Settings::from_env();
    let load_start = say_load("start");
    say_halt_poll();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "protocols bench: {} rounds x ({} warm-up + {} timed calls), {} start-ups per protocol, tokio {} runtime, {cores} cores",
        s.rounds,
        s.warmup,
        s.calls,
        s.startups,
        if s.current_thread {
            "current-thread"
        } else {
            "multi-thread"
        }
    );
    let base = demo_app::start_in_background().expect("start the demo app");
    let base = base.trim_end_matches('/').to_string();
    let url = format!("{base}/");
    let rt = if s.current_thread {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    }
    .enable_all()
    .build()
    .expect("a tokio runtime");
    let (round_medians, startups) = rt.block_on(bench(&s, &base, &url));
    summary(&s, &round_medians, &startups);
    let load_end = say_load("end");
    if load_start > 1.0 || load_end > 1.0 {
        println!(
            "WARNING: the load average was above 1.0 (start {load_start:.2}, end {load_end:.2}): re-run on a quiet machine before deciding"
        );
    }
}

type Medians = Vec<(Cand, Vec<f64>)>;
type Startups = Vec<(Family, Result<Vec<f64>, String>)>;

async fn bench(s: &Settings, base: &str, url: &str) -> (Medians, Startups) {
    let r = Requests::new();
    println!(
        "chromedriver, BiDi session.new on ws://HOST:PORT/session: {}",
        raw_bidi::probe_session_new().await
    );
    let mut open = Open::default();
    let families: Vec<Family> = FAMILIES
        .into_iter()
        .filter(|f| ALL.iter().any(|c| c.family() == *f && s.wants(c.name())))
        .collect();
    if families.contains(&Family::Pw) {
        match pw_child::Pw::start(url).await {
            Ok(pw) => open.pw = Some(pw),
            Err(why) => println!("Playwright skipped: {why}"),
        }
    }
    let startups = startups(s, &families, &mut open, &r, base, url).await;
    for f in &families {
        if *f == Family::Pw {
            continue;
        }
        if let Err(e) = open.open(*f, base, url).await {
            println!("{} skipped: it did not open: {e}", f.name());
        }
    }
    let mut cands: Vec<Cand> = Vec::new();
    for c in ALL.into_iter().filter(|c| s.wants(c.name())) {
        // One call each, checked, before any is timed.
        let checked = match c.family() {
            Family::Pw if open.pw.is_none() => continue,
            Family::Pw => open.run(c, &r, 0, 1).await.map(drop),
            _ => open.once(c, &r).await,
        };
        match checked {
            Ok(()) => cands.push(c),
            Err(e) => println!("{} skipped: its first call failed: {e}", c.name()),
        }
    }
    let mut medians: Medians = cands.iter().map(|c| (*c, Vec::new())).collect();
    for round in 0..s.rounds {
        let mut order = cands.clone();
        if !order.is_empty() {
            let by = round % order.len();
            order.rotate_left(by);
        }
        println!(
            "\nround {} of {} ({} warm-up + {} timed calls each; load {})",
            round + 1,
            s.rounds,
            s.warmup,
            s.calls,
            load().1
        );
        println!(
            "  {:<32} {:>9} {:>9} {:>9}",
            "candidate", "mean ms", "median", "p90"
        );
        for c in order {
            match open.run(c, &r, s.warmup, s.calls).await {
                Ok(ms) => {
                    let (mean, median, p90) = stats(&ms);
                    println!("  {:<32} {mean:>9.3} {median:>9.3} {p90:>9.3}", c.name());
                    if let Some((_, m)) = medians.iter_mut().find(|(x, _)| *x == c) {
                        m.push(median);
                    }
                }
                Err(e) => println!("  {:<32} failed: {e}", c.name()),
            }
        }
    }
    for f in FAMILIES {
        open.close(f).await;
    }
    (medians, startups)
}

/// Spawn → the first engine call answered on the loaded page, `s.startups`
/// times per protocol, the protocols' order rotated each time; each browser
/// closed before the next starts.
async fn startups(
    s: &Settings,
    families: &[Family],
    open: &mut Open,
    r: &Requests,
    base: &str,
    url: &str,
) -> Startups {
    let mut out: Startups = families.iter().map(|f| (*f, Ok(Vec::new()))).collect();
    if s.startups > 0 {
        println!("\nstart-ups ({} per protocol)", s.startups);
    }
    for i in 0..s.startups {
        let mut order = families.to_vec();
        let by = i % order.len().max(1);
        order.rotate_left(by);
        for f in order {
            let slot = &mut out.iter_mut().find(|(x, _)| *x == f).expect("a slot").1;
            let Ok(times) = slot else { continue };
            let took = if f == Family::Pw {
                match open.pw.as_mut() {
                    Some(pw) => pw.startup().await,
                    None => Err("Playwright skipped".into()),
                }
            } else {
                let t = Instant::now();
                let mut fresh = Open::default();
                let opened = match fresh.open(f, base, url).await {
                    Ok(()) => fresh.first_call(f, r).await,
                    Err(e) => Err(e),
                };
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                fresh.close(f).await;
                opened.map(|()| ms)
            };
            match took {
                Ok(ms) => {
                    println!("  {:<36} {ms:>8.1} ms", f.name());
                    times.push(ms);
                }
                Err(e) => {
                    println!("  {:<36} failed: {e}", f.name());
                    *slot = Err(e);
                }
            }
        }
    }
    out
}

fn summary(s: &Settings, medians: &Medians, startups: &Startups) {
    println!(
        "\nsummary: the mean of {} round medians (min..max of the medians), {} timed calls per round; goal {GOAL_MS} ms",
        s.rounds, s.calls
    );
    println!(
        "  {:<32} {:>9} {:>20}",
        "candidate", "median ms", "min..max"
    );
    for (c, m) in medians {
        if m.is_empty() {
            continue;
        }
        let mean = m.iter().sum::<f64>() / m.len() as f64;
        let min = m.iter().copied().fold(f64::INFINITY, f64::min);
        let max = m.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let goal = if mean <= GOAL_MS { "  <= goal" } else { "" };
        println!(
            "  {:<32} {mean:>9.3} {:>20}{goal}",
            c.name(),
            format!("{min:.3}..{max:.3}")
        );
    }
    if s.startups > 0 {
        println!(
            "start-up, spawn to the first text read on the loaded page (ms): median, mean, min..max"
        );
        for (f, times) in startups {
            match times {
                Ok(t) if !t.is_empty() => {
                    let (mean, median, _) = stats(t);
                    let min = t.iter().copied().fold(f64::INFINITY, f64::min);
                    let max = t.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    println!(
                        "  {:<36} {median:>8.1} {mean:>8.1} {:>16}",
                        f.name(),
                        format!("{min:.1}..{max:.1}")
                    );
                }
                Ok(_) => {}
                Err(e) => println!("  {:<36} failed: {e}", f.name()),
            }
        }
    }
}
