use harshjudge::{scenario, step, Scenario};

struct Suite;

impl Suite {
    #[scenario]
    async fn checkout(&self) -> harshjudge::Result {
        step!("Pay", {});
        Ok(())
    }
}

fn main() {}
