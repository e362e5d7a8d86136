use harshjudge::{scenario, step, Scenario};

#[scenario]
fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
