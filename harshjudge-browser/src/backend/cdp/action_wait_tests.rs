//! The action's navigations, fed the events in the orders Chromium sends them.

use super::ActionNavigations;
use crate::backend::cdp::load_wait::Lifecycle;

fn asked(frame: &str) -> Lifecycle {
    Lifecycle::NavigationRequested {
        frame: frame.into(),
    }
}

fn requested(frame: &str, loader: &str) -> Lifecycle {
    Lifecycle::DocumentRequested {
        frame: frame.into(),
        loader: loader.into(),
        by: None,
    }
}

fn committed(frame: &str, loader: &str) -> Lifecycle {
    Lifecycle::Committed {
        frame: frame.into(),
        loader: loader.into(),
        url: "http://app.test/next".into(),
    }
}

fn stopped(frame: &str) -> Lifecycle {
    Lifecycle::StoppedLoading {
        frame: frame.into(),
    }
}

fn after(events: &[Lifecycle]) -> ActionNavigations {
    let mut a = ActionNavigations::default();
    for e in events {
        a.step(e);
    }
    a
}

#[test]
fn an_action_that_asked_for_no_navigation_is_settled_at_once() {
    assert!(after(&[]).settled());
    // The page's own loads, not asked for by the action.
    assert!(
        after(&[
            requested("main", "l1"),
            committed("main", "l1"),
            stopped("main")
        ])
        .settled()
    );
}

#[test]
fn a_navigation_asked_for_is_under_way_until_its_frame_commits() {
    let mut a = after(&[asked("main")]);
    assert!(!a.settled());
    a.step(&requested("main", "l2"));
    assert!(!a.settled(), "its request went out, no document yet");
    a.step(&Lifecycle::Event {
        frame: "main".into(),
        loader: "l1".into(),
        name: "load".into(),
    });
    assert!(!a.settled(), "a load of the document left is no commit");
    a.step(&committed("main", "l2"));
    assert!(a.settled());
}

#[test]
fn only_the_frame_that_navigates_is_waited_for() {
    let mut a = after(&[asked("inner"), committed("main", "l9")]);
    assert!(!a.settled(), "another frame's commit");
    a.step(&committed("inner", "l3"));
    assert!(a.settled());
}

#[test]
fn a_navigation_that_ends_without_a_document_ends_the_wait() {
    // Its request failed (a download, a network error, cancelled).
    let failed = after(&[
        asked("main"),
        requested("main", "l2"),
        Lifecycle::DocumentFailed {
            loader: "l2".into(),
            error: "net::ERR_ABORTED".into(),
        },
    ]);
    assert!(failed.settled());
    // Answered with no document (204): the frame stops loading.
    assert!(after(&[asked("main"), requested("main", "l2"), stopped("main")]).settled());
    // Within the document (a fragment).
    assert!(
        after(&[
            asked("main"),
            Lifecycle::WithinDocument {
                frame: "main".into(),
                url: "http://app.test/#b".into()
            }
        ])
        .settled()
    );
    assert!(after(&[asked("main"), Lifecycle::Closed]).settled());
}

#[test]
fn the_left_documents_load_stopping_before_the_request_does_not_end_the_wait() {
    let a = after(&[asked("main"), stopped("main")]);
    assert!(!a.settled());
    // Another request's failure is not ours.
    let mut b = after(&[asked("main"), requested("main", "l2")]);
    b.step(&Lifecycle::DocumentFailed {
        loader: "l7".into(),
        error: "net::ERR_ABORTED".into(),
    });
    assert!(!b.settled());
}
