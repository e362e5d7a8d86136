#![deny(warnings)]

use harshjudge::{scenario, step, Scenario};

///
///   Sign in with a password.
///
/// The first non-empty line of the doc comment is the title.
#[scenario]
async fn sign_in(s: Scenario) -> harshjudge::Result {
    step!("Check the title and the slug", {
        harshjudge::ensure!(s.title() == "Sign in with a password.", "title: {}", s.title());
        harshjudge::ensure!(s.slug() == "sign-in", "slug: {}", s.slug());
    });
    Ok(())
}

/// No doc comment: the title is the function name.
mod inner {
    use harshjudge::{scenario, step, Scenario};

    #[scenario]
    async fn no_doc(s: Scenario) -> harshjudge::Result {
        step!("Check the title", {
            harshjudge::ensure!(s.title() == "no_doc", "title: {}", s.title());
        });
        Ok(())
    }
}

harshjudge::main!();
