use harshjudge::{scenario, step, Scenario};

#[scenario(tag = "smoke")]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
