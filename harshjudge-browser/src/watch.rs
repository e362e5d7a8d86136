//! Watching a scenario: headed browsers (`--headed`, `HARSHJUDGE_HEADED`)
//! and slow motion (`--slow-mo MS`, `HARSHJUDGE_SLOW_MO`), like Playwright's
//! `headless: false` and `slowMo` launch options.
//!
//! The harness's flags win over the variables ([`set_suite_watch`]); a
//! headed browser needs a display, and its absence is an error naming the
//! variables and the fix ([`NoDisplay`]).

use std::sync::Mutex;
use std::time::Duration;

pub use super::error::NoDisplay;

/// `--headed` and `--slow-mo` of this invocation, set by the harness.
static SUITE_WATCH: Mutex<Option<(bool, Option<Duration>)>> = Mutex::new(None);

/// The display windows open on: `DISPLAY` (X11), else `WAYLAND_DISPLAY`,
/// when set and not empty.
pub(crate) fn display() -> Option<String> {
    let set = |v: Result<String, std::env::VarError>| v.ok().filter(|d| !d.trim().is_empty());
    set(std::env::var("DISPLAY")).or_else(|| set(std::env::var("WAYLAND_DISPLAY")))
}

/// Whether a display is there to open windows on (`display`).
pub fn has_display() -> bool {
    display().is_some()
}

/// Sets this invocation's `--headed` and `--slow-mo` for the browsers
/// launched from now on (they win over `HARSHJUDGE_HEADED` and
/// `HARSHJUDGE_SLOW_MO`); `--headed` without a display is an error.
#[doc(hidden)]
pub fn set_suite_watch(headed: bool, slow_mo: Option<Duration>) -> Result<(), NoDisplay> {
    if headed && !has_display() {
        return Err(NoDisplay {
            asked_by: "--headed (HARSHJUDGE_HEADED)",
        });
    }
    *SUITE_WATCH.lock().expect("watch lock") = Some((headed, slow_mo));
    Ok(())
}

/// Headed and slow motion as the harness set them, else as the variables say.
pub(crate) fn watch_settings() -> Result<(bool, Duration), super::error::BrowserError> {
    let (headed, slow_mo, asked_by) = match *SUITE_WATCH.lock().expect("watch lock") {
        Some((headed, slow_mo)) => (headed, slow_mo, "--headed (HARSHJUDGE_HEADED)"),
        None => (
            crate::settings::watch::headed()?,
            crate::settings::watch::slow_mo()?,
            "HARSHJUDGE_HEADED",
        ),
    };
    if headed && !has_display() {
        return Err(NoDisplay { asked_by }.into());
    }
    Ok((headed, slow_mo.unwrap_or_default()))
}

tokio::task_local! {
    /// Set while an action paced by slow motion runs: the calls it makes
    /// (a `press`'s locator calls) do not wait again.
    static PACED: ();
}

/// Runs `body`, an action, after waiting `slow_mo` unless it is zero or an
/// action around it waited already.
pub(crate) async fn paced<T>(slow_mo: Duration, body: impl Future<Output = T>) -> T {
    if slow_mo.is_zero() || PACED.try_with(|_| ()).is_ok() {
        return body.await;
    }
    tokio::time::sleep(slow_mo).await;
    PACED.scope((), body).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_display_names_the_variables_and_the_fix() {
        let e = NoDisplay {
            asked_by: "--headed",
        }
        .to_string();
        assert!(
            e.contains("DISPLAY nor WAYLAND_DISPLAY") && e.contains("xvfb-run -a"),
            "{e}"
        );
    }

    #[tokio::test]
    async fn slow_motion_waits_once_per_outer_action() {
        let d = Duration::from_millis(60);
        let t = std::time::Instant::now();
        let inner = paced(d, async { paced(d, async { 7 }).await }).await;
        assert_eq!(inner, 7);
        // One wait, not two: nested calls are parts of the action.
        assert!(t.elapsed() >= d, "{:?}", t.elapsed());
        let t = std::time::Instant::now();
        paced(Duration::ZERO, async {}).await;
        paced(d, async {}).await;
        paced(d, async {}).await;
        assert!(t.elapsed() >= 2 * d, "{:?}", t.elapsed());
    }
}
