//! Fixtures: a scenario asks for them by parameter (with and without cases),
//! fixtures ask for other fixtures and the scenario, a teardown takes one
//! back; each registers what it declares.
use harshjudge::{fixture, scenario, step, teardown, Scenario};

mod data {
    use harshjudge::{fixture, Scenario};

    /// What crosses cargo-nextest's processes: a value of JSON.
    pub type Db = String;

    #[fixture(scope = "invocation")]
    pub async fn db(_s: &Scenario) -> harshjudge::Result<Db> {
        Ok("postgres://db".into())
    }
}

use data::{db, Db};

struct Shop {
    name: String,
}

#[fixture]
async fn shop(s: &Scenario, db: &Db) -> harshjudge::Result<Shop> {
    Ok(Shop { name: format!("{} on {}", s.slug(), db) })
}

#[teardown(shop)]
async fn close_shop(shop: Shop) -> harshjudge::Result {
    drop(shop.name);
    Ok(())
}

#[scenario]
async fn checkout(s: Scenario, shop: &Shop, _db: &Db) -> harshjudge::Result {
    step!("Open the shop", {
        let _ = (&s, &shop.name);
    });
    Ok(())
}

#[scenario]
#[case::admin("admin")]
async fn sign_in(s: Scenario, user: &str, shop: &Shop) -> harshjudge::Result {
    step!("Sign in", {
        let _ = (&s, user, &shop.name);
    });
    Ok(())
}

fn main() {
    use harshjudge::__private::{inventory, FixtureDef, FixtureScope, ScenarioDef, TeardownDef};
    let scenario = |name: &str| {
        inventory::iter::<ScenarioDef>
            .into_iter()
            .find(|d| d.fn_name == name)
            .unwrap()
    };
    let fixture = |name: &str| {
        inventory::iter::<FixtureDef>
            .into_iter()
            .find(|d| d.name == name)
            .unwrap()
    };
    assert_eq!(scenario("checkout").fixtures, ["fixtures::shop", "fixtures::data::db"]);
    assert_eq!(scenario("sign_in::admin").fixtures, ["fixtures::shop"]);
    let shop = fixture("shop");
    assert_eq!((shop.key, shop.scope), ("fixtures::shop", FixtureScope::Scenario));
    assert_eq!(shop.needs, ["fixtures::data::db"]);
    let db = fixture("db");
    assert_eq!((db.key, db.scope), ("fixtures::data::db", FixtureScope::Invocation));
    assert!(db.needs.is_empty());
    assert!(db.share.is_some() && shop.share.is_none());
    let teardowns: Vec<&TeardownDef> = inventory::iter::<TeardownDef>.into_iter().collect();
    assert_eq!(teardowns.len(), 1);
    assert_eq!((teardowns[0].fixture, teardowns[0].name), ("fixtures::shop", "close_shop"));
}
