//! Harness overhead per step: 10 scenarios × 99 trivial steps, each step
//! attaching one small JSON, run through the real harness (every file written:
//! result.json and skill-state.yaml after each step, the attachment and its
//! sidecar, meta.yaml, step files), against the same step bodies run bare
//! (serialise the JSON and write it to a file).
//!
//! `cargo bench --bench harness_overhead` prints the figures: the best round,
//! and the mean and median of the rounds' overheads (each harness run against
//! the bare run of its round).

use std::time::{Duration, Instant};

use harshjudge::{Scenario, scenario, step};

fn payload(i: usize) -> serde_json::Value {
    serde_json::json!({"step": i, "ok": true, "items": ["apple", "pear"]})
}

macro_rules! many_steps {
    ($($name:ident),*) => {$(
        #[scenario]
        async fn $name(s: Scenario) -> harshjudge::Result {
            step!("Step 001", { s.attach_json("data", &payload(1))?; });
            step!("Step 002", { s.attach_json("data", &payload(2))?; });
            step!("Step 003", { s.attach_json("data", &payload(3))?; });
            step!("Step 004", { s.attach_json("data", &payload(4))?; });
            step!("Step 005", { s.attach_json("data", &payload(5))?; });
            step!("Step 006", { s.attach_json("data", &payload(6))?; });
            step!("Step 007", { s.attach_json("data", &payload(7))?; });
            step!("Step 008", { s.attach_json("data", &payload(8))?; });
            step!("Step 009", { s.attach_json("data", &payload(9))?; });
            step!("Step 010", { s.attach_json("data", &payload(10))?; });
            step!("Step 011", { s.attach_json("data", &payload(11))?; });
            step!("Step 012", { s.attach_json("data", &payload(12))?; });
            step!("Step 013", { s.attach_json("data", &payload(13))?; });
            step!("Step 014", { s.attach_json("data", &payload(14))?; });
            step!("Step 015", { s.attach_json("data", &payload(15))?; });
            step!("Step 016", { s.attach_json("data", &payload(16))?; });
            step!("Step 017", { s.attach_json("data", &payload(17))?; });
            step!("Step 018", { s.attach_json("data", &payload(18))?; });
            step!("Step 019", { s.attach_json("data", &payload(19))?; });
            step!("Step 020", { s.attach_json("data", &payload(20))?; });
            step!("Step 021", { s.attach_json("data", &payload(21))?; });
            step!("Step 022", { s.attach_json("data", &payload(22))?; });
            step!("Step 023", { s.attach_json("data", &payload(23))?; });
            step!("Step 024", { s.attach_json("data", &payload(24))?; });
            step!("Step 025", { s.attach_json("data", &payload(25))?; });
            step!("Step 026", { s.attach_json("data", &payload(26))?; });
            step!("Step 027", { s.attach_json("data", &payload(27))?; });
            step!("Step 028", { s.attach_json("data", &payload(28))?; });
            step!("Step 029", { s.attach_json("data", &payload(29))?; });
            step!("Step 030", { s.attach_json("data", &payload(30))?; });
            step!("Step 031", { s.attach_json("data", &payload(31))?; });
            step!("Step 032", { s.attach_json("data", &payload(32))?; });
            step!("Step 033", { s.attach_json("data", &payload(33))?; });
            step!("Step 034", { s.attach_json("data", &payload(34))?; });
            step!("Step 035", { s.attach_json("data", &payload(35))?; });
            step!("Step 036", { s.attach_json("data", &payload(36))?; });
            step!("Step 037", { s.attach_json("data", &payload(37))?; });
            step!("Step 038", { s.attach_json("data", &payload(38))?; });
            step!("Step 039", { s.attach_json("data", &payload(39))?; });
            step!("Step 040", { s.attach_json("data", &payload(40))?; });
            step!("Step 041", { s.attach_json("data", &payload(41))?; });
            step!("Step 042", { s.attach_json("data", &payload(42))?; });
            step!("Step 043", { s.attach_json("data", &payload(43))?; });
            step!("Step 044", { s.attach_json("data", &payload(44))?; });
            step!("Step 045", { s.attach_json("data", &payload(45))?; });
            step!("Step 046", { s.attach_json("data", &payload(46))?; });
            step!("Step 047", { s.attach_json("data", &payload(47))?; });
            step!("Step 048", { s.attach_json("data", &payload(48))?; });
            step!("Step 049", { s.attach_json("data", &payload(49))?; });
            step!("Step 050", { s.attach_json("data", &payload(50))?; });
            step!("Step 051", { s.attach_json("data", &payload(51))?; });
            step!("Step 052", { s.attach_json("data", &payload(52))?; });
            step!("Step 053", { s.attach_json("data", &payload(53))?; });
            step!("Step 054", { s.attach_json("data", &payload(54))?; });
            step!("Step 055", { s.attach_json("data", &payload(55))?; });
            step!("Step 056", { s.attach_json("data", &payload(56))?; });
            step!("Step 057", { s.attach_json("data", &payload(57))?; });
            step!("Step 058", { s.attach_json("data", &payload(58))?; });
            step!("Step 059", { s.attach_json("data", &payload(59))?; });
            step!("Step 060", { s.attach_json("data", &payload(60))?; });
            step!("Step 061", { s.attach_json("data", &payload(61))?; });
            step!("Step 062", { s.attach_json("data", &payload(62))?; });
            step!("Step 063", { s.attach_json("data", &payload(63))?; });
            step!("Step 064", { s.attach_json("data", &payload(64))?; });
            step!("Step 065", { s.attach_json("data", &payload(65))?; });
            step!("Step 066", { s.attach_json("data", &payload(66))?; });
            step!("Step 067", { s.attach_json("data", &payload(67))?; });
            step!("Step 068", { s.attach_json("data", &payload(68))?; });
            step!("Step 069", { s.attach_json("data", &payload(69))?; });
            step!("Step 070", { s.attach_json("data", &payload(70))?; });
            step!("Step 071", { s.attach_json("data", &payload(71))?; });
            step!("Step 072", { s.attach_json("data", &payload(72))?; });
            step!("Step 073", { s.attach_json("data", &payload(73))?; });
            step!("Step 074", { s.attach_json("data", &payload(74))?; });
            step!("Step 075", { s.attach_json("data", &payload(75))?; });
            step!("Step 076", { s.attach_json("data", &payload(76))?; });
            step!("Step 077", { s.attach_json("data", &payload(77))?; });
            step!("Step 078", { s.attach_json("data", &payload(78))?; });
            step!("Step 079", { s.attach_json("data", &payload(79))?; });
            step!("Step 080", { s.attach_json("data", &payload(80))?; });
            step!("Step 081", { s.attach_json("data", &payload(81))?; });
            step!("Step 082", { s.attach_json("data", &payload(82))?; });
            step!("Step 083", { s.attach_json("data", &payload(83))?; });
            step!("Step 084", { s.attach_json("data", &payload(84))?; });
            step!("Step 085", { s.attach_json("data", &payload(85))?; });
            step!("Step 086", { s.attach_json("data", &payload(86))?; });
            step!("Step 087", { s.attach_json("data", &payload(87))?; });
            step!("Step 088", { s.attach_json("data", &payload(88))?; });
            step!("Step 089", { s.attach_json("data", &payload(89))?; });
            step!("Step 090", { s.attach_json("data", &payload(90))?; });
            step!("Step 091", { s.attach_json("data", &payload(91))?; });
            step!("Step 092", { s.attach_json("data", &payload(92))?; });
            step!("Step 093", { s.attach_json("data", &payload(93))?; });
            step!("Step 094", { s.attach_json("data", &payload(94))?; });
            step!("Step 095", { s.attach_json("data", &payload(95))?; });
            step!("Step 096", { s.attach_json("data", &payload(96))?; });
            step!("Step 097", { s.attach_json("data", &payload(97))?; });
            step!("Step 098", { s.attach_json("data", &payload(98))?; });
            step!("Step 099", { s.attach_json("data", &payload(99))?; });
            Ok(())
        }
    )*};
}

many_steps!(s01, s02, s03, s04, s05, s06, s07, s08, s09, s10);

/// 10 scenarios × 99 steps (step ids are two digits, so 99 is the most a scenario may have).
const PER: usize = 99;
const STEPS: usize = 10 * PER;

fn bare(dir: &std::path::Path) -> Duration {
    let start = Instant::now();
    for i in 0..STEPS {
        let step = dir
            .join(format!("s{}", i / PER))
            .join(format!("step-{:02}", i % PER + 1));
        std::fs::create_dir_all(&step).unwrap();
        std::fs::write(
            step.join("data.json"),
            serde_json::to_vec_pretty(&payload(i % PER + 1)).unwrap(),
        )
        .unwrap();
    }
    start.elapsed()
}

fn harness(dir: &std::path::Path, threads: &str) -> Duration {
    // SAFETY: single-threaded here; the harness's threads are gone between runs.
    unsafe { std::env::set_var("HARSHJUDGE_DIR", dir) };
    let args =
        harshjudge::harness::Arguments::from_iter(["bench", "--quiet", "--test-threads", threads]);
    let pkg = harshjudge::harness::Package::new("bench", env!("CARGO_MANIFEST_DIR"));
    let start = Instant::now();
    let code = harshjudge::harness::run(pkg, &args);
    let elapsed = start.elapsed();
    assert_eq!(code, 0);
    elapsed
}

/// The fastest round: the machine's noise (other processes, a shared disk)
/// only ever adds time.
fn best(v: &[Duration]) -> Duration {
    v.iter().copied().min().expect("rounds")
}

/// Mean and median of `v` (milliseconds per step).
fn mean_median(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let mid = v.len() / 2;
    let median = if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    };
    (mean, median)
}

fn main() {
    // BENCH_ROUNDS: fewer rounds, e.g. 1 under `valgrind --tool=callgrind`.
    let rounds = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    // BENCH_DIR picks the file system (e.g. /dev/shm for tmpfs); default: the system temp dir.
    let tmp = match std::env::var_os("BENCH_DIR") {
        Some(d) => tempfile::tempdir_in(d).unwrap(),
        None => tempfile::tempdir().unwrap(),
    };
    let mut bare_t = vec![];
    let mut one = vec![];
    let mut two = vec![];
    for r in 0..rounds {
        bare_t.push(bare(&tmp.path().join(format!("bare{r}"))));
        one.push(harness(&tmp.path().join(format!("h1-{r}")), "1"));
        two.push(harness(&tmp.path().join(format!("h2-{r}")), "2"));
    }
    let per = |d: Duration| d.as_secs_f64() * 1000.0 / STEPS as f64;
    // Each round's overhead: its harness run against its own bare run.
    let overhead = |h: &[Duration]| {
        mean_median(
            h.iter()
                .zip(&bare_t)
                .map(|(h, b)| per(*h) - per(*b))
                .collect(),
        )
    };
    let (b, h1, h2) = (best(&bare_t), best(&one), best(&two));
    eprintln!();
    eprintln!(
        "harness_overhead: {STEPS} steps (10 scenarios x {PER}), best of {rounds} rounds, in {}",
        tmp.path().display()
    );
    eprintln!(
        "  bare step bodies            {:>8.2} ms total  {:.4} ms/step",
        b.as_secs_f64() * 1000.0,
        per(b)
    );
    for (label, h, all) in [("1", h1, &one), ("2", h2, &two)] {
        let (mean, median) = overhead(all);
        eprintln!(
            "  harness, --test-threads {label}   {:>8.2} ms total  {:.4} ms/step  overhead {:.4} ms/step \
             (per round: mean {mean:.4}, median {median:.4})",
            h.as_secs_f64() * 1000.0,
            per(h),
            per(h) - per(b)
        );
    }
}
