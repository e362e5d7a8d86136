#![deny(warnings)]

use harshjudge::{scenario, step, Scenario};

#[scenario(step_timeout = "30s")]
async fn per_step_timeout(_s: Scenario) -> harshjudge::Result {
    let two = step!("Quick", timeout = "5s", { 1 + 1 });
    step!("Quicker", timeout = "500ms", { harshjudge::ensure!(two == 2) });
    step!("Seconds", timeout = 2, {},);
    step!("Default", {});
    Ok(())
}

harshjudge::main!();
