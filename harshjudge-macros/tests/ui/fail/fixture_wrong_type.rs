use harshjudge::{fixture, scenario, step, teardown, Scenario};

struct Shop;

#[fixture]
async fn shop() -> harshjudge::Result<Shop> {
    Ok(Shop)
}

// The fixture gives a `Shop`, not a `String`.
#[scenario]
async fn checkout(s: Scenario, shop: &String) -> harshjudge::Result {
    step!("Pay", {
        let _ = (&s, shop);
    });
    Ok(())
}

// The teardown takes a `Shop` back, not a `u32`.
#[teardown(shop)]
async fn close_shop(shop: u32) -> harshjudge::Result {
    let _ = shop;
    Ok(())
}

fn main() {}
