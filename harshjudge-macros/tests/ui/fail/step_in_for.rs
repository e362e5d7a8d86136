use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Open the cart", {});
    for card in ["visa", "amex"] {
        step!("Pay", { let _ = card; });
    }
    Ok(())
}

fn main() {}
