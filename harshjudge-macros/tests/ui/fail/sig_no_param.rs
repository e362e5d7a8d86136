use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout() -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
