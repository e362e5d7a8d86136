use harshjudge::{scenario, step, Scenario};

#[scenario(
    device = "iphone 15",
    locale = "de_DE",
    timezone_id = "Berlin",
    grant_permissions = ["geolocation", "location"],
)]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
