//! [`BrowserKind`]: the three engines, by the names settings, flags and test
//! names use.

/// The three browser engines: Chromium (chromedriver), Firefox (geckodriver)
/// and WebKit (WebKitGTK's `WebKitWebDriver` with its MiniBrowser).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum BrowserKind {
    /// Chromium through chromedriver (the default).
    #[default]
    Chromium,
    /// Firefox (ESR) through geckodriver, WebDriver BiDi on.
    Firefox,
    /// WebKitGTK's MiniBrowser through `WebKitWebDriver`, under `xvfb-run`
    /// (it has no headless mode).
    Webkit,
}

/// A browser name that is none of `chromium`, `firefox`, `webkit`.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown browser `{0}`: use chromium, firefox or webkit")]
pub struct UnknownBrowser(pub String);

impl BrowserKind {
    /// The three, in the order a run lists them.
    pub const ALL: [BrowserKind; 3] = [
        BrowserKind::Chromium,
        BrowserKind::Firefox,
        BrowserKind::Webkit,
    ];

    /// `chromium`, `firefox` or `webkit`: the name in settings, flags and
    /// test names (`scenario[firefox]::01_…`).
    pub fn name(self) -> &'static str {
        match self {
            BrowserKind::Chromium => "chromium",
            BrowserKind::Firefox => "firefox",
            BrowserKind::Webkit => "webkit",
        }
    }
}

impl std::fmt::Display for BrowserKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for BrowserKind {
    type Err = UnknownBrowser;

    /// `chromium` (or `chrome`), `firefox`, `webkit`, any case.
    fn from_str(s: &str) -> Result<BrowserKind, UnknownBrowser> {
        match s.trim().to_ascii_lowercase().as_str() {
            "chromium" | "chrome" => Ok(BrowserKind::Chromium),
            "firefox" => Ok(BrowserKind::Firefox),
            "webkit" => Ok(BrowserKind::Webkit),
            _ => Err(UnknownBrowser(s.to_string())),
        }
    }
}
