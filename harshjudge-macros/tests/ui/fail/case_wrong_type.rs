use harshjudge::{scenario, step, Scenario};

#[scenario]
#[case::admin("admin", "s3cret")]
#[case::numbers(1, "pencil")]
async fn sign_in(s: Scenario, user: &str, password: &str) -> harshjudge::Result {
    step!("Sign in", {
        let _ = (&s, user, password);
    });
    Ok(())
}

fn main() {}
