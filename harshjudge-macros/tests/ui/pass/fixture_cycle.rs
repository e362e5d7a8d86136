//! Fixtures that ask for each other in a circle compile (rustc sees one item
//! at a time); the harness refuses them before any scenario runs, naming the
//! circle: usage error, exit 2. `main` runs the harness in a child of itself
//! (listing, so that nothing is written) and reads what it said.
use harshjudge::{fixture, scenario, step, Scenario};

struct A;
struct B;

#[fixture]
async fn a(b: &B) -> harshjudge::Result<A> {
    let _ = b;
    Ok(A)
}

#[fixture]
async fn b(a: &A) -> harshjudge::Result<B> {
    let _ = a;
    Ok(B)
}

#[scenario]
async fn uses_a(s: Scenario, a: &A) -> harshjudge::Result {
    step!("Use it", {
        let _ = (&s, a);
    });
    Ok(())
}

fn main() {
    if std::env::var_os("FIXTURE_CYCLE_CHILD").is_some() {
        let pkg = harshjudge::harness::Package::new("ui", "/nonexistent");
        let args = harshjudge::harness::Arguments {
            list: true,
            ..Default::default()
        };
        std::process::exit(harshjudge::harness::run(pkg, &args));
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env("FIXTURE_CYCLE_CHILD", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "error: fixtures ask for each other in a circle: `a` (tests/ui/pass/fixture_cycle.rs:11) → `b` (tests/ui/pass/fixture_cycle.rs:17) → `a`; "
        ),
        "{stderr}"
    );
    // Nothing was listed: the scenario never reached the plan.
    assert!(!String::from_utf8_lossy(&out.stdout).contains("uses_a"));
}
