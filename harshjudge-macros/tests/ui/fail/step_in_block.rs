use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Open the cart", {});
    {
        step!("Pay", {});
    }
    Ok(())
}

fn main() {}
