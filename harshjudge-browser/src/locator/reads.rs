//! Locator reads: counts, texts, attributes, states, boxes, waits and screenshots.

use std::future::Future;
use std::panic::Location;

use super::calls::unexpected;
use super::{BoundingBox, Locator, WaitState};
use crate::error::BrowserError;
use crate::protocol::{Acted, Action, Clip, Read, Request, State};
use crate::trace::{CallText, Kind};

impl Locator {
    /// How many elements match now (no waiting).
    #[track_caller]
    pub fn count(&self) -> impl Future<Output = Result<usize, BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let v = self.query(Read::Count, false, None, at).await?;
            Ok(v.as_u64().unwrap_or(0) as usize)
        })
    }

    /// One locator per element matching now (`nth(0)`, `nth(1)`, …).
    #[track_caller]
    pub fn all(&self) -> impl Future<Output = Result<Vec<Locator>, BrowserError>> + Send + '_ {
        let n = self.count();
        Box::pin(async move { Ok((0..n.await?).map(|i| self.nth(i as i64)).collect()) })
    }

    /// The element's `textContent` (waits until it is attached).
    #[track_caller]
    pub fn text_content(&self) -> impl Future<Output = Result<String, BrowserError>> + Send + '_ {
        self.read_string(Read::TextContent, Location::caller())
    }

    /// The element's rendered text (`innerText`).
    #[track_caller]
    pub fn inner_text(&self) -> impl Future<Output = Result<String, BrowserError>> + Send + '_ {
        self.read_string(Read::InnerText, Location::caller())
    }

    /// The value of an `<input>`, `<textarea>` or `<select>`.
    #[track_caller]
    pub fn input_value(&self) -> impl Future<Output = Result<String, BrowserError>> + Send + '_ {
        self.read_string(Read::InputValue, Location::caller())
    }

    /// The accessible snapshot (YAML) of the element's subtree.
    #[track_caller]
    pub fn aria_snapshot(&self) -> impl Future<Output = Result<String, BrowserError>> + Send + '_ {
        self.read_string(Read::AriaSnapshot, Location::caller())
    }

    /// The future of every read of one string: boxed, as each public one.
    fn read_string(
        &self,
        what: Read,
        at: &'static Location<'static>,
    ) -> impl Future<Output = Result<String, BrowserError>> + Send + '_ {
        Box::pin(async move {
            let v = self.query(what, false, None, at).await?;
            Ok(v.as_str().unwrap_or_default().to_string())
        })
    }

    /// The `innerText` of every match.
    #[track_caller]
    pub fn all_inner_texts(
        &self,
    ) -> impl Future<Output = Result<Vec<String>, BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let v = self.query(Read::InnerText, true, None, at).await?;
            Ok(serde_json::from_value(v).unwrap_or_default())
        })
    }

    /// The `textContent` of every match.
    #[track_caller]
    pub fn all_text_contents(
        &self,
    ) -> impl Future<Output = Result<Vec<String>, BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let v = self.query(Read::TextContent, true, None, at).await?;
            Ok(serde_json::from_value(v).unwrap_or_default())
        })
    }

    /// An attribute of the element (`None` when it has none).
    #[track_caller]
    pub fn get_attribute<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Option<String>, BrowserError>> + Send + 'a {
        let at = Location::caller();
        Box::pin(async move {
            let v = self
                .query(Read::Attribute, false, Some(name.to_string()), at)
                .await?;
            Ok(v.as_str().map(str::to_string))
        })
    }

    /// Whether the element is visible now (no waiting; false when nothing matches).
    #[track_caller]
    pub fn is_visible(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        self.read_bool(Read::IsVisible, Location::caller())
    }

    /// Whether the element is hidden or absent now (no waiting).
    #[track_caller]
    pub fn is_hidden(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        self.read_bool(Read::IsHidden, Location::caller())
    }

    /// Whether the checkbox or radio button is checked.
    #[track_caller]
    pub fn is_checked(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        self.read_bool(Read::IsChecked, Location::caller())
    }

    /// Whether the element is enabled.
    #[track_caller]
    pub fn is_enabled(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        self.read_bool(Read::IsEnabled, Location::caller())
    }

    /// Whether the element is disabled.
    #[track_caller]
    pub fn is_disabled(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let call = || CallText::locator(&self.desc, "is_disabled", String::new());
            let enabled = self.read_bool(Read::IsEnabled, at);
            self.traced(Kind::Read, call, at, enabled).await.map(|e| !e)
        })
    }

    /// Whether the element can be filled (enabled, not readonly, a text field).
    #[track_caller]
    pub fn is_editable(&self) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        self.read_bool(Read::IsEditable, Location::caller())
    }

    /// The future of every read of one bool: boxed, as each public one.
    fn read_bool(
        &self,
        what: Read,
        at: &'static Location<'static>,
    ) -> impl Future<Output = Result<bool, BrowserError>> + Send + '_ {
        Box::pin(async move {
            let v = self.query(what, false, None, at).await?;
            Ok(v.as_bool().unwrap_or(false))
        })
    }

    /// The element's box in the top page's viewport, an element of a frame
    /// offset by the frames' positions (`None` when it is not visible).
    #[track_caller]
    pub fn bounding_box(
        &self,
    ) -> impl Future<Output = Result<Option<BoundingBox>, BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let v = self.query(Read::BoundingBox, false, None, at).await?;
            Ok(serde_json::from_value(v).ok())
        })
    }

    /// Waits until the element is attached, detached, visible or hidden.
    #[track_caller]
    pub fn wait_for(
        &self,
        state: WaitState,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let (state, what) = match state {
                WaitState::Attached => (State::Attached, "be attached"),
                WaitState::Detached => (State::Detached, "be detached"),
                WaitState::Visible => (State::Visible, "be visible"),
                WaitState::Hidden => (State::Hidden, "be hidden"),
            };
            let request = Request::WaitFor {
                target: self.target(),
                state,
            };
            self.run(request, what, at).await.map(|_| ())
        })
    }

    /// The element's box in document coordinates, once it is visible and stable
    /// (scrolled into view): the clip of its screenshot.
    pub(crate) async fn clip_for_screenshot(
        &self,
        at: &'static Location<'static>,
    ) -> Result<Clip, BrowserError> {
        let what = "be visible and stable";
        let mut clip = match self.act(Action::Screenshot, what, at).await? {
            Acted::Clip(clip) => clip,
            other => return Err(unexpected(&other, what, at)),
        };
        if self.frame.is_some() {
            // In the page's viewport: into its document by its scroll.
            let scroll = (self.page)
                .evaluate_value("() => [scrollX, scrollY]", serde_json::Value::Null)
                .await
                .map_err(|e| e.located(at))?;
            clip.x += scroll[0].as_f64().unwrap_or(0.0);
            clip.y += scroll[1].as_f64().unwrap_or(0.0);
        }
        Ok(clip)
    }

    /// A PNG of the element (scrolled into view).
    #[track_caller]
    pub fn screenshot(&self) -> impl Future<Output = Result<Vec<u8>, BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let call = || CallText::locator(&self.desc, "screenshot", String::new());
            self.traced(Kind::Read, call, at, async {
                let clip = self.clip_for_screenshot(at).await?;
                self.page
                    .capture_clip(&clip)
                    .await
                    .map_err(|e| e.located(at))
            })
            .await
        })
    }
}
