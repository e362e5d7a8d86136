use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    let _ = s;
    Ok(())
}

fn main() {}
