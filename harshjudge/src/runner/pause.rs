//! `HARSHJUDGE_PAUSE=on-failure`: where a step failed, its browser stays
//! open for a person to look at before its pages close
//! ([`harshjudge_browser::pause`], which speaks to the terminal: the one place a
//! run prints).

use super::{ClockHold, Shared};
use harshjudge_browser::pause::{PauseAt, pause};
use harshjudge_browser::settings::watch::PauseMode;

impl Shared {
    /// Pauses after step `n` failed, when `HARSHJUDGE_PAUSE=on-failure` and
    /// the scenario has a page that still answers; an interruption (Ctrl-C)
    /// ends the pause.
    pub(super) async fn pause_on_failure(&self, n: usize) {
        if PauseMode::from_env().unwrap_or_default() != PauseMode::OnFailure {
            return;
        }
        let pages = self.pages.lock().expect("pages lock").clone();
        if pages.is_empty() || self.is_unresponsive() {
            return;
        }
        let title = self.def.steps.get(n - 1).map_or("", |s| s.title);
        let what = format!(
            "step {n} \"{title}\" of scenario {} failed (HARSHJUDGE_PAUSE=on-failure)",
            self.def.slug
        );
        let at = PauseAt {
            what,
            run_dir: Some(self.run_dir().path()),
        };
        let mut interrupt = super::interrupt_channel().subscribe();
        tokio::select! {
            _ = pause(&pages, at) => {}
            Ok(()) = interrupt.changed() => {}
        }
    }

    /// What [`harshjudge_browser::ScenarioEvidence::hold_clock`] holds as
    /// `page.pause()` begins: the running step's timer, stopped; and the
    /// step's trace so far written (`trace.json`, replaced at the step's
    /// end), so that the trace the pause points to is there to look at.
    pub(super) fn clock_hold(self: std::sync::Arc<Self>) -> Box<dyn Send> {
        self.trace_so_far();
        Box::new(ClockHold::new(self))
    }

    /// Writes the running step's trace so far (when tracing is on and a page
    /// opened), as its end will write the whole.
    fn trace_so_far(&self) {
        let Some(tracer) = &self.tracer else {
            return;
        };
        let step = self.cursor.lock().expect("cursor lock").step;
        if step == 0 {
            return;
        }
        let id = Self::step_id(step);
        let Some(file) = tracer.step_so_far(id.as_str()) else {
            return;
        };
        self.emit_trace(&id, &file, None, &[], &[]);
    }
}
