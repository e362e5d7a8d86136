use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Pay", {
        step!("Enter the card", {});
    });
    Ok(())
}

fn main() {}
