//! What a browsing context's documents did, in no protocol's words: the
//! [`Lifecycle`] events the BiDi backend feeds (`browsingContext.*` events,
//! mapped in `bidi/adapt.rs`; CDP waits on its own events, in
//! `backend/cdp/load_wait.rs`), and the pure [`judge`] of a `goto` on them:
//! loaded, failed, or interrupted by another navigation of the same context
//! (the page's own script, a meta refresh or a form navigated meanwhile),
//! which `goto` then reports as Playwright's does, naming both URLs.

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
    /// came (another navigation of the context may have taken its place).
    Cancelled {
        context: String,
        navigation: String,
        /// The URL it went to.
        url: String,
    },
}

/// Hands `each` the events received and not yet read (any channel's: the
/// DevTools backend's action wait reads its own events so).
pub(crate) fn drain<E: Clone>(
    news: &mut tokio::sync::broadcast::Receiver<E>,
    mut each: impl FnMut(E),
) {
    loop {
        match news.try_recv() {
            Ok(e) => each(e),
            Err(TryRecvError::Lagged(_)) => {}
            Err(TryRecvError::Empty | TryRecvError::Closed) => return,
        }
    }
}

/// What the events say of the navigation to `url`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Its document loaded.
    Loaded,
    /// It ended with no document of its own (a download, a fragment, a
    /// fetch error of its document) and was not seen cancelled: what the
    /// page shows decides whether another navigation took its place.
    Ended,
    /// It was aborted or failed, and no other navigation started.
    Failed,
    /// Its document replaced the page's (and may have sent it on since).
    Committed,
    /// It was aborted or failed and a navigation to this URL started after it.
    InterruptedBy(String),
    /// A navigation it cancelled, to this URL, committed in its place and
    /// was reported as ours (Firefox): unless ours starts again (Firefox may
    /// restart it), it was interrupted by that one.
    Replaced(String),
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
///
/// Firefox can also commit the document of a navigation that ours cancelled
/// and report that commit as ours (at the other navigation's URL): ours then
/// never comes, and the command may even succeed. A commit of ours at the
/// URL of a navigation cancelled meanwhile is that ([`Verdict::Replaced`]),
/// unless ours starts again; a commit of ours at any other URL is a redirect
/// of ours. Firefox may report that commit before ours is reported started:
/// a navigation is ours by its id, whenever its start comes.
pub(crate) fn judge(seen: &[Lifecycle], context: &str, url: &str) -> Verdict {
    // Every navigation of the context to `url`, wherever its start is.
    let ours_anywhere: Vec<&String> = seen
        .iter()
        .filter_map(|e| match e {
            Lifecycle::Started {
                context: c,
                navigation,
                url: u,
            } if c == context && same_url(u, url) => Some(navigation),
            _ => None,
        })
        .collect();
    let mut ours: Vec<&String> = Vec::new();
    // The other navigation under way: its id and URL.
    let mut other: Option<(&String, &String)> = None;
    // The URLs of the other navigations cancelled, and the one whose
    // document was committed as ours.
    let mut left: Vec<&String> = Vec::new();
    let mut taken_by: Option<&String> = None;
    let (mut cancelled, mut ended) = (false, false);
    for e in seen {
        match e {
            Lifecycle::Started {
                context: c,
                navigation,
                url: u,
            } if c == context => {
                if same_url(u, url) {
                    // A second start to our URL begins afresh; the first may
                    // come after its own commit was reported.
                    if !ours.is_empty() {
                        (cancelled, other, taken_by) = (false, None, None);
                    }
                    ours.push(navigation);
                } else if !ours.is_empty() && other.is_none() {
                    other = Some((navigation, u));
                }
            }
            Lifecycle::Cancelled {
                context: c,
                navigation: n,
                url: u,
            } if c == context => {
                if ours.contains(&n) {
                    cancelled = true;
                } else {
                    left.push(u);
                    if other.is_some_and(|(o, _)| o == n) {
                        other = None;
                    }
                }
            }
            // Another's document committed as ours before ours was reported
            // started (Firefox under load).
            Lifecycle::Committed {
                context: c,
                navigation: n,
                url: u,
            } if c == context
                && ours.is_empty()
                && ours_anywhere.contains(&n)
                && left.iter().any(|l| same_url(l, u)) =>
            {
                taken_by = Some(u);
            }
            _ if ours.is_empty() => {}
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
            Lifecycle::Committed {
                context: c,
                navigation: n,
                url: u,
            } if c == context && ours.contains(&n) && left.iter().any(|l| same_url(l, u)) => {
                taken_by = Some(u);
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
    if let Some(by) = taken_by {
        return Verdict::Replaced(by.clone());
    }
    match (cancelled, other) {
        (true, Some((_, by))) => Verdict::InterruptedBy(by.clone()),
        // Failed on its own (a network error): the command says so.
        (true, None) => Verdict::Failed,
        // Ended with no new document (a download, a fragment, a fetch error).
        (false, _) if ended => Verdict::Ended,
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

    /// Navigation `n` was cancelled (its URL unread by the judge but for a
    /// commit reported as another's).
    fn cancelled(n: &str) -> Lifecycle {
        Lifecycle::Cancelled {
            context: "c".into(),
            navigation: n.into(),
            url: format!("http://127.0.0.1:9/cancelled-{n}"),
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
            cancelled("1"),
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
            cancelled("0"),
            started("2", "http://127.0.0.1:9/loop?2"),
            cancelled("1"),
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
            cancelled("1"),
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
            cancelled("1"),
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
            cancelled("1"),
            started("2", "http://127.0.0.1:9/loop?2"),
            Lifecycle::Ended("c".into(), "1".into()),
            loaded("2"),
        ];
        assert_eq!(
            judge(&seen, "c", START),
            Verdict::InterruptedBy("http://127.0.0.1:9/loop?2".into())
        );
    }

    /// Firefox under load: the page's navigation to `/hop?1`, cancelled by
    /// ours, is committed and loaded reported as ours; the page goes on to
    /// `/hop?2`. Ours never came (a CI run's `goto` succeeded on `/hop?2`).
    /// When ours then starts again and commits, it did come; a commit of ours
    /// at a URL no cancelled navigation went to is a redirect of ours.
    #[test]
    fn a_cancelled_navigation_committed_as_ours_interrupted_it() {
        let hop = |n: &str| format!("http://127.0.0.1:9/hop?{n}");
        let at = |n: &str, url: &str| Lifecycle::Committed {
            context: "c".into(),
            navigation: n.into(),
            url: url.into(),
        };
        let seen = vec![
            Lifecycle::Cancelled {
                context: "c".into(),
                navigation: "0".into(),
                url: hop("1"),
            },
            started("1", START),
            at("1", &hop("1")),
            Lifecycle::Loaded {
                context: "c".into(),
                navigation: "1".into(),
                url: hop("1"),
            },
            started("2", &hop("2")),
        ];
        assert_eq!(judge(&seen, "c", START), Verdict::Replaced(hop("1")));
        let mut restarted = seen.clone();
        restarted.extend([cancelled("2"), started("3", START), at("3", START)]);
        assert_eq!(judge(&restarted, "c", START), Verdict::Committed);
        let redirected = [
            cancelled("0"),
            started("1", START),
            at("1", "http://127.0.0.1:9/elsewhere"),
        ];
        assert_eq!(judge(&redirected, "c", START), Verdict::Pending);
    }

    /// Firefox beside busy loops and two builds: the commit of `/hop?1` as
    /// ours is reported before ours is reported started, then its loads; a
    /// CI run's `goto` succeeded on `/hop?1` (ours had been unseen when the
    /// commit came, so it was not read). Seen in a debug print of 8 loaded
    /// runs: mostly Firefox then starts ours again, which another hop
    /// interrupts; without that restart ours never came.
    #[test]
    fn a_commit_as_ours_reported_before_ours_started_is_a_replacement() {
        let hop = |n: &str| format!("http://127.0.0.1:9/hop?{n}");
        let seen = vec![
            Lifecycle::Cancelled {
                context: "c".into(),
                navigation: "0".into(),
                url: hop("1"),
            },
            Lifecycle::Committed {
                context: "c".into(),
                navigation: "1".into(),
                url: hop("1"),
            },
            started("1", START),
            Lifecycle::Loaded {
                context: "c".into(),
                navigation: "1".into(),
                url: hop("1"),
            },
            Lifecycle::Loaded {
                context: "c".into(),
                navigation: "1".into(),
                url: hop("1"),
            },
        ];
        assert_eq!(judge(&seen, "c", START), Verdict::Replaced(hop("1")));
        // As logged: Firefox started ours again, and the next hop took its place.
        let mut restarted = seen.clone();
        restarted.extend([started("2", START), cancelled("2"), started("3", &hop("2"))]);
        assert_eq!(
            judge(&restarted, "c", START),
            Verdict::InterruptedBy(hop("2"))
        );
        // Ours restarted and loaded: it came.
        let mut came = seen.clone();
        came.extend([
            started("2", START),
            Lifecycle::Loaded {
                context: "c".into(),
                navigation: "2".into(),
                url: START.into(),
            },
        ]);
        assert_eq!(judge(&came, "c", START), Verdict::Loaded);
        // A commit of another navigation's id before ours started is not ours.
        let mut theirs = seen.clone();
        theirs[1] = Lifecycle::Committed {
            context: "c".into(),
            navigation: "9".into(),
            url: hop("1"),
        };
        assert_eq!(judge(&theirs, "c", START), Verdict::Pending);
    }

    /// Ours loaded (another navigation started before it, and one after it,
    /// as a page that navigates on load does); ours failed with no other
    /// navigation (a network error, which the command reports); nothing of
    /// ours seen; ours under way; another context's events.
    #[test]
    fn anything_else_is_not_an_interruption() {
        let seen = [
            started("0", "http://127.0.0.1:9/loop?1"),
            cancelled("0"),
            started("1", START),
            loaded("1"),
            started("2", "http://127.0.0.1:9/loop?0"),
            cancelled("1"),
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
            cancelled("1"),
            started("2", "http://127.0.0.1:9/else"),
        ];
        assert_eq!(judge(&seen, "c", START), Verdict::Committed);
        // Firefox: ours failed, the page's own started and failed, and a
        // second navigation to our URL loaded.
        let seen = [
            started("1", START),
            cancelled("1"),
            started("2", "http://127.0.0.1:9/loop?2"),
            cancelled("2"),
            started("3", START),
            loaded("3"),
        ];
        assert_eq!(judge(&seen, "c", START), Verdict::Loaded);
        let seen = [started("1", START), cancelled("1")];
        assert_eq!(judge(&seen, "c", START), Verdict::Failed);
        // Ours ended with no document (a fetch error, a download), and the
        // page's own navigation started after it: the page tells.
        let seen = [
            started("1", START),
            Lifecycle::Ended("c".into(), "1".into()),
            started("2", "http://127.0.0.1:9/loop?2"),
        ];
        assert_eq!(judge(&seen, "c", START), Verdict::Ended);
        assert_eq!(judge(&seen[1..], "c", START), Verdict::Unseen);
        assert_eq!(judge(&[started("1", START)], "c", START), Verdict::Pending);
        let other = [
            started("1", START),
            cancelled("1"),
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
