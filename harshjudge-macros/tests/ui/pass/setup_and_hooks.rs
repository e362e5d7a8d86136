//! A setup scenario, a dependent with a storage state, and hooks: they compile
//! and register what they declare.
use harshjudge::{scenario, step, Scenario};

mod auth {
    use harshjudge::{scenario, step, Scenario};

    #[scenario(setup)]
    pub async fn signed_in_as_admin(s: Scenario) -> harshjudge::Result {
        step!("Sign in", {});
        Ok(())
    }
}

async fn seed(s: &Scenario) -> harshjudge::Result {
    let _ = s.slug();
    Ok(())
}

async fn clean_up(_s: &Scenario) -> harshjudge::Result {
    Ok(())
}

#[scenario(storage_state = "admin", depends_on = [auth::signed_in_as_admin], before = seed, after = clean_up)]
async fn dashboard(s: Scenario) -> harshjudge::Result {
    step!("Open", {});
    Ok(())
}

fn main() {
    let defs: Vec<&harshjudge::__private::ScenarioDef> =
        harshjudge::__private::inventory::iter::<harshjudge::__private::ScenarioDef>
            .into_iter()
            .collect();
    let dashboard = defs.iter().find(|d| d.fn_name == "dashboard").unwrap();
    assert_eq!(dashboard.storage_state, Some("admin"));
    assert_eq!(dashboard.depends_on, ["signed_in_as_admin"]);
    assert_eq!(dashboard.before.unwrap().name, "seed");
    assert_eq!(dashboard.after.unwrap().name, "clean_up");
    assert!(!dashboard.setup);
    let setup = defs.iter().find(|d| d.fn_name == "signed_in_as_admin").unwrap();
    assert!(setup.setup);
}
