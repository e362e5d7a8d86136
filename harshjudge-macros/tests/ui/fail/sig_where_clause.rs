use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result
where
    Scenario: Clone,
{
    step!("Pay", {});
    Ok(())
}

fn main() {}
