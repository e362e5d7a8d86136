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

pub mod api;
pub use harshjudge_browser as browser;
pub use harshjudge_browser::secrets;
mod error;
pub mod evidence;
mod fixture;
pub mod harness;
mod output;
mod poll;
mod registry;
mod run_settings;
mod runner;
mod scenario;
mod server;
#[cfg(test)]
mod testing;

pub use browser::{Locator, Page, expect};
/// Network control (`page.route`): the response a route answers with, the route.
pub use browser::{Response, Route};
pub use error::{Error, Result};
/// Re-exported so that suites need not match its version by hand.
pub use fantoccini;
pub use harshjudge_macros::{fixture, scenario, teardown};
/// The step ids [`Scenario::current_step`] gives, and the error of a store
/// write that a request's or a command's evidence can fail with.
pub use harshjudge_store::store::{StepId, StoreError};
pub use poll::{Contains, DEFAULT_INTERVALS, PollExpect, Polled, ToPass, expect_poll, to_pass};
/// Re-exported for text matching (`expect(&l).to_have_text(regex::Regex::new(…)?)`).
pub use regex;
pub use scenario::Scenario;
/// Re-exported for `page.evaluate` arguments and results.
pub use serde_json;
pub use server::{ServerError, WebServer};

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
///   the guide's Judges chapter and the `#[scenario]` documentation).
///
/// The `#[scenario]` attribute rewrites every top-level `step!`; one that is left
/// (inside a loop, a branch, a closure or a plain function) is a compile error.
///
/// ```no_run
/// use harshjudge::{Scenario, expect, scenario, step};
///
/// #[scenario]
/// async fn add_an_item(s: Scenario) -> harshjudge::Result {
///     let page = s.page().await?;
///     // A step's value is the value of its block.
///     let title = step!("Open the list", {
///         page.goto("/items").await?;
///         page.title().await?
///     });
///     step!("Add an item", timeout = "10s", {
///         page.get_by_label("Name").fill("milk").await?;
///         page.get_by_role("button").name("Add").click().await?;
///         expect(&page.get_by_role("listitem")).to_have_text(["milk"]).await?;
///         s.attach_text("title", &title)?;
///     });
///     step!(
///         "See the total",
///         expect = "the total shows one item and no error is visible",
///         { expect(&page.get_by_text("1 item")).to_be_visible().await?; }
///     );
///     Ok(())
/// }
///
/// harshjudge::main!();
/// ```
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

/// Prints a line, as `println!` does, and keeps it with the code that
/// printed it: a step's lines are its evidence `log.txt`, a fixture's set-up
/// and teardown lines are shown with the fixture in `result.json` and the
/// report (a plain `println!` is printed only: scenarios share the process's
/// standard output). At most 64 KiB per step or fixture is kept.
///
/// ```no_run
/// # async fn f(rows: usize) -> harshjudge::Result {
/// harshjudge::log!("seeded {rows} rows");
/// # Ok(()) }
/// ```
#[macro_export]
macro_rules! log {
    ($($arg:tt)*) => {
        $crate::__private::print_line(::core::format_args!($($arg)*))
    };
}

/// The `main` function of a scenario test target (`harness = false`).
///
/// Collects every `#[scenario]` of the binary, parses the libtest command line
/// (`--list`, filters, `--exact`, `--skip`, `--format`, `--test-threads`, …),
/// runs the scenarios and exits with code 0, or 101 when a step failed.
///
/// The package's `.harshJudge/` folder is found when the binary runs
/// (`CARGO_MANIFEST_DIR` when set, else the nearest folder above the current
/// one whose Cargo.toml declares the package); the folder it was compiled in
/// is only a hint.
///
/// `main!(web_server = app)` names a `fn() -> harshjudge::WebServer`: the app
/// under test, started by the suite on a free loopback port when a scenario is
/// about to run, stopped with the test process (see [`WebServer`]); the base
/// URL becomes `http://127.0.0.1:{port}`. Under cargo-nextest it is started
/// once per nextest run. With `HARSHJUDGE_BASE_URL` set, that app is used and
/// none is started.
///
/// `main!(base_url = start_app)` names a `fn() -> harshjudge::Result<String>`
/// that starts the app under test itself and returns its base URL. It is called once,
/// only when a scenario is about to run (never for `--list`), and only when
/// `HARSHJUDGE_BASE_URL` is not set (which then points the suite at an app
/// running elsewhere).
///
/// `main!(before_all = f, after_all = g)` name `async fn f() -> harshjudge::Result`
/// run once before the first scenario and once after the last (also when a
/// step failed, panicked or timed out); they are not steps. A failing
/// `before_all` fails every scenario's first step with its cause; a failing
/// `after_all` fails the invocation. Each failure names the hook and where
/// `main!` gives it. Under cargo-nextest, where every scenario is a process of
/// its own, they run in each scenario's process.
///
/// `main!(secrets = ["APP_TOKEN", "DB_PASSWORD"])` names the environment
/// variables that hold the suite's secrets (never the secrets themselves):
/// their values are masked as `[secret:APP_TOKEN]` in every file harshjudge
/// writes and every line it prints (see [`secrets`]; `HARSHJUDGE_SECRETS`
/// names more).
///
/// `main!(expect_timeout = EXPECT_TIMEOUT)` names a `Duration` constant: how
/// long web-first assertions (`expect(…)`) retry when the call sets no
/// `.timeout(d)`, for the whole suite (Playwright's `expect.timeout`; 1 ms to
/// 24 h, another value stops the invocation naming it).
/// `HARSHJUDGE_EXPECT_TIMEOUT` wins over it; without either, assertions wait
/// `HARSHJUDGE_WAIT` as actions do.
///
/// `main!(setup = [fixture_database])` names setup scenarios
/// (`#[scenario(setup)]`) that every scenario of the target depends on, as if
/// each said `depends_on = [fixture_database]` (Playwright's project
/// `dependencies`), except those setups and the setups they depend on. They
/// run once per invocation (once per nextest run), before the first scenario
/// that needs them, whatever the filters, tags and `--repeat-each` select; a
/// name that is no setup scenario is a compile error at the name.
///
/// The arguments are named and may come in any order:
/// `main!(web_server = app, before_all = seed, after_all = report)`.
///
/// A target built with libtest's own harness (its `[[test]]` entry lacks
/// `harness = false`: `cfg(test)` is set then) would run none of its scenarios
/// and pass; `main!` gives it one test, which fails saying what to add.
#[macro_export]
macro_rules! main {
    (@arg $pkg:ident, base_url, $v:expr) => {
        $pkg.base_url = ::core::option::Option::Some($v);
    };
    (@arg $pkg:ident, web_server, $v:expr) => {
        $pkg.web_server = ::core::option::Option::Some($v);
    };
    (@arg $pkg:ident, before_all, $v:expr) => {
        $pkg.before_all = ::core::option::Option::Some($crate::main!(@hook before_all, $v));
    };
    (@arg $pkg:ident, after_all, $v:expr) => {
        $pkg.after_all = ::core::option::Option::Some($crate::main!(@hook after_all, $v));
    };
    (@arg $pkg:ident, secrets, $v:expr) => {
        $pkg.secrets = &$v;
    };
    (@arg $pkg:ident, expect_timeout, $v:expr) => {
        $pkg.expect_timeout = ::core::option::Option::Some($v);
    };
    (@arg $pkg:ident, setup, [$($setup:path),* $(,)?]) => {
        $pkg.setup = &[$(<$setup as $crate::__private::Setup>::FN_NAME),*];
    };
    (@arg $pkg:ident, setup, $($v:tt)*) => {
        ::core::compile_error!(::core::concat!(
            "harshjudge::main!: `setup` takes a list of setup scenarios, e.g. `setup = [",
            ::core::stringify!($($v)*),
            "]`"
        ));
    };
    (@arg $pkg:ident, $other:ident, $($v:tt)*) => {
        ::core::compile_error!(::core::concat!(
            "harshjudge::main!: unknown argument `",
            ::core::stringify!($other),
            "`; expected web_server, base_url, before_all, after_all, setup, secrets or expect_timeout"
        ));
    };
    (@hook $kind:ident, $v:expr) => {
        $crate::harness::SuiteHook {
            kind: ::core::stringify!($kind),
            function: ::core::stringify!($v),
            file: ::core::file!(),
            line: ::core::line!(),
            run: || -> $crate::harness::HookFuture { ::std::boxed::Box::pin($v()) },
        }
    };
    // A value is a path (`app`, `my::app`), a call of one
    // (`Duration::from_secs(30)`) or a list (`[fixture_database]`).
    ($($key:ident = $value:tt $(:: $more:tt)* $(($($call:tt)*))?),* $(,)?) => {
        fn main() {
            #[allow(unused_mut)]
            let mut pkg = $crate::harness::Package::new(
                ::core::env!("CARGO_PKG_NAME"),
                ::core::env!("CARGO_MANIFEST_DIR"),
            );
            $( $crate::main!(@arg pkg, $key, $value $(:: $more)* $(($($call)*))?); )*
            $crate::harness::main(pkg)
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
    pub use crate::fixture::{
        Fixture, FixtureDef, FixtureOutput, FixtureScope, FixtureValue, SetUpFuture, Share,
        TeardownDef, TeardownFuture, keep as keep_fixture, share as share_fixture,
        take as take_fixture, value as fixture_value,
    };
    pub use crate::output::print as print_line;
    pub use crate::registry::{
        Hook, HookFuture, ScenarioDef, ScenarioFuture, Setup, Skip, StepDef,
    };
    pub use crate::scenario::StepMarker;
    pub use harshjudge_browser::settings::TraceMode;
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
