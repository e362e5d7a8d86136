//! Visual baselines: `expect(&page).to_have_screenshot("cart")` and
//! `expect(&locator).to_have_screenshot("badge")`, Playwright's `toHaveScreenshot`.
//!
//! **Where baselines live.** `{package root}/__snapshots__/{test target}/{scenario
//! slug}/{name}.png`: one file per scenario and name, in a folder meant to be
//! committed next to the suite. `HARSHJUDGE_SNAPSHOT_DIR` replaces
//! `{package root}/__snapshots__` (relative to the package root). Names are 1 to
//! 80 letters, digits, `_`, `-` and `.` (a trailing `.png` is dropped), never a
//! path: a name with `/`, `\`, `..`, a leading `.` or `-` is refused before any
//! path is built.
//!
//! **How a screenshot is judged** (Playwright's algorithm): with a baseline, the
//! first screenshot that matches it passes at once. Otherwise screenshots are taken
//! (0, 100, 250, 500 ms, then every second apart) until two in a row are equal,
//! and that stable screenshot is compared with the baseline; no stable pair within
//! the timeout (`HARSHJUDGE_WAIT`, or [`timeout`](ScreenshotAssertion::timeout))
//! fails. Each screenshot is taken with animations finished or cancelled
//! (CSS animations and transitions; infinite ones restarted afterwards), the text
//! caret hidden and every element of the masks painted over with the mask colour:
//! the page is restored right after.
//!
//! **What a failure leaves** in the step's evidence: `{name}-actual.png` always;
//! with a baseline also `{name}-expected.png` and (same size) `{name}-diff.png`;
//! when the page never settled, `{name}-previous.png`. A missing baseline fails
//! and leaves the screenshot as `{name}-actual.png`, the candidate baseline.
//! With `--update-snapshots` (or `HARSHJUDGE_UPDATE_SNAPSHOTS=1`) a missing or
//! differing baseline is written instead (atomically) and the assertion passes;
//! a baseline that still matches is left untouched. Each baseline written is
//! printed (`harshjudge: baseline written (new|replaced): {path}`, on stderr)
//! and recorded in the step's evidence: `{name}-baseline.png` (the image
//! written) and `{name}-baseline.json` (its path, `new` or `replaced`).

use std::future::{Future, IntoFuture};
use std::io::Write;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::error::BrowserError;
use super::locator::Locator;
use super::page::{Page, ScenarioEvidence};
use super::protocol::{Call, Read, Request};
use crate::visual::{self, CompareOptions, Comparison};

/// Where baselines are written and whether they are updated: set once per test
/// process by the harness.
struct Setup {
    /// `{root}/{test target}`, or why the setting is wrong.
    dir: Result<PathBuf, String>,
    update: bool,
}

static SETUP: OnceLock<Setup> = OnceLock::new();

/// Sets where this test process keeps its baselines (`{package root}/__snapshots__/
/// {binary}`, or `HARSHJUDGE_SNAPSHOT_DIR/{binary}`) and whether
/// `to_have_screenshot` writes them (`--update-snapshots`). Called by the harness;
/// the first call wins.
#[doc(hidden)]
pub fn configure_snapshots(package_root: &Path, binary: &str, update: bool) {
    let dir = match crate::settings::env("HARSHJUDGE_SNAPSHOT_DIR") {
        Ok(None) => Ok(package_root.join("__snapshots__")),
        Ok(Some(d)) if d.trim().is_empty() => Err(
            "setting HARSHJUDGE_SNAPSHOT_DIR is empty: set it to the folder of the baselines, \
             or unset it for {package root}/__snapshots__"
                .to_string(),
        ),
        Ok(Some(d)) => Ok(package_root.join(d)),
        Err(e) => Err(e.to_string()),
    };
    let _ = SETUP.set(Setup {
        dir: dir.map(|d| d.join(binary)),
        update,
    });
}

fn setup() -> &'static Setup {
    SETUP.get_or_init(|| {
        // Outside the harness: the package cargo runs, the process's own name.
        let root = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        Setup {
            dir: Ok(root
                .join("__snapshots__")
                .join(crate::process::binary_name())),
            update: crate::settings::env_bool("HARSHJUDGE_UPDATE_SNAPSHOTS", false)
                .unwrap_or(false),
        }
    })
}

/// What a screenshot name must be.
const NAME_RULE: &str = "a screenshot name is 1 to 80 letters, digits, '_', '-' and '.', not \
                         starting with '.' or '-' and without '..' (it becomes a file name, never \
                         a path), e.g. \"cart\" or \"checkout-total\"";

/// A baseline that cannot be named or written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BaselineError {
    /// The name breaks [`NAME_RULE`].
    #[error("invalid screenshot name {name:?}: {NAME_RULE}")]
    Name {
        /// The name given.
        name: String,
    },
    /// The baseline's folder could not be made.
    #[error("cannot create the baseline folder {}: {source}", dir.display())]
    Folder {
        /// The folder.
        dir: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The baseline could not be written.
    #[error("cannot write the baseline {}: {source}", path.display())]
    Write {
        /// The baseline.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Checks a baseline name: 1 to 80 letters, digits, `_`, `-`, `.`; no leading
/// `.` or `-`, no `..`; a trailing `.png` is dropped. Returns the bare name.
pub(crate) fn check_name(name: &str) -> Result<String, BaselineError> {
    let bare = name.strip_suffix(".png").unwrap_or(name);
    let ok = !bare.is_empty()
        && bare.len() <= 80
        && !bare.starts_with(['.', '-'])
        && !bare.contains("..")
        && bare
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(bare.to_string())
    } else {
        Err(BaselineError::Name {
            name: name.to_string(),
        })
    }
}

/// Whether CSS animations run while the screenshot is taken (Playwright's `animations`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Animations {
    /// Finite animations and transitions jump to their end, infinite ones are
    /// cancelled to their start (and restarted after the screenshot). The default.
    #[default]
    Disabled,
    /// Left as they are.
    Allow,
}

/// Whether the text caret is shown in the screenshot (Playwright's `caret`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Caret {
    /// Hidden (`caret-color: transparent`). The default.
    #[default]
    Hide,
    /// As the page draws it.
    Initial,
}

enum Target {
    Page { page: Page, full_page: bool },
    Locator(Locator),
}

/// `to_have_screenshot(name)` with its options; `.await` it. Built by
/// [`PageExpect::to_have_screenshot`](super::PageExpect::to_have_screenshot) and
/// [`LocatorExpect::to_have_screenshot`](super::LocatorExpect::to_have_screenshot).
#[must_use = "an assertion does nothing until it is awaited"]
pub struct ScreenshotAssertion {
    target: Target,
    describe: String,
    name: String,
    compare: CompareOptions,
    masks: Vec<Locator>,
    mask_color: String,
    animations: Animations,
    caret: Caret,
    style: Option<String>,
    timeout: Option<Duration>,
    misuse: Option<String>,
    /// `expect(…).soft()`: a failure is recorded and the step goes on.
    soft: bool,
    at: &'static Location<'static>,
}

impl std::fmt::Debug for ScreenshotAssertion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScreenshotAssertion")
            .field("target", &self.describe)
            .field("name", &self.name)
            .field("compare", &self.compare)
            .finish_non_exhaustive()
    }
}

impl ScreenshotAssertion {
    pub(crate) fn for_page(
        page: Page,
        name: &str,
        not: bool,
        timeout: Option<Duration>,
        at: &'static Location<'static>,
    ) -> Self {
        Self::new(
            Target::Page {
                page,
                full_page: false,
            },
            "page".into(),
            name,
            not,
            timeout,
            at,
        )
    }

    /// Soft when `soft` (the builder's `.soft()`).
    pub(crate) fn soft_if(mut self, soft: bool) -> Self {
        self.soft = soft;
        self
    }

    pub(crate) fn for_locator(
        locator: Locator,
        name: &str,
        not: bool,
        timeout: Option<Duration>,
        at: &'static Location<'static>,
    ) -> Self {
        let describe = locator.desc.clone();
        let misuse = locator.misuse.clone();
        let mut s = Self::new(Target::Locator(locator), describe, name, not, timeout, at);
        s.misuse = s.misuse.or(misuse);
        s
    }

    fn new(
        target: Target,
        describe: String,
        name: &str,
        not: bool,
        timeout: Option<Duration>,
        at: &'static Location<'static>,
    ) -> Self {
        let misuse = not.then(|| {
            format!(
                "expect({describe}).not().to_have_screenshot({name:?}): a screenshot assertion \
                 cannot be negated; compare with a baseline of the other look instead"
            )
        });
        ScreenshotAssertion {
            target,
            describe,
            name: name.to_string(),
            compare: CompareOptions::default(),
            masks: Vec::new(),
            mask_color: "#FF00FF".into(),
            animations: Animations::default(),
            caret: Caret::default(),
            style: None,
            timeout,
            misuse,
            soft: false,
            at,
        }
    }

    /// At most this many pixels may differ (Playwright's `maxDiffPixels`).
    pub fn max_diff_pixels(mut self, pixels: u64) -> Self {
        self.compare.max_diff_pixels = Some(pixels);
        self
    }

    /// At most this fraction (0..=1) of the pixels may differ (`maxDiffPixelRatio`).
    pub fn max_diff_pixel_ratio(mut self, ratio: f64) -> Self {
        self.compare.max_diff_pixel_ratio = Some(ratio);
        self
    }

    /// Per-pixel colour distance (0..=1) up to which two pixels count as equal
    /// (default 0.2, as Playwright).
    pub fn threshold(mut self, threshold: f64) -> Self {
        self.compare.threshold = threshold;
        self
    }

    /// Paints every element these locators match with the mask colour before
    /// each screenshot (content that changes on its own: clocks, ads, avatars).
    pub fn mask(mut self, locators: &[Locator]) -> Self {
        self.masks.extend(locators.iter().cloned());
        self
    }

    /// The colour of the masks, any CSS colour (default `#FF00FF`, magenta).
    pub fn mask_color(mut self, color: &str) -> Self {
        self.mask_color = color.to_string();
        self
    }

    /// Whether animations run during the screenshot (default [`Animations::Disabled`]).
    pub fn animations(mut self, animations: Animations) -> Self {
        self.animations = animations;
        self
    }

    /// CSS applied to the page (and so to the element) for the screenshots of
    /// this assertion only, removed afterwards (Playwright's `style`). Use it to
    /// hide or fix the size of what changes on its own, e.g. a notice that can
    /// grow under its mask: `.style("#notice { height: 40px !important }")`.
    /// Masks are measured with the style applied.
    pub fn style(mut self, css: &str) -> Self {
        self.style = Some(css.to_string());
        self
    }

    /// Whether the text caret shows (default [`Caret::Hide`]).
    pub fn caret(mut self, caret: Caret) -> Self {
        self.caret = caret;
        self
    }

    /// The whole scrollable page instead of the viewport (page screenshots only).
    pub fn full_page(mut self, full_page: bool) -> Self {
        match &mut self.target {
            Target::Page { full_page: f, .. } => *f = full_page,
            Target::Locator(_) => {
                self.misuse = self.misuse.or_else(|| {
                    Some(format!(
                        "expect({}).to_have_screenshot({:?}).full_page(…): full_page applies to \
                         page screenshots; a locator's screenshot is the element's box",
                        self.describe, self.name
                    ))
                })
            }
        }
        self
    }

    /// How long to wait for a stable screenshot (default `HARSHJUDGE_WAIT`, 5 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    fn page(&self) -> &Page {
        match &self.target {
            Target::Page { page, .. } => page,
            Target::Locator(l) => &l.page,
        }
    }

    fn what(&self) -> String {
        format!(
            "expect({}).to_have_screenshot({:?})",
            self.describe, self.name
        )
    }

    fn invalid(&self, message: String) -> BrowserError {
        BrowserError::Invalid {
            message,
            location: Some(self.at),
        }
    }

    fn failed(&self, message: String) -> BrowserError {
        BrowserError::Assertion {
            message,
            location: Some(self.at),
        }
    }

    async fn run(self) -> Result<(), BrowserError> {
        if let Some(m) = &self.misuse {
            return Err(self.invalid(m.clone()));
        }
        let name =
            check_name(&self.name).map_err(|m| self.invalid(format!("{}: {m}", self.what())))?;
        self.compare
            .validate()
            .map_err(|e| self.invalid(format!("{}: {e}", self.what())))?;
        let scenario = self.page().owner().ok_or_else(|| {
            self.invalid(format!(
                "{}: the page was not opened by Scenario::page(), so there is no scenario to keep \
                 the baseline for and no step to put the images in; open it with `s.page().await?`",
                self.what()
            ))
        })?;
        let setup = setup();
        let dir = setup
            .dir
            .as_ref()
            .map_err(|m| self.invalid(format!("{}: {m}", self.what())))?;
        let baseline = dir.join(scenario.slug()).join(format!("{name}.png"));
        let expected = match std::fs::read(&baseline) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(self.invalid(format!(
                    "{}: cannot read the baseline {}: {e}",
                    self.what(),
                    baseline.display()
                )));
            }
        };
        let timeout = self.timeout.unwrap_or_else(|| self.page().expect_wait());
        let start = Instant::now();
        let deadline = start + timeout;
        let attach = |suffix: &str, bytes: &[u8]| -> Result<String, BrowserError> {
            let file = format!("{name}-{suffix}");
            Arc::clone(&scenario)
                .attach(&file, "png", "screenshot", bytes)
                .map_err(|e| {
                    self.invalid(format!("{}: cannot attach {file}.png: {e}", self.what()))
                })?;
            Ok(format!("{file}.png"))
        };
        let cmp = |expected: &[u8], actual: &[u8]| -> Result<Comparison, BrowserError> {
            visual::compare(expected, actual, &self.compare)
                .map_err(|e| self.invalid(format!("{}: {e}", self.what())))
        };

        let mut previous: Option<Vec<u8>> = None;
        let mut shots = 0u32;
        let stable = loop {
            let shot = self.capture().await?;
            shots += 1;
            // A screenshot that matches the baseline at once passes.
            if shots == 1
                && let Some(exp) = &expected
                && (exp == &shot || cmp(exp, &shot)?.passed())
            {
                return Ok(());
            }
            if let Some(prev) = &previous
                && (prev == &shot || cmp(prev, &shot)?.passed())
            {
                break shot;
            }
            if Instant::now() >= deadline {
                let mut files = Vec::new();
                if let Some(prev) = &previous {
                    files.push(attach("previous", prev)?);
                }
                files.push(attach("actual", &shot)?);
                if let Some(exp) = &expected {
                    files.push(attach("expected", exp)?);
                }
                return Err(self.failed(format!(
                    "{} failed after {:.1} s: the page did not settle, no two screenshots in a row \
                     were equal ({shots} taken); mask what changes on its own (.mask(&[…])) or wait \
                     for the page to be still first\n  baseline: {}\n  evidence: {}",
                    self.what(),
                    start.elapsed().as_secs_f64(),
                    baseline.display(),
                    files.join(", ")
                )));
            }
            previous = Some(shot);
            let pause = [0u64, 100, 250, 500]
                .get(shots as usize)
                .copied()
                .unwrap_or(1000);
            let left = deadline.saturating_duration_since(Instant::now());
            tokio::time::sleep(Duration::from_millis(pause).min(left)).await;
        };

        let Some(exp) = expected else {
            if setup.update {
                return self.update(&baseline, &stable, Written::New, &scenario, &attach);
            }
            let actual = attach("actual", &stable)?;
            return Err(self.failed(format!(
                "{} failed: no baseline at {}\n  the screenshot taken is in the step's evidence as \
                 {actual}; to make it the baseline, run again with --update-snapshots (or \
                 HARSHJUDGE_UPDATE_SNAPSHOTS=1) and commit it",
                self.what(),
                baseline.display()
            )));
        };
        let result = cmp(&exp, &stable)?;
        if result.passed() {
            return Ok(());
        }
        if setup.update {
            return self.update(&baseline, &stable, Written::Replaced, &scenario, &attach);
        }
        let mut files = vec![attach("expected", &exp)?, attach("actual", &stable)?];
        if let Some(d) = result.pixels() {
            files.push(attach("diff", &d.diff_png())?);
        }
        let limits = format!(
            "max_diff_pixels {}, max_diff_pixel_ratio {}, threshold {}",
            self.compare
                .max_diff_pixels
                .map_or("none".to_string(), |v| v.to_string()),
            self.compare
                .max_diff_pixel_ratio
                .map_or("none".to_string(), |v| v.to_string()),
            self.compare.threshold
        );
        Err(self.failed(format!(
            "{} failed: {result}\n  limits: {limits}\n  baseline: {}\n  evidence: {}\n  if the new \
             look is right, run again with --update-snapshots (or HARSHJUDGE_UPDATE_SNAPSHOTS=1)",
            self.what(),
            baseline.display(),
            files.join(", ")
        )))
    }

    /// `--update-snapshots`: writes `shot` as the baseline, says so on stderr
    /// (`harshjudge: baseline written (new): {path}`) and in the step's
    /// evidence: the image written as `{name}-baseline.png` and
    /// `{name}-baseline.json` (`{"baseline": path, "written": "new" | "replaced"}`).
    fn update(
        &self,
        baseline: &Path,
        shot: &[u8],
        written: Written,
        scenario: &Arc<dyn ScenarioEvidence>,
        attach: &Attach<'_>,
    ) -> Result<(), BrowserError> {
        write_atomic(baseline, shot).map_err(|m| self.invalid(format!("{}: {m}", self.what())))?;
        let line = format!(
            "baseline written ({}): {}",
            written.as_str(),
            baseline.display()
        );
        eprintln!("harshjudge: {line} ({})", self.what());
        attach("baseline", shot)?;
        let note = json!({
            "baseline": baseline.display().to_string(),
            "written": written.as_str(),
            "assertion": self.what(),
        });
        let file = format!("{}-baseline", check_name(&self.name).unwrap_or_default());
        let bytes = serde_json::to_vec_pretty(&note).expect("a JSON value serializes");
        Arc::clone(scenario)
            .attach(&file, "json", "custom", &bytes)
            .map_err(|e| {
                self.invalid(format!("{}: cannot attach {file}.json: {e}", self.what()))
            })?;
        Ok(())
    }

    /// One screenshot with animations stopped, the caret hidden and the masks
    /// painted; the page is restored afterwards, whatever happened.
    async fn capture(&self) -> Result<Vec<u8>, BrowserError> {
        let page = self.page();
        let prepared: Value = page
            .evaluate(
                PREPARE_JS,
                json!({
                    "animations": self.animations == Animations::Disabled,
                    "caret": self.caret == Caret::Hide,
                    "color": self.mask_color,
                    "style": self.style,
                }),
            )
            .await
            .map_err(|e| e.located(self.at))?;
        if prepared["badColor"] == true {
            let _ = page.evaluate::<Value, _>(RESTORE_JS, ()).await;
            return Err(self.invalid(format!(
                "{}: mask_color {:?} is not a CSS colour; use e.g. \"#FF00FF\" or \"rgb(0, 0, 0)\"",
                self.what(),
                self.mask_color
            )));
        }
        let shot = self.capture_prepared().await;
        let restored = page.evaluate::<Value, _>(RESTORE_JS, ()).await;
        let shot = shot?;
        restored.map_err(|e| e.located(self.at))?;
        Ok(shot)
    }

    async fn capture_prepared(&self) -> Result<Vec<u8>, BrowserError> {
        let page = self.page();
        // The element's box first: it scrolls the element into view.
        let clip = match &self.target {
            Target::Locator(l) => Some(l.clip_for_screenshot(self.at).await?),
            Target::Page { .. } => None,
        };
        if !self.masks.is_empty() {
            let mut rects = Vec::new();
            for m in &self.masks {
                if let Some(msg) = &m.misuse {
                    return Err(self.invalid(format!("{} mask: {msg}", self.what())));
                }
                let call = Call {
                    request: Request::Query {
                        target: m.target(),
                        read: Read::BoundingBox,
                        all: true,
                        name: None,
                    },
                    timeout: 0,
                };
                let answer = page
                    .call(call, &format!("finding the mask {}", m.desc))
                    .await
                    .map_err(|e| e.located(self.at))?;
                let v = answer.into_value(&m.desc, "be found", Duration::ZERO, self.at)?;
                rects.extend(
                    v.as_array()
                        .into_iter()
                        .flatten()
                        .filter(|r| r.is_object())
                        .cloned(),
                );
            }
            page.evaluate::<Value, _>(MASK_JS, json!({ "rects": rects }))
                .await
                .map_err(|e| e.located(self.at))?;
        }
        let shot = match (&self.target, clip) {
            (_, Some(b)) => page.capture_clip(&b).await,
            (Target::Page { full_page, .. }, None) => page.capture(*full_page).await,
            (Target::Locator(_), None) => unreachable!("a locator always has its clip"),
        };
        shot.map_err(|e| e.located(self.at))
    }
}

impl IntoFuture for ScreenshotAssertion {
    type Output = Result<(), BrowserError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<(), BrowserError>> + Send>>;
    fn into_future(self) -> Self::IntoFuture {
        let (soft, at) = (self.soft, self.at);
        Box::pin(async move { crate::soft::settle(soft, at, self.run().await).await })
    }
}

/// Attaches `{name}-{suffix}.png` to the step's evidence; returns its file name.
type Attach<'a> = dyn Fn(&str, &[u8]) -> Result<String, BrowserError> + 'a;

/// What `--update-snapshots` did to a baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    /// There was none: it was created.
    New,
    /// It differed: it was overwritten.
    Replaced,
}

impl Written {
    fn as_str(self) -> &'static str {
        match self {
            Written::New => "new",
            Written::Replaced => "replaced",
        }
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a
/// rename, so a reader sees the old baseline or the new one, never half of one.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), BaselineError> {
    let dir = path.parent().expect("a baseline path has a folder");
    std::fs::create_dir_all(dir).map_err(|source| BaselineError::Folder {
        dir: dir.to_path_buf(),
        source,
    })?;
    let file = path.file_name().expect("a file name").to_string_lossy();
    let tmp = dir.join(format!(".{file}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    written.map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        BaselineError::Write {
            path: path.to_path_buf(),
            source,
        }
    })
}

/// Stops animations, hides the caret, applies the assertion's `style`, checks
/// the mask colour. The state to undo
/// is kept on `window.__hjShot` for [`RESTORE_JS`].
const PREPARE_JS: &str = r#"(o) => {
  if (window.__hjShot) return { ok: true };
  const st = window.__hjShot = { masks: [], infinite: [], color: o.color };
  if (!CSS.supports('color', o.color)) return { badColor: true };
  if (o.caret) {
    const s = document.createElement('style');
    s.textContent = '*, *::before, *::after { caret-color: transparent !important; }';
    (document.head || document.documentElement).appendChild(s);
    st.style = s;
  }
  if (typeof o.style === 'string') {
    const s = document.createElement('style');
    s.textContent = o.style;
    (document.head || document.documentElement).appendChild(s);
    st.userStyle = s;
  }
  if (o.animations) {
    const stop = () => {
      for (const a of document.getAnimations()) {
        try {
          const t = a.effect && a.effect.getComputedTiming();
          if (t && t.endTime === Infinity) { if (a.playState !== 'idle') { a.cancel(); st.infinite.push(a); } }
          else if (a.playState !== 'finished') a.finish();
        } catch (e) { /* an animation that cannot finish stays as it is */ }
      }
    };
    stop();
    st.stop = stop;
    for (const ev of ['animationstart', 'transitionrun', 'transitionstart']) document.addEventListener(ev, stop, true);
  }
  return { ok: true };
}"#;

/// Paints the masks' boxes (viewport coordinates) over the page.
const MASK_JS: &str = r#"(o) => {
  const st = window.__hjShot;
  if (!st) return false;
  for (const r of o.rects) {
    const m = document.createElement('x-harshjudge-mask');
    const set = (k, v) => m.style.setProperty(k, v, 'important');
    set('position', 'absolute'); set('display', 'block'); set('pointer-events', 'none');
    set('z-index', '2147483647'); set('margin', '0'); set('padding', '0'); set('border', '0');
    set('left', (r.x + scrollX) + 'px'); set('top', (r.y + scrollY) + 'px');
    set('width', r.width + 'px'); set('height', r.height + 'px');
    set('background', st.color);
    document.documentElement.appendChild(m);
    st.masks.push(m);
  }
  return true;
}"#;

/// Undoes [`PREPARE_JS`] and [`MASK_JS`].
const RESTORE_JS: &str = r#"() => {
  const st = window.__hjShot;
  if (!st) return false;
  delete window.__hjShot;
  for (const m of st.masks) m.remove();
  if (st.style) st.style.remove();
  if (st.userStyle) st.userStyle.remove();
  if (st.stop) for (const ev of ['animationstart', 'transitionrun', 'transitionstart']) document.removeEventListener(ev, st.stop, true);
  for (const a of st.infinite) { try { a.play(); } catch (e) { /* gone with its element */ } }
  return true;
}"#;

#[cfg(test)]
mod tests {
    use super::check_name;

    #[test]
    fn names_are_file_names_never_paths() {
        for good in ["cart", "cart.png", "checkout-total", "a_b.c", "Badge2"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        assert_eq!(check_name("cart.png").unwrap(), "cart");
        for bad in [
            "",
            ".png",
            "../cart",
            "a/b",
            "a\\b",
            "..",
            "x..y",
            ".hidden",
            "-flag",
            "a b",
            "é",
            "a\0b",
            &"x".repeat(81),
        ] {
            let e = check_name(bad).expect_err(bad).to_string();
            assert!(
                e.contains("invalid screenshot name") && e.contains("never a path"),
                "{e}"
            );
        }
    }
}
