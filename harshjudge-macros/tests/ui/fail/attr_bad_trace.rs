use harshjudge::{scenario, step, Scenario};

#[scenario(trace = "sometimes")]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
