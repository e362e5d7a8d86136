use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Open the cart", {});
    loop {
        step!("Pay", {});
        break;
    }
    Ok(())
}

fn main() {}
