use harshjudge::{scenario, step, Scenario};

#[scenario(setup = true, storage_state = "../admin", depends_on = "login", before = "seed", after = || ())]
async fn dashboard(s: Scenario) -> harshjudge::Result {
    step!("Open", {});
    Ok(())
}

fn main() {}
