#![deny(warnings)]

use harshjudge::{scenario, step, Scenario};

/// The doc comment does not win over `title`.
#[scenario(
    slug = "checkout-saved-card",
    title = "Checkout with a saved card",
    tags = ["smoke", "checkout"],
    timeout = "2m",
    step_timeout = "30s",
    retries = 2,
    trace = "on-first-retry",
)]
pub async fn checkout(s: Scenario) -> harshjudge::Result {
    let api = 1;
    let cart = step!("Add two items to the cart", { let c = api + 1; c });
    step!("Pay with the saved card", {
        harshjudge::ensure!(cart == 2, "bad cart {}", cart);
        harshjudge::ensure!(s.slug() == "checkout-saved-card", "slug: {}", s.slug());
        harshjudge::ensure!(s.title() == "Checkout with a saved card", "title: {}", s.title());
        let def = harshjudge::__private::inventory::iter::<harshjudge::__private::ScenarioDef>
            .into_iter()
            .find(|d| d.fn_name == "checkout")
            .expect("registered");
        harshjudge::ensure!(def.retries == Some(2), "retries: {:?}", def.retries);
        harshjudge::ensure!(
            def.trace == Some(harshjudge::browser::settings::TraceMode::OnFirstRetry),
            "trace: {:?}",
            def.trace
        );
    });
    Ok(())
}

#[scenario(timeout = 120, step_timeout = 5)]
async fn integer_seconds(_s: Scenario) -> harshjudge::Result {
    step!("Only step", {});
    Ok(())
}

harshjudge::main!();
