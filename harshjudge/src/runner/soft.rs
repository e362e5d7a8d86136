//! The runner's side of soft assertions (`harshjudge_browser::soft`): the running
//! scenario is their sink. A soft failure is kept with the running step and
//! leaves the evidence a failure takes, numbered (`soft-1-error.png`,
//! `soft-1-page.html`, `soft-1-aria.yml`); the step fails at its end
//! (`Shared::end_failure`), or a hard failure after them names them first.

use std::sync::Arc;

use super::{Shared, Side};
use crate::evidence::{BoxFuture, Snapshot};
use crate::run_settings::EvidenceMode;
use harshjudge_browser::soft::{SoftFailure, SoftSink};

impl SoftSink for Shared {
    fn record(&self, failure: SoftFailure) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let (step, k) = {
                let mut c = self.cursor.lock().expect("cursor lock");
                c.soft.push(failure);
                (c.step, c.soft.len())
            };
            if step > 0 && self.limits.evidence != EvidenceMode::Off && !self.is_unresponsive() {
                self.capture_soft(step, k).await;
            }
        })
    }
}

impl Shared {
    /// The evidence of soft failure `k` of step `n`: each probe's failure
    /// screenshot and extras (a page's HTML and ARIA snapshot), prefixed
    /// `soft-{k}-`. The step's own before/after and logs are not touched.
    async fn capture_soft(&self, n: usize, k: usize) {
        let probes = self.probes();
        let captures = futures_util::future::join_all(probes.iter().map(|p| async move {
            let lead = match p.prefix() {
                "" => format!("soft-{k}"),
                prefix => format!("soft-{k}-{prefix}"),
            };
            let items = self
                .bounded(async {
                    let (shot, extras) = tokio::join!(p.failure_shot(), p.on_failure());
                    let mut items: Vec<_> = shot?.into_iter().collect();
                    items.extend(extras?);
                    Ok(items)
                })
                .await;
            let snap = items.map(|during| Snapshot {
                state: None,
                during,
            });
            (lead, snap)
        }))
        .await;
        self.write_snapshots(n, &captures, Side::After);
    }

    /// The running step's soft failures so far, taken (each is told once).
    pub(super) fn take_soft(&self) -> Vec<SoftFailure> {
        std::mem::take(&mut self.cursor.lock().expect("cursor lock").soft)
    }

    /// Why the running step fails at its end although its code went through,
    /// and where: its soft assertions' failures (at the first one), and its
    /// pages' console errors when the settings say so.
    pub(super) async fn end_failure(&self) -> Option<(String, Option<String>)> {
        let console = self.console_failure().await;
        let soft = self.take_soft();
        let at = soft.first().map(|f| f.location.clone());
        match (harshjudge_browser::soft::describe(&soft), console) {
            (Some(s), Some(c)) => Some((format!("{s}\nand {c}"), at)),
            (Some(s), None) => Some((s, at)),
            (None, c) => c.map(|c| (c, None)),
        }
    }
}

/// The sink of `shared`'s soft assertions.
pub(super) fn sink(shared: &Arc<Shared>) -> Arc<dyn SoftSink> {
    shared.clone()
}
