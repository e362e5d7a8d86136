use harshjudge::{scenario, step, Scenario};

#[scenario(retries = 20)]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
