use harshjudge::{fixture, scenario, step, teardown, Scenario};

struct Shop;
struct Db;

// `shop` asks for `db`, which no `#[fixture]` declares.
#[fixture]
async fn shop(_s: &Scenario, db: &Db) -> harshjudge::Result<Shop> {
    let _ = db;
    Ok(Shop)
}

// `admin` is no fixture either.
#[scenario]
async fn checkout(s: Scenario, shop: &Shop, admin: &String) -> harshjudge::Result {
    step!("Pay", {
        let _ = (&s, shop, admin);
    });
    Ok(())
}

// `nothing` is no fixture.
#[teardown(nothing)]
async fn close_nothing(value: u32) -> harshjudge::Result {
    let _ = value;
    Ok(())
}

fn main() {}
