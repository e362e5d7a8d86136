use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Open the cart", {});
    let pay = async {
        step!("Pay", {});
    };
    pay.await;
    Ok(())
}

fn main() {}
