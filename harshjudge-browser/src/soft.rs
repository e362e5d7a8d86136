//! Soft assertions (Playwright's `expect.soft`): `expect(&x).soft()` on any
//! subject makes its matcher's failure a note rather than an error. The
//! failure is recorded with its message, its place and the evidence a hard
//! failure would take (`soft-N-error.png`, `soft-N-page.html`,
//! `soft-N-aria.yml`), the matcher returns `Ok(())` and the step goes on; at
//! its end the step fails, listing every soft failure in order.
//!
//! Each matcher passes its result through [`settle`]. The sink is the running
//! scenario's, a task-local the runner sets around the scenario's future
//! ([`scope`]): one mechanism for every kind of subject, and no handle to
//! thread through responses, command outputs or logs. Outside a scenario (a
//! plain `#[tokio::test]`) there is nobody to report to at the step's end, so
//! a soft assertion fails as a hard one does.

use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::sync::Arc;

/// A boxed future, as the runner's sink returns it (this module sits below
/// the evidence layer, so it names its own).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

tokio::task_local! {
    static SINK: Arc<dyn SoftSink>;
}

/// Where a scenario's soft failures go (the runner's scenario state).
pub trait SoftSink: Send + Sync {
    /// Records `failure` in the running step, with its evidence.
    fn record(&self, failure: SoftFailure) -> BoxFuture<'_, ()>;
}

/// One soft assertion that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoftFailure {
    /// The matcher's failure message.
    pub message: String,
    /// Where the `expect(…)` is (`file:line:column`).
    pub location: String,
}

/// `fut` with soft assertions reporting to `sink`.
pub fn scope<F: Future>(sink: Arc<dyn SoftSink>, fut: F) -> impl Future<Output = F::Output> {
    SINK.scope(sink, fut)
}

/// A matcher's `result`: a soft assertion's failure (`soft`) recorded in the
/// running scenario's step and turned into `Ok(())`; anything else as it is.
pub async fn settle<E: std::fmt::Display>(
    soft: bool,
    at: &'static Location<'static>,
    result: Result<(), E>,
) -> Result<(), E> {
    match result {
        Err(e) if soft => match SINK.try_with(Arc::clone) {
            Ok(sink) => {
                sink.record(SoftFailure {
                    message: e.to_string(),
                    location: at.to_string(),
                })
                .await;
                Ok(())
            }
            Err(_) => Err(e),
        },
        other => other,
    }
}

/// A step's failure for its soft failures: how many, then each in order with
/// its place. `None` when there are none.
pub fn describe(failures: &[SoftFailure]) -> Option<String> {
    if failures.is_empty() {
        return None;
    }
    let n = failures.len();
    let mut s = format!(
        "{n} soft assertion{} failed:",
        if n == 1 { "" } else { "s" }
    );
    for (i, f) in failures.iter().enumerate() {
        let mut lines = f.message.lines();
        s.push_str(&format!(
            "\n  {}. at {}: {}",
            i + 1,
            f.location,
            lines.next().unwrap_or("")
        ));
        for l in lines {
            s.push_str(&format!("\n     {l}"));
        }
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Kept(Mutex<Vec<SoftFailure>>);

    impl SoftSink for Kept {
        fn record(&self, failure: SoftFailure) -> BoxFuture<'_, ()> {
            self.0.lock().unwrap().push(failure);
            Box::pin(async {})
        }
    }

    #[tokio::test]
    async fn a_soft_failure_is_recorded_and_a_hard_one_or_one_outside_a_scenario_is_not() {
        let at = Location::caller();
        // Outside a scenario: as a hard one.
        assert_eq!(settle(true, at, Err::<(), _>("no")).await, Err("no"));
        let kept = Arc::new(Kept::default());
        let sink: Arc<dyn SoftSink> = kept.clone();
        scope(sink, async {
            assert_eq!(settle(true, at, Err::<(), _>("first")).await, Ok(()));
            assert_eq!(settle(false, at, Err::<(), _>("hard")).await, Err("hard"));
            assert_eq!(settle(true, at, Ok::<(), &str>(())).await, Ok(()));
            assert_eq!(
                settle(true, at, Err::<(), _>("second\nline two")).await,
                Ok(())
            );
        })
        .await;
        let got = kept.0.lock().unwrap().clone();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].message, "first");
        assert!(got[0].location.contains("soft.rs"), "{}", got[0].location);
        let text = describe(&got).unwrap();
        assert!(
            text.starts_with("2 soft assertions failed:\n  1. at "),
            "{text}"
        );
        assert!(text.contains(": second\n     line two"), "{text}");
        assert_eq!(describe(&[]), None);
    }
}
