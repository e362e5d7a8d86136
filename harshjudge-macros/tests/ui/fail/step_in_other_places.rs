use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn checkout(s: Scenario) -> harshjudge::Result {
    step!("Open the cart", {});
    let total = 1 + step!("Add an item", { 1 });
    println!("{}", step!("Print", { total }));
    fn helper() {
        step!("Help", {});
    }
    Ok(())
}

fn main() {}
