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
    /// The page's session ended (its target closed, the browser went).
    Closed,
}

/// How a `goto`'s wait ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// The awaited document (or the one it sent the page on to) loaded.
    Loaded,
    /// Another document, at `by`, committed first.
    Interrupted { by: String },
}

/// A `goto`'s wait, fed the main frame's lifecycle.
#[derive(Debug, Default)]
pub(crate) struct LoadWait {
    /// The loader whose load ends the wait (none: the first to commit).
    loader: Option<String>,
    /// The URL of the awaited document, once committed.
    committed: Option<String>,
    /// The URL of the document the `goto` left (none: not known, or a
    /// reload or history step, whose documents may share a URL).
    left: Option<String>,
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
            left,
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

    /// Whether a request by a script at `by` is the left document's (not the
    /// awaited one's, nor one at the same URL).
    fn by_left(&self, by: &str) -> bool {
        self.left.as_deref().is_some_and(|l| same_document(l, by))
            && !self
                .committed
                .as_deref()
                .is_some_and(|c| same_document(c, by))
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
            }
            // A request after our commit, not the left document's.
            Lifecycle::DocumentRequested { frame, loader, by }
                if frame == main
                    && self.committed.is_some()
                    && !by.as_deref().is_some_and(|b| self.by_left(b)) =>
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
            Lifecycle::Committed { frame, loader, url }
                if frame == main && self.loader.as_ref() != Some(&loader) =>
            {
                return Some(End::Interrupted { by: url });
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
