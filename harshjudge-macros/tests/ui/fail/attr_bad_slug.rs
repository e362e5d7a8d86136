use harshjudge::{scenario, step, Scenario};

#[scenario(slug = "Check_Out")]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

#[allow(non_snake_case)]
#[scenario]
async fn CheckOut(s: Scenario) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

fn main() {}
