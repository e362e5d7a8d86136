//! Fixtures: typed values a scenario asks for by parameter name, set up
//! before its first step's code and torn down after it (`#[fixture]`,
//! `#[teardown(name)]`; the runner's side is `runner/fixtures.rs`).
//!
//! `#[fixture] async fn shop(…) -> harshjudge::Result<Shop>` keeps the
//! function and adds, beside it, a type of the same name (`enum shop {}`)
//! implementing [`Fixture`]: a scenario's parameter `shop: &Shop` names that
//! type, so an unknown fixture is rustc's "cannot find type `shop`" at the
//! parameter, and a value of another type is a type error there. The
//! fixture is registered as a [`FixtureDef`] through `inventory`; a
//! `#[teardown(shop)]` as a [`TeardownDef`].

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::scenario::Scenario;

/// A fixture's value while it lives: shared by reference with the scenario
/// (and the fixtures that use it), taken back by value for its teardown.
pub type FixtureValue = Arc<dyn Any + Send + Sync>;

/// The future a fixture's set-up returns.
pub type SetUpFuture = Pin<Box<dyn Future<Output = Result<FixtureValue>> + Send + 'static>>;

/// The future a teardown returns.
pub type TeardownFuture = Pin<Box<dyn Future<Output = Result> + Send + 'static>>;

/// How long a fixture's value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FixtureScope {
    /// Set up for each scenario that asks for it, torn down after it (the default).
    Scenario,
    /// `#[fixture(scope = "invocation")]`: set up once per test process by the
    /// first scenario that asks for it, torn down when every scenario ended.
    Invocation,
}

impl FixtureScope {
    /// `scenario` or `invocation`, as the attribute and `result.json` say it.
    pub fn as_str(self) -> &'static str {
        match self {
            FixtureScope::Scenario => "scenario",
            FixtureScope::Invocation => "invocation",
        }
    }
}

/// One `#[fixture]` function.
#[derive(Debug)]
pub struct FixtureDef {
    /// The function's name: what a parameter names to ask for it.
    pub name: &'static str,
    /// `module_path::name`: the fixture, whatever module asks for it.
    pub key: &'static str,
    /// Its scope.
    pub scope: FixtureScope,
    /// The keys of the fixtures its parameters ask for, in order.
    pub needs: &'static [&'static str],
    /// `file!()` of the function.
    pub file: &'static str,
    /// `line!()` of the function.
    pub line: u32,
    /// Sets it up: the fixtures it asks for are already set up.
    pub set_up: fn(Scenario) -> SetUpFuture,
    /// For an invocation fixture: how its value crosses processes, so that
    /// under cargo-nextest it is set up once per run ([`share`]).
    pub share: Option<Share>,
}

/// How an invocation fixture's value is written for the other processes of
/// a cargo-nextest run, and read back (JSON).
#[derive(Clone, Copy, Debug)]
pub struct Share {
    /// The value as JSON.
    pub encode: fn(&FixtureValue) -> Result<Vec<u8>>,
    /// The value from JSON.
    pub decode: fn(&[u8]) -> Result<FixtureValue>,
}

/// A value that can cross processes: `Serialize + DeserializeOwned`.
#[diagnostic::on_unimplemented(
    message = "an invocation fixture's value crosses cargo-nextest's processes as JSON: `{Self}` must be `Serialize + DeserializeOwned`",
    label = "the value of a `#[fixture(scope = \"invocation\")]`",
    note = "give it a URL, a port, a path or credentials (`String`, a `#[derive(Serialize, Deserialize)]` struct), and keep what cannot cross processes in a scenario fixture"
)]
pub trait Shareable: serde::Serialize + serde::de::DeserializeOwned {}

impl<T: serde::Serialize + serde::de::DeserializeOwned> Shareable for T {}

/// The [`Share`] of fixture `F`: its value must be `Serialize` and
/// `DeserializeOwned` (a URL, a port, a path, credentials: what can cross
/// processes).
pub const fn share<F: Fixture>() -> Share
where
    F::Value: Shareable,
{
    Share {
        encode: encode::<F>,
        decode: decode::<F>,
    }
}

fn encode<F: Fixture>(value: &FixtureValue) -> Result<Vec<u8>>
where
    F::Value: Shareable,
{
    let typed = value.downcast_ref::<F::Value>().ok_or_else(|| {
        Error::msg(format!(
            "fixture `{}` holds a value of another type",
            F::NAME
        ))
    })?;
    serde_json::to_vec(typed).map_err(|e| {
        Error::msg(format!(
            "fixture `{}`'s value cannot be written for the other processes of the run: {e}",
            F::NAME
        ))
    })
}

fn decode<F: Fixture>(bytes: &[u8]) -> Result<FixtureValue>
where
    F::Value: Shareable,
{
    let value: F::Value = serde_json::from_slice(bytes).map_err(|e| {
        Error::msg(format!(
            "fixture `{}`'s value, written by another process of the run, cannot be read: {e}",
            F::NAME
        ))
    })?;
    Ok(Arc::new(value))
}

/// One `#[teardown(name)]` function: takes the fixture's value back after
/// the scenario (after every scenario, for an invocation fixture).
#[derive(Debug)]
pub struct TeardownDef {
    /// The fixture's key.
    pub fixture: &'static str,
    /// The teardown function's name.
    pub name: &'static str,
    /// `file!()` of the function.
    pub file: &'static str,
    /// `line!()` of the function.
    pub line: u32,
    /// Runs it with the value (the value of the fixture's type: checked by
    /// the code the attribute generates).
    pub run: fn(FixtureValue) -> TeardownFuture,
}

inventory::collect!(FixtureDef);
inventory::collect!(TeardownDef);

/// Implemented by the type `#[fixture]` generates beside a fixture function
/// (same name), so that a scenario's parameter names the fixture at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a fixture",
    label = "a parameter after the scenario handle asks for the fixture of its name",
    note = "mark a function of this name `#[fixture]` (and import it here), or give the value with `#[case]`"
)]
pub trait Fixture: 'static {
    /// The value it gives (`T` of its `harshjudge::Result<T>`).
    type Value: Send + Sync + 'static;
    /// `module_path::name`.
    const KEY: &'static str;
    /// The function's name.
    const NAME: &'static str;
}

/// What a fixture function returns: `harshjudge::Result<T>`.
#[diagnostic::on_unimplemented(
    message = "a fixture returns `harshjudge::Result<T>`, not `{Self}`",
    label = "the value a scenario receives is the `T` of `harshjudge::Result<T>`",
    note = "write `-> harshjudge::Result<YourType>` and end the body with `Ok(value)`"
)]
pub trait FixtureOutput {
    /// The value.
    type Value: Send + Sync + 'static;
    /// The value, or the fixture's failure.
    fn into_result(self) -> Result<Self::Value>;
}

impl<T: Send + Sync + 'static> FixtureOutput for Result<T> {
    type Value = T;
    fn into_result(self) -> Result<T> {
        self
    }
}

/// The value of fixture `F` for the scenario `s` is in (set up before its
/// first step's code, or by an invocation earlier).
pub fn value<F: Fixture>(s: &Scenario) -> Result<Arc<F::Value>> {
    let any = s.shared.fixture(F::KEY).ok_or_else(|| {
        Error::msg(format!(
            "fixture `{}` is not set up for this scenario (`{}`): a fixture is set up before the scenario's first step, for the scenario's parameters and what they use",
            F::NAME,
            F::KEY
        ))
    })?;
    any.downcast::<F::Value>().map_err(|_| {
        Error::msg(format!(
            "fixture `{}` holds a value of another type than `{}`",
            F::NAME,
            std::any::type_name::<F::Value>()
        ))
    })
}

/// Wraps a fixture's value to be kept by the run.
pub fn keep<F: Fixture>(value: F::Value) -> FixtureValue {
    Arc::new(value)
}

/// Takes the fixture's value back for its teardown: an error when something
/// still holds it (it cannot: the scenario's future is dropped first).
pub fn take<F: Fixture>(value: FixtureValue) -> Result<F::Value> {
    let typed = value.downcast::<F::Value>().map_err(|_| {
        Error::msg(format!(
            "fixture `{}` holds a value of another type than its teardown takes",
            F::NAME
        ))
    })?;
    Arc::try_unwrap(typed).map_err(|_| {
        Error::msg(format!(
            "fixture `{}`'s value is still in use when its teardown runs",
            F::NAME
        ))
    })
}

/// Every registered fixture.
pub(crate) fn all() -> Vec<&'static FixtureDef> {
    let mut v: Vec<&'static FixtureDef> = inventory::iter::<FixtureDef>.into_iter().collect();
    v.sort_by_key(|d| d.key);
    v
}

/// Every registered teardown.
pub(crate) fn teardowns() -> Vec<&'static TeardownDef> {
    inventory::iter::<TeardownDef>.into_iter().collect()
}
