//! Every `main!` argument at once: paths, a list of setups, a list of secret
//! names and a call (`Duration::from_secs`), in any order.
use harshjudge::{scenario, step, Scenario};

fn app() -> harshjudge::Result<String> {
    Ok("http://127.0.0.1:9".into())
}

async fn seed() -> harshjudge::Result {
    Ok(())
}

#[scenario(setup)]
async fn fixture_database(s: Scenario) -> harshjudge::Result {
    step!("Load", {});
    Ok(())
}

#[scenario]
async fn search(s: Scenario) -> harshjudge::Result {
    step!("Search", {});
    Ok(())
}

harshjudge::main!(
    expect_timeout = std::time::Duration::from_secs(30),
    secrets = ["APP_TOKEN", "DB_PASSWORD"],
    base_url = app,
    setup = [fixture_database],
    before_all = seed,
    after_all = seed,
);
