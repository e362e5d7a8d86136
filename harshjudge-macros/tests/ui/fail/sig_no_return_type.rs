use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) {
    step!("Pay", {});
}

fn main() {}
