#![deny(warnings)]

use harshjudge::{scenario, step, Scenario};

/// Values flow from one step to the next; code between steps runs.
#[scenario]
async fn values_between_steps(s: Scenario) -> harshjudge::Result {
    let base = 40;
    let answer = step!("Compute the answer", {
        let two = 2;
        base + two
    });
    let doubled = answer * 2; // belongs to the next step
    let (a, b) = step!("Split it", { (doubled / 2, doubled % 2) });
    harshjudge::ensure!(s.current_step().is_some(), "a step is running");
    step!("Check it", {
        harshjudge::ensure!(a == 42, "a is {}", a);
        harshjudge::ensure!(b == 0, "b is {}", b);
    });
    Ok(())
}

harshjudge::main!();
