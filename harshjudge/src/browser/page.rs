//! The page API: navigation, actions and expectations that wait until the
//! element is ready, and the evidence hooks the runner uses.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use fantoccini::elements::Element;
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, Locator};

use super::logs::{self, ConsoleEntry, NetworkEntry, Pending};
use super::{BrowserError, Session, cmd_err};

/// A browser tab for one scenario. Cheap to clone. Locators are CSS by default;
/// `testid=x` (`[data-testid="x"]`), `text=Sign in` (the innermost element whose
/// text is exactly that), `//…`, `(//…` or `xpath=…` (XPath), `css=…`.
/// Actions and expectations wait until the element is ready (visible, and
/// enabled for actions), up to the page's wait limit (`HARSHJUDGE_WAIT`, 5 s).
#[derive(Clone)]
pub struct Page {
    inner: Arc<Inner>,
    wait: Duration,
}

struct Inner {
    client: Client,
    session: Mutex<Option<Session>>,
    base_url: String,
    pending: Mutex<Pending>,
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("base_url", &self.inner.base_url)
            .finish()
    }
}

enum Loc {
    Css(String),
    XPath(String),
}

impl Loc {
    fn parse(s: &str) -> Loc {
        if let Some(id) = s.strip_prefix("testid=") {
            Loc::Css(format!("[data-testid=\"{}\"]", id.replace('"', "\\\"")))
        } else if let Some(text) = s.strip_prefix("text=") {
            let lit = xpath_literal(text.trim());
            Loc::XPath(format!(
                "//*[normalize-space(.)={lit} and not(.//*[normalize-space(.)={lit}])]"
            ))
        } else if let Some(x) = s.strip_prefix("xpath=") {
            Loc::XPath(x.to_string())
        } else if s.starts_with("//") || s.starts_with("(//") {
            Loc::XPath(s.to_string())
        } else {
            Loc::Css(s.strip_prefix("css=").unwrap_or(s).to_string())
        }
    }
    fn as_locator(&self) -> Locator<'_> {
        match self {
            Loc::Css(c) => Locator::Css(c),
            Loc::XPath(x) => Locator::XPath(x),
        }
    }
}

fn xpath_literal(s: &str) -> String {
    if !s.contains('\'') {
        format!("'{s}'")
    } else if !s.contains('"') {
        format!("\"{s}\"")
    } else {
        let parts: Vec<String> = s.split('\'').map(|p| format!("'{p}'")).collect();
        format!("concat({})", parts.join(", \"'\", "))
    }
}

/// What a wait requires of the first matching element.
#[derive(Clone, Copy, PartialEq)]
enum Ready {
    Present,
    Visible,
    Actionable,
}

#[derive(Debug)]
struct Raw {
    path: &'static str,
    body: serde_json::Value,
}

impl WebDriverCompatibleCommand for Raw {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/{}",
            session.unwrap_or_default(),
            self.path
        ))
    }
    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
    }
}

async fn cdp(
    client: &Client,
    cmd: &str,
    params: serde_json::Value,
) -> Result<serde_json::Value, BrowserError> {
    client
        .issue_cmd(Raw {
            path: "goog/cdp/execute",
            body: serde_json::json!({"cmd": cmd, "params": params}),
        })
        .await
        .map_err(|e| cmd_err(format!("CDP {cmd}"), e))
}

/// How long the end of a step waits for requests still in flight.
const NETWORK_SETTLE: std::time::Duration = std::time::Duration::from_millis(250);

async fn get_log(client: &Client, kind: &str) -> Result<serde_json::Value, BrowserError> {
    client
        .issue_cmd(Raw {
            path: "se/log",
            body: serde_json::json!({"type": kind}),
        })
        .await
        .map_err(|e| cmd_err(format!("reading the {kind} log"), e))
}

/// Clears cookies, cache and storage, closes extra windows, drains the logs and
/// leaves the tab on `about:blank`.
pub(crate) async fn reset(client: &Client) -> Result<(), BrowserError> {
    let windows = client
        .windows()
        .await
        .map_err(|e| cmd_err("listing windows", e))?;
    if windows.len() > 1 {
        let keep = windows[0].clone();
        for w in windows.into_iter().skip(1) {
            client
                .switch_to_window(w)
                .await
                .map_err(|e| cmd_err("switching window", e))?;
            client
                .close_window()
                .await
                .map_err(|e| cmd_err("closing window", e))?;
        }
        client
            .switch_to_window(keep)
            .await
            .map_err(|e| cmd_err("switching window", e))?;
    }
    if let Ok(url) = client.current_url().await
        && url.scheme().starts_with("http")
    {
        let origin = url.origin().ascii_serialization();
        cdp(
            client,
            "Storage.clearDataForOrigin",
            serde_json::json!({"origin": origin, "storageTypes": "all"}),
        )
        .await?;
    }
    cdp(client, "Network.clearBrowserCookies", serde_json::json!({})).await?;
    cdp(client, "Network.clearBrowserCache", serde_json::json!({})).await?;
    client
        .goto("about:blank")
        .await
        .map_err(|e| cmd_err("opening about:blank", e))?;
    let _ = get_log(client, "browser").await;
    let _ = get_log(client, "performance").await;
    Ok(())
}

impl Page {
    pub(crate) fn new(session: Session, base_url: &str, wait: Duration) -> Page {
        Page {
            inner: Arc::new(Inner {
                client: session.client.clone(),
                session: Mutex::new(Some(session)),
                base_url: base_url.trim_end_matches('/').to_string(),
                pending: Mutex::new(Pending::new()),
            }),
            wait,
        }
    }

    pub(crate) fn take_session(&self) -> Option<Session> {
        self.inner.session.lock().expect("session lock").take()
    }

    /// The same page with another auto-wait limit.
    pub fn with_timeout(&self, wait: Duration) -> Page {
        Page {
            inner: self.inner.clone(),
            wait,
        }
    }

    /// The underlying fantoccini client, for anything the page API lacks.
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The WebDriver session id.
    pub async fn session_id(&self) -> Option<String> {
        self.inner.client.session_id().await.ok().flatten()
    }

    fn url_for(&self, path: &str) -> String {
        if path.contains("://") || path.starts_with("about:") || path.starts_with("data:") {
            path.to_string()
        } else if path.starts_with('/') {
            format!("{}{path}", self.inner.base_url)
        } else {
            format!("{}/{path}", self.inner.base_url)
        }
    }

    /// Opens `path` (joined to the base URL; absolute URLs as they are).
    pub async fn goto(&self, path: &str) -> Result<(), BrowserError> {
        let url = self.url_for(path);
        self.inner
            .client
            .goto(&url)
            .await
            .map_err(|e| cmd_err(format!("opening {url}"), e))
    }

    /// Waits until the first element matching `loc` is ready.
    async fn element(&self, loc: &str, ready: Ready) -> Result<Element, BrowserError> {
        let parsed = Loc::parse(loc);
        let start = Instant::now();
        loop {
            let found = match self.inner.client.find_all(parsed.as_locator()).await {
                Ok(list) if list.is_empty() => "no element matches".to_string(),
                Ok(list) => {
                    let el = list.into_iter().next().expect("not empty");
                    if ready == Ready::Present {
                        return Ok(el);
                    }
                    match el.is_displayed().await {
                        Ok(false) => "an element matches but it is hidden".to_string(),
                        Ok(true) if ready == Ready::Visible => return Ok(el),
                        Ok(true) => match el.is_enabled().await {
                            Ok(true) => return Ok(el),
                            Ok(false) => "an element matches but it is disabled".to_string(),
                            Err(e) => e.to_string(),
                        },
                        Err(e) => e.to_string(),
                    }
                }
                Err(e) => format!("the locator failed: {e}"),
            };
            if start.elapsed() >= self.wait {
                let expected = match ready {
                    Ready::Present => "be present",
                    Ready::Visible => "be visible",
                    Ready::Actionable => "be visible and enabled",
                };
                return Err(BrowserError::Timeout {
                    locator: loc.to_string(),
                    expected: expected.into(),
                    found,
                    waited: start.elapsed(),
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Clicks the element.
    pub async fn click(&self, loc: &str) -> Result<(), BrowserError> {
        let el = self.element(loc, Ready::Actionable).await?;
        el.click()
            .await
            .map_err(|e| cmd_err(format!("clicking {loc:?}"), e))
    }

    /// Replaces the field's value with `text`.
    pub async fn fill(&self, loc: &str, text: &str) -> Result<(), BrowserError> {
        let el = self.element(loc, Ready::Actionable).await?;
        el.clear()
            .await
            .map_err(|e| cmd_err(format!("clearing {loc:?}"), e))?;
        el.send_keys(text)
            .await
            .map_err(|e| cmd_err(format!("typing into {loc:?}"), e))
    }

    /// Presses a key in the element: `Enter`, `Tab`, `Escape`, `Backspace`,
    /// `Delete`, `Space`, `ArrowUp|Down|Left|Right`, `Home`, `End`, or one character.
    pub async fn press(&self, loc: &str, key: &str) -> Result<(), BrowserError> {
        use fantoccini::key::Key;
        let k = match key {
            "Enter" => Key::Enter.into(),
            "Tab" => Key::Tab.into(),
            "Escape" => Key::Escape.into(),
            "Backspace" => Key::Backspace.into(),
            "Delete" => Key::Delete.into(),
            "Space" => ' ',
            "ArrowUp" => Key::Up.into(),
            "ArrowDown" => Key::Down.into(),
            "ArrowLeft" => Key::Left.into(),
            "ArrowRight" => Key::Right.into(),
            "Home" => Key::Home.into(),
            "End" => Key::End.into(),
            k if k.chars().count() == 1 => k.chars().next().expect("one char"),
            other => {
                return Err(cmd_err(
                    format!("pressing {other:?} in {loc:?}"),
                    "unknown key; use Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp/Down/Left/Right, Home, End or one character",
                ));
            }
        };
        let el = self.element(loc, Ready::Actionable).await?;
        el.send_keys(&k.to_string())
            .await
            .map_err(|e| cmd_err(format!("pressing {key} in {loc:?}"), e))
    }

    /// Chooses an option of a `<select>` by value, else by its label.
    pub async fn select(&self, loc: &str, value_or_label: &str) -> Result<(), BrowserError> {
        let el = self.element(loc, Ready::Actionable).await?;
        if el.select_by_value(value_or_label).await.is_ok() {
            return Ok(());
        }
        el.select_by_label(value_or_label).await.map_err(|e| {
            cmd_err(
                format!(
                    "selecting {value_or_label:?} in {loc:?} (no option has that value or label)"
                ),
                e,
            )
        })
    }

    /// Checks (`true`) or unchecks (`false`) a checkbox.
    pub async fn check(&self, loc: &str, on: bool) -> Result<(), BrowserError> {
        let el = self.element(loc, Ready::Actionable).await?;
        let checked = el
            .prop("checked")
            .await
            .map_err(|e| cmd_err(format!("reading {loc:?}"), e))?;
        if (checked.as_deref() == Some("true")) != on {
            el.click()
                .await
                .map_err(|e| cmd_err(format!("clicking {loc:?}"), e))?;
        }
        Ok(())
    }

    /// The element's visible text (waits until it is visible).
    pub async fn text(&self, loc: &str) -> Result<String, BrowserError> {
        let el = self.element(loc, Ready::Visible).await?;
        el.text()
            .await
            .map_err(|e| cmd_err(format!("reading the text of {loc:?}"), e))
    }

    /// An attribute of the element (waits until it is present).
    pub async fn attribute(&self, loc: &str, name: &str) -> Result<Option<String>, BrowserError> {
        let el = self.element(loc, Ready::Present).await?;
        el.attr(name)
            .await
            .map_err(|e| cmd_err(format!("reading {name} of {loc:?}"), e))
    }

    /// Whether an element matching `loc` is visible now (no waiting).
    pub async fn is_visible(&self, loc: &str) -> Result<bool, BrowserError> {
        let parsed = Loc::parse(loc);
        let list = self
            .inner
            .client
            .find_all(parsed.as_locator())
            .await
            .map_err(|e| cmd_err(format!("finding {loc:?}"), e))?;
        for el in list {
            if el.is_displayed().await.unwrap_or(false) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Waits until the element is visible.
    pub async fn wait_for(&self, loc: &str) -> Result<(), BrowserError> {
        self.element(loc, Ready::Visible).await.map(|_| ())
    }

    /// Waits until the element is visible (an expectation: its failure fails the step).
    pub async fn expect_visible(&self, loc: &str) -> Result<(), BrowserError> {
        self.wait_for(loc).await
    }

    /// Waits until the element's text contains `expected`.
    pub async fn expect_text(&self, loc: &str, expected: &str) -> Result<(), BrowserError> {
        let start = Instant::now();
        loop {
            let remaining = self.wait.saturating_sub(start.elapsed());
            let found = match self
                .with_timeout(remaining)
                .element(loc, Ready::Visible)
                .await
            {
                Ok(el) => match el.text().await {
                    Ok(t) if t.contains(expected) => return Ok(()),
                    Ok(t) => format!("text was {t:?}"),
                    Err(e) => e.to_string(),
                },
                Err(BrowserError::Timeout { found, .. }) => found,
                Err(e) => return Err(e),
            };
            if start.elapsed() >= self.wait {
                return Err(BrowserError::Timeout {
                    locator: loc.to_string(),
                    expected: format!("have text containing {expected:?}"),
                    found,
                    waited: start.elapsed(),
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until the page's URL contains `part` (a path such as `/dashboard`, or any part).
    pub async fn expect_url(&self, part: &str) -> Result<(), BrowserError> {
        let start = Instant::now();
        loop {
            let url = self.url().await?;
            if url.contains(part) {
                return Ok(());
            }
            if start.elapsed() >= self.wait {
                return Err(BrowserError::Timeout {
                    locator: "the page URL".into(),
                    expected: format!("contain {part:?}"),
                    found: format!("URL was {url:?}"),
                    waited: start.elapsed(),
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Runs JavaScript (`return …` gives a value).
    pub async fn eval(&self, js: &str) -> Result<serde_json::Value, BrowserError> {
        self.inner
            .client
            .execute(js, vec![])
            .await
            .map_err(|e| cmd_err("running JavaScript", e))
    }

    /// A PNG of the viewport.
    pub async fn screenshot(&self) -> Result<Vec<u8>, BrowserError> {
        self.inner
            .client
            .screenshot()
            .await
            .map_err(|e| cmd_err("taking a screenshot", e))
    }

    /// The current URL.
    pub async fn url(&self) -> Result<String, BrowserError> {
        self.inner
            .client
            .current_url()
            .await
            .map(|u| u.to_string())
            .map_err(|e| cmd_err("reading the URL", e))
    }

    /// The document's title.
    pub async fn title(&self) -> Result<String, BrowserError> {
        self.inner
            .client
            .title()
            .await
            .map_err(|e| cmd_err("reading the title", e))
    }

    /// The page's HTML as it is now.
    pub async fn html(&self) -> Result<String, BrowserError> {
        self.inner
            .client
            .source()
            .await
            .map_err(|e| cmd_err("reading the HTML", e))
    }

    // ---- evidence hooks ----

    /// A PNG of the viewport, or of the whole page (through CDP) when `full_page`.
    #[doc(hidden)]
    pub async fn capture(&self, full_page: bool) -> Result<Vec<u8>, BrowserError> {
        if !full_page {
            return self.screenshot().await;
        }
        let c = &self.inner.client;
        let metrics = cdp(c, "Page.getLayoutMetrics", serde_json::json!({})).await?;
        let size = if metrics["cssContentSize"].is_object() {
            &metrics["cssContentSize"]
        } else {
            &metrics["contentSize"]
        };
        let (w, h) = (
            size["width"].as_f64().unwrap_or(1280.0),
            size["height"].as_f64().unwrap_or(800.0),
        );
        let shot = cdp(
            c,
            "Page.captureScreenshot",
            serde_json::json!({"format": "png", "captureBeyondViewport": true, "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}}),
        )
        .await?;
        let data = shot["data"].as_str().unwrap_or_default();
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| cmd_err("decoding a full-page screenshot", e))
    }

    /// Console and network entries since the previous call.
    #[doc(hidden)]
    pub async fn take_logs(&self) -> Result<(Vec<ConsoleEntry>, Vec<NetworkEntry>), BrowserError> {
        let c = &self.inner.client;
        let (browser, perf) = tokio::join!(get_log(c, "browser"), get_log(c, "performance"));
        let mut console = logs::console(&browser?);
        let mut network = logs::network(
            &perf?,
            &mut self.inner.pending.lock().expect("pending lock"),
        );
        // A request whose response arrived but whose body is still loading (a fetch
        // the page already reacted to) belongs to this step: give in-flight requests
        // a short while to finish, then report the answered ones as they stand.
        let settle_until = std::time::Instant::now() + NETWORK_SETTLE;
        while !self.inner.pending.lock().expect("pending lock").is_empty()
            && std::time::Instant::now() < settle_until
        {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            let (browser, perf) = tokio::join!(get_log(c, "browser"), get_log(c, "performance"));
            console.extend(logs::console(&browser?));
            network.extend(logs::network(
                &perf?,
                &mut self.inner.pending.lock().expect("pending lock"),
            ));
        }
        network.extend(logs::answered(
            &mut self.inner.pending.lock().expect("pending lock"),
        ));
        Ok((console, network))
    }

    /// The page's HTML for failure evidence.
    #[doc(hidden)]
    pub async fn page_html(&self) -> Result<String, BrowserError> {
        self.html().await
    }
}
