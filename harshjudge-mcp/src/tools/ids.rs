//! Arguments that are ids deserialise straight into `harshjudge`'s
//! [`Slug`], [`RunId`] and [`StepId`] (`#[serde(deserialize_with = …)]`),
//! with the message naming the argument (its path, e.g. `steps[2].id`), the
//! value and the rule. A value of the wrong JSON type gets serde's usual
//! "invalid type" message.

use harshjudge::store::{RunId, Slug, StepId};
use serde::{Deserialize, Deserializer, de::Error};

use crate::dispatch::ID_ERROR;

fn id<'de, D: Deserializer<'de>, T>(
    d: D,
    new: impl FnOnce(String) -> Option<T>,
    rule: &str,
) -> Result<T, D::Error> {
    let s = String::deserialize(d)?;
    let shown = format!("{s:?}");
    new(s).ok_or_else(|| D::Error::custom(format!("{ID_ERROR}{{field}} {shown} {rule}")))
}

const SLUG_RULE: &str = "is not a valid scenario slug: use 1 to 100 lowercase letters, digits and hyphens, e.g. \"user-login\"";
const RUN_RULE: &str =
    "is not a valid run id: 1 to 64 letters, digits, '_' or '-' (use the runId startRun returned)";
const STEP_RULE: &str = "is not a step id: it must be zero-padded two digits from \"01\" to \"99\" (e.g. \"01\", \"02\")";
const SEQUENCE_RULE: &str =
    "is not a sequence id (letters, digits, _ and -, as record_list shows them)";

/// A scenario slug.
pub fn slug<'de, D: Deserializer<'de>>(d: D) -> Result<Slug, D::Error> {
    id(d, |s| Slug::new(s).ok(), SLUG_RULE)
}

/// An optional scenario slug (with `#[serde(default)]`).
pub fn opt_slug<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Slug>, D::Error> {
    slug(d).map(Some)
}

/// A run id.
pub fn run_id<'de, D: Deserializer<'de>>(d: D) -> Result<RunId, D::Error> {
    id(d, |s| RunId::new(s).ok(), RUN_RULE)
}

/// An optional run id (with `#[serde(default)]`).
pub fn opt_run_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RunId>, D::Error> {
    run_id(d).map(Some)
}

/// A step id, `"01"` to `"99"`.
pub fn step_id<'de, D: Deserializer<'de>>(d: D) -> Result<StepId, D::Error> {
    id(d, |s| StepId::new(s).ok(), STEP_RULE)
}

/// An optional step id (with `#[serde(default)]`).
pub fn opt_step_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<StepId>, D::Error> {
    step_id(d).map(Some)
}

/// A recorded sequence's id (a run id's rule).
pub fn sequence_id<'de, D: Deserializer<'de>>(d: D) -> Result<RunId, D::Error> {
    id(d, |s| RunId::new(s).ok(), SEQUENCE_RULE)
}

#[cfg(test)]
mod tests {
    use crate::dispatch::parse;
    use crate::tools::run::{CompleteRun, StartRun};
    use serde_json::json;

    #[test]
    fn ids_deserialise_typed_with_the_argument_named() {
        let a: StartRun = parse("startRun", json!({"scenarioSlug": "login"})).unwrap();
        assert_eq!(a.scenario_slug.as_str(), "login");
        let e = parse::<StartRun>("startRun", json!({"scenarioSlug": "Bad Slug"})).unwrap_err();
        assert_eq!(
            e.message,
            "scenarioSlug \"Bad Slug\" is not a valid scenario slug: use 1 to 100 lowercase letters, digits and hyphens, e.g. \"user-login\""
        );
        let e = parse::<CompleteRun>(
            "completeRun",
            json!({"runId": "r1", "steps": [{"id": "01", "status": "pass"}, {"id": "1", "status": "pass"}]}),
        )
        .unwrap_err();
        assert!(
            e.message.starts_with("steps[1].id \"1\" is not a step id"),
            "{}",
            e.message
        );
        let e = parse::<CompleteRun>("completeRun", json!({"runId": "a/b"})).unwrap_err();
        assert!(
            e.message
                .starts_with("runId \"a/b\" is not a valid run id: 1 to 64 letters"),
            "{}",
            e.message
        );
        // The wrong JSON type keeps serde's message.
        let e = parse::<StartRun>("startRun", json!({"scenarioSlug": 3})).unwrap_err();
        assert!(
            e.message
                .starts_with("invalid arguments for startRun: scenarioSlug: invalid type"),
            "{}",
            e.message
        );
    }
}
