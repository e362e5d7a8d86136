#![deny(warnings)]

//! `#[case]`s: one registered scenario each, with the case's values.
use harshjudge::__private::{inventory, ScenarioDef, Skip};
use harshjudge::{ensure, scenario, step, Scenario};

fn def(fn_name: &str) -> &'static ScenarioDef {
    inventory::iter::<ScenarioDef>.into_iter().find(|d| d.fn_name == fn_name).expect("registered")
}

/// Sign in.
#[scenario(slug = "login", tags = ["auth"])]
#[case::admin("admin", 3)]
#[case("guest", 0)]
async fn sign_in(_s: Scenario, user: &str, level: u8) -> harshjudge::Result {
    step!("Check the registration", {
        ensure!(!user.is_empty());
        let admin = def("sign_in::admin");
        ensure!(admin.slug == "login-admin" && admin.title == "Sign in. (admin)", "{admin:?}");
        ensure!(admin.case == Some("admin") && admin.tags == ["auth"], "{admin:?}");
        let guest = def("sign_in::case_2");
        ensure!(guest.slug == "login-case-2" && guest.case == Some("case_2"), "{guest:?}");
        ensure!(def("skipped").skip == Some(Skip::Fixme("broken")), "skip");
        ensure!(level == 3 || level == 0);
    });
    Ok(())
}

#[scenario(fixme = "broken")]
async fn skipped(_s: Scenario) -> harshjudge::Result {
    step!("Never", {});
    Ok(())
}

harshjudge::main!();
