use harshjudge::{scenario, step, Scenario};

#[scenario]
#[case::Admin("admin")]
#[case::a("a")]
#[case::a("b")]
#[case::none]
async fn sign_in(s: Scenario, user: &str) -> harshjudge::Result {
    step!("Sign in", {
        let _ = (&s, user);
    });
    Ok(())
}

fn main() {}
