//! The knowledge store over a big history: 100,000 recorded steps (200
//! sessions of 500; 50 pages, 500 test ids, 12 tools, 10% errors; 30% of
//! page states carry a row id of their own) in a tempdir. Reports the index
//! build (time, memory), then p50/p95/p99 of 1,000 `knowledge_search` calls
//! with varied queries and filters, 1,000 `knowledge_similar` calls, and
//! 1,000 `record` calls with the index built.
//!
//! `cargo bench -p harshjudge-mcp --bench knowledge`

use std::io::Write;
use std::time::{Duration, Instant};

use harshjudge_mcp::knowledge::{KnowledgeStore, Observation, PageState, SearchQuery, StepRecord};
use harshjudge_mcp::tools::knowledge::{
    KnowledgeSearch, KnowledgeSimilar, knowledge_search, knowledge_similar,
};
use serde_json::{Value, json};

const SESSIONS: usize = 200;
const STEPS_PER_SESSION: usize = 500;
const CALLS: usize = 1_000;
const BASE: &str = "http://127.0.0.1:43117";

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const SECTIONS: [&str; 10] = [
    "shop", "cart", "checkout", "account", "orders", "search", "admin", "help", "blog", "settings",
];
const SUBPAGES: [&str; 5] = ["", "list", "detail", "edit", "history"];
const NOUNS: [&str; 50] = [
    "checkout", "cart", "product", "price", "quantity", "coupon", "address", "card", "email",
    "password", "username", "profile", "avatar", "order", "invoice", "shipping", "billing",
    "search", "filter", "sort", "page", "menu", "nav", "footer", "header", "banner", "modal",
    "dialog", "toast", "review", "rating", "wishlist", "compare", "category", "brand", "size",
    "color", "stock", "delivery", "payment", "refund", "return", "support", "chat", "faq", "blog",
    "comment", "tag", "settings", "language",
];
const ROLES: [&str; 10] = [
    "button", "input", "link", "select", "checkbox", "card", "list", "item", "title", "error",
];
const WORDS: [&str; 40] = [
    "welcome", "back", "added", "removed", "saved", "total", "items", "free", "shipping", "order",
    "placed", "thank", "you", "invalid", "required", "field", "loading", "results", "found",
    "none", "blue", "mug", "shirt", "shoes", "hat", "sale", "new", "arrivals", "account",
    "created", "password", "updated", "error", "please", "try", "again", "later", "confirm",
    "delete", "success",
];
/// Tools and how often agents call them (percent).
const TOOLS: [(&str, usize); 12] = [
    ("browser_click", 35),
    ("browser_fill", 20),
    ("browser_navigate", 10),
    ("browser_screenshot", 8),
    ("browser_wait_for", 7),
    ("browser_press", 4),
    ("browser_snapshot", 4),
    ("browser_console", 3),
    ("recordEvidence", 4),
    ("completeStep", 3),
    ("startRun", 1),
    ("getRunState", 1),
];
const ERRORS: [(&str, &str); 4] = [
    ("TARGET_NOT_FOUND", "no element matches testid={id}"),
    (
        "WAIT_TIMEOUT",
        "testid={id} did not become visible within 5000 ms",
    ),
    ("NAVIGATION_FAILED", "net::ERR_CONNECTION_REFUSED at {url}"),
    (
        "ACTION_FAILED",
        "element testid={id} is covered by another element",
    ),
];

struct Page {
    path: String,
    title: String,
    ids: Vec<String>,
}

fn pages(rng: &mut Rng) -> (Vec<Page>, Vec<String>) {
    let all_ids: Vec<String> = NOUNS
        .iter()
        .flat_map(|n| ROLES.iter().map(move |r| format!("{n}-{r}")))
        .collect();
    let nav = [
        "nav-link",
        "menu-button",
        "header-title",
        "footer-link",
        "search-input",
    ];
    let mut out = Vec::new();
    for s in SECTIONS {
        for sub in SUBPAGES {
            let path = match sub {
                "" => format!("/{s}"),
                "detail" | "edit" => format!("/{s}/{}/{sub}", 1000 + rng.below(9000)),
                _ => format!("/{s}/{sub}"),
            };
            let title = format!("{} {} – Acme Store", cap(s), cap(sub)).replace("  ", " ");
            let mut ids: Vec<String> = nav.iter().map(|s| s.to_string()).collect();
            for _ in 0..(10 + rng.below(15)) {
                ids.push(rng.pick(&all_ids).clone());
            }
            ids.sort();
            ids.dedup();
            out.push(Page { path, title, ids });
        }
    }
    (out, all_ids)
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn tool(rng: &mut Rng) -> &'static str {
    let mut r = rng.below(100);
    for (t, w) in TOOLS {
        if r < w {
            return t;
        }
        r -= w;
    }
    "browser_click"
}

fn sentence(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| *rng.pick(&WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

fn make_step(rng: &mut Rng, pages: &[Page], session: &str, seq: usize, ts: u64) -> StepRecord {
    let page = rng.pick(pages);
    let id = rng.pick(&page.ids).clone();
    let url = format!("{BASE}{}", page.path);
    let tool = tool(rng);
    let args = match tool {
        "browser_click" | "browser_wait_for" => json!({"target": format!("testid={id}")}),
        "browser_fill" => json!({"target": format!("testid={id}"), "value": sentence(rng, 2)}),
        "browser_navigate" => json!({"url": url}),
        "browser_press" => json!({"key": *rng.pick(&["Enter", "Tab", "Escape"])}),
        "recordEvidence" => json!({
            "runId": format!("20240501T1000{:02}000Z-abc123", seq % 60),
            "step": format!("{:02}", 1 + seq % 9),
            "type": "screenshot",
            "data": "iVBORw0KGgo".repeat(60),
        }),
        "completeStep" => {
            json!({"runId": "20240501T100000000Z-abc123", "stepId": "01", "status": "pass"})
        }
        "startRun" => json!({"scenarioSlug": "checkout-flow"}),
        _ => json!({}),
    };
    let mut s = StepRecord::new(tool, args);
    s.id = format!("{session}-{seq}");
    s.session = session.to_string();
    let secs = ts / 1000;
    s.timestamp = format!(
        "2024-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        1 + (secs / 2_592_000) % 12,
        1 + (secs / 86_400) % 28,
        (secs / 3600) % 24,
        (secs / 60) % 60,
        secs % 60,
        ts % 1000
    );
    s.duration_ms = (5 + rng.below(2000)) as f64;
    if rng.chance(10) {
        let (code, msg) = *rng.pick(&ERRORS);
        s.ok = false;
        s.code = Some(code.into());
        s.error = Some(msg.replace("{id}", &id).replace("{url}", &url));
    }
    // Lists make pages differ from visit to visit: 30% of the states carry a
    // row id of their own (tens of thousands of distinct page states).
    let mut test_ids = page.ids.clone();
    if rng.chance(30) {
        test_ids.push(format!("order-row-{}", rng.below(20_000)));
    }
    s.observation = Observation {
        url: Some(url),
        title: Some(page.title.clone()),
        test_ids,
        text: if rng.chance(30) {
            let n = 5 + rng.below(10);
            Some(sentence(rng, n))
        } else {
            None
        },
    };
    s
}

fn query(rng: &mut Rng, pages: &[Page], all_ids: &[String]) -> Value {
    let q = match rng.below(100) {
        0..40 => rng.pick(all_ids).replace('-', " "),
        40..50 => rng.pick(&TOOLS).0.to_string(),
        50..65 => rng.pick(pages).path.clone(),
        65..75 => rng.pick(&ERRORS).0.to_string(),
        _ => {
            let n = 2 + rng.below(3);
            sentence(rng, n)
        }
    };
    let mut a = json!({"query": q, "limit": 10});
    if rng.chance(15) {
        a["tool"] = json!(rng.pick(&TOOLS).0);
    }
    if rng.chance(10) {
        a["outcome"] = json!(if rng.chance(50) { "ok" } else { "error" });
    }
    if rng.chance(10) {
        a["url"] = json!(format!("/{}", rng.pick(&SECTIONS)));
    }
    if rng.chance(10) {
        a["scope"] = json!("session");
    }
    a
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

fn report(name: &str, mut d: Vec<Duration>) -> f64 {
    d.sort();
    let p95 = pct(&d, 0.95);
    println!(
        "  {name:<28} p50 {:>7.3} ms   p95 {:>7.3} ms   p99 {:>7.3} ms   max {:>7.3} ms",
        pct(&d, 0.50),
        p95,
        pct(&d, 0.99),
        d.last().unwrap().as_secs_f64() * 1000.0
    );
    p95
}

fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".harshJudge").join("knowledge");
    let steps = dir.join("steps");
    std::fs::create_dir_all(&steps).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (pages, all_ids) = pages(&mut rng);

    // The history, written as 200 sessions' files (as record() writes them).
    let t = Instant::now();
    let mut bytes = 0usize;
    let mut ts: u64 = 1_000_000_000;
    for s in 0..SESSIONS {
        let session = format!("s{:04}", s);
        let mut out = Vec::new();
        for i in 0..STEPS_PER_SESSION {
            ts += 1500 + rng.below(5000) as u64;
            let step = make_step(&mut rng, &pages, &session, i + 1, ts);
            serde_json::to_writer(&mut out, &step).unwrap();
            out.push(b'\n');
        }
        bytes += out.len();
        std::fs::File::create(steps.join(format!("{session}.jsonl")))
            .unwrap()
            .write_all(&out)
            .unwrap();
    }
    let total = SESSIONS * STEPS_PER_SESSION;
    println!(
        "knowledge store: {total} steps in {SESSIONS} sessions, {:.1} MB of jsonl (written in {:.2} s)",
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );

    // Index build: the first search of a fresh store.
    let store = KnowledgeStore::open(dir.clone(), "s0199".into());
    let rss0 = rss_mb();
    let t = Instant::now();
    let r = store.search(&SearchQuery::new("checkout button")).unwrap();
    let first = t.elapsed();
    assert_eq!(r.total, total);
    println!(
        "  index build                  {:>7.1} ms (first search {:.1} ms in all), +{:.0} MB RSS",
        r.index_built_ms.unwrap(),
        first.as_secs_f64() * 1000.0,
        rss_mb() - rss0
    );

    // knowledge_search, index built.
    let mut lat = Vec::with_capacity(CALLS);
    let mut hits = 0;
    let mut scanned = 0;
    for _ in 0..CALLS {
        let a: KnowledgeSearch = serde_json::from_value(query(&mut rng, &pages, &all_ids)).unwrap();
        let t = Instant::now();
        let v = serde_json::to_value(knowledge_search(&store, a).unwrap()).unwrap();
        lat.push(t.elapsed());
        assert!(v.get("indexBuiltMs").is_none(), "no rebuild");
        hits += v["hits"].as_array().unwrap().len();
        scanned += v["scanned"].as_u64().unwrap() as usize;
    }
    println!(
        "  ({CALLS} searches: {:.1} hits and {:.0} steps scored per call on average)",
        hits as f64 / CALLS as f64,
        scanned as f64 / CALLS as f64
    );
    let search_p95 = report("knowledge_search", lat);

    // knowledge_similar, index built.
    let mut lat = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let p = rng.pick(&pages);
        let state = PageState {
            url: Some(format!("{BASE}{}", p.path)),
            title: Some(p.title.clone()),
            test_ids: p.ids.clone(),
            tool: rng.chance(50).then(|| rng.pick(&TOOLS).0.to_string()),
        };
        let a: KnowledgeSimilar = serde_json::from_value(json!({"limit": 10})).unwrap();
        let t = Instant::now();
        let v = serde_json::to_value(knowledge_similar(&store, a, Some(state)).unwrap()).unwrap();
        lat.push(t.elapsed());
        assert_eq!(v["hits"][0]["confidence"], 1.0, "an identical state exists");
    }
    let similar_p95 = report("knowledge_similar", lat);

    // record() with the index built: append + index the new line.
    let mut lat = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        ts += 2000;
        let mut step = make_step(&mut rng, &pages, "s0199", 0, ts);
        step.id.clear();
        let t = Instant::now();
        store.record(step).unwrap();
        lat.push(t.elapsed());
        if i % 100 == 0 {
            store.search(&SearchQuery::new("cart")).unwrap();
        }
    }
    report("record (index built)", lat);
    let r = store.search(&SearchQuery::new("cart")).unwrap();
    assert_eq!(r.total, total + CALLS);
    assert!(r.index_built_ms.is_none());

    println!(
        "  target p95 < 10 ms: knowledge_search {:.3} ms {}, knowledge_similar {:.3} ms {}",
        search_p95,
        if search_p95 < 10.0 { "OK" } else { "MISSED" },
        similar_p95,
        if similar_p95 < 10.0 { "OK" } else { "MISSED" },
    );
}
