//! The generated locators of a step's targets, asked once at the step's end
//! (D4 of docs/design/trace.md): an action's engine answer carries only its
//! element's box and an id the page keeps the element under; when the step's
//! trace is kept, one engine call per page and frame
//! ([`Request::TraceTargets`]) turns the ids into `generate_locator`'s
//! chains, or says the element is gone (`detached`). Generating a locator
//! checks each candidate against the whole page, too slow for every action
//! of every passing step.

use std::sync::Arc;
use std::time::Duration;

use super::{Seen, Tracer};
use crate::generate::GeneratedLocator;
use crate::page::Page;
use crate::protocol::{Call, EngineError, FrameScope, Request};

/// The ids of one page and frame to ask, and the entries (by index) they are of.
struct Ask {
    page: usize,
    frame: Option<Arc<FrameScope>>,
    ids: Vec<String>,
    entries: Vec<usize>,
}

/// Groups the targets not named yet by page and frame (the same frame
/// locator: one `Arc`), in the order first met.
fn asks(entries: &[super::Entry]) -> Vec<Ask> {
    let mut asks: Vec<Ask> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let Some(Seen {
            frame,
            traced,
            named: None,
            ..
        }) = &e.target
        else {
            continue;
        };
        let same = |a: &Ask| {
            a.page == e.page
                && match (&a.frame, frame) {
                    (None, None) => true,
                    (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                    _ => false,
                }
        };
        match asks.iter_mut().find(|a| same(a)) {
            Some(a) => {
                a.ids.push(traced.id.clone());
                a.entries.push(i);
            }
            None => asks.push(Ask {
                page: e.page,
                frame: frame.clone(),
                ids: vec![traced.id.clone()],
                entries: vec![i],
            }),
        }
    }
    asks
}

/// Why the targets of one page and frame were not named (said in the
/// step's `errors`).
#[derive(Debug)]
enum Unnamed {
    /// The call gave no answer within the limit.
    NoAnswer(Duration),
    /// The call failed.
    Call(crate::error::BrowserError),
    /// The engine answered with an error.
    Engine(EngineError),
    /// The answer was not a list of generated locators.
    Shape {
        answer: serde_json::Value,
        error: serde_json::Error,
    },
    /// The answer named another number of elements than were asked.
    Count { got: usize, asked: usize },
}

impl std::fmt::Display for Unnamed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unnamed::NoAnswer(limit) => write!(f, "no answer within {limit:?}"),
            Unnamed::Call(e) => write!(f, "{e}"),
            Unnamed::Engine(e) => write!(f, "the engine answered {e:?}"),
            Unnamed::Shape { answer, error } => write!(f, "the page answered {answer}: {error}"),
            Unnamed::Count { got, asked } => {
                write!(f, "the page answered {got} names for {asked} elements")
            }
        }
    }
}

/// The page's answer to [`Request::TraceTargets`] as each target's name:
/// its locator as `generate_locator` writes it, or none when it is gone.
fn names(value: serde_json::Value, count: usize) -> Result<Vec<Option<String>>, Unnamed> {
    let list: Vec<Option<GeneratedLocator>> =
        serde_json::from_value(value.clone()).map_err(|error| Unnamed::Shape {
            answer: value,
            error,
        })?;
    if list.len() != count {
        return Err(Unnamed::Count {
            got: list.len(),
            asked: count,
        });
    }
    Ok(list
        .into_iter()
        .map(|l| l.filter(|l| !l.parts.is_empty()).map(|l| l.rust()))
        .collect())
}

impl Tracer {
    /// Names the running step's targets on `pages` (the scenario's: those
    /// that record into this tracer), each call within `limit`; what could
    /// not be asked is said in the step's `errors` (its targets keep their
    /// box alone). Called at the step's end, when its trace is kept.
    pub(crate) async fn name_targets(&self, pages: &[Page], limit: Duration) {
        let asks = asks(&self.state().entries);
        for ask in asks {
            let page = pages.iter().find(|p| {
                p.tracer()
                    .is_some_and(|(t, n)| std::ptr::eq(Arc::as_ptr(t), self) && *n == ask.page)
            });
            let Some(page) = page else {
                continue;
            };
            let call = Call {
                request: Request::TraceTargets {
                    ids: ask.ids.clone(),
                    frame: ask.frame.clone(),
                },
                timeout: 0,
            };
            let during = "naming the elements of the step's trace";
            let named = match tokio::time::timeout(limit, page.call(call, during)).await {
                Err(_) => Err(Unnamed::NoAnswer(limit)),
                Ok(Err(e)) => Err(Unnamed::Call(e)),
                Ok(Ok(answer)) => match answer.result {
                    Ok(v) => names(v, ask.ids.len()),
                    Err(e) => Err(Unnamed::Engine(e)),
                },
            };
            let mut s = self.state();
            match named {
                Ok(named) => {
                    for (i, name) in ask.entries.into_iter().zip(named) {
                        if let Some(t) = s.entries.get_mut(i).and_then(|e| e.target.as_mut()) {
                            t.named = Some(name);
                        }
                    }
                }
                Err(e) => {
                    let frame = ask.frame.as_ref().map_or("the page", |f| f.desc.as_str());
                    let n = ask.ids.len();
                    s.errors.push(format!(
                        "the locators of {n} element(s) in {frame} of p{} were not read: {e}",
                        ask.page + 1
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_name_is_the_generated_locator_as_rust_and_null_is_gone() {
        let v = json!([
            {"parts": [{"kind": "role", "value": "button", "name": "Save"}], "unique": true},
            null,
            {"parts": [{"kind": "testId", "value": "row"}, {"kind": "nth", "value": 2}], "unique": true},
        ]);
        assert_eq!(
            names(v, 3).unwrap(),
            [
                Some("get_by_role(\"button\").name(\"Save\")".to_string()),
                None,
                Some("get_by_test_id(\"row\").nth(2)".to_string())
            ]
        );
        assert!(
            names(json!([null]), 2)
                .unwrap_err()
                .to_string()
                .contains("1 names for 2")
        );
        assert!(
            names(json!({"x": 1}), 1)
                .unwrap_err()
                .to_string()
                .contains("the page answered")
        );
    }
}
