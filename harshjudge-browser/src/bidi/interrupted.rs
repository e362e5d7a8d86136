//! A navigation the page was sent (`goto`) that another navigation of the
//! same browsing context took the place of before its document came: the
//! page's own script, a meta refresh or a form navigated meanwhile.
//! `browsingContext.navigate` then fails as aborted, or (Chromium's mapper)
//! with the error of the page's navigation it cancelled. Watching the
//! context's navigation events while the command runs tells: the navigation
//! to the URL asked for was aborted or failed, and another one started. `goto` then fails as Playwright's does,
//! naming both URLs ([`BrowserError::NavigationInterrupted`]). The judge
//! itself is `lifecycle.rs`'s, in no protocol's words.

use std::future::Future;

use tokio::sync::broadcast::error::RecvError;

use super::{Bidi, TRAVERSAL_LIMIT};
use crate::error::BrowserError;
use crate::lifecycle::{Verdict, drain, judge, same_url};

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
    /// is complete; if it ended with no document of its own (a fetch error),
    /// the document the page shows once complete decides: ours, or another
    /// that took its place. If a navigation ours cancelled committed in its place,
    /// reported as ours (Firefox; the command may even succeed), it failed as
    /// interrupted by that one unless Firefox starts ours again within a
    /// second. Otherwise its outcome stands. The command succeeds only once
    /// a document loaded, so its success needs no round trip for events
    /// still on their way.
    pub(crate) async fn watch_navigation(
        &self,
        context: &str,
        url: &str,
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
        drain(&mut news, |e| seen.push(e));
        let mut verdict = judge(&seen, context, url);
        if matches!(verdict, Verdict::Unseen | Verdict::Pending)
            && outcome.is_err()
            && listening
            && self.is_open()
        {
            // The events of the navigation's start and end may still be on
            // their way: one round trip through the renderer brings them.
            self.flush(context).await;
            drain(&mut news, |e| seen.push(e));
            verdict = judge(&seen, context, url);
        }
        let aborted = outcome.as_ref().is_err_and(is_abort);
        let replaced = matches!(verdict, Verdict::Replaced(_));
        // How long an undecided verdict is waited on. The command failed as
        // aborted while ours goes on (Chromium's mapper fails it with the
        // error of the page's navigation that ours cancelled), or Firefox
        // started ours again after another's document came in its place:
        // what ours becomes decides. Ours was aborted, and the navigation
        // that did it is about to start (Firefox), or another's document
        // came in its place and Firefox may start ours again, or ours ended
        // with no document of its own and may yet come: a second.
        let undecided = |verdict: &Verdict| match verdict {
            Verdict::Pending if aborted || replaced => Some(TRAVERSAL_LIMIT),
            Verdict::Failed | Verdict::Ended if aborted => Some(std::time::Duration::from_secs(1)),
            Verdict::Replaced(_) => Some(std::time::Duration::from_secs(1)),
            _ => None,
        };
        let since = tokio::time::Instant::now();
        while listening && self.is_open() {
            let Some(limit) = undecided(&verdict) else {
                break;
            };
            match tokio::time::timeout_at(since + limit, news.recv()).await {
                Ok(Ok(e)) => seen.push(e),
                Ok(Err(RecvError::Lagged(_))) => {}
                Ok(Err(RecvError::Closed)) | Err(_) => break,
            }
            verdict = judge(&seen, context, url);
        }
        match (verdict, outcome) {
            (Verdict::InterruptedBy(by) | Verdict::Replaced(by), _) => {
                Err(BrowserError::NavigationInterrupted {
                    url: url.to_string(),
                    by,
                })
            }
            (Verdict::Loaded | Verdict::Committed, Err(e)) if is_abort(&e) => {
                match self.until_complete(context, "document.readyState").await {
                    true => Ok(()),
                    false => Err(e),
                }
            }
            // Ours ended with no document of its own as the command failed
            // as aborted (Firefox: a fetch error of ours): its events do not
            // say whether the page's own navigation took its place or ours
            // came under another navigation's id (both were seen in soaks).
            // The document the page ends on does.
            (Verdict::Ended, Err(e)) if is_abort(&e) => {
                if !self.until_complete(context, "document.readyState").await {
                    return Err(e);
                }
                match self.evaluate(context, "document.URL").await {
                    Ok(now) if same_url(&now, url) => Ok(()),
                    Ok(now) => Err(BrowserError::NavigationInterrupted {
                        url: url.to_string(),
                        by: now,
                    }),
                    Err(_) => Err(e),
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
