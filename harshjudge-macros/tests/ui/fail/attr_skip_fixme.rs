use harshjudge::{scenario, step, Scenario};

#[scenario(skip = "")]
async fn empty_reason(s: Scenario) -> harshjudge::Result {
    step!("Run", { let _ = &s; });
    Ok(())
}

#[scenario(skip = "down", fixme = "broken")]
async fn both(s: Scenario) -> harshjudge::Result {
    step!("Run", { let _ = &s; });
    Ok(())
}

#[scenario(fixme = 12)]
async fn not_a_string(s: Scenario) -> harshjudge::Result {
    step!("Run", { let _ = &s; });
    Ok(())
}

fn main() {}
