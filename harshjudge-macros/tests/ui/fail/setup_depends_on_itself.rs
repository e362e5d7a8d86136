use harshjudge::{scenario, step, Scenario};

#[scenario(setup, depends_on = [signed_in])]
async fn signed_in(s: Scenario) -> harshjudge::Result {
    step!("Sign in", {});
    Ok(())
}

fn main() {}
