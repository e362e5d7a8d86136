//! The HTML report of a big project: 200 scenarios × 50 runs (4 steps each,
//! with before/after screenshots and logs). Times the first generation, a
//! regeneration with nothing changed, one after a single new run, and what the
//! dashboard builds per request; prints the overview's size.
//!
//! `cargo bench --bench report`

use std::path::Path;
use std::time::{Duration, Instant};

const SCENARIOS: usize = 200;
const RUNS: usize = 50;
const STEPS: usize = 4;

fn put(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn add_run(dir: &Path, slug: &str, n: usize, pass: bool) {
    let id = format!("20261101T{:06}000Z-r{n:05}", n);
    let run = dir.join(format!("scenarios/{slug}/runs/{id}"));
    let steps: Vec<String> = (1..=STEPS)
        .map(|s| {
            let failed = !pass && s == STEPS;
            format!(
                r#"{{"id":"{s:02}","status":"{}","duration":{},"error":{},"evidenceFiles":["before.png","after.png","console.json","network.json"],"summary":null,"title":"Step {s}"}}"#,
                if failed { "fail" } else { "pass" },
                100 + s,
                if failed { "\"expected a receipt\"" } else { "null" }
            )
        })
        .collect();
    let result = format!(
        r#"{{"runId":"{id}","scenarioSlug":"{slug}","status":"{}","startedAt":"2026-11-01T00:00:00.000Z","completedAt":"2026-11-01T00:00:01.000Z","duration":1000,"steps":[{}],"failedStep":{},"errorMessage":{}}}"#,
        if pass { "pass" } else { "fail" },
        steps.join(","),
        if pass {
            "null".into()
        } else {
            format!("\"{STEPS:02}\"")
        },
        if pass {
            "null"
        } else {
            "\"expected a receipt\""
        }
    );
    for s in 1..=STEPS {
        let ev = run.join(format!("step-{s:02}/evidence"));
        put(&ev.join("before.png"), b"\x89PNG fake");
        put(&ev.join("after.png"), b"\x89PNG fake");
        put(
            &ev.join("console.json"),
            br#"[{"level":"info","text":"loaded","source":"console-api","url":null,"line":null,"timestamp":1}]"#,
        );
        put(
            &ev.join("network.json"),
            br#"[{"method":"GET","url":"http://127.0.0.1:1/api","status":200,"type":"Fetch","timing":2.5,"failure":null}]"#,
        );
    }
    put(&run.join("result.json"), result.as_bytes());
}

fn project(dir: &Path) {
    put(
        &dir.join("config.yaml"),
        b"projectName: big\nbaseUrl: ''\nversion: '1.0'\ncreatedAt: '2026-11-01T00:00:00.000Z'\n",
    );
    for i in 0..SCENARIOS {
        let slug = format!("scenario-{i:03}");
        let steps: String = (1..=STEPS)
            .map(|s| {
                format!("  - id: '{s:02}'\n    title: Step {s}\n    file: {s:02}-step-{s}.md\n")
            })
            .collect();
        put(
            &dir.join(format!("scenarios/{slug}/meta.yaml")),
            format!(
                "title: Scenario {i}\nslug: {slug}\nstarred: false\ntags:\n  - tag-{}\nestimatedDuration: 60\nsteps:\n{steps}totalRuns: {RUNS}\npassCount: {}\nfailCount: {}\nlastRun: '2026-11-01T00:00:00.000Z'\nlastResult: pass\navgDuration: 1000\n",
                i % 7,
                RUNS - 5,
                5
            )
            .as_bytes(),
        );
        for n in 0..RUNS {
            add_run(dir, &slug, n, n % 10 != 3);
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".harshJudge");
    let t = Instant::now();
    project(&dir);
    eprintln!(
        "report: built a project of {SCENARIOS} scenarios x {RUNS} runs x {STEPS} steps in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    let t = Instant::now();
    let cold = harshjudge_store::report::html::write(&dir).unwrap();
    let cold_t = t.elapsed();
    let mut warm = vec![];
    for _ in 0..5 {
        let t = Instant::now();
        let r = harshjudge_store::report::html::write(&dir).unwrap();
        warm.push(t.elapsed());
        assert_eq!(r.run_pages_written, 0);
    }
    warm.sort();
    add_run(&dir, "scenario-000", RUNS, false);
    let t = Instant::now();
    let one = harshjudge_store::report::html::write(&dir).unwrap();
    let one_t = t.elapsed();
    let mut overview = vec![];
    let mut stamp = vec![];
    let mut run = vec![];
    for _ in 0..5 {
        let t = Instant::now();
        harshjudge_store::report::html::overview_js(&dir).unwrap();
        overview.push(t.elapsed());
        let t = Instant::now();
        harshjudge_store::report::html::stamp(&dir).unwrap();
        stamp.push(t.elapsed());
        let t = Instant::now();
        harshjudge_store::report::html::run_js(&dir, "scenario-000", "20261101T000050000Z-r00050")
            .unwrap()
            .unwrap();
        run.push(t.elapsed());
    }
    for v in [&mut overview, &mut stamp, &mut run] {
        v.sort();
    }
    let page = harshjudge_store::report::html::index_html().len();
    let run_js_bytes =
        std::fs::metadata(dir.join("report/data/runs/scenario-000/20261101T000050000Z-r00050.js"))
            .unwrap()
            .len();
    eprintln!(
        "  first generation        {:.0} ms ({} run pages for {} scenarios)",
        ms(cold_t),
        cold.run_pages_written,
        cold.scenarios
    );
    eprintln!(
        "  nothing changed         {:.0} ms (median of 5)",
        ms(warm[2])
    );
    eprintln!(
        "  after one new run       {:.0} ms ({} run page written)",
        ms(one_t),
        one.run_pages_written
    );
    eprintln!(
        "  first page              index.html {:.1} KB + overview.js {:.1} KB; a run page {:.1} KB, loaded on demand",
        page as f64 / 1024.0,
        one.overview_bytes as f64 / 1024.0,
        run_js_bytes as f64 / 1024.0
    );
    eprintln!(
        "  dashboard per request   overview {:.1} ms, run {:.2} ms, stamp {:.1} ms (medians)",
        ms(overview[2]),
        ms(run[2]),
        ms(stamp[2])
    );
}
