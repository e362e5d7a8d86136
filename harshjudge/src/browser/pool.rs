//! The pool of browser sessions: opened on the driver with the configured
//! capabilities, reused across scenarios (reset when taken: Chromium's through
//! CDP, Firefox's as a new BiDi user context, see [`super::reuse`]) and closed
//! at shutdown.

use std::sync::Mutex;

use fantoccini::ClientBuilder;
use hyper_util::client::legacy::connect::HttpConnector;

use super::bidi;
use super::config::{BrowserConfig, BrowserKind};
use super::driver::{DRIVER, Driver, driver_url, own_driver};
use super::error::BrowserError;
use super::page::{self, Page};
use super::reuse;
use super::session::{LIVE, Live, Session};
use super::wire;

/// The host of a base URL (`None` for none or a relative one), the form
/// Chromium's resolver rules name it in (IPv6 without brackets).
pub(super) fn app_host(base_url: &str) -> Option<String> {
    let url = url::Url::parse(base_url).ok()?;
    match url.host()? {
        url::Host::Domain(d) => Some(d.to_string()),
        url::Host::Ipv4(a) => Some(a.to_string()),
        url::Host::Ipv6(a) => Some(a.to_string()),
    }
}

static POOL: Mutex<Vec<Session>> = Mutex::new(Vec::new());

async fn new_session(
    config: &BrowserConfig,
    app_host: Option<String>,
) -> Result<Session, BrowserError> {
    // Chromium: one chromedriver for the process. Firefox, WebKit: a driver
    // per session (theirs serve one session at a time).
    let own = config.browser != BrowserKind::Chromium && config.webdriver_url.is_none();
    match open_session(config, app_host.clone(), own).await {
        // A driver of its own whose browser did not start in time (a reused
        // idle driver whose X server went, a MiniBrowser that could not open
        // its display): once more, with a new driver.
        Err(BrowserError::LaunchTimeout { .. }) if own => open_session(config, app_host, false)
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
            }),
        opened => opened,
    }
}

/// One try of [`new_session`]: a driver (`idle_first`: an idle one of its
/// own, when there is one), then the session within the launch limit.
async fn open_session(
    config: &BrowserConfig,
    app_host: Option<String>,
    idle_first: bool,
) -> Result<Session, BrowserError> {
    let live = Live::new();
    let own = config.browser != BrowserKind::Chromium && config.webdriver_url.is_none();
    let (url, profiles, mut own_driver) = tokio::task::spawn_blocking({
        let config = config.clone();
        move || -> Result<_, BrowserError> {
            if own {
                // An idle driver of this engine's (its last session ended)
                // before a new one: the driver and X server need not start again.
                let idle = || {
                    let binary = config.driver_binary().ok()?;
                    reuse::take_idle_driver(config.browser, &binary)
                };
                let d = match idle_first.then(idle).flatten() {
                    Some(d) => d,
                    None => own_driver(&config)?,
                };
                Ok((
                    d.url().to_string(),
                    Some(d.profiles().to_path_buf()),
                    Some(d),
                ))
            } else {
                let (url, profiles) = driver_url(&config)?;
                Ok((url, profiles, None))
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
        Some(ws) => Some(bidi::Bidi::connect(&ws).await?),
        None if config.browser == BrowserKind::Chromium => {
            let _said = bidi::announce_fallback(&url);
            wire::cdp(&client, "Network.enable", serde_json::json!({})).await?;
            None
        }
        None => {
            super::engines::announce_no_bidi(config.browser);
            None
        }
    };
    // Chromium: the script timeout came with the capabilities, and the
    // viewport is set now, so that a session opened ahead of its first page
    // ([`warm_up`]) is ready for it.
    let chromium = config.browser == BrowserKind::Chromium;
    let viewport = if chromium {
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
        bidi,
        browser: config.browser,
        own_driver,
        user_context: None,
    })
}

/// Opens a page: a session from the pool (state reset when it was released) or
/// a new one. `base_url` is what relative `goto` paths are joined to.
pub async fn open_page(base_url: &str) -> Result<Page, BrowserError> {
    open_page_with(&BrowserConfig::from_env()?, base_url).await
}

/// [`open_page`] in `browser` (`None`: the one `HARSHJUDGE_BROWSER` names).
pub async fn open_page_in(
    browser: Option<BrowserKind>,
    base_url: &str,
) -> Result<Page, BrowserError> {
    let config = BrowserConfig::from_env()?;
    let config = match browser {
        Some(b) => config.for_browser(b),
        None => config,
    };
    open_page_with(&config, base_url).await
}

/// [`open_page`] with explicit settings.
pub async fn open_page_with(config: &BrowserConfig, base_url: &str) -> Result<Page, BrowserError> {
    let wanted = config.webdriver_url.clone();
    let host = app_host(base_url);
    loop {
        let pooled = {
            let mut pool = POOL.lock().expect("pool lock");
            let i = pool.iter().position(|s| {
                wanted.as_ref().is_none_or(|w| *w == s.remote)
                    && s.app_host == host
                    && s.browser == config.browser
            });
            i.map(|i| pool.swap_remove(i))
        };
        let Some(mut session) = pooled else {
            // A session opened ahead of the first page, for these settings.
            if let Some(session) = take_warm(config, &host).await {
                let page = new_page(session, base_url, config);
                page.ensure_viewport(config.viewport).await?;
                page.prepare_session().await?;
                return Ok(page);
            }
            break;
        };
        // A session's connection lives on the runtime that opened it: one from a
        // runtime that has ended (another test, an earlier harness run) is dead.
        let bidi_open = session.bidi.as_ref().is_none_or(|b| b.is_open());
        if !bidi_open || session.client.current_url().await.is_err() {
            // Its driver of its own (Firefox's) goes now, its browser with it,
            // not at the end of the process.
            if let Some(d) = session.own_driver.take() {
                let _ = tokio::task::spawn_blocking(move || d.stop(false)).await;
            }
            continue;
        }
        // Reset here rather than when it was released: the last scenario's
        // session is never reset for nobody (the process kills it at exit).
        if !reset(&mut session).await {
            session.close().await;
            continue;
        }
        let page = new_page(session, base_url, config);
        page.ensure_viewport(config.viewport).await?;
        return Ok(page);
    }
    let page = new_page(new_session(config, host).await?, base_url, config);
    page.ensure_viewport(config.viewport).await?;
    page.prepare_session().await?;
    Ok(page)
}

/// A session being opened ahead of the first page ([`warm_up`]): for which
/// settings and app host, and the task opening it.
struct Warm {
    config: BrowserConfig,
    host: Option<String>,
    task: tokio::task::JoinHandle<Result<Session, BrowserError>>,
}

static WARM: Mutex<Option<Warm>> = Mutex::new(None);

/// Starts opening a browser session now, on `rt` (the runtime the pages will
/// run on), for the settings `HARSHJUDGE_*` give (in `browser`, when given)
/// and the app at `base_url`: the harness calls it as a run starts, when a
/// scenario to run opens a page, so that the driver and the browser start
/// while the harness prepares the run. The first page with the same settings
/// takes that session; if none does, it is killed with the rest at exit
/// ([`shutdown_at_exit`]) or by [`shutdown`]. A session that failed to open
/// is forgotten: the page then opens one itself and reports why it could not.
pub(crate) fn warm_up(rt: &tokio::runtime::Handle, browser: Option<BrowserKind>, base_url: &str) {
    let Ok(config) = BrowserConfig::from_env() else {
        return;
    };
    let config = match browser {
        Some(b) => config.for_browser(b),
        None => config,
    };
    let host = app_host(base_url);
    let mut warm = WARM.lock().unwrap_or_else(|p| p.into_inner());
    if warm.is_some() {
        return;
    }
    let task = rt.spawn({
        let (config, host) = (config.clone(), host.clone());
        async move { new_session(&config, host).await }
    });
    *warm = Some(Warm { config, host, task });
}

/// The session [`warm_up`] opened, if it was for `config` and `host` and it
/// opened (waiting for it to be ready).
async fn take_warm(config: &BrowserConfig, host: &Option<String>) -> Option<Session> {
    let warm = {
        let mut warm = WARM.lock().unwrap_or_else(|p| p.into_inner());
        match warm.as_ref() {
            Some(w) if w.config == *config && w.host == *host => warm.take(),
            _ => None,
        }
    }?;
    warm.task.await.ok()?.ok()
}

/// The session [`warm_up`] was opening, if it is open (else the opening is
/// abandoned: the driver's group, killed at exit or stopped, takes the
/// browser being started with it).
async fn abandon_warm() -> Option<Session> {
    let warm = WARM.lock().unwrap_or_else(|p| p.into_inner()).take()?;
    if warm.task.is_finished() {
        return warm.task.await.ok()?.ok();
    }
    warm.task.abort();
    // Done by now, unless it opened in the meantime.
    warm.task.await.ok()?.ok()
}

/// The page of `session`; on an engine without CDP, its engine is not
/// registered through CDP (see [`super::engine::Engine::skip_registration`]).
fn new_page(session: Session, base_url: &str, config: &BrowserConfig) -> Page {
    let cdp = session.browser == BrowserKind::Chromium;
    let page = Page::new(session, base_url, config.wait, config.expect_timeout);
    if !cdp {
        page.engine().skip_registration();
    }
    page
}

/// A pooled session's browser state reset (cookies, storage, cache, extra
/// windows, logs) for its next page; `false` when it could not be.
/// Chromium: cleared through CDP. Firefox: a new user context and its tab,
/// the previous ones removed ([`reuse::fresh_user_context`]).
async fn reset(session: &mut Session) -> bool {
    let reset = match session.browser {
        BrowserKind::Firefox => reuse::fresh_user_context(session).await.is_ok(),
        _ => page::reset(&session.client).await.is_ok(),
    };
    // After the swap: what the previous scenario's tabs said as they closed
    // is not the next scenario's.
    if let Some(b) = &session.bidi {
        b.reset().await;
    }
    reset
}

/// Returns a page's session to the pool for the next scenario, which gets it
/// with its state reset (cookies, storage, cache, extra windows, logs: reset
/// when it is taken, so that the last one is not reset for nobody; on Firefox
/// a new user context). Its routes and dialog handlers go now. A session that
/// cannot be reset is closed then. A WebKit session ends here; its driver is
/// kept for the next one.
pub async fn release_page(page: Page) {
    if let Some(session) = page.take_session() {
        // WebKit's sessions are not reused (no command clears every origin's
        // cookies and storage, or the cache: see `reuse`); their driver is.
        if !reuse::pools_sessions(&session) {
            let browser = session.browser;
            if let Some(d) = session.end_keeping_driver().await {
                reuse::keep_idle_driver(browser, d);
            }
            return;
        }
        // No route of the scenario outlives it (an idle page's requests would
        // wait on a handler that is gone).
        if let Some(b) = &session.bidi {
            b.reset().await;
        }
        POOL.lock().expect("pool lock").push(session);
    }
}

/// Lets go of a page whose browser gave no answer (a step or a tool call that
/// ran out of time on it), asking that browser nothing, since it would wait
/// again: its session is not pooled, and a driver of its own (Firefox's,
/// WebKit's) is stopped at once with its browser. A session of the shared
/// local chromedriver goes with that driver, which [`shutdown`] stops once no
/// other session is alive (and the process's end, in any case).
pub async fn discard_page(page: Page) {
    if let Some(mut session) = page.take_session() {
        if let Some(d) = session.own_driver.take() {
            let _ = tokio::task::spawn_blocking(move || d.stop(false)).await;
        }
        drop(session);
    }
}

/// Closes every pooled session and, unless a page is still open elsewhere in
/// this process (another test, another scenario), stops the local chromedriver.
/// The harness calls it at the end of a run, `browser_close` after releasing
/// its page; later pages start afresh. Whatever is left stops with the process.
pub async fn shutdown() {
    let warm = abandon_warm().await;
    let mut sessions: Vec<Session> = std::mem::take(&mut *POOL.lock().expect("pool lock"));
    sessions.extend(warm);
    for s in sessions {
        s.close().await;
    }
    tokio::task::spawn_blocking(reuse::stop_idle_drivers)
        .await
        .ok();
    if LIVE.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        stop_driver();
    }
}

/// The end of the process (the harness, once every scenario ended): the pooled
/// sessions of the local chromedriver are not closed one by one, nor is the
/// driver asked to quit its browsers: its process group is killed, browsers
/// and all, and its watchdog removes the profiles while the reports are
/// written ([`await_exit`] waits for it). So are the groups of the drivers of
/// their own (pooled Firefox sessions', idle WebKit drivers'). Sessions of a
/// remote WebDriver are closed as by [`shutdown`].
pub(crate) async fn shutdown_at_exit() {
    // A session opened ahead of a page no scenario asked for goes as a pooled one.
    let warm = abandon_warm().await;
    let mut sessions: Vec<Session> = std::mem::take(&mut *POOL.lock().expect("pool lock"));
    sessions.extend(warm);
    let local_url = super::driver::local_driver().map(|(_, url)| url);
    let (own, sessions): (Vec<Session>, Vec<Session>) =
        sessions.into_iter().partition(|s| s.own_driver.is_some());
    let (local, others): (Vec<Session>, Vec<Session>) = sessions
        .into_iter()
        .partition(|s| local_url.as_deref() == Some(s.remote.as_str()));
    for s in others {
        s.close().await;
    }
    // Pooled sessions with a driver of their own (Firefox's) and idle drivers
    // (WebKit's): their groups killed at once, browsers and all, as the local
    // chromedriver's below.
    let mut killed = reuse::kill_idle_drivers();
    for mut s in own {
        if let Some(d) = s.own_driver.take() {
            killed.push(d.kill());
        }
        if let Some(profile) = s._profile.take() {
            let _ = profile.keep();
        }
        drop(s);
    }
    EXITING
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .extend(killed);
    // A page still open elsewhere in this process keeps the driver running.
    if LIVE.load(std::sync::atomic::Ordering::SeqCst) > local.len() {
        for s in local {
            s.close().await;
        }
        return;
    }
    let driver = match DRIVER.lock() {
        Ok(mut g) => g.take(),
        Err(p) => p.into_inner().take(),
    };
    if let Some(d) = driver {
        EXITING
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(d.kill());
    }
    for mut s in local {
        // Killed with the driver's group; its profile is in the driver's
        // folder, which the watchdog removes as a whole.
        if let Some(profile) = s._profile.take() {
            let _ = profile.keep();
        }
        drop(s);
    }
}

/// The drivers killed by [`shutdown_at_exit`], their watchdogs still
/// removing the profiles.
static EXITING: Mutex<Vec<super::driver::Killed>> = Mutex::new(Vec::new());

/// Waits until the driver killed by [`shutdown_at_exit`] has left nothing
/// behind (its group killed, its profiles removed): the last thing before the
/// process exits.
pub(crate) fn await_exit() {
    let killed = std::mem::take(&mut *EXITING.lock().unwrap_or_else(|p| p.into_inner()));
    for k in killed {
        k.wait();
    }
}

/// Stops the local chromedriver: its `/shutdown` endpoint quits every browser it
/// started; then its process group is killed and the profiles removed.
fn stop_driver() {
    let driver = match DRIVER.try_lock() {
        Ok(mut g) => g.take(),
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner().take(),
        Err(std::sync::TryLockError::WouldBlock) => None,
    };
    if let Some(d) = driver {
        d.stop(true);
    }
}

/// Stops the local chromedriver now (a second Ctrl-C): its browsers go with it.
pub(crate) fn stop_driver_now() {
    stop_driver();
}
