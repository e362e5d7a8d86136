//! The judge of a `goto`, fed the events in the orders Chromium sends them.

use super::{End, Lifecycle, LoadWait};

const MAIN: &str = "F";

fn committed(loader: &str, url: &str) -> Lifecycle {
    Lifecycle::Committed {
        frame: MAIN.into(),
        loader: loader.into(),
        url: url.into(),
    }
}

fn requested() -> Lifecycle {
    Lifecycle::Requested { frame: MAIN.into() }
}

fn load(loader: &str) -> Lifecycle {
    Lifecycle::Event {
        frame: MAIN.into(),
        loader: loader.into(),
        name: "load".into(),
    }
}

/// A request for the main frame's next document by a script at `by`.
fn document_requested(by: &str) -> Lifecycle {
    Lifecycle::DocumentRequested {
        frame: MAIN.into(),
        by: Some(by.into()),
    }
}

/// Feeds `events` until the wait ends.
fn run(wait: &mut LoadWait, events: Vec<Lifecycle>) -> Option<End> {
    events.into_iter().find_map(|e| wait.step(e, MAIN))
}

#[test]
fn a_document_that_sends_the_page_on_ends_on_the_next_load() {
    // `/jump`'s inline script asks for `/landed` while it is parsed.
    let mut wait = LoadWait::for_loader(Some("L1".into()), Some("http://a/before".into()));
    let end = run(
        &mut wait,
        vec![
            committed("L1", "http://a/jump"),
            requested(),
            document_requested("http://a/jump"),
            committed("L2", "http://a/landed"),
            load("L2"),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}

#[test]
fn a_script_of_its_own_from_another_file_sends_it_on_too() {
    // `/app` loads `/app.js`, which sends the page to `/login`.
    let mut wait = LoadWait::for_loader(Some("L1".into()), Some("http://a/before".into()));
    let end = run(
        &mut wait,
        vec![
            committed("L1", "http://a/app"),
            requested(),
            document_requested("http://a/app.js"),
            committed("L2", "http://a/login"),
            load("L2"),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}

/// The race `routed_input` met under load: the page on `/hop?1` (which sends
/// itself on after a few ms) is sent to `/start`; `/hop?1`'s own request for
/// `/hop?2` is reported after `/start` committed, and Chromium carries it out.
/// (The document left was once asked of the history when that request was
/// read; under load `/hop?2` had committed by then, the entry before it was
/// `/start`, and the `goto` ended `Ok` on `/hop?2`.)
#[test]
fn a_navigation_the_left_document_asked_for_interrupts() {
    let mut wait = LoadWait::for_loader(Some("L1".into()), Some("http://a/hop?1".into()));
    let end = run(
        &mut wait,
        vec![
            committed("L1", "http://a/start"),
            requested(),
            document_requested("http://a/hop?1"),
            committed("L2", "http://a/hop?2"),
            load("L2"),
        ],
    );
    assert_eq!(
        end,
        Some(End::Interrupted {
            by: "http://a/hop?2".into()
        })
    );
}

#[test]
fn another_document_committed_first_interrupts() {
    let mut wait = LoadWait::for_loader(Some("L1".into()), None);
    let end = run(
        &mut wait,
        vec![committed("L9", "http://a/other"), load("L1")],
    );
    assert_eq!(
        end,
        Some(End::Interrupted {
            by: "http://a/other".into()
        })
    );
}

#[test]
fn a_fragment_navigation_of_a_reload_ends_it() {
    let mut wait = LoadWait::for_loader(None, None);
    let end = run(
        &mut wait,
        vec![Lifecycle::WithinDocument {
            frame: MAIN.into(),
            url: "http://a/#x".into(),
        }],
    );
    assert_eq!(end, Some(End::Loaded));
}

/// `goto` to the URL the page is on: its own script sending it on is the
/// awaited document's, not the left one's.
#[test]
fn a_goto_to_the_same_url_follows_its_own_script() {
    let mut wait = LoadWait::for_loader(Some("L1".into()), Some("http://a/jump".into()));
    let end = run(
        &mut wait,
        vec![
            committed("L1", "http://a/jump"),
            requested(),
            document_requested("http://a/jump"),
            committed("L2", "http://a/landed"),
            load("L2"),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}

/// The left document's request before the awaited one committed is not
/// judged (that document is still the page's; Chromium cancels one of the
/// two navigations): the awaited document's own navigation is followed.
#[test]
fn a_request_of_the_left_document_before_the_commit_does_not_count() {
    let mut wait = LoadWait::for_loader(Some("L1".into()), Some("http://a/hop?1".into()));
    let end = run(
        &mut wait,
        vec![
            document_requested("http://a/hop?1"),
            committed("L1", "http://a/redirect-meta"),
            requested(),
            Lifecycle::DocumentRequested {
                frame: MAIN.into(),
                by: None,
            },
            committed("L2", "http://a/start"),
            load("L2"),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}
