use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Open the cart", {});
    let pay = || step!("Pay", {});
    pay();
    Ok(())
}

fn main() {}
