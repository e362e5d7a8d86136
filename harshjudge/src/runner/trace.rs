//! A step's trace at its end: the runner hands the attempt's tracer the
//! step's fate, and its `trace.json` and `trace-dom.json` (when the mode
//! keeps them) go to the store writer as [`Event::TraceCaptured`], before
//! the step's end is told.

use super::{CAPTURE_LIMIT, Shared};
use harshjudge_store::event::Event;

impl Shared {
    /// Ends step `n`'s trace (it `failed` or passed): written when the
    /// attempt keeps it, else dropped. The step's console and network are the
    /// ones its boundary took; when the boundary took none (evidence `off` or
    /// `on-failure`), they are read now, left in place, from the step's start.
    pub(super) async fn trace_step(&self, n: usize, failed: bool) {
        let Some(tracer) = &self.tracer else {
            return;
        };
        if self.video.is_recording() {
            self.video.actions(&tracer.calls());
        }
        let pages = self.pages.lock().expect("pages lock").clone();
        let pages = (!self.is_unresponsive()).then_some(&pages[..]);
        let id = Self::step_id(n);
        let Some(trace) = tracer
            .end_step(id.as_str(), failed, pages, CAPTURE_LIMIT)
            .await
        else {
            return;
        };
        let (dom, shots) = (trace.dom.as_deref(), &trace.shots);
        self.emit_trace(&id, &trace.file, dom, shots, &trace.resources);
    }

    /// Hands the store step `id`'s `trace.json` (and its DOM snapshots,
    /// screenshots and the snapshots' resources: stylesheets, images).
    pub(super) fn emit_trace(
        &self,
        id: &harshjudge_store::store::StepId,
        file: &harshjudge_browser::trace::TraceFile,
        dom: Option<&[u8]>,
        shots: &[(String, Vec<u8>)],
        resources: &[(&'static str, Vec<u8>)],
    ) {
        let bytes = serde_json::to_vec_pretty(file).expect("a trace serializes");
        let _ = self.stream.emit(&Event::TraceCaptured {
            slug: self.stream.slug(),
            id,
            bytes: &bytes,
            dom,
            shots,
            resources,
        });
    }
}
