//! A page's [`Emulation`] over the DevTools protocol, as Playwright's
//! `crPage.ts` applies a context's options to each of its pages: the
//! `Emulation` domain (locale, time zone, geolocation, media features, user
//! agent with `Accept-Language`, device metrics, touch, scripts off), the
//! network's conditions (offline) and extra headers, the context's
//! permissions (`Browser.grantPermissions`), and HTTP credentials answered
//! through `Fetch.authRequired` (`intercept.rs`: `Fetch` hands each page's
//! challenges over always, and pauses its requests while it has a route).
//!
//! Only what differs from what the page had is sent ([`emulate`]): a page
//! opens with none of it (`backend.rs` applies its own), a popup with its
//! context's before it runs (`page.rs`). The challenges are `auth.rs`'s.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use super::connection::{CdpError, Connection};
use super::protocol::{
    BrowserContextId, ClearGeolocationOverride, Command, EmulateNetworkConditions, GetVersion,
    GrantPermissions, MediaFeature, ResetPermissions, RunIfWaitingForDebugger, SessionId,
    SetDeviceMetricsOverride, SetEmulatedMedia, SetExtraHttpHeaders, SetGeolocationOverride,
    SetLocaleOverride, SetScriptExecutionDisabled, SetTimezoneOverride, SetTouchEmulationEnabled,
    SetUserAgentOverride,
};
use super::readers::Shared;
use crate::emulation::{Emulation, Permission};
use crate::error::BrowserError;

/// An option the browser refused: which, its value, what it said.
#[derive(Debug, thiserror::Error)]
#[error("emulating {option} {value} on Chromium: {error}")]
pub(crate) struct EmulateError {
    pub(crate) option: &'static str,
    pub(crate) value: String,
    #[source]
    pub(crate) error: CdpError,
}

impl From<EmulateError> for BrowserError {
    fn from(e: EmulateError) -> Self {
        match e.error {
            lost @ CdpError::Lost { .. } => lost.into(),
            CdpError::Protocol { message, .. } => BrowserError::Command {
                action: format!("emulating {} {} on Chromium", e.option, e.value),
                message: format!("the browser refused it: {message}"),
            },
            other => BrowserError::Command {
                action: format!("emulating {} {} on Chromium", e.option, e.value),
                message: other.to_string(),
            },
        }
    }
}

/// The DevTools name of a permission (`Browser.PermissionType`).
fn permission_type(p: Permission) -> &'static str {
    match p {
        Permission::Geolocation => "geolocation",
        Permission::Notifications => "notifications",
        Permission::Camera => "videoCapture",
        Permission::Microphone => "audioCapture",
        Permission::ClipboardRead => "clipboardReadWrite",
        Permission::ClipboardWrite => "clipboardSanitizedWrite",
        Permission::Midi => "midi",
        Permission::MidiSysex => "midiSysex",
        Permission::BackgroundSync => "backgroundSync",
        Permission::Accelerometer
        | Permission::Gyroscope
        | Permission::Magnetometer
        | Permission::AmbientLightSensor => "sensors",
        Permission::PaymentHandler => "paymentHandler",
        Permission::StorageAccess => "storageAccess",
        Permission::LocalFonts => "localFonts",
    }
}

/// The extra headers as the protocol takes them: one value per name, a
/// name given twice its values joined with `, `.
fn header_map(headers: &[(String, String)]) -> BTreeMap<String, String> {
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in headers {
        map.entry(name.clone())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(value);
            })
            .or_insert_with(|| value.clone());
    }
    map
}

/// One option's command, sent now (in the order of the calls); its answer
/// awaited later, with the others.
type Sent<'a> = Pin<Box<dyn Future<Output = Result<(), EmulateError>> + Send + 'a>>;

fn sent<'a, C: Command + 'a>(
    connection: &'a Connection,
    session: Option<&SessionId>,
    option: &'static str,
    value: impl std::fmt::Debug,
    command: &C,
) -> Sent<'a> {
    let value = format!("{value:?}");
    let answer = connection.send(session, command);
    Box::pin(async move {
        answer.await.map(drop).map_err(|error| EmulateError {
            option,
            value,
            error,
        })
    })
}

/// A page's session as [`emulate`] needs it (a popup's before its
/// `CdpPage` exists).
pub(super) struct Target<'a> {
    pub(super) connection: &'a Connection,
    pub(super) session: &'a SessionId,
    pub(super) shared: &'a Shared,
}

/// Sends what differs between `previous` (what the page has) and `wanted`,
/// every command at once, then awaits their answers; `viewport` is the
/// page's (a device's replaces it), `context` its browser context for the
/// permissions (none: a popup, whose context has them already). `run`: a
/// target paused at its start (a popup), let run once the commands are sent
/// (its first document has them; a paused renderer answers some commands,
/// its init's among them, only once it runs). The credentials only change
/// what challenges are answered: `Fetch` hands them over always.
pub(super) async fn emulate<'a>(
    target: Target<'a>,
    previous: &Emulation,
    wanted: &'a Emulation,
    viewport: (u32, u32),
    context: Option<&'a BrowserContextId>,
    run: bool,
) -> Result<(), EmulateError> {
    let Target {
        connection: c,
        session,
        shared,
    } = target;
    let s = Some(session);
    // The user agent `Accept-Language` goes with: the browser's own
    // when only the locale is emulated (asked of the browser, not the page).
    let user_agent = if (wanted.locale != previous.locale
        || wanted.user_agent != previous.user_agent)
        && (wanted.locale.is_some() || wanted.user_agent.is_some() || previous.user_agent.is_some())
    {
        Some(match &wanted.user_agent {
            Some(ua) => ua.clone(),
            None => {
                c.send(None, &GetVersion {})
                    .await
                    .map_err(|error| EmulateError {
                        option: "user_agent",
                        value: "(the browser's own)".into(),
                        error,
                    })?
                    .user_agent
            }
        })
    } else {
        None
    };
    let mut all: Vec<Sent<'a>> = Vec::new();
    if wanted.locale != previous.locale {
        let locale = wanted.locale.as_deref();
        all.push(sent(c, s, "locale", locale, &SetLocaleOverride { locale }));
    }
    if let Some(user_agent) = user_agent {
        let set = SetUserAgentOverride {
            user_agent: user_agent.clone(),
            accept_language: wanted.locale.clone(),
        };
        all.push(sent(c, s, "user_agent", user_agent, &set));
    }
    if wanted.timezone_id != previous.timezone_id {
        let timezone_id = wanted.timezone_id.as_deref().unwrap_or("");
        let set = SetTimezoneOverride { timezone_id };
        all.push(sent(c, s, "timezone_id", timezone_id, &set));
    }
    if wanted.geolocation != previous.geolocation {
        all.push(match wanted.geolocation {
            Some(g) => {
                let set = SetGeolocationOverride {
                    latitude: g.latitude,
                    longitude: g.longitude,
                    accuracy: g.accuracy,
                };
                sent(c, s, "geolocation", g, &set)
            }
            None => sent(c, s, "geolocation", "none", &ClearGeolocationOverride {}),
        });
    }
    if wanted.color_scheme != previous.color_scheme
        || wanted.reduced_motion != previous.reduced_motion
    {
        let set = SetEmulatedMedia {
            media: "",
            features: vec![
                MediaFeature {
                    name: "prefers-color-scheme",
                    value: wanted.color_scheme.map_or("", |c| c.name()),
                },
                MediaFeature {
                    name: "prefers-reduced-motion",
                    value: wanted.reduced_motion.map_or("", |r| r.name()),
                },
            ],
        };
        let value = (wanted.color_scheme, wanted.reduced_motion);
        all.push(sent(c, s, "color_scheme and reduced_motion", value, &set));
    }
    if wanted.offline != previous.offline {
        let set = EmulateNetworkConditions {
            offline: wanted.offline,
            latency: 0.0,
            download_throughput: -1.0,
            upload_throughput: -1.0,
        };
        all.push(sent(c, s, "offline", wanted.offline, &set));
    }
    if wanted.extra_http_headers != previous.extra_http_headers {
        let headers = header_map(&wanted.extra_http_headers);
        let names: Vec<String> = headers.keys().cloned().collect();
        let set = SetExtraHttpHeaders { headers };
        all.push(sent(c, s, "extra_http_headers", names, &set));
    }
    if wanted.javascript_enabled != previous.javascript_enabled {
        let value = wanted.javascript_enabled == Some(false);
        let set = SetScriptExecutionDisabled { value };
        all.push(sent(c, s, "javascript_enabled", !value, &set));
    }
    if wanted.viewport != previous.viewport
        || wanted.device_scale_factor != previous.device_scale_factor
        || wanted.is_mobile != previous.is_mobile
    {
        let size = wanted.viewport.unwrap_or(viewport);
        let set = metrics(wanted, size);
        all.push(sent(c, s, "viewport", size, &set));
    }
    if wanted.has_touch != previous.has_touch {
        let set = SetTouchEmulationEnabled {
            enabled: wanted.has_touch,
            max_touch_points: wanted.has_touch.then_some(1),
        };
        all.push(sent(c, s, "has_touch", wanted.has_touch, &set));
    }
    if let Some(context) = context
        && wanted.permissions != previous.permissions
    {
        let id = Some(context);
        let reset = ResetPermissions {
            browser_context_id: id,
        };
        all.push(sent(c, None, "grant_permissions", "none", &reset));
        if !wanted.permissions.is_empty() {
            let mut permissions: Vec<&'static str> = wanted
                .permissions
                .iter()
                .map(|p| permission_type(*p))
                .collect();
            permissions.sort_unstable();
            permissions.dedup();
            let grant = GrantPermissions {
                permissions,
                browser_context_id: id,
            };
            all.push(sent(
                c,
                None,
                "grant_permissions",
                &wanted.permissions,
                &grant,
            ));
        }
    }
    let credentials = wanted.http_credentials != previous.http_credentials;
    if credentials {
        shared.auth.set(wanted.http_credentials.clone());
    }
    if run {
        all.push(sent(
            c,
            s,
            "(letting the page run)",
            (),
            &RunIfWaitingForDebugger {},
        ));
    }
    for answer in futures_util::future::join_all(all).await {
        answer?;
    }
    Ok(())
}

/// The device metrics of `emulation` at `size`.
pub(super) fn metrics(
    emulation: &Emulation,
    (width, height): (u32, u32),
) -> SetDeviceMetricsOverride {
    SetDeviceMetricsOverride {
        width,
        height,
        device_scale_factor: emulation.device_scale_factor.unwrap_or(1.0),
        mobile: emulation.is_mobile,
    }
}

#[cfg(test)]
#[path = "emulate_tests.rs"]
mod tests;
