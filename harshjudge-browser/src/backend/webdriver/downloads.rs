//! A WebDriver page's downloads: the browser saves into a folder of this
//! process and the folder is polled until one complete file is there.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::BrowserError;

/// Waits for one complete file in `folder` (no `.crdownload` left, its size
/// the same twice); its name and path.
pub(crate) async fn wait_for_file(
    folder: &Path,
    wait: Duration,
) -> Result<(String, PathBuf), BrowserError> {
    let start = Instant::now();
    let mut last: Option<(String, u64)> = None;
    loop {
        let mut partial = false;
        let mut complete = None;
        if let Ok(entries) = std::fs::read_dir(folder) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                // Chromium's partial files, and Firefox's (`name.part`, beside
                // an empty `name` that it fills when done).
                if name.ends_with(".crdownload")
                    || name.starts_with(".com.google.Chrome")
                    || name.ends_with(".part")
                {
                    partial = true;
                } else if let Ok(m) = e.metadata() {
                    complete = Some((name, m.len()));
                }
            }
        }
        if !partial && let Some((name, len)) = complete {
            if last.as_ref() == Some(&(name.clone(), len)) {
                let path = folder.join(&name);
                return Ok((name, path));
            }
            last = Some((name, len));
        }
        if start.elapsed() >= wait {
            return Err(BrowserError::Timeout {
                locator: "page.wait_for_download(…)".into(),
                expected: "download a file".into(),
                found: if partial {
                    "a download still in progress".into()
                } else {
                    "no download started".into()
                },
                waited: start.elapsed(),
                location: None,
            });
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
