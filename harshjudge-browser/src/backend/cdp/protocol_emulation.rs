//! The part of [`super`] (the typed DevTools protocol) for emulation
//! (`emulate.rs`): the `Emulation` domain's overrides, the network's
//! conditions and extra headers, the browser context's permissions, and
//! HTTP authentication answered through `Fetch`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{BrowserContextId, Command, Empty, Event};

/// `Emulation.setLocaleOverride`: none resets it.
#[derive(Debug, Serialize)]
pub(crate) struct SetLocaleOverride<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) locale: Option<&'a str>,
}
command!(SetLocaleOverride<'a>, "Emulation.setLocaleOverride", Empty);

/// `Emulation.setTimezoneOverride`: `""` resets it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetTimezoneOverride<'a> {
    pub(crate) timezone_id: &'a str,
}
command!(
    SetTimezoneOverride<'a>,
    "Emulation.setTimezoneOverride",
    Empty
);

/// `Emulation.setGeolocationOverride`.
#[derive(Debug, Serialize)]
pub(crate) struct SetGeolocationOverride {
    pub(crate) latitude: f64,
    pub(crate) longitude: f64,
    pub(crate) accuracy: f64,
}
command!(
    SetGeolocationOverride,
    "Emulation.setGeolocationOverride",
    Empty
);

/// `Emulation.clearGeolocationOverride`.
#[derive(Debug, Default, Serialize)]
pub(crate) struct ClearGeolocationOverride {}
command!(
    ClearGeolocationOverride,
    "Emulation.clearGeolocationOverride",
    Empty
);

/// A media feature's emulated value (`""`: the browser's own).
#[derive(Debug, Serialize)]
pub(crate) struct MediaFeature<'a> {
    pub(crate) name: &'a str,
    pub(crate) value: &'a str,
}

/// `Emulation.setEmulatedMedia`.
#[derive(Debug, Serialize)]
pub(crate) struct SetEmulatedMedia<'a> {
    /// `""`: the media type unchanged.
    pub(crate) media: &'a str,
    pub(crate) features: Vec<MediaFeature<'a>>,
}
command!(SetEmulatedMedia<'a>, "Emulation.setEmulatedMedia", Empty);

/// `Emulation.setUserAgentOverride`: the user agent and `Accept-Language`
/// (and `navigator.language`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetUserAgentOverride {
    pub(crate) user_agent: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) accept_language: Option<String>,
}
command!(
    SetUserAgentOverride,
    "Emulation.setUserAgentOverride",
    Empty
);

/// `Emulation.setTouchEmulationEnabled`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetTouchEmulationEnabled {
    pub(crate) enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) max_touch_points: Option<u32>,
}
command!(
    SetTouchEmulationEnabled,
    "Emulation.setTouchEmulationEnabled",
    Empty
);

/// `Emulation.setScriptExecutionDisabled`.
#[derive(Debug, Serialize)]
pub(crate) struct SetScriptExecutionDisabled {
    pub(crate) value: bool,
}
command!(
    SetScriptExecutionDisabled,
    "Emulation.setScriptExecutionDisabled",
    Empty
);

/// `Network.emulateNetworkConditions`: offline, or no limit (`-1`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EmulateNetworkConditions {
    pub(crate) offline: bool,
    pub(crate) latency: f64,
    pub(crate) download_throughput: f64,
    pub(crate) upload_throughput: f64,
}
command!(
    EmulateNetworkConditions,
    "Network.emulateNetworkConditions",
    Empty
);

/// `Network.setExtraHTTPHeaders` (a name given twice: its values joined
/// with `, `).
#[derive(Debug, Serialize)]
pub(crate) struct SetExtraHttpHeaders {
    pub(crate) headers: BTreeMap<String, String>,
}
command!(SetExtraHttpHeaders, "Network.setExtraHTTPHeaders", Empty);

/// `Browser.grantPermissions`, to every origin of the context.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GrantPermissions<'a> {
    pub(crate) permissions: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) browser_context_id: Option<&'a BrowserContextId>,
}
command!(GrantPermissions<'a>, "Browser.grantPermissions", Empty);

/// `Browser.resetPermissions`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResetPermissions<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) browser_context_id: Option<&'a BrowserContextId>,
}
command!(ResetPermissions<'a>, "Browser.resetPermissions", Empty);

/// `Fetch.authRequired`: a request met an authentication challenge.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AuthRequired {
    pub(crate) request_id: String,
    pub(crate) auth_challenge: AuthChallenge,
}
event!(AuthRequired, "Fetch.authRequired");

/// The challenge of an [`AuthRequired`].
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct AuthChallenge {
    /// The origin of the server (or proxy) asking.
    #[serde(default)]
    pub(crate) origin: String,
}

/// How an [`AuthRequired`] is answered.
#[derive(Debug, Serialize)]
pub(crate) struct AuthChallengeResponse<'a> {
    /// `Default`, `CancelAuth` or `ProvideCredentials`.
    pub(crate) response: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) username: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) password: Option<&'a str>,
}

/// `Fetch.continueWithAuth`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContinueWithAuth<'a> {
    pub(crate) request_id: &'a str,
    pub(crate) auth_challenge_response: AuthChallengeResponse<'a>,
}
command!(ContinueWithAuth<'a>, "Fetch.continueWithAuth", Empty);
