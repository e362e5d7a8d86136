//! A navigation the page was sent (`goto`) that another navigation of the
//! same browsing context took the place of before its document came: the
//! page's own script, a meta refresh or a form navigated meanwhile. Classic
//! WebDriver's Navigate To then ends when the other document has loaded and
//! says nothing (chromedriver and geckodriver alike), so `goto("/start")`
//! returned `Ok` on `/loop?3`. Watching the context's navigation events while
//! the command runs tells: the navigation to the URL asked for was aborted or
//! failed, and another one started. `goto` then fails as Playwright's does,
//! naming both URLs ([`BrowserError::NavigationInterrupted`]).

use std::future::Future;

use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use super::{Bidi, Lifecycle, TRAVERSAL_LIMIT};
use crate::browser::error::BrowserError;

impl Bidi {
    /// Runs `command`, a navigation of `context` to `url`, watching the
    /// context's navigation events meanwhile. If the navigation to `url` was
    /// aborted or failed and another navigation of the context started, the
    /// command's outcome (success, or the other navigation's error) becomes
    /// [`BrowserError::NavigationInterrupted`]. If instead its document loaded
    /// and the command failed as aborted (BiDi's `browsingContext.navigate`
    /// does when it cancelled a navigation the page had under way: Chromium
    /// says `net::ERR_ABORTED` of the page's, Firefox `NS_BINDING_ABORTED` or
    /// "a new navigation interrupted an unfinished navigation"), it succeeds once that document
    /// is complete. Otherwise its outcome stands. `ends_its_own`: the
    /// command succeeds only once its own navigation loaded (BiDi's
    /// `browsingContext.navigate`), so its success needs no round trip for
    /// events still on their way; classic Navigate To's does.
    pub(crate) async fn watch_navigation(
        &self,
        context: &str,
        url: &str,
        ends_its_own: bool,
        command: impl Future<Output = Result<(), BrowserError>>,
    ) -> Result<(), BrowserError> {
        let mut news = self.lifecycle.subscribe();
        let mut seen = Vec::new();
        let mut listening = true;
        tokio::pin!(command);
        let outcome = loop {
            tokio::select! {
                biased;
                event = news.recv(), if listening => match event {
                    Ok(e) => seen.push(e),
                    // Too many events to keep: judge on what was kept.
                    Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => listening = false,
                },
                outcome = &mut command => break outcome,
            }
        };
        drain(&mut news, &mut seen);
        let mut verdict = judge(&seen, context, url);
        let told = ends_its_own && outcome.is_ok();
        if matches!(verdict, Verdict::Unseen | Verdict::Pending)
            && !told
            && listening
            && self.is_open()
        {
            // The events of the navigation's start and end may still be on
            // their way: one round trip through the renderer brings them.
            self.flush(context).await;
            drain(&mut news, &mut seen);
            verdict = judge(&seen, context, url);
        }
        let aborted = outcome.as_ref().is_err_and(is_abort);
        if matches!(verdict, Verdict::Pending | Verdict::Failed)
            && listening
            && aborted
            && self.is_open()
        {
            // The command failed as aborted while ours goes on (Chromium's
            // mapper fails it with the error of the page's navigation that
            // ours cancelled): what ours becomes decides. Or ours was
            // aborted, and the navigation that did it is about to start
            // (Firefox): a second is given to it.
            let limit = match verdict {
                Verdict::Pending => TRAVERSAL_LIMIT,
                _ => std::time::Duration::from_secs(1),
            };
            let (waiting, deadline) = (verdict.clone(), tokio::time::Instant::now() + limit);
            while verdict == waiting {
                match tokio::time::timeout_at(deadline, news.recv()).await {
                    Ok(Ok(e)) => seen.push(e),
                    Ok(Err(RecvError::Lagged(_))) => {}
                    Ok(Err(RecvError::Closed)) | Err(_) => break,
                }
                verdict = judge(&seen, context, url);
            }
        }
        match (verdict, outcome) {
            (Verdict::InterruptedBy(by), _) => Err(BrowserError::NavigationInterrupted {
                url: url.to_string(),
                by,
            }),
            (Verdict::Loaded | Verdict::Committed, Err(e)) if is_abort(&e) => {
                match self.until_complete(context, "document.readyState").await {
                    true => Ok(()),
                    false => Err(e),
                }
            }
            (_, outcome) => outcome,
        }
    }
}

/// Whether a navigation command failed as aborted by another navigation, in
/// Chromium's words or Firefox's.
fn is_abort(e: &BrowserError) -> bool {
    let BrowserError::Command { message, .. } = e else {
        return false;
    };
    [
        "net::ERR_ABORTED",
        "NS_BINDING_ABORTED",
        "interrupted an unfinished navigation",
        "navigation canceled",
    ]
    .iter()
    .any(|w| message.contains(w))
}

/// The events received and not yet read.
fn drain(news: &mut tokio::sync::broadcast::Receiver<Lifecycle>, seen: &mut Vec<Lifecycle>) {
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
enum Verdict {
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
fn judge(seen: &[Lifecycle], context: &str, url: &str) -> Verdict {
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
fn same_url(a: &str, b: &str) -> bool {
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
