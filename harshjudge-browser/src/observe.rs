//! Assertions on what the step saw: [`NetworkLog`] (`s.network()`) and
//! [`ConsoleLog`] (`s.console()`) read the running step's console and network
//! exactly as its boundary records them into `network.json` and
//! `console.json`, so a verdict or a re-judge sees what the assertion saw.
//! And the setting that fails a step whose page logged an error or threw
//! (`HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS=1`, allow-list `HARSHJUDGE_CONSOLE_ALLOW`).

use std::future::{Future, IntoFuture};
use std::panic::Location;
use std::pin::Pin;
use std::time::{Duration, Instant};

use super::config::ConsoleSettings;
use super::error::BrowserError;
use super::expect::Expectable;
use super::glob::UrlPattern;
use super::locator::TextMatch;
use super::logs::{ConsoleEntry, NetworkEntry};
use super::page::Page;

/// How often a network or console assertion looks again.
const POLL: Duration = Duration::from_millis(50);

/// The running step's requests, of every page the scenario opened:
/// `expect(&s.network()).to_have_request("**/api/items")`.
#[derive(Clone, Debug)]
pub struct NetworkLog {
    pages: Vec<Page>,
}

/// The running step's console messages and page errors, of every page the
/// scenario opened: `expect(&s.console()).to_have_no_errors()`.
#[derive(Clone, Debug)]
pub struct ConsoleLog {
    pages: Vec<Page>,
}

/// Every page's (console, network) of the step so far.
async fn seen(
    pages: &[Page],
    pending: bool,
) -> Result<(Vec<ConsoleEntry>, Vec<NetworkEntry>), BrowserError> {
    let (mut console, mut network) = (Vec::new(), Vec::new());
    for p in pages {
        let (c, n) = p.peek_logs(pending).await?;
        console.extend(c);
        network.extend(n);
    }
    Ok((console, network))
}

impl NetworkLog {
    /// The log of `pages`.
    pub fn new(pages: Vec<Page>) -> NetworkLog {
        NetworkLog { pages }
    }

    /// The step's requests so far: finished ones and those answered, as
    /// `network.json` will record them.
    pub async fn entries(&self) -> Result<Vec<NetworkEntry>, BrowserError> {
        Ok(seen(&self.pages, false).await?.1)
    }

    fn wait(&self) -> Duration {
        self.pages
            .first()
            .map_or(Duration::from_secs(5), |p| p.expect_wait())
    }
}

impl ConsoleLog {
    /// The log of `pages`.
    pub fn new(pages: Vec<Page>) -> ConsoleLog {
        ConsoleLog { pages }
    }

    /// The step's console entries so far, as `console.json` will record them.
    pub async fn entries(&self) -> Result<Vec<ConsoleEntry>, BrowserError> {
        Ok(seen(&self.pages, false).await?.0)
    }
}

/// Assertions on a step's requests ([`expect`](super::expect)`(&s.network())`).
#[derive(Debug)]
#[must_use = "an expectation does nothing until one of its to_… methods is awaited"]
pub struct NetworkExpect {
    log: NetworkLog,
    not: bool,
    soft: bool,
    timeout: Option<Duration>,
    at: &'static Location<'static>,
}

impl Expectable for NetworkLog {
    type Expect = NetworkExpect;
    fn expect_at(&self, at: &'static Location<'static>) -> NetworkExpect {
        NetworkExpect {
            log: self.clone(),
            not: false,
            soft: false,
            timeout: None,
            at,
        }
    }
}

impl NetworkExpect {
    /// Inverts the assertion: `.not().to_have_request(p)` holds when no request
    /// matching `p` was made in this step (answered or not).
    #[allow(clippy::should_implement_trait)]
    pub fn not(mut self) -> Self {
        self.not = !self.not;
        self
    }

    /// A soft assertion (Playwright's `expect.soft`, as
    /// [`LocatorExpect::soft`](super::LocatorExpect::soft)): a failure is
    /// recorded and the step goes on, failing at its end.
    pub fn soft(mut self) -> Self {
        self.soft = true;
        self
    }

    /// How long a positive assertion waits for the request (default: the
    /// page's wait limit).
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = Some(d);
        self
    }

    /// A request whose URL matches `pattern` (a glob, joined to the base URL,
    /// or a [`Regex`](regex::Regex)) was made in this step; narrow it with
    /// [`method`](RequestExpect::method) and [`status`](RequestExpect::status),
    /// then await it.
    pub fn to_have_request(self, pattern: impl Into<UrlPattern>) -> RequestExpect {
        RequestExpect {
            expect: self,
            pattern: pattern.into(),
            method: None,
            status: None,
        }
    }
}

/// `to_have_request`, with its conditions; await it.
#[derive(Debug)]
#[must_use = "an expectation does nothing until awaited"]
pub struct RequestExpect {
    expect: NetworkExpect,
    pattern: UrlPattern,
    method: Option<String>,
    status: Option<u16>,
}

impl RequestExpect {
    /// Only requests of this method (`"POST"`; case does not matter).
    pub fn method(mut self, method: impl Into<String>) -> Self {
        self.method = Some(method.into());
        self
    }

    /// Only requests answered with this status.
    pub fn status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    fn describe(&self) -> String {
        let mut d = format!("a request to {}", self.pattern);
        if let Some(m) = &self.method {
            d.push_str(&format!(" with method {m}"));
        }
        if let Some(s) = self.status {
            d.push_str(&format!(" answered {s}"));
        }
        d
    }

    async fn run(self) -> Result<(), BrowserError> {
        let e = &self.expect;
        let base = e.log.pages.first().map(|p| p.base_url().to_string());
        let matcher = self.pattern.matcher(base.as_deref().unwrap_or_default());
        let hit = |n: &NetworkEntry| {
            matcher.is_match(&n.url)
                && self
                    .method
                    .as_ref()
                    .is_none_or(|m| m.eq_ignore_ascii_case(&n.method))
                && self.status.is_none_or(|s| n.status == Some(u64::from(s)))
        };
        let limit = e.timeout.unwrap_or_else(|| e.log.wait());
        let start = Instant::now();
        loop {
            let network = seen(&e.log.pages, e.not).await?.1;
            let found: Vec<&NetworkEntry> = network.iter().filter(|n| hit(n)).collect();
            if e.not && !found.is_empty() {
                return Err(BrowserError::Assertion {
                    message: format!(
                        "expected no {} in this step, but the page made it: {}",
                        self.describe(),
                        list(&found)
                    ),
                    location: Some(e.at),
                });
            }
            if e.not {
                return Ok(());
            }
            if !found.is_empty() {
                return Ok(());
            }
            if start.elapsed() >= limit {
                let all: Vec<&NetworkEntry> = network.iter().collect();
                return Err(BrowserError::Assertion {
                    message: format!(
                        "expected {} in this step; waited {:.1} s; the step's requests: {}",
                        self.describe(),
                        start.elapsed().as_secs_f64(),
                        if all.is_empty() {
                            "none".to_string()
                        } else {
                            list(&all)
                        }
                    ),
                    location: Some(e.at),
                });
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

impl IntoFuture for RequestExpect {
    type Output = Result<(), BrowserError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send>>;
    fn into_future(self) -> Self::IntoFuture {
        let (soft, at) = (self.expect.soft, self.expect.at);
        Box::pin(async move { crate::soft::settle(soft, at, self.run().await).await })
    }
}

/// Requests as a failure message lists them.
fn list(entries: &[&NetworkEntry]) -> String {
    entries
        .iter()
        .map(|n| {
            let status = n.status.map_or_else(
                || n.failure.clone().unwrap_or_else(|| "pending".into()),
                |s| s.to_string(),
            );
            let how = n
                .intercepted
                .as_deref()
                .map(|h| format!(", {h}"))
                .unwrap_or_default();
            format!("\n  {} {} ({status}{how})", n.method, n.url)
        })
        .collect()
}

/// Assertions on a step's console ([`expect`](super::expect)`(&s.console())`).
#[derive(Debug)]
#[must_use = "an expectation does nothing until one of its to_… methods is awaited"]
pub struct ConsoleExpect {
    log: ConsoleLog,
    allow: Vec<TextMatch>,
    soft: bool,
    timeout: Option<Duration>,
    at: &'static Location<'static>,
}

impl Expectable for ConsoleLog {
    type Expect = ConsoleExpect;
    fn expect_at(&self, at: &'static Location<'static>) -> ConsoleExpect {
        ConsoleExpect {
            log: self.clone(),
            allow: Vec::new(),
            soft: false,
            timeout: None,
            at,
        }
    }
}

/// Whether `text` matches `m` the way locators match text: a `&str` as a
/// case-insensitive substring, whitespace normalised.
fn text_matches(m: &TextMatch, text: &str) -> bool {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    match m {
        TextMatch::Substring(s) => norm(text).to_lowercase().contains(&norm(s).to_lowercase()),
        TextMatch::Exact(s) => norm(text) == norm(s),
        TextMatch::Regex(r) => r.is_match(text),
    }
}

impl ConsoleExpect {
    /// A soft assertion (Playwright's `expect.soft`, as
    /// [`LocatorExpect::soft`](super::LocatorExpect::soft)): a failure is
    /// recorded and the step goes on, failing at its end.
    pub fn soft(mut self) -> Self {
        self.soft = true;
        self
    }

    /// Allows errors whose text matches `m` (repeatable).
    pub fn allow(mut self, m: impl Into<TextMatch>) -> Self {
        self.allow.push(m.into());
        self
    }

    /// How long `to_have_message` waits (default: the page's wait limit).
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = Some(d);
        self
    }

    /// The page logged no error and threw nothing in this step (besides the
    /// allowed ones and `HARSHJUDGE_CONSOLE_ALLOW`'s).
    pub async fn to_have_no_errors(self) -> Result<(), BrowserError> {
        let (soft, at) = (self.soft, self.at);
        crate::soft::settle(soft, at, self.no_errors().await).await
    }

    async fn no_errors(self) -> Result<(), BrowserError> {
        let console = seen(&self.log.pages, false).await?.0;
        let settings = ConsoleSettings::from_env()?;
        let errors: Vec<&ConsoleEntry> = console
            .iter()
            .filter(|c| c.level == "error")
            .filter(|c| !self.allow.iter().any(|a| text_matches(a, &c.text)))
            .filter(|c| !settings.allows(&c.text))
            .collect();
        if errors.is_empty() {
            return Ok(());
        }
        Err(BrowserError::Assertion {
            message: format!(
                "expected no console errors in this step, but the page logged {}:{}",
                errors.len(),
                describe_errors(&errors)
            ),
            location: Some(self.at),
        })
    }

    /// The page logged a message matching `m` in this step (any level).
    pub async fn to_have_message(self, m: impl Into<TextMatch>) -> Result<(), BrowserError> {
        let (soft, at) = (self.soft, self.at);
        crate::soft::settle(soft, at, self.message(m.into()).await).await
    }

    async fn message(self, m: TextMatch) -> Result<(), BrowserError> {
        let limit = self.timeout.unwrap_or_else(|| self.log_wait());
        let start = Instant::now();
        loop {
            let console = seen(&self.log.pages, false).await?.0;
            if console.iter().any(|c| text_matches(&m, &c.text)) {
                return Ok(());
            }
            if start.elapsed() >= limit {
                return Err(BrowserError::Assertion {
                    message: format!(
                        "expected a console message matching {} in this step; waited {:.1} s; the step's console: {}",
                        m.describe(),
                        start.elapsed().as_secs_f64(),
                        if console.is_empty() {
                            "empty".to_string()
                        } else {
                            describe_errors(&console.iter().collect::<Vec<_>>())
                        }
                    ),
                    location: Some(self.at),
                });
            }
            tokio::time::sleep(POLL).await;
        }
    }

    fn log_wait(&self) -> Duration {
        self.log
            .pages
            .first()
            .map_or(Duration::from_secs(5), |p| p.expect_wait())
    }
}

/// Console entries as a failure message lists them.
fn describe_errors(entries: &[&ConsoleEntry]) -> String {
    entries
        .iter()
        .map(|c| {
            let at = c
                .url
                .as_deref()
                .map(|u| format!(" ({u})"))
                .unwrap_or_default();
            format!("\n  [{} {}] {}{at}", c.level, c.source, c.text)
        })
        .collect()
}

/// With `HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS=1`: why the running step fails —
/// the errors its pages logged or threw, not allowed — or `None`.
pub async fn console_failure(pages: &[Page], settings: &ConsoleSettings) -> Option<String> {
    if !settings.fail || pages.is_empty() {
        return None;
    }
    let console = seen(pages, false).await.ok()?.0;
    let errors: Vec<&ConsoleEntry> = console
        .iter()
        .filter(|c| c.level == "error" && !settings.allows(&c.text))
        .collect();
    (!errors.is_empty()).then(|| {
        format!(
            "the page logged {} console error(s) in this step (HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS=1; allow some with HARSHJUDGE_CONSOLE_ALLOW=<regex>):{}",
            errors.len(),
            describe_errors(&errors)
        )
    })
}
