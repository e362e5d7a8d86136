//! Polling and retried blocks: [`expect_poll`] (Playwright's `expect.poll`)
//! calls a function until the value it gives matches, for values that are
//! not on a page (an API, a file, a database row); [`to_pass`] (Playwright's
//! `expect(…).toPass()`) runs a whole block of checks until it passes.
//!
//! Both wait between tries by Playwright's intervals (100, 250, 500 ms, then
//! 1 s; `.intervals(…)` sets others, the last repeating) and give up after the
//! expect timeout (`.timeout(d)`, else `HARSHJUDGE_EXPECT_TIMEOUT` or
//! `main!(expect_timeout = …)`, else `HARSHJUDGE_WAIT`, 5 s). A failure names
//! the last value or error and how many tries were made, located at the
//! `expect_poll`/`to_pass` call. Both take `.soft()`; a soft assertion that
//! fails inside a `to_pass` block fails that try (nothing reaches the step).

use std::fmt::Debug;
use std::future::{Future, IntoFuture};
use std::panic::Location;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::Error;
use harshjudge_browser::soft::{self, SoftFailure, SoftSink};

/// Playwright's default intervals between tries; the last repeats.
pub const DEFAULT_INTERVALS: [Duration; 4] = [
    Duration::from_millis(100),
    Duration::from_millis(250),
    Duration::from_millis(500),
    Duration::from_millis(1000),
];

/// The limits of a retry loop: intervals, timeout, softness, place.
#[derive(Clone, Debug)]
struct Retry {
    intervals: Vec<Duration>,
    timeout: Option<Duration>,
    soft: bool,
    at: &'static Location<'static>,
}

impl Retry {
    fn new(at: &'static Location<'static>) -> Retry {
        Retry {
            intervals: DEFAULT_INTERVALS.to_vec(),
            timeout: None,
            soft: false,
            at,
        }
    }

    /// The limit: the call's, else the suite's expect timeout.
    fn limit(&self) -> Result<Duration, Error> {
        match self.timeout {
            Some(d) => Ok(d),
            None => harshjudge_browser::default_expect_timeout()
                .map_err(|e| Error::located(e.to_string(), self.at)),
        }
    }

    /// The wait after try `n` (0-based).
    fn interval(&self, n: usize) -> Duration {
        self.intervals
            .get(n)
            .or(self.intervals.last())
            .copied()
            .unwrap_or(Duration::from_secs(1))
    }

    fn set_intervals(&mut self, intervals: impl IntoIterator<Item = Duration>) {
        let v: Vec<Duration> = intervals.into_iter().collect();
        if !v.is_empty() {
            self.intervals = v;
        }
    }
}

/// What one try came to: passed, or missed with what it saw.
enum Try<M> {
    Passed,
    Missed(M),
}

impl Retry {
    /// Runs `attempt` (given the try's number, from 1) until it passes,
    /// waiting the intervals between tries up to the limit; past it, the
    /// failure `give_up` words from the last miss and the tries, located at
    /// the call. An error of a try ends it at once. A soft one's failure is
    /// recorded (`soft::settle`).
    async fn until<M, Fut>(
        &self,
        mut attempt: impl FnMut(usize) -> Fut,
        give_up: impl FnOnce(M, String) -> String,
    ) -> Result<(), Error>
    where
        Fut: Future<Output = Result<Try<M>, Error>>,
    {
        let result = async {
            let limit = self.limit()?;
            let started = Instant::now();
            let mut n = 0;
            loop {
                n += 1;
                let missed = match attempt(n).await? {
                    Try::Passed => return Ok(()),
                    Try::Missed(m) => m,
                };
                let wait = self.interval(n - 1);
                if started.elapsed() + wait > limit {
                    return Err(Error::located(give_up(missed, tries(n, started)), self.at));
                }
                tokio::time::sleep(wait).await;
            }
        }
        .await;
        soft::settle(self.soft, self.at, result).await
    }
}

/// How long, and how many tries, for a failure's message.
fn tries(n: usize, started: Instant) -> String {
    format!(
        "after {:.1} s ({n} tr{})",
        started.elapsed().as_secs_f64(),
        if n == 1 { "y" } else { "ies" }
    )
}

// ---- expect_poll -------------------------------------------------------------

/// Polls `f` until the value it gives matches (Playwright's `expect.poll`):
///
/// ```no_run
/// # async fn f(s: harshjudge::Scenario) -> harshjudge::Result {
/// use harshjudge::expect_poll;
/// expect_poll(|| async { Ok(s.request().get("/api/health").send().await?.status()) })
///     .timeout(std::time::Duration::from_secs(10))
///     .to_equal(200)
///     .await?;
/// # Ok(()) }
/// ```
///
/// `f` returns `harshjudge::Result<T>`: its error fails the assertion at once
/// (as an exception in Playwright's function does), naming the try.
#[track_caller]
pub fn expect_poll<F, Fut, T>(f: F) -> PollExpect<F>
where
    F: FnMut() -> Fut + Send,
    Fut: Future<Output = Result<T, Error>> + Send,
    T: Debug + Send,
{
    PollExpect {
        f,
        not: false,
        retry: Retry::new(Location::caller()),
    }
}

/// [`expect_poll`]'s builder: options, then a matcher to await.
#[must_use = "an assertion does nothing until a matcher is awaited"]
pub struct PollExpect<F> {
    f: F,
    not: bool,
    retry: Retry,
}

impl<F> std::fmt::Debug for PollExpect<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PollExpect")
            .field("not", &self.not)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

/// A polled assertion under way; `.await` it.
pub type Polled<'a> = Pin<Box<dyn Future<Output = Result<(), Error>> + Send + 'a>>;

/// A matcher comparing the value with a bound by `$op` (`$shown` in its
/// failure).
macro_rules! order_matcher {
    ($(#[$doc:meta])* $name:ident, $shown:literal, $op:tt) => {
        $(#[$doc])*
        pub fn $name<'a, U>(self, bound: U) -> Polled<'a>
        where
            T: PartialOrd<U> + 'a,
            U: Debug + Send + Sync + 'a,
            F: 'a,
        {
            let shown = format!("{} {bound:?}", $shown);
            self.run(
                format!("{}({bound:?})", stringify!($name)),
                shown,
                move |v| *v $op bound,
            )
        }
    };
}

impl<F, Fut, T> PollExpect<F>
where
    F: FnMut() -> Fut + Send,
    Fut: Future<Output = Result<T, Error>> + Send,
    T: Debug + Send,
{
    /// Inverts the matcher (Playwright's `.not`).
    #[allow(clippy::should_implement_trait)]
    pub fn not(mut self) -> Self {
        self.not = !self.not;
        self
    }

    /// How long it polls (default: the expect timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.retry.timeout = Some(timeout);
        self
    }

    /// The waits between tries, the last repeating (default 100, 250, 500 ms,
    /// then 1 s).
    pub fn intervals(mut self, intervals: impl IntoIterator<Item = Duration>) -> Self {
        self.retry.set_intervals(intervals);
        self
    }

    /// A soft assertion (as [`LocatorExpect::soft`](harshjudge_browser::LocatorExpect::soft)).
    pub fn soft(mut self) -> Self {
        self.retry.soft = true;
        self
    }

    /// Polls until `test` holds of the value (inverted by `not`).
    fn run<'a>(
        self,
        what: String,
        expected: String,
        test: impl Fn(&T) -> bool + Send + Sync + 'a,
    ) -> Polled<'a>
    where
        F: 'a,
        T: 'a,
    {
        let PollExpect { mut f, not, retry } = self;
        Box::pin(async move {
            let (what, test) = (&what, &test);
            let attempt = |n: usize| {
                let value = f();
                async move {
                    let value = value.await.map_err(|e| {
                        Error::located(
                            format!(
                                "expect_poll(…).{what}: the polled function failed on try {n}: {}",
                                e.message()
                            ),
                            retry.at,
                        )
                    })?;
                    Ok(if test(&value) != not {
                        Try::Passed
                    } else {
                        Try::Missed(value)
                    })
                }
            };
            let give_up = |value: T, tries: String| {
                let neg = if not { "not " } else { "" };
                format!(
                    "expect_poll(…).{}{what} failed {tries}\n  expected: {neg}{expected}\n  received: {value:?}",
                    if not { "not()." } else { "" },
                )
            };
            retry.until(attempt, give_up).await
        })
    }

    /// The value equals `expected` (`==`).
    pub fn to_equal<'a, U>(self, expected: U) -> Polled<'a>
    where
        T: PartialEq<U> + 'a,
        U: Debug + Send + Sync + 'a,
        F: 'a,
    {
        let shown = format!("{expected:?}");
        self.run(format!("to_equal({shown})"), shown, move |v| *v == expected)
    }

    order_matcher!(
        /// The value is greater than `bound`.
        to_be_greater_than, ">", >);
    order_matcher!(
        /// The value is greater than or equal to `bound`.
        to_be_greater_than_or_equal, ">=", >=);
    order_matcher!(
        /// The value is less than `bound`.
        to_be_less_than, "<", <);
    order_matcher!(
        /// The value is less than or equal to `bound`.
        to_be_less_than_or_equal, "<=", <=);

    /// The value contains `needle`: a substring of a string, an element of a
    /// list.
    pub fn to_contain<'a, N>(self, needle: N) -> Polled<'a>
    where
        T: Contains<N> + 'a,
        N: Debug + Send + Sync + 'a,
        F: 'a,
    {
        let shown = format!("containing {needle:?}");
        self.run(format!("to_contain({needle:?})"), shown, move |v| {
            v.contains_item(&needle)
        })
    }

    /// The string matches `re`.
    pub fn to_match<'a>(self, re: regex::Regex) -> Polled<'a>
    where
        T: AsRef<str> + 'a,
        F: 'a,
    {
        let shown = format!("matching /{}/", re.as_str());
        self.run(format!("to_match(/{}/)", re.as_str()), shown, move |v| {
            re.is_match(v.as_ref())
        })
    }

    /// `pred` holds of the value; `what` says what it checks, for the failure.
    pub fn to_satisfy<'a, P>(self, what: &str, pred: P) -> Polled<'a>
    where
        P: Fn(&T) -> bool + Send + Sync + 'a,
        T: 'a,
        F: 'a,
    {
        self.run(format!("to_satisfy({what:?})"), what.to_string(), pred)
    }
}

/// What [`PollExpect::to_contain`] looks in.
pub trait Contains<N> {
    /// Whether `needle` is in `self`.
    fn contains_item(&self, needle: &N) -> bool;
}

impl<N: AsRef<str>> Contains<N> for String {
    fn contains_item(&self, needle: &N) -> bool {
        self.contains(needle.as_ref())
    }
}

impl<N: AsRef<str>> Contains<N> for &str {
    fn contains_item(&self, needle: &N) -> bool {
        self.contains(needle.as_ref())
    }
}

impl<U: PartialEq<N>, N> Contains<N> for Vec<U> {
    fn contains_item(&self, needle: &N) -> bool {
        self.iter().any(|u| u == needle)
    }
}

// ---- to_pass -----------------------------------------------------------------

/// Runs `block` until it passes (Playwright's `expect(async () => {…}).toPass()`):
/// a block of checks retried as a whole.
///
/// ```no_run
/// # async fn f(page: harshjudge::Page) -> harshjudge::Result {
/// use harshjudge::{expect, to_pass};
/// to_pass(|| async {
///     page.get_by_role("button").name("Refresh").click().await?;
///     expect(&page.get_by_test_id("status")).to_have_text("Ready").await?;
///     Ok(())
/// })
/// .timeout(std::time::Duration::from_secs(20))
/// .await?;
/// # Ok(()) }
/// ```
#[track_caller]
pub fn to_pass<'a, F, Fut>(block: F) -> ToPass<'a, F>
where
    F: FnMut() -> Fut + Send + 'a,
    Fut: Future<Output = Result<(), Error>> + Send + 'a,
{
    ToPass {
        block,
        retry: Retry::new(Location::caller()),
        borrows: std::marker::PhantomData,
    }
}

/// [`to_pass`]'s builder; `.await` it.
#[must_use = "a retried block does nothing until it is awaited"]
pub struct ToPass<'a, F> {
    block: F,
    retry: Retry,
    /// How long the block may borrow (its future is boxed for that long).
    borrows: std::marker::PhantomData<&'a ()>,
}

impl<F> std::fmt::Debug for ToPass<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToPass")
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl<F> ToPass<'_, F> {
    /// How long it retries (default: the expect timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.retry.timeout = Some(timeout);
        self
    }

    /// The waits between tries, the last repeating.
    pub fn intervals(mut self, intervals: impl IntoIterator<Item = Duration>) -> Self {
        self.retry.set_intervals(intervals);
        self
    }

    /// A soft assertion: its final failure is recorded and the step goes on.
    pub fn soft(mut self) -> Self {
        self.retry.soft = true;
        self
    }
}

/// The soft failures of one try of a `to_pass` block: they fail the try.
#[derive(Default)]
struct TrySink(Mutex<Vec<SoftFailure>>);

impl SoftSink for TrySink {
    fn record(&self, failure: SoftFailure) -> soft::BoxFuture<'_, ()> {
        self.0.lock().expect("try sink lock").push(failure);
        Box::pin(async {})
    }
}

impl<'a, F, Fut> IntoFuture for ToPass<'a, F>
where
    F: FnMut() -> Fut + Send + 'a,
    Fut: Future<Output = Result<(), Error>> + Send + 'a,
{
    type Output = Result<(), Error>;
    type IntoFuture = Polled<'a>;

    fn into_future(self) -> Polled<'a> {
        let ToPass {
            mut block, retry, ..
        } = self;
        Box::pin(async move {
            let attempt = |_: usize| {
                let sink = Arc::new(TrySink::default());
                let outcome = soft::scope(sink.clone(), block());
                async move {
                    let outcome = outcome.await;
                    let soft_ones = std::mem::take(&mut *sink.0.lock().expect("try sink lock"));
                    Ok(match (outcome, soft::describe(&soft_ones)) {
                        (Ok(()), None) => Try::Passed,
                        (Ok(()), Some(s)) => Try::Missed(s),
                        (Err(e), None) => Try::Missed(e.message()),
                        (Err(e), Some(s)) => Try::Missed(format!("{s}\nthen {}", e.message())),
                    })
                }
            };
            let give_up = |error: String, tries: String| {
                format!(
                    "to_pass(…) failed {tries}; the last try's error:\n  {}",
                    error.replace('\n', "\n  ")
                )
            };
            retry.until(attempt, give_up).await
        })
    }
}

#[cfg(test)]
#[path = "poll_tests.rs"]
mod tests;
