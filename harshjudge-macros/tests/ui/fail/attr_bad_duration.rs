use harshjudge::{scenario, step, Scenario};

#[scenario(timeout = "2 minutes")]
async fn spelled_out(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

#[scenario(step_timeout = "0s")]
async fn zero(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

#[scenario(timeout = "30")]
async fn no_unit(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
