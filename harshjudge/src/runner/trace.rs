//! A step's trace at its end: the runner hands the attempt's tracer the
//! step's fate, and its `trace.json` and `trace-dom.json` (when the mode
//! keeps them) go to the store writer as [`Event::TraceCaptured`], before
//! the step's end is told.

use super::{CAPTURE_LIMIT, Shared};
use crate::event::Event;

impl Shared {
    /// Ends step `n`'s trace (it `failed` or passed): written when the
    /// attempt keeps it, else dropped. The step's console and network are the
    /// ones its boundary took; when the boundary took none (evidence `off` or
    /// `on-failure`), they are read now, left in place, from the step's start.
    pub(super) async fn trace_step(&self, n: usize, failed: bool) {
        let Some(tracer) = &self.tracer else {
            return;
        };
        if tracer.keeps(failed) && !self.is_unresponsive() {
            let since = tracer.step_started().floor();
            let pages = self.pages.lock().expect("pages lock").clone();
            for page in &pages {
                let Some((_, i)) = page.tracer().filter(|(t, i)| !t.has_logs_of(*i)) else {
                    continue;
                };
                if let Ok(Ok((mut console, mut network))) =
                    tokio::time::timeout(CAPTURE_LIMIT, page.peek_logs(false)).await
                {
                    console.retain(|c| c.timestamp as f64 >= since);
                    network.retain(|r| r.started_at.is_some_and(|t| t >= since));
                    tracer.logs(*i, &console, &network);
                }
            }
            tracer.name_targets(&pages, CAPTURE_LIMIT).await;
            tracer.read_images(&pages, CAPTURE_LIMIT).await;
        }
        let id = Self::step_id(n);
        let Some(trace) = tracer.take_step_with_dom(id.as_str(), failed) else {
            return;
        };
        let (dom, shots) = (trace.dom.as_deref(), &trace.shots);
        self.emit_trace(&id, &trace.file, dom, shots, &trace.resources);
    }

    /// Hands the store step `id`'s `trace.json` (and its DOM snapshots,
    /// screenshots and the snapshots' resources: stylesheets, images).
    pub(super) fn emit_trace(
        &self,
        id: &crate::store::StepId,
        file: &crate::store::TraceFile,
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
