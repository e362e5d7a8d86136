use harshjudge::{scenario, step, Scenario};

async fn seed(_s: Scenario) -> harshjudge::Result {
    Ok(())
}

#[scenario(before = seed)]
async fn dashboard(s: Scenario) -> harshjudge::Result {
    step!("Open", {});
    Ok(())
}

fn main() {}
