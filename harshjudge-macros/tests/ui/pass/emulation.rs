#![deny(warnings)]

use harshjudge::browser::{ColorScheme, Permission, ReducedMotion};
use harshjudge::{scenario, step, Scenario};

#[scenario(
    device = "Pixel 7",
    locale = "de-DE",
    timezone_id = "Europe/Berlin",
    geolocation = (52.52, -13.405, 25),
    grant_permissions = ["geolocation", "clipboard-read"],
    color_scheme = "dark",
    reduced_motion = "reduce",
    offline = true,
    user_agent = "HarshBot/1.0",
    extra_http_headers = [("X-Tenant", "acme"), ("X-Trace", "1")],
    http_credentials = ("admin", String::from("pw-") + "from-code"),
    javascript_enabled = false,
)]
async fn on_a_phone_in_berlin(_s: Scenario) -> harshjudge::Result {
    step!("Reads its emulation", {
        let def = harshjudge::__private::inventory::iter::<harshjudge::__private::ScenarioDef>
            .into_iter()
            .find(|d| d.fn_name == "on_a_phone_in_berlin")
            .expect("registered");
        let e = (def.emulation.expect("an emulation"))();
        harshjudge::ensure!(e.viewport == Some((412, 839)), "device viewport: {:?}", e.viewport);
        harshjudge::ensure!(e.is_mobile && e.has_touch, "device flags");
        // `user_agent` is over the device's.
        harshjudge::ensure!(e.user_agent.as_deref() == Some("HarshBot/1.0"), "{:?}", e.user_agent);
        harshjudge::ensure!(e.locale.as_deref() == Some("de-DE"), "{:?}", e.locale);
        harshjudge::ensure!(e.timezone_id.as_deref() == Some("Europe/Berlin"), "{:?}", e.timezone_id);
        let g = e.geolocation.expect("geolocation");
        harshjudge::ensure!((g.latitude, g.longitude, g.accuracy) == (52.52, -13.405, 25.0), "{g:?}");
        harshjudge::ensure!(
            e.permissions == [Permission::Geolocation, Permission::ClipboardRead],
            "{:?}",
            e.permissions
        );
        harshjudge::ensure!(e.color_scheme == Some(ColorScheme::Dark), "color scheme");
        harshjudge::ensure!(e.reduced_motion == Some(ReducedMotion::Reduce), "motion");
        harshjudge::ensure!(e.offline, "offline");
        harshjudge::ensure!(e.extra_http_headers.len() == 2, "{:?}", e.extra_http_headers);
        let c = e.http_credentials.as_ref().expect("credentials");
        harshjudge::ensure!(c.username == "admin" && c.password == "pw-from-code", "credentials");
        harshjudge::ensure!(e.javascript_enabled == Some(false), "js");
        e.validate()?;
    });
    Ok(())
}

#[scenario]
async fn without_emulation(_s: Scenario) -> harshjudge::Result {
    step!("Has none", {
        let def = harshjudge::__private::inventory::iter::<harshjudge::__private::ScenarioDef>
            .into_iter()
            .find(|d| d.fn_name == "without_emulation")
            .expect("registered");
        harshjudge::ensure!(def.emulation.is_none(), "no emulation");
    });
    Ok(())
}

harshjudge::main!();
