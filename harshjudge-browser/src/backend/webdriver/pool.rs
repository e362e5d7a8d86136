//! Browser sessions opened on a driver with the configured capabilities,
//! and reset for their next page when a [`crate::Browsers`] takes one from
//! its pool (Chromium's through CDP, Firefox's as a new BiDi user context,
//! see [`super::reuse`]).

use std::sync::Arc;

use fantoccini::ClientBuilder;
use hyper_util::client::legacy::connect::HttpConnector;

use super::driver::{Driver, Drivers, driver_url, own_driver};
use super::reuse;
use super::session::Session;
use crate::backend::live::Live;
use crate::backend::{classic, webdriver_page};
use crate::bidi;
use crate::config::{BrowserConfig, BrowserKind};
use crate::error::BrowserError;
use crate::page::Page;
use crate::wire;

/// A new session of `drivers`' for `config` and the app at `app_host`.
pub(crate) async fn new_session(
    drivers: &Arc<Drivers>,
    config: &BrowserConfig,
    app_host: Option<String>,
) -> Result<Session, BrowserError> {
    // Chromium: one chromedriver for its `Browsers`. Firefox, WebKit: a driver
    // per session (theirs serve one session at a time).
    let own = config.browser != BrowserKind::Chromium && config.webdriver_url.is_none();
    match open_session(drivers, config, app_host.clone(), own).await {
        // A driver of its own whose browser did not start in time (a reused
        // idle driver whose X server went, a MiniBrowser that could not open
        // its display): once more, with a new driver.
        Err(BrowserError::LaunchTimeout { .. }) if own => {
            open_session(drivers, config, app_host, false)
                .await
                .map_err(|e| match e {
                    BrowserError::LaunchTimeout {
                        browser,
                        url,
                        after,
                        said,
                        ..
                    } => BrowserError::LaunchTimeout {
                        browser,
                        url,
                        after,
                        tries: 2,
                        said,
                    },
                    e => e,
                })
        }
        opened => opened,
    }
}

/// One try of [`new_session`]: a driver (`idle_first`: an idle one of its
/// own, when there is one), then the session within the launch limit.
async fn open_session(
    drivers: &Arc<Drivers>,
    config: &BrowserConfig,
    app_host: Option<String>,
    idle_first: bool,
) -> Result<Session, BrowserError> {
    let live = Live::new(&drivers.live);
    let own = config.browser != BrowserKind::Chromium && config.webdriver_url.is_none();
    let (url, profiles, mut own_driver, watch) = tokio::task::spawn_blocking({
        let config = config.clone();
        let drivers = drivers.clone();
        move || -> Result<_, BrowserError> {
            if own {
                // An idle driver of this engine's (its last session ended)
                // before a new one: the driver and X server need not start again.
                let idle = || {
                    let binary = config.driver_binary().ok()?;
                    let locale = config.launch_emulation().locale;
                    drivers.take_idle(config.browser, &binary, locale.as_deref())
                };
                let d = match idle_first.then(idle).flatten() {
                    Some(d) => d,
                    None => own_driver(&config)?,
                };
                let watch = d.watch();
                Ok((
                    d.url().to_string(),
                    Some(d.profiles().to_path_buf()),
                    Some(d),
                    Some(watch),
                ))
            } else {
                let (url, profiles, watch) = driver_url(&drivers.local, &config)?;
                Ok((url, profiles, None, watch))
            }
        }
    })
    .await
    .map_err(|e| BrowserError::DriverStart(e.to_string()))??;
    // A local driver's sessions keep their profiles in its folder, which its
    // watchdog removes whatever happens to this process. A remote browser's
    // profile is the remote end's: a folder of this machine means nothing there.
    let profile = match &profiles {
        Some(dir) => Some(
            tempfile::Builder::new()
                .prefix("harshjudge-profile-")
                .tempdir_in(dir)
                .map_err(|e| BrowserError::Session {
                    url: url.clone(),
                    message: format!("profile folder: {e}"),
                })?,
        ),
        None => None,
    };
    let caps = config.capabilities(profile.as_ref().map(|p| p.path()), app_host.as_deref())?;
    // Bounded: a driver waits for ever for a browser that never connects.
    let mut builder = ClientBuilder::new(HttpConnector::new());
    builder.capabilities(caps);
    let connect = builder.connect(&url);
    let opened = match tokio::time::timeout(config.launch_timeout, connect).await {
        Ok(Ok(c)) => Ok(c),
        Ok(Err(e)) => Err(BrowserError::Session {
            url: url.clone(),
            message: format!("{} ({}): {e}", config.browser, url),
        }),
        Err(_) => Err(BrowserError::LaunchTimeout {
            browser: config.browser,
            url: url.clone(),
            after: config.launch_timeout,
            tries: 1,
            said: own_driver.as_ref().map(Driver::said).unwrap_or_default(),
        }),
    };
    let client = match opened {
        Ok(c) => c,
        Err(e) => {
            if let Some(d) = own_driver.take() {
                let _ = tokio::task::spawn_blocking(move || d.stop(false)).await;
            }
            return Err(e);
        }
    };
    // Console and network from BiDi events when the remote end offers BiDi;
    // else from the `devtools` log, whose network events need the Network
    // domain (the console's are on already; it stays on across navigations).
    let bidi = match bidi::socket_url(&client) {
        Some(ws) => {
            let b = bidi::Bidi::connect(&ws).await?;
            // Its challenges answered (`bidi/auth.rs`); a remote end that
            // cannot leaves them to the browser (and fails credentials).
            let _ = b.answer_challenges().await;
            Some(b)
        }
        None if config.browser == BrowserKind::Chromium => {
            let _said = bidi::announce_fallback(&url);
            wire::cdp(&client, "Network.enable", serde_json::json!({})).await?;
            None
        }
        None => {
            crate::engines::announce_no_bidi(config.browser);
            None
        }
    };
    // Chromium without BiDi (a classic page): the script timeout came with
    // the capabilities, and the viewport is set now, so that a session opened
    // ahead of its first page (`Browsers::warm_up`) is ready for it. With
    // BiDi, nothing but BiDi is sent once the session exists: its page sets
    // the viewport.
    let chromium = config.browser == BrowserKind::Chromium;
    let viewport = if chromium && bidi.is_none() {
        let (width, height) = config.viewport;
        wire::cdp(
            &client,
            "Emulation.setDeviceMetricsOverride",
            serde_json::json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        )
        .await
        .is_ok()
        .then_some(config.viewport)
    } else {
        None
    };
    Ok(Session {
        client,
        _profile: profile,
        remote: url,
        app_host,
        viewport,
        script_timeout: if chromium { config.script_timeout() } else { 0 },
        _live: live,
        driver: watch,
        registered: Arc::default(),
        bidi,
        browser: config.browser,
        own_driver,
        user_context: None,
        home: None,
        launched: config.launch_emulation(),
    })
}

/// The page of `session` (a WebDriver backend: BiDi or classic, picked by
/// what the session offers).
pub(crate) fn new_page(session: Session, base_url: &str, config: &BrowserConfig) -> Page {
    let backend = webdriver_page(session);
    Page::new(
        backend,
        base_url,
        config.wait,
        config.expect_timeout,
        config.slow_mo,
    )
}

/// A pooled session's browser state reset (cookies, storage, cache, extra
/// windows, logs) for its next page; `false` when it could not be. A session
/// with BiDi: a new user context and its tab, the previous ones removed
/// ([`reuse::fresh_user_context`]); without (a remote chromedriver): cleared
/// through CDP.
pub(crate) async fn reset(session: &mut Session) -> bool {
    let reset = match session.bidi {
        Some(_) => reuse::fresh_user_context(session).await.is_ok(),
        None => classic::reset(&session.client).await.is_ok(),
    };
    // After the swap: what the previous scenario's tabs said as they closed
    // is not the next scenario's.
    if let Some(b) = &session.bidi {
        b.reset().await;
    }
    reset
}
