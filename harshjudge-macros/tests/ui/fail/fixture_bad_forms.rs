use harshjudge::{fixture, scenario, step, teardown, Scenario};

struct Shop;

// Asks for itself.
#[fixture]
async fn shop(_s: &Scenario, shop: &Shop) -> harshjudge::Result<Shop> {
    let _ = shop;
    Ok(Shop)
}

// Returns no `harshjudge::Result`.
#[fixture]
async fn plain() -> u32 {
    1
}

// An unknown scope.
#[fixture(scope = "worker")]
async fn worker() -> harshjudge::Result<u32> {
    Ok(1)
}

// The scenario by value.
#[fixture]
async fn by_value(s: Scenario) -> harshjudge::Result<u32> {
    let _ = s;
    Ok(1)
}

// A fixture asked for by value.
#[scenario]
async fn checkout(s: Scenario, count: u32) -> harshjudge::Result {
    step!("Pay", {
        let _ = (&s, count);
    });
    Ok(())
}

// A teardown without the value.
#[teardown(worker)]
async fn close_worker() -> harshjudge::Result {
    Ok(())
}

fn main() {}
