//! Web-first assertions: [`expect`]`(&locator)` and [`expect`]`(&page)` retry
//! inside the page until they hold or their time runs out: the call's
//! [`timeout`](Assertion::timeout) (on the matcher, as Playwright puts it, or
//! on the builder, [`LocatorExpect::timeout`]), else the suite's
//! (`HARSHJUDGE_EXPECT_TIMEOUT` or `main!(expect_timeout = …)`), else the
//! page's wait (`HARSHJUDGE_WAIT`, 5 s); [`not`](LocatorExpect::not) inverts them. A
//! failure names the locator, what was expected, what was received at the last
//! check, how long it waited and a call log, and is located at the line of the
//! `expect(…)` call.

use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::engine::call_log;
use super::error::BrowserError;
use super::locator::{Locator, TextMatch};
use super::page::Page;
use super::protocol::{Call, ExpectPattern, Matcher, Request, Target};
use super::snapshot::ScreenshotAssertion;
use super::trace::{self, CallText, Kind};

/// What an assertion expects of one element's text or class, or of every element
/// in order (a list).
#[derive(Clone, Debug)]
pub enum Expected {
    /// One value.
    One(TextMatch),
    /// One value per element, in order (the count must match too).
    List(Vec<TextMatch>),
}

impl Expected {
    fn describe(&self) -> String {
        match self {
            Expected::One(m) => m.describe(),
            Expected::List(l) => format!(
                "[{}]",
                l.iter()
                    .map(TextMatch::describe)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

macro_rules! expected_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Expected {
            fn from(v: $t) -> Self {
                Expected::One(v.into())
            }
        }
    )*};
}
expected_from!(
    &str,
    String,
    &String,
    regex::Regex,
    &regex::Regex,
    TextMatch
);

impl<T: Into<TextMatch>, const N: usize> From<[T; N]> for Expected {
    fn from(v: [T; N]) -> Self {
        Expected::List(v.into_iter().map(Into::into).collect())
    }
}
impl<T: Into<TextMatch>> From<Vec<T>> for Expected {
    fn from(v: Vec<T>) -> Self {
        Expected::List(v.into_iter().map(Into::into).collect())
    }
}
impl<T: Into<TextMatch> + Clone> From<&[T]> for Expected {
    fn from(v: &[T]) -> Self {
        Expected::List(v.iter().cloned().map(Into::into).collect())
    }
}

/// What [`expect`] accepts: a [`Locator`] or a [`Page`].
pub trait Expectable {
    /// The assertion builder.
    type Expect;
    /// The builder, located at `at`.
    fn expect_at(&self, at: &'static Location<'static>) -> Self::Expect;
}

impl Expectable for Locator {
    type Expect = LocatorExpect;
    fn expect_at(&self, at: &'static Location<'static>) -> LocatorExpect {
        LocatorExpect {
            locator: self.clone(),
            not: false,
            soft: false,
            timeout: None,
            at,
        }
    }
}

impl Expectable for Page {
    type Expect = PageExpect;
    fn expect_at(&self, at: &'static Location<'static>) -> PageExpect {
        PageExpect {
            page: self.clone(),
            not: false,
            soft: false,
            timeout: None,
            at,
        }
    }
}

/// A web-first assertion on a [`Locator`] or a [`Page`]:
/// `expect(&page.get_by_test_id("count")).to_have_text("2 items").await?`.
///
/// It retries until it holds or its limit passes (the call's `.timeout(…)`,
/// else the suite's `HARSHJUDGE_EXPECT_TIMEOUT` or `main!(expect_timeout = …)`,
/// else the page's wait, `HARSHJUDGE_WAIT`, 5 s), then fails naming the
/// locator, what was expected and what was found. `.not()` inverts it;
/// `.soft()` records a failure and lets the step go on (it fails at its end).
/// Requests' responses and commands' outputs have their own `expect`
/// assertions (`to_have_status`, `to_succeed`, …).
///
/// ```no_run
/// # async fn f(page: harshjudge_browser::Page) -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use harshjudge_browser::expect;
///
/// let count = page.get_by_test_id("todo-count");
/// expect(&count).to_have_text("2 items left").await?;
/// expect(&page.get_by_role("alert")).not().to_be_visible().await?;
/// expect(&page.get_by_role("listitem")).to_have_count(2).await?;
/// expect(&page)
///     .to_have_title("Todos")
///     .timeout(Duration::from_secs(10))
///     .await?;
/// # Ok(()) }
/// ```
#[track_caller]
pub fn expect<T: Expectable + ?Sized>(target: &T) -> T::Expect {
    target.expect_at(Location::caller())
}

/// Assertions on a locator (see [`expect`]).
#[must_use = "an assertion does nothing until a matcher is awaited"]
#[derive(Clone, Debug)]
pub struct LocatorExpect {
    locator: Locator,
    not: bool,
    soft: bool,
    timeout: Option<Duration>,
    at: &'static Location<'static>,
}

/// Assertions on a page (see [`expect`]).
#[must_use = "an assertion does nothing until a matcher is awaited"]
#[derive(Clone, Debug)]
pub struct PageExpect {
    page: Page,
    not: bool,
    soft: bool,
    timeout: Option<Duration>,
    at: &'static Location<'static>,
}

/// Runs one assertion in the page and turns a miss into its failure message.
async fn assert(
    page: &Page,
    target: Target,
    matcher: Matcher,
    what: String,
    not: bool,
    timeout: Option<Duration>,
    at: &'static Location<'static>,
) -> Result<(), BrowserError> {
    let timeout = timeout.unwrap_or_else(|| page.expect_wait());
    let describe = target.describe.clone();
    let frame = target.frame.clone();
    // Inside the assertion's span: while a trace is recorded the page names
    // the element a single-element matcher resolved.
    let call = Call {
        request: Request::Expect {
            target,
            matcher,
            not,
            what: what.clone(),
        }
        .traced(trace::is_open()),
        timeout: timeout.as_millis() as u64,
    };
    let start = Instant::now();
    let during = format!(
        "expecting {describe} {}{what}",
        if not { "not " } else { "" }
    );
    let answer = page.call(call, &during).await.map_err(|e| e.located(at))?;
    trace::target(&describe, frame.as_ref(), answer.traced.as_ref());
    let waited = start.elapsed();
    let log = call_log(&answer.log);
    let value = answer.into_value(&describe, &what, waited, at)?;
    if value["pass"] == true {
        return Ok(());
    }
    let received = match &value["received"] {
        Value::String(s) => format!("{s:?}"),
        Value::Null => "nothing".into(),
        v => v.to_string(),
    };
    Err(BrowserError::Assertion {
        message: format!(
            "expect({describe}).{}{what} failed after {:.1} s\n  expected: {}{what}\n  received: {received}{}",
            if not { "not()." } else { "" },
            waited.as_secs_f64(),
            if not { "not " } else { "" },
            log,
        ),
        location: Some(at),
    })
}

/// One assertion made and not yet run.
struct Job {
    page: Page,
    target: Target,
    /// The matcher, or why the call cannot work (a misused locator, an ARIA
    /// template that does not parse): told when awaited.
    matcher: Result<Matcher, BrowserError>,
    what: String,
    not: bool,
    soft: bool,
    timeout: Option<Duration>,
    at: &'static Location<'static>,
}

impl Job {
    async fn run(self) -> Result<(), BrowserError> {
        let Job {
            page,
            target,
            matcher,
            what,
            not,
            soft: _,
            timeout,
            at,
        } = self;
        let tracer = page.tracer();
        let frame = target.frame.clone();
        let call = tracer.map(|_| CallText::Expect {
            desc: target.describe.clone(),
            not,
            what: what.clone(),
        });
        // Boxed, as a locator call's body (`locator/calls.rs`, `run`).
        let body =
            Box::pin(async { assert(&page, target, matcher?, what, not, timeout, at).await });
        let call = || call.expect("made when traced");
        // No slow motion: an assertion is no action.
        let still = std::time::Duration::ZERO;
        trace::span(
            tracer,
            still,
            frame.as_ref(),
            Kind::Assertion,
            call,
            at,
            body,
        )
        .await
    }
}

/// A web-first assertion of [`expect`], run when awaited:
/// `expect(&l).to_be_visible().await?`. Its options go on the matcher, as
/// Playwright puts them (`expect(&l).to_be_visible().timeout(d)`), or on the
/// builder (`expect(&l).timeout(d).to_be_visible()`); the matcher's win.
#[must_use = "an assertion does nothing until awaited"]
pub struct Assertion {
    job: Option<Job>,
    /// The assertion under way, boxed: an expectation's state stays off the
    /// caller's stack (a debug test thread has 2 MiB).
    running: Option<Running<'static>>,
}

/// An assertion or a click under way.
pub(crate) type Running<'a> = Pin<Box<dyn Future<Output = Result<(), BrowserError>> + Send + 'a>>;

impl Assertion {
    fn new(job: Job) -> Assertion {
        Assertion {
            job: Some(job),
            running: None,
        }
    }

    /// How long the assertion retries (Playwright's matcher option
    /// `timeout`); wins over the builder's and the suite's.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        if let Some(job) = &mut self.job {
            job.timeout = Some(timeout);
        }
        self
    }
}

impl std::fmt::Debug for Assertion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Assertion");
        if let Some(job) = &self.job {
            d.field("target", &job.target.describe)
                .field("what", &job.what)
                .field("not", &job.not)
                .field("timeout", &job.timeout);
        }
        d.field("running", &self.running.is_some()).finish()
    }
}

impl Future for Assertion {
    type Output = Result<(), BrowserError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if this.running.is_none() {
            let Some(job) = this.job.take() else {
                panic!("an Assertion polled after it completed");
            };
            let (soft, at) = (job.soft, job.at);
            this.running = Some(Box::pin(async move {
                crate::soft::settle(soft, at, job.run().await).await
            }));
        }
        let running = this.running.as_mut().expect("set above");
        let done = running.as_mut().poll(cx);
        if done.is_ready() {
            this.running = None;
        }
        done
    }
}

macro_rules! matcher {
    ($(#[$doc:meta])* $name:ident, $m:ident, $what:literal) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name(self) -> Assertion {
            self.run(Matcher::$m, $what.to_string())
        }
    };
}

impl LocatorExpect {
    /// Inverts the assertion (Playwright's `.not`).
    #[allow(clippy::should_implement_trait)]
    pub fn not(mut self) -> Self {
        self.not = !self.not;
        self
    }

    /// A soft assertion (Playwright's `expect.soft`): its failure is
    /// recorded (message, place, the evidence a failure takes) and the step
    /// goes on; at the step's end the step fails, listing every soft
    /// failure in order. Outside a scenario it fails as a hard one.
    pub fn soft(mut self) -> Self {
        self.soft = true;
        self
    }

    /// How long the assertion retries (default: the suite's
    /// `HARSHJUDGE_EXPECT_TIMEOUT` or `main!(expect_timeout = …)`, else
    /// `HARSHJUDGE_WAIT`, 5 s). The matcher takes it too:
    /// `expect(&l).to_be_visible().timeout(d)`.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    fn run(self, matcher: Matcher, what: String) -> Assertion {
        self.run_parsed(Ok(matcher), what)
    }

    fn run_parsed(self, matcher: Result<Matcher, BrowserError>, what: String) -> Assertion {
        let matcher = self.locator.misused(self.at).and(matcher);
        Assertion::new(Job {
            page: self.locator.page.clone(),
            target: self.locator.target(),
            matcher,
            what,
            not: self.not,
            soft: self.soft,
            timeout: self.timeout,
            at: self.at,
        })
    }

    matcher!(
        /// The single element is visible (a non-empty box, not `visibility:hidden`).
        to_be_visible, Visible, "to_be_visible()");
    matcher!(
        /// The element is hidden or absent.
        to_be_hidden, Hidden, "to_be_hidden()");
    matcher!(
        /// The element is in the DOM.
        to_be_attached, Attached, "to_be_attached()");
    matcher!(
        /// The element is enabled.
        to_be_enabled, Enabled, "to_be_enabled()");
    matcher!(
        /// The element is disabled (natively, by a disabled fieldset, or `aria-disabled`).
        to_be_disabled, Disabled, "to_be_disabled()");
    matcher!(
        /// The element can be filled (enabled, not readonly).
        to_be_editable, Editable, "to_be_editable()");
    matcher!(
        /// The element has focus.
        to_be_focused, Focused, "to_be_focused()");
    matcher!(
        /// The field has no value, or the element no text.
        to_be_empty, Empty, "to_be_empty()");

    /// The checkbox or radio button is checked.
    #[track_caller]
    pub fn to_be_checked(self) -> Assertion {
        self.run(
            Matcher::Checked { expected: true },
            "to_be_checked()".into(),
        )
    }

    /// The checkbox is unchecked (`to_be_checked` with `checked: false`).
    #[track_caller]
    pub fn to_be_unchecked(self) -> Assertion {
        self.run(
            Matcher::Checked { expected: false },
            "to_be_unchecked()".into(),
        )
    }

    /// Some part of the element is in the viewport.
    #[track_caller]
    pub fn to_be_in_viewport(self) -> Assertion {
        self.run(
            Matcher::InViewport { expected: 0.0 },
            "to_be_in_viewport()".into(),
        )
    }

    /// At least `ratio` (0–1) of the element is in the viewport.
    #[track_caller]
    pub fn to_be_in_viewport_ratio(self, ratio: f64) -> Assertion {
        self.run(
            Matcher::InViewport { expected: ratio },
            format!("to_be_in_viewport_ratio({ratio})"),
        )
    }

    fn text_like(
        self,
        expected: Expected,
        one: fn(ExpectPattern) -> Matcher,
        list: fn(Vec<ExpectPattern>) -> Matcher,
        name: &str,
        ignore_case: bool,
    ) -> Assertion {
        let what = format!("{name}({})", expected.describe());
        let matcher = match expected {
            Expected::One(m) => one(m.expect_pattern(ignore_case)),
            Expected::List(l) => list(l.iter().map(|m| m.expect_pattern(ignore_case)).collect()),
        };
        self.run(matcher, what)
    }

    /// The text (whitespace normalised) is exactly `expected` (case-sensitive), or
    /// matches a regex; a list matches the elements one by one, in order.
    #[track_caller]
    pub fn to_have_text(self, expected: impl Into<Expected>) -> Assertion {
        self.text_like(
            expected.into(),
            |expected| Matcher::Text { expected },
            |expected| Matcher::Texts { expected },
            "to_have_text",
            false,
        )
    }

    /// The text contains `expected` (or each element's text its item of a list).
    #[track_caller]
    pub fn to_contain_text(self, expected: impl Into<Expected>) -> Assertion {
        self.text_like(
            expected.into(),
            |expected| Matcher::ContainText { expected },
            |expected| Matcher::ContainTexts { expected },
            "to_contain_text",
            false,
        )
    }

    /// [`to_have_text`](Self::to_have_text), ignoring case.
    #[track_caller]
    pub fn to_have_text_ignore_case(self, expected: impl Into<Expected>) -> Assertion {
        self.text_like(
            expected.into(),
            |expected| Matcher::Text { expected },
            |expected| Matcher::Texts { expected },
            "to_have_text_ignore_case",
            true,
        )
    }

    /// Exactly `count` elements match.
    #[track_caller]
    pub fn to_have_count(self, count: usize) -> Assertion {
        self.run(
            Matcher::Count { expected: count },
            format!("to_have_count({count})"),
        )
    }

    /// The field's value is `expected` (exact) or matches a regex.
    #[track_caller]
    pub fn to_have_value(self, expected: impl Into<TextMatch>) -> Assertion {
        let m: TextMatch = expected.into();
        let what = format!("to_have_value({})", m.describe());
        self.run(
            Matcher::Value {
                expected: m.expect_pattern(false),
            },
            what,
        )
    }

    /// The selected values of a `<select multiple>`, in order.
    #[track_caller]
    pub fn to_have_values<I, T>(self, expected: I) -> Assertion
    where
        I: IntoIterator<Item = T>,
        T: Into<TextMatch>,
    {
        let list: Vec<TextMatch> = expected.into_iter().map(Into::into).collect();
        let what = format!(
            "to_have_values({})",
            Expected::List(list.clone()).describe()
        );
        self.run(
            Matcher::ValuesList {
                expected: list.iter().map(|m| m.expect_pattern(false)).collect(),
            },
            what,
        )
    }

    /// The element has the attribute with that value (exact or regex).
    #[track_caller]
    pub fn to_have_attribute(self, name: &str, value: impl Into<TextMatch>) -> Assertion {
        let m: TextMatch = value.into();
        let what = format!("to_have_attribute({name:?}, {})", m.describe());
        self.run(
            Matcher::Attribute {
                name: name.to_string(),
                expected: Some(m.expect_pattern(false)),
            },
            what,
        )
    }

    /// The element has the attribute (any value).
    #[track_caller]
    pub fn to_have_attribute_present(self, name: &str) -> Assertion {
        let what = format!("to_have_attribute_present({name:?})");
        self.run(
            Matcher::Attribute {
                name: name.to_string(),
                expected: None,
            },
            what,
        )
    }

    /// The `class` attribute is exactly `expected` (or matches a regex); a list
    /// matches the elements one by one.
    #[track_caller]
    pub fn to_have_class(self, expected: impl Into<Expected>) -> Assertion {
        self.text_like(
            expected.into(),
            |expected| Matcher::Class { expected },
            |expected| Matcher::Classes { expected },
            "to_have_class",
            false,
        )
    }

    /// The element has every class of `expected` (space-separated), among others;
    /// a list matches the elements one by one.
    #[track_caller]
    pub fn to_contain_class(self, expected: impl Into<Expected>) -> Assertion {
        self.text_like(
            expected.into(),
            |expected| Matcher::ContainClass { expected },
            |expected| Matcher::ContainClasses { expected },
            "to_contain_class",
            false,
        )
    }

    /// A computed CSS property has that value (`"rgb(255, 0, 0)"`, `"none"`, …).
    #[track_caller]
    pub fn to_have_css(self, name: &str, value: impl Into<TextMatch>) -> Assertion {
        let m: TextMatch = value.into();
        let what = format!("to_have_css({name:?}, {})", m.describe());
        self.run(
            Matcher::Css {
                name: name.to_string(),
                expected: m.expect_pattern(false),
            },
            what,
        )
    }

    /// The element's id.
    #[track_caller]
    pub fn to_have_id(self, id: impl Into<TextMatch>) -> Assertion {
        let m: TextMatch = id.into();
        let what = format!("to_have_id({})", m.describe());
        self.run(
            Matcher::Id {
                expected: m.expect_pattern(false),
            },
            what,
        )
    }

    /// The element's ARIA role.
    #[track_caller]
    pub fn to_have_role(self, role: &str) -> Assertion {
        self.run(
            Matcher::Role {
                expected: role.to_string(),
            },
            format!("to_have_role({role:?})"),
        )
    }

    /// The element's accessible name (exact, whitespace normalised, or a regex).
    #[track_caller]
    pub fn to_have_accessible_name(self, name: impl Into<TextMatch>) -> Assertion {
        let m: TextMatch = name.into();
        let what = format!("to_have_accessible_name({})", m.describe());
        self.run(
            Matcher::AccessibleName {
                expected: m.expect_pattern(false),
            },
            what,
        )
    }

    /// The element's accessibility tree matches a YAML template, as Playwright's
    /// `toMatchAriaSnapshot`: `- heading "Todos" [level=1]`, `- list:\n  - listitem: "One"`.
    /// A template node matches the element or any node below it; its children
    /// must appear among the node's in order (others may come between), unless
    /// `- /children: equal` or `deep-equal` says otherwise; a name may be a
    /// `/regex/`; `- text: …` matches text; attributes left out match anything.
    /// A template that does not parse fails at once, naming what is wrong.
    #[track_caller]
    pub fn to_match_aria_snapshot(self, template: &str) -> Assertion {
        let what = format!("to_match_aria_snapshot({template:?})");
        let at = self.at;
        let parsed = super::aria_template::parse(template)
            .map(|expected| Matcher::AriaSnapshot { expected })
            .map_err(|e| BrowserError::Invalid {
                message: e.to_string(),
                location: Some(at),
            });
        self.run_parsed(parsed, what)
    }
}

impl PageExpect {
    /// Inverts the assertion (Playwright's `.not`).
    #[allow(clippy::should_implement_trait)]
    pub fn not(mut self) -> Self {
        self.not = !self.not;
        self
    }

    /// A soft assertion, as [`LocatorExpect::soft`].
    pub fn soft(mut self) -> Self {
        self.soft = true;
        self
    }

    /// How long the assertion retries (as [`LocatorExpect::timeout`]; the
    /// matcher takes it too: `expect(&page).to_have_url(u).timeout(d)`).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    fn run(self, matcher: Matcher, what: String) -> Assertion {
        Assertion::new(Job {
            page: self.page,
            target: Target {
                chain: Vec::new(),
                describe: "page".into(),
                frame: None,
                trace: false,
            },
            matcher: Ok(matcher),
            what,
            not: self.not,
            soft: self.soft,
            timeout: self.timeout,
            at: self.at,
        })
    }

    /// The URL is exactly `expected` (a path such as `"/dashboard"` is joined to
    /// the base URL), or matches a regex.
    #[track_caller]
    pub fn to_have_url(self, expected: impl Into<TextMatch>) -> Assertion {
        let m = match expected.into() {
            TextMatch::Substring(s) | TextMatch::Exact(s) => {
                TextMatch::Exact(self.page.url_for(&s).unwrap_or(s))
            }
            r => r,
        };
        let what = format!("to_have_url({})", m.describe());
        self.run(
            Matcher::Url {
                expected: m.expect_pattern(false),
            },
            what,
        )
    }

    /// The title is exactly `expected` (whitespace normalised), or matches a regex.
    #[track_caller]
    pub fn to_have_title(self, expected: impl Into<TextMatch>) -> Assertion {
        let m: TextMatch = expected.into();
        let what = format!("to_have_title({})", m.describe());
        self.run(
            Matcher::Title {
                expected: m.expect_pattern(false),
            },
            what,
        )
    }
}

impl Page {
    /// Waits until the URL is `expected` (a path is joined to the base URL) or
    /// matches a regex.
    #[track_caller]
    pub fn wait_for_url(&self, expected: impl Into<TextMatch>) -> Assertion {
        expect(self).to_have_url(expected)
    }
}

// ---- visual baselines (browser/snapshot.rs) ----

impl PageExpect {
    /// The page looks like its baseline `{name}.png` (viewport, or the whole page
    /// with `.full_page(true)`): see [`ScreenshotAssertion`](super::ScreenshotAssertion)
    /// for the options and where baselines live.
    #[track_caller]
    pub fn to_have_screenshot(self, name: &str) -> ScreenshotAssertion {
        ScreenshotAssertion::for_page(self.page, name, self.not, self.timeout, self.at)
            .soft_if(self.soft)
    }
}

impl LocatorExpect {
    /// The element looks like its baseline `{name}.png`: see
    /// [`ScreenshotAssertion`](super::ScreenshotAssertion).
    #[track_caller]
    pub fn to_have_screenshot(self, name: &str) -> ScreenshotAssertion {
        ScreenshotAssertion::for_locator(self.locator, name, self.not, self.timeout, self.at)
            .soft_if(self.soft)
    }
}
