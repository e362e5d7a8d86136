use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> Result<(), String> {
    step!("Pay", {});
    Ok(())
}

fn main() {}
