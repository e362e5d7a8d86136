//! A step's trace in its evidence: `trace.json`, its DOM snapshots
//! (`trace-dom.json`), the screenshots after its actions (`trace-NN.png`) and
//! the run's `trace-resources/` the snapshots name. Written by the store
//! writer (a scenario's steps, off their critical path) and by
//! [`RunHandle::record_trace`](super::RunHandle::record_trace) (the MCP
//! server's recorded browser tools), the one way both take.

use std::path::PathBuf;

use crate::store::{EvidenceName, NewEvidence, RunDir, Slug, StepId, StoreError};

/// A step's trace in its evidence.
const TRACE_FILE: &str = "trace.json";
/// Its DOM snapshots, beside it.
const TRACE_DOM_FILE: &str = "trace-dom.json";

/// A step's trace, to write.
pub(super) struct TraceFiles<'a> {
    /// `trace.json`'s bytes.
    pub bytes: &'a [u8],
    /// `trace-dom.json`'s, when the step took snapshots.
    pub dom: Option<&'a [u8]>,
    /// Each screenshot after an action: its evidence name and PNG bytes.
    pub shots: &'a [(String, Vec<u8>)],
    /// The resources the snapshots name, each with its extension.
    pub resources: &'a [(&'static str, Vec<u8>)],
}

impl TraceFiles<'_> {
    /// The evidence files it adds to the step (listed before they land).
    pub(super) fn names(&self) -> Vec<String> {
        let shots = self.shots.iter().map(|(name, _)| format!("{name}.png"));
        let dom = self.dom.map(|_| TRACE_DOM_FILE.to_string());
        shots.chain([TRACE_FILE.to_string()]).chain(dom).collect()
    }

    /// Writes it into step `step` of `dir` (scenario `slug`): the resources
    /// first, so that what the snapshots name is there, then the
    /// screenshots, `trace.json` and `trace-dom.json`. A failure costs the
    /// trace only: the step's evidence gets `trace-error.txt` saying why
    /// (best effort) and stderr says it once. The paths written.
    pub(super) fn write(&self, dir: &RunDir<'_>, slug: &Slug, step: &StepId) -> Vec<PathBuf> {
        let evidence = |name: &str, ext: &'static str, kind: &'static str, bytes: &[u8]| {
            let name = EvidenceName::new(name).expect("a valid evidence name");
            let file = NewEvidence {
                name: &name,
                ext,
                kind,
                bytes,
            };
            (dir.write_evidence(step, file, Default::default())).map(|w| w.path)
        };
        let file =
            |name: &str, ext: &'static str, bytes: &[u8]| evidence(name, ext, "custom", bytes);
        let mut landed = Vec::new();
        let written = (|| -> Result<(), StoreError> {
            for (ext, bytes) in self.resources {
                dir.write_trace_resource(ext, bytes)?;
            }
            for (name, png) in self.shots {
                landed.push(evidence(name, "png", "screenshot", png)?);
            }
            landed.push(file("trace", "json", self.bytes)?);
            if let Some(dom) = self.dom {
                landed.push(file("trace-dom", "json", dom)?);
            }
            Ok(())
        })();
        if let Err(e) = written {
            landed.extend(lost(dir, slug, step, &e));
        }
        landed
    }
}

/// Says in step `step`'s evidence (`trace-error.txt`, best effort) and once
/// on stderr that its trace was not written, and why: the step's outcome is
/// its own. The file, when written.
pub(super) fn lost(
    dir: &RunDir<'_>,
    slug: &Slug,
    step: &StepId,
    why: &dyn std::fmt::Display,
) -> Option<PathBuf> {
    eprintln!(
        "harshjudge: {slug}: the trace of step {step} was not written: {why} (the step's outcome is its own)"
    );
    let text = format!("this step's trace was not written: {why}; the step's outcome is its own\n");
    let name = EvidenceName::new("trace-error").expect("a valid evidence name");
    let file = NewEvidence {
        name: &name,
        ext: "txt",
        kind: "custom",
        bytes: text.as_bytes(),
    };
    let written = dir.write_evidence(step, file, Default::default());
    written.ok().map(|w| w.path)
}
