//! Browser steps: wall time per step with full evidence (one screenshot per
//! boundary, console and network logs, files written) next to the time the same
//! browser needs for the raw work (the step's action and one screenshot), and
//! the cost of opening a page in a scenario after the first (a pooled session).
//!
//! `cargo bench --bench browser_steps` (needs chromium and chromium-driver).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use harshjudge::{Scenario, scenario, step};

#[path = "support/wdcount.rs"]
mod wdcount;

static PAGE_OPEN: Mutex<Vec<Duration>> = Mutex::new(Vec::new());

macro_rules! typing {
    ($($name:ident),*) => {$(
        #[scenario]
        async fn $name(s: Scenario) -> harshjudge::Result {
            let t = Instant::now();
            let page = s.page().await?;
            PAGE_OPEN.lock().unwrap().push(t.elapsed());
            page.goto("/items").await?;
            step!("Type 01", { page.fill("testid=new-item", "item 1").await?; });
            step!("Type 02", { page.fill("testid=new-item", "item 2").await?; });
            step!("Type 03", { page.fill("testid=new-item", "item 3").await?; });
            step!("Type 04", { page.fill("testid=new-item", "item 4").await?; });
            step!("Type 05", { page.fill("testid=new-item", "item 5").await?; });
            step!("Type 06", { page.fill("testid=new-item", "item 6").await?; });
            step!("Type 07", { page.fill("testid=new-item", "item 7").await?; });
            step!("Type 08", { page.fill("testid=new-item", "item 8").await?; });
            step!("Type 09", { page.fill("testid=new-item", "item 9").await?; });
            step!("Type 10", { page.fill("testid=new-item", "item 10").await?; });
            step!("Type 11", { page.fill("testid=new-item", "item 11").await?; });
            step!("Type 12", { page.fill("testid=new-item", "item 12").await?; });
            step!("Type 13", { page.fill("testid=new-item", "item 13").await?; });
            step!("Type 14", { page.fill("testid=new-item", "item 14").await?; });
            step!("Type 15", { page.fill("testid=new-item", "item 15").await?; });
            step!("Type 16", { page.fill("testid=new-item", "item 16").await?; });
            step!("Type 17", { page.fill("testid=new-item", "item 17").await?; });
            step!("Type 18", { page.fill("testid=new-item", "item 18").await?; });
            step!("Type 19", { page.fill("testid=new-item", "item 19").await?; });
            step!("Type 20", { page.fill("testid=new-item", "item 20").await?; });
            Ok(())
        }
    )*};
}

typing!(typing_1, typing_2, typing_3, typing_4, typing_5);

const STEPS: usize = 20;
const SCENARIOS: usize = 5;

fn harness(dir: &std::path::Path, base: &str, evidence: &str) -> Duration {
    // SAFETY: single-threaded here; the harness's threads are gone between runs.
    unsafe {
        std::env::set_var("HARSHJUDGE_DIR", dir);
        std::env::set_var("HARSHJUDGE_BASE_URL", base);
        std::env::set_var("HARSHJUDGE_EVIDENCE", evidence);
    }
    let args =
        harshjudge::harness::Arguments::from_iter(["bench", "--quiet", "--test-threads", "1"]);
    let pkg = harshjudge::harness::Package::new("bench", env!("CARGO_MANIFEST_DIR"));
    let start = Instant::now();
    assert_eq!(harshjudge::harness::run(pkg, &args), 0);
    start.elapsed()
}

/// The same actions and one screenshot per step, straight on the page:
/// (total, of which filling, of which screenshots).
fn raw(base: &str) -> (Duration, Duration, Duration) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let browsers = harshjudge::browser::Browsers::new();
        let page = browsers.open_page(base).await.unwrap();
        page.goto("/items").await.unwrap();
        page.screenshot().await.unwrap();
        let (mut fill, mut shot) = (Duration::ZERO, Duration::ZERO);
        let start = Instant::now();
        for i in 0..STEPS {
            let t = Instant::now();
            page.fill("testid=new-item", &format!("item {i}"))
                .await
                .unwrap();
            fill += t.elapsed();
            let t = Instant::now();
            page.screenshot().await.unwrap();
            shot += t.elapsed();
        }
        let d = (start.elapsed(), fill, shot);
        browsers.release(page).await;
        browsers.shutdown().await;
        d
    })
}

/// Durations (ms) of steps 02..20 of every run under `dir`: per-step wall time
/// inside a scenario (the step's action and its boundary's evidence), without
/// the page open and first navigation that precede step 01.
fn step_durations(dir: &std::path::Path) -> Vec<f64> {
    let mut out = vec![];
    let scenarios = dir.join("scenarios");
    for s in std::fs::read_dir(scenarios).unwrap() {
        let runs = s.unwrap().path().join("runs");
        for r in std::fs::read_dir(runs).unwrap() {
            let text = std::fs::read_to_string(r.unwrap().path().join("result.json")).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            for step in v["steps"].as_array().unwrap() {
                if step["id"] != "01" {
                    out.push(step["duration"].as_f64().unwrap());
                }
            }
        }
    }
    out.sort_by(|a, b| a.partial_cmp(b).unwrap());
    out
}

/// One harness run (full evidence) through a chromedriver of our own that logs
/// every command: (commands per step, commands per page open, commands by name
/// over the whole run).
fn counted(dir: &std::path::Path, base: &str) -> (Vec<usize>, Vec<usize>, Vec<(String, usize)>) {
    let driver = wdcount::CountingDriver::start(dir);
    // SAFETY: single-threaded here, as in `harness`.
    unsafe { std::env::set_var("HARSHJUDGE_WEBDRIVER_URL", &driver.url) };
    harness(&dir.join("hj"), base, "all");
    // SAFETY: single-threaded again: the harness run above has ended.
    unsafe { std::env::remove_var("HARSHJUDGE_WEBDRIVER_URL") };
    let commands = driver.commands();
    drop(driver);
    let (opens, per_step) = wdcount::steps_of(&wdcount::intervals(&commands), STEPS);
    (per_step, opens, wdcount::by_name(&commands))
}

fn median(v: &[f64]) -> f64 {
    v[v.len() / 2]
}

/// `--once`: one warm-up run and one timed run with full evidence; prints the
/// median step time and the run's wall time (what `benches/interleave.sh`
/// alternates between two builds).
fn once(base: &str) {
    let tmp = tempfile::tempdir().unwrap();
    harness(&tmp.path().join("warm"), base, "all");
    let d = harness(&tmp.path().join("timed"), base, "all");
    let steps = step_durations(&tmp.path().join("timed"));
    println!(
        "step_median_ms={:.2} run_ms={:.1} steps={}",
        median(&steps),
        d.as_secs_f64() * 1000.0,
        steps.len()
    );
}

fn main() {
    let base = demo_app::start_in_background().unwrap();
    if std::env::args().any(|a| a == "--once") {
        return once(&base);
    }
    let tmp = tempfile::tempdir().unwrap();
    let per = |d: Duration, n: usize| d.as_secs_f64() * 1000.0 / n as f64;
    // Warm up chromedriver and Chromium's caches.
    harness(&tmp.path().join("warm"), &base, "all");
    PAGE_OPEN.lock().unwrap().clear();
    let mut full = vec![];
    let mut off = vec![];
    let mut bare = vec![];
    for r in 0..3 {
        full.push(harness(&tmp.path().join(format!("all{r}")), &base, "all"));
        off.push(harness(&tmp.path().join(format!("off{r}")), &base, "off"));
        bare.push(raw(&base));
    }
    let best = |v: &Vec<Duration>| *v.iter().min().unwrap();
    let mut inside_all = vec![];
    let mut inside_off = vec![];
    for r in 0..3 {
        inside_all.extend(step_durations(&tmp.path().join(format!("all{r}"))));
        inside_off.extend(step_durations(&tmp.path().join(format!("off{r}"))));
    }
    inside_all.sort_by(|a, b| a.partial_cmp(b).unwrap());
    inside_off.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let steps = STEPS * SCENARIOS;
    let (per_step, open_cmds, by_name) = counted(&tmp.path().join("counted"), &base);
    let mut opens = PAGE_OPEN.lock().unwrap().clone();
    opens.sort();
    eprintln!();
    eprintln!("browser_steps: {SCENARIOS} scenarios x {STEPS} steps (fill a field), best of 3");
    eprintln!(
        "  harness, evidence all   {:.2} ms/step (whole run incl. page opens)",
        per(best(&full), steps)
    );
    eprintln!(
        "  harness, evidence off   {:.2} ms/step",
        per(best(&off), steps)
    );
    let b = bare.iter().min_by_key(|b| b.0).unwrap();
    eprintln!(
        "  raw fill + screenshot   {:.2} ms/step (fill {:.2}, screenshot {:.2})",
        per(b.0, STEPS),
        per(b.1, STEPS),
        per(b.2, STEPS)
    );
    eprintln!(
        "  one step inside a run   median {:.1} ms with evidence, {:.1} ms without ({} steps each)",
        median(&inside_all),
        median(&inside_off),
        inside_all.len()
    );
    let total: usize = by_name.iter().map(|(_, n)| n).sum();
    eprintln!(
        "  WebDriver commands: median {} per step, max {} ({} steps); page open median {} ({} opens); {:.1} per step over the whole run ({total} for {steps} steps)",
        wdcount::median(&per_step),
        per_step.iter().max().unwrap(),
        per_step.len(),
        wdcount::median(&open_cmds),
        open_cmds.len(),
        total as f64 / steps as f64,
    );
    eprintln!("    by command: {by_name:?}");
    eprintln!(
        "  s.page() with a pooled session: median {:?}, max {:?} ({} opens)",
        opens[opens.len() / 2],
        opens[opens.len() - 1],
        opens.len()
    );
}
