//! The string-selector shorthands of [`Page`]: `page.click("testid=save")` is
//! `page.locator("testid=save").click()`, its error located at the shorthand's
//! caller.

use std::future::Future;
use std::panic::Location;

use super::error::BrowserError;
use super::expect::Expectable;
use super::locator::{Locator, WaitState};
use super::page::Page;

/// Runs a shorthand's locator call, located at the shorthand's caller.
async fn shorthand<T, F, Fut>(
    l: Locator,
    at: &'static Location<'static>,
    f: F,
) -> Result<T, BrowserError>
where
    F: FnOnce(Locator) -> Fut,
    Fut: Future<Output = Result<T, BrowserError>>,
{
    f(l).await.map_err(|e| e.located(at))
}

impl Page {
    /// `page.locator(selector).click()`.
    #[track_caller]
    pub fn click<'a>(
        &'a self,
        selector: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        let sel = self.locator(selector);
        Box::pin(async move { shorthand(sel, at, |l| async move { l.click().await }).await })
    }

    /// `page.locator(selector).fill(text)`: replaces the field's value without blurring it.
    #[track_caller]
    pub fn fill<'a>(
        &'a self,
        selector: impl AsRef<str>,
        text: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        let sel = self.locator(selector);
        let text = text.as_ref().to_string();
        Box::pin(async move { shorthand(sel, at, |l| async move { l.fill(text).await }).await })
    }

    /// `page.locator(selector).press(key)`: a key or chord (`"Enter"`, `"Control+a"`).
    #[track_caller]
    pub fn press<'a>(
        &'a self,
        selector: impl AsRef<str>,
        key: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        let sel = self.locator(selector);
        let key = key.as_ref().to_string();
        Box::pin(async move { shorthand(sel, at, |l| async move { l.press(key).await }).await })
    }

    /// `page.locator(selector).select_option([value_or_label])`.
    #[track_caller]
    pub fn select<'a>(
        &'a self,
        selector: impl AsRef<str>,
        value_or_label: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        let sel = self.locator(selector);
        let value_or_label = value_or_label.as_ref().to_string();
        Box::pin(async move {
            shorthand(sel, at, |l| async move {
                l.select_option([value_or_label]).await.map(|_| ())
            })
            .await
        })
    }

    /// `page.locator(selector).set_checked(on)`.
    #[track_caller]
    pub fn check<'a>(
        &'a self,
        selector: impl AsRef<str>,
        on: bool,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        let sel = self.locator(selector);
        Box::pin(
            async move { shorthand(sel, at, |l| async move { l.set_checked(on).await }).await },
        )
    }

    /// The element's rendered text, once it is visible.
    #[track_caller]
    pub fn text<'a>(
        &'a self,
        selector: impl AsRef<str>,
    ) -> impl Future<Output = Result<String, BrowserError>> + Send + 'a {
        let at = Location::caller();
        let sel = self.locator(selector);
        Box::pin(async move {
            shorthand(sel, at, |l| async move {
                l.wait_for(WaitState::Visible).await?;
                l.inner_text().await
            })
            .await
        })
    }

    /// `page.locator(selector).get_attribute(name)`.
    #[track_caller]
    pub fn attribute<'a>(
        &'a self,
        selector: impl AsRef<str>,
        name: impl AsRef<str>,
    ) -> impl Future<Output = Result<Option<String>, BrowserError>> + Send + 'a {
        let at = Location::caller();
        let sel = self.locator(selector);
        let name = name.as_ref().to_string();
        Box::pin(async move {
            shorthand(sel, at, |l| async move { l.get_attribute(&name).await }).await
        })
    }

    /// Whether any element matching `selector` is visible now (no waiting).
    #[track_caller]
    pub fn is_visible<'a>(
        &'a self,
        selector: impl AsRef<str>,
    ) -> impl Future<Output = Result<bool, BrowserError>> + Send + 'a {
        let at = Location::caller();
        let sel = self.locator(selector);
        Box::pin(async move {
            shorthand(sel, at, |l| async move {
                Ok(l.filter_visible().count().await? > 0)
            })
            .await
        })
    }

    /// Waits until the element is visible.
    #[track_caller]
    pub fn wait_for<'a>(
        &'a self,
        selector: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        let sel = self.locator(selector);
        Box::pin(async move {
            shorthand(
                sel,
                at,
                |l| async move { l.wait_for(WaitState::Visible).await },
            )
            .await
        })
    }

    /// `expect(&page.locator(selector)).to_be_visible()`.
    #[track_caller]
    pub fn expect_visible<'a>(
        &'a self,
        selector: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        let l = self.locator(selector);
        Box::pin(async move { Expectable::expect_at(&l, at).to_be_visible().await })
    }
}
