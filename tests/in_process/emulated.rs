//! Issue 41: a scenario's `#[scenario(locale = …, timezone_id = …, …)]`
//! reaches its pages, what the page's script reads and what its requests
//! carry; `s.page_with(…)` gives one page other options; and nothing of it
//! stays with the session the next scenario of the process gets. Run against
//! the demo app's `/device` page, on Chromium and Firefox.

use std::sync::OnceLock;

use harshjudge::browser::Emulation;
use harshjudge::{Scenario, expect, scenario, step};

use crate::support;

#[scenario(
    locale = "de-DE",
    timezone_id = "Asia/Tokyo",
    extra_http_headers = [("X-Tenant", "acme")],
)]
async fn emulation_a_in_tokyo(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!(
        "The page and its requests see the scenario's locale, zone, scheme and header",
        {
            page.goto("/device").await?;
            let id = |t: &str| page.get_by_test_id(t);
            expect(&id("language")).to_have_text("de-DE").await?;
            expect(&id("time-zone")).to_have_text("Asia/Tokyo").await?;
            expect(&id("number")).to_have_text("1.234,5").await?;
            expect(&id("request-x-tenant")).to_have_text("acme").await?;
            expect(&id("request-accept-language"))
                .to_contain_text("de")
                .await?;
        }
    );
    step!("A page of its own with other options, beside the first", {
        let other = s.page_with(Emulation::new().locale("fr-FR")).await?;
        other.goto("/device").await?;
        let id = |t: &str| other.get_by_test_id(t);
        expect(&id("language")).to_have_text("fr-FR").await?;
        expect(&id("request-x-tenant"))
            .to_have_text("(none)")
            .await?;
        expect(&id("color-scheme")).to_have_text("light").await?;
        // The first page keeps its own.
        page.reload().await?;
        expect(&page.get_by_test_id("language"))
            .to_have_text("de-DE")
            .await?;
    });
    Ok(())
}

/// Runs after the emulated one in the same process (names sort so): its page
/// comes from the same pool and has none of that emulation.
#[scenario]
async fn emulation_b_plain(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Nothing of the last scenario's emulation is left", {
        page.goto("/device").await?;
        let id = |t: &str| page.get_by_test_id(t);
        expect(&id("language")).not().to_have_text("de-DE").await?;
        expect(&id("time-zone"))
            .not()
            .to_have_text("Asia/Tokyo")
            .await?;
        expect(&id("color-scheme")).to_have_text("light").await?;
        expect(&id("request-x-tenant"))
            .to_have_text("(none)")
            .await?;
    });
    Ok(())
}

/// A phone of the device table (its viewport, scale, touch and user agent),
/// in dark mode (Chromium: Firefox has no mobile emulation).
#[scenario(device = "Pixel 7", color_scheme = "dark")]
async fn on_a_phone_by_emulation(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("The page is laid out as on the phone", {
        page.goto("/device").await?;
        let id = |t: &str| page.get_by_test_id(t);
        expect(&id("viewport"))
            .to_have_text("412x839@2.625")
            .await?;
        expect(&id("touch")).to_have_text("true").await?;
        expect(&id("user-agent")).to_contain_text("Pixel 7").await?;
        expect(&id("request-user-agent"))
            .to_contain_text("Pixel 7")
            .await?;
        expect(&id("color-scheme")).to_have_text("dark").await?;
    });
    Ok(())
}

fn runs() -> &'static support::InProcessRuns {
    static RUNS: OnceLock<support::InProcessRuns> = OnceLock::new();
    RUNS.get_or_init(|| {
        let base = demo_app::start_in_background().expect("demo app");
        support::InProcessRuns::run(
            "emulated",
            &base,
            &[
                ("chromium", &["emulation_", "on_a_phone_by_emulation"]),
                ("firefox", &["emulation_"]),
            ],
        )
    })
}

/// Every fact of the runs above, checked in one test (`support::facts`).
#[test]
fn a_scenarios_emulation_reaches_its_pages_and_no_other() {
    support::facts(&[
        ("chromium: locale, zone, header, page_with", || {
            runs().passed("emulation-a-in-tokyo-chromium", "chromium", "emulation_");
        }),
        ("chromium: the next scenario has none of it", || {
            runs().passed("emulation-b-plain-chromium", "chromium", "emulation_");
        }),
        ("chromium: a device in dark mode", || {
            runs().passed(
                "on-a-phone-by-emulation-chromium",
                "chromium",
                "on_a_phone_by_emulation",
            );
        }),
        ("firefox: locale, zone, header, page_with", || {
            runs().passed("emulation-a-in-tokyo-firefox", "firefox", "emulation_");
        }),
        ("firefox: the next scenario has none of it", || {
            runs().passed("emulation-b-plain-firefox", "firefox", "emulation_");
        }),
    ]);
}
