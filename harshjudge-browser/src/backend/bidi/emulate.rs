//! A BiDi page's [`Emulation`]: the `emulation` module's overrides (locale,
//! time zone, geolocation, user agent, scripting, offline) and
//! `network.setExtraHeaders`, each for the page's user context (a pooled
//! session gives each scenario one, so nothing outlives it, and its popups
//! have them); `permissions.setPermission` for the origin of the page's
//! base URL (the command takes one origin); the viewport and device pixel
//! ratio by `browsingContext.setViewport`; `http_credentials` by an
//! `authRequired` intercept (`bidi/auth.rs`). Firefox's colour scheme and
//! reduced motion are preferences of the session's browser, set when it
//! starts (`BrowserConfig::launch_emulation`; the pool keys sessions by
//! them), so the page starts with them. What BiDi has no command for
//! (those same features changed after opening; `is_mobile`, `has_touch`)
//! is [`BrowserError::Unsupported`], and so is a command the remote end
//! does not know.

use super::BidiPage;
use crate::backend::unsupported::{changed, unsupported};
use crate::bidi::protocol::{BytesValue, Command, Empty, Header, Viewport};
use crate::bidi::protocol_emulation::{
    Coordinates, NetworkConditions, PermissionDescriptor, SetDeviceViewport, SetExtraHeaders,
    SetGeolocationOverride, SetLocaleOverride, SetNetworkConditions, SetPermission,
    SetScriptingEnabled, SetTimezoneOverride, SetUserAgentOverride,
};
use crate::emulation::Emulation;
use crate::error::BrowserError;

/// Why an option has no BiDi command.
fn no_command(option: &str) -> &'static str {
    match option {
        "color_scheme" | "reduced_motion" => {
            "WebDriver BiDi has no command for media features: Firefox takes them as preferences when its session starts (a page opened with `color_scheme` \"light\" or \"dark\", or `reduced_motion`), not after, and has no \"no-preference\" colour scheme; open the page with them, or assert them on Chromium"
        }
        _ => {
            "WebDriver BiDi has no mobile or touch emulation, and Firefox has none at all (as Playwright says of its isMobile); use a device on Chromium over the DevTools protocol (the default) for a phone's layout and touch events"
        }
    }
}

/// `option`'s value in `wanted`, as errors show it (no secret is one).
fn value_of(option: &str, wanted: &Emulation) -> String {
    match option {
        "locale" => format!("{:?}", wanted.locale),
        "timezone_id" => format!("{:?}", wanted.timezone_id),
        "geolocation" => format!("{:?}", wanted.geolocation),
        "grant_permissions" => format!("{:?}", wanted.permissions),
        "offline" => wanted.offline.to_string(),
        "user_agent" => format!("{:?}", wanted.user_agent),
        "extra_http_headers" => {
            let names: Vec<&str> = wanted
                .extra_http_headers
                .iter()
                .map(|(n, _)| n.as_str())
                .collect();
            format!("{names:?}")
        }
        "javascript_enabled" => format!("{:?}", wanted.javascript_enabled),
        // The user's name only: a password never lands in an error.
        "http_credentials" => format!(
            "{:?}",
            wanted.http_credentials.as_ref().map(|c| &c.username)
        ),
        _ => format!("{:?} x{:?}", wanted.viewport, wanted.device_scale_factor),
    }
}

impl BidiPage {
    /// The user context the page's tab lives in (`default`: the first
    /// scenario of a session).
    async fn user_context(&self) -> Result<String, BrowserError> {
        Ok(self
            .tab_user_context()
            .await?
            .unwrap_or_else(|| "default".into()))
    }

    /// One command of `option`: the remote end's refusal named by it, an
    /// unknown command `Unsupported`.
    async fn emulate<C: Command<Returns = Empty>>(
        &self,
        (option, value): (&str, String),
        params: &C,
    ) -> Result<(), BrowserError> {
        let method = C::METHOD;
        match self.bidi.command(params).await {
            Ok(_) => Ok(()),
            Err(BrowserError::Command { message, .. }) if message.contains("unknown command") => {
                Err(unsupported(
                    self.browser,
                    option,
                    &format!(
                        "this browser's WebDriver BiDi has no {method} (it said: {message}); use a newer version, or Chromium (--browser chromium)"
                    ),
                ))
            }
            Err(BrowserError::Command { message, .. }) => Err(BrowserError::Command {
                action: format!("emulating {option} {value} on {} ({method})", self.browser),
                message: format!("the browser refused it: {message}"),
            }),
            Err(e) => Err(e),
        }
    }

    /// See [`crate::backend::PageBackend::apply_emulation`].
    pub(super) async fn apply(&self, wanted: &Emulation, origin: &str) -> Result<(), BrowserError> {
        let previous = self.emulation.lock().expect("emulation lock").clone();
        let options = changed(&previous, wanted);
        if options.is_empty() {
            return Ok(());
        }
        if let Some(option) = options.iter().find(|o| {
            matches!(
                **o,
                "color_scheme" | "reduced_motion" | "is_mobile" | "has_touch"
            )
        }) {
            return Err(unsupported(self.browser, option, no_command(option)));
        }
        let user_context = self.user_context().await?;
        let users = [user_context.as_str()];
        let mut sized = false;
        for option in options {
            match option {
                "locale" => {
                    let set = SetLocaleOverride {
                        locale: wanted.locale.as_deref(),
                        user_contexts: users,
                    };
                    self.emulate((option, value_of(option, wanted)), &set)
                        .await?;
                }
                "timezone_id" => {
                    let set = SetTimezoneOverride {
                        timezone: wanted.timezone_id.as_deref(),
                        user_contexts: users,
                    };
                    self.emulate((option, value_of(option, wanted)), &set)
                        .await?;
                }
                "geolocation" => {
                    let set = SetGeolocationOverride {
                        coordinates: wanted.geolocation.map(|g| Coordinates {
                            latitude: g.latitude,
                            longitude: g.longitude,
                            accuracy: g.accuracy,
                        }),
                        user_contexts: users,
                    };
                    self.emulate((option, value_of(option, wanted)), &set)
                        .await?;
                }
                "grant_permissions" => {
                    let revoked = previous
                        .permissions
                        .iter()
                        .filter(|p| !wanted.permissions.contains(p));
                    let each = revoked
                        .map(|p| (p, "prompt"))
                        .chain(wanted.permissions.iter().map(|p| (p, "granted")));
                    for (p, state) in each {
                        let set = SetPermission {
                            descriptor: PermissionDescriptor { name: p.name() },
                            state,
                            origin,
                            user_context: &user_context,
                        };
                        self.emulate((option, value_of(option, wanted)), &set)
                            .await?;
                    }
                }
                "offline" => {
                    let set = SetNetworkConditions {
                        network_conditions: wanted.offline.then_some(NetworkConditions::Offline),
                        user_contexts: users,
                    };
                    self.emulate((option, value_of(option, wanted)), &set)
                        .await?;
                }
                "user_agent" => {
                    let set = SetUserAgentOverride {
                        user_agent: wanted.user_agent.as_deref(),
                        user_contexts: users,
                    };
                    self.emulate((option, value_of(option, wanted)), &set)
                        .await?;
                }
                "extra_http_headers" => {
                    let headers = wanted
                        .extra_http_headers
                        .iter()
                        .map(|(name, value)| Header {
                            name: name.clone(),
                            value: BytesValue::String {
                                value: value.clone(),
                            },
                        })
                        .collect();
                    let set = SetExtraHeaders {
                        headers,
                        user_contexts: users,
                    };
                    self.emulate((option, value_of(option, wanted)), &set)
                        .await?;
                }
                "javascript_enabled" => {
                    let set = SetScriptingEnabled {
                        enabled: (wanted.javascript_enabled == Some(false)).then_some(false),
                        user_contexts: users,
                    };
                    self.emulate((option, value_of(option, wanted)), &set)
                        .await?;
                }
                "http_credentials" => {
                    let set = self.bidi.set_credentials(wanted.http_credentials.clone());
                    set.await.map_err(|e| match e {
                        BrowserError::Command { message, .. } => BrowserError::Command {
                            action: format!("answering HTTP authentication on {}", self.browser),
                            message,
                        },
                        e => e,
                    })?;
                }
                "viewport" | "device_scale_factor" if !sized => {
                    sized = true;
                    let (width, height) = wanted
                        .viewport
                        .or(crate::backend::PageBackend::viewport(self))
                        .unwrap_or((1280, 720));
                    let set = SetDeviceViewport {
                        context: &self.context,
                        viewport: Viewport { width, height },
                        device_pixel_ratio: wanted.device_scale_factor,
                    };
                    self.emulate((option, value_of(option, wanted)), &set)
                        .await?;
                    if let Some(s) = self.session.lock().expect("session lock").as_mut() {
                        s.viewport = Some((width, height));
                    }
                }
                _ => {}
            }
        }
        *self.emulation.lock().expect("emulation lock") = wanted.clone();
        Ok(())
    }
}
