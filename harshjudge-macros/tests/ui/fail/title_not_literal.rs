use harshjudge::{scenario, step, Scenario};

const TITLE: &str = "Pay";

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!(TITLE, {});
    Ok(())
}

fn main() {}
