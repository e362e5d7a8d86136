use harshjudge::{scenario, step, Scenario};

#[scenario(depends_on = [signed_in_as_admin])]
async fn dashboard(s: Scenario) -> harshjudge::Result {
    step!("Open", {});
    Ok(())
}

fn main() {}
