use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: String) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
