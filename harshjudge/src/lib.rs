//! # harshjudge — evidence-first end-to-end testing for Rust
//!
//! A scenario is one `async fn` marked [`#[scenario]`](scenario). Each top-level
//! [`step!`] of its body becomes its own test case under `cargo test`, and every
//! step leaves evidence in the standard `.harshJudge/` layout that the original
//! HarshJudge tools, the HTML report and AI agents all read.
//!
//! ```no_run
//! use harshjudge::{scenario, step, Scenario};
//!
//! /// Checkout with a saved card.
//! #[scenario(tags = ["smoke"])]
//! async fn checkout(s: Scenario) -> harshjudge::Result {
//!     let items = step!("Add two items to the cart", {
//!         let items = vec!["apple", "pear"];
//!         s.attach_json("cart", &items)?;
//!         items
//!     });
//!     step!("Pay with the saved card", {
//!         harshjudge::ensure!(items.len() == 2, "expected 2 items, got {}", items.len());
//!     });
//!     Ok(())
//! }
//!
//! harshjudge::main!();
//! ```
//!
//! Put the file under `tests/` with `harness = false` in `Cargo.toml`; `cargo test`
//! then lists `checkout::01_add_two_items_to_the_cart` and
//! `checkout::02_pay_with_the_saved_card` as separate tests.
//!
//! ## Equivalent code without the macro
//! `#[scenario]` keeps the function as written, except that every top-level
//! `step!("title", { body })` becomes `{ body }` preceded by a step boundary
//! (`begin step N`) placed right after the previous step, so code between two
//! steps belongs to the following one. It also registers a
//! [`ScenarioDef`](__private::ScenarioDef) naming the steps, so that
//! `cargo test -- --list` can list them without running anything.

pub mod browser;
mod error;
pub mod event;
pub mod evidence;
pub mod harness;
pub mod judge;
pub mod recorder;
mod registry;
pub mod report;
mod runner;
mod scenario;
pub mod settings;
pub mod store;
#[cfg(test)]
mod testing;
pub mod visual;

pub use browser::{Locator, Page, expect};
pub use error::{Error, Result};
/// Re-exported so that suites need not match its version by hand.
pub use fantoccini;
pub use harshjudge_macros::scenario;
/// Re-exported for text matching (`expect(&l).to_have_text(regex::Regex::new(…)?)`).
pub use regex;
pub use scenario::Scenario;
/// Re-exported for `page.evaluate` arguments and results.
pub use serde_json;

/// Marks a step of a [`#[scenario]`](scenario) function: `step!("title", { body })`.
///
/// Only valid as a top-level statement of a `#[scenario]` body (optionally as
/// `let pattern = step!(…);`). The block's value is the value of the step, so
/// later steps can use it. Named arguments come before the body:
/// - `timeout = "5s"` overrides the scenario's `step_timeout` for this step:
///   `step!("title", timeout = "5s", { body })`;
/// - `expect = "…"` says in words what the step's evidence must show
///   (`step!("Pay", expect = "a receipt with the total is shown", { body })`): a
///   judge gives the step a verdict from its recorded evidence, and the step
///   passes only when its code passed and the verdict is `pass` (see
///   [`judge`] and the `#[scenario]` documentation).
///
/// The `#[scenario]` attribute rewrites every top-level `step!`; one that is left
/// (inside a loop, a branch, a closure or a plain function) is a compile error.
#[macro_export]
macro_rules! step {
    // Emitted by `#[scenario]` with the user's own path, so that importing
    // `step` does not warn as unused once every call was rewritten.
    (@used) => {};
    ($($tokens:tt)*) => {
        ::core::compile_error!(
            "`step!` is only valid as a top-level statement of a `#[scenario]` async fn body"
        )
    };
}

/// Fails the current step with a formatted message unless the condition holds.
///
/// ```no_run
/// # fn f(ok: bool) -> harshjudge::Result {
/// harshjudge::ensure!(ok, "payment refused: {}", "card expired");
/// # Ok(()) }
/// ```
#[macro_export]
macro_rules! ensure {
    ($cond:expr $(,)?) => {
        if !$cond {
            return ::core::result::Result::Err($crate::Error::msg(::core::concat!(
                "condition failed: `",
                ::core::stringify!($cond),
                "`"
            ))
            .into());
        }
    };
    ($cond:expr, $($arg:tt)+) => {
        if !$cond {
            return ::core::result::Result::Err($crate::Error::msg(::std::format!($($arg)+)).into());
        }
    };
}

/// Fails the current step at once with a formatted message.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)+) => {
        return ::core::result::Result::Err($crate::Error::msg(::std::format!($($arg)+)).into())
    };
}

/// The `main` function of a scenario test target (`harness = false`).
///
/// Collects every `#[scenario]` of the binary, parses the libtest command line
/// (`--list`, filters, `--exact`, `--skip`, `--format`, `--test-threads`, …),
/// runs the scenarios and exits with code 0, or 101 when a step failed.
///
/// The package's `.harshJudge/` folder is found when the binary runs
/// ([`harness::package_root`]); the folder it was compiled in is only a hint.
///
/// `main!(base_url = start_app)` names a `fn() -> harshjudge::Result<String>`
/// that starts the app under test and returns its base URL. It is called once,
/// only when a scenario is about to run (never for `--list`), and only when
/// `HARSHJUDGE_BASE_URL` is not set (which then points the suite at an app
/// running elsewhere).
///
/// A target built with libtest's own harness (its `[[test]]` entry lacks
/// `harness = false`: `cfg(test)` is set then) would run none of its scenarios
/// and pass; `main!` gives it one test, which fails saying what to add.
#[macro_export]
macro_rules! main {
    () => {
        $crate::main!(@main ::core::option::Option::None);
    };
    (base_url = $start:path $(,)?) => {
        $crate::main!(@main ::core::option::Option::Some($start));
    };
    (@main $base_url:expr) => {
        fn main() {
            $crate::harness::main($crate::harness::Package {
                name: ::core::env!("CARGO_PKG_NAME"),
                manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
                base_url: $base_url,
            })
        }

        #[cfg(test)]
        #[test]
        fn harshjudge_needs_harness_false() {
            $crate::__private::needs_harness_false(
                ::core::env!("CARGO_CRATE_NAME"),
                ::core::file!(),
            )
        }
    };
}

/// Support code for the macros. Not public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use crate::registry::{Hook, HookFuture, ScenarioDef, ScenarioFuture, Setup, StepDef};
    pub use crate::scenario::StepMarker;
    pub use inventory;

    /// The step boundary handle of a scenario body (cheap clone of the handle's state).
    pub fn steps(s: &crate::Scenario) -> StepMarker {
        s.step_marker()
    }

    /// The one test of a scenario target built with libtest's own harness
    /// (`main!` under `cfg(test)`): it fails, saying what to add to Cargo.toml.
    #[track_caller]
    pub fn needs_harness_false(target: &str, file: &str) -> ! {
        panic!(
            "this test target uses libtest's harness: add `harness = false` to its `[[test]]` entry in Cargo.toml \
             (target `{target}`, {file}), e.g.\n\n[[test]]\nname = \"{target}\"\nharness = false\n\n\
             Under libtest's harness none of its scenarios runs, and the target would pass."
        )
    }
}
