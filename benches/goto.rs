//! `page.goto` on its own: the wall time of one navigation between two pages
//! of the demo app, in the browser `HARSHJUDGE_BROWSER` names (default
//! Chromium; no routes, so classic Navigate To). Since issue 23 each goto of a
//! session with WebDriver BiDi also watches the context's navigation events
//! (to tell a goto the page's own navigation interrupted); this is what that
//! costs, next to the revision before it through `benches/interleave.sh`:
//!
//!   BENCH=goto benches/interleave.sh 9b08545~1
//!   BENCH=goto HARSHJUDGE_BROWSER=firefox benches/interleave.sh 9b08545~1
//!
//! With `GOTO_BENCH_ROUTED=1` the page has a route (for a URL it never
//! requests), so each goto goes over BiDi's `browsingContext.navigate`. With
//! `GOTO_BENCH_ROUTED=onto` the route matches one of the two pages and lets
//! its request go on (`continue_()`): every other goto is onto a routed
//! document, after which chromedriver is first caught up with the page's
//! last load (`Engine::catch_up`, one classic round trip).
//!
//! `cargo bench --bench goto` (needs the browser and its driver).

use std::time::{Duration, Instant};

/// Gotos timed per run (after as many untimed).
const GOTOS: usize = 60;

fn stats(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(|a, b| a.total_cmp(b));
    let mean = ms.iter().sum::<f64>() / ms.len() as f64;
    (mean, ms[ms.len() / 2])
}

/// The times of `GOTOS` gotos alternating between two pages, after a warm-up.
fn gotos(base: &str) -> Vec<f64> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let browsers = harshjudge::browser::Browsers::new();
        let page = browsers.open_page(base).await.unwrap();
        if onto() {
            page.route("**/todos/", |route| async move { route.continue_().await })
                .await
                .unwrap();
        } else if routed() {
            page.route(
                "**/never-requested",
                |route| async move { route.abort().await },
            )
            .await
            .unwrap();
        }
        let paths = ["/items", "/todos/"];
        for i in 0..GOTOS {
            page.goto(paths[i % 2]).await.unwrap();
        }
        let mut ms = Vec::with_capacity(GOTOS);
        for i in 0..GOTOS {
            let t = Instant::now();
            page.goto(paths[i % 2]).await.unwrap();
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        // The page really moved: the last goto was to the second path.
        let url = page.url().await.unwrap();
        assert!(url.contains("/todos/"), "{url}");
        browsers.release(page).await;
        browsers.shutdown().await;
        ms
    })
}

fn routed() -> bool {
    std::env::var("GOTO_BENCH_ROUTED").is_ok_and(|v| v == "1" || v == "onto")
}

/// Whether the route matches one of the pages (`GOTO_BENCH_ROUTED=onto`).
fn onto() -> bool {
    std::env::var("GOTO_BENCH_ROUTED").is_ok_and(|v| v == "onto")
}

fn main() {
    let base = demo_app::start_in_background().unwrap();
    let browser = std::env::var("HARSHJUDGE_BROWSER").unwrap_or_else(|_| "chromium".into());
    let rounds = if std::env::args().any(|a| a == "--once") {
        1
    } else {
        5
    };
    let mut all = Vec::new();
    for _ in 0..rounds {
        let ms = gotos(&base);
        let (mean, median) = stats(ms.clone());
        // One line per run (what `benches/interleave.sh` reads).
        println!(
            "median_ms={median:.2} mean_ms={mean:.2} gotos={GOTOS} browser={browser} routed={} onto={}",
            routed(),
            onto()
        );
        all.extend(ms);
        std::thread::sleep(Duration::from_millis(200));
    }
    if rounds > 1 {
        let (mean, median) = stats(all);
        println!(
            "goto on {browser} (routed: {}), {} gotos: mean {mean:.2} ms, median {median:.2} ms",
            routed(),
            GOTOS * rounds
        );
    }
}
