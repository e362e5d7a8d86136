//! [`FrameLocator`]: a locator scope inside an `<iframe>` of the page
//! (`page.frame_locator("iframe#pay")`, `locator.content_frame()`), Playwright's
//! FrameLocator over classic WebDriver: each engine call of a locator in a
//! frame finds the iframe element (waiting for it, by the same injected
//! engine), switches the session into it, runs there (the engine is injected
//! into the frame's document as into the page's), and switches back to the top
//! document, all under the engine's switching lock ([`super::engine`]). A point
//! the engine answers in the frame is moved into the page's viewport, where
//! WebDriver's mouse acts. A frame selector that matches nothing fails naming it.

use std::sync::Arc;

use super::locator::{Locator, TextMatch, constructors, selector_step};
use super::page::Page;
use super::protocol::{FrameScope, Step, TextPattern};

/// A scope inside an `<iframe>` (same-origin, or `srcdoc`): locators made from
/// it find elements in the frame's document. Lazy like a [`Locator`]: the frame
/// is looked up at each use, waiting for it up to the page's limit.
///
/// ```no_run
/// # async fn f(page: harshjudge_browser::Page) -> Result<(), harshjudge_browser::BrowserError> {
/// use harshjudge_browser::expect;
/// let pay = page.frame_locator("iframe#pay");
/// pay.get_by_role("button").name("Pay").click().await?;
/// expect(&pay.locator("#status")).to_have_text("paid").await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct FrameLocator {
    pub(crate) page: Page,
    pub(crate) scope: Arc<FrameScope>,
}

impl std::fmt::Debug for FrameLocator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.scope.desc)
    }
}

impl std::fmt::Display for FrameLocator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.scope.desc)
    }
}

impl FrameLocator {
    fn push(&self, step: Step, desc: String) -> Locator {
        Locator {
            page: self.page.clone(),
            chain: vec![step],
            desc: format!("{}.{desc}", self.scope.desc),
            misuse: None,
            frame: Some(self.scope.clone()),
        }
    }

    constructors!("");

    /// A frame inside this one (`iframe` selectors as [`Page::frame_locator`]).
    pub fn frame_locator(&self, selector: impl AsRef<str>) -> FrameLocator {
        let selector = selector.as_ref();
        FrameLocator {
            page: self.page.clone(),
            scope: Arc::new(FrameScope {
                parent: Some(self.scope.clone()),
                chain: vec![selector_step(selector)],
                desc: format!("{}.frame_locator({selector:?})", self.scope.desc),
            }),
        }
    }

    /// The `<iframe>` element itself, as a locator in the parent's document.
    pub fn owner(&self) -> Locator {
        Locator {
            page: self.page.clone(),
            chain: self.scope.chain.clone(),
            desc: format!("{}.owner()", self.scope.desc),
            misuse: None,
            frame: self.scope.parent.clone(),
        }
    }

    /// The page the frame is in.
    pub fn page(&self) -> &Page {
        &self.page
    }
}

impl Page {
    /// A scope inside the `<iframe>` matching `selector` (CSS by default, or any
    /// selector of [`Page::locator`]): `page.frame_locator("iframe#pay")
    /// .get_by_role("button").name("Pay").click()`. The frame must be
    /// same-origin (or `srcdoc`); one that never appears fails naming the selector.
    pub fn frame_locator(&self, selector: impl AsRef<str>) -> FrameLocator {
        let selector = selector.as_ref();
        FrameLocator {
            page: self.clone(),
            scope: Arc::new(FrameScope {
                parent: None,
                chain: vec![selector_step(selector)],
                desc: format!("page.frame_locator({selector:?})"),
            }),
        }
    }
}

impl Locator {
    /// The frame this locator's `<iframe>` element shows, as a scope for
    /// locators: `page.locator("iframe#pay").content_frame().get_by_text("Paid")`.
    pub fn content_frame(&self) -> FrameLocator {
        FrameLocator {
            page: self.page.clone(),
            scope: Arc::new(FrameScope {
                parent: self.frame.clone(),
                chain: self.chain.clone(),
                desc: format!("{}.content_frame()", self.desc),
            }),
        }
    }
}
