use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(_: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
