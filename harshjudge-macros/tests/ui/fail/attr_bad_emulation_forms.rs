use harshjudge::{scenario, step, Scenario};

#[scenario(
    color_scheme = "black",
    reduced_motion = true,
    geolocation = (91.0, 0.0),
    offline = "yes",
    extra_http_headers = ["X-Tenant: acme"],
    http_credentials = "admin:pw",
)]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
