//! Downloads: [`Page::wait_for_download`] points the browser's downloads at
//! a fresh folder of this process (the backend's `watch_downloads`: over CDP
//! `Browser.setDownloadBehavior` of the page's context and its download
//! events, over WebDriver chromedriver's CDP passthrough or BiDi and the
//! folder polled), runs the action, waits for the file to be complete, checks
//! its name and size, and saves it as evidence of the step
//! (`download-N-<name>.<ext>`, type `download`). The folder goes with the
//! [`Download`]; the browser is set back to its default afterwards.
//!
//! On Firefox the folder is set through BiDi's `browser.setDownloadBehavior`;
//! WebKitWebDriver has neither way, so a download there is
//! `BrowserError::Unsupported`. A file over 64 MiB (`MAX_DOWNLOAD`) is refused.

use std::future::Future;
use std::panic::Location;
use std::path::{Path, PathBuf};

use super::backend::PageBackend;
use super::error::BrowserError;
use super::page::Page;

/// The largest download kept as evidence.
pub(crate) const MAX_DOWNLOAD: u64 = 64 * 1024 * 1024;

/// A file the page downloaded, saved as evidence of the step.
#[derive(Debug)]
pub struct Download {
    suggested: String,
    path: PathBuf,
    evidence: Option<PathBuf>,
    _folder: tempfile::TempDir,
}

impl Download {
    /// The file name the browser gave the download (from the response's
    /// `Content-Disposition` or the URL).
    pub fn suggested_filename(&self) -> &str {
        &self.suggested
    }

    /// Where the downloaded file is now (removed with the [`Download`]); its
    /// evidence copy is [`evidence_path`](Download::evidence_path).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The evidence file it was saved as (none outside a step).
    pub fn evidence_path(&self) -> Option<&Path> {
        self.evidence.as_deref()
    }

    /// The file's bytes.
    pub fn bytes(&self) -> Result<Vec<u8>, BrowserError> {
        std::fs::read(&self.path).map_err(|e| BrowserError::Invalid {
            message: format!("reading the download {}: {e}", self.path.display()),
            location: None,
        })
    }
}

/// Why a file name the browser wrote cannot become a path.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum BadFileName {
    /// Empty or longer than 255 bytes.
    #[error("{0:?} is not 1 to 255 bytes long")]
    Length(String),
    /// `.`, `..` or a name with a path separator.
    #[error("{0:?} is not a plain file name")]
    NotPlain(String),
    /// A control character.
    #[error("{0:?} holds a control character")]
    Control(String),
}

/// A file name the browser wrote, checked before it becomes part of a path
/// or an evidence name: one plain name (no separator, not `.`/`..`, no
/// control character), at most 255 bytes.
pub(crate) fn check_file_name(name: &str) -> Result<(), BadFileName> {
    if name.is_empty() || name.len() > 255 {
        return Err(BadFileName::Length(name.to_string()));
    }
    if name == "." || name == ".." || name.contains(['/', '\\']) {
        return Err(BadFileName::NotPlain(name.to_string()));
    }
    if name.chars().any(char::is_control) {
        return Err(BadFileName::Control(name.to_string()));
    }
    Ok(())
}

/// The evidence name and extension of download `n` named `file`: letters,
/// digits, `.`, `_`, `-` kept, anything else `_`, at most 100 characters.
pub(crate) fn evidence_name(n: usize, file: &str) -> (String, String) {
    let (stem, ext) = match file.rsplit_once('.') {
        Some((s, e))
            if !s.is_empty()
                && !e.is_empty()
                && e.len() <= 10
                && e.bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            (s, e.to_ascii_lowercase())
        }
        _ => (file, "bin".to_string()),
    };
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    let mut name = format!("download-{n}-{}", clean.trim_start_matches('.'));
    loop {
        if let Some(cut) = name.strip_suffix(".meta") {
            name = cut.to_string();
        } else if let Some(cut) = name.strip_suffix('.') {
            name = cut.to_string();
        } else {
            break;
        }
    }
    (name, ext)
}

impl Page {
    /// Runs `action` and returns the file it made the page download:
    /// `let file = page.wait_for_download(async { page.get_by_text("Export").click().await }).await?`.
    /// Waits up to the page's limit for the download to complete; the file
    /// (at most 64 MiB) is saved as evidence of the step
    /// (`download-N-<name>.<ext>`). Needs a local chromedriver (a remote
    /// browser saves on its own machine).
    #[track_caller]
    pub fn wait_for_download<'a, F, T>(
        &'a self,
        action: F,
    ) -> impl Future<Output = Result<Download, BrowserError>> + Send + 'a
    where
        F: Future<Output = Result<T, BrowserError>> + Send + 'a,
        T: Send + 'a,
    {
        let at = Location::caller();
        Box::pin(async move {
            let invalid = |message: String| BrowserError::Invalid {
                message,
                location: Some(at),
            };
            let folder = tempfile::Builder::new()
                .prefix("harshjudge-download-")
                .tempdir()
                .map_err(|e| invalid(format!("making a folder for the download: {e}")))?;
            let mut arm = self
                .backend()
                .watch_downloads(folder.path())
                .await
                .map_err(|e| e.located(at))?;
            let acted = action.await.map_err(|e| e.located(at));
            let found = match acted {
                Ok(_) => arm.next(self.wait()).await,
                Err(e) => Err(e),
            };
            drop(arm);
            self.backend().end_downloads().await;
            let (name, path) = found.map_err(|e| e.located(at))?;
            check_file_name(&name)
                .map_err(|why| invalid(format!("the browser named the download {why}")))?;
            let meta = std::fs::symlink_metadata(&path)
                .map_err(|e| invalid(format!("reading the download {}: {e}", path.display())))?;
            if !meta.is_file() {
                return Err(invalid(format!(
                    "the download {name:?} is not a regular file"
                )));
            }
            if meta.len() > MAX_DOWNLOAD {
                return Err(invalid(format!(
                    "the download {name:?} is {} bytes, more than the {MAX_DOWNLOAD} kept as evidence",
                    meta.len()
                )));
            }
            let evidence = match self.owner() {
                Some(owner) => {
                    let bytes = std::fs::read(&path).map_err(|e| {
                        invalid(format!("reading the download {}: {e}", path.display()))
                    })?;
                    let n = owner.next_number("download");
                    let (ev, ext) = evidence_name(n, &name);
                    owner.attach(&ev, &ext, "download", &bytes).ok()
                }
                None => None,
            };
            Ok(Download {
                suggested: name,
                path,
                evidence,
                _folder: folder,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_download_name_is_checked_before_it_becomes_a_path() {
        assert!(check_file_name("report.csv").is_ok());
        for bad in ["", ".", "..", "a/b", "..\\x", "a\nb"] {
            assert!(check_file_name(bad).is_err(), "{bad:?}");
        }
        assert!(check_file_name(&"x".repeat(256)).is_err());
    }

    #[test]
    fn a_download_becomes_a_valid_evidence_name() {
        assert_eq!(
            evidence_name(1, "report 2026.csv"),
            ("download-1-report_2026".into(), "csv".into())
        );
        assert_eq!(
            evidence_name(2, ".hidden"),
            ("download-2-hidden".into(), "bin".into())
        );
        assert_eq!(
            evidence_name(3, "x.tar.gz"),
            ("download-3-x.tar".into(), "gz".into())
        );
        assert_eq!(evidence_name(4, "a.b.meta.json").0, "download-4-a.b");
        let long = evidence_name(5, &format!("{}.txt", "é".repeat(300))).0;
        assert!(long.len() <= 100, "{long}");
        assert_eq!(evidence_name(6, "évé").0, "download-6-_v_");
    }
}
