#![deny(warnings)]

use harshjudge::{scenario, step, Scenario};

#[scenario]
async fn typed_values(_s: Scenario) -> harshjudge::Result {
    let items: Vec<&str> = step!("Collect the items", { vec!["apple", "pear"] });
    let count: usize = harshjudge::step!("Count them", { items.len() });
    let Some(first) = ::harshjudge::step!("Take the first", { items.first().copied() }) else {
        harshjudge::bail!("no items");
    };
    step!("Check", {
        harshjudge::ensure!(count == 2 && first == "apple");
    });
    Ok(())
}

harshjudge::main!();
