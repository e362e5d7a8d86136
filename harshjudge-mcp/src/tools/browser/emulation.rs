//! `browser_launch`'s emulation options (issue 41 point 7): the device, place
//! and time of the agent's browser, by Playwright's option names
//! (`locale`, `timezoneId`, `geolocation`, `permissions`, `colorScheme`,
//! `reducedMotion`, `offline`, `userAgent`, `extraHTTPHeaders`,
//! `httpCredentials`, `javaScriptEnabled`, `device`), turned into one
//! [`Emulation`]; and what a recording keeps of them (never the password)
//! and exports (the `#[scenario(…)]` arguments).

use std::collections::BTreeMap;

use harshjudge_browser::{ColorScheme, Emulation, Geolocation, Permission, ReducedMotion};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::error::ToolError;

/// The emulation fields of `browser_launch`, flattened into its arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LaunchEmulation {
    /// A device of harshjudge's table (`iPhone 15`, `Pixel 7`, `iPad Pro 11`,
    /// `Desktop Chrome`, …): its viewport, scale, touch, mobile flag and user
    /// agent; the other options go over it.
    #[serde(default)]
    pub device: Option<String>,
    /// `navigator.language`, `Intl`, `Accept-Language` (BCP 47: `de-DE`).
    #[serde(default)]
    pub locale: Option<String>,
    /// The time zone (IANA: `Europe/Berlin`).
    #[serde(default)]
    pub timezone_id: Option<String>,
    /// Where the device is; the page reads it with the `geolocation` permission.
    #[serde(default)]
    pub geolocation: Option<GeolocationArg>,
    /// Permissions granted (`geolocation`, `notifications`, `clipboard-read`, …).
    #[serde(default)]
    pub permissions: Option<Vec<String>>,
    /// `light`, `dark` or `no-preference`.
    #[serde(default)]
    pub color_scheme: Option<String>,
    /// `reduce` or `no-preference`.
    #[serde(default)]
    pub reduced_motion: Option<String>,
    /// The network is down.
    #[serde(default)]
    pub offline: Option<bool>,
    /// `navigator.userAgent` and the `User-Agent` header.
    #[serde(default)]
    pub user_agent: Option<String>,
    /// Headers every request carries.
    #[serde(default, rename = "extraHTTPHeaders")]
    pub extra_http_headers: Option<BTreeMap<String, String>>,
    /// HTTP authentication's answer. A recording never keeps the password.
    #[serde(default)]
    pub http_credentials: Option<CredentialsArg>,
    /// `false`: the page's scripts do not run.
    #[serde(default, rename = "javaScriptEnabled")]
    pub javascript_enabled: Option<bool>,
}

/// `geolocation`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GeolocationArg {
    /// −90 to 90.
    pub latitude: f64,
    /// −180 to 180.
    pub longitude: f64,
    /// Metres (default 0).
    #[serde(default)]
    pub accuracy: Option<f64>,
}

/// `httpCredentials`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CredentialsArg {
    /// The user name.
    pub username: String,
    /// The password.
    pub password: String,
    /// Only this origin's challenges are answered (`http://127.0.0.1:8001`).
    #[serde(default)]
    pub origin: Option<String>,
}

impl LaunchEmulation {
    /// The [`Emulation`] these options ask for, checked: an error names the
    /// option and the accepted forms.
    pub fn to_emulation(&self) -> Result<Emulation, ToolError> {
        let bad = |e: harshjudge_browser::EmulationError| ToolError::invalid(e.to_string());
        let mut e = match &self.device {
            Some(d) => Emulation::device(d).map_err(bad)?,
            None => Emulation::new(),
        };
        if let Some(l) = &self.locale {
            e = e.locale(l);
        }
        if let Some(t) = &self.timezone_id {
            e = e.timezone_id(t);
        }
        if let Some(g) = &self.geolocation {
            e.geolocation = Some(Geolocation {
                latitude: g.latitude,
                longitude: g.longitude,
                accuracy: g.accuracy.unwrap_or(0.0),
            });
        }
        if let Some(ps) = &self.permissions {
            let ps: Vec<Permission> = ps
                .iter()
                .map(|p| p.parse::<Permission>())
                .collect::<Result<_, _>>()
                .map_err(bad)?;
            e = e.grant_permissions(ps);
        }
        if let Some(c) = &self.color_scheme {
            e = e.color_scheme(c.parse::<ColorScheme>().map_err(bad)?);
        }
        if let Some(m) = &self.reduced_motion {
            e = e.reduced_motion(m.parse::<ReducedMotion>().map_err(bad)?);
        }
        if let Some(o) = self.offline {
            e = e.offline(o);
        }
        if let Some(ua) = &self.user_agent {
            e = e.user_agent(ua);
        }
        for (k, v) in self.extra_http_headers.iter().flatten() {
            e = e.extra_http_header(k, v);
        }
        if let Some(c) = &self.http_credentials {
            e = e.http_credentials(&c.username, &c.password);
            if let Some(h) = e.http_credentials.as_mut() {
                h.origin = c.origin.clone();
            }
        }
        if let Some(j) = self.javascript_enabled {
            e = e.javascript_enabled(j);
        }
        e.validate().map_err(bad)?;
        Ok(e)
    }
}

/// Every argument of `browser_launch`, for its error on another.
pub const LAUNCH_ARGUMENTS: &str = "baseUrl, width, height, browser, device, locale, timezoneId, geolocation, permissions, colorScheme, reducedMotion, offline, userAgent, extraHTTPHeaders, httpCredentials, javaScriptEnabled";

/// What a recording keeps of `browser_launch`'s password: this placeholder,
/// a variable `record_replay` asks for, never the password itself.
pub const PASSWORD_VARIABLE: &str = "httpCredentialsPassword";

/// `browser_launch`'s arguments as a recording keeps them: the password of
/// `httpCredentials` replaced by `{{httpCredentialsPassword}}`.
pub fn recordable(args: &Value) -> Value {
    let mut args = args.clone();
    if let Some(p) = args.pointer_mut("/httpCredentials/password") {
        *p = Value::String(format!("{{{{{PASSWORD_VARIABLE}}}}}"));
    }
    args
}

/// The `#[scenario(…)]` arguments of a recorded `browser_launch`'s options,
/// each with a leading `, ` (none when it set none). The password becomes
/// `std::env::var("HTTP_CREDENTIALS_PASSWORD")`: an exported file holds no
/// secret.
pub fn scenario_arguments(args: &Value) -> String {
    let lit = |s: &str| format!("{s:?}");
    let mut out = String::new();
    for (key, attr) in [
        ("device", "device"),
        ("locale", "locale"),
        ("timezoneId", "timezone_id"),
        ("colorScheme", "color_scheme"),
        ("reducedMotion", "reduced_motion"),
        ("userAgent", "user_agent"),
    ] {
        if let Some(v) = args[key].as_str() {
            out.push_str(&format!(", {attr} = {}", lit(v)));
        }
    }
    for (key, attr) in [
        ("offline", "offline"),
        ("javaScriptEnabled", "javascript_enabled"),
    ] {
        if let Some(v) = args[key].as_bool() {
            out.push_str(&format!(", {attr} = {v}"));
        }
    }
    let g = &args["geolocation"];
    if let (Some(lat), Some(lon)) = (g["latitude"].as_f64(), g["longitude"].as_f64()) {
        match g["accuracy"].as_f64() {
            Some(a) => out.push_str(&format!(", geolocation = ({lat:?}, {lon:?}, {a:?})")),
            None => out.push_str(&format!(", geolocation = ({lat:?}, {lon:?})")),
        }
    }
    if let Some(ps) = args["permissions"].as_array() {
        let ps: Vec<String> = ps.iter().filter_map(|p| p.as_str()).map(lit).collect();
        out.push_str(&format!(", grant_permissions = [{}]", ps.join(", ")));
    }
    if let Some(h) = args["extraHTTPHeaders"].as_object() {
        let hs: Vec<String> = h
            .iter()
            .filter_map(|(k, v)| Some(format!("({}, {})", lit(k), lit(v.as_str()?))))
            .collect();
        out.push_str(&format!(", extra_http_headers = [{}]", hs.join(", ")));
    }
    if let Some(u) = args["httpCredentials"]["username"].as_str() {
        out.push_str(&format!(
            ", http_credentials = ({}, std::env::var(\"HTTP_CREDENTIALS_PASSWORD\").unwrap_or_default())",
            lit(u)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(v: Value) -> LaunchEmulation {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn playwrights_names_become_one_checked_emulation() {
        let e = parse(json!({
            "device": "Pixel 7", "locale": "de-DE", "timezoneId": "Europe/Berlin",
            "geolocation": {"latitude": 52.5, "longitude": 13.4},
            "permissions": ["geolocation"], "colorScheme": "dark", "reducedMotion": "reduce",
            "offline": true, "extraHTTPHeaders": {"X-Tenant": "acme"},
            "httpCredentials": {"username": "u", "password": "p", "origin": "http://127.0.0.1:8001"},
            "javaScriptEnabled": false
        }))
        .to_emulation()
        .unwrap();
        assert_eq!(e.viewport, Some((412, 839)));
        assert_eq!(e.locale.as_deref(), Some("de-DE"));
        assert_eq!(e.permissions, [Permission::Geolocation]);
        assert_eq!(e.color_scheme, Some(ColorScheme::Dark));
        assert_eq!(e.extra_http_headers, [("X-Tenant".into(), "acme".into())]);
        assert_eq!(
            e.http_credentials.unwrap().origin.as_deref(),
            Some("http://127.0.0.1:8001")
        );
        assert_eq!(e.javascript_enabled, Some(false));
    }

    #[test]
    fn a_bad_option_is_named_with_its_accepted_forms() {
        for (args, says) in [
            (json!({"device": "Nokia 3310"}), "unknown device"),
            (json!({"locale": "de_DE"}), "BCP 47"),
            (json!({"timezoneId": "Berlin"}), "Europe/Berlin"),
            (
                json!({"permissions": ["location"]}),
                "geolocation, notifications",
            ),
            (json!({"colorScheme": "black"}), "no-preference"),
            (
                json!({"geolocation": {"latitude": 99, "longitude": 0}}),
                "latitude is −90 to 90",
            ),
        ] {
            let err = parse(args.clone()).to_emulation().unwrap_err().to_string();
            assert!(err.contains(says), "{args}: {err}");
        }
        assert!(serde_json::from_value::<LaunchEmulation>(json!({"timezone": "UTC"})).is_err());
    }

    #[test]
    fn a_recording_keeps_no_password_and_the_export_reads_it_from_the_environment() {
        let args = json!({"baseUrl": "http://127.0.0.1:1", "locale": "fr-FR",
            "httpCredentials": {"username": "admin", "password": "s3cret"}});
        let kept = recordable(&args);
        assert!(!kept.to_string().contains("s3cret"), "{kept}");
        assert_eq!(
            kept["httpCredentials"]["password"],
            "{{httpCredentialsPassword}}"
        );
        let attrs = scenario_arguments(&kept);
        assert_eq!(
            attrs,
            ", locale = \"fr-FR\", http_credentials = (\"admin\", std::env::var(\"HTTP_CREDENTIALS_PASSWORD\").unwrap_or_default())"
        );
        assert_eq!(scenario_arguments(&json!({"baseUrl": "x"})), "");
        let attrs =
            scenario_arguments(&json!({"geolocation": {"latitude": 1.5, "longitude": -2.0},
            "permissions": ["geolocation"], "offline": true, "device": "iPhone 15"}));
        assert_eq!(
            attrs,
            ", device = \"iPhone 15\", offline = true, geolocation = (1.5, -2.0), grant_permissions = [\"geolocation\"]"
        );
    }
}

#[cfg(test)]
mod launch_tests {
    use serde_json::json;

    use super::super::actions::Launch;

    #[test]
    fn launch_takes_the_options_beside_its_own_and_refuses_a_misspelt_one() {
        let a: Launch = serde_json::from_value(json!({
            "baseUrl": "http://127.0.0.1:1", "browser": "firefox", "locale": "de-DE"
        }))
        .unwrap();
        assert_eq!(a.emulation.locale.as_deref(), Some("de-DE"));
        assert_eq!(a.browser.as_deref(), Some("firefox"));
        let a: Launch =
            serde_json::from_value(json!({"baseUrl": "x", "timezone": "UTC", "locale": "fr"}))
                .unwrap();
        assert_eq!(a.unknown.keys().collect::<Vec<_>>(), ["timezone"]);
        assert_eq!(a.emulation.locale.as_deref(), Some("fr"));
    }
}
