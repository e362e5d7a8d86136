use harshjudge::{scenario, step, Scenario};

#[scenario(timeout = "1m", tags = ["smoke"], timeout = "2m")]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
