//! Custom evidence: attachments a scenario adds to the step running now.
//!
//! Each attachment is written as `step-NN/evidence/{name}.{ext}` with a
//! `{name}.meta.json` sidecar and listed in `result.json` `evidenceFiles`.
//! Names are letters, digits, `.`, `_` and `-` (never a path); a second
//! attachment with the same name in the same step replaces the first.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::Scenario;
use crate::error::Error;
use crate::event::Event;
use crate::store::EvidenceName;

impl Scenario {
    /// Attaches `value` as pretty-printed JSON (`{name}.json`, type `custom`).
    #[track_caller]
    pub fn attach_json<T: Serialize + ?Sized>(
        &self,
        name: &str,
        value: &T,
    ) -> Result<PathBuf, Error> {
        let bytes = serde_json::to_vec_pretty(value).map_err(|e| {
            Error::msg(format!(
                "attachment {name:?}: cannot serialize to JSON: {e}"
            ))
        })?;
        self.attach(name, "json", "custom", &bytes)
    }

    /// Attaches text (`{name}.txt`, type `text`).
    #[track_caller]
    pub fn attach_text(&self, name: &str, text: &str) -> Result<PathBuf, Error> {
        self.attach(name, "txt", "text", text.as_bytes())
    }

    /// Attaches bytes as `{name}.{ext}` (type `custom`).
    #[track_caller]
    pub fn attach_bytes(&self, name: &str, ext: &str, bytes: &[u8]) -> Result<PathBuf, Error> {
        self.attach(name, ext, "custom", bytes)
    }

    /// Copies a file in as `{name}.{its extension}` (type `file`).
    #[track_caller]
    pub fn attach_file(&self, name: &str, path: impl AsRef<Path>) -> Result<PathBuf, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            Error::msg(format!(
                "attachment {name:?}: cannot read {}: {e}",
                path.display()
            ))
        })?;
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("bin");
        self.attach(name, ext, "file", &bytes)
    }

    /// Writes an attachment of any type into the current step's evidence.
    #[track_caller]
    pub fn attach(
        &self,
        name: &str,
        ext: &str,
        kind: &str,
        bytes: &[u8],
    ) -> Result<PathBuf, Error> {
        let name = EvidenceName::new(name)?;
        let step = self
            .current_step()
            .ok_or_else(|| Error::msg(format!("attachment {name}: no step is running")))?;
        let written = {
            let mut run = self.shared.run.lock().expect("run lock");
            run.record_evidence(&step, &name, ext, kind, bytes, serde_json::Map::new())?
        };
        self.shared.sink.on_event(&Event::EvidenceCaptured {
            slug: self.slug(),
            id: &step,
            path: &written.path,
        });
        Ok(written.path)
    }
}
