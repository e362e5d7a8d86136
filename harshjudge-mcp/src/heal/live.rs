//! The live check of a proposed locator: the page the step failed on, opened
//! again in headless Chromium at the app's URL, must have exactly one element
//! the replacement finds.

use harshjudge_browser::{
    BrowserConfig, BrowserError, Browsers, GeneratedLocator, LocatorParseError,
};
use serde::{Deserialize, Serialize};

/// What the live check saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveCheck {
    /// The page opened: the app's URL with the path the step failed on.
    pub url: String,
    /// The replacement locator, whole.
    pub locator: String,
    /// How many elements it matched there.
    pub count: usize,
}

/// Why the live check could not be made.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The replacement does not read as a locator.
    #[error(transparent)]
    Parse(#[from] LocatorParseError),
    /// The browser could not open the page or count.
    #[error("the live check at {url} failed: {source}")]
    Browser {
        /// The page.
        url: String,
        /// The cause.
        source: BrowserError,
    },
    /// The URL given is not http(s).
    #[error("{0:?} is not an http:// or https:// URL to check the replacement live on")]
    BadUrl(String),
    /// The browser's thread stopped.
    #[error("the live check's browser thread stopped unexpectedly")]
    Stopped,
    /// The agent's browser gave no answer within the tool's limit.
    #[error("the live check at {url} got no answer: {message}")]
    Unanswered {
        /// The page.
        url: String,
        /// Why, and what to do.
        message: String,
    },
}

/// The page the step failed on: the path (and query) of the last document
/// the run's steps up to and including the failed one loaded (their
/// `network.json`), joined to `base`; `base` itself when none is recorded.
pub fn page_url(base: &str, documents: &[String]) -> Result<String, LiveError> {
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(LiveError::BadUrl(base.to_string()));
    }
    let base = base.trim_end_matches('/');
    let Some(last) = documents.last() else {
        return Ok(format!("{base}/"));
    };
    // The path after the origin: "http://h:p/login?x" → "/login?x".
    let after_scheme = last.split_once("://").map_or(last.as_str(), |(_, r)| r);
    let path = after_scheme
        .find('/')
        .map_or("/", |i| &after_scheme[i..])
        .split('#')
        .next()
        .unwrap_or("/");
    Ok(format!("{base}{path}"))
}

/// The URLs of the documents a step's `network.json` records, in order.
pub fn documents(network_json: &str) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(network_json) else {
        return Vec::new();
    };
    let entries = v
        .as_array()
        .or_else(|| v["entries"].as_array())
        .cloned()
        .unwrap_or_default();
    entries
        .iter()
        // "Document" (DevTools) or "document" (BiDi).
        .filter(|e| {
            e["type"]
                .as_str()
                .is_some_and(|t| t.eq_ignore_ascii_case("document"))
                && e["method"] != "POST"
        })
        .filter_map(|e| e["url"].as_str().map(String::from))
        .collect()
}

/// Opens `url` in a page of `browsers` (the settings of `HARSHJUDGE_*`) and
/// counts the elements `locator` (the text of a locator chain, as
/// `get_by_role("button").name("Save")`) matches once the page has loaded.
/// The page goes back to `browsers`' pool; nothing else of theirs is closed,
/// so an agent's own page stays open through its check.
pub async fn check(browsers: &Browsers, url: &str, locator: &str) -> Result<LiveCheck, LiveError> {
    let parsed = GeneratedLocator::parse(locator)?;
    let fail = |source| LiveError::Browser {
        url: url.to_string(),
        source,
    };
    let config = BrowserConfig::from_env().map_err(fail)?;
    let page = browsers.open_page_with(&config, url).await.map_err(fail)?;
    let counted = async {
        page.goto(url).await?;
        parsed.locator(&page).count().await
    }
    .await;
    browsers.release(page).await;
    Ok(LiveCheck {
        count: counted.map_err(fail)?,
        url: url.to_string(),
        locator: locator.to_string(),
    })
}

/// [`check`] with browsers of its own, on a thread and runtime of its own
/// (so it can be called from anywhere), shut down once it is done: the
/// `harshjudge-mcp heal` command's.
pub fn check_alone(url: &str, locator: &str) -> Result<LiveCheck, LiveError> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|_| LiveError::Stopped)?;
                runtime.block_on(async {
                    let browsers = Browsers::new();
                    let checked = check(&browsers, url, locator).await;
                    browsers.shutdown().await;
                    checked
                })
            })
            .join()
            .map_err(|_| LiveError::Stopped)?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_live_page_is_the_last_document_under_the_base_url() {
        let net = r#"[{"method":"GET","url":"http://127.0.0.1:1/login?next=%2F#top","type":"Document"},
                      {"method":"GET","url":"http://127.0.0.1:1/app.js","type":"script"},
                      {"method":"POST","url":"http://127.0.0.1:1/form","type":"document"}]"#;
        let docs = documents(net);
        assert_eq!(docs, ["http://127.0.0.1:1/login?next=%2F#top"]);
        assert_eq!(
            page_url("http://127.0.0.1:9/", &docs).unwrap(),
            "http://127.0.0.1:9/login?next=%2F"
        );
        assert_eq!(
            page_url("http://127.0.0.1:9", &[]).unwrap(),
            "http://127.0.0.1:9/"
        );
        assert!(matches!(
            page_url("127.0.0.1:9", &docs),
            Err(LiveError::BadUrl(_))
        ));
        assert!(documents("not json").is_empty());
    }
}
