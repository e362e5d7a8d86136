use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    step!("Check the receipt", {});
    step!("Pay", {});
    Ok(())
}

fn main() {}
