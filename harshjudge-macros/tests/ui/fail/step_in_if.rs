use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Open the cart", {});
    if s.base_url().is_empty() {
        step!("Pay", {});
    }
    Ok(())
}

fn main() {}
