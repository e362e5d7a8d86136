//! The judge of a `goto`, fed the events in the orders Chromium sends them
//! (as a debug print of `wait_load` showed them under load).

use super::{End, Lifecycle, LoadWait};

const MAIN: &str = "F";

fn committed(loader: &str, url: &str) -> Lifecycle {
    Lifecycle::Committed {
        frame: MAIN.into(),
        loader: loader.into(),
        url: url.into(),
    }
}

fn load(loader: &str) -> Lifecycle {
    Lifecycle::Event {
        frame: MAIN.into(),
        loader: loader.into(),
        name: "load".into(),
    }
}

/// A request for the main frame's next document, `loader`'s, by a script
/// at `by` (none: no script asked, e.g. a `<meta refresh>` or the `goto`).
fn requested(loader: &str, by: Option<&str>) -> Lifecycle {
    Lifecycle::DocumentRequested {
        frame: MAIN.into(),
        loader: loader.into(),
        by: by.map(String::from),
    }
}

/// Feeds `events` to a wait for `L1`'s document, the page on `left`,
/// until the wait ends.
fn run(left: Option<&str>, events: Vec<Lifecycle>) -> Option<End> {
    let mut wait = LoadWait::for_loader(Some("L1".into()), left.map(String::from));
    events.into_iter().find_map(|e| wait.step(e, MAIN))
}

fn interrupted(by: &str) -> Option<End> {
    Some(End::Interrupted { by: by.into() })
}

#[test]
fn a_document_that_sends_the_page_on_ends_on_the_next_load() {
    // `/jump`'s inline script asks for `/landed` while it is parsed.
    let end = run(
        Some("http://a/before"),
        vec![
            requested("L1", None),
            committed("L1", "http://a/jump"),
            requested("L2", Some("http://a/jump")),
            committed("L2", "http://a/landed"),
            load("L2"),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}

#[test]
fn a_script_of_its_own_from_another_file_sends_it_on_too() {
    // `/app` loads `/app.js`, which sends the page to `/login`.
    let end = run(
        Some("http://a/before"),
        vec![
            committed("L1", "http://a/app"),
            requested("L2", Some("http://a/app.js")),
            committed("L2", "http://a/login"),
            load("L2"),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}

/// The page on `/hop?1` (which sends itself on after a few ms) is sent to
/// `/start`; `/hop?1`'s request for `/hop?2` is told after `/start`
/// committed, and Chromium carries it out.
#[test]
fn a_navigation_the_left_document_asked_for_after_the_commit_interrupts() {
    let end = run(
        Some("http://a/hop?1"),
        vec![
            committed("L1", "http://a/start"),
            requested("L2", Some("http://a/hop?1")),
            committed("L2", "http://a/hop?2"),
            load("L2"),
        ],
    );
    assert_eq!(end, interrupted("http://a/hop?2"));
}

/// The race of a fresh-clone run (`goto(/start) succeeded on /hop?1`): the
/// left document's request came before our commit (or before the `goto`
/// began, unseen), its commit after ours. Chromium's word that the left
/// document asked to navigate (`frameRequestedNavigation`) came after our
/// commit, and was once taken for our document's asking.
#[test]
fn a_navigation_the_left_document_asked_for_before_the_commit_interrupts() {
    let seen = run(
        Some("http://a/hop?0"),
        vec![
            requested("L1", None),
            requested("L2", Some("http://a/hop?0")),
            committed("L1", "http://a/start"),
            committed("L2", "http://a/hop?1"),
            load("L2"),
        ],
    );
    assert_eq!(seen, interrupted("http://a/hop?1"));
    let unseen = run(
        Some("http://a/hop?0"),
        vec![
            committed("L1", "http://a/start"),
            committed("L2", "http://a/hop?1"),
            load("L2"),
        ],
    );
    assert_eq!(unseen, interrupted("http://a/hop?1"));
}

fn failed(loader: &str) -> Lifecycle {
    Lifecycle::DocumentFailed {
        loader: loader.into(),
        error: "net::ERR_ABORTED".into(),
    }
}

fn stopped() -> Lifecycle {
    Lifecycle::StoppedLoading { frame: MAIN.into() }
}

/// The order of events of a `goto(/start?load=23)` beside `/hop?0`, which
/// sends itself on, as the headless shell sent them (a debug print of the
/// page's reader): `/hop?1` commits after our request, then ours. The wait
/// ended as interrupted at `/hop?1`'s commit, and `/start?load=23` then
/// committed during the next `goto`, which failed as interrupted by it.
#[test]
fn a_document_that_commits_before_ours_does_not_stop_ours() {
    let end = run(
        Some("http://a/hop?0"),
        vec![
            requested("L1", None),
            committed("L2", "http://a/hop?1"),
            committed("L1", "http://a/start?load=23"),
            load("L1"),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}

/// `/hop?1`, committed before ours, asks for `/hop?2` after ours committed:
/// not ours to follow (it is not the left document, but not ours either).
#[test]
fn the_overtaking_documents_own_navigation_interrupts_after_ours() {
    let end = run(
        Some("http://a/hop?0"),
        vec![
            requested("L1", None),
            committed("L2", "http://a/hop?1"),
            committed("L1", "http://a/start"),
            requested("L3", Some("http://a/hop?1")),
            committed("L3", "http://a/hop?2"),
            load("L3"),
        ],
    );
    assert_eq!(end, interrupted("http://a/hop?2"));
}

/// Another document committed first, and ours is dropped: its request
/// cancelled, or (not sent again) the frame stopping with no commit.
#[test]
fn another_document_in_ours_place_interrupts_once_ours_is_gone() {
    for gone in [failed("L1"), stopped()] {
        let mut wait = LoadWait::for_loader(Some("L1".into()), None);
        let events = vec![
            requested("L1", None),
            committed("L9", "http://a/other"),
            load("L9"),
            gone.clone(),
        ];
        let ends: Vec<Option<End>> = events.into_iter().map(|e| wait.step(e, MAIN)).collect();
        assert_eq!(
            ends,
            vec![None, None, None, interrupted("http://a/other")],
            "{gone:?}"
        );
    }
    // Cancelled first: the next commit is the one in its place.
    let end = run(
        None,
        vec![
            requested("L1", None),
            failed("L1"),
            committed("L9", "http://a/other"),
        ],
    );
    assert_eq!(end, interrupted("http://a/other"));
}

/// The frame stopping before our request was sent is the left document's
/// load ending (the events of before the `goto` are still read): it says
/// nothing of ours.
#[test]
fn the_left_documents_stop_before_our_request_does_not_end_the_wait() {
    let end = run(
        Some("http://a/hop?0"),
        vec![
            committed("L2", "http://a/hop?1"),
            load("L2"),
            stopped(),
            requested("L1", None),
            committed("L1", "http://a/start"),
            load("L1"),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
    // At the deadline, the document in its place is named.
    let mut wait = LoadWait::for_loader(Some("L1".into()), None);
    wait.step(committed("L2", "http://a/hop?1"), MAIN);
    assert_eq!(wait.overtaken_by(), Some("http://a/hop?1"));
}

/// Our request failing with nothing in its place (a `204`, a download)
/// fails the `goto` when the frame stops, with the browser's words.
#[test]
fn our_request_failing_alone_fails_when_the_frame_stops() {
    let end = run(None, vec![requested("L1", None), failed("L1"), stopped()]);
    assert_eq!(
        end,
        Some(End::Failed {
            error: "net::ERR_ABORTED".into()
        })
    );
}

fn within(url: &str) -> Lifecycle {
    Lifecycle::WithinDocument {
        frame: MAIN.into(),
        url: url.into(),
    }
}

#[test]
fn a_step_in_history_within_the_document_ends_at_its_entry() {
    let mut wait = LoadWait::for_history("http://a/#x");
    assert_eq!(wait.step(within("http://a/#x"), MAIN), Some(End::Loaded));
}

/// The page being left moves within itself (an app's router calling
/// `replaceState` as it loads) after the step in history was asked for:
/// the step goes on to its own document's load. Any such move ended it,
/// and `go_back` returned before its document had a body.
#[test]
fn the_left_pages_own_moves_do_not_end_a_step_in_history() {
    let mut wait = LoadWait::for_history("http://a/play");
    let events = vec![
        within("http://a/todos/#/"),
        within("http://a/todos/#/all"),
        committed("L2", "http://a/play"),
        load("L2"),
    ];
    let ends: Vec<Option<End>> = events.into_iter().map(|e| wait.step(e, MAIN)).collect();
    assert_eq!(ends, vec![None, None, None, Some(End::Loaded)]);
    // A reload is never a move within the document.
    let mut reload = LoadWait::for_loader(None, None);
    assert_eq!(reload.step(within("http://a/#x"), MAIN), None);
    assert_eq!(reload.step(committed("L3", "http://a/"), MAIN), None);
    assert_eq!(reload.step(load("L3"), MAIN), Some(End::Loaded));
}

/// `goto` to the URL the page is on: its own script sending it on is the
/// awaited document's, not the left one's.
#[test]
fn a_goto_to_the_same_url_follows_its_own_script() {
    let end = run(
        Some("http://a/jump"),
        vec![
            committed("L1", "http://a/jump"),
            requested("L2", Some("http://a/jump")),
            committed("L2", "http://a/landed"),
            load("L2"),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}

/// A `<meta refresh>` of the awaited document (no script initiator) is
/// followed, though the left document had asked to navigate before.
#[test]
fn a_meta_refresh_of_its_own_is_followed() {
    let end = run(
        Some("http://a/hop?1"),
        vec![
            requested("L2", Some("http://a/hop?1")),
            committed("L1", "http://a/redirect-meta"),
            requested("L3", None),
            committed("L3", "http://a/start"),
            load("L3"),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}

/// The document the awaited one sent the page to may send it on again.
#[test]
fn a_chain_of_its_own_navigations_is_followed_to_the_end() {
    let end = run(
        Some("http://a/before"),
        vec![
            committed("L1", "http://a/a"),
            requested("L2", Some("http://a/a")),
            committed("L2", "http://a/b"),
            requested("L3", Some("http://a/b")),
            committed("L3", "http://a/c"),
            load("L3"),
        ],
    );
    assert_eq!(end, Some(End::Loaded));
}
