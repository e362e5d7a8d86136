use harshjudge::{scenario, step, Scenario};

#[scenario(setup)]
async fn fixture_database(s: Scenario) -> harshjudge::Result {
    step!("Load", {});
    Ok(())
}

harshjudge::main!(setup = [fixture_databse]);
