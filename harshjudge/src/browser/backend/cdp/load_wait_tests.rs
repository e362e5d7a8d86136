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

/// Feeds `events` (a document request by `(by, left)` asked of the wait as
/// the page does), until the wait ends.
fn run(wait: &mut LoadWait, events: Vec<Result<Lifecycle, (&str, Option<&str>)>>) -> Option<End> {
    for e in events {
        match e {
            Ok(event) => {
                if let Some(end) = wait.step(event, MAIN) {
                    return Some(end);
                }
            }
            Err((by, left)) => {
                if wait.asks_about(by) {
                    wait.requested_by(by, left);
                }
            }
        }
    }
    None
}

#[test]
fn a_document_that_sends_the_page_on_ends_on_the_next_load() {
    // `/jump`'s inline script asks for `/landed` while it is parsed.
    let mut wait = LoadWait::for_loader(Some("L1".into()));
    let end = run(
        &mut wait,
        vec![
            Ok(committed("L1", "http://a/jump")),
            Ok(requested()),
            Err(("http://a/jump", Some("http://a/before"))),
            Ok(committed("L2", "http://a/landed")),
            Ok(load("L2")),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}

#[test]
fn a_script_of_its_own_from_another_file_sends_it_on_too() {
    // `/app` loads `/app.js`, which sends the page to `/login`.
    let mut wait = LoadWait::for_loader(Some("L1".into()));
    let end = run(
        &mut wait,
        vec![
            Ok(committed("L1", "http://a/app")),
            Ok(requested()),
            Err(("http://a/app.js", Some("http://a/before"))),
            Ok(committed("L2", "http://a/login")),
            Ok(load("L2")),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}

/// The race `routed_input` met under load: the page on `/hop?1` (which sends
/// itself on after a few ms) is sent to `/start`; `/hop?1`'s own request for
/// `/hop?2` is reported after `/start` committed, and Chromium carries it out.
#[test]
fn a_navigation_the_left_document_asked_for_interrupts() {
    let mut wait = LoadWait::for_loader(Some("L1".into()));
    let end = run(
        &mut wait,
        vec![
            Ok(committed("L1", "http://a/start")),
            Ok(requested()),
            Err(("http://a/hop?1", Some("http://a/hop?1"))),
            Ok(committed("L2", "http://a/hop?2")),
            Ok(load("L2")),
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
    let mut wait = LoadWait::for_loader(Some("L1".into()));
    let end = run(
        &mut wait,
        vec![Ok(committed("L9", "http://a/other")), Ok(load("L1"))],
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
    let mut wait = LoadWait::for_loader(None);
    let end = run(
        &mut wait,
        vec![Ok(Lifecycle::WithinDocument {
            frame: MAIN.into(),
            url: "http://a/#x".into(),
        })],
    );
    assert_eq!(end, Some(End::Loaded));
}
