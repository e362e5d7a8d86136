use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Open the cart", {});
    let mut tries = 0;
    while tries < 3 {
        step!("Pay", {});
        tries += 1;
    }
    Ok(())
}

fn main() {}
