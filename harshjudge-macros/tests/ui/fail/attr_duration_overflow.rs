use harshjudge::{scenario, step, Scenario};

#[scenario(timeout = "999999999999999999h")]
async fn overflows(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

#[scenario(step_timeout = 18446744073709551615)]
async fn max_seconds(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

#[scenario(timeout = "25h")]
async fn over_a_day(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    harshjudge::step!("Wait", timeout = "99999999999999999999ms", {});
    Ok(())
}

fn main() {}
