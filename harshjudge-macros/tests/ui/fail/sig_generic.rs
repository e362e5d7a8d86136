use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout<T: Default>(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
