//! Where a `goto`'s wait for its document stands, event by event: the pure
//! judge of [`super::page::CdpPage`]'s navigations (unit-tested here with
//! the events in the orders Chromium sends them).
//!
//! The awaited loader's commit makes it the page's document; a navigation
//! that document asks for afterwards (a script or `<meta refresh>` while it
//! is parsed) is not an interruption, and the wait goes on to the next
//! document's load (as Playwright's `goto` does). A document request names
//! the loader its commit will carry, so a commit is followed only when its
//! request came after the awaited document committed. A navigation the
//! document *left* asked for commits after ours too, and its request may
//! come before ours committed, after it, or before the `goto` began (then
//! it is not seen at all; Chromium tells of the left document's asking,
//! `Page.frameRequestedNavigation`, in any order with our commit): only a
//! request after our commit can be ours, and of those, one whose initiator
//! is the left document's script is not. The document left is the main
//! frame's last commit before the `goto` (the page's reader keeps it).
//!
//! Another document committing before ours does not end the wait: a
//! navigation past its point of no return when ours began commits, and
//! Chromium carries ours out after it (in the headless shell, beside busy
//! loops, 283 times in 28 runs of `routed_input`'s 40 `goto`s, and never
//! the other way). Ours is known gone only when its request fails or the
//! frame stops loading after it was sent; until then the wait goes on, and
//! it is a `goto` interrupted only then (or at its deadline).

/// A step of a frame's navigation, as the page's events tell it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Lifecycle {
    /// A frame committed a document (`Page.frameNavigated`).
    Committed {
        frame: String,
        loader: String,
        url: String,
    },
    /// A lifecycle event of a loader (`init`, `DOMContentLoaded`, `load`, …).
    Event {
        frame: String,
        loader: String,
        name: String,
    },
    /// A navigation within the document (fragment, history API).
    WithinDocument { frame: String, url: String },
    /// A frame's next document was requested (`Network.requestWillBeSent` of
    /// a `Document`) by `loader` (the loader its commit will carry), by a
    /// script at `by` if a script asked for it.
    DocumentRequested {
        frame: String,
        loader: String,
        by: Option<String>,
    },
    /// A document's request failed or was cancelled
    /// (`Network.loadingFailed` of a `Document`: its request id is the
    /// loader the commit would have carried).
    DocumentFailed { loader: String, error: String },
    /// The page asked for a navigation of `frame` in its place (a link
    /// followed, a form sent, a script's `location`: `Page.frameRequestedNavigation`
    /// with the disposition `currentTab`), to a URL that makes a document.
    NavigationRequested { frame: String },
    /// A frame has no navigation under way and its document loaded
    /// (`Page.frameStoppedLoading`).
    StoppedLoading { frame: String },
    /// The page's session ended (its target closed, the browser went).
    Closed,
}

/// How a `goto`'s wait ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// The awaited document (or the one it sent the page on to) loaded.
    Loaded,
    /// Another document, at `by`, took the awaited one's place.
    Interrupted { by: String },
    /// The awaited document's request failed, and nothing took its place.
    Failed { error: String },
}

/// A `goto`'s wait, fed the main frame's lifecycle.
#[derive(Debug, Default)]
pub(crate) struct LoadWait {
    /// The loader whose load ends the wait (none: the first to commit).
    loader: Option<String>,
    /// The URL of the awaited document, once committed.
    committed: Option<String>,
    /// The URLs of the documents that are not the awaited one's: the one
    /// the `goto` left (if known: not for a reload or history step, whose
    /// documents may share a URL), and any that committed before ours.
    others: Vec<String>,
    /// Whether the awaited loader's request was seen (from then on, the
    /// frame loads until that navigation commits or is dropped).
    requested: bool,
    /// Another document that committed before the awaited one, which may
    /// still commit: the wait's end if ours is dropped.
    overtaken_by: Option<String>,
    /// The awaited request's failure, with no other document committed
    /// yet: the wait's end when the frame stops loading.
    failed: Option<String>,
    /// The loaders of the documents the awaited one asked for.
    sent_to: Vec<String>,
    /// A history step's entry: a move within the document to it ends the
    /// wait (none: only a document's load does, as for a reload). Any move
    /// within the document did before, and the page being left (an app's
    /// router calling `replaceState` as it loads) ended a `go_back` before
    /// its document was there.
    within_to: Option<String>,
}

impl LoadWait {
    /// The wait for `loader`'s document (none: the first to commit), the
    /// page on `left` when it began.
    pub(crate) fn for_loader(loader: Option<String>, left: Option<String>) -> LoadWait {
        LoadWait {
            loader,
            others: left.into_iter().collect(),
            ..LoadWait::default()
        }
    }

    /// The wait of a step in history to the entry at `url`: its document's
    /// load, or a move within the document to `url`.
    pub(crate) fn for_history(url: &str) -> LoadWait {
        LoadWait {
            within_to: Some(url.to_string()),
            ..LoadWait::default()
        }
    }

    /// Whether a request by a script at `by` is another document's (the
    /// left one's, or one that committed before ours; not the awaited
    /// one's, nor one at the same URL).
    fn by_another(&self, by: &str) -> bool {
        self.others.iter().any(|l| same_document(l, by))
            && !self
                .committed
                .as_deref()
                .is_some_and(|c| same_document(c, by))
    }

    /// The document that committed in the awaited one's place, if one did
    /// (the wait's end at its deadline: ours never came).
    pub(crate) fn overtaken_by(&self) -> Option<&str> {
        self.overtaken_by.as_deref()
    }

    /// One event of the page: `Some` when the wait is over.
    pub(crate) fn step(&mut self, event: Lifecycle, main: &str) -> Option<End> {
        match event {
            Lifecycle::Committed { frame, loader, url }
                if frame == main
                    && (self.loader.is_none() || self.loader.as_ref() == Some(&loader)) =>
            {
                self.loader = Some(loader);
                self.committed = Some(url);
                self.overtaken_by = None;
            }
            Lifecycle::DocumentRequested { frame, loader, .. }
                if frame == main && self.loader.as_ref() == Some(&loader) =>
            {
                self.requested = true;
            }
            // A request after our commit, not another document's.
            Lifecycle::DocumentRequested { frame, loader, by }
                if frame == main
                    && self.committed.is_some()
                    && !by.as_deref().is_some_and(|b| self.by_another(b)) =>
            {
                self.sent_to.push(loader);
            }
            Lifecycle::Committed { frame, loader, url }
                if frame == main && self.sent_to.contains(&loader) =>
            {
                self.loader = Some(loader);
                self.committed = Some(url);
                self.sent_to.clear();
            }
            // Before ours: ours may still commit, unless it already failed.
            Lifecycle::Committed { frame, url, .. }
                if frame == main && self.committed.is_none() =>
            {
                if self.failed.is_some() {
                    return Some(End::Interrupted { by: url });
                }
                self.others.push(url.clone());
                self.overtaken_by = Some(url);
            }
            Lifecycle::Committed { frame, url, .. } if frame == main => {
                return Some(End::Interrupted { by: url });
            }
            Lifecycle::DocumentFailed { loader, error }
                if self.committed.is_none() && self.loader.as_ref() == Some(&loader) =>
            {
                match self.overtaken_by.take() {
                    Some(by) => return Some(End::Interrupted { by }),
                    None => self.failed = Some(error),
                }
            }
            Lifecycle::StoppedLoading { frame }
                if frame == main && self.requested && self.committed.is_none() =>
            {
                if let Some(by) = self.overtaken_by.take() {
                    return Some(End::Interrupted { by });
                }
                if let Some(error) = self.failed.take() {
                    return Some(End::Failed { error });
                }
            }
            Lifecycle::Event {
                frame,
                loader,
                name,
            } if frame == main && name == "load" && self.loader.as_ref() == Some(&loader) => {
                return Some(End::Loaded);
            }
            Lifecycle::WithinDocument { frame, url }
                if frame == main
                    && self.loader.is_none()
                    && self.within_to.as_deref() == Some(url.as_str()) =>
            {
                return Some(End::Loaded);
            }
            _ => {}
        }
        None
    }
}

/// The same document's URL, fragments aside.
fn same_document(a: &str, b: &str) -> bool {
    let strip = |u: &str| u.split('#').next().unwrap_or(u).to_string();
    strip(a) == strip(b)
}

#[cfg(test)]
#[path = "load_wait_tests.rs"]
mod tests;
