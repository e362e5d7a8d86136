use harshjudge::{scenario, step, Scenario};

#[scenario]
#[case::admin("admin", "s3cret")]
#[case::editor("editor")]
async fn sign_in(s: Scenario, user: &str, password: &str) -> harshjudge::Result {
    step!("Sign in", {
        let _ = (&s, user, password);
    });
    Ok(())
}

#[scenario]
#[case::solo(1)]
async fn no_parameters(s: Scenario) -> harshjudge::Result {
    step!("Run", {
        let _ = &s;
    });
    Ok(())
}

fn main() {}
