use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(Wrapper(s): Wrapper) -> harshjudge::Result {
    step!("Pay", {});
    Ok(())
}

struct Wrapper(Scenario);

fn main() {}
