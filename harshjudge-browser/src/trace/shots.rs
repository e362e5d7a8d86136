//! A screenshot after each action of a step's trace, when asked
//! (`HARSHJUDGE_TRACE_SCREENSHOTS=on`, D14 of docs/design/trace.md): a
//! viewport PNG taken when an action's, a navigation's or an input's span
//! ends (after its DOM snapshot), held with the step's trace and written only
//! when the step keeps it, as `trace-NN.png` in the step's evidence (NN: the
//! entry's number), through the store's blobs: an unchanged screen is one
//! file's content however often it is taken. Off, nothing here runs.
//!
//! Bounds: one screenshot call waits at most [`CALL_LIMIT`]; a step holds
//! at most [`STEP_LIMIT`] bytes of PNGs, the oldest dropped past it (said in
//! `trace.json`'s `limits`). A screenshot that could not be taken is said in
//! the file's `errors`, never the action's failure.

use std::time::Duration;

use super::Tracer;
use super::dom::SnapshotPage;

/// One screenshot call's limit.
const CALL_LIMIT: Duration = Duration::from_secs(5);
/// What a step may hold of screenshots, in bytes.
pub(crate) const STEP_LIMIT: usize = 32 << 20;

/// The screenshots a step holds (the tracer's state).
#[derive(Default)]
pub(crate) struct Shots {
    /// Each entry's (by `seq`) PNG, in the order taken.
    pub held: Vec<(u64, Vec<u8>)>,
    bytes: usize,
    /// Screenshots dropped past [`STEP_LIMIT`].
    pub dropped: usize,
    /// Entries whose screenshot could not be taken, and why.
    pub failed: Vec<(u64, String)>,
}

impl Shots {
    /// Holds `png` as entry `entry`'s screenshot, dropping the oldest held
    /// past [`STEP_LIMIT`].
    pub(crate) fn hold(&mut self, entry: u64, png: Vec<u8>) {
        self.bytes += png.len();
        self.held.push((entry, png));
        while self.bytes > STEP_LIMIT && !self.held.is_empty() {
            let (_, old) = self.held.remove(0);
            self.bytes -= old.len();
            self.dropped += 1;
        }
    }
}

/// The file name of entry `n`'s screenshot: `trace-03.png`.
pub(crate) fn file_name(n: u32) -> String {
    format!("{}.png", stem(n))
}

/// [`file_name`] without its extension (an evidence name).
pub(crate) fn stem(n: u32) -> String {
    format!("trace-{n:02}")
}

/// Takes and holds the screenshot after entry `entry` of `page`.
pub(crate) async fn after(page: &dyn SnapshotPage, tracer: &Tracer, entry: u64) {
    let taken = match tokio::time::timeout(CALL_LIMIT, page.screenshot()).await {
        Err(_) => Err(format!("no answer within {CALL_LIMIT:?}")),
        Ok(None) => return,
        Ok(Some(r)) => r.map_err(|e| e.to_string()),
    };
    let mut s = tracer.state();
    match taken {
        Ok(png) => s.shots.hold(entry, png),
        Err(why) => s.shots.failed.push((entry, why)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_holds_the_latest_screenshots_within_its_limit_and_names_them_by_entry() {
        let mut shots = Shots::default();
        let third = STEP_LIMIT / 3 + 1;
        for entry in 0..4 {
            shots.hold(entry, vec![entry as u8; third]);
        }
        let kept: Vec<u64> = shots.held.iter().map(|(e, _)| *e).collect();
        assert_eq!((kept, shots.dropped), (vec![2, 3], 2));
        assert_eq!(file_name(3), "trace-03.png");
        assert_eq!(stem(12), "trace-12");
        assert_eq!(file_name(120), "trace-120.png");
    }
}
