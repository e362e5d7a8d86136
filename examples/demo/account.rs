//! The signed-in part of the demo app: a setup scenario signs Ada in once and
//! saves the login; the scenarios that need it start signed in, in the browser
//! and in `s.request()`.
//!
//! `DEMO_LOGIN_EACH=1` makes each of them sign in through the login form as
//! well, as a suite without a saved login would: the guide's measure of what
//! the saved login saves (docs/src/speed.md, "A saved login and one server").

use harshjudge::regex::Regex;
use harshjudge::serde_json::json;
use harshjudge::{Page, Scenario, expect, scenario, step};

/// Signs in through the login form on `page`, as a person would.
async fn sign_in(page: &Page, email: &str, password: &str) -> harshjudge::Result {
    page.goto("/login?next=/account").await?;
    page.get_by_label("Email").fill(email).await?;
    page.get_by_label("Password").fill(password).await?;
    page.get_by_role("button").name("Sign in").click().await?;
    expect(page).to_have_url(Regex::new("/account$")?).await?;
    Ok(())
}

/// The scenario's page, signed in as Ada: by the saved login, and with
/// `DEMO_LOGIN_EACH=1` through the form too.
async fn ada(s: &Scenario) -> harshjudge::Result<Page> {
    let page = s.page().await?;
    if std::env::var_os("DEMO_LOGIN_EACH").is_some() {
        sign_in(&page, "ada@example.com", "secret").await?;
    }
    Ok(page)
}

/// Ada signs in once; her login is saved for the scenarios below.
#[scenario(setup, tags = ["web", "account"])]
async fn signed_in_as_ada(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Sign in through the form", {
        sign_in(&page, "ada@example.com", "secret").await?;
    });
    step!("Save the login", {
        page.save_storage_state("ada").await?;
    });
    Ok(())
}

/// The account page knows Ada without a login form.
#[scenario(storage_state = "ada", depends_on = [signed_in_as_ada], tags = ["web", "account", "smoke"])]
async fn account_page(s: Scenario) -> harshjudge::Result {
    let page = ada(&s).await?;
    step!("Open the account page signed in", {
        page.goto("/account").await?;
        expect(&page.get_by_role("heading").level(1))
            .to_have_text("Your account")
            .await?;
        expect(&page.get_by_test_id("signed-in-as"))
            .to_have_text("Signed in as Ada (ada@example.com)")
            .await?;
    });
    Ok(())
}

/// The API answers for Ada with the saved login's cookie, and for no one without it.
#[scenario(storage_state = "ada", depends_on = [signed_in_as_ada], tags = ["api", "account"])]
async fn account_api(s: Scenario) -> harshjudge::Result {
    ada(&s).await?;
    step!("Who am I, with the saved login", {
        let me = s.request().get("/api/me").send().await?;
        expect(&me).to_be_ok().await?;
        expect(&me)
            .to_have_json(json!({"name": "Ada", "email": "ada@example.com"}))
            .await?;
    });
    step!("Who am I, without it", {
        let anonymous = s
            .request()
            .with_cookies(harshjudge::api::CookieJar::new())
            .get("/api/me")
            .send()
            .await?;
        expect(&anonymous).to_have_status(401).await?;
    });
    Ok(())
}

/// Signing in through the API works for each account (a scenario per case).
#[scenario(tags = ["api", "account"])]
#[case::ada("ada@example.com", "secret", "Ada")]
#[case::grace("grace@example.com", "hopper", "Grace")]
async fn api_sign_in(s: Scenario, email: &str, password: &str, name: &str) -> harshjudge::Result {
    step!("Sign in and ask who I am", {
        let api = s.request();
        let login = api
            .post("/api/login")
            .json(&json!({"email": email, "password": password}))
            .send()
            .await?;
        expect(&login).to_be_ok().await?;
        let me = api.get("/api/me").send().await?;
        expect(&me).to_have_json(json!({"name": name})).await?;
    });
    Ok(())
}

/// The demo app's CLI greets, through `s.command()`.
#[scenario(tags = ["cli", "smoke"])]
async fn cli_command(s: Scenario) -> harshjudge::Result {
    step!("Greet Grace", {
        let out = s
            .command(env!("CARGO_BIN_EXE_demo-cli"))
            .args(["greet", "Grace"])
            .run()
            .await?;
        expect(&out).to_succeed().await?;
        expect(&out).to_have_stdout("Hello, Grace!").await?;
    });
    Ok(())
}
