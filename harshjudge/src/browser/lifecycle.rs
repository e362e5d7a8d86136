//! What a browsing context's documents did, in no protocol's words: the
//! [`Lifecycle`] events a backend feeds (BiDi's `browsingContext.*` events in
//! `bidi/adapt.rs`; CDP's `Page.frameRequestedNavigation`/`frameStartedNavigating`
//! → `Started`, `frameNavigated` → `Committed`, `lifecycleEvent`
//! DOMContentLoaded/load → `Loaded`, `navigatedWithinDocument`/`frameStoppedLoading`
//! without a commit → `Ended`, `Target.detachedFromTarget` → `Destroyed`), and
//! the pure [`judge`] of a `goto` on them: loaded, failed, or interrupted by
//! another navigation of the same context (the page's own script, a meta
//! refresh or a form navigated meanwhile), which `goto` then reports as
//! Playwright's does, naming both URLs.

use tokio::sync::broadcast::error::TryRecvError;

/// What a browsing context's document did, for the calls that must not
/// outlive it and for the judge of a navigation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Lifecycle {
    /// A navigation of the context started (its document may still answer
    /// until the new one commits).
    Started {
        context: String,
        navigation: String,
        /// The URL it goes to.
        url: String,
    },
    /// A document of the context reached DOMContentLoaded or load, with the
    /// navigation under way (Firefox tags the document being left with the
    /// navigation that will replace it).
    Loaded {
        context: String,
        navigation: String,
        /// The document's URL.
        url: String,
    },
    /// The context is gone (its tab closed, its iframe removed).
    Destroyed(String),
    /// A navigation of the context ended without a new document: a
    /// download, a fetch error of its document, or a fragment navigation (the
    /// same document): the context, the navigation's id.
    Ended(String, String),
    /// A navigation's new document replaced the context's: the context, the
    /// navigation's id, the document's URL.
    Committed {
        context: String,
        navigation: String,
        url: String,
    },
    /// A navigation of the context was aborted or failed before its document
    /// came (another navigation of the context may have taken its place):
    /// the context, the navigation's id.
    Cancelled(String, String),
}

/// The events received and not yet read.
pub(crate) fn drain(
    news: &mut tokio::sync::broadcast::Receiver<Lifecycle>,
    seen: &mut Vec<Lifecycle>,
) {
    loop {
        match news.try_recv() {
            Ok(e) => seen.push(e),
            Err(TryRecvError::Lagged(_)) => {}
            Err(TryRecvError::Empty | TryRecvError::Closed) => return,
        }
    }
}

/// What the events say of the navigation to `url`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Its document loaded (or it ended with none, as a download does, and
    /// nothing took its place).
    Loaded,
    /// It was aborted or failed, and no other navigation started.
    Failed,
    /// Its document replaced the page's (and may have sent it on since).
    Committed,
    /// It was aborted or failed and a navigation to this URL started after it.
    InterruptedBy(String),
    /// It started, and has not ended yet.
    Pending,
    /// It was not seen to start.
    Unseen,
}

/// The verdict on the navigations of `context` to `url` in `seen`, read in
/// order. Ours is interrupted when it was cancelled and another navigation of
/// the context, started before ours committed and not cancelled itself, is
/// under way: then even a commit or a load of ours reported after it (Chromium's
/// mapper reports both for a navigation it said was cancelled) leaves the page
/// on the other document. Ours committed first is not interrupted by what
/// its own document does next. A second start to the same URL (Firefox
/// restarts a navigation so) begins afresh.
pub(crate) fn judge(seen: &[Lifecycle], context: &str, url: &str) -> Verdict {
    let mut ours: Vec<&String> = Vec::new();
    // The other navigation under way: its id and URL.
    let mut other: Option<(&String, &String)> = None;
    let (mut cancelled, mut ended) = (false, false);
    for e in seen {
        match e {
            Lifecycle::Started {
                context: c,
                navigation,
                url: u,
            } if c == context => {
                if same_url(u, url) {
                    ours.push(navigation);
                    (cancelled, other) = (false, None);
                } else if !ours.is_empty() && other.is_none() {
                    other = Some((navigation, u));
                }
            }
            _ if ours.is_empty() => {}
            Lifecycle::Cancelled(c, n) if c == context => {
                if ours.contains(&n) {
                    cancelled = true;
                } else if other.is_some_and(|(o, _)| o == n) {
                    other = None;
                }
            }
            Lifecycle::Committed {
                context: c,
                navigation: n,
                url: u,
            } if c == context && ours.contains(&n) && same_url(u, url) => {
                return match other {
                    Some((_, by)) if cancelled => Verdict::InterruptedBy(by.clone()),
                    _ => Verdict::Committed,
                };
            }
            // The document of ours, not one Firefox tags with it as it
            // leaves.
            Lifecycle::Loaded {
                context: c,
                navigation: n,
                url: u,
            } if c == context && ours.contains(&n) && same_url(u, url) => {
                return match other {
                    Some((_, by)) if cancelled => Verdict::InterruptedBy(by.clone()),
                    _ => Verdict::Loaded,
                };
            }
            // A download, a fragment, a fetch error (Firefox's comes after
            // the failure).
            Lifecycle::Ended(c, n) if c == context && ours.contains(&n) => ended = true,
            Lifecycle::Destroyed(c) if c == context => ended = true,
            _ => {}
        }
    }
    if ours.is_empty() {
        return Verdict::Unseen;
    }
    match (cancelled, other) {
        (true, Some((_, by))) => Verdict::InterruptedBy(by.clone()),
        // Failed on its own (a network error): the command says so.
        (true, None) => Verdict::Failed,
        // Ended with no new document (a download, a fragment).
        (false, _) if ended => Verdict::Loaded,
        (false, _) => Verdict::Pending,
    }
}

/// Whether two URLs are the same document's (parsed and normalised, the
/// fragment aside; compared as written when either does not parse).
pub(crate) fn same_url(a: &str, b: &str) -> bool {
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(mut a), Ok(mut b)) => {
            a.set_fragment(None);
            b.set_fragment(None);
            a == b
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::{Lifecycle, Verdict, judge};

    fn started(n: &str, url: &str) -> Lifecycle {
        Lifecycle::Started {
            context: "c".into(),
            navigation: n.into(),
            url: url.into(),
        }
    }

    /// The document of navigation `n` loaded (at the URL of its start).
    fn loaded(n: &str) -> Lifecycle {
        let url = match n {
            "1" | "3" => START,
            _ => "http://127.0.0.1:9/loop",
        };
        Lifecycle::Loaded {
            context: "c".into(),
            navigation: n.into(),
            url: url.into(),
        }
    }

    const START: &str = "http://127.0.0.1:9/start";

    /// Firefox's and Chromium's events when the page's own script navigated
    /// while `goto` was on its way, in both orders seen: ours failed, then
    /// the script's started; the script's started first and ours cancelled
    /// it, then ours failed to another.
    #[test]
    fn a_navigation_cancelled_and_replaced_is_interrupted_by_the_other() {
        let seen = [
            started("1", START),
            Lifecycle::Cancelled("c".into(), "1".into()),
            started("2", "http://127.0.0.1:9/loop?3"),
            loaded("2"),
        ];
        assert_eq!(
            judge(&seen, "c", "http://127.0.0.1:9/start"),
            Verdict::InterruptedBy("http://127.0.0.1:9/loop?3".into())
        );
        let seen = [
            started("0", "http://127.0.0.1:9/loop?1"),
            started("1", START),
            Lifecycle::Cancelled("c".into(), "0".into()),
            started("2", "http://127.0.0.1:9/loop?2"),
            Lifecycle::Cancelled("c".into(), "1".into()),
        ];
        assert_eq!(
            judge(&seen, "c", START),
            Verdict::InterruptedBy("http://127.0.0.1:9/loop?2".into())
        );
        // Firefox: the document being left reaches DOMContentLoaded tagged
        // with our navigation, which then fails.
        let seen = [
            started("1", START),
            Lifecycle::Loaded {
                context: "c".into(),
                navigation: "1".into(),
                url: "http://127.0.0.1:9/loop?2".into(),
            },
            Lifecycle::Cancelled("c".into(), "1".into()),
            started("2", "http://127.0.0.1:9/loop?3"),
        ];
        assert_eq!(
            judge(&seen, "c", START),
            Verdict::InterruptedBy("http://127.0.0.1:9/loop?3".into())
        );
        // Chromium's mapper: ours cancelled, the page's own started, then a
        // commit and a load reported for ours, and the page's committed.
        let seen = [
            started("1", START),
            Lifecycle::Cancelled("c".into(), "1".into()),
            started("2", "http://127.0.0.1:9/loop?2"),
            Lifecycle::Committed {
                context: "c".into(),
                navigation: "1".into(),
                url: START.into(),
            },
            loaded("1"),
        ];
        assert_eq!(
            judge(&seen, "c", START),
            Verdict::InterruptedBy("http://127.0.0.1:9/loop?2".into())
        );
        // Firefox: the failure, then a fetch error of the same navigation.
        let seen = [
            started("1", START),
            Lifecycle::Cancelled("c".into(), "1".into()),
            started("2", "http://127.0.0.1:9/loop?2"),
            Lifecycle::Ended("c".into(), "1".into()),
            loaded("2"),
        ];
        assert_eq!(
            judge(&seen, "c", START),
            Verdict::InterruptedBy("http://127.0.0.1:9/loop?2".into())
        );
    }

    /// Ours loaded (another navigation started before it, and one after it,
    /// as a page that navigates on load does); ours failed with no other
    /// navigation (a network error, which the command reports); nothing of
    /// ours seen; ours under way; another context's events.
    #[test]
    fn anything_else_is_not_an_interruption() {
        let seen = [
            started("0", "http://127.0.0.1:9/loop?1"),
            Lifecycle::Cancelled("c".into(), "0".into()),
            started("1", START),
            loaded("1"),
            started("2", "http://127.0.0.1:9/loop?0"),
            Lifecycle::Cancelled("c".into(), "1".into()),
        ];
        assert_eq!(judge(&seen, "c", START), Verdict::Loaded);
        // Ours came, and its script sent the page on while it was parsed
        // (its load never came).
        let seen = [
            started("1", START),
            Lifecycle::Committed {
                context: "c".into(),
                navigation: "1".into(),
                url: START.into(),
            },
            Lifecycle::Cancelled("c".into(), "1".into()),
            started("2", "http://127.0.0.1:9/else"),
        ];
        assert_eq!(judge(&seen, "c", START), Verdict::Committed);
        // Firefox: ours failed, the page's own started and failed, and a
        // second navigation to our URL loaded.
        let seen = [
            started("1", START),
            Lifecycle::Cancelled("c".into(), "1".into()),
            started("2", "http://127.0.0.1:9/loop?2"),
            Lifecycle::Cancelled("c".into(), "2".into()),
            started("3", START),
            loaded("3"),
        ];
        assert_eq!(judge(&seen, "c", START), Verdict::Loaded);
        let seen = [
            started("1", START),
            Lifecycle::Cancelled("c".into(), "1".into()),
        ];
        assert_eq!(judge(&seen, "c", START), Verdict::Failed);
        assert_eq!(judge(&seen[1..], "c", START), Verdict::Unseen);
        assert_eq!(judge(&[started("1", START)], "c", START), Verdict::Pending);
        let other = [
            started("1", START),
            Lifecycle::Cancelled("c".into(), "1".into()),
            Lifecycle::Started {
                context: "d".into(),
                navigation: "2".into(),
                url: "http://127.0.0.1:9/else".into(),
            },
        ];
        assert_eq!(judge(&other, "c", START), Verdict::Failed);
    }

    /// The URL asked for is matched as the browser writes it: a bare origin
    /// gains its slash, a fragment is set aside.
    #[test]
    fn urls_are_compared_normalised() {
        assert!(super::same_url("http://127.0.0.1:9", "http://127.0.0.1:9/"));
        assert!(super::same_url(
            "http://127.0.0.1:9/a#x",
            "http://127.0.0.1:9/a"
        ));
        assert!(!super::same_url(
            "http://127.0.0.1:9/a",
            "http://127.0.0.1:9/b"
        ));
        assert!(super::same_url("about:blank", "about:blank"));
    }
}
