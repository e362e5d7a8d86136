use std::sync::atomic::{AtomicBool, Ordering};

use harshjudge::{ensure, scenario, step, Scenario};

static LOADED: AtomicBool = AtomicBool::new(false);
static USERS: AtomicBool = AtomicBool::new(false);

mod data {
    use harshjudge::{scenario, step, Scenario};

    #[scenario(setup)]
    pub async fn users(s: Scenario) -> harshjudge::Result {
        step!("Load the users", {
            super::USERS.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        Ok(())
    }
}

mod hooks {
    pub async fn seed() -> harshjudge::Result {
        Ok(())
    }
}

#[scenario(setup)]
async fn fixture_database(s: Scenario) -> harshjudge::Result {
    step!("Load", {
        LOADED.store(true, Ordering::SeqCst);
    });
    Ok(())
}

#[scenario]
async fn search(s: Scenario) -> harshjudge::Result {
    step!("Search the loaded rows and users", {
        ensure!(LOADED.load(Ordering::SeqCst), "fixture_database did not run first");
        ensure!(USERS.load(Ordering::SeqCst), "data::users did not run first");
    });
    Ok(())
}

// A list and a path, in any order, a trailing comma in the list.
harshjudge::main!(setup = [fixture_database, data::users,], before_all = hooks::seed);
