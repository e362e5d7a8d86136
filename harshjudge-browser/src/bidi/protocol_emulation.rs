//! The WebDriver BiDi commands of a page's emulation (`backend/bidi/emulate.rs`),
//! typed as [`super::protocol`]'s: the `emulation` module's overrides (each
//! for the page's user context, so that its popups have them too; `null`
//! resets one), `network.setExtraHeaders`, `permissions.setPermission`, and
//! `browsingContext.setViewport` with a device pixel ratio.

use serde::Serialize;
use serde::de::IgnoredAny;

use super::protocol::{Empty, Header, command};

command!(SetLocaleOverride<'a>, "emulation.setLocaleOverride", Empty);
command!(
    SetTimezoneOverride<'a>,
    "emulation.setTimezoneOverride",
    Empty
);
command!(
    SetGeolocationOverride<'a>,
    "emulation.setGeolocationOverride",
    Empty
);
command!(
    SetUserAgentOverride<'a>,
    "emulation.setUserAgentOverride",
    Empty
);
command!(
    SetScriptingEnabled<'a>,
    "emulation.setScriptingEnabled",
    Empty
);
command!(
    SetNetworkConditions<'a>,
    "emulation.setNetworkConditions",
    Empty
);
command!(SetExtraHeaders<'a>, "network.setExtraHeaders", Empty);
command!(SetPermission<'a>, "permissions.setPermission", Empty);
command!(SetDeviceViewport<'a>, "browsingContext.setViewport", Empty);
command!(ContinueWithAuth<'a>, "network.continueWithAuth", IgnoredAny);

/// `emulation.setLocaleOverride` (`null`: the browser's own).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetLocaleOverride<'a> {
    pub(crate) locale: Option<&'a str>,
    pub(crate) user_contexts: [&'a str; 1],
}

/// `emulation.setTimezoneOverride` (`null`: the browser's own).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetTimezoneOverride<'a> {
    pub(crate) timezone: Option<&'a str>,
    pub(crate) user_contexts: [&'a str; 1],
}

/// A position, as `emulation.setGeolocationOverride` takes it.
#[derive(Debug, Serialize)]
pub(crate) struct Coordinates {
    pub(crate) latitude: f64,
    pub(crate) longitude: f64,
    pub(crate) accuracy: f64,
}

/// `emulation.setGeolocationOverride` (`null`: the browser's own).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetGeolocationOverride<'a> {
    pub(crate) coordinates: Option<Coordinates>,
    pub(crate) user_contexts: [&'a str; 1],
}

/// `emulation.setUserAgentOverride` (`null`: the browser's own).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetUserAgentOverride<'a> {
    pub(crate) user_agent: Option<&'a str>,
    pub(crate) user_contexts: [&'a str; 1],
}

/// `emulation.setScriptingEnabled`: `false`, or `null` (the browser's own).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetScriptingEnabled<'a> {
    pub(crate) enabled: Option<bool>,
    pub(crate) user_contexts: [&'a str; 1],
}

/// The network's conditions: `offline`, the one kind BiDi has.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum NetworkConditions {
    Offline,
}

/// `emulation.setNetworkConditions` (`null`: the network as it is).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetNetworkConditions<'a> {
    pub(crate) network_conditions: Option<NetworkConditions>,
    pub(crate) user_contexts: [&'a str; 1],
}

/// `network.setExtraHeaders` (none: no extra header).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetExtraHeaders<'a> {
    pub(crate) headers: Vec<Header>,
    pub(crate) user_contexts: [&'a str; 1],
}

/// A permission by its Permissions API name.
#[derive(Debug, Serialize)]
pub(crate) struct PermissionDescriptor {
    pub(crate) name: &'static str,
}

/// `permissions.setPermission` for one origin.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetPermission<'a> {
    pub(crate) descriptor: PermissionDescriptor,
    /// `granted` or `prompt` (the default, for one no longer granted).
    pub(crate) state: &'static str,
    pub(crate) origin: &'a str,
    pub(crate) user_context: &'a str,
}

/// `browsingContext.setViewport` with the device pixel ratio (`null`: the
/// screen's).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetDeviceViewport<'a> {
    pub(crate) context: &'a str,
    pub(crate) viewport: super::protocol::Viewport,
    pub(crate) device_pixel_ratio: Option<f64>,
}

/// The credentials of `network.continueWithAuth`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum AuthCredentials<'a> {
    Password {
        username: &'a str,
        password: &'a str,
    },
}

/// `network.continueWithAuth`: `provideCredentials` (with them), `cancel`
/// or `default`.
#[derive(Debug, Serialize)]
pub(crate) struct ContinueWithAuth<'a> {
    pub(crate) request: &'a str,
    pub(crate) action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) credentials: Option<AuthCredentials<'a>>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_reset_is_null_and_the_user_context_is_named() {
        let reset = SetTimezoneOverride {
            timezone: None,
            user_contexts: ["u"],
        };
        assert_eq!(
            serde_json::to_value(reset).unwrap(),
            json!({"timezone": null, "userContexts": ["u"]})
        );
        let offline = SetNetworkConditions {
            network_conditions: Some(NetworkConditions::Offline),
            user_contexts: ["u"],
        };
        assert_eq!(
            serde_json::to_value(offline).unwrap(),
            json!({"networkConditions": {"type": "offline"}, "userContexts": ["u"]})
        );
    }
}
