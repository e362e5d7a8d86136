//! Where a `goto`'s wait for its document stands, event by event: the pure
//! judge of [`super::page::CdpPage`]'s navigations (unit-tested here with
//! the events in the orders Chromium sends them).
//!
//! The awaited loader's commit makes it the page's document; a navigation
//! that document asks for afterwards (a script or `<meta refresh>` while it
//! is parsed) is not an interruption, and the wait goes on to the next
//! document's load (as Playwright's `goto` does). A navigation the document
//! *left* had already asked for can be reported after the commit, and
//! Chromium still carries it out: its request names the left document's
//! script as its initiator, so it is told apart and is an interruption.
//! The document left is the main frame's last commit before the `goto`
//! (the page's reader keeps it), never asked of the history afterwards:
//! by then the left document's navigation may have committed too.

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
    /// A frame's document asked to navigate (`Page.frameRequestedNavigation`).
    Requested { frame: String },
    /// A frame's next document was requested (`Network.requestWillBeSent` of
    /// a `Document`), by a script at `by` if a script asked for it.
    DocumentRequested { frame: String, by: Option<String> },
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
    /// That document asked to navigate on.
    sent_on: bool,
    /// The URL of the document the `goto` left (none: not known, or a
    /// reload or history step, whose documents may share a URL).
    left: Option<String>,
    /// The next document was asked for by the document the `goto` left.
    stale: bool,
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

    /// A document request of the main frame by a script at `by`: the
    /// document left asked for it (not the awaited one, nor one at the same
    /// URL) after the awaited document committed.
    fn requested_by(&mut self, by: &str) {
        let (Some(committed), Some(left)) = (&self.committed, &self.left) else {
            return;
        };
        if same_document(left, by) && !same_document(committed, by) {
            self.stale = true;
        }
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
            Lifecycle::DocumentRequested {
                frame,
                by: Some(by),
            } if frame == main => self.requested_by(&by),
            Lifecycle::Requested { frame } if frame == main && self.committed.is_some() => {
                self.sent_on = true;
            }
            Lifecycle::Committed { frame, loader, .. }
                if frame == main && self.sent_on && !self.stale =>
            {
                self.loader = Some(loader);
                self.sent_on = false;
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
            Lifecycle::WithinDocument { frame, .. } if frame == main && self.loader.is_none() => {
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
