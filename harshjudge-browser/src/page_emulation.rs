//! A page's emulation changed after it opened, Playwright's names in snake
//! case: [`Page::emulate_media`], [`Page::set_offline`] (Playwright's
//! `context.setOffline`), [`Page::set_geolocation`],
//! [`Page::grant_permissions`], [`Page::clear_permissions`],
//! [`Page::set_extra_http_headers`]. Each is the page's [`Emulation`] with
//! one option changed, validated and applied by its backend's one method
//! (`PageBackend::apply_emulation`), as the page's opening applies
//! `BrowserConfig.emulation`: popups opened from then on have it too.

use super::backend::PageBackend;
use super::emulation::{ColorScheme, Emulation, Geolocation, Permission, ReducedMotion};
use super::error::BrowserError;
use super::page::Page;

/// The media features [`Page::emulate_media`] sets (Playwright's
/// `page.emulateMedia` options): `None` leaves one as it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmulateMedia {
    /// `prefers-color-scheme`.
    pub color_scheme: Option<ColorScheme>,
    /// `prefers-reduced-motion`.
    pub reduced_motion: Option<ReducedMotion>,
}

impl Page {
    /// What the page emulates now (its opening's emulation and the changes
    /// since).
    pub fn emulation(&self) -> Emulation {
        self.backend().emulation()
    }

    /// `wanted` as the page's emulation, its forms checked first.
    async fn set_emulation(&self, wanted: Emulation) -> Result<(), BrowserError> {
        wanted.validate()?;
        self.backend()
            .apply_emulation(&wanted, self.base_url())
            .await
    }

    /// Sets `prefers-color-scheme` and `prefers-reduced-motion` (those given).
    pub async fn emulate_media(&self, media: EmulateMedia) -> Result<(), BrowserError> {
        let mut e = self.emulation();
        if let Some(c) = media.color_scheme {
            e.color_scheme = Some(c);
        }
        if let Some(r) = media.reduced_motion {
            e.reduced_motion = Some(r);
        }
        self.set_emulation(e).await
    }

    /// Takes the network down (`true`: requests fail, `navigator.onLine` is
    /// false) or brings it back.
    pub async fn set_offline(&self, offline: bool) -> Result<(), BrowserError> {
        let mut e = self.emulation();
        e.offline = offline;
        self.set_emulation(e).await
    }

    /// Where `navigator.geolocation` says the device is (none: the
    /// browser's own answer); the page needs the `geolocation` permission.
    pub async fn set_geolocation(&self, at: Option<Geolocation>) -> Result<(), BrowserError> {
        let mut e = self.emulation();
        e.geolocation = at;
        self.set_emulation(e).await
    }

    /// Grants `permissions` (added to those granted).
    pub async fn grant_permissions(
        &self,
        permissions: impl IntoIterator<Item = Permission>,
    ) -> Result<(), BrowserError> {
        let e = self.emulation().grant_permissions(permissions);
        self.set_emulation(e).await
    }

    /// Takes back every permission granted.
    pub async fn clear_permissions(&self) -> Result<(), BrowserError> {
        let mut e = self.emulation();
        e.permissions.clear();
        self.set_emulation(e).await
    }

    /// The headers every request of the page carries from now on (instead
    /// of those before).
    pub async fn set_extra_http_headers<N, V>(
        &self,
        headers: impl IntoIterator<Item = (N, V)>,
    ) -> Result<(), BrowserError>
    where
        N: Into<String>,
        V: Into<String>,
    {
        let mut e = self.emulation();
        e.extra_http_headers = headers
            .into_iter()
            .map(|(n, v)| (n.into(), v.into()))
            .collect();
        self.set_emulation(e).await
    }
}
