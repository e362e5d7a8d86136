//! What a backend cannot emulate: the options of an [`Emulation`] that
//! differ from what a page has ([`changed`], by the names Playwright gives
//! them), and the [`BrowserError::Unsupported`] that names one
//! ([`unsupported`]). Never a silent no-op: a backend either sends an
//! option or refuses it with these words.

use crate::config::BrowserKind;
use crate::emulation::Emulation;
use crate::error::BrowserError;

/// The options of `wanted` that differ from `previous`, in `Emulation`'s
/// order (`javascript_enabled: Some(true)` is the default, as none).
pub(crate) fn changed(previous: &Emulation, wanted: &Emulation) -> Vec<&'static str> {
    let scripts = |e: &Emulation| e.javascript_enabled.unwrap_or(true);
    [
        ("locale", previous.locale != wanted.locale),
        ("timezone_id", previous.timezone_id != wanted.timezone_id),
        ("geolocation", previous.geolocation != wanted.geolocation),
        (
            "grant_permissions",
            previous.permissions != wanted.permissions,
        ),
        ("color_scheme", previous.color_scheme != wanted.color_scheme),
        (
            "reduced_motion",
            previous.reduced_motion != wanted.reduced_motion,
        ),
        ("offline", previous.offline != wanted.offline),
        ("user_agent", previous.user_agent != wanted.user_agent),
        (
            "extra_http_headers",
            previous.extra_http_headers != wanted.extra_http_headers,
        ),
        (
            "http_credentials",
            previous.http_credentials != wanted.http_credentials,
        ),
        ("javascript_enabled", scripts(previous) != scripts(wanted)),
        ("viewport", previous.viewport != wanted.viewport),
        (
            "device_scale_factor",
            previous.device_scale_factor != wanted.device_scale_factor,
        ),
        ("is_mobile", previous.is_mobile != wanted.is_mobile),
        ("has_touch", previous.has_touch != wanted.has_touch),
    ]
    .into_iter()
    .filter_map(|(name, differs)| differs.then_some(name))
    .collect()
}

/// `option` cannot be emulated on `browser`: `why`, and what to do instead.
pub(crate) fn unsupported(browser: BrowserKind, option: &str, why: &str) -> BrowserError {
    BrowserError::Unsupported {
        browser,
        what: format!("emulating `{option}`"),
        why: why.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulation::ColorScheme;

    #[test]
    fn only_what_differs_is_named() {
        let none = Emulation::new();
        assert!(changed(&none, &none).is_empty());
        assert!(changed(&none, &none.clone().javascript_enabled(true)).is_empty());
        let dark = none.clone().color_scheme(ColorScheme::Dark).locale("de-DE");
        assert_eq!(changed(&none, &dark), ["locale", "color_scheme"]);
        assert_eq!(changed(&dark, &none), ["locale", "color_scheme"]);
    }

    #[test]
    fn the_error_names_the_option_and_the_engine() {
        let e = unsupported(BrowserKind::Webkit, "locale", "no command: use Chromium");
        assert_eq!(
            e.to_string(),
            "emulating `locale` is not available on webkit: no command: use Chromium"
        );
    }
}
