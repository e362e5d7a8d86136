//! The generic engine call over a scripted fake backend: navigations retried,
//! a frame path walked again in the new document, the deadline kept.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::{CallFailure, Returned, Scopes, call};
use crate::error::BrowserError;
use crate::locator::selector_step;
use crate::protocol::{Call, FrameScope, Request};
use crate::wire::BidiReturns;

/// What the fake answers to one call, in order.
enum Step {
    Navigated,
    Answer(Value),
    Element(u32),
}

/// A backend whose calls answer `script` in order, noting each call's scope
/// and what it asked for.
struct Fake {
    script: Mutex<VecDeque<Step>>,
    calls: Mutex<Vec<(String, BidiReturns)>>,
}

impl Fake {
    fn new(script: Vec<Step>) -> Fake {
        Fake {
            script: Mutex::new(script.into()),
            calls: Mutex::default(),
        }
    }

    fn calls(&self) -> Vec<(String, BidiReturns)> {
        self.calls.lock().unwrap().clone()
    }
}

impl Scopes for Fake {
    type Scope = String;
    type Element = u32;

    fn top(&self) -> String {
        "top".into()
    }

    async fn call_in(
        &self,
        scope: &String,
        _request: &str,
        returns: BidiReturns,
        _wait: Duration,
    ) -> Result<Returned<u32>, CallFailure> {
        self.calls.lock().unwrap().push((scope.clone(), returns));
        // An empty script: the page keeps navigating.
        match self.script.lock().unwrap().pop_front() {
            None | Some(Step::Navigated) => Err(CallFailure::Navigated),
            Some(Step::Answer(v)) => Ok(Returned::Answer(v)),
            Some(Step::Element(e)) => Ok(Returned::Element(e)),
        }
    }

    async fn frame_scope(&self, iframe: u32, _frame: &FrameScope) -> Result<String, CallFailure> {
        Ok(format!("frame{iframe}"))
    }

    async fn frame_offset(&self, scope: &String) -> Result<(f64, f64), BrowserError> {
        assert!(scope.starts_with("frame"), "offset read in {scope}");
        Ok((10.0, 20.0))
    }
}

fn snapshot(timeout: u64) -> Call {
    Call {
        request: Request::AriaSnapshot,
        timeout,
    }
}

fn ok(value: Value) -> Step {
    Step::Answer(json!({"ok": true, "value": value, "log": []}))
}

fn frame(parent: Option<Arc<FrameScope>>, selector: &str) -> Arc<FrameScope> {
    Arc::new(FrameScope {
        parent,
        chain: vec![selector_step(selector)],
        desc: format!("frame {selector}"),
    })
}

#[tokio::test]
async fn a_call_the_page_navigates_under_twice_answers_the_third_time() {
    let fake = Fake::new(vec![Step::Navigated, Step::Navigated, ok(json!("done"))]);
    let answer = call(&fake, None, snapshot(1000), "reading").await.unwrap();
    assert_eq!(answer.result.unwrap(), json!("done"));
    let top = ("top".to_string(), BidiReturns::Answer);
    assert_eq!(fake.calls(), vec![top.clone(), top.clone(), top]);
}

#[tokio::test]
async fn a_frame_path_is_walked_again_after_a_navigation() {
    let outer = frame(None, "#outer");
    let inner = frame(Some(outer), "#inner");
    let fake = Fake::new(vec![
        Step::Element(1),
        Step::Element(2),
        Step::Navigated,
        Step::Element(3),
        Step::Element(4),
        ok(json!({"point": {"x": 1.0, "y": 2.0}})),
    ]);
    let answer = call(&fake, Some(&inner), snapshot(1000), "clicking")
        .await
        .unwrap();
    // The point is moved into the page's viewport by the frame's offset.
    assert_eq!(
        answer.result.unwrap(),
        json!({"point": {"x": 11.0, "y": 22.0}})
    );
    let (e, a) = (BidiReturns::Element, BidiReturns::Answer);
    let expected: Vec<(String, BidiReturns)> = [
        ("top", e),
        ("frame1", e),
        ("frame2", a),
        ("top", e),
        ("frame3", e),
        ("frame4", a),
    ]
    .into_iter()
    .map(|(s, r)| (s.to_string(), r))
    .collect();
    assert_eq!(fake.calls(), expected);
}

#[tokio::test]
async fn a_page_that_never_stops_navigating_fails_at_the_deadline() {
    let fake = Fake::new(Vec::new());
    let start = std::time::Instant::now();
    let e = call(&fake, None, snapshot(0), "reading").await.unwrap_err();
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_secs(2) && waited < Duration::from_secs(4),
        "{waited:?}"
    );
    assert!(e.to_string().contains("kept navigating"), "{e}");
    assert!(fake.calls().len() > 10, "{}", fake.calls().len());
}

#[tokio::test]
async fn a_frame_that_is_not_there_fails_with_the_engines_timeout() {
    let fake = Fake::new(vec![Step::Answer(json!({
        "ok": false,
        "error": {"kind": "timeout", "problem": "no element matches"},
        "log": ["waiting for #pay"]
    }))]);
    let e = call(&fake, Some(&frame(None, "#pay")), snapshot(0), "reading")
        .await
        .unwrap_err();
    assert!(matches!(e, BrowserError::Timeout { .. }), "{e:?}");
    assert!(e.to_string().contains("frame #pay"), "{e}");
}
