//! The `#[scenario]`, `#[fixture]` and `#[teardown]` attributes of [harshjudge](https://docs.rs/harshjudge).
//!
//! Use it through the `harshjudge` crate (`use harshjudge::scenario;`): the code it
//! generates names `::harshjudge::__private`, the contract with the runtime.

mod args;
mod duration;
mod emulation;
mod fixture;
mod scenario;
mod step;

use proc_macro::TokenStream;

/// Marks an `async fn(s: Scenario) -> harshjudge::Result` as a scenario whose
/// top-level `step!`s are its steps.
///
/// Arguments, all optional:
/// - `slug = "checkout"`: the folder under `.harshJudge/scenarios/` (`^[a-z0-9-]+$`;
///   default: the function name with `_` replaced by `-`);
/// - `title = "..."` (default: the doc comment's first paragraph, its lines joined, else the function name);
/// - `tags = ["smoke", "checkout"]`;
/// - `timeout = "2m"`: limit for the whole scenario; `step_timeout = "30s"`: default
///   limit for each step. A duration is an integer with a unit `ms`, `s`, `m` or
///   `h`, or a bare integer number of seconds;
/// - `retries = 2`: attempts after a failure (0 to 10);
/// - `skip = "why"` or `fixme = "why"`: the scenario is listed and reported as
///   skipped (or fixme) with that reason, and never run.
/// - the device, place and time its pages open with, Playwright's
///   browser-context options in snake_case: `device = "iPhone 15"` (a name of
///   `harshjudge::browser::devices::DEVICES`: viewport, scale, touch, mobile,
///   user agent; the other options go over it), `locale = "de-DE"`,
///   `timezone_id = "Europe/Berlin"`, `geolocation = (52.52, 13.405)` (a third
///   number: accuracy in metres) with `grant_permissions = ["geolocation"]`,
///   `color_scheme = "dark"`, `reduced_motion = "reduce"`, `offline = true`,
///   `user_agent = "…"`, `extra_http_headers = [("X-Tenant", "acme")]`,
///   `http_credentials = ("admin", password_expr)` (two `impl Into<String>`
///   expressions, evaluated when a page opens), `javascript_enabled = false`.
///   An unknown device or permission, a locale or time zone id of the wrong
///   form is a compile error at the value; `s.page_with(emulation)` opens a
///   page with other options.
///
/// Cases, rstest's form: with `#[case::admin("admin", "s3cret")]` attributes
/// under `#[scenario]`, the function takes parameters after the handle
/// (`async fn sign_in(s: Scenario, user: &str, password: &str)`) and each case
/// is a scenario of its own, called with the case's values: slug
/// `sign-in-admin`, tests `sign_in::admin::01_…`; an unnamed `#[case(…)]` is
/// `case_1`, `case_2`, … by position. A case with too many or too few values is
/// an error naming it; a value of the wrong type is reported in that case.
///
/// ```no_run
/// use harshjudge::{scenario, step, Scenario};
///
/// /// Checkout with a saved card.
/// #[scenario(tags = ["smoke"], step_timeout = "30s")]
/// async fn checkout(s: Scenario) -> harshjudge::Result {
///     let cart = step!("Add two items to the cart", { 2 });
///     step!("Pay with the saved card", timeout = "5s", {
///         harshjudge::ensure!(cart == 2, "bad cart {}", cart);
///     });
///     step!(
///         "See the receipt",
///         expect = "a receipt with the total is shown and no error is visible",
///         { s.attach_text("receipt", "total: 42.00")?; }
///     );
///     Ok(())
/// }
///
/// harshjudge::main!();
/// ```
///
/// Each top-level `step!("title", body)` (also `let pattern = step!(...);`) is
/// replaced by its body, preceded by a step boundary placed right after the
/// previous step: code between two steps belongs to the next one. The scenario is
/// registered with its steps so that they can be listed without running anything.
///
/// A step's named arguments, before its body:
/// - `timeout = "5s"`: this step's limit (overrides `step_timeout`);
/// - `expect = "…"`: what the step's evidence must show, in words (a non-empty
///   string literal, at most 4 KiB). It is written into the step's `.md`
///   (`## Expected Outcome`) and `result.json` (`expectation`), and a judge
///   (`HARSHJUDGE_JUDGE_CMD`, `HARSHJUDGE_JUDGE_URL`, or an agent through
///   `harshjudge-mcp`) gives the step a verdict from its recorded evidence: the
///   step passes only when its code passed and the verdict is `pass`. Without a
///   judge the verdict stays `pending`. See the guide's chapter "Judges"
///   (`docs/src/judges.md`).
#[proc_macro_attribute]
pub fn scenario(args: TokenStream, item: TokenStream) -> TokenStream {
    scenario::scenario(args.into(), item.into()).into()
}

/// Marks an `async fn` as a fixture: a typed value that a scenario (or
/// another fixture) asks for by a parameter of the fixture's name, set up
/// before the scenario's first step's code and dropped, or given to its
/// `#[teardown]`, after its last.
///
/// - Its parameters: `&Scenario` (the scenario it is set up for) and other
///   fixtures, by name and by reference (`db: &Db`).
/// - It returns `harshjudge::Result<T>`; a scenario receives `&T`.
/// - `#[fixture(scope = "invocation")]`: set up once per test process by the
///   first scenario that asks for it, torn down when every scenario ended;
///   the default, `scope = "scenario"`, sets it up for each scenario.
///
/// A parameter naming no fixture is a compile error at that parameter
/// (`cannot find type `shop` in this scope`); fixtures that ask for each
/// other in a circle are refused, naming the circle, before any scenario runs.
///
/// ```no_run
/// use harshjudge::{fixture, scenario, step, teardown, Scenario};
///
/// struct Shop { name: String }
///
/// #[fixture]
/// async fn shop(s: &Scenario) -> harshjudge::Result<Shop> {
///     Ok(Shop { name: format!("shop for {}", s.slug()) })
/// }
///
/// #[teardown(shop)]
/// async fn close_shop(shop: Shop) -> harshjudge::Result {
///     drop(shop.name);
///     Ok(())
/// }
///
/// #[scenario]
/// async fn checkout(s: Scenario, shop: &Shop) -> harshjudge::Result {
///     step!("Open the shop", { s.attach_text("shop", &shop.name)?; });
///     Ok(())
/// }
///
/// harshjudge::main!();
/// ```
#[proc_macro_attribute]
pub fn fixture(args: TokenStream, item: TokenStream) -> TokenStream {
    fixture::fixture(args.into(), item.into()).into()
}

/// Marks `async fn close(value: T) -> harshjudge::Result` as the teardown of
/// the fixture it names (`#[teardown(shop)]`): it receives the fixture's
/// value by value after the scenario (after every scenario, for an
/// invocation fixture), in reverse order of set-up, also when a step failed,
/// panicked or timed out. Its failure is told after the scenario's own.
/// See [`macro@fixture`].
#[proc_macro_attribute]
pub fn teardown(args: TokenStream, item: TokenStream) -> TokenStream {
    fixture::teardown(args.into(), item.into()).into()
}

/// Errors collected while checking a scenario, reported together.
#[derive(Default)]
pub(crate) struct Errors(Vec<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok` when there is no error, else all of them combined.
    pub(crate) fn into_result(self) -> syn::Result<()> {
        let mut errors = self.0.into_iter();
        match errors.next() {
            None => Ok(()),
            Some(mut first) => {
                first.extend(errors);
                Err(first)
            }
        }
    }

    /// One `compile_error!` per error.
    pub(crate) fn into_compile_error(self) -> proc_macro2::TokenStream {
        self.into_result()
            .err()
            .map(syn::Error::into_compile_error)
            .unwrap_or_default()
    }

    /// The messages (tests).
    #[cfg(test)]
    pub(crate) fn messages(&self) -> Vec<String> {
        self.0
            .iter()
            .flat_map(|e| e.clone().into_iter().map(|e| e.to_string()))
            .collect()
    }
}
