//! What a scenario, a hook or a fixture prints through [`log!`](crate::log):
//! each line goes to the process's standard output, as `println!`'s would,
//! and is kept where it was printed. A step's lines become its evidence
//! `log.txt` (the `before` and `after` hooks print into the step they run
//! in); a fixture's set-up's and teardown's lines go into its entry of
//! `result.json`'s `fixtures`, which the report shows.
//!
//! Scenarios run side by side in one process and share its standard output,
//! and std's own capture (`set_output_capture`) is not public, so a plain
//! `println!` cannot be told apart from another scenario's: the runner sets a
//! task-local [`Captured`] around each piece of code ([`scope`]), as it does
//! for soft assertions (`soft.rs`). Outside one (a plain `#[tokio::test]`,
//! an invocation fixture's teardown after every scenario), a line is only
//! printed.

use std::fmt;
use std::future::Future;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// How much of what one step or one fixture's set-up (or teardown) printed
/// is kept; what comes after is counted, not kept.
pub(crate) const LIMIT: usize = 64 * 1024;

tokio::task_local! {
    static OUTPUT: Arc<Captured>;
}

/// The lines printed in one place, at most [`LIMIT`] bytes of them.
#[derive(Default)]
pub(crate) struct Captured {
    state: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    text: String,
    /// Bytes of the lines that did not fit.
    dropped: usize,
}

impl Captured {
    fn push(&self, line: &str) {
        let mut kept = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if kept.dropped == 0 && kept.text.len() + line.len() < LIMIT {
            kept.text.push_str(line);
            kept.text.push('\n');
        } else {
            kept.dropped += line.len() + 1;
        }
    }

    /// What was printed since the last take (`None`: nothing), with a last
    /// line saying how much did not fit; the buffer is emptied.
    pub(crate) fn take(&self) -> Option<String> {
        let mut kept = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let Kept { mut text, dropped } = std::mem::take(&mut *kept);
        if dropped > 0 {
            text.push_str(&format!(
                "… {dropped} more bytes were printed and not kept (the first {} KiB are)\n",
                LIMIT / 1024
            ));
        }
        (!text.is_empty()).then_some(text)
    }
}

/// `fut` with what it prints through [`log!`](crate::log) kept in `into`.
/// An inner scope wins: a fixture's set-up inside step 1 prints into the
/// fixture, not the step.
pub(crate) fn scope<F: Future>(into: Arc<Captured>, fut: F) -> impl Future<Output = F::Output> {
    OUTPUT.scope(into, fut)
}

/// Prints a line and keeps it where the running code's output is kept
/// ([`log!`](crate::log) expands to this).
pub fn print(args: fmt::Arguments<'_>) {
    let line = args.to_string();
    // As `println!`, but a closed standard output loses the line rather
    // than panicking the scenario.
    let _ = writeln!(std::io::stdout().lock(), "{line}");
    let _ = OUTPUT.try_with(|into| into.push(&line));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_kept_by_the_innermost_scope_and_bounded() {
        let (outer, inner) = (Arc::new(Captured::default()), Arc::new(Captured::default()));
        scope(outer.clone(), async {
            print(format_args!("step {}", 1));
            scope(inner.clone(), async { print(format_args!("fixture")) }).await;
            print(format_args!("step again"));
        })
        .await;
        assert_eq!(outer.take().as_deref(), Some("step 1\nstep again\n"));
        assert_eq!(inner.take().as_deref(), Some("fixture\n"));
        assert_eq!(outer.take(), None, "taken once");

        let big = "x".repeat(1000);
        scope(outer.clone(), async {
            for _ in 0..100 {
                print(format_args!("{big}"));
            }
            print(format_args!("late"));
        })
        .await;
        let text = outer.take().expect("kept");
        assert!(text.len() < LIMIT + 200, "{}", text.len());
        assert_eq!(text.matches(&big).count(), 65);
        assert!(!text.contains("late"), "a line after the limit is not kept");
        assert!(
            text.ends_with("… 35040 more bytes were printed and not kept (the first 64 KiB are)\n"),
            "{}",
            &text[text.len() - 100..]
        );
    }
}
