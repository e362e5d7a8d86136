use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn missing_body(s: Scenario) -> harshjudge::Result {
    step!("Pay");
    Ok(())
}

#[scenario]
async fn unknown_argument(s: Scenario) -> harshjudge::Result {
    step!("Pay", retries = 2, {});
    Ok(())
}

#[scenario]
async fn bad_duration(s: Scenario) -> harshjudge::Result {
    step!("Pay", timeout = "1.5s", {});
    Ok(())
}

#[scenario]
async fn body_not_last(s: Scenario) -> harshjudge::Result {
    step!("Pay", {}, timeout = "5s");
    Ok(())
}

#[scenario]
async fn bad_expectations(s: Scenario) -> harshjudge::Result {
    step!("Not a literal", expect = 42, {});
    step!("Empty", expect = "   ", {});
    step!("Twice", expect = "a receipt", expect = "no error", {});
    Ok(())
}

fn main() {}
