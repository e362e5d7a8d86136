use harshjudge::{scenario, step, Scenario};

#[scenario(retries = 2)]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
