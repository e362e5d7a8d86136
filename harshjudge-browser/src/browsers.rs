//! [`Browsers`]: the value that owns the local drivers, the browsers they
//! started and the pool of sessions reused across scenarios. The harness, the
//! MCP server's agent and `heal` each make their own; nothing of it is
//! process-wide, so two owners in one process never close each other's pages.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use super::backend::Live;
use super::backend::cdp::backend::CdpBackend;
use super::backend::cdp::context::{CdpBrowser, CdpContext};
use super::backend::cdp::page::CdpPage;
use super::backend::cdp::shared::SharedChromium;
use super::backend::webdriver::driver::{Drivers, Killed};
use super::backend::webdriver::pool::{new_page, new_session, reset};
use super::backend::webdriver::reuse;
use super::backend::webdriver::session::Session;
use super::backend::{AnyPage, PageBackend, Pick, pick};
use super::config::app_host;
use super::config::{BrowserConfig, BrowserKind};
use super::emulation::Emulation;
use super::error::BrowserError;
use super::page::Page;

/// The browsers of one owner (a test, the harness's run, the MCP server's
/// agent): the local chromedriver and its Chromium sessions, the drivers of
/// their own of Firefox and WebKit sessions, and the sessions released by
/// their pages, reset and reused by the next page with the same settings.
///
/// `Browsers::new()` launches nothing: the first page starts what it needs.
/// [`Browsers::shutdown`] closes only what this value opened, and dropping it
/// kills its drivers' process groups, browsers and all (pages it handed out
/// stop working then: keep it as long as its pages). Whatever is left when
/// the process ends is killed by the drivers' watchdogs.
///
/// ```no_run
/// # async fn f() -> Result<(), harshjudge_browser::BrowserError> {
/// let browsers = harshjudge_browser::Browsers::new();
/// let page = browsers.open_page("http://127.0.0.1:3000").await?;
/// page.goto("/login").await?;
/// browsers.release(page).await;
/// browsers.shutdown().await;
/// # Ok(()) }
/// ```
pub struct Browsers {
    drivers: Arc<Drivers>,
    /// Sessions released by their page, for the next page.
    pool: Mutex<Vec<Session>>,
    /// A session being opened ahead of the first page ([`Browsers::warm_up`]).
    warm: Mutex<Option<Warm>>,
    /// The Chromiums spoken to over the DevTools protocol, at most one per
    /// launch settings (`HARSHJUDGE_CHROMIUM_PROTOCOL=cdp`).
    cdp: Arc<CdpBrowsers>,
}

/// The Chromiums of one [`Browsers`] driven over the DevTools protocol,
/// each page a browser context of its own.
#[derive(Default)]
struct CdpBrowsers {
    /// The cargo-nextest run whose one Chromium per launch settings this
    /// value connects to ([`Browsers::shared_by_run`]), instead of launching
    /// its own.
    shared_run: Option<String>,
    /// Each launched browser, with what it was launched for.
    list: Mutex<Vec<CdpEntry>>,
    /// Held while one is looked up or launched: two first pages launch one.
    launching: tokio::sync::Mutex<()>,
    /// Its pages open.
    live: Arc<std::sync::atomic::AtomicUsize>,
    /// The next page, opened ahead ([`Browsers::warm_up`]).
    spare: Mutex<Option<Spare>>,
    /// How many pages the run still will ask for, by what it said
    /// ([`Browsers::warm_up`]), the spare's included.
    wanted: std::sync::atomic::AtomicUsize,
}

/// A browser context and its page, opened ahead of the page that takes them
/// (while the scenario before runs), in `browser`.
struct Spare {
    browser: std::sync::Weak<CdpBrowser>,
    task: tokio::task::JoinHandle<Result<(CdpContext, CdpPage), BrowserError>>,
}

impl Spare {
    /// Its context and page once opened; `None` if opening them failed or
    /// was abandoned (the page that wanted them opens its own).
    async fn opened(self) -> Option<(CdpContext, CdpPage)> {
        self.task.await.ok()?.ok()
    }
}

/// A Chromium of a [`CdpBrowsers`].
struct CdpEntry {
    config: BrowserConfig,
    host: Option<String>,
    /// The runtime its connection's tasks run on: a page of another runtime
    /// cannot use it, and it is dead once that runtime ended.
    runtime: tokio::runtime::Id,
    /// A task of that runtime that never ends: finished once the runtime ended.
    sentinel: tokio::task::JoinHandle<()>,
    browser: Arc<CdpBrowser>,
}

impl CdpEntry {
    fn alive(&self) -> bool {
        !self.sentinel.is_finished() && !self.browser.connection().is_closed()
    }
}

impl CdpBrowsers {
    /// The browser for `config` and `host` on this runtime: the one launched
    /// for them, if it still runs, else a new one.
    async fn browser(
        &self,
        config: &BrowserConfig,
        host: &Option<String>,
    ) -> Result<Arc<CdpBrowser>, BrowserError> {
        let _launching = self.launching.lock().await;
        let runtime = tokio::runtime::Handle::current().id();
        let dead: Vec<CdpEntry> = {
            let mut list = self.list.lock().unwrap_or_else(|p| p.into_inner());
            let (alive, dead) = std::mem::take(&mut *list)
                .into_iter()
                .partition(CdpEntry::alive);
            *list = alive;
            if let Some(e) = list
                .iter()
                .find(|e| same_launch(&e.config, config) && e.host == *host && e.runtime == runtime)
            {
                return Ok(e.browser.clone());
            }
            dead
        };
        // One whose browser or runtime went: its group killed (off this thread).
        if !dead.is_empty() {
            let _ = tokio::task::spawn_blocking(move || drop(dead)).await;
        }
        let launched = Arc::new(match &self.shared_run {
            // A connection of this process's own: closing or dropping it
            // ends the connection (Chromium disposes its contexts), never
            // the browser, which the run's watchdog stops.
            Some(run) => SharedChromium::open(run, config, host.as_deref()).await?,
            None => CdpBrowser::launch(config, host.as_deref()).await?,
        });
        let mut list = self.list.lock().unwrap_or_else(|p| p.into_inner());
        list.push(CdpEntry {
            config: config.clone(),
            host: host.clone(),
            runtime,
            sentinel: tokio::spawn(std::future::pending()),
            browser: launched.clone(),
        });
        Ok(launched)
    }

    /// Starts opening the next page in `browser` unless one is opened
    /// already.
    fn open_spare(self: &Arc<Self>, browser: Arc<CdpBrowser>) {
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        if spare.is_some() {
            return;
        }
        let weak = Arc::downgrade(&browser);
        let task = tokio::spawn(async move { open_in(&browser).await });
        *spare = Some(Spare {
            browser: weak,
            task,
        });
    }

    /// The page opened ahead, if it is `browser`'s and it opened. One of
    /// another browser is disposed.
    async fn take_spare(&self, browser: &Arc<CdpBrowser>) -> Option<(CdpContext, CdpPage)> {
        let spare = self
            .spare
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()?;
        // Not an address compared: a browser that went may have left its
        // address to the one that replaced it.
        let ours = (spare.browser.upgrade()).is_some_and(|b| Arc::ptr_eq(&b, browser));
        let opened = spare.opened().await;
        if !ours {
            if let Some((context, _)) = opened {
                let _ = context.dispose().await;
            }
            return None;
        }
        opened
    }

    /// A page of `browser` opened: one fewer is wanted, and the next starts
    /// opening if one still is.
    fn page_opened(self: &Arc<Self>, browser: &Arc<CdpBrowser>) {
        let left = self
            .wanted
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .map_or(0, |n| n - 1);
        if left > 0 {
            self.open_spare(browser.clone());
        }
    }

    /// The page opened ahead, closed (its opening abandoned); no more are
    /// opened.
    async fn drop_spare(&self) {
        self.wanted.store(0, Ordering::SeqCst);
        let spare = self.spare.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(spare) = spare {
            spare.task.abort();
            if let Some((context, _)) = spare.opened().await {
                let _ = context.dispose().await;
            }
        }
    }

    /// Every browser, taken out of the list.
    fn take(&self) -> Vec<Arc<CdpBrowser>> {
        let mut list = self.list.lock().unwrap_or_else(|p| p.into_inner());
        std::mem::take(&mut *list)
            .into_iter()
            .map(|e| {
                e.sentinel.abort();
                e.browser
            })
            .collect()
    }

    /// Kills every browser of its own (each that no page is being opened on
    /// right now); lets go of the connection to a run's shared one.
    async fn close_all(&self) {
        // The spare's task holds its browser while it opens.
        self.drop_spare().await;
        for b in self.take() {
            if let Ok(b) = Arc::try_unwrap(b) {
                b.close().await;
            }
        }
    }
}

/// A session being opened ahead of the first page: for which settings and
/// app host, and the task opening it.
struct Warm {
    config: BrowserConfig,
    host: Option<String>,
    task: tokio::task::JoinHandle<Result<Session, BrowserError>>,
}

impl Default for Browsers {
    fn default() -> Self {
        Browsers::new()
    }
}

impl std::fmt::Debug for Browsers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browsers")
            .field("local_driver", &self.local_driver())
            .field("live", &self.drivers.live.load(Ordering::SeqCst))
            .finish()
    }
}

impl Browsers {
    /// No browser yet: the first page starts its driver and browser.
    pub fn new() -> Browsers {
        Browsers::with_cdp(CdpBrowsers::default())
    }

    fn with_cdp(cdp: CdpBrowsers) -> Browsers {
        Browsers {
            drivers: Arc::new(Drivers::new()),
            pool: Mutex::new(Vec::new()),
            warm: Mutex::new(None),
            cdp: Arc::new(cdp),
        }
    }

    /// The browsers of a harness run: under cargo-nextest, where every
    /// scenario is a process of its own, its Chromiums spoken to over the
    /// DevTools protocol are the run's (`Browsers::shared_by_run`), each
    /// page a browser context of this process's own; elsewhere, and for
    /// sessions over WebDriver, as [`Browsers::new`].
    pub fn for_test_run() -> Browsers {
        match crate::process::shared::run_id() {
            Some(run) => Browsers::shared_by_run(run),
            None => Browsers::new(),
        }
    }

    /// [`Browsers::new`], its Chromiums spoken to over the DevTools protocol
    /// shared by every process of cargo-nextest run `run` (one per launch
    /// settings, started by the first process to need it, stopped when the
    /// run ends): each page a browser context of this process's own. The
    /// harness makes it under nextest, where every scenario is a process;
    /// sessions over WebDriver are this value's own as with
    /// [`Browsers::new`]. Call it in a process of the run (the browser's
    /// watchdog watches nextest's runner: `process::shared::nextest_runner`).
    fn shared_by_run(run: String) -> Browsers {
        Browsers::with_cdp(CdpBrowsers {
            shared_run: Some(run),
            ..CdpBrowsers::default()
        })
    }

    /// A page over the DevTools protocol: a new browser context of this
    /// value's Chromium for `config` (launched now if none runs).
    async fn open_cdp_page(
        &self,
        config: &BrowserConfig,
        base_url: &str,
    ) -> Result<Page, BrowserError> {
        let host = app_host(base_url);
        let browser = self.cdp.browser(config, &host).await?;
        let (context, page) = match self.cdp.take_spare(&browser).await {
            Some(opened) => opened,
            None => open_in(&browser).await?,
        };
        self.cdp.page_opened(&browser);
        let live = Live::new(&self.cdp.live);
        let backend = CdpBackend::new(page, context, config.viewport, live);
        let page = Page::new(
            AnyPage::Cdp(backend),
            base_url,
            config.wait,
            config.expect_timeout,
            config.slow_mo,
        );
        self.emulate(page, config).await
    }

    /// `page` with `config.emulation` applied (validated already), else
    /// released and why not.
    async fn emulate(&self, page: Page, config: &BrowserConfig) -> Result<Page, BrowserError> {
        if config.emulation.is_default() {
            return Ok(page);
        }
        let applied = page
            .backend()
            .apply_emulation(&config.emulation, page.base_url())
            .await;
        match applied {
            Ok(()) => Ok(page),
            Err(e) => {
                self.release(page).await;
                Err(e)
            }
        }
    }

    /// Opens a page with the settings `HARSHJUDGE_*` give: a session from
    /// this value's pool (state reset when it was released) or a new one.
    /// `base_url` is what relative `goto` paths are joined to.
    pub async fn open_page(&self, base_url: &str) -> Result<Page, BrowserError> {
        self.open_page_with(&BrowserConfig::from_env()?, base_url)
            .await
    }

    /// [`Browsers::open_page`] in `browser` (`None`: the one
    /// `HARSHJUDGE_BROWSER` names).
    pub async fn open_page_in(
        &self,
        browser: Option<BrowserKind>,
        base_url: &str,
    ) -> Result<Page, BrowserError> {
        let config = BrowserConfig::from_env()?;
        let config = match browser {
            Some(b) => config.for_browser(b),
            None => config,
        };
        self.open_page_with(&config, base_url).await
    }

    /// [`Browsers::open_page`] with explicit settings.
    pub async fn open_page_with(
        &self,
        config: &BrowserConfig,
        base_url: &str,
    ) -> Result<Page, BrowserError> {
        // Before anything starts: a wrong form is the caller's to fix.
        config.emulation.validate()?;
        if pick(config) == Pick::Cdp {
            return self.open_cdp_page(config, base_url).await;
        }
        let wanted = config.webdriver_url.clone();
        // A session launched with other media preferences is not this page's.
        let launched = config.launch_emulation();
        let host = app_host(base_url);
        loop {
            let pooled = {
                let mut pool = self.pool.lock().expect("pool lock");
                let i = pool.iter().position(|s| {
                    wanted.as_ref().is_none_or(|w| *w == s.remote)
                        && s.app_host == host
                        && s.browser == config.browser
                        && s.launched == launched
                });
                i.map(|i| pool.swap_remove(i))
            };
            let Some(mut session) = pooled else {
                // A session opened ahead of the first page, for these settings.
                if let Some(session) = self.take_warm(config, &host).await {
                    let page = new_page(session, base_url, config);
                    page.ensure_viewport(config.viewport).await?;
                    prepare(&page, config).await?;
                    return self.emulate(page, config).await;
                }
                break;
            };
            // A session's connection lives on the runtime that opened it: one
            // from a runtime that has ended (another test's) is dead.
            // With BiDi its socket tells (no classic command to a BiDi
            // session); without, a classic read.
            let alive = match &session.bidi {
                Some(b) => b.is_open(),
                None => session.client.current_url().await.is_ok(),
            };
            if !alive {
                // Its driver of its own (Firefox's) goes now, its browser
                // with it, not when this value goes.
                if let Some(d) = session.own_driver.take() {
                    let _ = tokio::task::spawn_blocking(move || d.stop(false)).await;
                }
                continue;
            }
            // Reset here rather than when it was released: the last
            // scenario's session is never reset for nobody.
            if !reset(&mut session).await {
                session.close().await;
                continue;
            }
            let page = new_page(session, base_url, config);
            page.ensure_viewport(config.viewport).await?;
            return self.emulate(page, config).await;
        }
        let session = new_session(&self.drivers, config, host).await?;
        let page = new_page(session, base_url, config);
        page.ensure_viewport(config.viewport).await?;
        prepare(&page, config).await?;
        self.emulate(page, config).await
    }

    /// Returns a page's session to this value's pool for its next page, which
    /// gets it with its state reset (cookies, storage, cache, extra windows,
    /// logs: reset when it is taken, so that the last one is not reset for
    /// nobody; on Firefox a new user context). Its routes and dialog handlers
    /// go now. A WebKit session ends here; its driver is kept for the next one.
    pub async fn release(&self, page: Page) {
        // Its context goes, its pages (popups too) with it.
        if let AnyPage::Cdp(b) = page.backend() {
            return b.dispose().await;
        }
        let Some(session) = page.backend().take_session() else {
            return;
        };
        // WebKit's sessions are not reused (no command clears every origin's
        // cookies and storage, or the cache: see `reuse`); their driver is.
        if !reuse::pools_sessions(&session) {
            let browser = session.browser;
            if let Some(d) = session.end_keeping_driver().await {
                self.drivers.keep_idle(browser, d);
            }
            return;
        }
        // No route of the scenario outlives it (an idle page's requests
        // would wait on a handler that is gone).
        if let Some(b) = &session.bidi {
            b.reset().await;
        }
        self.pool.lock().expect("pool lock").push(session);
    }

    /// Lets go of a page whose browser gave no answer (a step or a tool call
    /// that ran out of time on it), asking that browser nothing, since it
    /// would wait again: its session is not pooled, and a driver of its own
    /// (Firefox's, WebKit's) is stopped at once with its browser. A session
    /// of the local chromedriver goes with that driver, which
    /// [`Browsers::shutdown`] stops once no other page of this value is open.
    pub async fn discard(&self, page: Page) {
        // Its context goes, its renderer with it; not waited for long.
        if let AnyPage::Cdp(b) = page.backend() {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), b.dispose()).await;
            return;
        }
        if let Some(mut session) = page.backend().take_session() {
            if let Some(d) = session.own_driver.take() {
                let _ = tokio::task::spawn_blocking(move || d.stop(false)).await;
            }
            drop(session);
        }
    }

    /// Closes every pooled session of this value and its idle drivers and,
    /// unless a page it handed out is still open, stops its chromedriver.
    /// Nothing another `Browsers` opened is touched. Later pages start afresh.
    pub async fn shutdown(&self) {
        self.cdp.drop_spare().await;
        if self.cdp.live.load(Ordering::SeqCst) == 0 {
            self.cdp.close_all().await;
        }
        let warm = self.abandon_warm().await;
        let mut sessions: Vec<Session> = std::mem::take(&mut *self.pool.lock().expect("pool lock"));
        sessions.extend(warm);
        for s in sessions {
            s.close().await;
        }
        let drivers = self.drivers.clone();
        let _ = tokio::task::spawn_blocking(move || {
            drivers.stop_idle();
            if drivers.live.load(Ordering::SeqCst) == 0 {
                drivers.stop_local();
            }
        })
        .await;
    }

    /// The pid and WebDriver URL of this value's local chromedriver, if it
    /// started one and it runs (tests kill it to see what follows).
    #[doc(hidden)]
    pub fn local_driver(&self) -> Option<(u32, String)> {
        let local = self.drivers.local.lock().unwrap_or_else(|p| p.into_inner());
        local.as_ref().map(|d| (d.pid(), d.url().to_string()))
    }

    /// The pid of a Chromium this value launched to speak the DevTools
    /// protocol to, if one runs (tests kill it to see what follows).
    #[doc(hidden)]
    pub fn local_browser(&self) -> Option<u32> {
        let list = self.cdp.list.lock().unwrap_or_else(|p| p.into_inner());
        list.iter()
            .filter(|e| e.alive())
            .find_map(|e| e.browser.pid())
    }

    /// Starts opening a browser session now, on `rt` (the runtime the pages
    /// will run on), for the settings `HARSHJUDGE_*` give (in `browser`, when
    /// given) and the app at `base_url`: the harness calls it as a run starts,
    /// when a scenario to run opens a page, so that the driver and the browser
    /// start while the harness prepares the run. The first page with the same
    /// settings takes that session; if none does, it goes with the rest
    /// ([`Browsers::kill_at_exit`], [`Browsers::shutdown`], drop). A session
    /// that failed to open is forgotten: the page then opens one itself and
    /// reports why it could not.
    ///
    /// `pages`: how many pages with these settings the run will ask for
    /// (its scenarios that open one). Over the DevTools protocol, headless,
    /// each page but the last opens its successor's browser context and page
    /// ahead, while its scenario runs (about 60 ms a scenario on 2 cores; one
    /// more renderer alive meanwhile); over WebDriver, released sessions are
    /// reused instead.
    pub fn warm_up(
        &self,
        rt: &tokio::runtime::Handle,
        browser: Option<BrowserKind>,
        base_url: &str,
        pages: usize,
    ) {
        let Ok(config) = BrowserConfig::from_env() else {
            return;
        };
        let config = match browser {
            Some(b) => config.for_browser(b),
            None => config,
        };
        let host = app_host(base_url);
        if pick(&config) == Pick::Cdp {
            // The browser launches now, and the first page's context opens
            // in it.
            let cdp = self.cdp.clone();
            let pages = pages_ahead(&config, pages);
            cdp.wanted.store(pages, Ordering::SeqCst);
            rt.spawn(async move {
                if let Ok(browser) = cdp.browser(&config, &host).await
                    && pages > 0
                {
                    cdp.open_spare(browser);
                }
            });
            return;
        }
        let mut warm = self.warm.lock().unwrap_or_else(|p| p.into_inner());
        if warm.is_some() {
            return;
        }
        let task = rt.spawn({
            let (config, host, drivers) = (config.clone(), host.clone(), self.drivers.clone());
            async move { new_session(&drivers, &config, host).await }
        });
        *warm = Some(Warm { config, host, task });
    }

    /// The session [`Browsers::warm_up`] opened, if it was for `config` and
    /// `host` and it opened (waiting for it to be ready).
    async fn take_warm(&self, config: &BrowserConfig, host: &Option<String>) -> Option<Session> {
        let warm = {
            let mut warm = self.warm.lock().unwrap_or_else(|p| p.into_inner());
            match warm.as_ref() {
                Some(w) if same_launch(&w.config, config) && w.host == *host => warm.take(),
                _ => None,
            }
        }?;
        warm.task.await.ok()?.ok()
    }

    /// The session [`Browsers::warm_up`] was opening, if it is open (else the
    /// opening is abandoned: the driver's group, killed or stopped, takes the
    /// browser being started with it).
    async fn abandon_warm(&self) -> Option<Session> {
        let warm = self.warm.lock().unwrap_or_else(|p| p.into_inner()).take()?;
        if warm.task.is_finished() {
            return warm.task.await.ok()?.ok();
        }
        warm.task.abort();
        // Done by now, unless it opened in the meantime.
        warm.task.await.ok()?.ok()
    }

    /// The end of the harness's run (once every scenario ended): the pooled
    /// sessions of the local chromedriver are not closed one by one, nor is
    /// the driver asked to quit its browsers: its process group is killed,
    /// browsers and all, and its watchdog removes the profiles while the
    /// reports are written ([`Exiting::wait`] waits for it). So are the groups
    /// of the drivers of their own (pooled Firefox sessions', idle WebKit
    /// drivers'). Sessions of a remote WebDriver are closed as by
    /// [`Browsers::shutdown`].
    pub async fn kill_at_exit(&self) -> Exiting {
        // The Chromiums over the DevTools protocol: their groups killed,
        // their folders removed.
        self.cdp.close_all().await;
        // A session opened ahead of a page no scenario asked for goes as a pooled one.
        let warm = self.abandon_warm().await;
        let mut sessions: Vec<Session> = std::mem::take(&mut *self.pool.lock().expect("pool lock"));
        sessions.extend(warm);
        let local_url = self.local_driver().map(|(_, url)| url);
        let (own, sessions): (Vec<Session>, Vec<Session>) =
            sessions.into_iter().partition(|s| s.own_driver.is_some());
        let (local, others): (Vec<Session>, Vec<Session>) = sessions
            .into_iter()
            .partition(|s| local_url.as_deref() == Some(s.remote.as_str()));
        for s in others {
            s.close().await;
        }
        // Pooled sessions with a driver of their own (Firefox's) and idle
        // drivers (WebKit's): their groups killed at once, browsers and all,
        // as the local chromedriver's below.
        let mut killed = self.drivers.kill_idle();
        for mut s in own {
            if let Some(d) = s.own_driver.take() {
                killed.push(d.kill());
            }
            if let Some(profile) = s._profile.take() {
                let _ = profile.keep();
            }
            drop(s);
        }
        // A page of this value still open keeps the driver running.
        if self.drivers.live.load(Ordering::SeqCst) > local.len() {
            for s in local {
                s.close().await;
            }
            return Exiting { killed };
        }
        killed.extend(self.drivers.kill_local());
        for mut s in local {
            // Killed with the driver's group; its profile is in the driver's
            // folder, which the watchdog removes as a whole.
            if let Some(profile) = s._profile.take() {
                let _ = profile.keep();
            }
            drop(s);
        }
        Exiting { killed }
    }

    /// What stops this value's chromedriver from another task (the harness's
    /// second Ctrl-C), whatever the value is doing.
    pub fn killer(&self) -> Killer {
        Killer {
            drivers: self.drivers.clone(),
            cdp: self.cdp.clone(),
        }
    }
}

impl Drop for Browsers {
    /// Kills the process groups of this value's drivers (the local
    /// chromedriver, idle drivers, pooled sessions' drivers of their own),
    /// browsers and all; their watchdogs remove their folders.
    fn drop(&mut self) {
        if let Some(w) = self
            .warm
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            w.task.abort();
        }
        let pooled = std::mem::take(self.pool.get_mut().unwrap_or_else(|p| p.into_inner()));
        for mut s in pooled {
            if let Some(d) = s.own_driver.take() {
                drop(d.kill());
            }
        }
        drop(self.drivers.kill_idle());
        drop(self.drivers.kill_local());
        // Their `Drop` kills their groups.
        drop(self.cdp.take());
    }
}

/// The drivers [`Browsers::kill_at_exit`] killed, their watchdogs still
/// removing the profiles.
#[derive(Default)]
pub struct Exiting {
    killed: Vec<Killed>,
}

impl Exiting {
    /// Waits until the killed drivers left nothing behind (their groups
    /// killed, their profiles removed): the last thing before the process exits.
    pub fn wait(self) {
        for k in self.killed {
            k.wait();
        }
    }
}

/// Stops one [`Browsers`]' chromedriver from elsewhere ([`Browsers::killer`]).
pub struct Killer {
    drivers: Arc<Drivers>,
    cdp: Arc<CdpBrowsers>,
}

impl Killer {
    /// Stops the chromedriver now (a second Ctrl-C): its browsers go with it.
    pub fn kill_now(&self) {
        self.drivers.stop_local();
        // Dropped: each Chromium's group killed.
        drop(self.cdp.take());
    }
}

/// What a new WebDriver page needs once (`AnyPage::prepare_session`).
async fn prepare(page: &Page, config: &BrowserConfig) -> Result<(), BrowserError> {
    page.backend().prepare_session(config.wait).await
}

/// Whether a browser (or session) launched for `a` serves a page of `b`:
/// the same settings but the emulation, which each page applies.
fn same_launch(a: &BrowserConfig, b: &BrowserConfig) -> bool {
    let launch = |c: &BrowserConfig| BrowserConfig {
        emulation: Emulation::default(),
        ..c.clone()
    };
    launch(a) == launch(b)
}

/// A new browser context of `browser` and its page (the context disposed
/// again if the page could not open).
async fn open_in(browser: &CdpBrowser) -> Result<(CdpContext, CdpPage), BrowserError> {
    let context = browser.new_context().await?;
    match context.new_page().await {
        Ok(page) => Ok((context, page)),
        Err(e) => {
            let _ = context.dispose().await;
            Err(e.into())
        }
    }
}

/// How many of `pages` are opened ahead with `config`: none headed, where a
/// window opened ahead would show beside the one a person watches.
fn pages_ahead(config: &BrowserConfig, pages: usize) -> usize {
    if config.headed { 0 } else { pages }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_opened_ahead_only_headless() {
        let mut config = BrowserConfig::from_env().expect("settings");
        config.headed = false;
        assert_eq!(pages_ahead(&config, 3), 3);
        config.headed = true;
        assert_eq!(pages_ahead(&config, 3), 0);
    }
}
