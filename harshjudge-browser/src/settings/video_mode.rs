//! `HARSHJUDGE_VIDEO`: whether a run's video (`runs/{id}/video.webm`) is
//! kept, with Playwright's names.

use super::{SettingError, env};

/// `HARSHJUDGE_VIDEO`: whether a run films its first page (Chromium over the
/// DevTools protocol only; `runner/video.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VideoMode {
    /// No video (default).
    Off,
    /// Every run's video is kept.
    On,
    /// A run's video is kept only when one of its steps failed.
    RetainOnFailure,
}

impl VideoMode {
    /// Its word, as `HARSHJUDGE_VIDEO` takes it.
    pub fn name(self) -> &'static str {
        ["off", "on", "retain-on-failure"][self as usize]
    }

    /// A value of `HARSHJUDGE_VIDEO` (unset: off).
    pub fn parse(value: Option<&str>) -> Result<VideoMode, SettingError> {
        let (all, v) = (
            [Self::Off, Self::On, Self::RetainOnFailure],
            value.map_or("off", str::trim),
        );
        all.into_iter()
            .find(|m| m.name() == v)
            .ok_or_else(|| SettingError {
                name: "HARSHJUDGE_VIDEO",
                value: v.into(),
                expected: "one of off, on, retain-on-failure".into(),
            })
    }

    /// Reads `HARSHJUDGE_VIDEO`.
    pub fn from_env() -> Result<VideoMode, SettingError> {
        VideoMode::parse(env("HARSHJUDGE_VIDEO")?.as_deref())
    }
}
