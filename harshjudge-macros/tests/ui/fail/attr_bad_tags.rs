use harshjudge::{scenario, step, Scenario};

#[scenario(tags = "smoke")]
async fn not_a_list(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

#[scenario(tags = ["smoke", "checkout", "smoke"])]
async fn duplicate(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
